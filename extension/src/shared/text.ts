// SPDX-License-Identifier: GPL-3.0-or-later
//
// Text that came from outside (a caller's client.name, a service name, a
// tool title, a pack or script name) is display text: it must not break a
// message, spoof a row or a notification, or be cut in the middle of a
// character. cleanName() is the one place names are cleaned, at the edge
// where they come in; truncateUtf8() is the one way text is cut to a byte
// bound. Both return well-formed strings (no lone surrogates), so what the
// bridge sends is always valid UTF-8.

// C0 and C1 controls, DEL, the line and paragraph separators, and the bidi
// controls: marks (ALM, LRM, RLM), embeddings and overrides (U+202A–E) and
// isolates (U+2066–9).
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

const encoder = new TextEncoder();

export function utf8Length (s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80)
      n += 1;
    else if (c < 0x800)
      n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else
      n += 3; // a lone surrogate is encoded as U+FFFD, three bytes
  }
  return n;
}

// @s without lone surrogates (each becomes U+FFFD, as TextEncoder does).
export function wellFormed (s: string): string {
  return s.replace(LONE_SURROGATE, '\ufffd');
}

// @s cut to at most @maxBytes of UTF-8 on a code point boundary; when it
// had to be cut and @ellipsis is given, the ellipsis is part of the bound.
export function truncateUtf8 (s: string, maxBytes: number, ellipsis = ''): string {
  const text = wellFormed(s);
  if (utf8Length(text) <= maxBytes)
    return text;
  const room = Math.max(0, maxBytes - utf8Length(ellipsis));
  let bytes = 0;
  let end = 0;
  for (const ch of text) {
    const b = encoder.encode(ch).length;
    if (bytes + b > room)
      break;
    bytes += b;
    end += ch.length;
  }
  return text.slice(0, end) + (utf8Length(ellipsis) <= maxBytes ? ellipsis : '');
}

// A name from outside as display text: controls, separators and bidi
// controls removed, runs of white space made one space, trimmed, and cut to
// @maxBytes on a character boundary. undefined when it is not a string or
// nothing is left.
export function cleanName (value: unknown, maxBytes: number): string | undefined {
  if (typeof value !== 'string')
    return undefined;
  const text = wellFormed(value).replace(/[\t\n\v\f\r\u0085\u2028\u2029]+/g, ' ').replace(UNSAFE, '').replace(/\s+/g, ' ').trim();
  const cut = truncateUtf8(text, maxBytes).trimEnd();
  return cut.length > 0 ? cut : undefined;
}

// Every string in a JSON value made well-formed (lone surrogates would
// make the frame invalid UTF-8, and the app would answer it with an error
// instead of handling it).
export function wellFormedJson (value: unknown): unknown {
  if (typeof value === 'string')
    return wellFormed(value);
  if (Array.isArray(value))
    return value.map(wellFormedJson);
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value))
      out[wellFormed(k)] = wellFormedJson(v);
    return out;
  }
  return value;
}

// The same, without the g flag: test() must not keep a lastIndex.
const HAS_LONE_SURROGATE = new RegExp(LONE_SURROGATE.source);

// True when every string of a JSON value (keys too) is well-formed: most
// values are, and need no copy.
export function isWellFormedJson (value: unknown): boolean {
  if (typeof value === 'string')
    return !HAS_LONE_SURROGATE.test(value);
  if (Array.isArray(value))
    return value.every(isWellFormedJson);
  if (typeof value === 'object' && value !== null)
    return Object.entries(value).every(([k, v]) => !HAS_LONE_SURROGATE.test(k) && isWellFormedJson(v));
  return true;
}
