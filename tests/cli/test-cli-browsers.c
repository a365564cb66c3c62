/* test-cli-browsers.c — lumo-access-ctl browsers / install-manifest /
 * remove-manifest against a fake home and a fake system root
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs the built binary ($LUMO_ACCESS_CTL) with HOME, XDG_CONFIG_HOME and
 * XDG_DATA_HOME in a temporary directory, LUMO_ACCESS_HOST_PATH naming a
 * stand-in helper there, and the hidden --system-root for the system-wide
 * folders; then checks what a user would read and what landed on disk.
 */
#define G_LOG_DOMAIN "test-cli-browsers"

#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "cli-browsers-util.h"
#include "lumo-browser-integration.h"
#include "lumo-browser-setup.h"
#include "lumo-error.h"
#include "lumo-policy.h"


/* ---- browsers ------------------------------------------------------------ */

static void
test_browsers_none (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *before = snapshot (f->dir);
  g_autofree char *after = NULL;
  g_autoptr(JsonNode) root = NULL;
  JsonObject *object;
  JsonArray *browsers, *providers;

  g_assert_cmpint (run_ctl (f, "browsers"), ==, 0);
  g_assert_true (row_says (f->out, "chrome", "not installed"));
  g_assert_true (row_says (f->out, "chromium-flatpak", "not installed"));
  g_assert_null (strstr (f->out, "manifest missing"));
  g_assert_nonnull (strstr (f->out, f->helper));
  g_assert_nonnull (strstr (f->out, bundled_id ()));

  g_assert_cmpint (run_ctl (f, "browsers", "--json"), ==, 0);
  root = lumo_test_parse_json (f->out);
  object = json_node_get_object (root);
  g_assert_cmpstr (json_object_get_string_member (object, "scope"), ==, "user");
  g_assert_cmpstr (json_object_get_string_member (object, "hostPath"), ==, f->helper);
  g_assert_cmpstr (json_object_get_string_member (object, "hostName"), ==,
                   lumo_browser_integration_get_host_name ());
  providers = json_object_get_array_member (object, "providers");
  g_assert_cmpuint (json_array_get_length (providers), ==, 1);
  g_assert_cmpstr (json_array_get_string_element (providers, 0), ==, bundled_id ());
  browsers = json_object_get_array_member (object, "browsers");
  g_assert_cmpuint (json_array_get_length (browsers), ==, 17);
  for (guint i = 0; i < json_array_get_length (browsers); i++)
    {
      JsonObject *b = json_array_get_object_element (browsers, i);

      g_assert_cmpstr (json_object_get_string_member (b, "status"), ==, "not-installed");
      g_assert_true (g_str_has_prefix (json_object_get_string_member (b, "manifest"), f->home));
    }

  /* Looking changes nothing: no folder, and no policy.db just to read it. */
  after = snapshot (f->dir);
  g_assert_cmpstr (before, ==, after);
}

