// SPDX-License-Identifier: GPL-3.0-or-later
//
// The desktop agents' benchmark (run-agents.mjs --bench; meson benchmark
// e2e-agents-tools-call): tools/call of a read tool (list_scripts) of the
// same provider in the same run, through
//   (a) the HTTP endpoint, from the official SDK's Streamable HTTP client,
//   (b) the stdio launcher, from the SDK's stdio client,
//   (c) a lumo:mcp port, from the e2e caller extension (its connector),
// each timed by its own client, round robin in rounds so that the three
// see the same machine; and (a′) the same call over HTTP by bare fetch on
// a session of its own, with the time until the answer's headers (which
// the endpoint holds until the answer is there, when the answer is all
// that comes), which splits (a) into the SDK client's share and the
// endpoint's with the relay. Then, with the browser closed, the
// endpoint's own cost per request: a ping the session answers itself
// (every check, the session, the strict parse, a JSON answer),
// beside a bare libsoup server that echoes the body as one SSE event
// (tests/bench/bench-soup-echo.c), from the same client (Node's fetch).
//
// LUMO_BENCH_READS (default 300) calls per path; figures go to
// docs/PERFORMANCE.md with the command that made them.

import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { NAMESPACE, PROVIDER, connectAgent, resultText } from './lib/agents.mjs';

function percentiles (samples) {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))] ?? NaN;
  return { n: s.length, p50: at(0.5), p99: at(0.99), max: s[s.length - 1] ?? NaN };
}

const f = (x) => x.toFixed(2).padStart(8);
const row = (what, r) => `${what.padEnd(44)} ${String(r.n).padStart(5)} ${f(r.p50)} ${f(r.p99)} ${f(r.max)}`;
const HEAD = `${'what'.padEnd(44)}     n   p50 ms   p99 ms   max ms`;

async function timeCalls (client, n) {
  const samples = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const r = await client.callTool({ name: 'list_scripts', arguments: {} });
    samples.push(performance.now() - t0);
    if (r.isError)
      throw new Error(`list_scripts failed: ${resultText(r)}`);
  }
  return samples;
}

// The echo server: resolves with its port and a stop function.
function startEcho (path) {
  return new Promise((resolve, reject) => {
    const p = spawn(path, [], { stdio: ['pipe', 'pipe', 'inherit'] });
    let text = '';
    p.on('error', reject);
    p.stdout.on('data', (d) => {
      text += d;
      if (text.includes('\n'))
        resolve({ port: Number(text.trim()), stop: () => p.stdin.end() });
    });
  });
}

// @heads, if given, gets the time to the answer's headers of each post.
async function timePosts (url, headers, body, n, heads) {
  const samples = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const r = await fetch(url, { method: 'POST', headers, body });
    heads?.push(performance.now() - t0);
    const text = await r.text();
    samples.push(performance.now() - t0);
    // One JSON object (the endpoint's answer to one request) or an SSE
    // event (the echo's).
    const json = /^application\/json/.test(r.headers.get('content-type') ?? '');
    if (r.status !== 200 || !(json ? JSON.parse(text).result : text.includes('event: message')))
      throw new Error(`${url}: ${r.status} ${text.slice(0, 200)}`);
  }
  return samples;
}

// A session of the endpoint opened with bare fetch (initialize, then
// initialized); resolves with the headers its requests carry.
async function rawSession (url, token) {
  const json = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Authorization: `Bearer ${token}` };
  const init = await fetch(url, {
    method: 'POST', headers: json,
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } }),
  });
  await init.text();
  const sid = init.headers.get('mcp-session-id');
  if (init.status !== 200 || !sid)
    throw new Error(`initialize: ${init.status}`);
  const headers = { ...json, 'Mcp-Session-Id': sid, 'MCP-Protocol-Version': '2025-11-25' };
  const ack = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
  await ack.text();
  return headers;
}

// A fetch for the SDK's transport that notes, for each POST answered 200,
// the answer's media type and the request's header names: what the SDK's
// client gets (one JSON object or an SSE stream, which it parses line by
// line) and sends, beside the bench's own fetch (a′).
function tallyingFetch (tally) {
  return async (url, init) => {
    const r = await fetch(url, init);
    if ((init?.method ?? 'GET') === 'POST' && r.status === 200) {
      const type = (r.headers.get('content-type') ?? 'none').split(';')[0];
      tally.types[type] = (tally.types[type] ?? 0) + 1;
      tally.connection[r.headers.get('connection') ?? 'none'] = (tally.connection[r.headers.get('connection') ?? 'none'] ?? 0) + 1;
      tally.headers = [...new Headers(init.headers).keys()].sort().join(', ');
    }
    return r;
  };
}

