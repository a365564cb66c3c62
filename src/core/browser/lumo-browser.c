/* lumo-browser.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoBrowser: the table of browser folders, detection, status and the
 * advice shown for each target.
 */
#define G_LOG_DOMAIN "lumo-browser-integration"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "lumo-browser-manifest-private.h"
#include "lumo-browser-private.h"

G_DEFINE_ENUM_TYPE (LumoBrowserScope, lumo_browser_scope,
  G_DEFINE_ENUM_VALUE (LUMO_BROWSER_SCOPE_USER, "user"),
  G_DEFINE_ENUM_VALUE (LUMO_BROWSER_SCOPE_SYSTEM, "system"))

G_DEFINE_ENUM_TYPE (LumoBrowserStatus, lumo_browser_status,
  G_DEFINE_ENUM_VALUE (LUMO_BROWSER_STATUS_NOT_INSTALLED, "not-installed"),
  G_DEFINE_ENUM_VALUE (LUMO_BROWSER_STATUS_MANIFEST_MISSING, "manifest-missing"),
  G_DEFINE_ENUM_VALUE (LUMO_BROWSER_STATUS_MANIFEST_STALE, "manifest-stale"),
  G_DEFINE_ENUM_VALUE (LUMO_BROWSER_STATUS_OK, "ok"))

G_DEFINE_FLAGS_TYPE (LumoBrowserStaleFlags, lumo_browser_stale_flags,
  G_DEFINE_ENUM_VALUE (LUMO_BROWSER_STALE_NONE, "none"),
  G_DEFINE_ENUM_VALUE (LUMO_BROWSER_STALE_PATH, "path"),
  G_DEFINE_ENUM_VALUE (LUMO_BROWSER_STALE_ORIGINS, "origins"),
  G_DEFINE_ENUM_VALUE (LUMO_BROWSER_STALE_WRAPPER, "wrapper"),
  G_DEFINE_ENUM_VALUE (LUMO_BROWSER_STALE_INVALID, "invalid"))

/* The programs: the launcher each package puts on PATH, and the executable
 * where the package installs it (Debian, Fedora, openSUSE and the vendors'
 * own .deb/.rpm). Ubuntu's `chromium-browser` is not looked for: there it
 * is a shim that starts the Snap, which reads other folders (see
 * is_snap()). */
static const TargetInfo user_targets[] = {
  { "chrome",           N_("Google Chrome"),          "google-chrome",
    .commands = { "google-chrome", "google-chrome-stable" },
    .programs = { "opt/google/chrome/chrome" } },
  { "chrome-beta",      N_("Google Chrome Beta"),     "google-chrome-beta",
    .commands = { "google-chrome-beta" },
    .programs = { "opt/google/chrome-beta/chrome" } },
  { "chrome-unstable",  N_("Google Chrome Dev"),      "google-chrome-unstable",
    .commands = { "google-chrome-unstable" },
    .programs = { "opt/google/chrome-unstable/chrome" } },
  { "chromium",         N_("Chromium"),               "chromium",
    .commands = { "chromium" },
    .programs = { "usr/lib/chromium/chromium", "usr/lib64/chromium/chromium",
                  "usr/lib64/chromium-browser/chromium-browser" } },
  { "brave",            N_("Brave"),                  "BraveSoftware/Brave-Browser",
    .commands = { "brave-browser", "brave-browser-stable", "brave" },
    .programs = { "opt/brave.com/brave/brave" } },
  { "brave-beta",       N_("Brave Beta"),             "BraveSoftware/Brave-Browser-Beta",
    .commands = { "brave-browser-beta" },
    .programs = { "opt/brave.com/brave-beta/brave" } },
  { "brave-nightly",    N_("Brave Nightly"),          "BraveSoftware/Brave-Browser-Nightly",
    .commands = { "brave-browser-nightly" },
    .programs = { "opt/brave.com/brave-nightly/brave" } },
  { "edge",             N_("Microsoft Edge"),         "microsoft-edge",
    .commands = { "microsoft-edge", "microsoft-edge-stable" },
    .programs = { "opt/microsoft/msedge/msedge" } },
  { "edge-beta",        N_("Microsoft Edge Beta"),    "microsoft-edge-beta",
    .commands = { "microsoft-edge-beta" },
    .programs = { "opt/microsoft/msedge-beta/msedge" } },
  { "edge-dev",         N_("Microsoft Edge Dev"),     "microsoft-edge-dev",
    .commands = { "microsoft-edge-dev" },
    .programs = { "opt/microsoft/msedge-dev/msedge" } },
  { "vivaldi",          N_("Vivaldi"),                "vivaldi",
    .commands = { "vivaldi", "vivaldi-stable" },
    .programs = { "opt/vivaldi/vivaldi-bin" } },
  { "vivaldi-snapshot", N_("Vivaldi Snapshot"),       "vivaldi-snapshot",
    .commands = { "vivaldi-snapshot" },
    .programs = { "opt/vivaldi-snapshot/vivaldi-bin" } },
  { "chrome-flatpak",   N_("Google Chrome (Flatpak)"), "google-chrome", "com.google.Chrome" },
  { "chromium-flatpak", N_("Chromium (Flatpak)"),     "chromium", "org.chromium.Chromium" },
  { "brave-flatpak",    N_("Brave (Flatpak)"),        "BraveSoftware/Brave-Browser",
    "com.brave.Browser" },
  { "edge-flatpak",     N_("Microsoft Edge (Flatpak)"), "microsoft-edge", "com.microsoft.Edge" },
  { "vivaldi-flatpak",  N_("Vivaldi (Flatpak)"),      "vivaldi", "com.vivaldi.Vivaldi" },
};

