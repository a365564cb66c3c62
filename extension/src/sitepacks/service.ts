// SPDX-License-Identifier: GPL-3.0-or-later
//
// What the management tools ask of the site packs: the install check
// (every field of the meta, the source's shape, a dry run of the
// registration code, the names its tools get, and conflicts with the packs
// already there) and the report of list_site_packs. An install that fails
// any check is refused before it is authorized, with each problem named;
// what the build only warns about (a jump link for a tool the pack does not
// register, no tools yet) comes back with the answer as warnings.

import { MAX_TOOLS } from '../shared/limits.ts';
import { ScriptError } from '../provider/scripts.ts';
import type { PreparedPack, SitePackService } from '../provider/tools.ts';
import { checkMeta, jumpLinkWarnings } from './meta.ts';
import { checkPackToolName, derivePrefix, l1Name } from './naming.ts';
import type { PackRecord, SiteRegistry, UserScriptsState } from './registry.ts';
import { checkDefs, needsUserScripts, prefixOf } from './registry.ts';
import type { SiteToolDef } from './runtime.ts';
import { SourceError, transformSource } from './source.ts';
import { isWrite } from './tools.ts';
import { declaredTools, type DeclaredTool } from './declared.ts';

export interface DryRunResult {
  tools: SiteToolDef[];
  errors: string[];
}

// Runs the registration code (already transformed) somewhere it cannot
// touch the extension, and reports what it registered.
export type DryRun = (code: string, config: { id: string; name: string }) => Promise<DryRunResult>;

export interface ServiceOptions {
  registry: SiteRegistry;
  dryRun: DryRun;
  reserved: () => ReadonlySet<string>;
  userScripts: () => UserScriptsState;
}

export class SitePacks implements SitePackService {
  constructor (private readonly opts: ServiceOptions) {}

  // Before authorize, and without running any of the source: the meta, the
  // source's shape, the tools it declares (declared.ts) with their names on
  // L1, and conflicts with the packs already there. What it returns is what
  // the reviewer is shown.
  async prepare (input: { uuid: string; name: string; meta: unknown; source: string }): Promise<PreparedPack> {
    const problems: string[] = [];
    const checked = checkMeta(input.meta, { expectedName: input.name, expectedNameWhat: 'script name' });
    if (!checked.ok)
      throw new ScriptError(`The site pack was not installed: ${checked.problems.map((p) => `meta${p.field === '' ? '' : '.' + p.field}: ${p.message}`).join('; ')}.`);
    const meta = checked.meta;
    let code: string;
    try {
      code = transformSource(input.source);
    } catch (e) {
      throw new ScriptError(`The site pack was not installed: source: ${e instanceof SourceError ? e.message : String(e)}`);
    }

    const others = this.opts.registry.packs().filter((p) => p.id !== input.uuid && p.enabled);
    const sameName = others.find((p) => p.meta.name === meta.name);
    if (sameName !== undefined)
      problems.push(`meta.name: a site pack for ${meta.name} exists already (${sameName.origin === 'bundled' ? 'bundled with the extension' : `script ${sameName.id}`}); ` +
        (sameName.origin === 'bundled' ? 'a bundled pack cannot be replaced' : 'change it with update_script, or delete it first'));
    const prefix = meta.toolPrefix ?? derivePrefix(meta.name);
    const samePrefix = others.find((p) => prefixOf(p) === prefix);
    if (samePrefix !== undefined)
      problems.push(`meta.${meta.toolPrefix !== undefined ? 'toolPrefix' : 'name'}: the tools would be named "${prefix}_…", a prefix the site pack ${samePrefix.meta.name} uses already; set toolPrefix in the meta to another one (1–16 of a-z, 0-9 and "-")`);
    if (problems.length > 0)
      throw new ScriptError(`The site pack was not installed: ${problems.join('; ')}.`);

    const declared = declaredTools(input.source);
    for (const p of declared.problems)
      problems.push(`source: ${p}`);
    const reserved = this.opts.reserved();
    const tools: DeclaredTool[] = [];
    for (const d of declared.tools) {
      const why = checkPackToolName(prefix, d.name);
      if (why !== null) {
        problems.push(`source: line ${d.line}: tool "${d.name}": ${why}`);
        continue;
      }
      const l1 = l1Name(prefix, d.name);
      if (reserved.has(l1))
        problems.push(`source: line ${d.line}: tool "${d.name}" would be "${l1}", the name of a tool of the provider; rename it`);
      tools.push(d);
    }
    if (tools.length > MAX_TOOLS)
      problems.push(`source: a pack may register at most ${MAX_TOOLS} tools, not ${tools.length}`);
    const warnings: string[] = [];
    if (declared.tools.length === 0 && declared.problems.length === 0)
      warnings.push('source: the registration function registers no tools yet (call server.registerTool); the pack gives no tools');
    for (const p of jumpLinkWarnings(meta, tools.map((d) => d.name)))
      warnings.push(`meta.${p.field}: ${p.message}`);
    if (meta.isAlwaysEnabled) {
      const always = others.filter((p) => p.meta.isAlwaysEnabled && this.opts.registry.isActive(p.id)).reduce((n, p) => n + p.tools.length, 0);
      const total = reserved.size + always + tools.length;
      if (total > MAX_TOOLS)
        problems.push(`meta.isAlwaysEnabled: the always-listed tools would be ${total}, more than the ${MAX_TOOLS} a provider may list; set it to false or register fewer tools`);
    }
    if (problems.length > 0)
      throw new ScriptError(`The site pack was not installed: ${problems.join('; ')}.`);
    return { meta, tools, l1Names: tools.map((d) => l1Name(prefix, d.name)), code, warnings };
  }

