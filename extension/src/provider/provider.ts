// SPDX-License-Identifier: GPL-3.0-or-later
//
// The provider as one object: the bridge to the app, the open L1 ports per
// caller, the virtual ports the app opens for desktop agents
// (agent-ports.ts), and the handlers the service worker's top-level
// listeners call.
// Everything browser-specific comes in through ProviderDeps, so the unit
// tests run the same code with fakes.

import type { ServiceInfo } from '../shared/protocol.ts';
import { MCP_PORT_NAME, isExtensionId } from '../shared/protocol.ts';
import type { PortLike } from '../shared/port.ts';
import { probeExtension, type SendMessage } from '../host/probe.ts';
import { AgentPorts, type AgentPortInfo, type RelayedDecision } from './agent-ports.ts';
import { Bridge, BridgeError, type BridgeOptions, type BridgePolicy, type PolicyPush } from './bridge.ts';
import { bridgeCatalogue, catalogue, createProviderServer, SERVICE } from './mcp-server.ts';
import { bounded, handleProbe } from './probe.ts';
import { cleanName, truncateUtf8, wellFormedJson } from '../shared/text.ts';
import { ScriptStore } from './scripts.ts';
import { BufferedPortTransport } from './transport.ts';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { AuthorizeOutcome, AuthorizeRequest, SitePackService, ToolContext, ToolDef } from './tools.ts';

export interface ProviderDeps {
  connectNative: BridgeOptions['connect'];
  lastError: BridgeOptions['lastError'];
  store: ScriptStore;
  newUuid: () => string;
  sendMessage?: SendMessage;
  selfId: string;
  service?: ServiceInfo;
  tools?: readonly ToolDef[];
  backoffMs?: readonly number[];
  // How long a probe may wait for a bridge that is still connecting; the
  // host gives up after 1500 ms, so this stays well under it.
  probeWaitMs?: number;
  progressIntervalMs?: number;
  sitePacks?: SitePackService;
  // Settles once the provider knows what it serves (the site packs and
  // their tabs, after a worker restart); a port waits for it, at most 3 s,
  // before its first tools/list.
  ready?: Promise<unknown>;
  // Resolves once a script write is in effect (ToolContext.applied).
  applied?: () => Promise<void>;
  log?: (...args: unknown[]) => void;
}

interface OpenPort {
  id: string;
  callerId: string;
  transport: BufferedPortTransport;
  server: Server;
  // The app was told this port is open (so it must hear that it closed);
  // from then on the caller may hear that the tool list changed.
  announced: boolean;
}

const REASON_TEXT: Record<string, string> = {
  disabled: 'Agent access is turned off in the provider.',
  not_authorized: 'The caller is not on the allow-list.',
  pending: 'Waiting for your approval in the provider.',
  writes_off: 'Writes are turned off for this provider.',
  rate_limited: 'Too many writes: at most 30 in 60 seconds.',
  review_rejected: 'The reviewer rejected this write.',
  review_timeout: 'No reviewer decided on this write in time.',
  audit_failed: 'The write could not be recorded in the audit log, so it was not allowed.',
};

function retryWords (ms: number): string {
  const s = Math.max(1, Math.ceil(ms / 1000));
  return s === 1 ? 'Try again in 1 second.' : `Try again in ${s} seconds.`;
}

// The sentence the model reads for a denial: the app's own message when it
// sent one (the provider must not parse it), else one made from the code.
export function denialText (answer: Record<string, unknown>): string {
  const reason = typeof answer.reason === 'string' ? answer.reason : 'denied';
  if (typeof answer.message === 'string' && answer.message.length > 0)
    return answer.message;
  let text = REASON_TEXT[reason] ?? `Lumo Access refused the call (${reason}).`;
  if (reason === 'rate_limited' && typeof answer.retryAfterMs === 'number')
    text += ' ' + retryWords(answer.retryAfterMs);
  return text;
}

// What an authorize answer, or the app's decision on a relayed read, means
// for the call.
function outcome (answer: Record<string, unknown>): AuthorizeOutcome {
  const auditId = typeof answer.auditId === 'number' ? answer.auditId : undefined;
  if (answer.allow === true)
    return auditId === undefined ? { allow: true } : { allow: true, auditId };
  const denied: AuthorizeOutcome = { allow: false, reason: String(answer.reason ?? 'denied'), message: denialText(answer) };
  if (auditId !== undefined)
    denied.auditId = auditId;
  return denied;
}

