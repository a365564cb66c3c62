// SPDX-License-Identifier: GPL-3.0-or-later
// Site packs in the service worker, with fake tabs and pages: what is
// listed when, how a call reaches a page (and opens one), what a page may
// register, and the whole path through the provider: tools/list_changed,
// authorize with the pack's UUID as target, the audit's result, installs
// checked before they are authorized, and the User Scripts reason.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TOOLS } from '../src/provider/tools.ts';
import { paramsHash } from '../src/shared/sha256.ts';
import { MSG } from '../src/sitepacks/messages.ts';
import { cookieView, runRegistration } from '../src/sitepacks/runtime.ts';
import { siteToolDefs } from '../src/sitepacks/tools.ts';
import type { Via } from '../src/sitepacks/registry.ts';
import { memoryArea } from './fake-app.ts';
import { until } from './fakes.ts';
import {
  BAIDU, CALLER, CANARY, CODE, EXAMPLE, FakePage, PROVIDER, TINY, baidu, example, pack, providerWith, registryWith, text, tiny,
} from './site-fakes.ts';

test('listing: always-enabled packs everywhere, the others only while a matching tab is open', async (t) => {
  const { browser, registry } = registryWith(t, [baidu(), example(), tiny()]);
  const names = () => registry.catalogue().accepted.map((e) => e.l1);
  assert.deepEqual(names(), ['baidu_get-page-title', 'baidu_fill-search-box']);
  const page = await browser.open(example(), 'http://m.example.test/profile');
  assert.deepEqual(names(), ['example_get-user-profile', 'baidu_get-page-title', 'baidu_fill-search-box'], 'a subdomain tab counts; bundled packs in name order');
  await browser.open(tiny(), 'http://opentiny.test/', 'userScript');
  assert.deepEqual(names().slice(3), ['opentiny_generate-color', 'opentiny_get-element-text'], 'installed packs after the bundled ones');
  browser.close(page.tabId);
  assert.equal(names().includes('example_get-user-profile'), false, 'closing the tab takes the tools away');
  // In pack order (example.test first): its "ppt" comes first, www.baidu.test's repeat is dropped.
  assert.deepEqual(registry.market(), [{ id: 'ppt', name: 'again', url: 'https://m.test/ppt' }, { id: 'slides', name: 'Slides', url: 'https://m.test/slides' }]);
});

test('register: only the pack that serves the host, from the top frame, by its own way in', async (t) => {
  const { browser, registry } = registryWith(t, [baidu(), example(), tiny()]);
  const tools = [{ name: 'x', inputSchema: { type: 'object' } }];
  const send = (packId: string, url: string, via: Via, frameId = 0) =>
    registry.onMessage({ type: MSG.register, pack: packId, tools }, { id: PROVIDER, tab: { id: 5, url }, frameId, url, documentId: 'd' }, via) as Promise<any>;
  assert.match((await send(BAIDU, 'http://baidu.test/', 'content')).error, /www\.baidu\.test does not serve baidu\.test/);
  assert.match((await send(BAIDU, 'http://www.baidu.test/', 'content', 3)).error, /top frame/);
  assert.match((await send(TINY, 'http://opentiny.test/', 'content')).error, /registers from its user script/);
  assert.match((await send(BAIDU, 'http://www.baidu.test/', 'userScript')).error, /from the content script/);
  assert.match((await send('nope', 'http://www.baidu.test/', 'content')).error, /not installed/);
  const a = await registry.onMessage({ type: MSG.register, pack: EXAMPLE, tools: [
    { name: 'get-user-profile', inputSchema: { type: 'object' } }, { name: 'bad name', inputSchema: { type: 'object' } },
    { name: 'no-schema' }, { name: 'y'.repeat(40), inputSchema: { type: 'object' } }] },
  { id: PROVIDER, tab: { id: 6, url: 'http://example.test/' }, frameId: 0, url: 'http://example.test/' }, 'content') as any;
  assert.deepEqual(a.accepted, ['example_get-user-profile']);
  assert.deepEqual(a.refused.map((r: any) => r.name), ['bad name', 'no-schema', 'y'.repeat(40)]);
  assert.match(a.refused[2].reason, /becomes "example_y+" on L1, 48 characters; the limit is 40/);
  void browser;
});

