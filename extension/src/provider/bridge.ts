// SPDX-License-Identifier: GPL-3.0-or-later
//
// The provider's end of the bridge to Lumo Access (docs/bridge-protocol.md):
// one native-messaging port, request/answer matching by id, the policy the
// app pushes, app requests (probeTarget, agentOpen) and the virtual ports'
// pushes (agentMessage, agentClose). The bridge owns the port's life: it
// says hello on every connect, fails every pending request when the port
// dies, and reconnects with backoff so an app restart heals by itself. Each
// connect is a new session (a number): what belongs to one session (a
// virtual port, an audit id) is never sent on another. The bridge holds no
// policy decision of its own; while it is down, every question gets a
// "cannot reach Lumo Access" answer and callers fail closed.

import { NATIVE_HOST_NAME, isObject } from '../shared/protocol.ts';
import { utf8Length } from '../shared/text.ts';
import { checkAppMessage } from './app-messages.ts';

// The app takes at most 1 MiB per frame and closes the session on a longer
// one; the provider never sends one.
export const MAX_FRAME_BYTES = 1024 * 1024;

export interface BridgePolicy {
  enabled: boolean;
  writes: boolean;
  review: boolean;
}

export interface PolicyPush extends BridgePolicy {
  revoked: string[];
}

export interface NativePortLike {
  postMessage (message: unknown): void;
  disconnect (): void;
  onMessage: { addListener (cb: (message: unknown) => void): void };
  onDisconnect: { addListener (cb: () => void): void };
}

export type BridgeState = 'connecting' | 'ready' | 'down';

export interface BridgeOptions {
  // chrome.runtime.connectNative; returns the port and, once it has died,
  // the reason Chrome gave (chrome.runtime.lastError).
  connect: () => NativePortLike;
  lastError: () => string | undefined;
  hello: () => Record<string, unknown>;
  onReady?: (answer: Record<string, unknown>) => void;
  onPolicy?: (push: PolicyPush) => void;
  onStateChange?: (state: BridgeState, reason: string | null) => void;
  onRequest?: (message: Record<string, unknown>) => Promise<Record<string, unknown>>;
  // A valid push of a virtual port (agentMessage, agentClose).
  onPush?: (message: Record<string, unknown>) => void;
  // The session's port died or was closed: what belonged to it is gone.
  onSessionEnd?: () => void;
  backoffMs?: readonly number[];
  log?: (...args: unknown[]) => void;
}

export class BridgeError extends Error {
  override name = 'BridgeError';
  constructor (message: string, readonly code: string, readonly field?: string) {
    super(message);
  }
}

const DEFAULT_BACKOFF = [100, 250, 500, 1000, 2000, 5000, 10000] as const;

// Why the bridge is not ready: a code that a person's UI (the popup)
// words in the browser's language, and the English text that callers and
// logs get (noticeText()). @detail is Chrome's or the app's own text, or
// the size of a message that was too large.
export type BridgeNoticeCode =
  | 'not_yet' | 'connecting' | 'not_installed' | 'forbidden' | 'exited'
  | 'unreachable' | 'refused' | 'unavailable' | 'too_large';

export interface BridgeNotice {
  code: BridgeNoticeCode;
  detail: string | null;
}

// The app's requests and the pushes it sends besides policy.
const APP_REQUESTS: readonly string[] = ['probeTarget', 'agentOpen'];
const APP_PUSHES: readonly string[] = ['agentMessage', 'agentClose'];

// What became of a push: sent, not sent because its session is gone, or
// not sent because its frame would be over MAX_FRAME_BYTES (its size).
export type PushOutcome = 'sent' | 'gone' | { tooLarge: number };

// Chrome's texts for a native port that died, and what a person can do.
export function nativeErrorNotice (text: string | undefined): BridgeNotice {
  const t = text ?? '';
  if (/native messaging host not found/i.test(t))
    return { code: 'not_installed', detail: null };
  if (/host is forbidden/i.test(t))
    return { code: 'forbidden', detail: null };
  if (/host has exited/i.test(t))
    return { code: 'exited', detail: null };
  return { code: 'unreachable', detail: t.length > 0 ? t : null };
}

