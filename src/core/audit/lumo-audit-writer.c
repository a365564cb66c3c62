/* lumo-audit-writer.c — the writer thread and its group commits
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One thread per store owns the write connection (the ops themselves are
 * in lumo-audit-writer-ops.c, the index's catch-up and the check for other
 * writers in lumo-audit-writer-index.c). Callers queue ops and
 * wait (or get a GTask back); the thread takes everything queued, commits it
 * in one transaction (one fsync), writes the head checkpoint, then wakes
 * every waiter.
 *
 * THE SEARCH INDEX CATCHES UP AFTERWARDS. An append's transaction holds
 * its row and nothing else (the audit table has no index of its own since
 * schema 3): the trigram index (most of a commit's pages and CPU) and
 * audit_order (the sort keys, and the time and params indexes) are
 * written by a second transaction, after
 * the waiters are awake, when no op has come for INDEX_IDLE_US or the
 * oldest unindexed row is INDEX_MAX_LAG_US old — so a busy writer indexes
 * in batches and a row is in the index within a second of its commit. The
 * watermark (audit_fts_state.indexed_to), which says which rows the index
 * holds, moves in the same transaction; a crash before it commits leaves
 * rows above it, and the next catch-up — at open, or after any commit of
 * any process — indexes every one. Searches, and every reader of time or
 * params, scan the rows above the watermark meanwhile
 * (lumo-audit-store-pages.c), so they never miss one.
 */
#define G_LOG_DOMAIN "lumo-audit"

#include "config.h"

#include <string.h>

#include "lumo-audit-private.h"
#include "lumo-audit-secret.h"
#include "lumo-db.h"
#include "lumo-error.h"

/* The longest a group commit waits for more callers to join it (µs). */
#define GROUP_COMMIT_MAX_WAIT_US 1000
/* The index catches up once the queue has been empty this long (µs)… */
#define INDEX_IDLE_US            (20 * 1000)
/* … or when its oldest unindexed row is this old, busy or not (µs). */
#define INDEX_MAX_LAG_US         (500 * 1000)


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
  g_clear_pointer (&op->journal, _lumo_audit_journal_entry_free);
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


