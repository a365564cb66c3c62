/* lumo-audit-store-events.c — what the audit store tells its main context
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The writer thread never emits a signal or notifies a property: it queues
 * new row ids, filled-in results and the outcome of the integrity check
 * under the store's lock, and one idle on the store's main context (which
 * may be busy, or not iterated at all) delivers them as ::row-added,
 * ::result-set and notify::integrity. The idle holds only a weak
 * reference, so it never keeps the store alive nor drops its last
 * reference on the writer thread. The integrity check itself runs here
 * too, on the writer thread, before its first op — once released, when
 * the store was opened with LUMO_AUDIT_STORE_HOLD_CHECK.
 *
 * OTHER WRITERS. Rows another process (the CLI, a second app) appends
 * reach the WAL file, whose GFileMonitor (inotify; no timer while nothing
 * happens) queues a CHECK_CHANGES op. The writer thread then steps
 * PRAGMA data_version on its own connection, which changes only for
 * commits of other connections — never for this store's own — and, when
 * it changed, ::changed is emitted here. The monitor's rate limit
 * (CHANGES_RATE_LIMIT_MS) bounds the checks of a busy log to a few per
 * second; together with delivery the news takes well under 2 s. The
 * baseline version is read when the store opens, before the monitor
 * exists, and one check is queued once it does: a commit in between has
 * no event of its own. (Read on the writer thread, after its integrity
 * check of seconds, it took in the commits of that time as its own.)
 */
#define G_LOG_DOMAIN "lumo-audit"

#include "config.h"

#include "lumo-audit-private.h"
#include "lumo-db.h"
#include "lumo-error.h"

#define CHANGES_RATE_LIMIT_MS 500

typedef struct
{
  GWeakRef store;
} EventsSource;

static void
events_source_free (gpointer data)
{
  EventsSource *source = data;

  g_weak_ref_clear (&source->store);
  g_free (source);
}

static void
emit_ids (LumoAuditStore *self,
          const char     *signal,
          GArray         *ids)
{
  guint signal_id = g_signal_lookup (signal, LUMO_TYPE_AUDIT_STORE);

  for (guint i = 0; ids != NULL && i < ids->len; i++)
    g_signal_emit (self, signal_id, 0, g_array_index (ids, gint64, i));
}

static gboolean
deliver_events_cb (gpointer data)
{
  EventsSource *source = data;
  g_autoptr(LumoAuditStore) self = g_weak_ref_get (&source->store);
  g_autoptr(GArray) added = NULL;
  g_autoptr(GArray) results = NULL;
  g_autofree char *message = NULL;
  gboolean integrity_changed, changed;
  LumoAuditIntegrity integrity;

  if (self == NULL)
    return G_SOURCE_REMOVE;

  g_mutex_lock (&self->lock);
  added = g_steal_pointer (&self->added_ids);
  results = g_steal_pointer (&self->result_ids);
  changed = self->changes_pending;
  self->changes_pending = FALSE;
  integrity_changed = self->new_integrity_set;
  integrity = self->new_integrity;
  message = g_steal_pointer (&self->new_integrity_message);
  self->new_integrity_set = FALSE;
  self->added_scheduled = FALSE;
  g_mutex_unlock (&self->lock);

  /* The state first: a handler of ::row-added may look at it. */
  if (integrity_changed)
    {
      g_free (self->integrity_message);
      self->integrity_message = g_steal_pointer (&message);
      self->integrity = integrity;
      g_object_notify (G_OBJECT (self), "integrity-message");
      g_object_notify (G_OBJECT (self), "integrity");
    }

  if (changed)
    g_signal_emit_by_name (self, "changed");
  emit_ids (self, "row-added", added);
  emit_ids (self, "result-set", results);

  return G_SOURCE_REMOVE;
}

/* Called with the lock held. */
static void
schedule_locked (LumoAuditStore *self)
{
  g_autoptr(GSource) idle = NULL;
  EventsSource *source;

  if (self->added_scheduled)
    return;
  self->added_scheduled = TRUE;

  idle = g_idle_source_new ();
  source = g_new0 (EventsSource, 1);
  g_weak_ref_init (&source->store, self);
  g_source_set_callback (idle, deliver_events_cb, source, events_source_free);
  g_source_set_static_name (idle, "[lumo] audit events");
  g_source_attach (idle, self->main_context);
}

