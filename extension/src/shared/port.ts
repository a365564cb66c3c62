// SPDX-License-Identifier: GPL-3.0-or-later
//
// The slice of chrome.runtime.Port that the L1 transports use, so unit tests
// can drive them with a fake port.

export interface PortEvent<T extends unknown[]> {
  addListener (cb: (...args: T) => void): void;
  removeListener (cb: (...args: T) => void): void;
}

export interface PortLike {
  readonly name: string;
  readonly sender?: { id?: string; url?: string; origin?: string };
  postMessage (message: unknown): void;
  disconnect (): void;
  onMessage: PortEvent<[unknown]>;
  onDisconnect: PortEvent<[unknown]>;
}

// The provider sends this notification just before it closes a port on
// purpose, so the host can show why instead of a bare disconnect.
export const CLOSED_NOTIFICATION = 'notifications/lumo/closed';

// JSON-RPC error code for "the caller may not use this provider now".
export const NOT_AUTHORIZED_ERROR = -32001;
