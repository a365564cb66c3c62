// SPDX-License-Identifier: GPL-3.0-or-later
// Desktop agents on virtual ports (docs/bridge-protocol.md, "Desktop
// agents: virtual ports"): the app opens a port with agentOpen and carries
// the agent's MCP messages in agentMessage pushes; the provider serves it
// with the server of a lumo:mcp port and authorizes every call under the
// agent's ID with the port named. The agent here is the official SDK's
// Client over a transport that speaks agentMessage to the fake app.
import { test } from 'node:test';
import { readFileSync } from 'node:fs';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ToolListChangedNotificationSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { checkAgentPush, MAX_CLOSE_REASON_BYTES } from '../src/provider/app-messages.ts';
import { MAX_AGENT_PORTS, MAX_OPEN_REQUESTS, TOO_MANY_REQUESTS_ERROR, ANSWER_TOO_LARGE_ERROR, VirtualPortTransport } from '../src/provider/agent-ports.ts';
import { MAX_FRAME_BYTES } from '../src/provider/bridge.ts';
import { MAX_HELD_BYTES, MAX_HELD_MESSAGES } from '../src/provider/transport.ts';
import { NOT_AUTHORIZED_ERROR } from '../src/shared/port.ts';
import { utf8Length } from '../src/shared/text.ts';
import type { FakeApp } from './fake-app.ts';
import { until } from './fakes.ts';
import { CALLER, ready, setup } from './harness.ts';

export const AGENT = 'mkdaphcfnbjaelogmkdaphcfnbjaelog';
const AGENT2 = 'bcdefghijklmnopabcdefghijklmnopa';

type S = ReturnType<typeof setup>;
type Text = { type: string; text: string };
const text = (r: Record<string, unknown>) => ((r.content as Text[])[0]?.text ?? '');
const req = (id: number, method = 'tools/list', params: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id, method, params });

// The agent's side of a virtual port, as the app relays it.
class AgentTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  constructor (private readonly app: FakeApp, private readonly port: string) {}
  async start (): Promise<void> {
    this.app.agentListeners.set(this.port, (m) => this.onmessage?.(m as JSONRPCMessage));
  }
  async send (message: JSONRPCMessage): Promise<void> {
    this.app.agentSend(this.port, message as unknown as Record<string, unknown>);
  }
  async close (): Promise<void> {
    this.app.agentListeners.delete(this.port);
    this.onclose?.();
  }
}

async function open (s: S, port = 'a1', caller = AGENT, name = 'Claude Code', extra: Record<string, unknown> = {}) {
  const id = s.app.openAgent(port, caller, name, extra);
  await until(() => s.app.answerTo(id) !== undefined, `the answer to agentOpen ${port}`);
  return { id, answer: s.app.answerTo(id) as Record<string, unknown> };
}

async function agent (s: S, port = 'a1', caller = AGENT) {
  const { id, answer } = await open(s, port, caller);
  assert.deepEqual(answer, { type: 'agentOpen.result', re: id });
  const client = new Client({ name: 'Claude Code', version: '2.1' });
  await client.connect(new AgentTransport(s.app, port));
  return client;
}

// What the provider sent on the bridge follows the contract: every
// agentMessage and agentClose as the fixtures say, no frame over 1 MiB.
function assertWellFormedOutput (s: S): void {
  for (const m of s.app.received.filter((x) => x.type === 'agentMessage' || x.type === 'agentClose'))
    assert.deepEqual(checkAgentPush(m), { ok: true }, JSON.stringify(m).slice(0, 200));
  for (const p of s.app.ports)
    for (const m of p.sent)
      assert.ok(utf8Length(JSON.stringify(m)) <= MAX_FRAME_BYTES, `${String(m.type)} frame under 1 MiB`);
}

async function allowed (t: Parameters<typeof setup>[0], deps = {}) {
  const s = setup(t, deps);
  await ready(s);
  s.app.allowed.add(AGENT);
  s.app.allowed.add(AGENT2);
  return s;
}

