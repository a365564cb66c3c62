// SPDX-License-Identifier: GPL-3.0-or-later
//
// What the popup shows, gathered in the service worker.

import type { SiteRegistry, UserScriptsState } from '../sitepacks/registry.ts';
import type { BridgeNotice, BridgePolicy, BridgeState } from './bridge.ts';
import type { Provider } from './provider.ts';
import { summarize, type ScriptSummary } from './scripts.ts';

export interface SitePackStatus {
  name: string;
  type: string;
  origin: string;
  ready: boolean;
  reason: string | null;
  openTabs: number;
}

export interface StatusReport {
  // reason in English; notice for the popup to word in the UI language.
  bridge: { state: BridgeState; reason: string | null; notice: BridgeNotice | null };
  policy: BridgePolicy | null;
  openPorts: number;
  userScripts: boolean;
  userScriptsReason: string | null;
  scripts: ScriptSummary[];
  sitePacks: SitePackStatus[];
}

export async function statusReport (provider: Provider, sites: SiteRegistry, us: UserScriptsState): Promise<StatusReport> {
  return {
    bridge: { state: provider.bridge.state, reason: provider.bridge.reason, notice: provider.bridge.notice },
    policy: provider.policy,
    openPorts: provider.openPortCount,
    userScripts: us.available,
    userScriptsReason: us.reason,
    scripts: (await provider.store.list()).filter((s) => s.sitePack === undefined).map(summarize),
    sitePacks: sites.packs().map((p) => {
      const why = sites.notReady(p);
      return { name: p.meta.name, type: p.meta.type, origin: p.origin, ready: why === null, reason: why, openTabs: sites.openTabs(p.id) };
    }),
  };
}
