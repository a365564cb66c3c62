/* test-browsers.c — the Browsers group: status per browser, install, update
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every test points the group at a fake home in the fixture's directory and
 * the helper at a fake executable, so no real browser folder is written.
 */
#include "config.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "app-test-util.h"
#include "lumo-browser-integration.h"
#include "lumo-providers-page.h"

static char *helper_path;

static LumoBrowsersGroup *
browsers_group (AppFixture *f)
{
  return lumo_providers_page_get_browsers (_lumo_window_get_providers_page (f->window));
}

static gboolean
idle_cb (gpointer data)
{
  return !lumo_browsers_group_get_busy (data);
}

static void
wait_idle (AppFixture *f)
{
  lumo_test_wait_until (idle_cb, browsers_group (f), "the browser job");
}

static char *
make_dir (const char *base,
          const char *relative)
{
  char *path = g_build_filename (base, relative, NULL);

  g_assert_cmpint (g_mkdir_with_parents (path, 0700), ==, 0);
  return path;
}

static char *
manifest_path (const char *browser_dir)
{
  g_autofree char *name = g_strconcat (lumo_browser_integration_get_host_name (), ".json", NULL);

  return g_build_filename (browser_dir, "NativeMessagingHosts", name, NULL);
}

/* A fake home with Chrome (no manifest), Chromium (a stale manifest) and
 * Chromium as a Flatpak, pointed at by the group. Returns the home. */
static char *
setup_home (AppFixture *f)
{
  char *home = make_dir (f->dir, "home");
  g_autofree char *chrome = make_dir (home, ".config/google-chrome");
  g_autofree char *hosts = make_dir (home, ".config/chromium/NativeMessagingHosts");
  g_autofree char *flatpak = make_dir (home, ".var/app/org.chromium.Chromium");
  g_autofree char *chromium = g_path_get_dirname (hosts);
  g_autofree char *stale = manifest_path (chromium);
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;

  contents = g_strdup_printf ("{\"name\":\"%s\",\"description\":\"old\",\"path\":\"/opt/old/lumo-access-host\","
                              "\"type\":\"stdio\",\"allowed_origins\":[\"chrome-extension://%s/\"]}",
                              lumo_browser_integration_get_host_name (), TEST_PROVIDER_ID);
  g_file_set_contents (stale, contents, -1, &error);
  g_assert_no_error (error);

  g_autofree char *sysroot = make_dir (f->dir, "sysroot");

  app_fixture_add_provider (f, TEST_PROVIDER_ID, "Lumo Userscripts");
  wait_idle (f);
  /* A root of its own: this machine's browsers are not the fake home's. */
  _lumo_window_set_browser_locations (f->window, home, sysroot, NULL);
  wait_idle (f);
  return home;
}

static void
assert_manifest (const char *path)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonObject *object;
  JsonArray *origins;
  g_autofree char *origin = g_strdup_printf ("chrome-extension://%s/", TEST_PROVIDER_ID);

  json_parser_load_from_file (parser, path, &error);
  g_assert_no_error (error);
  object = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpstr (json_object_get_string_member (object, "name"), ==,
                   lumo_browser_integration_get_host_name ());
  g_assert_cmpstr (json_object_get_string_member (object, "path"), ==, helper_path);
  origins = json_object_get_array_member (object, "allowed_origins");
  /* The test provider and the bundled ones, if the build names any. */
  g_assert_cmpuint (json_array_get_length (origins), >=, 1);
  {
    gboolean found = FALSE;

    for (guint i = 0; i < json_array_get_length (origins); i++)
      found |= g_str_equal (json_array_get_string_element (origins, i), origin);
    g_assert_true (found);
  }
}

