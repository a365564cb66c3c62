/* test-policy-bookkeeping.c — decisions from the snapshot, and the probe
 * and write counts they leave in memory until a flush
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What a person relies on: a change made anywhere (this instance or
 * lumo-access-ctl) counts at the very next decision; the counts the UI
 * shows arrive by themselves, are never lost when the app quits, and add
 * up across processes; and an idle app keeps no timer.
 */
#define G_LOG_DOMAIN "test-policy"

#include "config.h"

#include <glib/gstdio.h>
#include <sqlite3.h>

#include "lumo-error.h"
#include "lumo-paths.h"
#include "lumo-policy.h"
#include "lumo-test-policy.h"

/* ---- bookkeeping --------------------------------------------------------- */

static LumoCallerInfo *
read_caller (LumoPolicy *policy,
             const char *caller)
{
  g_autoptr(GError) error = NULL;
  LumoCallerInfo *info = lumo_policy_get_caller (policy, TEST_PROVIDER_ID, caller, &error);

  g_assert_no_error (error);
  g_assert_nonnull (info);
  return info;
}

static void
probe_known (LumoPolicy *policy,
             const char *caller,
             const char *name)
{
  g_autoptr(GError) error = NULL;
  LumoPolicyStatus status;

  g_assert_true (lumo_policy_probe (policy, TEST_PROVIDER_ID, caller, name, &status, &error));
  g_assert_no_error (error);
}

/* The flush timeout is the only main-context source whose data is the
 * policy itself. */
static GSource *
flush_source (LumoPolicy *policy)
{
  return g_main_context_find_source_by_user_data (NULL, policy);
}

static void
test_bookkeeping_flush (LumoTestPolicy *f,
                        gconstpointer   data)
{
  g_autoptr(LumoPolicy) other = NULL;
  g_autoptr(LumoCallerInfo) mine = NULL;
  g_autoptr(LumoCallerInfo) seen = NULL;
  g_autoptr(GError) error = NULL;

  lumo_test_policy_register (f);
  g_assert_true (lumo_policy_add_caller (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, "Lumo",
                                         LUMO_POLICY_ORIGIN_UI, &error));
  lumo_test_policy_set_switch (f, LUMO_POLICY_SWITCH_REVIEW, FALSE);
  other = lumo_policy_new (f->path, &error);
  g_assert_no_error (error);
  g_ptr_array_set_size (f->events, 0);

  for (guint i = 0; i < 3; i++)
    probe_known (f->policy, TEST_CALLER_ID, "Lumo");
  g_assert_cmpint (lumo_test_policy_write (f, TEST_CALLER_ID, NULL), ==, LUMO_DENY_REASON_NONE);
  g_assert_cmpint (lumo_test_policy_write (f, TEST_CALLER_ID, NULL), ==, LUMO_DENY_REASON_NONE);

  /* This instance shows its own counts at once … */
  mine = read_caller (f->policy, TEST_CALLER_ID);
  g_assert_cmpuint (mine->probe_count, ==, 3);
  g_assert_cmpuint (mine->write_count, ==, 2);
  g_assert_cmpint (mine->last_seen, >, 0);
  g_assert_true (lumo_policy_has_unwritten_bookkeeping (f->policy));
  /* … but they are not written yet, and not announced one by one. */
  seen = read_caller (other, TEST_CALLER_ID);
  g_assert_cmpuint (seen->probe_count, ==, 0);
  g_assert_cmpuint (seen->write_count, ==, 0);
  g_assert_cmpuint (lumo_test_policy_count_events (f, "caller-changed", TEST_CALLER_ID), ==, 0);

  /* A flush writes them in one go and announces the caller once. */
  g_assert_true (lumo_policy_flush (f->policy, &error));
  g_assert_no_error (error);
  g_assert_false (lumo_policy_has_unwritten_bookkeeping (f->policy));
  g_assert_cmpuint (lumo_test_policy_count_events (f, "caller-changed", TEST_CALLER_ID), ==, 1);
  g_clear_pointer (&seen, lumo_caller_info_free);
  seen = read_caller (other, TEST_CALLER_ID);
  g_assert_cmpuint (seen->probe_count, ==, 3);
  g_assert_cmpuint (seen->write_count, ==, 2);
  g_assert_cmpint (seen->last_seen, ==, mine->last_seen);
  /* The counts never go back for this instance's reader either. */
  g_clear_pointer (&mine, lumo_caller_info_free);
  mine = read_caller (f->policy, TEST_CALLER_ID);
  g_assert_cmpuint (mine->probe_count, ==, 3);

  /* Nothing waits: a flush is a no-op, and says nothing. */
  g_ptr_array_set_size (f->events, 0);
  g_assert_true (lumo_policy_flush (f->policy, &error));
  g_assert_cmpuint (f->events->len, ==, 0);

  /* A refresh writes too, and a new name travels with the counts. */
  probe_known (f->policy, TEST_CALLER_ID, "Lumo 2");
  probe_known (f->policy, TEST_CALLER_ID, "Lumo 2");
  g_assert_true (lumo_policy_refresh (f->policy, &error));
  g_assert_no_error (error);
  g_clear_pointer (&seen, lumo_caller_info_free);
  seen = read_caller (other, TEST_CALLER_ID);
  g_assert_cmpuint (seen->probe_count, ==, 5);
  g_assert_cmpstr (seen->display_name, ==, "Lumo 2");

  /* Two instances counting the same caller add up; neither overwrites. */
  probe_known (f->policy, TEST_CALLER_ID, NULL);
  probe_known (other, TEST_CALLER_ID, NULL);
  probe_known (other, TEST_CALLER_ID, NULL);
  g_assert_true (lumo_policy_flush (other, &error));
  g_assert_true (lumo_policy_flush (f->policy, &error));
  g_assert_no_error (error);
  g_clear_pointer (&seen, lumo_caller_info_free);
  seen = read_caller (other, TEST_CALLER_ID);
  g_assert_cmpuint (seen->probe_count, ==, 8);
}