export function noticeText (notice: BridgeNotice): string {
  switch (notice.code) {
    case 'not_yet':
      return 'Not connected to Lumo Access yet.';
    case 'connecting':
      return 'Connecting to Lumo Access.';
    case 'not_installed':
      return `Lumo Access is not installed for this browser (no native messaging host "${NATIVE_HOST_NAME}"). Install Lumo Access and open it once.`;
    case 'forbidden':
      return 'Lumo Access does not accept this extension: its ID is not in the allowed origins of the native messaging host. Reinstall Lumo Access or the extension.';
    case 'exited':
      return 'Lumo Access is not running or has closed the connection. Start Lumo Access; the provider reconnects by itself.';
    case 'unreachable':
      return notice.detail !== null
        ? `Lumo Access cannot be reached: ${notice.detail}`
        : 'Lumo Access cannot be reached. Start Lumo Access; the provider reconnects by itself.';
    case 'refused':
      return `Lumo Access refused this provider: ${notice.detail ?? ''}`;
    case 'unavailable':
      // @detail is the helper's or the app's own sentence for the person.
      return notice.detail !== null
        ? `Lumo Access is not available. It says: ${notice.detail}`
        : 'Lumo Access is not available and gave no reason.';
    case 'too_large':
      return tooLargeText('hello', Number(notice.detail));
  }
}

export function explainNativeError (text: string | undefined): string {
  return noticeText(nativeErrorNotice(text));
}

function tooLargeText (type: string, size: number): string {
  return `The ${type} message would be ${size} bytes, more than the ${MAX_FRAME_BYTES} Lumo Access takes, so it was not sent.`;
}

interface Pending {
  resolve: (answer: Record<string, unknown>) => void;
  reject: (error: Error) => void;
}

export class Bridge {
  private readonly opts: BridgeOptions;
  private port: NativePortLike | null = null;
  private nextId = 1;
  private pending = new Map<number, Pending>();
  private helloId: number | null = null;
  private attempt = 0;
  private reconnectTimer: ReturnType<typeof setTimeout> | null = null;
  private waiters: Array<() => void> = [];
  private stopped = false;
  private sessionSeq = 0;

  state: BridgeState = 'down';
  notice: BridgeNotice | null = { code: 'not_yet', detail: null };
  reason: string | null = noticeText({ code: 'not_yet', detail: null });
  policy: BridgePolicy | null = null;
  helloAnswer: Record<string, unknown> | null = null;

  constructor (opts: BridgeOptions) {
    this.opts = opts;
  }

  // The current session: a new number on every connect.
  get session (): number {
    return this.sessionSeq;
  }

  start (): void {
    this.stopped = false;
    if (this.state === 'down' && this.reconnectTimer === null)
      this.connect();
  }

  stop (): void {
    this.stopped = true;
    if (this.reconnectTimer !== null)
      clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    const port = this.port;
    this.port = null;
    port?.disconnect();
    this.fail('The bridge was stopped.');
    this.opts.onSessionEnd?.();
  }

  private setState (state: BridgeState, notice: BridgeNotice | null): void {
    const reason = notice !== null ? noticeText(notice) : null;
    this.state = state;
    this.notice = notice;
    this.reason = reason;
    this.opts.onStateChange?.(state, reason);
    if (state !== 'connecting') {
      const waiters = this.waiters;
      this.waiters = [];
      waiters.forEach((w) => w());
    }
  }

  private connect (): void {
    this.reconnectTimer = null;
    this.sessionSeq++;
    this.setState('connecting', { code: 'connecting', detail: null });
    let port: NativePortLike;
    try {
      port = this.opts.connect();
    } catch (e) {
      this.onDied(e instanceof Error ? e.message : String(e));
      return;
    }
    this.port = port;
    port.onMessage.addListener((m) => {
      if (this.port === port)
        this.onMessage(m);
    });
    port.onDisconnect.addListener(() => {
      // Reading lastError here also keeps Chrome from logging it as unchecked.
      const text = this.opts.lastError();
      if (this.port === port) {
        this.port = null;
        this.onDied(text);
      }
    });
    const id = this.nextId++;
    this.helloId = id;
    this.pending.set(id, {
      resolve: (answer) => {
        this.attempt = 0;
        this.helloAnswer = answer;
        const p = answer.policy;
        if (isObject(p))
          this.policy = { enabled: p.enabled === true, writes: p.writes === true, review: p.review === true };
        this.setState('ready', null);
        this.opts.onReady?.(answer);
      },
      reject: (error) => {
        // The port died under the hello: onDied() is already on it.
        if (error instanceof BridgeError && error.code === 'unreachable')
          return;
        // A refused hello will be refused again: stay down with the reason,
        // and try again only on the slow end of the backoff.
        this.attempt = Math.max(this.attempt, (this.opts.backoffMs ?? DEFAULT_BACKOFF).length - 1);
        const dead = this.port;
        this.port = null;
        dead?.disconnect();
        this.onDied(undefined, { code: 'refused', detail: error.message });
      },
    });
    const size = this.post({ ...this.opts.hello(), type: 'hello', id });
    if (size > 0) {
      this.pending.delete(id);
      const dead = this.port;
      this.port = null;
      dead?.disconnect();
      this.attempt = Math.max(this.attempt, (this.opts.backoffMs ?? DEFAULT_BACKOFF).length - 1);
      this.onDied(undefined, { code: 'too_large', detail: String(size) });
    }
  }

