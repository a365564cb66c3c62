// SPDX-License-Identifier: GPL-3.0-or-later
//
// Installed packs arrive as the JavaScript of an index.ts (types stripped):
// a module whose default export is the registration function. User scripts
// are classic scripts, so the one top-level `export default` becomes an
// assignment to a parameter of the wrapper; nothing else of the source
// changes, and the wrapper adds no line before it, so line numbers in
// errors are the author's.
//
// The scanner knows strings, template literals, comments and (by the usual
// heuristic) regular expression literals well enough to find top-level
// `export` and `import` statements; it is not a parser, and it does not
// need to be: the real parse happens when the code runs (dry run first).

export class SourceError extends Error {
  override name = 'SourceError';
}

export const EXPORTS_PARAM = '__lumo_exports';

interface Found {
  exportDefault: number[];
  otherExport: Array<{ at: number; line: number }>;
  imports: Array<{ at: number; line: number }>;
}

// One token of the source: a word (identifier, keyword or number), a
// quoted string, a piece of a template literal, a regular expression
// literal or one punctuation character. @depth is the brace depth before
// the token; @value of a string or template piece is its raw text.
export interface Token {
  kind: 'word' | 'string' | 'template' | 'regex' | 'punct';
  value: string;
  at: number;
  line: number;
  depth: number;
  // template: the piece is a whole template (a backtick on both ends).
  whole?: boolean;
}

const REGEX_PRECEDERS = new Set(['(', ',', '=', ':', '[', '!', '&', '|', '?', '{', '}', ';', '+', '-', '*', '%', '<', '>', '~', '^']);
const REGEX_KEYWORDS = new Set(['return', 'typeof', 'instanceof', 'in', 'of', 'new', 'delete', 'void', 'throw', 'case', 'do', 'else', 'yield', 'await']);

function isIdent (c: string | undefined): boolean {
  return c !== undefined && /[A-Za-z0-9_$]/.test(c);
}

export function lex (src: string): Token[] {
  const out: Token[] = [];
  let depth = 0;
  let line = 1;
  // Template literal nesting: each entry is the brace depth at which a
  // `${` was opened; a `}` at that depth resumes the template.
  const templates: number[] = [];
  let lastSignificant = '';
  let lastWord = '';
  let i = 0;
  const n = src.length;

  // At the character after a backtick or after the `}` closing a `${`.
  const template = (from: number, opened: boolean): void => {
    const tline = line;
    const begin = i;
    while (i < n) {
      const c = src[i];
      if (c === '\\') { i += 2; continue; }
      if (c === '\n') line++;
      if (c === '`') {
        out.push({ kind: 'template', value: src.slice(begin, i), at: from, line: tline, depth, whole: opened });
        i++;
        return;
      }
      if (c === '$' && src[i + 1] === '{') {
        out.push({ kind: 'template', value: src.slice(begin, i), at: from, line: tline, depth });
        i += 2;
        templates.push(depth);
        depth++;
        return;
      }
      i++;
    }
    out.push({ kind: 'template', value: src.slice(begin), at: from, line: tline, depth });
  };

  while (i < n) {
    const c = src[i] as string;
    if (c === '\n') { line++; i++; continue; }
    if (c === ' ' || c === '\t' || c === '\r') { i++; continue; }
    if (c === '/' && src[i + 1] === '/') {
      while (i < n && src[i] !== '\n') i++;
      continue;
    }
    if (c === '/' && src[i + 1] === '*') {
      i += 2;
      while (i < n && !(src[i] === '*' && src[i + 1] === '/')) { if (src[i] === '\n') line++; i++; }
      i += 2;
      continue;
    }
    const at = i;
    if (c === '"' || c === '\'') {
      i++;
      while (i < n && src[i] !== c && src[i] !== '\n') i += src[i] === '\\' ? 2 : 1;
      out.push({ kind: 'string', value: src.slice(at + 1, Math.min(i, n)), at, line, depth });
      i++;
      lastSignificant = 'x'; lastWord = '';
      continue;
    }
    if (c === '`') {
      i++;
      template(at, true);
      lastSignificant = 'x'; lastWord = '';
      continue;
    }
    if (c === '/') {
      const regexAllowed = lastSignificant === '' || REGEX_PRECEDERS.has(lastSignificant) || REGEX_KEYWORDS.has(lastWord);
      if (regexAllowed) {
        i++;
        let inClass = false;
        while (i < n && src[i] !== '\n') {
          const r = src[i];
          if (r === '\\') { i += 2; continue; }
          if (r === '[') inClass = true;
          else if (r === ']') inClass = false;
          else if (r === '/' && !inClass) break;
          i++;
        }
        i++;
        while (isIdent(src[i])) i++;
        out.push({ kind: 'regex', value: src.slice(at, i), at, line, depth });
        lastSignificant = 'x'; lastWord = '';
        continue;
      }
    }
    if (c === '{') {
      out.push({ kind: 'punct', value: c, at, line, depth });
      depth++; lastSignificant = c; lastWord = ''; i++;
      continue;
    }
    if (c === '}') {
      if (templates.length > 0 && templates[templates.length - 1] === depth - 1) {
        templates.pop();
        depth--;
        i++;
        template(i, false);
        lastSignificant = 'x'; lastWord = '';
        continue;
      }
      depth = Math.max(0, depth - 1);
      out.push({ kind: 'punct', value: c, at, line, depth });
      lastSignificant = c; lastWord = '';
      i++;
      continue;
    }
    if (isIdent(c)) {
      while (isIdent(src[i])) i++;
      const word = src.slice(at, i);
      out.push({ kind: 'word', value: word, at, line, depth });
      lastSignificant = 'x';
      lastWord = word;
      continue;
    }
    out.push({ kind: 'punct', value: c, at, line, depth });
    lastSignificant = c;
    lastWord = '';
    i++;
  }
  return out;
}