static void
queue_ids (LumoAuditStore  *self,
           const char      *signal,
           GArray         **slot,
           GArray          *ids)
{
  if (ids->len == 0 ||
      !g_signal_has_handler_pending (self, g_signal_lookup (signal, LUMO_TYPE_AUDIT_STORE),
                                     0, TRUE))
    return;

  g_mutex_lock (&self->lock);
  if (*slot == NULL)
    *slot = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_array_append_vals (*slot, ids->data, ids->len);
  schedule_locked (self);
  g_mutex_unlock (&self->lock);
}

void
_lumo_audit_store_rows_added (LumoAuditStore *self,
                              GArray         *ids)
{
  queue_ids (self, "row-added", &self->added_ids, ids);
}

void
_lumo_audit_store_results_set (LumoAuditStore *self,
                               GArray         *ids)
{
  queue_ids (self, "result-set", &self->result_ids, ids);
}

void
_lumo_audit_store_changed (LumoAuditStore *self)
{
  if (!g_signal_has_handler_pending (self, g_signal_lookup ("changed", LUMO_TYPE_AUDIT_STORE), 0, TRUE))
    return;

  g_mutex_lock (&self->lock);
  self->changes_pending = TRUE;
  schedule_locked (self);
  g_mutex_unlock (&self->lock);
}

static void
weak_ref_free (gpointer data,
               GClosure *closure)
{
  g_weak_ref_clear (data);
  g_free (data);
}

/* Holds a weak reference: the last reference to the store may go on
 * another thread while an event waits here. */
static void
on_wal_monitor_changed_cb (GFileMonitor      *monitor,
                           GFile             *file,
                           GFile             *other_file,
                           GFileMonitorEvent  event,
                           gpointer           user_data)
{
  g_autoptr(LumoAuditStore) self = g_weak_ref_get (user_data);

  if (self == NULL)
    return;

  if (event != G_FILE_MONITOR_EVENT_CHANGED && event != G_FILE_MONITOR_EVENT_CREATED &&
      event != G_FILE_MONITOR_EVENT_CHANGES_DONE_HINT)
    return;

  _lumo_audit_store_queue_check (self);
}

void
_lumo_audit_store_queue_check (LumoAuditStore *self)
{
  LumoAuditOp *op;

  /* One check at a time is enough: it reads the newest state. */
  g_mutex_lock (&self->lock);
  if (self->check_queued || self->stopping)
    {
      g_mutex_unlock (&self->lock);
      return;
    }
  self->check_queued = TRUE;
  g_mutex_unlock (&self->lock);

  op = g_new0 (LumoAuditOp, 1);
  op->kind = LUMO_AUDIT_OP_CHECK_CHANGES;
  _lumo_audit_writer_enqueue (self, op);
}

void
_lumo_audit_store_watch_changes (LumoAuditStore *self)
{
  g_autofree char *wal_path = g_strconcat (self->path, "-wal", NULL);
  g_autoptr(GFile) wal = g_file_new_for_path (wal_path);
  g_autoptr(GError) error = NULL;
  GWeakRef *weak;

  /* Created on the store's main context, so its events arrive there. */
  self->wal_monitor = g_file_monitor_file (wal, G_FILE_MONITOR_NONE, NULL, &error);
  if (self->wal_monitor == NULL)
    {
      /* Not fatal: the page still sees this store's rows and new searches. */
      g_message ("Rows other processes add to “%s” will not show until the next search: %s",
                 self->path, error->message);
      return;
    }
  g_file_monitor_set_rate_limit (self->wal_monitor, CHANGES_RATE_LIMIT_MS);
  weak = g_new0 (GWeakRef, 1);
  g_weak_ref_init (weak, self);
  g_signal_connect_data (self->wal_monitor, "changed", G_CALLBACK (on_wal_monitor_changed_cb),
                         weak, weak_ref_free, 0);
}

/* The first page of a freshly opened store should not pay for opening
 * a reader (and parsing the schema): one waits in the pool. */
static void
prepare_reader (LumoAuditStore *self)
{
  g_autoptr(GError) error = NULL;
  sqlite3 *db;

  if ((db = _lumo_audit_store_open_reader (self, &error)))
    {
      g_autoptr(sqlite3_stmt) stmt = NULL;

      /* Parses the schema and reads the newest leaf, as the first page
       * will. */
      if ((stmt = lumo_db_prepare (db, "SELECT id FROM audit ORDER BY id DESC LIMIT 1", NULL)))
        sqlite3_step (stmt);
    }
  else
    g_debug ("No reader prepared for “%s”: %s", self->path, error->message);

  /* A page asked for before this is ready opens its own reader rather
   * than wait (measured: waiting was slower); the pool keeps both. */
  if (db != NULL)
    _lumo_audit_store_release_reader (self, db);
}