// Another extension's probe answer, as the app gets it: raw (the app maps
// it), but its strings well-formed and its service name cleaned like every
// name from outside. Its size is bounded by the frame (Bridge.post).
function foreignAnswer (answer: unknown): unknown {
  const a = wellFormedJson(answer);
  if (typeof a === 'object' && a !== null && !Array.isArray(a)) {
    const service = (a as Record<string, unknown>).service;
    if (typeof service === 'object' && service !== null && !Array.isArray(service)) {
      const s = { ...(service as Record<string, unknown>) };
      for (const [k, max] of [['name', 128], ['version', 64], ['namespace', 64]] as const)
        if (typeof s[k] === 'string')
          s[k] = cleanName(s[k], max) ?? '';
      return { ...a, service: s };
    }
  }
  return a;
}

// How a call of a virtual port reaches the app: its authorize names the
// port and goes only on the session the port belongs to, never on a later
// one; none goes once the port has closed. A read the app relayed with its
// decision takes that instead (@decided).
interface VirtualVia {
  port: string;
  session: number;
  isOpen: () => boolean;
  decided: (requestId: unknown, tool: string) => RelayedDecision | undefined;
}

// Open lumo:mcp ports: per caller (a host needs one, a few while an old
// one closes), and in all (the app counts at most 256 per session).
export const MAX_PORTS_PER_CALLER = 8;
export const MAX_PORTS = 256;

export class Provider {
  readonly bridge: Bridge;
  readonly store: ScriptStore;
  readonly service: ServiceInfo;
  private catalogueTools: readonly ToolDef[];
  // Additive fields of hello and tools (customMarketMcpServers).
  private catalogueExtra: Record<string, unknown> = {};
  private catalogueSeq = 0;
  // The names the app accepted in its last hello/tools answer; null until
  // it answered. Only these are listed: the app refuses the others anyway.
  private accepted: Set<string> | null = null;
  private readonly deps: ProviderDeps;
  private readonly ports = new Map<string, OpenPort>();
  private portCounter = 0;
  private readonly agents: AgentPorts;

  constructor (deps: ProviderDeps) {
    this.deps = deps;
    this.store = deps.store;
    this.service = deps.service ?? SERVICE;
    this.catalogueTools = catalogue(deps.tools, (m) => deps.log?.(m));
    this.bridge = new Bridge({
      connect: deps.connectNative,
      lastError: deps.lastError,
      hello: () => ({ bridge: 1, service: { ...this.service }, tools: bridgeCatalogue(this.catalogueTools), ...this.catalogueExtra }),
      onReady: (answer) => this.onBridgeReady(answer),
      onPolicy: (push) => this.onPolicy(push),
      onRequest: (m) => this.onAppRequest(m),
      onPush: (m) => this.agents.onPush(m),
      onSessionEnd: () => this.agents.dropAll(),
      onStateChange: (state, reason) => deps.log?.(`bridge ${state}${reason ? `: ${reason}` : ''}`),
      ...(deps.backoffMs ? { backoffMs: deps.backoffMs } : {}),
      ...(deps.log ? { log: deps.log } : {}),
    });
    this.agents = new AgentPorts({
      bridge: this.bridge,
      newServer: (port, isOpen, decided) => this.agentServer(port, isOpen, decided),
      ready: () => this.whenReady(),
      ...(deps.log ? { log: deps.log } : {}),
    });
  }

  start (): void {
    this.bridge.start();
  }

  // The tools a new port lists: the catalogue, less what the app refused.
  get tools (): readonly ToolDef[] {
    const accepted = this.accepted;
    return accepted === null ? this.catalogueTools : this.catalogueTools.filter((t) => accepted.has(t.name));
  }

  private takeVerdicts (answer: Record<string, unknown>): void {
    const t = answer.tools as { accepted?: unknown; refused?: unknown } | undefined;
    if (t && Array.isArray(t.accepted))
      this.accepted = new Set(t.accepted.filter((n): n is string => typeof n === 'string'));
    if (t && Array.isArray(t.refused) && t.refused.length > 0)
      this.deps.log?.('Lumo Access refused tools:', JSON.stringify(t.refused));
  }

  // A new catalogue (the site tools add and remove tools): checked against
  // the limits here, then reported to the app, which answers with what it
  // accepts. Open ports then hear notifications/tools/list_changed. @extra
  // holds additive fields for hello and tools (customMarketMcpServers).
  async updateCatalogue (tools: readonly ToolDef[], extra?: Record<string, unknown>): Promise<void> {
    const before = this.tools.map((t) => t.name).join('\n');
    this.catalogueTools = catalogue(tools, (m) => this.deps.log?.(m));
    if (extra !== undefined)
      this.catalogueExtra = { ...extra };
    const seq = ++this.catalogueSeq;
    if (this.bridge.state === 'ready') {
      const answer = await this.bridge.request('tools', { tools: bridgeCatalogue(this.catalogueTools), ...this.catalogueExtra });
      // An answer to an older catalogue must not undo a newer one.
      if (seq !== this.catalogueSeq)
        return;
      this.takeVerdicts(answer);
    }
    // Else the next hello carries it; the accepted set of the last answer
    // still filters what is listed.
    if (this.tools.map((t) => t.name).join('\n') !== before)
      this.notifyToolsChanged();
  }

