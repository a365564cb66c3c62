/* lumo-audit-writer.c — the writer thread and its group commits
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One thread per store owns the write connection. Callers queue ops and
 * wait (or get a GTask back); the thread takes everything queued, commits it
 * in one transaction (one fsync), writes the head checkpoint, then wakes
 * every waiter.
 *
 * THE SEARCH INDEX CATCHES UP AFTERWARDS. An append's transaction holds
 * its row, the table's indexes and nothing else: the trigram index (most
 * of a commit's pages and CPU) is written by a second transaction, after
 * the waiters are awake, when no op has come for INDEX_IDLE_US or the
 * oldest unindexed row is INDEX_MAX_LAG_US old — so a busy writer indexes
 * in batches and a row is in the index within a second of its commit. The
 * watermark (audit_fts_state.indexed_to), which says which rows the index
 * holds, moves in the same transaction; a crash before it commits leaves
 * rows above it, and the next catch-up — at open, or after any commit of
 * any process — indexes every one. Searches scan the rows above the
 * watermark meanwhile (lumo-audit-store-pages.c), so they never miss one.
 */
#define G_LOG_DOMAIN "lumo-audit"

#include "config.h"

#include <string.h>

#include "lumo-audit-private.h"
#include "lumo-audit-secret.h"
#include "lumo-db.h"
#include "lumo-error.h"

#define WAL_CHECKPOINT_FRAMES 1000
/* The longest a group commit waits for more callers to join it (µs). */
#define GROUP_COMMIT_MAX_WAIT_US 1000
/* The index catches up once the queue has been empty this long (µs)… */
#define INDEX_IDLE_US            (20 * 1000)
/* … or when its oldest unindexed row is this old, busy or not (µs). */
#define INDEX_MAX_LAG_US         (500 * 1000)

/* The INSERT's parameter of a column of LUMO_AUDIT_COLUMNS. */
#define PARAM(column) (LUMO_AUDIT_COL_##column + 1)

/* ---- ops ------------------------------------------------------------------ */

static void
queued_row_clear (LumoAuditQueuedRow *row)
{
  g_free (row->provider_id);
  g_free (row->caller_id);
  g_free (row->caller_name);
  g_free (row->tool);
  g_free (row->target);
  g_free (row->reason);
  g_free (row->result_text);
}

void
_lumo_audit_op_free (LumoAuditOp *op)
{
  for (gsize i = 0; i < op->n_rows; i++)
    queued_row_clear (&op->rows[i]);
  g_free (op->rows);
  g_free (op->result_text);
  g_clear_object (&op->task);
  g_clear_error (&op->error);
  g_free (op);
}

void
_lumo_audit_writer_enqueue (LumoAuditStore *self,
                            LumoAuditOp    *op)
{
  g_mutex_lock (&self->lock);
  g_queue_push_tail (&self->queue, op);
  g_cond_signal (&self->queue_cond);
  g_mutex_unlock (&self->lock);
}

/* Runs @op on the writer thread and waits; the caller keeps ownership. */
gboolean
_lumo_audit_writer_run_sync (LumoAuditStore  *self,
                             LumoAuditOp     *op,
                             GError         **error)
{
  GCond done;

  /* A condition of its own: the writer wakes exactly the callers of the
   * batch it committed, not every thread that waits on the store. */
  g_cond_init (&done);
  op->done_cond = &done;
  _lumo_audit_writer_enqueue (self, op);

  g_mutex_lock (&self->lock);
  while (!op->done)
    g_cond_wait (&done, &self->lock);
  g_mutex_unlock (&self->lock);
  g_cond_clear (&done);

  if (op->error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&op->error));
      return FALSE;
    }

  return TRUE;
}

/* Returns an async op's result to its task and frees the op, on the
 * task's main context. */
static gboolean
complete_async_cb (gpointer data)
{
  LumoAuditOp *op = data;
  g_autoptr(GTask) task = g_steal_pointer (&op->task);

  if (op->error != NULL)
    g_task_return_error (task, g_steal_pointer (&op->error));
  else if (op->kind == LUMO_AUDIT_OP_APPEND)
    g_task_return_int (task, op->id);
  else
    g_task_return_boolean (task, TRUE);

  _lumo_audit_op_free (op);
  return G_SOURCE_REMOVE;
}

/* ---- the writer thread ------------------------------------------------------ */

int
_lumo_audit_writer_wal_hook (gpointer    user_data,
                             sqlite3    *db,
                             const char *db_name,
                             int         n_frames)
{
  LumoAuditStore *self = user_data;

  self->wal_frames = n_frames;
  return SQLITE_OK;
}

static sqlite3_stmt *cached (LumoAuditStore  *self,
                             sqlite3_stmt   **slot,
                             const char      *sql,
                             GError         **error);

