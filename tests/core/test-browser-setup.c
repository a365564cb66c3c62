/* test-browser-setup.c — what this installation's manifests say, and the
 * app's start-up refresh
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The providers are the store's plus the bundled one; the helper is
 * LIBEXECDIR's unless LUMO_ACCESS_HOST_PATH says otherwise; the refresh
 * rewrites stale manifests only, and none at all when the helper it would
 * name is missing. Everything happens in a temporary home.
 */
#include "config.h"

#include <string.h>
#include <glib/gstdio.h>

#include "lumo-browser-integration.h"
#include "lumo-browser-setup.h"
#include "lumo-error.h"
#include "lumo-policy.h"
#include "lumo-test.h"


typedef struct
{
  char       *root;
  char       *home;
  char       *helper;
  LumoPolicy *policy;
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *db = NULL;

  f->root = lumo_test_dir_new ("browser-setup");
  f->home = g_build_filename (f->root, "home", NULL);
  f->helper = g_build_filename (f->root, "libexec", "lumo-access-host", NULL);
  g_assert_cmpint (g_mkdir (f->home, 0700), ==, 0);
  lumo_test_write_in (f->root, "libexec/lumo-access-host", "#!/bin/sh\n");
  g_assert_cmpint (g_chmod (f->helper, 0755), ==, 0);

  db = g_build_filename (f->root, "policy.db", NULL);
  f->policy = lumo_policy_new (db, &error);
  g_assert_no_error (error);

  g_setenv ("LUMO_ACCESS_HOST_PATH", f->helper, TRUE);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  g_unsetenv ("LUMO_ACCESS_HOST_PATH");
  g_clear_object (&f->policy);
  lumo_test_dir_remove (f->root);
  g_free (f->root);
  g_free (f->home);
  g_free (f->helper);
}

static const char *
bundled_id (void)
{
  const char * const *ids = lumo_browser_setup_get_bundled_ids ();

  g_assert_nonnull (ids[0]);
  return ids[0];
}

static void
test_bundled_ids (void)
{
  const char * const *ids = lumo_browser_setup_get_bundled_ids ();
  g_auto(GStrv) expected = g_strsplit (PROVIDER_EXTENSION_IDS, " ", -1);

  g_assert_cmpstrv (ids, expected);
  /* The build's option is checked where it is used. */
  for (guint i = 0; ids[i] != NULL; i++)
    g_assert_true (strlen (ids[i]) == 32);
}

static void
test_provider_ids (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) none = NULL;
  g_auto(GStrv) ids = NULL;

  /* No store: the bundled provider alone, so a fresh install lets it in. */
  none = lumo_browser_setup_dup_provider_ids (NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstrv (none, lumo_browser_setup_get_bundled_ids ());

  /* The store's providers join it, sorted, the bundled one only once. */
  lumo_policy_add_provider (f->policy, TEST_PROVIDER2_ID, LUMO_POLICY_ORIGIN_CLI, &error);
  g_assert_no_error (error);
  lumo_policy_add_provider (f->policy, TEST_PROVIDER_ID, LUMO_POLICY_ORIGIN_CLI, &error);
  g_assert_no_error (error);
  lumo_policy_add_provider (f->policy, bundled_id (), LUMO_POLICY_ORIGIN_CLI, &error);
  g_assert_no_error (error);

  ids = lumo_browser_setup_dup_provider_ids (f->policy, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_strv_length (ids), ==, 3);
  g_assert_cmpstr (ids[0], ==, TEST_PROVIDER_ID);
  g_assert_cmpstr (ids[1], ==, bundled_id ());
  g_assert_cmpstr (ids[2], ==, TEST_PROVIDER2_ID);
}

