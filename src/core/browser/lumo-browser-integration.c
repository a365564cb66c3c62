/* lumo-browser-integration.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The integration object: where to look (home, root, helper path, Flatpak
 * app ID), the providers' origins, and install / remove / refresh over the
 * targets that lumo-browser.c describes.
 */
#define G_LOG_DOMAIN "lumo-browser-integration"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "lumo-browser-manifest-private.h"
#include "lumo-browser-private.h"
#include "lumo-error.h"
#include "lumo-paths.h"
#include "lumo-protocol.h"

/* ---- LumoBrowserIntegration --------------------------------------------- */

struct _LumoBrowserIntegration
{
  GObject  parent_instance;

  char    *home_dir;
  char    *system_root;
  char    *config_dir;
  char    *data_dir;
  char    *host_path;
  char    *flatpak_app_id;
  char   **search_path;
  char   **extension_ids;
  char   **origins;
  gboolean ids_set;   /* install refuses to guess the providers */
};

enum {
  IPROP_0,
  IPROP_HOME_DIR,
  IPROP_SYSTEM_ROOT,
  IPROP_HOST_PATH,
  IPROP_FLATPAK_APP_ID,
  N_IPROPS
};

static GParamSpec *iproperties[N_IPROPS];

G_DEFINE_FINAL_TYPE (LumoBrowserIntegration, lumo_browser_integration, G_TYPE_OBJECT)

const char *
lumo_browser_integration_get_host_name (void)
{
#if DEVELOPMENT_BUILD
  return "dev.lumo.access.devel";
#else
  return "dev.lumo.access";
#endif
}

/* An explicit home wins over the environment, so that a test with a fake
 * home never looks at the real one. Otherwise the browsers' own rule:
 * $XDG_CONFIG_HOME if absolute, else ~/.config; inside a Flatpak sandbox
 * XDG_CONFIG_HOME is the app's own, and the host's is HOST_XDG_CONFIG_HOME. */
static char *
base_dir (LumoBrowserIntegration *self,
          gboolean                explicit_home,
          const char             *variable,
          const char             *fallback)
{
  if (!explicit_home)
    {
      g_autofree char *host_variable = g_strconcat ("HOST_", variable, NULL);
      const char *value = g_getenv (self->flatpak_app_id != NULL ? host_variable : variable);

      if (value != NULL && g_path_is_absolute (value))
        return g_strdup (value);
    }

  return g_build_filename (self->home_dir, fallback, NULL);
}

static void
lumo_browser_integration_finalize (GObject *object)
{
  LumoBrowserIntegration *self = LUMO_BROWSER_INTEGRATION (object);

  g_free (self->home_dir);
  g_free (self->system_root);
  g_free (self->config_dir);
  g_free (self->data_dir);
  g_free (self->host_path);
  g_free (self->flatpak_app_id);
  g_strfreev (self->search_path);
  g_strfreev (self->extension_ids);
  g_strfreev (self->origins);

  G_OBJECT_CLASS (lumo_browser_integration_parent_class)->finalize (object);
}

