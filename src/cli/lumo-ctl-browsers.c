/* lumo-ctl-browsers.c — browsers, install-manifest, remove-manifest
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The native-messaging manifests in every browser folder, through the same
 * LumoBrowserIntegration the app uses (lumo-browser-setup.h decides what the
 * manifest says). A browser name is checked before policy.db is opened or
 * anything is written, so an unknown name (exit 2) changes nothing.
 */
#define G_LOG_DOMAIN "lumo-access-ctl"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "lumo-browser-integration.h"
#include "lumo-browser-setup.h"
#include "lumo-ctl.h"
#include "lumo-error.h"
#include "lumo-paths.h"
#include "lumo-policy.h"

#define PROGRAM "lumo-access-ctl"

/* The options the three commands share. */
typedef struct
{
  gboolean  system;
  char     *system_root;
  char     *browser;
} Scope;

static void
scope_clear (Scope *scope)
{
  g_clear_pointer (&scope->system_root, g_free);
  g_clear_pointer (&scope->browser, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Scope, scope_clear)

#define SCOPE_ENTRIES(scope) \
  { "system", 0, 0, G_OPTION_ARG_NONE, &(scope).system, \
    N_("The system-wide folders (for every user; needs root)"), NULL }, \
  /* Tests point the system-wide folders (and where the browsers' \
   * programs are installed) into a temporary directory. */ \
  { "system-root", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_FILENAME, &(scope).system_root, \
    N_("Look for the system-wide folders and the browsers’ programs under DIR instead of /"), \
    N_("DIR") }

#define BROWSER_ENTRY(scope) \
  { "browser", 'b', 0, G_OPTION_ARG_STRING, &(scope).browser, \
    N_("Only this browser (an ID that “browsers” lists, e.g. chromium-flatpak)"), N_("NAME") }

static LumoBrowserScope
scope_get (const Scope *scope)
{
  return scope->system ? LUMO_BROWSER_SCOPE_SYSTEM : LUMO_BROWSER_SCOPE_USER;
}

static const char *
scope_describe (const Scope *scope)
{
  return scope->system ? _("system-wide") : _("per-user");
}

/* The integration without the store's providers: enough to name the
 * targets and to remove, and opens no database. */
static LumoBrowserIntegration *
new_integration (const Scope *scope,
                 int         *exit_code)
{
  g_autoptr(GError) error = NULL;
  LumoBrowserIntegration *integration;

  if (scope->system_root != NULL && !g_path_is_absolute (scope->system_root))
    {
      g_printerr ("%s: %s\n", PROGRAM, _("--system-root needs an absolute path"));
      *exit_code = LUMO_CTL_EXIT_USAGE;
      return NULL;
    }

  if (!(integration = lumo_browser_setup_new_integration (NULL, NULL, scope->system_root,
                                                          &error)))
    *exit_code = lumo_ctl_fail (error);

  return integration;
}

/* NOT_FOUND here is a wrong command line: the message lists the names. */
static LumoBrowser *
lookup_browser (LumoBrowserIntegration *integration,
                const Scope            *scope,
                int                    *exit_code)
{
  g_autoptr(GError) error = NULL;
  LumoBrowser *browser;

  if (!(browser = lumo_browser_integration_lookup (integration, scope_get (scope),
                                                   scope->browser, &error)))
    {
      g_printerr ("%s: %s\n", PROGRAM, error->message);
      *exit_code = g_error_matches (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND)
                   ? LUMO_CTL_EXIT_USAGE : LUMO_CTL_EXIT_FAIL;
    }

  return browser;
}

/* The store's providers join the bundled ones. A missing policy.db means
 * no provider has connected yet: it is not created just to be read. */
static gboolean
load_providers (LumoBrowserIntegration *integration,
                int                    *exit_code)
{
  g_autofree char *path = lumo_paths_build ("policy.db");
  g_autoptr(LumoPolicy) policy = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) ids = NULL;

  if (g_file_test (path, G_FILE_TEST_EXISTS) && !(policy = lumo_policy_new (path, &error)))
    {
      *exit_code = lumo_ctl_fail (error);
      return FALSE;
    }

  if (!(ids = lumo_browser_setup_dup_provider_ids (policy, &error))
      || !lumo_browser_integration_set_extension_ids (integration, (const char * const *) ids,
                                                      &error))
    {
      *exit_code = lumo_ctl_fail (error);
      return FALSE;
    }

  return TRUE;
}

