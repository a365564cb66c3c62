// SPDX-License-Identifier: GPL-3.0-or-later
// The pack folders of a root (<root>/<domain>/meta.ts + index.ts) as the
// build's check takes them, imported the way the build imports them.
import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PackInput } from '../src/sitepacks/inspect.ts';

export const REPO = fileURLToPath(new URL('../..', import.meta.url));

export async function loadFolder (root: string): Promise<PackInput[]> {
  if (!existsSync(root))
    return [];
  const out: PackInput[] = [];
  for (const folder of readdirSync(root).sort()) {
    const dir = join(root, folder);
    if (!existsSync(join(dir, 'meta.ts')))
      continue;
    out.push({
      folder, dir: relative(REPO, dir),
      meta: (await import(join(dir, 'meta.ts'))).default,
      register: (await import(join(dir, 'index.ts'))).default,
    });
  }
  return out;
}
