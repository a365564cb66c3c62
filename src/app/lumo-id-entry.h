/* lumo-id-entry.h — a group that takes one extension ID from a person
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoIdEntry is the "add by ID" group of the Access and Providers pages:
 * an entry row with its button, and the label under it that says what is
 * wrong with what was typed. The ID is judged as it is typed by core's own
 * test (lumo_validate_extension_id()), so the button agrees with what the
 * store will accept; an empty field is not an error yet, and spaces around
 * a pasted ID do not count. ::submit hands over a valid ID; the page does
 * what it means and reports a refusal with lumo_id_entry_show_error().
 */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define LUMO_TYPE_ID_ENTRY (lumo_id_entry_get_type ())
G_DECLARE_FINAL_TYPE (LumoIdEntry, lumo_id_entry, LUMO, ID_ENTRY, AdwPreferencesGroup)

/* Whether the page can take an ID now (a provider is shown, a backend is
 * set); the button stays off until it can. */
void         lumo_id_entry_set_ready       (LumoIdEntry *self,
                                            gboolean     ready);
/* Shows @message under the entry and marks the entry; NULL clears both. */
void         lumo_id_entry_show_error      (LumoIdEntry *self,
                                            const char  *message);
/* Empties the entry (after a successful submit). */
void         lumo_id_entry_clear           (LumoIdEntry *self);

/* The widgets a person uses, for tests that act through them. */
AdwEntryRow *lumo_id_entry_get_row         (LumoIdEntry *self);
GtkWidget   *lumo_id_entry_get_button      (LumoIdEntry *self);
GtkLabel    *lumo_id_entry_get_error_label (LumoIdEntry *self);

G_END_DECLS
