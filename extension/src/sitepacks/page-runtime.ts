// SPDX-License-Identifier: GPL-3.0-or-later
//
// The runtime of a pack that runs as a user script. The same file serves
// both worlds (site-user.js in a USER_SCRIPT world, site-main.js in the
// MAIN world; build.mjs bundles it twice): it defines
// globalThis.__lumoSitePack.start(config, define), which the pack's own
// user script calls (source.ts, userScriptCode).
//
//   USER_SCRIPT world, with define: an installed contentScriptMcpServer
//     pack; it registers and answers calls itself over runtime messaging.
//   USER_SCRIPT world, without define: the relay of a pageMcpServer pack;
//     it carries the MAIN world's tools and calls over DOM events.
//   MAIN world: a pageMcpServer pack; page globals and framework state are
//     reachable, chrome.* is not, so it talks to its relay.

import { z } from 'zod';
import { CHANNEL_EVENT, LOG_PREFIX, MSG, NUDGE_EVENT, type PackConfig, type PendingCall } from './messages.ts';
import { callSiteTool, cookieView, runRegistration, toolDefs, type Registration, type SiteToolDef } from './runtime.ts';
import type { ToolResult } from './types.ts';

z.config({ jitless: true });

type Define = (exports: { default?: unknown }) => void;
type ChannelMessage =
  | { dir: 'relay'; kind: 'hello' }
  | { dir: 'relay'; kind: 'call'; callId: string; tool: string; args: unknown }
  | { dir: 'main'; kind: 'hello'; tools: SiteToolDef[]; errors: string[] }
  | { dir: 'main'; kind: 'result'; callId: string; result: ToolResult };

function post (id: string, msg: ChannelMessage): void {
  document.dispatchEvent(new CustomEvent(CHANNEL_EVENT + id, { detail: JSON.stringify(msg) }));
}

function listen (id: string, from: 'relay' | 'main', cb: (m: ChannelMessage) => void): void {
  document.addEventListener(CHANNEL_EVENT + id, (e) => {
    const detail = (e as CustomEvent).detail;
    if (typeof detail !== 'string')
      return;
    let m: ChannelMessage;
    try {
      m = JSON.parse(detail) as ChannelMessage;
    } catch {
      return;
    }
    if (m?.dir === from)
      cb(m);
  });
}

async function load (config: PackConfig, define: Define): Promise<Registration> {
  const exports: { default?: unknown } = {};
  try {
    define(exports);
  } catch (e) {
    return { tools: new Map(), errors: [`the pack's code threw while loading: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`] };
  }
  console.info(LOG_PREFIX, `Found the site pack ${config.name} ${config.version} for ${location.hostname}; registering its tools…`);
  return runRegistration(exports.default, cookieView(() => document.cookie));
}

// ---- USER_SCRIPT world -----------------------------------------------------

function hasMessaging (): boolean {
  try {
    return typeof chrome?.runtime?.sendMessage === 'function';
  } catch {
    return false;
  }
}

