/* test-audit-journal.c — audit rows in the system journal
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The program runs in a mount namespace of its own with a tmpfs over /run
 * (lumo-test-journal.h): there a socket of the test's stands for journald
 * and the datagrams are read field by field, and where systemd-journald
 * is installed a real one is started on the tmpfs and read back with
 * journalctl. Where no namespace can be made, the tests are skipped.
 */
#include "config.h"

#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "audit-test-util.h"

#include "fault-vfs.h"
#include "lumo-test-journal.h"

static char *no_namespace;   /* why the tests are skipped, or NULL */

static gboolean
skip_without_namespace (void)
{
  if (no_namespace == NULL)
    return FALSE;
  g_test_skip (no_namespace);
  return TRUE;
}

#define field lumo_test_journal_field

/* The keys every entry has, in the order they are sent: no more, no fewer. */
static const char *const entry_keys[] = {
  "MESSAGE_ID", "PRIORITY", "SYSLOG_IDENTIFIER", "MESSAGE", "LUMO_ENTRY", "LUMO_TOOL",
  "LUMO_CALLER", "LUMO_CALLER_NAME", "LUMO_CALLER_KIND", "LUMO_PROVIDER", "LUMO_DECISION",
  "LUMO_REASON", "LUMO_BY_GRANT", "LUMO_RESULT", "LUMO_TARGET", "LUMO_PARAMS_HMAC",
  "LUMO_ENTRY_HASH",
};

/* The entry of row @id as it is in the store now: every field exact. */
static void
assert_entry (GArray         *fields,
              LumoAuditStore *store,
              gint64          id,
              const char     *priority,
              const char     *result,
              const char     *message)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(LumoAuditRow) row = lumo_audit_store_get_row (store, id, &error);
  g_autofree char *id_text = g_strdup_printf ("%" G_GINT64_FORMAT, id);

  g_assert_no_error (error);
  g_assert_cmpuint (fields->len, ==, G_N_ELEMENTS (entry_keys));
  for (guint i = 0; i < G_N_ELEMENTS (entry_keys); i++)
    g_assert_cmpstr (g_array_index (fields, LumoTestJournalField, i).key, ==, entry_keys[i]);

  g_assert_cmpstr (field (fields, "MESSAGE_ID"), ==, LUMO_AUDIT_JOURNAL_MESSAGE_ID);
  g_assert_cmpstr (field (fields, "PRIORITY"), ==, priority);
  g_assert_cmpstr (field (fields, "SYSLOG_IDENTIFIER"), ==, "lumo-access");
  g_assert_cmpstr (field (fields, "MESSAGE"), ==, message);
  g_assert_cmpstr (field (fields, "LUMO_ENTRY"), ==, id_text);
  g_assert_cmpstr (field (fields, "LUMO_TOOL"), ==, lumo_audit_row_get_tool (row));
  g_assert_cmpstr (field (fields, "LUMO_CALLER"), ==, lumo_audit_row_get_caller_id (row));
  g_assert_cmpstr (field (fields, "LUMO_CALLER_NAME"), ==, lumo_audit_row_get_caller_name (row));
  g_assert_cmpstr (field (fields, "LUMO_CALLER_KIND"), ==,
                   lumo_audit_caller_kind_to_string (lumo_audit_row_get_caller_kind (row)));
  g_assert_cmpstr (field (fields, "LUMO_PROVIDER"), ==, lumo_audit_row_get_provider_id (row));
  g_assert_cmpstr (field (fields, "LUMO_DECISION"), ==,
                   lumo_audit_decision_to_string (lumo_audit_row_get_decision (row)));
  g_assert_cmpstr (field (fields, "LUMO_REASON"), ==, lumo_audit_row_get_reason (row));
  g_assert_cmpstr (field (fields, "LUMO_BY_GRANT"), ==, lumo_audit_row_get_by_grant (row) ? "1" : "0");
  g_assert_cmpstr (field (fields, "LUMO_RESULT"), ==, result);
  g_assert_cmpstr (field (fields, "LUMO_RESULT"), ==,
                   lumo_audit_outcome_to_string (lumo_audit_row_get_outcome (row)));
  g_assert_cmpstr (field (fields, "LUMO_TARGET"), ==, lumo_audit_row_get_target (row));
  g_assert_cmpstr (field (fields, "LUMO_PARAMS_HMAC"), ==, lumo_audit_row_get_params_hmac (row));
  g_assert_cmpstr (field (fields, "LUMO_ENTRY_HASH"), ==, lumo_audit_row_get_hash (row));

  /* The provider's hash of the arguments is never sent, only its keyed
   * form; nor anything of a preview. */
  for (guint i = 0; i < fields->len; i++)
    g_assert_null (strstr (g_array_index (fields, LumoTestJournalField, i).value, SHA_A));
}