static gboolean
read_tail (LumoAuditStore  *self,
           gint64          *id,
           guint8          *hash,
           GError         **error)
{
  struct { sqlite3_stmt **slot; const char *sql; } queries[] = {
    { &self->tail_stmt, "SELECT id, hash FROM audit ORDER BY id DESC LIMIT 1" },
    { &self->anchor_tail_stmt, "SELECT last_id, last_hash FROM audit_anchor" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (queries); i++)
    {
      sqlite3_stmt *stmt;
      int rc;

      if (!(stmt = cached (self, queries[i].slot, queries[i].sql, error)))
        return FALSE;

      rc = sqlite3_step (stmt);
      if (rc == SQLITE_ROW)
        {
          if (sqlite3_column_bytes (stmt, 1) != LUMO_AUDIT_HASH_SIZE)
            {
              g_set_error (error, LUMO_ERROR, LUMO_ERROR_CHAIN_BROKEN,
                           "The newest audit row %" G_GINT64_FORMAT " has no valid hash; "
                           "nothing can be chained to it",
                           (gint64) sqlite3_column_int64 (stmt, 0));
              sqlite3_reset (stmt);
              return FALSE;
            }
          *id = sqlite3_column_int64 (stmt, 0);
          memcpy (hash, sqlite3_column_blob (stmt, 1), LUMO_AUDIT_HASH_SIZE);
          sqlite3_reset (stmt);
          return TRUE;
        }
      sqlite3_reset (stmt);
      if (rc != SQLITE_DONE)
        {
          lumo_db_set_error (error, self->writer_db, rc, "Cannot read the end of the audit log");
          return FALSE;
        }
    }

  *id = 0;
  memset (hash, 0, LUMO_AUDIT_HASH_SIZE);
  return TRUE;
}

static gboolean
step_done (LumoAuditStore  *self,
           sqlite3_stmt    *stmt,
           const char      *what,
           GError         **error)
{
  int rc = sqlite3_step (stmt);

  if (rc != SQLITE_DONE && rc != SQLITE_ROW)
    {
      lumo_db_set_error (error, self->writer_db, rc, what);
      sqlite3_reset (stmt);
      return FALSE;
    }

  sqlite3_reset (stmt);
  return TRUE;
}

static sqlite3_stmt *
cached (LumoAuditStore  *self,
        sqlite3_stmt   **slot,
        const char      *sql,
        GError         **error)
{
  if (*slot == NULL)
    {
      int rc = sqlite3_prepare_v3 (self->writer_db, sql, -1, SQLITE_PREPARE_PERSISTENT, slot, NULL);

      if (rc != SQLITE_OK)
        {
          lumo_db_set_error (error, self->writer_db, rc, "Cannot prepare a statement");
          return NULL;
        }
    }

  return *slot;
}

/* The search index's watermark, read inside the write transaction (another
 * process may have moved it). */
static gboolean
read_indexed_to (LumoAuditStore  *self,
                 gint64          *indexed_to,
                 GError         **error)
{
  sqlite3_stmt *stmt;
  int rc;

  if (!(stmt = cached (self, &self->indexed_read_stmt,
                       "SELECT indexed_to FROM audit_fts_state", error)))
    return FALSE;

  rc = sqlite3_step (stmt);
  *indexed_to = rc == SQLITE_ROW ? sqlite3_column_int64 (stmt, 0) : 0;
  sqlite3_reset (stmt);
  if (rc != SQLITE_ROW)
    {
      if (rc == SQLITE_DONE)
        g_set_error (error, LUMO_ERROR, LUMO_ERROR_DB_CORRUPT,
                     "The audit log has no search index watermark (audit_fts_state is empty)");
      else
        lumo_db_set_error (error, self->writer_db, rc, "Cannot read the search index watermark");
      return FALSE;
    }

  return TRUE;
}

/* Indexes the rows after @from up to @to (as they are now, results
 * included) for search and for the sort orders, and moves the watermark
 * to @to. */
static gboolean
index_rows (LumoAuditStore  *self,
            gint64           from,
            gint64           to,
            GError         **error)
{
  sqlite3_stmt *stmt;

  if (!(stmt = cached (self, &self->index_rows_stmt,
                       "INSERT INTO audit_fts (rowid, tool, caller_id, caller_name, target, "
                       "result_text) SELECT id, tool, caller_id, caller_name, target, "
                       "result_text FROM audit WHERE id > ? AND id <= ? ORDER BY id", error)))
    return FALSE;
  sqlite3_bind_int64 (stmt, 1, from);
  sqlite3_bind_int64 (stmt, 2, to);
  if (!step_done (self, stmt, "Cannot index audit rows", error))
    return FALSE;

  if (!(stmt = cached (self, &self->order_rows_stmt, LUMO_AUDIT_ORDER_FILL_SQL, error)))
    return FALSE;
  sqlite3_bind_int64 (stmt, 1, from);
  sqlite3_bind_int64 (stmt, 2, to);
  if (!step_done (self, stmt, "Cannot index audit rows", error))
    return FALSE;

  if (!(stmt = cached (self, &self->indexed_write_stmt,
                       "UPDATE audit_fts_state SET indexed_to = ?", error)))
    return FALSE;
  sqlite3_bind_int64 (stmt, 1, to);
  return step_done (self, stmt, "Cannot move the search index watermark", error);
}

static gboolean
fts_change (LumoAuditStore  *self,
            gboolean         remove,
            gint64           id,
            const char      *tool,
            const char      *caller_id,
            const char      *caller_name,
            const char      *target,
            const char      *result_text,
            GError         **error)
{
  sqlite3_stmt *stmt;

  /* External content: a removal must repeat the values that were indexed. */
  if (remove)
    stmt = cached (self, &self->fts_delete_stmt,
                   "INSERT INTO audit_fts (audit_fts, rowid, tool, caller_id, caller_name, "
                   "target, result_text) VALUES ('delete', ?, ?, ?, ?, ?, ?)", error);
  else
    stmt = cached (self, &self->fts_insert_stmt,
                   "INSERT INTO audit_fts (rowid, tool, caller_id, caller_name, target, "
                   "result_text) VALUES (?, ?, ?, ?, ?, ?)", error);
  if (stmt == NULL)
    return FALSE;

  sqlite3_bind_int64 (stmt, 1, id);
  sqlite3_bind_text (stmt, 2, tool, -1, SQLITE_STATIC);
  sqlite3_bind_text (stmt, 3, caller_id, -1, SQLITE_STATIC);
  sqlite3_bind_text (stmt, 4, caller_name, -1, SQLITE_STATIC);
  sqlite3_bind_text (stmt, 5, target, -1, SQLITE_STATIC);
  sqlite3_bind_text (stmt, 6, result_text, -1, SQLITE_STATIC);

  return step_done (self, stmt, "Cannot update the audit search index", error);
}

/* The row alone: the search index catches up later (see the top). */
static gboolean
insert_row (LumoAuditStore           *self,
            const LumoAuditQueuedRow *row,
            gint64                   *tail_id,
            guint8                   *tail_hash,
            GError                  **error)
{
  LumoAuditChainFields f = {
    .id = *tail_id + 1,
    .time_us = row->time_us,
    .provider_id = row->provider_id,
    .caller_id = row->caller_id,
    .caller_name = row->caller_name,
    .tool = row->tool,
    .write = row->write,
    .target = row->target,
    .params_hmac = row->params_hmac,
    .decision = row->decision,
    .reason = row->reason,
    .caller_kind = row->caller_kind,
    .by_grant = row->by_grant,
  };
  guint8 hash[LUMO_AUDIT_HASH_SIZE];
  guint8 mac[LUMO_AUDIT_HASH_SIZE];
  sqlite3_stmt *stmt;

  if (!(stmt = cached (self, &self->insert_stmt,
                       "INSERT INTO audit (" LUMO_AUDIT_COLUMN_NAMES ") "
                       "VALUES (" LUMO_AUDIT_COLUMN_PARAMS ")", error)))
    return FALSE;

  lumo_audit_chain_row_hash (tail_hash, &f, hash);

  /* Every parameter is bound (or NULL below): a cached statement keeps
   * its last row's bindings otherwise. */
  sqlite3_bind_int64 (stmt, PARAM (ID), f.id);
  sqlite3_bind_int64 (stmt, PARAM (TIME_US), f.time_us);
  sqlite3_bind_text (stmt, PARAM (PROVIDER_ID), f.provider_id, -1, SQLITE_STATIC);
  sqlite3_bind_text (stmt, PARAM (CALLER_ID), f.caller_id, -1, SQLITE_STATIC);
  sqlite3_bind_text (stmt, PARAM (CALLER_NAME), f.caller_name, -1, SQLITE_STATIC);
  sqlite3_bind_text (stmt, PARAM (TOOL), f.tool, -1, SQLITE_STATIC);
  sqlite3_bind_int (stmt, PARAM (WRITE), f.write ? 1 : 0);
  sqlite3_bind_text (stmt, PARAM (TARGET), f.target, -1, SQLITE_STATIC);
  sqlite3_bind_blob (stmt, PARAM (PARAMS_HMAC), f.params_hmac, LUMO_AUDIT_HASH_SIZE, SQLITE_STATIC);
  sqlite3_bind_text (stmt, PARAM (DECISION), f.decision, -1, SQLITE_STATIC);
  sqlite3_bind_text (stmt, PARAM (REASON), f.reason, -1, SQLITE_STATIC);
  sqlite3_bind_blob (stmt, PARAM (HASH), hash, sizeof hash, SQLITE_STATIC);
  sqlite3_bind_text (stmt, PARAM (CALLER_KIND), f.caller_kind, -1, SQLITE_STATIC);
  sqlite3_bind_int (stmt, PARAM (BY_GRANT), f.by_grant ? 1 : 0);

  if (row->result != NULL)
    {
      lumo_audit_chain_result_mac (self->secret, hash, row->result, row->result_text,
                                   row->result_time_us, mac);
      sqlite3_bind_text (stmt, PARAM (RESULT), row->result, -1, SQLITE_STATIC);
      sqlite3_bind_text (stmt, PARAM (RESULT_TEXT), row->result_text, -1, SQLITE_STATIC);
      sqlite3_bind_int64 (stmt, PARAM (RESULT_TIME_US), row->result_time_us);
      sqlite3_bind_blob (stmt, PARAM (RESULT_MAC), mac, sizeof mac, SQLITE_STATIC);
    }
  else
    {
      sqlite3_bind_null (stmt, PARAM (RESULT));
      sqlite3_bind_null (stmt, PARAM (RESULT_TEXT));
      sqlite3_bind_null (stmt, PARAM (RESULT_TIME_US));
      sqlite3_bind_null (stmt, PARAM (RESULT_MAC));
    }

  if (!step_done (self, stmt, "Cannot append to the audit log", error))
    return FALSE;

  *tail_id = f.id;
  memcpy (tail_hash, hash, sizeof hash);
  return TRUE;
}

/* The rows first, then, when the index was caught up, the index for all
 * of them in one statement (FTS5 tokenizes a run of rows in one pass at
 * about half the cost of one insert per row): an import is no decision,
 * and a million rows are better indexed in the transaction that holds them
 * than left to the catch-up. */
static gboolean
import_rows (LumoAuditStore  *self,
             LumoAuditOp     *op,
             gint64          *tail_id,
             guint8          *tail_hash,
             GError         **error)
{
  gint64 first = *tail_id;
  gint64 indexed_to;

  for (gsize i = 0; i < op->n_rows; i++)
    if (!insert_row (self, &op->rows[i], tail_id, tail_hash, error))
      return FALSE;

  if (!read_indexed_to (self, &indexed_to, error))
    return FALSE;

  return indexed_to < first || index_rows (self, first, *tail_id, error);
}

/* FALSE only for a failure of the database (which fails the batch); a
 * request that cannot be honoured is the op's own error. */
static gboolean
set_result (LumoAuditStore  *self,
            LumoAuditOp              *op,
            GError         **error)
{
  g_autofree char *tool = NULL, *caller_id = NULL, *caller_name = NULL, *target = NULL;
  guint8 hash[LUMO_AUDIT_HASH_SIZE];
  guint8 mac[LUMO_AUDIT_HASH_SIZE];
  sqlite3_stmt *stmt;
  int rc;

  if (!(stmt = cached (self, &self->result_read_stmt,
                       "SELECT decision, result, hash, tool, caller_id, caller_name, target "
                       "FROM audit WHERE id = ?", error)))
    return FALSE;

  sqlite3_bind_int64 (stmt, 1, op->id);
  rc = sqlite3_step (stmt);
  if (rc == SQLITE_DONE)
    {
      sqlite3_reset (stmt);
      g_set_error (&op->error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND,
                   "There is no audit row %" G_GINT64_FORMAT, op->id);
      return TRUE;
    }
  if (rc != SQLITE_ROW)
    {
      lumo_db_set_error (error, self->writer_db, rc, "Cannot read the audit row");
      sqlite3_reset (stmt);
      return FALSE;
    }

  if (g_strcmp0 ((const char *) sqlite3_column_text (stmt, 0), "deny") == 0)
    g_set_error (&op->error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                 "Audit row %" G_GINT64_FORMAT " was denied, so it has no result", op->id);
  else if (sqlite3_column_type (stmt, 1) != SQLITE_NULL)
    g_set_error (&op->error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                 "Audit row %" G_GINT64_FORMAT " already has a result; it is set only once",
                 op->id);
  else if (sqlite3_column_bytes (stmt, 2) != LUMO_AUDIT_HASH_SIZE)
    g_set_error (&op->error, LUMO_ERROR, LUMO_ERROR_CHAIN_BROKEN,
                 "Audit row %" G_GINT64_FORMAT " has no valid hash", op->id);

  if (op->error != NULL)
    {
      sqlite3_reset (stmt);
      return TRUE;
    }

  memcpy (hash, sqlite3_column_blob (stmt, 2), sizeof hash);
  tool = g_strdup ((const char *) sqlite3_column_text (stmt, 3));
  caller_id = g_strdup ((const char *) sqlite3_column_text (stmt, 4));
  caller_name = g_strdup ((const char *) sqlite3_column_text (stmt, 5));
  target = g_strdup ((const char *) sqlite3_column_text (stmt, 6));
  sqlite3_reset (stmt);

  lumo_audit_chain_result_mac (self->secret, hash, op->result, op->result_text, op->time_us, mac);

  if (!(stmt = cached (self, &self->result_update_stmt,
                       "UPDATE audit SET result = ?, result_text = ?, result_time_us = ?, "
                       "result_mac = ? WHERE id = ?", error)))
    return FALSE;

  sqlite3_bind_text (stmt, 1, op->result, -1, SQLITE_STATIC);
  sqlite3_bind_text (stmt, 2, op->result_text, -1, SQLITE_STATIC);
  sqlite3_bind_int64 (stmt, 3, op->time_us);
  sqlite3_bind_blob (stmt, 4, mac, sizeof mac, SQLITE_STATIC);
  sqlite3_bind_int64 (stmt, 5, op->id);
  if (!step_done (self, stmt, "Cannot record the result", error))
    return FALSE;

  /* A row above the watermark is indexed with its result when the index
   * catches up; an indexed one gets its new outcome, and its text. */
  {
    gint64 indexed_to;

    if (!read_indexed_to (self, &indexed_to, error))
      return FALSE;
    if (op->id > indexed_to)
      return TRUE;

    if (!(stmt = cached (self, &self->order_update_stmt,
                         "UPDATE audit_order SET outcome = ? WHERE id = ?", error)))
      return FALSE;
    sqlite3_bind_int (stmt, 1, g_str_equal (op->result, "error") ? LUMO_AUDIT_OUTCOME_ERROR
                                                                  : LUMO_AUDIT_OUTCOME_OK);
    sqlite3_bind_int64 (stmt, 2, op->id);
    if (!step_done (self, stmt, "Cannot record the result", error))
      return FALSE;

    if (op->result_text != NULL)
      return fts_change (self, TRUE, op->id, tool, caller_id, caller_name, target, NULL, error) &&
             fts_change (self, FALSE, op->id, tool, caller_id, caller_name, target,
                         op->result_text, error);
  }

  return TRUE;
}

static gboolean
exec_int (LumoAuditStore  *self,
          const char      *sql,
          gint64           arg,
          gboolean        *is_null,
          gint64          *out,
          GError         **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;
  int rc;

  if (!(stmt = lumo_db_prepare (self->writer_db, sql, error)))
    return FALSE;
  if (sqlite3_bind_parameter_count (stmt) > 0)
    sqlite3_bind_int64 (stmt, 1, arg);

  rc = sqlite3_step (stmt);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE)
    {
      lumo_db_set_error (error, self->writer_db, rc, "Cannot apply retention");
      return FALSE;
    }

  if (out != NULL)
    {
      *is_null = rc == SQLITE_DONE || sqlite3_column_type (stmt, 0) == SQLITE_NULL;
      *out = *is_null ? 0 : sqlite3_column_int64 (stmt, 0);
    }

  return TRUE;
}