test('agentOpen is answered at once; initialize and tools/list give what a lumo:mcp port gives; no port message', async (t) => {
  const s = await allowed(t);
  const client = await agent(s);
  assert.equal(client.getServerVersion()?.name, 'Lumo Userscripts');
  assert.equal(client.getServerCapabilities()?.tools?.listChanged, true);
  assert.match(client.getInstructions() ?? '', /Writes are on/);
  const listed = (await client.listTools()).tools;
  s.app.allow(CALLER);
  await s.session.refresh();
  assert.deepEqual(listed.map((x) => x.name), s.session.tools?.map((x) => x.name));
  assert.deepEqual(listed.find((x) => x.name === 'delete_script')?.annotations, s.session.tools?.find((x) => x.name === 'delete_script')?.annotations);
  assert.equal(listed.length, 7);
  assert.equal(s.provider.openAgentPortCount, 1);
  // The app knows its virtual ports: none is reported, and opening one
  // asks the app nothing.
  assert.deepEqual(s.app.of('port').map((m) => m.port), ['p1']);
  assert.equal(s.app.of('probe').filter((m) => (m.caller as { id: string }).id === AGENT).length, 0);
  assertWellFormedOutput(s);
});

test('calls on a virtual port are authorized under the agent\'s ID with the port: a read, then a write and its result', async (t) => {
  const s = await allowed(t);
  const client = await agent(s);
  const read = await client.callTool({ name: 'list_scripts', arguments: {} });
  assert.equal(read.isError, undefined, JSON.stringify(read));
  assert.deepEqual(JSON.parse(text(read)), { scripts: [] });
  const a1 = s.app.of('authorize')[0] as Record<string, any>;
  assert.deepEqual([a1.caller, a1.port, a1.tool, a1.write], [{ id: AGENT, name: 'Claude Code' }, 'a1', 'list_scripts', false]);

  const write = await client.callTool({ name: 'create_script', arguments: { name: 'From the desktop', source: 'void 0;' } });
  assert.equal(write.isError, undefined, JSON.stringify(write));
  const a2 = s.app.of('authorize')[1] as Record<string, any>;
  assert.deepEqual([a2.caller.id, a2.port, a2.tool, a2.write], [AGENT, 'a1', 'create_script', true]);
  assert.match(a2.paramsHash, /^[0-9a-f]{64}$/);
  assert.equal(a2.preview.action, 'create');
  await until(() => s.app.of('result').length === 1, 'the result');
  assert.deepEqual(s.app.of('result')[0], { type: 'result', id: s.app.of('result')[0]?.id, auditId: s.app.nextAuditId, ok: true });
  assert.deepEqual((await s.provider.store.list()).map((x) => x.name), ['From the desktop']);

  // The app refuses a port that is not the caller's: the model reads why.
  s.app.agentPorts.set('a1', AGENT2);
  const refused = await client.callTool({ name: 'create_script', arguments: { name: 'x', source: 'void 0;' } });
  assert.equal(refused.isError, true);
  assert.match(text(refused), /not on the allow-list/);
  assert.equal((await s.provider.store.list()).length, 1);
  assertWellFormedOutput(s);
});

test('agentClose from the app closes the server and says nothing; the port cannot be addressed after, and its id can be opened again', async (t) => {
  const s = await allowed(t);
  const client = await agent(s);
  await client.listTools();
  s.app.agentClose('a1');
  await until(() => s.provider.openAgentPortCount === 0, 'the port to close');
  s.app.agentSend('a1', req(50));
  await until(() => s.app.closesOf('a1').length === 1, 'the answer to a message on a closed port');
  assert.match(String(s.app.closesOf('a1')[0]?.reason), /No virtual port a1 is open/);
  assert.equal(s.app.inbox('a1').filter((m) => m.id === 50).length, 0, 'no server answered');
  // Closing an unknown port is not an error: nothing comes back.
  s.app.agentClose('zz');
  const again = await agent(s);
  assert.equal((await again.listTools()).tools.length, 7);
  assert.equal(s.app.closesOf('zz').length, 0);
  assert.equal(s.app.closesOf('a1').length, 1);
});

