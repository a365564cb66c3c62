// SPDX-License-Identifier: GPL-3.0-or-later
//
// The pack side of a site pack, the same in every place a pack's code runs
// (content script, USER_SCRIPT world, MAIN world, the install-time dry run,
// the build): the `server` a registration function registers its tools on,
// the `z` and `cookie` it receives, and the call of one tool. A handler's
// throw, a bad return value and bad arguments all become isError results:
// a call always comes back.

import { z } from 'zod';
import { PACK_TOOL_NAME_RE } from './naming.ts';
import type { ToolResult } from './types.ts';

export interface SiteToolDef {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

export interface RegisteredSiteTool {
  def: SiteToolDef;
  schema: z.ZodObject;
  handler: (args: unknown) => unknown;
}

export interface Registration {
  tools: Map<string, RegisteredSiteTool>;
  // registerTool misuse, each naming the tool and the field.
  errors: string[];
}

export const MAX_TITLE = 128;
export const MAX_DESCRIPTION = 4096;
export const MAX_RESULT_BYTES = 1024 * 1024;
export const REGISTER_TIMEOUT_MS = 10000;

const ANNOTATION_KEYS: Record<string, 'string' | 'boolean'> = {
  title: 'string', readOnlyHint: 'boolean', destructiveHint: 'boolean', idempotentHint: 'boolean', openWorldHint: 'boolean',
};

function isObj (v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isZodType (v: unknown): v is z.ZodType {
  return v instanceof z.ZodType;
}

function errText (e: unknown): string {
  if (e instanceof Error)
    return `${e.name}: ${e.message}`;
  try {
    return String(e);
  } catch {
    return 'a value that cannot be shown';
  }
}

// The object a registration function calls registerTool on.
export function createServer (reg: Registration) {
  return Object.freeze({
    registerTool (name: unknown, config: unknown, handler: unknown): { name: string } {
      const shown = typeof name === 'string' ? `"${name}"` : String(name);
      const fail = (why: string): { name: string } => {
        reg.errors.push(`registerTool(${shown}): ${why}`);
        return { name: String(name) };
      };
      if (typeof name !== 'string' || !PACK_TOOL_NAME_RE.test(name))
        return fail('the tool name must be a string of A-Z, a-z, 0-9, "_" and "-" (kebab-case, e.g. "get-page-title")');
      if (name.length > 40)
        return fail(`the tool name is ${name.length} characters; at most 40 (less the pack's prefix)`);
      if (reg.tools.has(name))
        return fail('this name is registered twice; the first one is kept');
      const cfg = config === undefined ? {} : config;
      if (!isObj(cfg))
        return fail('the second argument must be the config object {title, description, inputSchema}');
      for (const k of Object.keys(cfg))
        if (!['title', 'description', 'inputSchema', 'annotations', 'outputSchema', '_meta'].includes(k))
          return fail(`config.${k} is not a field of the config (title, description, inputSchema, annotations)`);
      if (cfg.title !== undefined && (typeof cfg.title !== 'string' || cfg.title.length > MAX_TITLE))
        return fail(`config.title must be a string of at most ${MAX_TITLE} characters`);
      if (cfg.description !== undefined && (typeof cfg.description !== 'string' || cfg.description.length > MAX_DESCRIPTION))
        return fail(`config.description must be a string of at most ${MAX_DESCRIPTION} characters`);
      if (typeof handler !== 'function')
        return fail('the third argument must be the handler function');

      let schema: z.ZodObject;
      const input = cfg.inputSchema;
      if (input === undefined)
        schema = z.object({});
      else if (input instanceof z.ZodObject)
        schema = input;
      else if (isObj(input) && !isZodType(input)) {
        for (const [k, v] of Object.entries(input))
          if (!isZodType(v))
            return fail(`config.inputSchema.${k} is not a zod schema (use the z passed in: z.string(), z.number(), …)`);
        schema = z.object(input as Record<string, z.ZodType>);
      } else
        return fail('config.inputSchema must be an object of zod schemas ({ text: z.string() }) or a z.object()');

      let json: Record<string, unknown>;
      try {
        json = z.toJSONSchema(schema, { io: 'input', target: 'draft-7' }) as Record<string, unknown>;
        delete json.$schema;
      } catch (e) {
        return fail(`config.inputSchema cannot be described in JSON Schema for the model (${e instanceof Error ? e.message : String(e)}); use plain types such as z.string()`);
      }

      let annotations: Record<string, unknown> | undefined;
      if (cfg.annotations !== undefined) {
        if (!isObj(cfg.annotations))
          return fail('config.annotations must be an object such as { readOnlyHint: true }');
        annotations = {};
        for (const [k, v] of Object.entries(cfg.annotations)) {
          const want = ANNOTATION_KEYS[k];
          if (want === undefined)
            return fail(`config.annotations.${k} is not an annotation (${Object.keys(ANNOTATION_KEYS).join(', ')})`);
          if (typeof v !== want)
            return fail(`config.annotations.${k} must be a ${want}`);
          annotations[k] = v;
        }
      }

      const def: SiteToolDef = { name, inputSchema: json };
      if (typeof cfg.title === 'string')
        def.title = cfg.title;
      if (typeof cfg.description === 'string')
        def.description = cfg.description;
      if (annotations !== undefined)
        def.annotations = annotations;
      reg.tools.set(name, { def, schema, handler: handler as (args: unknown) => unknown });
      return { name };
    },
  });
}

export function parseCookies (text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of text.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0)
      continue;
    const k = part.slice(0, eq).trim();
    if (k.length === 0 || Object.prototype.hasOwnProperty.call(out, k))
      continue;
    const v = part.slice(eq + 1).trim();
    try {
      out[k] = decodeURIComponent(v);
    } catch {
      out[k] = v;
    }
  }
  return out;
}

