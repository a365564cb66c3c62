// SPDX-License-Identifier: GPL-3.0-or-later
//
// Checks a site pack's meta (the guide's meta.ts) field by field. Every
// problem is reported, each naming its field and why, so an author (or an
// agent installing a pack) can fix them all in one go. Bundled packs are
// checked at build time, installed ones before the install is authorized.

import { PACK_TOOL_NAME_RE, checkDomain, checkPrefix, normalizeHost, servesHost } from './naming.ts';
import type { MarketServer, SitePackMeta } from './types.ts';
import { cleanName, truncateUtf8 } from '../shared/text.ts';

export interface MetaProblem {
  field: string;
  message: string;
}

export type MetaCheck =
  | { ok: true; meta: SitePackMeta }
  | { ok: false; problems: MetaProblem[] };

export class MetaError extends Error {
  override name = 'MetaError';
  constructor (readonly problems: MetaProblem[], prefix = 'meta') {
    super(problems.map((p) => `${prefix === '' ? p.field : `${prefix}.${p.field}`}: ${p.message}`).join('; '));
  }
}

export const PACK_TYPES = ['pageMcpServer', 'contentScriptMcpServer'] as const;
const FIELDS = ['name', 'type', 'url', 'isAlwaysEnabled', 'toolsJumpLinks', 'customMarketMcpServers', 'version', 'toolPrefix'];
const MARKET_FIELDS = ['id', 'name', 'url', 'description', 'icon', 'type', 'enabled', 'addState', 'tools'];
const MARKET_TYPES = ['sse', 'streamableHttp'];
export const MAX_MARKET_SERVERS = 32;
export const MAX_JUMP_LINKS = 64;
// semver.org's own expression.
const SEMVER_RE = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

function isPlainObject (v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function describe (v: unknown): string {
  if (v === null)
    return 'null';
  if (Array.isArray(v))
    return 'an array';
  if (typeof v === 'string')
    return JSON.stringify(truncateUtf8(v, 60, '…'));
  if (typeof v === 'object')
    return 'an object';
  return `${typeof v} ${String(v)}`;
}

function distance (a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++)
    (d[0] as number[])[j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const row = d[i] as number[];
      const prev = d[i - 1] as number[];
      row[j] = Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1,
        (prev[j - 1] as number) + (a[i - 1]?.toLowerCase() === b[j - 1]?.toLowerCase() ? 0 : 1));
    }
  return (d[a.length] as number[])[b.length] as number;
}

function unknownField (key: string, known: readonly string[]): string {
  const near = known.map((k) => [k, distance(key, k)] as const).sort((x, y) => x[1] - y[1])[0];
  return near !== undefined && near[1] <= 3 ? `unknown field; did you mean "${near[0]}"?` : `unknown field; the fields are ${known.join(', ')}`;
}

// An http(s) URL, as a reason when it is not one.
function checkHttpUrl (v: unknown): string | null {
  if (typeof v !== 'string' || v.length === 0)
    return `must be an absolute http or https URL, not ${describe(v)}`;
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    return `${describe(v)} is not an absolute URL (it needs the protocol, e.g. "https://${v.replace(/^\/+/, '')}")`;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    return `${describe(v)} must use http or https, not ${u.protocol.slice(0, -1)}`;
  if (v.length > 2048)
    return `is ${v.length} characters; at most 2048`;
  return null;
}

function checkPageUrl (v: unknown, name: string | null): string | null {
  const reason = checkHttpUrl(v);
  if (reason !== null || name === null)
    return reason;
  const host = normalizeHost(new URL(v as string).hostname);
  if (!servesHost(name, host))
    return `${describe(v)} is on ${host}, which this pack does not serve: the page must be on ${name} or a subdomain of it, or the pack never runs there`;
  return null;
}

