/* cli-browsers-util.c — the fake home, running the CLI in it, and reading
 * what it wrote, for test-cli-browsers.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-cli-browsers"

#include "config.h"

#include <grp.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "cli-browsers-util.h"
#include "lumo-test.h"
#include "lumo-browser-integration.h"
#include "lumo-browser-setup.h"
#include "lumo-policy.h"


char *
path_in (const char *base,
         const char *relative)
{
  return g_build_filename (base, relative, NULL);
}

char *
read_in (const char *base,
         const char *relative)
{
  g_autofree char *path = path_in (base, relative);
  char *contents = NULL;

  if (!g_file_get_contents (path, &contents, NULL, NULL))
    return NULL;
  return contents;
}

gboolean
exists_in (const char *base,
           const char *relative)
{
  g_autofree char *path = path_in (base, relative);

  return g_file_test (path, G_FILE_TEST_EXISTS);
}

/* Every file below @path, relative, sorted: "nothing was written" is this
 * list unchanged. */
static void
list_tree (const char *base,
           const char *relative,
           GPtrArray  *out)
{
  g_autofree char *path = relative ? path_in (base, relative) : g_strdup (base);
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)))
    {
      g_autofree char *child = relative ? g_build_filename (relative, name, NULL) : g_strdup (name);
      g_autofree char *full = path_in (base, child);

      g_ptr_array_add (out, g_strdup (child));
      if (g_file_test (full, G_FILE_TEST_IS_DIR) && !g_file_test (full, G_FILE_TEST_IS_SYMLINK))
        list_tree (base, child, out);
    }
}

static int
compare_paths (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

char *
snapshot (const char *base)
{
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_free);

  list_tree (base, NULL, files);
  g_ptr_array_sort (files, compare_paths);
  g_ptr_array_add (files, NULL);
  return g_strjoinv ("\n", (char **) files->pdata);
}

void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  f->dir = lumo_test_dir_new ("cli-browsers");
  f->home = path_in (f->dir, "home");
  f->config = path_in (f->home, ".config");
  f->data_dir = path_in (f->dir, "data");
  f->sysroot = path_in (f->dir, "sysroot");
  f->helper = path_in (f->dir, "libexec/lumo-access-host");
  f->bin = path_in (f->dir, "bin");
  lumo_test_mkdir_in (f->dir, "bin");
  g_assert_cmpint (g_mkdir (f->home, 0700), ==, 0);
  g_assert_cmpint (g_mkdir (f->data_dir, 0700), ==, 0);
  g_assert_cmpint (g_mkdir (f->sysroot, 0755), ==, 0);
  lumo_test_write_in (f->dir, "libexec/lumo-access-host", "#!/bin/sh\nexit 0\n");
  g_assert_cmpint (g_chmod (f->helper, 0755), ==, 0);
}

void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  lumo_test_dir_remove (f->dir);
  g_free (f->ctl);
  g_free (f->out);
  g_free (f->err);
  g_free (f->host_env);
  g_free (f->helper);
  g_free (f->bin);
  g_free (f->sysroot);
  g_free (f->data_dir);
  g_free (f->config);
  g_free (f->home);
  g_free (f->dir);
}

/* Runs between fork and exec: async-signal-safe calls only. */
static void
drop_privileges_cb (gpointer user_data)
{
  if (setgroups (0, NULL) != 0 || setgid (NOBODY) != 0 || setuid (NOBODY) != 0)
    _exit (125);
}

int
run_ctl_argv (Fixture            *f,
              const char * const *argv)
{
  g_autoptr(GPtrArray) args = g_ptr_array_new ();
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);
  g_autofree char *bus_address = g_strdup_printf ("unix:path=%s/no-such-bus", f->dir);
  g_autofree char *data_home = path_in (f->home, ".local/share");
  const char *ctl = f->ctl ? f->ctl : g_getenv ("LUMO_ACCESS_CTL");
  gboolean browsers_command = FALSE;
  gboolean has_root = FALSE;

  g_assert_nonnull (ctl);
  g_ptr_array_add (args, (char *) ctl);
  g_ptr_array_add (args, (char *) "--data-dir");
  g_ptr_array_add (args, f->data_dir);
  for (guint i = 0; argv[i] != NULL; i++)
    {
      browsers_command |= i == 0 && (g_str_equal (argv[0], "browsers") ||
                                     g_str_equal (argv[0], "install-manifest") ||
                                     g_str_equal (argv[0], "remove-manifest"));
      has_root |= g_str_equal (argv[i], "--system-root");
      g_ptr_array_add (args, (char *) argv[i]);
    }
  /* The browsers' programs are looked for under the root too: this
   * machine's own Chromium must not count as the fake home's. */
  if (browsers_command && !has_root)
    {
      g_ptr_array_add (args, (char *) "--system-root");
      g_ptr_array_add (args, f->sysroot);
    }
  g_ptr_array_add (args, NULL);

  g_subprocess_launcher_unsetenv (launcher, "LUMO_ACCESS_DATA_DIR");
  g_subprocess_launcher_unsetenv (launcher, "HOST_XDG_CONFIG_HOME");
  g_subprocess_launcher_setenv (launcher, "PATH", f->bin, TRUE);
  g_subprocess_launcher_setenv (launcher, "HOME", f->home, TRUE);
  g_subprocess_launcher_setenv (launcher, "XDG_CONFIG_HOME", f->config, TRUE);
  g_subprocess_launcher_setenv (launcher, "XDG_DATA_HOME", data_home, TRUE);
  g_subprocess_launcher_setenv (launcher, "LUMO_ACCESS_HOST_PATH",
                                f->host_env ? f->host_env : f->helper, TRUE);
  g_subprocess_launcher_setenv (launcher, "DBUS_SESSION_BUS_ADDRESS", bus_address, TRUE);
  if (f->as_nobody)
    g_subprocess_launcher_set_child_setup (launcher, drop_privileges_cb, NULL, NULL);

  return lumo_test_run (launcher, (const char * const *) args->pdata, NULL, &f->out, &f->err);
}

