#!/usr/bin/env node
// SPDX-License-Identifier: GPL-3.0-or-later
//
// "Try it": Debian's Chromium, in a throwaway profile, with the provider
// extension (Lumo Userscripts, extension/dist) and the sample caller (the
// connector as an agent extension uses it, tests/e2e/caller/dist), against
// the running Lumo Access app (started here, with a throwaway data
// directory, if none runs). Nothing is simulated: the caller probes the
// provider, the provider asks the app over native messaging, and you decide
// in the app's window.
//
//   1. The caller probes: its request appears on the Requests page (and as a
//      notification when the window is not in front). Approve it.
//   2. The caller creates a small script: the write waits for your review on
//      the Requests page. Approve it.
//   3. It keeps writing. Turn off "Review each write" on the Access page and
//      watch the Activity meter fill to 30 in a minute and the next write be
//      refused; every attempt is on the Audit page.
//
// usage: node tools/try-it.mjs [BUILD_DIR]      (tools/try-it.sh builds first)
// Ctrl+C stops the browser (and the app, if this started it) and removes the
// temporary directories.

import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Browser, CHROMIUM_FLAGS, sleep } from '../tests/e2e/lib/cdp.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const build = resolve(repo, process.argv[2] ?? '_build');
const PROVIDER = 'hnoefmihgppanoiihkcpnjdpijlimfgh';
const CALLER = 'jedonckdloihdbdhofoldalhdemkmefm';
const chromium = process.env.CHROMIUM ?? '/usr/lib/chromium/chromium';
const app = join(build, 'src/app/lumo-access');
const host = join(build, 'src/host/lumo-access-host');
const extensions = [join(repo, 'extension/dist'), join(repo, 'tests/e2e/caller/dist')];

const say = (text) => process.stdout.write(`\n${text}\n`);
const cleanups = [];
let stopping = false;

async function stop (code) {
  if (stopping)
    return;
  stopping = true;
  for (const c of cleanups.reverse()) {
    try {
      await c();
    } catch {
      // Best effort: the rest still runs.
    }
  }
  process.exit(code);
}
process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));

function appRunning () {
  try {
    const out = execFileSync('gdbus', ['call', '--session', '--dest', 'org.freedesktop.DBus',
      '--object-path', '/org/freedesktop/DBus', '--method', 'org.freedesktop.DBus.NameHasOwner',
      'dev.lumo.Access'], { encoding: 'utf8' });
    return out.includes('true');
  } catch {
    return false;
  }
}