static void
test_bookkeeping_dispose (LumoTestPolicy *f,
                          gconstpointer   data)
{
  g_autoptr(LumoCallerInfo) caller = NULL;
  g_autoptr(GError) error = NULL;
  LumoPolicy *other;
  LumoPolicyDecision decision;

  lumo_test_policy_register (f);
  lumo_test_policy_allow (f, TEST_CALLER_ID);
  lumo_test_policy_set_switch (f, LUMO_POLICY_SWITCH_REVIEW, FALSE);

  other = lumo_policy_new (f->path, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < 4; i++)
    probe_known (other, TEST_CALLER_ID, "Renamed");
  g_assert_true (lumo_policy_authorize (other, TEST_PROVIDER_ID, TEST_CALLER_ID, "userscripts.save",
                                        TRUE, NULL, NULL, &decision, &error));
  g_assert_true (decision.allowed);
  g_assert_true (lumo_policy_has_unwritten_bookkeeping (other));

  /* The last reference goes before any timeout ran: nothing is lost. */
  g_object_unref (other);

  caller = read_caller (f->policy, TEST_CALLER_ID);
  g_assert_cmpuint (caller->probe_count, ==, 4);
  g_assert_cmpuint (caller->write_count, ==, 1);
  g_assert_cmpstr (caller->display_name, ==, "Renamed");
  g_assert_cmpint (caller->last_seen, >, 0);
}

