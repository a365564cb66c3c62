/* lumo-browsers-group.h — the Browsers group of the Providers page
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoBrowsersGroup owns the one-click browser integration as the window
 * shows it: each detected browser of the user (per-user scope; found by
 * its folder or, never started, by its program) with the state of its
 * native-messaging manifest, Install/Update and Remove per browser, "Set
 * Up All Browsers", and for Flatpak browsers what works, what does not and
 * the command to copy. The Providers page has one, and the Requests page's
 * first-run set-up another (its step 1). Every scan and write runs in a worker
 * thread over an integration made for that job (the provider IDs are read
 * from the policy on the main thread first), so the rows only ever show
 * snapshots the worker has finished with.
 */
#pragma once

#include <adwaita.h>

#include "lumo-backend.h"

G_BEGIN_DECLS

#define LUMO_TYPE_BROWSERS_GROUP (lumo_browsers_group_get_type ())
G_DECLARE_FINAL_TYPE (LumoBrowsersGroup, lumo_browsers_group, LUMO, BROWSERS_GROUP,
                      AdwPreferencesGroup)

GtkWidget *lumo_browsers_group_new          (void);
/* Starts the first scan. */
void       lumo_browsers_group_set_backend  (LumoBrowsersGroup *self,
                                             LumoBackend       *backend);
/* Where browsers are looked for, as lumo_browser_integration_new() and
 * lumo_browser_integration_set_search_path() take them: the home (NULL,
 * the default: the user's), the system root (NULL: /) and the search path
 * for browsers' programs (NULL: $PATH without an explicit home, else
 * none). For tests, and for admins preparing another account; rescans. */
void       lumo_browsers_group_set_locations (LumoBrowsersGroup  *self,
                                              const char         *home_dir,
                                              const char         *system_root,
                                              const char * const *search_path);
/* Scans again (e.g. after a browser was installed); coalesced with a job
 * that is running. */
void       lumo_browsers_group_refresh      (LumoBrowsersGroup *self);
/* TRUE while a scan or write runs ("busy" notifies); the buttons are
 * insensitive meanwhile. */
gboolean   lumo_browsers_group_get_busy     (LumoBrowsersGroup *self);
/* Of the browsers the last scan found installed: how many are listed, and
 * how many of those are set up (properties "n-found" and "n-set-up",
 * notified when a job finishes). */
guint      lumo_browsers_group_get_n_found  (LumoBrowsersGroup *self);
guint      lumo_browsers_group_get_n_set_up (LumoBrowsersGroup *self);
/* The row of a listed browser (by lumo_browser_get_id()), or NULL. */
GtkWidget *lumo_browsers_group_get_row      (LumoBrowsersGroup *self,
                                             const char        *browser_id);

G_END_DECLS
