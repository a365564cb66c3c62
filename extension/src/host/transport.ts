// SPDX-License-Identifier: GPL-3.0-or-later
//
// The host's MCP client transport on one lumo:mcp port. sessionId stays
// unset: the SDK's Client skips initialize when a transport has one, and a
// new port always needs a fresh initialize (the provider builds a new
// server per port). When the provider closes the port on purpose it says
// why first; closeReason keeps that for the person.

import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { CLOSED_NOTIFICATION, type PortLike } from '../shared/port.ts';
import { MCP_PORT_NAME, isObject } from '../shared/protocol.ts';

export type ConnectPort = (extensionId: string, name: string) => PortLike;

export function chromeConnectPort (extensionId: string, name: string): PortLike {
  return chrome.runtime.connect(extensionId, { name }) as unknown as PortLike;
}

export class PortClientTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  // Always undefined: with a sessionId the SDK's Client would skip
  // initialize on a new port.
  readonly sessionId: string | undefined = undefined;
  closeReason: string | null = null;
  // True when the provider closed the port on purpose (and said why), as
  // opposed to its worker stopping.
  refused = false;
  // Messages actually handed to the port: lets the session tell "never
  // sent" (safe to resend on a new port) from "lost in flight" (not safe).
  sent = 0;
  private port: PortLike | null = null;
  private closed = false;
  private readonly onPortMessage = (m: unknown): void => this.receive(m);
  private readonly onPortDisconnect = (): void => {
    if (this.closeReason === null)
      this.closeReason = this.lastError?.() ?? 'The provider closed the connection.';
    this.finish();
  };

  constructor (private readonly extensionId: string, private readonly connectPort: ConnectPort,
    private readonly lastError?: () => string | undefined) {}

  get isClosed (): boolean {
    return this.closed;
  }

  async start (): Promise<void> {
    if (this.port !== null || this.closed)
      throw new Error('PortClientTransport can be started once');
    const port = this.connectPort(this.extensionId, MCP_PORT_NAME);
    this.port = port;
    port.onMessage.addListener(this.onPortMessage);
    port.onDisconnect.addListener(this.onPortDisconnect);
  }

  private receive (message: unknown): void {
    if (!isObject(message) || message.jsonrpc !== '2.0') {
      this.onerror?.(new Error('the provider sent a message that is not JSON-RPC 2.0'));
      return;
    }
    if (message.method === CLOSED_NOTIFICATION) {
      const params = message.params;
      if (isObject(params) && typeof params.reason === 'string')
        this.closeReason = params.reason;
      this.refused = true;
      return;
    }
    this.onmessage?.(message as JSONRPCMessage);
  }

  async send (message: JSONRPCMessage): Promise<void> {
    if (this.closed || this.port === null)
      throw new Error(this.closeReason ?? 'the lumo:mcp port is closed');
    this.port.postMessage(message);
    this.sent++;
  }

  async close (): Promise<void> {
    if (this.closed)
      return;
    try {
      this.port?.disconnect();
    } finally {
      this.finish();
    }
  }

  private finish (): void {
    if (this.closed)
      return;
    this.closed = true;
    if (this.port !== null) {
      this.port.onMessage.removeListener(this.onPortMessage);
      this.port.onDisconnect.removeListener(this.onPortDisconnect);
    }
    this.onclose?.();
  }
}
