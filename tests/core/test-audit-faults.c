/* test-audit-faults.c — a full disk and I/O errors never leave a half row
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The fault VFS (fault-vfs.h) fails xWrite or xSync on demand. The store is
 * opened on it through _lumo_audit_store_new_full().
 */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "audit-test-util.h"

#include "fault-vfs.h"

typedef struct
{
  char           *dir;
  char           *db_path;
  char           *head_path;
  LumoAuditStore *store;
} Fixture;

static LumoAuditStore *
open_on_fault_vfs (const char *db_path)
{
  g_autoptr(GError) error = NULL;
  LumoAuditStore *store = _lumo_audit_store_new_full (db_path, NULL, NULL, FAULT_VFS, LUMO_AUDIT_STORE_FLAGS_NONE, &error);

  g_assert_no_error (error);
  return store;
}

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  fault_vfs_clear ();
  f->dir = audit_test_tmpdir ();
  f->db_path = g_build_filename (f->dir, "audit.db", NULL);
  f->head_path = g_build_filename (f->dir, "audit.head", NULL);
  f->store = open_on_fault_vfs (f->db_path);

  for (guint i = 0; i < 5; i++)
    audit_test_append (f->store, "before_fault");
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  fault_vfs_clear ();
  g_clear_object (&f->store);
  lumo_test_dir_remove (f->dir);
  g_free (f->dir);
  g_free (f->db_path);
  g_free (f->head_path);
}

/* After a fault: no trace of the failed work, the index consistent, the
 * chain whole, the checkpoint not ahead; then the store works again. */
static void
assert_clean_and_recovers (Fixture *f,
                           gint64   expected_rows)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *head_before = NULL;
  g_autofree char *head_after = NULL;
  char *err = NULL;
  gint64 id;

  g_assert_cmpint (audit_test_count (f->store, NULL), ==, expected_rows);
  g_assert_cmpint (audit_test_count (f->store, "during_fault"), ==, 0);
  g_assert_true (lumo_audit_store_verify (f->store, NULL, NULL, NULL, NULL, &error));
  g_assert_no_error (error);

  fault_vfs_clear ();
  head_before = audit_test_file_checksum (f->head_path);
  id = audit_test_append (f->store, "after_fault");
  /* The chain continues right after the last good row: no gap, no ghost. */
  g_assert_cmpint (id, ==, expected_rows + 1);
  head_after = audit_test_file_checksum (f->head_path);
  g_assert_cmpstr (head_before, !=, head_after);
  g_assert_true (lumo_audit_store_verify (f->store, NULL, NULL, NULL, NULL, &error));
  g_assert_no_error (error);

  /* Reopened from disk, with SQLite's own checks. */
  g_clear_object (&f->store);
  g_assert_cmpint (audit_test_sqlite3 (f->db_path,
                                       "PRAGMA integrity_check;"
                                       "INSERT INTO audit_fts (audit_fts) VALUES ('integrity-check')",
                                       &err), ==, 0);
  g_free (err);
  f->store = open_on_fault_vfs (f->db_path);
  g_assert_cmpint (audit_test_count (f->store, NULL), ==, expected_rows + 1);
  g_assert_true (lumo_audit_store_verify (f->store, NULL, NULL, NULL, NULL, &error));
  g_assert_no_error (error);
}

static void
assert_append_fails (Fixture *f,
                     int      code)
{
  g_autoptr(GError) error = NULL;
  LumoAuditRecord r = audit_test_record ("during_fault");

  g_assert_cmpint (lumo_audit_store_append (f->store, &r, &error), ==, 0);
  g_assert_error (error, LUMO_ERROR, code);
  g_test_message ("append: %s", error->message);
}

static void
test_disk_full_on_write (Fixture       *f,
                         gconstpointer  data)
{
  g_atomic_int_set (&fault_vfs_write_fault, SQLITE_FULL);
  assert_append_fails (f, LUMO_ERROR_DB_FULL);
  assert_append_fails (f, LUMO_ERROR_DB_FULL);
  assert_clean_and_recovers (f, 5);
}

static void
test_io_error_on_write (Fixture       *f,
                        gconstpointer  data)
{
  g_atomic_int_set (&fault_vfs_write_fault, SQLITE_IOERR_WRITE);
  assert_append_fails (f, LUMO_ERROR_DB_IO);
  assert_clean_and_recovers (f, 5);
}

static void
test_io_error_on_sync (Fixture       *f,
                       gconstpointer  data)
{
  g_atomic_int_set (&fault_vfs_sync_fault, SQLITE_IOERR_FSYNC);
  assert_append_fails (f, LUMO_ERROR_DB_IO);
  assert_clean_and_recovers (f, 5);
}

static void
test_disk_full_on_sync (Fixture       *f,
                        gconstpointer  data)
{
  g_atomic_int_set (&fault_vfs_sync_fault, SQLITE_FULL);
  assert_append_fails (f, LUMO_ERROR_DB_FULL);
  assert_clean_and_recovers (f, 5);
}

static void
test_fault_mid_import (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(GArray) records = g_array_new (FALSE, TRUE, sizeof (LumoAuditImportRecord));
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < 20000; i++)
    {
      LumoAuditImportRecord r = { 0, };

      r.record = audit_test_record ("during_fault");
      g_array_append_val (records, r);
    }

  /* Some pages get out (the cache spills), then the disk is full. */
  g_atomic_int_set (&fault_vfs_writes_before, 50);
  g_atomic_int_set (&fault_vfs_write_fault, SQLITE_FULL);
  g_assert_false (lumo_audit_store_import (f->store, (LumoAuditImportRecord *) records->data,
                                           records->len, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_DB_FULL);
  assert_clean_and_recovers (f, 5);
}

