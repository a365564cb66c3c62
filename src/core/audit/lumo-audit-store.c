/* lumo-audit-store.c — the store object: opening, readers, the write API
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The writer thread is in lumo-audit-writer.c, validation in
 * lumo-audit-record.c, reading (pages, counts, verify, export) in
 * lumo-audit-store-read.c.
 */
#define G_LOG_DOMAIN "lumo-audit"

#include "config.h"

#include <string.h>

#include "lumo-audit-private.h"
#include "lumo-audit-secret.h"
#include "lumo-db.h"
#include "lumo-error.h"
#include "lumo-text.h"
#include "lumo-paths.h"
#include "lumo-protocol.h"

#define MAX_IDLE_READERS      4



G_DEFINE_FINAL_TYPE (LumoAuditStore, lumo_audit_store, G_TYPE_OBJECT)

G_DEFINE_ENUM_TYPE (LumoAuditIntegrity, lumo_audit_integrity,
  G_DEFINE_ENUM_VALUE (LUMO_AUDIT_INTEGRITY_CHECKING, "checking"),
  G_DEFINE_ENUM_VALUE (LUMO_AUDIT_INTEGRITY_OK, "ok"),
  G_DEFINE_ENUM_VALUE (LUMO_AUDIT_INTEGRITY_FAILED, "failed"))

enum {
  PROP_0,
  PROP_PATH,
  PROP_INTEGRITY,
  PROP_INTEGRITY_MESSAGE,
  N_PROPS
};

enum {
  ROW_ADDED,
  RESULT_SET,
  CHANGED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

/* ---- the object --------------------------------------------------------------- */

static void
lumo_audit_store_dispose (GObject *object)
{
  LumoAuditStore *self = (LumoAuditStore *) object;

  /* The writer thread holds no reference to the store and never drops
   * one: it hands finished async ops to their callers' contexts and row-added
   * to a weak reference. So dispose runs on some other thread, and
   * waits there for the writer to finish every op still queued. */
  /* Its handler holds only a weak reference to the store. */
  if (self->wal_monitor != NULL)
    {
      g_file_monitor_cancel (self->wal_monitor);
      g_clear_object (&self->wal_monitor);
    }

  if (self->writer != NULL)
    {
      if (G_UNLIKELY (self->writer == g_thread_self ()))
        g_error ("The last reference to the audit store “%s” was dropped on its "
                 "writer thread, which cannot wait for itself", self->path);

      g_mutex_lock (&self->lock);
      self->stopping = TRUE;
      g_cond_signal (&self->queue_cond);
      g_mutex_unlock (&self->lock);
      /* Nobody can queue a write any more, so a quick_check still running
       * (seconds on a big log) has nothing left to protect. */
      _lumo_audit_store_cancel_check (self);
      g_clear_pointer (&self->writer, g_thread_join);
    }

  /* After the writer: it has queued every entry it will. */
  g_clear_pointer (&self->journal, _lumo_audit_journal_stop);

  G_OBJECT_CLASS (lumo_audit_store_parent_class)->dispose (object);
}

static void
lumo_audit_store_finalize (GObject *object)
{
  LumoAuditStore *self = (LumoAuditStore *) object;

  g_clear_pointer (&self->insert_stmt, sqlite3_finalize);
  g_clear_pointer (&self->fts_insert_stmt, sqlite3_finalize);
  g_clear_pointer (&self->fts_delete_stmt, sqlite3_finalize);
  g_clear_pointer (&self->result_read_stmt, sqlite3_finalize);
  g_clear_pointer (&self->result_update_stmt, sqlite3_finalize);
  g_clear_pointer (&self->tail_stmt, sqlite3_finalize);
  g_clear_pointer (&self->anchor_tail_stmt, sqlite3_finalize);
  g_clear_pointer (&self->begin_stmt, sqlite3_finalize);
  g_clear_pointer (&self->commit_stmt, sqlite3_finalize);
  g_clear_pointer (&self->indexed_read_stmt, sqlite3_finalize);
  g_clear_pointer (&self->indexed_write_stmt, sqlite3_finalize);
  g_clear_pointer (&self->index_rows_stmt, sqlite3_finalize);
  g_clear_pointer (&self->order_rows_stmt, sqlite3_finalize);
  g_clear_pointer (&self->order_update_stmt, sqlite3_finalize);
  g_clear_pointer (&self->data_version_stmt, sqlite3_finalize);
  g_clear_pointer (&self->writer_db, lumo_db_close);
  g_clear_pointer (&self->idle_readers, g_ptr_array_unref);
  g_clear_pointer (&self->added_ids, g_array_unref);
  g_clear_pointer (&self->result_ids, g_array_unref);
  g_clear_error (&self->integrity_error);
  g_free (self->integrity_message);
  g_free (self->new_integrity_message);
  g_clear_pointer (&self->secret, g_bytes_unref);
  g_clear_pointer (&self->main_context, g_main_context_unref);
  g_free (self->path);
  g_free (self->uri);
  g_free (self->key_path);
  g_free (self->head_path);
  g_clear_pointer (&self->head, lumo_audit_head_file_free);
  g_free (self->vfs_name);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->queue_cond);

