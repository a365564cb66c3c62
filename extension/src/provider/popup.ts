// SPDX-License-Identifier: GPL-3.0-or-later
//
// The toolbar popup: whether Lumo Access is reachable (and if not, what to
// do), the policy in force, and the stored scripts. Decisions are made in
// the app; this only shows them. Every text is a message of _locales/ in
// the browser's UI language (test/locales.test.ts checks that each one used
// here is there in every language). What the site packs say about
// themselves stays as they say it: it is the text their tools answer with.

import { NATIVE_HOST_NAME } from '../shared/protocol.ts';
import { chromeMajor, userScriptsAdviceText } from '../sitepacks/permission.ts';
import { MAX_FRAME_BYTES, type BridgeNotice } from './bridge.ts';
import type { StatusReport } from './status.ts';

function el (id: string): HTMLElement {
  return document.getElementById(id) as HTMLElement;
}

function t (key: string, ...substitutions: Array<string | number>): string {
  return chrome.i18n.getMessage(key, substitutions.map(String));
}

function noticeText (notice: BridgeNotice | null): string {
  switch (notice?.code) {
    case 'not_yet':
      return t('bridgeNotYet');
    case 'connecting':
      return t('bridgeConnecting');
    case 'not_installed':
      return t('bridgeNotInstalled', NATIVE_HOST_NAME);
    case 'forbidden':
      return t('bridgeForbidden');
    case 'exited':
      return t('bridgeExited');
    case 'unreachable':
      return notice.detail !== null ? t('bridgeUnreachableBecause', notice.detail) : t('bridgeUnreachable');
    case 'refused':
      return t('bridgeRefused', notice.detail ?? '');
    case 'unavailable':
      return notice.detail !== null ? t('bridgeUnavailableBecause', notice.detail) : t('bridgeUnavailable');
    case 'too_large':
      return t('bridgeTooLarge', notice.detail ?? '', MAX_FRAME_BYTES);
    default:
      return t('popupNotConnected');
  }
}

function policyText (policy: NonNullable<StatusReport['policy']>): string {
  if (!policy.enabled)
    return t('policyOff');
  if (policy.writes)
    return t(policy.review ? 'policyWritesOnReviewed' : 'policyWritesOn');
  return t(policy.review ? 'policyWritesOffReviewed' : 'policyWritesOff');
}

function userScriptsText (): string {
  return userScriptsAdviceText(t, chromeMajor(navigator.userAgent), chrome.runtime.id);
}

// The static texts of popup.html, by data-i18n.
function translatePage (): void {
  // The language of the messages Chrome picked, which is what the page is
  // in (the UI language may have no translation here).
  document.documentElement.lang = t('locale');
  document.querySelectorAll<HTMLElement>('[data-i18n]').forEach((node) => {
    node.textContent = t(node.dataset.i18n ?? '');
  });
}

async function render (): Promise<void> {
  const r = await chrome.runtime.sendMessage({ type: 'lumo:status' }) as StatusReport;
  const state = el('state');
  state.className = `state ${r.bridge.state}`;
  state.textContent = r.bridge.state === 'ready'
    ? t(r.openPorts === 1 ? 'popupConnectedOne' : 'popupConnectedMany', r.openPorts)
    : noticeText(r.bridge.notice);
  el('policy').textContent = r.policy === null ? '' : policyText(r.policy);
  el('userscripts').textContent = r.userScripts ? '' : t('userScriptsOff', userScriptsText());
  const list = el('scripts');
  list.replaceChildren(...r.scripts.map((s) => {
    const li = document.createElement('li');
    li.textContent = t('scriptItem', s.name, s.matches.join(', ') || t('scriptNoPages'));
    if (!s.enabled)
      li.className = 'off';
    return li;
  }));
  if (r.scripts.length === 0)
    list.textContent = t('scriptsNone');
  const packs = el('sitepacks');
  packs.replaceChildren(...r.sitePacks.map((p) => {
    const li = document.createElement('li');
    const origin = t(p.origin === 'bundled' ? 'packOriginBundled' : 'packOriginInstalled');
    const kind = t(p.type === 'pageMcpServer' ? 'packKindPage' : 'packKindContentScript');
    li.textContent = p.openTabs === 0
      ? t('packItem', p.name, origin, kind)
      : t('packItemTabs', p.name, origin, kind, t(p.openTabs === 1 ? 'packTabsOne' : 'packTabsMany', p.openTabs));
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
    packs.textContent = t('packsNone');
}

if (typeof document !== 'undefined') {
  translatePage();
  void render();
}
