// SPDX-License-Identifier: GPL-3.0-or-later
// The provider's own texts (the popup, the manifest's description) are
// chrome.i18n messages in _locales/: every key has an English and a
// Simplified Chinese message with the same placeholders, every key the
// popup or the manifest uses exists, none is left unused, and the English
// ones say exactly what the service worker says in English to callers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { MAX_FRAME_BYTES, noticeText, type BridgeNotice } from '../src/provider/bridge.ts';
import { NATIVE_HOST_NAME } from '../src/shared/protocol.ts';
import { userScriptsAdviceText, userScriptsReason } from '../src/sitepacks/permission.ts';

type Messages = Record<string, { message: string; description?: string }>;

const root = new URL('../', import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, root), 'utf8');
const LOCALES = ['en', 'zh_CN'];
const messages: Record<string, Messages> = Object.fromEntries(
  LOCALES.map((l) => [l, JSON.parse(read(`_locales/${l}/messages.json`)) as Messages]));

// What chrome.i18n.getMessage() does with positional placeholders.
function getMessage (locale: string, key: string, ...subs: Array<string | number>): string {
  const entry = messages[locale]?.[key];
  assert.ok(entry, `no message ${key} in ${locale}`);
  return entry.message.replace(/\$(\$|[1-9])/g, (_m, p: string) => p === '$' ? '$' : String(subs[Number(p) - 1] ?? ''));
}

function placeholders (text: string): string[] {
  return [...text.matchAll(/\$([1-9])/g)].map((m) => m[1] ?? '').sort();
}

test('the locales are exactly en and zh_CN', () => {
  assert.deepEqual(readdirSync(new URL('_locales/', root)).sort(), [...LOCALES].sort());
  const manifest = JSON.parse(read('manifest.json'));
  assert.equal(manifest.default_locale, 'en');
});

test('every key has a message in every locale, with the same placeholders', () => {
  const en = Object.keys(messages.en ?? {}).sort();
  assert.ok(en.length > 0);
  for (const locale of LOCALES) {
    assert.deepEqual(Object.keys(messages[locale] ?? {}).sort(), en, `the keys of ${locale}`);
    for (const key of en) {
      const text = messages[locale]?.[key]?.message;
      assert.equal(typeof text, 'string', `${locale}/${key}`);
      assert.ok((text ?? '').trim().length > 0, `${locale}/${key} is empty`);
      assert.match(key, /^[A-Za-z0-9_]+$/, `${key} is not a chrome.i18n name`);
      // A lone $ would start a named placeholder, which these do not use.
      assert.doesNotMatch(text ?? '', /\$(?![1-9$])/, `${locale}/${key} has a bare $`);
      assert.deepEqual(placeholders(text ?? ''), placeholders(messages.en?.[key]?.message ?? ''),
        `${locale}/${key} has other placeholders than en`);
    }
  }
});

// The files that word their texts with t(…): the popup, and the service
// worker's notification with the advice it shares with the popup.
const TRANSLATED = ['src/provider/popup.ts', 'src/sitepacks/notice.ts', 'src/sitepacks/permission.ts'];

// The keys asked for: the first argument of each t(…) call (a key, or a
// choice of keys) in TRANSLATED, data-i18n in popup.html, __MSG_…__ in the
// manifest.
function usedKeys (): Set<string> {
  const used = new Set<string>();
  for (const file of TRANSLATED)
    keysOfCalls(read(file), used);
  for (const m of read('popup.html').matchAll(/data-i18n="([^"]+)"/g))
    used.add(m[1] ?? '');
  for (const m of read('manifest.json').matchAll(/__MSG_([A-Za-z0-9_]+)__/g))
    used.add(m[1] ?? '');
  used.delete('');
  return used;
}

function keysOfCalls (popup: string, used: Set<string>): void {
  for (const call of popup.matchAll(/\bt\(/g)) {
    let depth = 0;
    let end = call.index + 2;
    for (; end < popup.length; end++) {
      const c = popup[end];
      if (c === '(')
        depth++;
      else if (c === ')' && depth-- === 0)
        break;
      else if (c === ',' && depth === 0)
        break;
    }
    const first = popup.slice(call.index + 2, end);
    // The key itself, or the branches of a choice (not what it compares).
    for (const m of first.matchAll(/(?:^|\?|:)\s*'([A-Za-z0-9_]+)'/g))
      used.add(m[1] ?? '');
  }
}

test('every key the popup and the manifest use exists, and every key is used', () => {
  const used = usedKeys();
  const known = new Set(Object.keys(messages.en ?? {}));
  assert.ok(used.size >= 20, `found only ${used.size} keys in the popup`);
  for (const key of used)
    assert.ok(known.has(key), `${TRANSLATED.join(', ')}, popup.html or manifest.json uses ${key}, which _locales/en lacks`);
  for (const key of known)
    assert.ok(used.has(key), `_locales/en has ${key}, which nothing uses`);
});

test('the popup says in English what callers are told about the bridge', () => {
  const cases: Array<[BridgeNotice, string, Array<string | number>]> = [
    [{ code: 'not_yet', detail: null }, 'bridgeNotYet', []],
    [{ code: 'connecting', detail: null }, 'bridgeConnecting', []],
    [{ code: 'not_installed', detail: null }, 'bridgeNotInstalled', [NATIVE_HOST_NAME]],
    [{ code: 'forbidden', detail: null }, 'bridgeForbidden', []],
    [{ code: 'exited', detail: null }, 'bridgeExited', []],
    [{ code: 'unreachable', detail: null }, 'bridgeUnreachable', []],
    [{ code: 'unreachable', detail: 'Specified native messaging host not found.' }, 'bridgeUnreachableBecause',
      ['Specified native messaging host not found.']],
    [{ code: 'refused', detail: 'bridge version 9 is not supported' }, 'bridgeRefused', ['bridge version 9 is not supported']],
    [{ code: 'unavailable', detail: null }, 'bridgeUnavailable', []],
    [{ code: 'unavailable', detail: 'Lumo Access could not be started.' }, 'bridgeUnavailableBecause',
      ['Lumo Access could not be started.']],
    [{ code: 'too_large', detail: '2000000' }, 'bridgeTooLarge', ['2000000', MAX_FRAME_BYTES]],
  ];
  for (const [notice, key, subs] of cases)
    assert.equal(getMessage('en', key, ...subs), noticeText(notice), key);
});

test('the popup and the notification say in English what the tools say about user scripts', () => {
  const id = 'hnoefmihgppanoiihkcpnjdpijlimfgh';
  const en = (key: string, ...subs: Array<string | number>) => getMessage('en', key, ...subs);
  for (const major of [119, 130, 140, null])
    assert.equal(userScriptsAdviceText(en, major, id), userScriptsReason(major, id), `Chrome ${major}`);
  assert.match(userScriptsAdviceText((k, ...s) => getMessage('zh_CN', k, ...s), 140, id),
    /^Lumo Userscripts 不允许运行用户脚本：请打开 chrome:\/\/extensions\/\?id=hnoefmihgppanoiihkcpnjdpijlimfgh，/);
});

test('zh_CN substitutes as en does', () => {
  assert.equal(getMessage('zh_CN', 'popupConnectedMany', 3), '已连接到 Lumo Access · 3 个打开的会话');
  assert.equal(getMessage('zh_CN', 'scriptItem', 'Dark mode', 'example.org'), 'Dark mode（example.org）');
  assert.equal(getMessage('zh_CN', 'packItemTabs', 'docs', '内置', '页面', getMessage('zh_CN', 'packTabsOne', 1)),
    'docs（内置，页面）· 1 个打开的标签页');
});
