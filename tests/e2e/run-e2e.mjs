#!/usr/bin/env node
// SPDX-License-Identifier: GPL-3.0-or-later
//
// The e2e test (suite "e2e"): Debian's Chromium with the provider (its e2e
// build, which adds the test site packs of tests/fixtures/sitepacks), the
// test caller and a stub provider loaded, the real native host, and the app
// started by D-Bus activation on a private bus. It walks the whole flow a
// user goes through, then the site packs against local test sites
// (sitepacks.mjs), then a second profile without "Allow User Scripts", and
// prints TAP. With --bench it measures tools/call round trips instead (see
// extension/README.md).
//
// Environment (meson sets it): LUMO_ACCESS_HOST, LUMO_ACCESS_CTL,
// LUMO_ACCESS_APP; optional CHROMIUM (default /usr/lib/chromium/chromium).
// Needs a display for the app (tools/check.sh runs under xvfb-run).
//
// Nothing is left behind: the browser's process group, the app and the
// dbus-daemon are killed and the temporary directory removed, also on
// failure and on SIGTERM (meson's timeout).

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Browser } from './lib/cdp.mjs';
import { check, cleanups, need, note, out, poll, runTap, step } from './lib/tap.mjs';
import { TestBus } from './lib/bus.mjs';
import { ctlRunner, filesUnder, makeProfile as makeProfileFor } from './lib/world.mjs';
import { siteBrowserArgs, startSiteServer } from './lib/sites.mjs';
import { callerApi, noUserScriptsSteps, siteSteps } from './sitepacks.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..', '..');
const PROVIDER = 'hnoefmihgppanoiihkcpnjdpijlimfgh';
const CALLER = 'jedonckdloihdbdhofoldalhdemkmefm';
const STUB = 'cbdpcophfnaodapandgdgclckcbidhfe';
const MISSING = 'aaaabbbbccccddddeeeeffffgggghhhh';
const CANARY = 'canary-5b1f0c7e-the-source-of-this-script-must-never-be-stored';
const bench = process.argv.includes('--bench');

// ---- pieces ----------------------------------------------------------------

// ---- main ------------------------------------------------------------------

