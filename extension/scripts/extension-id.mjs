#!/usr/bin/env node
// SPDX-License-Identifier: GPL-3.0-or-later
//
// Prints the Chrome extension ID (and the manifest "key") for a key pair.
// Chrome derives an unpacked extension's ID from the manifest "key": the
// first 32 hex digits of SHA-256 over the DER SubjectPublicKeyInfo, each
// digit 0-f mapped to a-p. Pinning the key pins the ID, which the native
// messaging host manifest's allowed_origins and the app's allow-list need.
//
// usage: node scripts/extension-id.mjs <private-or-public.pem | manifest.json>
import { createHash, createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';

export function idFromSpki (der) {
  const hex = createHash('sha256').update(der).digest('hex').slice(0, 32);
  return [...hex].map((c) => String.fromCharCode(97 + parseInt(c, 16))).join('');
}

export function spkiFromFile (path) {
  const text = readFileSync(path, 'utf8');
  if (path.endsWith('.json')) {
    const key = JSON.parse(text).key;
    if (typeof key !== 'string') throw new Error(`${path} has no "key" field`);
    return Buffer.from(key, 'base64');
  }
  return createPublicKey(text).export({ type: 'spki', format: 'der' });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const path = process.argv[2];
  if (!path) {
    console.error('usage: extension-id.mjs <key.pem | manifest.json>');
    process.exit(2);
  }
  const der = spkiFromFile(path);
  console.log(`id:  ${idFromSpki(der)}`);
  console.log(`key: ${der.toString('base64')}`);
}
