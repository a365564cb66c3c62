/* lumo-test.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-test"

#include "config.h"

#include <errno.h>
#include <string.h>
#include <glib/gstdio.h>
#include <sys/stat.h>

#include "lumo-test.h"

/* How often a wait looks at its condition when nothing else wakes it. */
#define TICK_MS 5

/* ---- temporary directories ---------------------------------------------- */

char *
lumo_test_dir_new (const char *name)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *template = g_strdup_printf ("lumo-%s-XXXXXX", name);
  char *dir = g_dir_make_tmp (template, &error);

  g_assert_no_error (error);
  return dir;
}

static void
remove_recursively (const char *path)
{
  GStatBuf st;

  if (g_lstat (path, &st) != 0)
    {
      if (errno != ENOENT)
        g_error ("Cannot look at %s: %s", path, g_strerror (errno));
      return;
    }

  if (S_ISDIR (st.st_mode))
    {
      g_autoptr(GDir) dir = NULL;
      g_autoptr(GError) error = NULL;
      const char *name;

      /* A test of a read-only folder leaves it so; root would not mind,
       * anybody else could neither list nor empty it. */
      if ((st.st_mode & 0700) != 0700)
        g_chmod (path, 0700);
      dir = g_dir_open (path, 0, &error);
      g_assert_no_error (error);
      while ((name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);

          remove_recursively (child);
        }
      if (g_rmdir (path) != 0)
        g_error ("Cannot remove the folder %s: %s", path, g_strerror (errno));
    }
  else if (g_unlink (path) != 0)
    g_error ("Cannot remove %s: %s", path, g_strerror (errno));
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(char * const *) a, *(char * const *) b);
}

char *
lumo_test_dir_fingerprint (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GString) all = g_string_new (NULL);
  const char *name;

  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autofree char *contents = NULL;
      g_autofree char *sum = NULL;
      gsize len = 0;

      g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
      sum = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) contents, len);
      g_ptr_array_add (lines, g_strdup_printf ("%s %" G_GSIZE_FORMAT " %s", name, len, sum));
    }
  g_ptr_array_sort (lines, compare_strings);
  for (guint i = 0; i < lines->len; i++)
    g_string_append_printf (all, "%s\n", (char *) g_ptr_array_index (lines, i));

  return g_string_free (g_steal_pointer (&all), FALSE);
}

void
lumo_test_dir_remove (const char *path)
{
  g_return_if_fail (path != NULL && *path != '\0');

  remove_recursively (path);
}

void
lumo_test_mkdir_in (const char *base,
                    const char *relative)
{
  g_autofree char *path = g_build_filename (base, relative, NULL);

  if (g_mkdir_with_parents (path, 0700) != 0)
    g_error ("Cannot make the folder %s: %s", path, g_strerror (errno));
}

void
lumo_test_write_in (const char *base,
                    const char *relative,
                    const char *contents)
{
  g_autofree char *path = g_build_filename (base, relative, NULL);
  g_autofree char *dir = g_path_get_dirname (path);
  g_autoptr(GError) error = NULL;

  if (g_mkdir_with_parents (dir, 0700) != 0)
    g_error ("Cannot make the folder %s: %s", dir, g_strerror (errno));
  g_file_set_contents (path, contents, -1, &error);
  g_assert_no_error (error);
}

/* ---- waiting ------------------------------------------------------------ */

static gboolean
on_tick_cb (gpointer user_data)
{
  return G_SOURCE_CONTINUE;
}

gboolean
lumo_test_try_wait_until (LumoTestCondition condition,
                          gpointer          data,
                          guint             timeout_ms)
{
  g_autoptr(GMainContext) context = g_main_context_ref_thread_default ();
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;
  GSource *tick;
  gboolean holds;

  if (condition (data))
    return TRUE;

  /* The tick only wakes an idle loop: at the lowest priority it never
   * stands in front of the work being waited for (GTK lays out and draws
   * at G_PRIORITY_HIGH_IDLE + 20). The deadline is the clock's, not a
   * source's, for the same reason. */
  tick = g_timeout_source_new (TICK_MS);
  g_source_set_priority (tick, G_PRIORITY_LOW);
  g_source_set_callback (tick, on_tick_cb, NULL, NULL);
  g_source_set_name (tick, "[lumo-test] wait tick");
  g_source_attach (tick, context);

  while (!(holds = condition (data)) && g_get_monotonic_time () < deadline)
    g_main_context_iteration (context, TRUE);

  g_source_destroy (tick);
  g_source_unref (tick);

  return holds;
}

