/* test-first-run.c — the set-up the Requests page shows until a provider connected
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A fresh machine: a fake home with no browser folder, a fake system root,
 * and on a fake PATH the launcher of a Chromium that never ran; the
 * provider extension installed in a folder of the fixture; the helper a
 * stand-in. The window must show the three steps with their state, set a
 * browser up and remove it again, copy the extension's path, and give way
 * to the requests by itself when a provider says hello — for good.
 */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "app-test-provider.h"
#include "app-test-util.h"
#include "lumo-browser-integration.h"
#include "lumo-browser-setup.h"
#include "lumo-first-run.h"
#include "lumo-format.h"

typedef struct
{
  AppFixture  app;
  char       *home;
  char       *sysroot;
  char       *bin;
  char       *extension;   /* the installed extension's folder */
} Fixture;

static LumoRequestsPage *
requests_page (Fixture *f)
{
  return _lumo_window_get_requests_page (f->app.window);
}

static LumoFirstRun *
first_run (Fixture *f)
{
  return lumo_requests_page_get_first_run (requests_page (f));
}

static LumoBrowsersGroup *
browsers (Fixture *f)
{
  return lumo_first_run_get_browsers (first_run (f));
}

static const char *
visible_page (Fixture *f)
{
  GtkWidget *stack = app_test_find_widget (GTK_WIDGET (requests_page (f)), GTK_TYPE_STACK, 0);

  return gtk_stack_get_visible_child_name (GTK_STACK (stack));
}

static gboolean
idle_cb (gpointer data)
{
  return !lumo_first_run_get_busy (data);
}

static void
wait_idle (Fixture *f)
{
  lumo_test_wait_until (idle_cb, first_run (f), "the set-up to look at the browsers and the extension");
}

static char *
manifest_path (Fixture *f)
{
  g_autofree char *name = g_strconcat (lumo_browser_integration_get_host_name (), ".json", NULL);

  return g_build_filename (f->home, ".config", "chromium", "NativeMessagingHosts", name, NULL);
}

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  g_autofree char *chromium = NULL;
  const char *search_path[2] = { NULL, NULL };

  app_fixture_setup (&f->app, GINT_TO_POINTER (TRUE));

  f->home = g_build_filename (f->app.dir, "home", NULL);
  f->sysroot = g_build_filename (f->app.dir, "sysroot", NULL);
  f->bin = g_build_filename (f->app.dir, "bin", NULL);
  f->extension = g_build_filename (f->app.dir, "share", "lumo-access", "extension", NULL);
  lumo_test_mkdir_in (f->app.dir, "home");
  lumo_test_mkdir_in (f->app.dir, "sysroot");

  /* Installed, never started: a launcher on PATH and no ~/.config/chromium. */
  lumo_test_write_in (f->app.dir, "bin/chromium", "#!/bin/sh\nexit 0\n");
  chromium = g_build_filename (f->bin, "chromium", NULL);
  g_assert_cmpint (g_chmod (chromium, 0755), ==, 0);

  lumo_test_write_in (f->extension, "manifest.json",
                      "{\"manifest_version\": 3, \"name\": \"Lumo Userscripts\", \"version\": \"0.1.0\"}");

  search_path[0] = f->bin;
  _lumo_window_set_browser_locations (f->app.window, f->home, f->sysroot, search_path);
  lumo_first_run_set_extension_dir (first_run (f), f->extension);
  wait_idle (f);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  app_fixture_teardown (&f->app, NULL);
  g_free (f->home);
  g_free (f->sysroot);
  g_free (f->bin);
  g_free (f->extension);
}

