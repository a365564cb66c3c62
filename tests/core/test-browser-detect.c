/* test-browser-detect.c — finding browsers that never ran
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A browser creates its settings folder at its first start, so a fresh
 * machine with Chromium installed has none: the integration must also find
 * it by its program (a launcher on the search path, or the executable
 * where its package puts it) and a Flatpak browser by its installation.
 * Each test builds a fake home, system root and search path in a temporary
 * directory and checks the status and what showed the browser is there.
 */
#include "config.h"

#include <glib/gstdio.h>

#include "lumo-browser-integration.h"
#include "lumo-test.h"

#define HOST_PATH "/opt/lumo/libexec/lumo-access-host"

typedef struct
{
  char                   *root;     /* everything below is inside */
  char                   *home;
  char                   *system;
  char                   *bin;      /* the fake search path's one folder */
  LumoBrowserIntegration *integration;
} Fixture;

static LumoBrowserIntegration *
new_integration (Fixture *f)
{
  const char *ids[] = { TEST_PROVIDER_ID, NULL };
  const char *search_path[] = { f->bin, NULL };
  g_autoptr(GError) error = NULL;
  LumoBrowserIntegration *integration = lumo_browser_integration_new (f->home, f->system);

  lumo_browser_integration_set_flatpak_app_id (integration, NULL);
  lumo_browser_integration_set_host_path (integration, HOST_PATH);
  lumo_browser_integration_set_search_path (integration, search_path);
  lumo_browser_integration_set_extension_ids (integration, ids, &error);
  g_assert_no_error (error);
  return integration;
}

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  f->root = lumo_test_dir_new ("browser-detect");
  f->home = g_build_filename (f->root, "home", NULL);
  f->system = g_build_filename (f->root, "sysroot", NULL);
  f->bin = g_build_filename (f->root, "bin", NULL);
  lumo_test_mkdir_in (f->root, "home");
  lumo_test_mkdir_in (f->root, "sysroot");
  lumo_test_mkdir_in (f->root, "bin");
  f->integration = new_integration (f);
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
  g_free (f->bin);
}

/* @base/@relative as a file with @mode; returns its path. */
static char *
make_file (const char *base,
           const char *relative,
           int         mode)
{
  char *path = g_build_filename (base, relative, NULL);

  lumo_test_write_in (base, relative, "#!/bin/sh\nexit 0\n");
  g_assert_cmpint (g_chmod (path, mode), ==, 0);
  return path;
}

static LumoBrowser *
lookup (Fixture    *f,
        const char *id)
{
  g_autoptr(GError) error = NULL;
  LumoBrowser *browser = lumo_browser_integration_lookup (f->integration, LUMO_BROWSER_SCOPE_USER,
                                                          id, &error);

  g_assert_no_error (error);
  return browser;
}

static void
assert_found (Fixture    *f,
              const char *id,
              const char *found_at)
{
  g_autoptr(LumoBrowser) browser = lookup (f, id);

  g_test_message ("%s: found at %s", id, lumo_browser_get_found_at (browser));
  g_assert_cmpint (lumo_browser_get_status (browser), ==, LUMO_BROWSER_STATUS_MANIFEST_MISSING);
  g_assert_cmpstr (lumo_browser_get_found_at (browser), ==, found_at);
}

static void
assert_not_found (Fixture    *f,
                  const char *id)
{
  g_autoptr(LumoBrowser) browser = lookup (f, id);

  g_assert_cmpint (lumo_browser_get_status (browser), ==, LUMO_BROWSER_STATUS_NOT_INSTALLED);
  g_assert_null (lumo_browser_get_found_at (browser));
}

/* Debian's Chromium, installed and never started: /usr/bin/chromium on
 * PATH, no ~/.config/chromium. */
