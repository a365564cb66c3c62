/* test-audit-concurrency.c — many writers, two processes, and SIGKILL
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <gio/gunixinputstream.h>
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
  lumo_test_dir_remove (dir);
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
  lumo_test_dir_remove (dir);
}

static guint
count_lines (const GString *out)
{
  guint n = 0;

  for (gsize i = 0; i < out->len; i++)
    n += out->str[i] == '\n';
  return n;
}

/* Reads the writer's output until it holds @n complete lines (ids). */
static char *
read_acknowledged (GSubprocess *proc,
                   guint        n)
{
  GInputStream *stdout_pipe = g_subprocess_get_stdout_pipe (proc);
  GString *out = g_string_new (NULL);

  while (count_lines (out) < n)
    {
      g_autoptr(GError) error = NULL;
      GPollFD fd = { g_unix_input_stream_get_fd (G_UNIX_INPUT_STREAM (stdout_pipe)), G_IO_IN | G_IO_HUP, 0 };
      char buf[256];
      gssize got;

      /* A safety net against a writer that hangs, never a measurement. */
      if (g_poll (&fd, 1, 60000) == 0 && (g_subprocess_force_exit (proc), TRUE))
        g_error ("The writer acknowledged nothing for 60 s (%u of %u rows)", count_lines (out), n);
      got = g_input_stream_read (stdout_pipe, buf, sizeof buf, NULL, &error);

      g_assert_no_error (error);
      if (got == 0)
        g_error ("The writer exited before it acknowledged %u rows:\n%s", n, out->str);
      g_string_append_len (out, buf, got);
    }

  return g_string_free (out, FALSE);
}

/* Appends the rest of the writer's output, up to EOF, to *@out. */
static void
read_to_end (GSubprocess  *proc,
             char        **out)
{
  GInputStream *stdout_pipe = g_subprocess_get_stdout_pipe (proc);
  GString *text = g_string_new (*out);
  gssize got;
  char buf[4096];

  while ((got = g_input_stream_read (stdout_pipe, buf, sizeof buf, NULL, NULL)) > 0)
    g_string_append_len (text, buf, got);

  g_free (*out);
  *out = g_string_free (text, FALSE);
}

static void
test_kill_writer (void)
{
  g_autofree char *dir = audit_test_tmpdir ();
  g_autofree char *db_path = g_build_filename (dir, "audit.db", NULL);
  gint64 total_acked = 0;
  gint64 waited_for = 0;

  for (guint round = 0; round < KILL_ROUNDS; round++)
    {
      g_autoptr(GSubprocess) proc = NULL;
      g_autoptr(LumoAuditStore) store = NULL;
      g_autoptr(GError) error = NULL;
      g_autofree char *out = NULL;
      g_autoptr(GArray) ids = NULL;
      LumoAuditVerifyReport report;
      gint64 before;

      guint wait_for = round % 8 == 0 ? 0 : (guint) g_test_rand_int_range (1, 40);

      proc = spawn_writer (db_path, 0, 1 + round % 4, "killed_writer");

      /* Anywhere: while it opens (no id yet), while it writes, between two
       * fsyncs — after a random number of acknowledged ids, waited for on
       * its output, not on a clock. */
      out = read_acknowledged (proc, wait_for);
      g_subprocess_send_signal (proc, SIGKILL);
      read_to_end (proc, &out);
      g_subprocess_wait (proc, NULL, NULL);
      g_assert_true (g_subprocess_get_if_signaled (proc));

      /* Every acknowledged id survived; the log opens and verifies; the
       * checkpoint may lag but never leads. */
      ids = parse_ids (out);
      g_assert_cmpuint (ids->len, >=, wait_for);
      total_acked += ids->len;
      waited_for += wait_for;
      store = lumo_audit_store_new (db_path, &error);
      g_assert_no_error (error);
      assert_all_present (store, ids);
      assert_verifies (store, &report);
      before = report.last_id;
      if (ids->len > 0)
        g_assert_cmpint (report.checkpoint_id, >=, g_array_index (ids, gint64, ids->len - 1));

      /* And it takes new rows right after. A writer killed inside its
       * index's catch-up left audit_order whole (the catch-up is one
       * transaction), and every key by time finds every row, indexed or
       * not. */
      g_assert_cmpint (audit_test_append (store, "after_kill"), ==, before + 1);
      g_assert_true (audit_test_order_sound (db_path));
      g_assert_cmpint (audit_test_count (store, "since:1d"), ==, before + 1);
    }

  /* The rounds did kill writers that had acknowledged rows: a run in which
   * none had would prove nothing about durability. */
  g_assert_cmpint (waited_for, >, 0);
  g_assert_cmpint (total_acked, >=, waited_for);
  g_test_message ("acknowledged rows over all rounds: %" G_GINT64_FORMAT, total_acked);
  lumo_test_dir_remove (dir);
}

