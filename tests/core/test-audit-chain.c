/* test-audit-chain.c — the hash chain finds every kind of tampering
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each tampering is done the way someone with the file would do it: with
 * the sqlite3 shell, after dropping the triggers.
 */
#include "config.h"

#include <string.h>

#include <sqlite3.h>

#include "audit-test-util.h"
#include "lumo-audit-chain.h"
#include "lumo-audit-secret.h"
#include "lumo-db.h"

#define N_ROWS 10

typedef struct
{
  char           *dir;
  char           *db_path;
  char           *head_path;
  LumoAuditStore *store;
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  f->dir = audit_test_tmpdir ();
  f->db_path = g_build_filename (f->dir, "audit.db", NULL);
  f->head_path = g_build_filename (f->dir, "audit.head", NULL);
  f->store = audit_test_open (f->dir);

  for (guint i = 1; i <= N_ROWS; i++)
    {
      g_autofree char *tool = g_strdup_printf ("tool_%u", i);
      LumoAuditRecord r = audit_test_record (tool);
      gint64 id;

      /* Row 7 is a desktop agent's, row 8 was let through by a grant: the
       * second encoding of the chain (lumo-audit-chain.h) is in every
       * log these tests tamper with. */
      r.caller_kind = i == 7 ? LUMO_AUDIT_CALLER_KIND_AGENT : LUMO_AUDIT_CALLER_KIND_EXTENSION;
      r.by_grant = i == 8;
      id = lumo_audit_store_append (f->store, &r, &error);
      g_assert_no_error (error);

      g_assert_cmpint (id, ==, i);
      if (i % 3 == 2)
        g_assert_true (lumo_audit_store_set_result (f->store, id, i % 2 == 0,
                                                    i % 2 == 0 ? NULL : "failed", &error));
      g_assert_no_error (error);
    }
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  g_clear_object (&f->store);
  lumo_test_dir_remove (f->dir);
  g_free (f->dir);
  g_free (f->db_path);
  g_free (f->head_path);
}

/* Closes the store, runs @sql in the sqlite3 shell, reopens. */
static void
tamper (Fixture    *f,
        const char *sql)
{
  g_autofree char *err = NULL;

  g_clear_object (&f->store);
  if (audit_test_sqlite3 (f->db_path, sql, &err) != 0)
    g_error ("sqlite3 failed: %s", err);
  f->store = audit_test_open (f->dir);
}

