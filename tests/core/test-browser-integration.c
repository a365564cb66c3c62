/* test-browser-integration.c — manifests in every browser, against a fake home
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each test builds a home directory layout (no browser, Chrome only, all five
 * browsers, a Flatpak Chromium, stale manifests, a read-only folder) in a
 * temporary directory and checks what a user would see and what lands on
 * disk.
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <json-glib/json-glib.h>
#include <glib/gstdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lumo-browser-integration.h"
#include "lumo-error.h"
#include "lumo-test.h"

#define HOST_PATH "/opt/lumo/libexec/lumo-access-host"

typedef struct
{
  char                   *root;     /* everything below is inside */
  char                   *home;
  char                   *system;
  LumoBrowserIntegration *integration;
} Fixture;

static char *
manifest_name (void)
{
  return g_strconcat (lumo_browser_integration_get_host_name (), ".json", NULL);
}

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  const char *ids[] = { TEST_PROVIDER2_ID, TEST_PROVIDER_ID, NULL };
  g_autoptr(GError) error = NULL;

  f->root = lumo_test_dir_new ("browser");
  f->home = g_build_filename (f->root, "home", NULL);
  f->system = g_build_filename (f->root, "sysroot", NULL);
  g_assert_cmpint (g_mkdir (f->home, 0700), ==, 0);
  g_assert_cmpint (g_mkdir (f->system, 0755), ==, 0);

  f->integration = lumo_browser_integration_new (f->home, f->system);
  /* Tests may run inside a Flatpak'd IDE: say explicitly we are not. */
  lumo_browser_integration_set_flatpak_app_id (f->integration, NULL);
  lumo_browser_integration_set_host_path (f->integration, HOST_PATH);
  lumo_browser_integration_set_extension_ids (f->integration, ids, &error);
  g_assert_no_error (error);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  g_clear_object (&f->integration);
  lumo_test_dir_remove (f->root);
  g_free (f->root);
  g_free (f->home);
  g_free (f->system);
}

static LumoBrowser *
find (GPtrArray  *browsers,
      const char *id)
{
  for (guint i = 0; i < browsers->len; i++)
    if (g_str_equal (lumo_browser_get_id (browsers->pdata[i]), id))
      return browsers->pdata[i];

  g_assert_not_reached ();
  return NULL;
}

static LumoBrowser *
lookup (Fixture          *f,
        LumoBrowserScope  scope,
        const char       *id)
{
  g_autoptr(GError) error = NULL;
  LumoBrowser *browser = lumo_browser_integration_lookup (f->integration, scope, id, &error);

  g_assert_no_error (error);
  g_assert_nonnull (browser);
  return browser;
}

static JsonObject *
read_manifest (const char *path)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;

  json_parser_load_from_file (parser, path, &error);
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)));
  return json_object_ref (json_node_get_object (json_parser_get_root (parser)));
}

/* What Chrome checks, and what we promise: our name, an absolute path, stdio,
 * and exactly the providers' origins with the trailing slash. */
static void
assert_manifest (const char *path,
                 const char *expected_path)
{
  g_autoptr(JsonObject) object = read_manifest (path);
  JsonArray *origins;
  struct stat st;

  g_assert_cmpstr (json_object_get_string_member (object, "name"), ==,
                   lumo_browser_integration_get_host_name ());
  g_assert_cmpstr (json_object_get_string_member (object, "path"), ==, expected_path);
  g_assert_true (g_path_is_absolute (json_object_get_string_member (object, "path")));
  g_assert_cmpstr (json_object_get_string_member (object, "type"), ==, "stdio");
  g_assert_nonnull (json_object_get_string_member (object, "description"));
  origins = json_object_get_array_member (object, "allowed_origins");
  g_assert_cmpuint (json_array_get_length (origins), ==, 2);
  g_assert_cmpstr (json_array_get_string_element (origins, 0), ==, TEST_PROVIDER_ORIGIN);
  g_assert_cmpstr (json_array_get_string_element (origins, 1), ==, TEST_PROVIDER2_ORIGIN);

  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0644);
}

/* An atomic write leaves no temporary file behind, success or failure. */
static void
assert_no_temporary_files (const char *dir_path)
{
  g_autoptr(GDir) dir = g_dir_open (dir_path, 0, NULL);
  const char *name;

  if (dir == NULL)
    return;
  while ((name = g_dir_read_name (dir)) != NULL)
    g_assert_true (g_str_has_suffix (name, ".json") || g_str_has_suffix (name, ".sh"));
}

/* ---- layouts ------------------------------------------------------------ */

static void
test_layout_none (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(GPtrArray) browsers = lumo_browser_integration_scan (f->integration,
                                                                 LUMO_BROWSER_SCOPE_USER);
  g_autoptr(GError) error = NULL;
  g_autofree char *config = g_build_filename (f->home, ".config", NULL);

  g_assert_cmpuint (browsers->len, ==, 17);
  for (guint i = 0; i < browsers->len; i++)
    {
      g_assert_cmpint (lumo_browser_get_status (browsers->pdata[i]), ==,
                       LUMO_BROWSER_STATUS_NOT_INSTALLED);
      g_assert_null (lumo_browser_get_fix_command (browsers->pdata[i]));
    }

  g_assert_cmpuint (lumo_browser_integration_install_detected (f->integration,
                                                               LUMO_BROWSER_SCOPE_USER,
                                                               &error), ==, 0);
  g_assert_no_error (error);
  g_assert_cmpuint (lumo_browser_integration_refresh_stale (f->integration, &error), ==, 0);
  g_assert_no_error (error);
  /* Nothing was created for browsers the user does not have. */
  g_assert_false (g_file_test (config, G_FILE_TEST_EXISTS));
}

