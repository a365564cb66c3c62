/* lumo-browser-manifest-private.h — the files behind LumoBrowserIntegration
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Pure file work for lumo-browser-integration.c: building and checking the
 * manifest JSON, the wrapper script, atomic writes, and reading Flatpak
 * permission overrides. No state.
 */
#pragma once

#if !defined (LUMO_CORE_COMPILATION)
# error "This header is private to src/core (and its tests): it may speak SQL, which stays out of the app and the CLI."
#endif

#include "lumo-browser-integration.h"

G_BEGIN_DECLS

/* strcmp for g_ptr_array_sort over char *. */
int                   _lumo_browser_compare_strings  (gconstpointer a,
                                                      gconstpointer b);

/* What is wrong with the manifest at @manifest_path compared with what we
 * would write. *@out_exists is FALSE (and NONE returned) when there is no
 * file. *@out_found_path, if given, receives the `path` it names. */
LumoBrowserStaleFlags _lumo_browser_manifest_check   (const char         *manifest_path,
                                                      const char         *host_name,
                                                      const char         *expected_path,
                                                      const char * const *origins,
                                                      gboolean           *out_exists,
                                                      char              **out_found_path);

/* The manifest text: our five members first, then every other member of the
 * JSON object already at @existing_path (if it is one), in its order. */
char                 *_lumo_browser_manifest_build   (const char         *existing_path,
                                                      const char         *host_name,
                                                      const char         *path,
                                                      const char * const *origins);

/* A /bin/sh script that execs @argv with the browser's arguments. */
char                 *_lumo_browser_wrapper_build    (const char * const *argv);
/* TRUE if @path holds exactly @contents and is executable. */
gboolean              _lumo_browser_wrapper_check    (const char         *path,
                                                      const char         *contents);

/* Write via a temporary file in the same folder, fsync, chmod to @mode
 * (whatever the umask), rename: the old file or the new one, never half. */
gboolean              _lumo_browser_write_atomic     (const char         *path,
                                                      const char         *contents,
                                                      int                 mode,
                                                      GError            **error);
/* Removes @path; a missing file is fine. *@out_removed says if it existed. */
gboolean              _lumo_browser_remove_file      (const char         *path,
                                                      gboolean           *out_removed,
                                                      GError            **error);
gboolean              _lumo_browser_ensure_directory (const char         *path,
                                                      int                 mode,
                                                      GError            **error);

/* Whether the Flatpak app @app_id may talk to @bus_name on the session bus,
 * from its installed metadata and the system and user overrides (the same
 * order Flatpak applies them: later wins). */
gboolean              _lumo_browser_flatpak_can_talk (const char         *user_data_dir,
                                                      const char         *system_root,
                                                      const char         *app_id,
                                                      const char         *bus_name);

G_END_DECLS
