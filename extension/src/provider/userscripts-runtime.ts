// SPDX-License-Identifier: GPL-3.0-or-later
//
// Makes the stored scripts run: registers every enabled plain script that
// has match patterns with chrome.userScripts, and the site packs that run
// as user scripts (src/sitepacks/userscripts.ts). The API works only once
// the person has allowed user scripts for this extension (Chrome 138+: the
// "Allow User Scripts" toggle; 120–137: Developer mode); until then scripts
// are stored but inert, and the tools still work.

import type { PackScripts } from '../sitepacks/userscripts.ts';
import { userScriptsApi } from '../sitepacks/permission.ts';
import type { Script } from './scripts.ts';

type UserScriptsApi = {
  getScripts (filter?: { ids?: string[] }): Promise<Array<{ id: string }>>;
  register (scripts: Array<Record<string, unknown>>): Promise<void>;
  unregister (filter?: { ids?: string[] }): Promise<void>;
  configureWorld? (properties: { worldId?: string; messaging?: boolean }): Promise<void>;
};

function api (): UserScriptsApi | null {
  return userScriptsApi() as UserScriptsApi | null;
}

export function userScriptsAvailable (): boolean {
  return api() !== null;
}

// Registers everything again; returns, per pack, why its scripts could not
// be registered (an empty map when all went well or the API is off).
export async function syncUserScripts (scripts: readonly Script[], log?: (...a: unknown[]) => void,
  packs: readonly PackScripts[] = []): Promise<Map<string, string>> {
  const errors = new Map<string, string>();
  const us = api();
  if (us === null)
    return errors;
  try {
    await us.unregister();
    const wanted = scripts.filter((s) => s.sitePack === undefined && s.enabled && s.matches.length > 0);
    if (wanted.length > 0)
      await us.register(wanted.map((s) => ({ id: s.uuid, matches: s.matches, js: [{ code: s.source }], runAt: 'document_idle' })));
  } catch (e) {
    log?.('userScripts sync failed:', e instanceof Error ? e.message : e);
  }
  let defaultMessaging = false;
  for (const p of packs) {
    try {
      if (p.worldId !== undefined)
        await us.configureWorld?.({ worldId: p.worldId, messaging: true });
      else if (!defaultMessaging) {
        // Without worlds of their own, packs share the default world, and
        // so do plain userscripts: they can message the worker too.
        await us.configureWorld?.({ messaging: true });
        defaultMessaging = true;
      }
      await us.register(p.scripts as unknown as Array<Record<string, unknown>>);
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      errors.set(p.packId, why);
      log?.(`site pack ${p.packId} not registered:`, why);
    }
  }
  return errors;
}
