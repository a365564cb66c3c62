/* test-audit-store.c — rows, results, keyed hashes, the secret, export
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>
#include <sys/stat.h>

#include <json-glib/json-glib.h>
#include <sqlite3.h>

#include "audit-test-util.h"
#include "lumo-audit-secret.h"
#include "lumo-db.h"

/* LUMO_AUDIT_COLUMNS, the one column list of the chain walk, the row
 * reader and the writer, names every column of the table the migrations
 * make, once each, and its enum counts them: a column added to the schema
 * alone, or to the list alone, fails here. */
static void
test_column_list (void)
{
#define NAME(name, sql) sql
#define COMMA ,
  const char *listed[] = { LUMO_AUDIT_COLUMNS (NAME, COMMA) };
#undef NAME
#undef COMMA
  g_autofree char *dir = audit_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "audit.db", NULL);
  g_autoptr(GHashTable) table = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  sqlite3_stmt *stmt = NULL;
  sqlite3 *db = NULL;

  g_assert_cmpuint (G_N_ELEMENTS (listed), ==, LUMO_AUDIT_N_COLUMNS);
  g_assert_cmpint (LUMO_AUDIT_COL_ID, ==, 0);
  g_assert_cmpint (LUMO_AUDIT_COL_BY_GRANT, ==, LUMO_AUDIT_N_COLUMNS - 1);

  /* The store makes the table, then lets go of the file. */
  g_object_unref (audit_test_open (dir));
  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_prepare_v2 (db, "SELECT name FROM pragma_table_info ('audit')", -1, &stmt, NULL),
                   ==, SQLITE_OK);
  while (sqlite3_step (stmt) == SQLITE_ROW)
    g_assert_true (g_hash_table_add (table, g_strdup ((const char *) sqlite3_column_text (stmt, 0))));
  sqlite3_finalize (stmt);
  sqlite3_close (db);

  g_assert_cmpuint (g_hash_table_size (table), ==, G_N_ELEMENTS (listed));
  for (guint i = 0; i < G_N_ELEMENTS (listed); i++)
    {
      g_test_message ("column %s", listed[i]);
      g_assert_true (g_hash_table_remove (table, listed[i]));
    }

  lumo_test_dir_remove (dir);
}