async function main () {
  const chromium = process.env.CHROMIUM ?? '/usr/lib/chromium/chromium';
  if (!process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
    out('1..0 # SKIP no display for the app: run under xvfb-run (tools/check.sh does)');
    process.exit(77);
  }
  let host, ctl, app;
  await step('the pieces are there: helper, CLI, app, Chromium, node modules', async () => {
    host = need('LUMO_ACCESS_HOST');
    ctl = need('LUMO_ACCESS_CTL');
    app = need('LUMO_ACCESS_APP');
    check(existsSync(chromium), `no Chromium at ${chromium}: apt-get install chromium (tools/setup.sh does)`);
    check(existsSync(join(repo, 'extension/node_modules/esbuild')), 'extension/node_modules is missing: run npm ci in extension/ (tools/setup.sh does)');
    execFileSync(process.execPath, [join(repo, 'extension/build.mjs')], { stdio: 'inherit' });
    return `provider ${PROVIDER}, caller ${CALLER}, stub ${STUB}`;
  });

  const root = mkdtempSync(join(tmpdir(), 'lumo-e2e-'));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const bus = await TestBus.start(root, app);
  cleanups.push(() => bus.stop());
  const dataDir = join(bus.dirs.data, 'lumo-access');

  const { ctlRun, ctlJson } = ctlRunner(ctl, bus);

  const makeProfile = (dir, userScripts) => makeProfileFor(dir, { host, provider: PROVIDER, userScripts });

  // The test sites of the site packs: every *.test host, on 127.0.0.1.
  const sites = await startSiteServer(join(repo, 'tests/fixtures/sitepacks/pages/index.html'));
  cleanups.push(() => sites.close());
  const extensions = [join(here, 'provider/dist'), join(here, 'caller/dist'), join(here, 'stub/dist')];

  const browser = Browser.launch({
    executable: chromium, userDataDir: makeProfile(join(root, 'profile'), true), env: bus.env,
    extensions, extraArgs: siteBrowserArgs(sites.port),
  });
  cleanups.push(() => browser.close());

  let ps; // provider service worker session
  const workerOf = async (b) => {
    const t = await b.waitForTarget((x) => x.type === 'service_worker' && x.url === `chrome-extension://${PROVIDER}/background.js`, 'provider service worker');
    const s = await b.attach(t.targetId);
    await b.waitFor(s, 'globalThis.lumoProvider?.ready === true', 'the provider\'s top-level code');
    return s;
  };
  const providerWorker = () => workerOf(browser);
  const bridgeState = async () => browser.evaluate(ps,
    '({ state: lumoProvider.provider.bridge.state, reason: lumoProvider.provider.bridge.reason, policy: lumoProvider.provider.bridge.policy })');

  await step('the provider\'s worker runs and its bridge reaches the app by D-Bus activation', async () => {
    ps = await providerWorker();
    const st = await poll(bridgeState, (b) => b.state === 'ready', 'the bridge to say hello to the app', 45000, 250);
    const us = await browser.evaluate(ps, 'typeof chrome.userScripts');
    return `policy ${JSON.stringify(st.policy)}; app pid ${await bus.appPid()}; chrome.userScripts: ${us}`;
  });

  const { targetId } = await browser.send('Target.createTarget', { url: `chrome-extension://${CALLER}/caller.html` });
  const cs = await browser.attach(targetId);
  await browser.waitFor(cs, 'globalThis.lumoTest?.ready === true', 'the caller page');
  const callerEval = (expr) => browser.evaluate(cs, expr, 180000);
  const probe = (id) => callerEval(`lumoTest.probe(${JSON.stringify(id)})`);
  const call = (name, args = {}) => callerEval(`lumoTest.call(${JSON.stringify(name)}, ${JSON.stringify(args)})`);
  const session = () => callerEval(`lumoTest.session(${JSON.stringify(PROVIDER)})`);
  const refresh = () => callerEval(`lumoTest.refresh(${JSON.stringify(PROVIDER)})`);
  const expectRow = (id, row, timeoutMs = 10000) => poll(() => probe(id), (p) => p.row === row, `row ${row} for ${id}`, timeoutMs);

  if (bench) {
    await runBench({ probe, expectRow, ctlRun, refresh, call, callerEval, browser, ps: () => ps });
    return;
  }

  await step('row "rejected": probing an extension that is not installed', async () => {
    const p = await probe(MISSING);
    check(p.row === 'rejected' && p.outcome.kind === 'rejected', JSON.stringify(p));
    check(p.message === 'The extension is not installed, or has no agent endpoint.', p.message);
    return `Chrome said: ${p.outcome.error}`;
  });

  const ss = await browser.attach((await browser.waitForTarget((x) => x.type === 'service_worker' && x.url.startsWith(`chrome-extension://${STUB}/`), 'stub worker')).targetId);
  await browser.waitFor(ss, 'globalThis.lumoStub?.ready === true', 'the stub provider');
  for (const [mode, row] of [['silent', 'timeout'], ['protocol', 'protocol_error'], ['incomplete', 'incomplete'], ['not_ready', 'not_ready']]) {
    await step(`row "${row}": a provider that answers "${mode}"`, async () => {
      await browser.evaluate(ss, `lumoStub.setMode(${JSON.stringify(mode)})`);
      const p = await probe(STUB);
      check(p.row === row, JSON.stringify(p));
      return p.message;
    });
  }

  await step('row "pending_approval": an unknown caller probes, and the app lists it as pending', async () => {
    const p = await expectRow(PROVIDER, 'pending_approval');
    check(p.outcome.answer.ok === true && p.outcome.answer.status.pendingApproval === true, JSON.stringify(p));
    const callers = await ctlJson('callers', '--provider', PROVIDER);
    const me = callers.find((c) => c.id === CALLER);
    check(me && /pending/.test(JSON.stringify(me)), `the app does not list ${CALLER} as pending: ${JSON.stringify(callers)}`);
    return `the app lists: ${JSON.stringify(me)}`;
  });

  await step('row "connected": approved with lumo-access-ctl, the next probe is authorized with no restart', async () => {
    await ctlRun('allow', CALLER, '--provider', PROVIDER);
    await ctlRun('set', 'review', 'off', '--provider', PROVIDER);
    const p = await expectRow(PROVIDER, 'connected');
    check(p.outcome.answer.status.authorized === true, JSON.stringify(p));
  });

  await step('L1: initialize and tools/list give the seven userscript tools and the always-enabled site tools, namespaced', async () => {
    const s = await refresh();
    check(s.state === 'connected' && s.tools?.length === 9, JSON.stringify(s));
    check(s.message === 'Connected · 9 tools', s.message);
    const names = await callerEval('lumoTest.tools()');
    check(names.includes('userscripts.create_script') && names.includes('userscripts.list_scripts'), JSON.stringify(names));
    const del = s.tools.find((t) => t.name === 'delete_script');
    check(del.annotations?.destructiveHint === true, JSON.stringify(del));
    return `instructions: ${s.instructions?.split('\n')[0]?.slice(0, 100)}…`;
  });

  let uuid;
  const scriptArgs = { name: 'E2E canary', source: `console.log(${JSON.stringify(CANARY)});\n`, matches: ['https://example.com/*'] };
  await step('tools/call: a read, then a write', async () => {
    const r = await call('userscripts.list_scripts');
    check(r.ok && !r.isError, JSON.stringify(r));
    const w = await call('userscripts.create_script', scriptArgs);
    check(w.ok && !w.isError, JSON.stringify(w));
    uuid = JSON.parse(w.text).uuid;
    check(/^[0-9a-f-]{36}$/.test(uuid), w.text);
    return `created ${uuid}`;
  });

  await step('the write is in the audit store with its target and params hash; the source is nowhere in the database', async () => {
    const rows = await poll(() => ctlJson('audit', 'search', 'tool:create_script'), (r) => Array.isArray(r) && r.length > 0, 'the audit row');
    const row = rows[0];
    check(row.caller === CALLER && row.provider === PROVIDER && row.write === true, JSON.stringify(row));
    check(row.target === uuid, `target ${row.target} is not ${uuid}`);
    check(typeof row.paramsHmac === 'string' && row.paramsHmac.length >= 64, `no params hash: ${JSON.stringify(row)}`);
    const found = await ctlJson('audit', 'check-params', JSON.stringify(scriptArgs));
    check(JSON.stringify(found).includes(uuid), `audit check-params does not find the write: ${JSON.stringify(found)}`);
    const files = filesUnder(dataDir);
    check(files.length > 0, `no files under ${dataDir}`);
    for (const f of files)
      check(!readFileSync(f).includes(CANARY), `the script source is in ${f}`);
    return `audit row ${row.id}: decision ${row.decision}, result ${row.result}; scanned ${files.map((f) => `${f.slice(dataDir.length + 1)} (${statSync(f).size} B)`).join(', ')}`;
  });

  await step('the provider\'s popup shows the connection and the new script', async () => {
    const { targetId: pt } = await browser.send('Target.createTarget', { url: `chrome-extension://${PROVIDER}/popup.html` });
    const pop = await browser.attach(pt);
    const text = await browser.waitFor(pop,
      `(() => { const t = document.body.innerText; return /Connected to Lumo Access/.test(t) && /E2E canary/.test(t) ? t : ''; })()`,
      'the popup to render');
    if (process.env.LUMO_E2E_SCREENSHOT) {
      await browser.send('Emulation.setDeviceMetricsOverride', { width: 360, height: 300, deviceScaleFactor: 1, mobile: false }, pop);
      const shot = await browser.send('Page.captureScreenshot', { format: 'png' }, pop);
      writeFileSync(process.env.LUMO_E2E_SCREENSHOT, Buffer.from(shot.data, 'base64'));
    }
    await browser.send('Target.closeTarget', { targetId: pt });
    return text.split('\n').filter(Boolean).slice(0, 3).join(' | ');
  });

  await step('writes off: the next write is refused with a readable reason, reads still work', async () => {
    await ctlRun('set', 'writes', 'off', '--provider', PROVIDER);
    const w = await poll(() => call('userscripts.set_script_enabled', { uuid, enabled: false }), (r) => r.isError, 'a refused write');
    check(/writes are turned off/i.test(w.text), w.text);
    const r = await call('userscripts.get_script', { uuid });
    check(!r.isError && JSON.parse(r.text).enabled === true, `the refused write ran, or the read failed: ${r.text}`);
    await ctlRun('set', 'writes', 'on', '--provider', PROVIDER);
    return `the model reads: "${w.text}"`;
  });

  await step('row "disabled": agent access off in the app, then on again', async () => {
    await ctlRun('set', 'enabled', 'off', '--provider', PROVIDER);
    const p = await expectRow(PROVIDER, 'disabled');
    await ctlRun('set', 'enabled', 'on', '--provider', PROVIDER);
    await expectRow(PROVIDER, 'connected');
    return p.message;
  });

  await step('revocation closes the open port at once; row "not_authorized"', async () => {
    const r = await call('userscripts.list_scripts');
    check(r.ok && !r.isError && (await session()).portOpen, `no open port: ${JSON.stringify(r)}`);
    await ctlRun('deny', CALLER, '--provider', PROVIDER);
    const s = await poll(session, (x) => !x.portOpen, 'the port to close', 10000, 50);
    const p = await expectRow(PROVIDER, 'not_authorized');
    const refused = await call('userscripts.list_scripts');
    check(!refused.ok && refused.row === 'not_authorized', JSON.stringify(refused));
    await ctlRun('allow', CALLER, '--provider', PROVIDER);
    await expectRow(PROVIDER, 'connected');
    return `${s.message} → ${p.message}`;
  });

  await step('the provider\'s service worker is stopped; the next call reconnects and succeeds', async () => {
    const r = await call('userscripts.list_scripts');
    check(r.ok && !r.isError, JSON.stringify(r));
    const before = await session();
    await browser.send('ServiceWorker.enable', {}, cs);
    await browser.send('ServiceWorker.stopAllWorkers', {}, cs);
    await poll(session, (x) => !x.portOpen, 'the port to close with the worker', 10000, 50);
    const again = await call('userscripts.get_script', { uuid });
    check(again.ok && !again.isError && JSON.parse(again.text).uuid === uuid, JSON.stringify(again));
    const after = await session();
    check(after.initializeCount === before.initializeCount + 1, `initialize ran ${after.initializeCount - before.initializeCount} more times`);
    ps = await providerWorker();
    return `initialize count ${before.initializeCount} → ${after.initializeCount}`;
  });

  await step('the app is killed: probes say ready:false with a reason, and calls are refused', async () => {
    bus.setActivatable(false);
    await bus.reload();
    const pid = await bus.killApp();
    check(pid > 0, 'the app was not running');
    const p = await poll(() => probe(PROVIDER), (x) => x.outcome.answer?.status?.ready === false, 'a probe with ready:false');
    const st = p.outcome.answer.status;
    check(st.authorized === false, 'authorized must never be true while the app cannot say so');
    check(/Lumo Access/.test(st.reason ?? ''), `no reason a person can act on: ${JSON.stringify(st)}`);
    const c = await call('userscripts.list_scripts');
    check(c.isError || !c.ok, `a call ran without the app: ${JSON.stringify(c)}`);
    return `reason: ${st.reason} (row ${p.row}); call: ${c.text ?? c.error}`;
  });

  await step('the app is back: the bridge reconnects by itself and probes and calls recover', async () => {
    bus.setActivatable(true);
    await bus.reload();
    await poll(bridgeState, (b) => b.state === 'ready', 'the bridge to reconnect', 45000, 250);
    await expectRow(PROVIDER, 'connected');
    const r = await call('userscripts.get_script', { uuid });
    check(r.ok && !r.isError, JSON.stringify(r));
    return `app pid ${await bus.appPid()}`;
  });

  await siteSteps({
    step, check, poll, browser, repo, dataDir, filesUnder, ctlJson, ctlRun, siteRequests: sites.requests, provider: PROVIDER,
    worker: (expr) => browser.evaluate(ps, expr),
    caller: callerApi(browser, cs),
  });

  // The same extensions in a profile where user scripts are not allowed.
  await browser.close();
  const second = Browser.launch({
    executable: chromium, userDataDir: makeProfile(join(root, 'profile-no-userscripts'), false), env: bus.env,
    extensions, extraArgs: siteBrowserArgs(sites.port),
  });
  cleanups.push(() => second.close());
  const { targetId: cpage } = await second.send('Target.createTarget', { url: `chrome-extension://${CALLER}/caller.html` });
  const cs2 = await second.attach(cpage);
  await second.waitFor(cs2, 'globalThis.lumoTest?.ready === true', 'the caller page in the second profile');
  let ps2 = await workerOf(second);
  await noUserScriptsSteps({
    step, check, poll, browser: second, repo, provider: PROVIDER, caller: callerApi(second, cs2),
    worker: (expr) => second.evaluate(ps2, expr),
    // Stops the worker; @wake (a call) starts it again.
    restartWorker: async (wake) => {
      await second.send('ServiceWorker.enable', {}, cs2);
      await second.send('ServiceWorker.stopAllWorkers', {}, cs2);
      await wake();
      ps2 = await workerOf(second);
    },
  });
}