/* ---- the last reference, dropped right after an append ---------------------- */

/* Rounds per case: each opens a store, appends, and lets go of it at the
 * moment the writer thread has just finished with the append. Before the
 * writer stopped completing tasks itself, the "task holds the last
 * reference" case aborted on the first round (dispose joined the writer
 * thread from the writer thread). */
#define LAST_REF_ROUNDS 60

typedef struct
{
  GMainLoop      *loop;
  LumoAuditStore *store;   /* owned until the callback, or NULL */
  gint64          id;
} LastRef;

static void
on_append_release_cb (GObject      *object,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  LastRef *lr = user_data;
  g_autoptr(GError) error = NULL;

  lr->id = lumo_audit_store_append_finish (LUMO_AUDIT_STORE (object), result, &error);
  g_assert_no_error (error);
  /* The task's is now the only other reference. */
  g_clear_object (&lr->store);
  g_main_loop_quit (lr->loop);
}

/* @release_early: drop the caller's reference right after the call, so the
 * task holds the last one; otherwise drop it in the callback. */
static void
async_release_rounds (const char *dir,
                      gboolean    release_early,
                      gint64     *last)
{
  g_autoptr(GMainLoop) loop = g_main_loop_new (g_main_context_get_thread_default (), FALSE);
  LumoAuditRecord r = audit_test_record ("save_script");

  for (guint i = 0; i < LAST_REF_ROUNDS; i++)
    {
      LastRef lr = { loop, audit_test_open (dir), 0 };
      GWeakRef weak;

      g_weak_ref_init (&weak, lr.store);
      lumo_audit_store_append_async (lr.store, &r, NULL, on_append_release_cb, &lr);
      if (release_early)
        {
          LumoAuditStore *store = g_steal_pointer (&lr.store);

          g_object_unref (store);
        }
      g_main_loop_run (loop);

      /* Each append is durable and follows the one before, and the store
       * is gone once the callback returned. */
      g_assert_cmpint (lr.id, ==, *last + 1);
      *last = lr.id;
      lumo_test_drain ();
      g_assert_null (g_weak_ref_get (&weak));
      g_weak_ref_clear (&weak);
    }
}

static void
test_last_ref_async (void)
{
  g_autofree char *dir = audit_test_tmpdir ();
  gint64 last = 0;

  async_release_rounds (dir, TRUE, &last);
  async_release_rounds (dir, FALSE, &last);
  lumo_test_dir_remove (dir);
}

/* The same on another thread with its own main context: the callback, and
 * so the last unref, comes on that thread. */
static gpointer
async_in_thread (gpointer data)
{
  g_autoptr(GMainContext) context = g_main_context_new ();
  gint64 last = 0;

  g_main_context_push_thread_default (context);
  async_release_rounds (data, TRUE, &last);
  async_release_rounds (data, FALSE, &last);
  g_main_context_pop_thread_default (context);
  return NULL;
}

static void
test_last_ref_async_thread (void)
{
  g_autofree char *dir = audit_test_tmpdir ();

  g_thread_join (g_thread_new ("last-ref-async", async_in_thread, dir));
  lumo_test_dir_remove (dir);
}

