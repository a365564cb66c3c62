// SPDX-License-Identifier: GPL-3.0-or-later
//
// SHA-256 hex over WebCrypto, which both the service worker and Node have.

import { canonicalize } from './canonical-json.ts';

function hex (buf: ArrayBuffer): string {
  return Array.from(new Uint8Array(buf), (b) => b.toString(16).padStart(2, '0')).join('');
}

export async function sha256Hex (data: string | Uint8Array): Promise<string> {
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
  return hex(await crypto.subtle.digest('SHA-256', bytes as BufferSource));
}

// The params hash the bridge carries for every write: SHA-256 hex of the
// RFC 8785 canonical JSON of the tool arguments.
export async function paramsHash (args: unknown): Promise<string> {
  return sha256Hex(canonicalize(args ?? {}));
}
