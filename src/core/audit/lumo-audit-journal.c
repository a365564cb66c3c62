/* lumo-audit-journal.c — audit rows into the system journal
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * When the journal is on (lumo_audit_store_set_journal()), the writer
 * thread hands every appended row, once it is durable, and every result,
 * once that is durable, to a thread of its own that sends it to journald
 * as one structured entry (LUMO_AUDIT_JOURNAL_MESSAGE_ID; the fields are
 * in lumo-audit-store.h and docs/admin.md) through GLib's journald writer.
 *
 * TWO ENTRIES FOR AN ALLOWED WRITE. The decision is sent as soon as its
 * row is durable (LUMO_RESULT=pending, or denied), and the result as a
 * second entry for the same LUMO_ENTRY (LUMO_RESULT=ok or error) with
 * every field again. Waiting for the result to send one entry would keep
 * an allowed write out of the journal for as long as its tool runs, and
 * for ever when no result comes (the provider or the browser went away,
 * the app quit, the machine went down): the writes an admin most needs to
 * see would be the ones that never reach the collector.
 *
 * NEVER IN THE WAY OF A DECISION. GLib sends on a blocking datagram
 * socket: a journald that is slow or stuck would block the sender. So
 * the writer thread only queues (after it has woken the callers), and the
 * sending thread blocks alone. The queue holds at most
 * JOURNAL_QUEUE_MAX entries; beyond that new entries are dropped and
 * counted, and a warning says how many once the journal takes entries
 * again. A journald that is not there fails each send at once; that is
 * warned about once, until a send succeeds again. Nothing of this fails
 * or slows an append: the audit log itself is the record, the journal a
 * copy for collectors.
 *
 * What is never sent: the params (only their keyed hash, as in the log),
 * a preview, any source. Rows imported in bulk (a restore) are not
 * decisions and are not sent.
 */
#define G_LOG_DOMAIN "lumo-audit"

#include "config.h"

#include <string.h>

#include "lumo-audit-private.h"
#include "lumo-audit-secret.h"

/* About 4 MiB of entries: a journald that stalls for a while loses none. */
#define JOURNAL_QUEUE_MAX 10000
/* How long dispose waits for the queue to drain into a journal that
 * takes entries (µs). */
#define JOURNAL_DRAIN_US  (1 * G_USEC_PER_SEC)

struct _LumoAuditJournal
{
  gatomicrefcount  ref_count;   /* the store's and the thread's */
  GMutex           lock;
  GCond            cond;
  GQueue           queue;       /* LumoAuditJournalEntry, oldest first */
  guint            max;         /* JOURNAL_QUEUE_MAX but in tests */
  gboolean         stopping;
  gboolean         sending;     /* an entry is being sent */
  guint64          dropped;     /* since the last warning */
  gboolean         failing;     /* the last send failed (warned) */
  guint64          sent;        /* entries journald took */
  guint64          failed;      /* entries it did not */
};

void
_lumo_audit_journal_entry_free (LumoAuditJournalEntry *entry)
{
  if (entry == NULL)
    return;
  g_free (entry->provider_id);
  g_free (entry->caller_id);
  g_free (entry->caller_name);
  g_free (entry->tool);
  g_free (entry->target);
  g_free (entry->reason);
  g_free (entry);
}

static LumoAuditJournal *
journal_ref (LumoAuditJournal *self)
{
  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

static void
journal_unref (LumoAuditJournal *self)
{
  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;

  g_queue_clear_full (&self->queue, (GDestroyNotify) _lumo_audit_journal_entry_free);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);
  g_free (self);
}

/* ---- the entry ------------------------------------------------------------- */

static gboolean
entry_is_notice (const LumoAuditJournalEntry *entry)
{
  return g_strcmp0 (entry->outcome, "denied") == 0 || g_strcmp0 (entry->outcome, "error") == 0;
}

static const char *
outcome_words (const char *outcome)
{
  if (g_strcmp0 (outcome, "denied") == 0)
    return "denied";
  if (g_strcmp0 (outcome, "ok") == 0)
    return "allowed, succeeded";
  if (g_strcmp0 (outcome, "error") == 0)
    return "allowed, failed";
  return "allowed";
}

/* The fields of one entry, in @fields (at least LUMO_AUDIT_JOURNAL_N_FIELDS);
 * the strings they point to are in @strings. Text fields have length -1,
 * so GLib sends KEY=value, or the binary form when a value holds a
 * newline. */
