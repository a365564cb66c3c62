// SPDX-License-Identifier: GPL-3.0-or-later
// The connector's texts in zh_CN: the state table's rows in the wording of
// the protocol's source documents, and every text the app shows as well
// exactly as po/zh_CN.po has it, so one state reads the same in the app and
// in an agent's UI.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { CONNECTOR_MESSAGES, connectorLocale } from '../src/host/messages.ts';
import { probeTimeoutText, type ProbeOutcome } from '../src/host/probe.ts';
import { ProviderSession } from '../src/host/session.ts';
import { connectedMessage, mapProbeOutcome } from '../src/host/state.ts';

// msgid → msgstr (msgstr[0] for a plural) of a .po file.
function readPo (path: URL): Map<string, string> {
  const text = readFileSync(path, 'utf8');
  const unquote = (s: string): string => JSON.parse(s) as string;
  const entries = new Map<string, string>();
  let id: string | null = null;
  let str: string | null = null;
  let target: 'id' | 'str' | 'other' = 'other';
  const flush = (): void => {
    if (id !== null && id !== '' && str !== null)
      entries.set(id, str);
    id = null;
    str = null;
  };
  for (const line of text.split('\n')) {
    let m: RegExpExecArray | null;
    if ((m = /^msgid (".*")$/.exec(line)) !== null) {
      flush();
      id = unquote(m[1] ?? '""');
      target = 'id';
    } else if ((m = /^msgid_plural (".*")$/.exec(line)) !== null) {
      target = 'other';
    } else if ((m = /^msgstr(?:\[0\])? (".*")$/.exec(line)) !== null) {
      str = unquote(m[1] ?? '""');
      target = 'str';
    } else if ((m = /^msgstr\[\d+\] (".*")$/.exec(line)) !== null) {
      target = 'other';
    } else if ((m = /^(".*")$/.exec(line)) !== null) {
      if (target === 'id')
        id = (id ?? '') + unquote(m[1] ?? '""');
      else if (target === 'str')
        str = (str ?? '') + unquote(m[1] ?? '""');
    }
  }
  flush();
  return entries;
}

const po = readPo(new URL('../../po/zh_CN.po', import.meta.url));
const cases = JSON.parse(readFileSync(new URL('../../tests/fixtures/probe-status/cases.json', import.meta.url), 'utf8')).cases;
const en = CONNECTOR_MESSAGES.en;
const zh = CONNECTOR_MESSAGES.zh_CN;

test('the state table in zh_CN is the wording of the source documents', () => {
  assert.equal(zh.rejected, '扩展未安装，或没有智能体端点。');
  assert.equal(zh.incomplete, '探测响应不完整。');
  assert.equal(zh.disabled, '提供方中的智能体访问已关闭。');
  assert.equal(zh.pending_approval, '正在提供方中等待你的批准。');
  assert.equal(zh.not_authorized, '调用方不在允许列表。');
});

test('every connector text is the app\'s, word for word, in both languages', () => {
  assert.ok(po.size > 100, 'po/zh_CN.po was read');
  assert.deepEqual(Object.keys(zh).sort(), Object.keys(en).sort());
  for (const [key, english] of Object.entries(en)) {
    if (typeof english !== 'string')
      continue;
    assert.ok(po.has(english), `po/zh_CN.po has no “${english}” (${key}): the app does not show it`);
    assert.equal((zh as unknown as Record<string, string>)[key], po.get(english), key);
  }
  // The app's "%u" forms, with a count.
  assert.equal(zh.timeout(1500), po.get(en.timeout(1500)));
  for (const n of [1, 12]) {
    assert.equal(connectedMessage(n, 'zh_CN'), (po.get('Connected · %u tool') ?? '').replace('%u', String(n)));
    assert.equal(connectedMessage(n, 'en'), n === 1 ? 'Connected · 1 tool' : `Connected · ${n} tools`);
  }
});

for (const c of cases) {
  test(`state table in zh_CN: ${c.name}`, () => {
    const v = mapProbeOutcome(c.outcome as ProbeOutcome, 'zh_CN');
    assert.equal(v.row, c.row);
    // A fixed text is translated as the app translates it; another's own
    // text (a raw timeout, a protocol error, a reason) is shown as it came.
    assert.equal(v.message, po.get(c.message) ?? c.message);
    assert.equal(mapProbeOutcome(c.outcome as ProbeOutcome, 'en').message, c.message);
  });
}

test('the connector\'s own timeout text reads in the person\'s language, any other stays', () => {
  const own = { kind: 'timeout', error: probeTimeoutText(30) } as const;
  assert.equal(own.error, 'No answer within 30 ms.', 'the outcome itself stays English (it may go to the app)');
  assert.equal(mapProbeOutcome(own, 'zh_CN').message, '30 毫秒内没有应答。');
  assert.equal(mapProbeOutcome(own, 'en').message, 'No answer within 30 ms.');
  assert.equal(mapProbeOutcome({ kind: 'timeout', error: 'No answer within 30 ms. Really' }, 'zh_CN').message,
    'No answer within 30 ms. Really');
  assert.equal(mapProbeOutcome({ kind: 'timeout', error: 'No answer within 099999999999 ms.' }, 'zh_CN').message,
    'No answer within 099999999999 ms.');
});

test('the browser\'s UI language picks the catalogue', () => {
  for (const lang of ['zh-CN', 'zh', 'zh_CN', 'ZH-cn', 'zh-Hans', 'zh-Hans-CN', 'zh-SG'])
    assert.equal(connectorLocale(lang), 'zh_CN', lang);
  for (const lang of ['en-US', 'en', 'de', 'zh-TW', 'zh-Hant', 'zh-HK', '', undefined])
    assert.equal(connectorLocale(lang), 'en', String(lang));
  // Outside a browser there is no UI language: English.
  assert.equal(mapProbeOutcome({ kind: 'rejected', error: 'x' }).message, en.rejected);
});

test('a session shows its state in the language it was given', async () => {
  const s = new ProviderSession({
    providerId: 'p'.repeat(32), client: { id: 'c'.repeat(32) }, locale: 'zh_CN',
    sendMessage: () => Promise.reject(new Error('Could not establish connection. Receiving end does not exist.')),
  });
  await s.probe();
  assert.equal(s.row, 'rejected');
  assert.equal(s.message, '扩展未安装，或没有智能体端点。');
});
