/* test-audit-open.c — the integrity check at open runs off the caller's
 * thread, holds writes until it passed, and fails them closed if not
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "audit-test-util.h"

#define N_ROWS 3000

static void
fill (const char *db_path)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(LumoAuditStore) store = lumo_audit_store_new (db_path, &error);
  g_autofree LumoAuditImportRecord *records = g_new0 (LumoAuditImportRecord, N_ROWS);

  g_assert_no_error (error);
  for (guint i = 0; i < N_ROWS; i++)
    {
      records[i].record = audit_test_record (i % 2 ? "save_script" : "run_script");
      records[i].record.time_us = 1700000000000000 + i;
    }
  g_assert_true (lumo_audit_store_import (store, records, N_ROWS, &error));
  g_assert_no_error (error);
  /* Closing the last connection folds the WAL into the file. */
}

/* Overwrites the page in the middle of the file: a b-tree page of the log
 * or its indexes, far from page 1, so the header and schema still read. */
static void
damage_middle_page (const char *db_path)
{
  g_autofree char *wal = g_strconcat (db_path, "-wal", NULL);
  guint8 header[100];
  guint8 junk[512];
  guint page_size;
  off_t size, offset;
  int fd;

  g_assert_false (g_file_test (wal, G_FILE_TEST_EXISTS));

  fd = open (db_path, O_RDWR);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (pread (fd, header, sizeof header, 0), ==, sizeof header);
  page_size = (header[16] << 8) | header[17];
  if (page_size == 1)
    page_size = 65536;
  size = lseek (fd, 0, SEEK_END);
  g_assert_cmpint (size / page_size, >, 20);

  offset = (size / page_size / 2) * page_size;
  memset (junk, 0xa5, sizeof junk);
  g_assert_cmpint (pwrite (fd, junk, sizeof junk, offset), ==, sizeof junk);
  close (fd);
}

static gboolean
check_done (gpointer store)
{
  return lumo_audit_store_get_integrity (store) != LUMO_AUDIT_INTEGRITY_CHECKING;
}

static gboolean
counted_one (gpointer count)
{
  return *(int *) count >= 1;
}

static gboolean
has_two (gpointer array)
{
  return ((GArray *) array)->len >= 2;
}

static void
on_notify_cb (GObject    *object,
              GParamSpec *pspec,
              GPtrArray  *seen)
{
  g_assert_true (g_main_context_is_owner (g_main_context_default ()));
  g_ptr_array_add (seen, g_strdup (pspec->name));
}

static void
on_append_failed_cb (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (lumo_audit_store_append_finish (LUMO_AUDIT_STORE (object), result, &error),
                   ==, 0);
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_DB_CORRUPT);
  (*(int *) user_data)++;
}

static void
test_damaged_fails_closed (void)
{
  g_autofree char *dir = audit_test_tmpdir ();
  g_autofree char *db_path = g_build_filename (dir, "audit.db", NULL);
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(LumoAuditStore) store = NULL;
  g_autoptr(GPtrArray) seen = g_ptr_array_new_with_free_func (g_free);
  LumoAuditRecord r = audit_test_record ("save_script");
  int failed = 0;

  fill (db_path);
  damage_middle_page (db_path);
  before = audit_test_file_checksum (db_path);

  /* The header and schema are sound, so it opens; the damage is found by
   * the writer thread. */
  store = lumo_audit_store_new (db_path, &error);
  g_assert_no_error (error);
  g_assert_nonnull (store);
  g_assert_cmpint (lumo_audit_store_get_integrity (store), ==, LUMO_AUDIT_INTEGRITY_CHECKING);
  g_assert_null (lumo_audit_store_get_integrity_message (store));
  g_signal_connect (store, "notify::integrity", G_CALLBACK (on_notify_cb), seen);

  /* Queued before the check may have finished: it waits, then fails. */
  lumo_audit_store_append_async (store, &r, NULL, on_append_failed_cb, &failed);

  /* Fail closed: the backend denies a write whose append fails. */
  g_assert_cmpint (lumo_audit_store_append (store, &r, &error), ==, 0);
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_DB_CORRUPT);
  g_assert_nonnull (strstr (error->message, db_path));
  g_clear_error (&error);

  g_assert_false (lumo_audit_store_set_result (store, 1, TRUE, NULL, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_DB_CORRUPT);
  g_clear_error (&error);

  lumo_test_wait_until (check_done, store, "the integrity check");
  lumo_test_wait_until (counted_one, &failed, "the failed append");

  g_assert_cmpint (lumo_audit_store_get_integrity (store), ==, LUMO_AUDIT_INTEGRITY_FAILED);
  g_assert_nonnull (strstr (lumo_audit_store_get_integrity_message (store), db_path));
  g_assert_cmpuint (seen->len, ==, 1);
  {
    LumoAuditIntegrity state;
    g_autofree char *message = NULL;

    g_object_get (store, "integrity", &state, "integrity-message", &message, NULL);
    g_assert_cmpint (state, ==, LUMO_AUDIT_INTEGRITY_FAILED);
    g_assert_cmpstr (message, ==, lumo_audit_store_get_integrity_message (store));
  }

  /* Later writes fail the same way. */
  g_assert_cmpint (lumo_audit_store_append (store, &r, &error), ==, 0);
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_DB_CORRUPT);
  g_clear_error (&error);

  g_clear_object (&store);
  /* Nothing was written into the damaged file. */
  after = audit_test_file_checksum (db_path);
  g_assert_cmpstr (before, ==, after);

  lumo_test_dir_remove (dir);
}

