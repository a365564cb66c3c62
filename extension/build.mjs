#!/usr/bin/env node
// SPDX-License-Identifier: GPL-3.0-or-later
//
// Bundles the provider into dist/ (load it with --load-extension=extension/dist
// or "Load unpacked") and the e2e test extensions under tests/e2e/.
//
// Site packs: every folder extension/sites/<domain>/ with meta.ts and
// index.ts is checked (meta fields, folder name, a dry run of the
// registration, tool names) and compiled in; a pack with a problem fails
// the build with the file and field named, and what is only likely a slip
// (a jump link for a tool the pack does not register) is a warning.
// LUMO_SITE_DIRS adds more folders of packs (colon-separated, relative to
// extension/), e.g. LUMO_SITE_DIRS=examples/sites npm run build. The e2e
// provider build (tests/e2e/provider/dist) adds tests/fixtures/sitepacks/bundled,
// whose domains and tool prefixes are the tests' own (*-e2e.test, "…-e2e"),
// so they never meet a pack an author adds.
//
// Each extension is built into a fresh folder next to its output and put in
// place only when the whole build of it succeeded: a failed build leaves the
// previous dist/ as it was. LUMO_BUILD_DIR puts every output under another
// folder instead (dist/, tests/e2e/provider/dist, …), for the tests.
//
// LUMO_MANIFEST_KEY changes the manifest "key" of the provider build:
//   unset   keep the committed dev key (ID hnoefmihgppanoiihkcpnjdpijlimfgh)
//   none    drop it, for a Chrome Web Store upload (the store assigns the ID)
//   <b64>   use this public key, e.g. the store item's, so an unpacked build
//           gets the store ID
import { build } from 'esbuild';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..');
const cacheRoot = join(here, 'node_modules/.cache/lumo-build');

const common = {
  bundle: true,
  platform: 'browser',
  target: 'chrome120',
  sourcemap: 'linked',
  legalComments: 'none',
  logLevel: 'warning',
  // The SDK imports Ajv statically even when another validator is passed;
  // Ajv compiles with new Function, which MV3's CSP forbids, so keep it out.
  alias: { ajv: join(here, 'src/shims/ajv.ts'), 'ajv-formats': join(here, 'src/shims/ajv-formats.ts') },
};

export class BuildError extends Error {}

// Builds into a new folder beside @outdir, then puts it in @outdir's place.
// On any failure the new folder goes and @outdir is left as it was.
async function replacing (outdir, fill) {
  mkdirSync(dirname(outdir), { recursive: true });
  const fresh = mkdtempSync(join(dirname(outdir), `.${basename(outdir)}.building-`));
  try {
    const value = await fill(fresh);
    const old = `${fresh}.old`;
    if (existsSync(outdir))
      renameSync(outdir, old);
    renameSync(fresh, outdir);
    rmSync(old, { recursive: true, force: true });
    return value;
  } catch (e) {
    rmSync(fresh, { recursive: true, force: true });
    throw e;
  }
}

// ---- site packs ------------------------------------------------------------

function discoverPacks (dirs) {
  const found = [];
  const problems = [];
  for (const dir of dirs) {
    if (!existsSync(dir))
      continue;
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (!e.isDirectory())
        continue;
      const abs = join(dir, e.name);
      const shown = relative(repo, abs);
      const meta = join(abs, 'meta.ts');
      const index = join(abs, 'index.ts');
      if (!existsSync(meta) || !existsSync(index)) {
        problems.push(`${shown}: a site pack folder needs meta.ts and index.ts (${existsSync(meta) ? 'index.ts' : 'meta.ts'} is missing)`);
        continue;
      }
      found.push({ folder: e.name, abs, dir: shown, meta, index });
    }
  }
  if (problems.length > 0)
    throw new BuildError(problems.join('\n'));
  return found;
}

// Runs src/sitepacks/inspect.ts over the packs in Node: the same checks the
// tests run. Returns what the worker and the manifest need.
async function inspect (packs, cache) {
  const entry = join(cache, 'inspect-entry.ts');
  const lines = [
    `import { inspectPacks } from ${JSON.stringify(join(here, 'src/sitepacks/inspect.ts'))};`,
    `import { matchPatterns, excludePatterns } from ${JSON.stringify(join(here, 'src/sitepacks/naming.ts'))};`,
    ...packs.flatMap((p, i) => [
      `import meta${i} from ${JSON.stringify(p.meta)};`,
      `import register${i} from ${JSON.stringify(p.index)};`,
    ]),
    'export default async () => {',
    `  const r = await inspectPacks([${packs.map((p, i) => `{ folder: ${JSON.stringify(p.folder)}, dir: ${JSON.stringify(p.dir)}, meta: meta${i}, register: register${i} }`).join(', ')}]);`,
    '  const names = r.packs.map((p) => p.meta.name);',
    '  return { ...r, patterns: r.packs.map((p) => ({ matches: matchPatterns(p.meta.name), exclude: excludePatterns(p.meta.name, names) })) };',
    '};',
  ];
  writeFileSync(entry, lines.join('\n') + '\n');
  const out = join(cache, 'inspect.mjs');
  await build({ ...common, entryPoints: [entry], outfile: out, platform: 'node', format: 'esm', target: 'node20', sourcemap: false });
  const r = await (await import(pathToFileURL(out).href)).default();
  if (r.problems.length > 0)
    throw new BuildError(`site packs with problems:\n  ${r.problems.join('\n  ')}`);
  return r;
}

