/* test-audit-concurrency.c — many writers, two processes, and SIGKILL
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <signal.h>
#include <string.h>

#include "audit-test-util.h"

#define KILL_ROUNDS 40

/* audit-writer is built beside this test. */
static char *
writer_path (void)
{
  g_autofree char *self = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *dir = NULL;

  g_assert_nonnull (self);
  dir = g_path_get_dirname (self);
  return g_build_filename (dir, "audit-writer", NULL);
}

static GSubprocess *
spawn_writer (const char *db_path,
              guint       rows,
              guint       threads,
              const char *tool)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *exe = writer_path ();
  g_autofree char *rows_s = g_strdup_printf ("%u", rows);
  g_autofree char *threads_s = g_strdup_printf ("%u", threads);
  GSubprocess *proc;

  proc = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error,
                           exe, db_path, rows_s, threads_s, tool, NULL);
  g_assert_no_error (error);
  return proc;
}

/* The ids of the complete lines of @out; a line cut by SIGKILL is not an
 * acknowledged id. */
static GArray *
parse_ids (const char *out)
{
  GArray *ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  const char *p = out != NULL ? out : "";

  for (const char *nl; (nl = strchr (p, '\n')) != NULL; p = nl + 1)
    {
      gint64 id = g_ascii_strtoll (p, NULL, 10);

      g_assert_cmpint (id, >, 0);
      g_array_append_val (ids, id);
    }

  return ids;
}

static void
assert_all_present (LumoAuditStore *store,
                    GArray         *ids)
{
  for (guint i = 0; i < ids->len; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(LumoAuditRow) row = lumo_audit_store_get_row (store, g_array_index (ids, gint64, i),
                                                              &error);

      g_assert_no_error (error);
      g_assert_nonnull (row);
    }
}

static void
assert_verifies (LumoAuditStore        *store,
                 LumoAuditVerifyReport *report)
{
  g_autoptr(GError) error = NULL;

  if (!lumo_audit_store_verify (store, NULL, NULL, NULL, report, &error))
    g_error ("verify: %s", error->message);
}

