// SPDX-License-Identifier: GPL-3.0-or-later
//
// Pieces both e2e drivers (run-e2e.mjs, run-agents.mjs) build their world
// from: a Chromium profile that knows the helper, lumo-access-ctl on the
// run's bus, and the files of a directory (to look for what must never be
// stored).

import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

// A profile at @dir: the native host manifest naming @host for @provider,
// and whether user scripts are allowed for it (chrome.userScripts works
// only then).
export function makeProfile (dir, { host, provider, userScripts = true }) {
  mkdirSync(join(dir, 'NativeMessagingHosts'), { recursive: true });
  mkdirSync(join(dir, 'Default'), { recursive: true });
  writeFileSync(join(dir, 'NativeMessagingHosts', 'dev.lumo.access.json'), JSON.stringify({
    name: 'dev.lumo.access', description: 'Lumo Access (e2e)', path: host, type: 'stdio',
    allowed_origins: [`chrome-extension://${provider}/`],
  }, null, 2));
  writeFileSync(join(dir, 'Default', 'Preferences'), JSON.stringify({
    extensions: { settings: { [provider]: { user_scripts_enabled: userScripts } } },
  }));
  return dir;
}

// Every regular file under @dir.
export function filesUnder (dir) {
  const files = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory())
      files.push(...filesUnder(p));
    else if (e.isFile())
      files.push(p);
  }
  return files;
}

// lumo-access-ctl (@ctl) on @bus: ctlRun gives its stdout, ctlJson its
// --json answer; a failure says the command and the CLI's stderr.
export function ctlRunner (ctl, bus) {
  const ctlRun = async (...args) => {
    try {
      const { stdout } = await run(ctl, args, { env: bus.env, timeout: 20000 });
      return stdout;
    } catch (e) {
      throw new Error(`lumo-access-ctl ${args.join(' ')} failed: ${e.stderr || e.message}`);
    }
  };
  const ctlJson = async (...args) => JSON.parse(await ctlRun(...args, '--json'));
  return { ctlRun, ctlJson };
}
