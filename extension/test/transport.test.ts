// SPDX-License-Identifier: GPL-3.0-or-later
// The provider's buffered transport: nothing reaches the MCP server before
// the caller is authorized, everything arrives in order after, and a
// refused port says why.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BufferedPortTransport } from '../src/provider/transport.ts';
import { PortClientTransport } from '../src/host/transport.ts';
import { CLOSED_NOTIFICATION, NOT_AUTHORIZED_ERROR } from '../src/shared/port.ts';
import { FakePort, portPair, tick } from './fakes.ts';

const CALLER = 'c'.repeat(32);
const req = (id: number, method = 'tools/list') => ({ jsonrpc: '2.0', id, method });

test('messages are held until release, then delivered in arrival order', async () => {
  const port = new FakePort('lumo:mcp', { id: CALLER });
  const t = new BufferedPortTransport(port);
  const got: unknown[] = [];
  t.onmessage = (m) => got.push((m as { id: number }).id);
  port.onMessage.emit(req(1));            // before start
  await t.start();
  port.onMessage.emit(req(2));            // started, not yet released
  assert.deepEqual(got, []);
  assert.equal(t.bufferedCount, 2);
  t.release();
  assert.deepEqual(got, [1, 2]);
  port.onMessage.emit(req(3));            // passes straight through
  assert.deepEqual(got, [1, 2, 3]);
});

test('a message that arrives while the buffer is delivered keeps its place', async () => {
  const port = new FakePort('lumo:mcp', { id: CALLER });
  const t = new BufferedPortTransport(port);
  const got: number[] = [];
  t.onmessage = (m) => {
    const id = (m as { id: number }).id;
    got.push(id);
    if (id === 1)
      port.onMessage.emit(req(9));        // re-entrant arrival
  };
  port.onMessage.emit(req(1));
  port.onMessage.emit(req(2));
  await t.start();
  t.release();
  assert.deepEqual(got, [1, 2, 9]);
});

test('release before start waits for start', async () => {
  const port = new FakePort('lumo:mcp', { id: CALLER });
  const t = new BufferedPortTransport(port);
  const got: unknown[] = [];
  t.onmessage = (m) => got.push(m);
  port.onMessage.emit(req(1));
  t.release();
  assert.equal(got.length, 0);
  await t.start();
  assert.equal(got.length, 1);
});

test('non-JSON-RPC traffic is reported, not delivered', async () => {
  const port = new FakePort('lumo:mcp', { id: CALLER });
  const t = new BufferedPortTransport(port);
  const errors: Error[] = [];
  const got: unknown[] = [];
  t.onerror = (e) => errors.push(e);
  t.onmessage = (m) => got.push(m);
  await t.start();
  t.release();
  port.onMessage.emit({ hello: 1 });
  port.onMessage.emit('text');
  assert.equal(got.length, 0);
  assert.equal(errors.length, 2);
});

test('a refused port answers held requests with the reason, says why, and closes', async () => {
  const [host, provider] = portPair('lumo:mcp', CALLER);
  const t = new BufferedPortTransport(provider);
  let closed = 0;
  t.onclose = () => closed++;
  await t.start();
  const hostSeen: Array<Record<string, unknown>> = [];
  host.onMessage.addListener((m) => hostSeen.push(m as Record<string, unknown>));
  provider.onMessage.emit(req(1, 'initialize'));
  provider.onMessage.emit({ jsonrpc: '2.0', method: 'notifications/initialized' });
  t.closeWithReason('The caller is not on the allow-list.');
  await tick(); await tick();
  assert.equal(closed, 1);
  assert.equal(provider.disconnected, true);
  assert.equal(host.disconnected, true);
  assert.deepEqual(hostSeen[0], { jsonrpc: '2.0', id: 1, error: { code: NOT_AUTHORIZED_ERROR, message: 'The caller is not on the allow-list.' } });
  assert.deepEqual(hostSeen[1], { jsonrpc: '2.0', method: CLOSED_NOTIFICATION, params: { reason: 'The caller is not on the allow-list.' } });
  assert.equal(hostSeen.length, 2, 'the notification (no id) gets no error answer');
  await assert.rejects(t.send({ jsonrpc: '2.0', id: 2, result: {} }), /closed/);
});

test('the host transport keeps the close reason and never sets sessionId', async () => {
  const [host, provider] = portPair('lumo:mcp', CALLER);
  const t = new PortClientTransport('p'.repeat(32), () => host, () => undefined);
  assert.equal(t.sessionId, undefined);
  let closed = false;
  t.onclose = () => { closed = true; };
  await t.start();
  provider.postMessage({ jsonrpc: '2.0', method: CLOSED_NOTIFICATION, params: { reason: 'Access for this caller was revoked in Lumo Access.' } });
  provider.disconnect();
  await tick(); await tick();
  assert.equal(closed, true);
  assert.equal(t.closeReason, 'Access for this caller was revoked in Lumo Access.');
  await assert.rejects(t.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), /revoked/);
});

test('the host transport reports Chrome\'s error when the provider is not there', async () => {
  const port = new FakePort('lumo:mcp');
  const t = new PortClientTransport('p'.repeat(32), () => port,
    () => 'Could not establish connection. Receiving end does not exist.');
  await t.start();
  port.disconnected = true;
  port.onDisconnect.emit(port);
  assert.equal(t.isClosed, true);
  assert.match(t.closeReason ?? '', /Receiving end does not exist/);
});