test('a policy push closes the revoked agent\'s ports with agentClose and a reason, open requests answered first; disabling closes all', async (t) => {
  const s = await allowed(t);
  const one = await agent(s, 'a1', AGENT);
  const two = await agent(s, 'a2', AGENT2);
  s.app.allow(CALLER);
  await s.session.refresh();
  s.app.holdAuthorize = true;
  const call = one.callTool({ name: 'list_scripts', arguments: {} });
  await until(() => s.app.heldAuthorize.length === 1, 'the call to wait in authorize');
  s.app.revoke(AGENT);
  await assert.rejects(call, (e: { code: number; message: string }) => e.code === NOT_AUTHORIZED_ERROR && /revoked/.test(e.message));
  await until(() => s.app.closesOf('a1').length === 1, 'agentClose for a1');
  assert.match(String(s.app.closesOf('a1')[0]?.reason), /Access for this caller was revoked/);
  const order = s.app.received.filter((m) => m.port === 'a1').map((m) => m.type);
  assert.deepEqual(order.slice(-2), ['agentMessage', 'agentClose'], 'the open request is answered before the close');
  assert.equal(s.provider.openAgentPortCount, 1);
  assert.equal(s.provider.openPortCount, 1, 'another caller\'s Chrome port stays');
  s.app.holdAuthorize = false;
  assert.equal((await two.listTools()).tools.length, 7, 'the other agent goes on');
  s.app.setPolicy({ enabled: false });
  await until(() => s.app.closesOf('a2').length === 1, 'agentClose for a2');
  assert.equal(s.app.closesOf('a2')[0]?.reason, 'Agent access is turned off in the provider.');
  assert.equal(s.provider.openAgentPortCount, 0);
  // The held authorize of the closed port is answered late: nothing is sent for it.
  const before = s.app.of('agentMessage').length;
  s.app.answerHeld();
  s.app.agentSend('a2', req(7));
  await until(() => s.app.closesOf('a2').length === 2, 'the message to a closed port answered');
  assert.equal(s.app.of('agentMessage').length, before);
  assertWellFormedOutput(s);
});

test('a close reason is cut to 512 bytes on a character boundary', () => {
  const closes: string[] = [];
  const v = new VirtualPortTransport('a1', { message: () => 'sent', close: (r) => closes.push(r) });
  void v.start();
  v.closeWithReason('é'.repeat(600));
  assert.equal(closes.length, 1);
  assert.equal(closes[0], 'é'.repeat(256));
  assert.equal(utf8Length(closes[0] ?? ''), MAX_CLOSE_REASON_BYTES);
  const w = new VirtualPortTransport('a2', { message: () => 'sent', close: (r) => closes.push(r) });
  w.closeWithReason('x' + '😀'.repeat(200));
  assert.equal(closes[1], 'x' + '😀'.repeat(127));
});

test(`at most ${MAX_AGENT_PORTS} virtual ports: the next is refused busy, an id in use too, and a freed one can be used again`, async (t) => {
  const s = await allowed(t);
  const first = await open(s, 'v0');
  assert.equal(first.answer.type, 'agentOpen.result');
  const dup = await open(s, 'v0', AGENT2);
  assert.deepEqual([dup.answer.type, dup.answer.code, dup.answer.re], ['error', 'busy', dup.id]);
  for (let i = 1; i < MAX_AGENT_PORTS; i++)
    s.app.openAgent(`v${i}`, AGENT);
  await until(() => s.provider.openAgentPortCount === MAX_AGENT_PORTS, 'all ports open');
  const extra = await open(s, `v${MAX_AGENT_PORTS}`);
  assert.deepEqual([extra.answer.type, extra.answer.code, extra.answer.re], ['error', 'busy', extra.id]);
  assert.match(String(extra.answer.message), /64 virtual ports open/);
  assert.equal(s.provider.openAgentPortCount, MAX_AGENT_PORTS, 'nothing grows');
  s.app.agentSend(`v${MAX_AGENT_PORTS}`, req(1));
  await until(() => s.app.closesOf(`v${MAX_AGENT_PORTS}`).length === 1, 'the refused port cannot be addressed');
  s.app.agentClose('v5');
  await until(() => s.provider.openAgentPortCount === MAX_AGENT_PORTS - 1, 'one closed');
  assert.equal((await open(s, `v${MAX_AGENT_PORTS}`)).answer.type, 'agentOpen.result');
});

