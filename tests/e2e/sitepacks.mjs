// SPDX-License-Identifier: GPL-3.0-or-later
//
// The site-pack steps of the e2e (run-e2e.mjs calls them at the end of the
// flow): the bundled packs of tests/fixtures/sitepacks/bundled and the
// installed one of tests/fixtures/sitepacks/installed, against the local
// test sites (lib/sites.mjs), through the real caller, provider and app.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const CANARY = 'canary-0c9a4e-site-pack-source-must-never-be-stored';

// The caller page's API (tests/e2e/caller/caller.ts) in one browser.
export function callerApi (browser, cs) {
  const ev = (expr) => browser.evaluate(cs, expr, 180000);
  return {
    eval: ev,
    tools: () => ev('lumoTest.tools()'),
    call: (name, args = {}) => ev(`lumoTest.call(${JSON.stringify(name)}, ${JSON.stringify(args)})`),
    refresh: (id) => ev(`lumoTest.refresh(${JSON.stringify(id)})`),
    probe: (id) => ev(`lumoTest.probe(${JSON.stringify(id)})`),
  };
}

// A tab whose console is recorded from before its first script runs.
export async function openPage (browser, url) {
  const { targetId } = await browser.send('Target.createTarget', { url: 'about:blank' });
  const session = await browser.attach(targetId);
  const logs = [];
  const off = browser.on((m) => {
    if (m.sessionId === session && m.method === 'Runtime.consoleAPICalled')
      logs.push(m.params.args.map((a) => a.value ?? a.description ?? '').join(' '));
  });
  await browser.send('Runtime.enable', {}, session);
  await browser.send('Page.enable', {}, session);
  await browser.send('Page.navigate', { url }, session);
  return {
    targetId, session, logs,
    eval: (expr) => browser.evaluate(session, expr),
    close: async () => {
      off();
      await browser.send('Target.closeTarget', { targetId }).catch(() => undefined);
    },
  };
}

function installedFixture (repo) {
  const dir = join(repo, 'tests/fixtures/sitepacks/installed/opentiny-e2e.test');
  return {
    meta: JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8')),
    source: `// ${CANARY}\n${readFileSync(join(dir, 'index.js'), 'utf8')}`,
  };
}

const json = (r) => {
  try {
    return JSON.parse(r.text);
  } catch {
    throw new Error(`not JSON: ${JSON.stringify(r)}`);
  }
};

