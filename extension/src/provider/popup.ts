// SPDX-License-Identifier: GPL-3.0-or-later
//
// The toolbar popup: whether Lumo Access is reachable (and if not, what to
// do), the policy in force, and the stored scripts. Decisions are made in
// the app; this only shows them.

import type { StatusReport } from './status.ts';

function el (id: string): HTMLElement {
  return document.getElementById(id) as HTMLElement;
}

async function render (): Promise<void> {
  const r = await chrome.runtime.sendMessage({ type: 'lumo:status' }) as StatusReport;
  const state = el('state');
  state.className = `state ${r.bridge.state}`;
  state.textContent = r.bridge.state === 'ready'
    ? `Connected to Lumo Access · ${r.openPorts} open ${r.openPorts === 1 ? 'session' : 'sessions'}`
    : (r.bridge.reason ?? 'Not connected to Lumo Access.');
  el('policy').textContent = r.policy === null ? ''
    : !r.policy.enabled ? 'Agent access is turned off in Lumo Access.'
    : `Agents: on · writes ${r.policy.writes ? 'on' : 'off'}${r.policy.review ? ' · each write reviewed' : ''}`;
  el('userscripts').textContent = r.userScripts ? ''
    : `Scripts are stored but do not run. ${r.userScriptsReason ?? ''}`;
  const list = el('scripts');
  list.replaceChildren(...r.scripts.map((s) => {
    const li = document.createElement('li');
    li.textContent = `${s.name} (${s.matches.join(', ') || 'no pages'})`;
    if (!s.enabled)
      li.className = 'off';
    return li;
  }));
  if (r.scripts.length === 0)
    list.textContent = 'No scripts yet.';
  const packs = el('sitepacks');
  packs.replaceChildren(...r.sitePacks.map((p) => {
    const li = document.createElement('li');
    const tabs = p.openTabs === 0 ? '' : ` · ${p.openTabs} open ${p.openTabs === 1 ? 'tab' : 'tabs'}`;
    li.textContent = `${p.name} (${p.origin}, ${p.type === 'pageMcpServer' ? 'page' : 'content script'})${tabs}`;
    if (!p.ready) {
      li.className = 'off';
      li.title = p.reason ?? '';
      const why = document.createElement('div');
      why.className = 'muted';
      why.textContent = p.reason ?? '';
      li.append(why);
    }
    return li;
  }));
  if (r.sitePacks.length === 0)
    packs.textContent = 'No site packs.';
}

void render();