async function main () {
  for (const [path, what] of [[chromium, 'Chromium (apt-get install chromium)'], [app, 'the app (meson compile)'],
    [host, 'lumo-access-host (meson compile)'], ...extensions.map((e) => [join(e, 'manifest.json'), `${e} (npm run build in extension/)`])]) {
    if (!existsSync(path))
      throw new Error(`missing ${what}: ${path}`);
  }
  if (!process.env.DBUS_SESSION_BUS_ADDRESS)
    throw new Error('no session bus: run this inside your desktop session, or under dbus-run-session');

  const root = mkdtempSync(join(tmpdir(), 'lumo-try-it-'));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));

  if (!appRunning()) {
    const data = join(root, 'data');
    say(`Starting Lumo Access with a throwaway data directory (${data}).`);
    const proc = spawn(app, [], { env: { ...process.env, LUMO_ACCESS_DATA_DIR: data }, stdio: 'ignore' });
    cleanups.push(() => proc.kill('SIGTERM'));
    for (let i = 0; i < 100 && !appRunning(); i++)
      await sleep(100);
    if (!appRunning())
      throw new Error('Lumo Access did not start');
  } else {
    say('Using the Lumo Access that is running (its window: lumo-access, or your app menu).');
  }

  // The profile: the native-messaging host manifest for the provider, and
  // user scripts allowed for it (so a created script would run on pages).
  const profile = join(root, 'profile');
  mkdirSync(join(profile, 'NativeMessagingHosts'), { recursive: true });
  mkdirSync(join(profile, 'Default'), { recursive: true });
  writeFileSync(join(profile, 'NativeMessagingHosts', 'dev.lumo.access.json'), JSON.stringify({
    name: 'dev.lumo.access', description: 'Lumo Access (try it)', path: host, type: 'stdio',
    allowed_origins: [`chrome-extension://${PROVIDER}/`],
  }, null, 2));
  writeFileSync(join(profile, 'Default', 'Preferences'), JSON.stringify({
    extensions: { settings: { [PROVIDER]: { user_scripts_enabled: true } } },
  }));

  // A visible browser when there is a display; the caller's page shows
  // what it does.
  const flags = CHROMIUM_FLAGS.filter((f) => !(process.env.DISPLAY && f.startsWith('--headless')));
  const proc = spawn(chromium, [
    ...flags, '--remote-debugging-pipe', `--user-data-dir=${profile}`,
    `--disable-extensions-except=${extensions.join(',')}`, `--load-extension=${extensions.join(',')}`,
    'about:blank',
  ], { env: process.env, detached: true, stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] });
  const browser = new Browser(proc);
  cleanups.push(() => browser.close());

  // The caller's page, once the provider's worker runs (a page opened before
  // the extensions are loaded would be an error page).
  await browser.waitForTarget((t) => t.type === 'service_worker' && t.url === `chrome-extension://${PROVIDER}/background.js`,
    'the provider\'s service worker', 30000);
  const { targetId } = await browser.send('Target.createTarget', { url: `chrome-extension://${CALLER}/caller.html` });
  const cs = await browser.attach(targetId);
  await browser.waitFor(cs, 'globalThis.lumoTest?.ready === true', 'the caller page');
  const ev = (expr, timeoutMs = 180000) => browser.evaluate(cs, expr, timeoutMs);
  const probe = () => ev(`lumoTest.probe(${JSON.stringify(PROVIDER)})`);
  const call = (name, args = {}) => ev(`lumoTest.call(${JSON.stringify(name)}, ${JSON.stringify(args)})`);

  say(`Chromium runs with Lumo Userscripts (${PROVIDER}) and the sample caller "Lumo E2E Caller" (${CALLER}).`);

  // 1. The probe, until a person decides.
  let p = await probe();
  let shown = '';
  while (p.row !== 'connected') {
    if (p.message !== shown) {
      say(`The caller probes the provider: "${p.message}"`);
      if (p.row === 'pending_approval')
        say('→ In Lumo Access, Requests page: approve "Lumo E2E Caller".');
      else if (p.row === 'not_authorized')
        say('→ It was denied. Allow it on the Access page (Denied Agents → Allow), or press Ctrl+C.');
      shown = p.message;
    }
    await sleep(1000);
    p = await probe();
  }
  say(`Approved: "${p.message}".`);

  // 2. A read and a first write, reviewed by the person.
  const session = await ev(`lumoTest.refresh(${JSON.stringify(PROVIDER)})`);
  say(`The caller opened an MCP session and sees ${session.tools?.length ?? 0} tools.`);
  const list = await call('userscripts.list_scripts');
  say(`A read (userscripts.list_scripts) needs no review: ${list.isError ? list.text : 'done'}.`);

  say('A write (userscripts.create_script) now waits for your review.\n→ Requests page: look at the preview (no source is shown) and approve it.');
  const created = await call('userscripts.create_script', {
    name: 'Try it: hello', matches: ['https://example.com/*'],
    source: 'console.log("Hello from the Lumo Access try-it script");\n',
  });
  if (created.isError) {
    say(`The write was refused: "${created.text}". Run the command again to retry.`);
    return;
  }
  const uuid = JSON.parse(created.text).uuid;
  say(`Created script ${uuid}. It is the first row on the Audit page.`);

  // 3. Writes until the rate limit refuses one.
  say('The caller now keeps writing (turning the script on and off).\n→ Access page: turn off "Review each write" to let them through, then watch the Activity page.\n  (A write that waits already stays on the Requests page until you decide or it times out.)');
  let enabled = true;
  for (let i = 1; i <= 200; i++) {
    enabled = !enabled;
    const w = await call('userscripts.set_script_enabled', { uuid, enabled });
    if (w.isError) {
      say(`Write ${i} was refused: "${w.text}"`);
      if (/too many|rate|limit/i.test(w.text)) {
        say('The meter on the Activity page is full; it drains as writes turn a minute old. Every attempt, refused ones too, is on the Audit page.');
        break;
      }
      await sleep(1000);
    } else if (i % 5 === 0) {
      process.stdout.write(`  ${i} writes allowed\n`);
    }
  }

  say('Done. Look around the window; press Ctrl+C here to close the browser.');
  await new Promise(() => {});
}

main().catch(async (e) => {
  process.stderr.write(`try-it: ${e.message}\n`);
  await stop(1);
});
