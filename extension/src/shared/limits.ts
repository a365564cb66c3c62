// SPDX-License-Identifier: GPL-3.0-or-later
//
// The catalogue limits of the protocol, identical to src/core/lumo-protocol.h.
// Do not loosen: a qualified name must stay under the 64-character function
// name limit of model APIs, or tool calls break in ways that look like model
// failures.

export const MAX_TOOLS = 64;
export const MAX_NAMESPACE_LEN = 16;
export const MAX_TOOL_NAME_LEN = 40;
export const MAX_QUALIFIED_NAME_LEN = 57;
export const TOOL_NAME_SEPARATOR = '.';
export const RESERVED_NAMESPACES: readonly string[] = Object.freeze([
  'browser', 'page', 'file', 'network', 'devtools', 'webmcp', 'ext',
]);

const NAMESPACE_RE = /^[a-z][a-z0-9_-]*$/;
const TOOL_NAME_RE = /^[a-zA-Z0-9_-]+$/;

// Each check returns null when the value passes, or a reason naming the value.
export function checkNamespace (ns: unknown): string | null {
  if (typeof ns !== 'string' || ns.length === 0)
    return 'the namespace is empty or not a string';
  if (ns.length > MAX_NAMESPACE_LEN)
    return `namespace "${ns}" is ${ns.length} characters, more than ${MAX_NAMESPACE_LEN}`;
  if (!NAMESPACE_RE.test(ns))
    return `namespace "${ns}" must start with a-z and use only a-z, 0-9, "_" and "-"`;
  if (RESERVED_NAMESPACES.includes(ns))
    return `namespace "${ns}" is reserved for built-in tools`;
  return null;
}

export function checkToolName (name: unknown): string | null {
  if (typeof name !== 'string' || name.length === 0)
    return 'the tool name is empty or not a string';
  if (name.length > MAX_TOOL_NAME_LEN)
    return `tool name "${name}" is ${name.length} characters, more than ${MAX_TOOL_NAME_LEN}`;
  if (!TOOL_NAME_RE.test(name))
    return `tool name "${name}" may use only A-Z, a-z, 0-9, "_" and "-"`;
  return null;
}

export function qualifiedName (ns: string, name: string): string {
  return `${ns}${TOOL_NAME_SEPARATOR}${name}`;
}

export function checkQualifiedName (ns: string, name: string): string | null {
  const reason = checkNamespace(ns) ?? checkToolName(name);
  if (reason !== null)
    return reason;
  const q = qualifiedName(ns, name);
  if (q.length > MAX_QUALIFIED_NAME_LEN)
    return `tool name "${q}" is ${q.length} characters, more than ${MAX_QUALIFIED_NAME_LEN}`;
  return null;
}

export interface CatalogueRefusal {
  index: number;
  name: string | null;
  reason: string;
}

export interface CatalogueCheck<T> {
  accepted: T[];
  refused: CatalogueRefusal[];
}

// Keeps, in order, the first MAX_TOOLS valid and distinct tools; every other
// entry becomes a refusal with its reason. A bad namespace refuses them all.
export function checkCatalogue<T extends { name: string }> (ns: string, tools: readonly T[]): CatalogueCheck<T> {
  const accepted: T[] = [];
  const refused: CatalogueRefusal[] = [];
  const seen = new Set<string>();
  const nsReason = checkNamespace(ns);

  tools.forEach((tool, index) => {
    const name = typeof tool?.name === 'string' ? tool.name : null;
    let reason = nsReason ?? checkQualifiedName(ns, tool?.name);
    if (reason === null && seen.has(tool.name))
      reason = `tool name "${tool.name}" is listed twice; the first one is kept`;
    if (reason === null && accepted.length >= MAX_TOOLS)
      reason = `more than ${MAX_TOOLS} tools; "${tool.name}" is over the limit`;
    if (reason !== null) {
      refused.push({ index, name, reason });
      return;
    }
    seen.add(tool.name);
    accepted.push(tool);
  });
  return { accepted, refused };
}