static void
assert_fault (Fixture        *f,
              LumoAuditFault  fault,
              gint64          bad_id,
              const char     *needle)
{
  g_autoptr(GError) error = NULL;
  LumoAuditVerifyReport report;

  g_assert_false (lumo_audit_store_verify (f->store, NULL, NULL, NULL, &report, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_CHAIN_BROKEN);
  g_test_message ("verify: %s", error->message);
  g_assert_cmpint (report.fault, ==, fault);
  g_assert_cmpint (report.bad_id, ==, bad_id);
  if (strstr (error->message, needle) == NULL)
    g_error ("“%s” does not say “%s”", error->message, needle);
}

static void
assert_verifies (Fixture *f)
{
  g_autoptr(GError) error = NULL;
  LumoAuditVerifyReport report;

  g_assert_true (lumo_audit_store_verify (f->store, NULL, NULL, NULL, &report, &error));
  g_assert_no_error (error);
  g_assert_cmpint (report.fault, ==, LUMO_AUDIT_FAULT_NONE);
}

static void
test_untouched (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  LumoAuditVerifyReport report;

  g_assert_true (lumo_audit_store_verify (f->store, NULL, NULL, NULL, &report, &error));
  g_assert_no_error (error);
  g_assert_cmpint (report.rows_checked, ==, N_ROWS);
  g_assert_cmpint (report.first_id, ==, 1);
  g_assert_cmpint (report.last_id, ==, N_ROWS);
  g_assert_cmpint (report.checkpoint_id, ==, N_ROWS);
  g_assert_cmpint (report.rows_after_checkpoint, ==, 0);

  /* Reopening changes nothing. */
  g_clear_object (&f->store);
  f->store = audit_test_open (f->dir);
  assert_verifies (f);
}

static void
test_edited_field (Fixture       *f,
                   gconstpointer  data)
{
  tamper (f, "DROP TRIGGER audit_update_guard; UPDATE audit SET decision = 'deny' WHERE id = 5");
  assert_fault (f, LUMO_AUDIT_FAULT_ROW_CHANGED, 5, "Row 5");
}

/* The caller's kind and the grant are decision fields like the others:
 * either way round, an edit breaks the row's hash. */
static void
test_edited_kind (Fixture       *f,
                  gconstpointer  data)
{
  tamper (f, "DROP TRIGGER audit_update_guard; UPDATE audit SET caller_kind = 'agent' WHERE id = 4");
  assert_fault (f, LUMO_AUDIT_FAULT_ROW_CHANGED, 4, "Row 4");
}

static void
test_edited_kind_back (Fixture       *f,
                       gconstpointer  data)
{
  tamper (f, "DROP TRIGGER audit_update_guard; UPDATE audit SET caller_kind = 'extension' WHERE id = 7");
  assert_fault (f, LUMO_AUDIT_FAULT_ROW_CHANGED, 7, "Row 7");
}

static void
test_edited_grant (Fixture       *f,
                   gconstpointer  data)
{
  tamper (f, "DROP TRIGGER audit_update_guard; UPDATE audit SET by_grant = 0 WHERE id = 8");
  assert_fault (f, LUMO_AUDIT_FAULT_ROW_CHANGED, 8, "Row 8");
}

static void
test_edited_caller (Fixture       *f,
                    gconstpointer  data)
{
  tamper (f, "DROP TRIGGER audit_update_guard;"
             "UPDATE audit SET caller_id = '" TEST_CALLER2_ID "' WHERE id = 7");
  assert_fault (f, LUMO_AUDIT_FAULT_ROW_CHANGED, 7, "Row 7");
}

static void
test_edited_result (Fixture       *f,
                    gconstpointer  data)
{
  /* Row 5 failed with "failed"; rewrite it into a success. */
  tamper (f, "DROP TRIGGER audit_update_guard;"
             "UPDATE audit SET result = 'ok', result_text = NULL WHERE id = 5");
  assert_fault (f, LUMO_AUDIT_FAULT_RESULT_CHANGED, 5, "row 5");
}

static void
test_forged_result (Fixture       *f,
                    gconstpointer  data)
{
  /* The trigger lets an unset result be filled in, but without the key the
   * MAC cannot be right. */
  tamper (f, "UPDATE audit SET result = 'ok', result_time_us = 1, result_mac = zeroblob (32) "
             "WHERE id = 3");
  assert_fault (f, LUMO_AUDIT_FAULT_RESULT_CHANGED, 3, "row 3");
}

static void
test_deleted_row (Fixture       *f,
                  gconstpointer  data)
{
  tamper (f, "DROP TRIGGER audit_delete_guard; DELETE FROM audit WHERE id = 4");
  assert_fault (f, LUMO_AUDIT_FAULT_ROW_MISSING, 4, "Row 4 was deleted");
}

static void
test_deleted_front (Fixture       *f,
                    gconstpointer  data)
{
  tamper (f, "DROP TRIGGER audit_delete_guard; DELETE FROM audit WHERE id <= 3");
  assert_fault (f, LUMO_AUDIT_FAULT_ROW_MISSING, 1, "Rows 1–3");
}

static void
test_swapped_rows (Fixture       *f,
                   gconstpointer  data)
{
  tamper (f, "DROP TRIGGER audit_update_guard;"
             "UPDATE audit SET id = -3 WHERE id = 3;"
             "UPDATE audit SET id = 3 WHERE id = 4;"
             "UPDATE audit SET id = 4 WHERE id = -3");
  assert_fault (f, LUMO_AUDIT_FAULT_ROW_CHANGED, 3, "Row 3");
}

static void
test_swapped_contents (Fixture       *f,
                       gconstpointer  data)
{
  /* Same ids, the decision fields of two rows exchanged. */
  tamper (f, "DROP TRIGGER audit_update_guard;"
             "UPDATE audit SET tool = CASE id WHEN 6 THEN 'tool_8' ELSE 'tool_6' END,"
             "  hash = (SELECT hash FROM audit b WHERE b.id = 14 - audit.id)"
             " WHERE id IN (6, 8)");
  assert_fault (f, LUMO_AUDIT_FAULT_ROW_CHANGED, 6, "Row 6");
}

static void
test_inserted_row (Fixture       *f,
                   gconstpointer  data)
{
  tamper (f, "DROP TRIGGER audit_update_guard;"
             "UPDATE audit SET id = -id WHERE id >= 5;"
             "UPDATE audit SET id = 1 - id WHERE id < 0;"
             "INSERT INTO audit (id, time_us, provider_id, caller_id, caller_name, tool, write, "
             "  target, params_hmac, decision, reason, hash) "
             "SELECT 5, time_us, provider_id, caller_id, caller_name, 'forged', 1, target, "
             "  params_hmac, 'allow', '', randomblob (32) FROM audit WHERE id = 4");
  assert_fault (f, LUMO_AUDIT_FAULT_ROW_CHANGED, 5, "Row 5");
}

static void
test_appended_row (Fixture       *f,
                   gconstpointer  data)
{
  tamper (f, "INSERT INTO audit (id, time_us, provider_id, caller_id, caller_name, tool, write, "
             "  target, params_hmac, decision, reason, hash) "
             "SELECT 11, time_us, provider_id, caller_id, caller_name, 'forged', 1, target, "
             "  params_hmac, 'allow', '', randomblob (32) FROM audit WHERE id = 10");
  assert_fault (f, LUMO_AUDIT_FAULT_ROW_CHANGED, 11, "Row 11");
}

static void
test_tail_cut (Fixture       *f,
               gconstpointer  data)
{
  /* The chain itself is intact; only the checkpoint outside the database
   * knows that rows 8–10 existed. */
  tamper (f, "DROP TRIGGER audit_delete_guard; DELETE FROM audit WHERE id >= 8");
  assert_fault (f, LUMO_AUDIT_FAULT_TAIL_CUT, 8, "rows from 8 on were cut off");
}

static void
test_tail_cut_everything (Fixture       *f,
                          gconstpointer  data)
{
  tamper (f, "DROP TRIGGER audit_delete_guard; DELETE FROM audit");
  assert_fault (f, LUMO_AUDIT_FAULT_TAIL_CUT, 1, "cut off");
}

/* A rewrite that recomputes every hash after the edit makes the chain
 * consistent again, but not the checkpoint. */
static void
recompute_chain (Fixture *f,
                 gint64   edited_id)
{
  g_autofree char *edit = g_strdup_printf ("DROP TRIGGER audit_update_guard;"
                                           "UPDATE audit SET tool = 'innocent' WHERE id = %"
                                           G_GINT64_FORMAT, edited_id);
  g_autoptr(sqlite3_stmt) read = NULL;
  g_autoptr(sqlite3_stmt) write = NULL;
  guint8 prev[LUMO_AUDIT_HASH_SIZE] = { 0, };
  sqlite3 *db = NULL;

  g_clear_object (&f->store);
  g_assert_cmpint (sqlite3_open (f->db_path, &db), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (db, edit, NULL, NULL, NULL), ==, SQLITE_OK);
  sqlite3_prepare_v2 (db, "SELECT id, time_us, provider_id, caller_id, caller_name, tool, write,"
                          " target, params_hmac, decision, reason, caller_kind, by_grant"
                          " FROM audit ORDER BY id",
                      -1, &read, NULL);
  sqlite3_prepare_v2 (db, "UPDATE audit SET hash = ? WHERE id = ?", -1, &write, NULL);
  while (sqlite3_step (read) == SQLITE_ROW)
    {
      LumoAuditChainFields fields = {
        .id = sqlite3_column_int64 (read, 0),
        .time_us = sqlite3_column_int64 (read, 1),
        .provider_id = (const char *) sqlite3_column_text (read, 2),
        .caller_id = (const char *) sqlite3_column_text (read, 3),
        .caller_name = (const char *) sqlite3_column_text (read, 4),
        .tool = (const char *) sqlite3_column_text (read, 5),
        .write = sqlite3_column_int (read, 6),
        .target = (const char *) sqlite3_column_text (read, 7),
        .params_hmac = sqlite3_column_blob (read, 8),
        .decision = (const char *) sqlite3_column_text (read, 9),
        .reason = (const char *) sqlite3_column_text (read, 10),
        .caller_kind = (const char *) sqlite3_column_text (read, 11),
        .by_grant = sqlite3_column_int (read, 12),
      };
      guint8 hash[LUMO_AUDIT_HASH_SIZE];

      lumo_audit_chain_row_hash (prev, &fields, hash);
      sqlite3_bind_blob (write, 1, hash, sizeof hash, SQLITE_TRANSIENT);
      sqlite3_bind_int64 (write, 2, fields.id);
      g_assert_cmpint (sqlite3_step (write), ==, SQLITE_DONE);
      sqlite3_reset (write);
      memcpy (prev, hash, sizeof prev);
    }
  g_clear_pointer (&read, sqlite3_finalize);
  g_clear_pointer (&write, sqlite3_finalize);
  sqlite3_close (db);

  f->store = audit_test_open (f->dir);
}

static void
test_recomputed_chain (Fixture       *f,
                       gconstpointer  data)
{
  /* Results are MAC'd over their row's hash: the first result after the
   * edit (row 5) no longer matches. */
  recompute_chain (f, 4);
  assert_fault (f, LUMO_AUDIT_FAULT_RESULT_CHANGED, 5, "row 5");
}

static void
test_recomputed_tail (Fixture       *f,
                      gconstpointer  data)
{
  /* No result after row 9: only the checkpoint (row 10) gives it away. */
  recompute_chain (f, 9);
  assert_fault (f, LUMO_AUDIT_FAULT_CHECKPOINT, 10, "Row 10");
}

static void
test_triggers_refuse (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  char *err = NULL;

  g_clear_object (&f->store);
  before = audit_test_file_checksum (f->db_path);

  g_assert_cmpint (audit_test_sqlite3 (f->db_path, "UPDATE audit SET tool = 'x' WHERE id = 1",
                                       &err), !=, 0);
  g_assert_nonnull (strstr (err, "append-only"));
  g_clear_pointer (&err, g_free);

  /* Not even the result of a row whose result is already set. */
  g_assert_cmpint (audit_test_sqlite3 (f->db_path, "UPDATE audit SET result = 'ok' WHERE id = 5",
                                       &err), !=, 0);
  g_assert_nonnull (strstr (err, "append-only"));
  g_clear_pointer (&err, g_free);

  /* Nor the caller's kind or the grant (schema version 2's columns). */
  g_assert_cmpint (audit_test_sqlite3 (f->db_path, "UPDATE audit SET caller_kind = 'agent' WHERE id = 1",
                                       &err), !=, 0);
  g_assert_nonnull (strstr (err, "append-only"));
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (audit_test_sqlite3 (f->db_path, "UPDATE audit SET by_grant = 0 WHERE id = 8",
                                       &err), !=, 0);
  g_assert_nonnull (strstr (err, "append-only"));
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (audit_test_sqlite3 (f->db_path, "DELETE FROM audit WHERE id = 10", &err), !=, 0);
  g_assert_nonnull (strstr (err, "retention"));
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (audit_test_sqlite3 (f->db_path, "DELETE FROM audit", &err), !=, 0);
  g_clear_pointer (&err, g_free);

  after = audit_test_file_checksum (f->db_path);
  g_assert_cmpstr (before, ==, after);

  f->store = audit_test_open (f->dir);
  assert_verifies (f);
  g_assert_cmpint (audit_test_count (f->store, NULL), ==, N_ROWS);
}

static void
test_checkpoint (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *saved = NULL;
  g_autofree char *forged = NULL;
  g_autoptr(GError) error = NULL;
  LumoAuditVerifyReport report;

  /* A checkpoint that lags (as after a crash) is fine. */
  g_assert_true (g_file_get_contents (f->head_path, &saved, NULL, NULL));
  audit_test_append (f->store, "later_1");
  audit_test_append (f->store, "later_2");
  g_assert_true (g_file_set_contents (f->head_path, saved, -1, NULL));
  g_assert_true (lumo_audit_store_verify (f->store, NULL, NULL, NULL, &report, &error));
  g_assert_no_error (error);
  g_assert_cmpint (report.checkpoint_id, ==, N_ROWS);
  g_assert_cmpint (report.rows_after_checkpoint, ==, 2);

  /* One that leads cannot be made without the key. */
  forged = g_strdup (saved);
  *(strchr (strchr (forged, ' ') + 1, ' ') - 1) = '2';   /* id …10 → …12 */
  g_assert_true (g_file_set_contents (f->head_path, forged, -1, NULL));
  assert_fault (f, LUMO_AUDIT_FAULT_CHECKPOINT, 0, "secret");

  g_assert_true (g_file_set_contents (f->head_path, "garbage", -1, NULL));
  assert_fault (f, LUMO_AUDIT_FAULT_CHECKPOINT, 0, "malformed");

  /* Deleting the checkpoint does not hide a cut. */
  g_assert_cmpint (g_unlink (f->head_path), ==, 0);
  assert_fault (f, LUMO_AUDIT_FAULT_CHECKPOINT, N_ROWS + 2, "missing");
}

static void
append_old (LumoAuditStore *store,
            guint           n,
            gint64          time_us)
{
  g_autoptr(GArray) records = g_array_new (FALSE, TRUE, sizeof (LumoAuditImportRecord));
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < n; i++)
    {
      LumoAuditImportRecord r = { 0, };

      r.record = audit_test_record ("old_tool");
      r.record.time_us = time_us + i;
      g_array_append_val (records, r);
    }

  g_assert_true (lumo_audit_store_import (store, (LumoAuditImportRecord *) records->data,
                                          records->len, &error));
  g_assert_no_error (error);
}

