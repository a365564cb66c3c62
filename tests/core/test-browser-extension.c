/* test-browser-extension.c — where the installed provider extension is
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The app's set-up shows the folder that `meson install` filled, for Load
 * unpacked: it must name the right one (the environment's override must be
 * absolute; inside the Flatpak the host's name of /app), and say plainly
 * when what is there is not an extension.
 */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "lumo-browser-extension.h"
#include "lumo-browser-private.h"
#include "lumo-error.h"
#include "lumo-test.h"

#define MANIFEST "{\"manifest_version\": 3, \"name\": \"Lumo Userscripts\", \"version\": \"0.1.0\"}"

static void
test_dir (void)
{
  g_autofree char *old = g_strdup (g_getenv ("LUMO_ACCESS_EXTENSION_DIR"));
  g_autofree char *installed = NULL;
  g_autofree char *overridden = NULL;
  g_autofree char *relative = NULL;
  g_autoptr(GError) error = NULL;

  g_unsetenv ("LUMO_ACCESS_EXTENSION_DIR");
  installed = lumo_browser_extension_dup_dir (&error);
  g_assert_no_error (error);
  g_assert_cmpstr (installed, ==, PACKAGE_DATADIR "/extension");

  g_setenv ("LUMO_ACCESS_EXTENSION_DIR", "", TRUE);
  g_clear_pointer (&installed, g_free);
  installed = lumo_browser_extension_dup_dir (&error);
  g_assert_cmpstr (installed, ==, PACKAGE_DATADIR "/extension");

  /* A build tree's extension/dist, written as a person might. */
  g_setenv ("LUMO_ACCESS_EXTENSION_DIR", "/src/lumo/extension/./dist/", TRUE);
  overridden = lumo_browser_extension_dup_dir (&error);
  g_assert_no_error (error);
  g_assert_cmpstr (overridden, ==, "/src/lumo/extension/dist");

  g_setenv ("LUMO_ACCESS_EXTENSION_DIR", "extension/dist", TRUE);
  relative = lumo_browser_extension_dup_dir (&error);
  g_assert_null (relative);
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "extension/dist"));

  if (old != NULL)
    g_setenv ("LUMO_ACCESS_EXTENSION_DIR", old, TRUE);
  else
    g_unsetenv ("LUMO_ACCESS_EXTENSION_DIR");
}

static void
assert_host_path (const char *path,
                  const char *app_id,
                  const char *app_path,
                  const char *expected)
{
  g_autofree char *host = _lumo_browser_extension_host_path (path, app_id, app_path);

  g_assert_cmpstr (host, ==, expected);
}

/* Inside the Flatpak the folder is /app/share/…; the browser on the host
 * must be told the deployment's path, through current/active so that an
 * update of the app does not break the unpacked extension. */
static void
test_flatpak_host_path (void)
{
  assert_host_path ("/app/share/lumo-access/extension", "dev.lumo.Access",
                    "/var/lib/flatpak/app/dev.lumo.Access/x86_64/stable/0123abcd/files",
                    "/var/lib/flatpak/app/dev.lumo.Access/current/active/files/share/lumo-access/extension");
  assert_host_path ("/app/share/lumo-access/extension", "dev.lumo.Access",
                    "/home/ada/.local/share/flatpak/app/dev.lumo.Access/x86_64/master/ff/files",
                    "/home/ada/.local/share/flatpak/app/dev.lumo.Access/current/active/files/share/lumo-access/extension");
  /* Not sandboxed, not under /app, or an app-path that does not name the
   * app: the path as it is (never a guess). */
  assert_host_path ("/usr/share/lumo-access/extension", NULL, NULL,
                    "/usr/share/lumo-access/extension");
  assert_host_path ("/usr/share/lumo-access/extension", "dev.lumo.Access",
                    "/var/lib/flatpak/app/dev.lumo.Access/x86_64/stable/0123/files",
                    "/usr/share/lumo-access/extension");
  assert_host_path ("/app/share/lumo-access/extension", "dev.lumo.Access",
                    "/var/lib/flatpak/app/org.other.App/x86_64/stable/0123/files",
                    "/app/share/lumo-access/extension");
  assert_host_path ("/app/share/lumo-access/extension", "dev.lumo.Access",
                    "relative/app/dev.lumo.Access/x/files",
                    "/app/share/lumo-access/extension");
  assert_host_path ("/application/x", "dev.lumo.Access",
                    "/var/lib/flatpak/app/dev.lumo.Access/x86_64/stable/0123/files",
                    "/application/x");
}

static void
assert_read_fails (const char *dir,
                   int         code,
                   const char *needle)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *name = NULL;

  g_assert_false (lumo_browser_extension_read (dir, &name, NULL, &error));
  g_assert_error (error, LUMO_ERROR, code);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, needle));
  g_assert_null (name);
}

