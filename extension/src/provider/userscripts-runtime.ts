// SPDX-License-Identifier: GPL-3.0-or-later
//
// Makes the stored scripts run: registers every enabled script that has
// match patterns with chrome.userScripts. The API exists only once the
// person has allowed user scripts for this extension (Chrome 120+: the
// "Allow User Scripts" toggle); until then scripts are stored but inert,
// and the tools still work.

import type { Script } from './scripts.ts';

type UserScriptsApi = {
  getScripts (filter?: { ids?: string[] }): Promise<Array<{ id: string }>>;
  register (scripts: Array<Record<string, unknown>>): Promise<void>;
  unregister (filter?: { ids?: string[] }): Promise<void>;
};

function api (): UserScriptsApi | null {
  try {
    const us = (globalThis as unknown as { chrome?: { userScripts?: UserScriptsApi } }).chrome?.userScripts;
    return us ?? null;
  } catch {
    return null;
  }
}

export function userScriptsAvailable (): boolean {
  return api() !== null;
}

export async function syncUserScripts (scripts: readonly Script[], log?: (...a: unknown[]) => void): Promise<void> {
  const us = api();
  if (us === null)
    return;
  try {
    await us.unregister();
    const wanted = scripts.filter((s) => s.enabled && s.matches.length > 0);
    if (wanted.length > 0)
      await us.register(wanted.map((s) => ({ id: s.uuid, matches: s.matches, js: [{ code: s.source }], runAt: 'document_idle' })));
  } catch (e) {
    log?.('userScripts sync failed:', e instanceof Error ? e.message : e);
  }
}
