/* test-policy-grants.c — review grants: a person's approval that stands for
 * one caller's writes of one tool, for ten minutes or always
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-policy-grants"

#include "config.h"

#include <sqlite3.h>
#include <string.h>

#include "lumo-error.h"
#include "lumo-policy.h"
#include "lumo-test-policy.h"

#define TOOL       "userscripts.save"
#define OTHER_TOOL "userscripts.remove"
#define TARGET     "0f8fad5b-d9cb-469f-a165-70867728950e"

/* The decision on a write of @tool by @caller of TEST_PROVIDER_ID. */
static LumoPolicyDecision
write_tool (LumoTestPolicy *f,
            const char     *caller,
            const char     *tool)
{
  g_autoptr(GError) error = NULL;
  LumoPolicyDecision decision;

  g_assert_true (lumo_policy_authorize (f->policy, TEST_PROVIDER_ID, caller, tool, TRUE, TARGET, NULL,
                                        &decision, &error));
  g_assert_no_error (error);
  /* Only an allowed write is let through by a grant. */
  g_assert_true (!decision.by_grant || decision.allowed);
  g_assert_cmpint (decision.allowed, ==, decision.reason == LUMO_DENY_REASON_NONE);

  return decision;
}

/* Allowed by a grant (TRUE), or asks a person (FALSE); anything else
 * fails the test. */
static gboolean
granted (LumoTestPolicy *f,
         const char     *caller,
         const char     *tool)
{
  LumoPolicyDecision decision = write_tool (f, caller, tool);

  if (decision.by_grant)
    return TRUE;
  g_assert_cmpint (decision.reason, ==, LUMO_DENY_REASON_REVIEW_REQUIRED);
  return FALSE;
}

