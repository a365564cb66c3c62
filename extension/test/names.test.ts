// SPDX-License-Identifier: GPL-3.0-or-later
// Names from outside are display text, cleaned once where they come in:
// no control, line-break or bidi-override character reaches the app, a row
// or a notification, and every cut is on a character boundary. A frame is
// never over the app's 1 MiB, and every request of the app still gets
// exactly one answer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cleanName, truncateUtf8, utf8Length, wellFormed } from '../src/shared/text.ts';
import { Bridge, BridgeError, MAX_FRAME_BYTES } from '../src/provider/bridge.ts';
import { ProviderSession } from '../src/host/session.ts';
import { MSG } from '../src/sitepacks/messages.ts';
import { PROBE_CHANNEL } from '../src/shared/protocol.ts';
import { FakeNativePort, portPair, until } from './fakes.ts';
import { CALLER, PROVIDER, ready, setup } from './harness.ts';
import { CALLER as SITE_CALLER, EXAMPLE, providerWith } from './site-fakes.ts';

const enc = new TextEncoder();
const bytes = (s: string) => enc.encode(s).length;
// What must never survive cleaning.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]|[\ud800-\udfff](?<![\ud800-\udbff][\udc00-\udfff])/u;
const HOSTILE = 'Lumo\n\u202eAgent\u202c\tApproved\u0007 \u2066x\u2069\r\n\u0085end\ud800';

test('cleanName: controls, separators and bidi controls gone, spaces kept readable, cut on a character', () => {
  assert.equal(cleanName(HOSTILE, 128), 'Lumo Agent Approved x end\ufffd');
  assert.equal(cleanName('  \u202e\n ', 128), undefined, 'nothing left');
  assert.equal(cleanName(5, 128), undefined);
  assert.equal(cleanName('名字 😀', 128), '名字 😀', 'real text is kept');
  assert.equal(cleanName('😀'.repeat(40), 128), '😀'.repeat(32));
  assert.equal(cleanName('a' + 'é'.repeat(100), 128), 'a' + 'é'.repeat(63));
});

test('truncateUtf8: every cut of every text is within the bound, on a code point, well-formed', () => {
  for (const s of ['abc', 'é'.repeat(9), '😀a😀b', '名字😀é', 'x\ud800y', 'a\udc00😀']) {
    for (let max = 0; max <= bytes(s) + 2; max++) {
      for (const ellipsis of ['', '…']) {
        const out = truncateUtf8(s, max, ellipsis);
        assert.ok(utf8Length(out) <= Math.max(max, 0), `${JSON.stringify(s)} at ${max}: ${utf8Length(out)} bytes`);
        assert.equal(utf8Length(out), bytes(out));
        assert.equal(wellFormed(out), out, 'no lone surrogate');
        const body = out.endsWith('…') && !wellFormed(s).endsWith('…') ? out.slice(0, -1) : out;
        assert.ok(wellFormed(s).startsWith(body), `${JSON.stringify(out)} is a prefix of ${JSON.stringify(s)}`);
      }
    }
  }
});

test('a caller\'s name is cleaned on every way in: the probe and the L1 client name', async (t) => {
  const s = setup(t);
  await ready(s);
  await s.provider.probe({ channel: PROBE_CHANNEL, version: 1, id: 'p', client: { id: CALLER, name: HOSTILE, version: '1.0\n\u202e' } }, { id: CALLER });
  const probed = s.app.of('probe')[0]?.caller as Record<string, string>;
  assert.doesNotMatch(probed.name ?? '', UNSAFE);
  assert.equal(probed.name, 'Lumo Agent Approved x end\ufffd');
  assert.equal(probed.version, '1.0');
  s.app.allow(CALLER);
  const hostile = new ProviderSession({
    providerId: PROVIDER, client: { id: CALLER, name: `${'é'.repeat(70)}\u202e`, version: '1' },
    sendMessage: (id, m) => s.provider.probe(JSON.parse(JSON.stringify(m)), { id: CALLER }).then((a) => a ?? undefined),
    connectPort: (_id, name) => { const [h, p] = portPair(name, CALLER); s.provider.connect(p); return h; },
    lastError: () => undefined, callTimeoutMs: 5000,
  });
  await hostile.callTool('list_scripts', {});
  const name = (s.app.of('authorize').at(-1)?.caller as Record<string, string>).name ?? '';
  assert.equal(name, 'é'.repeat(64), 'cut to 128 bytes on a character, the override gone');
});

test('a script name is cleaned before it is stored or shown; a name of nothing but controls is refused', async (t) => {
  const s = setup(t);
  await ready(s);
  s.app.allow(CALLER);
  const r = await s.session.callTool('create_script', { name: 'Greeter\n\u202eApproved', source: 'void 0;' });
  assert.equal((s.app.of('authorize')[0] as any).preview.name, 'Greeter Approved');
  assert.equal(JSON.parse((r.content as any)[0].text).name, 'Greeter Approved');
  const bad = await s.session.callTool('create_script', { name: '\u202e\n', source: 'void 0;' });
  assert.equal(bad.isError, true);
  assert.match((bad.content as any)[0].text, /name is empty/);
});