/* Deletes the oldest rows up to the first one that is not older than the
 * cutoff: always a prefix of the chain, so the anchor (the hash of the last
 * deleted row) is all the remainder needs. */
static gboolean
apply_retention (LumoAuditStore  *self,
                 LumoAuditOp              *op,
                 GError         **error)
{
  g_autoptr(sqlite3_stmt) hash_stmt = NULL;
  g_autoptr(sqlite3_stmt) anchor_stmt = NULL;
  g_autofree char *cutoff_sql = NULL;
  guint8 hash[LUMO_AUDIT_HASH_SIZE];
  guint8 mac[LUMO_AUDIT_HASH_SIZE];
  gboolean none_newer, empty;
  gint64 first_newer, first, last, max_id, indexed_to;

  op->count = 0;

  if (!exec_int (self, "SELECT min (id) FROM audit WHERE time_us >= ?", op->time_us,
                 &none_newer, &first_newer, error) ||
      !exec_int (self, "SELECT min (id) FROM audit", 0, &empty, &first, error) ||
      !exec_int (self, "SELECT max (id) FROM audit", 0, &empty, &last, error))
    return FALSE;

  if (empty)
    return TRUE;

  max_id = none_newer ? last : first_newer - 1;
  if (max_id < first)
    return TRUE;

  if (!(hash_stmt = lumo_db_prepare (self->writer_db, "SELECT hash FROM audit WHERE id = ?", error)))
    return FALSE;
  sqlite3_bind_int64 (hash_stmt, 1, max_id);
  if (sqlite3_step (hash_stmt) != SQLITE_ROW ||
      sqlite3_column_bytes (hash_stmt, 0) != LUMO_AUDIT_HASH_SIZE)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_CHAIN_BROKEN,
                   "Audit row %" G_GINT64_FORMAT " is missing or has no valid hash; "
                   "retention stopped (run verify)", max_id);
      return FALSE;
    }
  memcpy (hash, sqlite3_column_blob (hash_stmt, 0), sizeof hash);

  /* Only rows the index holds leave it: removing one it never held would
   * damage it. */
  if (!read_indexed_to (self, &indexed_to, error))
    return FALSE;

  cutoff_sql = g_strdup_printf ("INSERT INTO audit_retention_cutoff (one, before_us, max_id) "
                                "VALUES (1, %" G_GINT64_FORMAT ", ?)", op->time_us);
  if (!exec_int (self, cutoff_sql, max_id, NULL, NULL, error) ||
      !exec_int (self,
                 "INSERT INTO audit_fts (audit_fts, rowid, tool, caller_id, caller_name, target, "
                 "result_text) SELECT 'delete', id, tool, caller_id, caller_name, target, "
                 "result_text FROM audit WHERE id <= ?", MIN (max_id, indexed_to), NULL, NULL, error) ||
      !exec_int (self, "DELETE FROM audit_order WHERE id <= ?", max_id, NULL, NULL, error) ||
      !exec_int (self, "DELETE FROM audit WHERE id <= ?", max_id, NULL, NULL, error))
    return FALSE;
  op->count = sqlite3_changes64 (self->writer_db);

  lumo_audit_chain_head_mac (self->secret, "anchor", max_id, hash, mac);
  if (!(anchor_stmt = lumo_db_prepare (self->writer_db,
                                       "INSERT INTO audit_anchor (one, last_id, last_hash, mac, cutoff_us) "
                                       "VALUES (1, ?, ?, ?, ?) ON CONFLICT (one) DO UPDATE SET "
                                       "last_id = excluded.last_id, last_hash = excluded.last_hash, "
                                       "mac = excluded.mac, cutoff_us = excluded.cutoff_us", error)))
    return FALSE;
  sqlite3_bind_int64 (anchor_stmt, 1, max_id);
  sqlite3_bind_blob (anchor_stmt, 2, hash, sizeof hash, SQLITE_STATIC);
  sqlite3_bind_blob (anchor_stmt, 3, mac, sizeof mac, SQLITE_STATIC);
  sqlite3_bind_int64 (anchor_stmt, 4, op->time_us);

  return step_done (self, anchor_stmt, "Cannot write the retention anchor", error) &&
         lumo_db_exec (self->writer_db, "DELETE FROM audit_retention_cutoff", error);
}

