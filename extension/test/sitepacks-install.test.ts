// SPDX-License-Identifier: GPL-3.0-or-later
// Installing a site pack: the reviewer is shown every tool and its class
// read from the source's text, none of the agent's code runs before the
// write is allowed, and what the code then registers may not go beyond
// what was shown.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { declaredTools } from '../src/sitepacks/declared.ts';
import { functionDryRun } from '../src/sitepacks/dry-run.ts';
import type { DryRun } from '../src/sitepacks/service.ts';
import { until } from './fakes.ts';
import { CALLER, providerWith, text } from './site-fakes.ts';

const META = { name: 'shop.test', type: 'contentScriptMcpServer', url: 'http://shop.test/', isAlwaysEnabled: false, version: '1.0.0' };
const GUIDE4 = readFileSync(new URL('../../tests/fixtures/sitepacks/installed/opentiny-e2e.test/index.js', import.meta.url), 'utf8');

test('declared tools: names and classes from the text; whatever it cannot show for sure is a write', () => {
  assert.deepEqual(declaredTools(GUIDE4).tools.map((d) => [d.name, d.write]),
    [['generate-color', true], ['get-elements', false], ['get-app-state', false], ['get-element-text', false]]);
  const src = (body: string) => `export default ({ server, z }) => {\n${body}\n};`;
  const one = (body: string) => declaredTools(src(body));
  assert.deepEqual(one("server.registerTool(`t`, { annotations: { readOnlyHint: true } }, h);").tools.map((d) => d.write), [false], 'a plain template is a literal');
  for (const [body, why] of [
    ["server.registerTool('t', cfg, h);", 'config in a variable'],
    ["server.registerTool('t', { ...cfg, annotations: { readOnlyHint: true } }, h);", 'a spread before'],
    ["server.registerTool('t', { annotations: { readOnlyHint: true }, ...cfg }, h);", 'a spread after'],
    ["server.registerTool('t', { annotations: { readOnlyHint: !0 } }, h);", 'not the literal true'],
    ["server.registerTool('t', { annotations: { readOnlyHint: true && x } }, h);", 'an expression'],
    ["server.registerTool('t', { annotations: hints }, h);", 'annotations in a variable'],
    ["server.registerTool('t', { annotations: { readOnlyHint: true }, annotations: {} }, h);", 'a later key wins'],
    ["server.registerTool('t', { ['annotations']: { readOnlyHint: true } }, h);", 'a computed key'],
    ["server.registerTool('t', { get annotations () { return { readOnlyHint: true }; } }, h);", 'a getter'],
    ["server.registerTool('t', { annotations: { readOnlyHint: true } }, h);\nserver.registerTool('t', {}, h);", 'registered twice, once as a write'],
  ] as const)
    assert.deepEqual(one(body).tools.map((d) => [d.name, d.write]), [['t', true]], why);
  assert.deepEqual(one("// server.registerTool('c', {}, h)\nconst s = \"registerTool('d')\";\nserver.registerTool('t', {}, h);").tools.map((d) => d.name), ['t'], 'comments and strings are not calls');
  for (const [body, re] of [
    ['server.registerTool(NAME, {}, h);', /line 2: the first argument of registerTool must be the tool name as a plain string literal/],
    ['server.registerTool(`t-${n}`, {}, h);', /plain string literal/],
    ["server.registerTool('t' + n, {}, h);", /plain string literal/],
    ['const r = server.registerTool;', /line 2: registerTool is used without being called/],
    ["server.registerTool('t' {}, h);", /line 2: registerTool\('t' must be followed by "," and the config: the code does not parse here/],
  ] as const)
    assert.match(one(body).problems[0] ?? '', re, body);
});

// A dry run that records when it ran, and what the app had been asked by then.
function spy (run: DryRun = functionDryRun) {
  const calls: Array<{ authorizesBefore: number }> = [];
  let app: { of: (t: string) => unknown[] } | undefined;
  const dryRun: DryRun = async (code, config) => {
    calls.push({ authorizesBefore: app?.of('authorize').length ?? -1 });
    return run(code, config);
  };
  return { dryRun, calls, bind: (a: typeof app) => { app = a; } };
}

test('no agent code runs before authorize allowed the write: writes off, rejected, rate limited', async (t) => {
  const dry = spy();
  const s = providerWith(t, { dryRun: dry.dryRun });
  dry.bind(s.app);
  await until(() => s.provider.bridge.state === 'ready', 'bridge ready');
  s.app.allow(CALLER);
  const source = 'export default ({ server }) => { globalThis.ran = true; server.registerTool("t", {}, async () => ({ content: [] })); };';
  s.app.setPolicy({ writes: false });
  const off = await s.session.callTool('create_script', { meta: META, source });
  assert.equal(text(off), 'Writes are turned off for this provider.');
  s.app.setPolicy({ writes: true });
  for (const reason of ['review_rejected', 'rate_limited', 'review_timeout']) {
    s.app.denyNext = { reason };
    assert.equal((await s.session.callTool('create_script', { meta: META, source })).isError, true, reason);
  }
  assert.equal(dry.calls.length, 0, 'the code never ran');
  assert.equal((await s.store.list()).length, 0);
  // Allowed: it runs once, after the authorize, and the pack is stored.
  const ok = await s.session.callTool('create_script', { meta: META, source });
  assert.equal(ok.isError, undefined, text(ok));
  assert.deepEqual(dry.calls, [{ authorizesBefore: 5 }]);
  // An update with meta the same way.
  const uuid = JSON.parse(text(ok)).uuid as string;
  s.app.setPolicy({ writes: false });
  await s.session.callTool('update_script', { uuid, meta: { ...META, version: '1.0.1' } });
  assert.equal(dry.calls.length, 1, 'an update with writes off runs nothing either');
  s.app.setPolicy({ writes: true });
  assert.equal((await s.session.callTool('update_script', { uuid, meta: { ...META, version: '1.0.1' } })).isError, undefined);
  assert.equal(dry.calls.length, 2);
});

test('the run may not register a tool the reviewer was not shown, nor make a write a read', async (t) => {
  // The code registers what its text does not show: a tool with a
  // computed name hidden behind a literal one, and a read where the text
  // has a write.
  const tricky = spy(async () => ({ errors: [], tools: [
    { name: 't', inputSchema: { type: 'object', properties: {} }, annotations: { readOnlyHint: true } },
    { name: 'hidden', inputSchema: { type: 'object', properties: {} }, annotations: { readOnlyHint: true } }] }));
  const s = providerWith(t, { dryRun: tricky.dryRun });
  await until(() => s.provider.bridge.state === 'ready', 'bridge ready');
  s.app.allow(CALLER);
  const source = 'export default ({ server }) => { server.registerTool("t", {}, async () => ({ content: [] })); };';
  const r = await s.session.callTool('create_script', { meta: META, source });
  assert.equal(r.isError, true);
  assert.match(text(r), /registered the tool "hidden", which its text does not declare with a literal name, so it was not shown for review/);
  assert.deepEqual(s.app.of('result').map((m) => m.ok), [false], 'the allowed write is audited as failed');
  assert.equal((await s.store.list()).length, 0, 'nothing stored');
  // A run that registers only the shown tool, but as a read.
  const honest = providerWith(t, { dryRun: async () => ({ errors: [], tools: [{ name: 't', inputSchema: { type: 'object', properties: {} }, annotations: { readOnlyHint: true } }] }) });
  await until(() => honest.provider.bridge.state === 'ready', 'bridge ready');
  honest.app.allow(CALLER);
  const ok = await honest.session.callTool('create_script', { meta: META, source });
  assert.equal(ok.isError, undefined, text(ok));
  const stored = (await honest.store.list())[0]?.sitePack?.tools;
  assert.deepEqual(stored?.map((d) => [d.name, d.annotations?.readOnlyHint]), [['t', false]], 'shown as a write, stored as a write');
});

test('a syntax error is found by the run after the allowed write, and recorded as its failure', async (t) => {
  const s = providerWith(t);
  await until(() => s.provider.bridge.state === 'ready', 'bridge ready');
  s.app.allow(CALLER);
  const r = await s.session.callTool('create_script', { meta: META, source: 'export default ({ server }) => { server.registerTool("t", {}, async () => ({ content: [] })) ' });
  assert.equal(r.isError, true);
  assert.match(text(r), /source: the code does not parse: SyntaxError/);
  assert.equal(s.app.of('authorize').length, 1);
  assert.deepEqual(s.app.of('result').map((m) => m.ok), [false]);
  assert.equal((await s.store.list()).length, 0);
});

test('the sandbox has no network and no other powers: its CSP', () => {
  const manifest = JSON.parse(readFileSync(new URL('../manifest.json', import.meta.url), 'utf8'));
  const csp = String(manifest.content_security_policy?.sandbox ?? '');
  const directives = new Map(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([k, ...v]) => [k, v.join(' ')]));
  assert.equal(directives.get('connect-src'), "'none'");
  assert.equal(directives.get('default-src'), "'none'");
  assert.equal(directives.get('sandbox'), 'allow-scripts', 'no popups, forms, same origin or top navigation');
  assert.deepEqual(manifest.sandbox?.pages, ['sandbox.html']);
});
