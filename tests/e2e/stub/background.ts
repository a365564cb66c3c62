// SPDX-License-Identifier: GPL-3.0-or-later
//
// A stub provider for the e2e: answers the L0 probe in the mode the driver
// set (silent, protocol error, incomplete, not ready), so every row of the
// host's state table is reached through Chrome for real.
type Mode = 'silent' | 'protocol' | 'incomplete' | 'not_ready';
let mode: Mode = 'silent';

chrome.runtime.onMessageExternal.addListener((message, _sender, sendResponse) => {
  if ((message as { channel?: string })?.channel !== 'lumo:probe')
    return false;
  const service = { namespace: 'stub', name: 'Stub', version: '0.1.0' };
  switch (mode) {
    case 'silent':
      return true; // keeps the channel open and never answers
    case 'protocol':
      sendResponse({ ok: false, error: 'Unsupported probe version for this stub.' });
      return false;
    case 'incomplete':
      sendResponse({ ok: true, service });
      return false;
    case 'not_ready':
      sendResponse({ ok: true, service, status: { enabled: true, authorized: true, ready: false, pendingApproval: false, reason: 'The stub has no tools yet.' } });
      return false;
  }
});

Object.assign(globalThis, { lumoStub: { ready: true, setMode: (m: Mode) => { mode = m; } } });