/* ---- the tests ----------------------------------------------------------------- */

/* Warnings the journal thread gives, counted instead of fatal. */
static gint warned_unavailable;
static gint warned_dropped;

static gboolean
is_journal_warning (const char *message,
                    gboolean    count)
{
  if (g_str_has_prefix (message, "Cannot write audit entries to the system journal"))
    {
      if (count)
        g_atomic_int_inc (&warned_unavailable);
      return TRUE;
    }
  if (strstr (message, "audit entries were not written to the system journal") != NULL)
    {
      if (count)
        g_atomic_int_add (&warned_dropped, (gint) g_ascii_strtoll (message, NULL, 10));
      return TRUE;
    }
  return FALSE;
}

/* The journal's warnings are counted, not shown; any other goes on to
 * GLib's handler, and stays fatal. */
static void
on_log_cb (const char     *log_domain,
           GLogLevelFlags  log_level,
           const char     *message,
           gpointer        user_data)
{
  if (!is_journal_warning (message, TRUE))
    g_log_default_handler (log_domain, log_level, message, user_data);
}

static gboolean
on_log_fatal_cb (const char     *log_domain,
                 GLogLevelFlags  log_level,
                 const char     *message,
                 gpointer        user_data)
{
  return !is_journal_warning (message, FALSE);
}

typedef struct
{
  char           *dir;
  LumoAuditStore *store;
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  /* GLib resets it at the start of every test. */
  g_test_log_set_fatal_handler (on_log_fatal_cb, NULL);
  f->dir = audit_test_tmpdir ();
  f->store = audit_test_open (f->dir);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  g_clear_object (&f->store);
  lumo_test_dir_remove (f->dir);
  g_free (f->dir);
}

static gint64
append (LumoAuditStore  *store,
        LumoAuditRecord *r)
{
  g_autoptr(GError) error = NULL;
  gint64 id = lumo_audit_store_append (store, r, &error);

  g_assert_no_error (error);
  g_assert_cmpint (id, >, 0);
  return id;
}

static char *
id_string (gint64 id)
{
  return g_strdup_printf ("%" G_GINT64_FORMAT, id);
}

