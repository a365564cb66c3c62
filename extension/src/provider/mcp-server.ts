// SPDX-License-Identifier: GPL-3.0-or-later
//
// One McpServer per lumo:mcp port: the catalogue (checked against the
// protocol's limits before anything is listed), instructions written from
// the policy in force when the port opened, and every tool routed through
// runTool() with this port's caller.

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/cfworker';
import { checkCatalogue } from '../shared/limits.ts';
import type { BridgePolicy } from './bridge.ts';
import { runTool, TOOLS, type ToolContext, type ToolDef } from './tools.ts';

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

// The catalogue as the bridge's hello/tools messages carry it.
export function bridgeCatalogue (tools: readonly ToolDef[]): Array<Record<string, unknown>> {
  return tools.map((t) => ({ name: t.name, title: t.title, description: t.description, write: t.write, annotations: t.annotations }));
}

export function instructions (policy: BridgePolicy | null): string {
  const parts = [
    'Lumo Userscripts manages userscripts: small JavaScript programs that run on the web pages their match patterns name. ' +
    'Use list_scripts to see them, get_script to read one, and the other tools to change them.',
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

export function createProviderServer (tools: readonly ToolDef[], policy: BridgePolicy | null, ctx: ToolContext,
  progressIntervalMs = PROGRESS_INTERVAL_MS): McpServer {
  const server = new McpServer(
    { name: SERVICE.name, version: SERVICE.version },
    {
      instructions: instructions(policy),
      capabilities: { tools: {} },
      // MV3's CSP forbids new Function, which the default (Ajv) validator needs.
      jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
    },
  );
  for (const def of tools) {
    server.registerTool(def.name, {
      title: def.title,
      description: def.description,
      inputSchema: def.inputSchema,
      annotations: { title: def.title, ...def.annotations },
    }, async (args: Record<string, unknown>, extra) => {
      const token = extra._meta?.progressToken;
      let timer: ReturnType<typeof setInterval> | undefined;
      if (token !== undefined) {
        let progress = 0;
        timer = setInterval(() => {
          extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress: ++progress, message: 'Waiting for Lumo Access; a person may be reviewing this call.' },
          }).catch(() => undefined);
        }, progressIntervalMs);
      }
      try {
        return await runTool(def, args ?? {}, ctx);
      } finally {
        clearInterval(timer);
      }
    });
  }
  return server;
}