test('a bad port id, caller name or kind is refused with bad_field and opens nothing; a name is cleaned', async (t) => {
  const s = await allowed(t);
  const badPorts: unknown[] = ['', 'x'.repeat(65), 'a b', 'a/b', 'a.b', 'é', 'a\n', 7, null, ['a1']];
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ...badPorts.map((port): [string, Record<string, unknown>, string] => [`port ${JSON.stringify(port)}`, { port }, 'port']),
    ['port missing', { port: undefined }, 'port'],
    ['caller missing', { caller: undefined }, 'caller'],
    ['caller a string', { caller: AGENT }, 'caller'],
    ['kind extension', { caller: { id: AGENT, name: 'n', kind: 'extension' } }, 'caller.kind'],
    ['kind missing', { caller: { id: AGENT, name: 'n' } }, 'caller.kind'],
    ['name missing', { caller: { id: AGENT, kind: 'agent' } }, 'caller.name'],
    ['name a number', { caller: { id: AGENT, name: 5, kind: 'agent' } }, 'caller.name'],
    ['name of 129 bytes', { caller: { id: AGENT, name: 'é'.repeat(64) + 'x', kind: 'agent' } }, 'caller.name'],
    ['name only controls', { caller: { id: AGENT, name: '\u0007\u202e\n', kind: 'agent' } }, 'caller.name'],
  ];
  for (const [name, change, field] of cases) {
    const { answer, id } = await open(s, 'a1', AGENT, 'Claude Code', change);
    assert.deepEqual([answer.type, answer.code, answer.field, answer.re], ['error', 'bad_field', field, id], name);
  }
  assert.equal(s.provider.openAgentPortCount, 0);
  assert.equal(s.app.of('probe').length + s.app.of('authorize').length, 0, 'nothing reached the policy');
  // Longest port id, and a name with controls: opened, the name cleaned.
  const long = 'A-z_9'.repeat(12) + 'abcd';
  assert.equal((await open(s, long, AGENT, 'Claude\u202e Code\n2\u0000')).answer.type, 'agentOpen.result');
  const client = new Client({ name: 'x', version: '1' });
  await client.connect(new AgentTransport(s.app, long));
  await client.callTool({ name: 'list_scripts', arguments: {} });
  assert.deepEqual(s.app.of('authorize')[0]?.caller, { id: AGENT, name: 'Claude Code 2' });
  assert.equal(s.app.of('authorize')[0]?.port, long);
});

test('an answer too large for a frame becomes a JSON-RPC error for its request; the port goes on', async (t) => {
  const s = await allowed(t);
  const client = await agent(s);
  // 512 KiB of quotes: escaped twice (the tool's JSON text, then the frame) it is 2 MiB.
  const big = await s.provider.store.create('0f8fad5b-d9cb-469f-a165-70867728950e', { name: 'big', source: '"'.repeat(512 * 1024) });
  await assert.rejects(client.callTool({ name: 'get_script', arguments: { uuid: big.uuid } }),
    (e: { code: number; message: string }) => e.code === ANSWER_TOO_LARGE_ERROR && /would be \d+ bytes, more than the 1048576/.test(e.message));
  assert.equal((await client.listTools()).tools.length, 7, 'the port is still open');
  assert.equal(s.app.closesOf('a1').length, 0);
  assertWellFormedOutput(s);
});

test('held before the provider is ready, within the bounds of every port; over them the port is closed and each request answered', async (t) => {
  let settle = () => undefined as void;
  const s = await allowed(t, { ready: new Promise<void>((r) => { settle = r; }) });
  t.after(() => settle());
  await open(s, 'a1');
  for (let i = 1; i <= MAX_HELD_MESSAGES; i++)
    s.app.agentSend('a1', req(i));
  s.app.agentSend('a1', req(MAX_HELD_MESSAGES + 1));
  await until(() => s.app.closesOf('a1').length === 1, 'the port to close');
  assert.match(String(s.app.closesOf('a1')[0]?.reason),
    new RegExp(`more than ${MAX_HELD_MESSAGES} messages or ${MAX_HELD_BYTES} bytes before the provider was ready`));
  const errors = s.app.inbox('a1').filter((m) => m.error?.code === NOT_AUTHORIZED_ERROR);
  assert.deepEqual(errors.map((m) => m.id), Array.from({ length: MAX_HELD_MESSAGES + 1 }, (_, i) => i + 1));
  assert.equal(s.provider.openAgentPortCount, 0);

  await open(s, 'a2');
  const pad = 'x'.repeat(MAX_HELD_BYTES / 2);
  s.app.agentSend('a2', req(1, 'tools/list', { pad }));
  s.app.agentSend('a2', req(2, 'tools/list', { pad }));
  await until(() => s.app.closesOf('a2').length === 1, 'the port to close on bytes');
  // Once ready, what was held goes through in order.
  await open(s, 'a3');
  s.app.agentSend('a3', req(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } }));
  s.app.agentSend('a3', req(2));
  // The provider handles pushes in order: once a later one is answered,
  // these two were taken (and held).
  s.app.agentSend('barrier', req(3));
  await until(() => s.app.closesOf('barrier').length === 1, 'the barrier');
  assert.equal(s.app.inbox('a3').length, 0, 'nothing answered before ready');
  settle();
  await until(() => s.app.inbox('a3').length === 2, 'both answered');
  assert.deepEqual(s.app.inbox('a3').map((m) => m.id), [1, 2]);
  assert.equal(s.app.inbox('a3')[1]?.result?.tools?.length, 7);
});

