#!/usr/bin/env node
// SPDX-License-Identifier: GPL-3.0-or-later
//
// Desktop agents end to end (suite "e2e"): MCP clients nobody here wrote —
// the official MCP SDK's StreamableHTTPClientTransport and
// StdioClientTransport (tests/e2e/package.json pins the SDK the provider
// uses) — against the real app, the real launcher and the real provider in
// Debian's Chromium. Both transports walk the same steps side by side:
// list tools, a read, a write that waits for review and is approved with
// the CLI, writes off, the 31st write in a minute, the browser closed and
// opened again mid-session, removal of the agent. Prints TAP.
//
//   run-agents.mjs                 the steps above
//   run-agents.mjs --conformance   the MCP conformance suite's server
//                                  scenarios (conformance.mjs)
//   run-agents.mjs --bench         tools/call latency over HTTP, stdio and
//                                  a lumo:mcp port (bench-agents.mjs)
//
// Environment (meson sets it): LUMO_ACCESS_APP, LUMO_ACCESS_HOST,
// LUMO_ACCESS_CTL, LUMO_ACCESS_MCP, LUMO_ACCESS_SCHEMA_DIR; optional
// CHROMIUM. Needs a display for the app (xvfb-run) and npm ci in
// tests/e2e (tools/setup.sh does it). lib/agents.mjs says how the run's
// settings are kept.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CALLER, NAMESPACE, PROVIDER, connectAgent, freePort, gsettingsGet, gsettingsSet, launchBrowser,
  loadSdk, openCaller, resultText, startAgentsBus,
} from './lib/agents.mjs';
import { startSiteServer } from './lib/sites.mjs';
import { Bail, check, cleanups, need, note, out, poll, runTap, step } from './lib/tap.mjs';
import { ctlRunner, filesUnder, makeProfile } from './lib/world.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..', '..');
const mode = process.argv.includes('--conformance') ? 'conformance' : process.argv.includes('--bench') ? 'bench' : 'sdk';
const CANARY = 'agent-canary-3f9d2c41-the-source-of-this-script-must-never-be-stored';