/* Google-branded builds (every Chrome channel) read /etc/opt/chrome, and
 * Brave is reported to; unbranded Chromium reads /etc/chromium. Vivaldi
 * documents no system-wide folder, so it is offered per user only. */
static const TargetInfo system_targets[] = {
  { "chrome",   N_("Google Chrome"), "etc/opt/chrome/native-messaging-hosts", NULL,
    { "etc/opt/chrome", "opt/google/chrome", "opt/brave.com" } },
  { "chromium", N_("Chromium"), "etc/chromium/native-messaging-hosts", NULL,
    { "etc/chromium", "usr/lib/chromium", "usr/lib/chromium-browser",
      "usr/lib64/chromium-browser" } },
  { "edge",     N_("Microsoft Edge"), "etc/opt/edge/native-messaging-hosts", NULL,
    { "etc/opt/edge", "opt/microsoft/msedge" } },
};

/* ---- LumoBrowser -------------------------------------------------------- */

enum {
  PROP_0,
  PROP_ID,
  PROP_NAME,
  PROP_SCOPE,
  PROP_STATUS,
  PROP_STALE_FLAGS,
  PROP_ADVICE,
  PROP_FIX_COMMAND,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (LumoBrowser, lumo_browser, G_TYPE_OBJECT)

static void
lumo_browser_finalize (GObject *object)
{
  LumoBrowser *self = LUMO_BROWSER (object);

  g_free (self->directory);
  g_free (self->manifest_path);
  g_free (self->wrapper_path);
  g_free (self->found_at);
  g_free (self->advice);
  g_free (self->fix_command);

  G_OBJECT_CLASS (lumo_browser_parent_class)->finalize (object);
}

static void
lumo_browser_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  LumoBrowser *self = LUMO_BROWSER (object);