static void
test_rows_show_status (AppFixture    *f,
                       gconstpointer  data)
{
  g_autofree char *home = setup_home (f);
  LumoBrowsersGroup *group = browsers_group (f);
  GtkWidget *chrome = lumo_browsers_group_get_row (group, "chrome");
  GtkWidget *chromium = lumo_browsers_group_get_row (group, "chromium");
  GtkWidget *flatpak = lumo_browsers_group_get_row (group, "chromium-flatpak");

  g_assert_nonnull (chrome);
  g_assert_nonnull (chromium);
  g_assert_nonnull (flatpak);
  /* Browsers that are not there are not listed. */
  g_assert_null (lumo_browsers_group_get_row (group, "brave"));
  g_assert_null (lumo_browsers_group_get_row (group, "edge-flatpak"));

  g_assert_cmpstr (app_test_row_subtitle (chrome), ==, "Not set up: the browser cannot start Lumo Access");
  g_assert_cmpstr (app_test_row_subtitle (chromium), ==, "Out of date: the manifest starts another helper");
  g_assert_cmpstr (app_test_row_subtitle (flatpak), ==, "Not set up: the browser cannot start Lumo Access");
  g_assert_nonnull (app_test_find_button_with_label (chrome, "_Install"));
  g_assert_nonnull (app_test_find_button_with_label (chromium, "_Update"));

  /* The Flatpak browser says what it lacks and offers the command. */
  g_assert_true (app_test_any_text_contains (flatpak, "runs as a Flatpak"));
  g_assert_true (app_test_any_text_contains (flatpak, "flatpak override"));
}

static void
test_install_one (AppFixture    *f,
                  gconstpointer  data)
{
  g_autofree char *home = setup_home (f);
  g_autofree char *chrome_dir = g_build_filename (home, ".config", "google-chrome", NULL);
  g_autofree char *path = manifest_path (chrome_dir);
  GtkWidget *row = lumo_browsers_group_get_row (browsers_group (f), "chrome");

  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  app_test_click (app_test_find_button_with_label (row, "_Install"));
  g_assert_true (lumo_browsers_group_get_busy (browsers_group (f)));
  wait_idle (f);

  assert_manifest (path);
  row = lumo_browsers_group_get_row (browsers_group (f), "chrome");
  g_assert_cmpstr (app_test_row_subtitle (row), ==, "Set up");
  g_assert_null (app_test_find_button_with_label (row, "_Install"));
}

static void
test_update_stale (AppFixture    *f,
                   gconstpointer  data)
{
  g_autofree char *home = setup_home (f);
  g_autofree char *chromium_dir = g_build_filename (home, ".config", "chromium", NULL);
  g_autofree char *path = manifest_path (chromium_dir);
  GtkWidget *row = lumo_browsers_group_get_row (browsers_group (f), "chromium");

  app_test_click (app_test_find_button_with_label (row, "_Update"));
  wait_idle (f);

  assert_manifest (path);
  g_assert_cmpstr (app_test_row_subtitle (lumo_browsers_group_get_row (browsers_group (f), "chromium")), ==,
                   "Set up");
}

static void
test_set_up_all (AppFixture    *f,
                 gconstpointer  data)
{
  g_autofree char *home = setup_home (f);
  g_autofree char *chrome_dir = g_build_filename (home, ".config", "google-chrome", NULL);
  g_autofree char *chromium_dir = g_build_filename (home, ".config", "chromium", NULL);
  g_autofree char *flatpak_dir = g_build_filename (home, ".var", "app", "org.chromium.Chromium",
                                                   "config", "chromium", NULL);
  g_autofree char *chrome = manifest_path (chrome_dir);
  g_autofree char *chromium = manifest_path (chromium_dir);
  g_autofree char *flatpak = manifest_path (flatpak_dir);
  g_autofree char *brave_dir = g_build_filename (home, ".config", "BraveSoftware", NULL);
  GtkWidget *button = app_test_find_button_with_label (GTK_WIDGET (browsers_group (f)),
                                                       "_Set Up All Browsers");

  app_test_click (button);
  wait_idle (f);

  assert_manifest (chrome);
  assert_manifest (chromium);
  /* A Flatpak browser gets its manifest too, naming the host through
   * flatpak-spawn (a wrapper), so only its presence is checked here. */
  g_assert_true (g_file_test (flatpak, G_FILE_TEST_EXISTS));
  /* Never a folder for a browser that is not installed. */
  g_assert_false (g_file_test (brave_dir, G_FILE_TEST_EXISTS));
  g_assert_cmpstr (app_test_row_subtitle (lumo_browsers_group_get_row (browsers_group (f), "chrome")), ==, "Set up");
  g_assert_cmpstr (app_test_row_subtitle (lumo_browsers_group_get_row (browsers_group (f), "chromium")), ==, "Set up");
}

/* Remove takes our manifest away (and only ours), for a set-up browser
 * and for a stale one alike; the browser stays listed, to be set up again. */
