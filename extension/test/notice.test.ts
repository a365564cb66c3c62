// SPDX-License-Identifier: GPL-3.0-or-later
// The notification that asks for user scripts, with fake chrome.notifications
// and a fake session storage: once per browser session (a restarted worker
// shares the session, a restarted browser does not), the exact toggle text,
// and a button (or a click) that opens the extension's details page. The
// e2e shows it in Chromium (tests/e2e/sitepacks.mjs); a notification's button
// cannot be pressed from there, so the press is tested here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NOTICE_ID, UserScriptsNotice, type NoticeOptions, type NotificationsLike } from '../src/sitepacks/notice.ts';
import { readFileSync } from 'node:fs';
import { userScriptsAdviceText, type Translate } from '../src/sitepacks/permission.ts';
import { memoryArea } from './fake-app.ts';

const ID = 'hnoefmihgppanoiihkcpnjdpijlimfgh';

class FakeNotifications implements NotificationsLike {
  shown = new Map<string, NoticeOptions>();
  created = 0;
  fail = false;
  private clicked: Array<(id: string) => void> = [];
  private buttons: Array<(id: string, b: number) => void> = [];
  onClicked = { addListener: (cb: (id: string) => void) => { this.clicked.push(cb); } };
  onButtonClicked = { addListener: (cb: (id: string, b: number) => void) => { this.buttons.push(cb); } };
  async create (id: string, options: NoticeOptions): Promise<string> {
    if (this.fail)
      throw new Error('Unable to download all specified images.');
    this.created++;
    this.shown.set(id, options);
    return id;
  }

  async clear (id: string): Promise<boolean> {
    return this.shown.delete(id);
  }

  // What Chrome does when the person clicks.
  press (id: string, button?: number): void {
    if (button === undefined)
      this.clicked.forEach((cb) => cb(id));
    else
      this.buttons.forEach((cb) => cb(id, button));
  }
}

// chrome.i18n.getMessage() of one locale of _locales/.
function locale (name: string): Translate {
  const messages = JSON.parse(readFileSync(new URL(`../_locales/${name}/messages.json`, import.meta.url), 'utf8')) as
    Record<string, { message: string }>;
  return (key, ...subs) => {
    const entry = messages[key];
    assert.ok(entry, `no message ${key} in ${name}`);
    return entry.message.replace(/\$([1-9])/g, (_m, p: string) => String(subs[Number(p) - 1] ?? ''));
  };
}
const en = locale('en');

function setup (session = memoryArea(), notifications = new FakeNotifications(), t = en) {
  const opened: string[] = [];
  const notice = new UserScriptsNotice({ notifications, session, extensionId: ID, t, openTab: async (url) => { opened.push(url); } });
  notice.listen();
  return { notice, notifications, session, opened };
}

const REASON = userScriptsAdviceText(en, 156, ID);

test('notice: shown once with the exact toggle and a button, however often a pack needs it', async () => {
  const { notice, notifications } = setup();
  assert.equal(await notice.notify(REASON, ['opentiny-e2e.test']), true);
  const calls = await Promise.all([1, 2, 3].map(() => notice.notify(REASON, ['opentiny-e2e.test'])));
  assert.deepEqual(calls, [false, false, false]);
  assert.equal(await notice.notify(REASON, ['x.test']), false);
  assert.equal(notifications.created, 1);
  assert.equal(notice.shown, 1);
  const n = notifications.shown.get(NOTICE_ID) as NoticeOptions;
  assert.match(n.message, /open chrome:\/\/extensions\/\?id=hnoefmihgppanoiihkcpnjdpijlimfgh, turn on "Allow User Scripts" \(Chrome 138 and later\)/);
  assert.equal(n.contextMessage, 'Waiting: opentiny-e2e.test');
  assert.deepEqual(n.buttons, [{ title: 'Open the extension\'s details' }]);
  assert.equal(n.iconUrl, 'icons/lumo-128.png');
  assert.equal(n.title, 'Site packs need user scripts');
});

test('notice: in the browser\'s language, Simplified Chinese included', async () => {
  const zh = locale('zh_CN');
  const { notice, notifications } = setup(memoryArea(), new FakeNotifications(), zh);
  assert.equal(await notice.notify(userScriptsAdviceText(zh, 140, ID), ['opentiny-e2e.test', 'docs.example']), true);
  const n = notifications.shown.get(NOTICE_ID) as NoticeOptions;
  assert.equal(n.title, '站点包需要用户脚本');
  assert.match(n.message, /^Lumo Userscripts 不允许运行用户脚本：请打开 chrome:\/\/extensions\/\?id=hnoefmihgppanoiihkcpnjdpijlimfgh，开启“允许用户脚本”/);
  assert.equal(n.contextMessage, '等待中：opentiny-e2e.test、docs.example');
  assert.deepEqual(n.buttons, [{ title: '打开扩展程序详情' }]);
});

test('notice: callers at the same moment get one notification', async () => {
  const { notice, notifications } = setup();
  await Promise.all([1, 2, 3, 4].map(() => notice.notify(REASON, [])));
  assert.equal(notifications.created, 1);
  assert.equal(notice.shown, 1);
});

test('notice: a restarted worker keeps the session\'s mark; a new browser session shows it again', async () => {
  const session = memoryArea();
  const first = setup(session);
  await first.notice.notify(REASON, []);
  const restarted = setup(session, first.notifications);
  assert.equal(await restarted.notice.notify(REASON, []), false, 'the same browser session');
  assert.equal(first.notifications.created, 1);
  const nextSession = setup(memoryArea());
  assert.equal(await nextSession.notice.notify(REASON, []), true);
});

test('notice: its button, or a click on it, opens the extension\'s details page and closes it; other notifications are not ours', async () => {
  const { notice, notifications, opened } = setup();
  await notice.notify(REASON, []);
  notifications.press('someone-else', 0);
  notifications.press(NOTICE_ID, 1);
  assert.deepEqual(opened, []);
  notifications.press(NOTICE_ID, 0);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(opened, [`chrome://extensions/?id=${ID}`]);
  assert.equal(notifications.shown.has(NOTICE_ID), false, 'closed once used');
  notifications.press(NOTICE_ID);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(opened, [`chrome://extensions/?id=${ID}`, `chrome://extensions/?id=${ID}`]);
});

test('notice: one that could not be shown is not marked, so the next need tries again', async () => {
  const notifications = new FakeNotifications();
  notifications.fail = true;
  const logs: unknown[][] = [];
  const notice = new UserScriptsNotice({ notifications, session: memoryArea(), extensionId: ID, t: en, openTab: async () => undefined, log: (...a) => logs.push(a) });
  assert.equal(await notice.notify(REASON, []), false);
  assert.match(String(logs[0]?.[1]), /Unable to download/);
  notifications.fail = false;
  assert.equal(await notice.notify(REASON, []), true);
});