/* BEGIN IMMEDIATE and COMMIT as prepared statements: a single-row group
 * commit is short enough that parsing them each time shows. IMMEDIATE takes
 * the write lock first, so a busy database fails here, not half-way. */
static gboolean
begin_immediate (LumoAuditStore  *self,
                 GError         **error)
{
  sqlite3_stmt *stmt = cached (self, &self->begin_stmt, "BEGIN IMMEDIATE", error);

  return stmt != NULL && step_done (self, stmt, "Cannot start writing the audit log", error);
}

static gboolean
commit (LumoAuditStore  *self,
        GError         **error)
{
  sqlite3_stmt *stmt = cached (self, &self->commit_stmt, "COMMIT", error);

  if (stmt == NULL || !step_done (self, stmt, "Cannot commit to the audit log", error))
    {
      lumo_db_rollback (self->writer_db);
      return FALSE;
    }

  return TRUE;
}

static void
checkpoint_wal (LumoAuditStore *self)
{
  if (self->wal_frames >= WAL_CHECKPOINT_FRAMES)
    {
      sqlite3_wal_checkpoint_v2 (self->writer_db, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
      self->wal_frames = 0;
    }
}

/* Indexes every row above the watermark, whoever committed it, in one
 * transaction of its own. It is synced like any commit: an unsynced one
 * would leave its pages for the next append's fsync to write (ext4
 * flushes them with it), which is the cost this moves off that path. */
static void
index_catch_up (LumoAuditStore *self)
{
  g_autoptr(GError) error = NULL;
  guint8 hash[LUMO_AUDIT_HASH_SIZE];
  gint64 indexed_to = 0, newest = 0;
  gboolean ok;

  self->unindexed_since = 0;
  if (self->integrity_error != NULL || g_atomic_int_get (&self->no_index_catch_up))
    return;

  ok = begin_immediate (self, &error) &&
       read_indexed_to (self, &indexed_to, &error) &&
       read_tail (self, &newest, hash, &error) &&
       (newest <= indexed_to || index_rows (self, indexed_to, newest, &error));
  if (ok)
    ok = commit (self, &error);
  else
    lumo_db_rollback (self->writer_db);

  if (!ok)
    {
      /* Searches scan the rows above the watermark meanwhile; try again
       * later rather than at once. */
      g_warning ("The audit search index of “%s” could not catch up: %s", self->path,
                 error->message);
      self->unindexed_since = g_get_monotonic_time ();
      return;
    }

  checkpoint_wal (self);
}

/* PRAGMA data_version on the writer's connection changes only when
 * another connection commits. */
static gint64
read_data_version (LumoAuditStore *self)
{
  sqlite3_stmt *stmt;
  gint64 version = -1;

  if (!(stmt = cached (self, &self->data_version_stmt, "PRAGMA data_version", NULL)))
    return -1;
  if (sqlite3_step (stmt) == SQLITE_ROW)
    version = sqlite3_column_int64 (stmt, 0);
  sqlite3_reset (stmt);

  return version;
}

static void
check_changes (LumoAuditStore *self)
{
  gint64 version;

  g_mutex_lock (&self->lock);
  self->check_queued = FALSE;
  g_mutex_unlock (&self->lock);

  version = read_data_version (self);
  if (version >= 0 && version != self->data_version)
    {
      self->data_version = version;
      _lumo_audit_store_changed (self);
      /* Their rows may want indexing too (a killed CLI's, say). */
      if (self->unindexed_since == 0)
        self->unindexed_since = g_get_monotonic_time ();
    }
}

/* Takes the CHECK_CHANGES ops out of @batch (they need no transaction)
 * and runs one check for all of them. */
static void
take_checks (LumoAuditStore *self,
             GQueue         *batch)
{
  gboolean any = FALSE;

  for (GList *l = batch->head, *next; l != NULL; l = next)
    {
      LumoAuditOp *op = l->data;

      next = l->next;
      if (op->kind != LUMO_AUDIT_OP_CHECK_CHANGES)
        continue;
      g_queue_delete_link (batch, l);
      _lumo_audit_op_free (op);
      any = TRUE;
    }

  if (any)
    check_changes (self);
}

static void
writer_process (LumoAuditStore *self,
                GQueue         *batch)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) added = g_array_new (FALSE, FALSE, sizeof (gint64));
  GQueue async_ops = G_QUEUE_INIT;
  guint8 tail_hash[LUMO_AUDIT_HASH_SIZE];
  g_autoptr(GArray) results = g_array_new (FALSE, FALSE, sizeof (gint64));
  gint64 tail_id = 0, start_id;
  gboolean ok;

  if (self->integrity_error != NULL)
    {
      /* Fail closed: not one write into a log that failed its check. */
      error = g_error_copy (self->integrity_error);
      ok = FALSE;
    }
  else
    ok = begin_immediate (self, &error) &&
         read_tail (self, &tail_id, tail_hash, &error);
  start_id = tail_id;

  for (GList *l = batch->head; ok && l != NULL; l = l->next)
    {
      LumoAuditOp *op = l->data;

      switch (op->kind)
        {
        case LUMO_AUDIT_OP_APPEND:
          ok = insert_row (self, &op->rows[0], &tail_id, tail_hash, &error);
          op->id = tail_id;
          g_array_append_val (added, tail_id);
          break;
        case LUMO_AUDIT_OP_IMPORT:
          ok = import_rows (self, op, &tail_id, tail_hash, &error);
          break;
        case LUMO_AUDIT_OP_RESULT:
          ok = set_result (self, op, &error);
          if (ok && op->error == NULL)
            g_array_append_val (results, op->id);
          break;
        case LUMO_AUDIT_OP_RETENTION:
        default:
          ok = apply_retention (self, op, &error);
          break;
        }
    }

  if (ok)
    ok = commit (self, &error);
  else if (self->integrity_error == NULL)
    lumo_db_rollback (self->writer_db);

  if (!ok && self->integrity_error == NULL)
    g_prefix_error (&error, "Cannot write to the audit log “%s”: ", self->path);

  /* The checkpoint follows the commit, never precedes it: it may lag the
   * database after a crash, but it can never name a row that is not
   * there. */
  if (ok && tail_id != start_id && !g_atomic_int_get (&self->no_head_checkpoints))
    {
      g_autoptr(GError) head_error = NULL;

      if (!lumo_audit_chain_write_checkpoint (self->head_path, self->secret, tail_id, tail_hash,
                                              &head_error))
        g_warning ("%s", head_error->message);
    }

  g_mutex_lock (&self->lock);
  for (GList *l = batch->head; l != NULL; l = l->next)
    {
      LumoAuditOp *op = l->data;

      if (!ok)
        {
          g_clear_error (&op->error);
          op->error = g_error_copy (error);
          op->id = 0;
        }
    }
  g_mutex_unlock (&self->lock);

  /* Sync ops belong to their waiting callers: done is set and signalled
   * under the lock, and the op is not touched after it is released. Async
   * ops are completed (and freed) here. */
  g_mutex_lock (&self->lock);
  while (!g_queue_is_empty (batch))
    {
      LumoAuditOp *op = g_queue_pop_head (batch);

      if (op->task != NULL)
        g_queue_push_tail (&async_ops, op);
      else
        {
          op->done = TRUE;
          g_cond_signal (op->done_cond);
        }
    }
  g_mutex_unlock (&self->lock);

  /* Completed on the caller's own context, never here: releasing a task
   * may release the last reference to the store, and the store's dispose
   * joins this thread. */
  while (!g_queue_is_empty (&async_ops))
    {
      LumoAuditOp *op = g_queue_pop_head (&async_ops);
      g_autoptr(GSource) idle = g_idle_source_new ();

      g_source_set_priority (idle, g_task_get_priority (op->task));
      g_source_set_callback (idle, complete_async_cb, op, NULL);
      g_source_set_static_name (idle, "[lumo] audit op done");
      g_source_attach (idle, g_task_get_context (op->task));
    }

  if (ok)
    {
      _lumo_audit_store_rows_added (self, added);
      _lumo_audit_store_results_set (self, results);
      if (tail_id != start_id && self->unindexed_since == 0)
        self->unindexed_since = g_get_monotonic_time ();
    }

  /* Checkpointing the WAL after the waiters are awake keeps its fsyncs out
   * of the latency of an append. */
  checkpoint_wal (self);
}