  private notifyToolsChanged (): void {
    for (const p of this.ports.values())
      if (p.announced && !p.transport.isClosed)
        p.server.sendToolListChanged().catch(() => undefined);
    this.agents.notifyToolsChanged();
  }

  get openPortCount (): number {
    return this.ports.size;
  }

  get openAgentPortCount (): number {
    return this.agents.size;
  }

  // ---- L0 ----------------------------------------------------------------

  probe (message: unknown, sender: { id?: string }) {
    return handleProbe(message, sender, this.service, async (caller) => {
      const a = await this.bridge.request('probe', { caller }, this.deps.probeWaitMs ?? 1000);
      return a;
    });
  }

  // ---- L1 ----------------------------------------------------------------

  // Called synchronously from onConnectExternal: the transport listens at
  // once, so nothing the host sends right after connect is lost.
  connect (port: PortLike): void {
    if (port.name !== MCP_PORT_NAME)
      return;
    const transport = new BufferedPortTransport(port);
    const callerId = port.sender?.id;
    if (!isExtensionId(callerId)) {
      transport.closeWithReason('The port did not come from an extension with a valid ID.');
      return;
    }
    const mine = [...this.ports.values()].filter((p) => p.callerId === callerId).length;
    if (mine >= MAX_PORTS_PER_CALLER || this.ports.size >= MAX_PORTS) {
      transport.closeWithReason(mine >= MAX_PORTS_PER_CALLER
        ? `This caller has ${MAX_PORTS_PER_CALLER} lumo:mcp ports open already, the most it may; close one first.`
        : `The provider has ${MAX_PORTS} lumo:mcp ports open, the most it serves; try again later.`);
      return;
    }
    const id = `p${++this.portCounter}`;
    const server: Server = createProviderServer(() => this.tools, this.bridge.policy,
      this.toolContext(callerId, () => server.getClientVersion()?.name), this.deps.progressIntervalMs);
    const open: OpenPort = { id, callerId, transport, server, announced: false };
    this.ports.set(id, open);
    transport.onclose = () => {
      this.ports.delete(id);
      if (open.announced && this.bridge.state === 'ready')
        this.bridge.notify('port', { caller: { id: callerId }, port: id, state: 'closed' });
    };
    void server.connect(transport).then(() => this.admit(open));
  }

  private async admit (open: OpenPort): Promise<void> {
    let status: Record<string, unknown>;
    try {
      const answer = await this.bridge.request('probe', { caller: { id: open.callerId } }, 5000);
      status = (answer.status ?? {}) as Record<string, unknown>;
    } catch (e) {
      open.transport.closeWithReason(e instanceof Error ? e.message : String(e));
      return;
    }
    if (status.enabled !== true) {
      open.transport.closeWithReason(REASON_TEXT.disabled as string);
      return;
    }
    if (status.authorized !== true) {
      open.transport.closeWithReason(status.pendingApproval === true ? REASON_TEXT.pending as string : REASON_TEXT.not_authorized as string);
      return;
    }
    await this.whenReady();
    if (open.transport.isClosed)
      return;
    open.announced = true;
    this.bridge.notify('port', { caller: { id: open.callerId }, port: open.id, state: 'open' });
    open.transport.release();
  }

  // Settles once the provider knows what it serves, at most 3 s.
  private async whenReady (): Promise<void> {
    if (this.deps.ready === undefined)
      return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([this.deps.ready.catch(() => undefined), new Promise((r) => { timer = setTimeout(r, 3000); })]);
    clearTimeout(timer);
  }

  // ---- virtual ports (desktop agents) -------------------------------------

  // The server of a virtual port: the one of a lumo:mcp port, its calls
  // authorized under the agent's ID with the port named, on the session
  // the port belongs to.
  private agentServer (port: AgentPortInfo, isOpen: () => boolean,
    decided: VirtualVia['decided']): Server {
    return createProviderServer(() => this.tools, this.bridge.policy,
      this.toolContext(port.callerId, () => port.name, { port: port.id, session: port.session, isOpen, decided }), this.deps.progressIntervalMs);
  }