static void
test_browsers_chrome_chromium (Fixture       *f,
                               gconstpointer  data)
{
  g_autofree char *chromium = manifest_rel (".config/chromium/NativeMessagingHosts");
  g_autofree char *stale = g_strdup_printf ("{\"name\": \"%s\", \"path\": \"/old/lumo-access-host\", "
                                            "\"type\": \"stdio\", \"allowed_origins\": "
                                            "[\"chrome-extension://%s/\"]}",
                                            lumo_browser_integration_get_host_name (),
                                            bundled_id ());
  g_autoptr(JsonNode) root = NULL;
  JsonArray *why;

  lumo_test_mkdir_in (f->home, ".config/google-chrome");
  lumo_test_write_in (f->home, chromium, stale);

  g_assert_cmpint (run_ctl (f, "browsers"), ==, 0);
  g_assert_true (row_says (f->out, "chrome", "manifest missing"));
  g_assert_true (row_says (f->out, "chromium", "manifest stale (other helper)"));
  g_assert_true (row_says (f->out, "brave", "not installed"));
  /* The advice says why, naming the helper the manifest starts. */
  g_assert_nonnull (strstr (f->out, "chromium — Chromium:"));
  g_assert_nonnull (strstr (f->out, "/old/lumo-access-host"));

  g_assert_cmpint (run_ctl (f, "browsers", "--json"), ==, 0);
  root = lumo_test_parse_json (f->out);
  g_assert_cmpstr (status_of (root, "chrome"), ==, "manifest-missing");
  g_assert_cmpstr (status_of (root, "chromium"), ==, "manifest-stale");
  g_assert_cmpstr (status_of (root, "chrome-beta"), ==, "not-installed");
  why = json_object_get_array_member (find_browser (root, "chromium"), "stale");
  g_assert_cmpuint (json_array_get_length (why), ==, 1);
  g_assert_cmpstr (json_array_get_string_element (why, 0), ==, "path");
  g_assert_nonnull (json_object_get_string_member (find_browser (root, "chromium"), "advice"));
  g_assert_true (json_object_get_null_member (find_browser (root, "chrome"), "fixCommand"));

  /* A bad option is a usage error. */
  g_assert_cmpint (run_ctl (f, "browsers", "--no-such-option"), ==, 2);
  g_assert_cmpint (run_ctl (f, "browsers", "extra"), ==, 2);
}

/* Installed and never started: found by the program, and set up like any
 * other (its folder is made with the manifest). */
static void
test_browsers_never_started (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *chromium = manifest_rel (".config/chromium/NativeMessagingHosts");
  g_autofree char *chromium_path = path_in (f->home, chromium);
  g_autofree char *edge = manifest_rel (".config/microsoft-edge/NativeMessagingHosts");
  const char *ids[] = { bundled_id (), NULL };
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *launcher = path_in (f->bin, "chromium");
  g_autofree char *program = path_in (f->sysroot, "opt/microsoft/msedge/msedge");

  /* Chromium's launcher on PATH, Edge's program where its package puts it. */
  lumo_test_write_in (f->bin, "chromium", "#!/bin/sh\n");
  lumo_test_write_in (f->sysroot, "opt/microsoft/msedge/msedge", "#!/bin/sh\n");
  g_assert_cmpint (g_chmod (launcher, 0755), ==, 0);
  g_assert_cmpint (g_chmod (program, 0755), ==, 0);

  g_assert_cmpint (run_ctl (f, "browsers"), ==, 0);
  g_assert_true (row_says (f->out, "chromium", "manifest missing"));
  g_assert_true (row_says (f->out, "edge", "manifest missing"));
  g_assert_true (row_says (f->out, "chrome", "not installed"));

  g_assert_cmpint (run_ctl (f, "install-manifest"), ==, 0);
  assert_manifest_file (chromium_path, f->helper, ids, 0644);
  g_assert_true (exists_in (f->home, edge));
  g_assert_false (exists_in (f->home, ".config/google-chrome"));

  g_assert_cmpint (run_ctl (f, "browsers", "--json"), ==, 0);
  root = lumo_test_parse_json (f->out);
  g_assert_cmpstr (status_of (root, "chromium"), ==, "ok");
  g_assert_cmpstr (status_of (root, "edge"), ==, "ok");
}

/* ---- install-manifest --------------------------------------------------- */