  switch (prop_id)
    {
    case PROP_ID:
      g_value_set_string (value, lumo_browser_get_id (self));
      break;
    case PROP_NAME:
      g_value_set_string (value, lumo_browser_get_name (self));
      break;
    case PROP_SCOPE:
      g_value_set_enum (value, self->scope);
      break;
    case PROP_STATUS:
      g_value_set_enum (value, self->status);
      break;
    case PROP_STALE_FLAGS:
      g_value_set_flags (value, self->stale_flags);
      break;
    case PROP_ADVICE:
      g_value_set_string (value, self->advice);
      break;
    case PROP_FIX_COMMAND:
      g_value_set_string (value, self->fix_command);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
lumo_browser_class_init (LumoBrowserClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = lumo_browser_finalize;
  object_class->get_property = lumo_browser_get_property;

  properties[PROP_ID] =
    g_param_spec_string ("id", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_NAME] =
    g_param_spec_string ("name", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_SCOPE] =
    g_param_spec_enum ("scope", NULL, NULL,
                       LUMO_TYPE_BROWSER_SCOPE, LUMO_BROWSER_SCOPE_USER,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_STATUS] =
    g_param_spec_enum ("status", NULL, NULL,
                       LUMO_TYPE_BROWSER_STATUS, LUMO_BROWSER_STATUS_NOT_INSTALLED,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_STALE_FLAGS] =
    g_param_spec_flags ("stale-flags", NULL, NULL,
                        LUMO_TYPE_BROWSER_STALE_FLAGS, LUMO_BROWSER_STALE_NONE,
                        G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_ADVICE] =
    g_param_spec_string ("advice", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  properties[PROP_FIX_COMMAND] =
    g_param_spec_string ("fix-command", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
lumo_browser_init (LumoBrowser *self)
{
}

const char *
lumo_browser_get_id (LumoBrowser *self)
{
  g_return_val_if_fail (LUMO_IS_BROWSER (self), NULL);
  return self->info->id;
}

const char *
lumo_browser_get_name (LumoBrowser *self)
{
  g_return_val_if_fail (LUMO_IS_BROWSER (self), NULL);
  return g_dgettext (GETTEXT_PACKAGE, self->info->name);
}

LumoBrowserScope
lumo_browser_get_scope (LumoBrowser *self)
{
  g_return_val_if_fail (LUMO_IS_BROWSER (self), LUMO_BROWSER_SCOPE_USER);
  return self->scope;
}

const char *
lumo_browser_get_flatpak_id (LumoBrowser *self)
{
  g_return_val_if_fail (LUMO_IS_BROWSER (self), NULL);
  return self->info->flatpak_id;
}

const char *
lumo_browser_get_directory (LumoBrowser *self)
{
  g_return_val_if_fail (LUMO_IS_BROWSER (self), NULL);
  return self->directory;
}

const char *
lumo_browser_get_manifest_path (LumoBrowser *self)
{
  g_return_val_if_fail (LUMO_IS_BROWSER (self), NULL);
  return self->manifest_path;
}

LumoBrowserStatus
lumo_browser_get_status (LumoBrowser *self)
{
  g_return_val_if_fail (LUMO_IS_BROWSER (self), LUMO_BROWSER_STATUS_NOT_INSTALLED);
  return self->status;
}

LumoBrowserStaleFlags
lumo_browser_get_stale_flags (LumoBrowser *self)
{
  g_return_val_if_fail (LUMO_IS_BROWSER (self), LUMO_BROWSER_STALE_NONE);
  return self->stale_flags;
}

const char *
lumo_browser_get_found_at (LumoBrowser *self)
{
  g_return_val_if_fail (LUMO_IS_BROWSER (self), NULL);
  return self->found_at;
}

const char *
lumo_browser_get_advice (LumoBrowser *self)
{
  g_return_val_if_fail (LUMO_IS_BROWSER (self), NULL);
  return self->advice;
}

const char *
lumo_browser_get_fix_command (LumoBrowser *self)
{
  g_return_val_if_fail (LUMO_IS_BROWSER (self), NULL);
  return self->fix_command;
}

/* ---- snapshots ---------------------------------------------------------- */

const TargetInfo *
_lumo_browser_targets (LumoBrowserScope  scope,
                       guint            *n_targets)
{
  if (scope == LUMO_BROWSER_SCOPE_SYSTEM)
    {
      *n_targets = G_N_ELEMENTS (system_targets);
      return system_targets;
    }

  *n_targets = G_N_ELEMENTS (user_targets);
  return user_targets;
}

static gboolean
is_program (const char *path)
{
  return g_file_test (path, G_FILE_TEST_IS_EXECUTABLE) && !g_file_test (path, G_FILE_TEST_IS_DIR);
}

/* Snap's Chromium reads its manifests under ~/snap and cannot start a host
 * outside its confinement: writing ~/.config/chromium would not help it. */
static gboolean
is_snap (const char *path)
{
  g_autofree char *target = g_file_read_link (path, NULL);

  return g_str_has_prefix (path, "/snap/") || (target != NULL && g_str_has_prefix (target, "/snap/"));
}

/* What shows that the browser is installed: its folder (it has run), else
 * its Flatpak installation, its executable where its package puts it, or
 * its launcher on the search path (installed, never started). NULL if
 * none. */
static char *
find_installation (LumoBrowser            *self,
                   LumoBrowserIntegration *integration)
{
  const TargetInfo *info = self->info;
  const char *root = lumo_browser_integration_get_system_root (integration);
  const char * const *search_path = lumo_browser_integration_get_search_path (integration);
  g_autofree char *folder = NULL;

  if (self->scope == LUMO_BROWSER_SCOPE_SYSTEM)
    {
      for (guint i = 0; i < G_N_ELEMENTS (info->installed) && info->installed[i] != NULL; i++)
        {
          g_autofree char *candidate = g_build_filename (root, info->installed[i], NULL);

          if (g_file_test (candidate, G_FILE_TEST_IS_DIR))
            return g_steal_pointer (&candidate);
        }
      return NULL;
    }

  if (info->flatpak_id != NULL)
    {
      const char *installations[] = {
        _lumo_browser_integration_get_data_dir (integration), "flatpak",
        root, "var/lib/flatpak",
      };

      folder = g_build_filename (lumo_browser_integration_get_home_dir (integration),
                                 ".var", "app", info->flatpak_id, NULL);
      if (g_file_test (folder, G_FILE_TEST_IS_DIR))
        return g_steal_pointer (&folder);

      for (guint i = 0; i < G_N_ELEMENTS (installations); i += 2)
        {
          g_autofree char *app = g_build_filename (installations[i], installations[i + 1], "app",
                                                   info->flatpak_id, NULL);

          if (g_file_test (app, G_FILE_TEST_IS_DIR))
            return g_steal_pointer (&app);
        }
      return NULL;
    }

  folder = g_build_filename (lumo_browser_integration_get_config_dir (integration),
                             info->folder, NULL);
  if (g_file_test (folder, G_FILE_TEST_IS_DIR))
    return g_steal_pointer (&folder);

  for (guint i = 0; i < G_N_ELEMENTS (info->programs) && info->programs[i] != NULL; i++)
    {
      g_autofree char *program = g_build_filename (root, info->programs[i], NULL);

      if (is_program (program))
        return g_steal_pointer (&program);
    }

  for (guint d = 0; search_path[d] != NULL; d++)
    for (guint i = 0; i < G_N_ELEMENTS (info->commands) && info->commands[i] != NULL; i++)
      {
        g_autofree char *program = g_build_filename (search_path[d], info->commands[i], NULL);

        if (is_program (program) && !is_snap (program))
          return g_steal_pointer (&program);
      }

  return NULL;
}

/* A Flatpak browser can leave its sandbox only through flatpak-spawn
 * --host; a host browser reaches a Flatpak'd helper through flatpak run,
 * which gives the helper the app's sandbox and so its bus name. */
char *
_lumo_browser_dup_wrapper_contents (LumoBrowser            *self,
                                    LumoBrowserIntegration *integration)
{
  const char *app_id = lumo_browser_integration_get_flatpak_app_id (integration);
  g_autoptr(GStrvBuilder) argv = NULL;
  g_auto(GStrv) strv = NULL;

  if (self->wrapper_path == NULL)
    return NULL;

  argv = g_strv_builder_new ();
  if (self->info->flatpak_id != NULL)
    {
      g_strv_builder_add (argv, "flatpak-spawn");
      g_strv_builder_add (argv, "--host");
    }

  if (app_id != NULL)
    {
      g_strv_builder_add (argv, "flatpak");
      g_strv_builder_add (argv, "run");
      g_strv_builder_add (argv, "--command=lumo-access-host");
      g_strv_builder_add (argv, app_id);
    }
  else
    g_strv_builder_add (argv, lumo_browser_integration_get_host_path (integration));

  strv = g_strv_builder_end (argv);
  return _lumo_browser_wrapper_build ((const char * const *) strv);
}

static void
append_stale_advice (GString               *advice,
                     LumoBrowserStaleFlags  flags,
                     const char            *found_path)
{
  if (flags & LUMO_BROWSER_STALE_INVALID)
    g_string_append_printf (advice, "%s\n",
                            _("The manifest file is damaged or belongs to another program. "
                              "Updating replaces it."));
  if (flags & LUMO_BROWSER_STALE_PATH)
    {
      g_string_append_printf (advice,
                              _("The manifest starts “%s” instead of this installation’s "
                                "helper. Update it after moving or reinstalling Lumo Access."),
                              found_path != NULL ? found_path : "");
      g_string_append_c (advice, '\n');
    }
  if (flags & LUMO_BROWSER_STALE_ORIGINS)
    g_string_append_printf (advice, "%s\n",
                            _("The manifest does not list exactly your providers: a new "
                              "provider cannot connect, or a removed one still can. Update "
                              "it."));
  if (flags & LUMO_BROWSER_STALE_WRAPPER)
    g_string_append_printf (advice, "%s\n",
                            _("The script the manifest starts is missing or out of date. "
                              "Update it."));
}

/* What works and what to do, where the status alone cannot say it. */
static void
append_advice (LumoBrowser            *self,
               LumoBrowserIntegration *integration,
               const char             *found_path,
               GString                *advice,
               char                  **fix_command)
{
  const char *app_id = lumo_browser_integration_get_flatpak_app_id (integration);
  const char *flatpak_id = self->info->flatpak_id;
  const char *name = lumo_browser_get_name (self);

  if (self->scope == LUMO_BROWSER_SCOPE_SYSTEM)
    {
      if (app_id != NULL)
        g_string_append_printf (advice, "%s\n",
                                _("System-wide manifests cannot be written from inside the "
                                  "Flatpak sandbox. Install Lumo Access from your "
                                  "distribution to set up browsers for every user."));
      return;
    }

  if (flatpak_id != NULL && app_id != NULL)
    {
      /* Both sandboxed: ours cannot see the browser's folder, so the user
       * grants it for one run of the CLI, then lets the browser out. */
      g_string_append_printf (advice,
                              _("Lumo Access runs as a Flatpak and cannot see or write the "
                                "folders of %s. If you use it, run the command below once, "
                                "then restart the browser. Its second part lets the browser "
                                "run any command outside its sandbox, which a Flatpak "
                                "browser needs to start a native-messaging host."),
                              name);
      g_string_append_c (advice, '\n');
      *fix_command = g_strdup_printf ("flatpak run --filesystem=~/.var/app/%s/config/%s/"
                                      "NativeMessagingHosts:create --command=lumo-access-ctl "
                                      "%s install-manifest --browser %s"
                                      " && flatpak override --user "
                                      "--talk-name=org.freedesktop.Flatpak %s",
                                      flatpak_id, self->info->folder, app_id,
                                      self->info->id, flatpak_id);
    }
  else if (flatpak_id != NULL && self->status != LUMO_BROWSER_STATUS_NOT_INSTALLED)
    {
      const char *data_dir = _lumo_browser_integration_get_data_dir (integration);
      const char *root = lumo_browser_integration_get_system_root (integration);

      if (_lumo_browser_flatpak_can_talk (data_dir, root, flatpak_id, "org.freedesktop.Flatpak"))
        g_string_append_printf (advice,
                                _("%s runs as a Flatpak. It may run commands outside its "
                                  "sandbox, so it starts the helper through “flatpak-spawn "
                                  "--host”."),
                                name);
      else
        {
          g_string_append_printf (advice,
                                  _("%s runs as a Flatpak. It reads the manifest but cannot "
                                    "start the helper until it may run commands outside its "
                                    "sandbox; until then its extensions report that the "
                                    "native host has exited. Run the command below, then "
                                    "restart the browser. This lets the browser run any "
                                    "command on your computer outside its sandbox."),
                                  name);
          *fix_command = g_strdup_printf ("flatpak override --user "
                                          "--talk-name=org.freedesktop.Flatpak %s",
                                          flatpak_id);
        }
      g_string_append_c (advice, '\n');
    }
  else if (flatpak_id == NULL && app_id != NULL)
    {
      g_string_append_printf (advice, "%s\n",
                              _("Lumo Access runs as a Flatpak and sees only this browser’s "
                                "NativeMessagingHosts folder, which Flatpak creates for every "
                                "supported browser, so it cannot tell whether the browser is "
                                "installed. The manifest starts the helper with “flatpak "
                                "run”."));
    }

  if (self->status == LUMO_BROWSER_STATUS_MANIFEST_STALE)
    append_stale_advice (advice, self->stale_flags, found_path);
}

void
_lumo_browser_update (LumoBrowser            *self,
                      LumoBrowserIntegration *integration)
{
  g_autoptr(GString) advice = g_string_new (NULL);
  g_autofree char *old_advice = g_steal_pointer (&self->advice);
  g_autofree char *found_path = NULL;
  g_autofree char *fix_command = NULL;
  g_autofree char *old_fix_command = NULL;
  LumoBrowserStatus old_status = self->status;
  LumoBrowserStaleFlags old_flags = self->stale_flags;
  const char *expected_path;
  gboolean exists = FALSE;

  g_free (self->found_at);
  self->found_at = find_installation (self, integration);

  expected_path = self->wrapper_path != NULL
                  ? self->wrapper_path
                  : lumo_browser_integration_get_host_path (integration);
  self->stale_flags =
    _lumo_browser_manifest_check (self->manifest_path,
                                  lumo_browser_integration_get_host_name (),
                                  expected_path,
                                  _lumo_browser_integration_get_origins (integration),
                                  &exists, &found_path);

  if (exists && self->wrapper_path != NULL)
    {
      g_autofree char *contents = _lumo_browser_dup_wrapper_contents (self, integration);

      if (!_lumo_browser_wrapper_check (self->wrapper_path, contents))
        self->stale_flags |= LUMO_BROWSER_STALE_WRAPPER;
    }

  if (exists)
    self->status = self->stale_flags != LUMO_BROWSER_STALE_NONE
                   ? LUMO_BROWSER_STATUS_MANIFEST_STALE : LUMO_BROWSER_STATUS_OK;
  else if (self->found_at != NULL)
    self->status = LUMO_BROWSER_STATUS_MANIFEST_MISSING;
  else
    self->status = LUMO_BROWSER_STATUS_NOT_INSTALLED;

  append_advice (self, integration, found_path, advice, &fix_command);

  /* One sentence group per line, no trailing newline. */
  if (advice->len > 0 && advice->str[advice->len - 1] == '\n')
    g_string_truncate (advice, advice->len - 1);
  self->advice = advice->len > 0 ? g_string_free (g_steal_pointer (&advice), FALSE) : NULL;
  old_fix_command = g_steal_pointer (&self->fix_command);
  self->fix_command = g_steal_pointer (&fix_command);

  if (old_status != self->status)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATUS]);
  if (old_flags != self->stale_flags)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STALE_FLAGS]);
  if (g_strcmp0 (old_advice, self->advice) != 0)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ADVICE]);
  if (g_strcmp0 (old_fix_command, self->fix_command) != 0)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FIX_COMMAND]);
}

