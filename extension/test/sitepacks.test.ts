// SPDX-License-Identifier: GPL-3.0-or-later
// Site packs without a browser: the meta check (each field, with the field
// named), domain matching as the guide states it, tool names on L1, the
// source transform of installed packs, the pack runtime (registerTool,
// cookie, a call that throws or returns nonsense), the gathering of
// customMarketMcpServers, and every pack folder of the repository.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { aggregateMarket, checkMeta, requireMeta } from '../src/sitepacks/meta.ts';
import {
  checkDomain, checkPackToolName, derivePrefix, excludePatterns, l1Name, matchPatterns, packForHost,
} from '../src/sitepacks/naming.ts';
import { SourceError, transformSource, userScriptCode } from '../src/sitepacks/source.ts';
import { callSiteTool, cookieView, parseCookies, runRegistration, toolDefs } from '../src/sitepacks/runtime.ts';
import { functionDryRun } from '../src/sitepacks/dry-run.ts';
import { bundledPackId, inspectPacks } from '../src/sitepacks/inspect.ts';
import { loadFolder } from './pack-folders.ts';
import { chromeMajor, userScriptsReason } from '../src/sitepacks/permission.ts';
import type { SitePackMeta } from '../src/sitepacks/types.ts';

const here = dirname(fileURLToPath(import.meta.url));
const GOOD = {
  name: 'www.baidu.com', type: 'contentScriptMcpServer', url: 'https://www.baidu.com', isAlwaysEnabled: true,
  toolsJumpLinks: { 'get-page-title': 'https://www.baidu.com/s?wd=get-page-title' }, version: '1.0.0',
};

function problems (meta: unknown, opts = {}): Record<string, string> {
  const c = checkMeta(meta, opts);
  return c.ok ? {} : Object.fromEntries(c.problems.map((p) => [p.field, p.message]));
}

test('meta: the guide\'s example passes and comes back with only the known fields', () => {
  const c = checkMeta(GOOD, { expectedName: 'www.baidu.com' });
  assert.equal(c.ok, true);
  assert.deepEqual(c.ok && c.meta, GOOD);
});

test('meta: each bad field is named with the reason, all at once', () => {
  const p = problems({
    name: 'https://www.baidu.com/', type: 'pageServer', url: 'www.baidu.com', isAlwaysEnabled: 'yes',
    toolsJumpLinks: { 'get page': 'https://other.com/' }, version: '1.0', toolPrefx: 'x',
  });
  assert.match(p.name ?? '', /without the protocol \(e\.g\. "www\.baidu\.com"\)/);
  assert.match(p.type ?? '', /"pageMcpServer".*"contentScriptMcpServer".*, not "pageServer"/);
  assert.match(p.url ?? '', /not an absolute URL.*"https:\/\/www\.baidu\.com"/);
  assert.match(p.isAlwaysEnabled ?? '', /must be true or false, not "yes"/);
  assert.match(p['toolsJumpLinks.get page'] ?? '', /not a tool name/);
  assert.match(p.version ?? '', /semantic version.*not "1\.0"/);
  assert.match(p.toolPrefx ?? '', /did you mean "toolPrefix"/);
});

test('meta: required fields say what they are for; the name must equal the folder or script', () => {
  const p = problems({}, { expectedName: 'a.com' });
  assert.deepEqual(Object.keys(p).sort(), ['isAlwaysEnabled', 'name', 'type', 'url', 'version']);
  assert.match(p.name ?? '', /is required/);
  assert.match(problems({ ...GOOD, name: 'baidu.com', url: 'https://baidu.com' }, { expectedName: 'www.baidu.com', expectedNameWhat: 'folder name' }).name ?? '',
    /"baidu\.com" must equal the folder name "www\.baidu\.com"/);
  assert.match(problems({ ...GOOD, name: 'WWW.Baidu.com' }).name ?? '', /lowercase/);
  assert.match(problems({ ...GOOD, name: 'www.baidu.com:8080' }).name ?? '', /without a port/);
  assert.match(problems(null)[''] ?? '', /must be an object/);
});

