/* lumo-text.h — cutting text to a byte bound without breaking a character
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The one way core cuts text to a number of bytes: the result is always
 * valid UTF-8 (invalid input is repaired first, as g_utf8_make_valid()
 * does) and ends on a character boundary, so a cut message can still go
 * into a JSON frame, a D-Bus string or a GError. A "%.64s" in a format
 * string cuts at a byte and may split "é"; quote outside text through
 * lumo_utf8_excerpt() instead.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The longest prefix of @text (repaired) that fits in @max_bytes bytes. */
char *lumo_utf8_cut     (const char *text,
                         gsize       max_bytes);
/* The same, ending in "…" when anything was cut (the "…" counts against
 * @max_bytes); for quoting a value of unknown length in a message. NULL
 * gives "(null)". */
char *lumo_utf8_excerpt (const char *text,
                         gsize       max_bytes);

G_END_DECLS
