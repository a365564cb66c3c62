// SPDX-License-Identifier: GPL-3.0-or-later
//
// The tools an installed pack's source declares, read from the text
// without running it: the reviewer must see every tool and whether it is a
// read or a write before any of the agent's code runs (the dry run comes
// after an allowed authorize). Each `registerTool(` call must name its tool
// with a string literal; a tool is a read only when its config is an object
// literal whose `annotations` object literal says `readOnlyHint: true`.
// Anything the text cannot show for sure (a config in a variable, a
// spread, a computed key, a getter) makes the tool a write: the scan may
// only ever make a tool look more dangerous, never less. The dry run then
// may register only declared tools (service.ts), and a tool stays a write
// if either the text or the dry run says so.

import { lex, type Token } from './source.ts';

export interface DeclaredTool {
  name: string;
  write: boolean;
  line: number;
}

const OPEN: Record<string, string> = { '(': ')', '[': ']', '{': '}' };

function isPunct (t: Token | undefined, v: string): boolean {
  return t !== undefined && t.kind === 'punct' && t.value === v;
}

// The index just after the bracket that closes the one at @k.
function skipGroup (toks: readonly Token[], k: number): number {
  const stack: string[] = [];
  for (let i = k; i < toks.length; i++) {
    const t = toks[i] as Token;
    if (t.kind !== 'punct')
      continue;
    if (OPEN[t.value] !== undefined)
      stack.push(OPEN[t.value] as string);
    else if (t.value === stack[stack.length - 1]) {
      stack.pop();
      if (stack.length === 0)
        return i + 1;
    }
  }
  return toks.length;
}

// A string or a whole template without substitutions or escapes: the
// value the tool name is at run time, for sure.
function literal (t: Token | undefined): string | null {
  if (t === undefined || t.value.includes('\\'))
    return null;
  if (t.kind === 'string' || (t.kind === 'template' && t.whole === true))
    return t.value;
  return null;
}

// The members of the object literal whose `{` is at @k: key → index of
// the value's first token, or null when a member cannot be read for sure
// (a spread, a computed key, a getter, a method).
function members (toks: readonly Token[], k: number): Map<string, number> | null {
  const out = new Map<string, number>();
  const end = skipGroup(toks, k) - 1;
  let i = k + 1;
  while (i < end) {
    const t = toks[i] as Token;
    if (isPunct(t, ','))  { i++; continue; }
    const key = t.kind === 'word' ? t.value : literal(t);
    if (key === null || (t.kind === 'word' && (key === 'get' || key === 'set' || key === 'async') && !isPunct(toks[i + 1], ':')))
      return null;
    const next = toks[i + 1];
    if (isPunct(next, ':')) {
      out.set(key, i + 2);
    } else if (isPunct(next, ',') || i + 1 === end) {
      out.set(key, -1); // shorthand: the value is a variable
    } else {
      return null; // a method, or something the scan does not know
    }
    // To the next comma of this object.
    let j = i + 1;
    while (j < end && !isPunct(toks[j], ',')) {
      const u = toks[j] as Token;
      j = u.kind === 'punct' && OPEN[u.value] !== undefined ? skipGroup(toks, j) : j + 1;
    }
    i = j;
  }
  return out;
}

function isReadOnly (toks: readonly Token[], configAt: number): boolean {
  if (!isPunct(toks[configAt], '{'))
    return false;
  const config = members(toks, configAt);
  const ann = config?.get('annotations');
  if (ann === undefined || ann < 0 || !isPunct(toks[ann], '{'))
    return false;
  const hints = members(toks, ann);
  const v = hints?.get('readOnlyHint');
  if (v === undefined || v < 0)
    return false;
  const t = toks[v];
  const after = toks[v + 1];
  return t?.kind === 'word' && t.value === 'true' && (isPunct(after, ',') || isPunct(after, '}'));
}

export function declaredTools (src: string): { tools: DeclaredTool[]; problems: string[] } {
  const toks = lex(src);
  const byName = new Map<string, DeclaredTool>();
  const problems: string[] = [];
  toks.forEach((t, k) => {
    if (t.kind !== 'word' || t.value !== 'registerTool')
      return;
    if (!isPunct(toks[k + 1], '(')) {
      problems.push(`line ${t.line}: registerTool is used without being called; call server.registerTool(name, config, handler) directly, so each tool can be shown for review before the pack runs`);
      return;
    }
    let name = literal(toks[k + 2]);
    const after = toks[k + 3];
    // `'t' + n`, `'t'.concat(…)`: computed after all.
    if (name !== null && after?.kind === 'punct' && after.value !== ',' && after.value !== ')' && after.value !== '{')
      name = null;
    if (name !== null && !(isPunct(after, ',') || isPunct(after, ')'))) {
      problems.push(`line ${t.line}: registerTool('${name}' must be followed by "," and the config: the code does not parse here`);
      return;
    }
    if (name === null) {
      problems.push(`line ${t.line}: the first argument of registerTool must be the tool name as a plain string literal ('get-page-title'), so each tool can be shown for review before the pack runs`);
      return;
    }
    const write = !(isPunct(toks[k + 3], ',') && isReadOnly(toks, k + 4));
    const seen = byName.get(name);
    // Registered in two places (say, two branches): a write if either is.
    byName.set(name, seen === undefined ? { name, write, line: t.line } : { ...seen, write: seen.write || write });
  });
  return { tools: [...byName.values()], problems };
}