static void
test_retention (void)
{
  g_autofree char *dir = audit_test_tmpdir ();
  g_autoptr(LumoAuditStore) store = audit_test_open (dir);
  g_autofree char *db_path = g_build_filename (dir, "audit.db", NULL);
  g_autoptr(GError) error = NULL;
  gint64 now = g_get_real_time ();
  gint64 day = G_GINT64_CONSTANT (86400000000);
  LumoAuditVerifyReport report;
  char *err = NULL;

  append_old (store, 20, now - 40 * day);
  append_old (store, 5, now - 20 * day);
  audit_test_append (store, "new_tool");
  g_assert_cmpint (audit_test_count (store, "old_tool"), ==, 25);

  g_assert_cmpint (lumo_audit_store_apply_retention (store, 0, &error), ==, -1);
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  g_assert_cmpint (lumo_audit_store_apply_retention (store, 30, &error), ==, 20);
  g_assert_no_error (error);
  g_assert_cmpint (audit_test_count (store, NULL), ==, 6);
  /* The index forgot the deleted rows too. */
  g_assert_cmpint (audit_test_count (store, "old_tool"), ==, 5);

  g_assert_true (lumo_audit_store_verify (store, NULL, NULL, NULL, &report, &error));
  g_assert_no_error (error);
  g_assert_cmpint (report.anchor_id, ==, 20);
  g_assert_cmpint (report.first_id, ==, 21);
  g_assert_cmpint (report.rows_checked, ==, 6);

  /* Nothing more to delete; new rows chain on. */
  g_assert_cmpint (lumo_audit_store_apply_retention (store, 30, &error), ==, 0);
  g_assert_cmpint (lumo_audit_store_apply_retention (store, 10, &error), ==, 5);
  g_assert_cmpint (audit_test_append (store, "newer_tool"), ==, 27);
  g_assert_true (lumo_audit_store_verify (store, NULL, NULL, NULL, &report, &error));
  g_assert_no_error (error);
  g_assert_cmpint (report.anchor_id, ==, 25);

  /* A retention cutoff cannot reach rows newer than the cutoff. */
  g_clear_object (&store);
  g_assert_cmpint (audit_test_sqlite3 (db_path,
                                       "INSERT INTO audit_retention_cutoff VALUES (1, 0, 100);"
                                       "DELETE FROM audit WHERE id = 26", &err), !=, 0);
  g_assert_nonnull (strstr (err, "retention"));
  g_clear_pointer (&err, g_free);

  /* A forged anchor (a front cut posing as retention) is caught. */
  g_assert_cmpint (audit_test_sqlite3 (db_path,
                                       "DROP TRIGGER audit_delete_guard;"
                                       "DELETE FROM audit WHERE id = 26;"
                                       "UPDATE audit_anchor SET last_id = 26", &err), ==, 0);
  g_clear_pointer (&err, g_free);
  store = audit_test_open (dir);
  g_assert_false (lumo_audit_store_verify (store, NULL, NULL, NULL, &report, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_CHAIN_BROKEN);
  g_assert_cmpint (report.fault, ==, LUMO_AUDIT_FAULT_ANCHOR);

  g_clear_object (&store);
  lumo_test_dir_remove (dir);
}

static void
on_progress (gint64   done,
             gint64   total,
             gpointer user_data)
{
  GCancellable *cancellable = user_data;

  g_assert_cmpint (done, <=, total);
  if (cancellable != NULL)
    g_cancellable_cancel (cancellable);
}

static void
test_progress_and_cancel (void)
{
  g_autofree char *dir = audit_test_tmpdir ();
  g_autoptr(LumoAuditStore) store = audit_test_open (dir);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;

  append_old (store, 40000, g_get_real_time () - 1000000000);

  g_assert_true (lumo_audit_store_verify (store, on_progress, NULL, NULL, NULL, &error));
  g_assert_no_error (error);

  g_assert_false (lumo_audit_store_verify (store, on_progress, cancellable, cancellable, NULL,
                                           &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);

  g_clear_object (&store);
  lumo_test_dir_remove (dir);
}

static void
test_encoding_unambiguous (void)
{
  guint8 params[LUMO_AUDIT_HASH_SIZE] = { 1, };
  guint8 zero[LUMO_AUDIT_HASH_SIZE] = { 0, };
  guint8 h1[LUMO_AUDIT_HASH_SIZE], h2[LUMO_AUDIT_HASH_SIZE];
  LumoAuditChainFields a = {
    1, 2, TEST_PROVIDER_ID, TEST_CALLER_ID, "ab", "c", TRUE, "", params, "allow", ""
  };
  LumoAuditChainFields b = a;

  /* Moving a character from one field to the next changes the hash. */
  b.caller_name = "a";
  b.tool = "bc";
  lumo_audit_chain_row_hash (zero, &a, h1);
  lumo_audit_chain_row_hash (zero, &b, h2);
  g_assert_true (memcmp (h1, h2, sizeof h1) != 0);

  /* And the same fields give the same hash. */
  lumo_audit_chain_row_hash (zero, &a, h2);
  g_assert_true (memcmp (h1, h2, sizeof h1) == 0);

  /* An extension's row without a grant keeps the first encoding, whether
   * the kind is spelled or left out: rows of schema version 1 verify. */
  b = a;
  b.caller_kind = "extension";
  lumo_audit_chain_row_hash (zero, &b, h2);
  g_assert_true (memcmp (h1, h2, sizeof h1) == 0);

  /* An agent's row, or a grant, is the second encoding: a new hash. */
  b.caller_kind = "agent";
  lumo_audit_chain_row_hash (zero, &b, h2);
  g_assert_true (memcmp (h1, h2, sizeof h1) != 0);
  b.caller_kind = "extension";
  b.by_grant = TRUE;
  lumo_audit_chain_row_hash (zero, &b, h2);
  g_assert_true (memcmp (h1, h2, sizeof h1) != 0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(name, func) \
  g_test_add ("/audit-chain/" name, Fixture, NULL, fixture_set_up, func, fixture_tear_down)

  ADD ("untouched", test_untouched);
  ADD ("edited-field", test_edited_field);
  ADD ("edited-caller", test_edited_caller);
  ADD ("edited-kind", test_edited_kind);
  ADD ("edited-kind-back", test_edited_kind_back);
  ADD ("edited-grant", test_edited_grant);
  ADD ("edited-result", test_edited_result);
  ADD ("forged-result", test_forged_result);
  ADD ("deleted-row", test_deleted_row);
  ADD ("deleted-front", test_deleted_front);
  ADD ("swapped-rows", test_swapped_rows);
  ADD ("swapped-contents", test_swapped_contents);
  ADD ("inserted-row", test_inserted_row);
  ADD ("appended-row", test_appended_row);
  ADD ("tail-cut", test_tail_cut);
  ADD ("tail-cut-everything", test_tail_cut_everything);
  ADD ("recomputed-chain", test_recomputed_chain);
  ADD ("recomputed-tail", test_recomputed_tail);
  ADD ("triggers-refuse", test_triggers_refuse);
  ADD ("checkpoint", test_checkpoint);
  g_test_add_func ("/audit-chain/retention", test_retention);
  g_test_add_func ("/audit-chain/progress-and-cancel", test_progress_and_cancel);
  g_test_add_func ("/audit-chain/encoding-unambiguous", test_encoding_unambiguous);

  return g_test_run ();
}