export async function benchSteps ({ step, check, ctlJson, callerEval, sdk, launcher, bus, closeBrowser, echoPath }) {
  const n = Number(process.env.LUMO_BENCH_READS ?? 300);
  const rounds = 10;
  const per = Math.max(1, Math.round(n / rounds));
  const clients = {};
  const agents = {};
  const tally = { types: {}, connection: {}, headers: null };

  await step('bench: two agents, both clients connected, every path warmed up', async () => {
    for (const kind of ['http', 'stdio']) {
      const a = await ctlJson('agents', 'add', `Bench ${kind}`);
      agents[kind] = { token: a.token, url: a.providers.find((p) => p.id === PROVIDER).setups.url };
      clients[kind] = await connectAgent(sdk, {
        kind, url: agents[kind].url, token: a.token, launcher, bus, name: `bench-${kind}`,
        fetch: kind === 'http' ? tallyingFetch(tally) : undefined,
      });
      await timeCalls(clients[kind].client, 20);
    }
    const warm = await callerEval(`lumoTest.bench('${NAMESPACE}.list_scripts', ${JSON.stringify(Array.from({ length: 20 }, () => ({})))})`);
    check(warm.errors === 0, `the caller's calls failed: ${JSON.stringify(warm)}`);
  });

  await step('bench: tools/call list_scripts through (a) HTTP, (b) stdio, (c) a lumo:mcp port, round robin', async () => {
    // The same call by bare fetch on a session of its own: what of (a) is
    // the endpoint's and the relay's, and what the SDK's HTTP client's.
    const raw = await rawSession(agents.http.url, agents.http.token);
    const call = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_scripts', arguments: {} } });
    await timePosts(agents.http.url, raw, call, 20);
    const s = { http: [], raw: [], rawHeads: [], stdio: [], port: [] };
    tally.types = {};
    tally.connection = {};
    for (let r = 0; r < rounds; r++) {
      s.http.push(...await timeCalls(clients.http.client, per));
      s.raw.push(...await timePosts(agents.http.url, raw, call, per, s.rawHeads));
      s.stdio.push(...await timeCalls(clients.stdio.client, per));
      const c = await callerEval(`lumoTest.samples('${NAMESPACE}.list_scripts', ${per})`);
      check(c.errors === 0, `the caller's calls failed: ${JSON.stringify(c)}`);
      s.port.push(...c.samples);
    }
    const a = percentiles(s.http);
    const b = percentiles(s.stdio);
    const c = percentiles(s.port);
    const ratio = (x) => `${(x.p50 / c.p50).toFixed(2)}× p50, ${(x.p99 / c.p99).toFixed(2)}× p99`;
    for (const k of ['http', 'stdio'])
      await clients[k].client.close();
    return [HEAD,
      row('(a) HTTP endpoint (SDK Streamable HTTP)', a),
      row('(a′) HTTP endpoint, the same call by fetch', percentiles(s.raw)),
      row('     … of which until its headers', percentiles(s.rawHeads)),
      row('(b) stdio launcher (SDK stdio)', b),
      row('(c) lumo:mcp port (caller extension)', c),
      `(a)/(c): ${ratio(a)}; (b)/(c): ${ratio(b)}; goal ≤ 1.20×`,
      `(a)'s answers by media type: ${JSON.stringify(tally.types)}; by Connection header: ${JSON.stringify(tally.connection)}`,
      `(a)'s request headers: ${tally.headers}; (a′)'s: ${Object.keys(raw).map((h) => h.toLowerCase()).sort().join(', ')}`].join('\n');
  });

  await step('bench: the endpoint\'s own cost per request, beside a bare libsoup echo', async () => {
    // The provider goes: the session answers ping itself.
    await closeBrowser();
    const echo = await startEcho(echoPath);
    try {
      const json = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
      const init = await fetch(agents.http.url, {
        method: 'POST', headers: { ...json, Authorization: `Bearer ${agents.http.token}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } }),
      });
      await init.text();
      const sid = init.headers.get('mcp-session-id');
      check(init.status === 200 && sid, `initialize: ${init.status}`);
      const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
      const endpointHeaders = { ...json, Authorization: `Bearer ${agents.http.token}`, 'Mcp-Session-Id': sid, 'MCP-Protocol-Version': '2025-11-25' };
      const echoUrl = `http://127.0.0.1:${echo.port}/`;
      const s = { endpoint: [], echoKeep: [], echoClose: [] };
      await timePosts(agents.http.url, endpointHeaders, ping, 20);
      await timePosts(echoUrl, json, ping, 20);
      for (let r = 0; r < rounds; r++) {
        s.endpoint.push(...await timePosts(agents.http.url, endpointHeaders, ping, per));
        s.echoKeep.push(...await timePosts(echoUrl, json, ping, per));
        s.echoClose.push(...await timePosts(echoUrl, { ...json, Connection: 'close' }, ping, per));
      }
      const e = percentiles(s.endpoint);
      const k = percentiles(s.echoKeep);
      const c = percentiles(s.echoClose);
      return [HEAD,
        row('endpoint: ping answered by the session', e),
        row('bare libsoup echo, connection kept', k),
        row('bare libsoup echo, new connection each', c),
        `endpoint overhead at p50: ${(e.p50 - k.p50).toFixed(2)} ms over the kept echo, ${(e.p50 - c.p50).toFixed(2)} ms over a new connection each`].join('\n');
    } finally {
      echo.stop();
    }
  });
}
