// SPDX-License-Identifier: GPL-3.0-or-later
//
// Fakes of chrome.runtime ports for the unit tests: a connected pair of
// ports that deliver asynchronously (as Chrome does) and a native port
// whose other end the test plays as the app.

import type { PortEvent, PortLike } from '../src/shared/port.ts';
import type { NativePortLike } from '../src/provider/bridge.ts';

export class FakeEvent<T extends unknown[]> implements PortEvent<T> {
  listeners: Array<(...args: T) => void> = [];
  addListener (cb: (...args: T) => void): void { this.listeners.push(cb); }
  removeListener (cb: (...args: T) => void): void { this.listeners = this.listeners.filter((l) => l !== cb); }
  emit (...args: T): void { for (const l of [...this.listeners]) l(...args); }
}

export const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 0));

export async function until (cond: () => boolean, what: string, limit = 2000): Promise<void> {
  for (let i = 0; i < limit; i++) {
    if (cond())
      return;
    await tick();
  }
  throw new Error(`timed out waiting for ${what}`);
}

export class FakePort implements PortLike {
  onMessage = new FakeEvent<[unknown]>();
  onDisconnect = new FakeEvent<[unknown]>();
  peer: FakePort | null = null;
  disconnected = false;
  posted: unknown[] = [];

  constructor (readonly name: string, readonly sender?: { id?: string }) {}

  postMessage (message: unknown): void {
    if (this.disconnected)
      throw new Error('Attempting to use a disconnected port object');
    this.posted.push(message);
    const peer = this.peer;
    // Chrome serializes messages: a copy, delivered later.
    const copy = JSON.parse(JSON.stringify(message));
    setTimeout(() => { if (peer && !peer.disconnected) peer.onMessage.emit(copy); }, 0);
  }

  disconnect (): void {
    if (this.disconnected)
      return;
    this.disconnected = true;
    const peer = this.peer;
    setTimeout(() => {
      if (peer && !peer.disconnected) {
        peer.disconnected = true;
        peer.onDisconnect.emit(peer);
      }
    }, 0);
  }
}

export function portPair (name: string, callerId: string): [FakePort, FakePort] {
  const host = new FakePort(name);
  const provider = new FakePort(name, { id: callerId });
  host.peer = provider;
  provider.peer = host;
  return [host, provider];
}

// The app's side of one native port.
export class FakeNativePort implements NativePortLike {
  onMessage = new FakeEvent<[unknown]>();
  onDisconnect = new FakeEvent<[]>();
  sent: Array<Record<string, unknown>> = [];
  closed = false;
  // The app's reaction to each message the provider sends.
  handler?: (message: Record<string, unknown>) => void;

  postMessage (message: unknown): void {
    if (this.closed)
      throw new Error('Attempting to use a disconnected port object');
    const copy = JSON.parse(JSON.stringify(message));
    this.sent.push(copy);
    setTimeout(() => this.handler?.(copy), 0);
  }

  disconnect (): void {
    this.closed = true;
  }

  // The app answers or pushes.
  deliver (message: unknown): void {
    setTimeout(() => { if (!this.closed) this.onMessage.emit(JSON.parse(JSON.stringify(message))); }, 0);
  }

  // The app (or host) died.
  die (): void {
    this.closed = true;
    this.onDisconnect.emit();
  }

  last (type: string): Record<string, unknown> | undefined {
    return [...this.sent].reverse().find((m) => m.type === type);
  }
}
