// SPDX-License-Identifier: GPL-3.0-or-later
//
// Makes the stored scripts run: registers every enabled plain script that
// has match patterns with chrome.userScripts, and the site packs that run
// as user scripts (src/sitepacks/userscripts.ts). The API works only once
// the person has allowed user scripts for this extension (Chrome 138+: the
// "Allow User Scripts" toggle; 120–137: Developer mode); until then scripts
// are stored but inert, and the tools still work.
//
// A sync changes only what changed: scripts that are no longer wanted are
// unregistered, changed ones updated in place, new ones registered, and the
// rest left alone. Unregistering everything and registering it again would
// leave a moment in which a page that loads gets none of its scripts (its
// site pack then never registers there); a write happens while tabs load.

import type { PackScripts } from '../sitepacks/userscripts.ts';
import { userScriptsApi } from '../sitepacks/permission.ts';
import type { Script } from './scripts.ts';

export type UserScriptsApi = {
  getScripts (filter?: { ids?: string[] }): Promise<Array<{ id: string }>>;
  register (scripts: Array<Record<string, unknown>>): Promise<void>;
  update (scripts: Array<Record<string, unknown>>): Promise<void>;
  unregister (filter?: { ids?: string[] }): Promise<void>;
  configureWorld? (properties: { worldId?: string; messaging?: boolean }): Promise<void>;
};

export function userScriptsAvailable (): boolean {
  return userScriptsApi() !== null;
}

interface Wanted {
  // The pack whose scripts these are, or null for a plain script.
  packId: string | null;
  scripts: Array<Record<string, unknown>>;
}

function why (e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export class UserScriptSync {
  // What this worker registered, by script id: the registration as JSON.
  // Empty after a worker restart: then every script Chrome has is updated
  // once (in place, so pages keep getting it meanwhile).
  private readonly registered = new Map<string, string>();

  constructor (private readonly api: () => UserScriptsApi | null = () => userScriptsApi() as UserScriptsApi | null,
    private readonly log?: (...a: unknown[]) => void) {}

  // Brings Chrome's registrations to @scripts and @packs; returns, per
  // pack, why its scripts could not be registered (empty when all went
  // well or the API is off).
  async sync (scripts: readonly Script[], packs: readonly PackScripts[] = []): Promise<Map<string, string>> {
    const errors = new Map<string, string>();
    const us = this.api();
    if (us === null) {
      // Turned off: what Chrome keeps is not known any more.
      this.registered.clear();
      return errors;
    }
    const wanted: Wanted[] = scripts.filter((s) => s.sitePack === undefined && s.enabled && s.matches.length > 0)
      .map((s) => ({ packId: null, scripts: [{ id: s.uuid, matches: s.matches, js: [{ code: s.source }], runAt: 'document_idle' }] }));
    for (const p of packs)
      wanted.push({ packId: p.packId, scripts: p.scripts as unknown as Array<Record<string, unknown>> });

    let existing: Set<string>;
    try {
      existing = new Set((await us.getScripts()).map((s) => s.id));
    } catch (e) {
      this.log?.('userScripts sync failed:', why(e));
      for (const p of packs)
        errors.set(p.packId, why(e));
      return errors;
    }
    const ids = new Set(wanted.flatMap((w) => w.scripts.map((s) => s.id as string)));
    const stale = [...existing].filter((id) => !ids.has(id));
    if (stale.length > 0) {
      try {
        await us.unregister({ ids: stale });
      } catch (e) {
        this.log?.('userScripts: stale scripts not unregistered:', why(e));
      }
    }
    for (const id of stale)
      this.registered.delete(id);

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
      } catch (e) {
        errors.set(p.packId, why(e));
      }
    }

    for (const w of wanted) {
      if (w.packId !== null && errors.has(w.packId))
        continue;
      const changed = w.scripts.filter((s) => this.registered.get(s.id as string) !== JSON.stringify(s));
      const toUpdate = changed.filter((s) => existing.has(s.id as string));
      const toRegister = changed.filter((s) => !existing.has(s.id as string));
      try {
        if (toUpdate.length > 0)
          await us.update(toUpdate);
        if (toRegister.length > 0)
          await us.register(toRegister);
        for (const s of changed)
          this.registered.set(s.id as string, JSON.stringify(s));
      } catch (e) {
        for (const s of changed)
          this.registered.delete(s.id as string);
        if (w.packId !== null) {
          errors.set(w.packId, why(e));
          this.log?.(`site pack ${w.packId} not registered:`, why(e));
        } else {
          this.log?.(`userscript ${w.scripts[0]?.id as string} not registered:`, why(e));
        }
      }
    }
    return errors;
  }
}
