// SPDX-License-Identifier: GPL-3.0-or-later
//
// offscreen.html: holds the sandbox frame for dry runs (dry-run.ts) and
// passes the worker's requests to it. It accepts requests only from this
// extension's own contexts, never from a tab.

import { MSG } from './messages.ts';

const frame = document.createElement('iframe');
const loaded = new Promise<void>((resolve) => frame.addEventListener('load', () => resolve(), { once: true }));
frame.src = 'sandbox.html';
document.body.appendChild(frame);

const waiting = new Map<string, (answer: unknown) => void>();
window.addEventListener('message', (e) => {
  if (e.source !== frame.contentWindow)
    return;
  const a = e.data as { id?: unknown };
  if (typeof a?.id === 'string') {
    waiting.get(a.id)?.(a);
    waiting.delete(a.id);
  }
});

chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
  const m = message as { type?: string; id?: string; code?: string };
  if (m?.type !== MSG.dryRun || sender.id !== chrome.runtime.id || sender.tab !== undefined || typeof m.id !== 'string')
    return false;
  const id = m.id;
  void loaded.then(() => {
    waiting.set(id, sendResponse);
    frame.contentWindow?.postMessage({ id, code: m.code }, '*');
  });
  return true;
});
