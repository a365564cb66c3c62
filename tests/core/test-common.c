/* test-common.c — the shared test support itself (tests/common)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every suite trusts these helpers to clean up, to wait and to run the CLI
 * truthfully, so what they promise is tested like anything else: the
 * remover stays inside its folder, a wait sees a condition no source
 * announces, a program's status and output come back as they were, and a
 * failure is a failure.
 */
#define G_LOG_DOMAIN "test-common"

#include "config.h"

#include <glib/gstdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lumo-test.h"

static void
test_dir_remove (void)
{
  g_autofree char *dir = lumo_test_dir_new ("common");
  g_autofree char *outside = lumo_test_dir_new ("common-outside");
  g_autofree char *kept = g_build_filename (outside, "kept", NULL);
  g_autofree char *link = g_build_filename (dir, "a/link", NULL);
  g_autofree char *locked = g_build_filename (dir, "a/locked", NULL);
  g_autofree char *base = g_path_get_basename (dir);

  g_assert_true (g_str_has_prefix (base, "lumo-common-"));
  lumo_test_write_in (dir, "a/b/c/file", "x");
  lumo_test_write_in (dir, "a/locked/file", "y");
  lumo_test_write_in (outside, "kept", "must stay");
  g_assert_cmpint (symlink (outside, link), ==, 0);
  g_assert_cmpint (g_chmod (locked, 0500), ==, 0);

  lumo_test_dir_remove (dir);

  /* Everything below goes, the folder a link points to does not. */
  g_assert_false (g_file_test (dir, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (kept, G_FILE_TEST_IS_REGULAR));

  /* A file is just removed; what is gone already is fine. */
  lumo_test_dir_remove (kept);
  g_assert_false (g_file_test (kept, G_FILE_TEST_EXISTS));
  lumo_test_dir_remove (kept);
  lumo_test_dir_remove (outside);
  g_assert_false (g_file_test (outside, G_FILE_TEST_EXISTS));
}

static gboolean
on_set_cb (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

static gpointer
set_later (gpointer data)
{
  g_usleep (20 * 1000);   /* another thread's work, not a wait of the test */
  g_atomic_int_set ((gint *) data, TRUE);
  return NULL;
}

static gboolean
atomic_is_true (gpointer data)
{
  return g_atomic_int_get ((gint *) data);
}

static gboolean
never (gpointer data)
{
  return FALSE;
}

static void
test_wait (void)
{
  gboolean by_source = FALSE;
  gint by_thread = FALSE;
  GThread *thread;

  /* A source of the main context makes it true. */
  g_timeout_add (10, on_set_cb, &by_source);
  lumo_test_wait_until (lumo_test_is_true, &by_source, "the timeout");
  g_assert_true (by_source);

  /* Another thread makes it true and wakes nothing: still seen. */
  thread = g_thread_new ("set-later", set_later, &by_thread);
  g_assert_true (lumo_test_try_wait_until (atomic_is_true, &by_thread, 10 * 1000));
  g_thread_join (thread);

  /* A condition that never holds ends at the deadline, without hanging. */
  g_assert_false (lumo_test_try_wait_until (never, NULL, 50));
  /* And the wait leaves no source behind. */
  g_assert_false (g_main_context_pending (NULL));
}

static void
test_run (void)
{
  const char *status_argv[] = { "/bin/sh", "-c", "echo out; echo err >&2; exit 3", NULL };
  const char *cat_argv[] = { "/bin/cat", NULL };
  const char *killed_argv[] = { "/bin/sh", "-c", "kill -9 $$", NULL };
  g_autofree char *out = g_strdup ("stale");
  g_autofree char *err = NULL;

  g_assert_cmpint (lumo_test_run (NULL, status_argv, NULL, &out, &err), ==, 3);
  g_assert_cmpstr (out, ==, "out\n");
  g_assert_cmpstr (err, ==, "err\n");

  g_assert_cmpint (lumo_test_run (NULL, cat_argv, "given on stdin", &out, NULL), ==, 0);
  g_assert_cmpstr (out, ==, "given on stdin");

  /* A program killed by a signal is a failed test, not an exit status. */
  if (g_test_subprocess ())
    {
      lumo_test_run (NULL, killed_argv, NULL, NULL, NULL);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr ("*g_subprocess_get_if_exited*");
}

static void
test_parse_json (void)
{
  g_autoptr(JsonNode) node = lumo_test_parse_json ("[1, {\"a\": true}]");

  g_assert_true (JSON_NODE_HOLDS_ARRAY (node));
  g_assert_cmpuint (json_array_get_length (json_node_get_array (node)), ==, 2);

  if (g_test_subprocess ())
    {
      lumo_test_parse_json ("Usage: lumo-access-ctl …");
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr ("*json-parser-error-quark*");
}

static void
test_file_contains (void)
{
  g_autofree char *dir = lumo_test_dir_new ("contains");
  g_autofree char *path = g_build_filename (dir, "f", NULL);

  /* Past a NUL byte too: a database file has plenty. */
  g_assert_true (g_file_set_contents (path, "abc\0secret tail", 16, NULL));
  g_assert_true (lumo_test_file_contains (path, "abc"));
  g_assert_true (lumo_test_file_contains (path, "secret"));
  g_assert_true (lumo_test_file_contains (path, "tail"));
  g_assert_false (lumo_test_file_contains (path, "tails"));
  g_assert_false (lumo_test_file_contains (path, ""));
  g_assert_false (lumo_test_file_contains (dir, "x"));
  g_assert_false (lumo_test_file_contains ("/nonexistent/lumo-file", "x"));
  lumo_test_dir_remove (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/common/dir-remove", test_dir_remove);
  g_test_add_func ("/common/wait", test_wait);
  g_test_add_func ("/common/run", test_run);
  g_test_add_func ("/common/parse-json", test_parse_json);
  g_test_add_func ("/common/file-contains", test_file_contains);

  return g_test_run ();
}