  private toolContext (callerId: string, callerName: () => string | undefined, via?: VirtualVia): ToolContext {
    return {
      ...(this.deps.sitePacks !== undefined ? { sitePacks: this.deps.sitePacks } : {}),
      ...(this.deps.applied !== undefined ? { applied: this.deps.applied } : {}),
      store: this.deps.store,
      newUuid: this.deps.newUuid,
      authorize: (req, requestId) => this.authorize(callerId, callerName(), req, via, requestId),
      complete: async (auditId, ok, error) => {
        const fields: Record<string, unknown> = { auditId, ok };
        const text = bounded(error, 1024);
        if (text !== undefined)
          fields.error = text;
        try {
          // An audit id is of the session that gave it.
          await this.bridge.request('result', fields, 0, via?.session);
        } catch (e) {
          this.deps.log?.('result not recorded:', e instanceof Error ? e.message : e);
        }
      },
    };
  }

  private async authorize (callerId: string, name: string | undefined, req: AuthorizeRequest, via?: VirtualVia,
    requestId?: unknown): Promise<AuthorizeOutcome> {
    const caller: Record<string, unknown> = { id: callerId };
    const shown = cleanName(name, 128);
    if (shown !== undefined)
      caller.name = shown;
    if (via !== undefined && !via.isOpen())
      return { allow: false, reason: 'closed', message: 'The call was not run: its session with the provider was closed.' };
    // The app decided this call as it relayed it (a read of its catalogue,
    // under the agent's ID): taken for this request and tool only, and
    // only if the tool is a read here too. Else ask, as every call.
    const decided = via !== undefined && requestId !== undefined ? via.decided(requestId, req.tool) : undefined;
    if (decided !== undefined && !req.write)
      return outcome(decided);
    const fields = via === undefined ? { caller, ...req } : { caller, port: via.port, ...req };
    let answer: Record<string, unknown>;
    try {
      answer = await this.bridge.request('authorize', fields, 3000, via?.session);
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      if (e instanceof BridgeError && e.code !== 'unreachable')
        return { allow: false, reason: e.code, message: `Lumo Access refused the request (${e.code}): ${why}` };
      return { allow: false, reason: 'unreachable', message: `The call was not run because Lumo Access cannot be reached. ${why}` };
    }
    return outcome(answer);
  }

  // ---- app → provider ----------------------------------------------------

  private onBridgeReady (answer: Record<string, unknown>): void {
    const before = this.tools.map((t) => t.name).join('\n');
    this.takeVerdicts(answer);
    if (this.tools.map((t) => t.name).join('\n') !== before)
      this.notifyToolsChanged();
    // Ports opened before a reconnect belong to the old session: tell the
    // new one about them so the app shows them.
    for (const p of this.ports.values())
      if (p.announced)
        this.bridge.notify('port', { caller: { id: p.callerId }, port: p.id, state: 'open' });
  }

  private onPolicy (push: PolicyPush): void {
    const reason = !push.enabled ? REASON_TEXT.disabled as string : 'Access for this caller was revoked in Lumo Access.';
    const closes = (callerId: string) => !push.enabled || push.revoked.includes(callerId);
    for (const p of [...this.ports.values()]) {
      if (closes(p.callerId))
        p.transport.closeWithReason(reason);
    }
    this.agents.closeWhere(closes, reason);
  }

  get policy (): BridgePolicy | null {
    return this.bridge.policy;
  }

  private async onAppRequest (m: Record<string, unknown>): Promise<Record<string, unknown>> {
    // Before any await: the port exists when the next message comes.
    if (m.type === 'agentOpen')
      return this.agents.open(m);
    if (m.type !== 'probeTarget')
      throw new BridgeError(`"${String(m.type)}" is not a request this provider handles.`, 'unknown_type');
    if (!isExtensionId(m.target))
      throw new BridgeError('target is not an extension ID.', 'invalid_id', 'target');
    const outcome = await probeExtension(m.target, {
      client: { id: this.deps.selfId, name: this.service.name, version: this.service.version },
      ...(this.deps.sendMessage ? { sendMessage: this.deps.sendMessage } : {}),
    });
    // The bridge needs "answer" present for kind "answer"; nothing becomes null.
    if (outcome.kind === 'answer')
      return { type: 'probeTarget.result', outcome: { kind: 'answer', answer: foreignAnswer('answer' in outcome ? outcome.answer : null) } };
    return { type: 'probeTarget.result', outcome: { ...outcome, ...(outcome.error !== undefined ? { error: truncateUtf8(outcome.error, 1024) } : {}) } };
  }
}