static void
test_three_steps (Fixture       *f,
                  gconstpointer  data)
{
  GtkWidget *page = GTK_WIDGET (first_run (f));
  const char * const *bundled = lumo_browser_setup_get_bundled_ids ();
  GtkWidget *row;

  g_assert_cmpstr (visible_page (f), ==, "setup");
  g_assert_false (lumo_requests_page_get_set_up (requests_page (f)));

  /* 1: the never-started Chromium, to install. */
  row = lumo_browsers_group_get_row (browsers (f), "chromium");
  g_assert_nonnull (row);
  g_assert_cmpstr (app_test_row_subtitle (row), ==, "Not set up: the browser cannot start Lumo Access");
  g_assert_nonnull (app_test_find_button_with_label (row, "_Install"));
  g_assert_null (app_test_find_button_with_label (row, "_Remove"));
  g_assert_cmpuint (lumo_browsers_group_get_n_found (browsers (f)), ==, 1);
  g_assert_cmpstr (lumo_first_run_get_step_state (first_run (f), 1), ==,
                   "Set up the browsers you use: each gets a small file in its settings folder that lets it start Lumo Access.");

  /* 2: where the extension is, and how to load it. */
  g_assert_cmpstr (lumo_first_run_get_extension_path (first_run (f)), ==, f->extension);
  g_assert_cmpstr (lumo_first_run_get_step_state (first_run (f), 2), ==,
                   "Lumo Userscripts 0.1.0 is in this folder. Load it into each browser you set up.");
  g_assert_true (app_test_any_text_contains (page, f->extension));
  g_assert_true (app_test_any_text_contains (page, "Turn on Developer mode"));
  g_assert_true (app_test_any_text_contains (page, "Click Load unpacked and choose the folder above."));
  g_assert_true (gtk_widget_is_sensitive (app_test_find_button_with_label (page, "_Open Folder")));
  g_assert_true (gtk_widget_is_sensitive (app_test_find_button_with_label (page, "_Copy Path")));
  /* The managed route, with the bundled extension's ID. */
  g_assert_true (app_test_any_text_contains (page, "ExtensionInstallForcelist"));
  g_assert_true (app_test_any_text_contains (page, "docs/install.md"));
  if (bundled[0] != NULL)
    g_assert_true (app_test_any_text_contains (page, bundled[0]));

  /* 3: waiting. */
  g_assert_true (g_str_has_prefix (lumo_first_run_get_step_state (first_run (f), 3),
                                   "Waiting for the provider extension."));
}

static void
test_install_and_remove (Fixture       *f,
                         gconstpointer  data)
{
  g_autofree char *manifest = manifest_path (f);
  GtkWidget *row = lumo_browsers_group_get_row (browsers (f), "chromium");

  app_test_click (app_test_find_button_with_label (row, "_Install"));
  wait_idle (f);
  g_assert_true (g_file_test (manifest, G_FILE_TEST_IS_REGULAR));
  row = lumo_browsers_group_get_row (browsers (f), "chromium");
  g_assert_cmpstr (app_test_row_subtitle (row), ==, "Set up");
  g_assert_null (app_test_find_button_with_label (row, "_Install"));
  g_assert_cmpstr (lumo_first_run_get_step_state (first_run (f), 1), ==, "1 of 1 browser is set up.");

  app_test_click (app_test_find_button_with_label (row, "_Remove"));
  wait_idle (f);
  g_assert_false (g_file_test (manifest, G_FILE_TEST_EXISTS));
  row = lumo_browsers_group_get_row (browsers (f), "chromium");
  g_assert_nonnull (app_test_find_button_with_label (row, "_Install"));
  g_assert_cmpstr (lumo_first_run_get_step_state (first_run (f), 1), ==,
                   "Set up the browsers you use: each gets a small file in its settings folder that lets it start Lumo Access.");
}

