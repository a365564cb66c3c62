/* test-audit-file.c — opening a collected log read-only
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Another machine's audit.db, copied, and a JSON Lines export: searched,
 * summarized, exported and verified like the app's own log, with and
 * without the key file, and never written — the file's bytes and its
 * folder's listing are compared before and after every open. Damaged and
 * foreign files get a precise error.
 */
#include "config.h"

#include <string.h>

#include <json-glib/json-glib.h>

#include "audit-test-util.h"

typedef struct
{
  char *source;      /* the "other machine": its audit.db and audit.key */
  char *collected;   /* the admin's folder with the copies */
  char *db;          /* collected/machine-a.db */
  char *key;         /* collected/machine-a.key */
  char *jsonl;       /* collected/machine-a.jsonl */
} Fixture;

static void
copy_file (const char *from,
           const char *to,
           int         mode)
{
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  gsize len = 0;

  g_assert_true (g_file_get_contents (from, &contents, &len, &error));
  g_assert_true (g_file_set_contents_full (to, contents, len, G_FILE_SET_CONTENTS_NONE, mode, &error));
  g_assert_no_error (error);
}

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(LumoAuditStore) store = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) out_file = NULL;
  g_autoptr(GFileOutputStream) out = NULL;
  g_autofree char *src_db = NULL;
  g_autofree char *src_key = NULL;

  f->source = audit_test_tmpdir ();
  f->collected = lumo_test_dir_new ("collected");
  f->db = g_build_filename (f->collected, "machine-a.db", NULL);
  f->key = g_build_filename (f->collected, "machine-a.key", NULL);
  f->jsonl = g_build_filename (f->collected, "machine-a.jsonl", NULL);

  store = audit_test_open (f->source);
  for (guint i = 1; i <= 12; i++)
    {
      g_autofree char *tool = g_strdup_printf ("tool_%02u", i);
      LumoAuditRecord r = audit_test_record (tool);
      gint64 id;

      r.caller_kind = i % 4 == 0 ? LUMO_AUDIT_CALLER_KIND_AGENT : LUMO_AUDIT_CALLER_KIND_EXTENSION;
      r.by_grant = i % 5 == 0;
      if (i % 6 == 0)
        {
          r.decision = LUMO_AUDIT_DECISION_DENY;
          r.reason = LUMO_AUDIT_REASON_RATE_LIMITED;
          r.by_grant = FALSE;
        }
      id = lumo_audit_store_append (store, &r, &error);
      g_assert_no_error (error);
      if (i % 3 == 1)
        g_assert_true (lumo_audit_store_set_result (store, id, i % 2 == 0,
                                                    i % 2 == 0 ? NULL : "Target “moved”, line\none", &error));
      g_assert_no_error (error);
    }

  out_file = g_file_new_for_path (f->jsonl);
  out = g_file_replace (out_file, NULL, FALSE, G_FILE_CREATE_PRIVATE, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (lumo_audit_store_export (store, NULL, LUMO_AUDIT_EXPORT_JSONL, G_OUTPUT_STREAM (out),
                                          NULL, NULL, NULL, &error));
  g_assert_true (g_output_stream_close (G_OUTPUT_STREAM (out), NULL, &error));
  g_assert_no_error (error);

  /* Closing the last connection folds the WAL into the file, as a copy
   * taken while the app is closed has it. */
  g_clear_object (&store);
  src_db = g_build_filename (f->source, "audit.db", NULL);
  src_key = g_build_filename (f->source, "audit.key", NULL);
  copy_file (src_db, f->db, 0600);
  copy_file (src_key, f->key, 0600);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  lumo_test_dir_remove (f->source);
  lumo_test_dir_remove (f->collected);
  g_free (f->source);
  g_free (f->collected);
  g_free (f->db);
  g_free (f->key);
  g_free (f->jsonl);
}

static gint64
count (LumoAuditStore *store,
       const char     *text)
{
  return audit_test_count (store, text);
}