static void
test_round_trip (void)
{
  g_autofree char *dir = audit_test_tmpdir ();
  g_autoptr(LumoAuditStore) store = audit_test_open (dir);
  g_autoptr(GError) error = NULL;
  g_autoptr(LumoAuditRow) row = NULL;
  g_autoptr(GPtrArray) page = NULL;
  LumoAuditRecord r = audit_test_record ("userscripts.save_script");
  gint64 before = g_get_real_time ();
  gint64 id1, id2, id3;

  r.caller_name = "Lumo “beta” 中文";
  r.target = "0F8FAD5B-D9CB-469F-A165-70867728950E";
  id1 = lumo_audit_store_append (store, &r, &error);
  g_assert_no_error (error);
  g_assert_cmpint (id1, ==, 1);

  r = audit_test_record ("delete_script");
  r.target = NULL;
  r.write = TRUE;
  r.decision = LUMO_AUDIT_DECISION_DENY;
  r.reason = LUMO_AUDIT_REASON_RATE_LIMITED;
  r.caller_id = TEST_CALLER2_ID;
  r.provider_id = TEST_PROVIDER2_ID;
  r.params_sha256 = SHA_B;
  id2 = lumo_audit_store_append (store, &r, &error);
  g_assert_no_error (error);
  g_assert_cmpint (id2, ==, 2);

  r = audit_test_record ("list_scripts");
  r.write = FALSE;
  r.decision = LUMO_AUDIT_DECISION_PENDING_REVIEW;
  r.reason = LUMO_AUDIT_REASON_REVIEW_REQUIRED;
  r.time_us = 1700000000123456;
  id3 = lumo_audit_store_append (store, &r, &error);
  g_assert_no_error (error);

  row = lumo_audit_store_get_row (store, id1, &error);
  g_assert_no_error (error);
  g_assert_cmpint (lumo_audit_row_get_id (row), ==, id1);
  g_assert_cmpint (lumo_audit_row_get_time_us (row), >=, before);
  g_assert_cmpint (lumo_audit_row_get_time_us (row), <=, g_get_real_time ());
  g_assert_cmpstr (lumo_audit_row_get_provider_id (row), ==, TEST_PROVIDER_ID);
  g_assert_cmpstr (lumo_audit_row_get_caller_id (row), ==, TEST_CALLER_ID);
  g_assert_cmpstr (lumo_audit_row_get_caller_name (row), ==, "Lumo “beta” 中文");
  g_assert_cmpstr (lumo_audit_row_get_tool (row), ==, "userscripts.save_script");
  g_assert_true (lumo_audit_row_get_write (row));
  /* Stored lowercase, as the bridge protocol says. */
  g_assert_cmpstr (lumo_audit_row_get_target (row), ==, TARGET_A);
  g_assert_true (lumo_audit_is_sha256_hex (lumo_audit_row_get_params_hmac (row)));
  g_assert_cmpstr (lumo_audit_row_get_params_hmac (row), !=, SHA_A);
  g_assert_cmpint (lumo_audit_row_get_decision (row), ==, LUMO_AUDIT_DECISION_ALLOW);
  g_assert_cmpstr (lumo_audit_row_get_reason (row), ==, "");
  g_assert_cmpint (lumo_audit_row_get_result (row), ==, LUMO_AUDIT_RESULT_NONE);
  g_assert_null (lumo_audit_row_get_result_text (row));
  g_assert_true (lumo_audit_is_sha256_hex (lumo_audit_row_get_hash (row)));
  g_clear_object (&row);

  /* The result is filled in later, once. */
  g_assert_true (lumo_audit_store_set_result (store, id1, FALSE, "Script not found", &error));
  g_assert_no_error (error);
  row = lumo_audit_store_get_row (store, id1, &error);
  g_assert_cmpint (lumo_audit_row_get_result (row), ==, LUMO_AUDIT_RESULT_ERROR);
  g_assert_cmpstr (lumo_audit_row_get_result_text (row), ==, "Script not found");
  g_assert_cmpint (lumo_audit_row_get_result_time_us (row), >=, lumo_audit_row_get_time_us (row));
  g_clear_object (&row);

  g_assert_false (lumo_audit_store_set_result (store, id1, TRUE, NULL, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "already has a result"));
  g_clear_error (&error);

  g_assert_false (lumo_audit_store_set_result (store, id2, TRUE, NULL, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "denied"));
  g_clear_error (&error);

  g_assert_false (lumo_audit_store_set_result (store, 999, TRUE, NULL, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND);
  g_clear_error (&error);

  g_assert_false (lumo_audit_store_set_result (store, id3, TRUE, "not an error", &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  g_assert_true (lumo_audit_store_set_result (store, id3, TRUE, NULL, &error));
  g_assert_no_error (error);

  row = lumo_audit_store_get_row (store, id2, &error);
  g_assert_cmpstr (lumo_audit_row_get_caller_id (row), ==, TEST_CALLER2_ID);
  g_assert_cmpstr (lumo_audit_row_get_provider_id (row), ==, TEST_PROVIDER2_ID);
  g_assert_cmpstr (lumo_audit_row_get_target (row), ==, "");
  g_assert_cmpint (lumo_audit_row_get_decision (row), ==, LUMO_AUDIT_DECISION_DENY);
  g_assert_cmpstr (lumo_audit_row_get_reason (row), ==, "rate_limited");
  g_clear_object (&row);

  row = lumo_audit_store_get_row (store, id3, &error);
  g_assert_cmpint (lumo_audit_row_get_time_us (row), ==, 1700000000123456);
  g_assert_false (lumo_audit_row_get_write (row));
  g_assert_cmpint (lumo_audit_row_get_decision (row), ==, LUMO_AUDIT_DECISION_PENDING_REVIEW);
  g_assert_cmpint (lumo_audit_row_get_result (row), ==, LUMO_AUDIT_RESULT_OK);
  g_clear_object (&row);

  g_assert_null (lumo_audit_store_get_row (store, 4, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND);
  g_clear_error (&error);

  /* Newest first. */
  page = lumo_audit_store_fetch_page (store, NULL, 0, 10, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (page->len, ==, 3);
  g_assert_cmpint (lumo_audit_row_get_id (g_ptr_array_index (page, 0)), ==, id3);
  g_assert_cmpint (lumo_audit_row_get_id (g_ptr_array_index (page, 2)), ==, id1);

  g_assert_true (lumo_audit_store_verify (store, NULL, NULL, NULL, NULL, &error));
  g_assert_no_error (error);

  g_clear_object (&store);
  lumo_test_dir_remove (dir);
}

static void
test_truncation (void)
{
  g_autofree char *dir = audit_test_tmpdir ();
  g_autoptr(LumoAuditStore) store = audit_test_open (dir);
  g_autoptr(GError) error = NULL;
  g_autoptr(LumoAuditRow) row = NULL;
  g_autoptr(GString) big = g_string_new ("x");
  const char *text;
  gsize len, marker_len = strlen (LUMO_AUDIT_TRUNCATION_MARKER);
  gint64 id;

  /* 100 KB of three-byte characters after one ASCII byte: the cap falls in
   * the middle of a character. */
  while (big->len < 100 * 1024)
    g_string_append (big, "中");

  id = audit_test_append (store, "save_script");
  g_assert_true (lumo_audit_store_set_result (store, id, FALSE, big->str, &error));
  g_assert_no_error (error);

  row = lumo_audit_store_get_row (store, id, &error);
  g_assert_no_error (error);
  text = lumo_audit_row_get_result_text (row);
  len = strlen (text);
  g_assert_cmpuint (len, <=, LUMO_AUDIT_RESULT_TEXT_MAX);
  g_assert_cmpuint (len, >, LUMO_AUDIT_RESULT_TEXT_MAX - marker_len - 3);
  g_assert_true (g_utf8_validate (text, -1, NULL));
  g_assert_true (g_str_has_suffix (text, LUMO_AUDIT_TRUNCATION_MARKER));
  g_assert_true (strncmp (text, big->str, len - marker_len) == 0);

  /* Invalid UTF-8 from a provider is repaired, never stored as is. */
  g_clear_object (&row);
  id = audit_test_append (store, "save_script");
  g_assert_true (lumo_audit_store_set_result (store, id, FALSE, "bad \xff\xfe byte", &error));
  row = lumo_audit_store_get_row (store, id, &error);
  g_assert_true (g_utf8_validate (lumo_audit_row_get_result_text (row), -1, NULL));

  /* A text exactly at the cap is kept whole. */
  g_clear_object (&row);
  g_string_set_size (big, 0);
  while (big->len < LUMO_AUDIT_RESULT_TEXT_MAX)
    g_string_append_c (big, 'a');
  id = audit_test_append (store, "save_script");
  g_assert_true (lumo_audit_store_set_result (store, id, FALSE, big->str, &error));
  row = lumo_audit_store_get_row (store, id, &error);
  g_assert_cmpstr (lumo_audit_row_get_result_text (row), ==, big->str);

  g_clear_object (&store);
  lumo_test_dir_remove (dir);
}

static void
assert_refused (LumoAuditStore        *store,
                const LumoAuditRecord *r,
                int                    code,
                const char            *needle)
{
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (lumo_audit_store_append (store, r, &error), ==, 0);
  g_assert_error (error, LUMO_ERROR, code);
  if (strstr (error->message, needle) == NULL)
    g_error ("“%s” does not mention “%s”", error->message, needle);
}

static void
test_bad_input (void)
{
  g_autofree char *dir = audit_test_tmpdir ();
  g_autoptr(LumoAuditStore) store = audit_test_open (dir);
  g_autoptr(GError) error = NULL;
  LumoAuditRecord r;

  r = audit_test_record ("t");
  r.params_sha256 = "9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B2B0B822CD15D6C15B0F00A08";
  assert_refused (store, &r, LUMO_ERROR_INVALID_ARGUMENT, "params hash");
  r.params_sha256 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a0";
  assert_refused (store, &r, LUMO_ERROR_INVALID_ARGUMENT, "64 lowercase hex");
  r.params_sha256 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a080";
  assert_refused (store, &r, LUMO_ERROR_INVALID_ARGUMENT, "params hash");
  r.params_sha256 = "zf86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
  assert_refused (store, &r, LUMO_ERROR_INVALID_ARGUMENT, "params hash");
  r.params_sha256 = NULL;
  assert_refused (store, &r, LUMO_ERROR_INVALID_ARGUMENT, "params hash");

  r = audit_test_record ("t");
  r.caller_id = "ponmlkjihgfedcbaponmlkjihgfedcbq";
  assert_refused (store, &r, LUMO_ERROR_INVALID_ID, "caller ID");
  r.caller_id = "PONMLKJIHGFEDCBAPONMLKJIHGFEDCBA";
  assert_refused (store, &r, LUMO_ERROR_INVALID_ID, "caller ID");
  r.caller_id = NULL;
  assert_refused (store, &r, LUMO_ERROR_INVALID_ID, "caller ID");

  r = audit_test_record ("t");
  r.provider_id = "aaaabbbbccccddddeeeeffffgggghhh";
  assert_refused (store, &r, LUMO_ERROR_INVALID_ID, "provider ID");

  /* The target is a UUID or nothing: no room for free text (or source). */
  r = audit_test_record ("t");
  r.target = "function main() { steal(); }";
  assert_refused (store, &r, LUMO_ERROR_INVALID_ARGUMENT, "not a UUID");

  r = audit_test_record ("bad tool name");
  assert_refused (store, &r, LUMO_ERROR_INVALID_ARGUMENT, "tool name");
  r = audit_test_record ("");
  assert_refused (store, &r, LUMO_ERROR_INVALID_ARGUMENT, "tool name");
  r = audit_test_record ("a23456789012345678901234567890123456789012345678901234567890");
  assert_refused (store, &r, LUMO_ERROR_INVALID_ARGUMENT, "tool name");

  r = audit_test_record ("t");
  r.reason = "Rate Limited!";
  assert_refused (store, &r, LUMO_ERROR_INVALID_ARGUMENT, "reason code");

  r = audit_test_record ("t");
  r.decision = 17;
  assert_refused (store, &r, LUMO_ERROR_INVALID_ARGUMENT, "decision");

  r = audit_test_record ("t");
  r.caller_name = "bell\a";
  assert_refused (store, &r, LUMO_ERROR_INVALID_ARGUMENT, "caller name");
  r.caller_name = "bad \xff";
  assert_refused (store, &r, LUMO_ERROR_INVALID_ARGUMENT, "caller name");

  r = audit_test_record ("t");
  r.time_us = -5;
  assert_refused (store, &r, LUMO_ERROR_INVALID_ARGUMENT, "1970");

  r = audit_test_record ("t");
  r.caller_kind = 7;
  assert_refused (store, &r, LUMO_ERROR_INVALID_ARGUMENT, "caller kind");

  /* Only an allowed write is let through by a grant. */
  r = audit_test_record ("t");
  r.by_grant = TRUE;
  r.decision = LUMO_AUDIT_DECISION_DENY;
  r.reason = LUMO_AUDIT_REASON_RATE_LIMITED;
  assert_refused (store, &r, LUMO_ERROR_INVALID_ARGUMENT, "grant");
  r.decision = LUMO_AUDIT_DECISION_PENDING_REVIEW;
  r.reason = NULL;
  assert_refused (store, &r, LUMO_ERROR_INVALID_ARGUMENT, "grant");

  g_assert_false (lumo_audit_store_set_result (store, 0, TRUE, NULL, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND);
  g_clear_error (&error);

  g_assert_null (lumo_audit_store_key_params_hash (store, "ABC", &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  g_assert_null (lumo_audit_store_fetch_page (store, NULL, 0, 0, NULL, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  /* Nothing refused left a row behind. */
  g_assert_cmpint (audit_test_count (store, NULL), ==, 0);

  g_clear_object (&store);
  lumo_test_dir_remove (dir);
}

static void
test_hmac (void)
{
  g_autofree char *dir1 = audit_test_tmpdir ();
  g_autofree char *dir2 = audit_test_tmpdir ();
  g_autoptr(LumoAuditStore) s1 = audit_test_open (dir1);
  g_autoptr(LumoAuditStore) s2 = audit_test_open (dir2);
  g_autoptr(LumoAuditRow) r1 = NULL;
  g_autoptr(LumoAuditRow) r2 = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(LumoAuditQuery) query = NULL;
  g_autoptr(GPtrArray) page = NULL;
  g_autofree char *keyed = NULL;
  g_autofree char *keyed_other = NULL;
  g_autofree char *text = NULL;
  LumoAuditRecord rec = audit_test_record ("save_script");
  gint64 id1, id2;

  id1 = audit_test_append (s1, "save_script");
  rec.params_sha256 = SHA_B;
  g_assert_cmpint (lumo_audit_store_append (s1, &rec, &error), >, 0);
  id2 = audit_test_append (s2, "save_script");

  r1 = lumo_audit_store_get_row (s1, id1, &error);
  r2 = lumo_audit_store_get_row (s2, id2, &error);
  g_assert_no_error (error);

  /* Same arguments, two installs: unrelated stored values. */
  g_assert_cmpstr (lumo_audit_row_get_params_hmac (r1), !=, lumo_audit_row_get_params_hmac (r2));

  /* The CLI's check: key the SHA-256 of the arguments, search for it. */
  keyed = lumo_audit_store_key_params_hash (s1, SHA_A, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (keyed, ==, lumo_audit_row_get_params_hmac (r1));

  text = g_strdup_printf ("params:%s", keyed);
  query = lumo_audit_query_parse (text, 0, &error);
  g_assert_no_error (error);
  page = lumo_audit_store_fetch_page (s1, query, 0, 10, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (page->len, ==, 1);
  g_assert_cmpint (lumo_audit_row_get_id (g_ptr_array_index (page, 0)), ==, id1);

  /* Another install's key finds nothing here. */
  keyed_other = lumo_audit_store_key_params_hash (s2, SHA_A, &error);
  g_free (text);
  text = g_strdup_printf ("params:%s", keyed_other);
  g_assert_cmpint (audit_test_count (s1, text), ==, 0);

  g_clear_object (&s1);
  g_clear_object (&s2);
  lumo_test_dir_remove (dir1);
  lumo_test_dir_remove (dir2);
}

static gboolean
contains_bytes (const char   *path,
                const guint8 *needle,
                gsize         len)
{
  g_autofree char *contents = NULL;
  gsize size = 0;

  g_assert_true (g_file_get_contents (path, &contents, &size, NULL));
  for (gsize i = 0; i + len <= size; i++)
    if (memcmp (contents + i, needle, len) == 0)
      return TRUE;

  return FALSE;
}

static void
test_secret (void)
{
  g_autofree char *dir = audit_test_tmpdir ();
  g_autofree char *key_path = g_build_filename (dir, "audit.key", NULL);
  g_autofree char *db_path = g_build_filename (dir, "audit.db", NULL);
  g_autofree char *keyed1 = NULL;
  g_autofree char *keyed2 = NULL;
  g_autoptr(LumoAuditStore) store = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) secret = NULL;
  struct stat st;

  /* The default path: audit.db in the data dir. */
  store = lumo_audit_store_new (NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (lumo_audit_store_get_path (store), ==, db_path);
  audit_test_append (store, "save_script");
  keyed1 = lumo_audit_store_key_params_hash (store, SHA_A, &error);

  g_assert_cmpint (g_stat (key_path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0600);
  g_assert_cmpint (st.st_size, ==, LUMO_AUDIT_SECRET_SIZE);

  /* The key never goes into the database. */
  secret = lumo_secret_load_or_create (key_path, LUMO_AUDIT_SECRET_WHAT, &error);
  g_assert_no_error (error);
  g_clear_object (&store);
  g_assert_false (contains_bytes (db_path, g_bytes_get_data (secret, NULL), LUMO_AUDIT_SECRET_SIZE));

  /* It persists across opens. */
  store = audit_test_open (dir);
  keyed2 = lumo_audit_store_key_params_hash (store, SHA_A, &error);
  g_assert_cmpstr (keyed1, ==, keyed2);
  g_clear_object (&store);

  /* A key others can read is refused, not used. */
  g_assert_cmpint (g_chmod (key_path, 0644), ==, 0);
  g_assert_null (lumo_audit_store_new (db_path, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_SECRET);
  g_assert_nonnull (strstr (error->message, "0644"));
  g_clear_error (&error);
  g_assert_cmpint (g_chmod (key_path, 0600), ==, 0);

  /* A log with rows and no key: say so, do not invent a new key. */
  g_assert_cmpint (g_unlink (key_path), ==, 0);
  g_assert_null (lumo_audit_store_new (db_path, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_SECRET);
  g_assert_nonnull (strstr (error->message, "missing"));
  g_assert_false (g_file_test (key_path, G_FILE_TEST_EXISTS));
  g_clear_error (&error);

  /* A key of the wrong size is refused and left alone. */
  g_assert_true (g_file_set_contents (key_path, "short", -1, NULL));
  g_assert_cmpint (g_chmod (key_path, 0600), ==, 0);
  g_assert_null (lumo_secret_load_or_create (key_path, LUMO_AUDIT_SECRET_WHAT, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_SECRET);
  g_clear_error (&error);

  lumo_test_dir_remove (dir);
}

static void
test_refuse_newer_and_garbage (void)
{
  g_autofree char *dir = audit_test_tmpdir ();
  g_autofree char *db_path = g_build_filename (dir, "audit.db", NULL);
  g_autofree char *key_path = g_build_filename (dir, "audit.key", NULL);
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autoptr(GError) error = NULL;
  LumoAuditStore *store;
  sqlite3 *db = NULL;

  /* A database from a newer Lumo Access. */
  g_assert_cmpint (sqlite3_open (db_path, &db), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (db, "CREATE TABLE future (x); PRAGMA user_version = 99",
                                 NULL, NULL, NULL), ==, SQLITE_OK);
  sqlite3_close (db);
  before = audit_test_file_checksum (db_path);

  store = lumo_audit_store_new (db_path, &error);
  g_assert_null (store);
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_DB_TOO_NEW);
  g_clear_error (&error);
  after = audit_test_file_checksum (db_path);
  g_assert_cmpstr (before, ==, after);
  g_assert_false (g_file_test (key_path, G_FILE_TEST_EXISTS));

  /* Garbage. */
  g_clear_pointer (&before, g_free);
  g_clear_pointer (&after, g_free);
  lumo_test_dir_remove (dir);
  g_assert_cmpint (g_mkdir (dir, 0700), ==, 0);
  {
    g_autoptr(GString) junk = g_string_new (NULL);

    for (guint i = 0; i < 8192; i++)
      g_string_append_c (junk, (char) (i * 7 + 3));
    g_assert_true (g_file_set_contents (db_path, junk->str, junk->len, NULL));
  }
  before = audit_test_file_checksum (db_path);
  store = lumo_audit_store_new (db_path, &error);
  g_assert_null (store);
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_DB_CORRUPT);
  g_clear_error (&error);
  after = audit_test_file_checksum (db_path);
  g_assert_cmpstr (before, ==, after);
  g_assert_false (g_file_test (key_path, G_FILE_TEST_EXISTS));

  lumo_test_dir_remove (dir);
}

typedef struct
{
  GMainLoop *loop;
  GArray    *signalled;
  gint64     appended;
  gboolean   result_set;
} AsyncState;

static void
on_row_added_cb (LumoAuditStore *store,
                 gint64          id,
                 AsyncState     *state)
{
  /* Emitted on the main context the store was created in. */
  g_assert_true (g_main_context_is_owner (g_main_context_default ()));
  g_array_append_val (state->signalled, id);
  if (state->signalled->len == 3 && state->result_set)
    g_main_loop_quit (state->loop);
}

static void
on_result_set_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  AsyncState *state = user_data;
  g_autoptr(GError) error = NULL;

  g_assert_true (lumo_audit_store_set_result_finish (LUMO_AUDIT_STORE (object), result, &error));
  g_assert_no_error (error);
  state->result_set = TRUE;
  if (state->signalled->len == 3)
    g_main_loop_quit (state->loop);
}

static void
on_appended_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  AsyncState *state = user_data;
  g_autoptr(GError) error = NULL;
  gint64 id = lumo_audit_store_append_finish (LUMO_AUDIT_STORE (object), result, &error);

  g_assert_no_error (error);
  g_assert_cmpint (id, >, 0);
  if (++state->appended == 3)
    lumo_audit_store_set_result_async (LUMO_AUDIT_STORE (object), id, TRUE, NULL, NULL,
                                       on_result_set_cb, state);
}

static void
on_refused_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (lumo_audit_store_append_finish (LUMO_AUDIT_STORE (object), result, &error), ==, 0);
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT);
  (*(int *) user_data)++;
}

static void
test_async_and_signal (void)
{
  g_autofree char *dir = audit_test_tmpdir ();
  g_autoptr(LumoAuditStore) store = audit_test_open (dir);
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  g_autoptr(GArray) signalled = g_array_new (FALSE, FALSE, sizeof (gint64));
  AsyncState state = { loop, signalled, 0, FALSE };
  LumoAuditRecord r = audit_test_record ("save_script");
  int refused = 0;

  g_signal_connect (store, "row-added", G_CALLBACK (on_row_added_cb), &state);

  for (guint i = 0; i < 3; i++)
    lumo_audit_store_append_async (store, &r, NULL, on_appended_cb, &state);
  r.params_sha256 = "nope";
  lumo_audit_store_append_async (store, &r, NULL, on_refused_cb, &refused);

  g_main_loop_run (loop);

  g_assert_cmpint (state.appended, ==, 3);
  g_assert_cmpuint (signalled->len, ==, 3);
  g_assert_cmpint (refused, ==, 1);
  for (guint i = 0; i < 3; i++)
    g_assert_cmpint (g_array_index (signalled, gint64, i), ==, i + 1);

  g_clear_object (&store);
  lumo_test_dir_remove (dir);
}

static void
on_export_progress (gint64   done,
                    gint64   total,
                    gpointer user_data)
{
  gint64 *last = user_data;

  g_assert_cmpint (done, <=, total);
  g_assert_cmpint (done, >=, *last);
  *last = done;
}

static char *
export_to_string (LumoAuditStore        *store,
                  const char            *query_text,
                  LumoAuditExportFormat  format)
{
  g_autoptr(GOutputStream) out = g_memory_output_stream_new_resizable ();
  g_autoptr(GError) error = NULL;
  g_autoptr(LumoAuditQuery) query = lumo_audit_query_parse (query_text, 0, &error);
  gint64 done = 0;
  char nul = '\0';

  g_assert_no_error (error);
  g_assert_true (lumo_audit_store_export (store, query, format, out, NULL,
                                          on_export_progress, &done, &error));
  g_assert_no_error (error);
  g_assert_cmpint (done, ==, lumo_audit_store_count (store, query, NULL, NULL));
  g_output_stream_write_all (out, &nul, 1, NULL, NULL, NULL);
  g_output_stream_close (out, NULL, NULL);

  return g_memory_output_stream_steal_data (G_MEMORY_OUTPUT_STREAM (out));
}

/* Caller names and error texts come from extensions and web pages; in a
 * CSV opened by a spreadsheet a cell that starts with =, +, -, @, a tab or
 * a CR would run as a formula. */
static void
test_export_csv_formulas (void)
{
  g_autofree char *dir = audit_test_tmpdir ();
  g_autoptr(LumoAuditStore) store = audit_test_open (dir);
  g_autoptr(GError) error = NULL;
  g_autofree char *csv = NULL;
  g_autofree char *jsonl = NULL;
  static const struct {
    const char *name;
    const char *text;
    const char *csv_name;
    const char *csv_text;
  } cases[] = {
    { "=HYPERLINK(\"http://x\")", "+1+cmd|' /C calc'!A0",
      ",\"'=HYPERLINK(\"\"http://x\"\")\",", ",'+1+cmd|' /C calc'!A0," },
    { "@SUM(A1)", "-2+3", ",'@SUM(A1),", ",'-2+3," },
    { "-Dash", "\tTab", ",'-Dash,", ",'\tTab," },
    { "Lumo", "\rcr", ",Lumo,", ",\"'\rcr\"," },
    { "=a,b", "a=b -c", ",\"'=a,b\",", ",a=b -c," },
    { "Plain 'name'", "", ",Plain 'name',", NULL },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      LumoAuditRecord r = audit_test_record ("save_script");
      gint64 id;

      r.caller_name = cases[i].name;
      id = lumo_audit_store_append (store, &r, &error);
      g_assert_no_error (error);
      g_assert_true (lumo_audit_store_set_result (store, id, cases[i].text[0] == '\0',
                                                  cases[i].text[0] ? cases[i].text : NULL,
                                                  &error));
      g_assert_no_error (error);
    }

  csv = export_to_string (store, NULL, LUMO_AUDIT_EXPORT_CSV);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_assert_nonnull (strstr (csv, cases[i].csv_name));
      if (cases[i].csv_text != NULL)
        g_assert_nonnull (strstr (csv, cases[i].csv_text));
    }
  /* No cell (after a separator or a line start) starts a formula. */
  for (const char *p = csv; *p; p++)
    if (p == csv || p[-1] == ',' || (p[-1] == '\n' && p[-2] == '\r'))
      {
        const char *cell = *p == '"' ? p + 1 : p;

        g_assert_false (*cell != '\0' && strchr ("=+-@\t", *cell) != NULL);
      }

  /* JSON Lines keeps the values as they are. */
  jsonl = export_to_string (store, NULL, LUMO_AUDIT_EXPORT_JSONL);
  g_assert_nonnull (strstr (jsonl, "\"caller_name\":\"=HYPERLINK(\\\"http://x\\\")\""));
  g_assert_nonnull (strstr (jsonl, "\"result_text\":\"-2+3\""));
  g_assert_nonnull (strstr (jsonl, "\"result_text\":\"\\tTab\""));
  g_assert_null (strstr (jsonl, "'="));

  lumo_test_dir_remove (dir);
}

static void
test_export_import (void)
{
  g_autofree char *dir = audit_test_tmpdir ();
  g_autofree char *dir2 = audit_test_tmpdir ();
  g_autoptr(LumoAuditStore) store = audit_test_open (dir);
  g_autoptr(LumoAuditStore) copy = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *csv = NULL;
  g_autofree char *jsonl = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GArray) records = g_array_new (FALSE, TRUE, sizeof (LumoAuditImportRecord));
  const char *nasty = "line one, \"quoted\"\r\nline two";
  gint64 id;

  audit_test_append (store, "save_script");
  id = audit_test_append (store, "delete_script");
  g_assert_true (lumo_audit_store_set_result (store, id, FALSE, nasty, &error));

  csv = export_to_string (store, NULL, LUMO_AUDIT_EXPORT_CSV);
  g_assert_true (g_str_has_prefix (csv, "id,time,provider,caller,caller_name,tool,write,"
                                        "target,params_hmac,decision,reason,result,"
                                        "result_text,result_time,hash,caller_kind,by_grant,"
                                        "result_mac\r\n"));
  /* RFC 4180: the field is quoted, its quotes doubled, its line break kept. */
  g_assert_nonnull (strstr (csv, ",\"line one, \"\"quoted\"\"\r\nline two\","));
  g_assert_nonnull (strstr (csv, "\r\n2,"));

  jsonl = export_to_string (store, NULL, LUMO_AUDIT_EXPORT_JSONL);
  lines = g_strsplit (jsonl, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 3);
  g_assert_cmpstr (lines[2], ==, "");
  for (guint i = 0; i < 2; i++)
    {
      g_autoptr(JsonParser) parser = json_parser_new ();
      JsonObject *obj;

      g_assert_true (json_parser_load_from_data (parser, lines[i], -1, &error));
      g_assert_no_error (error);
      obj = json_node_get_object (json_parser_get_root (parser));
      g_assert_cmpint (json_object_get_int_member (obj, "id"), ==, 2 - i);
      if (i == 0)
        {
          g_assert_cmpstr (json_object_get_string_member (obj, "result_text"), ==, nasty);
          g_assert_cmpstr (json_object_get_string_member (obj, "result"), ==, "error");
        }
      else
        g_assert_true (json_object_get_null_member (obj, "result"));
      g_assert_cmpstr (json_object_get_string_member (obj, "caller"), ==, TEST_CALLER_ID);
      g_assert_true (json_object_get_boolean_member (obj, "write"));
      g_assert_true (g_str_has_suffix (json_object_get_string_member (obj, "time"), "Z"));
    }

  /* A filtered export. */
  g_clear_pointer (&jsonl, g_free);
  jsonl = export_to_string (store, "tool:delete", LUMO_AUDIT_EXPORT_JSONL);
  g_assert_nonnull (strstr (jsonl, "delete_script"));
  g_assert_null (strstr (jsonl, "save_script"));

  /* Restoring keeps the keyed hash and the result, and chains anew. */
  copy = audit_test_open (dir2);
  {
    LumoAuditImportRecord rec = { 0, };
    g_autoptr(LumoAuditRow) orig = lumo_audit_store_get_row (store, id, &error);
    g_autoptr(LumoAuditRow) restored = NULL;

    rec.record = audit_test_record ("delete_script");
    rec.params_hmac = lumo_audit_row_get_params_hmac (orig);
    rec.result = LUMO_AUDIT_RESULT_ERROR;
    rec.result_text = nasty;
    g_array_append_val (records, rec);
    rec.params_hmac = "not hex";
    g_array_append_val (records, rec);

    /* All or nothing: the second record is bad, so nothing is imported. */
    g_assert_false (lumo_audit_store_import (copy, (LumoAuditImportRecord *) records->data,
                                             records->len, &error));
    g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT);
    g_assert_nonnull (strstr (error->message, "Record 2"));
    g_clear_error (&error);
    g_assert_cmpint (audit_test_count (copy, NULL), ==, 0);

    g_assert_true (lumo_audit_store_import (copy, (LumoAuditImportRecord *) records->data, 1,
                                            &error));
    g_assert_no_error (error);
    restored = lumo_audit_store_get_row (copy, 1, &error);
    g_assert_no_error (error);
    g_assert_cmpstr (lumo_audit_row_get_params_hmac (restored), ==,
                     lumo_audit_row_get_params_hmac (orig));
    g_assert_cmpstr (lumo_audit_row_get_result_text (restored), ==, nasty);
    g_assert_true (lumo_audit_store_verify (copy, NULL, NULL, NULL, NULL, &error));
    g_assert_no_error (error);
  }

  g_clear_object (&store);
  g_clear_object (&copy);
  lumo_test_dir_remove (dir);
  lumo_test_dir_remove (dir2);
}

/* Schema version 2: who called (extension or desktop agent) and whether a
 * grant let the write through are stored, read back, searched, exported,
 * and covered by the chain. */
static void
test_kind_and_grant (void)
{
  g_autofree char *dir = audit_test_tmpdir ();
  g_autoptr(LumoAuditStore) store = audit_test_open (dir);
  g_autoptr(GError) error = NULL;
  g_autoptr(LumoAuditRow) row = NULL;
  g_autofree char *jsonl = NULL;
  g_auto(GStrv) lines = NULL;
  LumoAuditRecord r;
  gint64 ext_id, agent_id, grant_id;

  ext_id = audit_test_append (store, "save_script");

  r = audit_test_record ("save_script");
  r.caller_id = TEST_CALLER2_ID;
  r.caller_kind = LUMO_AUDIT_CALLER_KIND_AGENT;
  agent_id = lumo_audit_store_append (store, &r, &error);
  g_assert_no_error (error);

  r.by_grant = TRUE;
  grant_id = lumo_audit_store_append (store, &r, &error);
  g_assert_no_error (error);
  g_assert_true (lumo_audit_store_set_result (store, grant_id, TRUE, NULL, &error));
  g_assert_no_error (error);

  row = lumo_audit_store_get_row (store, ext_id, &error);
  g_assert_no_error (error);
  g_assert_cmpint (lumo_audit_row_get_caller_kind (row), ==, LUMO_AUDIT_CALLER_KIND_EXTENSION);
  g_assert_false (lumo_audit_row_get_by_grant (row));
  g_assert_null (lumo_audit_row_get_result_mac (row));
  g_clear_object (&row);

  row = lumo_audit_store_get_row (store, grant_id, &error);
  g_assert_no_error (error);
  g_assert_cmpint (lumo_audit_row_get_caller_kind (row), ==, LUMO_AUDIT_CALLER_KIND_AGENT);
  g_assert_true (lumo_audit_row_get_by_grant (row));
  g_assert_cmpuint (strlen (lumo_audit_row_get_result_mac (row)), ==, 64);
  {
    LumoAuditCallerKind kind = 0;
    gboolean by_grant = FALSE;

    g_object_get (row, "caller-kind", &kind, "by-grant", &by_grant, NULL);
    g_assert_cmpint (kind, ==, LUMO_AUDIT_CALLER_KIND_AGENT);
    g_assert_true (by_grant);
  }

  /* The filters. */
  g_assert_cmpint (audit_test_count (store, "kind:agent"), ==, 2);
  g_assert_cmpint (audit_test_count (store, "kind:extension"), ==, 1);
  g_assert_cmpint (audit_test_count (store, "grant:yes"), ==, 1);
  g_assert_cmpint (audit_test_count (store, "grant:no"), ==, 2);
  g_assert_cmpint (audit_test_count (store, "grant:yes kind:extension"), ==, 0);
  g_assert_cmpint (audit_test_count (store, "grant:yes grant:no"), ==, 0);
  {
    g_autoptr(LumoAuditQuery) q = lumo_audit_query_parse ("kind:robot", 0, &error);

    g_assert_null (q);
    g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT);
    g_assert_nonnull (strstr (error->message, "kind:"));
    g_clear_error (&error);
    q = lumo_audit_query_parse ("grant:maybe", 0, &error);
    g_assert_null (q);
    g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT);
    g_assert_nonnull (strstr (error->message, "grant:"));
    g_clear_error (&error);
  }

  /* The export says it too, and carries the result's MAC. */
  jsonl = export_to_string (store, NULL, LUMO_AUDIT_EXPORT_JSONL);
  lines = g_strsplit (jsonl, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 4);
  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(JsonParser) parser = json_parser_new ();
      JsonObject *obj;
      gint64 id;

      g_assert_true (json_parser_load_from_data (parser, lines[i], -1, &error));
      obj = json_node_get_object (json_parser_get_root (parser));
      id = json_object_get_int_member (obj, "id");
      g_assert_cmpstr (json_object_get_string_member (obj, "caller_kind"), ==,
                       id == ext_id ? "extension" : "agent");
      g_assert_true (json_object_get_boolean_member (obj, "by_grant") == (id == grant_id));
      if (id == grant_id)
        g_assert_cmpuint (strlen (json_object_get_string_member (obj, "result_mac")), ==, 64);
      else
        g_assert_true (json_object_get_null_member (obj, "result_mac"));
    }
  g_assert_cmpint (agent_id, ==, ext_id + 1);

  g_assert_true (lumo_audit_store_verify (store, NULL, NULL, NULL, NULL, &error));
  g_assert_no_error (error);

  g_clear_object (&store);
  lumo_test_dir_remove (dir);
}

/* A log of schema version 1 (another machine's, an older install) is
 * upgraded in place: its rows keep their hashes and verify, read as
 * extensions without grants, and stay searchable. */
static void
test_migrate_v1 (void)
{
  g_autofree char *dir = audit_test_tmpdir ();
  g_autoptr(LumoAuditStore) store = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(LumoAuditRow) row = NULL;

  audit_test_make_v1_log (dir, 3);

  store = audit_test_open (dir);
  row = lumo_audit_store_get_row (store, 2, &error);
  g_assert_no_error (error);
  g_assert_cmpint (lumo_audit_row_get_caller_kind (row), ==, LUMO_AUDIT_CALLER_KIND_EXTENSION);
  g_assert_false (lumo_audit_row_get_by_grant (row));
  g_assert_cmpint (audit_test_count (store, "legacy_tool"), ==, 3);
  g_assert_cmpint (audit_test_count (store, "kind:extension grant:no"), ==, 3);

  /* The old rows still verify (no checkpoint was written for them: the
   * store creates one for an empty log only), and a new agent row chains
   * to them in the second encoding. */
  {
    LumoAuditRecord r = audit_test_record ("new_tool");

    r.caller_kind = LUMO_AUDIT_CALLER_KIND_AGENT;
    g_assert_cmpint (lumo_audit_store_append (store, &r, &error), ==, 4);
    g_assert_no_error (error);
  }
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

  g_test_add_func ("/audit-store/column-list", test_column_list);
  g_test_add_func ("/audit-store/round-trip", test_round_trip);
  g_test_add_func ("/audit-store/truncation", test_truncation);
  g_test_add_func ("/audit-store/bad-input", test_bad_input);
  g_test_add_func ("/audit-store/hmac", test_hmac);
  g_test_add_func ("/audit-store/secret", test_secret);
  g_test_add_func ("/audit-store/refuse-newer-and-garbage", test_refuse_newer_and_garbage);
  g_test_add_func ("/audit-store/async-and-signal", test_async_and_signal);
  g_test_add_func ("/audit-store/export-import", test_export_import);
  g_test_add_func ("/audit-store/export-csv-formulas", test_export_csv_formulas);
  g_test_add_func ("/audit-store/kind-and-grant", test_kind_and_grant);
  g_test_add_func ("/audit-store/migrate-v1", test_migrate_v1);

  return g_test_run ();
}