  private onDied (chromeText: string | undefined, notice?: BridgeNotice): void {
    const why = notice ?? nativeErrorNotice(chromeText);
    this.opts.log?.('bridge down:', chromeText ?? noticeText(why));
    this.helloAnswer = null;
    this.setState('down', why);
    this.fail(noticeText(why));
    this.opts.onSessionEnd?.();
    if (this.stopped)
      return;
    const backoff = this.opts.backoffMs ?? DEFAULT_BACKOFF;
    const delay = backoff[Math.min(this.attempt, backoff.length - 1)] ?? 1000;
    this.attempt++;
    if (this.reconnectTimer !== null)
      clearTimeout(this.reconnectTimer);
    this.reconnectTimer = setTimeout(() => this.connect(), delay);
  }

  private fail (reason: string): void {
    const pending = this.pending;
    this.pending = new Map();
    for (const p of pending.values())
      p.reject(new BridgeError(reason, 'unreachable'));
  }

  // Sends @message unless its frame would be over MAX_FRAME_BYTES; returns
  // the frame's size then, else 0.
  private post (message: Record<string, unknown>): number {
    const size = utf8Length(JSON.stringify(message));
    if (size > MAX_FRAME_BYTES) {
      this.opts.log?.(`bridge: a ${String(message.type)} of ${size} bytes was not sent (at most ${MAX_FRAME_BYTES})`);
      return size;
    }
    try {
      this.port?.postMessage(message);
    } catch (e) {
      this.opts.log?.('bridge post failed:', e);
    }
    return 0;
  }

  private static tooLarge (type: string, size: number): string {
    return tooLargeText(type, size);
  }

  private onMessage (message: unknown): void {
    if (!isObject(message) || typeof message.type !== 'string') {
      this.opts.log?.('bridge: dropped a message without type');
      return;
    }
    const check = checkAppMessage(message);
    const type = message.type;
    const isAnswer = type === 'error' || type.endsWith('.result');
    if (isAnswer && message.re === null && type === 'error') {
      this.onUnaddressedError(message, check.ok ? null : `${check.field} ${check.why}`);
      return;
    }
    if (isAnswer) {
      const re = message.re;
      const p = typeof re === 'number' ? this.pending.get(re) : undefined;
      if (p === undefined) {
        this.opts.log?.('bridge: dropped an answer to no pending request', type, re);
        return;
      }
      this.pending.delete(re as number);
      if (!check.ok)
        p.reject(new BridgeError(`Lumo Access sent an invalid ${type}: ${check.field} ${check.why}.`, 'bad_answer', check.field));
      else if (type === 'error')
        p.reject(new BridgeError(String(message.message ?? message.code), String(message.code),
          typeof message.field === 'string' ? message.field : undefined));
      else
        p.resolve(message);
      return;
    }
    // A request with a bad field gets its error answer; one whose id
    // cannot be read, and a bad push, are dropped.
    if (APP_REQUESTS.includes(type) && !check.ok && check.field !== 'id') {
      this.post({ type: 'error', re: message.id, code: check.code ?? 'bad_field',
        field: check.field, message: `${check.field} ${check.why}.` });
      return;
    }
    // A decision beside an agent's message that the provider cannot take
    // is no decision: the message goes on without it, so its call asks
    // the app (fail closed) and is still answered.
    if (!check.ok && type === 'agentMessage' && check.field.startsWith('decision')) {
      this.opts.log?.(`bridge: ignored the decision of an agentMessage: ${check.field} ${check.why}`);
      const { decision: _ignored, ...rest } = message;
      this.opts.onPush?.(rest);
      return;
    }
    if (!check.ok) {
      this.opts.log?.(`bridge: dropped an invalid ${type}: ${check.field} ${check.why}`);
      return;
    }
    if (type === 'policy')
      this.onPolicyPush(message);
    else if (APP_PUSHES.includes(type))
      this.opts.onPush?.(message);
    else
      void this.answerRequest(message);
  }