static char *
export_jsonl (LumoAuditStore *store)
{
  g_autoptr(GOutputStream) out = g_memory_output_stream_new_resizable ();
  g_autoptr(GError) error = NULL;

  g_assert_true (lumo_audit_store_export (store, NULL, LUMO_AUDIT_EXPORT_JSONL, out, NULL, NULL, NULL,
                                          &error));
  g_assert_no_error (error);
  g_assert_true (g_output_stream_write_all (out, "", 1, NULL, NULL, &error));
  g_assert_true (g_output_stream_close (out, NULL, &error));
  return g_memory_output_stream_steal_data (G_MEMORY_OUTPUT_STREAM (out));
}

/* What both kinds of collected log must do. */
static void
check_collected (Fixture    *f,
                 const char *path)
{
  g_autofree char *before = lumo_test_dir_fingerprint (f->collected);
  g_autofree char *after = NULL;
  g_autofree char *expected_export = NULL;
  g_autofree char *got_export = NULL;
  g_autoptr(GError) error = NULL;

  for (guint keyed = 0; keyed < 2; keyed++)
    {
      g_autoptr(LumoAuditStore) store = lumo_audit_store_open_file (path, keyed ? f->key : NULL, &error);
      g_autoptr(GPtrArray) stats = NULL;
      g_autoptr(GPtrArray) page = NULL;
      LumoAuditVerifyReport report;
      LumoAuditRecord r = audit_test_record ("x");
      LumoAuditStats *s;

      g_assert_no_error (error);
      g_assert_true (lumo_audit_store_is_read_only (store));
      g_assert_cmpstr (lumo_audit_store_get_path (store), ==, path);
      g_assert_cmpint (lumo_audit_store_get_integrity (store), ==, LUMO_AUDIT_INTEGRITY_OK);

      /* Search, filters, paging in another order. */
      g_assert_cmpint (count (store, NULL), ==, 12);
      g_assert_cmpint (count (store, "tool_1"), ==, 3);
      g_assert_cmpint (count (store, "moved"), ==, 2);
      g_assert_cmpint (count (store, "kind:agent"), ==, 3);
      g_assert_cmpint (count (store, "grant:yes"), ==, 2);
      g_assert_cmpint (count (store, "result:denied"), ==, 2);
      page = lumo_audit_store_fetch_sorted (store, NULL, LUMO_AUDIT_SORT_TOOL, LUMO_AUDIT_SORT_ASCENDING,
                                            NULL, 2, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpstr (lumo_audit_row_get_tool (g_ptr_array_index (page, 1)), ==, "tool_02");

      stats = lumo_audit_store_stats (store, NULL, LUMO_AUDIT_GROUP_NONE, NULL, &error);
      g_assert_no_error (error);
      s = g_ptr_array_index (stats, 0);
      g_assert_cmpint (s->total, ==, 12);
      g_assert_cmpint (s->denied, ==, 2);
      g_assert_cmpint (s->failed, ==, 2);

      /* The same export as the machine's own store made. */
      got_export = export_jsonl (store);
      if (expected_export == NULL)
        g_file_get_contents (f->jsonl, &expected_export, NULL, NULL);
      g_assert_cmpstr (got_export, ==, expected_export);
      g_clear_pointer (&got_export, g_free);

      g_assert_true (lumo_audit_store_verify (store, NULL, NULL, NULL, &report, &error));
      g_assert_no_error (error);
      g_assert_cmpint (report.rows_checked, ==, 12);
      g_assert_true (report.keyed == (keyed == 1));

      /* No writes; a params lookup needs the key. */
      g_assert_cmpint (lumo_audit_store_append (store, &r, &error), ==, 0);
      g_assert_error (error, LUMO_ERROR, LUMO_ERROR_DB_IO);
      g_clear_error (&error);
      g_assert_false (lumo_audit_store_set_result (store, 1, TRUE, NULL, &error));
      g_assert_error (error, LUMO_ERROR, LUMO_ERROR_DB_IO);
      g_clear_error (&error);
      g_assert_cmpint (lumo_audit_store_apply_retention (store, 1, &error), ==, -1);
      g_assert_error (error, LUMO_ERROR, LUMO_ERROR_DB_IO);
      g_clear_error (&error);
      {
        g_autofree char *keyed_hash = lumo_audit_store_key_params_hash (store, SHA_A, &error);

        if (keyed)
          g_assert_no_error (error);
        else
          g_assert_error (error, LUMO_ERROR, LUMO_ERROR_SECRET);
        g_clear_error (&error);
      }
    }

  after = lumo_test_dir_fingerprint (f->collected);
  g_assert_cmpstr (before, ==, after);
}

static void
test_database_copy (Fixture       *f,
                    gconstpointer  data)
{
  check_collected (f, f->db);
}

static void
test_jsonl_export (Fixture       *f,
                   gconstpointer  data)
{
  check_collected (f, f->jsonl);
}

static void
on_opened_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  LumoAuditStore **out = user_data;
  g_autoptr(GError) error = NULL;

  *out = lumo_audit_store_open_file_finish (result, &error);
  g_assert_no_error (error);
}