static void
test_launcher_on_search_path (Fixture       *f,
                              gconstpointer  data)
{
  g_autofree char *chromium = make_file (f->bin, "chromium", 0755);
  g_autofree char *brave = make_file (f->bin, "brave-browser-stable", 0755);
  g_autofree char *config = g_build_filename (f->home, ".config", NULL);
  g_autoptr(GPtrArray) browsers = lumo_browser_integration_scan (f->integration,
                                                                 LUMO_BROWSER_SCOPE_USER);
  guint n_found = 0;

  assert_found (f, "chromium", chromium);
  assert_found (f, "brave", brave);
  /* Looking writes nothing. */
  g_assert_false (g_file_test (config, G_FILE_TEST_EXISTS));

  /* Nothing else: not Chrome, not the Flatpak Chromium. */
  for (guint i = 0; i < browsers->len; i++)
    n_found += lumo_browser_get_status (browsers->pdata[i]) != LUMO_BROWSER_STATUS_NOT_INSTALLED;
  g_assert_cmpuint (n_found, ==, 2);
  assert_not_found (f, "chrome");
  assert_not_found (f, "chromium-flatpak");
}

/* Only an executable file is a program: a file without the x bit, or a
 * folder of that name, is not a browser. */
static void
test_not_a_program (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *chromium = make_file (f->bin, "chromium", 0644);

  lumo_test_mkdir_in (f->bin, "google-chrome");
  lumo_test_mkdir_in (f->system, "usr/lib/chromium/chromium");
  assert_not_found (f, "chromium");
  assert_not_found (f, "chrome");
}

/* Where the packages put the executable, without anything on the search
 * path (a browser started from its desktop file only). */
static void
test_known_install_locations (Fixture       *f,
                              gconstpointer  data)
{
  g_autofree char *chromium = make_file (f->system, "usr/lib/chromium/chromium", 0755);
  g_autofree char *fedora = make_file (f->system, "usr/lib64/chromium-browser/chromium-browser",
                                       0755);
  g_autofree char *chrome = make_file (f->system, "opt/google/chrome/chrome", 0755);
  g_autofree char *edge = make_file (f->system, "opt/microsoft/msedge-dev/msedge", 0755);
  g_autofree char *vivaldi = make_file (f->system, "opt/vivaldi/vivaldi-bin", 0755);

  /* The first location of the table wins, so Debian's path is shown. */
  assert_found (f, "chromium", chromium);
  assert_found (f, "chrome", chrome);
  assert_found (f, "edge-dev", edge);
  assert_found (f, "vivaldi", vivaldi);
  assert_not_found (f, "edge");
  assert_not_found (f, "chrome-beta");
}

/* A Flatpak browser installed (system-wide or for the user) and never
 * run has no ~/.var/app folder yet. */
static void
test_flatpak_installation (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *system_app = g_build_filename (f->system, "var/lib/flatpak/app",
                                                  "org.chromium.Chromium", NULL);
  g_autofree char *user_app = g_build_filename (f->home, ".local/share/flatpak/app",
                                                "com.brave.Browser", NULL);
  g_autoptr(LumoBrowser) chromium = NULL;

  lumo_test_mkdir_in (f->system, "var/lib/flatpak/app/org.chromium.Chromium");
  lumo_test_mkdir_in (f->home, ".local/share/flatpak/app/com.brave.Browser");
  assert_found (f, "chromium-flatpak", system_app);
  assert_found (f, "brave-flatpak", user_app);
  assert_not_found (f, "edge-flatpak");
  /* The Flatpak is not the native browser. */
  assert_not_found (f, "chromium");
  assert_not_found (f, "brave");

  /* Its advice (what it needs to start the helper) applies already. */
  chromium = lookup (f, "chromium-flatpak");
  g_assert_nonnull (lumo_browser_get_advice (chromium));
}

/* A browser that ran is shown by its folder, whatever else is there. */
static void
test_folder_first (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *chromium = make_file (f->bin, "chromium", 0755);
  g_autofree char *folder = g_build_filename (f->home, ".config", "chromium", NULL);

  lumo_test_mkdir_in (f->home, ".config/chromium");
  assert_found (f, "chromium", folder);
}

/* Set Up All includes the never-started browser: its folder is made with
 * the manifest, and it is then set up. */
