// SPDX-License-Identifier: GPL-3.0-or-later
//
// Domains and names of site packs: which pack serves a hostname (the
// guide's matching rule), the match patterns that make Chrome inject it,
// and how a pack's tool name becomes a tool name on L1.
//
// Matching: a pack serves its own hostname and every subdomain of it; the
// most specific pack wins. So the pack www.baidu.com does not serve
// baidu.com, and the pack example.com serves sub.example.com unless a pack
// sub.example.com exists.
//
// L1 names: "<prefix>_<tool>", the prefix derived from the domain (or the
// meta's toolPrefix). Prefixes never contain "_", so the first "_" always
// ends the prefix, and two packs with different prefixes can never produce
// the same name. Two packs may not share a prefix: the later one is refused.

import { MAX_TOOL_NAME_LEN } from '../shared/limits.ts';

export const PREFIX_SEPARATOR = '_';
export const MAX_PREFIX_LEN = 16;
export const PREFIX_RE = /^[a-z0-9](?:[a-z0-9-]{0,14}[a-z0-9])?$/;
export const PACK_TOOL_NAME_RE = /^[a-zA-Z0-9_-]+$/;

const LABEL_RE = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const IPV4_RE = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

export function isIpv4 (host: string): boolean {
  return IPV4_RE.test(host);
}

// Null when @name is a hostname as location.hostname gives it, else why not.
export function checkDomain (name: unknown): string | null {
  if (typeof name !== 'string' || name.length === 0)
    return 'must be a domain such as "example.com"';
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(name))
    return `"${name}" must be the bare domain, without the protocol (e.g. "${name.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').split(/[/:]/)[0]}")`;
  if (/[/?#]/.test(name))
    return `"${name}" must be the bare domain, without a path`;
  if (name.includes(':'))
    return `"${name}" must be the bare domain, without a port (matching ignores ports)`;
  if (name !== name.toLowerCase())
    return `"${name}" must be lowercase, as location.hostname is`;
  if (name.length > 253)
    return `"${name}" is ${name.length} characters; a domain has at most 253`;
  if (isIpv4(name))
    return null;
  const labels = name.split('.');
  for (const l of labels)
    if (!LABEL_RE.test(l))
      return `"${name}" is not a valid domain: the label "${l}" must be 1–63 of a-z, 0-9 and "-", not starting or ending with "-"`;
  return null;
}

export function normalizeHost (hostname: string): string {
  return hostname.toLowerCase().replace(/\.$/, '');
}

// Whether the pack named @pack serves @host at all (before specificity).
export function servesHost (pack: string, host: string): boolean {
  return host === pack || (!isIpv4(pack) && host.endsWith('.' + pack));
}

// The pack that serves @hostname: an exact match, else the longest
// parent domain that has a pack; null when none does.
export function packForHost (hostname: string, names: Iterable<string>): string | null {
  const host = normalizeHost(hostname);
  let best: string | null = null;
  for (const n of names)
    if (servesHost(n, host) && (best === null || n.length > best.length))
      best = n;
  return best;
}

// Chrome match patterns for a pack (ports are ignored by patterns, which
// is what hostname matching does too) and the patterns of the more specific
// packs that must take over their own subdomains.
export function matchPatterns (name: string): string[] {
  return isIpv4(name) ? [`*://${name}/*`] : [`*://${name}/*`, `*://*.${name}/*`];
}

export function excludePatterns (name: string, all: Iterable<string>): string[] {
  const out: string[] = [];
  for (const other of all)
    if (other !== name && servesHost(name, other))
      out.push(...matchPatterns(other));
  return out;
}

export function derivePrefix (name: string): string {
  let labels = name.split('.');
  if (!isIpv4(name)) {
    if (labels[0] === 'www' && labels.length > 2)
      labels = labels.slice(1);
    if (labels.length >= 2)
      labels = labels.slice(0, -1);
  }
  let p = labels.join('-').replace(/[^a-z0-9-]/g, '-').slice(0, MAX_PREFIX_LEN).replace(/-+$/, '');
  if (p.length === 0)
    p = 'site';
  return p;
}

export function checkPrefix (prefix: unknown): string | null {
  if (typeof prefix !== 'string' || !PREFIX_RE.test(prefix))
    return `must be 1–${MAX_PREFIX_LEN} of a-z, 0-9 and "-" (no "_", which separates it from the tool name), starting and ending with a letter or digit`;
  return null;
}

export function l1Name (prefix: string, tool: string): string {
  return `${prefix}${PREFIX_SEPARATOR}${tool}`;
}

// Null when the pack's tool @tool fits on L1 under @prefix, else why not.
export function checkPackToolName (prefix: string, tool: unknown): string | null {
  if (typeof tool !== 'string' || tool.length === 0)
    return 'the tool name is empty or not a string';
  if (!PACK_TOOL_NAME_RE.test(tool))
    return `tool name "${tool}" may use only A-Z, a-z, 0-9, "_" and "-" (e.g. "get-page-title")`;
  const full = l1Name(prefix, tool);
  if (full.length > MAX_TOOL_NAME_LEN)
    return `tool name "${tool}" becomes "${full}" on L1, ${full.length} characters; the limit is ${MAX_TOOL_NAME_LEN}, so with the prefix "${prefix}" a tool name may have at most ${MAX_TOOL_NAME_LEN - prefix.length - 1} (shorten it, or set a shorter toolPrefix in the meta)`;
  return null;
}