  // After an allowed authorize: the registration code runs once, in a fresh
  // sandbox, and may register only what the reviewer saw. A tool is a
  // write when the source or the run says so. Throws a ScriptError, so the
  // write's audit row records the failure and nothing is stored.
  async confirm (pack: PreparedPack, uuid: string): Promise<SiteToolDef[]> {
    const problems: string[] = [];
    let run: DryRunResult;
    try {
      run = await this.opts.dryRun(pack.code, { id: uuid, name: pack.meta.name });
    } catch (e) {
      throw new ScriptError(`The site pack was not installed: source: the registration code could not be tried: ${e instanceof Error ? e.message : String(e)}`);
    }
    for (const e of run.errors)
      problems.push(`source: ${e}`);
    const prefix = pack.meta.toolPrefix ?? derivePrefix(pack.meta.name);
    const { defs, refused } = checkDefs(prefix, run.tools);
    for (const r of refused)
      problems.push(`source: tool "${r.name}": ${r.reason}`);
    const declared = new Map(pack.tools.map((d) => [d.name, d]));
    const out: SiteToolDef[] = [];
    for (const d of defs) {
      const shown = declared.get(d.name);
      if (shown === undefined) {
        problems.push(`source: the code registered the tool "${d.name}", which its text does not declare with a literal name, so it was not shown for review`);
        continue;
      }
      out.push(shown.write && !isWrite(d) ? { ...d, annotations: { ...d.annotations, readOnlyHint: false } } : d);
    }
    // The text declared tools the run did not register (a registration
    // that looks at the page, which the sandbox does not have).
    if (out.length === 0 && problems.length === 0 && pack.tools.length > 0)
      problems.push(`source: the registration function registered none of its tools (${pack.tools.map((d) => `"${d.name}"`).join(', ')}) when it ran without a page; register them unconditionally`);
    if (problems.length > 0)
      throw new ScriptError(`The site pack was not installed: ${problems.join('; ')}.`);
    return out;
  }

  private packReport (p: PackRecord, listed: Map<string, Map<string, string>>, notListed: Map<string, Map<string, string>>): Record<string, unknown> {
    const registry = this.opts.registry;
    const why = registry.notReady(p);
    const prefix = prefixOf(p);
    const names = new Set([...p.tools.map((d) => d.name), ...(listed.get(p.id)?.keys() ?? []), ...(notListed.get(p.id)?.keys() ?? [])]);
    const tools = [...names].map((tool) => {
      const l1 = listed.get(p.id)?.get(tool);
      const refusal = notListed.get(p.id)?.get(tool) ?? (checkPackToolName(prefix, tool) ?? undefined);
      const def = p.tools.find((d) => d.name === tool);
      return {
        tool, name: l1 ?? l1Name(prefix, tool), listed: l1 !== undefined,
        ...(def !== undefined ? { write: isWrite(def) } : {}),
        ...(l1 === undefined ? { why: refusal ?? (p.meta.isAlwaysEnabled ? 'not available' : 'listed while a tab of the site is open') } : {}),
      };
    });
    const errors = registry.pageErrors(p.id);
    return {
      uuid: p.id, name: p.meta.name, origin: p.origin, type: p.meta.type, version: p.meta.version,
      url: p.meta.url, isAlwaysEnabled: p.meta.isAlwaysEnabled, enabled: p.enabled, toolPrefix: prefix,
      needsUserScripts: needsUserScripts(p), ready: why === null, ...(why !== null ? { reason: why } : {}),
      openTabs: registry.openTabs(p.id), tools, ...(errors.length > 0 ? { pageErrors: errors } : {}),
    };
  }

  async report (): Promise<Record<string, unknown>> {
    const registry = this.opts.registry;
    const { accepted, refused } = registry.catalogue();
    const listed = new Map<string, Map<string, string>>();
    const notListed = new Map<string, Map<string, string>>();
    for (const e of accepted)
      (listed.get(e.pack.id) ?? listed.set(e.pack.id, new Map()).get(e.pack.id) as Map<string, string>).set(e.def.name, e.l1);
    for (const r of refused)
      (notListed.get(r.pack.id) ?? notListed.set(r.pack.id, new Map()).get(r.pack.id) as Map<string, string>).set(r.tool, r.reason);
    const us = this.opts.userScripts();
    return {
      userScripts: us.available ? { available: true } : { available: false, reason: us.reason },
      packs: registry.packs().map((p) => this.packReport(p, listed, notListed)),
      customMarketMcpServers: registry.market(),
    };
  }
}