static void
test_async (Fixture       *f,
            gconstpointer  data)
{
  g_autoptr(LumoAuditStore) store = NULL;

  lumo_audit_store_open_file_async (f->db, f->key, NULL, on_opened_cb, &store);
  lumo_test_wait_until (lumo_test_is_set, &store, "the collected log to open");
  g_assert_cmpstr (lumo_audit_store_get_key_path (store), ==, f->key);
  g_assert_cmpint (count (store, NULL), ==, 12);
}

/* ---- tampering ------------------------------------------------------------------ */

static void
assert_verify_fails (const char     *path,
                     const char     *key,
                     LumoAuditFault  fault,
                     gint64          bad_id)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(LumoAuditStore) store = lumo_audit_store_open_file (path, key, &error);
  LumoAuditVerifyReport report;

  g_assert_no_error (error);
  g_assert_false (lumo_audit_store_verify (store, NULL, NULL, NULL, &report, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_CHAIN_BROKEN);
  g_test_message ("verify: %s", error->message);
  g_assert_cmpint (report.fault, ==, fault);
  g_assert_cmpint (report.bad_id, ==, bad_id);
}

static void
replace_in_file (const char *path,
                 const char *from,
                 const char *to)
{
  g_autofree char *contents = NULL;
  g_autoptr(GString) s = NULL;

  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  g_assert_nonnull (strstr (contents, from));
  s = g_string_new (contents);
  g_string_replace (s, from, to, 1);
  g_assert_true (g_file_set_contents (path, s->str, s->len, NULL));
}

static void
test_tampered_copies (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *err = NULL;

  /* A row of the copied database edited with the sqlite3 shell. */
  g_assert_cmpint (audit_test_sqlite3 (f->db, "DROP TRIGGER audit_update_guard;"
                                              "UPDATE audit SET tool = 'tool_99' WHERE id = 7", &err), ==, 0);
  assert_verify_fails (f->db, NULL, LUMO_AUDIT_FAULT_ROW_CHANGED, 7);

  /* A row of the export edited with a text editor. */
  replace_in_file (f->jsonl, "\"tool\":\"tool_05\"", "\"tool\":\"tool_55\"");
  assert_verify_fails (f->jsonl, NULL, LUMO_AUDIT_FAULT_ROW_CHANGED, 5);
}

/* A result lies outside the chain: only its MAC, and so only the key,
 * shows an edit; without the key verify says it did not check it. */
