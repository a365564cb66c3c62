// SPDX-License-Identifier: GPL-3.0-or-later
// The mcp-servers guide's own code, byte for byte
// (tests/fixtures/sitepacks/guide, see its README): every pack of it passes
// the build's checks, builds into the extension and installs with
// create_script, with at most warnings, and each of its tools is a write
// (it declares no readOnlyHint). Where the guide's code cannot work as
// written, the test says so. The type check is `npm test`'s own (the
// fixtures are in tsconfig.sites.json).
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildProvider } from '../build.mjs';
import { checkMeta, jumpLinkWarnings } from '../src/sitepacks/meta.ts';
import { inspectPacks, type PackInput } from '../src/sitepacks/inspect.ts';
import { declaredTools } from '../src/sitepacks/declared.ts';
import { isWrite } from '../src/sitepacks/tools.ts';
import { until } from './fakes.ts';
import { loadFolder, REPO } from './pack-folders.ts';
import { CALLER, providerWith, text } from './site-fakes.ts';

const GUIDE = join(REPO, 'tests/fixtures/sitepacks/guide');
const AS_WRITTEN = join(GUIDE, 'as-written');
const EXAMPLE_2 = join(GUIDE, 'example-2');
const SNIPPETS = join(GUIDE, 'snippets');
const ROOTS = [AS_WRITTEN, EXAMPLE_2, SNIPPETS];

// Every pack of the guide and the tools it registers, by root.
const TOOLS: Record<string, Record<string, string[]>> = {
  [AS_WRITTEN]: {
    'example.com': ['get-user-profile'],
    'opentiny.design': ['generate-color', 'get-elements'],
    'www.baidu.com': ['get-page-title'],
  },
  [EXAMPLE_2]: { 'www.baidu.com': ['fill-search-box'] },
  [SNIPPETS]: {
    'check-element.test': ['check-element'],
    'cookie.test': ['get-user-info'],
    'signature.test': [],
    'test-tool.test': ['test-tool'],
    'tool-name.test': ['tool-name'],
  },
};

const WARNINGS = [
  'tests/fixtures/sitepacks/guide/as-written/example.com/meta.ts: toolsJumpLinks.tool-name: links a tool "tool-name" that the pack does not register (it registers "get-user-profile"); the link is not used',
  'tests/fixtures/sitepacks/guide/example-2/www.baidu.com/meta.ts: toolsJumpLinks.get-page-title: links a tool "get-page-title" that the pack does not register (it registers "fill-search-box"); the link is not used',
  'tests/fixtures/sitepacks/guide/snippets/signature.test/index.ts: the registration function registers no tools yet (call server.registerTool); the pack gives no tools',
];

// The test-tool snippet logs while it registers, as the guide wants.
function quiet (t: TestContext): string[] {
  const lines: string[] = [];
  t.mock.method(console, 'log', (...a: unknown[]) => { lines.push(a.join(' ')); });
  return lines;
}

test('guide: every pack passes the build\'s checks as written, with warnings only; every tool is a write', async (t) => {
  const logged = quiet(t);
  const warnings: string[] = [];
  for (const root of ROOTS) {
    const r = await inspectPacks(await loadFolder(root));
    assert.deepEqual(r.problems, [], root);
    warnings.push(...r.warnings);
    assert.deepEqual(Object.fromEntries(r.packs.map((p) => [p.meta.name, p.tools.map((d) => d.name)])), TOOLS[root], root);
    for (const p of r.packs)
      for (const d of p.tools)
        assert.equal(isWrite(d), true, `${p.meta.name} ${d.name}: declares nothing, so it is a write (fail safe)`);
  }
  assert.deepEqual(warnings, WARNINGS, 'each warning names its file and the key');
  assert.deepEqual(logged, ['工具注册函数被调用', '工具注册完成'], 'the test-tool snippet\'s registration ran');
});

test('guide: examples one and two cannot both be www.baidu.com/index.ts as written; in one registration function they are one pack', async (t) => {
  quiet(t);
  const [one] = await loadFolder(AS_WRITTEN).then((x) => x.filter((p) => p.folder === 'www.baidu.com'));
  const [two] = await loadFolder(EXAMPLE_2);
  // As written: two folders for one domain, so the second is refused.
  const both = await inspectPacks([one as PackInput, two as PackInput]);
  assert.match(both.problems.join('\n'), /example-2\/www\.baidu\.com\/meta\.ts: name: tests\/fixtures\/sitepacks\/guide\/as-written\/www\.baidu\.com serves www\.baidu\.com already/);
  // What docs/site-packs.md says to change: both calls in one function.
  const reg = (p: PackInput) => p.register as (ctx: unknown) => void;
  const joined = await inspectPacks([{ ...(one as PackInput), register: (ctx: unknown) => { reg(one as PackInput)(ctx); reg(two as PackInput)(ctx); } }]);
  assert.deepEqual(joined.problems, []);
  assert.deepEqual(joined.warnings, [], 'the jump link of the meta now finds its tool');
  assert.deepEqual(joined.packs[0]?.tools.map((d) => d.name), ['get-page-title', 'fill-search-box']);
});

