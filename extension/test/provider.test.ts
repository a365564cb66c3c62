// SPDX-License-Identifier: GPL-3.0-or-later
// The provider and the connector together, with a fake app behind the
// native port and fake Chrome ports between them: the whole L0/L1 flow a
// user relies on, without a browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ProviderSession, SessionError } from '../src/host/session.ts';
import { paramsHash, sha256Hex } from '../src/shared/sha256.ts';
import { canonicalize } from '../src/shared/canonical-json.ts';
import { PROBE_CHANNEL } from '../src/shared/protocol.ts';
import { portPair, until } from './fakes.ts';
import { CALLER, PROVIDER, ready, setup } from './harness.ts';

const OTHER = 'a'.repeat(32);
const CANARY = 'console.log("canary-7f3e2b9a-source-must-not-leak");\nlet x = 1;\n';

type Text = { type: string; text: string };
const text = (r: { content: unknown }) => ((r.content as Text[])[0]?.text ?? '');

test('hello carries the service and the catalogue with read/write flags', async (t) => {
  const s = setup(t);
  await ready(s);
  const hello = s.app.of('hello')[0] as Record<string, any>;
  assert.equal(hello.bridge, 1);
  assert.deepEqual(hello.service, { namespace: 'userscripts', name: 'Lumo Userscripts', version: '0.1.0' });
  assert.deepEqual(hello.tools.map((x: any) => [x.name, x.write]), [
    ['list_scripts', false], ['get_script', false], ['create_script', true],
    ['update_script', true], ['delete_script', true], ['set_script_enabled', true], ['list_site_packs', false]]);
});

test('L0: unknown caller is pending, then authorized after approval, without restart', async (t) => {
  const s = setup(t);
  await ready(s);
  let v = await s.session.probe();
  assert.equal(v.row, 'pending_approval');
  assert.deepEqual(s.app.of('probe')[0]?.caller, { id: CALLER, name: 'Test host', version: '1.0' });
  s.app.allow(CALLER);
  v = await s.session.probe();
  assert.equal(v.row, 'connected');
  assert.deepEqual(v.answer?.service, { namespace: 'userscripts', name: 'Lumo Userscripts', version: '0.1.0' });
});