gpointer
_lumo_audit_writer_thread (gpointer data)
{
  LumoAuditStore *self = data;
  guint last_batch = 0;
  gint64 last_commit_us = 0;
  gint64 last_activity = 0;

  _lumo_audit_store_check_integrity (self);
  /* Where the file stands now: commits of others move it. */
  self->data_version = read_data_version (self);
  /* Rows a crash (of any process) left out of the index. */
  index_catch_up (self);

  for (;;)
    {
      GQueue batch = G_QUEUE_INIT;
      gboolean stopping;
      gint64 start;

      /* Wait for an op; with rows to index, only until the writer has been
       * idle for INDEX_IDLE_US (or the oldest of them is INDEX_MAX_LAG_US
       * old). No timeout while there is nothing to do. */
      g_mutex_lock (&self->lock);
      while (g_queue_is_empty (&self->queue) && !self->stopping)
        {
          gint64 deadline;

          if (self->unindexed_since == 0)
            {
              g_cond_wait (&self->queue_cond, &self->lock);
              continue;
            }
          deadline = MIN (last_activity + INDEX_IDLE_US, self->unindexed_since + INDEX_MAX_LAG_US);
          if (g_get_monotonic_time () >= deadline)
            break;
          g_cond_wait_until (&self->queue_cond, &self->lock, deadline);
        }
      stopping = self->stopping;

      /* Idle (or closing): index now. Busy for too long: index first. */
      if (g_queue_is_empty (&self->queue) ||
          (self->unindexed_since != 0 &&
           g_get_monotonic_time () - self->unindexed_since >= INDEX_MAX_LAG_US))
        {
          gboolean idle = g_queue_is_empty (&self->queue);

          g_mutex_unlock (&self->lock);
          if (self->unindexed_since != 0)
            index_catch_up (self);
          if (idle && stopping)
            break;
          continue;
        }

      /* Group commit that grows its groups: the callers of the last batch
       * were just woken and most are about to append again, but on a busy
       * machine they come back one by one. Taking the queue at once would
       * commit them in many small groups, one fsync each; waiting a little
       * (never longer than the last commit took, so at most doubling a
       * caller's wait) lets them join the next one. A lone caller (the last
       * batch had one op) never waits. */
      if (last_batch > 1 && !self->stopping)
        {
          gint64 deadline = g_get_monotonic_time () +
                            CLAMP (last_commit_us, 0, GROUP_COMMIT_MAX_WAIT_US);

          while (self->queue.length < last_batch && !self->stopping &&
                 g_cond_wait_until (&self->queue_cond, &self->lock, deadline))
            ;
        }

      batch = self->queue;
      g_queue_init (&self->queue);
      g_mutex_unlock (&self->lock);

      take_checks (self, &batch);
      if (g_queue_is_empty (&batch))
        continue;

      last_batch = batch.length;
      start = g_get_monotonic_time ();
      writer_process (self, &batch);
      last_activity = g_get_monotonic_time ();
      last_commit_us = last_activity - start;
    }

  return NULL;
}