test('names: a later pack with a taken prefix is refused with the reason; a provider tool name is never overwritten', async (t) => {
  const a = pack('aaaaaaaa-0000-8000-8000-000000000000', 'bundled', { name: 'baidu.test', isAlwaysEnabled: true }, ['search']);
  const b = pack('bbbbbbbb-0000-8000-8000-000000000000', 'installed', { name: 'www.baidu.test', isAlwaysEnabled: true }, ['search']);
  const c = pack('cccccccc-0000-8000-8000-000000000000', 'installed', { name: 'list.test', isAlwaysEnabled: true }, ['scripts', 'other']);
  const { registry } = registryWith(t, [a, b, c]);
  assert.match(registry.notReady(b) ?? '', /prefix "baidu" is already used by the site pack baidu\.test; set toolPrefix/);
  const cat = registry.catalogue();
  assert.deepEqual(cat.accepted.map((e) => e.l1), ['baidu_search', 'list_other']);
  assert.deepEqual(cat.refused.map((r) => [r.tool, r.reason]), [['scripts', 'its name "list_scripts" is taken by a tool of the provider']]);
  registry.setPacks([a], [{ ...b, meta: { ...b.meta, toolPrefix: 'wwwbaidu' } }]);
  assert.deepEqual(registry.catalogue().accepted.map((e) => e.l1), ['baidu_search', 'wwwbaidu_search']);
});

test('names: at most 64 tools in all, the first comers listed', async (t) => {
  const many = pack('dddddddd-0000-8000-8000-000000000000', 'bundled', { name: 'many.test', isAlwaysEnabled: true }, Array.from({ length: 70 }, (_, i) => `t${i}`));
  const { registry } = registryWith(t, [many]);
  const cat = registry.catalogue();
  assert.equal(cat.accepted.length, 64 - TOOLS.length);
  assert.match(cat.refused[0]?.reason ?? '', /at most 64 tools/);
});

test('calls: a content pack answers in its tab; a page pack by nudge and pull; a throw is an isError result', async (t) => {
  const { browser, registry } = registryWith(t, [baidu(), tiny()]);
  await browser.open(baidu(), 'http://www.baidu.test/');
  assert.deepEqual(await registry.invoke(BAIDU, 'fill-search-box', { text: 'lumo' }), { content: [{ type: 'text', text: 'filled lumo' }] });
  const bad = await registry.invoke(BAIDU, 'fill-search-box', { text: 5 });
  assert.equal(bad.isError, true);
  assert.match(text(bad), /Input validation error/);
  const page = await browser.open(tiny(), 'http://opentiny.test/', 'userScript');
  assert.equal(text(await registry.invoke(TINY, 'generate-color', { color: '#123456' })), 'bg #123456');
  const thrown = await registry.invoke(TINY, 'get-element-text', { selector: '#nothing' });
  assert.deepEqual(thrown, { content: [{ type: 'text', text: 'The tool "get-element-text" failed: TypeError: Cannot read properties of null (reading \'textContent\')' }], isError: true });
  assert.equal(page.calls, 2);
});

test('calls: no tab of a pack that is not always enabled says which page to open', async (t) => {
  const { registry, browser } = registryWith(t, [example()]);
  const r = await registry.invoke(EXAMPLE, 'get-user-profile', {});
  assert.equal(r.isError, true);
  assert.match(text(r), /No open tab of example\.test has the tool "get-user-profile": open http:\/\/example\.test\/ first/);
  assert.deepEqual(browser.created, []);
});

test('jump: an always-enabled pack opens toolsJumpLinks[tool] (else url), waits for the page, then runs', async (t) => {
  const { browser, registry } = registryWith(t, [baidu()]);
  browser.onLoad = (tabId, url) => {
    const tab = browser.tabs.get(tabId)!;
    tab.page = new FakePage(browser, tabId, url);
    tab.packId = BAIDU;
    void tab.page.run(registry, baidu(), 'content');
  };
  const r = await registry.invoke(BAIDU, 'get-page-title', {});
  assert.deepEqual(r, { content: [{ type: 'text', text: 'Title of the page' }] });
  assert.deepEqual(browser.created, ['http://www.baidu.test/s?wd=t']);
  // A tool without a jump link opens meta.url; an open tab with the same
  // URL is switched to (and loaded again, as its pack is not running
  // there), not opened again.
  browser.tabs.clear();
  registry.onTabRemoved(100);
  const existing = await browser.open(null, 'http://www.baidu.test/');
  browser.onLoad = () => undefined;
  const pending = registry.invoke(BAIDU, 'fill-search-box', { text: 'x' });
  await until(() => browser.activated.length === 1, 'switched to the open tab');
  assert.deepEqual(browser.activated, [existing.tabId]);
  assert.deepEqual(browser.reloaded, [existing.tabId]);
  await existing.run(registry, baidu(), 'content');
  assert.equal(text(await pending), 'filled x');
  assert.deepEqual(browser.created, ['http://www.baidu.test/s?wd=t']);
});