static void
test_two_processes (void)
{
  g_autofree char *dir = audit_test_tmpdir ();
  g_autofree char *db_path = g_build_filename (dir, "audit.db", NULL);
  g_autoptr(GSubprocess) a = NULL;
  g_autoptr(GSubprocess) b = NULL;
  g_autoptr(GHashTable) seen = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autoptr(LumoAuditStore) store = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *out_a = NULL;
  g_autofree char *out_b = NULL;
  g_autoptr(GArray) ids_a = NULL;
  g_autoptr(GArray) ids_b = NULL;
  LumoAuditVerifyReport report;

  /* Create the store first so both processes share one secret. */
  store = audit_test_open (dir);
  g_clear_object (&store);

  a = spawn_writer (db_path, 150, 4, "process_a");
  b = spawn_writer (db_path, 150, 4, "process_b");
  g_assert_true (g_subprocess_communicate_utf8 (a, NULL, NULL, &out_a, NULL, &error));
  g_assert_true (g_subprocess_communicate_utf8 (b, NULL, NULL, &out_b, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_subprocess_wait_check (a, NULL, &error));
  g_assert_true (g_subprocess_wait_check (b, NULL, &error));
  g_assert_no_error (error);

  ids_a = parse_ids (out_a);
  ids_b = parse_ids (out_b);
  g_assert_cmpuint (ids_a->len, ==, 600);
  g_assert_cmpuint (ids_b->len, ==, 600);
  for (guint i = 0; i < 600; i++)
    {
      g_assert_true (g_hash_table_add (seen, &g_array_index (ids_a, gint64, i)));
      g_assert_true (g_hash_table_add (seen, &g_array_index (ids_b, gint64, i)));
    }

  store = audit_test_open (dir);
  g_assert_cmpint (audit_test_count (store, NULL), ==, 1200);
  g_assert_cmpint (audit_test_count (store, "tool:process_a"), ==, 600);
  g_assert_cmpint (audit_test_count (store, "tool:process_b"), ==, 600);
  assert_all_present (store, ids_a);
  assert_all_present (store, ids_b);
  assert_verifies (store, &report);
  g_assert_cmpint (report.last_id, ==, 1200);
  g_assert_cmpint (report.rows_after_checkpoint, ==, 0);

  g_clear_object (&store);
  audit_test_rm_rf (dir);
}

#define N_THREADS 64
#define ROWS_PER_THREAD 20

typedef struct
{
  LumoAuditStore *store;
  guint           index;
  gint64          ids[ROWS_PER_THREAD];
} ThreadData;

static gpointer
append_thread (gpointer data)
{
  ThreadData *td = data;
  g_autofree char *tool = g_strdup_printf ("thread_%02u", td->index);

  for (guint i = 0; i < ROWS_PER_THREAD; i++)
    {
      td->ids[i] = audit_test_append (td->store, tool);
      if (i > 0)
        g_assert_cmpint (td->ids[i], >, td->ids[i - 1]);
    }

  return NULL;
}

static void
test_many_threads (void)
{
  g_autofree char *dir = audit_test_tmpdir ();
  g_autoptr(LumoAuditStore) store = audit_test_open (dir);
  g_autoptr(GHashTable) seen = g_hash_table_new (g_int64_hash, g_int64_equal);
  ThreadData data[N_THREADS];
  GThread *threads[N_THREADS];
  LumoAuditVerifyReport report;

  for (guint i = 0; i < N_THREADS; i++)
    {
      data[i].store = store;
      data[i].index = i;
      threads[i] = g_thread_new ("appender", append_thread, &data[i]);
    }
  for (guint i = 0; i < N_THREADS; i++)
    g_thread_join (threads[i]);

  /* Every thread got its own rows: distinct ids, each row its thread's. */
  for (guint i = 0; i < N_THREADS; i++)
    {
      g_autofree char *tool = g_strdup_printf ("thread_%02u", i);

      for (guint k = 0; k < ROWS_PER_THREAD; k++)
        {
          g_autoptr(GError) error = NULL;
          g_autoptr(LumoAuditRow) row = lumo_audit_store_get_row (store, data[i].ids[k], &error);

          g_assert_no_error (error);
          g_assert_cmpstr (lumo_audit_row_get_tool (row), ==, tool);
          g_assert_true (g_hash_table_add (seen, &data[i].ids[k]));
        }
    }

  g_assert_cmpint (audit_test_count (store, NULL), ==, N_THREADS * ROWS_PER_THREAD);
  assert_verifies (store, &report);
  g_assert_cmpint (report.last_id, ==, N_THREADS * ROWS_PER_THREAD);

  g_clear_object (&store);
  audit_test_rm_rf (dir);
}

static void
test_kill_writer (void)
{
  g_autofree char *dir = audit_test_tmpdir ();
  g_autofree char *db_path = g_build_filename (dir, "audit.db", NULL);
  gint64 total_acked = 0;

  for (guint round = 0; round < KILL_ROUNDS; round++)
    {
      g_autoptr(GSubprocess) proc = NULL;
      g_autoptr(LumoAuditStore) store = NULL;
      g_autoptr(GError) error = NULL;
      g_autofree char *out = NULL;
      g_autoptr(GArray) ids = NULL;
      LumoAuditVerifyReport report;
      gint64 before;

      proc = spawn_writer (db_path, 0, 1 + round % 4, "killed_writer");

      /* Anywhere: while it opens, while it writes, between two fsyncs. */
      g_usleep (g_test_rand_int_range (0, 80000));
      g_subprocess_send_signal (proc, SIGKILL);
      g_assert_true (g_subprocess_communicate_utf8 (proc, NULL, NULL, &out, NULL, &error));
      g_assert_no_error (error);
      g_subprocess_wait (proc, NULL, NULL);
      g_assert_true (g_subprocess_get_if_signaled (proc));

      /* Every acknowledged id survived; the log opens and verifies; the
       * checkpoint may lag but never leads. */
      ids = parse_ids (out);
      total_acked += ids->len;
      store = lumo_audit_store_new (db_path, &error);
      g_assert_no_error (error);
      assert_all_present (store, ids);
      assert_verifies (store, &report);
      before = report.last_id;
      if (ids->len > 0)
        g_assert_cmpint (report.checkpoint_id, >=, g_array_index (ids, gint64, ids->len - 1));

      /* And it takes new rows right after. */
      g_assert_cmpint (audit_test_append (store, "after_kill"), ==, before + 1);
    }

  g_test_message ("acknowledged rows over all rounds: %" G_GINT64_FORMAT, total_acked);
  audit_test_rm_rf (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/audit-concurrency/two-processes", test_two_processes);
  g_test_add_func ("/audit-concurrency/many-threads", test_many_threads);
  g_test_add_func ("/audit-concurrency/kill-writer", test_kill_writer);

  return g_test_run ();
}