gboolean
_lumo_audit_writer_read_tail (LumoAuditStore  *self,
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

      if (!(stmt = _lumo_audit_writer_cached (self, queries[i].slot, queries[i].sql, error)))
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

gboolean
_lumo_audit_writer_step_done (LumoAuditStore  *self,
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

sqlite3_stmt *
_lumo_audit_writer_cached (LumoAuditStore  *self,
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

/* BEGIN IMMEDIATE and COMMIT as prepared statements: a single-row group
 * commit is short enough that parsing them each time shows. IMMEDIATE takes
 * the write lock first, so a busy database fails here, not half-way. */
gboolean
_lumo_audit_writer_begin (LumoAuditStore  *self,
                 GError         **error)
{
  sqlite3_stmt *stmt = _lumo_audit_writer_cached (self, &self->begin_stmt, "BEGIN IMMEDIATE", error);

  return stmt != NULL && _lumo_audit_writer_step_done (self, stmt, "Cannot start writing the audit log", error);
}

gboolean
_lumo_audit_writer_commit (LumoAuditStore  *self,
        GError         **error)
{
  sqlite3_stmt *stmt = _lumo_audit_writer_cached (self, &self->commit_stmt, "COMMIT", error);

  if (stmt == NULL || !_lumo_audit_writer_step_done (self, stmt, "Cannot commit to the audit log", error))
    {
      lumo_db_rollback (self->writer_db);
      return FALSE;
    }

  return TRUE;
}

/* The pager's data version moves with every change of the file, by this
 * connection's commits and by any other's, as a read transaction (here:
 * BEGIN IMMEDIATE) sees it. */
static gboolean
read_file_version (LumoAuditStore *self,
                   guint          *version)
{
  unsigned int v = 0;

  if (sqlite3_file_control (self->writer_db, "main", SQLITE_FCNTL_DATA_VERSION, &v) != SQLITE_OK)
    return FALSE;
  *version = v;
  return TRUE;
}

void
_lumo_audit_writer_keep_tail (LumoAuditStore *self,
                              gint64          id,
                              const guint8   *hash)
{
  self->tail_kept = read_file_version (self, &self->tail_version);
  self->kept_tail_id = id;
  memcpy (self->kept_tail_hash, hash, LUMO_AUDIT_HASH_SIZE);
}

/* The tail this connection committed last, when the file has not changed
 * since (nobody else committed, nothing was rolled back): no query. Any
 * other change, ours or another process's, moves the version and the
 * tail is read again. Inside the write transaction only. */
static gboolean
read_tail_kept (LumoAuditStore  *self,
                gint64          *id,
                guint8          *hash,
                GError         **error)
{
  guint version;

  if (self->tail_kept && read_file_version (self, &version) && version == self->tail_version)
    {
      *id = self->kept_tail_id;
      memcpy (hash, self->kept_tail_hash, LUMO_AUDIT_HASH_SIZE);
      return TRUE;
    }

  self->tail_kept = FALSE;
  return _lumo_audit_writer_read_tail (self, id, hash, error);
}

/* The entry of a row just inserted: the queued row and its chain hash. */
static LumoAuditJournalEntry *
journal_entry_for_row (const LumoAuditQueuedRow *row,
                       gint64                    id,
                       const guint8             *hash)
{
  LumoAuditJournalEntry *entry = g_new0 (LumoAuditJournalEntry, 1);

  entry->id = id;
  entry->provider_id = g_strdup (row->provider_id);
  entry->caller_id = g_strdup (row->caller_id);
  entry->caller_name = g_strdup (row->caller_name);
  entry->tool = g_strdup (row->tool);
  entry->target = g_strdup (row->target);
  entry->reason = g_strdup (row->reason);
  entry->decision = row->decision;
  entry->caller_kind = row->caller_kind;
  entry->by_grant = row->by_grant;
  entry->outcome = g_str_equal (row->decision, "deny") ? "denied" : "pending";
  memcpy (entry->params_hmac, row->params_hmac, LUMO_AUDIT_HASH_SIZE);
  memcpy (entry->hash, hash, LUMO_AUDIT_HASH_SIZE);
  return entry;
}

static void
writer_process (LumoAuditStore *self,
                GQueue         *batch)
{
  g_autoptr(GPtrArray) journal = NULL;
  gboolean journal_on = g_atomic_int_get (&self->journal_enabled);
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) added = g_array_new (FALSE, FALSE, sizeof (gint64));
  GQueue async_ops = G_QUEUE_INIT;
  guint8 tail_hash[LUMO_AUDIT_HASH_SIZE];
  g_autoptr(GArray) results = g_array_new (FALSE, FALSE, sizeof (gint64));
  gint64 tail_id = 0, start_id;
  gboolean retention = FALSE;
  gboolean ok;

  if (self->integrity_error != NULL)
    {
      /* Fail closed: not one write into a log that failed its check. */
      error = g_error_copy (self->integrity_error);
      ok = FALSE;
    }
  else
    ok = _lumo_audit_writer_begin (self, &error) &&
         read_tail_kept (self, &tail_id, tail_hash, &error);
  start_id = tail_id;

  for (GList *l = batch->head; ok && l != NULL; l = l->next)
    {
      LumoAuditOp *op = l->data;

      switch (op->kind)
        {
        case LUMO_AUDIT_OP_APPEND:
          ok = _lumo_audit_writer_insert_row (self, &op->rows[0], &tail_id, tail_hash, &error);
          op->id = tail_id;
          if (ok && journal_on)
            op->journal = journal_entry_for_row (&op->rows[0], tail_id, tail_hash);
          g_array_append_val (added, tail_id);
          break;
        case LUMO_AUDIT_OP_IMPORT:
          ok = _lumo_audit_writer_import_rows (self, op, &tail_id, tail_hash, &error);
          break;
        case LUMO_AUDIT_OP_RESULT:
          ok = _lumo_audit_writer_set_result (self, op, journal_on, &error);
          if (ok && op->error == NULL)
            g_array_append_val (results, op->id);
          break;
        case LUMO_AUDIT_OP_RETENTION:
        default:
          retention = TRUE;
          ok = _lumo_audit_writer_apply_retention (self, op, &error);
          break;
        }
    }

  if (ok)
    ok = _lumo_audit_writer_commit (self, &error);
  else if (self->integrity_error == NULL)
    lumo_db_rollback (self->writer_db);
  /* Retention may leave the anchor as the tail: read that next time. */
  if (ok && !retention)
    _lumo_audit_writer_keep_tail (self, tail_id, tail_hash);
  else
    self->tail_kept = FALSE;

  if (!ok && self->integrity_error == NULL)
    g_prefix_error (&error, "Cannot write to the audit log “%s”: ", self->path);

  /* The checkpoint follows the commit, never precedes it: it may lag the
   * database after a crash, but it can never name a row that is not
   * there. */
  if (ok && tail_id != start_id && !g_atomic_int_get (&self->no_head_checkpoints))
    {
      g_autoptr(GError) head_error = NULL;

      if (!lumo_audit_head_file_write (self->head, self->secret, tail_id, tail_hash, &head_error))
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
      /* Only what is durable goes to the journal, and only after the
       * callers are awake (their ops are theirs again then). */
      if (op->journal != NULL && ok && op->error == NULL)
        {
          if (journal == NULL)
            journal = g_ptr_array_new_with_free_func ((GDestroyNotify) _lumo_audit_journal_entry_free);
          g_ptr_array_add (journal, g_steal_pointer (&op->journal));
        }
      g_clear_pointer (&op->journal, _lumo_audit_journal_entry_free);
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

  if (journal != NULL)
    {
      g_mutex_lock (&self->lock);
      for (guint i = 0; i < journal->len; i++)
        _lumo_audit_journal_push (self->journal, g_steal_pointer (&journal->pdata[i]));
      g_mutex_unlock (&self->lock);
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
  _lumo_audit_writer_checkpoint_wal (self);
}

gpointer
_lumo_audit_writer_thread (gpointer data)
{
  LumoAuditStore *self = data;
  guint last_batch = 0;
  gint64 last_commit_us = 0;
  gint64 last_activity = 0;

  _lumo_audit_store_check_integrity (self);
  /* Rows a crash (of any process) left out of the index. */
  _lumo_audit_writer_index_catch_up (self);

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
            _lumo_audit_writer_index_catch_up (self);
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

      _lumo_audit_writer_take_checks (self, &batch);
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