static void
test_layout_chrome_only (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(GPtrArray) browsers = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *name = manifest_name ();
  g_autofree char *path = NULL;
  LumoBrowser *chrome;

  lumo_test_mkdir_in (f->home, ".config/google-chrome/Default");
  browsers = lumo_browser_integration_scan (f->integration, LUMO_BROWSER_SCOPE_USER);
  chrome = find (browsers, "chrome");
  g_assert_cmpint (lumo_browser_get_status (chrome), ==, LUMO_BROWSER_STATUS_MANIFEST_MISSING);
  g_assert_cmpint (lumo_browser_get_status (find (browsers, "chrome-beta")), ==,
                   LUMO_BROWSER_STATUS_NOT_INSTALLED);
  g_assert_cmpint (lumo_browser_get_status (find (browsers, "chromium")), ==,
                   LUMO_BROWSER_STATUS_NOT_INSTALLED);
  g_assert_null (lumo_browser_get_flatpak_id (chrome));
  g_assert_cmpstr (lumo_browser_get_name (chrome), ==, "Google Chrome");

  path = g_build_filename (f->home, ".config/google-chrome/NativeMessagingHosts", name, NULL);
  g_assert_cmpstr (lumo_browser_get_manifest_path (chrome), ==, path);

  /* The refresh at start-up never creates a manifest the user did not ask for. */
  g_assert_cmpuint (lumo_browser_integration_refresh_stale (f->integration, &error), ==, 0);
  g_assert_no_error (error);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));

  g_assert_cmpuint (lumo_browser_integration_install_detected (f->integration,
                                                               LUMO_BROWSER_SCOPE_USER,
                                                               &error), ==, 1);
  g_assert_no_error (error);
  assert_manifest (path, HOST_PATH);
  assert_no_temporary_files (lumo_browser_get_directory (chrome));

  g_clear_pointer (&browsers, g_ptr_array_unref);
  browsers = lumo_browser_integration_scan (f->integration, LUMO_BROWSER_SCOPE_USER);
  chrome = find (browsers, "chrome");
  g_assert_cmpint (lumo_browser_get_status (chrome), ==, LUMO_BROWSER_STATUS_OK);
  g_assert_cmpint (lumo_browser_get_stale_flags (chrome), ==, LUMO_BROWSER_STALE_NONE);
  g_assert_null (lumo_browser_get_advice (chrome));

  /* Remove, twice: the second time there is nothing to remove, and that is fine. */
  lumo_browser_integration_remove (f->integration, chrome, &error);
  g_assert_no_error (error);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_cmpint (lumo_browser_get_status (chrome), ==, LUMO_BROWSER_STATUS_MANIFEST_MISSING);
  lumo_browser_integration_remove (f->integration, chrome, &error);
  g_assert_no_error (error);
}

static void
test_layout_all_five (Fixture       *f,
                      gconstpointer  data)
{
  const char *folders[] = { "google-chrome", "chromium", "BraveSoftware/Brave-Browser",
                            "microsoft-edge", "vivaldi" };
  const char *ids[] = { "chrome", "chromium", "brave", "edge", "vivaldi", NULL };
  g_autoptr(GPtrArray) browsers = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *name = manifest_name ();

  for (guint i = 0; i < G_N_ELEMENTS (folders); i++)
    {
      g_autofree char *folder = g_build_filename (".config", folders[i], NULL);

      lumo_test_mkdir_in (f->home, folder);
    }

  g_assert_cmpuint (lumo_browser_integration_install_detected (f->integration,
                                                               LUMO_BROWSER_SCOPE_USER,
                                                               &error), ==, 5);
  g_assert_no_error (error);

  browsers = lumo_browser_integration_scan (f->integration, LUMO_BROWSER_SCOPE_USER);
  for (guint i = 0; i < browsers->len; i++)
    {
      LumoBrowser *browser = browsers->pdata[i];
      gboolean expected = g_strv_contains (ids, lumo_browser_get_id (browser));

      g_assert_cmpint (lumo_browser_get_status (browser), ==,
                       expected ? LUMO_BROWSER_STATUS_OK : LUMO_BROWSER_STATUS_NOT_INSTALLED);
    }

  for (guint i = 0; i < G_N_ELEMENTS (folders); i++)
    {
      g_autofree char *path = g_build_filename (f->home, ".config", folders[i],
                                                "NativeMessagingHosts", name, NULL);

      assert_manifest (path, HOST_PATH);
    }

  /* A second run changes nothing and still succeeds. */
  g_assert_cmpuint (lumo_browser_integration_refresh_stale (f->integration, &error), ==, 0);
  g_assert_no_error (error);

  g_assert_cmpuint (lumo_browser_integration_remove_all (f->integration,
                                                         LUMO_BROWSER_SCOPE_USER,
                                                         &error), ==, 5);
  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (folders); i++)
    {
      g_autofree char *path = g_build_filename (f->home, ".config", folders[i],
                                                "NativeMessagingHosts", name, NULL);

      g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
    }
}

/* Runs @script with a fake flatpak-spawn / flatpak first on PATH that print
 * their arguments, as the browser would run the host: with the origin. */
