// SPDX-License-Identifier: GPL-3.0-or-later
// Bounds per provider port: what a caller may send before it is
// authorized (messages and bytes), and how many ports one caller may hold.
// Over a bound the port is refused with the reason, and nothing grows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BufferedPortTransport, MAX_HELD_BYTES, MAX_HELD_MESSAGES } from '../src/provider/transport.ts';
import { MAX_PORTS_PER_CALLER } from '../src/provider/provider.ts';
import { CLOSED_NOTIFICATION, NOT_AUTHORIZED_ERROR } from '../src/shared/port.ts';
import { FakePort, portPair, until } from './fakes.ts';
import { CALLER, ready, setup } from './harness.ts';

const req = (id: number, extra = {}) => ({ jsonrpc: '2.0', id, method: 'tools/list', params: extra });

function held () {
  const port = new FakePort('lumo:mcp', { id: CALLER });
  const t = new BufferedPortTransport(port);
  let closed = false;
  t.onclose = () => { closed = true; };
  void t.start();
  return { port, t, closed: () => closed };
}

test(`at most ${MAX_HELD_MESSAGES} messages are held before authorization; one more closes the port with the reason`, () => {
  const h = held();
  for (let i = 1; i <= MAX_HELD_MESSAGES; i++)
    h.port.onMessage.emit(req(i));
  assert.equal(h.t.bufferedCount, MAX_HELD_MESSAGES);
  assert.equal(h.closed(), false);
  h.port.onMessage.emit(req(99));
  assert.equal(h.closed(), true);
  assert.equal(h.t.bufferedCount, 0, 'what was held is dropped, not delivered');
  const errors = h.port.posted.filter((m: any) => m.error?.code === NOT_AUTHORIZED_ERROR) as any[];
  assert.equal(errors.length, MAX_HELD_MESSAGES, 'each held request is answered');
  assert.match(errors[0].error.message, new RegExp(`more than ${MAX_HELD_MESSAGES} messages or ${MAX_HELD_BYTES} bytes before it was authorized`));
  assert.equal((h.port.posted.at(-1) as any).method, CLOSED_NOTIFICATION);
  h.port.onMessage.emit(req(100));
  assert.equal(h.t.bufferedCount, 0, 'nothing grows after');
});

test(`at most ${MAX_HELD_BYTES} bytes are held before authorization`, () => {
  const h = held();
  h.port.onMessage.emit(req(1, { pad: 'é'.repeat(MAX_HELD_BYTES / 4) }));
  assert.equal(h.closed(), false, 'half the bound (in UTF-8 bytes) fits');
  h.port.onMessage.emit(req(2, { pad: 'é'.repeat(MAX_HELD_BYTES / 4) }));
  assert.equal(h.closed(), true);
  // Once released, messages pass straight through and are not counted.
  const r = held();
  r.t.onmessage = () => undefined;
  r.t.release();
  for (let i = 0; i < 3 * MAX_HELD_MESSAGES; i++)
    r.port.onMessage.emit(req(i, { pad: 'x'.repeat(MAX_HELD_BYTES / 8) }));
  assert.equal(r.closed(), false);
});

test(`a caller may hold ${MAX_PORTS_PER_CALLER} ports; the next is refused with the reason, and a freed one can be used again`, async (t) => {
  const s = setup(t);
  await ready(s);
  s.app.allow(CALLER);
  const open = () => {
    const [host, prov] = portPair('lumo:mcp', CALLER);
    const seen: any[] = [];
    host.onMessage.addListener((m) => seen.push(m));
    s.provider.connect(prov);
    return { host, prov, seen };
  };
  const ports = Array.from({ length: MAX_PORTS_PER_CALLER }, open);
  assert.equal(s.provider.openPortCount, MAX_PORTS_PER_CALLER);
  const extra = open();
  await until(() => extra.host.disconnected, 'the extra port to be refused');
  assert.match(extra.seen.at(-1)?.params?.reason ?? '', new RegExp(`has ${MAX_PORTS_PER_CALLER} lumo:mcp ports open already`));
  assert.equal(s.provider.openPortCount, MAX_PORTS_PER_CALLER, 'nothing grows');
  ports[0]?.host.disconnect();
  await until(() => s.provider.openPortCount === MAX_PORTS_PER_CALLER - 1, 'a port closed');
  const again = open();
  assert.equal(again.host.disconnected, false);
  assert.equal(s.provider.openPortCount, MAX_PORTS_PER_CALLER);
});