test('L0: every policy state of the app comes back as the matching row', async (t) => {
  const s = setup(t);
  await ready(s);
  s.app.denied.add(CALLER);
  assert.equal((await s.session.probe()).row, 'not_authorized');
  s.app.allow(CALLER);
  s.app.acceptedTools = false;
  const nr = await s.session.probe();
  assert.equal(nr.row, 'not_ready');
  assert.match(nr.message, /accepted none of this provider's tools/);
  s.app.acceptedTools = true;
  s.app.setPolicy({ enabled: false });
  assert.equal((await s.session.probe()).row, 'disabled');
});

test('L0: protocol failures answer ok:false; other channels get no answer', async (t) => {
  const s = setup(t);
  await ready(s);
  assert.equal(await s.provider.probe({ channel: 'someone:else', version: 1, id: 'x' }, { id: CALLER }), undefined);
  assert.equal(await s.provider.probe('lumo:probe', { id: CALLER }), undefined);
  const v2 = await s.provider.probe({ channel: PROBE_CHANNEL, version: 2, id: 'p' }, { id: CALLER });
  assert.deepEqual(v2, { ok: false, id: 'p', error: 'Unsupported probe version 2; this provider speaks version 1.' });
  assert.deepEqual(await s.provider.probe({ channel: PROBE_CHANNEL, version: 1 }, { id: CALLER }),
    { ok: false, error: 'The probe has no id.' });
  const noSender = await s.provider.probe({ channel: PROBE_CHANNEL, version: 1, id: 'p' }, {});
  assert.equal(noSender?.ok, false);
  const badSender = await s.provider.probe({ channel: PROBE_CHANNEL, version: 1, id: 'p' }, { id: 'ABCDEFGHIJKLMNOPABCDEFGHIJKLMNOP' });
  assert.equal(badSender?.ok, false);
  assert.equal(s.app.of('probe').length, 0, 'protocol failures never reach the app');
  // a long display name is cut to the bridge's bound, not turned into an error
  await s.provider.probe({ channel: PROBE_CHANNEL, version: 1, id: 'p', client: { id: CALLER, name: 'é'.repeat(100) } }, { id: CALLER });
  assert.equal(new TextEncoder().encode((s.app.of('probe')[0]?.caller as any).name).length, 128);
});

test('L0 fails closed while the app is away, with a reason, and recovers', async (t) => {
  const s = setup(t);
  await ready(s);
  s.app.allow(CALLER);
  assert.equal((await s.session.probe()).row, 'connected');
  s.app.unreachable = 'Native host has exited.';
  s.app.kill();
  const raw = await s.provider.probe({ channel: PROBE_CHANNEL, version: 1, id: 'p' }, { id: CALLER });
  assert.equal(raw?.ok, true);
  const st = (raw as any).status;
  assert.equal(st.ready, false);
  assert.equal(st.authorized, false, 'never authorized while the app cannot say so');
  assert.match(st.reason, /not running.*Start Lumo Access/);
  s.app.unreachable = null;
  await until(() => s.provider.bridge.state === 'ready', 'reconnected');
  assert.equal((await s.session.probe()).row, 'connected');
});

test('L1: initialize, tools/list with annotations, instructions from policy', async (t) => {
  const s = setup(t);
  await ready(s);
  s.app.allow(CALLER);
  await s.session.refresh();
  assert.equal(s.session.state, 'connected');
  assert.equal(s.session.message, 'Connected · 7 tools');
  const del = s.session.tools?.find((x) => x.name === 'delete_script');
  assert.equal(del?.annotations?.destructiveHint, true);
  assert.equal(s.session.tools?.find((x) => x.name === 'list_scripts')?.annotations?.readOnlyHint, true);
  assert.match(s.session.instructions ?? '', /Writes are on/);
  assert.deepEqual(s.app.of('port').map((m) => m.state), ['open']);
});

test('L1: an unauthorized port is closed with the reason and nothing reaches the server', async (t) => {
  const s = setup(t);
  await ready(s);
  await assert.rejects(s.session.callTool('list_scripts'), (e: SessionError) => e.row === 'pending_approval');
  // connect directly, skipping the probe: the provider still refuses
  const [host, prov] = portPair('lumo:mcp', CALLER);
  const seen: any[] = [];
  host.onMessage.addListener((m) => seen.push(m));
  s.provider.connect(prov);
  host.postMessage({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
  await until(() => host.disconnected, 'port closed');
  assert.equal(seen[0].error.message, 'Waiting for your approval in the provider.');
  assert.equal(seen[1].params.reason, 'Waiting for your approval in the provider.');
  assert.equal(s.app.of('port').length, 0);
  assert.equal(s.app.of('authorize').length, 0);
});

test('tools/call: a read is authorized first and not audited', async (t) => {
  const s = setup(t);
  await ready(s);
  s.app.allow(CALLER);
  await s.session.refresh();
  const r = await s.session.callTool('list_scripts', {});
  assert.equal(r.isError, undefined);
  assert.deepEqual(JSON.parse(text(r)), { scripts: [] });
  const auth = s.app.of('authorize');
  assert.equal(auth.length, 1);
  assert.deepEqual(auth[0], { caller: { id: CALLER, name: 'Test host' }, tool: 'list_scripts', write: false, type: 'authorize', id: auth[0]?.id });
  assert.equal(s.app.of('result').length, 0);
});

test('tools/call: a write carries target, params hash and a redacted preview, then its result', async (t) => {
  const s = setup(t);
  await ready(s);
  s.app.allow(CALLER);
  const args = { name: 'Greeter', source: CANARY, matches: ['https://example.com/*'] };
  const r = await s.session.callTool('create_script', args);
  assert.equal(r.isError, undefined, text(r));
  const created = JSON.parse(text(r));
  const auth = s.app.of('authorize')[0] as Record<string, any>;
  assert.equal(auth.write, true);
  assert.equal(auth.target, created.uuid);
  assert.equal(auth.paramsHash, await paramsHash(args));
  assert.equal(auth.paramsHash, await sha256Hex(canonicalize(args)));
  assert.deepEqual(auth.preview, {
    action: 'create', uuid: created.uuid, name: 'Greeter', bytes: CANARY.length,
    sourceSha256: await sha256Hex(CANARY), added: 2, removed: 0, enabled: true, matches: ['https://example.com/*'],
  });
  assert.deepEqual(s.app.of('result').map((m) => [m.auditId, m.ok]), [[auth.auditId ?? 41, true]]);
  // the source never crosses the bridge
  assert.equal(JSON.stringify(s.app.received).includes('canary-7f3e2b9a'), false);
  // an update counts changed lines
  await s.session.callTool('update_script', { uuid: created.uuid, source: CANARY + 'let y = 2;\n' });
  const up = s.app.of('authorize')[1] as Record<string, any>;
  assert.deepEqual([up.preview.added, up.preview.removed, up.target], [1, 0, created.uuid]);
  assert.deepEqual(up.preview.matches, { old: ['https://example.com/*'], new: ['https://example.com/*'] }, 'where it runs, before and after');
  const got = JSON.parse(text(await s.session.callTool('get_script', { uuid: created.uuid })));
  assert.equal(got.source, CANARY + 'let y = 2;\n');
});

test('tools/call: denials are isError results with a reason the model can read', async (t) => {
  const s = setup(t);
  await ready(s);
  s.app.allow(CALLER);
  s.app.setPolicy({ writes: false });
  let r = await s.session.callTool('create_script', { name: 'n', source: 's' });
  assert.equal(r.isError, true);
  assert.equal(text(r), 'Writes are turned off for this provider.');
  assert.equal(s.app.of('result').length, 0, 'nothing ran, nothing to complete');
  assert.equal((await s.provider.store.list()).length, 0);
  s.app.setPolicy({ writes: true });
  s.app.denyNext = { reason: 'rate_limited', retryAfterMs: 17250 };
  r = await s.session.callTool('create_script', { name: 'n', source: 's' });
  assert.equal(text(r), 'Too many writes: at most 30 in 60 seconds. Try again in 18 seconds.');
  s.app.denyNext = { reason: 'review_rejected', message: 'The reviewer rejected this write.' };
  r = await s.session.callTool('create_script', { name: 'n', source: 's' });
  assert.equal(text(r), 'The reviewer rejected this write.');
  assert.equal((await s.provider.store.list()).length, 0);
});

test('tools/call: business failures and bad input are isError results too', async (t) => {
  const s = setup(t);
  await ready(s);
  s.app.allow(CALLER);
  const missing = '0f8fad5b-d9cb-469f-a165-70867728950e';
  let r = await s.session.callTool('delete_script', { uuid: missing });
  assert.equal(r.isError, true);
  assert.equal(text(r), `No script has the UUID ${missing}.`);
  const auth = s.app.of('authorize')[0] as Record<string, any>;
  assert.deepEqual(auth.preview, { action: 'delete', uuid: missing, missing: true });
  assert.deepEqual(s.app.of('result').map((m) => [m.ok, m.error]), [[false, `No script has the UUID ${missing}.`]]);
  r = await s.session.callTool('get_script', { uuid: 'not-a-uuid' });
  assert.equal(r.isError, true);
  assert.match(text(r), /Input validation error/);
  r = await s.session.callTool('create_script', { name: '' });
  assert.equal(r.isError, true);
  r = await s.session.callTool('no_such_tool', {});
  assert.equal(r.isError, true);
  assert.match(text(r), /no_such_tool/);
});

test('tools/call: while the app is away the call is refused, not run', async (t) => {
  const s = setup(t);
  await ready(s);
  s.app.allow(CALLER);
  await s.session.refresh();
  s.app.unreachable = 'Native host has exited.';
  s.app.kill();
  const r = await s.session.callTool('create_script', { name: 'n', source: 's' });
  assert.equal(r.isError, true);
  assert.match(text(r), /not run because Lumo Access cannot be reached.*not running/);
  assert.equal((await s.provider.store.list()).length, 0);
});

test('revocation closes the caller\'s open port at once; turning agent access off closes all', async (t) => {
  const s = setup(t);
  await ready(s);
  s.app.allow(CALLER);
  await s.session.refresh();
  assert.equal(s.provider.openPortCount, 1);
  s.app.revoke(CALLER);
  await until(() => s.provider.openPortCount === 0, 'port closed');
  await until(() => !s.session.portOpen, 'host saw it');
  await assert.rejects(s.session.callTool('list_scripts'), (e: SessionError) => e.row === 'not_authorized');
  await until(() => s.app.of('port').some((m) => m.state === 'closed'), 'port closed reported');
  s.app.allow(CALLER);
  await s.session.refresh();
  s.app.setPolicy({ enabled: false });
  await until(() => s.provider.openPortCount === 0, 'all closed');
});

test('a closed port is not a removed service: the next call reconnects and re-initializes', async (t) => {
  const s = setup(t);
  await ready(s);
  s.app.allow(CALLER);
  await s.session.refresh();
  assert.equal(s.session.initializeCount, 1);
  // MV3 stops the provider's worker: its side of the port goes away
  s.providerPorts[0]?.disconnect();
  await until(() => !s.session.portOpen, 'host noticed');
  assert.equal(s.session.tools?.length, 7, 'the tool cache survives');
  const r = await s.session.callTool('list_scripts', {});
  assert.equal(r.isError, undefined);
  assert.equal(s.session.initializeCount, 2);
  assert.equal(s.providerPorts.length, 2);
});

test('probeTarget: the app gets the raw outcome of a real L0 probe', async (t) => {
  const s = setup(t);
  await ready(s);
  s.app.push({ type: 'probeTarget', id: 'app-1', target: CALLER });
  s.app.push({ type: 'probeTarget', id: 'app-2', target: OTHER });
  await until(() => s.app.of('probeTarget.result').length === 2, 'answers');
  const byRe = Object.fromEntries(s.app.of('probeTarget.result').map((m) => [m.re, m.outcome])) as Record<string, any>;
  assert.equal(byRe['app-1'].kind, 'answer');
  assert.equal(byRe['app-1'].answer.ok, true);
  assert.deepEqual(byRe['app-1'].answer.echo.client, { id: PROVIDER, name: 'Lumo Userscripts', version: '0.1.0' });
  assert.equal(byRe['app-1'].answer.echo.channel, 'lumo:probe');
  assert.deepEqual(byRe['app-2'], { kind: 'rejected', error: 'Could not establish connection. Receiving end does not exist.' });
});

test('probeTarget: a target that answers nothing is reported as answer null', async (t) => {
  const s = setup(t);
  await ready(s);
  (s.provider as any).deps.sendMessage = async () => undefined;
  s.app.push({ type: 'probeTarget', id: 7, target: OTHER });
  await until(() => s.app.of('probeTarget.result').length === 1, 'answer');
  assert.deepEqual(s.app.of('probeTarget.result')[0]?.outcome, { kind: 'answer', answer: null });
});

test('L0: an app answer the provider cannot check fails closed', async (t) => {
  const s = setup(t);
  await ready(s);
  const port = s.app.port!;
  port.handler = (m) => {
    if (m.type === 'probe')
      port.deliver({ type: 'probe.result', re: m.id, status: { enabled: true, authorized: true, pendingApproval: false } });
  };
  const a = await s.provider.probe({ channel: PROBE_CHANNEL, version: 1, id: 'p' }, { id: CALLER }) as any;
  assert.equal(a.ok, true);
  assert.equal(a.status.authorized, false);
  assert.equal(a.status.ready, false);
  assert.match(a.status.reason, /invalid probe.result: status.ready/);
});

test('catalogue: limits are enforced before listing, the app is told, and its refusals are not listed', async (t) => {
  const s = setup(t);
  s.app.refuse.add('delete_script');
  await ready(s);
  s.app.allow(CALLER);
  await s.session.refresh();
  assert.deepEqual(s.session.tools?.map((x) => x.name), ['list_scripts', 'get_script', 'create_script', 'update_script', 'set_script_enabled', 'list_site_packs']);
  const { TOOLS } = await import('../src/provider/tools.ts');
  const base = TOOLS[0]!;
  const extra = [...TOOLS, { ...base, name: 'x'.repeat(41) }, { ...base, name: 'site_tool' }];
  s.app.refuse.clear();
  await s.provider.updateCatalogue(extra);
  const sent = s.app.of('tools')[0]?.tools as Array<{ name: string }>;
  assert.deepEqual(sent.map((x) => x.name), [...TOOLS.map((x) => x.name), 'site_tool']);
  assert.equal(s.provider.tools.length, 8);
});

test('display texts are cut to the bridge\'s byte bounds on whole characters', async () => {
  const { bounded } = await import('../src/provider/probe.ts');
  assert.equal(bounded('😀'.repeat(40), 128), '😀'.repeat(32));
  assert.equal(bounded('a'.repeat(10), 128), 'a'.repeat(10));
  assert.equal(bounded('', 128), undefined);
  assert.equal(bounded(5, 128), undefined);
  assert.equal(new TextEncoder().encode(bounded('é'.repeat(700), 1024)).length, 1024);
});

test('a call that waits for review is kept alive by progress, not cut by the client timeout', async (t) => {
  const s = setup(t);
  (s.provider as any).deps.progressIntervalMs = 25;
  await ready(s);
  s.app.allow(CALLER);
  const fast = new ProviderSession({
    providerId: PROVIDER, client: { id: CALLER, name: 'Reviewer test' },
    sendMessage: (id, m) => s.provider.probe(JSON.parse(JSON.stringify(m)), { id: CALLER }).then((a) => a ?? undefined),
    connectPort: (_id, name) => { const [h, p] = portPair(name, CALLER); s.provider.connect(p); return h; },
    lastError: () => undefined, callTimeoutMs: 500,
  });
  // The app holds the answer for 1.5 s (three client timeouts), as a reviewer would.
  const port = s.app.port!;
  const original = port.handler!;
  port.handler = (m) => {
    if (m.type === 'authorize')
      setTimeout(() => original(m), 1500);
    else
      original(m);
  };
  const r = await fast.callTool('create_script', { name: 'slow', source: 'x' });
  assert.equal(r.isError, undefined, JSON.stringify(r));
});
