/* lumo-preview.h — what a reviewer is shown of a write's preview
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The provider builds a redacted preview of each write (for a script: its
 * UUID, name, size, the SHA-256 of the source, line counts) and never sends
 * the source. The app does not rely on that alone: this formatter shows the
 * known fields by name (a known field that names content, sourceSha256,
 * only as a hex digest), other short single-line scalar fields whose name
 * is a plain identifier that does not suggest content (source, code,
 * content, body, text, diff, patch, …), and drops everything else — any
 * multi-line or long string and any nested value — so no code path of the
 * app can put script source on screen.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Longest string value shown; longer ones are dropped, not cut. */
#define LUMO_PREVIEW_MAX_VALUE_CHARS 80

typedef struct
{
  char *label;   /* translated */
  char *value;
} LumoPreviewField;

void       lumo_preview_field_free (LumoPreviewField *field);
/* LumoPreviewField in display order; an empty array for a preview that is
 * not a JSON object. Never NULL. @n_hidden (may be NULL) receives how many
 * fields were left out. */
GPtrArray *lumo_preview_format     (const char       *preview_json,
                                    guint            *n_hidden);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (LumoPreviewField, lumo_preview_field_free)

G_END_DECLS