static void
on_result_set_cb (LumoAuditStore *store,
                  gint64          id,
                  GArray         *ids)
{
  g_assert_true (g_main_context_is_owner (g_main_context_default ()));
  g_array_append_val (ids, id);
}

static void
test_sound_store (void)
{
  g_autofree char *dir = audit_test_tmpdir ();
  g_autofree char *db_path = g_build_filename (dir, "audit.db", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(LumoAuditStore) store = NULL;
  g_autoptr(GArray) results = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GPtrArray) page = NULL;
  g_autoptr(LumoAuditRow) row = NULL;
  LumoAuditRecord r = audit_test_record ("save_script");
  gint64 id, denied;

  fill (db_path);
  store = lumo_audit_store_new (db_path, &error);
  g_assert_no_error (error);
  g_assert_cmpint (lumo_audit_store_get_integrity (store), ==, LUMO_AUDIT_INTEGRITY_CHECKING);
  g_signal_connect (store, "result-set", G_CALLBACK (on_result_set_cb), results);

  /* Reads need not wait for the check. */
  page = lumo_audit_store_fetch_page (store, NULL, 0, 50, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (page->len, ==, 50);

  /* A write queued during the check proceeds once it passed. */
  id = lumo_audit_store_append (store, &r, &error);
  g_assert_no_error (error);
  g_assert_cmpint (id, ==, N_ROWS + 1);
  r.decision = LUMO_AUDIT_DECISION_DENY;
  r.reason = LUMO_AUDIT_REASON_NOT_AUTHORIZED;
  denied = lumo_audit_store_append (store, &r, &error);
  g_assert_no_error (error);

  lumo_test_wait_until (check_done, store, "the integrity check");
  g_assert_cmpint (lumo_audit_store_get_integrity (store), ==, LUMO_AUDIT_INTEGRITY_OK);
  g_assert_null (lumo_audit_store_get_integrity_message (store));

  /* ::result-set only for results this store filled in, not for refused
   * ones. */
  g_assert_true (lumo_audit_store_set_result (store, id, FALSE, "boom", &error));
  g_assert_no_error (error);
  g_assert_false (lumo_audit_store_set_result (store, denied, TRUE, NULL, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_true (lumo_audit_store_set_result (store, 7, TRUE, NULL, &error));
  g_assert_no_error (error);

  lumo_test_wait_until (has_two, results, "two ::result-set");
  lumo_test_drain ();
  g_assert_cmpuint (results->len, ==, 2);
  g_assert_cmpint (g_array_index (results, gint64, 0), ==, id);
  g_assert_cmpint (g_array_index (results, gint64, 1), ==, 7);

  row = lumo_audit_store_get_row (store, id, &error);
  g_assert_no_error (error);
  g_assert_cmpint (lumo_audit_row_get_result (row), ==, LUMO_AUDIT_RESULT_ERROR);

  g_clear_object (&store);
  lumo_test_dir_remove (dir);
}

/* Dropping the store while the check may still run neither hangs on it
 * nor leaks (ASan). */
static void
test_close_during_check (void)
{
  g_autofree char *dir = audit_test_tmpdir ();
  g_autofree char *db_path = g_build_filename (dir, "audit.db", NULL);
  g_autoptr(GError) error = NULL;

  fill (db_path);
  for (guint i = 0; i < 5; i++)
    {
      LumoAuditStore *store = lumo_audit_store_new (db_path, &error);

      g_assert_no_error (error);
      g_object_unref (store);
    }
  lumo_test_drain ();

  lumo_test_dir_remove (dir);
}

static gboolean
check_waiting (gpointer store)
{
  return _lumo_audit_store_is_check_waiting (store);
}

/* LUMO_AUDIT_STORE_HOLD_CHECK: the check waits for the release, serving
 * reads meanwhile, and runs once released. */
static void
test_held_until_released (void)
{
  g_autofree char *dir = audit_test_tmpdir ();
  g_autofree char *db_path = g_build_filename (dir, "audit.db", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(LumoAuditStore) store = NULL;
  g_autoptr(GPtrArray) page = NULL;

  fill (db_path);
  store = lumo_audit_store_new_with_flags (db_path, LUMO_AUDIT_STORE_HOLD_CHECK, &error);
  g_assert_no_error (error);

  /* The writer is parked before the check, not past it. */
  lumo_test_wait_until (check_waiting, store, "the writer to wait for the release");
  page = lumo_audit_store_fetch_page (store, NULL, 0, 50, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (page->len, ==, 50);
  lumo_test_drain ();
  g_assert_cmpint (lumo_audit_store_get_integrity (store), ==, LUMO_AUDIT_INTEGRITY_CHECKING);
  g_assert_true (_lumo_audit_store_is_check_waiting (store));

  lumo_audit_store_release_check (store);
  lumo_test_wait_until (check_done, store, "the released integrity check");
  g_assert_cmpint (lumo_audit_store_get_integrity (store), ==, LUMO_AUDIT_INTEGRITY_OK);
  g_assert_false (_lumo_audit_store_is_check_waiting (store));
  /* Again, and on a store that never held: nothing happens. */
  lumo_audit_store_release_check (store);

  g_clear_object (&store);
  lumo_test_dir_remove (dir);
}

/* A write never waits on the hold and never skips the check: on a damaged
 * log, an unreleased store's first write starts the check and fails
 * closed. */
static void
test_held_write_starts_check (void)
{
  g_autofree char *dir = audit_test_tmpdir ();
  g_autofree char *db_path = g_build_filename (dir, "audit.db", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(LumoAuditStore) store = NULL;
  LumoAuditRecord r = audit_test_record ("save_script");

  fill (db_path);
  damage_middle_page (db_path);
  store = lumo_audit_store_new_with_flags (db_path, LUMO_AUDIT_STORE_HOLD_CHECK, &error);
  g_assert_no_error (error);
  lumo_test_wait_until (check_waiting, store, "the writer to wait for the release");

  g_assert_cmpint (lumo_audit_store_append (store, &r, &error), ==, 0);
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_DB_CORRUPT);
  g_clear_error (&error);
  lumo_test_wait_until (check_done, store, "the integrity check");
  g_assert_cmpint (lumo_audit_store_get_integrity (store), ==, LUMO_AUDIT_INTEGRITY_FAILED);

  g_clear_object (&store);
  lumo_test_dir_remove (dir);
}

/* A held store dropped without a release neither hangs nor checks. */
static void
test_held_close (void)
{
  g_autofree char *dir = audit_test_tmpdir ();
  g_autofree char *db_path = g_build_filename (dir, "audit.db", NULL);
  g_autoptr(GError) error = NULL;
  LumoAuditStore *store;

  fill (db_path);
  store = lumo_audit_store_new_with_flags (db_path, LUMO_AUDIT_STORE_HOLD_CHECK, &error);
  g_assert_no_error (error);
  lumo_test_wait_until (check_waiting, store, "the writer to wait for the release");
  g_object_unref (store);
  lumo_test_drain ();

  lumo_test_dir_remove (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/audit-open/damaged-fails-closed", test_damaged_fails_closed);
  g_test_add_func ("/audit-open/sound-store", test_sound_store);
  g_test_add_func ("/audit-open/close-during-check", test_close_during_check);
  g_test_add_func ("/audit-open/held-until-released", test_held_until_released);
  g_test_add_func ("/audit-open/held-write-starts-check", test_held_write_starts_check);
  g_test_add_func ("/audit-open/held-close", test_held_close);

  return g_test_run ();
}