/* Every field of an allowed write, of its result, and of a denial. */
static void
test_fields (Fixture       *f,
             gconstpointer  data)
{
  g_autoptr(LumoTestJournal) fj = NULL;
  g_autoptr(GError) error = NULL;
  LumoAuditRecord allowed = audit_test_record ("userscripts.save_script");
  LumoAuditRecord denied = audit_test_record ("userscripts.delete_script");
  gint64 id, denied_id;

  if (skip_without_namespace ())
    return;
  fj = lumo_test_journal_new ();

  g_assert_false (lumo_audit_store_get_journal (f->store));
  lumo_audit_store_set_journal (f->store, TRUE);
  g_assert_true (lumo_audit_store_get_journal (f->store));

  allowed.caller_name = "Lumo Agent";
  allowed.caller_kind = LUMO_AUDIT_CALLER_KIND_AGENT;
  allowed.by_grant = TRUE;
  id = append (f->store, &allowed);
  {
    g_autoptr(GArray) fields = lumo_test_journal_next (fj);
    g_autofree char *message = g_strdup_printf ("Audit entry %" G_GINT64_FORMAT ": write "
                                                "userscripts.save_script by %s (agent) allowed",
                                                id, TEST_CALLER_ID);

    assert_entry (fields, f->store, id, "6", "pending", message);
    g_assert_cmpstr (field (fields, "LUMO_CALLER_NAME"), ==, "Lumo Agent");
    g_assert_cmpstr (field (fields, "LUMO_CALLER_KIND"), ==, "agent");
    g_assert_cmpstr (field (fields, "LUMO_DECISION"), ==, "allow");
    g_assert_cmpstr (field (fields, "LUMO_BY_GRANT"), ==, "1");
    g_assert_cmpstr (field (fields, "LUMO_TARGET"), ==, TARGET_A);
    g_assert_cmpstr (field (fields, "LUMO_PROVIDER"), ==, TEST_PROVIDER_ID);
  }

  /* The result: a second entry for the same row, every field again. */
  g_assert_true (lumo_audit_store_set_result (f->store, id, FALSE, "quota exceeded", &error));
  g_assert_no_error (error);
  {
    g_autoptr(GArray) fields = lumo_test_journal_next (fj);
    g_autofree char *message = g_strdup_printf ("Audit entry %" G_GINT64_FORMAT ": write "
                                                "userscripts.save_script by %s (agent) allowed, "
                                                "failed", id, TEST_CALLER_ID);

    assert_entry (fields, f->store, id, "5", "error", message);
    /* The tool's error text stays in the log. */
    for (guint i = 0; i < fields->len; i++)
      g_assert_null (strstr (g_array_index (fields, LumoTestJournalField, i).value, "quota"));
  }

  denied.decision = LUMO_AUDIT_DECISION_DENY;
  denied.reason = LUMO_AUDIT_REASON_RATE_LIMITED;
  denied.target = NULL;
  denied_id = append (f->store, &denied);
  {
    g_autoptr(GArray) fields = lumo_test_journal_next (fj);
    g_autofree char *message = g_strdup_printf ("Audit entry %" G_GINT64_FORMAT ": write "
                                                "userscripts.delete_script by %s (extension) "
                                                "denied (rate_limited)", denied_id, TEST_CALLER_ID);

    assert_entry (fields, f->store, denied_id, "5", "denied", message);
    g_assert_cmpstr (field (fields, "LUMO_DECISION"), ==, "deny");
    g_assert_cmpstr (field (fields, "LUMO_REASON"), ==, "rate_limited");
    g_assert_cmpstr (field (fields, "LUMO_TARGET"), ==, "");
    g_assert_cmpstr (field (fields, "LUMO_CALLER_KIND"), ==, "extension");
  }

  /* A result that is refused (a denied row; a result set twice) sends
   * nothing: the next entry is the next row's. */
  g_assert_false (lumo_audit_store_set_result (f->store, denied_id, TRUE, NULL, &error));
  g_clear_error (&error);
  g_assert_false (lumo_audit_store_set_result (f->store, id, TRUE, NULL, &error));
  g_clear_error (&error);
  id = append (f->store, &allowed);
  {
    g_autoptr(GArray) fields = lumo_test_journal_next (fj);
    g_autofree char *id_text = id_string (id);

    g_assert_cmpstr (field (fields, "LUMO_ENTRY"), ==, id_text);
    g_assert_cmpstr (field (fields, "LUMO_RESULT"), ==, "pending");
  }
}

