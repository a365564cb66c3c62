// SPDX-License-Identifier: GPL-3.0-or-later
//
// A stand-in for Lumo Access on the far side of the native port, following
// docs/bridge-protocol.md closely enough for the provider's tests: hello,
// probe (unknown callers become pending), authorize with the reason codes,
// result, port, tools, policy pushes, probeTarget requests, and the virtual
// ports of desktop agents (agentOpen, agentMessage, agentClose; authorize
// with port checked as the app checks it).

import { FakeNativePort } from './fakes.ts';

export interface Decision {
  reason: string;
  message?: string;
  retryAfterMs?: number;
}

export class FakeApp {
  ports: FakeNativePort[] = [];
  policy = { enabled: true, writes: true, review: false };
  allowed = new Set<string>();
  denied = new Set<string>();
  pending = new Set<string>();
  received: Array<Record<string, unknown>> = [];
  nextAuditId = 40;
  // Set to make connect fail the way Chrome reports it.
  unreachable: string | null = null;
  lastErrorText: string | undefined;
  // The next authorize gets this denial instead of the policy's answer.
  denyNext: Decision | null = null;
  acceptedTools = true;
  // Tool names the app refuses (e.g. another provider came first).
  refuse = new Set<string>();
  connects = 0;
  // Virtual ports of the current session the provider opened: port → agent.
  agentPorts = new Map<string, string>();
  // Agent IDs the app made (an agent's ID is refused without its port).
  agents = new Set<string>();
  // What the provider sent on each virtual port, and its closes.
  agentInbox = new Map<string, Array<Record<string, any>>>();
  agentListeners = new Map<string, (message: Record<string, any>) => void>();
  // Hold authorize requests instead of answering them (a review waiting).
  holdAuthorize = false;
  heldAuthorize: Array<Record<string, unknown>> = [];
  private opening = new Map<unknown, { port: string; caller: string }>();
  private appSeq = 0;

  get port (): FakeNativePort | undefined {
    return this.ports[this.ports.length - 1];
  }

  of (type: string): Array<Record<string, unknown>> {
    return this.received.filter((m) => m.type === type);
  }

  connect = (): FakeNativePort => {
    this.connects++;
    const port = new FakeNativePort();
    this.ports.push(port);
    // A new session: the virtual ports of the old one are gone.
    this.agentPorts.clear();
    this.opening.clear();
    if (this.unreachable !== null) {
      const text = this.unreachable;
      setTimeout(() => { this.lastErrorText = text; port.die(); this.lastErrorText = undefined; }, 0);
      return port;
    }
    port.handler = (m) => this.onMessage(port, m);
    return port;
  };

  lastError = (): string | undefined => this.lastErrorText;

  // The app process went away.
  kill (text = 'Native host has exited.'): void {
    const port = this.port;
    if (port && !port.closed) {
      this.lastErrorText = text;
      port.die();
      this.lastErrorText = undefined;
    }
  }

  push (message: Record<string, unknown>): void {
    this.port?.deliver(message);
  }

  setPolicy (change: Partial<FakeApp['policy']>, revoked: string[] = []): void {
    Object.assign(this.policy, change);
    this.push({ type: 'policy', ...this.policy, revoked });
  }

  allow (caller: string): void {
    this.pending.delete(caller);
    this.denied.delete(caller);
    this.allowed.add(caller);
    this.push({ type: 'policy', ...this.policy, revoked: [] });
  }

  revoke (caller: string): void {
    this.allowed.delete(caller);
    this.denied.add(caller);
    this.push({ type: 'policy', ...this.policy, revoked: [caller] });
  }

  // agentOpen for @caller on @port; returns the request id.
  openAgent (port: string, caller: string, name = 'Claude Code', extra: Record<string, unknown> = {}): string {
    const id = `app-${++this.appSeq}`;
    this.agents.add(caller);
    this.opening.set(id, { port, caller });
    this.push({ type: 'agentOpen', id, port, caller: { id: caller, name, kind: 'agent' }, ...extra });
    return id;
  }

  // The provider's answer to request @id, once it came.
  answerTo (id: unknown): Record<string, unknown> | undefined {
    return this.received.find((m) => m.re === id);
  }

  agentSend (port: string, message: Record<string, unknown>): void {
    this.push({ type: 'agentMessage', port, message });
  }

  agentClose (port: string, reason = 'The agent ended its session.'): void {
    this.agentPorts.delete(port);
    this.push({ type: 'agentClose', port, reason });
  }

  inbox (port: string): Array<Record<string, any>> {
    return this.agentInbox.get(port) ?? [];
  }

  // The provider's agentClose pushes for @port.
  closesOf (port: string): Array<Record<string, unknown>> {
    return this.of('agentClose').filter((m) => m.port === port);
  }

