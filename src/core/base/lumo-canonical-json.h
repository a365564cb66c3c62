/* lumo-canonical-json.h — RFC 8785 JSON Canonicalization Scheme (JCS)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The parameter hash of an audit row is SHA-256 over the JCS form of the
 * tool arguments; the provider extension computes the same bytes in
 * TypeScript, and both sides test against the shared vectors in
 * tests/fixtures/jcs/vectors.json. Object keys are sorted by UTF-16 code
 * units, strings use the minimal JSON escapes, and numbers are IEEE doubles
 * printed the way ECMAScript's Number-to-String does (json-glib's gint64
 * values are converted to doubles first, as JSON.parse would).
 */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* LUMO_ERROR_INVALID_ARGUMENT for NaN, ±Infinity, or a string that is not
 * valid UTF-8. */
char *lumo_canonical_json        (JsonNode  *node,
                                  GError   **error);
/* Lower-case hex SHA-256 of lumo_canonical_json(). */
char *lumo_canonical_json_sha256 (JsonNode  *node,
                                  GError   **error);
/* ECMAScript Number-to-String of a finite double ("1e+21", "-0" → "0"). */
char *lumo_canonical_json_number (double     value);

G_END_DECLS