/* Off sends nothing; the switch works both ways, at once. */
static void
test_switch (Fixture       *f,
             gconstpointer  data)
{
  g_autoptr(LumoTestJournal) fj = NULL;
  gint64 ids[4];

  if (skip_without_namespace ())
    return;
  fj = lumo_test_journal_new ();

  ids[0] = audit_test_append (f->store, "while_off");
  lumo_audit_store_set_journal (f->store, TRUE);
  ids[1] = audit_test_append (f->store, "while_on");
  lumo_audit_store_set_journal (f->store, FALSE);
  g_assert_false (lumo_audit_store_get_journal (f->store));
  ids[2] = audit_test_append (f->store, "while_off");
  g_assert_true (lumo_audit_store_set_result (f->store, ids[1], TRUE, NULL, NULL));
  lumo_audit_store_set_journal (f->store, TRUE);
  ids[3] = audit_test_append (f->store, "while_on");

  /* One thread sends in commit order: an entry for a row appended while
   * off would come before the one after it. */
  for (guint i = 1; i < 4; i += 2)
    {
      g_autoptr(GArray) fields = lumo_test_journal_next (fj);
      g_autofree char *id_text = id_string (ids[i]);

      g_assert_cmpstr (field (fields, "LUMO_ENTRY"), ==, id_text);
      g_assert_cmpstr (field (fields, "LUMO_TOOL"), ==, "while_on");
    }
  g_clear_object (&f->store);   /* waits for the queue to drain */
  g_assert_true (lumo_test_journal_is_empty (fj));
}

/* A commit that fails sends nothing: only durable rows and results. */
static void
test_durable_only (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *db_path = NULL;
  g_autoptr(LumoAuditStore) store = NULL;
  g_autoptr(LumoTestJournal) fj = NULL;
  g_autoptr(GError) error = NULL;
  LumoAuditRecord r = audit_test_record ("during_fault");
  gint64 id;

  if (skip_without_namespace ())
    return;
  g_test_log_set_fatal_handler (on_log_fatal_cb, NULL);
  fj = lumo_test_journal_new ();
  dir = audit_test_tmpdir ();
  db_path = g_build_filename (dir, "audit.db", NULL);
  store = _lumo_audit_store_new_full (db_path, NULL, NULL, FAULT_VFS, LUMO_AUDIT_STORE_FLAGS_NONE, &error);
  g_assert_no_error (error);
  id = audit_test_append (store, "before_fault");
  lumo_audit_store_set_journal (store, TRUE);

  g_atomic_int_set (&fault_vfs_sync_fault, SQLITE_IOERR_FSYNC);
  g_assert_cmpint (lumo_audit_store_append (store, &r, &error), ==, 0);
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_DB_IO);
  g_clear_error (&error);
  g_assert_false (lumo_audit_store_set_result (store, id, TRUE, NULL, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_DB_IO);
  g_clear_error (&error);
  fault_vfs_clear ();

  /* The failed row's id is the next row's: had it been sent, its entry
   * would come first, with its tool. */
  {
    gint64 next = audit_test_append (store, "after_fault");
    g_autoptr(GArray) fields = lumo_test_journal_next (fj);
    g_autofree char *id_text = id_string (next);

    g_assert_cmpint (next, ==, id + 1);
    g_assert_cmpstr (field (fields, "LUMO_ENTRY"), ==, id_text);
    g_assert_cmpstr (field (fields, "LUMO_TOOL"), ==, "after_fault");
  }
  g_assert_true (lumo_audit_store_set_result (store, id, TRUE, NULL, &error));
  {
    g_autoptr(GArray) fields = lumo_test_journal_next (fj);
    g_autofree char *id_text = id_string (id);

    g_assert_cmpstr (field (fields, "LUMO_ENTRY"), ==, id_text);
    g_assert_cmpstr (field (fields, "LUMO_RESULT"), ==, "ok");
  }

  g_clear_object (&store);
  g_assert_true (lumo_test_journal_is_empty (fj));
  lumo_test_dir_remove (dir);
}

typedef struct
{
  LumoAuditJournal *journal;
  guint64           tried;
} TriedWait;

/* The sender has tried @tried entries (an append returns before its
 * entry is queued: the writer queues it after waking the caller). */
static gboolean
journal_tried (gpointer data)
{
  TriedWait *w = data;
  guint64 sent, failed, queued, dropped;

  _lumo_audit_journal_get_counts (w->journal, &sent, &failed, &queued, &dropped);
  return sent + failed == w->tried;
}

/* No journald: every append succeeds, the sender warns once, and it
 * sends again as soon as a journal is there. */