// A read-only view of the cookies that reads @read() on every access, so a
// handler sees a login that happened after the page loaded.
export function cookieView (read: () => string): Readonly<Record<string, string>> {
  const now = (): Record<string, string> => parseCookies(read());
  const refuse = (): boolean => {
    throw new TypeError('cookie is read-only; change cookies with document.cookie');
  };
  return new Proxy(Object.create(null) as Record<string, string>, {
    get: (_t, k) => (typeof k === 'string' ? now()[k] : undefined),
    has: (_t, k) => typeof k === 'string' && k in now(),
    ownKeys: () => Object.keys(now()),
    getOwnPropertyDescriptor: (_t, k) => {
      const v = typeof k === 'string' ? now()[k] : undefined;
      return v === undefined ? undefined : { value: v, enumerable: true, configurable: true, writable: false };
    },
    set: refuse,
    defineProperty: refuse,
    deleteProperty: refuse,
  });
}

// Runs a registration function and collects what it registered. A throw
// (or a rejected promise) is reported as an error, keeping the tools it
// registered before.
export async function runRegistration (register: unknown, cookie: Readonly<Record<string, string>>,
  timeoutMs = REGISTER_TIMEOUT_MS): Promise<Registration> {
  const reg: Registration = { tools: new Map(), errors: [] };
  if (typeof register !== 'function') {
    reg.errors.push(`the default export must be the registration function ({ server, z, cookie }) => { … }, not ${register === undefined ? 'undefined' : typeof register}`);
    return reg;
  }
  const server = createServer(reg);
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const done = Promise.resolve((register as (ctx: unknown) => unknown)({ server, z, cookie }));
    await Promise.race([done, new Promise((_r, reject) => {
      timer = setTimeout(() => reject(new Error(`the registration function did not finish within ${timeoutMs / 1000} s`)), timeoutMs);
    })]);
  } catch (e) {
    reg.errors.push(`the registration function threw ${errText(e)}`);
  } finally {
    clearTimeout(timer);
  }
  return reg;
}

export function errorResult (text: string): ToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

// Checks what a handler returned and makes it plain JSON.
export function normalizeResult (tool: string, value: unknown): ToolResult {
  if (!isObj(value) || !Array.isArray(value.content))
    return errorResult(`The tool "${tool}" returned ${value === undefined ? 'nothing' : Array.isArray(value) ? 'an array' : typeof value}, not { content: [{ type: 'text', text }] }.`);
  const content: ToolResult['content'] = [];
  for (const [i, item] of (value.content as unknown[]).entries()) {
    if (!isObj(item) || typeof item.type !== 'string')
      return errorResult(`The tool "${tool}" returned content[${i}] without a type; use { type: 'text', text: '…' }.`);
    if (item.type === 'text' && typeof item.text !== 'string')
      return errorResult(`The tool "${tool}" returned content[${i}].text that is ${typeof item.text}, not a string; use JSON.stringify for data.`);
    content.push(item as ToolResult['content'][number]);
  }
  let json: string;
  try {
    json = JSON.stringify({ content, isError: value.isError === true });
  } catch (e) {
    return errorResult(`The tool "${tool}" returned a result that is not JSON (${errText(e)}).`);
  }
  if (json.length > MAX_RESULT_BYTES)
    return errorResult(`The tool "${tool}" returned ${json.length} bytes; the limit is ${MAX_RESULT_BYTES}. Return less (e.g. cut long texts, fewer elements).`);
  return JSON.parse(json) as ToolResult;
}

// One tools/call, never thrown: bad arguments, a throw and a bad return
// value come back as isError results the model can read.
export async function callSiteTool (reg: Registration, tool: string, args: unknown,
  log: (...a: unknown[]) => void = () => undefined): Promise<ToolResult> {
  const t = reg.tools.get(tool);
  if (t === undefined)
    return errorResult(`This page has no tool "${tool}" (it registered ${[...reg.tools.keys()].map((n) => `"${n}"`).join(', ') || 'none'}).`);
  const parsed = t.schema.safeParse(args ?? {});
  if (!parsed.success)
    return errorResult(`Input validation error: invalid arguments for tool "${tool}": ${z.prettifyError(parsed.error)}`);
  try {
    return normalizeResult(tool, await t.handler(parsed.data));
  } catch (e) {
    log(`tool "${tool}" threw`, e);
    return errorResult(`The tool "${tool}" failed: ${errText(e)}`);
  }
}

export function toolDefs (reg: Registration): SiteToolDef[] {
  return [...reg.tools.values()].map((t) => t.def);
}
