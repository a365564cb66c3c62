// SPDX-License-Identifier: GPL-3.0-or-later
//
// The userscript store: every script under its own key in
// chrome.storage.local ("script:<uuid>"), so one write touches one script
// and a concurrent write to another script cannot lose it. Business rules
// (what a valid script is, what "not found" means) live here; the tools only
// translate them into MCP results. A script with a sitePack is an installed
// site pack (its source is the registration code; see src/sitepacks/).

import type { SiteToolDef } from '../sitepacks/runtime.ts';
import type { SitePackMeta } from '../sitepacks/types.ts';

// What an installed site pack keeps beside its source: the checked meta
// and the tool definitions its dry run registered.
export interface StoredSitePack {
  meta: SitePackMeta;
  tools: SiteToolDef[];
}

export interface Script {
  uuid: string;
  name: string;
  description: string;
  matches: string[];
  source: string;
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
  sitePack?: StoredSitePack;
}

export interface ScriptSummary {
  uuid: string;
  name: string;
  description: string;
  matches: string[];
  enabled: boolean;
  bytes: number;
  updatedAt: string;
  sitePack?: { name: string; type: string; version: string; isAlwaysEnabled: boolean; tools: string[] };
}

// chrome.storage.local's promise API, reduced to what the store needs.
export interface StorageAreaLike {
  get (keys?: string | string[] | null): Promise<Record<string, unknown>>;
  set (items: Record<string, unknown>): Promise<void>;
  remove (keys: string | string[]): Promise<void>;
}

export class ScriptError extends Error {
  override name = 'ScriptError';
}

const KEY_PREFIX = 'script:';
export const MAX_SOURCE_BYTES = 512 * 1024;
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function isUuid (value: unknown): value is string {
  return typeof value === 'string' && UUID_RE.test(value);
}

export function byteLength (s: string): number {
  return new TextEncoder().encode(s).length;
}

export function summarize (s: Script): ScriptSummary {
  const out: ScriptSummary = {
    uuid: s.uuid, name: s.name, description: s.description, matches: s.matches,
    enabled: s.enabled, bytes: byteLength(s.source), updatedAt: s.updatedAt,
  };
  if (s.sitePack !== undefined) {
    const m = s.sitePack.meta;
    out.sitePack = { name: m.name, type: m.type, version: m.version, isAlwaysEnabled: m.isAlwaysEnabled, tools: s.sitePack.tools.map((t) => t.name) };
  }
  return out;
}

function isScript (v: unknown): v is Script {
  const s = v as Script;
  return typeof v === 'object' && v !== null && isUuid(s.uuid) && typeof s.name === 'string' &&
    typeof s.source === 'string' && typeof s.enabled === 'boolean' && Array.isArray(s.matches);
}

export interface ScriptFields {
  name?: string;
  description?: string;
  matches?: string[];
  source?: string;
  enabled?: boolean;
  sitePack?: StoredSitePack;
}

function checkFields (f: ScriptFields): void {
  if (f.name !== undefined && f.name.trim().length === 0)
    throw new ScriptError('The script name is empty.');
  if (f.source !== undefined && byteLength(f.source) > MAX_SOURCE_BYTES)
    throw new ScriptError(`The script source is ${byteLength(f.source)} bytes; the limit is ${MAX_SOURCE_BYTES}.`);
}

export class ScriptStore {
  constructor (private readonly area: StorageAreaLike, private readonly now: () => Date = () => new Date()) {}

  async list (): Promise<Script[]> {
    const all = await this.area.get(null);
    return Object.entries(all)
      .filter(([k, v]) => k.startsWith(KEY_PREFIX) && isScript(v))
      .map(([, v]) => v as Script)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.uuid.localeCompare(b.uuid));
  }

  async get (uuid: string): Promise<Script | null> {
    if (!isUuid(uuid))
      return null;
    const key = KEY_PREFIX + uuid;
    const v = (await this.area.get(key))[key];
    return isScript(v) ? v : null;
  }

  async require (uuid: string): Promise<Script> {
    const s = await this.get(uuid);
    if (s === null)
      throw new ScriptError(`No script has the UUID ${uuid}.`);
    return s;
  }

  async create (uuid: string, f: ScriptFields & { name: string; source: string }): Promise<Script> {
    if (!isUuid(uuid))
      throw new ScriptError(`"${uuid}" is not a lowercase UUID.`);
    checkFields(f);
    if (await this.get(uuid) !== null)
      throw new ScriptError(`A script with the UUID ${uuid} already exists.`);
    const at = this.now().toISOString();
    const s: Script = {
      uuid, name: f.name.trim(), description: f.description ?? '', matches: f.matches ?? [],
      source: f.source, enabled: f.enabled ?? true, createdAt: at, updatedAt: at,
    };
    if (f.sitePack !== undefined)
      s.sitePack = f.sitePack;
    await this.area.set({ [KEY_PREFIX + uuid]: s });
    return s;
  }

  async update (uuid: string, f: ScriptFields): Promise<Script> {
    checkFields(f);
    const old = await this.require(uuid);
    const s: Script = {
      ...old,
      ...(f.name !== undefined ? { name: f.name.trim() } : {}),
      ...(f.description !== undefined ? { description: f.description } : {}),
      ...(f.matches !== undefined ? { matches: f.matches } : {}),
      ...(f.source !== undefined ? { source: f.source } : {}),
      ...(f.enabled !== undefined ? { enabled: f.enabled } : {}),
      ...(f.sitePack !== undefined ? { sitePack: f.sitePack } : {}),
      updatedAt: this.now().toISOString(),
    };
    await this.area.set({ [KEY_PREFIX + uuid]: s });
    return s;
  }

  async remove (uuid: string): Promise<Script> {
    const old = await this.require(uuid);
    await this.area.remove(KEY_PREFIX + uuid);
    return old;
  }
}