test(`at most ${MAX_OPEN_REQUESTS} requests open per virtual port; a cancelled or answered one frees its slot`, async (t) => {
  const s = await allowed(t);
  await agent(s);
  s.app.holdAuthorize = true;
  const call = (id: number) => s.app.agentSend('a1', req(id, 'tools/call', { name: 'list_scripts', arguments: {} }));
  for (let i = 1; i <= MAX_OPEN_REQUESTS; i++)
    call(i);
  await until(() => s.app.heldAuthorize.length === MAX_OPEN_REQUESTS, 'all waiting');
  call(100);
  await until(() => s.app.inbox('a1').some((m) => m.id === 100), 'the refusal');
  assert.equal(s.app.inbox('a1').find((m) => m.id === 100)?.error?.code, TOO_MANY_REQUESTS_ERROR);
  assert.equal(s.app.heldAuthorize.length, MAX_OPEN_REQUESTS, 'it never reached the server');
  s.app.agentSend('a1', { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2, reason: 'user' } });
  call(101);
  await until(() => s.app.heldAuthorize.length === MAX_OPEN_REQUESTS + 1, 'a cancelled request frees its slot');
  s.app.answerHeld(0);
  await until(() => s.app.inbox('a1').some((m) => m.id === 1), 'an answer');
  call(102);
  await until(() => s.app.heldAuthorize.length === MAX_OPEN_REQUESTS + 1, 'an answered request frees its slot');
  assert.equal(s.app.inbox('a1').filter((m) => m.error?.code === TOO_MANY_REQUESTS_ERROR).length, 1);
});

test('a reconnect ends the old session\'s virtual ports: none can be addressed, nothing of theirs is sent on the new session', async (t) => {
  const s = await allowed(t);
  const client = await agent(s);
  await client.listTools();
  s.app.holdAuthorize = true;
  const call = client.callTool({ name: 'create_script', arguments: { name: 'x', source: 'void 0;' } });
  await until(() => s.app.heldAuthorize.length === 1, 'a write waiting');
  const old = s.app.port!;
  s.app.kill();
  assert.equal(s.provider.openAgentPortCount, 0, 'gone with the session, at once');
  await until(() => s.provider.bridge.state === 'ready' && s.app.port !== old, 'a new session');
  s.app.holdAuthorize = false;
  s.app.agentSend('a1', req(9));
  await until(() => s.app.closesOf('a1').length === 1, 'the stale port refused');
  const fresh = s.app.port!;
  assert.deepEqual(fresh.sent.filter((m) => m.port === 'a1').map((m) => m.type), ['agentClose'], 'only the refusal on the new session');
  assert.equal(fresh.sent.filter((m) => m.type === 'authorize').length, 0);
  assert.equal((await s.provider.store.list()).length, 0, 'the write never ran');
  // The app opens the session again on the new bridge session.
  const again = await agent(s);
  assert.equal((await again.callTool({ name: 'list_scripts', arguments: {} })).isError, undefined);
  // The old session's call has no answer from the provider (the app
  // answers it for the agent); the client gives up when it closes.
  await client.close();
  await assert.rejects(call);
});

test('tools/list_changed goes to virtual ports as to Chrome ports', async (t) => {
  const s = await allowed(t);
  const client = await agent(s);
  let changed = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => { changed++; });
  await client.listTools();
  const { TOOLS } = await import('../src/provider/tools.ts');
  await s.provider.updateCatalogue([...TOOLS, { ...TOOLS[0]!, name: 'site_tool' }]);
  await until(() => changed === 1, 'list_changed on the virtual port');
  assert.ok((await client.listTools()).tools.some((x) => x.name === 'site_tool'));
});

const fixture = (name: string) =>
  JSON.parse(readFileSync(new URL(`../../tests/fixtures/bridge/${name}`, import.meta.url), 'utf8'));

