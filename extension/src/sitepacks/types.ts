// SPDX-License-Identifier: GPL-3.0-or-later
//
// The types a site-pack author writes against (docs/site-packs.md): the
// meta.ts object and the registration function of index.ts, with the
// shapes of the mcp-servers guide. Packs may import them with
// `import type { SitePackMeta, SitePackRegister } from '…/types.ts'`; a pack
// written without types builds too (extension/sites is checked with
// noImplicitAny off).

import type { z as zod } from 'zod';

export type SitePackType = 'pageMcpServer' | 'contentScriptMcpServer';

// One entry of customMarketMcpServers, the guide's PluginInfo. Only id, name
// and url are required; the rest is passed on for display.
export interface MarketServer {
  id: string;
  name: string;
  url: string;
  description?: string;
  icon?: string;
  type?: 'sse' | 'streamableHttp';
  enabled?: boolean;
  addState?: string;
  tools?: unknown[];
}

export interface SitePackMeta {
  // The domain the pack serves, as location.hostname spells it; equal to
  // the folder name (bundled) or the script name (installed).
  name: string;
  type: SitePackType;
  // The page to open when a tool of an always-enabled pack is called and
  // no matching tab is open (http or https, on the pack's domain).
  url: string;
  isAlwaysEnabled: boolean;
  toolsJumpLinks?: Record<string, string>;
  customMarketMcpServers?: Array<MarketServer | null | Record<string, never>>;
  // Semantic version, e.g. "1.0.0".
  version: string;
  // Lumo addition: the prefix of the pack's tool names on L1 ("baidu" in
  // "baidu_get-page-title"). Default: derived from name.
  toolPrefix?: string;
}

export interface TextContent {
  type: 'text';
  text: string;
}

export interface ToolResult {
  content: Array<TextContent | { type: string; [key: string]: unknown }>;
  isError?: boolean;
}

export interface ToolAnnotations {
  title?: string;
  // Declare a tool that only reads: it then needs no write permission and
  // is not rate-limited or reviewed as a write. Tools without it are writes.
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface ToolConfig {
  title?: string;
  description?: string;
  inputSchema?: Record<string, zod.ZodType> | zod.ZodObject;
  annotations?: ToolAnnotations;
}

export type ToolHandler = (args: any) => ToolResult | Promise<ToolResult>;

export interface SitePackServer {
  registerTool (name: string, config: ToolConfig, handler: ToolHandler): { name: string };
}

export interface SitePackContext {
  server: SitePackServer;
  z: typeof zod;
  // The page's cookies (those document.cookie shows; not HttpOnly ones),
  // read when accessed. Read-only: change cookies with document.cookie.
  cookie: Readonly<Record<string, string>>;
}

export type SitePackRegister = (ctx: SitePackContext) => void | Promise<void>;