export async function siteSteps ({ step, check, poll, browser, worker, caller, ctlJson, ctlRun, siteRequests, provider, dataDir, filesUnder, repo }) {
  const { tools, call } = caller;
  const packs = await worker('lumoProvider.sites.packs().map((p) => ({ id: p.id, name: p.meta.name, origin: p.origin }))');
  const idOf = (name) => packs.find((p) => p.name === name)?.id;
  const auditRow = async (tool) => (await poll(() => ctlJson('audit', 'search', `tool:${tool}`),
    (r) => Array.isArray(r) && r.length > 0, `the audit row of ${tool}`))[0];
  const pages = [];

  await step('site packs: the bundled packs are there; the always-enabled www.baidu-e2e.test lists its tools with no tab open', async () => {
    check(idOf('www.baidu-e2e.test') !== undefined && idOf('example-e2e.test') !== undefined, JSON.stringify(packs));
    check(JSON.stringify(await worker('chrome.notifications.getAll()')) === '{}', 'user scripts are allowed here: no notification');
    const t = await tools();
    check(t.includes('userscripts.baidu-e2e_get-page-title') && t.includes('userscripts.baidu-e2e_fill-search-box'), JSON.stringify(t));
    check(!t.some((n) => n.startsWith('userscripts.example-e2e_')), `example-e2e.test is listed with no tab open: ${JSON.stringify(t)}`);
    return `bundled: ${packs.map((p) => `${p.name} ${p.id}`).join(', ')}`;
  });

  let baiduTab;
  await step('jump link: baidu-e2e_get-page-title with no tab open opens its toolsJumpLinks page, waits for the pack there, then answers', async () => {
    const r = await call('userscripts.baidu-e2e_get-page-title');
    check(r.ok && !r.isError && r.text === 'Lumo test page · www.baidu-e2e.test', JSON.stringify(r));
    baiduTab = (await browser.targets()).find((t) => t.type === 'page' && t.url === 'http://www.baidu-e2e.test/s?wd=get-page-title');
    check(baiduTab !== undefined, `no tab at the jump link: ${JSON.stringify((await browser.targets()).map((t) => t.url))}`);
    return `opened ${baiduTab.url}; the title: ${r.text}`;
  });

  await step('bundled contentScriptMcpServer: fill-search-box types into the page, which sees the input; the write is audited with the pack\'s UUID as target', async () => {
    const r = await call('userscripts.baidu-e2e_fill-search-box', { text: 'lumo e2e' });
    check(r.ok && !r.isError && r.text === 'Filled in: lumo e2e', JSON.stringify(r));
    const s = await browser.attach(baiduTab.targetId);
    const echo = await browser.evaluate(s, 'document.getElementById("echo").textContent');
    check(echo === 'typed: lumo e2e', `the page saw: ${echo}`);
    const row = await auditRow('baidu-e2e_fill-search-box');
    check(row.target === idOf('www.baidu-e2e.test') && row.write === true && row.caller && typeof row.paramsHmac === 'string', JSON.stringify(row));
    return `audit row ${row.id}: target ${row.target}, decision ${row.decision}, result ${row.result}`;
  });

  await step('the page says what the loader found: the pack and its tools on www.baidu-e2e.test, and no tools on baidu-e2e.test (www.baidu-e2e.test does not serve it)', async () => {
    const found = await openPage(browser, 'http://www.baidu-e2e.test/');
    const miss = await openPage(browser, 'http://baidu-e2e.test/');
    pages.push(found, miss);
    const l1 = await poll(() => found.logs, (l) => l.some((x) => /www\.baidu-e2e\.test: registered 2 tools: baidu-e2e_get-page-title, baidu-e2e_fill-search-box\./.test(x)), 'the pack\'s log lines');
    check(l1.some((x) => /Found the site pack www\.baidu-e2e\.test 1\.0\.0 \(bundled, contentScriptMcpServer\)/.test(x)), JSON.stringify(l1));
    const l2 = await poll(() => miss.logs, (l) => l.some((x) => /No site pack serves baidu-e2e\.test: no MCP tools are configured for this domain\./.test(x)), 'the "no tools" line');
    await found.close();
    await miss.close();
    return [...l1.filter((x) => /Lumo/.test(x)), ...l2.filter((x) => /Lumo/.test(x))].join('\n');
  });

  await step('a subdomain (m.example-e2e.test) runs the example-e2e.test pack: its cookie tool is announced by tools/list_changed, reads the cookies but not the HttpOnly one, and goes with the tab', async () => {
    check(!(await tools()).includes('userscripts.example-e2e_get-user-profile'), 'listed before any tab');
    const p = await openPage(browser, 'http://m.example-e2e.test/account');
    pages.push(p);
    await poll(tools, (t) => t.includes('userscripts.example-e2e_get-user-profile'), 'the tool to be announced to the caller', 20000);
    const r = await call('userscripts.example-e2e_get-user-profile');
    const profile = json(r);
    check(profile.userId === '42' && profile.session === 's-e2e' && profile.host === 'm.example-e2e.test', r.text);
    check(!profile.cookieNames.includes('secret'), `an HttpOnly cookie reached the pack: ${r.text}`);
    await p.close();
    await poll(tools, (t) => !t.includes('userscripts.example-e2e_get-user-profile'), 'the tool to go with the tab', 20000);
    return `cookies the pack saw: ${profile.cookieNames.join(', ')}`;
  });

  const { meta, source } = installedFixture(repo);
  await step('an installed pack with a bad meta is refused before authorize, each field named; a syntax error comes back from the sandbox run after it, with its place; nothing is stored', async () => {
    const r = await call('userscripts.create_script', { meta: { ...meta, type: 'pageServer', version: 'v2', isAlwaysEnable: true }, source });
    check(r.ok && r.isError, JSON.stringify(r));
    check(/meta\.type: must be "pageMcpServer"/.test(r.text) && /meta\.version: must be a semantic version/.test(r.text) &&
      /meta\.isAlwaysEnable: unknown field; did you mean "isAlwaysEnabled"\?/.test(r.text), r.text);
    // The dry run in the sandbox (after the allowed write) gives a syntax
    // error with its place.
    const broken = source.replace('document.body.style.backgroundColor = color;', 'document.body.style.backgroundColor = = color;');
    const syntax = await call('userscripts.create_script', { meta, source: broken });
    check(syntax.ok && syntax.isError && /source: the code does not parse: line \d+, column \d+: SyntaxError/.test(syntax.text), JSON.stringify(syntax));
    const list = json(await call('userscripts.list_scripts'));
    check(!list.scripts.some((s) => s.sitePack !== undefined), JSON.stringify(list));
    return `${r.text}\n${syntax.text}`;
  });

  let tinyId;
  await step('an installed pageMcpServer script: create_script with meta is checked by a sandboxed dry run, and list_site_packs shows it ready with the recommended servers', async () => {
    const r = await call('userscripts.create_script', { meta, source });
    check(r.ok && !r.isError, JSON.stringify(r));
    const created = json(r);
    tinyId = created.uuid;
    check(JSON.stringify(created.sitePack.tools) === JSON.stringify(['generate-color', 'get-elements', 'get-app-state', 'get-element-text']), r.text);
    const report = await poll(async () => json(await call('userscripts.list_site_packs')),
      (x) => x.packs.some((p) => p.name === 'opentiny-e2e.test'), 'the pack in the report');
    const p = report.packs.find((x) => x.name === 'opentiny-e2e.test');
    check(p.ready === true && p.origin === 'installed' && p.uuid === tinyId && p.type === 'pageMcpServer', JSON.stringify(p));
    check(JSON.stringify(report.customMarketMcpServers.map((m) => m.id)) === '["ppt-mcp","slides-mcp"]', JSON.stringify(report.customMarketMcpServers));
    const sent = await worker('lumoProvider.provider.catalogueExtra');
    check(JSON.stringify(sent.customMarketMcpServers.map((m) => m.id)) === '["ppt-mcp","slides-mcp"]', `the bridge does not carry them: ${JSON.stringify(sent)}`);
    return `installed ${tinyId}; recommended: ${report.customMarketMcpServers.map((m) => `${m.id} (${m.url})`).join(', ')}`;
  });

  let tiny;
  await step('it runs in the main world of docs.opentiny-e2e.test (a subdomain): its tools register and answer through L1, page globals included; the write is audited with its UUID', async () => {
    tiny = await openPage(browser, 'http://docs.opentiny-e2e.test/');
    pages.push(tiny);
    await poll(tools, (t) => t.includes('userscripts.opentiny-e2e_get-app-state'), 'the page pack\'s tools', 30000);
    const state = json(await call('userscripts.opentiny-e2e_get-app-state'));
    check(state.user === 'ada' && state.host === 'docs.opentiny-e2e.test', JSON.stringify(state));
    const els = json(await call('userscripts.opentiny-e2e_get-elements', { selector: '.item' }));
    check(els.length === 3 && els[2].id === 'third', JSON.stringify(els));
    const w = await call('userscripts.opentiny-e2e_generate-color', { color: 'rgb(1, 2, 3)' });
    check(w.ok && !w.isError, JSON.stringify(w));
    const bg = await tiny.eval('getComputedStyle(document.body).backgroundColor');
    check(bg === 'rgb(1, 2, 3)', `background: ${bg}`);
    const row = await auditRow('opentiny-e2e_generate-color');
    check(row.target === tinyId && row.write === true, JSON.stringify(row));
    // Console events come over their own CDP session: wait for the line.
    await poll(() => tiny.logs, (l) => l.some((x) => /opentiny-e2e\.test: registered 4 tools/.test(x)), 'the relay\'s log line');
    return `app state ${JSON.stringify(state)}; audit row ${row.id} → ${row.target}`;
  });

  await step('a handler that throws comes back as an isError result with the error, never a lost call; the page console has it too', async () => {
    const r = await call('userscripts.opentiny-e2e_get-element-text', { selector: '#nothing-here' });
    check(r.ok && r.isError && /The tool "get-element-text" failed: TypeError: Cannot read properties of null/.test(r.text), JSON.stringify(r));
    await poll(() => tiny.logs, (l) => l.some((x) => /opentiny-e2e\.test: tool "get-element-text" threw/.test(x)), 'the error in the page console');
    const bad = await call('userscripts.opentiny-e2e_generate-color', { color: 5 });
    check(bad.ok && bad.isError && /Input validation error/.test(bad.text), JSON.stringify(bad));
    return r.text;
  });

  await step('a page narrows, never widens: the page re-registers the pack\'s write as read-only and adds a tool; the write stays a write (audited), the new tool is refused', async () => {
    const before = (await ctlJson('audit', 'search', 'tool:opentiny-e2e_generate-color')).length;
    // The page's own script, in the main world the pack shares with it,
    // says hello to the relay as if it were the pack.
    const forged = { dir: 'main', kind: 'hello', errors: [], tools: [
      { name: 'generate-color', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
      { name: 'page-added', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } }] };
    await tiny.eval(`document.dispatchEvent(new CustomEvent(${JSON.stringify(`lumo-sitepack:${tinyId}`)}, { detail: ${JSON.stringify(JSON.stringify(forged))} }))`);
    // The page logs the refusal, then the warning: two console events,
    // each its own CDP message, so the second may come after the first
    // is seen. Wait for both.
    const refusal = /tool "page-added" refused: the site pack opentiny-e2e\.test was not installed with this tool/;
    const warning = /tool "generate-color": the page registered it as read-only, but the pack was installed with it as a write/;
    const logs = await poll(() => tiny.logs, (l) => l.some((x) => refusal.test(x)) && l.some((x) => warning.test(x)),
      'the refusal and the warning in the page console');
    // A page may hide a tool: get-app-state goes, page-added never comes.
    const t = await poll(tools, (x) => !x.includes('userscripts.opentiny-e2e_get-app-state'), 'the catalogue to follow the page', 20000);
    check(t.includes('userscripts.opentiny-e2e_generate-color') && !t.includes('userscripts.opentiny-e2e_page-added'), JSON.stringify(t));
    const w = await call('userscripts.opentiny-e2e_generate-color', { color: 'rgb(4, 5, 6)' });
    check(w.ok && !w.isError, JSON.stringify(w));
    const rows = await poll(() => ctlJson('audit', 'search', 'tool:opentiny-e2e_generate-color'), (r) => r.length === before + 1, 'a new audit row: the call was a write');
    check(rows.every((r) => r.write === true), JSON.stringify(rows));
    const added = await call('userscripts.opentiny-e2e_page-added');
    check(!added.ok || added.isError, `a tool the page added was callable: ${JSON.stringify(added)}`);
    return logs.filter((x) => /page-added|generate-color/.test(x)).join('\n');
  });

  await step('no agent code before the write is allowed: with writes off, create_script with meta starts no sandbox; once allowed it runs in a fresh one without network', async () => {
    const offscreen = () => worker('chrome.offscreen.hasDocument()');
    await worker('chrome.offscreen.closeDocument().catch(() => undefined)');
    check(await offscreen() === false, 'the offscreen document is still there');
    // Its registration would reach the network and leave a global behind.
    const source = 'export default async ({ server }) => {\n' +
      '  globalThis.__lumoLeak = 1;\n' +
      "  await fetch('http://marker-e2e.test/from-dry-run').catch(() => undefined);\n" +
      "  await new Promise((r) => { const i = new Image(); i.onload = i.onerror = r; i.src = 'http://marker-e2e.test/img'; });\n" +
      "  server.registerTool('ok', { annotations: { readOnlyHint: true } }, async () => ({ content: [{ type: 'text', text: 'ok' }] }));\n};\n";
    const markerMeta = { name: 'marker-e2e.test', type: 'contentScriptMcpServer', url: 'http://marker-e2e.test/', isAlwaysEnabled: false, version: '1.0.0' };
    await ctlRun('set', 'writes', 'off', '--provider', provider);
    const off = await poll(() => call('userscripts.create_script', { meta: markerMeta, source }), (r) => r.isError, 'a refused install');
    check(/writes are turned off/i.test(off.text), off.text);
    check(await offscreen() === false, 'a sandbox was made for an install that was not allowed: agent code ran');
    await ctlRun('set', 'writes', 'on', '--provider', provider);
    const on = await poll(() => call('userscripts.create_script', { meta: markerMeta, source }), (r) => !r.isError, 'the allowed install');
    check(await offscreen() === true, 'the allowed install made no sandbox: the check above proves nothing');
    check(!siteRequests.some((r) => r.startsWith('marker-e2e.test')), `the sandbox reached the network: ${JSON.stringify(siteRequests.filter((r) => r.startsWith('marker-e2e.test')))}`);
    // A second install in a fresh frame does not see what the first left.
    const second = "export default ({ server }) => {\n  if (globalThis.__lumoLeak) server.registerTool('leak-seen', {}, async () => ({ content: [] }));\n" +
      "  server.registerTool('ok', { annotations: { readOnlyHint: true } }, async () => ({ content: [{ type: 'text', text: 'ok' }] }));\n};\n";
    const fresh = await call('userscripts.create_script', { meta: { ...markerMeta, name: 'fresh-e2e.test', url: 'http://fresh-e2e.test/' }, source: second });
    check(fresh.ok && !fresh.isError, JSON.stringify(fresh));
    check(JSON.stringify(json(fresh).sitePack.tools) === '["ok"]', `the frame was reused: ${fresh.text}`);
    for (const r of [on, fresh])
      check(!(await call('userscripts.delete_script', { uuid: json(r).uuid })).isError, 'cleanup');
    return `writes off: "${off.text}"; allowed: installed ${json(on).uuid} with no request to marker-e2e.test (${siteRequests.length} requests in all)`;
  });

  await step('the guide\'s example two, as written, installed as a person would (create_script through L1, the guide\'s meta on a test domain): its one tool is a write, and a call opens the page and fills its search box', async () => {
    // Byte for byte the guide's code; only the domain of its meta.ts is
    // the test's, so no author's pack can take it.
    const source = readFileSync(join(repo, 'tests/fixtures/sitepacks/guide/example-2/www.baidu.com/index.ts'), 'utf8');
    const meta = { name: 'guide-e2e.test', type: 'contentScriptMcpServer', url: 'http://guide-e2e.test/', isAlwaysEnabled: true,
      toolsJumpLinks: { 'get-page-title': 'http://guide-e2e.test/s?wd=get-page-title' }, version: '1.0.0' };
    const r = await call('userscripts.create_script', { meta, source });
    check(r.ok && !r.isError, JSON.stringify(r));
    const created = json(r);
    check(JSON.stringify(created.sitePack.tools) === '["fill-search-box"]', r.text);
    check(created.warnings?.length === 1 && /meta\.toolsJumpLinks\.get-page-title: links a tool "get-page-title" that the pack does not register/.test(created.warnings[0]), r.text);
    await poll(() => ctlJson('audit', 'search', 'tool:create_script'), (x) => x.some((row) => row.target === created.uuid), 'the install\'s audit row');
    await poll(tools, (t) => t.includes('userscripts.guide-e2e_fill-search-box'), 'the always-enabled tool to be listed', 20000);
    const w = await call('userscripts.guide-e2e_fill-search-box', { text: 'lumo 指南' });
    check(w.ok && !w.isError && w.text === '已填充文本: lumo 指南', JSON.stringify(w));
    const tab = (await browser.targets()).find((t) => t.type === 'page' && t.url === 'http://guide-e2e.test/');
    check(tab !== undefined, `no tab at meta.url: ${JSON.stringify((await browser.targets()).map((t) => t.url))}`);
    const echo = await browser.evaluate(await browser.attach(tab.targetId), 'document.getElementById("echo").textContent');
    check(echo === 'typed: lumo 指南', `the page saw: ${echo}`);
    const row = await auditRow('guide-e2e_fill-search-box');
    check(row.write === true && row.target === created.uuid, `declares no readOnlyHint, so it is an audited write: ${JSON.stringify(row)}`);
    check(!(await call('userscripts.delete_script', { uuid: created.uuid })).isError, 'cleanup');
    return `${w.text}; audit row ${row.id} (write) → ${row.target}; warning: ${created.warnings[0]}`;
  });

  await step('a bundled pageMcpServer pack (excalidraw-e2e.test) runs in the main world from the extension\'s own file', async () => {
    const p = await openPage(browser, 'http://excalidraw-e2e.test/');
    pages.push(p);
    await poll(tools, (t) => t.includes('userscripts.excalidraw-e2e_count-items'), 'the bundled page pack\'s tool', 30000);
    const r = await call('userscripts.excalidraw-e2e_count-items');
    check(r.ok && !r.isError && r.text === '3', JSON.stringify(r));
    return `count-items: ${r.text}`;
  });

  await step('the pack\'s source is nowhere in the app\'s files', async () => {
    for (const p of pages)
      await p.close();
    const files = filesUnder(dataDir);
    for (const f of files)
      check(!readFileSync(f).includes(CANARY), `the pack source is in ${f}`);
    return `scanned ${files.length} files`;
  });
}

