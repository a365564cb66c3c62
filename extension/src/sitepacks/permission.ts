// SPDX-License-Identifier: GPL-3.0-or-later
//
// Whether this browser lets the extension run user scripts, and if not,
// the exact thing a person must do. Chrome 138 and later have a per-
// extension "Allow User Scripts" toggle on the extension's details page;
// Chrome 120–137 need Developer mode; before 120 there is no API at all.
// The check is the one Chrome documents: calling a method throws when the
// API is not allowed.

import type { UserScriptsState } from './registry.ts';

export function chromeMajor (userAgent: string | undefined): number | null {
  const m = /(?:Chrome|Chromium)\/(\d+)/.exec(userAgent ?? '');
  return m ? Number(m[1]) : null;
}

// What a person must do, by browser version: the popup words it in the UI
// language, userScriptsReason() in English for the tools' answers.
export type UserScriptsAdvice = 'update_browser' | 'allow_user_scripts' | 'developer_mode';

export function userScriptsAdvice (major: number | null): UserScriptsAdvice {
  if (major !== null && major < 120)
    return 'update_browser';
  if (major === null || major >= 138)
    return 'allow_user_scripts';
  return 'developer_mode';
}

// A chrome.i18n.getMessage() with positional substitutions.
export type Translate = (key: string, ...substitutions: Array<string | number>) => string;

// The same advice in the browser's UI language, for the popup and the
// notification (test/locales.test.ts checks the English messages say what
// userScriptsReason() says).
export function userScriptsAdviceText (t: Translate, major: number | null, extensionId: string): string {
  switch (userScriptsAdvice(major)) {
    case 'update_browser':
      return t('userScriptsUpdateBrowser', major ?? '');
    case 'allow_user_scripts':
      return t('userScriptsAllow', extensionId);
    case 'developer_mode':
      return t('userScriptsDeveloperMode');
  }
}

export function userScriptsReason (major: number | null, extensionId: string): string {
  switch (userScriptsAdvice(major)) {
    case 'update_browser':
      return `User scripts need Chrome 120 or later; this browser is version ${major}. Update the browser.`;
    case 'allow_user_scripts':
      return `User scripts are not allowed for Lumo Userscripts: open chrome://extensions/?id=${extensionId}, turn on "Allow User Scripts" (Chrome 138 and later), then reload the page.`;
    case 'developer_mode':
      return `User scripts are not allowed: turn on "Developer mode" at the top right of chrome://extensions (Chrome 120 to 137; from Chrome 138 it is the "Allow User Scripts" toggle on the extension's details page), then reload the page.`;
  }
}

type UserScriptsLike = { getScripts: (filter?: unknown) => Promise<unknown> };

export function userScriptsApi (): UserScriptsLike | null {
  try {
    const us = (globalThis as unknown as { chrome?: { userScripts?: UserScriptsLike } }).chrome?.userScripts;
    if (us === undefined || typeof us.getScripts !== 'function')
      return null;
    // Throws synchronously when the toggle is off.
    us.getScripts().catch(() => undefined);
    return us;
  } catch {
    return null;
  }
}

export function userScriptsState (extensionId: string, userAgent: string | undefined): UserScriptsState {
  if (userScriptsApi() !== null)
    return { available: true, reason: null };
  return { available: false, reason: userScriptsReason(chromeMajor(userAgent), extensionId) };
}

// USER_SCRIPT worlds of their own (worldId) came with Chrome 133; before,
// every user script shares the one default world.
export function perPackWorlds (userAgent: string | undefined): boolean {
  const v = chromeMajor(userAgent);
  return v !== null && v >= 133;
}