static void
add_grant (LumoTestPolicy *f,
           const char     *caller,
           const char     *tool,
           LumoGrantScope  scope)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (lumo_policy_add_grant (f->policy, TEST_PROVIDER_ID, caller, tool, scope,
                                        LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_no_error (error);
}

static GPtrArray *
grants (LumoTestPolicy *f)
{
  g_autoptr(GError) error = NULL;
  GPtrArray *list = lumo_policy_list_grants (f->policy, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (list);
  return list;
}

static guint
n_grants (LumoTestPolicy *f)
{
  g_autoptr(GPtrArray) list = grants (f);

  return list->len;
}

static LumoHistoryEntry *
newest_entry (LumoTestPolicy *f)
{
  g_autoptr(GPtrArray) history = lumo_policy_list_history (f->policy, 1, NULL);

  g_assert_nonnull (history);
  g_assert_cmpuint (history->len, ==, 1);
  return lumo_history_entry_copy (g_ptr_array_index (history, 0));
}

static guint
history_length (LumoTestPolicy *f)
{
  g_autoptr(GPtrArray) history = lumo_policy_list_history (f->policy, 0, NULL);

  g_assert_nonnull (history);
  return history->len;
}

static void
undo (LumoTestPolicy *f)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (lumo_policy_undo_last (f->policy, LUMO_POLICY_ORIGIN_UI, NULL, &error));
  g_assert_no_error (error);
}

static void
set_up_allowed (LumoTestPolicy *f)
{
  lumo_test_policy_register (f);
  lumo_test_policy_allow (f, TEST_CALLER_ID);
  lumo_test_policy_allow (f, TEST_CALLER2_ID);
}

/* ---- the scopes ---------------------------------------------------------- */

static void
test_once_is_no_grant (LumoTestPolicy *f,
                       gconstpointer   data)
{
  g_autoptr(GError) error = NULL;
  guint before;

  set_up_allowed (f);
  before = history_length (f);

  g_assert_false (lumo_policy_add_grant (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, TOOL,
                                         LUMO_GRANT_SCOPE_ONCE, LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT);
  g_assert_cmpuint (history_length (f), ==, before);
  g_assert_cmpuint (n_grants (f), ==, 0);
  g_assert_false (granted (f, TEST_CALLER_ID, TOOL));
}

static void
test_ten_minutes (LumoTestPolicy *f,
                  gconstpointer   data)
{
  g_autoptr(LumoHistoryEntry) entry = NULL;
  g_autoptr(GPtrArray) list = NULL;
  g_autoptr(GError) error = NULL;
  const LumoGrantInfo *grant;
  gint64 made = f->wall;

  set_up_allowed (f);
  g_ptr_array_set_size (f->events, 0);
  add_grant (f, TEST_CALLER_ID, TOOL, LUMO_GRANT_SCOPE_TEN_MINUTES);
  g_assert_cmpuint (lumo_test_policy_count_events (f, "grant-changed", TEST_CALLER_ID "/" TOOL), ==, 1);
  g_assert_cmpuint (lumo_test_policy_count_events (f, "history-changed", NULL), ==, 1);

  list = grants (f);
  g_assert_cmpuint (list->len, ==, 1);
  grant = g_ptr_array_index (list, 0);
  g_assert_cmpstr (grant->provider_id, ==, TEST_PROVIDER_ID);
  g_assert_cmpstr (grant->caller_id, ==, TEST_CALLER_ID);
  g_assert_cmpstr (grant->tool, ==, TOOL);
  g_assert_cmpint (grant->scope, ==, LUMO_GRANT_SCOPE_TEN_MINUTES);
  g_assert_cmpint (grant->created, ==, made);
  g_assert_cmpint (grant->expires, ==, made + LUMO_GRANT_TIMED_US);

  entry = newest_entry (f);
  g_assert_cmpstr (entry->field, ==, "grant");
  g_assert_cmpstr (entry->provider_id, ==, TEST_PROVIDER_ID);
  g_assert_cmpstr (entry->caller_id, ==, TEST_CALLER_ID);
  g_assert_cmpstr (entry->tool, ==, TOOL);
  g_assert_null (entry->old_value);
  g_assert_cmpstr (entry->new_value, ==, "10m");
  g_assert_cmpint (entry->origin, ==, LUMO_POLICY_ORIGIN_UI);

  /* This caller, this tool: no one is asked. Nobody else is let through. */
  g_assert_true (granted (f, TEST_CALLER_ID, TOOL));
  g_assert_false (granted (f, TEST_CALLER_ID, OTHER_TOOL));
  g_assert_false (granted (f, TEST_CALLER2_ID, TOOL));
  /* A read needs no review and is no grant's doing. */
  g_assert_cmpint (lumo_test_policy_read (f, TEST_CALLER_ID), ==, LUMO_DENY_REASON_NONE);

  /* The last microsecond still counts; then it asks again. */
  f->wall = made + LUMO_GRANT_TIMED_US - 1;
  g_assert_true (granted (f, TEST_CALLER_ID, TOOL));
  g_ptr_array_set_size (f->events, 0);
  f->wall = made + LUMO_GRANT_TIMED_US;
  g_assert_false (granted (f, TEST_CALLER_ID, TOOL));
  g_assert_cmpuint (n_grants (f), ==, 0);
  /* Running out is announced, once, and is no change of the history. */
  g_assert_true (lumo_policy_refresh (f->policy, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (lumo_test_policy_count_events (f, "grant-changed", TEST_CALLER_ID "/" TOOL), ==, 1);
  g_assert_cmpuint (lumo_test_policy_count_events (f, "history-changed", NULL), ==, 0);

  /* A grant that ran out is not there to revoke. */
  g_assert_false (lumo_policy_revoke_grant (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, TOOL,
                                            LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND);
}

static void
test_ten_minutes_again_restarts (LumoTestPolicy *f,
                                 gconstpointer   data)
{
  g_autoptr(LumoHistoryEntry) entry = NULL;
  gint64 made = f->wall;

  set_up_allowed (f);
  add_grant (f, TEST_CALLER_ID, TOOL, LUMO_GRANT_SCOPE_TEN_MINUTES);

  /* Five minutes in, another ten minutes: from now. */
  f->wall = made + LUMO_GRANT_TIMED_US / 2;
  add_grant (f, TEST_CALLER_ID, TOOL, LUMO_GRANT_SCOPE_TEN_MINUTES);
  entry = newest_entry (f);
  g_assert_cmpstr (entry->old_value, ==, "10m");
  g_assert_cmpstr (entry->new_value, ==, "10m");

  f->wall = made + LUMO_GRANT_TIMED_US;
  g_assert_true (granted (f, TEST_CALLER_ID, TOOL));
  f->wall = made + LUMO_GRANT_TIMED_US / 2 + LUMO_GRANT_TIMED_US;
  g_assert_false (granted (f, TEST_CALLER_ID, TOOL));
}

static void
test_always (LumoTestPolicy *f,
             gconstpointer   data)
{
  g_autoptr(GPtrArray) list = NULL;
  guint before;

  set_up_allowed (f);
  add_grant (f, TEST_CALLER_ID, TOOL, LUMO_GRANT_SCOPE_ALWAYS);
  list = grants (f);
  g_assert_cmpuint (list->len, ==, 1);
  g_assert_cmpint (((LumoGrantInfo *) g_ptr_array_index (list, 0))->scope, ==, LUMO_GRANT_SCOPE_ALWAYS);
  g_assert_cmpint (((LumoGrantInfo *) g_ptr_array_index (list, 0))->expires, ==, 0);

  f->wall += 400 * 24 * G_TIME_SPAN_HOUR;
  g_assert_true (granted (f, TEST_CALLER_ID, TOOL));

  /* Always again is what it is already: no entry. */
  before = history_length (f);
  add_grant (f, TEST_CALLER_ID, TOOL, LUMO_GRANT_SCOPE_ALWAYS);
  g_assert_cmpuint (history_length (f), ==, before);
}

/* A ten-minute grant replaced by always, and the undo that gives the ten
 * minutes back as they were. */
static void
test_replace_and_undo (LumoTestPolicy *f,
                       gconstpointer   data)
{
  g_autoptr(LumoHistoryEntry) entry = NULL;
  g_autoptr(GPtrArray) list = NULL;
  gint64 made = f->wall;

  set_up_allowed (f);
  add_grant (f, TEST_CALLER_ID, TOOL, LUMO_GRANT_SCOPE_TEN_MINUTES);
  f->wall += G_TIME_SPAN_MINUTE;
  add_grant (f, TEST_CALLER_ID, TOOL, LUMO_GRANT_SCOPE_ALWAYS);
  entry = newest_entry (f);
  g_assert_cmpstr (entry->old_value, ==, "10m");
  g_assert_cmpstr (entry->new_value, ==, "always");

  undo (f);
  list = grants (f);
  g_assert_cmpuint (list->len, ==, 1);
  g_assert_cmpint (((LumoGrantInfo *) g_ptr_array_index (list, 0))->scope, ==, LUMO_GRANT_SCOPE_TEN_MINUTES);
  g_assert_cmpint (((LumoGrantInfo *) g_ptr_array_index (list, 0))->expires, ==, made + LUMO_GRANT_TIMED_US);

  f->wall = made + LUMO_GRANT_TIMED_US;
  g_assert_false (granted (f, TEST_CALLER_ID, TOOL));
}

static void
test_revoke_and_undo (LumoTestPolicy *f,
                      gconstpointer   data)
{
  g_autoptr(LumoHistoryEntry) entry = NULL;
  g_autoptr(LumoHistoryEntry) undone = NULL;
  g_autoptr(GError) error = NULL;

  set_up_allowed (f);
  add_grant (f, TEST_CALLER_ID, TOOL, LUMO_GRANT_SCOPE_ALWAYS);
  add_grant (f, TEST_CALLER_ID, OTHER_TOOL, LUMO_GRANT_SCOPE_ALWAYS);

  g_ptr_array_set_size (f->events, 0);
  g_assert_true (lumo_policy_revoke_grant (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, TOOL,
                                           LUMO_POLICY_ORIGIN_CLI, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (lumo_test_policy_count_events (f, "grant-changed", TEST_CALLER_ID "/" TOOL), ==, 1);
  g_assert_cmpuint (lumo_test_policy_count_events (f, "grant-changed", TEST_CALLER_ID "/" OTHER_TOOL), ==, 0);
  entry = newest_entry (f);
  g_assert_cmpstr (entry->field, ==, "grant");
  g_assert_cmpstr (entry->tool, ==, TOOL);
  g_assert_cmpstr (entry->old_value, ==, "always");
  g_assert_null (entry->new_value);
  g_assert_cmpint (entry->origin, ==, LUMO_POLICY_ORIGIN_CLI);

  /* Revoked asks again; the other tool keeps its grant. */
  g_assert_false (granted (f, TEST_CALLER_ID, TOOL));
  g_assert_true (granted (f, TEST_CALLER_ID, OTHER_TOOL));

  /* Twice is not there any more. */
  g_assert_false (lumo_policy_revoke_grant (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, TOOL,
                                            LUMO_POLICY_ORIGIN_CLI, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND);
  g_clear_error (&error);

  /* Undo brings it back; undoing its creation ends it again. */
  g_assert_true (lumo_policy_undo_last (f->policy, LUMO_POLICY_ORIGIN_UI, &undone, &error));
  g_assert_no_error (error);
  g_assert_cmpint (undone->id, ==, entry->id);
  g_assert_cmpstr (undone->tool, ==, TOOL);
  g_assert_true (granted (f, TEST_CALLER_ID, TOOL));
  undo (f);
  g_assert_true (granted (f, TEST_CALLER_ID, TOOL));
  g_assert_false (granted (f, TEST_CALLER_ID, OTHER_TOOL));
  undo (f);
  g_assert_false (granted (f, TEST_CALLER_ID, TOOL));
  g_assert_cmpuint (n_grants (f), ==, 0);
}

/* ---- what a grant never outlives ----------------------------------------- */

static void
test_deny_clears_and_undo_restores (LumoTestPolicy *f,
                                    gconstpointer   data)
{
  g_autoptr(GError) error = NULL;

  set_up_allowed (f);
  add_grant (f, TEST_CALLER_ID, TOOL, LUMO_GRANT_SCOPE_ALWAYS);
  add_grant (f, TEST_CALLER_ID, OTHER_TOOL, LUMO_GRANT_SCOPE_TEN_MINUTES);
  add_grant (f, TEST_CALLER2_ID, TOOL, LUMO_GRANT_SCOPE_ALWAYS);

  g_ptr_array_set_size (f->events, 0);
  g_assert_true (lumo_policy_deny_caller (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID,
                                          LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (lumo_test_policy_count_events (f, "grant-changed", TEST_CALLER_ID "/" TOOL), ==, 1);
  g_assert_cmpuint (lumo_test_policy_count_events (f, "grant-changed", TEST_CALLER_ID "/" OTHER_TOOL), ==, 1);
  g_assert_cmpuint (n_grants (f), ==, 1);
  g_assert_cmpint (write_tool (f, TEST_CALLER_ID, TOOL).reason, ==, LUMO_DENY_REASON_NOT_AUTHORIZED);
  /* The other caller's grant is its own. */
  g_assert_true (granted (f, TEST_CALLER2_ID, TOOL));

  /* Allowed again by hand, it starts without grants. */
  lumo_test_policy_allow (f, TEST_CALLER_ID);
  g_assert_false (granted (f, TEST_CALLER_ID, TOOL));

  /* Undoing the allow, then the deny, is the state before the deny. */
  undo (f);
  g_assert_cmpint (write_tool (f, TEST_CALLER_ID, TOOL).reason, ==, LUMO_DENY_REASON_NOT_AUTHORIZED);
  undo (f);
  g_assert_true (granted (f, TEST_CALLER_ID, TOOL));
  g_assert_true (granted (f, TEST_CALLER_ID, OTHER_TOOL));
  g_assert_cmpuint (n_grants (f), ==, 3);
}

static void
test_forget_and_remove_clear (LumoTestPolicy *f,
                              gconstpointer   data)
{
  g_autoptr(GError) error = NULL;

  set_up_allowed (f);
  add_grant (f, TEST_CALLER_ID, TOOL, LUMO_GRANT_SCOPE_ALWAYS);

  g_assert_true (lumo_policy_forget_caller (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID,
                                            LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (n_grants (f), ==, 0);
  undo (f);
  g_assert_true (granted (f, TEST_CALLER_ID, TOOL));

  g_assert_true (lumo_policy_remove_provider (f->policy, TEST_PROVIDER_ID, LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (n_grants (f), ==, 0);
  undo (f);
  g_assert_true (granted (f, TEST_CALLER_ID, TOOL));
}

static void
test_agent_removed_clears (LumoTestPolicy *f,
                           gconstpointer   data)
{
  const char *providers[] = { TEST_PROVIDER_ID, NULL };
  g_autofree char *agent = NULL;
  g_autofree char *token = NULL;
  g_autoptr(GError) error = NULL;

  lumo_test_policy_register (f);
  g_assert_true (lumo_policy_add_agent (f->policy, "Claude Code", providers, LUMO_POLICY_ORIGIN_UI,
                                        &agent, &token, &error));
  g_assert_no_error (error);

  /* A desktop agent is a caller like any other: its grant works alike. */
  add_grant (f, agent, TOOL, LUMO_GRANT_SCOPE_ALWAYS);
  g_assert_true (granted (f, agent, TOOL));

  g_ptr_array_set_size (f->events, 0);
  g_assert_true (lumo_policy_remove_agent (f->policy, agent, LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (n_grants (f), ==, 0);
  g_assert_cmpint (write_tool (f, agent, TOOL).reason, ==, LUMO_DENY_REASON_NOT_AUTHORIZED);
  {
    g_autofree char *name = g_strdup_printf ("%s/%s", agent, TOOL);

    g_assert_cmpuint (lumo_test_policy_count_events (f, "grant-changed", name), ==, 1);
  }

  undo (f);
  g_assert_true (granted (f, agent, TOOL));
}

/* Turning the provider off is the kill switch: it wins, and the grants
 * are still there when it is turned on again (docs/policy.md). */
static void
test_switches_win (LumoTestPolicy *f,
                   gconstpointer   data)
{
  LumoPolicyDecision decision;

  set_up_allowed (f);
  add_grant (f, TEST_CALLER_ID, TOOL, LUMO_GRANT_SCOPE_ALWAYS);

  lumo_test_policy_set_switch (f, LUMO_POLICY_SWITCH_WRITES, FALSE);
  g_assert_cmpint (write_tool (f, TEST_CALLER_ID, TOOL).reason, ==, LUMO_DENY_REASON_WRITES_OFF);
  lumo_test_policy_set_switch (f, LUMO_POLICY_SWITCH_WRITES, TRUE);

  lumo_test_policy_set_switch (f, LUMO_POLICY_SWITCH_ENABLED, FALSE);
  g_assert_cmpint (write_tool (f, TEST_CALLER_ID, TOOL).reason, ==, LUMO_DENY_REASON_DISABLED);
  g_assert_cmpuint (n_grants (f), ==, 1);
  lumo_test_policy_set_switch (f, LUMO_POLICY_SWITCH_ENABLED, TRUE);
  g_assert_true (granted (f, TEST_CALLER_ID, TOOL));

  /* Without review nothing is asked, and no grant let it through. */
  lumo_test_policy_set_switch (f, LUMO_POLICY_SWITCH_REVIEW, FALSE);
  decision = write_tool (f, TEST_CALLER_ID, TOOL);
  g_assert_true (decision.allowed);
  g_assert_false (decision.by_grant);
}

static void
test_limit_still_counts (LumoTestPolicy *f,
                         gconstpointer   data)
{
  LumoPolicyDecision decision;

  set_up_allowed (f);
  add_grant (f, TEST_CALLER_ID, TOOL, LUMO_GRANT_SCOPE_ALWAYS);

  for (guint i = 0; i < LUMO_RATE_LIMIT_WRITES; i++)
    g_assert_true (granted (f, TEST_CALLER_ID, TOOL));

  decision = write_tool (f, TEST_CALLER_ID, TOOL);
  g_assert_cmpint (decision.reason, ==, LUMO_DENY_REASON_RATE_LIMITED);
  g_assert_false (decision.by_grant);
  g_assert_cmpint (decision.retry_after_us, >, 0);

  /* The window slides on the monotonic clock, the grant on the wall. */
  f->now += LUMO_RATE_LIMIT_WINDOW_US;
  g_assert_true (granted (f, TEST_CALLER_ID, TOOL));
}

/* A wall clock set back before the grant was made does not stretch it. */
static void
test_clock_set_back (LumoTestPolicy *f,
                     gconstpointer   data)
{
  gint64 made = f->wall;

  set_up_allowed (f);
  add_grant (f, TEST_CALLER_ID, TOOL, LUMO_GRANT_SCOPE_TEN_MINUTES);
  f->wall = made - G_TIME_SPAN_HOUR;
  g_assert_false (granted (f, TEST_CALLER_ID, TOOL));
  f->wall = made;
  g_assert_true (granted (f, TEST_CALLER_ID, TOOL));
}

/* ---- bad input, other processes, the file ---------------------------------- */

static void
test_bad_input (LumoTestPolicy *f,
                gconstpointer   data)
{
  static const char * const bad_tools[] = {
    "", "save", "userscripts.", ".save", "Userscripts.save", "userscripts.save.more",
    "userscripts.sa ve", "browser.save", "userscripts.save\n",
    "userscripts.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", /* a name of 41 */
    "abcdefghijklmnopq.save",  /* a namespace of 17 */
  };
  guint before;

  set_up_allowed (f);
  lumo_policy_probe (f->policy, TEST_PROVIDER_ID, TEST_CALLER3_ID, NULL,
                     &(LumoPolicyStatus) { 0 }, NULL);
  before = history_length (f);

  for (guint i = 0; lumo_test_bad_ids[i] != NULL; i++)
    {
      g_autoptr(GError) e1 = NULL;
      g_autoptr(GError) e2 = NULL;
      g_autoptr(GError) e3 = NULL;

      g_assert_false (lumo_policy_add_grant (f->policy, lumo_test_bad_ids[i], TEST_CALLER_ID, TOOL,
                                             LUMO_GRANT_SCOPE_ALWAYS, LUMO_POLICY_ORIGIN_UI, &e1));
      g_assert_error (e1, LUMO_ERROR, LUMO_ERROR_INVALID_ID);
      g_assert_false (lumo_policy_add_grant (f->policy, TEST_PROVIDER_ID, lumo_test_bad_ids[i], TOOL,
                                             LUMO_GRANT_SCOPE_ALWAYS, LUMO_POLICY_ORIGIN_UI, &e2));
      g_assert_error (e2, LUMO_ERROR, LUMO_ERROR_INVALID_ID);
      g_assert_false (lumo_policy_revoke_grant (f->policy, TEST_PROVIDER_ID, lumo_test_bad_ids[i], TOOL,
                                                LUMO_POLICY_ORIGIN_UI, &e3));
      g_assert_error (e3, LUMO_ERROR, LUMO_ERROR_INVALID_ID);
    }

  for (guint i = 0; i < G_N_ELEMENTS (bad_tools); i++)
    {
      g_autoptr(GError) e1 = NULL;
      g_autoptr(GError) e2 = NULL;

      g_assert_false (lumo_policy_add_grant (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, bad_tools[i],
                                             LUMO_GRANT_SCOPE_ALWAYS, LUMO_POLICY_ORIGIN_UI, &e1));
      g_assert_error (e1, LUMO_ERROR, LUMO_ERROR_INVALID_NAME);
      g_assert_false (lumo_policy_revoke_grant (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, bad_tools[i],
                                                LUMO_POLICY_ORIGIN_UI, &e2));
      g_assert_error (e2, LUMO_ERROR, LUMO_ERROR_INVALID_NAME);
    }

  /* Only an allowed caller of a known provider gets a grant. */
  {
    g_autoptr(GError) pending = NULL;
    g_autoptr(GError) unknown = NULL;
    g_autoptr(GError) no_provider = NULL;
    g_autoptr(GError) denied = NULL;

    g_assert_false (lumo_policy_add_grant (f->policy, TEST_PROVIDER_ID, TEST_CALLER3_ID, TOOL,
                                           LUMO_GRANT_SCOPE_ALWAYS, LUMO_POLICY_ORIGIN_UI, &pending));
    g_assert_error (pending, LUMO_ERROR, LUMO_ERROR_NOT_AUTHORIZED);
    g_assert_false (lumo_policy_add_grant (f->policy, TEST_PROVIDER_ID, TEST_UNKNOWN_ID, TOOL,
                                           LUMO_GRANT_SCOPE_ALWAYS, LUMO_POLICY_ORIGIN_UI, &unknown));
    g_assert_error (unknown, LUMO_ERROR, LUMO_ERROR_NOT_FOUND);
    g_assert_false (lumo_policy_add_grant (f->policy, TEST_PROVIDER2_ID, TEST_CALLER_ID, TOOL,
                                           LUMO_GRANT_SCOPE_ALWAYS, LUMO_POLICY_ORIGIN_UI, &no_provider));
    g_assert_error (no_provider, LUMO_ERROR, LUMO_ERROR_NOT_FOUND);

    g_assert_true (lumo_policy_deny_caller (f->policy, TEST_PROVIDER_ID, TEST_CALLER2_ID,
                                            LUMO_POLICY_ORIGIN_UI, NULL));
    before = history_length (f);
    g_assert_false (lumo_policy_add_grant (f->policy, TEST_PROVIDER_ID, TEST_CALLER2_ID, TOOL,
                                           LUMO_GRANT_SCOPE_TEN_MINUTES, LUMO_POLICY_ORIGIN_UI, &denied));
    g_assert_error (denied, LUMO_ERROR, LUMO_ERROR_NOT_AUTHORIZED);
  }

  /* Nothing of it was recorded. */
  g_assert_cmpuint (history_length (f), ==, before);
  g_assert_cmpuint (n_grants (f), ==, 0);
}

/* lumo-access-ctl's revoke counts at the app's very next decision, and
 * its grant list sees the app's grant. */
static void
test_other_process (LumoTestPolicy *f,
                    gconstpointer   data)
{
  g_autoptr(LumoPolicy) other = NULL;
  g_autoptr(GPtrArray) seen = NULL;
  g_autoptr(GError) error = NULL;

  set_up_allowed (f);
  other = lumo_policy_new (f->path, &error);
  g_assert_no_error (error);

  add_grant (f, TEST_CALLER_ID, TOOL, LUMO_GRANT_SCOPE_ALWAYS);
  seen = lumo_policy_list_grants (other, TEST_PROVIDER_ID, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (seen->len, ==, 1);

  g_ptr_array_set_size (f->events, 0);
  g_assert_true (lumo_policy_revoke_grant (other, TEST_PROVIDER_ID, TEST_CALLER_ID, TOOL,
                                           LUMO_POLICY_ORIGIN_CLI, &error));
  g_assert_no_error (error);
  g_assert_false (granted (f, TEST_CALLER_ID, TOOL));
  g_assert_cmpuint (lumo_test_policy_count_events (f, "grant-changed", TEST_CALLER_ID "/" TOOL), ==, 1);
}

/* The schema holds the rule too, for any writer of the file: no grant to
 * a caller that is not allowed, none left when it stops being allowed. */
static void
test_schema_holds_the_rule (LumoTestPolicy *f,
                            gconstpointer   data)
{
  sqlite3 *db = NULL;
  char *message = NULL;
  sqlite3_int64 n;
  sqlite3_stmt *stmt = NULL;

  set_up_allowed (f);
  lumo_policy_deny_caller (f->policy, TEST_PROVIDER_ID, TEST_CALLER2_ID, LUMO_POLICY_ORIGIN_UI, NULL);
  add_grant (f, TEST_CALLER_ID, TOOL, LUMO_GRANT_SCOPE_ALWAYS);

  g_assert_cmpint (sqlite3_open (f->path, &db), ==, SQLITE_OK);
  sqlite3_exec (db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL);

  g_assert_cmpint (sqlite3_exec (db,
                                 "INSERT INTO grants (provider_id, caller_id, tool, created) VALUES ('"
                                 TEST_PROVIDER_ID "', '" TEST_CALLER2_ID "', '" TOOL "', 1)",
                                 NULL, NULL, &message), ==, SQLITE_CONSTRAINT);
  g_assert_nonnull (strstr (message, "allowed caller"));
  sqlite3_free (message);

  g_assert_cmpint (sqlite3_exec (db,
                                 "UPDATE callers SET state = 'denied' WHERE id = '" TEST_CALLER_ID "'",
                                 NULL, NULL, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_prepare_v2 (db, "SELECT count (*) FROM grants", -1, &stmt, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_ROW);
  n = sqlite3_column_int64 (stmt, 0);
  g_assert_cmpint (n, ==, 0);
  sqlite3_finalize (stmt);
  sqlite3_close (db);

  /* The app sees it at its next decision. */
  g_assert_cmpint (write_tool (f, TEST_CALLER_ID, TOOL).reason, ==, LUMO_DENY_REASON_NOT_AUTHORIZED);
}

static void
test_scope_strings (void)
{
  LumoGrantScope scope;

  g_assert_cmpstr (lumo_grant_scope_to_string (LUMO_GRANT_SCOPE_ONCE), ==, "once");
  g_assert_cmpstr (lumo_grant_scope_to_string (LUMO_GRANT_SCOPE_TEN_MINUTES), ==, "10m");
  g_assert_cmpstr (lumo_grant_scope_to_string (LUMO_GRANT_SCOPE_ALWAYS), ==, "always");
  g_assert_true (lumo_grant_scope_from_string ("10m", &scope));
  g_assert_cmpint (scope, ==, LUMO_GRANT_SCOPE_TEN_MINUTES);
  g_assert_true (lumo_grant_scope_from_string ("always", &scope));
  g_assert_cmpint (scope, ==, LUMO_GRANT_SCOPE_ALWAYS);
  g_assert_false (lumo_grant_scope_from_string ("10", &scope));
  g_assert_false (lumo_grant_scope_from_string ("Always", &scope));
  g_assert_false (lumo_grant_scope_from_string (NULL, &scope));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  lumo_test_policy_add ("/policy/grants/once-is-no-grant", test_once_is_no_grant);
  lumo_test_policy_add ("/policy/grants/ten-minutes", test_ten_minutes);
  lumo_test_policy_add ("/policy/grants/ten-minutes-again", test_ten_minutes_again_restarts);
  lumo_test_policy_add ("/policy/grants/always", test_always);
  lumo_test_policy_add ("/policy/grants/replace-and-undo", test_replace_and_undo);
  lumo_test_policy_add ("/policy/grants/revoke-and-undo", test_revoke_and_undo);
  lumo_test_policy_add ("/policy/grants/deny-clears", test_deny_clears_and_undo_restores);
  lumo_test_policy_add ("/policy/grants/forget-and-remove-clear", test_forget_and_remove_clear);
  lumo_test_policy_add ("/policy/grants/agent-removed-clears", test_agent_removed_clears);
  lumo_test_policy_add ("/policy/grants/switches-win", test_switches_win);
  lumo_test_policy_add ("/policy/grants/limit-still-counts", test_limit_still_counts);
  lumo_test_policy_add ("/policy/grants/clock-set-back", test_clock_set_back);
  lumo_test_policy_add ("/policy/grants/bad-input", test_bad_input);
  lumo_test_policy_add ("/policy/grants/other-process", test_other_process);
  lumo_test_policy_add ("/policy/grants/schema", test_schema_holds_the_rule);
  g_test_add_func ("/policy/grants/scope-strings", test_scope_strings);

  return g_test_run ();
}