static void
test_bookkeeping_timer (LumoTestPolicy *f,
                        gconstpointer   data)
{
  g_autoptr(LumoCallerInfo) caller = NULL;
  g_autoptr(GError) error = NULL;
  LumoPolicyStatus status;
  GSource *source;

  /* Idle: no timer. */
  g_assert_false (lumo_policy_has_unwritten_bookkeeping (f->policy));
  g_assert_null (flush_source (f->policy));

  lumo_test_policy_register (f);
  lumo_test_policy_allow (f, TEST_CALLER_ID);
  lumo_test_policy_set_switch (f, LUMO_POLICY_SWITCH_WRITES, FALSE);

  /* Decisions that count nothing arm nothing: an unknown provider, a
   * read, a denied write, a caller that is not allowed. */
  g_assert_true (lumo_policy_probe (f->policy, TEST_PROVIDER2_ID, TEST_CALLER_ID, "x", &status,
                                    &error));
  g_assert_cmpint (lumo_test_policy_read (f, TEST_CALLER_ID), ==, LUMO_DENY_REASON_NONE);
  g_assert_cmpint (lumo_test_policy_write (f, TEST_CALLER_ID, NULL), ==,
                   LUMO_DENY_REASON_WRITES_OFF);
  g_assert_cmpint (lumo_test_policy_write (f, TEST_CALLER2_ID, NULL), ==,
                   LUMO_DENY_REASON_NOT_AUTHORIZED);
  g_assert_cmpint (lumo_test_policy_authorize (f, TEST_PROVIDER2_ID, TEST_CALLER_ID, TRUE, NULL),
                   ==, LUMO_DENY_REASON_DISABLED);
  g_assert_false (lumo_policy_has_unwritten_bookkeeping (f->policy));
  g_assert_null (flush_source (f->policy));

  /* A counted probe arms one timeout; more probes do not add any. */
  probe_known (f->policy, TEST_CALLER_ID, NULL);
  source = flush_source (f->policy);
  g_assert_nonnull (source);
  g_assert_cmpstr (g_source_get_name (source), ==, "[lumo] policy bookkeeping");
  probe_known (f->policy, TEST_CALLER_ID, NULL);
  g_assert_true (flush_source (f->policy) == source);

  /* It writes by itself, announces, and is gone. */
  g_ptr_array_set_size (f->events, 0);
  lumo_test_policy_wait_for_event (f, "caller-changed", TEST_CALLER_ID);
  g_assert_false (lumo_policy_has_unwritten_bookkeeping (f->policy));
  g_assert_null (flush_source (f->policy));
  caller = read_caller (f->policy, TEST_CALLER_ID);
  g_assert_cmpuint (caller->probe_count, ==, 2);

  /* A change writes what waits in its own transaction, and the timeout
   * goes with it. */
  probe_known (f->policy, TEST_CALLER_ID, NULL);
  g_assert_nonnull (flush_source (f->policy));
  lumo_test_policy_set_switch (f, LUMO_POLICY_SWITCH_WRITES, TRUE);
  g_assert_false (lumo_policy_has_unwritten_bookkeeping (f->policy));
  g_assert_null (flush_source (f->policy));

  /* A flush leaves no timer either. */
  probe_known (f->policy, TEST_CALLER_ID, NULL);
  g_assert_true (lumo_policy_flush (f->policy, &error));
  g_assert_null (flush_source (f->policy));
}

