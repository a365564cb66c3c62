// SPDX-License-Identifier: GPL-3.0-or-later
//
// The provider's service worker. Both external listeners are registered
// synchronously at the top level: Chrome dispatches the event that woke the
// worker only to listeners that exist when the first run of this file ends.

import { z } from 'zod';
import { isProbeChannel } from '../shared/protocol.ts';
import type { PortLike } from '../shared/port.ts';
import { chromeLastError, chromeNativeConnect } from './bridge.ts';
import { Provider } from './provider.ts';
import { ScriptStore } from './scripts.ts';
import { syncUserScripts } from './userscripts-runtime.ts';
import { runBench } from './bench.ts';
import { statusReport } from './status.ts';

// Zod probes for eval support with new Function, which MV3's CSP reports as
// a violation; say up front that there is none.
z.config({ jitless: true });

const log = (...args: unknown[]): void => console.info('[lumo]', ...args);

const store = new ScriptStore(chrome.storage.local);
const provider = new Provider({
  connectNative: chromeNativeConnect,
  lastError: chromeLastError,
  store,
  newUuid: () => crypto.randomUUID(),
  selfId: chrome.runtime.id,
  log,
});

chrome.runtime.onMessageExternal.addListener((message, sender, sendResponse) => {
  // Other channels belong to other protocols: no answer, port left free.
  if (!isProbeChannel(message))
    return false;
  provider.probe(message, sender).then(sendResponse, (e) => {
    sendResponse({ ok: false, error: `The provider failed: ${e instanceof Error ? e.message : String(e)}` });
  });
  return true;
});

chrome.runtime.onConnectExternal.addListener((port) => {
  provider.connect(port as unknown as PortLike);
});

// The popup asks for the status; only this extension's own pages can send
// on this (internal) channel.
chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
  if (sender.id !== chrome.runtime.id || (message as { type?: string })?.type !== 'lumo:status')
    return false;
  void statusReport(provider).then(sendResponse);
  return true;
});

chrome.storage.onChanged.addListener((_changes, area) => {
  if (area === 'local')
    void store.list().then((s) => syncUserScripts(s, log));
});

provider.start();
// Registrations survive worker restarts, but not an update of the
// extension or a change of the user-scripts toggle: make them match.
void store.list().then((s) => syncUserScripts(s, log));

// For the e2e driver and the benchmark, which evaluate in this worker over
// CDP. Holds no capability a page could reach.
Object.assign(globalThis, {
  lumoProvider: {
    ready: true,
    provider,
    store,
    bench: (opts: { iterations?: number; callerId: string }) => runBench(provider, opts),
  },
});
