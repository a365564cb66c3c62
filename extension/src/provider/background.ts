// SPDX-License-Identifier: GPL-3.0-or-later
//
// The provider's service worker. Every listener is registered
// synchronously at the top level: Chrome dispatches the event that woke the
// worker only to listeners that exist when the first run of this file ends.

import { z } from 'zod';
import { BUNDLED_PACKS } from 'lumo:bundled-sites/worker';
import { isProbeChannel } from '../shared/protocol.ts';
import type { PortLike } from '../shared/port.ts';
import { chromeLastError, chromeNativeConnect } from './bridge.ts';
import { Provider } from './provider.ts';
import { ScriptStore } from './scripts.ts';
import { TOOLS } from './tools.ts';
import { UserScriptSync } from './userscripts-runtime.ts';
import { runBench } from './bench.ts';
import { statusReport } from './status.ts';
import { bundledRecords, chromeSiteBrowser, installedRecord } from '../sitepacks/browser.ts';
import { offscreenDryRun } from '../sitepacks/dry-run.ts';
import { INDEX_KEY, type IndexEntry } from '../sitepacks/messages.ts';
import { chromeMajor, perPackWorlds, userScriptsAdviceText, userScriptsState, type Translate } from '../sitepacks/permission.ts';
import { UserScriptsNotice, type NotificationsLike } from '../sitepacks/notice.ts';
import { needsUserScripts, SiteRegistry, type PackRecord, type SenderLike } from '../sitepacks/registry.ts';
import { SitePacks } from '../sitepacks/service.ts';
import { siteToolDefs } from '../sitepacks/tools.ts';
import { PACK_MESSAGE_TYPES, packRegistrations, worldIdFor } from '../sitepacks/userscripts.ts';

// Zod probes for eval support with new Function, which MV3's CSP reports as
// a violation; say up front that there is none.
z.config({ jitless: true });

const log = (...args: unknown[]): void => console.info('[lumo]', ...args);
const selfId = chrome.runtime.id;
const ua = navigator.userAgent;
const worlds = perPackWorlds(ua);
const usState = () => userScriptsState(selfId, ua);
// The browser's UI language, for the one notification this worker shows.
const chromeT: Translate = (key, ...subs) => chrome.i18n.getMessage(key, subs.map(String));
const reserved = new Set(TOOLS.map((t) => t.name));

const store = new ScriptStore(chrome.storage.local);
const bundled = bundledRecords(BUNDLED_PACKS, log);
let provider: Provider | undefined;
let catalogueTimer: ReturnType<typeof setTimeout> | undefined;

const sites = new SiteRegistry({
  browser: chromeSiteBrowser(),
  session: chrome.storage.session,
  reserved: () => reserved,
  userScripts: usState,
  ...(worlds ? { worldIdOf: (p: PackRecord) => worldIdFor(p.id) } : {}),
  onChange: () => {
    // Tabs come and go in bursts (a reload drops and re-registers): one
    // catalogue update for a burst.
    clearTimeout(catalogueTimer);
    catalogueTimer = setTimeout(() => void updateCatalogue(), 50);
  },
  log,
});
sites.setPacks(bundled, []);

// "Allow User Scripts" is off and a pack needs it: one notification per
// browser session, whose button opens the toggle.
const notice = new UserScriptsNotice({
  notifications: chrome.notifications as unknown as NotificationsLike,
  session: chrome.storage.session,
  extensionId: selfId,
  openTab: (url) => chrome.tabs.create({ url, active: true }),
  t: chromeT,
  log,
});
notice.listen();

const sitePacks = new SitePacks({ registry: sites, dryRun: offscreenDryRun(), reserved: () => reserved, userScripts: usState });

function catalogueNow () {
  return { tools: [...TOOLS, ...siteToolDefs(sites)], extra: { customMarketMcpServers: sites.market() } };
}

async function updateCatalogue (): Promise<void> {
  if (provider === undefined)
    return;
  const c = catalogueNow();
  try {
    await provider.updateCatalogue(c.tools, c.extra);
  } catch (e) {
    log('catalogue update failed:', e instanceof Error ? e.message : e);
  }
}