void
add_provider (Fixture    *f,
              const char *id)
{
  g_autofree char *path = path_in (f->data_dir, "policy.db");
  g_autoptr(LumoPolicy) policy = NULL;
  g_autoptr(GError) error = NULL;

  policy = lumo_policy_new (path, &error);
  g_assert_no_error (error);
  lumo_policy_add_provider (policy, id, LUMO_POLICY_ORIGIN_CLI, &error);
  g_assert_no_error (error);
}

const char *
bundled_id (void)
{
  const char * const *ids = lumo_browser_setup_get_bundled_ids ();

  /* The default build bundles Lumo Userscripts; these tests assume one. */
  g_assert_nonnull (ids[0]);
  return ids[0];
}

char *
manifest_rel (const char *folder)
{
  g_autofree char *name = g_strconcat (lumo_browser_integration_get_host_name (), ".json", NULL);

  return g_build_filename (folder, name, NULL);
}

/* Exactly what Chrome needs and we promise: five members, our name, the
 * helper's absolute path, stdio, and exactly @origins (sorted, each
 * "chrome-extension://ID/" with the trailing slash, never a wildcard). */
void
assert_manifest_text (const char         *text,
                      const char         *expected_path,
                      const char * const *ids)
{
  g_autoptr(JsonNode) root = lumo_test_parse_json (text);
  JsonObject *object;
  JsonArray *origins;
  guint n_ids = g_strv_length ((char **) ids);

  g_assert_true (JSON_NODE_HOLDS_OBJECT (root));
  object = json_node_get_object (root);
  g_assert_cmpuint (json_object_get_size (object), ==, 5);
  g_assert_cmpstr (json_object_get_string_member (object, "name"), ==,
                   lumo_browser_integration_get_host_name ());
  g_assert_cmpstr (json_object_get_string_member (object, "path"), ==, expected_path);
  g_assert_cmpstr (json_object_get_string_member (object, "type"), ==, "stdio");
  g_assert_nonnull (json_object_get_string_member (object, "description"));

  origins = json_object_get_array_member (object, "allowed_origins");
  g_assert_cmpuint (json_array_get_length (origins), ==, n_ids);
  for (guint i = 0; i < n_ids; i++)
    {
      g_autofree char *expected = g_strdup_printf ("chrome-extension://%s/", ids[i]);
      const char *origin = json_array_get_string_element (origins, i);

      g_assert_cmpstr (origin, ==, expected);
      g_assert_null (strchr (origin, '*'));
    }
}

void
assert_manifest_file (const char         *path,
                      const char         *expected_path,
                      const char * const *ids,
                      int                 mode)
{
  g_autofree char *text = NULL;
  struct stat st;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  assert_manifest_text (text, expected_path, ids);
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, mode);
}

JsonObject *
find_browser (JsonNode   *root,
              const char *id)
{
  JsonArray *browsers = json_object_get_array_member (json_node_get_object (root), "browsers");

  for (guint i = 0; i < json_array_get_length (browsers); i++)
    {
      JsonObject *b = json_array_get_object_element (browsers, i);

      if (g_str_equal (json_object_get_string_member (b, "id"), id))
        return b;
    }
  g_assert_not_reached ();
  return NULL;
}

const char *
status_of (JsonNode   *root,
           const char *id)
{
  return json_object_get_string_member (find_browser (root, id), "status");
}

/* The status column of @id's row in the text table. */
gboolean
row_says (const char *out,
          const char *id,
          const char *status)
{
  g_auto(GStrv) lines = g_strsplit (out, "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], id) && lines[i][strlen (id)] == ' ')
      return strstr (lines[i], status) != NULL;
  return FALSE;
}