/* What makes a written manifest useless, said before it is written. */
static void
warn_about_setup (LumoBrowserIntegration *integration)
{
  const char *host_path = lumo_browser_integration_get_host_path (integration);
  const char * const *ids = lumo_browser_integration_get_extension_ids (integration);

  if (ids[0] == NULL)
    g_printerr ("%s: %s\n", PROGRAM,
                _("Warning: no provider is known and this build bundles none, so the manifest "
                  "lets no extension in. Add one with “lumo-access-ctl watch ID”."));

  if (!lumo_browser_integration_check_host (integration, NULL))
    {
      g_printerr ("%s: ", PROGRAM);
      g_printerr (_("Warning: the helper “%s” does not exist, so browsers cannot start it "
                    "until Lumo Access is installed there (from a build tree, set "
                    "LUMO_ACCESS_HOST_PATH)."), host_path);
      g_printerr ("\n");
    }
}

static char *
status_label (LumoBrowser *browser)
{
  LumoBrowserStaleFlags flags = lumo_browser_get_stale_flags (browser);
  g_autoptr(GPtrArray) why = NULL;

  switch (lumo_browser_get_status (browser))
    {
    case LUMO_BROWSER_STATUS_NOT_INSTALLED:
      return g_strdup (_("not installed"));
    case LUMO_BROWSER_STATUS_MANIFEST_MISSING:
      return g_strdup (_("manifest missing"));
    case LUMO_BROWSER_STATUS_OK:
      return g_strdup (_("OK"));
    case LUMO_BROWSER_STATUS_MANIFEST_STALE:
      break;
    default:
      g_assert_not_reached ();
    }

  why = g_ptr_array_new ();
  if (flags & LUMO_BROWSER_STALE_INVALID)
    g_ptr_array_add (why, (gpointer) _("not our manifest"));
  if (flags & LUMO_BROWSER_STALE_PATH)
    g_ptr_array_add (why, (gpointer) _("other helper"));
  if (flags & LUMO_BROWSER_STALE_ORIGINS)
    g_ptr_array_add (why, (gpointer) _("other providers"));
  if (flags & LUMO_BROWSER_STALE_WRAPPER)
    g_ptr_array_add (why, (gpointer) _("wrapper script"));
  g_ptr_array_add (why, NULL);

  {
    g_autofree char *joined = g_strjoinv (", ", (char **) why->pdata);

    return g_strdup_printf (_("manifest stale (%s)"), joined);
  }
}

