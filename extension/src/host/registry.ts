// SPDX-License-Identifier: GPL-3.0-or-later
//
// Tool names across several providers, as a model sees them:
// "namespace.tool", within the protocol's limits. The first provider to
// claim a namespace or a qualified name keeps it; a later one is refused
// with a reason, never silently overwritten. A provider that refreshes its
// catalogue keeps what it already held.

import {
  MAX_TOOLS, checkNamespace, checkQualifiedName, qualifiedName,
} from '../shared/limits.ts';

export interface RegisteredTool {
  qualifiedName: string;
  providerId: string;
  name: string;
}

export interface Refusal {
  name: string;
  reason: string;
}

export interface ClaimResult {
  accepted: RegisteredTool[];
  refused: Refusal[];
}

export class ToolRegistry {
  private readonly namespaces = new Map<string, string>();   // namespace → provider
  private readonly tools = new Map<string, RegisteredTool>(); // qualified → tool

  // Replaces @providerId's tools with @names under @namespace.
  claim (providerId: string, namespace: string, names: readonly string[]): ClaimResult {
    const nsReason = checkNamespace(namespace);
    const owner = this.namespaces.get(namespace);
    this.release(providerId);
    const refused: Refusal[] = [];
    if (nsReason !== null || (owner !== undefined && owner !== providerId)) {
      const reason = nsReason ?? `namespace "${namespace}" is already used by extension ${owner}; the first one keeps it`;
      return { accepted: [], refused: names.map((name) => ({ name, reason })) };
    }
    this.namespaces.set(namespace, providerId);
    const accepted: RegisteredTool[] = [];
    for (const name of names) {
      const q = qualifiedName(namespace, name);
      let reason = checkQualifiedName(namespace, name);
      if (reason === null && this.tools.has(q))
        reason = this.tools.get(q)?.providerId === providerId
          ? `tool "${name}" is listed twice; the first one is kept`
          : `tool "${q}" already belongs to another provider`;
      if (reason === null && accepted.length >= MAX_TOOLS)
        reason = `more than ${MAX_TOOLS} tools; "${name}" is over the limit`;
      if (reason !== null) {
        refused.push({ name, reason });
        continue;
      }
      const t = { qualifiedName: q, providerId, name };
      this.tools.set(q, t);
      accepted.push(t);
    }
    return { accepted, refused };
  }

  release (providerId: string): void {
    for (const [q, t] of this.tools)
      if (t.providerId === providerId)
        this.tools.delete(q);
    for (const [ns, p] of this.namespaces)
      if (p === providerId)
        this.namespaces.delete(ns);
  }

  resolve (qualified: string): RegisteredTool | null {
    return this.tools.get(qualified) ?? null;
  }

  list (): RegisteredTool[] {
    return [...this.tools.values()];
  }
}
