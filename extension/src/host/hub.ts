// SPDX-License-Identifier: GPL-3.0-or-later
//
// Several providers behind one tool list: each provider's session, its
// tools under "namespace.tool" names from the shared registry (first come,
// first served), and calls routed back by qualified name.

import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ClientInfo } from '../shared/protocol.ts';
import { ToolRegistry, type Refusal } from './registry.ts';
import { ProviderSession, SessionError, type SessionOptions } from './session.ts';

export interface HubTool extends Tool {
  providerId: string;
  toolName: string;
}

export class ExtensionHub {
  readonly registry = new ToolRegistry();
  readonly sessions = new Map<string, ProviderSession>();
  readonly refusals = new Map<string, Refusal[]>();

  constructor (private readonly client: ClientInfo,
    private readonly sessionDefaults: Partial<SessionOptions> = {}) {}

  session (providerId: string): ProviderSession {
    let s = this.sessions.get(providerId);
    if (s === undefined) {
      s = new ProviderSession({
        ...this.sessionDefaults, providerId, client: this.client,
        onToolsChanged: (changed) => {
          this.claim(changed);
          this.sessionDefaults.onToolsChanged?.(changed);
        },
      });
      this.sessions.set(providerId, s);
    }
    return s;
  }

  // Probes and lists one provider, then (re)claims its names.
  async refresh (providerId: string): Promise<ProviderSession> {
    const s = this.session(providerId);
    try {
      await s.refresh();
    } catch {
      // The session's state and message say what went wrong.
    }
    this.claim(s);
    return s;
  }

  private claim (s: ProviderSession): void {
    if (s.state === 'connected' && s.service && s.tools) {
      const { refused } = this.registry.claim(s.providerId, s.service.namespace, s.tools.map((t) => t.name));
      this.refusals.set(s.providerId, refused);
    } else {
      this.registry.release(s.providerId);
    }
  }

  async remove (providerId: string): Promise<void> {
    this.registry.release(providerId);
    await this.sessions.get(providerId)?.close();
    this.sessions.delete(providerId);
  }

  tools (): HubTool[] {
    const out: HubTool[] = [];
    for (const r of this.registry.list()) {
      const tool = this.sessions.get(r.providerId)?.tools?.find((t) => t.name === r.name);
      if (tool)
        out.push({ ...tool, name: r.qualifiedName, providerId: r.providerId, toolName: r.name });
    }
    return out;
  }

  async callTool (qualifiedName: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
    const r = this.registry.resolve(qualifiedName);
    if (r === null)
      throw new SessionError(`No tool is called "${qualifiedName}".`, null);
    return this.session(r.providerId).callTool(r.name, args);
  }
}
