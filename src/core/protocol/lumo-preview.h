/* lumo-preview.h — what a reviewer is shown of a write's preview
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The provider builds a redacted preview of each write
 * (docs/bridge-protocol.md, Previews) and never sends the source. The
 * reviewer must see what is approved — for a script its name, size and
 * digest, where it runs (matches, old → new on an update), and for a site
 * pack its domain, type and each tool with its class — and nothing that
 * could be code. This formatter is the one place that turns a preview into
 * rows of plain text, for the review row, the notification and
 * `lumo-access-ctl review list`:
 * - the known fields by name, in reading order, nested ones (matches,
 *   sitePack, argKeys) written out;
 * - any other field whose name is a plain identifier that does not
 *   suggest content (source, code, body, text, diff, …), as one line: a
 *   scalar, or the shape of a small nested value whose strings are left
 *   out (a string in there could be a piece of code);
 * - every string made display text (lumo_clean_display_name()), and a
 *   string that is long or has a line break left out, not cut;
 * - what is left out is counted (@n_hidden), never dropped silently.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Longest string value shown; longer ones are left out, not cut. */
#define LUMO_PREVIEW_MAX_VALUE_CHARS 80
/* Longest line one field may make (a nested value written out). */
#define LUMO_PREVIEW_MAX_LINE_CHARS  400

typedef struct
{
  char *label;   /* translated */
  char *value;
} LumoPreviewField;

void       lumo_preview_field_free (LumoPreviewField *field);
/* LumoPreviewField in display order; an empty array for a preview that is
 * not a JSON object. Never NULL. @n_hidden (may be NULL) receives how many
 * values were left out. */
GPtrArray *lumo_preview_format     (const char       *preview_json,
                                    guint            *n_hidden);
/* The fields as "Label: value" lines, and a last line saying how many were
 * left out (if any); NULL when there is nothing to show. For the
 * notification and the command line. */
char      *lumo_preview_to_text    (const char       *preview_json);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (LumoPreviewField, lumo_preview_field_free)

G_END_DECLS
