// SPDX-License-Identifier: GPL-3.0-or-later
// The reviewer sees what is approved: where a script runs (old and new on
// an update), and for a site pack its domain, type and every tool with its
// class; nested values as they are, never the source; and a change too big
// to show in full is refused before anyone is asked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { until } from './fakes.ts';
import { CALLER, providerWith, text } from './site-fakes.ts';

const SOURCE = '// canary-41ab-preview-source\nexport default ({ server, z }) => {\n' +
  "  server.registerTool('put', { inputSchema: { v: z.string() } }, async () => ({ content: [] }));\n" +
  "  server.registerTool('get', { annotations: { readOnlyHint: true } }, async () => ({ content: [] }));\n};\n";
const META = { name: 'shop.test', type: 'contentScriptMcpServer', url: 'http://shop.test/cart', isAlwaysEnabled: false, version: '1.0.0' };

async function ready (t: Parameters<typeof providerWith>[0]) {
  const s = providerWith(t);
  await until(() => s.provider.bridge.state === 'ready', 'bridge ready');
  s.app.allow(CALLER);
  return s;
}

const last = (s: Awaited<ReturnType<typeof ready>>) => s.app.of('authorize').at(-1) as Record<string, any>;

test('a site pack install shows its domain, type, where it runs and each tool with its class; never the source', async (t) => {
  const s = await ready(t);
  const r = await s.session.callTool('create_script', { meta: META, source: SOURCE });
  assert.equal(r.isError, undefined, text(r));
  const p = last(s).preview;
  assert.deepEqual(p.matches, ['*://shop.test/*', '*://*.shop.test/*']);
  assert.deepEqual(p.sitePack, {
    domain: 'shop.test', type: 'contentScriptMcpServer', version: '1.0.0', url: 'http://shop.test/cart', isAlwaysEnabled: false,
    tools: [{ name: 'shop_put', write: true }, { name: 'shop_get', write: false }],
  });
  assert.equal(p.action, 'create');
  assert.doesNotMatch(JSON.stringify(s.app.received), /canary-41ab/, 'the source never reaches the app');
  // An update to another domain and type: old → new, for where it runs and what it is.
  const uuid = JSON.parse(text(r)).uuid as string;
  const moved = { ...META, name: 'm.shop.test', url: 'http://m.shop.test/', type: 'pageMcpServer', version: '1.1.0' };
  const u = await s.session.callTool('update_script', { uuid, meta: moved, source: SOURCE.replace("'get', { annotations: { readOnlyHint: true } }", "'get', {}") });
  assert.equal(u.isError, undefined, text(u));
  const up = last(s).preview;
  assert.deepEqual(up.matches, { old: ['*://shop.test/*', '*://*.shop.test/*'], new: ['*://m.shop.test/*', '*://*.m.shop.test/*'] });
  assert.equal(up.sitePack.old.domain, 'shop.test');
  assert.deepEqual([up.sitePack.new.domain, up.sitePack.new.type], ['m.shop.test', 'pageMcpServer']);
  assert.deepEqual(up.sitePack.new.tools, [{ name: 'm-shop_put', write: true }, { name: 'm-shop_get', write: true }], 'the read became a write: shown so');
  assert.deepEqual(up.sitePack.old.tools, [{ name: 'shop_put', write: true }, { name: 'shop_get', write: false }]);
  // Turning it off and deleting it say which pack.
  await s.session.callTool('set_script_enabled', { uuid, enabled: false });
  assert.equal(last(s).preview.sitePack.domain, 'm.shop.test');
  await s.session.callTool('delete_script', { uuid });
  assert.deepEqual(last(s).preview.matches, ['*://m.shop.test/*', '*://*.m.shop.test/*']);
  assert.equal(last(s).preview.sitePack.tools.length, 2);
});

test('a plain script shows its match patterns, old and new on an update', async (t) => {
  const s = await ready(t);
  const r = await s.session.callTool('create_script', { name: 'n', source: 'void 0;', matches: ['https://a.test/*'] });
  const uuid = JSON.parse(text(r)).uuid as string;
  assert.deepEqual(last(s).preview.matches, ['https://a.test/*']);
  await s.session.callTool('update_script', { uuid, matches: ['<all_urls>'] });
  assert.deepEqual(last(s).preview.matches, { old: ['https://a.test/*'], new: ['<all_urls>'] }, 'a widening is visible');
});

test('a change too big to show in full is refused before anyone is asked, never cut', async (t) => {
  const s = await ready(t);
  const matches = Array.from({ length: 10 }, (_, i) => `https://${String(i).padStart(3, '0')}${'x'.repeat(2000)}.test/*`);
  const r = await s.session.callTool('create_script', { name: 'big', source: 'void 0;', matches });
  assert.equal(r.isError, true);
  assert.match(text(r), /cannot be shown to a reviewer in full: its summary would be \d+ bytes, more than 16384/);
  assert.equal(s.app.of('authorize').length, 0);
  assert.equal((await s.store.list()).length, 0);
});