/* The advice and the command to copy, indented under the browser's name. */
static void
print_advice (LumoBrowser *browser)
{
  const char *advice = lumo_browser_get_advice (browser);
  const char *fix = lumo_browser_get_fix_command (browser);
  g_auto(GStrv) lines = NULL;

  if (advice == NULL && fix == NULL)
    return;

  g_print ("\n%s — %s:\n", lumo_browser_get_id (browser), lumo_browser_get_name (browser));
  lines = g_strsplit (advice != NULL ? advice : "", "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (*lines[i] != '\0')
      g_print ("  %s\n", lines[i]);
  if (fix != NULL)
    g_print ("  %s\n    %s\n", _("Run:"), fix);
}

/* ---- browsers ------------------------------------------------------------- */

static const char *
enum_nick (GType type,
           int   value)
{
  g_autoptr(GEnumClass) klass = g_type_class_ref (type);
  GEnumValue *v = g_enum_get_value (klass, value);

  g_assert (v != NULL);
  /* Nicks are static strings of the type, which outlives the class ref. */
  return v->value_nick;
}

static JsonNode *
browser_to_json (LumoBrowser *browser)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(GFlagsClass) flags_class = g_type_class_ref (LUMO_TYPE_BROWSER_STALE_FLAGS);
  LumoBrowserStaleFlags flags = lumo_browser_get_stale_flags (browser);

  json_builder_begin_object (b);
  lumo_ctl_json_member (b, "id", lumo_browser_get_id (browser));
  lumo_ctl_json_member (b, "name", lumo_browser_get_name (browser));
  lumo_ctl_json_member (b, "status", enum_nick (LUMO_TYPE_BROWSER_STATUS,
                                                lumo_browser_get_status (browser)));
  json_builder_set_member_name (b, "stale");
  json_builder_begin_array (b);
  for (guint i = 0; i < flags_class->n_values; i++)
    if (flags_class->values[i].value != 0 && (flags & flags_class->values[i].value))
      json_builder_add_string_value (b, flags_class->values[i].value_nick);
  json_builder_end_array (b);
  lumo_ctl_json_member (b, "directory", lumo_browser_get_directory (browser));
  lumo_ctl_json_member (b, "manifest", lumo_browser_get_manifest_path (browser));
  lumo_ctl_json_member (b, "flatpakId", lumo_browser_get_flatpak_id (browser));
  lumo_ctl_json_member (b, "advice", lumo_browser_get_advice (browser));
  lumo_ctl_json_member (b, "fixCommand", lumo_browser_get_fix_command (browser));
  json_builder_end_object (b);

  return json_builder_get_root (b);
}

static void
print_browsers_json (LumoBrowserIntegration *integration,
                     const Scope            *scope,
                     GPtrArray              *browsers)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  const char * const *ids = lumo_browser_integration_get_extension_ids (integration);

  json_builder_begin_object (b);
  lumo_ctl_json_member (b, "scope", enum_nick (LUMO_TYPE_BROWSER_SCOPE, scope_get (scope)));
  lumo_ctl_json_member (b, "hostName", lumo_browser_integration_get_host_name ());
  lumo_ctl_json_member (b, "hostPath", lumo_browser_integration_get_host_path (integration));
  json_builder_set_member_name (b, "providers");
  json_builder_begin_array (b);
  for (guint i = 0; ids[i] != NULL; i++)
    json_builder_add_string_value (b, ids[i]);
  json_builder_end_array (b);
  json_builder_set_member_name (b, "browsers");
  json_builder_begin_array (b);
  for (guint i = 0; i < browsers->len; i++)
    json_builder_add_value (b, browser_to_json (browsers->pdata[i]));
  json_builder_end_array (b);
  json_builder_end_object (b);

  root = json_builder_get_root (b);
  lumo_ctl_print_json (root);
}

static void
print_browsers_text (LumoBrowserIntegration *integration,
                     GPtrArray              *browsers)
{
  g_autoptr(LumoCtlTable) table = lumo_ctl_table_new (_("ID"), _("NAME"), _("STATUS"),
                                                      _("MANIFEST"), NULL);
  const char * const *ids = lumo_browser_integration_get_extension_ids (integration);
  g_autofree char *joined = g_strjoinv (", ", (char **) ids);

  g_print (_("Native host: %s, starting %s\n"), lumo_browser_integration_get_host_name (),
           lumo_browser_integration_get_host_path (integration));
  g_print (_("Providers let in: %s\n\n"), *joined != '\0' ? joined : _("none"));

  for (guint i = 0; i < browsers->len; i++)
    {
      LumoBrowser *browser = browsers->pdata[i];
      g_autofree char *status = status_label (browser);

      lumo_ctl_table_add (table, lumo_browser_get_id (browser), lumo_browser_get_name (browser),
                          status, lumo_browser_get_manifest_path (browser), NULL);
    }
  lumo_ctl_table_print (table);

  for (guint i = 0; i < browsers->len; i++)
    print_advice (browsers->pdata[i]);
}