/* TRUE when @self's queue holds an op a caller waits on: a row, a result,
 * an import. Retention and the check for other processes' commits are
 * housekeeping, and wait with the check. */
static gboolean
queue_wants_writer_locked (LumoAuditStore *self)
{
  for (GList *l = self->queue.head; l != NULL; l = l->next)
    switch (((LumoAuditOp *)l->data)->kind)
      {
      case LUMO_AUDIT_OP_APPEND:
      case LUMO_AUDIT_OP_RESULT:
      case LUMO_AUDIT_OP_IMPORT:
        return TRUE;
      case LUMO_AUDIT_OP_RETENTION:
      case LUMO_AUDIT_OP_CHECK_CHANGES:
      default:
        break;
      }
  return FALSE;
}

/* LUMO_AUDIT_STORE_HOLD_CHECK: until released, or until an op needs the
 * writer. No timeout: a store nobody releases and nobody writes to waits
 * without waking, its reads served meanwhile. */
static void
wait_for_release (LumoAuditStore *self)
{
  g_mutex_lock (&self->lock);
  while (self->check_held && !self->stopping && !queue_wants_writer_locked (self))
    {
      self->check_waiting = TRUE;
      g_cond_wait (&self->queue_cond, &self->lock);
    }
  self->check_held = FALSE;
  self->check_waiting = FALSE;
  g_mutex_unlock (&self->lock);
}

gboolean
_lumo_audit_store_is_check_waiting (LumoAuditStore *self)
{
  gboolean waiting;

  g_mutex_lock (&self->lock);
  waiting = self->check_waiting;
  g_mutex_unlock (&self->lock);

  return waiting;
}

void
_lumo_audit_store_check_integrity (LumoAuditStore *self)
{
  g_autoptr(GError) error = NULL;
  gboolean ok, stopping;

  prepare_reader (self);
  wait_for_release (self);

  g_mutex_lock (&self->lock);
  self->checking = !self->stopping;
  g_mutex_unlock (&self->lock);

  /* A small cache for the one pass over the file, the writer's own again
   * after it, and the pages the check read given back. */
  ok = !self->checking ||
       (lumo_db_exec (self->writer_db, "PRAGMA cache_size = " LUMO_AUDIT_CHECK_CACHE_SIZE, &error) &&
        lumo_db_quick_check (self->writer_db, self->path, &error));
  if (!lumo_db_exec (self->writer_db, "PRAGMA cache_size = " LUMO_AUDIT_WRITER_CACHE_SIZE,
                     ok ? &error : NULL))
    ok = FALSE;
  sqlite3_db_release_memory (self->writer_db);

  g_mutex_lock (&self->lock);
  self->checking = FALSE;
  if (!ok && error->code != LUMO_ERROR_DB_CORRUPT)
    {
      /* The check could not finish (I/O error, interrupted): the file is
       * not known to be sound, so writes fail closed all the same. */
      g_autoptr(GError) cause = g_steal_pointer (&error);

      g_set_error (&error, LUMO_ERROR, LUMO_ERROR_DB_CORRUPT,
                   "The integrity check of “%s” did not finish: %s",
                   self->path, cause->message);
    }
  self->new_integrity = ok ? LUMO_AUDIT_INTEGRITY_OK : LUMO_AUDIT_INTEGRITY_FAILED;
  g_free (self->new_integrity_message);
  self->new_integrity_message = ok ? NULL : g_strdup (error->message);
  self->new_integrity_set = TRUE;
  schedule_locked (self);
  stopping = self->stopping;
  g_mutex_unlock (&self->lock);

  /* Not a warning: a damaged log is the user's news, told through
   * :integrity; the store itself goes on failing closed. */
  if (!ok && !stopping)
    g_message ("%s", error->message);
  if (!ok)
    self->integrity_error = g_error_new (LUMO_ERROR, LUMO_ERROR_DB_CORRUPT,
                                         "The audit log “%s” takes no writes: it failed "
                                         "its integrity check at open (%s)",
                                         self->path, error->message);
}

void
_lumo_audit_store_cancel_check (LumoAuditStore *self)
{
  /* Under the lock, so the interrupt can only reach the check: when it
   * is not running, no statement runs and the interrupt is a no-op. */
  g_mutex_lock (&self->lock);
  if (self->checking)
    sqlite3_interrupt (self->writer_db);
  g_mutex_unlock (&self->lock);
}
