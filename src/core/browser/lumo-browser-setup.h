/* lumo-browser-setup.h — the browser integration as this installation sets it up
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoBrowserIntegration knows where manifests go; this file owns what goes
 * into them for this installation, so that the app, its Browsers page and
 * lumo-access-ctl all write the same manifest:
 *
 * - the providers: those in the policy store plus the bundled provider(s)
 *   named at build time (-Dprovider_extension_ids), so that a fresh install
 *   whose provider has never connected still lets it in;
 * - the helper: LIBEXECDIR/lumo-access-host, or $LUMO_ACCESS_HOST_PATH when
 *   that is set (tests and "try it" run the build tree's helper).
 */
#pragma once

#include <gio/gio.h>

#include "lumo-browser-integration.h"
#include "lumo-types.h"

G_BEGIN_DECLS

/* The IDs this build was configured with, as given (possibly empty). */
const char * const     *lumo_browser_setup_get_bundled_ids     (void);

/* The policy store's providers (none when @policy is NULL) and the bundled
 * IDs, sorted and deduplicated. A bundled ID that is not 32 letters a-p is
 * LUMO_ERROR_INVALID_ID naming it; a store error is passed on. */
char                  **lumo_browser_setup_dup_provider_ids    (LumoPolicy  *policy,
                                                                GError     **error);

/* $LUMO_ACCESS_HOST_PATH if set and not empty (it must be absolute:
 * LUMO_ERROR_INVALID_ARGUMENT otherwise), else LIBEXECDIR/lumo-access-host. */
char                   *lumo_browser_setup_dup_host_path       (GError     **error);

/* lumo_browser_integration_new (@home_dir, @system_root) with the helper
 * path and the provider IDs above set, ready for scan and install. */
LumoBrowserIntegration *lumo_browser_setup_new_integration     (LumoPolicy  *policy,
                                                                const char  *home_dir,
                                                                const char  *system_root,
                                                                GError     **error);

/* For the app at start-up: reads the providers now (on the caller's
 * thread, which owns @policy), then rewrites the stale per-user manifests
 * (lumo_browser_integration_refresh_stale) in a worker thread, because it
 * may fsync. @home_dir NULL means the user's home.
 *
 * When the helper the manifests would name does not exist — an app run
 * from the build tree without LUMO_ACCESS_HOST_PATH — nothing is rewritten
 * (a working manifest must not be pointed at a missing file) and finish
 * returns 0 with LUMO_ERROR_NOT_FOUND naming the helper. */
void                    lumo_browser_setup_refresh_stale_async (LumoPolicy          *policy,
                                                                const char          *home_dir,
                                                                GCancellable        *cancellable,
                                                                GAsyncReadyCallback  callback,
                                                                gpointer             user_data);
/* The number of manifests rewritten; on failure also @error (LUMO_ERROR_IO,
 * one line per failed browser), and the count of those that succeeded. */
guint                   lumo_browser_setup_refresh_stale_finish (GAsyncResult       *result,
                                                                 GError            **error);

G_END_DECLS
