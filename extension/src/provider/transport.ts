// SPDX-License-Identifier: GPL-3.0-or-later
//
// The provider's MCP transports. Both kinds of port a provider serves — a
// lumo:mcp port from Chrome, and a virtual port the app opens for a desktop
// agent (agent-ports.ts) — listen from the moment the port exists (messages
// sent right after it opens are not lost), but hold every inbound message
// until the port is let through (the caller authorized; the provider
// ready); then they deliver them in arrival order. What may be held is
// bounded, the same for both. A port that is refused is closed with a
// reason: held requests get a JSON-RPC error carrying it, and the other end
// is told why before the port goes away.

import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { CLOSED_NOTIFICATION, NOT_AUTHORIZED_ERROR, type PortLike } from '../shared/port.ts';
import { isObject } from '../shared/protocol.ts';
import { utf8Length } from '../shared/text.ts';

// What a port may send before it is let through: the host's initialize
// (and, after a reconnect, the call that prompted it). Over either bound
// the port is refused, so a caller that is not (yet) allowed cannot make
// the provider hold more.
export const MAX_HELD_MESSAGES = 16;
export const MAX_HELD_BYTES = 1024 * 1024;

export abstract class HoldingTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  protected buffer: JSONRPCMessage[] = [];
  private heldBytes = 0;
  private released = false;
  private started = false;
  private closed = false;

  // For the texts: what the port is ("the lumo:mcp port") and what it
  // waits for before its messages go through ("it was authorized").
  protected abstract readonly label: string;
  protected abstract readonly waitsFor: string;

  get isClosed (): boolean {
    return this.closed;
  }

  get bufferedCount (): number {
    return this.buffer.length;
  }

  async start (): Promise<void> {
    this.started = true;
    this.flush();
  }

  // The port may go through: deliver what was held, in order, then pass
  // messages straight through.
  release (): void {
    if (this.closed)
      return;
    this.released = true;
    this.flush();
  }

  // One message from the other end; false when it was not taken (not
  // JSON-RPC 2.0, the port is closed, or holding it broke a bound).
  protected receive (message: unknown): boolean {
    if (this.closed)
      return false;
    if (!isObject(message) || message.jsonrpc !== '2.0') {
      this.onerror?.(new Error(`${this.label} carried a message that is not JSON-RPC 2.0`));
      return false;
    }
    if (!this.released) {
      const size = utf8Length(JSON.stringify(message));
      if (this.buffer.length + 1 > MAX_HELD_MESSAGES || this.heldBytes + size > MAX_HELD_BYTES) {
        this.closeWithReason(`The caller sent more than ${MAX_HELD_MESSAGES} messages or ${MAX_HELD_BYTES} bytes before ${this.waitsFor}; the port is closed.`);
        return false;
      }
      this.heldBytes += size;
    }
    this.buffer.push(message as JSONRPCMessage);
    this.flush();
    return true;
  }

  private flush (): void {
    if (!this.started || !this.released)
      return;
    // Delivery may re-enter receive(); the shift keeps arrival order.
    while (this.buffer.length > 0 && !this.closed) {
      const m = this.buffer.shift() as JSONRPCMessage;
      this.onmessage?.(m);
    }
    this.heldBytes = 0;
  }

  abstract send (message: JSONRPCMessage): Promise<void>;
  abstract close (): Promise<void>;
  // Refuses the port: each held request gets an error with @reason, the
  // other end hears why, and the port is closed.
  abstract closeWithReason (reason: string): void;

  // The requests held and not delivered, to answer with a refusal.
  protected heldRequests (): JSONRPCMessage[] {
    return this.buffer.filter((m) => 'id' in m && 'method' in m);
  }

  protected finish (): void {
    if (this.closed)
      return;
    this.closed = true;
    this.buffer = [];
    this.detach();
    this.onclose?.();
  }

  protected detach (): void {}
}

// A refusal of request @id as the caller reads it.
export function refusal (id: unknown, reason: string): JSONRPCMessage {
  return { jsonrpc: '2.0', id, error: { code: NOT_AUTHORIZED_ERROR, message: reason } } as JSONRPCMessage;
}

export class BufferedPortTransport extends HoldingTransport {
  protected readonly label = 'the lumo:mcp port';
  protected readonly waitsFor = 'it was authorized';
  private readonly onPortMessage = (message: unknown): void => { this.receive(message); };
  private readonly onPortDisconnect = (): void => this.finish();

  constructor (readonly port: PortLike) {
    super();
    port.onMessage.addListener(this.onPortMessage);
    port.onDisconnect.addListener(this.onPortDisconnect);
  }

  async send (message: JSONRPCMessage): Promise<void> {
    if (this.isClosed)
      throw new Error('the lumo:mcp port is closed');
    this.port.postMessage(message);
  }

  async close (): Promise<void> {
    if (this.isClosed)
      return;
    try {
      this.port.disconnect();
    } finally {
      this.finish();
    }
  }

  // A closing notification tells the host why before the port goes away.
  closeWithReason (reason: string): void {
    if (this.isClosed)
      return;
    try {
      for (const m of this.heldRequests())
        this.port.postMessage(refusal((m as { id: unknown }).id, reason));
      this.port.postMessage({ jsonrpc: '2.0', method: CLOSED_NOTIFICATION, params: { reason } });
    } catch {
      // The port may already be gone; closing is what matters.
    }
    this.buffer = [];
    void this.close();
  }

  protected override detach (): void {
    this.port.onMessage.removeListener(this.onPortMessage);
    this.port.onDisconnect.removeListener(this.onPortDisconnect);
  }
}
