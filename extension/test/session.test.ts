// SPDX-License-Identifier: GPL-3.0-or-later
// The connector's logical session: its state on every row of the table,
// the probe timeout, and lazy reconnects that resend only what never left.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/cfworker';
import { ProviderSession, SessionError } from '../src/host/session.ts';
import { ExtensionHub } from '../src/host/hub.ts';
import { BufferedPortTransport } from '../src/provider/transport.ts';
import { portPair, until, type FakePort } from './fakes.ts';

const PROVIDER = 'p'.repeat(32);
const CALLER = 'c'.repeat(32);
const cases = JSON.parse(readFileSync(new URL('../../tests/fixtures/probe-status/cases.json', import.meta.url), 'utf8')).cases;
const CONNECTED = {
  ok: true, service: { namespace: 'notes', name: 'Notes', version: '1' },
  status: { enabled: true, authorized: true, ready: true, pendingApproval: false },
};

for (const c of cases) {
  test(`connector state on row ${c.row}: ${c.name}`, async () => {
    let ports = 0;
    const s = new ProviderSession({
      providerId: PROVIDER, client: { id: CALLER }, probeTimeoutMs: 30,
      sendMessage: (_id, _m) => {
        if (c.outcome.kind === 'rejected')
          return Promise.reject(new Error(c.outcome.error));
        if (c.outcome.kind === 'timeout')
          return new Promise(() => {});
        return Promise.resolve('answer' in c.outcome ? c.outcome.answer : undefined);
      },
      connectPort: (_id, name) => { ports++; return portPair(name, CALLER)[0]; },
    });
    const v = await s.probe();
    assert.equal(v.row, c.row);
    assert.equal(s.row, c.row);
    if (c.outcome.kind === 'timeout')
      assert.equal(s.message, 'No answer within 30 ms.', 'the connector times out with its own text');
    else
      assert.equal(s.message, c.message);
    assert.equal(s.state, c.row === 'connected' ? 'connected' : 'error');
    if (c.row !== 'connected') {
      await assert.rejects(s.callTool('x'), (e: SessionError) => e.row === c.row);
      assert.equal(ports, 0, 'an unusable provider gets no port');
    }
  });
}

// A provider end that serves one tool and counts calls; the test can cut
// the port (the worker stopping) at any point.
function fakeProvider () {
  const ports: FakePort[] = [];
  let calls = 0;
  let dropOnCall = false;
  const connectPort = (_id: string, name: string) => {
    const [host, prov] = portPair(name, CALLER);
    ports.push(prov);
    const t = new BufferedPortTransport(prov);
    const server = new McpServer({ name: 'Notes', version: '1' },
      { capabilities: { tools: {} }, jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
    server.registerTool('count', { description: 'counts', annotations: { readOnlyHint: true } }, async () => {
      calls++;
      if (dropOnCall)
        prov.disconnect();
      return { content: [{ type: 'text', text: String(calls) }] };
    });
    void server.connect(t).then(() => t.release());
    return host;
  };
  return { ports, connectPort, get calls () { return calls; }, set dropOnCall (v: boolean) { dropOnCall = v; } };
}

test('reconnect: a port closed between calls is reopened lazily and initialize runs again', async () => {
  const p = fakeProvider();
  const s = new ProviderSession({ providerId: PROVIDER, client: { id: CALLER }, sendMessage: async () => CONNECTED, connectPort: p.connectPort });
  await s.refresh();
  assert.equal(s.message, 'Connected · 1 tool');
  assert.equal((await s.callTool('count')).isError, undefined);
  p.ports[0]?.disconnect();
  await until(() => !s.portOpen, 'close seen');
  assert.equal(s.state, 'connected', 'a stopped worker is not an error');
  const r = await s.callTool('count');
  assert.deepEqual(r.content, [{ type: 'text', text: '2' }]);
  assert.equal(s.initializeCount, 2);
  assert.equal(p.ports.length, 2);
});

test('reconnect: a call whose port died before sending is sent once on a new port', async () => {
  const p = fakeProvider();
  const s = new ProviderSession({ providerId: PROVIDER, client: { id: CALLER }, sendMessage: async () => CONNECTED, connectPort: p.connectPort });
  await s.refresh();
  // the port dies, and the host has not heard yet (Chrome delivers later)
  const hostPort = p.ports[0]?.peer as FakePort;
  hostPort.disconnected = true;
  const r = await s.callTool('count');
  assert.deepEqual(r.content, [{ type: 'text', text: '1' }]);
  assert.equal(p.calls, 1);
});

test('reconnect: a call lost in flight is reported, never resent (it may have run)', async () => {
  const p = fakeProvider();
  const s = new ProviderSession({ providerId: PROVIDER, client: { id: CALLER }, sendMessage: async () => CONNECTED, connectPort: p.connectPort });
  await s.refresh();
  p.dropOnCall = true;
  await assert.rejects(s.callTool('count'), SessionError);
  assert.equal(p.calls, 1);
  p.dropOnCall = false;
  assert.deepEqual((await s.callTool('count')).content, [{ type: 'text', text: '2' }]);
});

test('hub: tools of several providers under namespaced names; first comer keeps a namespace', async () => {
  const A = 'a'.repeat(32);
  const B = 'b'.repeat(32);
  const p = fakeProvider();
  const hub = new ExtensionHub({ id: CALLER, name: 'Host' }, {
    sendMessage: async (id) => ({ ...CONNECTED, service: { ...CONNECTED.service, name: id === A ? 'Notes A' : 'Notes B' } }),
    connectPort: p.connectPort,
  });
  await hub.refresh(A);
  await hub.refresh(B);
  assert.deepEqual(hub.tools().map((t) => [t.name, t.providerId]), [['notes.count', A]]);
  assert.match(hub.refusals.get(B)?.[0]?.reason ?? '', /already used by extension a{32}/);
  assert.deepEqual((await hub.callTool('notes.count')).content, [{ type: 'text', text: '1' }]);
  await assert.rejects(hub.callTool('notes.other'), /No tool is called "notes.other"/);
  await hub.remove(A);
  await hub.refresh(B);
  assert.deepEqual(hub.tools().map((t) => [t.name, t.providerId]), [['notes.count', B]]);
});