test('the app\'s agent messages of the fixtures, sent to a live provider: each valid one handled, each invalid one acted on not at all', async (t) => {
  const s = await allowed(t);
  const cases = fixture('messages-agent-app.json').cases as Array<Record<string, any>>;
  // An open port the pushes are aimed at: a1, as in the fixtures.
  await agent(s, 'a1');
  const opens = cases.filter((c) => c.message.type === 'agentOpen');
  for (const c of opens) {
    const m = { ...c.message, port: c.message.port === 'a1' ? 'o1' : c.message.port };
    s.app.push(m);
    await until(() => s.app.answerTo(m.id) !== undefined, `${c.name}: the answer`);
    const a = s.app.answerTo(m.id) as Record<string, unknown>;
    if (c.valid) {
      assert.deepEqual(a, { type: 'agentOpen.result', re: m.id }, c.name);
      s.app.agentClose(m.port);
      await until(() => s.provider.openAgentPortCount === 1, `${c.name}: closed again`);
    } else {
      assert.deepEqual([a.type, a.code, a.field], ['error', c.error.code, c.error.field], c.name);
    }
    s.app.received = s.app.received.filter((x) => x !== a);
  }
  assert.equal(s.provider.openAgentPortCount, 1);
  // Invalid pushes: neither delivered nor closing; a valid ping after them
  // is answered first, so nothing of theirs came before.
  // (A bad decision beside a good message is the next test's.)
  for (const c of cases.filter((x) => !x.valid && x.message.type !== 'agentOpen' && !x.error.field.startsWith('decision')))
    s.app.push({ ...c.message });
  s.app.agentSend('a1', { jsonrpc: '2.0', id: 'after', method: 'ping' });
  await until(() => s.app.inbox('a1').some((m) => m.id === 'after'), 'the ping');
  assert.equal(s.app.inbox('a1').at(-1)?.id, 'after');
  assert.equal(s.app.inbox('a1').filter((m) => m.id === 3).length, 0, 'no invalid message reached the server');
  assert.equal(s.app.closesOf('a1').length, 0);
  assert.equal(s.provider.openAgentPortCount, 1, 'no invalid agentClose closed it');
  // The valid agentClose closes it.
  s.app.push(cases.find((c) => c.name === 'agentClose')?.message);
  await until(() => s.provider.openAgentPortCount === 0, 'closed');
});

test('an agentMessage of the fixtures whose decision the provider cannot take goes on without it: its call asks the app', async (t) => {
  const s = await allowed(t);
  const cases = (fixture('messages-agent-app.json').cases as Array<Record<string, any>>)
    .filter((c) => !c.valid && c.message.type === 'agentMessage' && c.error.field.startsWith('decision'));
  assert.ok(cases.length >= 10);
  await open(s, 'a1');
  for (const c of cases) {
    const asked = s.app.of('authorize').length;
    const heard = s.app.inbox('a1').length;
    s.app.push({ ...c.message });
    if (c.message.message.id === undefined)
      continue;
    await until(() => s.app.inbox('a1').length === heard + 1, `${c.name}: the answer`);
    const call = c.message.message.method === 'tools/call' && typeof c.message.message.params?.name === 'string';
    assert.equal(s.app.of('authorize').length, asked + (call ? 1 : 0), `${c.name}: asked`);
  }
  // The last call asked and was allowed by the app's answer, not by the
  // decision it came with.
  assert.equal(s.app.inbox('a1').at(-1)?.result?.isError, undefined);
});

// The app's decision beside a relayed call, as the app sends it.
const relayedCall = (id: unknown, tool: string, args: Record<string, unknown> = {}) =>
  ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: tool, arguments: args } });
const DENIED = { allow: false, reason: 'not_authorized', message: 'The caller is not on the allow-list.' };

async function answerTo (s: S, port: string, id: unknown): Promise<Record<string, any>> {
  await until(() => s.app.inbox(port).some((m) => m.id === id && !('method' in m)), `the answer to ${String(id)}`);
  return s.app.inbox(port).find((m) => m.id === id && !('method' in m)) as Record<string, any>;
}

test('a read the app relayed with its decision runs without an authorize; a denial is answered as a denied authorize is', async (t) => {
  const s = await allowed(t);
  await open(s, 'a1');
  s.app.push({ type: 'agentMessage', port: 'a1', message: relayedCall(1, 'list_scripts'),
    decision: { id: 1, tool: 'list_scripts', allow: true, message: 'Allowed.' } });
  const allowedAnswer = await answerTo(s, 'a1', 1);
  assert.deepEqual(JSON.parse(allowedAnswer.result.content[0].text), { scripts: [] });
  assert.equal(s.app.of('authorize').length, 0, 'nothing asked');

  // The app's denial, then the same call denied by an authorize: the agent
  // hears the same.
  s.app.push({ type: 'agentMessage', port: 'a1', message: relayedCall(2, 'list_scripts'),
    decision: { id: 2, tool: 'list_scripts', ...DENIED } });
  const decided = await answerTo(s, 'a1', 2);
  assert.equal(s.app.of('authorize').length, 0, 'nothing asked');
  s.app.denyNext = { reason: 'not_authorized', message: 'The caller is not on the allow-list.' };
  s.app.agentSend('a1', relayedCall(3, 'list_scripts'));
  const asked = await answerTo(s, 'a1', 3);
  assert.equal(s.app.of('authorize').length, 1);
  assert.equal(decided.result.isError, true);
  assert.deepEqual(decided.result, asked.result);
  assertWellFormedOutput(s);
});

