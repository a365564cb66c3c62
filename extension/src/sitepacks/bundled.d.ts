// SPDX-License-Identifier: GPL-3.0-or-later
//
// Modules that build.mjs generates from the bundled packs
// (extension/sites/<domain>/, plus LUMO_SITE_DIRS). The loader gets the
// names; the service worker gets metas and tool definitions, never code
// (that is in each pack's own script). Both are checked where they are used.

declare module 'lumo:bundled-sites/loader' {
  export const BUNDLED_NAMES: ReadonlyArray<{ id: string; name: string; type: string; version: string }>;
}

declare module 'lumo:bundled-sites/worker' {
  export const BUNDLED_PACKS: ReadonlyArray<{ id: string; meta: unknown; tools: unknown; file: string | null }>;
}