gsize
_lumo_audit_journal_entry_fields (const LumoAuditJournalEntry *entry,
                                  GLogField                   *fields,
                                  GPtrArray                   *strings)
{
  char *message, *id, *params, *hash;
  gsize n = 0;

#define FIELD(k, v) G_STMT_START { \
    fields[n].key = (k); fields[n].value = (v); fields[n].length = -1; n++; \
  } G_STMT_END

  id = g_strdup_printf ("%" G_GINT64_FORMAT, entry->id);
  params = lumo_audit_hex_encode (entry->params_hmac, LUMO_AUDIT_HASH_SIZE);
  hash = lumo_audit_hex_encode (entry->hash, LUMO_AUDIT_HASH_SIZE);
  if (entry->reason != NULL && *entry->reason != '\0')
    message = g_strdup_printf ("Audit entry %s: write %s by %s (%s) %s (%s)", id, entry->tool,
                               entry->caller_id, entry->caller_kind, outcome_words (entry->outcome),
                               entry->reason);
  else
    message = g_strdup_printf ("Audit entry %s: write %s by %s (%s) %s", id, entry->tool,
                               entry->caller_id, entry->caller_kind, outcome_words (entry->outcome));
  g_ptr_array_add (strings, id);
  g_ptr_array_add (strings, params);
  g_ptr_array_add (strings, hash);
  g_ptr_array_add (strings, message);

  FIELD ("MESSAGE_ID", LUMO_AUDIT_JOURNAL_MESSAGE_ID);
  FIELD ("PRIORITY", entry_is_notice (entry) ? "5" : "6");
  FIELD ("SYSLOG_IDENTIFIER", "lumo-access");
  FIELD ("MESSAGE", message);
  FIELD ("LUMO_ENTRY", id);
  FIELD ("LUMO_TOOL", entry->tool);
  FIELD ("LUMO_CALLER", entry->caller_id);
  FIELD ("LUMO_CALLER_NAME", entry->caller_name);
  FIELD ("LUMO_CALLER_KIND", entry->caller_kind);
  FIELD ("LUMO_PROVIDER", entry->provider_id);
  FIELD ("LUMO_DECISION", entry->decision);
  FIELD ("LUMO_REASON", entry->reason != NULL ? entry->reason : "");
  FIELD ("LUMO_BY_GRANT", entry->by_grant ? "1" : "0");
  FIELD ("LUMO_RESULT", entry->outcome);
  FIELD ("LUMO_TARGET", entry->target != NULL ? entry->target : "");
  FIELD ("LUMO_PARAMS_HMAC", params);
  FIELD ("LUMO_ENTRY_HASH", hash);
#undef FIELD

  g_assert (n == LUMO_AUDIT_JOURNAL_N_FIELDS);
  return n;
}

/* ---- the sending thread ------------------------------------------------------ */

static void
send_entry (LumoAuditJournal      *self,
            LumoAuditJournalEntry *entry)
{
  g_autoptr(GPtrArray) strings = g_ptr_array_new_with_free_func (g_free);
  GLogField fields[LUMO_AUDIT_JOURNAL_N_FIELDS];
  gsize n = _lumo_audit_journal_entry_fields (entry, fields, strings);
  GLogWriterOutput out;
  guint64 dropped = 0;
  gboolean warn_failing = FALSE;

  /* Straight to journald, not through g_log_structured_array(): that
   * goes through the process's log writer, which sends to stderr unless
   * stderr is the journal, and drops info-level entries unless
   * G_MESSAGES_DEBUG says otherwise. */
  out = g_log_writer_journald (entry_is_notice (entry) ? G_LOG_LEVEL_MESSAGE : G_LOG_LEVEL_INFO,
                               fields, n, NULL);

  g_mutex_lock (&self->lock);
  if (out == G_LOG_WRITER_HANDLED)
    {
      self->sent++;
      self->failing = FALSE;
      dropped = self->dropped;
      self->dropped = 0;
    }
  else
    {
      self->failed++;
      if (!self->failing)
        warn_failing = self->failing = TRUE;
    }
  g_mutex_unlock (&self->lock);

  if (warn_failing)
    g_warning ("Cannot write audit entries to the system journal (is systemd-journald "
               "running?); the audit log itself is complete");
  if (dropped > 0)
    g_warning ("%" G_GUINT64_FORMAT " audit entries were not written to the system journal: "
               "it did not take them in time; the audit log itself is complete", dropped);
}

