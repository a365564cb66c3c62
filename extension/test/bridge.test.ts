// SPDX-License-Identifier: GPL-3.0-or-later
// The provider's bridge: it acts only on valid app messages (the shared
// fixtures), matches answers by id in any order, fails pending requests
// with a reason a person can act on, and reconnects by itself.
import { mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { checkAppMessage } from '../src/provider/app-messages.ts';
import { Bridge, BridgeError, explainNativeError, MAX_FRAME_BYTES } from '../src/provider/bridge.ts';
import { FakeNativePort, until } from './fakes.ts';

const fixture = (name: string) =>
  JSON.parse(readFileSync(new URL(`../../tests/fixtures/bridge/${name}`, import.meta.url), 'utf8'));

// Every app-to-provider message file: what the provider must take, and
// what it must refuse (the field, and for a request the error code).
const appFiles = readdirSync(new URL('../../tests/fixtures/bridge/', import.meta.url))
  .filter((f) => f.startsWith('messages-') && f.endsWith('.json'))
  .map((f) => ({ file: f, ...fixture(f) }))
  .filter((f) => f.direction === 'app-to-provider');
assert.deepEqual(appFiles.map((f) => f.file).sort(), ['messages-agent-app.json', 'messages-app.json']);
for (const f of appFiles) {
  for (const c of f.cases) {
    test(`app message fixture ${f.file}: ${c.name}`, () => {
      const r = checkAppMessage(c.message);
      if (c.valid)
        assert.deepEqual(r, { ok: true });
      else {
        assert.equal(r.ok ? '(accepted)' : r.field, c.error.field);
        if (c.error.code !== undefined)
          assert.equal(r.ok ? '(accepted)' : r.code ?? 'bad_field', c.error.code);
      }
    });
  }
}

function harness (opts: { backoffMs?: number[] } = {}) {
  const ports: FakeNativePort[] = [];
  let lastError: string | undefined;
  const pushes: unknown[] = [];
  const bridge = new Bridge({
    connect: () => { const p = new FakeNativePort(); ports.push(p); return p; },
    lastError: () => lastError,
    hello: () => ({ bridge: 1, service: { namespace: 'userscripts', name: 'T', version: '1' }, tools: [] }),
    onPolicy: (p) => pushes.push(p),
    onRequest: async (m) => ({ type: 'probeTarget.result', outcome: { kind: 'timeout', error: `for ${String(m.target)}` } }),
    backoffMs: opts.backoffMs ?? [1, 1, 1],
  });
  const helloOk = (port: FakeNativePort, policy = { enabled: true, writes: false, review: true }) =>
    port.deliver({ type: 'hello.result', re: port.sent[0]?.id, bridge: 1, app: { version: 't' }, policy, tools: { accepted: [], refused: [] } });
  const die = (port: FakeNativePort, text: string) => { lastError = text; port.die(); lastError = undefined; };
  return { bridge, ports, pushes, helloOk, die };
}

test('hello first, then ready with the policy from the answer', async () => {
  const h = harness();
  h.bridge.start();
  assert.equal(h.bridge.state, 'connecting');
  const port = h.ports[0] as FakeNativePort;
  assert.deepEqual(port.sent[0], { bridge: 1, service: { namespace: 'userscripts', name: 'T', version: '1' }, tools: [], type: 'hello', id: 1 });
  h.helloOk(port);
  await until(() => h.bridge.state === 'ready', 'ready');
  assert.deepEqual(h.bridge.policy, { enabled: true, writes: false, review: true });
});

test('answers may come out of order; each resolves its own request', async () => {
  const h = harness();
  h.bridge.start();
  const port = h.ports[0] as FakeNativePort;
  h.helloOk(port);
  await until(() => h.bridge.state === 'ready', 'ready');
  const a = h.bridge.request('authorize', { tool: 'x' });
  const b = h.bridge.request('probe', { caller: { id: 'c'.repeat(32) } });
  const [ra, rb] = [port.sent[1], port.sent[2]];
  port.deliver({ type: 'probe.result', re: rb?.id, status: { enabled: true, authorized: true, ready: true, pendingApproval: false } });
  port.deliver({ type: 'authorize.result', re: ra?.id, allow: true });
  assert.equal((await b).type, 'probe.result');
  assert.equal((await a).allow, true);
});

test('an invalid answer fails its request instead of being acted on', async () => {
  const h = harness();
  h.bridge.start();
  const port = h.ports[0] as FakeNativePort;
  h.helloOk(port);
  await until(() => h.bridge.state === 'ready', 'ready');
  const p = h.bridge.request('authorize', {});
  port.deliver({ type: 'authorize.result', re: port.sent[1]?.id, allow: false, reason: 'sunspots' });
  await assert.rejects(p, (e: BridgeError) => e.code === 'bad_answer' && e.field === 'reason');
  // an error answer carries the app's code and field
  const q = h.bridge.request('authorize', {});
  port.deliver({ type: 'error', re: port.sent[2]?.id, code: 'bad_field', field: 'paramsHash', message: 'bad hash' });
  await assert.rejects(q, (e: BridgeError) => e.code === 'bad_field' && e.field === 'paramsHash');
});

test('an invalid policy push changes nothing; a valid one is passed on', async () => {
  const h = harness();
  h.bridge.start();
  const port = h.ports[0] as FakeNativePort;
  h.helloOk(port);
  await until(() => h.bridge.state === 'ready', 'ready');
  port.deliver({ type: 'policy', enabled: 'yes', writes: true, review: true, revoked: [] });
  port.deliver({ type: 'policy', enabled: true, writes: true, review: true, revoked: ['x'] });
  port.deliver({ type: 'policy', enabled: false, writes: true, review: false, revoked: ['c'.repeat(32)] });
  await until(() => h.pushes.length === 1, 'push');
  assert.deepEqual(h.pushes[0], { enabled: false, writes: true, review: false, revoked: ['c'.repeat(32)] });
  assert.deepEqual(h.bridge.policy, { enabled: false, writes: true, review: false });
});

test('probeTarget is answered; a bad target gets invalid_id without running', async () => {
  const h = harness();
  h.bridge.start();
  const port = h.ports[0] as FakeNativePort;
  h.helloOk(port);
  await until(() => h.bridge.state === 'ready', 'ready');
  port.deliver({ type: 'probeTarget', id: 'app-3', target: 'a'.repeat(32) });
  port.deliver({ type: 'probeTarget', id: 'app-4', target: 'notanid' });
  await until(() => port.sent.length >= 3, 'answers');
  const answers = port.sent.slice(1);
  assert.deepEqual(answers.find((m) => m.re === 'app-3'),
    { type: 'probeTarget.result', outcome: { kind: 'timeout', error: `for ${'a'.repeat(32)}` }, re: 'app-3' });
  const bad = answers.find((m) => m.re === 'app-4');
  assert.equal(bad?.type, 'error');
  assert.equal(bad?.code, 'invalid_id');
  assert.equal(bad?.field, 'target');
});

test('Chrome\'s native-messaging errors become reasons a person can act on', () => {
  assert.match(explainNativeError('Specified native messaging host not found.'), /not installed.*Install Lumo Access/);
  assert.match(explainNativeError('Access to the specified native messaging host is forbidden.'), /does not accept this extension/);
  assert.match(explainNativeError('Native host has exited.'), /not running.*Start Lumo Access/);
  assert.match(explainNativeError(undefined), /cannot be reached/);
});

test('a dead port fails pending requests with the reason and reconnects with backoff', async () => {
  const h = harness({ backoffMs: [1, 2, 4] });
  h.bridge.start();
  let port = h.ports[0] as FakeNativePort;
  h.helloOk(port);
  await until(() => h.bridge.state === 'ready', 'ready');
  const pending = h.bridge.request('authorize', {});
  h.die(port, 'Native host has exited.');
  await assert.rejects(pending, (e: BridgeError) => e.code === 'unreachable' && /not running/.test(e.message));
  assert.equal(h.bridge.state, 'down');
  await assert.rejects(h.bridge.request('probe', {}), /not running/);
  // the app stays away for two attempts, then comes back
  await until(() => h.ports.length === 2, 'first retry');
  h.die(h.ports[1] as FakeNativePort, 'Specified native messaging host not found.');
  assert.match(h.bridge.reason ?? '', /not installed/);
  await until(() => h.ports.length === 3, 'second retry');
  port = h.ports[2] as FakeNativePort;
  assert.equal(port.sent[0]?.type, 'hello', 'every connect says hello again');
  h.helloOk(port);
  await until(() => h.bridge.state === 'ready', 'ready again');
  const again = h.bridge.request('probe', {});
  port.deliver({ type: 'probe.result', re: port.sent[1]?.id, status: { enabled: true, authorized: false, ready: true, pendingApproval: true } });
  assert.equal((await again).type, 'probe.result');
});

test('a request waits a bounded time for a bridge that is still connecting', async () => {
  const h = harness();
  h.bridge.start();
  await assert.rejects(h.bridge.request('probe', {}, 30), /starting/);
  const p = h.bridge.request('probe', {}, 5000);
  const port = h.ports[0] as FakeNativePort;
  h.helloOk(port);
  await until(() => port.sent.length === 2, 'request sent once ready');
  port.deliver({ type: 'probe.result', re: port.sent[1]?.id, status: { enabled: true, authorized: true, ready: true, pendingApproval: false } });
  assert.equal((await p).type, 'probe.result');
});

test('a refused hello keeps the bridge down with the app\'s reason', async () => {
  const h = harness({ backoffMs: [10000] });
  h.bridge.start();
  const port = h.ports[0] as FakeNativePort;
  port.deliver({ type: 'error', re: 1, code: 'bad_field', field: 'service.namespace', message: 'namespace is reserved' });
  await until(() => h.bridge.state === 'down', 'down');
  assert.match(h.bridge.reason ?? '', /refused this provider: namespace is reserved/);
  h.bridge.stop();
});

// The frame the helper (or the app) sends as the only one of a connection
// it cannot serve: the shared fixture, which the C builder is checked
// against (tests/core/test-bridge-fixtures.c).
const unavailableFrame = (fixture('messages-app.json').cases as Array<{ name: string; message: Record<string, unknown> }>)
  .find((c) => c.name === 'unavailable')?.message as Record<string, unknown>;

test('an unavailable frame (re: null) ends the session with the helper\'s own words, not Chrome\'s', async () => {
  assert.equal(unavailableFrame?.re, null);
  const logs: string[] = [];
  const h = harness({ backoffMs: [1, 10000] });
  (h.bridge as any).opts.log = (...a: unknown[]) => logs.push(a.join(' '));
  h.bridge.start();
  const port = h.ports[0] as FakeNativePort;
  const timers = mock.method(globalThis, 'setTimeout');
  // A request waiting for the bridge fails with the helper's reason too.
  const waiting = assert.rejects(h.bridge.request('probe', {}, 5000),
    (e: BridgeError) => e.code === 'unreachable' && e.message === h.bridge.reason);
  port.deliver(unavailableFrame);
  await until(() => h.bridge.state === 'down', 'down');
  assert.deepEqual(h.bridge.notice, { code: 'unavailable', detail: unavailableFrame.message });
  assert.equal(h.bridge.reason, `Lumo Access is not available. It says: ${String(unavailableFrame.message)}`);
  assert.ok(port.closed, 'the provider closes the port itself');
  await waiting;
  // Then the helper exits, as it does after the frame: Chrome's "exited"
  // does not replace the helper's reason.
  h.die(port, 'Native host has exited.');
  assert.equal(h.bridge.notice?.code, 'unavailable');
  // It will be sent again: the retry waits on the slow end of the backoff.
  assert.ok(timers.mock.calls.some((c) => c.arguments[1] === 10000), 'the retry is not on the slow end of the backoff');
  assert.ok(!timers.mock.calls.some((c) => c.arguments[1] === 1), 'a quick retry after unavailable');
  timers.mock.restore();
  assert.ok(logs.some((l) => l.includes('unavailable')), logs.join('\n'));
  h.bridge.stop();
});

test('other re: null errors are logged with their code and change nothing', async () => {
  const logs: string[] = [];
  const h = harness();
  (h.bridge as any).opts.log = (...a: unknown[]) => logs.push(a.join(' '));
  h.bridge.start();
  const port = h.ports[0] as FakeNativePort;
  h.helloOk(port);
  await until(() => h.bridge.state === 'ready', 'ready');
  const pending = h.bridge.request('probe', {});
  port.deliver({ type: 'error', re: null, code: 'bad_field', field: 'port', message: 'port must be 1-64 bytes.' });
  port.deliver({ type: 'error', re: null, code: '', message: 'no code' });
  await until(() => logs.length >= 2, 'both logged');
  assert.match(logs[0] ?? '', /error bad_field \(port\): port must be 1-64 bytes/);
  assert.match(logs[1] ?? '', /dropped an invalid error: code/);
  assert.equal(h.bridge.state, 'ready');
  assert.equal(port.closed, false);
  // The pending request is not taken for the one they answer.
  port.deliver({ type: 'probe.result', re: port.sent[1]?.id, status: { enabled: true, authorized: true, ready: true, pendingApproval: false } });
  assert.equal((await pending).type, 'probe.result');
  h.bridge.stop();
});

test('what belongs to one session is never sent on the next: a session-bound request or push is refused', async () => {
  const h = harness({ backoffMs: [1] });
  let ended = 0;
  (h.bridge as any).opts.onSessionEnd = () => { ended++; };
  h.bridge.start();
  h.helloOk(h.ports[0] as FakeNativePort);
  await until(() => h.bridge.state === 'ready', 'ready');
  const first = h.bridge.session;
  assert.equal(h.bridge.push(first, 'agentClose', { port: 'a1', reason: 'r' }), 'sent');
  assert.deepEqual(h.ports[0]?.sent.at(-1), { port: 'a1', reason: 'r', type: 'agentClose' });
  const big = { port: 'a1', message: { jsonrpc: '2.0', pad: 'x'.repeat(MAX_FRAME_BYTES) } };
  assert.deepEqual(h.bridge.push(first, 'agentMessage', big), { tooLarge: JSON.stringify({ ...big, type: 'agentMessage' }).length });
  assert.equal(h.ports[0]?.sent.length, 2, 'a push too large is not sent');
  h.die(h.ports[0] as FakeNativePort, 'Native host has exited.');
  assert.equal(ended, 1, 'the provider hears that the session ended');
  await until(() => h.ports.length === 2, 'reconnect');
  h.helloOk(h.ports[1] as FakeNativePort);
  await until(() => h.bridge.state === 'ready', 'ready again');
  assert.notEqual(h.bridge.session, first);
  await assert.rejects(h.bridge.request('authorize', { port: 'a1' }, 3000, first), (e: BridgeError) => e.code === 'unreachable');
  assert.equal(h.bridge.push(first, 'agentClose', { port: 'a1', reason: 'r' }), 'gone');
  assert.deepEqual(h.ports[1]?.sent.map((m) => m.type), ['hello'], 'nothing of the old session on the new one');
  const now = h.bridge.request('probe', {}, 0, h.bridge.session);
  h.ports[1]?.deliver({ type: 'probe.result', re: h.ports[1]?.sent[1]?.id, status: { enabled: true, authorized: true, ready: true, pendingApproval: false } });
  assert.equal((await now).type, 'probe.result');
});

test('an app request with a bad field is answered with its error code; a bad push is dropped', async () => {
  const h = harness();
  h.bridge.start();
  const port = h.ports[0] as FakeNativePort;
  h.helloOk(port);
  await until(() => h.bridge.state === 'ready', 'ready');
  port.deliver({ type: 'agentOpen', id: 'app-1', port: 'a1', caller: { id: 'A'.repeat(32), name: 'n', kind: 'agent' } });
  port.deliver({ type: 'agentOpen', id: 'app-2', port: 'a 1', caller: { id: 'a'.repeat(32), name: 'n', kind: 'agent' } });
  port.deliver({ type: 'agentMessage', port: 'a1', message: [] });
  await until(() => port.sent.length >= 3, 'answers');
  assert.deepEqual(port.sent.slice(1).map((m) => [m.type, m.re, m.code, m.field]),
    [['error', 'app-1', 'invalid_id', 'caller.id'], ['error', 'app-2', 'bad_field', 'port']]);
});
