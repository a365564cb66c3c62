// SPDX-License-Identifier: GPL-3.0-or-later
//
// The world of the desktop-agent e2e runs (run-agents.mjs): the app on a
// private bus with desktop agents turned on, Debian's Chromium with the
// real provider (its e2e build) and the test caller, and the MCP clients
// nobody here wrote — the official SDK's Streamable HTTP and stdio client
// transports — pointed at the app the way a person sets them up.
//
// Settings: the app and the CLI read GSettings. A memory backend would
// give every process its own (the CLI, `gsettings` and the app would not
// see each other's), so this run uses GLib's keyfile backend with the
// test's own XDG_CONFIG_HOME (…/config/glib-2.0/settings/keyfile) and the
// schema compiled in the build dir (GSETTINGS_SCHEMA_DIR), and turns
// desktop agents on with the very command docs/desktop-agents.md gives,
// `gsettings set dev.lumo.Access desktop-agents true`, in that
// environment. The keyfile backend watches its file, so a running app
// sees a later change too. Nothing of the user's own settings is read or
// written.

import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Browser } from './cdp.mjs';
import { TestBus } from './bus.mjs';
import { siteBrowserArgs } from './sites.mjs';

const run = promisify(execFile);

export const PROVIDER = 'hnoefmihgppanoiihkcpnjdpijlimfgh';
export const CALLER = 'jedonckdloihdbdhofoldalhdemkmefm';
export const NAMESPACE = 'userscripts';

// A TCP port nothing listens on now, on 127.0.0.1.
export function freePort () {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

// The private bus with the keyfile settings of this run.
export async function startAgentsBus (root, app, schemaDir) {
  return TestBus.start(root, app, {
    GSETTINGS_BACKEND: 'keyfile', GSETTINGS_SCHEMA_DIR: schemaDir,
  });
}

export async function gsettingsSet (bus, key, value) {
  try {
    await run('gsettings', ['set', 'dev.lumo.Access', key, String(value)], { env: bus.env, timeout: 10000 });
  } catch (e) {
    throw new Error(`gsettings set ${key} ${value} failed: ${e.stderr || e.message}`);
  }
}

export async function gsettingsGet (bus, key) {
  const { stdout } = await run('gsettings', ['get', 'dev.lumo.Access', key], { env: bus.env, timeout: 10000 });
  return stdout.trim();
}

// Chromium with the provider and the caller; @ready resolves with the
// provider worker's CDP session once its bridge said hello to the app.
export async function launchBrowser ({ chromium, profile, bus, extensions, sitesPort, poll }) {
  const browser = Browser.launch({
    executable: chromium, userDataDir: profile, env: bus.env, extensions, extraArgs: siteBrowserArgs(sitesPort),
  });
  const t = await browser.waitForTarget((x) => x.type === 'service_worker' && x.url === `chrome-extension://${PROVIDER}/background.js`,
    'provider service worker', 45000);
  const ps = await browser.attach(t.targetId);
  await browser.waitFor(ps, 'globalThis.lumoProvider?.ready === true', 'the provider\'s top-level code');
  await poll(() => browser.evaluate(ps, '({ state: lumoProvider.provider.bridge.state, reason: lumoProvider.provider.bridge.reason })'),
    (b) => b.state === 'ready', 'the bridge to say hello to the app', 45000, 100);
  return { browser, ps };
}

// The test caller's page (a lumo:mcp caller, for the comparisons).
export async function openCaller (browser) {
  const { targetId } = await browser.send('Target.createTarget', { url: `chrome-extension://${CALLER}/caller.html` });
  const cs = await browser.attach(targetId);
  await browser.waitFor(cs, 'globalThis.lumoTest?.ready === true', 'the caller page');
  return (expr) => browser.evaluate(cs, expr, 180000);
}

// The official SDK, from tests/e2e/node_modules (npm ci there).
export async function loadSdk () {
  const [{ Client }, { StreamableHTTPClientTransport }, { StdioClientTransport }, types] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/client/stdio.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  return { Client, StreamableHTTPClientTransport, StdioClientTransport, types };
}

// One MCP client of @kind ('http' or 'stdio') for an agent's @token, set
// up as docs/desktop-agents.md says: the URL and the Authorization header,
// or the launcher with LUMO_ACCESS_TOKEN. It counts the
// notifications/tools/list_changed it gets, and notes when it closes.
export async function connectAgent (sdk, { kind, url, token, launcher, bus, name, fetch }) {
  const client = new sdk.Client({ name, version: '1.0.0' });
  const state = { listChanged: 0, closed: false, errors: [], stderr: '', waiters: [] };
  client.setNotificationHandler(sdk.types.ToolListChangedNotificationSchema, () => {
    state.listChanged++;
    for (const w of state.waiters.splice(0))
      w();
  });
  let transport;
  if (kind === 'http') {
    transport = new sdk.StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
      ...(fetch ? { fetch } : {}),
    });
  } else {
    transport = new sdk.StdioClientTransport({
      command: launcher, args: [NAMESPACE], env: { ...bus.env, LUMO_ACCESS_TOKEN: token }, stderr: 'pipe',
    });
    transport.stderr?.on('data', (d) => { state.stderr += d; });
  }
  client.onclose = () => { state.closed = true; };
  client.onerror = (e) => { state.errors.push(e?.message ?? String(e)); };
  await client.connect(transport);
  // The next list_changed after this moment.
  state.nextListChanged = () => new Promise((resolve) => state.waiters.push(resolve));
  return { kind, client, transport, state };
}

// The text of a tools/call result.
export function resultText (r) {
  return (r.content ?? []).map((c) => c.text ?? '').join('\n');
}