static void
test_tampered_result (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(LumoAuditStore) unkeyed = NULL;
  LumoAuditVerifyReport report;

  replace_in_file (f->jsonl, "Target “moved”", "Target “fine”");
  assert_verify_fails (f->jsonl, f->key, LUMO_AUDIT_FAULT_RESULT_CHANGED, 7);

  unkeyed = lumo_audit_store_open_file (f->jsonl, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (lumo_audit_store_verify (unkeyed, NULL, NULL, NULL, &report, &error));
  g_assert_false (report.keyed);

  /* Another log's key: the message says that may be why. */
  {
    g_autofree char *other_dir = audit_test_tmpdir ();
    g_autofree char *other_key = g_build_filename (other_dir, "audit.key", NULL);
    g_autoptr(LumoAuditStore) other = audit_test_open (other_dir);
    g_autoptr(LumoAuditStore) store = NULL;

    store = lumo_audit_store_open_file (f->db, other_key, &error);
    g_assert_no_error (error);
    g_assert_false (lumo_audit_store_verify (store, NULL, NULL, NULL, &report, &error));
    g_assert_error (error, LUMO_ERROR, LUMO_ERROR_CHAIN_BROKEN);
    g_assert_nonnull (strstr (error->message, "key file"));
    g_assert_cmpint (report.bad_id, ==, 1);
    g_clear_object (&other);
    lumo_test_dir_remove (other_dir);
  }
}

/* An export made before schema version 2 has no caller_kind, by_grant or
 * result_mac: it opens as extensions' rows without grants, its chain
 * verifies, and with the key its results are reported as unchecked MACs
 * rather than passed. */
static void
test_older_export (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *contents = NULL;
  g_autofree char *old = g_build_filename (f->collected, "older.jsonl", NULL);
  g_autoptr(GString) out = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(LumoAuditStore) store = NULL;
  g_autoptr(LumoAuditStore) keyed = NULL;
  g_auto(GStrv) lines = NULL;
  LumoAuditVerifyReport report;

  g_assert_true (g_file_get_contents (f->jsonl, &contents, NULL, NULL));
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL && *lines[i] != '\0'; i++)
    {
      g_autoptr(JsonNode) node = json_from_string (lines[i], &error);
      JsonObject *obj;
      g_autofree char *text = NULL;

      g_assert_no_error (error);
      obj = json_node_get_object (node);
      /* Only the extensions' rows without a grant: an older install had
       * no others. */
      if (!g_str_equal (json_object_get_string_member (obj, "caller_kind"), "extension") ||
          json_object_get_boolean_member (obj, "by_grant"))
        continue;
      json_object_remove_member (obj, "caller_kind");
      json_object_remove_member (obj, "by_grant");
      json_object_remove_member (obj, "result_mac");
      text = json_to_string (node, FALSE);
      g_string_append_printf (out, "%s\n", text);
    }
  g_assert_true (g_file_set_contents (old, out->str, out->len, NULL));

  store = lumo_audit_store_open_file (old, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (audit_test_count (store, "kind:extension grant:no"), ==, audit_test_count (store, NULL));
  /* Rows left out (agents', grants') are gaps in its chain: named. */
  g_assert_false (lumo_audit_store_verify (store, NULL, NULL, NULL, &report, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_CHAIN_BROKEN);
  g_assert_cmpint (report.fault, ==, LUMO_AUDIT_FAULT_ROW_MISSING);
  g_assert_cmpint (report.bad_id, ==, 4);
  g_clear_error (&error);

  keyed = lumo_audit_store_open_file (old, f->key, &error);
  g_assert_no_error (error);
  g_assert_false (lumo_audit_store_verify (keyed, NULL, NULL, NULL, &report, &error));
  g_assert_cmpint (report.fault, ==, LUMO_AUDIT_FAULT_RESULT_CHANGED);
  g_assert_cmpint (report.bad_id, ==, 1);
  g_assert_nonnull (strstr (error->message, "no valid MAC"));
}

/* ---- bad input --------------------------------------------------------------------- */

static void
assert_refused (const char *path,
                const char *key,
                int         code,
                const char *needle)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(LumoAuditStore) store = NULL;
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *before = lumo_test_dir_fingerprint (dir);
  g_autofree char *after = NULL;

  store = lumo_audit_store_open_file (path, key, &error);
  g_assert_null (store);
  g_assert_error (error, LUMO_ERROR, code);
  g_test_message ("refused: %s", error->message);
  if (strstr (error->message, needle) == NULL)
    g_error ("“%s” does not say “%s”", error->message, needle);

  after = lumo_test_dir_fingerprint (dir);
  g_assert_cmpstr (before, ==, after);
}

static char *
write_file (Fixture    *f,
            const char *name,
            const char *contents,
            gssize      len)
{
  char *path = g_build_filename (f->collected, name, NULL);

  g_assert_true (g_file_set_contents (path, contents, len, NULL));
  return path;
}

/* The first @n lines of the export, then @extra. */
static char *
export_with (Fixture    *f,
             guint       n,
             const char *extra)
{
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GString) s = g_string_new (NULL);

  g_assert_true (g_file_get_contents (f->jsonl, &contents, NULL, NULL));
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; i < n && lines[i] != NULL; i++)
    g_string_append_printf (s, "%s\n", lines[i]);
  g_string_append (s, extra);
  return g_string_free (g_steal_pointer (&s), FALSE);
}

