/* lumo-browser-integration.h — native-messaging manifests in every browser
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoBrowserIntegration owns the knowledge of where Chromium-based browsers
 * look for native-messaging host manifests on Linux (per user under
 * ~/.config, per Flatpak browser under ~/.var/app, system-wide under /etc),
 * and the only code that writes, checks and removes our manifest
 * (`dev.lumo.access.json`) and, where one is needed, the wrapper script the
 * manifest's `path` names. Every filesystem location is derived from the home
 * directory and the root prefix given at construction, never from the
 * process environment, so tests point both at a temporary directory; only
 * without an explicit home are $XDG_CONFIG_HOME, $XDG_DATA_HOME and $PATH
 * read (the search path for browsers that never ran, see
 * lumo_browser_integration_set_search_path()).
 *
 * LumoBrowser is a snapshot of one target (a browser folder in one scope):
 * what it is, where its manifest lives and in which state it is. install and
 * remove update the snapshot they are given (and notify "status").
 *
 * A manifest that someone else extended with members we do not know is
 * updated in place: our five members are rewritten and every other member is
 * kept, because Chrome ignores members it does not know and they may matter
 * to whoever added them. A file that is not a JSON object is replaced.
 */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

typedef enum
{
  LUMO_BROWSER_SCOPE_USER,      /* ~/.config/<browser>/NativeMessagingHosts, ~/.var/app/… */
  LUMO_BROWSER_SCOPE_SYSTEM,    /* <root>/etc/…/native-messaging-hosts, for admins */
} LumoBrowserScope;

typedef enum
{
  LUMO_BROWSER_STATUS_NOT_INSTALLED,    /* neither its folder nor its program was found */
  LUMO_BROWSER_STATUS_MANIFEST_MISSING,
  LUMO_BROWSER_STATUS_MANIFEST_STALE,   /* see LumoBrowserStaleFlags */
  LUMO_BROWSER_STATUS_OK,
} LumoBrowserStatus;

typedef enum /*< flags >*/
{
  LUMO_BROWSER_STALE_NONE    = 0,
  LUMO_BROWSER_STALE_PATH    = 1 << 0,  /* `path` is not our helper (or wrapper) */
  LUMO_BROWSER_STALE_ORIGINS = 1 << 1,  /* `allowed_origins` is not exactly the providers */
  LUMO_BROWSER_STALE_WRAPPER = 1 << 2,  /* the wrapper script is missing or differs */
  LUMO_BROWSER_STALE_INVALID = 1 << 3,  /* unreadable, not a JSON object, wrong name or type */
} LumoBrowserStaleFlags;

#define LUMO_TYPE_BROWSER_SCOPE       (lumo_browser_scope_get_type ())
#define LUMO_TYPE_BROWSER_STATUS      (lumo_browser_status_get_type ())
#define LUMO_TYPE_BROWSER_STALE_FLAGS (lumo_browser_stale_flags_get_type ())
GType lumo_browser_scope_get_type       (void) G_GNUC_CONST;
GType lumo_browser_status_get_type      (void) G_GNUC_CONST;
GType lumo_browser_stale_flags_get_type (void) G_GNUC_CONST;

/* ---- one target --------------------------------------------------------- */

#define LUMO_TYPE_BROWSER (lumo_browser_get_type ())
G_DECLARE_FINAL_TYPE (LumoBrowser, lumo_browser, LUMO, BROWSER, GObject)

/* Stable short ID: "chrome", "chrome-beta", "chrome-unstable", "chromium",
 * "brave", "brave-beta", "brave-nightly", "edge", "edge-beta", "edge-dev",
 * "vivaldi", "vivaldi-snapshot"; Flatpak browsers "chrome-flatpak",
 * "chromium-flatpak", "brave-flatpak", "edge-flatpak", "vivaldi-flatpak";
 * system scope "chrome" (also read by Brave), "chromium", "edge". */