static void
test_unavailable (Fixture       *f,
                  gconstpointer  data)
{
  TriedWait w = { NULL, 0 };

  if (skip_without_namespace ())
    return;
  g_unlink (LUMO_TEST_JOURNAL_SOCKET);
  g_atomic_int_set (&warned_unavailable, 0);

  lumo_audit_store_set_journal (f->store, TRUE);
  w.journal = f->store->journal;
  for (guint i = 0; i < 5; i++)
    audit_test_append (f->store, "no_journald");
  w.tried = 5;
  lumo_test_wait_until (journal_tried, &w, "the journal thread to try every entry");
  g_assert_cmpint (g_atomic_int_get (&warned_unavailable), ==, 1);

  {
    g_autoptr(LumoTestJournal) fj = lumo_test_journal_new ();
    gint64 id = audit_test_append (f->store, "journald_back");
    g_autoptr(GArray) fields = lumo_test_journal_next (fj);
    g_autofree char *id_text = id_string (id);

    g_assert_cmpstr (field (fields, "LUMO_ENTRY"), ==, id_text);
  }

  /* Gone again: warned again, once. */
  audit_test_append (f->store, "no_journald");
  audit_test_append (f->store, "no_journald");
  w.tried = 8;
  lumo_test_wait_until (journal_tried, &w, "the journal thread to try every entry");
  g_assert_cmpint (g_atomic_int_get (&warned_unavailable), ==, 2);
}

typedef struct
{
  LumoAuditStore *store;
  guint           n;
  gint            done;
  gint            failed;
} AppendJob;

static gpointer
append_thread (gpointer data)
{
  AppendJob *job = data;

  for (guint i = 0; i < job->n; i++)
    {
      LumoAuditRecord r = audit_test_record ("stuck_journald");

      if (lumo_audit_store_append (job->store, &r, NULL) <= 0)
        g_atomic_int_inc (&job->failed);
      g_atomic_int_inc (&job->done);
    }
  return NULL;
}

static gboolean
appends_done (gpointer data)
{
  AppendJob *job = data;

  return (guint) g_atomic_int_get (&job->done) == job->n;
}

static gboolean
all_pushed (gpointer data)
{
  guint64 sent, failed, queued, dropped;

  _lumo_audit_journal_get_counts (data, &sent, &failed, &queued, &dropped);
  return sent + failed + queued + dropped == 100;
}

static gboolean
dropped_warned (gpointer data)
{
  return g_atomic_int_get (&warned_dropped) == (gint) *(guint64 *) data;
}

/* A journald that takes nothing (its socket full, never read) holds up
 * no append, nor the store's end; what did not fit is dropped, counted,
 * and warned about once it takes entries again. */
static void
test_stuck (Fixture       *f,
            gconstpointer  data)
{
  g_autoptr(LumoTestJournal) fj = NULL;
  AppendJob job = { f->store, 100, 0, 0 };
  guint64 sent, failed, queued, dropped;
  GThread *thread;
  guint received = 0;
  gint64 last = 0;

  if (skip_without_namespace ())
    return;
  fj = lumo_test_journal_new ();
  g_atomic_int_set (&warned_dropped, 0);
  lumo_audit_store_set_journal (f->store, TRUE);
  _lumo_audit_store_set_journal_queue_max (f->store, 8);

  /* On a thread of its own, so that a blocked append fails the wait
   * below with a message instead of hanging the test. */
  thread = g_thread_new ("appends", append_thread, &job);
  lumo_test_wait_until (appends_done, &job, "100 appends while journald takes nothing");
  g_thread_join (thread);
  g_assert_cmpint (job.failed, ==, 0);

  /* The socket holds a few datagrams, the sender is stuck on the next,
   * the queue is full, the rest were dropped. */
  lumo_test_wait_until (all_pushed, f->store->journal, "the writer to queue every entry");
  _lumo_audit_journal_get_counts (f->store->journal, &sent, &failed, &queued, &dropped);
  g_test_message ("sent %" G_GUINT64_FORMAT ", queued %" G_GUINT64_FORMAT ", dropped %"
                  G_GUINT64_FORMAT, sent, queued, dropped);
  g_assert_cmpuint (queued, ==, 8 + 1);
  g_assert_cmpuint (dropped, >, 0);
  g_assert_cmpuint (failed, ==, 0);
  g_assert_cmpuint (sent + queued + dropped, ==, 100);

  /* The store goes away with the sender still stuck. */
  g_clear_object (&f->store);

  /* Taken again: what was queued arrives, in order, then the warning. */
  while (received < sent + queued)
    {
      g_autoptr(GArray) fields = lumo_test_journal_next (fj);
      gint64 id = g_ascii_strtoll (field (fields, "LUMO_ENTRY"), NULL, 10);

      g_assert_cmpint (id, >, last);
      last = id;
      received++;
    }
  /* The newest were dropped: the queue keeps the oldest. */
  g_assert_cmpint (last, ==, (gint64) (sent + queued));
  lumo_test_wait_until (dropped_warned, &dropped, "the warning about the dropped entries");
  g_assert_cmpint (g_atomic_int_get (&warned_dropped), ==, (gint) dropped);
  g_assert_true (lumo_test_journal_is_empty (fj));
}

