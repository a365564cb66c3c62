// SPDX-License-Identifier: GPL-3.0-or-later
//
// SiteBrowser and the pack records over the real chrome.* APIs, for the
// service worker. Kept apart from the registry so the tests never load it.

import type { Script } from '../provider/scripts.ts';
import { checkMeta } from './meta.ts';
import type { PackRecord, SiteBrowser, TabInfo } from './registry.ts';
import { checkDefs } from './registry.ts';
import { derivePrefix } from './naming.ts';

function info (t: chrome.tabs.Tab): TabInfo {
  const out: TabInfo = { id: t.id as number, active: t.active };
  if (t.url !== undefined)
    out.url = t.url;
  if (typeof t.lastAccessed === 'number')
    out.lastAccessed = t.lastAccessed;
  return out;
}

export function chromeSiteBrowser (): SiteBrowser {
  return {
    send: (tabId, documentId, message) => chrome.tabs.sendMessage(tabId, message, documentId !== undefined ? { documentId } : { frameId: 0 }),
    getTab: async (tabId) => {
      try {
        return info(await chrome.tabs.get(tabId));
      } catch {
        return null;
      }
    },
    queryTabs: async () => (await chrome.tabs.query({})).filter((t) => t.id !== undefined).map(info),
    createTab: async (url) => info(await chrome.tabs.create({ url, active: true })),
    reloadTab: async (tabId) => {
      await chrome.tabs.reload(tabId);
    },
    activateTab: async (tabId) => {
      const t = await chrome.tabs.update(tabId, { active: true });
      if (t?.windowId !== undefined)
        await chrome.windows.update(t.windowId, { focused: true }).catch(() => undefined);
    },
  };
}

// The bundled packs as build.mjs generated them, checked again: a pack that
// fails is left out with a log line (the build refuses such packs, so this
// only guards against a hand-edited dist).
export function bundledRecords (raw: ReadonlyArray<{ id: string; meta: unknown; tools: unknown; file: string | null }>,
  log?: (...a: unknown[]) => void): PackRecord[] {
  const out: PackRecord[] = [];
  for (const b of raw) {
    const c = checkMeta(b.meta);
    if (!c.ok) {
      log?.(`bundled site pack ${b.id} left out:`, c.problems.map((p) => `${p.field}: ${p.message}`).join('; '));
      continue;
    }
    const { defs } = checkDefs(c.meta.toolPrefix ?? derivePrefix(c.meta.name), b.tools);
    out.push({ id: b.id, origin: 'bundled', meta: c.meta, tools: defs, enabled: true, file: b.file });
  }
  return out;
}

export function installedRecord (s: Script): PackRecord | null {
  if (s.sitePack === undefined)
    return null;
  const c = checkMeta(s.sitePack.meta);
  if (!c.ok)
    return null;
  const { defs } = checkDefs(c.meta.toolPrefix ?? derivePrefix(c.meta.name), s.sitePack.tools);
  return { id: s.uuid, origin: 'installed', meta: c.meta, tools: defs, enabled: s.enabled, file: null };
}