const char            *lumo_browser_get_id             (LumoBrowser *self);
/* Translated display name, e.g. "Google Chrome Beta". */
const char            *lumo_browser_get_name           (LumoBrowser *self);
LumoBrowserScope       lumo_browser_get_scope          (LumoBrowser *self);
/* The Flatpak application ID ("org.chromium.Chromium"), or NULL. */
const char            *lumo_browser_get_flatpak_id     (LumoBrowser *self);
/* The NativeMessagingHosts folder and the manifest in it. */
const char            *lumo_browser_get_directory      (LumoBrowser *self);
const char            *lumo_browser_get_manifest_path  (LumoBrowser *self);
LumoBrowserStatus      lumo_browser_get_status         (LumoBrowser *self);
LumoBrowserStaleFlags  lumo_browser_get_stale_flags    (LumoBrowser *self);
/* What showed that the browser is installed: its settings folder (it has
 * run), its Flatpak installation, or — for a browser installed and never
 * started — its executable where its package puts it (under the system
 * root) or its launcher on the search path. NULL when none was found (a
 * target with only our manifest is not installed either). */
const char            *lumo_browser_get_found_at       (LumoBrowser *self);
/* Properties for binding: "id", "name", "scope", "status", "stale-flags",
 * "advice", "fix-command" (the last four notify when they change).
 *
 * Translated sentence(s) saying what does and does not work for this target
 * and what to do, or NULL when there is nothing to add to the status. */
const char            *lumo_browser_get_advice         (LumoBrowser *self);
/* The exact shell command the user must run for this target to work (a
 * `flatpak override` or `flatpak run --filesystem=…`), or NULL. Not
 * translated: it is to be copied. */
const char            *lumo_browser_get_fix_command    (LumoBrowser *self);

/* ---- the integration ---------------------------------------------------- */

#define LUMO_TYPE_BROWSER_INTEGRATION (lumo_browser_integration_get_type ())
G_DECLARE_FINAL_TYPE (LumoBrowserIntegration, lumo_browser_integration,
                      LUMO, BROWSER_INTEGRATION, GObject)

/* The native host name of this build: "dev.lumo.access", or
 * "dev.lumo.access.devel" for a development build, so that the .Devel app's
 * manifest sits beside the release one instead of replacing it. */
const char *lumo_browser_integration_get_host_name (void);

/* @home_dir: the user's home; NULL means g_get_home_dir().
 * @system_root: prefix of the system-wide folders; NULL means "/".
 * The helper path defaults to LIBEXECDIR/lumo-access-host and the Flatpak
 * app ID to the one in /.flatpak-info (NULL outside a Flatpak sandbox). */
LumoBrowserIntegration *lumo_browser_integration_new (const char *home_dir,
                                                      const char *system_root);

const char *lumo_browser_integration_get_home_dir      (LumoBrowserIntegration *self);
const char *lumo_browser_integration_get_system_root   (LumoBrowserIntegration *self);
/* Where per-user browser folders are looked for: HOME/.config when a home
 * was given, else $XDG_CONFIG_HOME (the host's, inside Flatpak) or ~/.config. */
const char *lumo_browser_integration_get_config_dir    (LumoBrowserIntegration *self);
/* The folders in which a browser's launcher (google-chrome, chromium, …)
 * is looked for, so that one installed and never started is found too.
 * Relative entries are dropped. The default is $PATH when no home was
 * given (and not inside a Flatpak sandbox, whose PATH is its own), else
 * none; tests set a fake one. */
void        lumo_browser_integration_set_search_path   (LumoBrowserIntegration *self,
                                                        const char * const     *dirs);
const char * const *lumo_browser_integration_get_search_path (LumoBrowserIntegration *self);
/* Absolute path of lumo-access-host as the host system sees it. */
const char *lumo_browser_integration_get_host_path     (LumoBrowserIntegration *self);
void        lumo_browser_integration_set_host_path     (LumoBrowserIntegration *self,
                                                        const char             *host_path);
/* Non-NULL when Lumo Access itself runs as a Flatpak: manifests for native
 * browsers then name a wrapper script that runs
 * `flatpak run --command=lumo-access-host APP_ID "$@"`. */