  G_OBJECT_CLASS (lumo_audit_store_parent_class)->finalize (object);
}

static void
lumo_audit_store_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  LumoAuditStore *self = LUMO_AUDIT_STORE (object);

  switch (prop_id)
    {
    case PROP_PATH:
      g_value_set_string (value, self->path);
      break;
    case PROP_INTEGRITY:
      g_value_set_enum (value, self->integrity);
      break;
    case PROP_INTEGRITY_MESSAGE:
      g_value_set_string (value, self->integrity_message);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
lumo_audit_store_class_init (LumoAuditStoreClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = lumo_audit_store_dispose;
  object_class->finalize = lumo_audit_store_finalize;
  object_class->get_property = lumo_audit_store_get_property;

  properties[PROP_PATH] =
    g_param_spec_string ("path", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /* See "INTEGRITY CHECK AT OPEN" in the header. */
  properties[PROP_INTEGRITY] =
    g_param_spec_enum ("integrity", NULL, NULL, LUMO_TYPE_AUDIT_INTEGRITY,
                       LUMO_AUDIT_INTEGRITY_CHECKING,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_INTEGRITY_MESSAGE] =
    g_param_spec_string ("integrity-message", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * LumoAuditStore::row-added:
   * @id: the new row's id
   *
   * A row appended by this store is durable. Emitted on the main context
   * that was the thread-default when the store was created.
   */
  signals[ROW_ADDED] =
    g_signal_new ("row-added", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_INT64);

  /**
   * LumoAuditStore::result-set:
   * @id: the row whose result this store filled in
   *
   * The result is durable; re-read the row to show it. Emitted on the
   * same main context as ::row-added.
   */
  signals[RESULT_SET] =
    g_signal_new ("result-set", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_INT64);

  /**
   * LumoAuditStore::changed:
   *
   * Another connection — another process such as lumo-access-ctl or a
   * second instance of the app, or another store on the same file —
   * committed to the log: rows may have been added, results filled in or
   * old rows removed by retention. Re-read what is shown (the first page
   * of the current query, its count). Never emitted for this store's own
   * writes, which ::row-added and ::result-set announce row by row.
   * Emitted on the same main context as ::row-added, within about a
   * second of the commit; several commits may give one emission.
   */
  signals[CHANGED] =
    g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
close_reader (gpointer data)
{
  lumo_db_close (data);
}

static void
lumo_audit_store_init (LumoAuditStore *self)
{
  g_mutex_init (&self->lock);
  g_cond_init (&self->queue_cond);
  g_queue_init (&self->queue);
  self->idle_readers = g_ptr_array_new_with_free_func (close_reader);
  self->main_context = g_main_context_ref_thread_default ();
}

static gboolean
log_is_empty (sqlite3 *db)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;

  if (sqlite3_prepare_v2 (db, "SELECT (SELECT count(*) FROM (SELECT 1 FROM audit LIMIT 1)) + "
                              "(SELECT count(*) FROM audit_anchor)", -1, &stmt, NULL) != SQLITE_OK ||
      sqlite3_step (stmt) != SQLITE_ROW)
    return FALSE;

  return sqlite3_column_int64 (stmt, 0) == 0;
}

LumoAuditStore *
_lumo_audit_store_new_full (const char  *path,
                            const char  *key_path,
                            const char  *head_path,
                            const char  *vfs_name,
                            LumoAuditStoreFlags flags,
                            GError     **error)
{
  g_autoptr(LumoAuditStore) self = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *default_key = NULL;
  gboolean empty;

  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  self = g_object_new (LUMO_TYPE_AUDIT_STORE, NULL);

  if (path == NULL)
    {
      if (!lumo_paths_ensure_data_dir (error))
        return NULL;
      self->path = lumo_paths_build ("audit.db");
    }
  else
    self->path = g_strdup (path);

  dir = g_path_get_dirname (self->path);
  default_key = g_build_filename (dir, "audit.key", NULL);
  self->head_path = head_path != NULL ? g_strdup (head_path)
                                      : g_build_filename (dir, "audit.head", NULL);
  self->head = lumo_audit_head_file_new (self->head_path);
  self->vfs_name = g_strdup (vfs_name);
  if (key_path == NULL)
    key_path = default_key;

  /* The database first: a file that is not a database, or a newer one, is
   * refused before any other file is created beside it. The full
   * quick_check takes seconds on a big log, so the writer thread runs it
   * (see lumo-audit-store-events.c) and holds every write until it
   * passed. */
  self->writer_db = lumo_db_open_with_vfs (self->path, vfs_name,
                                           LUMO_DB_FLAGS_SYNC_FULL | LUMO_DB_FLAGS_DEFER_CHECK,
                                           lumo_audit_migrations, lumo_audit_n_migrations, error);
  if (self->writer_db == NULL)
    return NULL;

  empty = log_is_empty (self->writer_db);

  /* A new secret for a log that has rows would make every MAC in it fail:
   * say what is missing instead. */
  if (!empty && !g_file_test (key_path, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_SECRET,
                   "The audit secret “%s” is missing, but the audit log “%s” has rows; "
                   "restore the key file that belongs to it",
                   key_path, self->path);
      return NULL;
    }

  if (!(self->secret = lumo_secret_load_or_create (key_path, LUMO_AUDIT_SECRET_WHAT, error)))
    return NULL;

  /* Our own WAL checkpoints, after the waiters are woken (see
   * writer_process()); a bigger page cache for bulk imports. */
  sqlite3_wal_hook (self->writer_db, _lumo_audit_writer_wal_hook, self);
  if (!lumo_db_exec (self->writer_db, "PRAGMA cache_size = " LUMO_AUDIT_WRITER_CACHE_SIZE, error))
    return NULL;

  if (empty && !g_file_test (self->head_path, G_FILE_TEST_EXISTS))
    {
      static const guint8 genesis[LUMO_AUDIT_HASH_SIZE];

      if (!lumo_audit_head_file_write (self->head, self->secret, 0, genesis, error))
        return NULL;
    }

  /* Where the file stands now: commits of others move it (see
   * lumo-audit-store-events.c). */
  self->data_version = _lumo_audit_writer_read_data_version (self);
  self->check_held = (flags & LUMO_AUDIT_STORE_HOLD_CHECK) != 0;
  self->writer = g_thread_new ("lumo-audit-writer", _lumo_audit_writer_thread, self);
  _lumo_audit_store_watch_changes (self);
  _lumo_audit_store_queue_check (self);

  return g_steal_pointer (&self);
}

LumoAuditStore *
lumo_audit_store_new (const char  *path,
                      GError     **error)
{
  return _lumo_audit_store_new_full (path, NULL, NULL, NULL, LUMO_AUDIT_STORE_FLAGS_NONE, error);
}

LumoAuditStore *
lumo_audit_store_new_with_flags (const char           *path,
                                 LumoAuditStoreFlags   flags,
                                 GError              **error)
{
  return _lumo_audit_store_new_full (path, NULL, NULL, NULL, flags, error);
}

gboolean
lumo_audit_store_get_check_held (LumoAuditStore *self)
{
  gboolean held;

  g_return_val_if_fail (LUMO_IS_AUDIT_STORE (self), FALSE);

  g_mutex_lock (&self->lock);
  held = self->check_held;
  g_mutex_unlock (&self->lock);

  return held;
}

void
lumo_audit_store_release_check (LumoAuditStore *self)
{
  g_return_if_fail (LUMO_IS_AUDIT_STORE (self));

  g_mutex_lock (&self->lock);
  if (self->check_held)
    {
      self->check_held = FALSE;
      g_cond_signal (&self->queue_cond);
    }
  g_mutex_unlock (&self->lock);
}

const char *
lumo_audit_store_get_path (LumoAuditStore *self)
{
  g_return_val_if_fail (LUMO_IS_AUDIT_STORE (self), NULL);
  return self->path;
}

gboolean
lumo_audit_store_is_read_only (LumoAuditStore *self)
{
  g_return_val_if_fail (LUMO_IS_AUDIT_STORE (self), TRUE);
  return self->read_only;
}

const char *
lumo_audit_store_get_key_path (LumoAuditStore *self)
{
  g_return_val_if_fail (LUMO_IS_AUDIT_STORE (self), NULL);
  return self->read_only ? self->key_path : NULL;
}

LumoAuditIntegrity
lumo_audit_store_get_integrity (LumoAuditStore *self)
{
  g_return_val_if_fail (LUMO_IS_AUDIT_STORE (self), LUMO_AUDIT_INTEGRITY_FAILED);
  return self->integrity;
}

const char *
lumo_audit_store_get_integrity_message (LumoAuditStore *self)
{
  g_return_val_if_fail (LUMO_IS_AUDIT_STORE (self), NULL);
  return self->integrity_message;
}

void
_lumo_audit_store_set_head_checkpoints (LumoAuditStore *self,
                                        gboolean        enabled)
{
  g_atomic_int_set (&self->no_head_checkpoints, !enabled);
}

void
_lumo_audit_store_set_index_catch_up (LumoAuditStore *self,
                                      gboolean        enabled)
{
  g_atomic_int_set (&self->no_index_catch_up, !enabled);
}

sqlite3 *
_lumo_audit_store_acquire_reader (LumoAuditStore  *self,
                                  GError         **error)
{
  sqlite3 *db = NULL;

  g_mutex_lock (&self->lock);
  if (self->idle_readers->len > 0)
    db = g_ptr_array_steal_index (self->idle_readers, self->idle_readers->len - 1);
  g_mutex_unlock (&self->lock);

  if (db != NULL)
    return db;

  return _lumo_audit_store_open_reader (self, error);
}

sqlite3 *
_lumo_audit_store_open_reader (LumoAuditStore  *self,
                               GError         **error)
{
  sqlite3 *db;

  if (self->read_only)
    db = lumo_db_open_with_vfs (self->uri, NULL,
                                LUMO_DB_FLAGS_READ_ONLY | LUMO_DB_FLAGS_URI | LUMO_DB_FLAGS_NO_CHECK |
                                LUMO_DB_FLAGS_NO_MIGRATE,
                                NULL, 0, error);
  else
    db = lumo_db_open_with_vfs (self->path, self->vfs_name, LUMO_DB_FLAGS_NO_CHECK,
                                lumo_audit_migrations, lumo_audit_n_migrations, error);
  if (db != NULL && ((self->read_only && !_lumo_audit_file_prepare_reader (self, db, error)) ||
                     !lumo_db_exec (db, "PRAGMA query_only = ON", error) ||
                     !_lumo_audit_query_register_functions (db, error)))
    g_clear_pointer (&db, lumo_db_close);

  return db;
}

void
_lumo_audit_store_release_reader (LumoAuditStore *self,
                                  sqlite3        *db)
{
  /* An idle reader keeps its connection, not its page cache: the next
   * query reads its pages from the file system's cache, and the app does
   * not hold a few MiB of a big log per idle reader. */
  sqlite3_db_release_memory (db);

  g_mutex_lock (&self->lock);
  if (self->idle_readers->len < MAX_IDLE_READERS)
    {
      g_ptr_array_add (self->idle_readers, db);
      db = NULL;
    }
  g_mutex_unlock (&self->lock);

  lumo_db_close (db);
}

/* ---- writing ------------------------------------------------------------------------ */

/* A collected log takes no writes. */
static gboolean
check_writable (LumoAuditStore  *self,
                GError         **error)
{
  if (!self->read_only)
    return TRUE;

  g_set_error (error, LUMO_ERROR, LUMO_ERROR_DB_IO,
               "The audit log “%s” was opened read-only (a collected log): it takes no writes",
               self->path);
  return FALSE;
}

static LumoAuditOp *
append_op_new (LumoAuditStore         *self,
               const LumoAuditRecord  *record,
               GError                **error)
{
  g_autoptr(LumoAuditOp) op = NULL;

  if (!check_writable (self, error))
    return NULL;

  op = g_new0 (LumoAuditOp, 1);

  op->kind = LUMO_AUDIT_OP_APPEND;
  op->rows = g_new0 (LumoAuditQueuedRow, 1);
  op->n_rows = 1;
  if (!_lumo_audit_validate_record (self->secret, record, NULL, &op->rows[0], error))
    return NULL;

  return g_steal_pointer (&op);
}

gint64
lumo_audit_store_append (LumoAuditStore         *self,
                         const LumoAuditRecord  *record,
                         GError                **error)
{
  g_autoptr(LumoAuditOp) op = NULL;

  g_return_val_if_fail (LUMO_IS_AUDIT_STORE (self), 0);
  g_return_val_if_fail (record != NULL, 0);
  g_return_val_if_fail (error == NULL || *error == NULL, 0);

  if (!(op = append_op_new (self, record, error)) || !_lumo_audit_writer_run_sync (self, op, error))
    return 0;

  return op->id;
}

void
lumo_audit_store_append_async (LumoAuditStore         *self,
                               const LumoAuditRecord  *record,
                               GCancellable           *cancellable,
                               GAsyncReadyCallback     callback,
                               gpointer                user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  LumoAuditOp *op;

  g_return_if_fail (LUMO_IS_AUDIT_STORE (self));
  g_return_if_fail (record != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, lumo_audit_store_append_async);
  /* A committed row is a fact: the caller learns its id even if it
   * cancelled meanwhile. */
  g_task_set_check_cancellable (task, FALSE);

  if (!(op = append_op_new (self, record, &error)))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  op->task = g_steal_pointer (&task);
  _lumo_audit_writer_enqueue (self, op);
}

gint64
lumo_audit_store_append_finish (LumoAuditStore  *self,
                                GAsyncResult    *result,
                                GError         **error)
{
  gint64 id;

  g_return_val_if_fail (g_task_is_valid (result, self), 0);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == lumo_audit_store_append_async, 0);

  id = g_task_propagate_int (G_TASK (result), error);
  return id > 0 ? id : 0;
}

static LumoAuditOp *
result_op_new (LumoAuditStore  *self,
               gint64           id,
               gboolean         ok,
               const char      *error_text,
               GError         **error)
{
  LumoAuditOp *op;

  if (!check_writable (self, error))
    return NULL;

  if (id <= 0)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND,
                   "There is no audit row %" G_GINT64_FORMAT " (ids start at 1)", id);
      return NULL;
    }
  if (!_lumo_audit_validate_result (ok, error_text, error))
    return NULL;

  op = g_new0 (LumoAuditOp, 1);
  op->kind = LUMO_AUDIT_OP_RESULT;
  op->id = id;
  op->result = ok ? "ok" : "error";
  op->result_text = error_text != NULL
                      ? _lumo_audit_truncate_text (error_text, LUMO_AUDIT_RESULT_TEXT_MAX)
                      : NULL;
  op->time_us = g_get_real_time ();

  return op;
}