test('the app\'s decision counts only for its port, its request and a tool that is a read here; anything else asks', async (t) => {
  const s = await allowed(t);
  await open(s, 'a1');
  await open(s, 'a2', AGENT2);
  // Each call comes with a denial it must not take: asked, the app allows.
  const asks = async (port: string, id: unknown, expectAsked: number) => {
    const a = await answerTo(s, port, id);
    assert.equal(s.app.of('authorize').length, expectAsked, `${port} ${String(id)}: asked`);
    return a;
  };
  // A write here, whatever the app's decision says of it.
  s.app.push({ type: 'agentMessage', port: 'a1', message: relayedCall(1, 'create_script', { name: 'w', source: 'void 0;' }),
    decision: { id: 1, tool: 'create_script', allow: true, message: 'Allowed.' } });
  const write = await asks('a1', 1, 1);
  assert.equal(write.result.isError, undefined, JSON.stringify(write));
  assert.deepEqual([s.app.of('authorize')[0]?.tool, s.app.of('authorize')[0]?.write], ['create_script', true]);
  await until(() => s.app.of('result').length === 1, 'the write\'s result');
  // A decision for another request id, for another tool: no decision.
  s.app.push({ type: 'agentMessage', port: 'a1', message: relayedCall(2, 'list_scripts'),
    decision: { id: 3, tool: 'list_scripts', ...DENIED } });
  assert.equal((await asks('a1', 2, 2)).result.isError, undefined);
  s.app.push({ type: 'agentMessage', port: 'a1', message: relayedCall(3, 'list_scripts'),
    decision: { id: 3, tool: 'get_script', ...DENIED } });
  assert.equal((await asks('a1', 3, 3)).result.isError, undefined);
  // A decision on one port is nothing to the same request id on another,
  // and one the agent put in its own message is nothing at all.
  s.app.push({ type: 'agentMessage', port: 'a2', message: { jsonrpc: '2.0', id: 4, method: 'tools/list' } });
  await answerTo(s, 'a2', 4);
  const lookAlike = { id: 4, tool: 'list_scripts', ...DENIED };
  s.app.agentSend('a1', { jsonrpc: '2.0', id: 4, method: 'tools/call',
    params: { name: 'list_scripts', arguments: {}, decision: lookAlike, _meta: { decision: lookAlike } } });
  assert.equal((await asks('a1', 4, 4)).result.isError, undefined);
  // Taken once: the same id again, answered, then sent without one, asks.
  s.app.push({ type: 'agentMessage', port: 'a1', message: relayedCall(5, 'list_scripts'),
    decision: { id: 5, tool: 'list_scripts', allow: true, message: 'Allowed.' } });
  await answerTo(s, 'a1', 5);
  assert.equal(s.app.of('authorize').length, 4);
  s.app.inbox('a1').length = 0;
  s.app.agentSend('a1', relayedCall(5, 'list_scripts'));
  await asks('a1', 5, 5);
  // A tool the provider does not have: its error, and nothing else.
  s.app.push({ type: 'agentMessage', port: 'a1', message: relayedCall(6, 'no_such_tool'),
    decision: { id: 6, tool: 'no_such_tool', allow: true, message: 'Allowed.' } });
  assert.match((await asks('a1', 6, 5)).result.content[0].text, /not found/);
  assertWellFormedOutput(s);
});