static void
test_install_detected (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *chrome = manifest_rel (".config/google-chrome/NativeMessagingHosts");
  g_autofree char *chromium = manifest_rel (".config/chromium/NativeMessagingHosts");
  g_autofree char *chrome_path = path_in (f->home, chrome);
  g_autofree char *chromium_path = path_in (f->home, chromium);
  g_autofree char *stale = g_strdup_printf ("{\"name\": \"%s\", \"path\": \"/old\", "
                                            "\"type\": \"stdio\", \"allowed_origins\": [\"*\"]}",
                                            lumo_browser_integration_get_host_name ());
  const char *ids[] = { TEST_PROVIDER_ID, bundled_id (), NULL };   /* sorted */
  g_autoptr(JsonNode) root = NULL;

  g_assert_cmpstr (TEST_PROVIDER_ID, <, bundled_id ());
  lumo_test_mkdir_in (f->home, ".config/google-chrome");
  lumo_test_write_in (f->home, chromium, stale);
  add_provider (f, TEST_PROVIDER_ID);

  g_assert_cmpint (run_ctl (f, "install-manifest"), ==, 0);
  g_assert_nonnull (strstr (f->out, chrome_path));
  g_assert_nonnull (strstr (f->out, chromium_path));
  g_assert_cmpstr (f->err, ==, "");
  /* The store's provider and the bundled one; exact JSON, 0644. */
  assert_manifest_file (chrome_path, f->helper, ids, 0644);
  assert_manifest_file (chromium_path, f->helper, ids, 0644);
  /* Browsers that are not there get nothing. */
  g_assert_false (exists_in (f->home, ".config/google-chrome-beta"));
  g_assert_false (exists_in (f->home, ".config/BraveSoftware"));

  g_assert_cmpint (run_ctl (f, "browsers", "--json"), ==, 0);
  root = lumo_test_parse_json (f->out);
  g_assert_cmpstr (status_of (root, "chrome"), ==, "ok");
  g_assert_cmpstr (status_of (root, "chromium"), ==, "ok");
  g_assert_cmpint (run_ctl (f, "browsers"), ==, 0);
  g_assert_true (row_says (f->out, "chrome", "OK"));

  /* Nothing detected: said, not an error, nothing written. */
  {
    g_autofree char *before = NULL;
    g_autofree char *after = NULL;

    g_assert_cmpint (run_ctl (f, "remove-manifest"), ==, 0);
    lumo_test_dir_remove (f->config);
    before = snapshot (f->dir);
    g_assert_cmpint (run_ctl (f, "install-manifest"), ==, 0);
    g_assert_nonnull (strstr (f->err, "--browser"));
    after = snapshot (f->dir);
    g_assert_cmpstr (before, ==, after);
  }
}

/* Browsers read $XDG_CONFIG_HOME when it is set; so do we. */
static void
test_install_xdg_config_home (Fixture       *f,
                              gconstpointer  data)
{
  g_autofree char *chromium = manifest_rel ("cfg/chromium/NativeMessagingHosts");
  const char *ids[] = { bundled_id (), NULL };

  g_free (f->config);
  f->config = path_in (f->dir, "cfg");
  lumo_test_mkdir_in (f->dir, "cfg/chromium");
  lumo_test_mkdir_in (f->home, ".config/chromium");

  g_assert_cmpint (run_ctl (f, "install-manifest"), ==, 0);
  {
    g_autofree char *path = path_in (f->dir, chromium);

    assert_manifest_file (path, f->helper, ids, 0644);
  }
  g_assert_false (exists_in (f->home, ".config/chromium/NativeMessagingHosts"));
}