// Installed packs, user-script registrations and the loader's index, from
// the store. One reload runs at a time; calls while one waits to start
// share it, and a call while one runs gets the next (which reads the store
// again, so it sees the write that asked for it).
const userScripts = new UserScriptSync(undefined, log);
let reloading: Promise<void> = Promise.resolve();
let queued: Promise<void> | null = null;
function reload (): Promise<void> {
  if (queued !== null)
    return queued;
  const next = reloading.then(async () => {
    queued = null;
    const scripts = await store.list();
    const installed = scripts.map(installedRecord).filter((p): p is PackRecord => p !== null);
    sites.setPacks(bundled, installed);
    const sources = new Map(scripts.map((s) => [s.uuid, s.source]));
    const regs = packRegistrations(sites.activePacks(), (id) => sources.get(id), worlds);
    const errors = await userScripts.sync(scripts, regs.packs);
    for (const [k, v] of regs.errors)
      errors.set(k, v);
    sites.setRuntimeErrors(errors);
    const us = usState();
    const waiting = sites.activePacks().filter(needsUserScripts).map((p) => p.meta.name);
    if (!us.available && waiting.length > 0)
      void notice.notify(userScriptsAdviceText(chromeT, chromeMajor(ua), selfId), waiting);
    const index: IndexEntry[] = sites.activePacks().filter((p) => p.origin === 'installed')
      .map((p) => ({ id: p.id, name: p.meta.name, type: p.meta.type, version: p.meta.version }));
    await chrome.storage.local.set({ [INDEX_KEY]: index });
  }).catch((e) => log('reload failed:', e instanceof Error ? e.message : e));
  queued = next;
  reloading = next;
  return next;
}

const ready = reload().then(() => sites.restore());

const initial = catalogueNow();
provider = new Provider({
  connectNative: chromeNativeConnect,
  lastError: chromeLastError,
  store,
  newUuid: () => crypto.randomUUID(),
  selfId,
  tools: initial.tools,
  sitePacks,
  ready,
  // A script write answers once it is in effect: its user scripts are
  // registered, so a page opened after the answer runs it.
  applied: reload,
  log,
});
void provider.updateCatalogue(initial.tools, initial.extra);

chrome.runtime.onMessageExternal.addListener((message, sender, sendResponse) => {
  // Other channels belong to other protocols: no answer, port left free.
  if (!isProbeChannel(message))
    return false;
  (provider as Provider).probe(message, sender).then(sendResponse, (e) => {
    sendResponse({ ok: false, error: `The provider failed: ${e instanceof Error ? e.message : String(e)}` });
  });
  return true;
});

chrome.runtime.onConnectExternal.addListener((port) => {
  (provider as Provider).connect(port as unknown as PortLike);
});

function onPackMessage (message: unknown, sender: SenderLike, via: 'content' | 'userScript', sendResponse: (a: unknown) => void): boolean {
  const type = (message as { type?: unknown })?.type;
  if (typeof type !== 'string' || !PACK_MESSAGE_TYPES.includes(type) || sender.tab === undefined ||
      sender.url?.startsWith('chrome-extension:') === true)
    return false;
  void ready.then(() => sites.onMessage(message, sender, via)).then((a) => sendResponse(a ?? { error: 'unknown message' }));
  return true;
}

// The popup asks for the status; the loader content script registers the
// tools of bundled packs. Only this extension's own contexts send here.
chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
  if (sender.id !== selfId)
    return false;
  // The popup may be open in a tab (the e2e opens it so): tell it from a
  // content script by its URL.
  if ((message as { type?: string })?.type === 'lumo:status' && sender.url?.startsWith(`chrome-extension://${selfId}/`)) {
    void statusReport(provider as Provider, sites, usState()).then(sendResponse);
    return true;
  }
  return onPackMessage(message, sender as SenderLike, 'content', sendResponse);
});

// Packs that run as user scripts message from their USER_SCRIPT world.
(chrome.runtime as unknown as { onUserScriptMessage?: typeof chrome.runtime.onMessage }).onUserScriptMessage?.addListener(
  (message, sender, sendResponse) => onPackMessage(message, sender as SenderLike, 'userScript', sendResponse));

chrome.tabs.onRemoved.addListener((tabId) => sites.onTabRemoved(tabId));
chrome.tabs.onUpdated.addListener((tabId, change) => sites.onTabUpdated(tabId, change));

chrome.storage.onChanged.addListener((changes, area) => {
  if (area === 'local' && Object.keys(changes).some((k) => k.startsWith('script:')))
    void reload();
});

// The "Allow User Scripts" toggle fires no event: look now and then, and
// register the scripts when it was turned on (or note that it went off).
let userScriptsOn = usState().available;
setInterval(() => {
  const on = usState().available;
  if (on !== userScriptsOn) {
    userScriptsOn = on;
    log(`user scripts are ${on ? 'allowed now' : 'no longer allowed'}`);
    void reload();
  }
}, 5000);

provider.start();

// For the e2e driver and the benchmark, which evaluate in this worker over
// CDP. Holds no capability a page could reach.
Object.assign(globalThis, {
  lumoProvider: {
    ready: true,
    provider,
    store,
    sites,
    sitePacks,
    notice,
    reload,
    bench: (opts: { iterations?: number; callerId: string }) => runBench(provider as Provider, opts),
  },
});