async function runBench ({ expectRow, ctlRun, refresh, call, callerEval, browser, ps }) {
  const reads = Number(process.env.LUMO_BENCH_READS ?? 200);
  // 30 writes per caller per 60 s: stay inside one window.
  const writes = Math.min(Number(process.env.LUMO_BENCH_WRITES ?? 29), 29);
  let created;
  await step('bench: approve the caller, review off', async () => {
    await expectRow(PROVIDER, 'pending_approval');
    await ctlRun('allow', CALLER, '--provider', PROVIDER);
    await ctlRun('set', 'review', 'off', '--provider', PROVIDER);
    await expectRow(PROVIDER, 'connected');
    await refresh();
    const w = await call('userscripts.create_script', { name: 'bench', source: 'void 0;\n' });
    check(!w.isError, w.text);
    created = JSON.parse(w.text).uuid;
  });
  await step('bench: tools/call round trips and the bare native-messaging round trip', async () => {
    const read = await callerEval(`lumoTest.bench('userscripts.get_script', ${JSON.stringify(Array.from({ length: reads }, () => ({ uuid: created })))})`);
    const write = await callerEval(`lumoTest.bench('userscripts.set_script_enabled', ${JSON.stringify(Array.from({ length: writes }, (_, i) => ({ uuid: created, enabled: i % 2 === 0 })))})`);
    const echo = await browser.evaluate(ps(), `lumoProvider.bench({ iterations: ${reads}, callerId: ${JSON.stringify(CALLER)} })`, 180000);
    const f = (x) => x.toFixed(2).padStart(8);
    const lines = [
      'what                                       n      p50 ms   p99 ms   max ms',
      `tools/call read  (get_script)          ${String(read.n).padStart(5)}  ${f(read.p50)} ${f(read.p99)} ${f(read.max)}`,
      `tools/call write (set_script_enabled)  ${String(write.n).padStart(5)}  ${f(write.p50)} ${f(write.p99)} ${f(write.max)}`,
      `bridge round trip (native echo: probe) ${String(echo.n).padStart(5)}  ${f(echo.p50)} ${f(echo.p99)} ${f(echo.max)}`,
    ];
    check(read.errors === 0 && write.errors === 0, `errors: read ${read.errors}, write ${write.errors}`);
    return lines.join('\n');
  });
  await step('bench: a site tool read (caller → provider → app → the tab\'s content script → caller)', async () => {
    // The first call opens the pack's page (its jump link) and waits for it.
    const first = await call('userscripts.baidu-e2e_get-page-title');
    check(first.ok && !first.isError, JSON.stringify(first));
    const site = await callerEval(`lumoTest.bench('userscripts.baidu-e2e_get-page-title', ${JSON.stringify(Array.from({ length: reads }, () => ({})))})`);
    check(site.errors === 0, `errors: ${site.errors}`);
    const f = (x) => x.toFixed(2).padStart(8);
    return `site tool read (baidu-e2e_get-page-title)  ${String(site.n).padStart(5)}  ${f(site.p50)} ${f(site.p99)} ${f(site.max)}`;
  });
}

await runTap(main);