static void
test_install_dry_run (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *edge = manifest_rel (".config/microsoft-edge/NativeMessagingHosts");
  g_autofree char *edge_path = path_in (f->home, edge);
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autofree char *preview = NULL;
  g_autofree char *written = NULL;
  const char *ids[] = { TEST_PROVIDER_ID, bundled_id (), NULL };

  lumo_test_mkdir_in (f->home, ".config/chromium");
  add_provider (f, TEST_PROVIDER_ID);
  before = snapshot (f->dir);

  /* Every detected browser: the manifest on stdout, nothing on disk. */
  g_assert_cmpint (run_ctl (f, "install-manifest", "--dry-run"), ==, 0);
  assert_manifest_text (f->out, f->helper, ids);
  g_assert_nonnull (strstr (f->err, ".config/chromium/NativeMessagingHosts"));
  after = snapshot (f->dir);
  g_assert_cmpstr (before, ==, after);

  /* A named browser that is not installed: what --dry-run shows is what
   * the real run writes, byte for byte. */
  g_assert_cmpint (run_ctl (f, "install-manifest", "--browser", "edge", "-n"), ==, 0);
  preview = g_steal_pointer (&f->out);
  g_clear_pointer (&after, g_free);
  after = snapshot (f->dir);
  g_assert_cmpstr (before, ==, after);

  g_assert_cmpint (run_ctl (f, "install-manifest", "--browser", "edge"), ==, 0);
  g_assert_true (g_file_get_contents (edge_path, &written, NULL, NULL));
  g_assert_true (g_str_has_prefix (preview, written));
  g_assert_cmpstr (preview + strlen (written), ==, "\n");
  assert_manifest_file (edge_path, f->helper, ids, 0644);
  /* Only edge: chromium was not asked for. */
  g_assert_false (exists_in (f->home, ".config/chromium/NativeMessagingHosts"));
}

static void
test_install_unknown_browser (Fixture       *f,
                              gconstpointer  data)
{
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;

  lumo_test_mkdir_in (f->home, ".config/chromium");
  before = snapshot (f->dir);

  g_assert_cmpint (run_ctl (f, "install-manifest", "--browser", "nosuch"), ==, 2);
  g_assert_nonnull (strstr (f->err, "nosuch"));
  g_assert_nonnull (strstr (f->err, "chromium-flatpak"));
  g_assert_nonnull (strstr (f->err, "vivaldi-snapshot"));
  g_assert_cmpstr (f->out, ==, "");

  g_assert_cmpint (run_ctl (f, "remove-manifest", "--browser", "nosuch"), ==, 2);
  g_assert_nonnull (strstr (f->err, "chromium-flatpak"));

  /* A per-user name is not a system-wide target. */
  g_assert_cmpint (run_ctl (f, "install-manifest", "--system", "--system-root", f->sysroot,
                            "--browser", "chrome-beta"), ==, 2);
  g_assert_nonnull (strstr (f->err, "chromium, edge"));

  /* Nothing written, and no policy.db opened (or created) to get there. */
  after = snapshot (f->dir);
  g_assert_cmpstr (before, ==, after);
}

