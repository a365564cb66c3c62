// SPDX-License-Identifier: GPL-3.0-or-later
// A script write is in effect when its answer comes: the user scripts are
// registered before the tool answers, and a sync never leaves a moment in
// which a loading page finds none of its scripts (a pack that missed its
// page's load never registers there: the e2e's page-pack step hung on it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { UserScriptSync, type UserScriptsApi } from '../src/provider/userscripts-runtime.ts';
import type { Script } from '../src/provider/scripts.ts';
import type { PackScripts } from '../src/sitepacks/userscripts.ts';
import { until } from './fakes.ts';
import { CALLER, ready, setup } from './harness.ts';

type Text = { type: string; text: string };
const text = (r: { content: unknown }) => ((r.content as Text[])[0]?.text ?? '');

// chrome.userScripts as Chrome keeps it, with every call recorded and the
// moments at which a script id was not registered.
class FakeUserScripts implements UserScriptsApi {
  scripts = new Map<string, Record<string, unknown>>();
  calls: string[] = [];
  // Ids that were missing at some point between the first and the last call.
  gaps = new Set<string>();
  private watch = new Set<string>();

  async getScripts () { return [...this.scripts.values()].map((s) => ({ ...s, id: s.id as string })); }
  async register (list: Array<Record<string, unknown>>) {
    this.calls.push(`register ${list.map((s) => s.id).join(',')}`);
    for (const s of list) {
      if (this.scripts.has(s.id as string))
        throw new Error(`Duplicate script ID '${String(s.id)}'`);
      this.scripts.set(s.id as string, s);
    }
  }

  async update (list: Array<Record<string, unknown>>) {
    this.calls.push(`update ${list.map((s) => s.id).join(',')}`);
    for (const s of list)
      this.scripts.set(s.id as string, s);
  }

  async unregister (filter?: { ids?: string[] }) {
    const ids = filter?.ids ?? [...this.scripts.keys()];
    this.calls.push(`unregister ${ids.join(',')}`);
    for (const id of ids) {
      this.scripts.delete(id);
      if (this.watch.has(id))
        this.gaps.add(id);
    }
  }

  async configureWorld () { /* recorded nowhere: idempotent */ }
  watchFor (ids: string[]) { this.watch = new Set(ids); }
}

const plain = (uuid: string, source: string): Script => ({
  uuid, name: uuid, description: '', matches: ['https://example.com/*'], source, enabled: true, createdAt: '', updatedAt: '',
});
const packScripts = (packId: string, code: string): PackScripts => ({
  packId, worldId: `sitepack-${packId}`,
  scripts: [
    { id: `sr-${packId}`, matches: ['*://p.test/*'], world: 'USER_SCRIPT', worldId: `sitepack-${packId}`, runAt: 'document_start', allFrames: false, js: [{ code: 'relay' }] },
    { id: `sp-${packId}`, matches: ['*://p.test/*'], world: 'MAIN', runAt: 'document_idle', allFrames: false, js: [{ code }] },
  ],
});

test('a sync changes only what changed: nothing that stays is ever unregistered', async () => {
  const us = new FakeUserScripts();
  const sync = new UserScriptSync(() => us);
  const A = '00000000-0000-4000-8000-00000000000a';
  const B = '00000000-0000-4000-8000-00000000000b';
  assert.equal((await sync.sync([plain(A, 'a')], [packScripts('p1', 'one')])).size, 0);
  assert.deepEqual([...us.scripts.keys()].sort(), [A, 'sp-p1', 'sr-p1']);
  us.watchFor([A, 'sp-p1', 'sr-p1']);
  us.calls = [];
  await sync.sync([plain(A, 'a')], [packScripts('p1', 'one')]);
  assert.deepEqual(us.calls, [], 'the same state again touches nothing');
  await sync.sync([plain(A, 'a'), plain(B, 'b')], [packScripts('p1', 'two')]);
  assert.deepEqual(us.calls, [`register ${B}`, 'update sp-p1'], 'a new script is added, a changed one updated in place');
  assert.equal(us.scripts.get('sp-p1')?.js !== undefined && JSON.stringify(us.scripts.get('sp-p1')?.js), '[{"code":"two"}]');
  await sync.sync([plain(B, 'b')], []);
  assert.deepEqual(us.calls.slice(2), [`unregister ${A},sr-p1,sp-p1`], 'what is no longer wanted goes, in one call');
  assert.deepEqual([...us.gaps].sort(), [A, 'sp-p1', 'sr-p1'], 'only the removed ones were ever missing');
  assert.deepEqual([...us.scripts.keys()], [B]);
});

test('a restarted worker updates what Chrome kept in place, never unregistering it first', async () => {
  const us = new FakeUserScripts();
  await new UserScriptSync(() => us).sync([], [packScripts('p1', 'one')]);
  us.watchFor(['sp-p1', 'sr-p1']);
  us.calls = [];
  const errors = await new UserScriptSync(() => us).sync([], [packScripts('p1', 'one')]);
  assert.equal(errors.size, 0);
  assert.deepEqual(us.calls, ['update sr-p1,sp-p1']);
  assert.equal(us.gaps.size, 0);
});

test('a pack whose scripts Chrome refuses reports why; the others are registered', async () => {
  const us = new FakeUserScripts();
  const original = us.register.bind(us);
  us.register = async (list) => {
    if (list.some((s) => s.id === 'sp-bad'))
      throw new Error('Invalid match pattern');
    return original(list);
  };
  const errors = await new UserScriptSync(() => us).sync([], [packScripts('bad', 'x'), packScripts('good', 'y')]);
  assert.deepEqual([...errors], [['bad', 'Invalid match pattern']]);
  assert.equal(us.scripts.has('sp-good'), true);
});

test('a script write answers only once it is in effect (its user scripts registered)', async (t) => {
  let release!: () => void;
  let appliedCalls = 0;
  const s = setup(t, {
    applied: () => {
      appliedCalls++;
      return new Promise<void>((r) => { release = r; });
    },
  });
  await ready(s);
  s.app.allow(CALLER);
  let answered = false;
  const call = s.session.callTool('create_script', { name: 'n', source: 'void 0;', matches: ['https://example.com/*'] })
    .then((r) => { answered = true; return r; });
  await until(() => appliedCalls === 1, 'the write to wait for its registration');
  assert.equal((await s.provider.store.list()).length, 1, 'stored first');
  // A read sent now answers after a write that did not wait would have
  // (the write's answer had fewer hops left): an order, not a time.
  assert.equal((await s.session.callTool('list_scripts', {})).isError, undefined);
  assert.equal(answered, false, 'no answer while the scripts are not registered');
  assert.equal(s.app.of('result').length, 0, 'nor a result for the audit');
  release();
  const r = await call;
  assert.equal(r.isError, undefined, text(r));
  assert.equal(appliedCalls, 1);
  // The other writes wait the same way.
  const uuid = JSON.parse(text(r)).uuid as string;
  const writes: Array<[string, Record<string, unknown>]> = [
    ['update_script', { uuid, source: 'void 1;' }], ['set_script_enabled', { uuid, enabled: false }], ['delete_script', { uuid }]];
  for (const [tool, args] of writes) {
    answered = false;
    const w = s.session.callTool(tool, args).then((x) => { answered = true; return x; });
    await until(() => appliedCalls === 2, `${tool} to wait`);
    await s.session.callTool('list_scripts', {});
    assert.equal(answered, false, tool);
    appliedCalls = 1;
    release();
    assert.equal((await w).isError, undefined, tool);
  }
});
