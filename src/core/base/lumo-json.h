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

/* lumo_json_parse() for a file a person edits, which must be able to say
 * where a value is (a managed policy file: "line 4, field writes").
 * @offsets (optional) receives a table of every node of the tree returned
 * → its byte offset in @data (read it with lumo_json_node_offset()): a
 * member's offset is that of its name, an array element's that of its
 * value. On failure *@error_offset (optional) is the byte at which the
 * input went wrong; the error is that of lumo_json_parse(). */
JsonNode *lumo_json_parse_located (const char   *data,
                                   gsize         len,
                                   guint         max_depth,
                                   GHashTable  **offsets,
                                   gsize        *error_offset,
                                   GError      **error);
/* The offset of @node in the table of lumo_json_parse_located() (0 for a
 * node it does not hold). */
gsize     lumo_json_node_offset   (GHashTable   *offsets,
                                   JsonNode     *node);
/* The 1-based line and column (in characters) of byte @offset of @data;
 * an offset past the end is the end. */
void      lumo_json_line_column   (const char   *data,
                                   gsize         len,
                                   gsize         offset,
                                   guint        *line,
                                   guint        *column);

G_END_DECLS
