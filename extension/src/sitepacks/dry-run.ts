// SPDX-License-Identifier: GPL-3.0-or-later
//
// The install-time dry run of an installed pack's registration code: run
// it with a recording server, never a handler, and report the tools it
// registered and every mistake. In the extension it runs in a sandboxed
// page (sandbox.html, opaque origin, no extension APIs) inside an offscreen
// document, because the service worker may not evaluate code; in Node (the
// tests) it runs with Function directly.

import { MSG } from './messages.ts';
import { cookieView, runRegistration, toolDefs } from './runtime.ts';
import type { DryRun, DryRunResult } from './service.ts';
import { EXPORTS_PARAM } from './source.ts';

export const DRY_RUN_TIMEOUT_MS = 15000;

// Defines the transformed code and runs its registration function.
export async function registerDefined (define: (exports: { default?: unknown }) => void): Promise<DryRunResult> {
  const exports: { default?: unknown } = {};
  try {
    define(exports);
  } catch (e) {
    return { tools: [], errors: [`the code threw while loading: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`] };
  }
  const reg = await runRegistration(exports.default, cookieView(() => ''));
  return { tools: toolDefs(reg), errors: reg.errors };
}

// For Node: compiles the code with Function (a syntax error is reported,
// without a line number, which Node's Function does not give).
export const functionDryRun: DryRun = async (code) => {
  let define: (exports: { default?: unknown }) => void;
  try {
    define = new Function(EXPORTS_PARAM, `"use strict";${code}\n`) as typeof define;
  } catch (e) {
    return { tools: [], errors: [`the code does not parse: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`] };
  }
  return registerDefined(define);
};

type OffscreenApi = {
  createDocument (p: { url: string; reasons: string[]; justification: string }): Promise<void>;
  closeDocument (): Promise<void>;
  hasDocument? (): Promise<boolean>;
};

// For the service worker: one dry run at a time, in the offscreen
// document, which is closed when a run hangs and after a minute unused.
export function offscreenDryRun (): DryRun {
  let chain: Promise<unknown> = Promise.resolve();
  let idle: ReturnType<typeof setTimeout> | undefined;
  let counter = 0;
  const off = (): OffscreenApi => (chrome as unknown as { offscreen: OffscreenApi }).offscreen;
  const close = async (): Promise<void> => {
    try {
      await off().closeDocument();
    } catch {
      // not open
    }
  };
  const ensure = async (): Promise<void> => {
    if (await off().hasDocument?.())
      return;
    try {
      await off().createDocument({
        url: 'offscreen.html', reasons: ['IFRAME_SCRIPTING'],
        justification: 'Tries the registration code of a site pack in a sandboxed frame before it is installed.',
      });
    } catch (e) {
      if (!/single offscreen document/i.test(e instanceof Error ? e.message : String(e)))
        throw e;
    }
  };
  const once = async (code: string, config: { id: string; name: string }): Promise<DryRunResult> => {
    clearTimeout(idle);
    await ensure();
    const id = `dry-${Date.now().toString(36)}-${++counter}`;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const answer = await Promise.race([
        chrome.runtime.sendMessage({ type: MSG.dryRun, id, code, config }) as Promise<DryRunResult | undefined>,
        new Promise<never>((_r, reject) => {
          timer = setTimeout(() => reject(new Error(`the registration code did not finish within ${DRY_RUN_TIMEOUT_MS / 1000} s (an endless loop?)`)), DRY_RUN_TIMEOUT_MS);
        }),
      ]);
      if (answer === undefined || !Array.isArray(answer.tools) || !Array.isArray(answer.errors))
        throw new Error('the sandbox gave no answer');
      return answer;
    } catch (e) {
      await close();
      throw e;
    } finally {
      clearTimeout(timer);
      idle = setTimeout(() => void close(), 60000);
    }
  };
  return (code, config) => {
    const run = chain.then(() => once(code, config));
    chain = run.catch(() => undefined);
    return run;
  };
}
