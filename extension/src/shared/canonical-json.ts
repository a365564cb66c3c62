// SPDX-License-Identifier: GPL-3.0-or-later
//
// RFC 8785 JSON Canonicalization Scheme. The params hash of a write is
// SHA-256 over these bytes, so the provider and any verifier must agree to
// the byte: numbers use ECMAScript's shortest round-trip form (which is what
// RFC 8785 specifies), object members are sorted by UTF-16 code units, and
// strings use JSON.stringify's escaping (the RFC's rules exactly).

export class CanonicalJsonError extends Error {
  override name = 'CanonicalJsonError';
}

function serializeString (s: string, path: string): string {
  // I-JSON forbids lone surrogates; hashing them would give a digest no
  // other implementation can reproduce.
  if (/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s))
    throw new CanonicalJsonError(`${path} contains a lone surrogate, which I-JSON does not allow`);
  return JSON.stringify(s);
}

function serialize (value: unknown, path: string, seen: Set<object>): string {
  if (value === null)
    return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value))
        throw new CanonicalJsonError(`${path} is ${String(value)}, which JSON cannot represent`);
      // -0 serializes as 0 (RFC 8785 §3.2.2.3); String() already does so.
      return String(value);
    case 'string':
      return serializeString(value, path);
    case 'object': {
      if (seen.has(value))
        throw new CanonicalJsonError(`${path} refers to itself`);
      seen.add(value);
      let out: string;
      if (Array.isArray(value)) {
        out = '[' + value.map((v, i) => serialize(v, `${path}[${i}]`, seen)).join(',') + ']';
      } else {
        const proto = Object.getPrototypeOf(value);
        if (proto !== Object.prototype && proto !== null)
          throw new CanonicalJsonError(`${path} is a ${proto?.constructor?.name ?? 'non-plain'} object, not JSON`);
        const obj = value as Record<string, unknown>;
        // Members whose value is undefined do not exist in JSON.
        const keys = Object.keys(obj).filter((k) => obj[k] !== undefined).sort();
        out = '{' + keys.map((k) => serializeString(k, `${path} key`) + ':' +
          serialize(obj[k], `${path}.${k}`, seen)).join(',') + '}';
      }
      seen.delete(value);
      return out;
    }
    default:
      throw new CanonicalJsonError(`${path} is a ${typeof value}, which JSON cannot represent`);
  }
}

export function canonicalize (value: unknown): string {
  return serialize(value, '$', new Set());
}
