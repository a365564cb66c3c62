// SPDX-License-Identifier: GPL-3.0-or-later
//
// What every e2e driver shares: TAP output where each step builds on the
// ones before it (the first failure stops the run), waiting on a
// condition, the built binaries meson passes, and cleanups that run also
// on failure and on SIGTERM (meson's timeout).

import { accessSync, constants } from 'node:fs';
import { sleep } from './cdp.mjs';

let n = 0;
let failed = 0;
export const out = (line) => process.stdout.write(line + '\n');
export const note = (text) => String(text).split('\n').forEach((l) => out(`# ${l}`));

export class Bail extends Error {}

export async function step (name, fn) {
  n++;
  try {
    const detail = await fn();
    out(`ok ${n} - ${name}`);
    if (detail)
      note(detail);
  } catch (e) {
    failed++;
    out(`not ok ${n} - ${name}`);
    note(e instanceof Error ? e.message : String(e));
    // meson keeps a TAP diagnostic in its log file only; --print-errorlogs
    // shows stderr, so a failure in CI says why where it is read.
    console.error(`not ok ${n} - ${name}\n${e instanceof Error ? e.stack ?? e.message : String(e)}`);
    // Every step builds on the ones before it.
    throw new Bail();
  }
}

export function check (cond, message) {
  if (!cond)
    throw new Error(message);
}

export async function poll (fn, pred, what, timeoutMs = 10000, everyMs = 150) {
  const t0 = Date.now();
  let last;
  while (Date.now() - t0 < timeoutMs) {
    last = await fn();
    if (pred(last))
      return last;
    await sleep(everyMs);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last: ${JSON.stringify(last)}`);
}

// An executable meson passes in the environment variable @name.
export function need (name) {
  const v = process.env[name];
  if (!v)
    throw new Error(`${name} is not set: run this through meson test (suite e2e), which passes the built binaries`);
  try {
    accessSync(v, constants.X_OK);
  } catch {
    throw new Error(`${name}=${v} is not an executable file: build it first (ninja -C <builddir>)`);
  }
  return v;
}

export const cleanups = [];
let cleaning = null;
export async function cleanup () {
  if (cleaning)
    return cleaning;
  cleaning = (async () => {
    for (const fn of cleanups.reverse()) {
      try {
        await fn();
      } catch (e) {
        note(`cleanup: ${e.message}`);
      }
    }
  })();
  return cleaning;
}
for (const sig of ['SIGTERM', 'SIGINT']) {
  process.on(sig, () => {
    note(`${sig}: cleaning up`);
    cleanup().finally(() => process.exit(1));
  });
}

// Runs @main, cleans up, prints the plan and the closing line, and exits.
export async function runTap (main) {
  try {
    await main();
  } catch (e) {
    if (!(e instanceof Bail)) {
      failed++;
      out(`not ok ${++n} - the e2e driver failed`);
      note(e instanceof Error ? e.stack : String(e));
    }
  } finally {
    await cleanup();
  }
  out(`1..${n}`);
  note(`${n - failed} passed, ${failed} failed`);
  process.exit(failed > 0 ? 1 : 0);
}
