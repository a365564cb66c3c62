// SPDX-License-Identifier: GPL-3.0-or-later
//
// The provider's MCP transport on one lumo:mcp port. It listens from the
// moment the port arrives (messages sent right after connect are not lost),
// but holds every inbound message until the app has authorized the caller;
// then it delivers them in arrival order. A port that is refused is closed
// with a reason: buffered requests get a JSON-RPC error carrying it, and a
// closing notification tells the host why before the port goes away.

import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { CLOSED_NOTIFICATION, NOT_AUTHORIZED_ERROR, type PortLike } from '../shared/port.ts';
import { isObject } from '../shared/protocol.ts';
import { utf8Length } from '../shared/text.ts';

// What a port may send before its caller is authorized: the host's
// initialize (and, after a reconnect, the call that prompted it). Over
// either bound the port is refused, so a caller that is not (yet) allowed
// cannot make the provider hold more.
export const MAX_HELD_MESSAGES = 16;
export const MAX_HELD_BYTES = 1024 * 1024;

export class BufferedPortTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private buffer: JSONRPCMessage[] = [];
  private heldBytes = 0;
  private released = false;
  private started = false;
  private closed = false;
  private readonly onPortMessage = (message: unknown): void => this.receive(message);
  private readonly onPortDisconnect = (): void => this.finish();

  constructor (readonly port: PortLike) {
    port.onMessage.addListener(this.onPortMessage);
    port.onDisconnect.addListener(this.onPortDisconnect);
  }

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

  // The caller is authorized: deliver what was held, in order, then pass
  // messages straight through.
  release (): void {
    if (this.closed)
      return;
    this.released = true;
    this.flush();
  }

  private receive (message: unknown): void {
    if (this.closed)
      return;
    if (!isObject(message) || message.jsonrpc !== '2.0') {
      this.onerror?.(new Error('the lumo:mcp port carried a message that is not JSON-RPC 2.0'));
      return;
    }
    if (!this.released) {
      const size = utf8Length(JSON.stringify(message));
      if (this.buffer.length + 1 > MAX_HELD_MESSAGES || this.heldBytes + size > MAX_HELD_BYTES) {
        this.closeWithReason(`The caller sent more than ${MAX_HELD_MESSAGES} messages or ${MAX_HELD_BYTES} bytes before it was authorized; the port is closed.`);
        return;
      }
      this.heldBytes += size;
    }
    this.buffer.push(message as JSONRPCMessage);
    this.flush();
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

  async send (message: JSONRPCMessage): Promise<void> {
    if (this.closed)
      throw new Error('the lumo:mcp port is closed');
    this.port.postMessage(message);
  }

  async close (): Promise<void> {
    if (this.closed)
      return;
    try {
      this.port.disconnect();
    } finally {
      this.finish();
    }
  }

  // Refuses the port: each held request gets an error with @reason, then a
  // closing notification, then the port is closed.
  closeWithReason (reason: string): void {
    if (this.closed)
      return;
    try {
      for (const m of this.buffer) {
        if ('id' in m && 'method' in m)
          this.port.postMessage({ jsonrpc: '2.0', id: m.id, error: { code: NOT_AUTHORIZED_ERROR, message: reason } });
      }
      this.port.postMessage({ jsonrpc: '2.0', method: CLOSED_NOTIFICATION, params: { reason } });
    } catch {
      // The port may already be gone; closing is what matters.
    }
    this.buffer = [];
    void this.close();
  }

  private finish (): void {
    if (this.closed)
      return;
    this.closed = true;
    this.buffer = [];
    this.port.onMessage.removeListener(this.onPortMessage);
    this.port.onDisconnect.removeListener(this.onPortDisconnect);
    this.onclose?.();
  }
}