  // An error with re: null answers no request of ours: a frame the app
  // could not read, a push it refused, or `unavailable`, the one frame of
  // a connection the helper or the app cannot serve at all. That one ends
  // the session with its message, for the person, as the reason: Chrome
  // would only say the host exited. It will most likely be sent again, so
  // the retry waits on the slow end of the backoff, like a refused hello.
  // The others are the provider's own faults; the app goes on (or, after
  // too_large, closes the session itself), so they are only logged.
  private onUnaddressedError (message: Record<string, unknown>, invalid: string | null): void {
    if (invalid !== null) {
      this.opts.log?.(`bridge: dropped an invalid error: ${invalid}`);
      return;
    }
    const code = String(message.code);
    const text = typeof message.message === 'string' && message.message.length > 0 ? message.message : null;
    this.opts.log?.(`bridge: Lumo Access sent error ${code}${typeof message.field === 'string' ? ` (${message.field})` : ''}: ${text ?? ''}`);
    if (code !== 'unavailable')
      return;
    this.attempt = Math.max(this.attempt, (this.opts.backoffMs ?? DEFAULT_BACKOFF).length - 1);
    const dead = this.port;
    this.port = null;
    dead?.disconnect();
    this.onDied(undefined, { code: 'unavailable', detail: text });
  }

  private onPolicyPush (message: Record<string, unknown>): void {
    const { enabled, writes, review, revoked } = message as { enabled: boolean; writes: boolean; review: boolean; revoked: string[] };
    this.policy = { enabled, writes, review };
    this.opts.onPolicy?.({ enabled, writes, review, revoked: [...revoked] });
  }

  private async answerRequest (message: Record<string, unknown>): Promise<void> {
    const id = message.id;
    const port = this.port;
    let answer: Record<string, unknown>;
    try {
      if (this.opts.onRequest === undefined)
        throw new BridgeError(`"${String(message.type)}" is not handled by this provider.`, 'unknown_type');
      answer = { ...(await this.opts.onRequest(message)), re: id };
    } catch (e) {
      const be = e instanceof BridgeError ? e : null;
      answer = { type: 'error', re: id, code: be?.code ?? 'internal', message: e instanceof Error ? e.message : String(e) };
      if (be?.field !== undefined)
        answer.field = be.field;
    }
    // An answer for a port that has since died would go to the wrong session.
    if (this.port !== port)
      return;
    // Every request gets exactly one answer: one too large to send becomes
    // an error answer.
    const size = this.post(answer);
    if (size > 0)
      this.post({ type: 'error', re: id, code: 'too_large', message: Bridge.tooLarge(String(answer.type), size) });
  }

  // Resolves once the bridge is ready or down, or after waitMs.
  whenSettled (waitMs: number): Promise<void> {
    if (this.state !== 'connecting')
      return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, waitMs);
      this.waiters.push(() => { clearTimeout(timer); resolve(); });
    });
  }

  // Sends a request and resolves with its answer. Rejects with a BridgeError:
  // code "unreachable" when the bridge is not ready (or dies before the
  // answer), or the app's error code. waitMs bounds how long a request may
  // wait for a bridge that is still connecting. With @session, the request
  // is sent only on that session (it belongs to it: a virtual port's
  // authorize, an audit id's result), never on a later one.
  async request (type: string, fields: Record<string, unknown>, waitMs = 0, session?: number): Promise<Record<string, unknown>> {
    if (this.state === 'connecting' && waitMs > 0 && session === undefined)
      await this.whenSettled(waitMs);
    if (session !== undefined && session !== this.sessionSeq)
      throw new BridgeError('The connection to Lumo Access this port belonged to has ended.', 'unreachable');
    if (this.state !== 'ready' || this.port === null)
      throw new BridgeError(this.state === 'connecting'
        ? 'Lumo Access is starting; try again in a moment.'
        : (this.reason ?? explainNativeError(undefined)), 'unreachable');
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      const size = this.post({ ...fields, type, id });
      if (size > 0) {
        this.pending.delete(id);
        reject(new BridgeError(Bridge.tooLarge(type, size), 'too_large'));
      }
    });
  }

  // Sends a push (no id, no answer) on @session, if that session is still
  // the ready one and the frame fits.
  push (session: number, type: string, fields: Record<string, unknown>): PushOutcome {
    if (session !== this.sessionSeq || this.state !== 'ready' || this.port === null)
      return 'gone';
    const size = this.post({ ...fields, type });
    return size > 0 ? { tooLarge: size } : 'sent';
  }

  // Fire-and-forget requests (result, port, tools): failures only logged.
  notify (type: string, fields: Record<string, unknown>): void {
    this.request(type, fields).catch((e) => this.opts.log?.(`bridge: ${type} failed:`, e instanceof Error ? e.message : e));
  }
}

export function chromeNativeConnect (): NativePortLike {
  return chrome.runtime.connectNative(NATIVE_HOST_NAME) as unknown as NativePortLike;
}

export function chromeLastError (): string | undefined {
  return chrome.runtime.lastError?.message;
}