static void
test_bad_input (Fixture       *f,
                gconstpointer  data)
{
  static const guchar garbage[] = { 0x00, 0xff, 0x13, 0x37, 0x80, 0x0a };
  g_autofree char *missing = g_build_filename (f->collected, "missing.db", NULL);
  g_autofree char *text = write_file (f, "notes.txt", "These are my notes.\n", -1);
  g_autofree char *binary = write_file (f, "blob.bin", (const char *) garbage, sizeof garbage);
  g_autofree char *extra = NULL;
  g_autofree char *not_row = NULL;
  g_autofree char *dup = NULL;
  g_autofree char *bad_time = NULL;
  g_autofree char *short_key = g_build_filename (f->collected, "short.key", NULL);
  g_autofree char *no_key = g_build_filename (f->collected, "none.key", NULL);
  g_autofree char *truncated = g_build_filename (f->collected, "truncated.db", NULL);
  g_autofree char *with_wal = g_build_filename (f->collected, "live.db", NULL);
  g_autofree char *wal = g_build_filename (f->collected, "live.db-wal", NULL);
  g_autofree char *foreign = g_build_filename (f->collected, "foreign.db", NULL);
  g_autofree char *contents = NULL;
  g_autofree char *err = NULL;
  gsize len = 0;

  g_assert_true (g_file_set_contents_full (short_key, "0123456789", -1, G_FILE_SET_CONTENTS_NONE, 0600, NULL));
  assert_refused (missing, NULL, LUMO_ERROR_NOT_FOUND, "missing.db");
  assert_refused (text, NULL, LUMO_ERROR_INVALID_ARGUMENT, "line 1");
  assert_refused (binary, NULL, LUMO_ERROR_INVALID_ARGUMENT, "line 1");

  /* A JSON line that is not an audit row, at line 3. */
  extra = export_with (f, 2, "{\"id\": 99, \"tool\": \"x\"}\n");
  not_row = write_file (f, "not-row.jsonl", extra, -1);
  assert_refused (not_row, NULL, LUMO_ERROR_INVALID_ARGUMENT, "line 3");
  assert_refused (not_row, NULL, LUMO_ERROR_INVALID_ARGUMENT, "“time” is missing");
  g_clear_pointer (&extra, g_free);

  /* The same row twice. */
  {
    g_autofree char *first = export_with (f, 1, "");

    extra = export_with (f, 2, first);
    dup = write_file (f, "dup.jsonl", extra, -1);
    assert_refused (dup, NULL, LUMO_ERROR_INVALID_ARGUMENT, "appears twice");
    g_clear_pointer (&extra, g_free);
  }

  /* A time that is not the export's (it would not hash the same). */
  extra = export_with (f, 12, "");
  {
    g_autoptr(GString) s = g_string_new (extra);
    const char *t = strstr (s->str, "\"time\":\"");

    g_assert_nonnull (t);
    g_string_insert (s, t - s->str + 8 + 19, "0");   /* 7 fractional digits */
    bad_time = write_file (f, "bad-time.jsonl", s->str, -1);
  }
  assert_refused (bad_time, NULL, LUMO_ERROR_INVALID_ARGUMENT, "line 1");

  /* Keys: too short, missing, readable by others. */
  assert_refused (f->db, short_key, LUMO_ERROR_SECRET, "10 bytes");
  assert_refused (f->db, no_key, LUMO_ERROR_SECRET, "does not exist");
  g_assert_cmpint (g_chmod (f->key, 0644), ==, 0);
  assert_refused (f->jsonl, f->key, LUMO_ERROR_SECRET, "readable by others");
  g_assert_cmpint (g_chmod (f->key, 0600), ==, 0);

  /* A database cut short: what is damaged, and how far it reads. */
  g_assert_true (g_file_get_contents (f->db, &contents, &len, NULL));
  g_assert_cmpuint (len, >, 4 * 4096);
  g_assert_true (g_file_set_contents (truncated, contents, len - 2 * 4096, NULL));
  assert_refused (truncated, NULL, LUMO_ERROR_DB_CORRUPT, "truncated.db");

  /* A copy taken while it was being written. */
  g_assert_true (g_file_set_contents (with_wal, contents, len, NULL));
  g_assert_true (g_file_set_contents (wal, "not empty", -1, NULL));
  assert_refused (with_wal, NULL, LUMO_ERROR_DB_BUSY, "live.db-wal");

  /* An SQLite file that is no audit log. */
  g_assert_cmpint (audit_test_sqlite3 (foreign, "CREATE TABLE notes (t TEXT); PRAGMA user_version = 4", &err),
                   ==, 0);
  assert_refused (foreign, NULL, LUMO_ERROR_INVALID_ARGUMENT, "not an audit log");
}

