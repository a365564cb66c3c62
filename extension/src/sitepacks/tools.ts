// SPDX-License-Identifier: GPL-3.0-or-later
//
// Site tools as provider tools: each listed tool of a pack becomes a
// ToolDef that goes through runTool() like every other tool: authorize
// with the app first (a write also carries the pack's UUID as target, the
// params hash and a redacted preview, and is audited), then run in the
// page. A tool is a write unless its pack declares readOnlyHint: true.

import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { byteLength, ScriptError } from '../provider/scripts.ts';
import { cleanName } from '../shared/text.ts';
import type { ToolDef } from '../provider/tools.ts';
import type { SiteToolDef } from './runtime.ts';
import type { CatalogueEntry, PackRecord, SiteRegistry } from './registry.ts';

export function isWrite (def: SiteToolDef): boolean {
  return def.annotations?.readOnlyHint !== true;
}

// What a reviewer sees and the audit keeps: which pack, which tool, which
// arguments by name and size. Never the pack's source, nor argument values.
// The argument names come from the agent: at most 32 of them, each
// cleaned, and how many there were.
const MAX_ARG_KEYS = 32;

export function sitePreview (pack: PackRecord, def: SiteToolDef, args: Record<string, unknown>): Record<string, unknown> {
  const keys = Object.keys(args).sort();
  return {
    action: 'site_tool', uuid: pack.id, pack: pack.meta.name, version: pack.meta.version, origin: pack.origin, type: pack.meta.type,
    tool: def.name, title: def.title ?? def.name, write: isWrite(def),
    argKeys: keys.slice(0, MAX_ARG_KEYS).map((k) => cleanName(k, 64) ?? '?'), argCount: keys.length, argsBytes: byteLength(JSON.stringify(args)),
  };
}

function describeTool (pack: PackRecord, def: SiteToolDef): string {
  const base = def.description ?? def.title ?? def.name;
  const where = pack.meta.type === 'pageMcpServer' ? 'in the page' : 'beside the page (content script)';
  const when = pack.meta.isAlwaysEnabled
    ? `If no tab of ${pack.meta.name} is open, a call opens ${pack.meta.toolsJumpLinks?.[def.name] ?? pack.meta.url} first.`
    : `Listed while a tab of ${pack.meta.name} is open.`;
  return `${base}\n\n(Site tool of ${pack.meta.name}; runs ${where}. ${when})`;
}

export function siteToolDef (entry: CatalogueEntry, registry: SiteRegistry): ToolDef {
  const { pack, def } = entry;
  const write = isWrite(def);
  const a = def.annotations ?? {};
  return {
    name: entry.l1,
    title: def.title ?? def.name,
    description: describeTool(pack, def),
    write,
    annotations: {
      readOnlyHint: !write,
      ...(typeof a.destructiveHint === 'boolean' ? { destructiveHint: a.destructiveHint } : {}),
      ...(typeof a.idempotentHint === 'boolean' ? { idempotentHint: a.idempotentHint } : {}),
      openWorldHint: typeof a.openWorldHint === 'boolean' ? a.openWorldHint : true,
    },
    inputSchema: {},
    jsonSchema: def.inputSchema,
    rawResult: true,
    plan: async (args: Record<string, unknown>) => {
      // Before authorize: a pack that cannot run asks no one to review it.
      const why = registry.notReady(pack);
      if (why !== null)
        throw new ScriptError(why);
      return {
        target: pack.id,
        ...(write ? { preview: sitePreview(pack, def, args) } : {}),
        run: async (): Promise<CallToolResult> => registry.invoke(pack.id, def.name, args) as Promise<CallToolResult>,
      };
    },
  };
}

export function siteToolDefs (registry: SiteRegistry): ToolDef[] {
  return registry.catalogue().accepted.map((e) => siteToolDef(e, registry));
}
