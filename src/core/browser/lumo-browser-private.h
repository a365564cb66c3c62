/* lumo-browser-private.h — what LumoBrowser and LumoBrowserIntegration share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#if !defined (LUMO_CORE_COMPILATION)
# error "This header is private to src/core (and its tests): it may speak SQL, which stays out of the app and the CLI."
#endif

#include "lumo-browser-integration.h"

G_BEGIN_DECLS

/* Where each browser reads manifests from (chrome_paths.cc and the
 * browsers' own documentation). A user-scope folder is relative to the
 * config dir (or to ~/.var/app/ID/config for a Flatpak browser); a
 * system-scope folder is relative to the root.
 *
 * A browser that was installed but never started has no folder yet, so a
 * user-scope target is also found by its program: one of @commands in a
 * folder of the search path, or one of @programs (where its packages put
 * the executable, relative to the root). A Flatpak browser is found by its
 * installation (system-wide or per user). */
typedef struct
{
  const char *id;
  const char *name;             /* N_() */
  const char *folder;
  const char *flatpak_id;       /* Flatpak browsers only */
  const char *installed[4];     /* system scope: any of these means installed */
  const char *commands[4];      /* user scope: names looked up on the search path */
  const char *programs[4];      /* user scope: executables, relative to the root */
} TargetInfo;

struct _LumoBrowser
{
  GObject                parent_instance;

  const TargetInfo      *info;
  LumoBrowserScope       scope;
  char                  *directory;
  char                  *manifest_path;
  char                  *wrapper_path;   /* NULL when the manifest names the helper */
  gboolean               wrapper_shared; /* the app's own wrapper, used by several targets */
  LumoBrowserStatus      status;
  LumoBrowserStaleFlags  stale_flags;
  char                  *found_at;       /* what showed it is installed, or NULL */
  char                  *advice;
  char                  *fix_command;
};

const TargetInfo   *_lumo_browser_targets               (LumoBrowserScope        scope,
                                                         guint                  *n_targets);
LumoBrowser        *_lumo_browser_new_for_target        (LumoBrowserIntegration *integration,
                                                         const TargetInfo       *info,
                                                         LumoBrowserScope        scope);
/* Re-reads the files and recomputes status, stale flags and advice. */
void                _lumo_browser_update                (LumoBrowser            *self,
                                                         LumoBrowserIntegration *integration);
/* The wrapper script this target needs, or NULL if its manifest names the
 * helper itself. */
char               *_lumo_browser_dup_wrapper_contents  (LumoBrowser            *self,
                                                         LumoBrowserIntegration *integration);

/* lumo-browser-extension.c: @path (as the Flatpak sandbox of @app_id sees
 * it) as the host names it, given the sandbox's app-path from
 * /.flatpak-info; @path itself when either is NULL or it is not under /app. */
char               *_lumo_browser_extension_host_path  (const char             *path,
                                                         const char             *app_id,
                                                         const char             *app_path);

/* Integration state that is not public API. */
const char * const *_lumo_browser_integration_get_origins  (LumoBrowserIntegration *self);
const char         *_lumo_browser_integration_get_data_dir (LumoBrowserIntegration *self);

G_END_DECLS