const char *lumo_browser_integration_get_flatpak_app_id (LumoBrowserIntegration *self);
void        lumo_browser_integration_set_flatpak_app_id (LumoBrowserIntegration *self,
                                                         const char             *app_id);
/* Whether the manifests would start something that is there: inside a
 * Flatpak they start the `flatpak run` wrapper (which this writes itself);
 * elsewhere the helper at the host path must be an executable file, else
 * LUMO_ERROR_NOT_FOUND naming it. A manifest must never send a browser to
 * a helper that does not exist — an app run from a build tree without
 * LUMO_ACCESS_HOST_PATH. Reads the file system. */
gboolean    lumo_browser_integration_check_host        (LumoBrowserIntegration  *self,
                                                        GError                 **error);
/* Where that wrapper goes: HOME/.var/app/APP_ID/data/lumo-access/…, the
 * one host-visible place a Flatpak app can always write. NULL when not
 * sandboxed. */
char       *lumo_browser_integration_dup_wrapper_path  (LumoBrowserIntegration *self);

/* The providers whose extensions may start the helper; call this before
 * scan (the origins are part of the status) and before any install or
 * refresh (which refuse to run without it). Each must pass
 * lumo_is_extension_id() (LUMO_ERROR_INVALID_ID otherwise, and nothing
 * changes). Duplicates are dropped; the manifest lists
 * "chrome-extension://ID/" for each, sorted. An empty list is allowed: the
 * manifest then lets no extension in, and the CLI should say so. */
gboolean    lumo_browser_integration_set_extension_ids (LumoBrowserIntegration *self,
                                                        const char * const     *ids,
                                                        GError                **error);
const char * const *lumo_browser_integration_get_extension_ids (LumoBrowserIntegration *self);

/* Every known target of @scope, in a fixed order, with its current status
 * (including the ones that are not installed). Element type: LumoBrowser. */
GPtrArray  *lumo_browser_integration_scan    (LumoBrowserIntegration *self,
                                              LumoBrowserScope        scope);
/* One target by ID, or NULL and LUMO_ERROR_NOT_FOUND naming the known IDs. */
LumoBrowser *lumo_browser_integration_lookup (LumoBrowserIntegration *self,
                                              LumoBrowserScope        scope,
                                              const char             *browser_id,
                                              GError                **error);

/* Writes (or updates) the manifest, and the wrapper if the target needs one,
 * atomically: a failure leaves the previous files as they were. Creates the
 * NativeMessagingHosts folder if needed, so it also works for a browser that
 * is not detected (an admin preparing a machine). Errors: LUMO_ERROR_IO
 * naming the file and the reason. */
gboolean    lumo_browser_integration_install (LumoBrowserIntegration *self,
                                              LumoBrowser            *browser,
                                              GError                **error);
/* Removes our manifest and wrapper; a missing file is not an error. */
gboolean    lumo_browser_integration_remove  (LumoBrowserIntegration *self,
                                              LumoBrowser            *browser,
                                              GError                **error);
/* Installs into every detected target of @scope (status other than
 * not-installed), carrying on past failures. Returns the number of targets
 * written; on any failure also sets @error (LUMO_ERROR_IO, one line per
 * failed target). */
guint       lumo_browser_integration_install_detected (LumoBrowserIntegration *self,
                                                       LumoBrowserScope        scope,
                                                       GError                **error);
/* Removes our files from every target of @scope; returns how many removed. */
guint       lumo_browser_integration_remove_all       (LumoBrowserIntegration *self,
                                                       LumoBrowserScope        scope,
                                                       GError                **error);
/* For the app at start-up: rewrites every user-scope manifest that is
 * stale; never creates a missing one (the user removed it, or never asked).
 * Returns the number rewritten; failures as for install_detected. */
guint       lumo_browser_integration_refresh_stale    (LumoBrowserIntegration *self,
                                                       GError                **error);

/* The manifest we would write for @browser, as JSON text (for the CLI's
 * --dry-run and for tests). */
char       *lumo_browser_integration_dup_manifest_json (LumoBrowserIntegration *self,
                                                        LumoBrowser            *browser);

G_END_DECLS
