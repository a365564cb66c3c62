// SPDX-License-Identifier: GPL-3.0-or-later
//
// Virtual ports (docs/bridge-protocol.md, "Desktop agents: virtual ports"):
// a desktop MCP client reaches the provider's tools through the app, which
// opens one virtual port per agent session with agentOpen and carries its
// JSON-RPC messages both ways in agentMessage pushes. Each port gets its
// own MCP server, made exactly as for a lumo:mcp port (the provider's
// newServer), so the tools, their narrowing and the authorize path are the
// same; every call is authorized under the agent's ID with the port named.
// A read the app decided as it relayed it comes with its decision beside
// the message (checked with it, checkAppMessage): the call of that port,
// request id and tool uses it instead of asking, if the provider's own
// tool is a read (Provider.authorize); everything else asks as before.
// Ports belong to one bridge session: when it ends they are gone, nothing
// of theirs is ever sent on the next one, and the app opens what it needs
// again.

import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { type Bridge, BridgeError, MAX_FRAME_BYTES, type PushOutcome } from './bridge.ts';
import { MAX_CLOSE_REASON_BYTES } from './app-messages.ts';
import { HoldingTransport, refusal } from './transport.ts';
import { isObject } from '../shared/protocol.ts';
import { isWellFormedJson, truncateUtf8, wellFormedJson } from '../shared/text.ts';

// Virtual ports open at once in one bridge session (the app refuses more
// sessions per agent long before; this bounds all agents together).
export const MAX_AGENT_PORTS = 64;
// Requests of one port not answered yet, held ones included. The app
// bounds them per agent session too; this keeps one port that floods from
// making the provider hold more.
export const MAX_OPEN_REQUESTS = 64;

// JSON-RPC: an answer that could not be sent whole; too many open requests.
export const ANSWER_TOO_LARGE_ERROR = -32603;
export const TOO_MANY_REQUESTS_ERROR = -32000;

// Where a virtual port's messages and its close go (the bridge, on the
// session the port was opened in).
interface Sink {
  message (message: unknown): PushOutcome;
  close (reason: string): void;
}

// JSON-RPC ids are strings or numbers: 1 and "1" are different requests.
function idKey (id: unknown): string {
  return `${typeof id}:${String(id)}`;
}

function isRequest (m: Record<string, unknown>): boolean {
  return typeof m.method === 'string' && 'id' in m;
}

function isAnswer (m: Record<string, unknown>): boolean {
  return !('method' in m) && 'id' in m;
}

// The app's decision on a read it relayed, as the app sent it: the fields
// of an authorize answer (allow, reason, message), for one tool.
export type RelayedDecision = Record<string, unknown> & { tool: string; allow: boolean };

// The transport of one virtual port. It holds what the agent sends until
// the provider is ready (the bounds of every port), tracks the requests the
// server has not answered, and sends the server's messages as agentMessage
// pushes that fit a frame. A port the provider closes answers its open
// requests with the reason, then sends agentClose.
export class VirtualPortTransport extends HoldingTransport {
  protected readonly label: string;
  protected readonly waitsFor = 'the provider was ready';
  private readonly open = new Map<string, unknown>();
  // The app's decisions on the open requests it relayed them with.
  private readonly decided = new Map<string, RelayedDecision>();

  constructor (readonly portId: string, private readonly sink: Sink) {
    super();
    this.label = `virtual port ${portId}`;
  }

  get openRequests (): number {
    return this.open.size;
  }

  // One message of the agent, from the app (already a JSON-RPC object), and
  // the app's decision that came beside it (already checked against it).
  take (message: Record<string, unknown>, decision?: Record<string, unknown>): void {
    if (this.isClosed)
      return;
    if (isRequest(message)) {
      if (this.open.size >= MAX_OPEN_REQUESTS) {
        this.sink.message({ jsonrpc: '2.0', id: message.id, error: { code: TOO_MANY_REQUESTS_ERROR,
          message: `This session has ${MAX_OPEN_REQUESTS} requests the provider has not answered yet; wait for one.` } });
        return;
      }
      const key = idKey(message.id);
      // Counted before it is held: if holding it breaks a bound, the
      // refusal answers it too.
      this.open.set(key, message.id);
      if (decision !== undefined && typeof decision.tool === 'string' && typeof decision.allow === 'boolean')
        this.decided.set(key, decision as RelayedDecision);
      if (!this.receive(message) && !this.isClosed) {
        this.open.delete(key);
        this.decided.delete(key);
      }
      return;
    }
    // The SDK answers nothing for a request the client cancelled.
    if (message.method === 'notifications/cancelled' && isObject(message.params)) {
      this.open.delete(idKey(message.params.requestId));
      this.decided.delete(idKey(message.params.requestId));
    }
    this.receive(message);
  }

  // The app's decision on request @id of this port if it was for @tool;
  // taken once, so it decides one call at most.
  takeDecision (id: unknown, tool: string): RelayedDecision | undefined {
    const key = idKey(id);
    const d = this.decided.get(key);
    this.decided.delete(key);
    return d !== undefined && d.tool === tool ? d : undefined;
  }