test('a port\'s transport gives the app\'s decision once, for its request id and its tool only', () => {
  const transport = new VirtualPortTransport('a1', { message: () => 'sent', close: () => undefined });
  const allow = (id: unknown) => ({ id, tool: 'list_scripts', allow: true, message: 'Allowed.' });
  transport.take(relayedCall(1, 'list_scripts'), allow(1));
  assert.equal(transport.takeDecision(1, 'get_script'), undefined, 'another tool');
  assert.equal(transport.takeDecision(1, 'list_scripts'), undefined, 'gone with the mismatch');
  transport.take(relayedCall(2, 'list_scripts'), allow(2));
  assert.equal(transport.takeDecision('2', 'list_scripts'), undefined, '"2" is another request than 2');
  transport.take(relayedCall(3, 'list_scripts'), allow(3));
  assert.deepEqual(transport.takeDecision(3, 'list_scripts'), allow(3));
  assert.equal(transport.takeDecision(3, 'list_scripts'), undefined, 'taken once');
  // A request the agent cancelled takes its decision with it.
  transport.take(relayedCall(4, 'list_scripts'), allow(4));
  transport.take({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 4 } });
  assert.equal(transport.takeDecision(4, 'list_scripts'), undefined);
});

test('the provider\'s pushes follow the rules of the fixtures it shares with the app', () => {
  const cases = fixture('messages-agent-provider.json').cases as Array<Record<string, any>>;
  const pushes = cases.filter((c) => c.message.type === 'agentMessage' || c.message.type === 'agentClose');
  assert.ok(pushes.length >= 10);
  for (const c of pushes) {
    const r = checkAgentPush(c.message);
    assert.deepEqual(r.ok ? '(valid)' : r.field, c.valid ? '(valid)' : c.error.field, c.name);
  }
});

test('a write allowed in one session that finishes after a reconnect reports its result on no other session', async (t) => {
  let open = () => undefined as void;
  const gate = new Promise<void>((r) => { open = r; });
  const logged: string[] = [];
  const s = await allowed(t, { applied: () => gate, log: (...a: unknown[]) => logged.push(a.map(String).join(' ')) });
  const client = await agent(s);
  const call = client.callTool({ name: 'create_script', arguments: { name: 'slow', source: 'void 0;' } });
  await until(() => s.area.data.size === 1, 'the write allowed and done, waiting to be in effect');
  const old = s.app.port!;
  s.app.kill();
  await until(() => s.provider.bridge.state === 'ready' && s.app.port !== old, 'a new session');
  open();
  await until(() => logged.some((l) => l.startsWith('result not recorded:')), 'the result given up');
  assert.deepEqual(s.app.port!.sent.filter((m) => m.type === 'result'), [], 'the old audit id is not sent on the new session');
  await client.close();
  await assert.rejects(call);
});

test('a call whose port closed before it was authorized is not authorized at all', async (t) => {
  const { TOOLS } = await import('../src/provider/tools.ts');
  let go = () => undefined as void;
  const gate = new Promise<void>((r) => { go = r; });
  let planned = 0;
  const slow = { ...TOOLS[0]!, name: 'slow_tool', write: false,
    plan: async () => { planned++; await gate; return { run: async () => ({ ran: true }) }; } };
  const s = await allowed(t, { tools: [...TOOLS, slow] });
  await agent(s);
  s.app.agentSend('a1', req(5, 'tools/call', { name: 'slow_tool', arguments: {} }));
  await until(() => planned === 1, 'the call to be planning');
  s.app.agentClose('a1');
  await until(() => s.provider.openAgentPortCount === 0, 'closed');
  go();
  // A barrier: a message to the closed port is answered after the call's
  // microtasks have run.
  s.app.agentSend('a1', req(6));
  await until(() => s.app.closesOf('a1').length === 1, 'the barrier');
  assert.equal(s.app.of('authorize').length, 0, 'no authorize for a port that has closed');
  assert.equal(s.app.inbox('a1').filter((m) => m.id === 5).length, 0);
});

test('what the provider sends on a virtual port is well-formed UTF-8, even when a tool\'s text is not', async (t) => {
  const { TOOLS } = await import('../src/provider/tools.ts');
  const odd = { ...TOOLS[0]!, name: 'odd_tool', title: 'half \ud83d', description: 'lone \udc00 low' };
  const s = await allowed(t, { tools: [...TOOLS, odd] });
  const client = await agent(s);
  const listed = (await client.listTools()).tools.find((x) => x.name === 'odd_tool');
  assert.equal(listed?.title, 'half \ufffd');
  assert.equal(listed?.description, 'lone \ufffd low');
  // JSON.stringify escapes only lone surrogates.
  const lone = /\\ud[89a-f][0-9a-f]{2}/i;
  assert.ok(s.app.port!.sent.every((m) => !lone.test(JSON.stringify(m))));
});
