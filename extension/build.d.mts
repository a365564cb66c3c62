// SPDX-License-Identifier: GPL-3.0-or-later
// The types of what build.mjs exports, for the tests that drive it.

export class BuildError extends Error {}

export interface ProviderBuild {
  // "<name> (<type>; N tools: R read, W write)" per bundled pack.
  packs: string[];
  // "<dir>/<file>: <field>: why", said and built.
  warnings: string[];
}

export function buildProvider (opts: {
  outdir: string;
  siteDirs: string[];
  keyOverride?: string;
  onWarning?: (warning: string) => void;
}): Promise<ProviderBuild>;