static void
test_bookkeeping_write_fails (LumoTestPolicy *f,
                              gconstpointer   data)
{
  g_autoptr(LumoPolicy) other = NULL;
  g_autoptr(LumoCallerInfo) caller = NULL;
  g_autoptr(GError) error = NULL;
  sqlite3 *db = NULL;

  lumo_test_policy_register (f);
  lumo_test_policy_allow (f, TEST_CALLER_ID);
  other = lumo_policy_new (f->path, &error);
  g_assert_no_error (error);

  g_assert_cmpint (sqlite3_open (f->path, &db), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (db,
                                 "CREATE TRIGGER fail_counts BEFORE UPDATE OF probe_count ON callers "
                                 "BEGIN SELECT RAISE (ABORT, 'injected failure'); END",
                                 NULL, NULL, NULL), ==, SQLITE_OK);

  /* The decision does not depend on the write … */
  probe_known (f->policy, TEST_CALLER_ID, NULL);
  probe_known (f->policy, TEST_CALLER_ID, NULL);
  g_assert_cmpint (lumo_test_policy_read (f, TEST_CALLER_ID), ==, LUMO_DENY_REASON_NONE);

  /* … and a failed write keeps the counts waiting, with their timer. */
  g_assert_false (lumo_policy_flush (f->policy, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_DB);
  g_clear_error (&error);
  g_assert_true (lumo_policy_has_unwritten_bookkeeping (f->policy));
  g_assert_nonnull (flush_source (f->policy));
  caller = read_caller (f->policy, TEST_CALLER_ID);
  g_assert_cmpuint (caller->probe_count, ==, 2);

  g_assert_cmpint (sqlite3_exec (db, "DROP TRIGGER fail_counts", NULL, NULL, NULL), ==, SQLITE_OK);
  sqlite3_close (db);

  g_assert_true (lumo_policy_flush (f->policy, &error));
  g_assert_no_error (error);
  g_assert_null (flush_source (f->policy));
  g_clear_pointer (&caller, lumo_caller_info_free);
  caller = read_caller (other, TEST_CALLER_ID);
  g_assert_cmpuint (caller->probe_count, ==, 2);

  /* Counts for a caller another process forgot meanwhile go nowhere. */
  probe_known (f->policy, TEST_CALLER_ID, NULL);
  g_assert_true (lumo_policy_forget_caller (other, TEST_PROVIDER_ID, TEST_CALLER_ID,
                                            LUMO_POLICY_ORIGIN_CLI, &error));
  g_assert_true (lumo_policy_flush (f->policy, &error));
  g_assert_no_error (error);
  g_assert_null (lumo_policy_get_caller (other, TEST_PROVIDER_ID, TEST_CALLER_ID, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND);
}

/* Decisions answer from a snapshot: each must still see another
 * process's commit at once, without a refresh or a file monitor event. */
static void
test_snapshot_sees_other_process (LumoTestPolicy *f,
                                  gconstpointer   data)
{
  g_autoptr(LumoPolicy) other = NULL;
  g_autoptr(GPtrArray) callers = NULL;
  g_autoptr(GError) error = NULL;
  LumoPolicyStatus status;

  lumo_test_policy_register (f);
  lumo_test_policy_allow (f, TEST_CALLER_ID);
  probe_known (f->policy, TEST_CALLER2_ID, "Waiting");
  lumo_test_policy_set_switch (f, LUMO_POLICY_SWITCH_REVIEW, FALSE);
  other = lumo_policy_new (f->path, &error);
  g_assert_no_error (error);

  g_assert_true (lumo_policy_set_switch (other, TEST_PROVIDER_ID, LUMO_POLICY_SWITCH_WRITES, FALSE,
                                         LUMO_POLICY_ORIGIN_CLI, &error));
  g_assert_cmpint (lumo_test_policy_write (f, TEST_CALLER_ID, NULL), ==,
                   LUMO_DENY_REASON_WRITES_OFF);

  g_assert_true (lumo_policy_allow_caller (other, TEST_PROVIDER_ID, TEST_CALLER2_ID,
                                           LUMO_POLICY_ORIGIN_CLI, &error));
  g_assert_true (lumo_policy_probe (f->policy, TEST_PROVIDER_ID, TEST_CALLER2_ID, NULL, &status,
                                    &error));
  g_assert_true (status.authorized);
  g_assert_false (status.pending_approval);

  g_assert_true (lumo_policy_set_switch (other, TEST_PROVIDER_ID, LUMO_POLICY_SWITCH_ENABLED, FALSE,
                                         LUMO_POLICY_ORIGIN_CLI, &error));
  g_assert_true (lumo_policy_probe (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, NULL, &status,
                                    &error));
  g_assert_false (status.enabled);
  g_assert_cmpint (lumo_test_policy_read (f, TEST_CALLER_ID), ==, LUMO_DENY_REASON_DISABLED);

  /* A caller another process added is known, not a new pending request. */
  g_assert_true (lumo_policy_set_switch (other, TEST_PROVIDER_ID, LUMO_POLICY_SWITCH_ENABLED, TRUE,
                                         LUMO_POLICY_ORIGIN_CLI, &error));
  g_assert_true (lumo_policy_add_caller (other, TEST_PROVIDER_ID, TEST_UNKNOWN_ID, NULL,
                                         LUMO_POLICY_ORIGIN_CLI, &error));
  g_ptr_array_set_size (f->events, 0);
  g_assert_true (lumo_policy_probe (f->policy, TEST_PROVIDER_ID, TEST_UNKNOWN_ID, NULL,
                                    &status, &error));
  g_assert_true (status.authorized);
  g_assert_cmpuint (lumo_test_policy_count_events (f, "caller-pending", TEST_UNKNOWN_ID), ==, 0);

  /* A removed provider is unknown at once: nothing is recorded for it. */
  g_assert_true (lumo_policy_remove_provider (other, TEST_PROVIDER_ID, LUMO_POLICY_ORIGIN_CLI,
                                              &error));
  g_assert_true (lumo_policy_probe (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, NULL, &status,
                                    &error));
  g_assert_false (status.enabled || status.authorized || status.ready);
  g_assert_true (lumo_policy_flush (f->policy, &error));
  g_assert_no_error (error);
  callers = lumo_policy_list_callers (other, NULL, LUMO_CALLER_STATE_ANY, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (callers->len, ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  lumo_test_policy_add ("/policy/bookkeeping/flush", test_bookkeeping_flush);
  lumo_test_policy_add ("/policy/bookkeeping/dispose", test_bookkeeping_dispose);
  lumo_test_policy_add ("/policy/bookkeeping/timer", test_bookkeeping_timer);
  lumo_test_policy_add ("/policy/bookkeeping/write-fails", test_bookkeeping_write_fails);
  lumo_test_policy_add ("/policy/decision/sees-other-process", test_snapshot_sees_other_process);

  return g_test_run ();
}
