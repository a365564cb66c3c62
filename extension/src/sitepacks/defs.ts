// SPDX-License-Identifier: GPL-3.0-or-later
//
// What the worker accepts from a page: tool definitions (each checked on
// its own, the bad ones refused with a reason the page logs) and tool
// results. A page is not trusted to have run our runtime unchanged (a
// pageMcpServer pack shares its world with the page), so both are checked
// again here.

import { MAX_TOOLS } from '../shared/limits.ts';
import { cleanName } from '../shared/text.ts';
import { checkPackToolName } from './naming.ts';
import { errorResult, MAX_DESCRIPTION, MAX_RESULT_BYTES, MAX_TITLE, type SiteToolDef } from './runtime.ts';
import type { ToolResult } from './types.ts';

const MAX_SCHEMA_BYTES = 64 * 1024;
const ANNOTATION_TYPES: Record<string, string> = {
  title: 'string', readOnlyHint: 'boolean', destructiveHint: 'boolean', idempotentHint: 'boolean', openWorldHint: 'boolean',
};

function isObj (v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// The tool definitions a page sent, each checked; the bad ones refused
// with a reason the page logs.
export function checkDefs (prefix: string, raw: unknown): { defs: SiteToolDef[]; refused: Array<{ name: string; reason: string }> } {
  const defs: SiteToolDef[] = [];
  const refused: Array<{ name: string; reason: string }> = [];
  if (!Array.isArray(raw))
    return { defs, refused: [{ name: '', reason: 'the tools are not a list' }] };
  const seen = new Set<string>();
  for (const d of raw) {
    const name = isObj(d) && typeof d.name === 'string' ? d.name : '';
    const bad = (reason: string): void => { refused.push({ name, reason }); };
    if (!isObj(d)) { bad('not an object'); continue; }
    const r = checkPackToolName(prefix, d.name);
    if (r !== null) { bad(r); continue; }
    if (seen.has(name)) { bad('registered twice; the first one is kept'); continue; }
    if (defs.length >= MAX_TOOLS) { bad(`a pack may register at most ${MAX_TOOLS} tools`); continue; }
    if (d.title !== undefined && (typeof d.title !== 'string' || d.title.length > MAX_TITLE)) { bad(`title must be a string of at most ${MAX_TITLE} characters`); continue; }
    if (d.description !== undefined && (typeof d.description !== 'string' || d.description.length > MAX_DESCRIPTION)) { bad(`description must be a string of at most ${MAX_DESCRIPTION} characters`); continue; }
    if (!isObj(d.inputSchema) || d.inputSchema.type !== 'object') { bad('inputSchema must be a JSON Schema of type "object"'); continue; }
    if (JSON.stringify(d.inputSchema).length > MAX_SCHEMA_BYTES) { bad(`inputSchema is larger than ${MAX_SCHEMA_BYTES} bytes`); continue; }
    const def: SiteToolDef = { name, inputSchema: d.inputSchema };
    // A title is a name a person reads: cleaned here, where it comes in.
    const title = cleanName(d.title, MAX_TITLE);
    if (title !== undefined)
      def.title = title;
    if (typeof d.description === 'string')
      def.description = d.description;
    if (d.annotations !== undefined) {
      if (!isObj(d.annotations) || Object.entries(d.annotations).some(([k, v]) => typeof v !== ANNOTATION_TYPES[k])) {
        bad('annotations may hold only title (a string) and the boolean hints');
        continue;
      }
      def.annotations = { ...d.annotations };
    }
    seen.add(name);
    defs.push(def);
  }
  return { defs, refused };
}

export function checkResult (value: unknown): ToolResult {
  if (!isObj(value) || !Array.isArray(value.content) ||
      !value.content.every((c) => isObj(c) && typeof c.type === 'string' && (c.type !== 'text' || typeof c.text === 'string')))
    return errorResult('The page answered with something that is not a tool result.');
  if (JSON.stringify(value).length > MAX_RESULT_BYTES + 1024)
    return errorResult(`The page's result is larger than ${MAX_RESULT_BYTES} bytes.`);
  const r: ToolResult = { content: value.content as ToolResult['content'] };
  if (value.isError === true)
    r.isError = true;
  return r;
}

