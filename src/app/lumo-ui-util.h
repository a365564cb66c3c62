/* lumo-ui-util.h — small helpers shared by the pages
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

/* Once per process, at low priority when the main loop is next idle:
 * gives the heap that start-up freed back to the system (malloc_trim()).
 * Called when the first screen is painted; a supplement to allocating
 * less, measured in docs/PERFORMANCE.md. */
void      lumo_ui_trim_heap_once   (void);

/* Shows @toast in the nearest AdwToastOverlay above @widget (the window's);
 * dropped if there is none (the widget is not in a window). Takes @toast. */
void      lumo_ui_show_toast       (GtkWidget    *widget,
                                    AdwToast     *toast);
/* A toast whose title is @text as it is: libadwaita 1.2 parses toast titles
 * as markup, and these carry names that agents and providers chose. */
AdwToast *lumo_ui_toast_new     (const char   *text);
/* A toast that says what failed: "@what: error message". */
void      lumo_ui_show_error       (GtkWidget    *widget,
                                    const char   *what,
                                    const GError *error);
/* Sets the accessible label of @widget (a button with only an icon, a
 * check box in a row). */
void      lumo_ui_set_accessible_label (GtkWidget  *widget,
                                        const char *label);
/* The dimmed, wrapping label an empty list shows instead of rows (the
 * placeholder of a GtkListBox). */
GtkWidget *lumo_ui_placeholder_new     (const char *text);
/* Removes every child of a GtkListBox that is not bound to a model. */
void      lumo_ui_list_box_remove_all  (GtkListBox *list_box);
/* The app's GSettings when its schema is installed and has every key of
 * the NULL-terminated list; NULL otherwise (a build run uninstalled), so
 * that each user falls back to its defaults instead of aborting. */
GSettings *lumo_ui_lookup_settings     (const char *first_key,
                                        ...) G_GNUC_NULL_TERMINATED;
/* Shows @message (NULL: none) in @label under the entry row @row, and
 * marks the row with the style class "error" while there is one. */
void       lumo_ui_show_row_error      (GtkWidget  *row,
                                        GtkLabel   *label,
                                        const char *message);
/* The "Desktop agent" tag: the one look of a caller of kind agent wherever
 * a caller is shown (a small label with the style class "agent-tag"). */
GtkWidget *lumo_ui_agent_tag_new       (void);
/* Puts a new tag right after @sibling in its GtkBox (start-aligned, so it
 * does not stretch in a vertical box). */
void       lumo_ui_add_agent_tag_after (GtkWidget  *sibling);

/* What a control a managed policy file decides says instead of what it
 * does: "Set by your organization" (docs/admin.md), the one wording of it. */
const char *lumo_ui_managed_text       (void);
/* While @managed, @widget cannot be used and its tooltip says so;
 * otherwise it can, with @tooltip (NULL: none). */
void       lumo_ui_set_managed         (GtkWidget  *widget,
                                        gboolean    managed,
                                        const char *tooltip);

G_END_DECLS