function checkMarketServer (entry: Record<string, unknown>, at: string, out: MetaProblem[]): void {
  for (const k of Object.keys(entry))
    if (!MARKET_FIELDS.includes(k))
      out.push({ field: `${at}.${k}`, message: unknownField(k, MARKET_FIELDS) });
  for (const k of ['id', 'name'] as const) {
    const v = entry[k];
    if (typeof v !== 'string' || v.trim().length === 0)
      out.push({ field: `${at}.${k}`, message: `must be a non-empty string, not ${describe(v)}` });
    else if (v.length > 128)
      out.push({ field: `${at}.${k}`, message: `is ${v.length} characters; at most 128` });
  }
  const url = checkHttpUrl(entry.url);
  if (url !== null)
    out.push({ field: `${at}.url`, message: url });
  if (entry.description !== undefined && (typeof entry.description !== 'string' || entry.description.length > 1024))
    out.push({ field: `${at}.description`, message: 'must be a string of at most 1024 characters' });
  if (entry.icon !== undefined && entry.icon !== '') {
    const icon = typeof entry.icon === 'string' && entry.icon.startsWith('data:image/') && entry.icon.length <= 65536
      ? null : checkHttpUrl(entry.icon);
    if (icon !== null)
      out.push({ field: `${at}.icon`, message: `${icon} (or a data:image/ URL of at most 64 KiB)` });
  }
  if (entry.type !== undefined && !MARKET_TYPES.includes(entry.type as string))
    out.push({ field: `${at}.type`, message: `must be ${MARKET_TYPES.map((t) => `"${t}"`).join(' or ')}, not ${describe(entry.type)}` });
  if (entry.enabled !== undefined && typeof entry.enabled !== 'boolean')
    out.push({ field: `${at}.enabled`, message: `must be true or false, not ${describe(entry.enabled)}` });
  if (entry.addState !== undefined && (typeof entry.addState !== 'string' || entry.addState.length > 64))
    out.push({ field: `${at}.addState`, message: 'must be a string of at most 64 characters' });
  if (entry.tools !== undefined && !Array.isArray(entry.tools))
    out.push({ field: `${at}.tools`, message: `must be an array, not ${describe(entry.tools)}` });
}

// An entry the guide says is dropped rather than refused.
export function isEmptyMarketEntry (e: unknown): boolean {
  return e === null || e === undefined || (isPlainObject(e) && Object.keys(e).length === 0);
}

export interface MetaCheckOptions {
  // The folder (bundled) or script (installed) name that name must equal.
  expectedName?: string;
  expectedNameWhat?: string;
}

export function checkMeta (meta: unknown, opts: MetaCheckOptions = {}): MetaCheck {
  const out: MetaProblem[] = [];
  if (!isPlainObject(meta))
    return { ok: false, problems: [{ field: '', message: `must be an object (the default export of meta.ts), not ${describe(meta)}` }] };

  for (const k of Object.keys(meta))
    if (!FIELDS.includes(k))
      out.push({ field: k, message: unknownField(k, FIELDS) });

  let name: string | null = null;
  const domain = checkDomain(meta.name);
  if (domain !== null)
    out.push({ field: 'name', message: meta.name === undefined ? 'is required: the domain the pack serves, e.g. "example.com"' : domain });
  else {
    name = meta.name as string;
    if (opts.expectedName !== undefined && name !== opts.expectedName)
      out.push({ field: 'name', message: `"${name}" must equal the ${opts.expectedNameWhat ?? 'script name'} "${opts.expectedName}"` });
  }

  if (!PACK_TYPES.includes(meta.type as never))
    out.push({ field: 'type', message: `must be "pageMcpServer" (runs in the page's main world) or "contentScriptMcpServer" (runs isolated), not ${describe(meta.type)}` });

  const url = meta.url === undefined ? 'is required: the page to open for this pack, e.g. "https://example.com"' : checkPageUrl(meta.url, name);
  if (url !== null)
    out.push({ field: 'url', message: url });

  if (typeof meta.isAlwaysEnabled !== 'boolean')
    out.push({ field: 'isAlwaysEnabled', message: meta.isAlwaysEnabled === undefined
      ? 'is required: true lists the tools everywhere (a call opens the page), false only while a matching tab is open'
      : `must be true or false, not ${describe(meta.isAlwaysEnabled)}` });

  if (meta.toolsJumpLinks !== undefined) {
    if (!isPlainObject(meta.toolsJumpLinks))
      out.push({ field: 'toolsJumpLinks', message: `must be an object of tool name → URL, not ${describe(meta.toolsJumpLinks)}` });
    else {
      const entries = Object.entries(meta.toolsJumpLinks);
      if (entries.length > MAX_JUMP_LINKS)
        out.push({ field: 'toolsJumpLinks', message: `has ${entries.length} links; at most ${MAX_JUMP_LINKS}` });
      for (const [tool, link] of entries) {
        if (!PACK_TOOL_NAME_RE.test(tool))
          out.push({ field: `toolsJumpLinks.${tool}`, message: `"${tool}" is not a tool name (A-Z, a-z, 0-9, "_" and "-")` });
        const r = checkPageUrl(link, name);
        if (r !== null)
          out.push({ field: `toolsJumpLinks.${tool}`, message: r });
      }
    }
  }

  if (meta.customMarketMcpServers !== undefined && meta.customMarketMcpServers !== null) {
    const list = meta.customMarketMcpServers;
    if (!Array.isArray(list))
      out.push({ field: 'customMarketMcpServers', message: `must be an array of MCP server descriptors, not ${describe(list)}` });
    else {
      if (list.length > MAX_MARKET_SERVERS)
        out.push({ field: 'customMarketMcpServers', message: `has ${list.length} entries; at most ${MAX_MARKET_SERVERS}` });
      list.forEach((e, i) => {
        if (isEmptyMarketEntry(e))
          return;
        if (!isPlainObject(e))
          out.push({ field: `customMarketMcpServers[${i}]`, message: `must be an object, not ${describe(e)}` });
        else
          checkMarketServer(e, `customMarketMcpServers[${i}]`, out);
      });
    }
  }

  if (typeof meta.version !== 'string' || !SEMVER_RE.test(meta.version))
    out.push({ field: 'version', message: meta.version === undefined
      ? 'is required: a semantic version such as "1.0.0"'
      : `must be a semantic version MAJOR.MINOR.PATCH such as "1.0.0", not ${describe(meta.version)}` });

  if (meta.toolPrefix !== undefined) {
    const p = checkPrefix(meta.toolPrefix);
    if (p !== null)
      out.push({ field: 'toolPrefix', message: `${describe(meta.toolPrefix)} ${p}` });
  }

  if (out.length > 0)
    return { ok: false, problems: out };
  return { ok: true, meta: normalizeMeta(meta as unknown as SitePackMeta) };
}