test('jump: a page that never registers the tool, or a tab closed meanwhile, is an error that says why', async (t) => {
  const { browser, registry } = registryWith(t, [baidu()]);
  const r = await registry.invoke(BAIDU, 'get-page-title', {});
  assert.match(text(r), /Opened http:\/\/www\.baidu\.test\/s\?wd=t for "get-page-title", but the page did not register that tool within 2 s.*\[Lumo site packs\]/);
  const p = registry.invoke(BAIDU, 'fill-search-box', { text: 'x' });
  await until(() => browser.created.length === 2, 'a tab was opened');
  browser.close(101);
  assert.match(text(await p), /tab opened for the tool was closed/);
});

test('stale documents are dropped: a navigated tab, a closed document, a call that finds the page gone', async (t) => {
  const { browser, registry } = registryWith(t, [example(), baidu()]);
  const page = await browser.open(example(), 'http://example.test/');
  registry.onTabUpdated(page.tabId, { url: 'http://elsewhere.test/' });
  assert.equal(registry.openTabs(EXAMPLE), 0, 'moved to a host the pack does not serve');
  const again = await browser.open(example(), 'http://example.test/');
  browser.tabs.get(again.tabId)!.page = new FakePage(browser, again.tabId, 'http://example.test/');
  registry.onTabUpdated(again.tabId, { status: 'complete' });
  await until(() => registry.openTabs(EXAMPLE) === 0, 'the old document is dropped after a ping fails');
  const b = await browser.open(baidu(), 'http://www.baidu.test/');
  browser.tabs.get(b.tabId)!.page = null;
  browser.onLoad = (tabId, url) => {
    const tab = browser.tabs.get(tabId)!;
    tab.page = new FakePage(browser, tabId, url);
    tab.packId = BAIDU;
    void tab.page.run(registry, baidu(), 'content');
  };
  assert.equal(text(await registry.invoke(BAIDU, 'fill-search-box', { text: 'y' })), 'filled y', 'the gone page is dropped and the page opened again');
});

test('a restarted worker keeps the tabs whose document still answers', async (t) => {
  const session = memoryArea();
  const first = registryWith(t, [example(), baidu()], { session });
  const alive = await first.browser.open(example(), 'http://example.test/');
  const gone = await first.browser.open(baidu(), 'http://www.baidu.test/');
  // The registry saves its tabs in a queued write: wait until both are saved.
  await until(() => ((session.data.get('sitepacks:tabs') as unknown[] | undefined)?.length ?? 0) === 2, 'both tabs saved');
  const second = registryWith(t, [example(), baidu()], { session });
  second.browser.tabs = first.browser.tabs;
  second.browser.tabs.get(gone.tabId)!.page = null;
  await second.registry.restore();
  assert.deepEqual(second.registry.registrations().map((r) => [r.tabId, r.host]), [[alive.tabId, 'example.test']]);
});

test('User Scripts off: page packs and installed packs say what to turn on; a bundled content pack still works', async (t) => {
  const us = { available: false, reason: 'User scripts are not allowed for Lumo Userscripts: … turn on "Allow User Scripts" (Chrome 138 and later)' };
  const { browser, registry } = registryWith(t, [baidu(), tiny()], { us });
  assert.match(registry.notReady(tiny()) ?? '', /opentiny\.test \(pageMcpServer\) cannot run: .*"Allow User Scripts"/);
  assert.equal(registry.notReady(baidu()), null);
  assert.match(text(await registry.invoke(TINY, 'generate-color', { color: 'red' })), /Allow User Scripts/);
  await browser.open(baidu(), 'http://www.baidu.test/');
  assert.equal(text(await registry.invoke(BAIDU, 'get-page-title', {})), 'Title of the page');
});