static char *
run_wrapper (Fixture    *f,
             const char *script)
{
  g_autofree char *bin = g_build_filename (f->root, "bin", NULL);
  g_autofree char *path_env = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr(GError) error = NULL;
  const char *argv[] = { script, TEST_PROVIDER_ORIGIN, NULL };
  const char *fakes[] = { "flatpak-spawn", "flatpak" };
  g_auto(GStrv) envp = g_get_environ ();
  int status = -1;

  for (guint i = 0; i < G_N_ELEMENTS (fakes); i++)
    {
      g_autofree char *fake = g_build_filename (bin, fakes[i], NULL);
      g_autofree char *text = g_strdup_printf ("#!/bin/sh\necho %s \"$@\"\n", fakes[i]);

      g_mkdir_with_parents (bin, 0700);
      g_file_set_contents (fake, text, -1, &error);
      g_assert_no_error (error);
      g_chmod (fake, 0755);
    }

  path_env = g_strdup_printf ("%s:/usr/bin:/bin", bin);
  envp = g_environ_setenv (envp, "PATH", path_env, TRUE);
  g_spawn_sync (NULL, (char **) argv, envp, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status,
                &error);
  g_assert_no_error (error);
  g_spawn_check_wait_status (status, &error);
  g_assert_no_error (error);

  return g_strchomp (g_steal_pointer (&out));
}

static void
test_layout_flatpak_chromium (Fixture       *f,
                              gconstpointer  data)
{
  g_autoptr(LumoBrowser) browser = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *wrapper = NULL;
  g_autofree char *output = NULL;
  g_autofree char *expected_dir = g_build_filename (f->home, ".var/app/org.chromium.Chromium/"
                                                    "config/chromium/NativeMessagingHosts",
                                                    NULL);

  lumo_test_mkdir_in (f->home, ".var/app/org.chromium.Chromium/config/chromium");

  browser = lookup (f, LUMO_BROWSER_SCOPE_USER, "chromium-flatpak");
  g_assert_cmpstr (lumo_browser_get_flatpak_id (browser), ==, "org.chromium.Chromium");
  g_assert_cmpstr (lumo_browser_get_directory (browser), ==, expected_dir);
  g_assert_cmpint (lumo_browser_get_status (browser), ==, LUMO_BROWSER_STATUS_MANIFEST_MISSING);
  /* Without the override, the browser cannot start anything outside its
   * sandbox: the user is told so, and given the exact command. */
  g_assert_nonnull (lumo_browser_get_advice (browser));
  g_assert_nonnull (strstr (lumo_browser_get_advice (browser), "Flatpak"));
  g_assert_cmpstr (lumo_browser_get_fix_command (browser), ==,
                   "flatpak override --user --talk-name=org.freedesktop.Flatpak "
                   "org.chromium.Chromium");

  /* The native Chromium is not installed; the Flatpak one does not count as it. */
  {
    g_autoptr(LumoBrowser) native = lookup (f, LUMO_BROWSER_SCOPE_USER, "chromium");

    g_assert_cmpint (lumo_browser_get_status (native), ==, LUMO_BROWSER_STATUS_NOT_INSTALLED);
  }

  lumo_browser_integration_install (f->integration, browser, &error);
  g_assert_no_error (error);
  g_assert_cmpint (lumo_browser_get_status (browser), ==, LUMO_BROWSER_STATUS_OK);

  /* The manifest names a wrapper inside the browser's own folder (visible
   * in its sandbox at the same path), which leaves through flatpak-spawn. */
  wrapper = g_strconcat (expected_dir, "/", lumo_browser_integration_get_host_name (), ".sh",
                         NULL);
  assert_manifest (lumo_browser_get_manifest_path (browser), wrapper);
  g_assert_true (g_file_test (wrapper, G_FILE_TEST_IS_EXECUTABLE));
  output = run_wrapper (f, wrapper);
  g_assert_cmpstr (output, ==, "flatpak-spawn --host " HOST_PATH " " TEST_PROVIDER_ORIGIN);
  assert_no_temporary_files (expected_dir);

  /* Once the user ran the override, the command is no longer offered. */
  lumo_test_write_in (f->home, ".local/share/flatpak/overrides/org.chromium.Chromium",
            "[Session Bus Policy]\norg.freedesktop.Flatpak=talk\n");
  g_clear_object (&browser);
  browser = lookup (f, LUMO_BROWSER_SCOPE_USER, "chromium-flatpak");
  g_assert_null (lumo_browser_get_fix_command (browser));
  g_assert_nonnull (lumo_browser_get_advice (browser));

  /* A later "none" in the user override wins over an earlier grant. */
  lumo_test_write_in (f->system, "var/lib/flatpak/overrides/org.chromium.Chromium",
            "[Session Bus Policy]\norg.freedesktop.Flatpak=talk\n");
  lumo_test_write_in (f->home, ".local/share/flatpak/overrides/org.chromium.Chromium",
            "[Session Bus Policy]\norg.freedesktop.Flatpak=none\n");
  g_clear_object (&browser);
  browser = lookup (f, LUMO_BROWSER_SCOPE_USER, "chromium-flatpak");
  g_assert_nonnull (lumo_browser_get_fix_command (browser));

  /* Removing takes the wrapper too. */
  lumo_browser_integration_remove (f->integration, browser, &error);
  g_assert_no_error (error);
  g_assert_false (g_file_test (wrapper, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (lumo_browser_get_manifest_path (browser), G_FILE_TEST_EXISTS));
}

static void
test_stale_wrong_path (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(LumoBrowser) browser = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) object = NULL;
  g_autofree char *name = manifest_name ();
  g_autofree char *relative = g_build_filename (".config/chromium/NativeMessagingHosts", name,
                                                NULL);
  g_autofree char *old = g_strdup_printf ("{\"name\": \"%s\", \"description\": \"old\", "
                                          "\"path\": \"/usr/lib/old/lumo-access-host\", "
                                          "\"type\": \"stdio\", \"allowed_origins\": "
                                          "[\"%s\", \"%s\"], \"x-packager\": {\"keep\": true}}",
                                          lumo_browser_integration_get_host_name (),
                                          TEST_PROVIDER2_ORIGIN, TEST_PROVIDER_ORIGIN);

  lumo_test_write_in (f->home, relative, old);
  browser = lookup (f, LUMO_BROWSER_SCOPE_USER, "chromium");
  g_assert_cmpint (lumo_browser_get_status (browser), ==, LUMO_BROWSER_STATUS_MANIFEST_STALE);
  /* Order does not matter to Chrome, so only the path is stale. */
  g_assert_cmpint (lumo_browser_get_stale_flags (browser), ==, LUMO_BROWSER_STALE_PATH);
  g_assert_nonnull (strstr (lumo_browser_get_advice (browser), "/usr/lib/old/lumo-access-host"));

  g_assert_cmpuint (lumo_browser_integration_refresh_stale (f->integration, &error), ==, 1);
  g_assert_no_error (error);
  g_clear_object (&browser);
  browser = lookup (f, LUMO_BROWSER_SCOPE_USER, "chromium");
  g_assert_cmpint (lumo_browser_get_status (browser), ==, LUMO_BROWSER_STATUS_OK);
  assert_manifest (lumo_browser_get_manifest_path (browser), HOST_PATH);

  /* A member someone else added survives the update. */
  object = read_manifest (lumo_browser_get_manifest_path (browser));
  g_assert_true (json_object_has_member (object, "x-packager"));
  g_assert_true (json_object_get_boolean_member (json_object_get_object_member (object,
                                                                                "x-packager"),
                                                 "keep"));
}