function bundledPlugin (inspected) {
  const names = inspected.packs.map((p) => ({ id: p.id, name: p.meta.name, type: p.meta.type, version: p.meta.version }));
  const worker = inspected.packs.map((p) => ({
    id: p.id, meta: p.meta, tools: p.tools,
    file: p.meta.type === 'pageMcpServer' ? `sites/${p.meta.name}.js` : null,
  }));
  return {
    name: 'lumo-bundled-sites',
    setup (b) {
      b.onResolve({ filter: /^lumo:bundled-sites\// }, (a) => ({ path: a.path, namespace: 'lumo-sites' }));
      b.onLoad({ filter: /.*/, namespace: 'lumo-sites' }, (a) => {
        if (a.path === 'lumo:bundled-sites/loader')
          return { contents: `export const BUNDLED_NAMES = ${JSON.stringify(names)};`, loader: 'js' };
        if (a.path === 'lumo:bundled-sites/worker')
          return { contents: `export const BUNDLED_PACKS = ${JSON.stringify(worker)};`, loader: 'js' };
        return null;
      });
    },
  };
}

// One script per bundled pack: a content script for contentScriptMcpServer
// packs, the MAIN-world half for pageMcpServer packs (after site-main.js).
function packEntries (packs, inspected, cache) {
  mkdirSync(join(cache, 'entries'), { recursive: true });
  const entries = {};
  const names = inspected.packs.map((p) => p.meta.name);
  inspected.packs.forEach((p) => {
    const src = packs.find((x) => x.dir === p.dir);
    const file = join(cache, 'entries', `${p.meta.name}.ts`);
    const config = { id: p.id, name: p.meta.name, version: p.meta.version, type: p.meta.type, origin: 'bundled' };
    const text = p.meta.type === 'contentScriptMcpServer'
      ? `import { startContentPack } from ${JSON.stringify(join(here, 'src/sitepacks/content-pack.ts'))};\n` +
        `import register from ${JSON.stringify(src.index)};\n` +
        `startContentPack(${JSON.stringify({ ...config, bundledNames: names })}, register);\n`
      : `import register from ${JSON.stringify(src.index)};\n` +
        `(globalThis as any).__lumoSitePack.start(${JSON.stringify(config)}, (e: { default?: unknown }) => { e.default = register; });\n`;
    writeFileSync(file, text);
    entries[`sites/${p.meta.name}`] = file;
  });
  return entries;
}

// ---- extensions ------------------------------------------------------------

function manifest (src, out, keyOverride, contentScripts = []) {
  const m = JSON.parse(readFileSync(src, 'utf8'));
  if (keyOverride === 'none')
    delete m.key;
  else if (keyOverride)
    m.key = keyOverride;
  if (contentScripts.length > 0)
    m.content_scripts = [...(m.content_scripts ?? []), ...contentScripts];
  writeFileSync(out, JSON.stringify(m, null, 2) + '\n');
}

// "www.baidu.com (contentScriptMcpServer; reads: get-page-title; writes:
// fill-search-box)": a tool is a write unless it says readOnlyHint: true.
function describePack (p) {
  const reads = p.tools.filter((t) => t.annotations?.readOnlyHint === true).map((t) => t.name);
  const writes = p.tools.filter((t) => t.annotations?.readOnlyHint !== true).map((t) => t.name);
  const list = (what, names) => names.length === 0 ? [] : [`${what}: ${names.join(', ')}`];
  return `${p.meta.name} (${[p.meta.type, ...list('reads', reads), ...list('writes', writes)].join('; ')})`;
}

// The provider with the site packs of @siteDirs, into @outdir. Returns the
// packs bundled (as text) and the warnings; throws a BuildError naming file
// and field when a pack has a problem.
export async function buildProvider ({ outdir, siteDirs, keyOverride, onWarning = (w) => console.warn(`warning: ${w}`) }) {
  mkdirSync(cacheRoot, { recursive: true });
  const cache = mkdtempSync(join(cacheRoot, 'build-'));
  try {
    const packs = discoverPacks(siteDirs);
    const inspected = await inspect(packs, cache);
    inspected.warnings.forEach((w) => onWarning(w));
    const plugins = [bundledPlugin(inspected)];
    const entries = packEntries(packs, inspected, cache);
    await replacing(outdir, async (out) => {
      const src = (f) => join(here, 'src', f);
      await build({
        ...common, plugins, format: 'esm', outdir: out,
        entryPoints: { background: src('provider/background.ts'), popup: src('provider/popup.ts'), offscreen: src('sitepacks/offscreen.ts') },
      });
      // Scripts that run in pages are classic scripts, kept small.
      const injected = { ...common, plugins, format: 'iife', outdir: out, minify: true };
      await build({
        ...injected,
        entryPoints: { 'site-loader': src('sitepacks/loader.ts'), sandbox: src('sitepacks/sandbox.ts'), ...entries },
      });
      await build({ ...injected, entryPoints: { 'site-user': src('sitepacks/page-runtime.ts') }, define: { LUMO_WORLD: '"USER_SCRIPT"' } });
      await build({ ...injected, entryPoints: { 'site-main': src('sitepacks/page-runtime.ts') }, define: { LUMO_WORLD: '"MAIN"' } });
      const contentScripts = inspected.packs.flatMap((p, i) => p.meta.type !== 'contentScriptMcpServer' ? [] : [{
        matches: inspected.patterns[i].matches,
        ...(inspected.patterns[i].exclude.length > 0 ? { exclude_matches: inspected.patterns[i].exclude } : {}),
        js: [`sites/${p.meta.name}.js`],
        run_at: 'document_idle',
      }]);
      manifest(join(here, 'manifest.json'), join(out, 'manifest.json'), keyOverride, contentScripts);
      mkdirSync(join(out, 'icons'));
      for (const f of ['popup.html', 'sandbox.html', 'offscreen.html', 'icons/lumo-128.png'])
        cpSync(join(here, f), join(out, f));
      // chrome.i18n's messages (the manifest's default_locale needs them).
      cpSync(join(here, '_locales'), join(out, '_locales'), { recursive: true });
    });
    return { packs: inspected.packs.map(describePack), warnings: inspected.warnings };
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
}

async function buildExtension ({ root, entries, outdir, statics = [] }) {
  await replacing(outdir, async (out) => {
    await build({ ...common, format: 'esm', entryPoints: entries, outdir: out });
    manifest(join(root, 'manifest.json'), join(out, 'manifest.json'));
    for (const f of statics)
      cpSync(join(root, f), join(out, f));
  });
}

async function main () {
  const extra = (process.env.LUMO_SITE_DIRS ?? '').split(':').filter(Boolean).map((d) => resolve(here, d));
  const siteDirs = [join(here, 'sites'), ...extra];
  const missing = extra.filter((d) => !existsSync(d));
  if (missing.length > 0)
    throw new BuildError(`LUMO_SITE_DIRS: no such folder: ${missing.map((d) => relative(repo, d)).join(', ')}`);
  // Where the outputs go: in place, or under LUMO_BUILD_DIR (tests).
  const base = process.env.LUMO_BUILD_DIR ? resolve(process.env.LUMO_BUILD_DIR) : null;
  const place = (inRepo) => base === null ? inRepo : join(base, relative(repo, inRepo));
  const { packs } = await buildProvider({ outdir: place(join(here, 'dist')), siteDirs, keyOverride: process.env.LUMO_MANIFEST_KEY });
  if (packs.length > 0)
    console.log(`site packs bundled: ${packs.join(', ')}`);

  // The e2e test extensions, when the tests are there. The provider's
  // packs are built in again, so they are tried against the test packs.
  const e2e = join(repo, 'tests/e2e');
  if (existsSync(join(e2e, 'run-e2e.mjs'))) {
    await buildProvider({
      outdir: place(join(e2e, 'provider/dist')), siteDirs: [...siteDirs, join(repo, 'tests/fixtures/sitepacks/bundled')],
      // Said once already, for the provider build.
      onWarning: () => undefined,
    });
    for (const [dir, entries, statics] of [
      ['caller', ['background', 'caller'], ['caller.html']],
      ['stub', ['background'], []],
    ]) {
      const root = join(e2e, dir);
      if (!existsSync(join(root, 'manifest.json')))
        continue;
      await buildExtension({
        root,
        entries: Object.fromEntries(entries.map((e) => [e, join(root, `${e}.ts`)])),
        outdir: place(join(root, 'dist')),
        statics,
      });
    }
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    await main();
  } catch (e) {
    if (e instanceof BuildError) {
      console.error(`build failed: ${e.message}`);
      process.exit(1);
    }
    // esbuild printed its errors with their files already.
    if (Array.isArray(e?.errors) && e.errors.length > 0) {
      console.error(`build failed: ${e.errors.length} error${e.errors.length === 1 ? '' : 's'} from esbuild (above); the previous output is left as it was`);
      process.exit(1);
    }
    throw e;
  }
}