typedef struct
{
  LumoAuditStore *store;   /* owned by the thread */
  gint64          id;
} SyncRelease;

static void
on_row_added_ignore (LumoAuditStore *store,
                     gint64          id,
                     gpointer        user_data)
{
}

static gpointer
append_and_release (gpointer data)
{
  SyncRelease *sr = data;
  LumoAuditRecord r = audit_test_record ("save_script");
  g_autoptr(GError) error = NULL;

  sr->id = lumo_audit_store_append (sr->store, &r, &error);
  g_assert_no_error (error);
  g_clear_object (&sr->store);
  return NULL;
}

/* A sync append on another thread, and the last reference dropped there
 * the moment it returns, while the writer thread is still finishing its
 * batch (the row-added idle, the WAL checkpoint). With two threads the
 * last unref lands on whichever finishes second. */
static void
test_last_ref_sync_thread (void)
{
  g_autofree char *dir = audit_test_tmpdir ();
  gint64 last = 0;

  for (guint i = 0; i < LAST_REF_ROUNDS; i++)
    {
      LumoAuditStore *store = audit_test_open (dir);
      SyncRelease sr[2] = { { store, 0 }, { g_object_ref (store), 0 } };
      GThread *threads[G_N_ELEMENTS (sr)];
      GWeakRef weak;

      g_weak_ref_init (&weak, store);
      /* A handler, so the writer schedules a row-added idle too. */
      g_signal_connect (store, "row-added", G_CALLBACK (on_row_added_ignore), NULL);
      for (guint k = 0; k < G_N_ELEMENTS (sr); k++)
        threads[k] = g_thread_new ("last-ref-sync", append_and_release, &sr[k]);
      for (guint k = 0; k < G_N_ELEMENTS (sr); k++)
        g_thread_join (threads[k]);

      g_assert_cmpint (MAX (sr[0].id, sr[1].id), ==, last + 2);
      g_assert_cmpint (MIN (sr[0].id, sr[1].id), ==, last + 1);
      last += 2;
      g_assert_null (g_weak_ref_get (&weak));
      g_weak_ref_clear (&weak);
      /* The row-added idle finds the store gone and does nothing. */
      lumo_test_drain ();
    }

  lumo_test_dir_remove (dir);
}

/* ---- noticing other writers ---------------------------------------------------- */

typedef struct
{
  guint   changed;
  guint   added;
} ChangeCounts;

static void
on_changed_cb (LumoAuditStore *store,
               gpointer        user_data)
{
  ((ChangeCounts *) user_data)->changed++;
}

static void
on_row_added_cb (LumoAuditStore *store,
                 gint64          id,
                 gpointer        user_data)
{
  ((ChangeCounts *) user_data)->added++;
}

static gboolean
changed_at_least (gpointer data)
{
  const guint *want = ((gpointer *) data)[1];

  return ((ChangeCounts *) ((gpointer *) data)[0])->changed >= *want;
}

static void
wait_changed (ChangeCounts *counts,
              guint         want)
{
  gpointer data[2] = { counts, &want };

  lumo_test_wait_until (changed_at_least, data, "::changed after another writer's commit");
}

static gboolean
added_at_least_one (gpointer data)
{
  return ((ChangeCounts *) data)->added >= 1;
}

/* Another store on the same file (another connection, as a second app
 * instance has): its rows are announced by ::changed without a search;
 * this store's own rows are not (they have ::row-added). */