test('meta: url and jump links must be on a domain the pack serves', () => {
  assert.match(problems({ ...GOOD, url: 'https://baidu.com' }).url ?? '', /on baidu\.com, which this pack does not serve/);
  assert.deepEqual(problems({ ...GOOD, url: 'https://m.www.baidu.com/x' }), {}, 'a subdomain is served');
  assert.match(problems({ ...GOOD, toolsJumpLinks: { t: 'https://evil.test/' } })['toolsJumpLinks.t'] ?? '', /does not serve/);
  assert.match(problems({ ...GOOD, toolsJumpLinks: [] }).toolsJumpLinks ?? '', /object of tool name/);
});

test('meta: customMarketMcpServers entries are checked; empty ones are dropped, not refused', () => {
  const meta = { ...GOOD, customMarketMcpServers: [null, {}, { id: 'ppt', name: 'PPT', url: 'https://x.test/sse', type: 'sse', enabled: false, addState: 'idle', tools: [] }] };
  const c = checkMeta(meta);
  assert.equal(c.ok, true);
  assert.deepEqual(c.ok && c.meta.customMarketMcpServers?.map((s) => (s as { id: string }).id), ['ppt']);
  const p = problems({ ...GOOD, customMarketMcpServers: [{ id: '', name: 'n', url: 'ftp://x', type: 'ws', enabled: 1 }, 'x'] });
  assert.match(p['customMarketMcpServers[0].id'] ?? '', /non-empty string/);
  assert.match(p['customMarketMcpServers[0].url'] ?? '', /http or https/);
  assert.match(p['customMarketMcpServers[0].type'] ?? '', /"sse" or "streamableHttp"/);
  assert.match(p['customMarketMcpServers[0].enabled'] ?? '', /true or false/);
  assert.match(p['customMarketMcpServers[1]'] ?? '', /must be an object/);
  assert.throws(() => requireMeta({ ...GOOD, version: 'x' }), /meta\.version: must be a semantic version/);
});

test('market: all packs\' servers in pack order, empty entries and repeats (same id or url) dropped', () => {
  const a = { ...GOOD, customMarketMcpServers: [{ id: 'ppt', name: 'PPT', url: 'https://x.test/ppt' }, null] } as SitePackMeta;
  const b = { ...GOOD, name: 'b.com', customMarketMcpServers: [{}, { id: 'ppt', name: 'again', url: 'https://y.test' },
    { id: 'other', name: 'same url', url: 'https://x.test/ppt' }, { id: 'slides', name: 'Slides', url: 'https://x.test/slides', type: 'streamableHttp' }] } as SitePackMeta;
  assert.deepEqual(aggregateMarket([a, b, { ...GOOD } as SitePackMeta]), [
    { id: 'ppt', name: 'PPT', url: 'https://x.test/ppt' },
    { id: 'slides', name: 'Slides', url: 'https://x.test/slides', type: 'streamableHttp' },
  ]);
});

test('matching: exact names, subdomains of a parent pack, the most specific pack wins', () => {
  const packs = ['www.baidu.com', 'example.com', 'docs.example.com', '127.0.0.1'];
  assert.equal(packForHost('www.baidu.com', packs), 'www.baidu.com');
  assert.equal(packForHost('baidu.com', packs), null, 'www.baidu.com does not serve baidu.com');
  assert.equal(packForHost('sub.example.com', packs), 'example.com');
  assert.equal(packForHost('a.docs.example.com', packs), 'docs.example.com');
  assert.equal(packForHost('EXAMPLE.com.', packs), 'example.com', 'as location.hostname may spell it');
  assert.equal(packForHost('notexample.com', packs), null);
  assert.equal(packForHost('127.0.0.1', packs), '127.0.0.1');
  assert.equal(packForHost('1.127.0.0.1', packs), null, 'an IP address has no subdomains');
  assert.deepEqual(matchPatterns('example.com'), ['*://example.com/*', '*://*.example.com/*']);
  assert.deepEqual(excludePatterns('example.com', packs), ['*://docs.example.com/*', '*://*.docs.example.com/*']);
  assert.equal(checkDomain('localhost'), null);
  assert.match(checkDomain('exa mple.com') ?? '', /not a valid domain/);
});

