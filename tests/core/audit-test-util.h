/* audit-test-util.h — shared helpers of the audit store tests
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <errno.h>
#include <sqlite3.h>
#include <glib/gstdio.h>
#include <gio/gio.h>

#include "lumo-audit-chain.h"
#include "lumo-audit-private.h"
#include "lumo-audit-secret.h"
#include "lumo-db.h"
#include "lumo-audit-store.h"
#include "lumo-error.h"
#include "lumo-paths.h"
#include "lumo-test.h"

#define SHA_A      "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
#define SHA_B      "60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752"
#define TARGET_A   "0f8fad5b-d9cb-469f-a165-70867728950e"

static inline LumoAuditRecord
audit_test_record (const char *tool)
{
  LumoAuditRecord r = {
    .provider_id = TEST_PROVIDER_ID,
    .caller_id = TEST_CALLER_ID,
    .caller_name = "Lumo",
    .tool = tool,
    .write = TRUE,
    .target = TARGET_A,
    .params_sha256 = SHA_A,
    .decision = LUMO_AUDIT_DECISION_ALLOW,
    .reason = NULL,
  };

  return r;
}

/* A fresh temporary directory that is also the data dir. */
static inline char *
audit_test_tmpdir (void)
{
  char *dir = lumo_test_dir_new ("audit");

  lumo_paths_set_data_dir (dir);
  return dir;
}

static inline LumoAuditStore *
audit_test_open (const char *dir)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_build_filename (dir, "audit.db", NULL);
  LumoAuditStore *store = lumo_audit_store_new (path, &error);

  g_assert_no_error (error);
  g_assert_nonnull (store);
  return store;
}

static inline gint64
audit_test_append (LumoAuditStore *store,
                   const char     *tool)
{
  g_autoptr(GError) error = NULL;
  LumoAuditRecord r = audit_test_record (tool);
  gint64 id = lumo_audit_store_append (store, &r, &error);

  g_assert_no_error (error);
  g_assert_cmpint (id, >, 0);
  return id;
}

static inline gint64
audit_test_count (LumoAuditStore *store,
                  const char     *text)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(LumoAuditQuery) query = lumo_audit_query_parse (text, 0, &error);
  gint64 n;

  g_assert_no_error (error);
  n = lumo_audit_store_count (store, query, NULL, &error);
  g_assert_no_error (error);
  return n;
}

/* Runs the sqlite3 command-line shell on @db with @sql; returns its exit
 * status and stderr. The shell is what an attacker with file access would
 * use, and it ignores our triggers once they are dropped. */
static inline int
audit_test_sqlite3 (const char  *db,
                    const char  *sql,
                    char       **err_out)
{
  g_autoptr(GError) error = NULL;
  const char *argv[] = { "sqlite3", "-bail", db, sql, NULL };
  g_autofree char *out = NULL;
  char *err = NULL;
  int status = 0;

  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL,
                &out, &err, &status, &error);
  g_assert_no_error (error);

  if (err_out != NULL)
    *err_out = err;
  else
    g_free (err);

  return g_spawn_check_wait_status (status, NULL) ? 0 : 1;
}

static inline char *
audit_test_file_checksum (const char *path)
{
  g_autofree char *contents = NULL;
  gsize len = 0;

  if (!g_file_get_contents (path, &contents, &len, NULL))
    return g_strdup ("missing");

  return g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) contents, len);
}

/* ---- the search index's watermark, read from outside ------------------------- */

static inline gint64
audit_test_query_int (const char *path,
           const char *sql)
{
  sqlite3 *db = NULL;
  sqlite3_stmt *stmt = NULL;
  gint64 value = -1;

  g_assert_cmpint (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  sqlite3_busy_timeout (db, 5000);
  g_assert_cmpint (sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL), ==, SQLITE_OK);
  if (sqlite3_step (stmt) == SQLITE_ROW)
    value = sqlite3_column_int64 (stmt, 0);
  sqlite3_finalize (stmt);
  sqlite3_close (db);

  return value;
}

static inline gint64
audit_test_watermark (const char *path)
{
  return audit_test_query_int (path, "SELECT indexed_to FROM audit_fts_state");
}

/* audit_order holds every row up to the watermark, with the row's own
 * time, params and tool, and none above it: one statement, so one
 * snapshot even while a writer catches up. */
static inline gboolean
audit_test_order_sound (const char *path)
{
  return audit_test_query_int (path,
                               "SELECT (SELECT count(*) FROM audit_order) = (SELECT count(*) FROM audit "
                               "WHERE id <= (SELECT indexed_to FROM audit_fts_state)) "
                               "AND NOT EXISTS (SELECT 1 FROM audit_order o LEFT JOIN audit a ON a.id = o.id "
                               "WHERE a.id IS NULL OR o.time_us IS NOT a.time_us "
                               "OR o.params_hmac IS NOT a.params_hmac OR o.tool IS NOT a.tool "
                               "OR o.id > (SELECT indexed_to FROM audit_fts_state))") == 1;
}