void
lumo_test_wait_until (LumoTestCondition  condition,
                      gpointer           data,
                      const char        *what)
{
  if (!lumo_test_try_wait_until (condition, data, LUMO_TEST_WAIT_DEADLINE_S * 1000))
    g_error ("Still waiting for %s after %d s", what, LUMO_TEST_WAIT_DEADLINE_S);
}

gboolean
lumo_test_is_set (gpointer data)
{
  return *(gpointer *) data != NULL;
}

gboolean
lumo_test_is_true (gpointer data)
{
  return *(gboolean *) data;
}

void
lumo_test_keep_result_cb (GObject      *source,
                          GAsyncResult *result,
                          gpointer      user_data)
{
  GAsyncResult **kept = user_data;

  g_assert_null (*kept);
  *kept = g_object_ref (result);
}

void
lumo_test_drain (void)
{
  g_autoptr(GMainContext) context = g_main_context_ref_thread_default ();

  while (g_main_context_iteration (context, FALSE))
    ;
}

/* ---- running a program -------------------------------------------------- */

int
lumo_test_run (GSubprocessLauncher *launcher,
               const char * const  *argv,
               const char          *input,
               char               **out,
               char               **err)
{
  g_autoptr(GSubprocessLauncher) plain = NULL;
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *std_out = NULL;
  g_autofree char *std_err = NULL;
  g_autofree char *what = NULL;

  g_return_val_if_fail (argv != NULL && argv[0] != NULL, -1);

  if (launcher == NULL)
    launcher = plain = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);
  g_subprocess_launcher_set_flags (launcher,
                                   G_SUBPROCESS_FLAGS_STDIN_PIPE |
                                   G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                   G_SUBPROCESS_FLAGS_STDERR_PIPE);
  process = g_subprocess_launcher_spawnv (launcher, argv, &error);
  g_assert_no_error (error);

  /* Ends once both pipes are closed and the program has exited. */
  g_subprocess_communicate_utf8_async (process, input != NULL ? input : "", NULL,
                                       lumo_test_keep_result_cb, &result);
  what = g_strdup_printf ("%s %s to finish", argv[0], argv[1] != NULL ? argv[1] : "");
  lumo_test_wait_until (lumo_test_is_set, &result, what);
  g_subprocess_communicate_utf8_finish (process, result, &std_out, &std_err, &error);
  g_assert_no_error (error);

  if (std_err != NULL && *std_err != '\0')
    g_test_message ("%s: %s", argv[0], std_err);
  if (g_subprocess_get_if_signaled (process))
    g_test_message ("%s was killed by signal %d", argv[0], g_subprocess_get_term_sig (process));
  g_assert_true (g_subprocess_get_if_exited (process));

  if (out != NULL)
    {
      g_free (*out);
      *out = g_steal_pointer (&std_out);
    }
  if (err != NULL)
    {
      g_free (*err);
      *err = g_steal_pointer (&std_err);
    }

  return g_subprocess_get_exit_status (process);
}

JsonNode *
lumo_test_parse_json (const char *text)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;

  g_assert_nonnull (text);
  json_parser_load_from_data (parser, text, -1, &error);
  g_assert_no_error (error);
  g_assert_nonnull (json_parser_get_root (parser));

  return json_parser_steal_root (parser);
}

gboolean
lumo_test_file_contains (const char *path,
                         const char *needle)
{
  g_autofree char *contents = NULL;
  gsize len = 0;
  gsize n = strlen (needle);

  if (!g_file_get_contents (path, &contents, &len, NULL))
    return FALSE;
  for (gsize i = 0; n > 0 && i + n <= len; i++)
    if (memcmp (contents + i, needle, n) == 0)
      return TRUE;
  return FALSE;
}