static void
test_stale_missing_origin (Fixture       *f,
                           gconstpointer  data)
{
  g_autoptr(LumoBrowser) browser = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *name = manifest_name ();
  g_autofree char *relative = g_build_filename (".config/microsoft-edge/NativeMessagingHosts",
                                                name, NULL);
  g_autofree char *missing = g_strdup_printf ("{\"name\": \"%s\", \"path\": \"%s\", "
                                              "\"type\": \"stdio\", \"allowed_origins\": "
                                              "[\"%s\"]}",
                                              lumo_browser_integration_get_host_name (),
                                              HOST_PATH, TEST_PROVIDER_ORIGIN);
  g_autofree char *no_slash = g_strdup_printf ("{\"name\": \"%s\", \"path\": \"%s\", "
                                               "\"type\": \"stdio\", \"allowed_origins\": "
                                               "[\"%s\", \"chrome-extension://%s\"]}",
                                               lumo_browser_integration_get_host_name (),
                                               HOST_PATH, TEST_PROVIDER_ORIGIN, TEST_PROVIDER2_ID);
  g_autofree char *wildcard = g_strdup_printf ("{\"name\": \"%s\", \"path\": \"%s\", "
                                               "\"type\": \"stdio\", \"allowed_origins\": "
                                               "[\"%s\", \"%s\", \"chrome-extension://*/\"]}",
                                               lumo_browser_integration_get_host_name (),
                                               HOST_PATH, TEST_PROVIDER_ORIGIN, TEST_PROVIDER2_ORIGIN);
  const char *variants[] = { missing, no_slash, wildcard };

  for (guint i = 0; i < G_N_ELEMENTS (variants); i++)
    {
      lumo_test_write_in (f->home, relative, variants[i]);
      g_clear_object (&browser);
      browser = lookup (f, LUMO_BROWSER_SCOPE_USER, "edge");
      g_assert_cmpint (lumo_browser_get_status (browser), ==,
                       LUMO_BROWSER_STATUS_MANIFEST_STALE);
      g_assert_cmpint (lumo_browser_get_stale_flags (browser), ==, LUMO_BROWSER_STALE_ORIGINS);

      g_assert_cmpuint (lumo_browser_integration_refresh_stale (f->integration, &error), ==, 1);
      g_assert_no_error (error);
      assert_manifest (lumo_browser_get_manifest_path (browser), HOST_PATH);
    }

  /* A provider removed from the policy store is removed from the manifest. */
  {
    const char *only_a[] = { TEST_PROVIDER_ID, NULL };
    g_autoptr(JsonObject) object = NULL;

    lumo_browser_integration_set_extension_ids (f->integration, only_a, &error);
    g_assert_no_error (error);
    g_clear_object (&browser);
    browser = lookup (f, LUMO_BROWSER_SCOPE_USER, "edge");
    g_assert_cmpint (lumo_browser_get_stale_flags (browser), ==, LUMO_BROWSER_STALE_ORIGINS);
    lumo_browser_integration_install (f->integration, browser, &error);
    g_assert_no_error (error);
    object = read_manifest (lumo_browser_get_manifest_path (browser));
    g_assert_cmpuint (json_array_get_length (json_object_get_array_member (object,
                                                                           "allowed_origins")),
                      ==, 1);
  }
}

