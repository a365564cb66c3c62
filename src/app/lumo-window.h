/* lumo-window.h — the main window of Lumo Access
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoWindow owns the five pages (Requests, Access, Activity, Providers,
 * Audit) in an AdwViewStack, the window actions and shortcuts, and the
 * remembered window size. The switcher lists all five from the start;
 * each page is built the first time it is shown (or a test asks for it),
 * and the Requests badge (pending callers plus writes in review) is the
 * window's own count. It presents the LumoBackend it is given and never
 * decides anything itself. Without a backend (the data store could not be
 * opened) it shows why instead of the pages.
 */
#pragma once

#include <adwaita.h>

#include "lumo-types.h"

G_BEGIN_DECLS

#define LUMO_TYPE_WINDOW (lumo_window_get_type ())
G_DECLARE_FINAL_TYPE (LumoWindow, lumo_window, LUMO, WINDOW, AdwApplicationWindow)

/* @backend may be NULL; then @startup_error (may be NULL) says why. */
LumoWindow  *lumo_window_new         (GtkApplication *application,
                                      LumoBackend    *backend,
                                      const GError   *startup_error);
LumoBackend *lumo_window_get_backend (LumoWindow     *self);
/* Page names: "requests", "access", "activity", "providers", "audit".
 * FALSE for any other name (the page does not change). */
gboolean     lumo_window_set_page    (LumoWindow     *self,
                                      const char     *name);
const char  *lumo_window_get_page    (LumoWindow     *self);

G_END_DECLS