static void
test_remove (AppFixture    *f,
             gconstpointer  data)
{
  g_autofree char *home = setup_home (f);
  g_autofree char *chromium_dir = g_build_filename (home, ".config", "chromium", NULL);
  g_autofree char *chrome_dir = g_build_filename (home, ".config", "google-chrome", NULL);
  g_autofree char *chromium = manifest_path (chromium_dir);
  g_autofree char *chrome = manifest_path (chrome_dir);
  g_autofree char *other = g_build_filename (chromium_dir, "NativeMessagingHosts",
                                             "org.example.other.json", NULL);
  GtkWidget *row;

  lumo_test_write_in (chromium_dir, "NativeMessagingHosts/org.example.other.json", "{}");
  /* Not set up: nothing to remove. */
  g_assert_null (app_test_find_button_with_label (lumo_browsers_group_get_row (browsers_group (f), "chrome"),
                                                  "_Remove"));

  /* The stale one. */
  app_test_click (app_test_find_button_with_label (lumo_browsers_group_get_row (browsers_group (f), "chromium"),
                                                   "_Remove"));
  wait_idle (f);
  g_assert_false (g_file_test (chromium, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (other, G_FILE_TEST_EXISTS));
  row = lumo_browsers_group_get_row (browsers_group (f), "chromium");
  g_assert_cmpstr (app_test_row_subtitle (row), ==, "Not set up: the browser cannot start Lumo Access");
  g_assert_nonnull (app_test_find_button_with_label (row, "_Install"));
  g_assert_null (app_test_find_button_with_label (row, "_Remove"));

  /* One set up here, then removed. */
  app_test_click (app_test_find_button_with_label (lumo_browsers_group_get_row (browsers_group (f), "chrome"),
                                                   "_Install"));
  wait_idle (f);
  g_assert_cmpuint (lumo_browsers_group_get_n_set_up (browsers_group (f)), ==, 1);
  app_test_click (app_test_find_button_with_label (lumo_browsers_group_get_row (browsers_group (f), "chrome"),
                                                   "_Remove"));
  wait_idle (f);
  g_assert_false (g_file_test (chrome, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (lumo_browsers_group_get_n_set_up (browsers_group (f)), ==, 0);
  g_assert_cmpuint (lumo_browsers_group_get_n_found (browsers_group (f)), ==, 3);
  g_assert_nonnull (app_test_find_button_with_label (lumo_browsers_group_get_row (browsers_group (f), "chrome"),
                                                     "_Install"));
}

/* The helper the manifest would name must exist: otherwise nothing is
 * written and the row stays as it was. */
static void
test_missing_helper (AppFixture    *f,
                     gconstpointer  data)
{
  g_autofree char *home = setup_home (f);
  g_autofree char *chrome_dir = g_build_filename (home, ".config", "google-chrome", NULL);
  g_autofree char *path = manifest_path (chrome_dir);

  g_assert_cmpint (g_unlink (helper_path), ==, 0);
  app_test_click (app_test_find_button_with_label (lumo_browsers_group_get_row (browsers_group (f), "chrome"),
                                                   "_Install"));
  wait_idle (f);
  g_assert_cmpint (g_file_set_contents (helper_path, "#!/bin/sh\n", -1, NULL), ==, TRUE);
  g_assert_cmpint (g_chmod (helper_path, 0755), ==, 0);

  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_cmpstr (app_test_row_subtitle (lumo_browsers_group_get_row (browsers_group (f), "chrome")), ==,
                   "Not set up: the browser cannot start Lumo Access");
}

int
main (int   argc,
      char *argv[])
{
  int ret;

  helper_path = app_test_fake_helper_new ("browsers-test");

  gtk_test_init (&argc, &argv, NULL);
  app_test_init_application ();

#define ADD(path, func) \
  g_test_add ("/browsers/" path, AppFixture, GINT_TO_POINTER (TRUE), app_fixture_setup, func, app_fixture_teardown)
  ADD ("status", test_rows_show_status);
  ADD ("install", test_install_one);
  ADD ("update-stale", test_update_stale);
  ADD ("set-up-all", test_set_up_all);
  ADD ("remove", test_remove);
  ADD ("missing-helper", test_missing_helper);
#undef ADD

  ret = g_test_run ();
  app_test_fake_helper_remove (helper_path);
  return ret;
}