LumoBrowser *
_lumo_browser_new_for_target (LumoBrowserIntegration *integration,
                              const TargetInfo       *info,
                              LumoBrowserScope        scope)
{
  LumoBrowser *self = g_object_new (LUMO_TYPE_BROWSER, NULL);
  const char *host_name = lumo_browser_integration_get_host_name ();
  g_autofree char *manifest_name = g_strconcat (host_name, ".json", NULL);

  self->info = info;
  self->scope = scope;

  if (scope == LUMO_BROWSER_SCOPE_SYSTEM)
    self->directory = g_build_filename (lumo_browser_integration_get_system_root (integration),
                                        info->folder, NULL);
  else if (info->flatpak_id != NULL)
    self->directory = g_build_filename (lumo_browser_integration_get_home_dir (integration),
                                        ".var", "app", info->flatpak_id, "config",
                                        info->folder, "NativeMessagingHosts", NULL);
  else
    self->directory = g_build_filename (lumo_browser_integration_get_config_dir (integration),
                                        info->folder, "NativeMessagingHosts", NULL);

  self->manifest_path = g_build_filename (self->directory, manifest_name, NULL);

  /* A Flatpak browser sees its own config folder at the same path inside
   * its sandbox, so its wrapper lives beside the manifest. */
  if (info->flatpak_id != NULL)
    {
      g_autofree char *wrapper_name = g_strconcat (host_name, ".sh", NULL);

      self->wrapper_path = g_build_filename (self->directory, wrapper_name, NULL);
    }
  else if (scope == LUMO_BROWSER_SCOPE_USER
           && lumo_browser_integration_get_flatpak_app_id (integration) != NULL)
    {
      self->wrapper_path = lumo_browser_integration_dup_wrapper_path (integration);
      self->wrapper_shared = TRUE;
    }

  _lumo_browser_update (self, integration);

  return self;
}