static void
test_stale_invalid (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *name = manifest_name ();
  g_autofree char *relative = g_build_filename (".config/vivaldi/NativeMessagingHosts", name,
                                                NULL);
  const char *variants[] = {
    "{\"name\": \"dev.lumo.acc",                          /* truncated */
    "[1, 2, 3]",                                           /* not an object */
    "{\"name\": \"com.example.other\", \"type\": \"stdio\"}", /* someone else's */
  };

  for (guint i = 0; i < G_N_ELEMENTS (variants); i++)
    {
      g_autoptr(LumoBrowser) browser = NULL;
      g_autoptr(GError) error = NULL;

      lumo_test_write_in (f->home, relative, variants[i]);
      browser = lookup (f, LUMO_BROWSER_SCOPE_USER, "vivaldi");
      g_assert_cmpint (lumo_browser_get_status (browser), ==,
                       LUMO_BROWSER_STATUS_MANIFEST_STALE);
      g_assert_true (lumo_browser_get_stale_flags (browser) & LUMO_BROWSER_STALE_INVALID);

      lumo_browser_integration_install (f->integration, browser, &error);
      g_assert_no_error (error);
      g_assert_cmpint (lumo_browser_get_status (browser), ==, LUMO_BROWSER_STATUS_OK);
      assert_manifest (lumo_browser_get_manifest_path (browser), HOST_PATH);
    }
}

/* The body of the read-only test, run in a subprocess so that a root test
 * run can drop to an unprivileged user (root ignores directory modes). */
static void
read_only_child (const char *home)
{
  g_autoptr(LumoBrowserIntegration) integration = lumo_browser_integration_new (home, "/");
  const char *ids[] = { TEST_PROVIDER_ID, TEST_PROVIDER2_ID, NULL };
  g_autoptr(GError) error = NULL;
  g_autofree char *name = manifest_name ();
  g_autofree char *chrome_dir = g_build_filename (home, ".config/google-chrome", NULL);
  guint n;

  if (geteuid () == 0)
    {
      g_assert_cmpint (setgid (65534), ==, 0);
      g_assert_cmpint (setuid (65534), ==, 0);
    }

  lumo_browser_integration_set_flatpak_app_id (integration, NULL);
  lumo_browser_integration_set_host_path (integration, HOST_PATH);
  lumo_browser_integration_set_extension_ids (integration, ids, &error);
  g_assert_no_error (error);

  /* One browser's folder is read-only, the other's is fine: the fine one
   * is updated, the failure names the file and the reason. */
  n = lumo_browser_integration_refresh_stale (integration, &error);
  g_assert_cmpuint (n, ==, 1);
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_IO);
  g_assert_nonnull (strstr (error->message, chrome_dir));
  g_assert_nonnull (strstr (error->message, g_strerror (EACCES)));
  g_assert_null (strstr (error->message, "Chromium:"));
  g_clear_error (&error);

  /* A fresh install into a read-only, not-yet-existing folder. */
  {
    g_autoptr(LumoBrowser) beta = lumo_browser_integration_lookup (integration,
                                                                   LUMO_BROWSER_SCOPE_USER,
                                                                   "chrome-beta", NULL);
    g_autofree char *parent = g_build_filename (home, ".config/google-chrome-beta", NULL);

    g_assert_false (lumo_browser_integration_install (integration, beta, &error));
    g_assert_error (error, LUMO_ERROR, LUMO_ERROR_IO);
    g_assert_nonnull (strstr (error->message, parent));
  }
}

static void
chown_tree (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  g_assert_cmpint (lchown (path, 65534, 65534), ==, 0);
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      if (g_file_test (child, G_FILE_TEST_IS_DIR))
        chown_tree (child);
      else
        g_assert_cmpint (lchown (child, 65534, 65534), ==, 0);
    }
}

static void
test_read_only (void)
{
  g_autofree char *name = manifest_name ();
  g_autofree char *root = NULL;
  g_autofree char *home = NULL;
  g_autofree char *chrome_path = NULL;
  g_autofree char *chrome_dir = NULL;
  g_autofree char *beta_parent = NULL;
  g_autofree char *chromium_path = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autoptr(GError) error = NULL;
  const char *stale = "{\"name\": \"dev.lumo.access\", \"path\": \"/old\", \"type\": \"stdio\", "
                      "\"allowed_origins\": []}";

  if (g_test_subprocess ())
    {
      read_only_child (g_getenv ("LUMO_TEST_HOME"));
      return;
    }

  root = lumo_test_dir_new ("browser");
  home = g_build_filename (root, "home", NULL);
  chrome_path = g_build_filename (home, ".config/google-chrome/NativeMessagingHosts", name, NULL);
  chrome_dir = g_path_get_dirname (chrome_path);
  chromium_path = g_build_filename (home, ".config/chromium/NativeMessagingHosts", name, NULL);
  beta_parent = g_build_filename (home, ".config/google-chrome-beta", NULL);

  lumo_test_write_in (chrome_path, NULL, stale);
  lumo_test_write_in (chromium_path, NULL, stale);
  lumo_test_mkdir_in (home, ".config/google-chrome-beta");
  g_assert_cmpint (g_chmod (chrome_dir, 0555), ==, 0);
  g_assert_cmpint (g_chmod (beta_parent, 0555), ==, 0);
  g_file_get_contents (chrome_path, &before, NULL, NULL);

  if (geteuid () == 0)
    {
      g_assert_cmpint (g_chmod (root, 0755), ==, 0);
      chown_tree (root);
    }

  g_setenv ("LUMO_TEST_HOME", home, TRUE);
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_unsetenv ("LUMO_TEST_HOME");
  g_test_trap_assert_passed ();

  /* Nothing half-written: the old file is intact and no temporary is left. */
  g_file_get_contents (chrome_path, &after, NULL, NULL);
  g_assert_cmpstr (before, ==, after);
  assert_no_temporary_files (chrome_dir);
  assert_manifest (chromium_path, HOST_PATH);

  lumo_test_dir_remove (root);
}

/* ---- other rules -------------------------------------------------------- */

