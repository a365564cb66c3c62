// SPDX-License-Identifier: GPL-3.0-or-later
//
// The redacted preview of a script write that the app shows a reviewer and
// keeps in the audit log. It describes the change (which script, how big,
// which source by digest, how many lines differ) and never carries the
// source itself: a short script could otherwise be read back from the log.

import { sha256Hex } from '../shared/sha256.ts';
import { byteLength } from './scripts.ts';

// Where a script runs: its match patterns; on an update the old and the
// new ones, so the reviewer sees where it will run from now on.
export type MatchesPreview = string[] | { old: string[]; new: string[] };

export interface ScriptPreview {
  uuid: string;
  name: string;
  bytes: number;
  sourceSha256: string;
  added: number;
  removed: number;
  enabled?: boolean;
  matches?: MatchesPreview;
  action: 'create' | 'update' | 'delete' | 'enable' | 'disable';
}

// The reviewer must see all of what is approved: a preview that would not
// fit the bridge's bound (docs/bridge-protocol.md) is refused, never cut.
export const MAX_PREVIEW_BYTES = 16 * 1024;

function lines (source: string): string[] {
  if (source.length === 0)
    return [];
  return source.replace(/\r\n?/g, '\n').replace(/\n$/, '').split('\n');
}

// Line counts of a change as multisets: a line added is one that the new
// source has more often than the old one. Moved lines count as unchanged;
// an exact LCS diff is quadratic and a reviewer needs the size of a change,
// not its alignment.
export function lineDiff (before: string, after: string): { added: number; removed: number } {
  const counts = new Map<string, number>();
  for (const l of lines(before))
    counts.set(l, (counts.get(l) ?? 0) + 1);
  let added = 0;
  for (const l of lines(after)) {
    const c = counts.get(l) ?? 0;
    if (c > 0)
      counts.set(l, c - 1);
    else
      added++;
  }
  let removed = 0;
  for (const c of counts.values())
    removed += c;
  return { added, removed };
}

export async function scriptPreview (action: ScriptPreview['action'], uuid: string, name: string,
  before: string, after: string, enabled?: boolean, matches?: MatchesPreview): Promise<ScriptPreview> {
  const p: ScriptPreview = {
    action, uuid, name,
    bytes: byteLength(after),
    sourceSha256: await sha256Hex(after),
    ...lineDiff(before, after),
  };
  if (enabled !== undefined)
    p.enabled = enabled;
  if (matches !== undefined)
    p.matches = matches;
  return p;
}
