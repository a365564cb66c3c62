// SPDX-License-Identifier: GPL-3.0-or-later
// The documented build command, run as a person runs it (node build.mjs,
// LUMO_SITE_DIRS), with its outputs under a temporary LUMO_BUILD_DIR: the
// examples, extension/sites and the test packs build together (the e2e
// provider has them all), and a build that fails leaves the previous
// output as it was.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO } from './pack-folders.ts';

const EXT = join(REPO, 'extension');

function npmBuild (env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [join(EXT, 'build.mjs')], { cwd: EXT, env: { ...process.env, ...env }, timeout: 120000 },
      (e, stdout, stderr) => resolve({ code: e === null ? 0 : (typeof e.code === 'number' ? e.code : -1), stdout, stderr }));
  });
}

// Every file under @dir with the digest of its content.
function tree (dir: string, base = dir): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory())
      Object.assign(out, tree(p, base));
    else
      out[p.slice(base.length + 1)] = createHash('sha256').update(readFileSync(p)).digest('hex');
  }
  return out;
}

function pack (root: string, name: string, meta: string, index: string): void {
  mkdirSync(join(root, name), { recursive: true });
  writeFileSync(join(root, name, 'meta.ts'), meta);
  writeFileSync(join(root, name, 'index.ts'), index);
}

test('LUMO_SITE_DIRS=examples/sites npm run build passes: the examples, extension/sites and the test packs together', async (t) => {
  const out = await mkdtemp(join(tmpdir(), 'lumo-build-'));
  t.after(() => rm(out, { recursive: true, force: true }));
  const r = await npmBuild({ LUMO_SITE_DIRS: 'examples/sites', LUMO_BUILD_DIR: out });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /site packs bundled: example\.com \(contentScriptMcpServer; reads: get-user-profile\), opentiny\.design .*, www\.baidu\.com \(contentScriptMcpServer; reads: get-page-title; writes: fill-search-box\)/);
  const scripts = (dir: string) => (JSON.parse(readFileSync(join(out, dir, 'manifest.json'), 'utf8')).content_scripts as Array<{ js: string[] }>)
    .map((c) => c.js.at(-1)).sort();
  assert.deepEqual(scripts('extension/dist'), ['site-loader.js', 'sites/example.com.js', 'sites/www.baidu.com.js']);
  assert.deepEqual(scripts('tests/e2e/provider/dist'),
    ['site-loader.js', 'sites/example-e2e.test.js', 'sites/example.com.js', 'sites/www.baidu-e2e.test.js', 'sites/www.baidu.com.js']);
  for (const page of ['extension/dist/sites/opentiny.design.js', 'tests/e2e/provider/dist/sites/excalidraw-e2e.test.js'])
    assert.ok(statSync(join(out, page)).size > 0, page);
});

test('a failed build leaves the previous output as it was: a refused pack, and one that fails only when bundled', async (t) => {
  const out = await mkdtemp(join(tmpdir(), 'lumo-build-'));
  t.after(() => rm(out, { recursive: true, force: true }));
  const first = await npmBuild({ LUMO_BUILD_DIR: out });
  assert.equal(first.code, 0, first.stderr);
  const before = tree(out);
  const good = "export default { name: 'NAME', type: 'contentScriptMcpServer', url: 'https://NAME/', isAlwaysEnabled: false, version: 'VERSION' };\n";
  const tool = "export default ({ server }) => { server.registerTool('t', {}, async () => ({ content: [] })); };\n";

  // Refused by the check, naming file and field.
  const bad = join(out, 'bad-sites');
  pack(bad, 'bad.test', good.replaceAll('NAME', 'bad.test').replace('VERSION', 'v1'), tool);
  const refused = await npmBuild({ LUMO_BUILD_DIR: out, LUMO_SITE_DIRS: bad });
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /build failed: site packs with problems:\n {2}\S*bad-sites\/bad\.test\/meta\.ts: version: must be a semantic version/);

  // Passes the check (it runs in Node), fails when bundled for the
  // browser: the point where the old output used to be gone already.
  const late = join(out, 'late-sites');
  pack(late, 'late.test', good.replaceAll('NAME', 'late.test').replace('VERSION', '1.0.0'), `import { sep } from 'node:path';\nvoid sep;\n${tool}`);
  const failed = await npmBuild({ LUMO_BUILD_DIR: out, LUMO_SITE_DIRS: late });
  assert.equal(failed.code, 1, failed.stdout);
  assert.match(failed.stderr, /build failed: \d+ errors? from esbuild \(above\); the previous output is left as it was/);

  const after = tree(out);
  for (const dir of ['bad-sites', 'late-sites'])
    for (const k of Object.keys(after))
      if (k.startsWith(`${dir}/`))
        delete after[k];
  assert.deepEqual(after, before, 'the outputs and nothing else, byte for byte as before');
});

test('LUMO_SITE_DIRS naming a folder that does not exist fails the build instead of building without it', async (t) => {
  const out = await mkdtemp(join(tmpdir(), 'lumo-build-'));
  t.after(() => rm(out, { recursive: true, force: true }));
  const r = await npmBuild({ LUMO_BUILD_DIR: out, LUMO_SITE_DIRS: 'example/sites' });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /build failed: LUMO_SITE_DIRS: no such folder: extension\/example\/sites/);
  assert.deepEqual(readdirSync(out), [], 'nothing built');
});