static void
test_bad_extension_ids (Fixture       *f,
                        gconstpointer  data)
{
  const char *dup[] = { TEST_PROVIDER_ID, TEST_PROVIDER_ID, TEST_PROVIDER2_ID, NULL };
  const char * const *kept;

  for (guint i = 0; i <= g_strv_length ((char **) lumo_test_bad_ids); i++)
    {
      /* Every bad ID, and last an origin: not an ID either. */
      const char *bad = lumo_test_bad_ids[i] != NULL ? lumo_test_bad_ids[i] : TEST_PROVIDER_ORIGIN;
      const char *ids[] = { TEST_PROVIDER_ID, bad, NULL };
      g_autoptr(GError) error = NULL;

      g_assert_false (lumo_browser_integration_set_extension_ids (f->integration, ids, &error));
      g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ID);
      /* Nothing changed. */
      kept = lumo_browser_integration_get_extension_ids (f->integration);
      g_assert_cmpuint (g_strv_length ((char **) kept), ==, 2);
    }

  g_assert_true (lumo_browser_integration_set_extension_ids (f->integration, dup, NULL));
  kept = lumo_browser_integration_get_extension_ids (f->integration);
  g_assert_cmpuint (g_strv_length ((char **) kept), ==, 2);
  g_assert_cmpstr (kept[0], ==, TEST_PROVIDER_ID);
  g_assert_cmpstr (kept[1], ==, TEST_PROVIDER2_ID);
}

static void
test_no_providers (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(LumoBrowser) browser = NULL;
  g_autoptr(JsonObject) object = NULL;
  g_autoptr(GError) error = NULL;

  lumo_test_mkdir_in (f->home, ".config/chromium");
  lumo_browser_integration_set_extension_ids (f->integration, NULL, &error);
  g_assert_no_error (error);
  browser = lookup (f, LUMO_BROWSER_SCOPE_USER, "chromium");
  lumo_browser_integration_install (f->integration, browser, &error);
  g_assert_no_error (error);
  object = read_manifest (lumo_browser_get_manifest_path (browser));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (object,
                                                                         "allowed_origins")),
                    ==, 0);
  g_assert_cmpint (lumo_browser_get_status (browser), ==, LUMO_BROWSER_STATUS_OK);
}

