// SPDX-License-Identifier: GPL-3.0-or-later
//
// The userscript management tools. Each tool describes itself (schema,
// annotations, read or write) and plans a call: what the app must see to
// decide (target UUID, redacted preview) and what to run once allowed.
// runTool() is the one path every call takes: authorize with the app first,
// then run, then report the result of a write. Every refusal or business
// failure is an isError result the model can read, never a thrown error.

import { z } from 'zod';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { paramsHash } from '../shared/sha256.ts';
import type { SiteToolDef } from '../sitepacks/runtime.ts';
import type { SitePackMeta } from '../sitepacks/types.ts';
import { MAX_PREVIEW_BYTES, scriptPreview, type ScriptPreview } from './preview.ts';
import { cleanName, utf8Length } from '../shared/text.ts';
import { derivePrefix, l1Name, matchPatterns } from '../sitepacks/naming.ts';
import { isWrite } from '../sitepacks/tools.ts';
import { ScriptError, ScriptStore, summarize, type Script } from './scripts.ts';

export interface AuthorizeRequest {
  tool: string;
  write: boolean;
  target?: string;
  paramsHash?: string;
  preview?: Record<string, unknown>;
}

export type AuthorizeOutcome =
  | { allow: true; auditId?: number }
  | { allow: false; message: string; reason: string; auditId?: number };

// A site pack checked for install before anything of it runs: its meta,
// the tools its source declares (name, read or write), their names on L1,
// the code to run once the install is allowed, and what the author should
// hear of that does not stop the install (each naming its field).
export interface PreparedPack {
  meta: SitePackMeta;
  tools: Array<{ name: string; write: boolean }>;
  l1Names: string[];
  code: string;
  warnings: string[];
}

// What the management tools need of the site packs (src/sitepacks/).
export interface SitePackService {
  // Checks meta, source and names for an install or update of script
  // @uuid without running any of it; throws a ScriptError that names the
  // field and why.
  prepare (input: { uuid: string; name: string; meta: unknown; source: string }): Promise<PreparedPack>;
  // Once the write is allowed: runs the registration code in a fresh
  // sandbox and returns the definitions to store, only tools @pack
  // declared; throws a ScriptError when the code fails or registers more.
  confirm (pack: PreparedPack, uuid: string): Promise<SiteToolDef[]>;
  report (): Promise<Record<string, unknown>>;
}

export interface ToolContext {
  store: ScriptStore;
  newUuid: () => string;
  // @requestId: the JSON-RPC id of the tools/call (a virtual port's calls
  // may come with the app's decision for it).
  authorize: (req: AuthorizeRequest, requestId?: unknown) => Promise<AuthorizeOutcome>;
  complete: (auditId: number, ok: boolean, error?: string) => Promise<void>;
  sitePacks?: SitePackService;
  // Resolves once a change of the store is in effect (the user scripts of
  // the scripts and packs registered with the browser). A write tool waits
  // for it before it answers, so a page opened after the answer runs what
  // was written.
  applied?: () => Promise<void>;
}

interface Plan {
  target?: string;
  preview?: ScriptPreview | Record<string, unknown>;
  run: () => Promise<unknown>;
}

export interface ToolDef {
  name: string;
  title: string;
  description: string;
  write: boolean;
  annotations: ToolAnnotations;
  inputSchema: z.ZodRawShape;
  // A schema given as JSON Schema (site tools, whose zod schema lives in
  // the page): listed as is; the arguments are checked where it runs.
  jsonSchema?: Record<string, unknown>;
  // run() returns a CallToolResult to pass on (site tools), not a value.
  rawResult?: boolean;
  plan: (args: any, ctx: ToolContext) => Promise<Plan>;
}

const uuidArg = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
  'a lowercase UUID such as 0f8fad5b-d9cb-469f-a165-70867728950e').describe('The script\'s UUID');
const nameArg = z.string().min(1).max(128).describe('A short name people recognise the script by');
const descriptionArg = z.string().max(1024).describe('What the script does');
const matchesArg = z.array(z.string().min(1).max(2048)).max(64)
  .describe('Match patterns of the pages the script runs on, e.g. "https://example.com/*"');
