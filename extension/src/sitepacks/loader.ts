// SPDX-License-Identifier: GPL-3.0-or-later
//
// The content script on every http(s) page (the guide's loader): finds the
// pack that serves location.hostname among the bundled and installed ones,
// says so in the page's console (or that no tools are configured here),
// and runs a bundled contentScriptMcpServer pack right here, in the
// isolated world. Installed packs and page packs run as user scripts; for
// them this script only relays the worker's nudges (see messages.ts).

import { z } from 'zod';
import { BUNDLED_NAMES, CONTENT_PACKS } from 'lumo:bundled-sites/loader';
import { INDEX_KEY, LOG_PREFIX, MSG, NUDGE_EVENT, type IndexEntry } from './messages.ts';
import { normalizeHost, packForHost } from './naming.ts';
import { callSiteTool, cookieView, errorResult, runRegistration, toolDefs, type Registration } from './runtime.ts';

// No eval in content scripts (and zod's probe for it would be reported).
z.config({ jitless: true });

const host = normalizeHost(location.hostname);
let active: { id: string; name: string; version: string; reg: Registration } | null = null;

chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
  if (sender.id !== chrome.runtime.id || sender.tab !== undefined)
    return false;
  const m = message as { type?: string; pack?: string; tool?: string; args?: unknown };
  switch (m.type) {
    case MSG.ping:
      sendResponse({ ok: true, host });
      return false;
    case MSG.nudge:
      document.dispatchEvent(new CustomEvent(NUDGE_EVENT, { detail: String(m.pack) }));
      sendResponse({ ok: true });
      return false;
    case MSG.call: {
      const a = active;
      if (a === null || m.pack !== a.id) {
        sendResponse(errorResult(`The site pack is not running in this page (${host}); reload the page.`));
        return false;
      }
      console.debug(LOG_PREFIX, `${a.name}: running tool "${String(m.tool)}"`);
      void callSiteTool(a.reg, String(m.tool), m.args, (...x) => console.error(LOG_PREFIX, `${a.name}:`, ...x)).then(sendResponse);
      return true;
    }
    default:
      return false;
  }
});

async function installedIndex (): Promise<IndexEntry[]> {
  try {
    const v = (await chrome.storage.local.get(INDEX_KEY))[INDEX_KEY];
    return Array.isArray(v) ? v.filter((e): e is IndexEntry => typeof e?.name === 'string' && typeof e?.id === 'string') : [];
  } catch {
    return [];
  }
}

async function register (): Promise<void> {
  const a = active;
  if (a === null)
    return;
  for (const e of a.reg.errors)
    console.error(LOG_PREFIX, `${a.name}: ${e}`);
  let answer: { accepted?: string[]; refused?: Array<{ name: string; reason: string }>; error?: string } | undefined;
  try {
    answer = await chrome.runtime.sendMessage({ type: MSG.register, pack: a.id, tools: toolDefs(a.reg), errors: a.reg.errors });
  } catch (e) {
    console.warn(LOG_PREFIX, `${a.name}: the extension did not take the tools (${e instanceof Error ? e.message : String(e)}); reload the page.`);
    return;
  }
  if (answer?.error !== undefined) {
    console.warn(LOG_PREFIX, `${a.name}: ${answer.error}`);
    return;
  }
  const accepted = answer?.accepted ?? [];
  console.info(LOG_PREFIX, `${a.name}: registered ${accepted.length} tool${accepted.length === 1 ? '' : 's'}${accepted.length > 0 ? ': ' + accepted.join(', ') : ''}.`);
  for (const r of answer?.refused ?? [])
    console.warn(LOG_PREFIX, `${a.name}: tool "${r.name}" refused: ${r.reason}`);
}

async function main (): Promise<void> {
  const packs = new Map<string, { id: string; name: string; type: string; version: string; origin: string }>();
  for (const b of BUNDLED_NAMES)
    packs.set(b.name, { ...b, origin: 'bundled' });
  for (const e of await installedIndex())
    if (!packs.has(e.name))
      packs.set(e.name, { id: e.id, name: e.name, type: e.type, version: e.version, origin: 'installed' });
  const name = packForHost(host, packs.keys());
  if (name === null) {
    console.info(LOG_PREFIX, `No site pack serves ${host}: no MCP tools are configured for this domain.`);
    return;
  }
  const p = packs.get(name) as { id: string; name: string; type: string; version: string; origin: string };
  const content = CONTENT_PACKS.find((c) => c.id === p.id);
  if (content === undefined) {
    console.info(LOG_PREFIX, `Found the site pack ${name} for ${host} (${p.origin} ${p.type}); it registers its tools from a user script.`);
    return;
  }
  console.info(LOG_PREFIX, `Found the site pack ${name} ${content.version} for ${host}; registering its tools…`);
  const reg = await runRegistration(content.register, cookieView(() => document.cookie));
  active = { id: content.id, name, version: content.version, reg };
  await register();
}

// A page restored from the back/forward cache is a live document again,
// but the worker dropped it when it was hidden.
window.addEventListener('pageshow', (e) => {
  if (e.persisted)
    void register();
});

void main();