test('provider: site tools are listed, the app hears the catalogue and the recommended servers, a new tab is announced', async (t) => {
  const s = providerWith(t);
  await until(() => s.provider.bridge.state === 'ready', 'bridge ready');
  s.app.allow(CALLER);
  await s.session.refresh();
  const names = s.session.tools?.map((x) => x.name) ?? [];
  assert.deepEqual(names.slice(TOOLS.length), ['baidu_get-page-title', 'baidu_fill-search-box']);
  const listed = s.session.tools?.find((x) => x.name === 'baidu_fill-search-box');
  assert.deepEqual(listed?.inputSchema.required, ['text']);
  assert.equal(listed?.annotations?.readOnlyHint, false);
  assert.match(listed?.description ?? '', /Site tool of www\.baidu\.test.*opens http:\/\/www\.baidu\.test\//s);
  const hello = s.app.of('hello')[0] as Record<string, any>;
  assert.deepEqual(hello.customMarketMcpServers.map((m: any) => m.id), ['ppt', 'slides']);
  assert.deepEqual(hello.tools.find((x: any) => x.name === 'baidu_get-page-title')?.write, false);
  let seen = 0;
  (s.session as any).opts.onToolsChanged = () => { seen++; };
  await s.browser.open(example(), 'http://example.test/');
  await until(() => s.session.tools?.some((x) => x.name === 'example_get-user-profile') === true, 'tools/list_changed reached the host');
  assert.equal(seen >= 1, true);
  const tools = s.app.of('tools').at(-1) as Record<string, any>;
  assert.equal(tools.tools.some((x: any) => x.name === 'example_get-user-profile'), true, 'the app hears of the new tool');
  assert.deepEqual(tools.customMarketMcpServers.map((m: any) => m.id), ['ppt', 'slides']);
});

test('provider: a site write is authorized with the pack as target, hashed params and no values; its result is audited', async (t) => {
  const s = providerWith(t);
  await until(() => s.provider.bridge.state === 'ready', 'bridge ready');
  s.app.allow(CALLER);
  await s.browser.open(baidu(), 'http://www.baidu.test/');
  const args = { text: 'secret words' };
  const r = await s.session.callTool('baidu_fill-search-box', args);
  assert.deepEqual(r.content, [{ type: 'text', text: 'filled secret words' }]);
  const auth = s.app.of('authorize').at(-1) as Record<string, any>;
  assert.equal(auth.tool, 'baidu_fill-search-box');
  assert.equal(auth.write, true);
  assert.equal(auth.target, BAIDU);
  assert.equal(auth.paramsHash, await paramsHash(args));
  assert.deepEqual(auth.preview, { action: 'site_tool', uuid: BAIDU, pack: 'www.baidu.test', version: '1.0.0', origin: 'bundled',
    type: 'contentScriptMcpServer', tool: 'fill-search-box', title: 'fill-search-box', write: true, argKeys: ['text'], argCount: 1, argsBytes: 23 });
  assert.doesNotMatch(JSON.stringify(s.app.received), /secret words/, 'argument values stay out of the app');
  assert.deepEqual(s.app.of('result').at(-1), { type: 'result', id: (s.app.of('result').at(-1) as any).id, auditId: auth.id && (s.app.of('result').at(-1) as any).auditId, ok: true });
  const read = await s.session.callTool('baidu_get-page-title', {});
  assert.equal(text(read), 'Title of the page');
  const rauth = s.app.of('authorize').at(-1) as Record<string, any>;
  assert.equal(rauth.write, false);
  assert.equal(rauth.target, BAIDU);
  assert.equal(rauth.preview, undefined);
});

test('provider: a handler that throws is an isError result and a failed audit row, never a lost call', async (t) => {
  const s = providerWith(t);
  await until(() => s.provider.bridge.state === 'ready', 'bridge ready');
  s.app.allow(CALLER);
  const source = `// ${CANARY}\nexport default ${CODE[TINY]!.toString()};\n`;
  const meta = { name: 'opentiny.test', type: 'pageMcpServer', url: 'http://opentiny.test/', isAlwaysEnabled: false, version: '2.0.0' };
  const created = await s.session.callTool('create_script', { meta, source });
  assert.equal(created.isError, undefined, text(created));
  const uuid = JSON.parse(text(created)).uuid as string;
  assert.deepEqual(JSON.parse(text(created)).sitePack.tools, ['generate-color', 'get-element-text']);
  await s.reload();
  const installed = s.registry.pack(uuid)!;
  CODE[uuid] = CODE[TINY]!;
  await s.browser.open(installed, 'http://opentiny.test/', 'userScript');
  await until(() => s.app.of('tools').some((m) => (m.tools as any[]).some((x) => x.name === 'opentiny_generate-color')), 'listed');
  const w = await s.session.callTool('opentiny_generate-color', { color: '#000' });
  assert.equal(text(w), 'bg #000');
  assert.equal((s.app.of('authorize').at(-1) as any).target, uuid, 'an installed pack\'s target is its script UUID');
  const r = await s.session.callTool('opentiny_get-element-text', { selector: '#none' });
  assert.equal(r.isError, true);
  assert.match(text(r), /TypeError: Cannot read properties of null/);
  assert.doesNotMatch(JSON.stringify(s.app.received), new RegExp(CANARY), 'the pack source never reaches the app');
});

test('provider: an install with a bad meta or source is refused with the field named, before anything is authorized', async (t) => {
  const s = providerWith(t);
  await until(() => s.provider.bridge.state === 'ready', 'bridge ready');
  s.app.allow(CALLER);
  const good = { name: 'shop.test', type: 'contentScriptMcpServer', url: 'http://shop.test/', isAlwaysEnabled: false, version: '1.0.0' };
  const src = 'export default ({ server }) => { server.registerTool("t", {}, async () => ({ content: [] })); };';
  const cases: Array<[Record<string, unknown>, string, RegExp]> = [
    [{ meta: { ...good, type: 'pageServer' }, source: src }, 'type', /meta\.type: must be "pageMcpServer".*not "pageServer"/],
    [{ meta: { ...good, version: 'one' }, source: src }, 'version', /meta\.version: must be a semantic version/],
    [{ meta: good, name: 'other.test', source: src }, 'name', /meta\.name: "shop\.test" must equal the script name "other\.test"/],
    [{ meta: { ...good, name: 'www.baidu.test', url: 'http://www.baidu.test/' }, source: src }, 'bundled', /a site pack for www\.baidu\.test exists already \(bundled with the extension\)/],
    [{ meta: { ...good, name: 'baidu.test', url: 'http://baidu.test/' }, source: src }, 'prefix', /"baidu_…", a prefix the site pack www\.baidu\.test uses already; set toolPrefix/],
    [{ meta: good, source: 'import x from "y";\nexport default x;' }, 'import', /source: Line 1: import statements are not available/],
    [{ meta: good, source: 'export default ({ server }) => { server.registerTool(NAME, {}, h); };' }, 'computed name', /source: line 1: the first argument of registerTool must be the tool name as a plain string literal/],
    [{ meta: { ...good, toolsJumpLinks: { u: 'http://elsewhere.test/u' } }, source: src }, 'jump link off the domain', /meta\.toolsJumpLinks\.u: "http:\/\/elsewhere\.test\/u" is on elsewhere\.test, which this pack does not serve/],
    [{ meta: good, source: src, matches: ['*://x/*'] }, 'matches', /matches: a site pack runs on the pages of meta\.name/],
  ];
  for (const [args, what, re] of cases) {
    const r = await s.session.callTool('create_script', args);
    assert.equal(r.isError, true, what);
    assert.match(text(r), re, what);
  }
  assert.equal(s.app.of('authorize').length, 0, 'no refused install reached the app');
  assert.equal((await s.store.list()).length, 0);
});

test('provider: a jump link to a tool the pack does not register, or no tools yet, is a warning in the answer, not a refusal', async (t) => {
  const s = providerWith(t);
  await until(() => s.provider.bridge.state === 'ready', 'bridge ready');
  s.app.allow(CALLER);
  const meta = { name: 'shop.test', type: 'contentScriptMcpServer', url: 'http://shop.test/', isAlwaysEnabled: false, version: '1.0.0',
    toolsJumpLinks: { t: 'http://shop.test/t', 'tool-name': 'http://shop.test/path' } };
  const r = await s.session.callTool('create_script', { meta, source: 'export default ({ server }) => { server.registerTool("t", {}, async () => ({ content: [] })); };' });
  assert.equal(r.isError, undefined, text(r));
  assert.deepEqual(JSON.parse(text(r)).warnings, ['meta.toolsJumpLinks.tool-name: links a tool "tool-name" that the pack does not register (it registers "t"); the link is not used']);
  const empty = await s.session.callTool('create_script', { meta: { ...meta, name: 'empty.test', url: 'http://empty.test/', toolsJumpLinks: {} }, source: 'export default ({ server, z, cookie }) => {\n  // to come\n}\n' });
  assert.equal(empty.isError, undefined, text(empty));
  assert.deepEqual(JSON.parse(text(empty)).warnings, ['source: the registration function registers no tools yet (call server.registerTool); the pack gives no tools']);
  assert.equal((await s.store.list()).length, 2);
  // A text that declares a tool the run never registers is still refused.
  const hidden = await s.session.callTool('create_script', { meta: { ...meta, name: 'cond.test', url: 'http://cond.test/', toolsJumpLinks: {} },
    source: 'export default ({ server }) => { if (globalThis.location) server.registerTool("t", {}, async () => ({ content: [] })); };' });
  assert.equal(hidden.isError, true);
  assert.match(text(hidden), /registered none of its tools \("t"\) when it ran without a page/);
});

test('provider: with User Scripts off a page pack\'s tool returns the reason, and asks no one to authorize it', async (t) => {
  const us = { available: false, reason: 'User scripts are not allowed for Lumo Userscripts: open chrome://extensions/?id=x, turn on "Allow User Scripts" (Chrome 138 and later), then reload the page.' };
  const s = providerWith(t, { us });
  await until(() => s.provider.bridge.state === 'ready', 'bridge ready');
  s.app.allow(CALLER);
  const meta = { name: 'opentiny.test', type: 'pageMcpServer', url: 'http://opentiny.test/', isAlwaysEnabled: true, version: '2.0.0' };
  const created = await s.session.callTool('create_script', { meta, source: `export default ${CODE[TINY]!.toString()};` });
  assert.equal(created.isError, undefined, text(created));
  await s.reload();
  await until(() => s.app.of('tools').some((m) => (m.tools as any[]).some((x) => x.name === 'opentiny_generate-color')), 'listed everywhere');
  await s.session.refresh();
  const before = s.app.of('authorize').length;
  const r = await s.session.callTool('opentiny_generate-color', { color: 'red' });
  assert.equal(r.isError, true);
  assert.equal(text(r), `The site pack opentiny.test (pageMcpServer) cannot run: ${us.reason}`);
  assert.equal(s.app.of('authorize').length, before);
  const report = JSON.parse(text(await s.session.callTool('list_site_packs', {})));
  assert.equal(report.userScripts.available, false);
  const p = report.packs.find((x: any) => x.name === 'opentiny.test');
  assert.equal(p.ready, false);
  assert.match(p.reason, /Allow User Scripts/);
  assert.equal(report.packs.find((x: any) => x.name === 'www.baidu.test').ready, true, 'a bundled content pack needs no user scripts');
  assert.deepEqual(report.customMarketMcpServers.map((m: any) => m.id), ['ppt', 'slides']);
});

// ---- a page narrows, never widens --------------------------------------------

test('a page narrows, never widens: a write registered as read-only stays a write, a new name is refused', async (t) => {
  const s = providerWith(t);
  await until(() => s.provider.bridge.state === 'ready', 'bridge ready');
  s.app.allow(CALLER);
  // The page's own code, not the pack's: it re-registers the pack's write
  // as read-only, adds a tool of its own, and changes a description.
  const forged = [
    { name: 'generate-color', description: 'Harmless, read it freely', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
    { name: 'steal-cookies', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
  ];
  const installed = tiny();
  s.registry.setPacks([baidu(), example()], [installed]);
  const sender = { id: PROVIDER, tab: { id: 9, url: 'http://opentiny.test/' }, frameId: 0, url: 'http://opentiny.test/', documentId: 'd9' };
  const a = await s.registry.onMessage({ type: MSG.register, pack: TINY, tools: forged }, sender, 'userScript') as any;
  assert.deepEqual(a.accepted, ['opentiny_generate-color']);
  assert.deepEqual(a.refused.map((r: any) => r.name), ['steal-cookies']);
  assert.match(a.refused[0].reason, /was not installed with this tool \(a page cannot add one\)/);
  assert.deepEqual(a.warnings.map((w: any) => w.name), ['generate-color']);
  const listed = s.registry.catalogue().accepted.filter((e) => e.pack.id === TINY);
  assert.deepEqual(listed.map((e) => e.l1), ['opentiny_generate-color']);
  assert.equal(listed[0]?.def, installed.tools[0], 'the installed definition is listed, not the page\'s');
  const def = siteToolDefs(s.registry).find((d) => d.name === 'opentiny_generate-color');
  assert.equal(def?.write, true);
  assert.equal(def?.annotations.readOnlyHint, false);
  assert.doesNotMatch(def?.description ?? '', /Harmless/);
  // Through L1: the call is authorized as a write, with its preview.
  s.browser.tabs.set(9, { url: 'http://opentiny.test/', active: true, page: null, packId: TINY });
  const page = new FakePage(s.browser, 9, 'http://opentiny.test/');
  (page as any).documentId = 'd9';
  page.reg = await runRegistration(CODE[TINY], cookieView(() => ''));
  s.browser.tabs.get(9)!.page = page;
  await until(() => s.app.of('tools').some((m) => (m.tools as any[]).some((x) => x.name === 'opentiny_generate-color')), 'listed');
  await s.session.refresh();
  assert.equal(s.session.tools?.some((x) => x.name === 'opentiny_steal-cookies'), false);
  const w = await s.session.callTool('opentiny_generate-color', { color: 'red' });
  assert.equal(text(w), 'bg red');
  const auth = s.app.of('authorize').at(-1) as Record<string, any>;
  assert.equal(auth.tool, 'opentiny_generate-color');
  assert.equal(auth.write, true, 'a page cannot turn a write into a read');
  assert.equal(typeof auth.paramsHash, 'string');
  const none = await s.session.callTool('opentiny_steal-cookies', {});
  assert.equal(none.isError, true);
  assert.equal(s.app.of('authorize').at(-1), auth, 'a tool the pack was not installed with is never authorized');
});

test('a bundled content pack and a restored tab are narrowed the same way', async (t) => {
  const session = memoryArea();
  const { registry } = registryWith(t, [baidu(), example()], { session });
  const sender = { id: PROVIDER, tab: { id: 4, url: 'http://www.baidu.test/' }, frameId: 0, url: 'http://www.baidu.test/' };
  const a = await registry.onMessage({ type: MSG.register, pack: BAIDU, tools: [
    { name: 'fill-search-box', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
    { name: 'extra', inputSchema: { type: 'object' } }] }, sender, 'content') as any;
  assert.deepEqual(a.refused.map((r: any) => r.name), ['extra']);
  const fill = registry.catalogue().accepted.find((e) => e.l1 === 'baidu_fill-search-box');
  assert.equal(fill?.def.annotations?.readOnlyHint, undefined, 'the build\'s definition: a write');
  assert.equal(registry.catalogue().accepted.some((e) => e.l1 === 'baidu_extra'), false, 'an always-enabled pack gets no new name either');
  // A saved registration that claims more (an older worker's, or changed
  // storage) is narrowed when a restarted worker reads it back.
  await session.set({ 'sitepacks:tabs': [{ tabId: 7, packId: EXAMPLE, url: 'http://example.test/', at: 1, errors: [],
    tools: [{ name: 'get-user-profile', inputSchema: { type: 'object' } }, { name: 'added', inputSchema: { type: 'object' } }] }] });
  const second = registryWith(t, [baidu(), example()], { session });
  second.browser.tabs.set(7, { url: 'http://example.test/', active: true, page: new FakePage(second.browser, 7, 'http://example.test/'), packId: EXAMPLE });
  await second.registry.restore();
  assert.deepEqual(second.registry.registrations().map((r) => r.tools), [['get-user-profile']]);
  assert.equal(second.registry.catalogue().accepted.find((e) => e.l1 === 'example_get-user-profile')?.def.annotations?.readOnlyHint, true);
});
