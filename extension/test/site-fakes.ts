// SPDX-License-Identifier: GPL-3.0-or-later
// Fake tabs, pages and packs for the site-pack tests, and a provider with
// site packs behind a fake app.
import type { TestContext } from 'node:test';
import { Provider } from '../src/provider/provider.ts';
import { ScriptStore } from '../src/provider/scripts.ts';
import { TOOLS } from '../src/provider/tools.ts';
import { ProviderSession } from '../src/host/session.ts';
import { MSG } from '../src/sitepacks/messages.ts';
import { SiteRegistry, type PackRecord, type SiteBrowser, type TabInfo, type UserScriptsState, type Via } from '../src/sitepacks/registry.ts';
import { callSiteTool, cookieView, runRegistration, toolDefs, type Registration } from '../src/sitepacks/runtime.ts';
import { SitePacks, type DryRun } from '../src/sitepacks/service.ts';
import { siteToolDefs } from '../src/sitepacks/tools.ts';
import { functionDryRun } from '../src/sitepacks/dry-run.ts';
import { installedRecord } from '../src/sitepacks/browser.ts';
import { FakeApp, memoryArea } from './fake-app.ts';
import { portPair } from './fakes.ts';

export const PROVIDER = 'hnoefmihgppanoiihkcpnjdpijlimfgh';
export const CALLER = 'jedonckdloihdbdhofoldalhdemkmefm';
export const BAIDU = '11111111-1111-8111-8111-111111111111';
export const EXAMPLE = '22222222-2222-8222-8222-222222222222';
export const TINY = '33333333-3333-4333-8333-333333333333';
export const CANARY = 'canary-5e1d-pack-source-must-not-leak';

type Text = { type: string; text: string };
export const text = (r: { content: unknown }) => ((r.content as Text[])[0]?.text ?? '');

export function pack (id: string, origin: 'bundled' | 'installed', meta: Partial<PackRecord['meta']> & { name: string }, tools: string[] = []): PackRecord {
  return {
    id, origin, enabled: true, file: null,
    meta: { type: 'contentScriptMcpServer', url: `http://${meta.name}/`, isAlwaysEnabled: false, version: '1.0.0', ...meta },
    tools: tools.map((name) => ({ name, inputSchema: { type: 'object', properties: {} } })),
  };
}

// The registration code of the fake pages, by pack id.
export const CODE: Record<string, (ctx: any) => void> = {
  [BAIDU]: ({ server, z }) => {
    server.registerTool('get-page-title', { annotations: { readOnlyHint: true } }, async () => ({ content: [{ type: 'text', text: 'Title of the page' }] }));
    server.registerTool('fill-search-box', { inputSchema: { text: z.string() } }, async ({ text: t }: { text: string }) => ({ content: [{ type: 'text', text: `filled ${t}` }] }));
  },
  [EXAMPLE]: ({ server, cookie }) => {
    server.registerTool('get-user-profile', { annotations: { readOnlyHint: true } }, async () => ({ content: [{ type: 'text', text: `user ${cookie.user_id}` }] }));
  },
  [TINY]: ({ server, z }) => {
    server.registerTool('generate-color', { inputSchema: { color: z.string() } }, async ({ color }: { color: string }) => ({ content: [{ type: 'text', text: `bg ${color}` }] }));
    server.registerTool('get-element-text', { inputSchema: { selector: z.string() }, annotations: { readOnlyHint: true } },
      async () => { throw new TypeError('Cannot read properties of null (reading \'textContent\')'); });
  },
};

let docCounter = 0;

// One document in a tab, running one pack the way the real runtimes do.
export class FakePage {
  readonly documentId = `doc-${++docCounter}`;
  reg: Registration | null = null;
  calls = 0;
  constructor (readonly browser: FakeBrowser, readonly tabId: number, readonly url: string) {}