typedef struct
{
  const char *path;
  gint64      id;
} AuditTestWatermarkWait;

static inline gboolean
audit_test_watermark_reached (gpointer data)
{
  AuditTestWatermarkWait *w = data;

  return audit_test_watermark (w->path) >= w->id;
}

static inline void
audit_test_wait_indexed (const char *path,
              gint64      id)
{
  AuditTestWatermarkWait w = { path, id };

  lumo_test_wait_until (audit_test_watermark_reached, &w, "the search index to catch up");
}


/* ---- a log of schema version 1, as an older install left it ---------------- */

/* audit.db and audit.key in @dir with @n_rows rows "legacy_tool_N" of
 * schema version 1, chained and indexed as that version did; row N at
 * @time0_us + N @step_us, its params hash 07 00 00 …. Then migrated to
 * @version (1 or 2) as that install would have. */
static inline void
audit_test_make_old_log (const char *dir,
                         gint64      n_rows,
                         guint       version,
                         gint64      time0_us,
                         gint64      step_us)
{
  g_autofree char *path = g_build_filename (dir, "audit.db", NULL);
  g_autofree char *key_path = g_build_filename (dir, "audit.key", NULL);
  g_autoptr(GBytes) secret = NULL;
  g_autoptr(GError) error = NULL;
  guint8 prev[LUMO_AUDIT_HASH_SIZE] = { 0, };
  guint8 params[LUMO_AUDIT_HASH_SIZE] = { 7, };
  sqlite3 *db;

  secret = lumo_secret_load_or_create (key_path, LUMO_AUDIT_SECRET_WHAT, &error);
  g_assert_no_error (error);
  db = lumo_db_open (path, LUMO_DB_FLAGS_SYNC_FULL, lumo_audit_migrations, 1, &error);
  g_assert_no_error (error);
  for (gint64 id = 1; id <= n_rows; id++)
    {
      g_autoptr(sqlite3_stmt) stmt = NULL;
      g_autofree char *tool = g_strdup_printf ("legacy_tool_%" G_GINT64_FORMAT, id);
      LumoAuditChainFields f = {
        id, time0_us + step_us * id, TEST_PROVIDER_ID, TEST_CALLER_ID, "Old", tool, TRUE, "", params, "allow", ""
      };
      guint8 hash[LUMO_AUDIT_HASH_SIZE];

      lumo_audit_chain_row_hash (prev, &f, hash);
      stmt = lumo_db_prepare (db, "INSERT INTO audit (id, time_us, provider_id, caller_id, caller_name, "
                                  "tool, write, target, params_hmac, decision, reason, hash) "
                                  "VALUES (?, ?, ?, ?, ?, ?, 1, '', ?, 'allow', '', ?)", &error);
      g_assert_no_error (error);
      sqlite3_bind_int64 (stmt, 1, id);
      sqlite3_bind_int64 (stmt, 2, f.time_us);
      sqlite3_bind_text (stmt, 3, f.provider_id, -1, SQLITE_STATIC);
      sqlite3_bind_text (stmt, 4, f.caller_id, -1, SQLITE_STATIC);
      sqlite3_bind_text (stmt, 5, f.caller_name, -1, SQLITE_STATIC);
      sqlite3_bind_text (stmt, 6, tool, -1, SQLITE_STATIC);
      sqlite3_bind_blob (stmt, 7, params, sizeof params, SQLITE_STATIC);
      sqlite3_bind_blob (stmt, 8, hash, sizeof hash, SQLITE_STATIC);
      g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_DONE);
      g_clear_pointer (&stmt, sqlite3_finalize);
      stmt = lumo_db_prepare (db, "INSERT INTO audit_fts (rowid, tool, caller_id, caller_name, target, "
                                  "result_text) SELECT id, tool, caller_id, caller_name, target, "
                                  "result_text FROM audit WHERE id = ?", &error);
      sqlite3_bind_int64 (stmt, 1, id);
      g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_DONE);
      memcpy (prev, hash, sizeof prev);
    }
  lumo_db_close (db);

  if (version > 1)
    {
      db = lumo_db_open (path, LUMO_DB_FLAGS_SYNC_FULL, lumo_audit_migrations, version, &error);
      g_assert_no_error (error);
      lumo_db_close (db);
    }
}

static inline void
audit_test_make_v1_log (const char *dir,
                        gint64      n_rows)
{
  audit_test_make_old_log (dir, n_rows, 1, 0, 1000);

}
