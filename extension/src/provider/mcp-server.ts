// SPDX-License-Identifier: GPL-3.0-or-later
//
// One MCP server per lumo:mcp port: the catalogue (checked against the
// protocol's limits before anything is listed), instructions written from
// the policy in force when the port opened, and every tool routed through
// runTool() with this port's caller. The server reads the provider's
// catalogue on every tools/list and tools/call, so site tools that come and
// go with tabs are seen at once; the provider then sends
// notifications/tools/list_changed on each released port.

import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { getParseErrorMessage } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import { toJsonSchemaCompat } from '@modelcontextprotocol/sdk/server/zod-json-schema-compat.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/cfworker';
import { z } from 'zod';
import { checkCatalogue } from '../shared/limits.ts';
import { cleanName, truncateUtf8 } from '../shared/text.ts';
import type { BridgePolicy } from './bridge.ts';
import { errorResult, runTool, TOOLS, type ToolContext, type ToolDef } from './tools.ts';

export interface ServiceIdentity {
  namespace: string;
  name: string;
  version: string;
}

export const SERVICE: ServiceIdentity = {
  namespace: 'userscripts',
  name: 'Lumo Userscripts',
  version: '0.1.0',
};

// The tools that pass the limits, in order; refusals are logged once.
export function catalogue (tools: readonly ToolDef[] = TOOLS, log?: (msg: string) => void): ToolDef[] {
  const { accepted, refused } = checkCatalogue(SERVICE.namespace, tools);
  for (const r of refused)
    log?.(`tool ${r.name ?? `#${r.index}`} left out: ${r.reason}`);
  return accepted;
}

// The catalogue as the bridge's hello/tools messages carry it. Site tools
// bring their own titles and descriptions, so they are cut to the
// bridge's bounds (128 and 4096 bytes) rather than refused.
export function bridgeCatalogue (tools: readonly ToolDef[]): Array<Record<string, unknown>> {
  return tools.map((t) => ({
    name: t.name, title: cleanName(t.title, 128) ?? t.name, description: truncateUtf8(t.description, 4096, '…'), write: t.write, annotations: t.annotations,
  }));
}

const listings = new WeakMap<ToolDef, Tool>();

// A tool as tools/list shows it; zod shapes become JSON Schema the way the
// SDK's McpServer converts them.
export function toolListing (def: ToolDef): Tool {
  let t = listings.get(def);
  if (t === undefined) {
    const inputSchema = (def.jsonSchema ?? toJsonSchemaCompat(z.object(def.inputSchema), { strictUnions: true, pipeStrategy: 'input' })) as Tool['inputSchema'];
    t = { name: def.name, title: def.title, description: def.description, inputSchema, annotations: { title: def.title, ...def.annotations } };
    listings.set(def, t);
  }
  return t;
}

export function instructions (policy: BridgePolicy | null): string {
  const parts = [
    'Lumo Userscripts manages userscripts: small JavaScript programs that run on the web pages their match patterns name. ' +
    'Use list_scripts to see them, get_script to read one, and the other tools to change them.',
    'Site packs add tools for particular websites, named <site>_<tool> (e.g. baidu_get-page-title); they run in the page. ' +
    'Some are listed only while a matching tab is open; others open their page when called. list_site_packs says which are ready and why not.',
    'Every call is checked by Lumo Access, where the person who owns this browser decides what agents may do; a refused call returns an error that says why.',
  ];
  if (policy === null)
    parts.push('The current policy is not known yet; writes may be refused.');
  else if (!policy.writes)
    parts.push('Writes are off: creating, changing, enabling or deleting scripts will be refused until the person turns writes on.');
  else if (policy.review)
    parts.push('Each write is reviewed: a person approves or rejects it in Lumo Access, so a write may take a while and may be rejected.');
  else
    parts.push('Writes are on and take effect at once.');
  parts.push('Writes are limited to 30 per minute.');
  return parts.join('\n\n');
}

// While a call waits for the app (a person may be reviewing a write), a
// progress notification every so often keeps a client that asked for
// progress from timing out.
export const PROGRESS_INTERVAL_MS = 10000;

export function createProviderServer (tools: () => readonly ToolDef[], policy: BridgePolicy | null, ctx: ToolContext,
  progressIntervalMs = PROGRESS_INTERVAL_MS): Server {
  const server = new Server(
    { name: SERVICE.name, version: SERVICE.version },
    {
      instructions: instructions(policy),
      capabilities: { tools: { listChanged: true } },
      // MV3's CSP forbids new Function, which the default (Ajv) validator needs.
      jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools().map(toolListing) }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const name = request.params.name;
    const def = tools().find((t) => t.name === name);
    // As McpServer answers: an isError result, so the model reads it.
    if (def === undefined)
      return errorResult(`MCP error -32602: Tool ${name} not found`);
    let args: Record<string, unknown> = (request.params.arguments ?? {}) as Record<string, unknown>;
    if (def.jsonSchema === undefined) {
      const parsed = await z.object(def.inputSchema).safeParseAsync(args);
      if (!parsed.success)
        return errorResult(`MCP error -32602: Input validation error: Invalid arguments for tool ${name}: ${getParseErrorMessage(parsed.error)}`);
      args = parsed.data as Record<string, unknown>;
    }
    const token = extra._meta?.progressToken;
    let timer: ReturnType<typeof setInterval> | undefined;
    if (token !== undefined) {
      let progress = 0;
      timer = setInterval(() => {
        extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken: token, progress: ++progress, message: 'Waiting for Lumo Access or the page; a person may be reviewing this call.' },
        }).catch(() => undefined);
      }, progressIntervalMs);
    }
    try {
      return await runTool(def, args, ctx, extra.requestId);
    } finally {
      clearInterval(timer);
    }
  });
  return server;
}