  async run (registry: SiteRegistry, p: PackRecord, via: Via, cookies = 'user_id=42') {
    this.reg = await runRegistration(CODE[p.id], cookieView(() => cookies));
    return registry.onMessage({ type: MSG.register, pack: p.id, tools: toolDefs(this.reg), errors: this.reg.errors }, this.sender(), via);
  }

  sender () {
    return { id: PROVIDER, tab: { id: this.tabId, url: this.url }, frameId: 0, documentId: this.documentId, url: this.url };
  }

  async handle (m: any, registry: SiteRegistry, packId: string): Promise<unknown> {
    if (m.type === MSG.ping)
      return { ok: true };
    if (m.type === MSG.call)
      return callSiteTool(this.reg as Registration, m.tool, m.args);
    if (m.type === MSG.nudge) {
      // The USER_SCRIPT world pulls its work and answers.
      setTimeout(async () => {
        const { calls } = await registry.onMessage({ type: MSG.pull, pack: packId }, this.sender(), 'userScript') as any;
        for (const c of calls) {
          this.calls++;
          const result = await callSiteTool(this.reg as Registration, c.tool, c.args);
          await registry.onMessage({ type: MSG.result, pack: packId, callId: c.callId, result }, this.sender(), 'userScript');
        }
      }, 0);
      return { ok: true };
    }
    throw new Error(`unexpected ${m.type}`);
  }
}

export class FakeBrowser implements SiteBrowser {
  tabs = new Map<number, { url: string; active: boolean; page: FakePage | null; packId: string | null }>();
  created: string[] = [];
  activated: number[] = [];
  nextTab = 100;
  registry!: SiteRegistry;
  // What loading a URL does: which pack runs there, if any.
  onLoad: (tabId: number, url: string) => void = () => undefined;

  async send (tabId: number, documentId: string | undefined, message: unknown) {
    const t = this.tabs.get(tabId);
    if (t?.page == null || (documentId !== undefined && t.page.documentId !== documentId))
      throw new Error('Could not establish connection. Receiving end does not exist.');
    return t.page.handle(message, this.registry, t.packId as string);
  }

  async getTab (tabId: number): Promise<TabInfo | null> {
    const t = this.tabs.get(tabId);
    return t ? { id: tabId, url: t.url, active: t.active } : null;
  }

  async queryTabs (): Promise<TabInfo[]> {
    return [...this.tabs].map(([id, t]) => ({ id, url: t.url, active: t.active }));
  }

  async createTab (url: string): Promise<TabInfo> {
    const id = this.nextTab++;
    this.created.push(url);
    this.tabs.set(id, { url, active: true, page: null, packId: null });
    setTimeout(() => this.onLoad(id, url), 5);
    return { id, url, active: true };
  }

  async activateTab (tabId: number): Promise<void> {
    this.activated.push(tabId);
  }

  reloaded: number[] = [];
  async reloadTab (tabId: number): Promise<void> {
    this.reloaded.push(tabId);
    const t = this.tabs.get(tabId);
    if (t !== undefined)
      setTimeout(() => this.onLoad(tabId, t.url), 5);
  }

  // Opens @url in a new tab whose document runs @p.
  async open (p: PackRecord | null, url: string, via: Via = 'content', active = false): Promise<FakePage> {
    const id = this.nextTab++;
    const page = new FakePage(this, id, url);
    this.tabs.set(id, { url, active, page, packId: p?.id ?? null });
    if (p !== null)
      await page.run(this.registry, p, via);
    return page;
  }

  close (tabId: number): void {
    this.tabs.delete(tabId);
    this.registry.onTabRemoved(tabId);
  }
}

export function registryWith (t: TestContext, packs: PackRecord[], opts: { us?: UserScriptsState; session?: ReturnType<typeof memoryArea>; reserved?: Set<string> } = {}) {
  const browser = new FakeBrowser();
  let changes = 0;
  const us = opts.us ?? { available: true, reason: null };
  const registry = new SiteRegistry({
    browser, session: opts.session ?? memoryArea(), reserved: () => opts.reserved ?? new Set(TOOLS.map((x) => x.name)),
    userScripts: () => us, onChange: () => { changes++; }, openTimeoutMs: 2000, callTimeoutMs: 2000,
  });
  browser.registry = registry;
  registry.setPacks(packs.filter((p) => p.origin === 'bundled'), packs.filter((p) => p.origin === 'installed'));
  void t;
  return { browser, registry, changes: () => changes, us };
}

