// SPDX-License-Identifier: GPL-3.0-or-later
//
// What the popup shows, gathered in the service worker.

import type { BridgePolicy, BridgeState } from './bridge.ts';
import type { Provider } from './provider.ts';
import { summarize, type ScriptSummary } from './scripts.ts';
import { userScriptsAvailable } from './userscripts-runtime.ts';

export interface StatusReport {
  bridge: { state: BridgeState; reason: string | null };
  policy: BridgePolicy | null;
  openPorts: number;
  userScripts: boolean;
  scripts: ScriptSummary[];
}

export async function statusReport (provider: Provider): Promise<StatusReport> {
  return {
    bridge: { state: provider.bridge.state, reason: provider.bridge.reason },
    policy: provider.policy,
    openPorts: provider.openPortCount,
    userScripts: userScriptsAvailable(),
    scripts: (await provider.store.list()).map(summarize),
  };
}