/* An older install's log (schema version 1) opens as it is. */
static void
test_legacy_v1 (void)
{
  g_autofree char *dir = audit_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "audit.db", NULL);
  g_autofree char *key = g_build_filename (dir, "audit.key", NULL);
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autoptr(LumoAuditStore) store = NULL;
  g_autoptr(GPtrArray) rows = NULL;
  g_autoptr(GError) error = NULL;
  LumoAuditVerifyReport report;

  audit_test_make_v1_log (dir, 5);
  before = lumo_test_dir_fingerprint (dir);

  store = lumo_audit_store_open_file (path, key, &error);
  g_assert_no_error (error);
  g_assert_cmpint (audit_test_count (store, "legacy_tool"), ==, 5);
  g_assert_cmpint (audit_test_count (store, "kind:extension grant:no since:2d"), ==, 0);
  g_assert_cmpint (audit_test_count (store, "kind:extension grant:no"), ==, 5);
  rows = lumo_audit_store_fetch_sorted (store, NULL, LUMO_AUDIT_SORT_TOOL, LUMO_AUDIT_SORT_DESCENDING,
                                        NULL, 10, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (lumo_audit_row_get_tool (g_ptr_array_index (rows, 0)), ==, "legacy_tool_5");
  g_assert_true (lumo_audit_store_verify (store, NULL, NULL, NULL, &report, &error));
  g_assert_no_error (error);
  g_assert_cmpint (report.rows_checked, ==, 5);
  g_clear_object (&store);

  after = lumo_test_dir_fingerprint (dir);
  g_assert_cmpstr (before, ==, after);
  lumo_test_dir_remove (dir);
}

/* Five rows of a version-2 log, 10 hours apart, the newest now: its time
 * and params are on its audit table and indexed there, its audit_order
 * has neither. */
#define V2_ROWS 5
#define V2_PARAMS "07" "00000000000000000000000000000000000000000000000000000000000000"

static void
make_v2_log (const char *dir)
{
  gint64 step = (gint64) 10 * 3600 * G_USEC_PER_SEC;

  audit_test_make_old_log (dir, V2_ROWS, 2, g_get_real_time () - V2_ROWS * step, step);
}

/* What the keys of time and params find in the v2 log (since:1d: the
 * three newest). */
