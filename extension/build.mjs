#!/usr/bin/env node
// SPDX-License-Identifier: GPL-3.0-or-later
//
// Bundles the provider into dist/ (load it with --load-extension=extension/dist
// or "Load unpacked") and the e2e test caller into tests/e2e/caller/dist/.
//
// LUMO_MANIFEST_KEY changes the manifest "key" of the provider build:
//   unset   keep the committed dev key (ID hnoefmihgppanoiihkcpnjdpijlimfgh)
//   none    drop it, for a Chrome Web Store upload (the store assigns the ID)
//   <b64>   use this public key, e.g. the store item's, so an unpacked build
//           gets the store ID
import { build } from 'esbuild';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

const common = {
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'chrome120',
  sourcemap: 'linked',
  legalComments: 'none',
  logLevel: 'warning',
  // The SDK imports Ajv statically even when another validator is passed;
  // Ajv compiles with new Function, which MV3's CSP forbids, so keep it out.
  alias: { ajv: join(here, 'src/shims/ajv.ts'), 'ajv-formats': join(here, 'src/shims/ajv-formats.ts') },
};

function manifest (src, out, keyOverride) {
  const m = JSON.parse(readFileSync(src, 'utf8'));
  if (keyOverride === 'none')
    delete m.key;
  else if (keyOverride)
    m.key = keyOverride;
  writeFileSync(out, JSON.stringify(m, null, 2) + '\n');
}

async function buildExtension ({ root, entries, outdir, statics = [], keyOverride }) {
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  await build({ ...common, entryPoints: entries, outdir });
  manifest(join(root, 'manifest.json'), join(outdir, 'manifest.json'), keyOverride);
  for (const f of statics)
    cpSync(join(root, f), join(outdir, f));
}

await buildExtension({
  root: here,
  entries: { background: join(here, 'src/provider/background.ts'), popup: join(here, 'src/provider/popup.ts') },
  outdir: join(here, 'dist'),
  statics: ['popup.html'],
  keyOverride: process.env.LUMO_MANIFEST_KEY,
});

// The e2e test extensions, when the tests are there.
for (const [dir, entries, statics] of [
  ['caller', ['background', 'caller'], ['caller.html']],
  ['stub', ['background'], []],
]) {
  const root = join(here, '../tests/e2e', dir);
  if (!existsSync(join(root, 'manifest.json')))
    continue;
  await buildExtension({
    root,
    entries: Object.fromEntries(entries.map((e) => [e, join(root, `${e}.ts`)])),
    outdir: join(root, 'dist'),
    statics,
  });
}
