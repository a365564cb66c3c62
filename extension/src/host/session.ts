// SPDX-License-Identifier: GPL-3.0-or-later
//
// A host's logical session with one provider. It outlives ports: MV3 stops
// idle service workers, which closes the port, but the session keeps its
// state and tool cache and opens a new port lazily on the next call,
// running initialize again (the provider has a new server per port). What a
// person sees comes from the state table over the latest probe.

import { cleanName } from '../shared/text.ts';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/cfworker';
import type { ClientInfo, ServiceInfo } from '../shared/protocol.ts';
import { probeExtension, type ProbeOutcome, type SendMessage } from './probe.ts';
import type { ConnectorLocale } from './messages.ts';
import { connectedMessage, mapProbeOutcome, type ProbeRow, type ProbeVerdict } from './state.ts';
import { chromeConnectPort, PortClientTransport, type ConnectPort } from './transport.ts';

export type SessionState = 'idle' | 'probing' | 'connected' | 'error';

export interface SessionOptions {
  providerId: string;
  client: ClientInfo;
  sendMessage?: SendMessage;
  connectPort?: ConnectPort;
  lastError?: () => string | undefined;
  probeTimeoutMs?: number;
  // How long a tools/call may go without an answer or a progress
  // notification (default 60 s; the provider sends progress while a person
  // reviews a write), and how long it may take in all (default 10 min).
  callTimeoutMs?: number;
  callMaxTotalMs?: number;
  // The language of `message` (default: the browser's UI language).
  locale?: ConnectorLocale;
  onChange?: (session: ProviderSession) => void;
  // After the provider said its tool list changed and the new list is in
  // (site tools come and go with the tabs of their sites).
  onToolsChanged?: (session: ProviderSession) => void;
}

export class SessionError extends Error {
  override name = 'SessionError';
  constructor (message: string, readonly row: ProbeRow | null) {
    super(message);
  }
}

function chromeLastError (): string | undefined {
  return typeof chrome !== 'undefined' ? chrome.runtime?.lastError?.message : undefined;
}

export class ProviderSession {
  readonly providerId: string;
  state: SessionState = 'idle';
  row: ProbeRow | null = null;
  message = '';
  service: ServiceInfo | null = null;
  tools: Tool[] | null = null;
  instructions: string | undefined;
  lastOutcome: ProbeOutcome | null = null;
  // How many times initialize ran, i.e. ports opened; for diagnostics.
  initializeCount = 0;

  private readonly opts: SessionOptions;
  private client: Client | null = null;
  private transport: PortClientTransport | null = null;
  private connecting: Promise<Client> | null = null;

  constructor (opts: SessionOptions) {
    this.opts = opts;
    this.providerId = opts.providerId;
  }

  get portOpen (): boolean {
    return this.transport !== null && !this.transport.isClosed;
  }

  private set (verdict: Pick<ProbeVerdict, 'row' | 'message'>, state: SessionState): void {
    this.row = verdict.row;
    this.message = verdict.message;
    this.state = state;
    this.opts.onChange?.(this);
  }

  // L0: asks the provider and maps the answer through the state table.
  async probe (): Promise<ProbeVerdict> {
    this.state = 'probing';
    const outcome = await probeExtension(this.providerId, {
      client: this.opts.client,
      ...(this.opts.probeTimeoutMs !== undefined ? { timeoutMs: this.opts.probeTimeoutMs } : {}),
      ...(this.opts.sendMessage ? { sendMessage: this.opts.sendMessage } : {}),
    });
    this.lastOutcome = outcome;
    const verdict = mapProbeOutcome(outcome, this.opts.locale);
    if (verdict.answer) {
      const service = verdict.answer.service;
      // Another extension's name: display text, cleaned where it comes in.
      this.service = { ...service, name: cleanName(service.name, 128) ?? service.namespace };
    }
    if (verdict.state === 'error') {
      this.set(verdict, 'error');
      // A provider that is not usable now must not keep a live port.
      await this.dropPort();
    } else {
      this.set({ row: 'connected', message: this.tools ? connectedMessage(this.tools.length, this.opts.locale) : verdict.message }, 'connected');
    }
    return verdict;
  }

