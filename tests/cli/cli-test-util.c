/* cli-test-util.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-cli"

#include "config.h"

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "cli-test-util.h"

void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  f->dir = lumo_test_dir_new ("cli");
  f->data_dir = g_build_filename (f->dir, "data", NULL);
  g_assert_cmpint (g_mkdir (f->data_dir, 0700), ==, 0);
  f->policy_path = g_build_filename (f->data_dir, "policy.db", NULL);
}

void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  g_clear_object (&f->policy);
  lumo_test_dir_remove (f->dir);
  g_free (f->out);
  g_free (f->err);
  g_free (f->policy_path);
  g_free (f->data_dir);
  g_free (f->dir);
}

LumoPolicy *
policy (Fixture *f)
{
  g_autoptr(GError) error = NULL;

  if (f->policy == NULL)
    {
      f->policy = lumo_policy_new (f->policy_path, &error);
      g_assert_no_error (error);
    }

  return f->policy;
}

/* Runs the CLI with --data-dir and @argv; @input goes to stdin. Keeps the
 * output in f->out / f->err and returns the exit status. */
int
run_ctl_input (Fixture            *f,
               const char         *input,
               const char * const *argv)
{
  g_autoptr(GPtrArray) args = g_ptr_array_new ();
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);
  g_autofree char *bus_address = g_strdup_printf ("unix:path=%s/no-such-bus", f->dir);
  const char *ctl = g_getenv ("LUMO_ACCESS_CTL");

  g_assert_nonnull (ctl);
  g_ptr_array_add (args, (char *) ctl);
  g_ptr_array_add (args, (char *) "--data-dir");
  g_ptr_array_add (args, f->data_dir);
  for (guint i = 0; argv[i] != NULL; i++)
    g_ptr_array_add (args, (char *) argv[i]);
  g_ptr_array_add (args, NULL);

  g_subprocess_launcher_unsetenv (launcher, "LUMO_ACCESS_DATA_DIR");
  /* Hermetic: no command may reach a real session bus or app. "review"
   * then sees no bus at all (tests/cli/test-cli-review.c gives it one). */
  g_subprocess_launcher_setenv (launcher, "DBUS_SESSION_BUS_ADDRESS", bus_address, TRUE);

  return lumo_test_run (launcher, (const char * const *) args->pdata, input, &f->out, &f->err);
}

guint
json_array_length_of_out (Fixture *f)
{
  g_autoptr(JsonNode) root = lumo_test_parse_json (f->out);

  g_assert_true (JSON_NODE_HOLDS_ARRAY (root));
  return json_array_get_length (json_node_get_array (root));
}

void
register_provider (Fixture    *f,
                   const char *id,
                   const char *name)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (lumo_policy_register_provider (policy (f), id, "userscripts", name, "1.0.1", &error));
  g_assert_no_error (error);
}