static void
check_v2_keys (LumoAuditStore *store)
{
  g_autoptr(LumoAuditQuery) since = lumo_audit_query_parse ("since:1d", 0, NULL);
  g_autoptr(GPtrArray) rows = NULL;
  g_autoptr(GPtrArray) stats = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (audit_test_count (store, ""), ==, V2_ROWS);
  g_assert_cmpint (audit_test_count (store, "params:" V2_PARAMS), ==, V2_ROWS);
  g_assert_cmpint (audit_test_count (store, "since:1d"), ==, 3);
  g_assert_cmpint (audit_test_count (store, "since:1d params:" V2_PARAMS), ==, 3);

  rows = lumo_audit_store_fetch_sorted (store, NULL, LUMO_AUDIT_SORT_TIME, LUMO_AUDIT_SORT_DESCENDING,
                                        NULL, 10, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (rows->len, ==, V2_ROWS);
  for (guint i = 0; i < rows->len; i++)
    g_assert_cmpint (lumo_audit_row_get_id (g_ptr_array_index (rows, i)), ==, V2_ROWS - i);
  g_clear_pointer (&rows, g_ptr_array_unref);

  rows = lumo_audit_store_fetch_page (store, since, 0, 10, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (rows->len, ==, 3);
  g_assert_cmpint (lumo_audit_row_get_id (g_ptr_array_index (rows, 2)), ==, 3);
  g_clear_pointer (&rows, g_ptr_array_unref);

  stats = lumo_audit_store_stats (store, since, LUMO_AUDIT_GROUP_TOOL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (stats->len, ==, 3);

  rows = lumo_audit_store_list_allowed_writes (store, lumo_audit_query_get_since (since), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (rows->len, ==, 3);
  g_assert_cmpint (lumo_audit_row_get_id (g_ptr_array_index (rows, 0)), ==, 3);
}

/* A version-2 log collected from an older install opens read-only as it
 * is (through a view that gives its audit_order time and params) and is
 * not changed by a byte. */
static void
test_legacy_v2 (void)
{
  g_autofree char *dir = audit_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "audit.db", NULL);
  g_autofree char *key = g_build_filename (dir, "audit.key", NULL);
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autoptr(LumoAuditStore) store = NULL;
  g_autoptr(GError) error = NULL;

  make_v2_log (dir);
  g_assert_cmpint (audit_test_query_int (path, "PRAGMA user_version"), ==, 2);
  before = lumo_test_dir_fingerprint (dir);

  store = lumo_audit_store_open_file (path, key, &error);
  g_assert_no_error (error);
  check_v2_keys (store);
  g_assert_true (lumo_audit_store_verify (store, NULL, NULL, NULL, NULL, &error));
  g_assert_no_error (error);
  g_clear_object (&store);

  after = lumo_test_dir_fingerprint (dir);
  g_assert_cmpstr (before, ==, after);
  lumo_test_dir_remove (dir);
}

/* The app's own version-2 log migrates to version 3: audit_order gains
 * every row's time and params with their indexes, the audit table loses
 * its two, and every key finds what it found. */
static void
test_migrate_v2 (void)
{
  g_autofree char *dir = audit_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "audit.db", NULL);
  g_autoptr(LumoAuditStore) store = NULL;
  g_autoptr(GError) error = NULL;

  make_v2_log (dir);
  store = audit_test_open (dir);
  g_assert_cmpint (audit_test_query_int (path, "PRAGMA user_version"), ==, 3);
  g_assert_cmpint (audit_test_query_int (path, "SELECT count(*) FROM sqlite_schema WHERE type = 'index' "
                                               "AND name IN ('audit_time', 'audit_params')"), ==, 0);
  g_assert_cmpint (audit_test_query_int (path, "SELECT count(*) FROM sqlite_schema WHERE type = 'index' "
                                               "AND name IN ('audit_order_time', 'audit_order_params', "
                                               "'audit_order_caller', 'audit_order_tool', "
                                               "'audit_order_outcome')"), ==, 5);
  g_assert_cmpint (audit_test_query_int (path, "SELECT count(*) FROM audit_order o JOIN audit a "
                                               "ON a.id = o.id WHERE o.time_us = a.time_us "
                                               "AND o.params_hmac = a.params_hmac "
                                               "AND o.tool = a.tool"), ==, V2_ROWS);
  check_v2_keys (store);
  g_assert_cmpint (audit_test_append (store, "after_migration"), ==, V2_ROWS + 1);
  g_assert_cmpint (audit_test_count (store, "since:1d"), ==, 4);
  g_assert_true (lumo_audit_store_verify (store, NULL, NULL, NULL, NULL, &error));
  g_assert_no_error (error);

  g_clear_object (&store);
  lumo_test_dir_remove (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(name, func) \
  g_test_add ("/audit-file/" name, Fixture, NULL, fixture_set_up, func, fixture_tear_down)

  ADD ("database-copy", test_database_copy);
  ADD ("jsonl-export", test_jsonl_export);
  ADD ("async", test_async);
  ADD ("tampered-copies", test_tampered_copies);
  ADD ("tampered-result", test_tampered_result);
  ADD ("bad-input", test_bad_input);
  ADD ("older-export", test_older_export);
  g_test_add_func ("/audit-file/legacy-v1", test_legacy_v1);
  g_test_add_func ("/audit-file/legacy-v2", test_legacy_v2);
  g_test_add_func ("/audit-file/migrate-v2", test_migrate_v2);

  return g_test_run ();
}