static void
test_changed_by_other_store (void)
{
  g_autofree char *dir = audit_test_tmpdir ();
  g_autoptr(LumoAuditStore) watcher = audit_test_open (dir);
  g_autoptr(LumoAuditStore) other = audit_test_open (dir);
  ChangeCounts counts = { 0, };

  g_signal_connect (watcher, "changed", G_CALLBACK (on_changed_cb), &counts);
  g_signal_connect (watcher, "row-added", G_CALLBACK (on_row_added_cb), &counts);

  audit_test_append (other, "from_other");
  wait_changed (&counts, 1);
  g_assert_cmpint (audit_test_count (watcher, "from_other"), ==, 1);

  /* One commit elsewhere is one emission at most. */
  audit_test_append (watcher, "mine");
  lumo_test_wait_until (added_at_least_one, &counts, "::row-added of this store's own row");
  g_assert_cmpuint (counts.changed, ==, 1);

  audit_test_append (other, "from_other");
  wait_changed (&counts, 2);
  g_assert_cmpint (audit_test_count (watcher, "from_other"), ==, 2);

  g_clear_object (&other);
  g_clear_object (&watcher);
  lumo_test_dir_remove (dir);
}

/* A commit while the store is still opening — its writer thread checks the
 * integrity of a big log first, for seconds — is another's all the same,
 * not part of where the log stood when it was opened. */
static void
test_changed_while_opening (void)
{
  g_autofree char *dir = audit_test_tmpdir ();
  g_autofree char *db_path = g_build_filename (dir, "audit.db", NULL);
  g_autoptr(LumoAuditStore) other = NULL;
  g_autoptr(LumoAuditStore) watcher = NULL;
  g_autoptr(GSubprocess) proc = NULL;
  g_autoptr(GError) error = NULL;
  ChangeCounts counts = { 0, };

  /* A log whose quick_check takes far longer than one append. */
  proc = spawn_writer (db_path, 1000, 32, "seed");
  /* Its ids fill more than a pipe holds: read them. */
  g_assert_true (g_subprocess_communicate (proc, NULL, NULL, NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_successful (proc));
  other = audit_test_open (dir);
  audit_test_append (other, "before");

  watcher = audit_test_open (dir);
  g_signal_connect (watcher, "changed", G_CALLBACK (on_changed_cb), &counts);
  audit_test_append (other, "from_other");
  wait_changed (&counts, 1);
  g_assert_cmpint (audit_test_count (watcher, "tool:from_other"), ==, 1);

  g_clear_object (&other);
  g_clear_object (&watcher);
  lumo_test_dir_remove (dir);
}

/* A separate process (lumo-access-ctl, a second app) writing. */
static void
test_changed_by_other_process (void)
{
  g_autofree char *dir = audit_test_tmpdir ();
  g_autofree char *db_path = g_build_filename (dir, "audit.db", NULL);
  g_autoptr(LumoAuditStore) watcher = audit_test_open (dir);
  g_autoptr(GSubprocess) proc = NULL;
  g_autoptr(GError) error = NULL;
  ChangeCounts counts = { 0, };

  g_signal_connect (watcher, "changed", G_CALLBACK (on_changed_cb), &counts);

  proc = spawn_writer (db_path, 3, 1, "other_process");
  g_assert_true (g_subprocess_wait_check (proc, NULL, &error));
  g_assert_no_error (error);

  wait_changed (&counts, 1);
  g_assert_cmpint (audit_test_count (watcher, "tool:other_process"), ==, 3);

  g_clear_object (&watcher);
  lumo_test_dir_remove (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/audit-concurrency/two-processes", test_two_processes);
  g_test_add_func ("/audit-concurrency/many-threads", test_many_threads);
  g_test_add_func ("/audit-concurrency/kill-writer", test_kill_writer);
  g_test_add_func ("/audit-concurrency/last-ref-async", test_last_ref_async);
  g_test_add_func ("/audit-concurrency/last-ref-async-thread", test_last_ref_async_thread);
  g_test_add_func ("/audit-concurrency/last-ref-sync-thread", test_last_ref_sync_thread);
  g_test_add_func ("/audit-concurrency/changed-by-other-store", test_changed_by_other_store);
  g_test_add_func ("/audit-concurrency/changed-by-other-process", test_changed_by_other_process);
  g_test_add_func ("/audit-concurrency/changed-while-opening", test_changed_while_opening);

  return g_test_run ();
}
