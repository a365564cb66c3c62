// SPDX-License-Identifier: GPL-3.0-or-later
//
// The chrome.userScripts registrations of the site packs that run as user
// scripts: installed contentScriptMcpServer packs in a USER_SCRIPT world
// with messaging, and pageMcpServer packs (installed or bundled) in the
// MAIN world with a relay in a USER_SCRIPT world. Each pack gets a world of
// its own where Chrome has them (133+), so neither plain userscripts nor
// another pack can reach its messaging. Bundled contentScriptMcpServer packs
// need none of this: the loader content script runs them.

import { MSG } from './messages.ts';
import { excludePatterns, matchPatterns } from './naming.ts';
import type { PackRecord } from './registry.ts';
import { transformSource, userScriptCode } from './source.ts';

export interface UserScriptRegistration {
  id: string;
  matches: string[];
  excludeMatches?: string[];
  world: 'USER_SCRIPT' | 'MAIN';
  worldId?: string;
  runAt: 'document_start' | 'document_idle';
  allFrames: false;
  js: Array<{ file: string } | { code: string }>;
}

export interface PackScripts {
  packId: string;
  worldId: string | undefined;
  scripts: UserScriptRegistration[];
}

export const USER_RUNTIME_FILE = 'site-user.js';
export const MAIN_RUNTIME_FILE = 'site-main.js';
export const PACK_SCRIPT_PREFIX = 'sp-';
export const RELAY_SCRIPT_PREFIX = 'sr-';

export function worldIdFor (packId: string): string {
  return `sitepack-${packId}`;
}

export function isPackScriptId (id: string): boolean {
  return id.startsWith(PACK_SCRIPT_PREFIX) || id.startsWith(RELAY_SCRIPT_PREFIX);
}

// The registrations of each pack that runs as user scripts; a pack whose
// source cannot be prepared gets an error instead.
export function packRegistrations (packs: readonly PackRecord[], sourceOf: (id: string) => string | undefined,
  perPackWorlds: boolean): { packs: PackScripts[]; errors: Map<string, string> } {
  const out: PackScripts[] = [];
  const errors = new Map<string, string>();
  const names = packs.map((p) => p.meta.name);
  for (const p of packs) {
    if (p.origin === 'bundled' && p.meta.type === 'contentScriptMcpServer')
      continue;
    const config = { id: p.id, name: p.meta.name, type: p.meta.type, version: p.meta.version, origin: p.origin };
    let pack: { file: string } | { code: string };
    if (p.origin === 'bundled') {
      if (p.file === null) {
        errors.set(p.id, 'the bundled page pack has no script file (a build problem)');
        continue;
      }
      pack = { file: p.file };
    } else {
      const source = sourceOf(p.id);
      try {
        pack = { code: userScriptCode(config, transformSource(source ?? ''), p.meta.name) };
      } catch (e) {
        errors.set(p.id, `its source cannot run: ${e instanceof Error ? e.message : String(e)}`);
        continue;
      }
    }
    const worldId = perPackWorlds ? worldIdFor(p.id) : undefined;
    const base = {
      matches: matchPatterns(p.meta.name),
      ...(excludePatterns(p.meta.name, names).length > 0 ? { excludeMatches: excludePatterns(p.meta.name, names) } : {}),
      allFrames: false as const,
    };
    const scripts: UserScriptRegistration[] = [];
    if (p.meta.type === 'contentScriptMcpServer') {
      scripts.push({ ...base, id: PACK_SCRIPT_PREFIX + p.id, world: 'USER_SCRIPT', ...(worldId ? { worldId } : {}), runAt: 'document_idle',
        js: [{ file: USER_RUNTIME_FILE }, pack] });
    } else {
      scripts.push({ ...base, id: RELAY_SCRIPT_PREFIX + p.id, world: 'USER_SCRIPT', ...(worldId ? { worldId } : {}), runAt: 'document_start',
        js: [{ file: USER_RUNTIME_FILE }, { code: userScriptCode(config, null, p.meta.name) }] });
      scripts.push({ ...base, id: PACK_SCRIPT_PREFIX + p.id, world: 'MAIN', runAt: 'document_idle',
        js: [{ file: MAIN_RUNTIME_FILE }, pack] });
    }
    out.push({ packId: p.id, worldId, scripts });
  }
  return { packs: out, errors };
}

// So the messages of a world are recognised as ours when they arrive.
export const PACK_MESSAGE_TYPES: readonly string[] = [MSG.register, MSG.pull, MSG.result];
