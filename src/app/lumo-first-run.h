/* lumo-first-run.h — the set-up the Requests page shows until a provider connected
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoFirstRun owns the three steps a new user takes before anything can
 * ask for approval, each with its live state:
 *   1. the browsers: a LumoBrowsersGroup (Install/Update and Remove per
 *      browser, never-started browsers included);
 *   2. the provider extension: where `meson install` put it unpacked
 *      (lumo-browser-extension.h), whether it is there, Open Folder and
 *      Copy Path, the exact Load unpacked steps, and the managed route for
 *      admins;
 *   3. waiting for the first connection.
 * It does not decide when the set-up is over: the Requests page does, from
 * lumo_policy_has_seen_provider(), and then stops showing it.
 */
#pragma once

#include <adwaita.h>

#include "lumo-browsers-group.h"
#include "lumo-types.h"

G_BEGIN_DECLS

#define LUMO_TYPE_FIRST_RUN (lumo_first_run_get_type ())
G_DECLARE_FINAL_TYPE (LumoFirstRun, lumo_first_run, LUMO, FIRST_RUN, AdwBin)

/* Starts the browser scan and reads the extension folder. */
void               lumo_first_run_set_backend       (LumoFirstRun *self,
                                                     LumoBackend  *backend);
/* The folder of step 2 as this process sees it; NULL (the default) is the
 * installation's (lumo_browser_extension_dup_dir()). Reads it again. */
void               lumo_first_run_set_extension_dir (LumoFirstRun *self,
                                                     const char   *dir);
/* Reads the browsers and the extension folder again (a browser or the
 * extension installed meanwhile); the page does this when it is shown and
 * when the window becomes active. */
void               lumo_first_run_refresh           (LumoFirstRun *self);

/* For tests: step 1's group; the extension folder as shown and copied
 * (the host's path), NULL while it is unknown or it is not installed;
 * the state line of step @step (1 to 3); TRUE while the extension folder
 * is being read. */
LumoBrowsersGroup *lumo_first_run_get_browsers      (LumoFirstRun *self);
const char        *lumo_first_run_get_extension_path (LumoFirstRun *self);
const char        *lumo_first_run_get_step_state    (LumoFirstRun *self,
                                                     guint         step);
gboolean           lumo_first_run_get_busy          (LumoFirstRun *self);

G_END_DECLS