int
lumo_ctl_browsers (const LumoCtlCommand   *command,
                   char                 ***args)
{
  g_auto(Scope) scope = { 0 };
  g_autoptr(LumoBrowserIntegration) integration = NULL;
  g_autoptr(GPtrArray) browsers = NULL;
  gboolean json = FALSE;
  int exit_code = 0;
  const GOptionEntry entries[] = {
    SCOPE_ENTRIES (scope),
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print JSON"), NULL },
    G_OPTION_ENTRY_NULL
  };

  if (!lumo_ctl_parse (command, entries, args, 0, 0, &exit_code)
      || !(integration = new_integration (&scope, &exit_code))
      || !load_providers (integration, &exit_code))
    return exit_code;

  warn_about_setup (integration);
  browsers = lumo_browser_integration_scan (integration, scope_get (&scope));

  if (json)
    print_browsers_json (integration, &scope, browsers);
  else
    print_browsers_text (integration, browsers);

  return LUMO_CTL_EXIT_OK;
}

/* ---- install-manifest ----------------------------------------------------- */

int
lumo_ctl_install_manifest (const LumoCtlCommand   *command,
                           char                 ***args)
{
  g_auto(Scope) scope = { 0 };
  g_autoptr(LumoBrowserIntegration) integration = NULL;
  g_autoptr(GPtrArray) targets = NULL;
  gboolean dry_run = FALSE;
  guint n_failed = 0;
  int exit_code = 0;
  const GOptionEntry entries[] = {
    SCOPE_ENTRIES (scope),
    BROWSER_ENTRY (scope),
    { "dry-run", 'n', 0, G_OPTION_ARG_NONE, &dry_run,
      N_("Print the manifest instead of writing it"), NULL },
    G_OPTION_ENTRY_NULL
  };

  if (!lumo_ctl_parse (command, entries, args, 0, 0, &exit_code)
      || !(integration = new_integration (&scope, &exit_code)))
    return exit_code;

  if (scope.browser != NULL)
    {
      LumoBrowser *browser = lookup_browser (integration, &scope, &exit_code);

      if (browser == NULL)
        return exit_code;
      targets = g_ptr_array_new_with_free_func (g_object_unref);
      g_ptr_array_add (targets, browser);
    }

  if (!load_providers (integration, &exit_code))
    return exit_code;
  warn_about_setup (integration);

  /* Without a name: every browser that is there, as install_detected
   * does, but one by one so that each line names its browser. */
  if (targets == NULL)
    {
      targets = lumo_browser_integration_scan (integration, scope_get (&scope));
      for (guint i = targets->len; i > 0; i--)
        if (lumo_browser_get_status (targets->pdata[i - 1]) == LUMO_BROWSER_STATUS_NOT_INSTALLED)
          g_ptr_array_remove_index (targets, i - 1);

      if (targets->len == 0)
        {
          g_printerr ("%s: ", PROGRAM);
          g_printerr (_("No browser found (%s). Name one with --browser NAME to write its "
                        "manifest anyway; “lumo-access-ctl browsers” lists the names."),
                      scope_describe (&scope));
          g_printerr ("\n");
          return LUMO_CTL_EXIT_OK;
        }
    }

  for (guint i = 0; i < targets->len; i++)
    {
      LumoBrowser *browser = targets->pdata[i];
      g_autoptr(GError) error = NULL;

      if (dry_run)
        {
          g_autofree char *text = lumo_browser_integration_dup_manifest_json (integration,
                                                                               browser);

          /* The manifest alone on stdout, so that it can be piped. */
          g_printerr (_("Would write %s:\n"), lumo_browser_get_manifest_path (browser));
          g_print ("%s\n", text);
          continue;
        }

      if (!lumo_browser_integration_install (integration, browser, &error))
        {
          g_printerr ("%s: %s: %s\n", PROGRAM, lumo_browser_get_name (browser), error->message);
          n_failed++;
          continue;
        }

      g_print (_("%s: wrote %s\n"), lumo_browser_get_name (browser),
               lumo_browser_get_manifest_path (browser));
    }

  /* A Flatpak browser needs a permission before the manifest helps. */
  if (!dry_run)
    for (guint i = 0; i < targets->len; i++)
      if (lumo_browser_get_status (targets->pdata[i]) == LUMO_BROWSER_STATUS_OK)
        print_advice (targets->pdata[i]);

  return n_failed > 0 ? LUMO_CTL_EXIT_FAIL : LUMO_CTL_EXIT_OK;
}

