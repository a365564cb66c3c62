// SPDX-License-Identifier: GPL-3.0-or-later
// The userscript store, the redacted preview and the instructions a model
// reads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ScriptStore, MAX_SOURCE_BYTES } from '../src/provider/scripts.ts';
import { lineDiff, scriptPreview } from '../src/provider/preview.ts';
import { instructions } from '../src/provider/mcp-server.ts';
import { memoryArea } from './fake-app.ts';

const U1 = '0f8fad5b-d9cb-469f-a165-70867728950e';
const U2 = '7c9e6679-7425-40de-944b-e07fc1f90ae7';

test('scripts: create, list in creation order, update, remove; one storage key each', async () => {
  const area = memoryArea();
  let clock = 0;
  const store = new ScriptStore(area, () => new Date(Date.UTC(2026, 0, 1, 0, 0, clock++)));
  await store.create(U2, { name: ' second ', source: 'b' });
  await store.create(U1, { name: 'first', source: 'a', matches: ['https://a.example/*'], enabled: false });
  assert.deepEqual((await store.list()).map((s) => [s.uuid, s.name]), [[U2, 'second'], [U1, 'first']]);
  assert.deepEqual([...area.data.keys()].sort(), [`script:${U1}`, `script:${U2}`]);
  const up = await store.update(U1, { source: 'a\nb', enabled: true });
  assert.equal(up.source, 'a\nb');
  assert.equal(up.name, 'first');
  assert.notEqual(up.updatedAt, up.createdAt);
  await store.remove(U2);
  assert.equal(await store.get(U2), null);
  await area.set({ 'unrelated': 1, [`script:${U2}`]: { broken: true } });
  assert.equal((await store.list()).length, 1, 'foreign or broken entries are skipped');
});

test('scripts: the business errors say what is wrong', async () => {
  const store = new ScriptStore(memoryArea());
  await assert.rejects(store.update(U1, { name: 'x' }), /No script has the UUID 0f8fad5b/);
  await assert.rejects(store.remove(U1), /No script has the UUID/);
  await assert.rejects(store.create('X', { name: 'x', source: '' }), /not a lowercase UUID/);
  await store.create(U1, { name: 'x', source: '' });
  await assert.rejects(store.create(U1, { name: 'x', source: '' }), /already exists/);
  await assert.rejects(store.update(U1, { name: '   ' }), /name is empty/);
  await assert.rejects(store.update(U1, { source: 'x'.repeat(MAX_SOURCE_BYTES + 1) }), /limit is 524288/);
  assert.equal(await store.get('../etc'), null);
});

test('preview: line counts and digest, never the source', async () => {
  assert.deepEqual(lineDiff('', ''), { added: 0, removed: 0 });
  assert.deepEqual(lineDiff('a\nb\nc\n', 'a\nc\nd\ne'), { added: 2, removed: 1 });
  assert.deepEqual(lineDiff('a\r\nb', 'a\nb\n'), { added: 0, removed: 0 });
  assert.deepEqual(lineDiff('x\nx\n', 'x\n'), { added: 0, removed: 1 });
  const p = await scriptPreview('update', U1, 'n', 'secret-old', 'secret-new-é');
  assert.equal(p.bytes, 13);
  assert.match(p.sourceSha256, /^[0-9a-f]{64}$/);
  assert.equal(JSON.stringify(p).includes('secret'), false);
});

test('instructions follow the policy', () => {
  assert.match(instructions({ enabled: true, writes: false, review: false }), /Writes are off/);
  assert.match(instructions({ enabled: true, writes: true, review: true }), /Each write is reviewed/);
  assert.match(instructions({ enabled: true, writes: true, review: false }), /Writes are on/);
  assert.match(instructions(null), /not known yet/);
  for (const p of [null, { enabled: true, writes: true, review: false }])
    assert.match(instructions(p), /30 per minute/);
});