const sourceArg = z.string().describe('The JavaScript source of the script');
const metaArg = z.record(z.string(), z.unknown()).describe(
  'Makes the script a site pack (docs/site-packs.md): the meta.ts object {name: the domain, e.g. "example.com", ' +
  'type: "pageMcpServer" | "contentScriptMcpServer", url: the page to open, isAlwaysEnabled: boolean, ' +
  'toolsJumpLinks?: {tool: url}, customMarketMcpServers?: [...], version: "1.0.0"}. ' +
  'The source is then the registration code: export default ({ server, z, cookie }) => { server.registerTool(name, {title, description, inputSchema}, handler) }. ' +
  'Its tools are listed as <prefix>_<tool>; the pack runs on meta.name and its subdomains, so leave matches out.');

async function prepareSitePack (ctx: ToolContext, uuid: string, name: string, meta: unknown, source: string): Promise<PreparedPack> {
  if (ctx.sitePacks === undefined)
    throw new ScriptError('Site packs are not available in this provider.');
  return ctx.sitePacks.prepare({ uuid, name, meta, source });
}

async function confirmSitePack (ctx: ToolContext, pack: PreparedPack, uuid: string): Promise<SiteToolDef[]> {
  if (ctx.sitePacks === undefined)
    throw new ScriptError('Site packs are not available in this provider.');
  return ctx.sitePacks.confirm(pack, uuid);
}

// A site pack as the reviewer sees it: where it runs, how, and each tool
// (its name on L1) with its class.
function packPreview (meta: SitePackMeta, tools: ReadonlyArray<{ name: string; write: boolean }>): Record<string, unknown> {
  const prefix = meta.toolPrefix ?? derivePrefix(meta.name);
  return {
    domain: meta.name, type: meta.type, version: meta.version, url: meta.url, isAlwaysEnabled: meta.isAlwaysEnabled,
    tools: tools.map((t) => ({ name: l1Name(prefix, t.name), write: t.write })),
  };
}

// The answer of an install, with what the author should still hear of.
function withWarnings<T extends object> (answer: T, pack: PreparedPack): T | (T & { warnings: string[] }) {
  return pack.warnings.length === 0 ? answer : { ...answer, warnings: pack.warnings };
}

function storedPackPreview (s: Script): Record<string, unknown> | null {
  return s.sitePack === undefined ? null : packPreview(s.sitePack.meta, s.sitePack.tools.map((d) => ({ name: d.name, write: isWrite(d) })));
}

// Where a stored script runs now.
function matchesOf (s: Script): string[] {
  return s.sitePack !== undefined ? matchPatterns(s.sitePack.meta.name) : s.matches;
}

// A script name as given: display text, cleaned at the edge.
function scriptName (name: string): string {
  const clean = cleanName(name, 128);
  if (clean === undefined)
    throw new ScriptError('The script name is empty (control and direction characters are not kept).');
  return clean;
}

// A store write, then the wait until it is in effect.
async function stored<T> (ctx: ToolContext, write: Promise<T>): Promise<T> {
  const value = await write;
  await ctx.applied?.();
  return value;
}

function json (value: unknown): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }] };
}

function resultText (r: CallToolResult): string {
  return r.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
}

