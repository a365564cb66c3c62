// SPDX-License-Identifier: GPL-3.0-or-later
//
// offscreen.html: runs each dry run (dry-run.ts) in a sandbox frame of its
// own, made for that run and removed after it, so nothing one pack's code
// left behind (globals, timers, patched prototypes) meets the next one. It
// accepts requests only from this extension's own contexts, never from a
// tab, and takes the answer only from that run's frame, with that run's id.

import { MSG } from './messages.ts';

function runInFreshFrame (id: string, code: string): Promise<unknown> {
  return new Promise((resolve) => {
    const frame = document.createElement('iframe');
    // sandbox.html is a manifest sandbox page (opaque origin, its CSP has
    // no network); the attribute says the same once more.
    frame.setAttribute('sandbox', 'allow-scripts');
    const onMessage = (e: MessageEvent): void => {
      if (e.source === null || e.source !== frame.contentWindow)
        return;
      const a = e.data as { id?: unknown } | null;
      if (a?.id !== id)
        return;
      window.removeEventListener('message', onMessage);
      frame.remove();
      resolve(a);
    };
    window.addEventListener('message', onMessage);
    frame.addEventListener('load', () => frame.contentWindow?.postMessage({ id, code }, '*'), { once: true });
    frame.src = 'sandbox.html';
    document.body.appendChild(frame);
  });
}

chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
  const m = message as { type?: string; id?: string; code?: string };
  if (m?.type !== MSG.dryRun || sender.id !== chrome.runtime.id || sender.tab !== undefined ||
      typeof m.id !== 'string' || typeof m.code !== 'string')
    return false;
  void runInFreshFrame(m.id, m.code).then(sendResponse);
  return true;
});
