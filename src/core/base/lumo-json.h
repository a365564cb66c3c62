/* lumo-json.h — a strict JSON parser for input that crosses a trust boundary
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * json-glib 1.6 is lenient where the bridge must not be: it accepts
 * comments, single quotes, hex and leading-zero numbers and raw control
 * characters, silently wraps integers beyond 64 bits (2^64 becomes -1),
 * keeps the last of duplicate member names, and recurses without a limit
 * (a frame of "[[[[…" overflows the stack). lumo_json_parse() accepts
 * exactly RFC 8259 JSON within the I-JSON rules (RFC 7493): valid UTF-8, no
 * duplicate names, no lone surrogates, finite IEEE doubles; plus a nesting
 * limit and no U+0000 in strings (C strings cannot hold it). It builds the
 * same JsonNode trees, so the rest of the code keeps using json-glib.
 *
 * Numbers: an integer literal that fits in gint64 is stored as an int,
 * anything else as a double, rounded as JSON.parse() rounds it.
 */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define LUMO_JSON_DEFAULT_MAX_DEPTH 128

/* Parses exactly one JSON value (whitespace around it is allowed) from
 * @len bytes of @data. On failure: NULL and LUMO_ERROR_INVALID_ARGUMENT
 * with the byte offset and what was wrong. */
JsonNode *lumo_json_parse (const char  *data,
                           gsize        len,
                           guint        max_depth,
                           GError     **error);

G_END_DECLS