static void
test_read (void)
{
  g_autofree char *dir = lumo_test_dir_new ("extension");
  g_autofree char *manifest = g_build_filename (dir, "manifest.json", NULL);
  g_autofree char *name = NULL;
  g_autofree char *version = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) big = g_string_new ("{\"manifest_version\": 3, \"name\": \"x\", \"version\": \"1\", \"pad\": \"");

  /* Not built: nothing was installed. */
  assert_read_fails (dir, LUMO_ERROR_NOT_FOUND, "manifest.json");

  lumo_test_write_in (dir, "manifest.json", MANIFEST);
  g_assert_true (lumo_browser_extension_read (dir, &name, &version, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (name, ==, "Lumo Userscripts");
  g_assert_cmpstr (version, ==, "0.1.0");

  lumo_test_write_in (dir, "manifest.json", "{\"manifest_version\": 3, \"name\": \"x\",");
  assert_read_fails (dir, LUMO_ERROR_INVALID_ARGUMENT, "is not an extension manifest");
  lumo_test_write_in (dir, "manifest.json", "[]");
  assert_read_fails (dir, LUMO_ERROR_INVALID_ARGUMENT, "not a JSON object");
  lumo_test_write_in (dir, "manifest.json", "{\"manifest_version\": 2, \"name\": \"x\", \"version\": \"1\"}");
  assert_read_fails (dir, LUMO_ERROR_INVALID_ARGUMENT, "“manifest_version” is not 3");
  lumo_test_write_in (dir, "manifest.json", "{\"manifest_version\": \"3\", \"name\": \"x\", \"version\": \"1\"}");
  assert_read_fails (dir, LUMO_ERROR_INVALID_ARGUMENT, "“manifest_version” is not 3");
  lumo_test_write_in (dir, "manifest.json", "{\"manifest_version\": 3, \"version\": \"1\"}");
  assert_read_fails (dir, LUMO_ERROR_INVALID_ARGUMENT, "“name”");
  lumo_test_write_in (dir, "manifest.json", "{\"manifest_version\": 3, \"name\": \"x\", \"version\": 1}");
  assert_read_fails (dir, LUMO_ERROR_INVALID_ARGUMENT, "“version”");

  for (guint i = 0; i < 1100 * 1024; i++)
    g_string_append_c (big, 'a');
  g_string_append (big, "\"}");
  lumo_test_write_in (dir, "manifest.json", big->str);
  assert_read_fails (dir, LUMO_ERROR_INVALID_ARGUMENT, "bytes");

  /* A folder where the manifest should be is not readable as one. */
  g_assert_cmpint (g_unlink (manifest), ==, 0);
  lumo_test_mkdir_in (dir, "manifest.json");
  assert_read_fails (dir, LUMO_ERROR_IO, "manifest.json");

  lumo_test_dir_remove (dir);
}

/* The name as chrome.i18n gives it: "__MSG_key__" from the default
 * locale's messages (the key is not case-sensitive). */
static void
test_read_localized_name (void)
{
  g_autofree char *dir = lumo_test_dir_new ("extension");
  g_autofree char *name = NULL;
  g_autoptr(GError) error = NULL;

  lumo_test_write_in (dir, "manifest.json",
                      "{\"manifest_version\": 3, \"name\": \"__MSG_extName__\", \"version\": \"1\","
                      " \"default_locale\": \"en\"}");
  assert_read_fails (dir, LUMO_ERROR_NOT_FOUND, "_locales/en/messages.json");

  lumo_test_write_in (dir, "_locales/en/messages.json",
                      "{\"EXTNAME\": {\"message\": \"Lumo Userscripts\"}}");
  g_assert_true (lumo_browser_extension_read (dir, &name, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (name, ==, "Lumo Userscripts");

  lumo_test_write_in (dir, "_locales/en/messages.json", "{\"other\": {\"message\": \"x\"}}");
  assert_read_fails (dir, LUMO_ERROR_INVALID_ARGUMENT, "no message “extName”");

  /* The locale names a folder: never one outside _locales. */
  lumo_test_write_in (dir, "manifest.json",
                      "{\"manifest_version\": 3, \"name\": \"__MSG_extName__\", \"version\": \"1\","
                      " \"default_locale\": \"../..\"}");
  assert_read_fails (dir, LUMO_ERROR_INVALID_ARGUMENT, "default_locale");
  lumo_test_write_in (dir, "manifest.json",
                      "{\"manifest_version\": 3, \"name\": \"__MSG_extName__\", \"version\": \"1\"}");
  assert_read_fails (dir, LUMO_ERROR_INVALID_ARGUMENT, "default_locale");

  lumo_test_dir_remove (dir);
}

static void
test_read_async (void)
{
  g_autofree char *dir = lumo_test_dir_new ("extension");
  g_autofree char *missing = g_build_filename (dir, "missing", NULL);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *name = NULL;
  g_autofree char *version = NULL;

  lumo_test_write_in (dir, "manifest.json", MANIFEST);
  lumo_browser_extension_read_async (dir, NULL, lumo_test_keep_result_cb, &result);
  lumo_test_wait_until (lumo_test_is_set, &result, "the extension read");
  g_assert_true (lumo_browser_extension_read_finish (result, &name, &version, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (name, ==, "Lumo Userscripts");
  g_assert_cmpstr (version, ==, "0.1.0");

  g_clear_object (&result);
  g_clear_pointer (&name, g_free);
  lumo_browser_extension_read_async (missing, NULL, lumo_test_keep_result_cb, &result);
  lumo_test_wait_until (lumo_test_is_set, &result, "the extension read");
  g_assert_false (lumo_browser_extension_read_finish (result, &name, NULL, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND);
  g_assert_null (name);

  lumo_test_dir_remove (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/browser-extension/dir", test_dir);
  g_test_add_func ("/browser-extension/flatpak-host-path", test_flatpak_host_path);
  g_test_add_func ("/browser-extension/read", test_read);
  g_test_add_func ("/browser-extension/read-localized-name", test_read_localized_name);
  g_test_add_func ("/browser-extension/read-async", test_read_async);

  return g_test_run ();
}
