// SPDX-License-Identifier: GPL-3.0-or-later
//
// The service worker's view of the site packs: which packs exist (bundled
// and installed), which tabs run which pack with which tools, what that
// puts in the catalogue, and how a call reaches a page: the best matching
// tab, or for an always-enabled pack the page it opens (toolsJumpLinks, else
// url) once it has registered. Tab registrations are kept in
// chrome.storage.session, so a restarted worker still knows its tabs.
//
// Everything browser-specific comes in through SiteBrowser, so the unit
// tests drive the same code with fake tabs.

import { MAX_TOOLS } from '../shared/limits.ts';
import { truncateUtf8 } from '../shared/text.ts';
import type { StorageAreaLike } from '../provider/scripts.ts';
import { checkDefs, checkResult } from './defs.ts';
import { aggregateMarket } from './meta.ts';
import { MSG, type PendingCall } from './messages.ts';
import { checkPackToolName, derivePrefix, l1Name, normalizeHost, packForHost } from './naming.ts';
import { errorResult, type SiteToolDef } from './runtime.ts';
import { isWrite } from './tools.ts';
import type { MarketServer, SitePackMeta, ToolResult } from './types.ts';

export { checkDefs } from './defs.ts';

export interface TabInfo {
  id: number;
  url?: string;
  active?: boolean;
  lastAccessed?: number;
}

export interface SiteBrowser {
  // tabs.sendMessage to one document of a tab (documentId when known).
  send (tabId: number, documentId: string | undefined, message: unknown): Promise<unknown>;
  getTab (tabId: number): Promise<TabInfo | null>;
  queryTabs (): Promise<TabInfo[]>;
  createTab (url: string): Promise<TabInfo>;
  activateTab (tabId: number): Promise<void>;
  reloadTab (tabId: number): Promise<void>;
}

export interface SenderLike {
  id?: string;
  tab?: { id?: number; url?: string };
  frameId?: number;
  documentId?: string;
  url?: string;
  userScriptWorldId?: string;
}

export type Via = 'content' | 'userScript';

export interface PackRecord {
  id: string;
  origin: 'bundled' | 'installed';
  meta: SitePackMeta;
  // The definitions known before any tab ran the pack (build or dry run).
  tools: SiteToolDef[];
  enabled: boolean;
  // A bundled pageMcpServer pack's script in the extension.
  file: string | null;
}

export interface UserScriptsState {
  available: boolean;
  reason: string | null;
}

interface TabReg {
  tabId: number;
  documentId?: string;
  packId: string;
  url: string;
  tools: SiteToolDef[];
  errors: string[];
  at: number;
}

export interface CatalogueEntry {
  l1: string;
  pack: PackRecord;
  def: SiteToolDef;
}

export interface CatalogueRefusal {
  pack: PackRecord;
  tool: string;
  reason: string;
}

export interface RegistryOptions {
  browser: SiteBrowser;
  session?: StorageAreaLike;
  // Names the provider lists before any site tool (the management tools).
  reserved: () => ReadonlySet<string>;
  userScripts: () => UserScriptsState;
  // The USER_SCRIPT world a pack runs in, when worlds are per pack.
  worldIdOf?: (pack: PackRecord) => string | undefined;
  onChange?: () => void;
  callTimeoutMs?: number;
  openTimeoutMs?: number;
  now?: () => number;
  newCallId?: () => string;
  log?: (...args: unknown[]) => void;
}

const SESSION_KEY = 'sitepacks:tabs';

class GoneError extends Error {}