// A second profile without "Allow User Scripts": the documented reason,
// and a bundled contentScriptMcpServer pack that works all the same.
export async function noUserScriptsSteps ({ step, check, poll, browser, caller, repo, provider, worker, restartWorker }) {
  const { call } = caller;
  const { meta, source } = installedFixture(repo);
  await step('without "Allow User Scripts": the caller connects, and an installed pageMcpServer pack is stored but says what to turn on', async () => {
    await poll(() => caller.probe(provider), (p) => p.row === 'connected', 'the caller to be connected', 30000);
    await caller.refresh(provider);
    const r = await call('userscripts.create_script', { meta: { ...meta, isAlwaysEnabled: true }, source });
    check(r.ok && !r.isError, JSON.stringify(r));
    const report = await poll(async () => JSON.parse((await call('userscripts.list_site_packs')).text),
      (x) => x.packs.some((p) => p.name === 'opentiny-e2e.test'), 'the pack in the report');
    check(report.userScripts.available === false, JSON.stringify(report.userScripts));
    const p = report.packs.find((x) => x.name === 'opentiny-e2e.test');
    const want = new RegExp(`chrome://extensions/\\?id=${provider}, turn on "Allow User Scripts" \\(Chrome 138 and later\\)`);
    check(p.ready === false && want.test(p.reason), JSON.stringify(p));
    const bundledPage = report.packs.find((x) => x.name === 'excalidraw-e2e.test');
    check(bundledPage.ready === false && want.test(bundledPage.reason), `a bundled page pack needs user scripts too: ${JSON.stringify(bundledPage)}`);
    check(report.packs.find((x) => x.name === 'www.baidu-e2e.test').ready === true, 'a bundled content-script pack needs none');
    return p.reason;
  });

  await step('calling its tool returns that reason as an isError result; the bundled contentScriptMcpServer pack needs no permission and answers', async () => {
    await poll(caller.tools, (t) => t.includes('userscripts.opentiny-e2e_get-app-state'), 'the always-enabled pack\'s tools', 20000);
    const r = await call('userscripts.opentiny-e2e_get-app-state');
    check(r.ok && r.isError && /opentiny-e2e\.test \(pageMcpServer\) cannot run: .*"Allow User Scripts"/.test(r.text), JSON.stringify(r));
    const ok = await call('userscripts.baidu-e2e_get-page-title');
    check(ok.ok && !ok.isError && ok.text === 'Lumo test page · www.baidu-e2e.test', JSON.stringify(ok));
    return r.text;
  });

  await step('without "Allow User Scripts": one browser notification says which toggle, still one after more calls and a restarted worker; its button\'s handler opens the extension\'s details page', async () => {
    const shown = await poll(() => worker('chrome.notifications.getAll()'), (n) => Object.keys(n ?? {}).length > 0, 'the notification');
    check(JSON.stringify(Object.keys(shown)) === '["lumo-user-scripts"]', JSON.stringify(shown));
    check(await worker('lumoProvider.notice.shown') === 1, 'not shown by this worker');
    for (let i = 0; i < 3; i++)
      check((await call('userscripts.opentiny-e2e_get-app-state')).isError, 'the call did not fail');
    await worker('lumoProvider.reload()');
    check(await worker('lumoProvider.notice.shown') === 1, 'shown again for a call or a reload');
    // Same browser session: a new worker does not show it again.
    await restartWorker(() => call('userscripts.list_site_packs'));
    await worker('lumoProvider.reload()');
    check(await worker('lumoProvider.notice.shown') === 0, 'a restarted worker showed it again');
    check(JSON.stringify(Object.keys(await worker('chrome.notifications.getAll()'))) === '["lumo-user-scripts"]', 'one notification');
    // A notification's button cannot be pressed over CDP: run what the
    // button runs (test/notice.test.ts presses it on a fake).
    const url = `chrome://extensions/?id=${provider}`;
    await worker('lumoProvider.notice.openDetails()');
    const tab = await poll(() => browser.targets(), (ts) => ts.some((t) => t.type === 'page' && t.url === url), 'the details page');
    check(JSON.stringify(Object.keys(await worker('chrome.notifications.getAll()'))) === '[]', 'the notification stayed after its use');
    return `opened ${tab.find((t) => t.url === url).url}`;
  });
}