static void
lumo_browser_integration_get_property (GObject    *object,
                                       guint       prop_id,
                                       GValue     *value,
                                       GParamSpec *pspec)
{
  LumoBrowserIntegration *self = LUMO_BROWSER_INTEGRATION (object);

  switch (prop_id)
    {
    case IPROP_HOME_DIR:
      g_value_set_string (value, self->home_dir);
      break;
    case IPROP_SYSTEM_ROOT:
      g_value_set_string (value, self->system_root);
      break;
    case IPROP_HOST_PATH:
      g_value_set_string (value, self->host_path);
      break;
    case IPROP_FLATPAK_APP_ID:
      g_value_set_string (value, self->flatpak_app_id);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
lumo_browser_integration_set_property (GObject      *object,
                                       guint         prop_id,
                                       const GValue *value,
                                       GParamSpec   *pspec)
{
  LumoBrowserIntegration *self = LUMO_BROWSER_INTEGRATION (object);

  switch (prop_id)
    {
    case IPROP_HOME_DIR:
      self->home_dir = g_value_dup_string (value);
      break;
    case IPROP_SYSTEM_ROOT:
      self->system_root = g_value_dup_string (value);
      break;
    case IPROP_HOST_PATH:
      lumo_browser_integration_set_host_path (self, g_value_get_string (value));
      break;
    case IPROP_FLATPAK_APP_ID:
      lumo_browser_integration_set_flatpak_app_id (self, g_value_get_string (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
lumo_browser_integration_constructed (GObject *object)
{
  LumoBrowserIntegration *self = LUMO_BROWSER_INTEGRATION (object);
  gboolean explicit_home = self->home_dir != NULL;

  G_OBJECT_CLASS (lumo_browser_integration_parent_class)->constructed (object);

  if (!explicit_home)
    self->home_dir = g_strdup (g_get_home_dir ());
  if (self->system_root == NULL)
    self->system_root = g_strdup ("/");

  self->config_dir = base_dir (self, explicit_home, "XDG_CONFIG_HOME", ".config");
  self->data_dir = base_dir (self, explicit_home, "XDG_DATA_HOME", ".local/share");

  /* Inside a Flatpak sandbox PATH is the sandbox's: the host's programs are
   * not there to be found. */
  if (!explicit_home && self->flatpak_app_id == NULL)
    {
      g_auto(GStrv) dirs = g_strsplit (g_getenv ("PATH") != NULL ? g_getenv ("PATH") : "",
                                       G_SEARCHPATH_SEPARATOR_S, -1);

      lumo_browser_integration_set_search_path (self, (const char * const *) dirs);
    }
}

static void
lumo_browser_integration_class_init (LumoBrowserIntegrationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = lumo_browser_integration_finalize;
  object_class->get_property = lumo_browser_integration_get_property;
  object_class->set_property = lumo_browser_integration_set_property;
  object_class->constructed = lumo_browser_integration_constructed;

  iproperties[IPROP_HOME_DIR] =
    g_param_spec_string ("home-dir", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  iproperties[IPROP_SYSTEM_ROOT] =
    g_param_spec_string ("system-root", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  iproperties[IPROP_HOST_PATH] =
    g_param_spec_string ("host-path", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  iproperties[IPROP_FLATPAK_APP_ID] =
    g_param_spec_string ("flatpak-app-id", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_IPROPS, iproperties);
}

static void
lumo_browser_integration_init (LumoBrowserIntegration *self)
{
  self->host_path = g_build_filename (LIBEXECDIR, "lumo-access-host", NULL);
  self->flatpak_app_id = lumo_paths_dup_flatpak_app_id ();
  self->search_path = g_new0 (char *, 1);
  self->extension_ids = g_new0 (char *, 1);
  self->origins = g_new0 (char *, 1);
}

LumoBrowserIntegration *
lumo_browser_integration_new (const char *home_dir,
                              const char *system_root)
{
  return g_object_new (LUMO_TYPE_BROWSER_INTEGRATION,
                       "home-dir", home_dir,
                       "system-root", system_root,
                       NULL);
}

const char *
lumo_browser_integration_get_home_dir (LumoBrowserIntegration *self)
{
  g_return_val_if_fail (LUMO_IS_BROWSER_INTEGRATION (self), NULL);
  return self->home_dir;
}

const char *
lumo_browser_integration_get_config_dir (LumoBrowserIntegration *self)
{
  g_return_val_if_fail (LUMO_IS_BROWSER_INTEGRATION (self), NULL);
  return self->config_dir;
}

const char *
_lumo_browser_integration_get_data_dir (LumoBrowserIntegration *self)
{
  g_return_val_if_fail (LUMO_IS_BROWSER_INTEGRATION (self), NULL);
  return self->data_dir;
}

const char *
lumo_browser_integration_get_system_root (LumoBrowserIntegration *self)
{
  g_return_val_if_fail (LUMO_IS_BROWSER_INTEGRATION (self), NULL);
  return self->system_root;
}

const char *
lumo_browser_integration_get_host_path (LumoBrowserIntegration *self)
{
  g_return_val_if_fail (LUMO_IS_BROWSER_INTEGRATION (self), NULL);
  return self->host_path;
}

void
lumo_browser_integration_set_host_path (LumoBrowserIntegration *self,
                                        const char             *host_path)
{
  g_return_if_fail (LUMO_IS_BROWSER_INTEGRATION (self));

  /* NULL from the property machinery at construction keeps the default. */
  if (host_path == NULL)
    return;

  g_return_if_fail (g_path_is_absolute (host_path));

  if (g_strcmp0 (self->host_path, host_path) == 0)
    return;

  g_free (self->host_path);
  self->host_path = g_strdup (host_path);
  g_object_notify_by_pspec (G_OBJECT (self), iproperties[IPROP_HOST_PATH]);
}

const char *
lumo_browser_integration_get_flatpak_app_id (LumoBrowserIntegration *self)
{
  g_return_val_if_fail (LUMO_IS_BROWSER_INTEGRATION (self), NULL);
  return self->flatpak_app_id;
}

gboolean
lumo_browser_integration_check_host (LumoBrowserIntegration  *self,
                                     GError                 **error)
{
  g_return_val_if_fail (LUMO_IS_BROWSER_INTEGRATION (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (self->flatpak_app_id != NULL || g_file_test (self->host_path, G_FILE_TEST_IS_EXECUTABLE))
    return TRUE;

  g_set_error (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND,
               "The helper %s does not exist (is this a build tree? set LUMO_ACCESS_HOST_PATH)",
               self->host_path);
  return FALSE;
}

void
lumo_browser_integration_set_flatpak_app_id (LumoBrowserIntegration *self,
                                             const char             *app_id)
{
  g_return_if_fail (LUMO_IS_BROWSER_INTEGRATION (self));

  if (g_strcmp0 (self->flatpak_app_id, app_id) == 0)
    return;

  g_free (self->flatpak_app_id);
  self->flatpak_app_id = g_strdup (app_id);
  g_object_notify_by_pspec (G_OBJECT (self), iproperties[IPROP_FLATPAK_APP_ID]);
}

void
lumo_browser_integration_set_search_path (LumoBrowserIntegration *self,
                                          const char * const     *dirs)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  g_return_if_fail (LUMO_IS_BROWSER_INTEGRATION (self));

  /* A relative entry ("", ".") would name a folder of whoever started us,
   * not a place a browser is installed. */
  for (guint i = 0; dirs != NULL && dirs[i] != NULL; i++)
    if (g_path_is_absolute (dirs[i]))
      g_strv_builder_add (builder, dirs[i]);

  g_strfreev (self->search_path);
  self->search_path = g_strv_builder_end (builder);
}

const char * const *
lumo_browser_integration_get_search_path (LumoBrowserIntegration *self)
{
  g_return_val_if_fail (LUMO_IS_BROWSER_INTEGRATION (self), NULL);
  return (const char * const *) self->search_path;
}

char *
lumo_browser_integration_dup_wrapper_path (LumoBrowserIntegration *self)
{
  g_autofree char *file_name = NULL;

  g_return_val_if_fail (LUMO_IS_BROWSER_INTEGRATION (self), NULL);

  if (self->flatpak_app_id == NULL)
    return NULL;

  /* The sandbox's XDG_DATA_HOME is this folder, bind-mounted at the same
   * path the host sees, so the host browser can execute what we write. */
  file_name = g_strconcat (lumo_browser_integration_get_host_name (), ".sh", NULL);
  return g_build_filename (self->home_dir, ".var", "app", self->flatpak_app_id,
                           "data", "lumo-access", file_name, NULL);
}

gboolean
lumo_browser_integration_set_extension_ids (LumoBrowserIntegration *self,
                                            const char * const     *ids,
                                            GError                **error)
{
  g_autoptr(GPtrArray) sorted = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) origins = g_ptr_array_new_with_free_func (g_free);

  g_return_val_if_fail (LUMO_IS_BROWSER_INTEGRATION (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  for (guint i = 0; ids != NULL && ids[i] != NULL; i++)
    {
      if (!lumo_validate_extension_id (ids[i], "provider extension ID", error))
        return FALSE;
      g_ptr_array_add (sorted, g_strdup (ids[i]));
    }

  g_ptr_array_sort (sorted, (GCompareFunc) _lumo_browser_compare_strings);

  for (guint i = 0; i < sorted->len; i++)
    {
      if (i > 0 && g_str_equal (sorted->pdata[i], sorted->pdata[i - 1]))
        continue;
      g_ptr_array_add (origins, lumo_extension_origin_from_id (sorted->pdata[i]));
    }
  g_ptr_array_add (origins, NULL);

  /* Keep the deduplicated IDs, in the same order as the origins. */
  g_strfreev (self->extension_ids);
  self->extension_ids = g_new0 (char *, origins->len);
  for (guint i = 0; origins->pdata[i] != NULL; i++)
    self->extension_ids[i] = lumo_extension_id_from_origin (origins->pdata[i], NULL);

  g_strfreev (self->origins);
  self->origins = (char **) g_ptr_array_free (g_steal_pointer (&origins), FALSE);
  self->ids_set = TRUE;

  return TRUE;
}

const char * const *
lumo_browser_integration_get_extension_ids (LumoBrowserIntegration *self)
{
  g_return_val_if_fail (LUMO_IS_BROWSER_INTEGRATION (self), NULL);
  return (const char * const *) self->extension_ids;
}

const char * const *
_lumo_browser_integration_get_origins (LumoBrowserIntegration *self)
{
  g_return_val_if_fail (LUMO_IS_BROWSER_INTEGRATION (self), NULL);
  return (const char * const *) self->origins;
}

GPtrArray *
lumo_browser_integration_scan (LumoBrowserIntegration *self,
                               LumoBrowserScope        scope)
{
  GPtrArray *browsers;
  const TargetInfo *targets;
  guint n_targets;

  g_return_val_if_fail (LUMO_IS_BROWSER_INTEGRATION (self), NULL);

  targets = _lumo_browser_targets (scope, &n_targets);
  browsers = g_ptr_array_new_full (n_targets, g_object_unref);
  for (guint i = 0; i < n_targets; i++)
    g_ptr_array_add (browsers, _lumo_browser_new_for_target (self, &targets[i], scope));

  return browsers;
}

LumoBrowser *
lumo_browser_integration_lookup (LumoBrowserIntegration *self,
                                 LumoBrowserScope        scope,
                                 const char             *browser_id,
                                 GError                **error)
{
  g_autoptr(GString) known = g_string_new (NULL);
  const TargetInfo *targets;
  guint n_targets;

  g_return_val_if_fail (LUMO_IS_BROWSER_INTEGRATION (self), NULL);
  g_return_val_if_fail (browser_id != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  targets = _lumo_browser_targets (scope, &n_targets);
  for (guint i = 0; i < n_targets; i++)
    {
      if (g_str_equal (targets[i].id, browser_id))
        return _lumo_browser_new_for_target (self, &targets[i], scope);
      g_string_append_printf (known, "%s%s", i > 0 ? ", " : "", targets[i].id);
    }

  g_set_error (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND,
               "Unknown browser “%s” for a %s install: known browsers are %s",
               browser_id, scope == LUMO_BROWSER_SCOPE_SYSTEM ? "system-wide" : "per-user",
               known->str);
  return NULL;
}

/* ---- changes ------------------------------------------------------------ */

gboolean
lumo_browser_integration_install (LumoBrowserIntegration *self,
                                  LumoBrowser            *browser,
                                  GError                **error)
{
  g_autofree char *manifest = NULL;
  int dir_mode;

  g_return_val_if_fail (LUMO_IS_BROWSER_INTEGRATION (self), FALSE);
  g_return_val_if_fail (LUMO_IS_BROWSER (browser), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  /* Writing before the providers are known would empty allowed_origins. */
  g_return_val_if_fail (self->ids_set, FALSE);

  if (browser->scope == LUMO_BROWSER_SCOPE_SYSTEM && self->flatpak_app_id != NULL)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_IO,
                   "Cannot write the system-wide manifest “%s” from inside the Flatpak "
                   "sandbox: install Lumo Access from your distribution for that",
                   browser->manifest_path);
      return FALSE;
    }

  /* Users' browsers create their folders 0700; a system folder must be
   * readable by every user's browser. */
  dir_mode = browser->scope == LUMO_BROWSER_SCOPE_SYSTEM ? 0755 : 0700;
  if (!_lumo_browser_ensure_directory (browser->directory, dir_mode, error))
    return FALSE;

  /* The wrapper first, so that the manifest never names a missing file. */
  if (browser->wrapper_path != NULL)
    {
      g_autofree char *contents = _lumo_browser_dup_wrapper_contents (browser, self);
      g_autofree char *wrapper_dir = g_path_get_dirname (browser->wrapper_path);

      if (!_lumo_browser_ensure_directory (wrapper_dir, 0700, error)
          || !_lumo_browser_write_atomic (browser->wrapper_path, contents, 0755, error))
        return FALSE;
    }

  manifest = _lumo_browser_manifest_build (browser->manifest_path,
                                           lumo_browser_integration_get_host_name (),
                                           browser->wrapper_path != NULL
                                           ? browser->wrapper_path : self->host_path,
                                           (const char * const *) self->origins);
  if (!_lumo_browser_write_atomic (browser->manifest_path, manifest, 0644, error))
    return FALSE;

  g_debug ("Wrote %s", browser->manifest_path);
  _lumo_browser_update (browser, self);
  return TRUE;
}

static gboolean
remove_target (LumoBrowserIntegration *self,
               LumoBrowser            *browser,
               gboolean               *out_removed,
               GError                **error)
{
  /* The manifest first: a manifest without its wrapper would make the
   * browser report a broken host instead of a missing one. The shared
   * wrapper stays: other browsers' manifests may name it. */
  if (!_lumo_browser_remove_file (browser->manifest_path, out_removed, error))
    return FALSE;

  if (browser->wrapper_path != NULL && !browser->wrapper_shared
      && !_lumo_browser_remove_file (browser->wrapper_path, NULL, error))
    return FALSE;

  _lumo_browser_update (browser, self);
  return TRUE;
}

gboolean
lumo_browser_integration_remove (LumoBrowserIntegration *self,
                                 LumoBrowser            *browser,
                                 GError                **error)
{
  g_return_val_if_fail (LUMO_IS_BROWSER_INTEGRATION (self), FALSE);
  g_return_val_if_fail (LUMO_IS_BROWSER (browser), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return remove_target (self, browser, NULL, error);
}

typedef enum {
  SWEEP_INSTALL_DETECTED,
  SWEEP_REFRESH_STALE,
  SWEEP_REMOVE,
} SweepMode;

/* Carries on past a failing target so one read-only folder does not keep
 * the other browsers from working; every failure is named in @error. */
static guint
sweep (LumoBrowserIntegration *self,
       LumoBrowserScope        scope,
       SweepMode               mode,
       GError                **error)
{
  g_autoptr(GPtrArray) browsers = lumo_browser_integration_scan (self, scope);
  g_autoptr(GString) failures = g_string_new (NULL);
  guint n_done = 0;

  for (guint i = 0; i < browsers->len; i++)
    {
      LumoBrowser *browser = browsers->pdata[i];
      g_autoptr(GError) local_error = NULL;
      gboolean done = FALSE;

      switch (mode)
        {
        case SWEEP_INSTALL_DETECTED:
          if (browser->status == LUMO_BROWSER_STATUS_NOT_INSTALLED)
            continue;
          done = lumo_browser_integration_install (self, browser, &local_error);
          break;
        case SWEEP_REFRESH_STALE:
          if (browser->status != LUMO_BROWSER_STATUS_MANIFEST_STALE)
            continue;
          done = lumo_browser_integration_install (self, browser, &local_error);
          break;
        case SWEEP_REMOVE:
          if (!remove_target (self, browser, &done, &local_error))
            done = FALSE;
          break;
        default:
          g_assert_not_reached ();
        }

      if (done)
        n_done++;
      if (local_error != NULL)
        g_string_append_printf (failures, "%s%s: %s", failures->len > 0 ? "\n" : "",
                                lumo_browser_get_name (browser), local_error->message);
    }

  if (mode == SWEEP_REMOVE && scope == LUMO_BROWSER_SCOPE_USER)
    {
      g_autofree char *wrapper = lumo_browser_integration_dup_wrapper_path (self);
      g_autoptr(GError) local_error = NULL;

      if (wrapper != NULL && !_lumo_browser_remove_file (wrapper, NULL, &local_error))
        g_string_append_printf (failures, "%s%s", failures->len > 0 ? "\n" : "",
                                local_error->message);
    }

  if (failures->len > 0)
    g_set_error_literal (error, LUMO_ERROR, LUMO_ERROR_IO, failures->str);

  return n_done;
}

guint
lumo_browser_integration_install_detected (LumoBrowserIntegration *self,
                                           LumoBrowserScope        scope,
                                           GError                **error)
{
  g_return_val_if_fail (LUMO_IS_BROWSER_INTEGRATION (self), 0);
  g_return_val_if_fail (error == NULL || *error == NULL, 0);
  g_return_val_if_fail (self->ids_set, 0);

  return sweep (self, scope, SWEEP_INSTALL_DETECTED, error);
}

guint
lumo_browser_integration_remove_all (LumoBrowserIntegration *self,
                                     LumoBrowserScope        scope,
                                     GError                **error)
{
  g_return_val_if_fail (LUMO_IS_BROWSER_INTEGRATION (self), 0);
  g_return_val_if_fail (error == NULL || *error == NULL, 0);

  return sweep (self, scope, SWEEP_REMOVE, error);
}

guint
lumo_browser_integration_refresh_stale (LumoBrowserIntegration *self,
                                        GError                **error)
{
  g_return_val_if_fail (LUMO_IS_BROWSER_INTEGRATION (self), 0);
  g_return_val_if_fail (error == NULL || *error == NULL, 0);
  g_return_val_if_fail (self->ids_set, 0);

  return sweep (self, LUMO_BROWSER_SCOPE_USER, SWEEP_REFRESH_STALE, error);
}

char *
lumo_browser_integration_dup_manifest_json (LumoBrowserIntegration *self,
                                            LumoBrowser            *browser)
{
  g_return_val_if_fail (LUMO_IS_BROWSER_INTEGRATION (self), NULL);
  g_return_val_if_fail (LUMO_IS_BROWSER (browser), NULL);

  return _lumo_browser_manifest_build (browser->manifest_path,
                                       lumo_browser_integration_get_host_name (),
                                       browser->wrapper_path != NULL
                                       ? browser->wrapper_path : self->host_path,
                                       (const char * const *) self->origins);
}