/* The name the advice's fix-command uses. */
static void
test_install_flatpak_browser (Fixture       *f,
                              gconstpointer  data)
{
  const char *folder = ".var/app/org.chromium.Chromium/config/chromium/NativeMessagingHosts";
  g_autofree char *manifest = manifest_rel (folder);
  g_autofree char *manifest_path = path_in (f->home, manifest);
  g_autofree char *wrapper_name = g_strconcat (lumo_browser_integration_get_host_name (),
                                               ".sh", NULL);
  g_autofree char *wrapper_rel = g_build_filename (folder, wrapper_name, NULL);
  g_autofree char *wrapper_path = path_in (f->home, wrapper_rel);
  g_autofree char *wrapper = NULL;
  const char *ids[] = { bundled_id (), NULL };
  struct stat st;

  lumo_test_mkdir_in (f->home, ".var/app/org.chromium.Chromium");

  g_assert_cmpint (run_ctl (f, "install-manifest", "--browser", "chromium-flatpak"), ==, 0);
  /* The manifest starts the wrapper, which leaves the sandbox for the helper. */
  assert_manifest_file (manifest_path, wrapper_path, ids, 0644);
  wrapper = read_in (f->home, wrapper_rel);
  g_assert_nonnull (wrapper);
  g_assert_nonnull (strstr (wrapper, "flatpak-spawn --host"));
  g_assert_nonnull (strstr (wrapper, f->helper));
  g_assert_cmpint (g_stat (wrapper_path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0755);
  /* And what the user must still do is said, with the command to copy. */
  g_assert_nonnull (strstr (f->out,
                            "flatpak override --user --talk-name=org.freedesktop.Flatpak "
                            "org.chromium.Chromium"));

  g_assert_cmpint (run_ctl (f, "remove-manifest", "--browser", "chromium-flatpak"), ==, 0);
  g_assert_nonnull (strstr (f->out, manifest_path));
  g_assert_false (g_file_test (manifest_path, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (wrapper_path, G_FILE_TEST_EXISTS));
}

/* ---- remove-manifest ---------------------------------------------------- */

static void
test_remove (Fixture       *f,
             gconstpointer  data)
{
  g_autofree char *chrome = manifest_rel (".config/google-chrome/NativeMessagingHosts");
  g_autofree char *chromium = manifest_rel (".config/chromium/NativeMessagingHosts");
  g_autofree char *chrome_path = path_in (f->home, chrome);
  g_autofree char *chromium_path = path_in (f->home, chromium);
  const char *other = ".config/chromium/NativeMessagingHosts/org.example.other.json";

  lumo_test_mkdir_in (f->home, ".config/google-chrome");
  lumo_test_mkdir_in (f->home, ".config/chromium");
  lumo_test_write_in (f->home, other, "{\"name\": \"org.example.other\"}");
  g_assert_cmpint (run_ctl (f, "install-manifest"), ==, 0);
  g_assert_true (g_file_test (chrome_path, G_FILE_TEST_EXISTS));

  /* One browser by name. */
  g_assert_cmpint (run_ctl (f, "remove-manifest", "--browser", "chrome"), ==, 0);
  g_assert_nonnull (strstr (f->out, chrome_path));
  g_assert_false (g_file_test (chrome_path, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (chromium_path, G_FILE_TEST_EXISTS));
  g_assert_cmpint (run_ctl (f, "remove-manifest", "--browser", "chrome"), ==, 0);
  g_assert_nonnull (strstr (f->out, "nothing to remove"));

  /* All of them; another host's manifest in the same folder stays. */
  g_assert_cmpint (run_ctl (f, "install-manifest"), ==, 0);
  g_assert_cmpint (run_ctl (f, "remove-manifest"), ==, 0);
  g_assert_nonnull (strstr (f->out, chrome_path));
  g_assert_nonnull (strstr (f->out, chromium_path));
  g_assert_false (g_file_test (chrome_path, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (chromium_path, G_FILE_TEST_EXISTS));
  g_assert_true (exists_in (f->home, other));

  g_assert_cmpint (run_ctl (f, "remove-manifest"), ==, 0);
  g_assert_nonnull (strstr (f->out, "no manifest to remove"));
}

/* ---- system-wide -------------------------------------------------------- */

static void
test_system (Fixture       *f,
             gconstpointer  data)
{
  g_autofree char *chrome = manifest_rel ("etc/opt/chrome/native-messaging-hosts");
  g_autofree char *chrome_path = path_in (f->sysroot, chrome);
  g_autofree char *chrome_dir = g_path_get_dirname (chrome_path);
  g_autofree char *home_before = NULL;
  g_autofree char *home_after = NULL;
  g_autofree char *sys_before = NULL;
  g_autofree char *sys_after = NULL;
  g_autoptr(JsonNode) root = NULL;
  const char *ids[] = { bundled_id (), NULL };
  struct stat st;

  lumo_test_mkdir_in (f->home, ".config/google-chrome");
  home_before = snapshot (f->home);

  /* No browser under the root yet: nothing detected, nothing written. */
  sys_before = snapshot (f->sysroot);
  g_assert_cmpint (run_ctl (f, "install-manifest", "--system", "--system-root", f->sysroot), ==, 0);
  g_assert_nonnull (strstr (f->err, "--browser"));
  sys_after = snapshot (f->sysroot);
  g_assert_cmpstr (sys_before, ==, sys_after);

  lumo_test_mkdir_in (f->sysroot, "opt/google/chrome");
  g_assert_cmpint (run_ctl (f, "browsers", "--system", "--system-root", f->sysroot, "--json"), ==, 0);
  root = lumo_test_parse_json (f->out);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (root), "scope"), ==,
                   "system");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (
                      json_node_get_object (root), "browsers")), ==, 3);
  g_assert_cmpstr (status_of (root, "chrome"), ==, "manifest-missing");
  g_assert_cmpstr (status_of (root, "chromium"), ==, "not-installed");

  g_assert_cmpint (run_ctl (f, "install-manifest", "--system", "--system-root", f->sysroot), ==, 0);
  g_assert_nonnull (strstr (f->out, chrome_path));
  /* Readable by every user's browser. */
  assert_manifest_file (chrome_path, f->helper, ids, 0644);
  g_assert_cmpint (g_stat (chrome_dir, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0755);
  g_assert_false (exists_in (f->sysroot, "etc/chromium"));
  /* The user's folders are not touched by a system-wide install. */
  home_after = snapshot (f->home);
  g_assert_cmpstr (home_before, ==, home_after);

  g_assert_cmpint (run_ctl (f, "remove-manifest", "--system", "--system-root", f->sysroot), ==, 0);
  g_assert_false (g_file_test (chrome_path, G_FILE_TEST_EXISTS));

  /* The root must be absolute. */
  g_assert_cmpint (run_ctl (f, "browsers", "--system", "--system-root", "relative/root"), ==, 2);
}

/* ---- failures ----------------------------------------------------------- */

static void
chown_tree (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  g_assert_cmpint (lchown (path, NOBODY, NOBODY), ==, 0);
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
        chown_tree (child);
      else
        g_assert_cmpint (lchown (child, NOBODY, NOBODY), ==, 0);
    }
}