function scan (src: string): Found {
  const found: Found = { exportDefault: [], otherExport: [], imports: [] };
  const toks = lex(src);
  toks.forEach((t, k) => {
    if (t.kind !== 'word' || t.depth !== 0 || (t.value !== 'export' && t.value !== 'import'))
      return;
    const prev = toks[k - 1];
    if (prev !== undefined && prev.kind === 'punct' && prev.value === '.' && prev.at === t.at - 1)
      return;
    let j = t.at + t.value.length;
    while (j < src.length && /\s/.test(src[j] as string)) j++;
    if (t.value === 'export') {
      if (src.startsWith('default', j) && !isIdent(src[j + 7]))
        found.exportDefault.push(t.at);
      else
        found.otherExport.push({ at: t.at, line: t.line });
    } else if (src[j] !== '(' && src[j] !== '.') {
      found.imports.push({ at: t.at, line: t.line });
    }
  });
  return found;
}

function lineOf (src: string, at: number): number {
  let l = 1;
  for (let k = 0; k < at; k++)
    if (src.charCodeAt(k) === 10)
      l++;
  return l;
}

// The source with its default export turned into `__lumo_exports.default =`.
export function transformSource (src: string): string {
  if (typeof src !== 'string' || src.trim().length === 0)
    throw new SourceError('The source is empty: it must be the registration code, e.g. export default ({ server, z }) => { server.registerTool(…) }.');
  const f = scan(src);
  const imp = f.imports[0];
  if (imp !== undefined)
    throw new SourceError(`Line ${imp.line}: import statements are not available in an installed pack (it runs as one script); use the z, server and cookie the registration function receives, and inline helpers.`);
  const other = f.otherExport[0];
  if (other !== undefined)
    throw new SourceError(`Line ${other.line}: only a default export is supported (the registration function), not a named export.`);
  if (f.exportDefault.length === 0)
    throw new SourceError('The source has no "export default": it must export the registration function, as index.ts does (export default ({ server, z, cookie }) => { … }).');
  if (f.exportDefault.length > 1)
    throw new SourceError(`The source has ${f.exportDefault.length} "export default" statements (lines ${f.exportDefault.map((a) => lineOf(src, a)).join(', ')}); it may have one.`);
  const at = f.exportDefault[0] as number;
  const m = /^export\s+default/.exec(src.slice(at)) as RegExpExecArray;
  // Same line count: the replacement has no newline, and the whitespace
  // inside "export   default" is kept as one space per line break.
  const gap = m[0].slice('export'.length, m[0].length - 'default'.length);
  const newlines = gap.replace(/[^\n]/g, '');
  return src.slice(0, at) + `${EXPORTS_PARAM}.default =${newlines}` + src.slice(at + m[0].length);
}

// The code of a user script that hands the pack to the runtime's start()
// (already loaded from a file in the same world). The source starts on the
// first line; a sourceURL names it in DevTools.
export function userScriptCode (config: Record<string, unknown>, transformed: string | null, name: string): string {
  const start = `globalThis.__lumoSitePack.start(${JSON.stringify(config)}`;
  if (transformed === null)
    return `${start});\n//# sourceURL=lumo-sitepack-relay/${name}.js\n`;
  return `${start}, function (${EXPORTS_PARAM}) {"use strict";${transformed}\n});\n//# sourceURL=lumo-sitepack/${name}.js\n`;
}