test('tool titles, recommended servers and another provider\'s service name are cleaned too', async (t) => {
  const s = providerWith(t);
  await until(() => s.provider.bridge.state === 'ready', 'bridge ready');
  s.app.allow(SITE_CALLER);
  await s.registry.onMessage({ type: MSG.register, pack: EXAMPLE, tools: [{ name: 'get-user-profile', title: 'Profile\u202e\nApprove', inputSchema: { type: 'object' } }] },
    { id: PROVIDER, tab: { id: 3, url: 'http://example.test/' }, frameId: 0, url: 'http://example.test/' }, 'content');
  const { checkDefs } = await import('../src/sitepacks/defs.ts');
  assert.equal(checkDefs('example', [{ name: 't', title: 'A\u2066\u0000B', inputSchema: { type: 'object' } }]).defs[0]?.title, 'AB');
  const { aggregateMarket } = await import('../src/sitepacks/meta.ts');
  const m = aggregateMarket([{ name: 'a.test', type: 'pageMcpServer', url: 'http://a.test/', isAlwaysEnabled: false, version: '1.0.0',
    customMarketMcpServers: [{ id: 'x', name: 'PPT\u202e\n', url: 'https://m.test/', description: 'line\nbreak\u2067' }] }]);
  assert.deepEqual([m[0]?.name, m[0]?.description], ['PPT', 'line break']);
  // probeTarget: the app gets the raw outcome, its service name cleaned.
  (s.provider as any).deps.sendMessage = async () => ({ ok: true, service: { namespace: 'x', name: 'Evil\u202eNaN\n', version: '1' }, status: {}, note: 'a\ud800' });
  s.app.push({ type: 'probeTarget', id: 'pt', target: 'a'.repeat(32) });
  await until(() => s.app.of('probeTarget.result').length === 1, 'the answer');
  const answer = (s.app.of('probeTarget.result')[0] as any).outcome.answer;
  assert.equal(answer.service.name, 'EvilNaN');
  assert.equal(answer.note, 'a\ufffd', 'every string well-formed');
});

test('the host cleans a provider\'s service name it shows', async () => {
  const session = new ProviderSession({
    providerId: PROVIDER, client: { id: CALLER, name: 'h' },
    sendMessage: async () => ({ ok: true, service: { namespace: 'ns', name: '\u202eLumo\nUserscripts', version: '1' },
      status: { enabled: true, authorized: true, ready: true, pendingApproval: false } }),
    connectPort: () => { throw new Error('no port'); }, lastError: () => undefined,
  });
  await session.probe();
  assert.equal(session.service?.name, 'Lumo Userscripts');
});

function bridgeHarness (onRequest?: (m: Record<string, unknown>) => Promise<Record<string, unknown>>) {
  const ports: FakeNativePort[] = [];
  const bridge = new Bridge({
    connect: () => { const p = new FakeNativePort(); ports.push(p); return p; },
    lastError: () => undefined,
    hello: () => ({ bridge: 1, service: { namespace: 'userscripts', name: 'T', version: '1' }, tools: [] }),
    ...(onRequest ? { onRequest } : {}),
    backoffMs: [1],
  });
  bridge.start();
  const port = ports[0] as FakeNativePort;
  port.deliver({ type: 'hello.result', re: port.sent[0]?.id, bridge: 1, app: { version: 't' }, policy: { enabled: true, writes: true, review: false }, tools: { accepted: [], refused: [] } });
  return { bridge, port };
}

test('no frame over 1 MiB is sent: a request is refused with too_large, an app request still gets one answer', async () => {
  const big = 'é'.repeat(MAX_FRAME_BYTES / 2);
  const h = bridgeHarness(async () => ({ type: 'probeTarget.result', outcome: { kind: 'answer', answer: { ok: true, pad: big } } }));
  await until(() => h.bridge.state === 'ready', 'ready');
  const sent = h.port.sent.length;
  await assert.rejects(h.bridge.request('result', { auditId: 1, ok: false, error: big }), (e: BridgeError) => e.code === 'too_large');
  assert.equal(h.port.sent.length, sent, 'nothing was sent');
  h.port.deliver({ type: 'probeTarget', id: 'app-1', target: 'a'.repeat(32) });
  await until(() => h.port.sent.length === sent + 1, 'an answer');
  const a = h.port.sent.at(-1) as Record<string, unknown>;
  assert.deepEqual([a.type, a.re, a.code], ['error', 'app-1', 'too_large']);
  assert.ok(JSON.stringify(h.port.sent).length < 2 * MAX_FRAME_BYTES);
  // A frame just under the bound goes out as it is.
  const fits = 'a'.repeat(MAX_FRAME_BYTES - 200);
  void h.bridge.request('result', { auditId: 2, ok: false, error: fits }).catch(() => undefined);
  assert.equal((h.port.sent.at(-1) as Record<string, unknown>).error, fits);
});
