/* lumo-browser-extension.h — the provider extension as this installation ships it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * `meson install` puts the built provider extension (extension/dist),
 * unpacked, in DATADIR/lumo-access/extension, for a person to load with
 * Developer mode → Load unpacked, or for an admin to pack and force-install
 * (docs/install.md). This file owns where that folder is, how the browser
 * names it (inside the Flatpak sandbox /app is not the browser's /app), and
 * reading what is there, so the app's set-up steps and its tests agree.
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* $LUMO_ACCESS_EXTENSION_DIR if set and not empty (it must be absolute:
 * LUMO_ERROR_INVALID_ARGUMENT otherwise; a build tree points it at
 * extension/dist), else DATADIR/lumo-access/extension. */
char     *lumo_browser_extension_dup_dir       (GError       **error);

/* @dir as a browser on the host sees it: inside a Flatpak sandbox, a path
 * under /app becomes the same path under the app's deployment, through
 * the `current/active` links so that it survives updates of the app
 * (…/app/dev.lumo.Access/current/active/files/share/…); anything else is
 * returned as it is. Reads /.flatpak-info. */
char     *lumo_browser_extension_dup_host_dir  (const char    *dir);

/* Reads @dir/manifest.json in a worker thread: the extension's name and
 * version. Errors: LUMO_ERROR_NOT_FOUND when there is no manifest.json (not
 * installed: the build had no extension/dist); LUMO_ERROR_INVALID_ARGUMENT
 * when it is not an MV3 extension manifest with a name and a version,
 * naming what is wrong; LUMO_ERROR_IO when it cannot be read. */
void      lumo_browser_extension_read_async    (const char           *dir,
                                                GCancellable         *cancellable,
                                                GAsyncReadyCallback   callback,
                                                gpointer              user_data);
gboolean  lumo_browser_extension_read_finish   (GAsyncResult         *result,
                                                char                **out_name,
                                                char                **out_version,
                                                GError              **error);
/* The same, blocking (the CLI, tests). */
gboolean  lumo_browser_extension_read          (const char           *dir,
                                                char                **out_name,
                                                char                **out_version,
                                                GError              **error);

G_END_DECLS