// A copy with only the known fields, empty market entries dropped.
function normalizeMeta (m: SitePackMeta): SitePackMeta {
  const out: SitePackMeta = { name: m.name, type: m.type, url: m.url, isAlwaysEnabled: m.isAlwaysEnabled, version: m.version };
  if (m.toolsJumpLinks !== undefined)
    out.toolsJumpLinks = { ...m.toolsJumpLinks };
  if (Array.isArray(m.customMarketMcpServers))
    out.customMarketMcpServers = m.customMarketMcpServers.filter((e) => !isEmptyMarketEntry(e)).map((e) => ({ ...(e as unknown as MarketServer) }));
  if (m.toolPrefix !== undefined)
    out.toolPrefix = m.toolPrefix;
  return out;
}

export function requireMeta (meta: unknown, opts: MetaCheckOptions = {}, prefix = 'meta'): SitePackMeta {
  const c = checkMeta(meta, opts);
  if (!c.ok)
    throw new MetaError(c.problems, prefix);
  return c.meta;
}

// A link to a tool the pack does not register is likely a typo, or a tool
// still to come (the guide's own examples have both): the author hears of
// it, and the pack works (the link is never used; a call opens meta.url).
export function jumpLinkWarnings (meta: SitePackMeta, tools: readonly string[]): MetaProblem[] {
  return Object.keys(meta.toolsJumpLinks ?? {}).filter((t) => !tools.includes(t)).map((t) => ({
    field: `toolsJumpLinks.${t}`,
    message: `links a tool "${t}" that the pack does not register (it registers ${tools.length === 0 ? 'none' : tools.map((n) => `"${n}"`).join(', ')}); the link is not used`,
  }));
}

// customMarketMcpServers of all packs, in pack order: empty entries and
// repeats (the same id or the same url) dropped, the first one kept.
export function aggregateMarket (metas: readonly SitePackMeta[]): MarketServer[] {
  const out: MarketServer[] = [];
  const ids = new Set<string>();
  const urls = new Set<string>();
  for (const m of metas)
    for (const e of m.customMarketMcpServers ?? []) {
      if (isEmptyMarketEntry(e) || !isPlainObject(e))
        continue;
      const s = e as unknown as MarketServer;
      if (typeof s.id !== 'string' || typeof s.url !== 'string' || ids.has(s.id) || urls.has(s.url))
        continue;
      ids.add(s.id);
      urls.add(s.url);
      // Names and descriptions are shown in the app: cleaned as names are.
      const copy: MarketServer = { id: s.id, name: cleanName(s.name, 128) ?? s.id, url: s.url };
      for (const k of ['icon', 'type', 'enabled', 'addState', 'tools'] as const)
        if (s[k] !== undefined)
          (copy as unknown as Record<string, unknown>)[k] = s[k];
      const description = cleanName(s.description, 1024);
      if (description !== undefined)
        copy.description = description;
      out.push(copy);
    }
  return out;
}