static void
test_fault_on_result (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(LumoAuditRow) row = NULL;

  g_atomic_int_set (&fault_vfs_sync_fault, SQLITE_IOERR_FSYNC);
  g_assert_false (lumo_audit_store_set_result (f->store, 3, FALSE, "during_fault", &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_DB_IO);
  fault_vfs_clear ();
  g_clear_error (&error);

  row = lumo_audit_store_get_row (f->store, 3, &error);
  g_assert_no_error (error);
  g_assert_cmpint (lumo_audit_row_get_result (row), ==, LUMO_AUDIT_RESULT_NONE);

  /* The result can still be set, once. */
  g_assert_true (lumo_audit_store_set_result (f->store, 3, TRUE, NULL, &error));
  g_assert_no_error (error);
  assert_clean_and_recovers (f, 5);
}

typedef struct
{
  GMainLoop *loop;
  guint      pending;
  guint      failed;
} Batch;

static void
on_appended_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  Batch *b = user_data;
  g_autoptr(GError) error = NULL;

  if (lumo_audit_store_append_finish (LUMO_AUDIT_STORE (object), result, &error) == 0)
    {
      g_assert_error (error, LUMO_ERROR, LUMO_ERROR_DB_FULL);
      b->failed++;
    }
  if (--b->pending == 0)
    g_main_loop_quit (b->loop);
}

static void
test_fault_fails_whole_batch (Fixture       *f,
                              gconstpointer  data)
{
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  Batch b = { loop, 16, 0 };
  LumoAuditRecord r = audit_test_record ("during_fault");

  /* Every caller of a failed group commit learns of it: none is told
   * "durable" for a row that is not. */
  g_atomic_int_set (&fault_vfs_write_fault, SQLITE_FULL);
  for (guint i = 0; i < 16; i++)
    lumo_audit_store_append_async (f->store, &r, NULL, on_appended_cb, &b);
  g_main_loop_run (loop);
  g_assert_cmpuint (b.failed, ==, 16);

  assert_clean_and_recovers (f, 5);
}

/* A failed fsync leaves a complete commit frame in the WAL. If the process
 * dies before its next write overwrites it, SQLite's recovery brings the
 * row back although its append failed. It was never acknowledged and the
 * checkpoint does not cover it, so verify counts it as unconfirmed. */
static void
test_failed_sync_then_crash (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(LumoAuditStore) store = NULL;
  LumoAuditVerifyReport report;
  g_autofree char *dir = NULL;
  g_autofree char *db_path = NULL;

  /* The child finds the parent's directory by the parent's pid. */
  dir = g_strdup_printf ("%s/lumo-audit-crash-%d", g_get_tmp_dir (),
                         g_test_subprocess () ? (int) getppid () : (int) getpid ());
  db_path = g_build_filename (dir, "audit.db", NULL);

  if (g_test_subprocess ())
    {
      LumoAuditRecord r = audit_test_record ("during_fault");

      store = open_on_fault_vfs (db_path);
      audit_test_append (store, "before_crash");
      g_atomic_int_set (&fault_vfs_sync_fault, SQLITE_IOERR_FSYNC);
      g_assert_cmpint (lumo_audit_store_append (store, &r, &error), ==, 0);
      g_assert_error (error, LUMO_ERROR, LUMO_ERROR_DB_IO);
      _exit (0);
    }

  lumo_test_dir_remove (dir);
  g_assert_cmpint (g_mkdir (dir, 0700), ==, 0);
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();

  store = open_on_fault_vfs (db_path);
  g_assert_true (lumo_audit_store_verify (store, NULL, NULL, NULL, &report, &error));
  g_assert_no_error (error);
  g_assert_cmpint (report.checkpoint_id, ==, 1);
  g_assert_cmpint (report.rows_after_checkpoint, ==, report.last_id - 1);
  g_test_message ("unacknowledged rows back after the crash: %" G_GINT64_FORMAT,
                  report.rows_after_checkpoint);

  g_clear_object (&store);
  lumo_test_dir_remove (dir);
}

/* Every append has synced before it returns, the first one after the
 * search index caught up as well. */
static void
test_appends_sync (Fixture       *f,
                   gconstpointer  data)
{
  gint before;

  _lumo_audit_store_set_index_catch_up (f->store, FALSE);
  before = g_atomic_int_get (&fault_vfs_syncs);
  for (guint i = 0; i < 3; i++)
    {
      audit_test_append (f->store, "synced");
      g_assert_cmpint (g_atomic_int_get (&fault_vfs_syncs), >, before);
      before = g_atomic_int_get (&fault_vfs_syncs);
    }

  _lumo_audit_store_set_index_catch_up (f->store, TRUE);
  audit_test_append (f->store, "synced");
  audit_test_wait_indexed (f->db_path, 4);
  before = g_atomic_int_get (&fault_vfs_syncs);
  audit_test_append (f->store, "synced");
  g_assert_cmpint (g_atomic_int_get (&fault_vfs_syncs), >, before);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  fault_vfs_register ();

#define ADD(name, func) \
  g_test_add ("/audit-faults/" name, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("disk-full-on-write", test_disk_full_on_write);
  ADD ("io-error-on-write", test_io_error_on_write);
  ADD ("io-error-on-sync", test_io_error_on_sync);
  ADD ("disk-full-on-sync", test_disk_full_on_sync);
  ADD ("fault-mid-import", test_fault_mid_import);
  ADD ("fault-on-result", test_fault_on_result);
  ADD ("fault-fails-whole-batch", test_fault_fails_whole_batch);
  ADD ("appends-sync", test_appends_sync);
  g_test_add_func ("/audit-faults/failed-sync-then-crash", test_failed_sync_then_crash);

  return g_test_run ();
}