static gpointer
journal_thread (gpointer data)
{
  LumoAuditJournal *self = data;

  g_mutex_lock (&self->lock);
  for (;;)
    {
      LumoAuditJournalEntry *entry;

      while (g_queue_is_empty (&self->queue) && !self->stopping)
        g_cond_wait (&self->cond, &self->lock);
      if (g_queue_is_empty (&self->queue))
        break;

      entry = g_queue_pop_head (&self->queue);
      self->sending = TRUE;
      g_mutex_unlock (&self->lock);

      send_entry (self, entry);
      _lumo_audit_journal_entry_free (entry);

      g_mutex_lock (&self->lock);
      self->sending = FALSE;
      g_cond_broadcast (&self->cond);
    }
  g_mutex_unlock (&self->lock);

  journal_unref (self);
  return NULL;
}

LumoAuditJournal *
_lumo_audit_journal_new (void)
{
  LumoAuditJournal *self = g_new0 (LumoAuditJournal, 1);

  g_atomic_ref_count_init (&self->ref_count);
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
  g_queue_init (&self->queue);
  self->max = JOURNAL_QUEUE_MAX;

  /* The thread keeps its own reference: a stuck journald may keep it in
   * sendmsg() after the store is gone, and nobody waits for it then. */
  g_thread_unref (g_thread_new ("lumo-audit-journal", journal_thread, journal_ref (self)));
  return self;
}

/* Lets the queue drain for a while into a journal that takes entries,
 * then leaves the thread to finish (or block) on its own. */
void
_lumo_audit_journal_stop (LumoAuditJournal *self)
{
  gint64 deadline = g_get_monotonic_time () + JOURNAL_DRAIN_US;

  g_mutex_lock (&self->lock);
  while ((!g_queue_is_empty (&self->queue) || self->sending) &&
         g_cond_wait_until (&self->cond, &self->lock, deadline))
    ;
  self->stopping = TRUE;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);

  journal_unref (self);
}

/* Takes @entry. Never blocks on journald. */
void
_lumo_audit_journal_push (LumoAuditJournal      *self,
                          LumoAuditJournalEntry *entry)
{
  g_mutex_lock (&self->lock);
  if (self->queue.length >= self->max)
    {
      self->dropped++;
      g_mutex_unlock (&self->lock);
      _lumo_audit_journal_entry_free (entry);
      return;
    }
  g_queue_push_tail (&self->queue, entry);
  g_cond_signal (&self->cond);
  g_mutex_unlock (&self->lock);
}

void
_lumo_audit_journal_get_counts (LumoAuditJournal *self,
                                guint64          *sent,
                                guint64          *failed,
                                guint64          *queued,
                                guint64          *dropped)
{
  g_mutex_lock (&self->lock);
  *sent = self->sent;
  *failed = self->failed;
  *queued = self->queue.length + (self->sending ? 1 : 0);
  *dropped = self->dropped;
  g_mutex_unlock (&self->lock);
}

void
_lumo_audit_store_set_journal_queue_max (LumoAuditStore *self,
                                         guint           max)
{
  g_mutex_lock (&self->lock);
  g_assert (self->journal != NULL);
  g_mutex_lock (&self->journal->lock);
  self->journal->max = max;
  g_mutex_unlock (&self->journal->lock);
  g_mutex_unlock (&self->lock);
}

/* ---- the store's switch --------------------------------------------------------- */

void
lumo_audit_store_set_journal (LumoAuditStore *self,
                              gboolean        enabled)
{
  g_return_if_fail (LUMO_IS_AUDIT_STORE (self));

  g_mutex_lock (&self->lock);
  if (enabled && self->journal == NULL && !self->read_only)
    self->journal = _lumo_audit_journal_new ();
  g_atomic_int_set (&self->journal_enabled, enabled && !self->read_only);
  g_mutex_unlock (&self->lock);
}

gboolean
lumo_audit_store_get_journal (LumoAuditStore *self)
{
  g_return_val_if_fail (LUMO_IS_AUDIT_STORE (self), FALSE);

  return g_atomic_int_get (&self->journal_enabled);
}
