// SPDX-License-Identifier: GPL-3.0-or-later
//
// The one browser notification that asks for user scripts, as the guide
// promises ("扩展会显示通知提示你开启 User Scripts 权限"): shown when
// user scripts are not allowed and a pack needs them, with the exact toggle
// for this browser (permission.ts) and a button that opens the extension's
// details page, where the toggle is. Once per browser session: the mark
// lives in chrome.storage.session, which a restarted service worker still
// has and a restarted browser has not. The reason stays in the popup, in
// list_site_packs and in each refused call's isError, however often those
// come. Its words are the browser's UI language (_locales/, by @t).

import type { StorageAreaLike } from '../provider/scripts.ts';
import type { Translate } from './permission.ts';

export const NOTICE_ID = 'lumo-user-scripts';
const SHOWN_KEY = 'sitepacks:userScriptsNotice';
export const NOTICE_ICON = 'icons/lumo-128.png';

export interface NoticeOptions {
  type: 'basic';
  iconUrl: string;
  title: string;
  message: string;
  contextMessage?: string;
  buttons: Array<{ title: string }>;
  requireInteraction: boolean;
  priority: number;
}

// The part of chrome.notifications this uses.
export interface NotificationsLike {
  create (id: string, options: NoticeOptions): Promise<string>;
  clear (id: string): Promise<boolean>;
  onClicked: { addListener (cb: (id: string) => void): void };
  onButtonClicked: { addListener (cb: (id: string, button: number) => void): void };
}

export interface UserScriptsNoticeOptions {
  notifications: NotificationsLike;
  session: StorageAreaLike;
  extensionId: string;
  openTab: (url: string) => Promise<unknown>;
  t: Translate;
  log?: (...args: unknown[]) => void;
}

export function detailsPage (extensionId: string): string {
  return `chrome://extensions/?id=${extensionId}`;
}

export class UserScriptsNotice {
  // Notifications this worker showed (the e2e reads it).
  shown = 0;
  private running: Promise<boolean> | null = null;

  constructor (private readonly opts: UserScriptsNoticeOptions) {}

  // Call at the top level of the worker, so a click wakes it.
  listen (): void {
    const n = this.opts.notifications;
    n.onClicked.addListener((id) => { if (id === NOTICE_ID) void this.openDetails(); });
    n.onButtonClicked.addListener((id, button) => { if (id === NOTICE_ID && button === 0) void this.openDetails(); });
  }

  async openDetails (): Promise<void> {
    try {
      await this.opts.openTab(detailsPage(this.opts.extensionId));
      await this.opts.notifications.clear(NOTICE_ID);
    } catch (e) {
      this.opts.log?.('the extension\'s details page could not be opened:', e instanceof Error ? e.message : e);
    }
  }

  // Shows the notification unless it was shown in this browser session.
  // @reason is the exact thing to do (userScriptsAdviceText), @packs the
  // domains of the packs that need it. Resolves to whether it showed it.
  notify (reason: string, packs: readonly string[]): Promise<boolean> {
    // Callers at the same moment share one look at the mark.
    this.running ??= this.once(reason, packs).finally(() => { this.running = null; });
    return this.running;
  }

  private async once (reason: string, packs: readonly string[]): Promise<boolean> {
    const { session, notifications, log, t } = this.opts;
    try {
      if ((await session.get(SHOWN_KEY))[SHOWN_KEY] === true)
        return false;
      await notifications.create(NOTICE_ID, {
        type: 'basic',
        iconUrl: NOTICE_ICON,
        title: t('noticeTitle'),
        message: reason,
        ...(packs.length > 0 ? { contextMessage: t('noticeWaiting', packs.join(t('listSeparator'))) } : {}),
        buttons: [{ title: t('noticeOpenDetails') }],
        requireInteraction: true,
        priority: 1,
      });
      // Marked once it is up: a notification that failed is tried again.
      await session.set({ [SHOWN_KEY]: true });
      this.shown++;
      return true;
    } catch (e) {
      log?.('the user scripts notification could not be shown:', e instanceof Error ? e.message : e);
      return false;
    }
  }
}