gboolean
lumo_audit_store_set_result (LumoAuditStore  *self,
                             gint64           id,
                             gboolean         ok,
                             const char      *error_text,
                             GError         **error)
{
  g_autoptr(LumoAuditOp) op = NULL;

  g_return_val_if_fail (LUMO_IS_AUDIT_STORE (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!(op = result_op_new (self, id, ok, error_text, error)))
    return FALSE;

  return _lumo_audit_writer_run_sync (self, op, error);
}

void
lumo_audit_store_set_result_async (LumoAuditStore      *self,
                                   gint64               id,
                                   gboolean             ok,
                                   const char          *error_text,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  LumoAuditOp *op;

  g_return_if_fail (LUMO_IS_AUDIT_STORE (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, lumo_audit_store_set_result_async);
  g_task_set_check_cancellable (task, FALSE);

  if (!(op = result_op_new (self, id, ok, error_text, &error)))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  op->task = g_steal_pointer (&task);
  _lumo_audit_writer_enqueue (self, op);
}

gboolean
lumo_audit_store_set_result_finish (LumoAuditStore  *self,
                                    GAsyncResult    *result,
                                    GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == lumo_audit_store_set_result_async,
                        FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

gboolean
lumo_audit_store_import (LumoAuditStore               *self,
                         const LumoAuditImportRecord  *records,
                         gsize                         n_records,
                         GError                      **error)
{
  g_autoptr(LumoAuditOp) op = NULL;

  g_return_val_if_fail (LUMO_IS_AUDIT_STORE (self), FALSE);
  g_return_val_if_fail (records != NULL || n_records == 0, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!check_writable (self, error))
    return FALSE;
  if (n_records == 0)
    return TRUE;

  op = g_new0 (LumoAuditOp, 1);
  op->kind = LUMO_AUDIT_OP_IMPORT;
  op->rows = g_new0 (LumoAuditQueuedRow, n_records);

  for (gsize i = 0; i < n_records; i++)
    {
      const LumoAuditImportRecord *r = &records[i];
      LumoAuditQueuedRow *row = &op->rows[i];
      g_autoptr(GError) local_error = NULL;

      op->n_rows = i + 1;
      if (!_lumo_audit_validate_record (self->secret, &r->record, r->params_hmac, row, &local_error) ||
          !_lumo_audit_validate_result (r->result != LUMO_AUDIT_RESULT_ERROR, r->result_text, &local_error))
        {
          g_set_error (error, LUMO_ERROR, local_error->code, "Record %" G_GSIZE_FORMAT ": %s",
                       i + 1, local_error->message);
          return FALSE;
        }

      if (r->result != LUMO_AUDIT_RESULT_NONE)
        {
          if (r->record.decision == LUMO_AUDIT_DECISION_DENY)
            {
              g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                           "Record %" G_GSIZE_FORMAT ": a denied call has no result", i + 1);
              return FALSE;
            }
          row->result = lumo_audit_result_to_string (r->result);
          if (row->result == NULL)
            {
              g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                           "Record %" G_GSIZE_FORMAT ": the result %d is not none, ok or error",
                           i + 1, (int) r->result);
              return FALSE;
            }
          if (r->result_text != NULL)
            row->result_text = _lumo_audit_truncate_text (r->result_text, LUMO_AUDIT_RESULT_TEXT_MAX);
          row->result_time_us = r->result_time_us != 0 ? r->result_time_us : row->time_us;
        }
    }

  return _lumo_audit_writer_run_sync (self, op, error);
}

gint64
lumo_audit_store_apply_retention (LumoAuditStore  *self,
                                  guint            days,
                                  GError         **error)
{
  g_autoptr(LumoAuditOp) op = NULL;

  g_return_val_if_fail (LUMO_IS_AUDIT_STORE (self), -1);
  g_return_val_if_fail (error == NULL || *error == NULL, -1);

  if (!check_writable (self, error))
    return -1;

  if (days < 1 || days > 100 * 365)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                   "Retention of %u days is out of range (1–36500)", days);
      return -1;
    }

  op = g_new0 (LumoAuditOp, 1);
  op->kind = LUMO_AUDIT_OP_RETENTION;
  op->time_us = g_get_real_time () - (gint64) days * 86400 * G_USEC_PER_SEC;

  if (!_lumo_audit_writer_run_sync (self, op, error))
    return -1;

  return op->count;
}

char *
lumo_audit_store_key_params_hash (LumoAuditStore  *self,
                                  const char      *sha256_hex,
                                  GError         **error)
{
  guint8 mac[LUMO_AUDIT_HASH_SIZE];

  g_return_val_if_fail (LUMO_IS_AUDIT_STORE (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (self->secret == NULL)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_SECRET,
                   "The audit log “%s” was opened without its key file, so a params hash "
                   "cannot be keyed as its rows are", self->path);
      return NULL;
    }

  if (!lumo_audit_is_sha256_hex (sha256_hex))
    {
      g_autofree char *shown = lumo_utf8_excerpt (sha256_hex, 80);

      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                   "The params hash “%s” is not a SHA-256 in 64 lowercase hex digits", shown);
      return NULL;
    }

  lumo_secret_hmac (self->secret, (const guint8 *) sha256_hex, 64, mac);
  return lumo_audit_hex_encode (mac, sizeof mac);
}
