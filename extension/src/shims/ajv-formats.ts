// SPDX-License-Identifier: GPL-3.0-or-later
// See ajv.ts: never called when the Cloudflare worker validator is used.
export default function addFormats (): void {
  throw new Error('ajv-formats is not bundled');
}