test('guide: each field example of the meta section, in the meta of its domain', async () => {
  const field = (name: string): Record<string, unknown> =>
    // A fragment of an object literal, as the guide shows it.
    new Function(`return ({\n${readFileSync(join(GUIDE, 'fields', `${name}.txt`), 'utf8')}\n});`)() as Record<string, unknown>;
  const full = (await import(join(AS_WRITTEN, 'example.com/meta.ts'))).default as Record<string, unknown>;
  const baidu = (await import(join(AS_WRITTEN, 'www.baidu.com/meta.ts'))).default as Record<string, unknown>;
  for (const name of ['name', 'type', 'url', 'isAlwaysEnabled', 'customMarketMcpServers', 'version']) {
    const f = field(name);
    assert.deepEqual(Object.keys(f), [name]);
    const c = checkMeta({ ...full, ...f }, { expectedName: 'example.com' });
    assert.equal(c.ok, true, `${name}: ${JSON.stringify(!c.ok && c.problems)}`);
  }
  // Its links are on www.baidu.com: they go with that pack (examples one
  // and two), where search-content is not a tool.
  const c = checkMeta({ ...baidu, ...field('toolsJumpLinks') }, { expectedName: 'www.baidu.com' });
  assert.ok(c.ok, JSON.stringify(!c.ok && c.problems));
  assert.deepEqual(jumpLinkWarnings(c.meta, ['get-page-title', 'fill-search-box']).map((p) => p.field), ['toolsJumpLinks.search-content']);
});

test('guide: bundled, the packs build into the extension with warnings only (esbuild, manifest, pack scripts)', async (t) => {
  quiet(t);
  const out = await mkdtemp(join(tmpdir(), 'lumo-guide-build-'));
  t.after(() => rm(out, { recursive: true, force: true }));
  const said: string[] = [];
  const a = await buildProvider({ outdir: join(out, 'a'), siteDirs: [AS_WRITTEN, SNIPPETS], onWarning: (w) => said.push(w) });
  const b = await buildProvider({ outdir: join(out, 'b'), siteDirs: [EXAMPLE_2], onWarning: (w) => said.push(w) });
  assert.deepEqual(said.sort(), [...WARNINGS].sort());
  assert.deepEqual([...a.warnings, ...b.warnings].sort(), [...WARNINGS].sort());
  assert.match(a.packs.join('\n'), /^www\.baidu\.com \(contentScriptMcpServer; writes: get-page-title\)$/m, 'the build says which tools are writes');
  assert.deepEqual(b.packs, ['www.baidu.com (contentScriptMcpServer; writes: fill-search-box)']);
  const manifest = JSON.parse(readFileSync(join(out, 'a/manifest.json'), 'utf8'));
  assert.deepEqual(manifest.content_scripts.map((c: { js: string[] }) => c.js.at(-1)).slice(1).sort(),
    ['sites/check-element.test.js', 'sites/cookie.test.js', 'sites/example.com.js', 'sites/signature.test.js', 'sites/test-tool.test.js', 'sites/tool-name.test.js', 'sites/www.baidu.com.js']);
  assert.match(readFileSync(join(out, 'a/sites/opentiny.design.js'), 'utf8'), /generate-color/, 'the page pack\'s script');
  assert.match(readFileSync(join(out, 'b/sites/www.baidu.com.js'), 'utf8'), /fill-search-box/);
});

test('guide: installed, each pack goes in with create_script and meta, its tools declared and registered as writes, warnings in the answer', async (t) => {
  quiet(t);
  const said: string[] = [];
  for (const root of ROOTS) {
    // One provider per root: the two www.baidu.com packs cannot both be in one.
    const s = providerWith(t, { bundled: () => [] });
    await until(() => s.provider.bridge.state === 'ready', 'bridge ready');
    s.app.allow(CALLER);
    for (const p of await loadFolder(root)) {
      const source = readFileSync(join(REPO, p.dir, 'index.ts'), 'utf8');
      const r = await s.session.callTool('create_script', { meta: p.meta, source });
      assert.equal(r.isError, undefined, `${p.dir}: ${text(r)}`);
      const answer = JSON.parse(text(r));
      assert.deepEqual(answer.sitePack.tools, TOOLS[root]?.[p.folder], p.dir);
      said.push(...(answer.warnings ?? []).map((w: string) => `${p.dir}: ${w}`));
      // What the reviewer was shown before any of it ran: every tool a write.
      const shown = s.app.of('authorize').at(-1) as { preview: { sitePack: { tools: Array<{ write: boolean }> } } };
      assert.ok(shown.preview.sitePack.tools.every((x) => x.write), p.dir);
      assert.ok(declaredTools(source).tools.every((d) => d.write), p.dir);
    }
    const stored = await s.store.list();
    assert.equal(stored.length, Object.keys(TOOLS[root] ?? {}).length);
    for (const x of stored)
      assert.ok(x.sitePack?.tools.every(isWrite), x.name);
  }
  assert.deepEqual(said, [
    'tests/fixtures/sitepacks/guide/as-written/example.com: meta.toolsJumpLinks.tool-name: links a tool "tool-name" that the pack does not register (it registers "get-user-profile"); the link is not used',
    'tests/fixtures/sitepacks/guide/example-2/www.baidu.com: meta.toolsJumpLinks.get-page-title: links a tool "get-page-title" that the pack does not register (it registers "fill-search-box"); the link is not used',
    'tests/fixtures/sitepacks/guide/snippets/signature.test: source: the registration function registers no tools yet (call server.registerTool); the pack gives no tools',
  ]);
});
