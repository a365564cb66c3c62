/* lumo-audit-writer-index.c — what the writer thread does besides commits
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The search index and audit_order up to their watermark, and their
 * catch-up off the decision path (see "THE SEARCH INDEX CATCHES UP
 * AFTERWARDS" in lumo-audit-writer.c); WAL checkpoints; and the check for
 * other connections' commits behind ::changed. All of it runs on the
 * writer thread.
 */
#define G_LOG_DOMAIN "lumo-audit"

#include "config.h"

#include "lumo-audit-private.h"
#include "lumo-db.h"
#include "lumo-error.h"

#define WAL_CHECKPOINT_FRAMES 1000

/* The search index's watermark, read inside the write transaction (another
 * process may have moved it). */
gboolean
_lumo_audit_writer_read_indexed_to (LumoAuditStore  *self,
                 gint64          *indexed_to,
                 GError         **error)
{
  sqlite3_stmt *stmt;
  int rc;

  if (!(stmt = _lumo_audit_writer_cached (self, &self->indexed_read_stmt,
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
gboolean
_lumo_audit_writer_index_rows (LumoAuditStore  *self,
            gint64           from,
            gint64           to,
            GError         **error)
{
  sqlite3_stmt *stmt;

  if (!(stmt = _lumo_audit_writer_cached (self, &self->index_rows_stmt,
                       "INSERT INTO audit_fts (rowid, tool, caller_id, caller_name, target, "
                       "result_text) SELECT id, tool, caller_id, caller_name, target, "
                       "result_text FROM audit WHERE id > ? AND id <= ? ORDER BY id", error)))
    return FALSE;
  sqlite3_bind_int64 (stmt, 1, from);
  sqlite3_bind_int64 (stmt, 2, to);
  if (!_lumo_audit_writer_step_done (self, stmt, "Cannot index audit rows", error))
    return FALSE;

  if (!(stmt = _lumo_audit_writer_cached (self, &self->order_rows_stmt, LUMO_AUDIT_ORDER_FILL_SQL, error)))
    return FALSE;
  sqlite3_bind_int64 (stmt, 1, from);
  sqlite3_bind_int64 (stmt, 2, to);
  if (!_lumo_audit_writer_step_done (self, stmt, "Cannot index audit rows", error))
    return FALSE;

  if (!(stmt = _lumo_audit_writer_cached (self, &self->indexed_write_stmt,
                       "UPDATE audit_fts_state SET indexed_to = ?", error)))
    return FALSE;
  sqlite3_bind_int64 (stmt, 1, to);
  return _lumo_audit_writer_step_done (self, stmt, "Cannot move the search index watermark", error);
}

gboolean
_lumo_audit_writer_fts_change (LumoAuditStore  *self,
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
    stmt = _lumo_audit_writer_cached (self, &self->fts_delete_stmt,
                   "INSERT INTO audit_fts (audit_fts, rowid, tool, caller_id, caller_name, "
                   "target, result_text) VALUES ('delete', ?, ?, ?, ?, ?, ?)", error);
  else
    stmt = _lumo_audit_writer_cached (self, &self->fts_insert_stmt,
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

  return _lumo_audit_writer_step_done (self, stmt, "Cannot update the audit search index", error);
}

void
_lumo_audit_writer_checkpoint_wal (LumoAuditStore *self)
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
void
_lumo_audit_writer_index_catch_up (LumoAuditStore *self)
{
  g_autoptr(GError) error = NULL;
  guint8 hash[LUMO_AUDIT_HASH_SIZE];
  gint64 indexed_to = 0, newest = 0;
  gboolean ok;

  self->unindexed_since = 0;
  if (self->integrity_error != NULL || g_atomic_int_get (&self->no_index_catch_up))
    return;

  ok = _lumo_audit_writer_begin (self, &error) &&
       _lumo_audit_writer_read_indexed_to (self, &indexed_to, &error) &&
       _lumo_audit_writer_read_tail (self, &newest, hash, &error) &&
       (newest <= indexed_to || _lumo_audit_writer_index_rows (self, indexed_to, newest, &error));
  if (ok)
    ok = _lumo_audit_writer_commit (self, &error);
  else
    lumo_db_rollback (self->writer_db);
  if (ok)
    _lumo_audit_writer_keep_tail (self, newest, hash);
  else
    self->tail_kept = FALSE;

  if (!ok)
    {
      /* Searches scan the rows above the watermark meanwhile; try again
       * later rather than at once. */
      g_warning ("The audit search index of “%s” could not catch up: %s", self->path,
                 error->message);
      self->unindexed_since = g_get_monotonic_time ();
      return;
    }

  _lumo_audit_writer_checkpoint_wal (self);
}

/* PRAGMA data_version on the writer's connection changes only when
 * another connection commits. */
gint64
_lumo_audit_writer_read_data_version (LumoAuditStore *self)
{
  sqlite3_stmt *stmt;
  gint64 version = -1;

  if (!(stmt = _lumo_audit_writer_cached (self, &self->data_version_stmt, "PRAGMA data_version", NULL)))
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

  version = _lumo_audit_writer_read_data_version (self);
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
void
_lumo_audit_writer_take_checks (LumoAuditStore *self,
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