static void
test_host_path (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *installed = g_build_filename (LIBEXECDIR, "lumo-access-host", NULL);
  g_autofree char *path = NULL;

  g_unsetenv ("LUMO_ACCESS_HOST_PATH");
  path = lumo_browser_setup_dup_host_path (&error);
  g_assert_no_error (error);
  g_assert_cmpstr (path, ==, installed);
  g_clear_pointer (&path, g_free);

  /* Empty is unset. */
  g_setenv ("LUMO_ACCESS_HOST_PATH", "", TRUE);
  path = lumo_browser_setup_dup_host_path (&error);
  g_assert_cmpstr (path, ==, installed);
  g_clear_pointer (&path, g_free);

  g_setenv ("LUMO_ACCESS_HOST_PATH", "/build/./src/host/../host/lumo-access-host", TRUE);
  path = lumo_browser_setup_dup_host_path (&error);
  g_assert_no_error (error);
  g_assert_cmpstr (path, ==, "/build/src/host/lumo-access-host");
  g_clear_pointer (&path, g_free);

  /* The browser would resolve a relative path in a folder of its own. */
  g_setenv ("LUMO_ACCESS_HOST_PATH", "_build/src/host/lumo-access-host", TRUE);
  g_assert_null (lumo_browser_setup_dup_host_path (&error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "_build/src/host/lumo-access-host"));
  g_clear_error (&error);
  g_assert_null (lumo_browser_setup_new_integration (NULL, "/tmp", NULL, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT);

  g_unsetenv ("LUMO_ACCESS_HOST_PATH");
}

static void
test_new_integration (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(LumoBrowserIntegration) integration = NULL;
  g_autoptr(GError) error = NULL;
  const char * const *ids;

  lumo_policy_add_provider (f->policy, TEST_PROVIDER_ID, LUMO_POLICY_ORIGIN_CLI, &error);
  g_assert_no_error (error);

  integration = lumo_browser_setup_new_integration (f->policy, f->home, "/nonexistent-root",
                                                    &error);
  g_assert_no_error (error);
  g_assert_cmpstr (lumo_browser_integration_get_host_path (integration), ==, f->helper);
  g_assert_cmpstr (lumo_browser_integration_get_home_dir (integration), ==, f->home);
  g_assert_cmpstr (lumo_browser_integration_get_system_root (integration), ==,
                   "/nonexistent-root");
  ids = lumo_browser_integration_get_extension_ids (integration);
  g_assert_cmpuint (g_strv_length ((char **) ids), ==, 2);
  g_assert_cmpstr (ids[0], ==, TEST_PROVIDER_ID);
  g_assert_cmpstr (ids[1], ==, bundled_id ());
}

static guint
refresh (Fixture  *f,
         GError  **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  lumo_browser_setup_refresh_stale_async (f->policy, f->home, NULL, lumo_test_keep_result_cb, &result);
  lumo_test_wait_until (lumo_test_is_set, &result, "the refresh");

  return lumo_browser_setup_refresh_stale_finish (result, error);
}

static void
test_refresh (Fixture       *f,
              gconstpointer  data)
{
  g_autofree char *name = g_strconcat (lumo_browser_integration_get_host_name (), ".json", NULL);
  g_autofree char *chromium = g_build_filename (f->home, ".config/chromium/NativeMessagingHosts",
                                                name, NULL);
  g_autofree char *chrome_dir = g_build_filename (f->home, ".config/google-chrome", NULL);
  g_autofree char *chrome = g_build_filename (chrome_dir, "NativeMessagingHosts", name, NULL);
  g_autofree char *stale = g_strdup_printf ("{\"name\": \"%s\", \"path\": \"/old/helper\", "
                                            "\"type\": \"stdio\", \"allowed_origins\": []}",
                                            lumo_browser_integration_get_host_name ());
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(LumoBrowserIntegration) integration = NULL;
  g_autoptr(LumoBrowser) browser = NULL;
  guint n;

  lumo_test_write_in (chromium, NULL, stale);
  g_assert_cmpint (g_mkdir_with_parents (chrome_dir, 0700), ==, 0);

  /* The helper the manifest would name is missing: nothing is touched. */
  g_setenv ("LUMO_ACCESS_HOST_PATH", "/nonexistent/lumo-access-host", TRUE);
  n = refresh (f, &error);
  g_assert_cmpuint (n, ==, 0);
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "/nonexistent/lumo-access-host"));
  g_clear_error (&error);
  g_assert_true (g_file_get_contents (chromium, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, stale);
  g_clear_pointer (&contents, g_free);

  /* With the helper there, the stale manifest is rewritten; the missing one
   * in a detected browser is not created (the user never asked for it). */
  g_setenv ("LUMO_ACCESS_HOST_PATH", f->helper, TRUE);
  lumo_policy_add_provider (f->policy, TEST_PROVIDER2_ID, LUMO_POLICY_ORIGIN_CLI, &error);
  g_assert_no_error (error);
  n = refresh (f, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (n, ==, 1);
  g_assert_false (g_file_test (chrome, G_FILE_TEST_EXISTS));

  integration = lumo_browser_setup_new_integration (f->policy, f->home, NULL, &error);
  g_assert_no_error (error);
  lumo_browser_integration_set_flatpak_app_id (integration, NULL);
  browser = lumo_browser_integration_lookup (integration, LUMO_BROWSER_SCOPE_USER, "chromium",
                                             &error);
  g_assert_no_error (error);
  g_assert_cmpint (lumo_browser_get_status (browser), ==, LUMO_BROWSER_STATUS_OK);
  g_assert_true (g_file_get_contents (chromium, &contents, NULL, NULL));
  g_assert_nonnull (strstr (contents, f->helper));
  g_assert_nonnull (strstr (contents, "chrome-extension://" TEST_PROVIDER2_ID "/"));

  /* Nothing stale any more: nothing to do. */
  n = refresh (f, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (n, ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/browser-setup/bundled-ids", test_bundled_ids);
  g_test_add_func ("/browser-setup/host-path", test_host_path);
  g_test_add ("/browser-setup/provider-ids", Fixture, NULL,
              fixture_set_up, test_provider_ids, fixture_tear_down);
  g_test_add ("/browser-setup/new-integration", Fixture, NULL,
              fixture_set_up, test_new_integration, fixture_tear_down);
  g_test_add ("/browser-setup/refresh", Fixture, NULL,
              fixture_set_up, test_refresh, fixture_tear_down);

  return g_test_run ();
}