  async send (message: JSONRPCMessage): Promise<void> {
    if (this.isClosed)
      throw new Error(`${this.label} is closed`);
    const m = message as Record<string, unknown>;
    const answer = isAnswer(m);
    if (answer) {
      this.open.delete(idKey(m.id));
      this.decided.delete(idKey(m.id));
    }
    const out = this.sink.message(message);
    if (out === 'sent')
      return;
    if (out === 'gone')
      throw new Error(`${this.label} belonged to a connection to Lumo Access that has ended`);
    // Every request still gets exactly one answer.
    const why = `The answer would be ${out.tooLarge} bytes, more than the ${MAX_FRAME_BYTES} bytes a message to Lumo Access may have, so it was not sent.`;
    if (answer) {
      this.sink.message({ jsonrpc: '2.0', id: m.id, error: { code: ANSWER_TOO_LARGE_ERROR, message: why } });
      return;
    }
    throw new Error(why);
  }

  // Closed by the app (agentClose), by the end of the bridge session, or by
  // the server: nothing is said.
  async close (): Promise<void> {
    this.open.clear();
    this.decided.clear();
    this.finish();
  }

  // Closed by the provider: the open requests are answered with @reason,
  // then the app hears agentClose with it.
  closeWithReason (reason: string): void {
    if (this.isClosed)
      return;
    for (const id of this.open.values())
      this.sink.message(refusal(id, reason));
    this.open.clear();
    this.decided.clear();
    this.sink.close(truncateUtf8(reason, MAX_CLOSE_REASON_BYTES));
    this.finish();
  }
}

export interface AgentPortInfo {
  id: string;
  callerId: string;
  // The agent's name as the app sent it (authorize cleans it, as every
  // caller name).
  name: string;
  session: number;
}

interface AgentPort extends AgentPortInfo {
  transport: VirtualPortTransport;
  server: Server;
  released: boolean;
}

export interface AgentPortsDeps {
  bridge: Bridge;
  // A server for the port, made as for a lumo:mcp port; @isOpen says
  // whether the port is still open (a call must not be authorized for a
  // port that has closed); @decided gives the app's decision on a request
  // of the port that it relayed with one (VirtualPortTransport.takeDecision).
  newServer: (port: AgentPortInfo, isOpen: () => boolean,
    decided: (id: unknown, tool: string) => RelayedDecision | undefined) => Server;
  // Settles once the provider knows what it serves (bounded).
  ready: () => Promise<void>;
  log?: (...args: unknown[]) => void;
}

export class AgentPorts {
  private readonly ports = new Map<string, AgentPort>();

  constructor (private readonly deps: AgentPortsDeps) {}

  get size (): number {
    return this.ports.size;
  }

  // agentOpen, its fields already checked (checkAppMessage): the port and
  // its server exist when this returns, so an agentMessage right behind
  // the request finds them. Throws a BridgeError (busy).
  open (m: Record<string, unknown>): Record<string, unknown> {
    const id = m.port as string;
    const caller = m.caller as { id: string; name: string };
    if (this.ports.has(id))
      throw new BridgeError(`The virtual port ${id} is open already.`, 'busy');
    if (this.ports.size >= MAX_AGENT_PORTS)
      throw new BridgeError(`The provider has ${MAX_AGENT_PORTS} virtual ports open, the most it serves; close one first.`, 'busy');
    const bridge = this.deps.bridge;
    const session = bridge.session;
    const transport = new VirtualPortTransport(id, {
      message: (message) => bridge.push(session, 'agentMessage',
        { port: id, message: isWellFormedJson(message) ? message : wellFormedJson(message) }),
      close: (reason) => { bridge.push(session, 'agentClose', { port: id, reason }); },
    });
    const info: AgentPortInfo = { id, callerId: caller.id, name: caller.name, session };
    const server = this.deps.newServer(info, () => !transport.isClosed, (rid, tool) => transport.takeDecision(rid, tool));
    const port: AgentPort = { ...info, transport, server, released: false };
    this.ports.set(id, port);
    transport.onclose = () => {
      if (this.ports.get(id) === port)
        this.ports.delete(id);
    };
    server.connect(transport)
      .then(() => this.deps.ready())
      .then(() => {
        if (transport.isClosed)
          return;
        port.released = true;
        transport.release();
      })
      .catch((e) => {
        this.deps.log?.(`virtual port ${id}:`, e);
        transport.closeWithReason('The provider could not start a server for this port.');
      });
    return { type: 'agentOpen.result' };
  }

  // agentMessage or agentClose from the app, fields checked.
  onPush (m: Record<string, unknown>): void {
    const id = m.port as string;
    const port = this.ports.get(id);
    if (m.type === 'agentClose') {
      void port?.transport.close();
      return;
    }
    if (port === undefined) {
      // Closed, or never opened in this session: the app must not wait
      // for an answer from it.
      this.deps.bridge.push(this.deps.bridge.session, 'agentClose', { port: id, reason: `No virtual port ${id} is open in the provider.` });
      return;
    }
    port.transport.take(m.message as Record<string, unknown>, m.decision as Record<string, unknown> | undefined);
  }

  // The provider closes the ports of the callers @which picks, with @reason.
  closeWhere (which: (callerId: string) => boolean, reason: string): void {
    for (const p of [...this.ports.values()])
      if (which(p.callerId))
        p.transport.closeWithReason(reason);
  }

  // The bridge session ended: its ports are gone, and there is no one to
  // tell.
  dropAll (): void {
    const ports = [...this.ports.values()];
    this.ports.clear();
    for (const p of ports)
      void p.transport.close();
  }

  notifyToolsChanged (): void {
    for (const p of this.ports.values())
      if (p.released && !p.transport.isClosed)
        p.server.sendToolListChanged().catch(() => undefined);
  }
}