/* ---- remove-manifest ------------------------------------------------------ */

static gboolean
has_manifest (LumoBrowser *browser)
{
  LumoBrowserStatus status = lumo_browser_get_status (browser);

  return status == LUMO_BROWSER_STATUS_OK || status == LUMO_BROWSER_STATUS_MANIFEST_STALE;
}

static void
print_failures (const GError *error)
{
  g_auto(GStrv) lines = g_strsplit (error->message, "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    g_printerr ("%s: %s\n", PROGRAM, lines[i]);
}

int
lumo_ctl_remove_manifest (const LumoCtlCommand   *command,
                          char                 ***args)
{
  g_auto(Scope) scope = { 0 };
  g_autoptr(LumoBrowserIntegration) integration = NULL;
  g_autoptr(GPtrArray) before = NULL;
  g_autoptr(GError) error = NULL;
  guint n_removed = 0;
  int exit_code = 0;
  const GOptionEntry entries[] = {
    SCOPE_ENTRIES (scope),
    BROWSER_ENTRY (scope),
    G_OPTION_ENTRY_NULL
  };

  if (!lumo_ctl_parse (command, entries, args, 0, 0, &exit_code)
      || !(integration = new_integration (&scope, &exit_code)))
    return exit_code;

  if (scope.browser != NULL)
    {
      g_autoptr(LumoBrowser) browser = lookup_browser (integration, &scope, &exit_code);
      gboolean existed;

      if (browser == NULL)
        return exit_code;

      existed = has_manifest (browser);
      if (!lumo_browser_integration_remove (integration, browser, &error))
        {
          g_printerr ("%s: %s: %s\n", PROGRAM, lumo_browser_get_name (browser), error->message);
          return LUMO_CTL_EXIT_FAIL;
        }

      if (existed)
        g_print (_("%s: removed %s\n"), lumo_browser_get_name (browser),
                 lumo_browser_get_manifest_path (browser));
      else
        g_print (_("%s: there is no manifest at %s; nothing to remove.\n"),
                 lumo_browser_get_name (browser), lumo_browser_get_manifest_path (browser));
      return LUMO_CTL_EXIT_OK;
    }

  /* remove_all also takes the shared wrapper of a Flatpak'd app; the scan
   * before it only names what went. */
  before = lumo_browser_integration_scan (integration, scope_get (&scope));
  n_removed = lumo_browser_integration_remove_all (integration, scope_get (&scope), &error);

  for (guint i = 0; i < before->len; i++)
    {
      LumoBrowser *browser = before->pdata[i];
      const char *path = lumo_browser_get_manifest_path (browser);

      if (has_manifest (browser) && !g_file_test (path, G_FILE_TEST_EXISTS))
        g_print (_("%s: removed %s\n"), lumo_browser_get_name (browser), path);
    }
  if (n_removed == 0 && error == NULL)
    g_print (_("There was no manifest to remove (%s).\n"), scope_describe (&scope));

  if (error != NULL)
    {
      print_failures (error);
      return LUMO_CTL_EXIT_FAIL;
    }

  return LUMO_CTL_EXIT_OK;
}
