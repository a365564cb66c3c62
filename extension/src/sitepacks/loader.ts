// SPDX-License-Identifier: GPL-3.0-or-later
//
// The small content script on every http(s) page (the guide's loader):
// finds the pack that serves location.hostname among the bundled and
// installed ones and says so in the page's console, or that no tools are
// configured here. It answers the worker's pings and relays its nudges to
// packs in USER_SCRIPT worlds (see messages.ts). The packs themselves are
// elsewhere: a bundled contentScriptMcpServer pack is a content script of
// its own (content-pack.ts, only on its domain), the others user scripts.

import { BUNDLED_NAMES } from 'lumo:bundled-sites/loader';
import { INDEX_KEY, LOG_PREFIX, MSG, NUDGE_EVENT, type IndexEntry } from './messages.ts';
import { normalizeHost, packForHost } from './naming.ts';

const host = normalizeHost(location.hostname);

chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
  if (sender.id !== chrome.runtime.id || sender.tab !== undefined)
    return false;
  const m = message as { type?: string; pack?: string };
  if (m.type === MSG.ping) {
    sendResponse({ ok: true, host });
  } else if (m.type === MSG.nudge) {
    document.dispatchEvent(new CustomEvent(NUDGE_EVENT, { detail: String(m.pack) }));
    sendResponse({ ok: true });
  }
  return false;
});

export async function installedIndex (): Promise<IndexEntry[]> {
  try {
    const v = (await chrome.storage.local.get(INDEX_KEY))[INDEX_KEY];
    return Array.isArray(v) ? v.filter((e): e is IndexEntry => typeof e?.name === 'string' && typeof e?.id === 'string') : [];
  } catch {
    return [];
  }
}

async function main (): Promise<void> {
  const packs = new Map<string, { name: string; type: string; version: string; origin: string }>();
  for (const b of BUNDLED_NAMES)
    packs.set(b.name, { ...b, origin: 'bundled' });
  for (const e of await installedIndex())
    if (!packs.has(e.name))
      packs.set(e.name, { ...e, origin: 'installed' });
  const name = packForHost(host, packs.keys());
  if (name === null) {
    console.info(LOG_PREFIX, `No site pack serves ${host}: no MCP tools are configured for this domain.`);
    return;
  }
  const p = packs.get(name) as { type: string; version: string; origin: string };
  console.info(LOG_PREFIX, `Found the site pack ${name} ${p.version} (${p.origin}, ${p.type}) for ${host}; registering its tools…`);
}

void main();