async function startUserWorld (config: PackConfig, define?: Define): Promise<void> {
  const name = config.name;
  if (!hasMessaging()) {
    console.error(LOG_PREFIX, `${name}: this user script world has no messaging, so the tools cannot reach the extension; reload the extension.`);
    return;
  }
  let tools: SiteToolDef[] = [];
  let errors: string[] = [];
  let local: Registration | null = null;
  const waiting = new Map<string, (r: ToolResult) => void>();

  const register = async (): Promise<void> => {
    for (const e of errors)
      console.error(LOG_PREFIX, `${name}: ${e}`);
    try {
      const a = await chrome.runtime.sendMessage({ type: MSG.register, pack: config.id, tools, errors }) as
        { accepted?: string[]; refused?: Array<{ name: string; reason: string }>; warnings?: Array<{ name: string; reason: string }>; error?: string } | undefined;
      if (a?.error !== undefined) {
        console.warn(LOG_PREFIX, `${name}: ${a.error}`);
        return;
      }
      const acc = a?.accepted ?? [];
      console.info(LOG_PREFIX, `${name}: registered ${acc.length} tool${acc.length === 1 ? '' : 's'}${acc.length > 0 ? ': ' + acc.join(', ') : ''}.`);
      for (const r of a?.refused ?? [])
        console.warn(LOG_PREFIX, `${name}: tool "${r.name}" refused: ${r.reason}`);
      for (const w of a?.warnings ?? [])
        console.warn(LOG_PREFIX, `${name}: tool "${w.name}": ${w.reason}`);
    } catch (e) {
      console.warn(LOG_PREFIX, `${name}: the extension did not take the tools (${e instanceof Error ? e.message : String(e)}); reload the page.`);
    }
  };

  const run = async (c: PendingCall): Promise<ToolResult> => {
    console.debug(LOG_PREFIX, `${name}: running tool "${c.tool}"`);
    if (local !== null)
      return callSiteTool(local, c.tool, c.args, (...x) => console.error(LOG_PREFIX, `${name}:`, ...x));
    return new Promise((resolve) => {
      waiting.set(c.callId, resolve);
      post(config.id, { dir: 'relay', kind: 'call', callId: c.callId, tool: c.tool, args: c.args });
    });
  };

  let pulling = false;
  let again = false;
  const pull = async (): Promise<void> => {
    if (pulling) {
      again = true;
      return;
    }
    pulling = true;
    try {
      do {
        again = false;
        const a = await chrome.runtime.sendMessage({ type: MSG.pull, pack: config.id }) as { calls?: PendingCall[] } | undefined;
        for (const c of a?.calls ?? [])
          void run(c).then((result) => chrome.runtime.sendMessage({ type: MSG.result, pack: config.id, callId: c.callId, result }))
            .catch((e) => console.warn(LOG_PREFIX, `${name}: a result was lost: ${e instanceof Error ? e.message : String(e)}`));
      } while (again);
    } catch (e) {
      console.warn(LOG_PREFIX, `${name}: cannot reach the extension: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      pulling = false;
    }
  };

  document.addEventListener(NUDGE_EVENT, (e) => {
    if ((e as CustomEvent).detail === config.id)
      void pull();
  });
  window.addEventListener('pageshow', (e) => {
    if (e.persisted)
      void register();
  });

  if (define !== undefined) {
    local = await load(config, define);
    tools = toolDefs(local);
    errors = local.errors;
    await register();
    return;
  }
  // The relay: the MAIN world says hello when it has registered, and
  // answers a hello from a relay that started after it.
  listen(config.id, 'main', (m) => {
    if (m.dir !== 'main')
      return;
    if (m.kind === 'hello') {
      tools = m.tools;
      errors = m.errors;
      void register();
    } else if (m.kind === 'result') {
      waiting.get(m.callId)?.(m.result);
      waiting.delete(m.callId);
    }
  });
  post(config.id, { dir: 'relay', kind: 'hello' });
}

// ---- MAIN world ------------------------------------------------------------

async function startMainWorld (config: PackConfig, define: Define): Promise<void> {
  const reg = await load(config, define);
  const hello = (): void => post(config.id, { dir: 'main', kind: 'hello', tools: toolDefs(reg), errors: reg.errors });
  listen(config.id, 'relay', (m) => {
    if (m.kind === 'hello')
      hello();
    else if (m.kind === 'call')
      void callSiteTool(reg, m.tool, m.args, (...x) => console.error(LOG_PREFIX, `${config.name}:`, ...x))
        .then((result) => post(config.id, { dir: 'main', kind: 'result', callId: m.callId, result }));
  });
  hello();
}

declare const LUMO_WORLD: 'USER_SCRIPT' | 'MAIN';

const runtime = Object.freeze({
  start (config: PackConfig, define?: Define): void {
    const p = LUMO_WORLD === 'MAIN'
      ? (define === undefined ? Promise.reject(new Error('no pack code')) : startMainWorld(config, define))
      : startUserWorld(config, define);
    p.catch((e) => console.error(LOG_PREFIX, `${config.name}: the site pack failed to start:`, e));
  },
});
Object.defineProperty(globalThis, '__lumoSitePack', { value: runtime, configurable: true });
