// SPDX-License-Identifier: GPL-3.0-or-later
//
// Modules that build.mjs generates from the bundled packs
// (extension/sites/<domain>/, plus LUMO_SITE_DIRS). The loader content
// script gets the registration code of the contentScriptMcpServer packs;
// the service worker gets only metas and tool definitions, never code.
// Both are checked again where they are used.

declare module 'lumo:bundled-sites/loader' {
  export const BUNDLED_NAMES: ReadonlyArray<{ id: string; name: string; type: string; version: string }>;
  export const CONTENT_PACKS: ReadonlyArray<{ id: string; name: string; version: string; register: unknown }>;
}

declare module 'lumo:bundled-sites/worker' {
  export const BUNDLED_PACKS: ReadonlyArray<{ id: string; meta: unknown; tools: unknown; file: string | null }>;
}