export const baidu = (): PackRecord => {
  const p = pack(BAIDU, 'bundled', { name: 'www.baidu.test', isAlwaysEnabled: true, toolsJumpLinks: { 'get-page-title': 'http://www.baidu.test/s?wd=t' },
    customMarketMcpServers: [{ id: 'ppt', name: 'PPT', url: 'https://m.test/ppt' }] }, ['get-page-title', 'fill-search-box']);
  // As the build records them.
  p.tools[0]!.annotations = { readOnlyHint: true };
  p.tools[1]!.inputSchema = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] };
  return p;
};
export const example = () => readOnly(pack(EXAMPLE, 'bundled', { name: 'example.test', customMarketMcpServers: [{ id: 'ppt', name: 'again', url: 'https://m.test/ppt' },
  { id: 'slides', name: 'Slides', url: 'https://m.test/slides' }] }, ['get-user-profile']), 'get-user-profile');
// As its install's dry run recorded it.
export const tiny = () => readOnly(pack(TINY, 'installed', { name: 'opentiny.test', type: 'pageMcpServer' }, ['generate-color', 'get-element-text']), 'get-element-text');

export function readOnly (p: PackRecord, ...names: string[]): PackRecord {
  for (const d of p.tools)
    if (names.includes(d.name))
      d.annotations = { readOnlyHint: true };
  return p;
}

// ---- through the provider ----------------------------------------------------

export function providerWith (t: TestContext, opts: { us?: UserScriptsState; dryRun?: DryRun; bundled?: () => PackRecord[] } = {}) {
  const bundled = opts.bundled ?? (() => [baidu(), example()]);
  const app = new FakeApp();
  const area = memoryArea();
  const store = new ScriptStore(area);
  const reserved = new Set(TOOLS.map((x) => x.name));
  const browser = new FakeBrowser();
  const us = opts.us ?? { available: true, reason: null };
  let provider: Provider | undefined;
  const registry = new SiteRegistry({
    browser, reserved: () => reserved, userScripts: () => us, openTimeoutMs: 2000, callTimeoutMs: 2000,
    onChange: () => { void provider?.updateCatalogue([...TOOLS, ...siteToolDefs(registry)], { customMarketMcpServers: registry.market() }); },
  });
  browser.registry = registry;
  const sitePacks = new SitePacks({ registry, dryRun: opts.dryRun ?? functionDryRun, reserved: () => reserved, userScripts: () => us });
  let n = 0;
  provider = new Provider({
    connectNative: app.connect, lastError: app.lastError, store, selfId: PROVIDER, backoffMs: [5],
    newUuid: () => `0f8fad5b-d9cb-469f-a165-${String(++n).padStart(12, '0')}`, sitePacks,
  });
  const reload = async () => {
    const installed = (await store.list()).map(installedRecord).filter((p): p is PackRecord => p !== null);
    registry.setPacks(bundled(), installed);
  };
  registry.setPacks(bundled(), []);
  void provider.updateCatalogue([...TOOLS, ...siteToolDefs(registry)], { customMarketMcpServers: registry.market() });
  provider.start();
  t.after(() => provider?.bridge.stop());
  const session = new ProviderSession({
    providerId: PROVIDER, client: { id: CALLER, name: 'Test host' },
    sendMessage: (id, m) => (provider as Provider).probe(JSON.parse(JSON.stringify(m)), { id: CALLER }).then((a) => a ?? undefined),
    connectPort: (_id, name) => { const [h, p] = portPair(name, CALLER); (provider as Provider).connect(p); return h; },
    lastError: () => undefined, callTimeoutMs: 5000,
  });
  return { app, store, browser, registry, provider, session, reload };
}