  // Probe, then (when connected) list the tools over L1 and cache them.
  async refresh (): Promise<ProbeVerdict> {
    const verdict = await this.probe();
    if (verdict.state !== 'connected')
      return verdict;
    try {
      await this.fetchTools();
    } catch (e) {
      this.set({ row: 'connected', message: e instanceof Error ? e.message : String(e) }, 'error');
      throw e;
    }
    return verdict;
  }

  private async fetchTools (): Promise<Tool[]> {
    const client = await this.ensureClient();
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor !== undefined ? { cursor } : undefined);
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    this.tools = tools;
    this.set({ row: 'connected', message: connectedMessage(tools.length, this.opts.locale) }, 'connected');
    return tools;
  }

  async listTools (): Promise<Tool[]> {
    return this.tools ?? this.fetchTools();
  }

  // The lazy reconnect: a new port and a new initialize whenever the last
  // port is gone.
  private ensureClient (): Promise<Client> {
    if (this.client !== null && this.portOpen)
      return Promise.resolve(this.client);
    if (this.connecting !== null)
      return this.connecting;
    this.connecting = (async () => {
      const transport = new PortClientTransport(this.providerId,
        this.opts.connectPort ?? chromeConnectPort, this.opts.lastError ?? chromeLastError);
      const client = new Client(
        { name: this.opts.client.name ?? 'Lumo connector', version: this.opts.client.version ?? '0' },
        { capabilities: {}, jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
      );
      // A provider whose catalogue changes says so; fetch the new list.
      client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
        try {
          await this.fetchTools();
          this.opts.onToolsChanged?.(this);
        } catch {
          // The next refresh or call tries again.
        }
      });
      transport.onclose = () => {
        if (this.transport === transport) {
          this.client = null;
          this.transport = null;
          // A refusal (revoked, turned off) is a state change; a worker
          // that stopped is not.
          if (transport.refused && this.state === 'connected') {
            this.message = transport.closeReason ?? 'The provider closed the connection.';
            this.state = 'error';
            this.opts.onChange?.(this);
          }
        }
      };
      this.transport = transport;
      this.client = client;
      try {
        await client.connect(transport);
      } catch (e) {
        if (this.transport === transport) {
          this.client = null;
          this.transport = null;
        }
        await transport.close().catch(() => undefined);
        throw new SessionError(transport.closeReason ?? (e instanceof Error ? e.message : String(e)), this.row);
      }
      this.initializeCount++;
      this.instructions = client.getInstructions();
      return client;
    })();
    return this.connecting.finally(() => { this.connecting = null; });
  }

  private async dropPort (): Promise<void> {
    const client = this.client;
    this.client = null;
    this.transport = null;
    await client?.close().catch(() => undefined);
  }

  async callTool (name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
    // An errored session may have been fixed since (an approval, the app
    // started): look again before giving up.
    if (this.state !== 'connected') {
      const verdict = await this.probe();
      if (verdict.state !== 'connected')
        throw new SessionError(verdict.message, verdict.row);
    }
    for (let attempt = 0; ; attempt++) {
      let client: Client;
      try {
        client = await this.ensureClient();
      } catch (e) {
        // Refused on connect: the probe says which row we are in now.
        const verdict = await this.probe();
        if (verdict.state !== 'connected')
          throw new SessionError(verdict.message, verdict.row);
        throw e;
      }
      const transport = this.transport;
      const sentBefore = transport?.sent ?? 0;
      try {
        return await client.callTool({ name, arguments: args }, undefined, {
          timeout: this.opts.callTimeoutMs ?? 60 * 1000,
          maxTotalTimeout: this.opts.callMaxTotalMs ?? 10 * 60 * 1000,
          resetTimeoutOnProgress: true,
          // Asking for progress is what makes the provider send it.
          onprogress: () => undefined,
        }) as CallToolResult;
      } catch (e) {
        // Resend only what never left: a call lost in flight may have run.
        const neverSent = transport !== null && transport.sent === sentBefore;
        if (attempt === 0 && neverSent) {
          await transport.close().catch(() => undefined);
          if (this.transport === transport) {
            this.client = null;
            this.transport = null;
          }
          continue;
        }
        throw new SessionError(transport?.closeReason ?? (e instanceof Error ? e.message : String(e)), this.row);
      }
    }
  }

  async close (): Promise<void> {
    await this.dropPort();
    this.state = 'idle';
  }
}