static void
test_system_scope (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(GPtrArray) browsers = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *name = manifest_name ();
  g_autofree char *path = g_build_filename (f->system, "etc/chromium/native-messaging-hosts",
                                            name, NULL);
  g_autofree char *dir = g_path_get_dirname (path);
  LumoBrowser *chromium;
  struct stat st;
  mode_t old_umask;

  lumo_test_mkdir_in (f->system, "usr/lib/chromium");
  browsers = lumo_browser_integration_scan (f->integration, LUMO_BROWSER_SCOPE_SYSTEM);
  g_assert_cmpuint (browsers->len, ==, 3);
  chromium = find (browsers, "chromium");
  g_assert_cmpint (lumo_browser_get_scope (chromium), ==, LUMO_BROWSER_SCOPE_SYSTEM);
  g_assert_cmpint (lumo_browser_get_status (chromium), ==, LUMO_BROWSER_STATUS_MANIFEST_MISSING);
  g_assert_cmpint (lumo_browser_get_status (find (browsers, "chrome")), ==,
                   LUMO_BROWSER_STATUS_NOT_INSTALLED);
  g_assert_cmpint (lumo_browser_get_status (find (browsers, "edge")), ==,
                   LUMO_BROWSER_STATUS_NOT_INSTALLED);
  g_assert_cmpstr (lumo_browser_get_manifest_path (chromium), ==, path);

  /* An admin's umask of 077 must not leave a manifest users cannot read. */
  old_umask = umask (077);
  g_assert_cmpuint (lumo_browser_integration_install_detected (f->integration,
                                                               LUMO_BROWSER_SCOPE_SYSTEM,
                                                               &error), ==, 1);
  umask (old_umask);
  g_assert_no_error (error);
  assert_manifest (path, HOST_PATH);
  g_assert_cmpint (g_stat (dir, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0755);

  /* Chrome's folder is also where Brave looks; an admin may prepare it
   * before installing the browser. */
  {
    g_autoptr(LumoBrowser) chrome = lookup (f, LUMO_BROWSER_SCOPE_SYSTEM, "chrome");
    g_autofree char *chrome_path = g_build_filename (f->system,
                                                     "etc/opt/chrome/native-messaging-hosts",
                                                     name, NULL);

    lumo_browser_integration_install (f->integration, chrome, &error);
    g_assert_no_error (error);
    assert_manifest (chrome_path, HOST_PATH);
    g_assert_cmpint (lumo_browser_get_status (chrome), ==, LUMO_BROWSER_STATUS_OK);
  }

  /* Vivaldi has no documented system folder; a typo gets the list. */
  {
    LumoBrowser *none = lumo_browser_integration_lookup (f->integration,
                                                         LUMO_BROWSER_SCOPE_SYSTEM,
                                                         "vivaldi", &error);

    g_assert_null (none);
    g_assert_error (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND);
    g_assert_nonnull (strstr (error->message, "chromium"));
    g_clear_error (&error);
  }

  /* The start-up refresh touches user manifests only. */
  g_assert_cmpuint (lumo_browser_integration_refresh_stale (f->integration, &error), ==, 0);
  g_assert_no_error (error);

  g_assert_cmpuint (lumo_browser_integration_remove_all (f->integration,
                                                         LUMO_BROWSER_SCOPE_SYSTEM,
                                                         &error), ==, 2);
  g_assert_no_error (error);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
}

/* Lumo Access itself in Flatpak: the manifest must name something the host
 * browser can run, outside our sandbox. */
static void
test_sandboxed_app (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(LumoBrowser) chrome = NULL;
  g_autoptr(LumoBrowser) flatpak_chromium = NULL;
  g_autoptr(LumoBrowser) system = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *wrapper = NULL;
  g_autofree char *expected_wrapper = NULL;
  g_autofree char *output = NULL;

  lumo_browser_integration_set_flatpak_app_id (f->integration, "dev.lumo.Access");
  lumo_test_mkdir_in (f->home, ".config/google-chrome/NativeMessagingHosts");

  wrapper = lumo_browser_integration_dup_wrapper_path (f->integration);
  expected_wrapper = g_strdup_printf ("%s/.var/app/dev.lumo.Access/data/lumo-access/%s.sh",
                                      f->home, lumo_browser_integration_get_host_name ());
  g_assert_cmpstr (wrapper, ==, expected_wrapper);

  chrome = lookup (f, LUMO_BROWSER_SCOPE_USER, "chrome");
  g_assert_nonnull (lumo_browser_get_advice (chrome));
  lumo_browser_integration_install (f->integration, chrome, &error);
  g_assert_no_error (error);
  g_assert_cmpint (lumo_browser_get_status (chrome), ==, LUMO_BROWSER_STATUS_OK);
  assert_manifest (lumo_browser_get_manifest_path (chrome), wrapper);
  output = run_wrapper (f, wrapper);
  g_assert_cmpstr (output, ==,
                   "flatpak run --command=lumo-access-host dev.lumo.Access " TEST_PROVIDER_ORIGIN);

  /* A deleted wrapper makes the manifest stale; the refresh restores it. */
  g_assert_cmpint (g_unlink (wrapper), ==, 0);
  g_clear_object (&chrome);
  chrome = lookup (f, LUMO_BROWSER_SCOPE_USER, "chrome");
  g_assert_cmpint (lumo_browser_get_status (chrome), ==, LUMO_BROWSER_STATUS_MANIFEST_STALE);
  g_assert_cmpint (lumo_browser_get_stale_flags (chrome), ==, LUMO_BROWSER_STALE_WRAPPER);
  g_assert_cmpuint (lumo_browser_integration_refresh_stale (f->integration, &error), ==, 1);
  g_assert_no_error (error);
  g_assert_true (g_file_test (wrapper, G_FILE_TEST_IS_EXECUTABLE));

  /* A Flatpak browser's folder is out of our sandbox's reach: say how. */
  flatpak_chromium = lookup (f, LUMO_BROWSER_SCOPE_USER, "chromium-flatpak");
  g_assert_cmpstr (lumo_browser_get_fix_command (flatpak_chromium), ==,
                   "flatpak run --filesystem=~/.var/app/org.chromium.Chromium/config/chromium/"
                   "NativeMessagingHosts:create --command=lumo-access-ctl dev.lumo.Access "
                   "install-manifest --browser chromium-flatpak && flatpak override --user "
                   "--talk-name=org.freedesktop.Flatpak org.chromium.Chromium");

  /* With that run's extra permission, the wrapper goes through both sandboxes. */
  lumo_test_mkdir_in (f->home, ".var/app/org.chromium.Chromium/config/chromium");
  g_clear_object (&flatpak_chromium);
  flatpak_chromium = lookup (f, LUMO_BROWSER_SCOPE_USER, "chromium-flatpak");
  lumo_browser_integration_install (f->integration, flatpak_chromium, &error);
  g_assert_no_error (error);
  g_clear_pointer (&output, g_free);
  {
    const char *path = lumo_browser_get_manifest_path (flatpak_chromium);
    g_autoptr(JsonObject) object = read_manifest (path);

    output = run_wrapper (f, json_object_get_string_member (object, "path"));
  }
  g_assert_cmpstr (output, ==, "flatpak-spawn --host flatpak run --command=lumo-access-host "
                   "dev.lumo.Access " TEST_PROVIDER_ORIGIN);

  /* Removing every user manifest also removes the shared wrapper. */
  lumo_browser_integration_remove_all (f->integration, LUMO_BROWSER_SCOPE_USER, &error);
  g_assert_no_error (error);
  g_assert_false (g_file_test (wrapper, G_FILE_TEST_EXISTS));

  /* No system-wide install from inside the sandbox, and a clear reason. */
  system = lookup (f, LUMO_BROWSER_SCOPE_SYSTEM, "chromium");
  g_assert_nonnull (lumo_browser_get_advice (system));
  g_assert_false (lumo_browser_integration_install (f->integration, system, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "Flatpak"));
}

static void
on_notify_cb (GObject    *object,
              GParamSpec *pspec,
              gpointer    user_data)
{
  guint *count = user_data;

  if (g_str_equal (pspec->name, "status"))
    (*count)++;
}

static void
test_status_notifies (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(LumoBrowser) browser = NULL;
  g_autoptr(GError) error = NULL;
  LumoBrowserStatus status;
  guint count = 0;

  lumo_test_mkdir_in (f->home, ".config/BraveSoftware/Brave-Browser-Beta");
  browser = lookup (f, LUMO_BROWSER_SCOPE_USER, "brave-beta");
  g_signal_connect (browser, "notify", G_CALLBACK (on_notify_cb), &count);

  lumo_browser_integration_install (f->integration, browser, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (count, ==, 1);
  g_object_get (browser, "status", &status, NULL);
  g_assert_cmpint (status, ==, LUMO_BROWSER_STATUS_OK);

  /* Writing the same again is not a change. */
  lumo_browser_integration_install (f->integration, browser, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (count, ==, 1);
}

/* Installing before the providers are known would write a manifest that
 * lets nobody in: a programmer error, refused loudly, nothing written. */
static void
test_requires_providers (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *root = lumo_test_dir_new ("browser");
  g_autofree char *chrome = g_build_filename (root, ".config/google-chrome", NULL);
  g_autoptr(LumoBrowserIntegration) integration = lumo_browser_integration_new (root, root);
  g_autoptr(LumoBrowser) browser = NULL;

  g_assert_no_error (error);
  g_assert_cmpint (g_mkdir_with_parents (chrome, 0700), ==, 0);
  lumo_browser_integration_set_flatpak_app_id (integration, NULL);
  browser = lumo_browser_integration_lookup (integration, LUMO_BROWSER_SCOPE_USER, "chrome",
                                             NULL);

  g_test_expect_message ("lumo-browser-integration", G_LOG_LEVEL_CRITICAL, "*ids_set*");
  g_assert_false (lumo_browser_integration_install (integration, browser, &error));
  g_test_assert_expected_messages ();
  g_test_expect_message ("lumo-browser-integration", G_LOG_LEVEL_CRITICAL, "*ids_set*");
  g_assert_cmpuint (lumo_browser_integration_refresh_stale (integration, &error), ==, 0);
  g_test_assert_expected_messages ();
  g_assert_no_error (error);
  g_assert_false (g_file_test (lumo_browser_get_directory (browser), G_FILE_TEST_EXISTS));

  lumo_test_dir_remove (root);
}

static void
test_environment_config_dir (void)
{
  g_autoptr(LumoBrowserIntegration) explicit_home = NULL;
  g_autoptr(LumoBrowserIntegration) from_env = NULL;
  g_autofree char *old = g_strdup (g_getenv ("XDG_CONFIG_HOME"));

  /* An explicit home wins; without one, XDG_CONFIG_HOME as the browsers
   * themselves read it. */
  g_setenv ("XDG_CONFIG_HOME", "/elsewhere/config", TRUE);
  explicit_home = lumo_browser_integration_new ("/home/someone", NULL);
  from_env = lumo_browser_integration_new (NULL, NULL);
  if (old != NULL)
    g_setenv ("XDG_CONFIG_HOME", old, TRUE);
  else
    g_unsetenv ("XDG_CONFIG_HOME");

  g_assert_cmpstr (lumo_browser_integration_get_config_dir (explicit_home), ==,
                   "/home/someone/.config");
  g_assert_cmpstr (lumo_browser_integration_get_system_root (explicit_home), ==, "/");
  if (lumo_browser_integration_get_flatpak_app_id (from_env) == NULL)
    g_assert_cmpstr (lumo_browser_integration_get_config_dir (from_env), ==,
                     "/elsewhere/config");
  g_assert_true (g_str_has_suffix (lumo_browser_integration_get_host_path (from_env),
                                   "/lumo-access-host"));
  g_assert_true (g_path_is_absolute (lumo_browser_integration_get_host_path (from_env)));
}

/* The one "does the helper exist" rule of the app, the CLI and the
 * start-up refresh: an executable file at the host path, or a Flatpak,
 * whose manifests start a wrapper instead. */
static void
test_check_host (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *helper = g_build_filename (f->root, "lumo-access-host", NULL);
  g_autoptr(GError) error = NULL;

  /* The fixture's HOST_PATH does not exist here. */
  g_assert_false (lumo_browser_integration_check_host (f->integration, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, HOST_PATH));
  g_clear_error (&error);

  /* A file that cannot be run is no helper. */
  lumo_test_write_in (f->root, "lumo-access-host", "#!/bin/sh\n");
  g_assert_cmpint (g_chmod (helper, 0644), ==, 0);
  lumo_browser_integration_set_host_path (f->integration, helper);
  g_assert_false (lumo_browser_integration_check_host (f->integration, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND);
  g_clear_error (&error);

  g_assert_cmpint (g_chmod (helper, 0755), ==, 0);
  g_assert_true (lumo_browser_integration_check_host (f->integration, &error));
  g_assert_no_error (error);

  /* Sandboxed, the manifests start the wrapper: the path inside does not
   * matter. */
  lumo_browser_integration_set_host_path (f->integration, HOST_PATH);
  lumo_browser_integration_set_flatpak_app_id (f->integration, "dev.lumo.Access");
  g_assert_true (lumo_browser_integration_check_host (f->integration, &error));
  g_assert_no_error (error);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)

  ADD ("/browser-integration/layout/none", test_layout_none);
  ADD ("/browser-integration/layout/chrome-only", test_layout_chrome_only);
  ADD ("/browser-integration/layout/all-five", test_layout_all_five);
  ADD ("/browser-integration/layout/flatpak-chromium", test_layout_flatpak_chromium);
  ADD ("/browser-integration/stale/wrong-path", test_stale_wrong_path);
  ADD ("/browser-integration/stale/missing-origin", test_stale_missing_origin);
  ADD ("/browser-integration/stale/invalid", test_stale_invalid);
  ADD ("/browser-integration/bad-extension-ids", test_bad_extension_ids);
  ADD ("/browser-integration/no-providers", test_no_providers);
  ADD ("/browser-integration/system-scope", test_system_scope);
  ADD ("/browser-integration/sandboxed-app", test_sandboxed_app);
  ADD ("/browser-integration/status-notifies", test_status_notifies);
  ADD ("/browser-integration/check-host", test_check_host);
  g_test_add_func ("/browser-integration/read-only", test_read_only);
  g_test_add_func ("/browser-integration/requires-providers", test_requires_providers);
  g_test_add_func ("/browser-integration/environment-config-dir", test_environment_config_dir);

#undef ADD

  return g_test_run ();
}