static void
test_install_never_started (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *chromium = make_file (f->bin, "chromium", 0755);
  g_autofree char *hosts = g_build_filename (f->home, ".config", "chromium", "NativeMessagingHosts",
                                             NULL);
  g_autoptr(LumoBrowser) browser = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_cmpuint (lumo_browser_integration_install_detected (f->integration,
                                                               LUMO_BROWSER_SCOPE_USER, &error),
                    ==, 1);
  g_assert_no_error (error);
  g_assert_true (g_file_test (hosts, G_FILE_TEST_IS_DIR));

  browser = lookup (f, "chromium");
  g_assert_cmpint (lumo_browser_get_status (browser), ==, LUMO_BROWSER_STATUS_OK);

  /* Removed again, it is still installed: the program is still there. */
  g_assert_true (lumo_browser_integration_remove (f->integration, browser, &error));
  g_assert_no_error (error);
  g_assert_cmpint (lumo_browser_get_status (browser), ==, LUMO_BROWSER_STATUS_MANIFEST_MISSING);
}

/* Relative entries (an empty PATH element means the current folder) are
 * no place a browser is installed; NULL empties the path. */
static void
test_search_path_entries (Fixture       *f,
                          gconstpointer  data)
{
  const char *dirs[] = { "", ".", "bin", f->bin, NULL };
  const char * const *kept;
  g_autofree char *cwd = g_get_current_dir ();
  g_autofree char *chromium = make_file (f->bin, "chromium", 0755);

  lumo_browser_integration_set_search_path (f->integration, dirs);
  kept = lumo_browser_integration_get_search_path (f->integration);
  g_assert_cmpuint (g_strv_length ((char **) kept), ==, 1);
  g_assert_cmpstr (kept[0], ==, f->bin);

  /* Even from inside the fake bin, a relative entry finds nothing. */
  g_assert_cmpint (g_chdir (f->bin), ==, 0);
  lumo_browser_integration_set_search_path (f->integration, (const char *[]) { ".", NULL });
  assert_not_found (f, "chromium");
  g_assert_cmpint (g_chdir (cwd), ==, 0);

  lumo_browser_integration_set_search_path (f->integration, NULL);
  g_assert_null (lumo_browser_integration_get_search_path (f->integration)[0]);
  assert_not_found (f, "chromium");
}

/* Without an explicit home the environment is the user's: $PATH is the
 * search path. With one (tests, an admin preparing another account) it is
 * empty until set, like XDG_CONFIG_HOME. */
static void
test_search_path_default (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *old = g_strdup (g_getenv ("PATH"));
  g_autofree char *path = g_strconcat ("relative", G_SEARCHPATH_SEPARATOR_S, f->bin,
                                       G_SEARCHPATH_SEPARATOR_S, "/usr/bin", NULL);
  g_autoptr(LumoBrowserIntegration) from_env = NULL;
  g_autoptr(LumoBrowserIntegration) explicit_home = NULL;
  const char * const *dirs;

  g_setenv ("PATH", path, TRUE);
  from_env = lumo_browser_integration_new (NULL, f->system);
  explicit_home = lumo_browser_integration_new (f->home, f->system);
  g_setenv ("PATH", old != NULL ? old : "", TRUE);

  g_assert_null (lumo_browser_integration_get_search_path (explicit_home)[0]);
  dirs = lumo_browser_integration_get_search_path (from_env);
  if (lumo_browser_integration_get_flatpak_app_id (from_env) != NULL)
    {
      g_assert_null (dirs[0]);
      return;
    }
  g_assert_cmpuint (g_strv_length ((char **) dirs), ==, 2);
  g_assert_cmpstr (dirs[0], ==, f->bin);
  g_assert_cmpstr (dirs[1], ==, "/usr/bin");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("/browser-detect/launcher-on-search-path", test_launcher_on_search_path);
  ADD ("/browser-detect/not-a-program", test_not_a_program);
  ADD ("/browser-detect/known-install-locations", test_known_install_locations);
  ADD ("/browser-detect/flatpak-installation", test_flatpak_installation);
  ADD ("/browser-detect/folder-first", test_folder_first);
  ADD ("/browser-detect/install-never-started", test_install_never_started);
  ADD ("/browser-detect/search-path-entries", test_search_path_entries);
  ADD ("/browser-detect/search-path-default", test_search_path_default);
#undef ADD

  return g_test_run ();
}