/* ---- a real journald -------------------------------------------------------------- */

static void
die_with_parent (gpointer data)
{
  prctl (PR_SET_PDEATHSIG, SIGKILL);
}

typedef struct
{
  char  *id;
  GPtrArray *entries;   /* JsonObject, oldest first */
} JournalctlWait;

/* journalctl over the namespace's runtime journal: the entries of one row. */
static gboolean
journalctl_has_two (gpointer data)
{
  JournalctlWait *w = data;
  g_autofree char *match = g_strdup_printf ("LUMO_ENTRY=%s", w->id);
  const char *argv[] = { "journalctl", "--directory=/run/log/journal", "--output=json", "--no-pager",
                         "MESSAGE_ID=" LUMO_AUDIT_JOURNAL_MESSAGE_ID, match, NULL };
  g_autofree char *out = NULL;
  g_auto(GStrv) lines = NULL;
  int status;

  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL,
                     NULL, NULL, &out, NULL, &status, NULL))
    return FALSE;
  lines = g_strsplit (out, "\n", -1);
  g_ptr_array_set_size (w->entries, 0);
  for (guint i = 0; lines[i] != NULL; i++)
    if (*lines[i] != '\0')
      {
        JsonNode *node = lumo_test_parse_json (lines[i]);

        g_ptr_array_add (w->entries, json_object_ref (json_node_get_object (node)));
        json_node_unref (node);
      }
  return w->entries->len >= 2;
}

static gboolean
path_exists (gpointer data)
{
  return g_file_test (data, G_FILE_TEST_EXISTS);
}

/* The entries as journald stored them: what journalctl -o json shows an
 * admin, for the decision and the result of one write. */