test('naming: a short prefix from the domain; tool names fit 40 with it or say by how much', () => {
  assert.equal(derivePrefix('www.baidu.com'), 'baidu');
  assert.equal(derivePrefix('opentiny.design'), 'opentiny');
  assert.equal(derivePrefix('docs.google.com'), 'docs-google');
  assert.equal(derivePrefix('localhost'), 'localhost');
  assert.equal(derivePrefix('127.0.0.1'), '127-0-0-1');
  assert.equal(derivePrefix('a-very-long-subdomain.example.org').length <= 16, true);
  assert.equal(l1Name('baidu', 'get-page-title'), 'baidu_get-page-title');
  assert.equal(checkPackToolName('baidu', 'x'.repeat(34)), null);
  assert.match(checkPackToolName('baidu', 'x'.repeat(35)) ?? '', /41 characters; the limit is 40.*at most 34/);
  assert.match(checkPackToolName('baidu', 'get page') ?? '', /may use only/);
});

test('source: the default export becomes an assignment, lines stay where they were', () => {
  const src = '// a pack\nconst x = "export default nope";\nexport   default\n({ server }) => { server.registerTool(`t ${"}"}`, {}, h); };\n';
  const out = transformSource(src);
  assert.equal(out.split('\n').length, src.split('\n').length);
  assert.match(out, /__lumo_exports\.default =\n\(\{ server \}\)/);
  assert.match(out, /"export default nope"/, 'strings are not touched');
  assert.equal(transformSource('export default function register () {}\n'), '__lumo_exports.default = function register () {}\n');
  assert.throws(() => transformSource('import x from "y";\nexport default 1;'), (e: Error) => e instanceof SourceError && /Line 1: import statements/.test(e.message));
  assert.throws(() => transformSource('export const a = 1;'), /Line 1: only a default export/);
  assert.throws(() => transformSource('const a = 1;'), /no "export default"/);
  assert.throws(() => transformSource('export default 1;\nexport default 2;'), /2 "export default" statements \(lines 1, 2\)/);
  assert.throws(() => transformSource('  '), /empty/);
  // Not top level, in a regex or a comment: not an export.
  assert.doesNotMatch(transformSource('/* export const a */ const r = /export default/;\nfunction f () { return { import: 1 }; }\nexport default f;\n'), /^export/m);
  const code = userScriptCode({ id: 'u', name: 'a.com' }, '__lumo_exports.default = 1;', 'a.com');
  assert.match(code.split('\n')[0] as string, /start\(\{"id":"u","name":"a\.com"\}, function \(__lumo_exports\) \{"use strict";__lumo_exports\.default = 1;$/);
  assert.match(code, /\/\/# sourceURL=lumo-sitepack\/a\.com\.js/);
});

test('runtime: registerTool records definitions with JSON Schema; misuse is reported per tool, the rest kept', async () => {
  const reg = await runRegistration(({ server, z: zz }: { server: any; z: typeof z }) => {
    server.registerTool('fill-search-box', { title: 'Fill', description: 'd', inputSchema: { text: zz.string().describe('the text'), n: zz.number().default(5) } }, async () => ({ content: [] }));
    server.registerTool('bad name', {}, async () => ({ content: [] }));
    server.registerTool('no-handler', {});
    server.registerTool('fill-search-box', {}, async () => ({ content: [] }));
    server.registerTool('not-zod', { inputSchema: { a: 'string' } }, async () => ({ content: [] }));
    server.registerTool('typo', { inputSchmea: {} }, async () => ({ content: [] }));
    server.registerTool('plain', { annotations: { readOnlyHint: true } }, async () => ({ content: [] }));
  }, cookieView(() => ''));
  const defs = toolDefs(reg);
  assert.deepEqual(defs.map((d) => d.name), ['fill-search-box', 'plain']);
  const schema = defs[0]?.inputSchema as any;
  assert.equal(schema.type, 'object');
  assert.equal(schema.properties.text.description, 'the text');
  assert.deepEqual(schema.required, ['text'], 'a default makes a field optional for the caller');
  assert.deepEqual(defs[1]?.annotations, { readOnlyHint: true });
  assert.equal(reg.errors.length, 5);
  assert.match(reg.errors.join('\n'), /registerTool\("bad name"\): the tool name must be/);
  assert.match(reg.errors.join('\n'), /"no-handler"\): the third argument must be the handler/);
  assert.match(reg.errors.join('\n'), /"fill-search-box"\): this name is registered twice/);
  assert.match(reg.errors.join('\n'), /config\.inputSchema\.a is not a zod schema/);
  assert.match(reg.errors.join('\n'), /config\.inputSchmea is not a field/);
});

test('runtime: a registration that throws or is not a function is reported, tools before the throw kept', async () => {
  const r1 = await runRegistration(({ server }: any) => {
    server.registerTool('a', {}, async () => ({ content: [] }));
    throw new TypeError('boom');
  }, cookieView(() => ''));
  assert.deepEqual([...r1.tools.keys()], ['a']);
  assert.match(r1.errors[0] ?? '', /threw TypeError: boom/);
  const r2 = await runRegistration(undefined, cookieView(() => ''));
  assert.match(r2.errors[0] ?? '', /default export must be the registration function/);
});

test('runtime: a call validates its arguments, and a throw or a bad result comes back as isError', async () => {
  const logs: unknown[] = [];
  const reg = await runRegistration(({ server, z: zz }: any) => {
    server.registerTool('echo', { inputSchema: { text: zz.string(), n: zz.number().default(2) } },
      async ({ text, n }: { text: string; n: number }) => ({ content: [{ type: 'text', text: text.repeat(n) }] }));
    server.registerTool('throws', {}, async () => { throw new TypeError('Cannot read properties of null (reading \'textContent\')'); });
    server.registerTool('nothing', {}, async () => undefined);
    server.registerTool('string', {}, async () => 'hello');
    server.registerTool('bad-text', {}, async () => ({ content: [{ type: 'text', text: 5 }] }));
    server.registerTool('business', {}, async () => ({ content: [{ type: 'text', text: 'No search box' }], isError: true }));
  }, cookieView(() => ''));
  assert.deepEqual(await callSiteTool(reg, 'echo', { text: 'ab' }), { content: [{ type: 'text', text: 'abab' }], isError: false });
  const bad = await callSiteTool(reg, 'echo', { text: 1 });
  assert.equal(bad.isError, true);
  assert.match((bad.content[0] as any).text, /Input validation error: invalid arguments for tool "echo".*text/s);
  const t = await callSiteTool(reg, 'throws', {}, (...a) => logs.push(a));
  assert.deepEqual(t, { content: [{ type: 'text', text: 'The tool "throws" failed: TypeError: Cannot read properties of null (reading \'textContent\')' }], isError: true });
  assert.equal(logs.length, 1, 'the page console gets the error too');
  assert.match((await callSiteTool(reg, 'nothing', {})).content[0]?.text as string, /returned nothing, not \{ content/);
  assert.match((await callSiteTool(reg, 'string', {})).content[0]?.text as string, /returned string/);
  assert.match((await callSiteTool(reg, 'bad-text', {})).content[0]?.text as string, /content\[0\]\.text that is number/);
  assert.equal((await callSiteTool(reg, 'business', {})).isError, true);
  assert.match((await callSiteTool(reg, 'missing', {})).content[0]?.text as string, /no tool "missing".*"echo"/);
});

test('runtime: cookie is read-only and reads the current cookies each time', async () => {
  let jar = 'user_id=42; session_id=a%20b; user_id=shadowed';
  const cookie = cookieView(() => jar);
  assert.equal(cookie.user_id, '42');
  assert.equal(cookie.session_id, 'a b');
  assert.deepEqual(Object.keys(cookie), ['user_id', 'session_id']);
  assert.equal('session_id' in cookie, true);
  jar = 'user_id=7';
  assert.equal(cookie.user_id, '7');
  assert.equal(cookie.session_id, undefined);
  assert.throws(() => { (cookie as any).user_id = 'x'; }, /read-only; change cookies with document\.cookie/);
  assert.throws(() => { delete (cookie as any).user_id; }, /read-only/);
  assert.deepEqual(parseCookies('a=1;b;=c; d = 4 '), { a: '1', d: '4' });
});

test('dry run: definitions of an installed source, and its mistakes by name', async () => {
  const ok = await functionDryRun(transformSource('export default ({ server, z }) => {\n  server.registerTool("t", { inputSchema: { a: z.string() } }, async () => ({ content: [] }));\n};'), { id: 'x', name: 'a.com' });
  assert.deepEqual(ok.errors, []);
  assert.deepEqual(ok.tools.map((d) => d.name), ['t']);
  const syntax = await functionDryRun(transformSource('export default ({ server }) => {\n  server.registerTool("t", {}, async () => ({ content: [] })\n};'), { id: 'x', name: 'a.com' });
  assert.match(syntax.errors[0] ?? '', /does not parse: SyntaxError/);
  const throws = await functionDryRun(transformSource('undefinedThing();\nexport default () => {};'), { id: 'x', name: 'a.com' });
  assert.match(throws.errors[0] ?? '', /threw while loading: ReferenceError: undefinedThing is not defined/);
});

test('permission: the reason names the exact toggle for the Chrome version', () => {
  assert.equal(chromeMajor('Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36'), 156);
  const id = 'hnoefmihgppanoiihkcpnjdpijlimfgh';
  assert.match(userScriptsReason(156, id), /chrome:\/\/extensions\/\?id=hnoefmihgppanoiihkcpnjdpijlimfgh, turn on "Allow User Scripts" \(Chrome 138 and later\)/);
  assert.match(userScriptsReason(137, id), /"Developer mode".*Chrome 120 to 137/);
  assert.match(userScriptsReason(119, id), /need Chrome 120 or later; this browser is version 119/);
});

// Every pack folder in the repository passes the build's checks: the
// bundled ones, the guide's examples and the test fixtures.
test('every pack folder of the repository passes the build\'s checks, and all of them together (the e2e build\'s set)', async () => {
  const roots = [join(here, '../sites'), join(here, '../examples/sites'), join(here, '../../tests/fixtures/sitepacks/bundled')];
  for (const root of roots) {
    const inputs = await loadFolder(root);
    const r = await inspectPacks(inputs);
    assert.deepEqual(r.problems, [], root);
    assert.deepEqual(r.warnings, [], root);
    assert.equal(r.packs.length, inputs.length);
  }
  const all = await inspectPacks((await Promise.all(roots.map(loadFolder))).flat());
  assert.deepEqual(all.problems, [], 'the test packs take no domain or prefix of the examples');
  const examples = await inspectPacks(await loadFolder(join(here, '../examples/sites')));
  assert.deepEqual(examples.packs.map((p) => [p.meta.name, p.prefix, p.tools.map((t) => t.name)]), [
    ['example.com', 'example', ['get-user-profile']],
    ['opentiny.design', 'opentiny', ['generate-color', 'get-elements']],
    ['www.baidu.com', 'baidu', ['get-page-title', 'fill-search-box']],
  ]);
});

test('inspect: a folder whose pack is wrong is refused with file and field', async () => {
  const register = ({ server }: any) => { server.registerTool('t', {}, async () => ({ content: [] })); };
  const r = await inspectPacks([
    { folder: 'a.com', dir: 'sites/a.com', meta: { ...GOOD, name: 'b.com', url: 'https://b.com' }, register },
    { folder: 'c.com', dir: 'sites/c.com', meta: { ...GOOD, name: 'c.com', url: 'https://c.com', toolsJumpLinks: { nope: 'https://c.com/x' } }, register },
    { folder: 'x.c.com', dir: 'sites/x.c.com', meta: { ...GOOD, name: 'x.c.com', url: 'https://x.c.com', toolsJumpLinks: {}, toolPrefix: 'c' }, register },
    { folder: 'list.com', dir: 'sites/list.com', meta: { ...GOOD, name: 'list.com', url: 'https://list.com', toolsJumpLinks: {} },
      register: ({ server }: any) => { server.registerTool('scripts', {}, async () => ({ content: [] })); } },
    { folder: 'Bad_Folder', dir: 'sites/Bad_Folder', meta: GOOD, register },
    { folder: 'e.com', dir: 'sites/e.com', meta: { ...GOOD, name: 'e.com', url: 'https://e.com', toolsJumpLinks: {} }, register: () => { document.title; } },
  ]);
  const text = r.problems.join('\n');
  assert.match(text, /sites\/a\.com\/meta\.ts: name: "b\.com" must equal the folder name "a\.com"/);
  assert.doesNotMatch(text, /c\.com\/meta\.ts: toolsJumpLinks/, 'a link to a tool not registered does not fail the build');
  assert.deepEqual(r.warnings, ['sites/c.com/meta.ts: toolsJumpLinks.nope: links a tool "nope" that the pack does not register (it registers "t"); the link is not used']);
  assert.match(text, /sites\/x\.c\.com\/meta\.ts: the tool prefix "c" is used by sites\/c\.com already/);
  assert.match(text, /sites\/list\.com\/index\.ts: tool "scripts" would be "list_scripts", the name of a tool of the provider/);
  assert.match(text, /sites\/Bad_Folder\/: the folder name must be the domain/);
  assert.match(text, /sites\/e\.com\/index\.ts: .*threw ReferenceError: document is not defined.*touch the page in handlers/);
  assert.match(await bundledPackId('www.baidu.com'), /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal(await bundledPackId('www.baidu.com'), await bundledPackId('www.baidu.com'));
});

test('user scripts: installed packs in their own worlds, page packs with a relay, more specific packs excluded', async () => {
  const { packRegistrations } = await import('../src/sitepacks/userscripts.ts');
  const rec = (id: string, origin: 'bundled' | 'installed', name: string, type: string, file: string | null = null) => ({
    id, origin, enabled: true, file, tools: [],
    meta: { name, type, url: `https://${name}/`, isAlwaysEnabled: false, version: '1.0.0' },
  }) as any;
  const packs = [
    rec('b1', 'bundled', 'www.baidu.com', 'contentScriptMcpServer'),
    rec('b2', 'bundled', 'excalidraw.com', 'pageMcpServer', 'sites/excalidraw.com.js'),
    rec('i1', 'installed', 'example.com', 'contentScriptMcpServer'),
    rec('i2', 'installed', 'docs.example.com', 'pageMcpServer'),
    rec('i3', 'installed', 'broken.com', 'contentScriptMcpServer'),
  ];
  const sources: Record<string, string> = { i1: 'export default () => {};', i2: 'export default () => {};', i3: 'const x = 1;' };
  const r = packRegistrations(packs, (id) => sources[id], true);
  assert.deepEqual(r.packs.map((p) => [p.packId, p.worldId, p.scripts.map((s) => `${s.id} ${s.world} ${s.runAt}`)]), [
    ['b2', 'sitepack-b2', ['sr-b2 USER_SCRIPT document_start', 'sp-b2 MAIN document_idle']],
    ['i1', 'sitepack-i1', ['sp-i1 USER_SCRIPT document_idle']],
    ['i2', 'sitepack-i2', ['sr-i2 USER_SCRIPT document_start', 'sp-i2 MAIN document_idle']],
  ], 'a bundled content pack is a content script, not a user script');
  const i1 = r.packs[1]!.scripts[0]!;
  assert.deepEqual(i1.matches, ['*://example.com/*', '*://*.example.com/*']);
  assert.deepEqual(i1.excludeMatches, ['*://docs.example.com/*', '*://*.docs.example.com/*']);
  assert.equal(i1.worldId, 'sitepack-i1');
  assert.deepEqual(i1.js[0], { file: 'site-user.js' });
  assert.match((i1.js[1] as { code: string }).code, /__lumoSitePack\.start\(\{"id":"i1".*__lumo_exports\.default = \(\) => \{\};/s);
  assert.deepEqual(r.packs[0]!.scripts[1]!.js, [{ file: 'site-main.js' }, { file: 'sites/excalidraw.com.js' }]);
  assert.equal(r.packs[0]!.scripts[1]!.worldId, undefined, 'the MAIN world has no world id');
  assert.match(r.errors.get('i3') ?? '', /its source cannot run: The source has no "export default"/);
  const shared = packRegistrations(packs, (id) => sources[id], false);
  assert.equal(shared.packs.every((p) => p.worldId === undefined && p.scripts.every((s) => s.worldId === undefined)), true, 'before Chrome 133 all share the default world');
});