function isObj (v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function hostOf (url: string | undefined): string | null {
  try {
    return url === undefined ? null : normalizeHost(new URL(url).hostname);
  } catch {
    return null;
  }
}

function withoutHash (url: string): string {
  const i = url.indexOf('#');
  return i < 0 ? url : url.slice(0, i);
}

export function needsUserScripts (pack: PackRecord): boolean {
  return pack.origin === 'installed' || pack.meta.type === 'pageMcpServer';
}

export function prefixOf (pack: PackRecord): string {
  return pack.meta.toolPrefix ?? derivePrefix(pack.meta.name);
}

// What a page may say about a pack's tools: which of the installed,
// reviewed definitions (the build's, or the install's dry run) run in it.
// A page narrows, never widens: a name the pack was not installed with is
// refused, and the definition listed and authorized is always the
// installed one, so a page cannot make a write a read, nor change what the
// model is told a tool does.
export function narrowDefs (pack: PackRecord, live: readonly SiteToolDef[]): {
  defs: SiteToolDef[];
  refused: Array<{ name: string; reason: string }>;
  warnings: Array<{ name: string; reason: string }>;
} {
  const byName = new Map(pack.tools.map((d) => [d.name, d]));
  const names = new Set<string>();
  const refused: Array<{ name: string; reason: string }> = [];
  const warnings: Array<{ name: string; reason: string }> = [];
  for (const d of live) {
    const own = byName.get(d.name);
    if (own === undefined) {
      refused.push({ name: d.name, reason: `the site pack ${pack.meta.name} was not installed with this tool (a page cannot add one); install the pack again with it` });
      continue;
    }
    if (isWrite(own) && !isWrite(d))
      warnings.push({ name: d.name, reason: 'the page registered it as read-only, but the pack was installed with it as a write: it stays a write' });
    names.add(d.name);
  }
  return { defs: pack.tools.filter((d) => names.has(d.name)), refused, warnings };
}

interface OpenWaiter {
  tabId: number;
  packId: string;
  tool: string;
  resolve: (reg: TabReg) => void;
  reject: (e: Error) => void;
}

interface CallWaiter {
  tabId: number;
  packId: string;
  resolve: (r: ToolResult) => void;
  reject: (e: Error) => void;
}

export class SiteRegistry {
  private readonly opts: RegistryOptions;
  private packList: PackRecord[] = [];
  private readonly byId = new Map<string, PackRecord>();
  private readonly conflicts = new Map<string, string>();
  private runtimeErrors = new Map<string, string>();
  private readonly tabs = new Map<number, TabReg>();
  private readonly pending = new Map<string, PendingCall[]>();
  private readonly calls = new Map<string, CallWaiter>();
  private openWaiters: OpenWaiter[] = [];
  private callCounter = 0;
  private persistQueued = false;

  constructor (opts: RegistryOptions) {
    this.opts = opts;
  }

  private now (): number {
    return this.opts.now?.() ?? Date.now();
  }

  private changed (): void {
    this.opts.onChange?.();
  }

  // ---- packs -------------------------------------------------------------

  // Bundled packs first (by name), then installed ones in the order given
  // (creation): a later pack whose domain or tool prefix is taken is
  // refused with the reason, never merged.
  setPacks (bundled: readonly PackRecord[], installed: readonly PackRecord[]): void {
    this.packList = [...[...bundled].sort((a, b) => a.meta.name.localeCompare(b.meta.name)), ...installed];
    this.byId.clear();
    this.conflicts.clear();
    const names = new Map<string, PackRecord>();
    const prefixes = new Map<string, PackRecord>();
    for (const p of this.packList) {
      this.byId.set(p.id, p);
      if (!p.enabled)
        continue;
      const byName = names.get(p.meta.name);
      const prefix = prefixOf(p);
      const byPrefix = prefixes.get(prefix);
      if (byName !== undefined)
        this.conflicts.set(p.id, `The ${byName.origin} site pack ${byName.id} already serves ${p.meta.name}; this one is not used.`);
      else if (byPrefix !== undefined)
        this.conflicts.set(p.id, `The tool prefix "${prefix}" is already used by the site pack ${byPrefix.meta.name}; set toolPrefix in this pack's meta to another prefix.`);
      else {
        names.set(p.meta.name, p);
        prefixes.set(prefix, p);
      }
    }
    for (const [tabId, reg] of this.tabs)
      if (!this.isActive(reg.packId))
        this.drop(tabId, 'the site pack was removed or turned off');
    this.changed();
  }

  setRuntimeErrors (errors: ReadonlyMap<string, string>): void {
    this.runtimeErrors = new Map(errors);
    this.changed();
  }

  packs (): readonly PackRecord[] {
    return this.packList;
  }

  pack (id: string): PackRecord | undefined {
    return this.byId.get(id);
  }

  conflictOf (id: string): string | null {
    return this.conflicts.get(id) ?? null;
  }

  isActive (id: string): boolean {
    const p = this.byId.get(id);
    return p !== undefined && p.enabled && !this.conflicts.has(id);
  }

  activePacks (): PackRecord[] {
    return this.packList.filter((p) => this.isActive(p.id));
  }

  // Why the pack's tools cannot run now, or null when they can.
  notReady (pack: PackRecord): string | null {
    const conflict = this.conflicts.get(pack.id);
    if (conflict !== undefined)
      return conflict;
    if (!pack.enabled)
      return `The site pack ${pack.meta.name} is turned off; turn it on with set_script_enabled.`;
    if (needsUserScripts(pack)) {
      const us = this.opts.userScripts();
      if (!us.available)
        return `The site pack ${pack.meta.name} (${pack.meta.type}) cannot run: ${us.reason ?? 'user scripts are not available.'}`;
    }
    const err = this.runtimeErrors.get(pack.id);
    if (err !== undefined)
      return `The site pack ${pack.meta.name} could not be set up to run: ${err}`;
    return null;
  }

  market (): MarketServer[] {
    return aggregateMarket(this.activePacks().map((p) => p.meta));
  }

  // ---- catalogue -----------------------------------------------------------

  // The site tools to list, in pack order: always-enabled packs with their
  // known tools, the others with the tools of their open tabs. A name that
  // is taken (by a management tool) or over the provider's 64 is refused.
  catalogue (): { accepted: CatalogueEntry[]; refused: CatalogueRefusal[] } {
    const reserved = this.opts.reserved();
    const taken = new Set(reserved);
    const accepted: CatalogueEntry[] = [];
    const refused: CatalogueRefusal[] = [];
    const room = MAX_TOOLS - reserved.size;
    const regs = [...this.tabs.values()].sort((a, b) => a.at - b.at);
    for (const pack of this.activePacks()) {
      const defs = new Map<string, SiteToolDef>();
      if (pack.meta.isAlwaysEnabled)
        for (const d of pack.tools)
          defs.set(d.name, d);
      // A tab adds nothing of its own: its registration is already narrowed
      // to the pack's installed definitions (narrowDefs).
      for (const r of regs)
        if (r.packId === pack.id)
          for (const d of r.tools)
            defs.set(d.name, d);
      const prefix = prefixOf(pack);
      for (const def of defs.values()) {
        const l1 = l1Name(prefix, def.name);
        let reason = checkPackToolName(prefix, def.name);
        if (reason === null && taken.has(l1))
          reason = `its name "${l1}" is taken by a tool of the provider`;
        if (reason === null && accepted.length >= room)
          reason = `the provider lists at most ${MAX_TOOLS} tools`;
        if (reason !== null) {
          refused.push({ pack, tool: def.name, reason });
          continue;
        }
        taken.add(l1);
        accepted.push({ l1, pack, def });
      }
    }
    return { accepted, refused };
  }

  // ---- tabs --------------------------------------------------------------

  openTabs (packId: string): number {
    let n = 0;
    for (const r of this.tabs.values())
      if (r.packId === packId)
        n++;
    return n;
  }

  pageErrors (packId: string): string[] {
    const out = new Set<string>();
    for (const r of this.tabs.values())
      if (r.packId === packId)
        r.errors.forEach((e) => out.add(e));
    return [...out];
  }

  private drop (tabId: number, why: string): void {
    const reg = this.tabs.get(tabId);
    if (reg === undefined)
      return;
    this.tabs.delete(tabId);
    this.pending.delete(`${tabId}:${reg.packId}`);
    for (const [id, w] of this.calls)
      if (w.tabId === tabId) {
        this.calls.delete(id);
        w.reject(new Error(`The page ${reg.url} went away while the tool ran (${why}); call it again.`));
      }
    this.persist();
    this.changed();
  }

  private persist (): void {
    const session = this.opts.session;
    if (session === undefined || this.persistQueued)
      return;
    this.persistQueued = true;
    queueMicrotask(() => {
      this.persistQueued = false;
      session.set({ [SESSION_KEY]: [...this.tabs.values()] }).catch((e) => this.opts.log?.('site tabs not saved:', e));
    });
  }

  // After a worker restart: the tabs that were registered and whose
  // document still answers.
  async restore (): Promise<void> {
    const session = this.opts.session;
    if (session === undefined)
      return;
    let saved: unknown;
    try {
      saved = (await session.get(SESSION_KEY))[SESSION_KEY];
    } catch {
      return;
    }
    if (!Array.isArray(saved))
      return;
    for (const r of saved as TabReg[]) {
      if (!isObj(r) || typeof r.tabId !== 'number' || !this.isActive(r.packId) || this.tabs.has(r.tabId))
        continue;
      const p = this.byId.get(r.packId) as PackRecord;
      this.tabs.set(r.tabId, { ...r, tools: narrowDefs(p, checkDefs(prefixOf(p), r.tools).defs).defs, errors: Array.isArray(r.errors) ? r.errors : [] });
    }
    this.changed();
    await Promise.all([...this.tabs.values()].map((r) => this.verify(r)));
  }

  private async verify (reg: TabReg): Promise<void> {
    try {
      await this.opts.browser.send(reg.tabId, reg.documentId, { type: MSG.ping });
    } catch {
      if (this.tabs.get(reg.tabId) === reg)
        this.drop(reg.tabId, 'its page is gone');
    }
  }

  onTabRemoved (tabId: number): void {
    for (const w of this.openWaiters.filter((x) => x.tabId === tabId))
      w.reject(new Error('The tab opened for the tool was closed before the page registered it.'));
    this.openWaiters = this.openWaiters.filter((x) => x.tabId !== tabId);
    this.drop(tabId, 'the tab was closed');
  }

  onTabUpdated (tabId: number, change: { url?: string; status?: string }): void {
    const reg = this.tabs.get(tabId);
    if (reg === undefined)
      return;
    if (change.url !== undefined) {
      const host = hostOf(change.url);
      const pack = this.byId.get(reg.packId);
      if (host === null || pack === undefined || packForHost(host, this.activePacks().map((p) => p.meta.name)) !== pack.meta.name) {
        this.drop(tabId, `the tab moved to ${host ?? 'another page'}`);
        return;
      }
    }
    if (change.status === 'complete')
      void this.verify(reg);
  }

  // ---- messages from pages -------------------------------------------------

  // Returns the answer, or undefined for messages that are not ours.
  async onMessage (message: unknown, sender: SenderLike, via: Via): Promise<Record<string, unknown> | undefined> {
    if (!isObj(message) || typeof message.type !== 'string')
      return undefined;
    switch (message.type) {
      case MSG.register:
        return this.register(message, sender, via);
      case MSG.pull:
        return this.pull(message, sender);
      case MSG.result:
        this.result(message, sender);
        return { ok: true };
      default:
        return undefined;
    }
  }

  private register (m: Record<string, unknown>, sender: SenderLike, via: Via): Record<string, unknown> {
    const pack = typeof m.pack === 'string' ? this.byId.get(m.pack) : undefined;
    if (pack === undefined)
      return { error: 'This site pack is not installed (any more); reload the page.' };
    const notActive = this.conflicts.get(pack.id) ?? (pack.enabled ? null : `The site pack ${pack.meta.name} is turned off.`);
    if (notActive !== null)
      return { error: notActive };
    const tabId = sender.tab?.id;
    if (typeof tabId !== 'number' || sender.frameId !== 0)
      return { error: 'Only the top frame of a tab registers site tools.' };
    const url = sender.url ?? sender.tab?.url ?? '';
    const host = hostOf(url);
    if (host === null || packForHost(host, this.activePacks().map((p) => p.meta.name)) !== pack.meta.name)
      return { error: `The site pack ${pack.meta.name} does not serve ${host ?? 'this page'}.` };
    const expected: Via = pack.origin === 'bundled' && pack.meta.type === 'contentScriptMcpServer' ? 'content' : 'userScript';
    if (via !== expected)
      return { error: `The site pack ${pack.meta.name} registers from ${expected === 'content' ? 'the content script' : 'its user script'}, not from here.` };
    if (via === 'userScript' && sender.userScriptWorldId !== undefined) {
      const world = this.opts.worldIdOf?.(pack);
      if (world !== undefined && sender.userScriptWorldId !== world)
        return { error: `The site pack ${pack.meta.name} registers from its own user script world.` };
    }
    const prefix = prefixOf(pack);
    const checked = checkDefs(prefix, m.tools);
    const { defs, refused: notOwn, warnings } = narrowDefs(pack, checked.defs);
    const refused = [...checked.refused, ...notOwn];
    const errors = Array.isArray(m.errors) ? m.errors.filter((e): e is string => typeof e === 'string').slice(0, 32).map((e) => truncateUtf8(e, 1024, '…')) : [];
    const reg: TabReg = { tabId, url, packId: pack.id, tools: defs, errors, at: this.now() };
    if (sender.documentId !== undefined)
      reg.documentId = sender.documentId;
    this.tabs.set(tabId, reg);
    this.persist();
    this.changed();
    for (const w of this.openWaiters.filter((x) => x.tabId === tabId && x.packId === pack.id && defs.some((d) => d.name === x.tool))) {
      this.openWaiters = this.openWaiters.filter((x) => x !== w);
      w.resolve(reg);
    }
    const { accepted: listed, refused: notListed } = this.catalogue();
    const names = new Set(defs.map((d) => d.name));
    return {
      accepted: listed.filter((e) => e.pack.id === pack.id && names.has(e.def.name)).map((e) => e.l1),
      refused: [...refused, ...notListed.filter((e) => e.pack.id === pack.id && names.has(e.tool)).map((e) => ({ name: e.tool, reason: e.reason }))],
      ...(warnings.length > 0 ? { warnings } : {}),
    };
  }

  private pull (m: Record<string, unknown>, sender: SenderLike): Record<string, unknown> {
    const tabId = sender.tab?.id;
    if (typeof tabId !== 'number' || typeof m.pack !== 'string')
      return { calls: [] };
    const key = `${tabId}:${m.pack}`;
    const calls = this.pending.get(key) ?? [];
    this.pending.delete(key);
    return { calls };
  }

  private result (m: Record<string, unknown>, sender: SenderLike): void {
    const w = typeof m.callId === 'string' ? this.calls.get(m.callId) : undefined;
    if (w === undefined || w.tabId !== sender.tab?.id || w.packId !== m.pack)
      return;
    this.calls.delete(m.callId as string);
    w.resolve(checkResult(m.result));
  }

  // ---- calls -------------------------------------------------------------

  private pickTab (packId: string, tool: string, tabs: readonly TabInfo[]): TabReg | null {
    const info = new Map(tabs.map((t) => [t.id, t]));
    const candidates = [...this.tabs.values()].filter((r) => r.packId === packId && r.tools.some((d) => d.name === tool));
    candidates.sort((a, b) => {
      const ta = info.get(a.tabId);
      const tb = info.get(b.tabId);
      return Number(tb?.active === true) - Number(ta?.active === true) ||
        (tb?.lastAccessed ?? 0) - (ta?.lastAccessed ?? 0) || b.at - a.at;
    });
    return candidates[0] ?? null;
  }

  private waitForRegistration (tabId: number, pack: PackRecord, tool: string, url: string): Promise<TabReg> {
    const now = this.tabs.get(tabId);
    if (now !== undefined && now.packId === pack.id && now.tools.some((d) => d.name === tool))
      return Promise.resolve(now);
    const ms = this.opts.openTimeoutMs ?? 45000;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.openWaiters = this.openWaiters.filter((x) => x !== w);
        reject(new Error(`Opened ${url} for "${tool}", but the page did not register that tool within ${Math.round(ms / 1000)} s. ` +
          'The page may need a login or another URL, or the pack failed there: its console shows lines starting with "[Lumo site packs]".'));
      }, ms);
      const w: OpenWaiter = {
        tabId, packId: pack.id, tool,
        resolve: (r) => { clearTimeout(timer); resolve(r); },
        reject: (e) => { clearTimeout(timer); reject(e); },
      };
      this.openWaiters.push(w);
    });
  }

  // Opens (or switches to) the pack's page for @tool and waits for it.
  private async jump (pack: PackRecord, tool: string): Promise<TabReg> {
    const url = pack.meta.toolsJumpLinks?.[tool] ?? pack.meta.url;
    const browser = this.opts.browser;
    const open = (await browser.queryTabs()).find((t) => t.url !== undefined && withoutHash(t.url) === withoutHash(url));
    let tabId: number;
    if (open !== undefined) {
      await browser.activateTab(open.id);
      tabId = open.id;
      // The page is open but its pack is not running there (it loaded
      // before the pack was installed or turned on): load it again.
      if (!this.tabs.has(tabId))
        await browser.reloadTab(tabId);
    } else {
      tabId = (await browser.createTab(url)).id;
    }
    this.opts.log?.(`site pack ${pack.meta.name}: opened ${url} for ${tool} in tab ${tabId}`);
    return this.waitForRegistration(tabId, pack, tool, url);
  }

  private async dispatch (pack: PackRecord, reg: TabReg, tool: string, args: Record<string, unknown>): Promise<ToolResult> {
    const ms = this.opts.callTimeoutMs ?? 120000;
    const callId = this.opts.newCallId?.() ?? `c${this.now().toString(36)}-${++this.callCounter}`;
    const late = (): Error => new Error(`The tool "${tool}" of ${pack.meta.name} did not answer within ${Math.round(ms / 1000)} s; the page may be busy or the handler never returns.`);
    const browser = this.opts.browser;
    if (pack.origin === 'bundled' && pack.meta.type === 'contentScriptMcpServer') {
      let timer: ReturnType<typeof setTimeout> | undefined;
      try {
        const answer = await Promise.race([
          browser.send(reg.tabId, reg.documentId, { type: MSG.call, pack: pack.id, callId, tool, args }).catch((e) => {
            throw new GoneError(e instanceof Error ? e.message : String(e));
          }),
          new Promise<never>((_r, reject) => { timer = setTimeout(() => reject(late()), ms); }),
        ]);
        return checkResult(answer);
      } finally {
        clearTimeout(timer);
      }
    }
    const key = `${reg.tabId}:${pack.id}`;
    const result = new Promise<ToolResult>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.calls.delete(callId);
        const q = this.pending.get(key);
        if (q !== undefined)
          this.pending.set(key, q.filter((c) => c.callId !== callId));
        reject(late());
      }, ms);
      this.calls.set(callId, {
        tabId: reg.tabId, packId: pack.id,
        resolve: (r) => { clearTimeout(timer); resolve(r); },
        reject: (e) => { clearTimeout(timer); reject(e); },
      });
    });
    this.pending.set(key, [...(this.pending.get(key) ?? []), { callId, tool, args }]);
    try {
      await browser.send(reg.tabId, reg.documentId, { type: MSG.nudge, pack: pack.id });
    } catch (e) {
      this.calls.get(callId)?.reject(new GoneError(e instanceof Error ? e.message : String(e)));
      this.calls.delete(callId);
      this.pending.delete(key);
    }
    return result;
  }

  // Runs @tool of @packId in the best tab, opening the pack's page first
  // when it is always enabled and no tab has the tool. Never throws.
  async invoke (packId: string, tool: string, args: Record<string, unknown>): Promise<ToolResult> {
    const pack = this.byId.get(packId);
    if (pack === undefined)
      return errorResult('This site pack is not installed any more.');
    const notReady = this.notReady(pack);
    if (notReady !== null)
      return errorResult(notReady);
    for (let attempt = 0; attempt < 2; attempt++) {
      let reg: TabReg | null;
      try {
        reg = this.pickTab(pack.id, tool, await this.opts.browser.queryTabs().catch(() => []));
        if (reg === null) {
          if (!pack.meta.isAlwaysEnabled)
            return errorResult(`No open tab of ${pack.meta.name} has the tool "${tool}": open ${pack.meta.url} first (this pack's tools are there only while such a tab is open).`);
          reg = await this.jump(pack, tool);
        }
      } catch (e) {
        return errorResult(e instanceof Error ? e.message : String(e));
      }
      try {
        return await this.dispatch(pack, reg, tool, args);
      } catch (e) {
        // A document that went away unnoticed: forget it and try the next
        // tab (or open the page) once.
        if (e instanceof GoneError && attempt === 0) {
          this.drop(reg.tabId, 'its page is gone');
          continue;
        }
        return errorResult(e instanceof GoneError
          ? `The page of ${pack.meta.name} could not be reached (${e.message}); reload it and call again.`
          : (e instanceof Error ? e.message : String(e)));
      }
    }
    return errorResult(`The page of ${pack.meta.name} could not be reached; reload it and call again.`);
  }

  // For tests and the popup: the host of each registered tab.
  registrations (): Array<{ tabId: number; packId: string; host: string | null; tools: string[] }> {
    return [...this.tabs.values()].map((r) => ({ tabId: r.tabId, packId: r.packId, host: hostOf(r.url), tools: r.tools.map((d) => d.name) }));
  }
}