  answerHeld (index = 0, decision: Record<string, unknown> = { allow: true, message: 'Allowed.' }): void {
    const m = this.heldAuthorize.splice(index, 1)[0];
    if (m === undefined)
      throw new Error('no held authorize');
    const audit = m.write === true ? { auditId: ++this.nextAuditId } : {};
    this.port?.deliver({ type: 'authorize.result', re: m.id, ...audit, ...decision });
  }

  private status (caller: string) {
    if (!this.allowed.has(caller) && !this.denied.has(caller))
      this.pending.add(caller);
    return {
      enabled: this.policy.enabled,
      authorized: this.allowed.has(caller),
      ready: this.acceptedTools,
      pendingApproval: this.pending.has(caller),
    };
  }

  private verdicts (tools: unknown) {
    const names = (tools as Array<{ name: string }>).map((t) => t.name);
    return {
      accepted: names.filter((n) => !this.refuse.has(n)),
      refused: names.flatMap((n, index) => this.refuse.has(n) ? [{ index, name: n, reason: 'duplicate', message: 'another provider came first' }] : []),
    };
  }

  private onMessage (port: FakeNativePort, m: Record<string, unknown>): void {
    this.received.push(m);
    const answer = (a: Record<string, unknown>) => port.deliver({ ...a, re: m.id });
    const caller = (m.caller as { id?: string } | undefined)?.id ?? '';
    switch (m.type) {
      case 'hello':
        answer({ type: 'hello.result', bridge: 1, app: { version: 'test' }, policy: { ...this.policy }, tools: this.verdicts(m.tools) });
        break;
      case 'probe':
        answer({ type: 'probe.result', status: this.status(caller) });
        break;
      case 'authorize': {
        if (this.holdAuthorize) {
          this.heldAuthorize.push(m);
          break;
        }
        const st = this.status(caller);
        const deny = (reason: string, message: string, extra: Record<string, unknown> = {}) =>
          answer({ type: 'authorize.result', allow: false, reason, message, ...extra });
        const audit = m.write === true ? { auditId: ++this.nextAuditId } : {};
        // A virtual port's call names its port, opened for exactly this
        // caller; an agent's ID without its port is refused.
        const portOk = m.port === undefined ? !this.agents.has(caller) : this.agentPorts.get(m.port as string) === caller;
        if (!portOk)
          deny('not_authorized', 'The caller is not on the allow-list.');
        else if (!st.enabled)
          deny('disabled', 'Agent access is turned off in the provider.');
        else if (!st.authorized)
          deny(st.pendingApproval ? 'pending' : 'not_authorized', st.pendingApproval
            ? 'Waiting for your approval in the provider.' : 'The caller is not on the allow-list.');
        else if (m.write === true && !this.policy.writes)
          deny('writes_off', 'Writes are turned off for this provider.', audit);
        else if (this.denyNext !== null) {
          const d = this.denyNext;
          this.denyNext = null;
          const extra: Record<string, unknown> = { ...audit };
          if (d.retryAfterMs !== undefined)
            extra.retryAfterMs = d.retryAfterMs;
          answer({ type: 'authorize.result', allow: false, reason: d.reason, ...(d.message ? { message: d.message } : {}), ...extra });
        } else
          answer({ type: 'authorize.result', allow: true, message: 'Allowed.', ...audit });
        break;
      }
      case 'result':
        answer({ type: 'result.result' });
        break;
      case 'port':
        answer({ type: 'port.result' });
        break;
      case 'tools':
        answer({ type: 'tools.result', tools: this.verdicts(m.tools) });
        break;
      case 'agentOpen.result': {
        const o = this.opening.get(m.re);
        this.opening.delete(m.re);
        if (o !== undefined)
          this.agentPorts.set(o.port, o.caller);
        break;
      }
      case 'error':
        this.opening.delete(m.re);
        break;
      case 'agentMessage': {
        const list = this.agentInbox.get(m.port as string) ?? [];
        list.push(m.message as Record<string, any>);
        this.agentInbox.set(m.port as string, list);
        this.agentListeners.get(m.port as string)?.(m.message as Record<string, any>);
        break;
      }
      case 'agentClose':
        this.agentPorts.delete(m.port as string);
        break;
      default:
        break; // answers to our probeTarget requests are only recorded
    }
  }
}

export function memoryArea () {
  const data = new Map<string, unknown>();
  return {
    data,
    async get (keys?: string | string[] | null): Promise<Record<string, unknown>> {
      const out: Record<string, unknown> = {};
      const want = keys === null || keys === undefined ? [...data.keys()] : Array.isArray(keys) ? keys : [keys];
      for (const k of want)
        if (data.has(k))
          out[k] = structuredClone(data.get(k));
      return out;
    },
    async set (items: Record<string, unknown>): Promise<void> {
      for (const [k, v] of Object.entries(items))
        data.set(k, structuredClone(v));
    },
    async remove (keys: string | string[]): Promise<void> {
      for (const k of Array.isArray(keys) ? keys : [keys])
        data.delete(k);
    },
  };
}