/* One browser's folder is read-only: the others are written, the failure
 * names the file and the reason, exit 1, and the old file is intact. */
static void
test_read_only (Fixture       *f,
                gconstpointer  data)
{
  g_autofree char *chrome = manifest_rel (".config/google-chrome/NativeMessagingHosts");
  g_autofree char *chromium = manifest_rel (".config/chromium/NativeMessagingHosts");
  g_autofree char *chrome_path = path_in (f->home, chrome);
  g_autofree char *chrome_dir = g_path_get_dirname (chrome_path);
  g_autofree char *chromium_path = path_in (f->home, chromium);
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autoptr(GDir) dir = NULL;
  const char *stale = "{\"name\": \"dev.lumo.access\", \"path\": \"/old\", \"type\": \"stdio\", "
                      "\"allowed_origins\": []}";
  const char *ids[] = { bundled_id (), NULL };
  const char *name;

  lumo_test_write_in (f->home, chrome, stale);
  lumo_test_mkdir_in (f->home, ".config/chromium");
  g_assert_true (g_file_get_contents (chrome_path, &before, NULL, NULL));
  g_assert_cmpint (g_chmod (chrome_dir, 0555), ==, 0);

  if (geteuid () == 0)
    {
      /* The CLI runs as nobody, who must reach the tree and the binary;
       * the build folder may sit under a 0700 directory (a fresh clone in
       * mktemp -d), so nobody runs a copy inside the test's own tree. */
      g_autofree char *contents = NULL;
      gsize length = 0;

      g_assert_cmpint (g_chmod (f->dir, 0755), ==, 0);
      g_assert_true (g_file_get_contents (g_getenv ("LUMO_ACCESS_CTL"), &contents, &length, NULL));
      f->ctl = g_build_filename (f->dir, "lumo-access-ctl", NULL);
      g_assert_true (g_file_set_contents (f->ctl, contents, length, NULL));
      g_assert_cmpint (g_chmod (f->ctl, 0755), ==, 0);
      chown_tree (f->dir);
      f->as_nobody = TRUE;
    }

  g_assert_cmpint (run_ctl (f, "install-manifest"), ==, 1);
  g_assert_nonnull (strstr (f->err, chrome_dir));
  g_assert_nonnull (strstr (f->err, g_strerror (EACCES)));
  g_assert_nonnull (strstr (f->err, "Google Chrome"));
  g_assert_null (strstr (f->err, "Chromium:"));
  /* The writable browser was still set up. */
  assert_manifest_file (chromium_path, f->helper, ids, 0644);
  g_assert_nonnull (strstr (f->out, chromium_path));

  /* Nothing half-written: the old file as it was, no temporary beside it. */
  g_assert_true (g_file_get_contents (chrome_path, &after, NULL, NULL));
  g_assert_cmpstr (before, ==, after);
  dir = g_dir_open (chrome_dir, 0, NULL);
  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    g_assert_true (g_str_has_suffix (name, ".json"));

  /* Removing from it fails the same way, and keeps the file. */
  g_assert_cmpint (run_ctl (f, "remove-manifest"), ==, 1);
  g_assert_nonnull (strstr (f->err, chrome_path));
  g_assert_true (g_file_test (chrome_path, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (chromium_path, G_FILE_TEST_EXISTS));
}

/* The providers cannot be known: nothing is written rather than a manifest
 * that locks the user's providers out. */
static void
test_damaged_store (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;

  lumo_test_mkdir_in (f->home, ".config/chromium");
  lumo_test_write_in (f->data_dir, "policy.db", "this is not a database, just some text that is long "
                                      "enough to have a header");
  before = snapshot (f->dir);

  g_assert_cmpint (run_ctl (f, "install-manifest"), ==, 1);
  g_assert_nonnull (strstr (f->err, "policy.db"));
  after = snapshot (f->dir);
  g_assert_cmpstr (before, ==, after);

  /* Removing needs no providers. */
  g_assert_cmpint (run_ctl (f, "remove-manifest"), ==, 0);
}

static void
test_host_path (Fixture       *f,
                gconstpointer  data)
{
  g_autofree char *chromium = manifest_rel (".config/chromium/NativeMessagingHosts");
  g_autofree char *chromium_path = path_in (f->home, chromium);
  g_autofree char *missing = path_in (f->dir, "nowhere/lumo-access-host");
  const char *ids[] = { bundled_id (), NULL };

  lumo_test_mkdir_in (f->home, ".config/chromium");

  /* A relative helper path would be resolved in the browser's folder. */
  f->host_env = g_strdup ("build/src/host/lumo-access-host");
  g_assert_cmpint (run_ctl (f, "install-manifest"), ==, 2);
  g_assert_nonnull (strstr (f->err, "LUMO_ACCESS_HOST_PATH"));
  g_assert_false (g_file_test (chromium_path, G_FILE_TEST_EXISTS));

  /* A missing helper: written (an admin may prepare a machine), with a
   * warning that names it. */
  g_free (f->host_env);
  f->host_env = g_strdup (missing);
  g_assert_cmpint (run_ctl (f, "install-manifest"), ==, 0);
  g_assert_nonnull (strstr (f->err, missing));
  assert_manifest_file (chromium_path, missing, ids, 0644);

  g_assert_cmpint (run_ctl (f, "browsers"), ==, 0);
  g_assert_nonnull (strstr (f->err, missing));
  g_assert_true (row_says (f->out, "chromium", "OK"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define add(name, func) \
  g_test_add ("/cli-browsers/" name, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  add ("browsers/none", test_browsers_none);
  add ("browsers/chrome-chromium", test_browsers_chrome_chromium);
  add ("browsers/never-started", test_browsers_never_started);
  add ("install/detected", test_install_detected);
  add ("install/xdg-config-home", test_install_xdg_config_home);
  add ("install/dry-run", test_install_dry_run);
  add ("install/unknown-browser", test_install_unknown_browser);
  add ("install/flatpak-browser", test_install_flatpak_browser);
  add ("remove", test_remove);
  add ("system", test_system);
  add ("read-only", test_read_only);
  add ("damaged-store", test_damaged_store);
  add ("host-path", test_host_path);
#undef add

  return g_test_run ();
}