// A session of its own (initialize, initialized) with its GET stream
// open; @ended resolves with how the stream ended ('end' or the error).
async function openRawStream (url, token) {
  const version = '2025-06-18';
  const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
  const init = await fetch(url, {
    method: 'POST', headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'e2e-raw', version: '1.0.0' } } }),
  });
  const sid = init.headers.get('mcp-session-id');
  await init.text();
  check(init.status === 200 && sid, `initialize got ${init.status}, session ${sid}`);
  const session = { ...headers, 'Mcp-Session-Id': sid, 'MCP-Protocol-Version': version };
  const ack = await fetch(url, { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
  check(ack.status === 202, `notifications/initialized got ${ack.status}`);
  const get = await fetch(url, { method: 'GET', headers: { ...session, Accept: 'text/event-stream' } });
  check(get.status === 200 && /text\/event-stream/.test(get.headers.get('content-type') ?? ''), `the GET stream got ${get.status}`);
  const reader = get.body.getReader();
  const ended = (async () => {
    try {
      for (;;) {
        if ((await reader.read()).done)
          return 'end';
      }
    } catch (e) {
      return e.message;
    }
  })();
  return { ended };
}

async function main () {
  const chromium = process.env.CHROMIUM ?? '/usr/lib/chromium/chromium';
  if (!process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
    out('1..0 # SKIP no display for the app: run under xvfb-run (tools/check.sh does)');
    process.exit(77);
  }

  let host, ctl, app, launcher, schemaDir, sdk;
  await step('the pieces are there: helper, CLI, app, launcher, schema, Chromium, the MCP SDK', async () => {
    host = need('LUMO_ACCESS_HOST');
    ctl = need('LUMO_ACCESS_CTL');
    app = need('LUMO_ACCESS_APP');
    launcher = need('LUMO_ACCESS_MCP');
    schemaDir = process.env.LUMO_ACCESS_SCHEMA_DIR ?? '';
    check(existsSync(join(schemaDir, 'gschemas.compiled')), `no compiled schema in LUMO_ACCESS_SCHEMA_DIR=${schemaDir}: build the data/ target`);
    check(existsSync(chromium), `no Chromium at ${chromium}: apt-get install chromium (tools/setup.sh does)`);
    check(existsSync(join(repo, 'extension/node_modules/esbuild')), 'extension/node_modules is missing: run npm ci in extension/ (tools/setup.sh does)');
    check(existsSync(join(here, 'node_modules/@modelcontextprotocol/sdk/package.json')),
      'tests/e2e/node_modules is missing: run npm ci in tests/e2e (tools/setup.sh does)');
    execFileSync(process.execPath, [join(repo, 'extension/build.mjs')], { stdio: ['ignore', 'ignore', 'inherit'] });
    sdk = await loadSdk();
    const pinned = JSON.parse(readFileSync(join(repo, 'extension/package.json'), 'utf8')).dependencies['@modelcontextprotocol/sdk'];
    const used = JSON.parse(readFileSync(join(here, 'node_modules/@modelcontextprotocol/sdk/package.json'), 'utf8')).version;
    check(used === pinned, `the clients' SDK is ${used}, the provider pins ${pinned}: keep tests/e2e/package.json in step`);
    return `MCP SDK ${used} (as the provider pins)`;
  });

  const root = mkdtempSync(join(tmpdir(), 'lumo-e2e-agents-'));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const bus = await startAgentsBus(root, app, schemaDir);
  cleanups.push(() => bus.stop());
  const { ctlRun, ctlJson } = ctlRunner(ctl, bus);
  const dataDir = join(bus.dirs.data, 'lumo-access');
  const port = await freePort();

  await step('desktop agents are turned on with gsettings, in this run\'s own keyfile', async () => {
    await gsettingsSet(bus, 'desktop-agents-port', port);
    await gsettingsSet(bus, 'desktop-agents', true);
    const on = await gsettingsGet(bus, 'desktop-agents');
    check(on === 'true', `gsettings get desktop-agents says ${on}`);
    const keyfile = readFileSync(join(bus.dirs.config, 'glib-2.0/settings/keyfile'), 'utf8');
    check(/desktop-agents=true/.test(keyfile), `the keyfile has no desktop-agents=true: ${keyfile}`);
    return `port ${port}`;
  });

  const sites = await startSiteServer(join(repo, 'tests/fixtures/sitepacks/pages/index.html'));
  cleanups.push(() => sites.close());
  const profile = makeProfile(join(root, 'profile'), { host, provider: PROVIDER });
  const extensions = [join(here, 'provider/dist'), join(here, 'caller/dist')];
  const launch = () => launchBrowser({ chromium, profile, bus, extensions, sitesPort: sites.port, poll });
  let browser;
  let ps;
  cleanups.push(() => browser?.close());

  await step('the provider connects to the app (started by D-Bus activation), which listens for agents', async () => {
    ({ browser, ps } = await launch());
    // The endpoint is up when it answers at all: 401 without a token.
    const r = await poll(() => fetch(`http://127.0.0.1:${port}/mcp/${NAMESPACE}`, { method: 'POST' }).then((x) => x.status, () => 0),
      (s) => s !== 0, 'the endpoint to listen', 20000, 100);
    check(r === 401, `a POST with no token got ${r}, not 401`);
    return `app pid ${await bus.appPid()}; no token → ${r}`;
  });

  // The test caller, approved: a lumo:mcp caller to compare with.
  const callerEval = await openCaller(browser);
  await step('the test caller (a lumo:mcp port) is approved and lists the provider\'s tools', async () => {
    await poll(() => callerEval(`lumoTest.probe(${JSON.stringify(PROVIDER)})`), (p) => p.row === 'pending_approval', 'the caller to be pending');
    await ctlRun('allow', CALLER, '--provider', PROVIDER);
    await poll(() => callerEval(`lumoTest.probe(${JSON.stringify(PROVIDER)})`), (p) => p.row === 'connected', 'the caller to be connected');
    const s = await callerEval(`lumoTest.refresh(${JSON.stringify(PROVIDER)})`);
    check(s.state === 'connected' && s.tools?.length > 0, JSON.stringify(s));
    return `${s.tools.length} tools`;
  });
  const callerTools = (await callerEval('lumoTest.tools()')).map((t) => t.replace(`${NAMESPACE}.`, '')).sort();

  if (mode === 'bench') {
    const { benchSteps } = await import('./bench-agents.mjs');
    await benchSteps({
      step, check, ctlJson, callerEval, sdk, launcher, bus, echoPath: need('LUMO_BENCH_SOUP_ECHO'),
      closeBrowser: async () => { await browser.close(); browser = null; },
    });
    return;
  }

  if (mode === 'conformance') {
    const { conformanceSteps } = await import('./conformance.mjs');
    await conformanceSteps({ step, check, note, ctlJson, port, here, root, Bail });
    return;
  }

  // Two agents, one per transport, added as a person does.
  const agents = {};
  await step('two agents are added with lumo-access-ctl agents add; the set-ups name this run\'s port', async () => {
    for (const kind of ['http', 'stdio']) {
      const a = await ctlJson('agents', 'add', `E2E ${kind} agent`);
      check(/^[a-p]{32}$/.test(a.id) && /^lumo_[a-p]{32}_[A-Za-z0-9_-]{43}$/.test(a.token), JSON.stringify({ ...a, token: '…' }));
      const p = a.providers.find((x) => x.id === PROVIDER);
      check(p?.setups?.url === `http://127.0.0.1:${port}/mcp/${NAMESPACE}`, `the set-up URL is ${p?.setups?.url}`);
      check(p.setups.claudeCode.includes(p.setups.url) && p.setups.claudeCode.includes(`Bearer ${a.token}`), p.setups.claudeCode);
      agents[kind] = { id: a.id, token: a.token, url: p.setups.url };
    }
    const list = await ctlJson('agents');
    check(!JSON.stringify(list).includes('lumo_'), 'agents --json shows a token');
    return `http ${agents.http.id}, stdio ${agents.stdio.id}`;
  });

  const both = async (fn) => Promise.all(['http', 'stdio'].map((k) => fn(clients[k], agents[k], k)));
  const clients = {};
  await step('both SDK clients connect: initialize over Streamable HTTP and over the stdio launcher', async () => {
    for (const kind of ['http', 'stdio']) {
      clients[kind] = await connectAgent(sdk, { kind, url: agents[kind].url, token: agents[kind].token, launcher, bus, name: `e2e-${kind}` });
      cleanups.push(() => clients[kind].client.close().catch(() => undefined));
    }
    const info = await both(async (c) => {
      const v = c.client.getServerVersion();
      const caps = c.client.getServerCapabilities();
      check(caps?.tools?.listChanged === true, `${c.kind}: no tools.listChanged capability: ${JSON.stringify(caps)}`);
      return `${c.kind}: ${v?.name} ${v?.version}, protocol ${c.transport.protocolVersion ?? '(stdio)'}`;
    });
    return info.join('; ');
  });

  await step('tools/list: the userscript tools and the site-pack tools, exactly those the lumo:mcp caller sees', async () => {
    const lists = await both(async (c) => (await c.client.listTools()).tools);
    for (const [i, tools] of lists.entries()) {
      const names = tools.map((t) => t.name).sort();
      check(JSON.stringify(names) === JSON.stringify(callerTools), `${['http', 'stdio'][i]}: ${names} ≠ the caller's ${callerTools}`);
      check(names.includes('list_scripts') && names.includes('create_script'), `no userscript tools: ${names}`);
      check(names.some((n) => /-e2e_/.test(n)), `no site-pack tools: ${names}`);
      check(tools.find((t) => t.name === 'delete_script')?.annotations?.destructiveHint === true, 'delete_script lost its annotations');
    }
    return lists[0].map((t) => t.name).join(', ');
  });

  await step('a read: tools/call list_scripts over both transports', async () => {
    const r = await both((c) => c.client.callTool({ name: 'list_scripts', arguments: {} }));
    for (const x of r)
      check(!x.isError && Array.isArray(JSON.parse(resultText(x)).scripts ?? JSON.parse(resultText(x))), resultText(x));
    return resultText(r[0]).slice(0, 120);
  });

  const uuids = {};
  await step('a write waits for review, is shown as the agent\'s in the CLI, and goes through once approved there', async () => {
    await ctlRun('set', 'review', 'on', '--provider', PROVIDER);
    const pending = await both(async (c, a, k) => {
      const call = c.client.callTool({ name: 'create_script', arguments: { name: `E2E ${k}`, source: `console.log(${JSON.stringify(CANARY)});\n`, matches: ['https://example.com/*'] } });
      const review = await poll(() => ctlJson('review', 'list'), (l) => l.some((x) => x.caller === a.id), `the review of ${k}'s write`, 20000);
      const row = review.find((x) => x.caller === a.id);
      check(row.provider === PROVIDER && /create_script/.test(row.tool) && row.callerName === `E2E ${k} agent`, JSON.stringify(row));
      // Still waiting: nothing ran.
      const state = await Promise.race([call.then(() => 'answered'), new Promise((resolve) => setTimeout(resolve, 0, 'waiting'))]);
      check(state === 'waiting', `${k}: the write was answered before review`);
      const ok = await ctlJson('review', 'approve', row.id);
      check(ok.decision === 'approved', JSON.stringify(ok));
      const r = await call;
      check(!r.isError, `${k}: ${resultText(r)}`);
      uuids[k] = JSON.parse(resultText(r)).uuid;
      return `${k}: review ${row.id} → ${uuids[k]}`;
    });
    await ctlRun('set', 'review', 'off', '--provider', PROVIDER);
    return pending.join('; ');
  });

  await step('the writes are audited under each agent\'s ID, of kind agent; the source is nowhere in the data', async () => {
    const lines = [];
    for (const k of ['http', 'stdio']) {
      const rows = await poll(() => ctlJson('audit', 'search', `caller:${agents[k].id}`), (x) => x.length > 0 && x[0].result !== 'pending', `${k}'s audit row`);
      check(rows[0].callerKind === 'agent' && rows[0].target === uuids[k] && rows[0].write === true, JSON.stringify(rows[0]));
      lines.push(`${k}: row ${rows[0].id} ${rows[0].decision}/${rows[0].result}`);
    }
    for (const f of filesUnder(dataDir))
      check(!readFileSync(f).includes(CANARY), `the script source is in ${f}`);
    return lines.join('; ');
  });

  await step('writes off: the next write is refused with a readable reason; reads still work', async () => {
    await ctlRun('set', 'writes', 'off', '--provider', PROVIDER);
    const r = await both(async (c, a, k) => {
      const w = await c.client.callTool({ name: 'set_script_enabled', arguments: { uuid: uuids[k], enabled: false } });
      check(w.isError && /writes are turned off/i.test(resultText(w)), `${k}: ${resultText(w)}`);
      const g = await c.client.callTool({ name: 'get_script', arguments: { uuid: uuids[k] } });
      check(!g.isError && JSON.parse(resultText(g)).enabled === true, `${k}: the refused write ran, or the read failed: ${resultText(g)}`);
      return resultText(w);
    });
    await ctlRun('set', 'writes', 'on', '--provider', PROVIDER);
    return `the model reads: "${r[0]}"`;
  });

  await step('the 31st write in a minute is refused with the time to wait; 30 went through', async () => {
    const r = await both(async (c, a, k) => {
      // The approved create_script is the first of the window.
      let allowed = 1;
      for (let i = 0; i < 40; i++) {
        const w = await c.client.callTool({ name: 'set_script_enabled', arguments: { uuid: uuids[k], enabled: i % 2 === 0 } });
        if (w.isError) {
          const text = resultText(w);
          check(allowed === 30, `${k}: refused after ${allowed} writes, not 30: ${text}`);
          check(/at most 30 in 60 seconds/.test(text) && /Try again in \d+ seconds?\./.test(text), `${k}: ${text}`);
          return `${k}: "${text}"`;
        }
        allowed++;
      }
      throw new Error(`${k}: ${allowed} writes went through`);
    });
    return r.join('; ');
  });

  await step('the browser is closed mid-session: the sessions stay, tools/list is empty and a call says why', async () => {
    await browser.close();
    browser = null;
    const r = await both(async (c, a, k) => {
      // The app hears the provider's helper go a moment after the browser.
      await poll(() => c.client.listTools(), (t) => t.tools.length === 0, `${k}: tools/list to be empty`, 20000, 100);
      const x = await c.client.callTool({ name: 'list_scripts', arguments: {} });
      check(x.isError && /not connected to Lumo Access/.test(resultText(x)), `${k}: ${resultText(x)}`);
      return resultText(x);
    });
    return `the model reads: "${r[0]}"`;
  });

  await step('the browser is opened again: each agent gets notifications/tools/list_changed, then calls work', async () => {
    const changed = await both(async (c) => ({ before: c.state.listChanged, next: c.state.nextListChanged() }));
    ({ browser, ps } = await launch());
    await Promise.all(changed.map((x, i) => Promise.race([x.next, new Promise((resolve, reject) => setTimeout(() => reject(new Error(`${['http', 'stdio'][i]}: no list_changed in 30 s`)), 30000))])));
    const r = await both(async (c, a, k) => {
      const t = await c.client.listTools();
      check(JSON.stringify(t.tools.map((x) => x.name).sort()) === JSON.stringify(callerTools), `${k}: ${t.tools.map((x) => x.name)}`);
      const g = await c.client.callTool({ name: 'get_script', arguments: { uuid: uuids[k] } });
      check(!g.isError && JSON.parse(resultText(g)).uuid === uuids[k], `${k}: ${resultText(g)}`);
      return `${k}: ${t.tools.length} tools`;
    });
    return r.join('; ');
  });

  await step('no token is in any file of the data directory', async () => {
    const files = filesUnder(dataDir);
    for (const f of files)
      for (const k of ['http', 'stdio'])
        check(!readFileSync(f).includes(agents[k].token), `${k}'s token is in ${f}`);
    return `${files.length} files`;
  });

  await step('agents remove ends both sessions at once: an open stream ends, the launcher exits, the HTTP session gets 401', async () => {
    const sessionId = clients.http.transport.sessionId;
    // A second session of the HTTP agent holding its GET stream open, as
    // an agent does between calls: it must end with the removal, not at
    // the agent's next request.
    const stream = await openRawStream(agents.http.url, agents.http.token);
    for (const k of ['http', 'stdio'])
      await ctlRun('agents', 'remove', agents[k].id);
    const how = await Promise.race([stream.ended,
      new Promise((resolve) => setTimeout(resolve, 10000, null))]);
    check(how !== null, 'the open GET stream of the removed agent was still open 10 s after agents remove');
    await poll(() => clients.stdio.state.closed, (x) => x, 'the stdio client to see its server exit', 10000, 50);
    const raw = await fetch(agents.http.url, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${agents.http.token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream',
        'Mcp-Session-Id': sessionId, 'MCP-Protocol-Version': clients.http.transport.protocolVersion,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'tools/list' }),
    });
    check(raw.status === 401 && raw.headers.get('www-authenticate') === 'Bearer', `the old session got ${raw.status}`);
    let err = null;
    await clients.http.client.listTools().catch((e) => { err = e; });
    check(err && /401/.test(String(err.code ?? err.message)), `the SDK client was not refused with 401: ${err}`);
    return `open stream: ${how}; raw: ${raw.status} ${(await raw.json()).error?.message}; SDK: ${err.message}`;
  });
}

await runTap(main);