export function errorResult (message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

function withPack (p: ScriptPreview, s: Script): Record<string, unknown> {
  const pack = storedPackPreview(s);
  return pack === null ? { ...p } : { ...p, sitePack: pack };
}

// A preview for a script the call names but that does not exist: the app
// still audits the attempt, and the run will fail with "not found".
function missingPreview (action: ScriptPreview['action'], uuid: string): Record<string, unknown> {
  return { action, uuid, missing: true };
}

export const TOOLS: readonly ToolDef[] = [
  {
    name: 'list_scripts',
    title: 'List userscripts',
    description: 'Lists the userscripts with their UUID, name, match patterns, size and whether each is enabled. Sources are not included; use get_script.',
    write: false,
    annotations: { readOnlyHint: true, openWorldHint: false },
    inputSchema: {},
    plan: async (_args, ctx) => ({ run: async () => ({ scripts: (await ctx.store.list()).map(summarize) }) }),
  },
  {
    name: 'get_script',
    title: 'Read a userscript',
    description: 'Returns one userscript, including its source.',
    write: false,
    annotations: { readOnlyHint: true, openWorldHint: false },
    inputSchema: { uuid: uuidArg },
    plan: async (args: { uuid: string }, ctx) => ({ target: args.uuid, run: async () => ctx.store.require(args.uuid) }),
  },
  {
    name: 'create_script',
    title: 'Create a userscript',
    description: 'Creates a userscript and returns its new UUID. The script runs on pages that match its patterns once enabled (the default). ' +
      'With meta it is a site pack instead: a per-site MCP server whose tools agents can call (list_site_packs shows them).',
    write: true,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    inputSchema: {
      name: nameArg.optional().describe('A short name people recognise the script by (required unless meta is given; for a site pack it must equal meta.name)'),
      source: sourceArg,
      description: descriptionArg.optional(), matches: matchesArg.optional(),
      enabled: z.boolean().optional().describe('Whether the script runs (default true)'),
      meta: metaArg.optional(),
    },
    plan: async (args: { name?: string; source: string; description?: string; matches?: string[]; enabled?: boolean; meta?: Record<string, unknown> }, ctx) => {
      const uuid = ctx.newUuid();
      if (args.meta === undefined) {
        if (args.name === undefined)
          throw new ScriptError('name is required (or meta, for a site pack).');
        const name = scriptName(args.name);
        return {
          target: uuid,
          preview: await scriptPreview('create', uuid, name, '', args.source, args.enabled ?? true, args.matches ?? []),
          run: async () => summarize(await stored(ctx, ctx.store.create(uuid, { ...args, name }))),
        };
      }
      if (args.matches !== undefined)
        throw new ScriptError('matches: a site pack runs on the pages of meta.name and its subdomains; leave matches out.');
      const name = args.name ?? (typeof args.meta.name === 'string' ? args.meta.name : '');
      const pack = await prepareSitePack(ctx, uuid, name, args.meta, args.source);
      return {
        target: uuid,
        preview: {
          ...await scriptPreview('create', uuid, name, '', args.source, args.enabled ?? true, matchPatterns(pack.meta.name)),
          sitePack: packPreview(pack.meta, pack.tools),
        },
        run: async () => {
          const tools = await confirmSitePack(ctx, pack, uuid);
          return withWarnings(summarize(await stored(ctx, ctx.store.create(uuid, {
            name, source: args.source, description: args.description ?? '', enabled: args.enabled ?? true,
            sitePack: { meta: pack.meta, tools },
          }))), pack);
        },
      };
    },
  },
  {
    name: 'update_script',
    title: 'Change a userscript',
    description: 'Changes the name, description, match patterns or source of a userscript, or the meta and source of a site pack. Fields left out stay as they are.',
    write: true,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    inputSchema: {
      uuid: uuidArg, name: nameArg.optional(), description: descriptionArg.optional(),
      matches: matchesArg.optional(), source: sourceArg.optional(), meta: metaArg.optional(),
    },
    plan: async (args: { uuid: string; name?: string; description?: string; matches?: string[]; source?: string; meta?: Record<string, unknown> }, ctx) => {
      const old = await ctx.store.get(args.uuid);
      if (old !== null && (old.sitePack !== undefined || args.meta !== undefined)) {
        if (args.matches !== undefined)
          throw new ScriptError('matches: a site pack runs on the pages of meta.name and its subdomains; leave matches out.');
        const meta = args.meta ?? old.sitePack?.meta;
        const name = args.name ?? (args.meta !== undefined && typeof args.meta.name === 'string' ? args.meta.name : old.name);
        const source = args.source ?? old.source;
        const pack = await prepareSitePack(ctx, old.uuid, name, meta, source);
        return {
          target: args.uuid,
          preview: {
            ...await scriptPreview('update', old.uuid, name, old.source, source, undefined, { old: matchesOf(old), new: matchPatterns(pack.meta.name) }),
            sitePack: { old: storedPackPreview(old), new: packPreview(pack.meta, pack.tools) },
          },
          run: async () => {
            const tools = await confirmSitePack(ctx, pack, old.uuid);
            return withWarnings(summarize(await stored(ctx, ctx.store.update(args.uuid, {
              name, description: args.description, source: args.source, matches: [],
              sitePack: { meta: pack.meta, tools },
            }))), pack);
          },
        };
      }
      const name = args.name === undefined ? undefined : scriptName(args.name);
      return {
        target: args.uuid,
        preview: old === null
          ? missingPreview('update', args.uuid)
          : await scriptPreview('update', old.uuid, name ?? old.name, old.source, args.source ?? old.source, undefined,
            { old: old.matches, new: args.matches ?? old.matches }),
        run: async () => summarize(await stored(ctx, ctx.store.update(args.uuid, {
          name, description: args.description, matches: args.matches, source: args.source,
        }))),
      };
    },
  },
  {
    name: 'delete_script',
    title: 'Delete a userscript',
    description: 'Deletes a userscript for good.',
    write: true,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    inputSchema: { uuid: uuidArg },
    plan: async (args: { uuid: string }, ctx) => {
      const old = await ctx.store.get(args.uuid);
      return {
        target: args.uuid,
        preview: old === null
          ? missingPreview('delete', args.uuid)
          : withPack(await scriptPreview('delete', old.uuid, old.name, old.source, '', undefined, matchesOf(old)), old),
        run: async () => ({ deleted: (await stored(ctx, ctx.store.remove(args.uuid))).uuid }),
      };
    },
  },
  {
    name: 'set_script_enabled',
    title: 'Turn a userscript on or off',
    description: 'Enables or disables a userscript without changing it.',
    write: true,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    inputSchema: { uuid: uuidArg, enabled: z.boolean().describe('true to run the script, false to stop it') },
    plan: async (args: { uuid: string; enabled: boolean }, ctx) => {
      const old: Script | null = await ctx.store.get(args.uuid);
      const action = args.enabled ? 'enable' : 'disable';
      return {
        target: args.uuid,
        preview: old === null
          ? missingPreview(action, args.uuid)
          : withPack(await scriptPreview(action, old.uuid, old.name, old.source, old.source, args.enabled, matchesOf(old)), old),
        run: async () => summarize(await stored(ctx, ctx.store.update(args.uuid, { enabled: args.enabled }))),
      };
    },
  },
  {
    name: 'list_site_packs',
    title: 'List site packs',
    description: 'Lists the site packs (bundled and installed): per pack its domain, type, version, whether it is ready (and if not, why and what to do), ' +
      'its tools and their names here, and how many matching tabs are open; also the MCP servers the packs recommend.',
    write: false,
    annotations: { readOnlyHint: true, openWorldHint: false },
    inputSchema: {},
    plan: async (_args, ctx) => ({
      run: async () => {
        if (ctx.sitePacks === undefined)
          throw new ScriptError('Site packs are not available in this provider.');
        return ctx.sitePacks.report();
      },
    }),
  },
];

// The one path of every tool call: authorize (policy re-checked each time,
// so a toggle acts at once), run, report.
export async function runTool (def: ToolDef, args: Record<string, unknown>, ctx: ToolContext,
  requestId?: unknown): Promise<CallToolResult> {
  let plan: Plan;
  let req: AuthorizeRequest;
  try {
    plan = await def.plan(args, ctx);
    req = { tool: def.name, write: def.write };
    if (plan.target !== undefined)
      req.target = plan.target;
    if (def.write) {
      req.paramsHash = await paramsHash(args);
      req.preview = (plan.preview ?? {}) as Record<string, unknown>;
      const size = utf8Length(JSON.stringify(req.preview));
      if (size > MAX_PREVIEW_BYTES)
        throw new ScriptError(`This change cannot be shown to a reviewer in full: its summary would be ${size} bytes, more than ${MAX_PREVIEW_BYTES}. Use fewer or shorter match patterns.`);
    }
  } catch (e) {
    return errorResult(e instanceof Error ? e.message : String(e));
  }

  const auth = await ctx.authorize(req, requestId);
  if (!auth.allow)
    return errorResult(auth.message);

  try {
    const value = await plan.run();
    if (def.rawResult) {
      const r = value as CallToolResult;
      if (def.write && auth.auditId !== undefined)
        await ctx.complete(auth.auditId, r.isError !== true, r.isError === true ? resultText(r) : undefined);
      return r;
    }
    if (def.write && auth.auditId !== undefined)
      await ctx.complete(auth.auditId, true);
    return json(value);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    if (def.write && auth.auditId !== undefined)
      await ctx.complete(auth.auditId, false, message);
    if (e instanceof ScriptError)
      return errorResult(message);
    return errorResult(`The tool failed: ${message}`);
  }
}
