// SPDX-License-Identifier: GPL-3.0-or-later
//
// The build-time check of bundled packs (build.mjs runs it in Node, and so
// do the unit tests for every pack folder in the repository): each meta
// field, the folder name, the registration (run with a recording server:
// handlers never run), the tool names on L1, and conflicts between packs.
// A pack with any problem fails the build, each problem with its file and
// field; a jump link for a tool the pack does not register, or a pack that
// registers no tools yet, is a warning (the guide's own examples have both).

import { sha256Hex } from '../shared/sha256.ts';
import { TOOLS } from '../provider/tools.ts';
import { checkMeta, jumpLinkWarnings } from './meta.ts';
import { checkDomain, derivePrefix, l1Name } from './naming.ts';
import { checkDefs } from './registry.ts';
import { cookieView, runRegistration, toolDefs, type SiteToolDef } from './runtime.ts';
import type { SitePackMeta } from './types.ts';

export interface PackInput {
  folder: string;
  // The folder's path as the build shows it, e.g. "extension/sites/example.com".
  dir: string;
  meta: unknown;
  register: unknown;
}

export interface InspectedPack {
  id: string;
  dir: string;
  meta: SitePackMeta;
  tools: SiteToolDef[];
  prefix: string;
}

// A stable UUID for a bundled pack (the audit's target), from its domain:
// SHA-256 of "lumo-sitepack:<name>" shaped as an RFC 9562 version 8 UUID.
export async function bundledPackId (name: string): Promise<string> {
  const h = (await sha256Hex(`lumo-sitepack:${name}`)).slice(0, 32).split('');
  h[12] = '8';
  h[16] = ((parseInt(h[16] as string, 16) & 0x3) | 0x8).toString(16);
  const s = h.join('');
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20, 32)}`;
}

export interface Inspection {
  packs: InspectedPack[];
  // Each "<dir>/<file>: <field>: why": the build fails.
  problems: string[];
  // The same form: said, and the pack is built.
  warnings: string[];
}

export async function inspectPacks (inputs: readonly PackInput[]): Promise<Inspection> {
  const problems: string[] = [];
  const warnings: string[] = [];
  const packs: InspectedPack[] = [];
  const reserved = new Set(TOOLS.map((t) => t.name));
  const names = new Map<string, string>();
  const prefixes = new Map<string, string>();
  for (const input of inputs) {
    const at = (file: string) => (msg: string) => problems.push(`${input.dir}/${file}: ${msg}`);
    const warn = (file: string) => (msg: string) => warnings.push(`${input.dir}/${file}: ${msg}`);
    const folder = checkDomain(input.folder);
    if (folder !== null) {
      at('')(`the folder name must be the domain the pack serves: ${folder}`);
      continue;
    }
    const c = checkMeta(input.meta, { expectedName: input.folder, expectedNameWhat: 'folder name' });
    if (!c.ok) {
      c.problems.forEach((p) => at('meta.ts')(p.field === '' ? p.message : `${p.field}: ${p.message}`));
      continue;
    }
    const meta = c.meta;
    const prefix = meta.toolPrefix ?? derivePrefix(meta.name);
    const reg = await runRegistration(input.register, cookieView(() => ''));
    reg.errors.forEach((e) => at('index.ts')(e.includes('threw') ? `${e} (at build time the registration function runs without a page: touch the page in handlers, not while registering)` : e));
    const { defs, refused } = checkDefs(prefix, toolDefs(reg));
    refused.forEach((r) => at('index.ts')(`tool "${r.name}": ${r.reason}`));
    if (defs.length === 0 && reg.errors.length === 0 && refused.length === 0)
      warn('index.ts')('the registration function registers no tools yet (call server.registerTool); the pack gives no tools');
    for (const d of defs)
      if (reserved.has(l1Name(prefix, d.name)))
        at('index.ts')(`tool "${d.name}" would be "${l1Name(prefix, d.name)}", the name of a tool of the provider; rename it`);
    jumpLinkWarnings(meta, defs.map((d) => d.name)).forEach((p) => warn('meta.ts')(`${p.field}: ${p.message}`));
    const otherName = names.get(meta.name);
    if (otherName !== undefined)
      at('meta.ts')(`name: ${otherName} serves ${meta.name} already`);
    const otherPrefix = prefixes.get(prefix);
    if (otherPrefix !== undefined)
      at('meta.ts')(`the tool prefix "${prefix}" is used by ${otherPrefix} already; set toolPrefix to another one`);
    names.set(meta.name, input.dir);
    prefixes.set(prefix, input.dir);
    packs.push({ id: await bundledPackId(meta.name), dir: input.dir, meta, tools: defs, prefix });
  }
  return { packs, problems, warnings };
}
