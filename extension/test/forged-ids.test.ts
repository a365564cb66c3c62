// SPDX-License-Identifier: GPL-3.0-or-later
// The forged-ID table (tests/fixtures/bridge/extension-ids.json) through
// every way an extension ID reaches the provider. Identity is what Chrome
// asserts (sender.id); a forged one gets a refusal and reaches nothing:
// no message to the app, no server, no tool run, no port closed.
// For a desktop agent the app asserts the ID (agentOpen's caller.id), and
// the same table goes through it. PATHS is the list of those ways: a new
// one is one more entry.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { PROBE_CHANNEL, isExtensionId } from '../src/shared/protocol.ts';
import { portPair, until } from './fakes.ts';
import { CALLER, ready, setup } from './harness.ts';

const table = JSON.parse(readFileSync(new URL('../../tests/fixtures/bridge/extension-ids.json', import.meta.url), 'utf8')) as {
  valid: string[]; forged: Array<{ name: string; id: unknown }>;
};

type S = ReturnType<typeof setup>;
const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } };

// Each way in: does something with @id and asserts it was refused.
const PATHS: Record<string, (s: S, id: unknown, name: string) => Promise<void>> = {
  'probe (sender.id)': async (s, id, name) => {
    const before = s.app.received.length;
    const a = await s.provider.probe({ channel: PROBE_CHANNEL, version: 1, id: 'p', client: { id: CALLER } }, { id: id as string });
    assert.equal(a?.ok, false, name);
    assert.match((a as { error: string }).error, /did not come from an extension with a valid ID/, name);
    assert.equal(s.app.received.length, before, `${name}: nothing reached the app`);
  },
  'probe (client.id is display only)': async (s, id, name) => {
    // A valid sender with a forged client.id: the app hears the sender.
    await s.provider.probe({ channel: PROBE_CHANNEL, version: 1, id: 'p', client: { id, name: 'n' } }, { id: CALLER });
    assert.equal((s.app.of('probe').at(-1)?.caller as { id: string }).id, CALLER, name);
  },
  'port connect, then initialize, a tool call and authorize': async (s, id, name) => {
    const before = s.app.received.length;
    const ports = s.provider.openPortCount;
    const stored = (await s.provider.store.list()).length;
    const [host, prov] = portPair('lumo:mcp', CALLER);
    (prov as { sender: unknown }).sender = { id };
    const seen: Array<Record<string, any>> = [];
    host.onMessage.addListener((m) => seen.push(m as Record<string, any>));
    s.provider.connect(prov);
    host.postMessage(INIT);
    host.postMessage({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'create_script', arguments: { name: 'x', source: 'void 0;' } } });
    await until(() => host.disconnected, `${name}: the port to close`);
    assert.equal(s.provider.openPortCount, ports, name);
    assert.match(seen.find((m) => m.method === 'notifications/lumo/closed')?.params.reason ?? '', /valid ID/, name);
    assert.equal(s.app.received.length, before, `${name}: no probe, port, authorize or result reached the app`);
    assert.equal((await s.provider.store.list()).length, stored, `${name}: no management tool ran`);
  },
  'probeTarget from the app (target)': async (s, id, name) => {
    let probed = 0;
    (s.provider as any).deps.sendMessage = async () => { probed++; return {}; };
    s.app.push({ type: 'probeTarget', id: `t-${name}`, target: id });
    await until(() => s.app.received.some((m) => m.re === `t-${name}`), `${name}: the answer`);
    const a = s.app.received.find((m) => m.re === `t-${name}`) as Record<string, unknown>;
    assert.deepEqual([a.type, a.code, a.field], ['error', 'invalid_id', 'target'], name);
    assert.equal(probed, 0, `${name}: nothing was probed`);
  },
  'agentOpen from the app (caller.id), then messages on that port': async (s, id, name) => {
    const agents = s.provider.openAgentPortCount;
    const port = `f${s.app.received.length}`;
    const rid = s.app.openAgent(port, id as string);
    await until(() => s.app.answerTo(rid) !== undefined, `${name}: the answer`);
    const a = s.app.answerTo(rid) as Record<string, unknown>;
    assert.deepEqual([a.type, a.code, a.field], ['error', 'invalid_id', 'caller.id'], name);
    assert.equal(s.provider.openAgentPortCount, agents, `${name}: no port opened`);
    const before = s.app.received.length;
    s.app.agentSend(port, INIT);
    s.app.agentSend(port, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'create_script', arguments: { name: 'x', source: 'void 0;' } } });
    await until(() => s.app.closesOf(port).length === 2, `${name}: both refused`);
    assert.deepEqual(s.app.received.slice(before).map((m) => m.type), ['agentClose', 'agentClose'],
      `${name}: no server answered, no probe, authorize or result reached the app`);
    assert.equal((await s.provider.store.list()).length, 0, `${name}: no management tool ran`);
  },
  'policy push from the app (revoked)': async (s, id, name) => {
    const open = s.provider.openPortCount;
    s.app.push({ type: 'policy', enabled: true, writes: true, review: false, revoked: [CALLER, id] });
    // A valid push after it shows the bad one was handled (dropped) first.
    s.app.push({ type: 'policy', enabled: true, writes: true, review: true, revoked: [] });
    await until(() => s.provider.policy?.review === true, `${name}: the next push`);
    assert.equal(s.provider.openPortCount, open, `${name}: a push with a forged ID closed nothing`);
    s.app.push({ type: 'policy', enabled: true, writes: true, review: false, revoked: [] });
    await until(() => s.provider.policy?.review === false, 'reset');
  },
};

test('the table: every forged ID fails isExtensionId, every valid one passes', () => {
  for (const id of table.valid)
    assert.equal(isExtensionId(id), true, id);
  for (const f of table.forged)
    assert.equal(isExtensionId(f.id), false, f.name);
  assert.ok(table.forged.length >= 20);
});

for (const [path, run] of Object.entries(PATHS)) {
  test(`forged IDs through ${path}`, async (t) => {
    const s = setup(t);
    await ready(s);
    s.app.allow(CALLER);
    await s.session.refresh();
    for (const f of table.forged)
      await run(s, f.id, f.name);
    assert.equal(s.provider.openPortCount, 1, 'the allowed caller\'s port is still open');
  });
}

test('every valid ID of the table opens a virtual port through agentOpen', async (t) => {
  const s = setup(t);
  await ready(s);
  for (const [i, id] of table.valid.entries()) {
    const rid = s.app.openAgent(`v${i}`, id);
    await until(() => s.app.answerTo(rid) !== undefined, `${id}: the answer`);
    assert.equal(s.app.answerTo(rid)?.type, 'agentOpen.result', id);
  }
  assert.equal(s.provider.openAgentPortCount, table.valid.length);
});
