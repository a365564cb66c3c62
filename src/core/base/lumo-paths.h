/* lumo-paths.h — where Lumo Access keeps its files
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Everything lives in one directory, $XDG_DATA_HOME/lumo-access (so a test
 * points XDG_DATA_HOME at a temporary directory and gets a fresh install):
 *
 *   policy.db    providers, callers, switches, policy history (SQLite, WAL)
 *   audit.db     the append-only audit log (SQLite, WAL, synchronous=FULL)
 *   audit.key    the per-install HMAC secret, mode 0600, outside the database
 *   audit.head   the hash-chain head checkpoint, outside the database
 *   agents.key   the per-install key of desktop agents' token MACs, mode 0600
 *
 * The directory is 0700 and every file in it 0600 from its creation on
 * (the databases' -wal and -shm files take the database's mode).
 *
 * LUMO_ACCESS_DATA_DIR overrides the directory (the CLI's --data-dir sets it).
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

const char *lumo_paths_get_data_dir    (void);
void        lumo_paths_set_data_dir    (const char *dir);
char       *lumo_paths_build           (const char *file_name);
/* Creates @dir (and its parents) with mode 0700, or makes an existing one
 * 0700; LUMO_ERROR_IO saying why when it cannot (not a directory, not
 * ours). */
gboolean    lumo_paths_ensure_private_dir (const char  *dir,
                                           GError     **error);
/* lumo_paths_ensure_private_dir() of the data directory. */
gboolean    lumo_paths_ensure_data_dir (GError    **error);
/* Inside a Flatpak sandbox, the application ID /.flatpak-info names (how
 * this installation is started from outside: `flatpak run … ID`); NULL
 * outside one. */
char       *lumo_paths_dup_flatpak_app_id (void);

G_END_DECLS