static void
test_real_journald (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *journald = NULL;
  g_autoptr(GSubprocess) proc = NULL;
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(LumoAuditRow) row = NULL;
  g_autofree char *journalctl = NULL;
  JournalctlWait w = { NULL, g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref) };
  gint64 id;

  if (skip_without_namespace ())
    goto out;
  if (!(journald = g_find_program_in_path ("systemd-journald")) &&
      !(journald = g_strdup (g_file_test ("/lib/systemd/systemd-journald", G_FILE_TEST_IS_EXECUTABLE)
                             ? "/lib/systemd/systemd-journald" : NULL)))
    {
      g_test_skip ("systemd-journald is not installed");
      goto out;
    }
  journalctl = g_find_program_in_path ("journalctl");
  if (journalctl == NULL || !g_file_test ("/etc/machine-id", G_FILE_TEST_EXISTS) || getuid () != 0)
    {
      g_test_skip ("a journald of the test's needs journalctl, /etc/machine-id and root");
      goto out;
    }

  /* Its runtime journal on the tmpfs, nothing read from the kernel or
   * forwarded anywhere: it sees only this test's entries. */
  g_unlink (LUMO_TEST_JOURNAL_SOCKET);
  lumo_test_write_in ("/run", "systemd/journald.conf.d/zz-lumo-test.conf",
                      "[Journal]\nStorage=volatile\nReadKMSG=no\nForwardToSyslog=no\n"
                      "ForwardToKMsg=no\nForwardToConsole=no\nForwardToWall=no\n");
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_SILENCE);
  g_subprocess_launcher_setenv (launcher, "SYSTEMD_LOG_TARGET", "console", TRUE);
  g_subprocess_launcher_set_child_setup (launcher, die_with_parent, NULL, NULL);
  proc = g_subprocess_launcher_spawn (launcher, &error, journald, NULL);
  g_assert_no_error (error);
  lumo_test_wait_until (path_exists, (gpointer) LUMO_TEST_JOURNAL_SOCKET, "systemd-journald's socket");

  lumo_audit_store_set_journal (f->store, TRUE);
  id = audit_test_append (f->store, "userscripts.save_script");
  g_assert_true (lumo_audit_store_set_result (f->store, id, TRUE, NULL, &error));
  g_assert_no_error (error);
  row = lumo_audit_store_get_row (f->store, id, &error);
  g_assert_no_error (error);

  w.id = id_string (id);
  lumo_test_wait_until (journalctl_has_two, &w, "journalctl to show both entries of the row");
  g_assert_cmpuint (w.entries->len, ==, 2);
  for (guint i = 0; i < 2; i++)
    {
      JsonObject *e = g_ptr_array_index (w.entries, i);

      g_assert_cmpstr (json_object_get_string_member (e, "MESSAGE_ID"), ==, LUMO_AUDIT_JOURNAL_MESSAGE_ID);
      g_assert_cmpstr (json_object_get_string_member (e, "SYSLOG_IDENTIFIER"), ==, "lumo-access");
      g_assert_cmpstr (json_object_get_string_member (e, "_TRANSPORT"), ==, "journal");
      g_assert_cmpstr (json_object_get_string_member (e, "LUMO_ENTRY"), ==, w.id);
      g_assert_cmpstr (json_object_get_string_member (e, "LUMO_TOOL"), ==, "userscripts.save_script");
      g_assert_cmpstr (json_object_get_string_member (e, "LUMO_CALLER"), ==, TEST_CALLER_ID);
      g_assert_cmpstr (json_object_get_string_member (e, "LUMO_PROVIDER"), ==, TEST_PROVIDER_ID);
      g_assert_cmpstr (json_object_get_string_member (e, "LUMO_TARGET"), ==, TARGET_A);
      g_assert_cmpstr (json_object_get_string_member (e, "LUMO_PARAMS_HMAC"), ==,
                       lumo_audit_row_get_params_hmac (row));
      g_assert_cmpstr (json_object_get_string_member (e, "LUMO_ENTRY_HASH"), ==,
                       lumo_audit_row_get_hash (row));
      g_assert_cmpstr (json_object_get_string_member (e, "LUMO_RESULT"), ==, i == 0 ? "pending" : "ok");
    }

  g_subprocess_send_signal (proc, SIGTERM);
  g_subprocess_wait (proc, NULL, NULL);

out:
  g_free (w.id);
  g_ptr_array_unref (w.entries);
}

int
main (int   argc,
      char *argv[])
{
  /* First of all: the namespace is inherited by threads made after it. */
  no_namespace = lumo_test_journal_enter_namespace ();

  g_test_init (&argc, &argv, NULL);
  g_log_set_handler ("lumo-audit", G_LOG_LEVEL_WARNING | G_LOG_FLAG_FATAL | G_LOG_FLAG_RECURSION,
                     on_log_cb, NULL);
  fault_vfs_register ();
  if (no_namespace != NULL)
    g_test_message ("skipping: %s", no_namespace);

#define ADD(name, fn) \
  g_test_add ("/audit/journal/" name, Fixture, NULL, fixture_set_up, fn, fixture_tear_down)
  ADD ("fields", test_fields);
  ADD ("switch", test_switch);
  ADD ("unavailable", test_unavailable);
  ADD ("stuck", test_stuck);
  ADD ("real-journald", test_real_journald);
#undef ADD
  g_test_add_func ("/audit/journal/durable-only", test_durable_only);

  return g_test_run ();
}