static void
test_copy_path (Fixture       *f,
                gconstpointer  data)
{
  GdkClipboard *clipboard = gtk_widget_get_clipboard (GTK_WIDGET (f->app.window));
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  gdk_clipboard_set_text (clipboard, "something else");
  app_test_click (app_test_find_button_with_label (GTK_WIDGET (first_run (f)), "_Copy Path"));

  gdk_clipboard_read_text_async (clipboard, NULL, lumo_test_keep_result_cb, &result);
  lumo_test_wait_until (lumo_test_is_set, &result, "the clipboard's text");
  text = gdk_clipboard_read_text_finish (clipboard, result, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (text, ==, f->extension);
}

/* The file manager main() registers for folders (see there) writes
 * what it was asked to open into this file. */
static char *opened_file;

static gboolean
folder_opened (gpointer data)
{
  return g_file_test (opened_file, G_FILE_TEST_IS_REGULAR);
}

/* Open Folder hands the extension's folder to the desktop's handler of
 * folders. */
static void
test_open_folder (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(GFile) folder = g_file_new_for_path (f->extension);
  g_autoptr(GFile) handed = NULL;
  g_autofree char *opened = NULL;
  g_autoptr(GError) error = NULL;

  g_remove (opened_file);
  app_test_click (app_test_find_button_with_label (GTK_WIDGET (first_run (f)), "_Open Folder"));
  lumo_test_wait_until (folder_opened, NULL, "the file manager to be asked to open the folder");

  /* Written whole by the handler before it exits; read until it is. */
  g_assert_true (g_file_get_contents (opened_file, &opened, NULL, &error));
  g_assert_no_error (error);
  /* A URI or, as GIO hands a local file to %u, its path. */
  handed = g_file_new_for_commandline_arg (g_strchomp (opened));
  g_assert_true (g_file_equal (handed, folder));
}

/* Installed without the extension (not built), or a folder that holds
 * something else: the step says so, and there is no path to copy. */
static void
test_extension_missing (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *missing = g_build_filename (f->app.dir, "nowhere", NULL);
  g_autofree char *manifest = g_build_filename (f->extension, "manifest.json", NULL);
  GtkWidget *page = GTK_WIDGET (first_run (f));
  GtkWidget *copy = app_test_find_button_with_label (page, "_Copy Path");
  GdkClipboard *clipboard = gtk_widget_get_clipboard (GTK_WIDGET (f->app.window));
  g_autoptr(GAsyncResult) result = NULL;
  g_autofree char *text = NULL;

  lumo_first_run_set_extension_dir (first_run (f), missing);
  wait_idle (f);
  g_assert_null (lumo_first_run_get_extension_path (first_run (f)));
  g_assert_true (g_str_has_prefix (lumo_first_run_get_step_state (first_run (f), 2),
                                   "The provider extension is not installed in "));
  g_assert_nonnull (strstr (lumo_first_run_get_step_state (first_run (f), 2), missing));
  g_assert_nonnull (strstr (lumo_first_run_get_step_state (first_run (f), 2), "npm run build"));
  g_assert_false (gtk_widget_is_sensitive (copy));
  g_assert_false (gtk_widget_is_sensitive (app_test_find_button_with_label (page, "_Open Folder")));

  /* Nothing is copied. */
  gdk_clipboard_set_text (clipboard, "untouched");
  gtk_widget_activate_action (page, "first-run.copy-path", NULL);
  gdk_clipboard_read_text_async (clipboard, NULL, lumo_test_keep_result_cb, &result);
  lumo_test_wait_until (lumo_test_is_set, &result, "the clipboard's text");
  text = gdk_clipboard_read_text_finish (clipboard, result, NULL);
  g_assert_cmpstr (text, ==, "untouched");

  /* A manifest that is not an extension's. */
  g_assert_true (g_file_set_contents (manifest, "{\"name\": \"x\"}", -1, NULL));
  lumo_first_run_set_extension_dir (first_run (f), f->extension);
  wait_idle (f);
  g_assert_null (lumo_first_run_get_extension_path (first_run (f)));
  g_assert_true (g_str_has_prefix (lumo_first_run_get_step_state (first_run (f), 2),
                                   "The folder of the provider extension cannot be used: "));
  g_assert_nonnull (strstr (lumo_first_run_get_step_state (first_run (f), 2), "manifest_version"));

  /* Built and installed meanwhile: looking again finds it. */
  g_assert_true (g_file_set_contents (manifest, "{\"manifest_version\": 3, \"name\": \"Lumo Userscripts\", "
                                      "\"version\": \"0.2.0\"}", -1, NULL));
  lumo_first_run_refresh (first_run (f));
  wait_idle (f);
  g_assert_cmpstr (lumo_first_run_get_extension_path (first_run (f)), ==, f->extension);
  g_assert_nonnull (strstr (lumo_first_run_get_step_state (first_run (f), 2), "0.2.0"));
  g_assert_true (gtk_widget_is_sensitive (copy));
}

static void
test_no_browser (Fixture       *f,
                 gconstpointer  data)
{
  const char *nothing[] = { NULL };

  _lumo_window_set_browser_locations (f->app.window, f->home, f->sysroot, nothing);
  wait_idle (f);
  g_assert_cmpuint (lumo_browsers_group_get_n_found (browsers (f)), ==, 0);
  g_assert_true (g_str_has_prefix (lumo_first_run_get_step_state (first_run (f), 1),
                                   "No supported browser was found."));
  g_assert_null (lumo_browsers_group_get_row (browsers (f), "chromium"));
}

static gboolean
set_up_cb (gpointer data)
{
  return lumo_requests_page_get_set_up (data);
}

/* Step 3 needs no click: the first hello ends the set-up, and it stays
 * ended for the next start of the app. A provider watched by hand, which
 * never said hello, does not end it. */
static void
test_completes_by_itself (Fixture       *f,
                          gconstpointer  data)
{
  g_autoptr(AppTestProvider) provider = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(LumoPolicy) policy = NULL;
  g_autoptr(LumoBackend) backend = NULL;
  g_autofree char *policy_path = g_build_filename (f->app.dir, "policy.db", NULL);
  LumoWindow *window;

  g_assert_true (lumo_policy_add_provider (f->app.policy, TEST_PROVIDER2_ID, LUMO_POLICY_ORIGIN_UI,
                                           &error));
  app_test_iterate ();
  g_assert_cmpstr (visible_page (f), ==, "setup");

  provider = app_test_provider_connect (f->app.backend, TEST_PROVIDER_ID);
  app_test_provider_hello (provider);
  lumo_test_wait_until (set_up_cb, requests_page (f), "the set-up to end at the first hello");
  g_assert_cmpstr (visible_page (f), ==, "empty");

  /* The next start: another policy on the same file, another window. */
  policy = lumo_policy_new (policy_path, &error);
  g_assert_no_error (error);
  backend = lumo_backend_new (policy, f->app.audit, f->app.queue);
  window = g_object_ref_sink (lumo_window_new (app_test_get_application (), backend, NULL));
  app_test_iterate ();
  g_assert_true (lumo_requests_page_get_set_up (_lumo_window_get_requests_page (window)));
  {
    GtkWidget *stack = app_test_find_widget (GTK_WIDGET (_lumo_window_get_requests_page (window)),
                                             GTK_TYPE_STACK, 0);

    g_assert_cmpstr (gtk_stack_get_visible_child_name (GTK_STACK (stack)), ==, "empty");
  }
  gtk_window_destroy (GTK_WINDOW (window));
  g_object_unref (window);
  app_test_iterate ();
}

/* The folder reads as GNOME shows paths ("~/…"), at a separator only. */
static void
test_format_path (void)
{
  const char *home = g_get_home_dir ();
  g_autofree char *inside = g_build_filename (home, ".local", "share", NULL);
  g_autofree char *sibling = g_strconcat (home, "x", NULL);
  g_autofree char *shown = lumo_format_path (inside);
  g_autofree char *shown_home = lumo_format_path (home);
  g_autofree char *shown_sibling = lumo_format_path (sibling);
  g_autofree char *shown_other = lumo_format_path ("/usr/share/lumo-access/extension");

  if (g_strcmp0 (home, "/") == 0)
    {
      g_test_skip ("the home folder is /");
      return;
    }
  g_assert_cmpstr (shown, ==, "~/.local/share");
  g_assert_cmpstr (shown_home, ==, "~");
  g_assert_cmpstr (shown_sibling, ==, sibling);
  g_assert_cmpstr (shown_other, ==, "/usr/share/lumo-access/extension");
}

int
main (int   argc,
      char *argv[])
{
  char *helper_path = app_test_fake_helper_new ("first-run-test");
  int ret;

  g_autofree char *apps_dir = lumo_test_dir_new ("first-run-apps");
  g_autofree char *applications = g_build_filename (apps_dir, "applications", NULL);
  g_autofree char *opened_tmp = NULL;
  g_autofree char *desktop = NULL;
  g_autofree char *data_dirs = NULL;

  /* A file manager of the test's own, the default for folders: it writes
   * the URI it is given to opened_file (through a temporary name, so a
   * half-written file is never seen); the configuration is this folder's
   * only. */
  opened_file = g_build_filename (apps_dir, "opened", NULL);
  opened_tmp = g_strconcat (opened_file, ".tmp", NULL);
  desktop = g_strdup_printf ("[Desktop Entry]\nType=Application\nName=Test Files\n"
                             "Exec=sh -c 'printf \"%%%%s\\\\n\" \"$1\" > %s && mv %s %s' sh %%u\n"
                             "MimeType=inode/directory;\nNoDisplay=true\n",
                             opened_tmp, opened_tmp, opened_file);
  lumo_test_write_in (applications, "lumo-test-files.desktop", desktop);
  lumo_test_write_in (apps_dir, "mimeapps.list",
                      "[Default Applications]\ninode/directory=lumo-test-files.desktop\n");
  /* The system's data directories stay after it (GSettings schemas),
   * but the default above is the first one read. */
  data_dirs = g_strconcat (apps_dir, ":", g_getenv ("XDG_DATA_DIRS") != NULL ? g_getenv ("XDG_DATA_DIRS")
                                                                        : "/usr/local/share:/usr/share", NULL);
  g_setenv ("XDG_DATA_HOME", apps_dir, TRUE);
  g_setenv ("XDG_DATA_DIRS", data_dirs, TRUE);
  g_setenv ("XDG_CONFIG_HOME", apps_dir, TRUE);
  g_setenv ("XDG_CONFIG_DIRS", apps_dir, TRUE);
  g_unsetenv ("XDG_CURRENT_DESKTOP");

  gtk_test_init (&argc, &argv, NULL);
  app_test_init_application ();

#define ADD(path, func) \
  g_test_add ("/first-run/" path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("three-steps", test_three_steps);
  ADD ("install-and-remove", test_install_and_remove);
  ADD ("copy-path", test_copy_path);
  ADD ("open-folder", test_open_folder);
  ADD ("extension-missing", test_extension_missing);
  ADD ("no-browser", test_no_browser);
  ADD ("completes-by-itself", test_completes_by_itself);
#undef ADD
  g_test_add_func ("/first-run/format-path", test_format_path);

  ret = g_test_run ();
  app_test_fake_helper_remove (helper_path);
  lumo_test_dir_remove (apps_dir);
  g_free (opened_file);
  return ret;
}
