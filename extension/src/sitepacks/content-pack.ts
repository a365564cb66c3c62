// SPDX-License-Identifier: GPL-3.0-or-later
//
// A bundled contentScriptMcpServer pack as a content script of its own
// (build.mjs makes one per pack, matching only its domain): it runs the
// registration function in the isolated world, registers the tools with
// the worker and answers its calls. The guide's contentScriptMcpServer,
// with no User Scripts permission needed.

import { z } from 'zod';
import { INDEX_KEY, LOG_PREFIX, MSG } from './messages.ts';
import { normalizeHost, packForHost } from './naming.ts';
import { callSiteTool, cookieView, errorResult, runRegistration, toolDefs, type Registration } from './runtime.ts';

// No eval in content scripts (and zod's probe for it would be reported).
z.config({ jitless: true });

export interface ContentPackConfig {
  id: string;
  name: string;
  version: string;
  // Every bundled pack name, to see whether a more specific one serves
  // this host.
  bundledNames: string[];
}

export function startContentPack (config: ContentPackConfig, register: unknown): void {
  const host = normalizeHost(location.hostname);
  let reg: Registration | null = null;

  chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
    if (sender.id !== chrome.runtime.id || sender.tab !== undefined)
      return false;
    const m = message as { type?: string; pack?: string; tool?: string; args?: unknown };
    if (m.type !== MSG.call || m.pack !== config.id)
      return false;
    if (reg === null) {
      sendResponse(errorResult(`The site pack ${config.name} is not running in this page (${host}); reload the page.`));
      return false;
    }
    console.debug(LOG_PREFIX, `${config.name}: running tool "${String(m.tool)}"`);
    void callSiteTool(reg, String(m.tool), m.args, (...x) => console.error(LOG_PREFIX, `${config.name}:`, ...x)).then(sendResponse);
    return true;
  });

  const announce = async (): Promise<void> => {
    if (reg === null)
      return;
    for (const e of reg.errors)
      console.error(LOG_PREFIX, `${config.name}: ${e}`);
    let a: { accepted?: string[]; refused?: Array<{ name: string; reason: string }>; warnings?: Array<{ name: string; reason: string }>; error?: string } | undefined;
    try {
      a = await chrome.runtime.sendMessage({ type: MSG.register, pack: config.id, tools: toolDefs(reg), errors: reg.errors });
    } catch (e) {
      console.warn(LOG_PREFIX, `${config.name}: the extension did not take the tools (${e instanceof Error ? e.message : String(e)}); reload the page.`);
      return;
    }
    if (a?.error !== undefined) {
      console.warn(LOG_PREFIX, `${config.name}: ${a.error}`);
      return;
    }
    const acc = a?.accepted ?? [];
    console.info(LOG_PREFIX, `${config.name}: registered ${acc.length} tool${acc.length === 1 ? '' : 's'}${acc.length > 0 ? ': ' + acc.join(', ') : ''}.`);
    for (const r of a?.refused ?? [])
      console.warn(LOG_PREFIX, `${config.name}: tool "${r.name}" refused: ${r.reason}`);
    for (const w of a?.warnings ?? [])
      console.warn(LOG_PREFIX, `${config.name}: tool "${w.name}": ${w.reason}`);
  };

  // A page restored from the back/forward cache is a live document again,
  // but the worker dropped it when it was hidden.
  window.addEventListener('pageshow', (e) => {
    if (e.persisted)
      void announce();
  });

  void (async () => {
    let installed: string[] = [];
    try {
      const v = (await chrome.storage.local.get(INDEX_KEY))[INDEX_KEY];
      installed = Array.isArray(v) ? v.map((e) => e?.name).filter((n): n is string => typeof n === 'string') : [];
    } catch {
      // no installed packs to consider
    }
    // Chrome matched the domain; a more specific installed pack may still
    // own this subdomain.
    if (packForHost(host, [...config.bundledNames, ...installed]) !== config.name)
      return;
    reg = await runRegistration(register, cookieView(() => document.cookie));
    await announce();
  })();
}
