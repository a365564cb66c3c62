/* test-policy.c — the policy store: decisions, changes, history, undo, and
 * changes made by another process
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-policy"

#include "config.h"

#include <glib/gstdio.h>
#include <sqlite3.h>

#include "lumo-error.h"
#include "lumo-paths.h"
#include "lumo-policy.h"
#include "lumo-protocol.h"
#include "lumo-rate-limiter.h"
#include "lumo-test-policy.h"

static guint
history_length (LumoPolicy *policy)
{
  g_autoptr(GPtrArray) history = lumo_policy_list_history (policy, 0, NULL);

  g_assert_nonnull (history);
  return history->len;
}

static guint
slots_used (LumoTestPolicy *f,
            const char     *caller)
{
  g_autofree char *key = lumo_caller_key_new (TEST_PROVIDER_ID, caller);
  guint used = 0;

  lumo_rate_limiter_usage (lumo_policy_get_rate_limiter (f->policy), key, &used, NULL, NULL);

  return used;
}

static gboolean
provider_exists (LumoTestPolicy *f,
                 const char     *provider)
{
  g_autoptr(LumoProviderInfo) info = lumo_policy_get_provider (f->policy, provider, NULL);

  return info != NULL;
}

static gboolean
caller_exists (LumoTestPolicy *f,
               const char     *caller)
{
  g_autoptr(LumoCallerInfo) info = lumo_policy_get_caller (f->policy, TEST_PROVIDER_ID, caller,
                                                           NULL);

  return info != NULL;
}

/* ---- defaults and probes ------------------------------------------------- */

static void
test_defaults (LumoTestPolicy *f,
               gconstpointer   data)
{
  g_autoptr(LumoProviderInfo) info = NULL;
  g_autoptr(GPtrArray) history = NULL;
  g_autoptr(GError) error = NULL;
  LumoHistoryEntry *entry;

  lumo_test_policy_register (f);
  g_assert_cmpuint (lumo_test_policy_count_events (f, "provider-changed", NULL), ==, 1);
  g_assert_cmpuint (lumo_test_policy_count_events (f, "history-changed", NULL), ==, 1);

  info = lumo_policy_get_provider (f->policy, TEST_PROVIDER_ID, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (info->namespace_, ==, "userscripts");
  g_assert_cmpstr (info->display_name, ==, "Lumo Userscripts");
  g_assert_cmpstr (info->version, ==, "1.0.1");
  /* Secure but usable: on, writes on, every write reviewed. */
  g_assert_true (info->enabled);
  g_assert_true (info->writes);
  g_assert_true (info->review);
  g_assert_false (info->watched);
  g_assert_cmpint (info->first_seen, >, 0);

  history = lumo_policy_list_history (f->policy, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (history->len, ==, 1);
  entry = g_ptr_array_index (history, 0);
  g_assert_cmpint (entry->origin, ==, LUMO_POLICY_ORIGIN_BRIDGE);
  g_assert_cmpstr (entry->field, ==, "provider");
  g_assert_null (entry->old_value);
  g_assert_cmpstr (entry->new_value, ==, "registered");

  /* A second hello updates the description, never the switches. */
  lumo_test_policy_set_switch (f, LUMO_POLICY_SWITCH_REVIEW, FALSE);
  lumo_policy_register_provider (f->policy, TEST_PROVIDER_ID, "userscripts", "Lumo Userscripts",
                                 "1.0.2", &error);
  g_assert_no_error (error);
  g_clear_pointer (&info, lumo_provider_info_free);
  info = lumo_policy_get_provider (f->policy, TEST_PROVIDER_ID, &error);
  g_assert_cmpstr (info->version, ==, "1.0.2");
  g_assert_false (info->review);
  g_assert_cmpuint (history_length (f->policy), ==, 2);
}

static void
test_unknown_caller_pending (LumoTestPolicy *f,
                             gconstpointer   data)
{
  g_autoptr(LumoCallerInfo) caller = NULL;
  g_autoptr(GPtrArray) pending = NULL;
  g_autoptr(GError) error = NULL;
  LumoPolicyStatus status;

  lumo_test_policy_register (f);
  g_ptr_array_set_size (f->events, 0);

  /* A display name is shown, never trusted: control characters go. */
  g_assert_true (lumo_policy_probe (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, "Lumo\n\tAgent",
                                    &status, &error));
  g_assert_no_error (error);
  g_assert_true (status.enabled);
  g_assert_false (status.authorized);
  g_assert_true (status.ready);
  g_assert_true (status.pending_approval);
  g_assert_cmpuint (lumo_test_policy_count_events (f, "caller-pending", TEST_CALLER_ID), ==, 1);
  g_assert_cmpuint (lumo_test_policy_count_events (f, "caller-changed", TEST_CALLER_ID), ==, 1);

  caller = lumo_policy_get_caller (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, &error);
  g_assert_no_error (error);
  g_assert_cmpint (caller->state, ==, LUMO_CALLER_STATE_PENDING);
  g_assert_cmpstr (caller->display_name, ==, "Lumo Agent");
  g_assert_cmpuint (caller->probe_count, ==, 1);

  /* A second probe counts, but is not a new request. */
  g_assert_true (lumo_policy_probe (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, NULL, &status,
                                    &error));
  g_assert_true (status.pending_approval);
  g_assert_cmpuint (lumo_test_policy_count_events (f, "caller-pending", TEST_CALLER_ID), ==, 1);
  g_clear_pointer (&caller, lumo_caller_info_free);
  caller = lumo_policy_get_caller (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, &error);
  g_assert_cmpuint (caller->probe_count, ==, 2);
  g_assert_cmpstr (caller->display_name, ==, "Lumo Agent");

  pending = lumo_policy_list_callers (f->policy, TEST_PROVIDER_ID, LUMO_CALLER_STATE_PENDING,
                                      &error);
  g_assert_no_error (error);
  g_assert_cmpuint (pending->len, ==, 1);

  /* A pending caller may not call tools. */
  g_assert_cmpint (lumo_test_policy_read (f, TEST_CALLER_ID), ==, LUMO_DENY_REASON_PENDING);
}

/* An extension ID made of @n: 32 letters a–p. */
static void
fill_id (char   id[LUMO_EXTENSION_ID_LEN + 1],
         guint  n)
{
  for (guint i = 0; i < LUMO_EXTENSION_ID_LEN; i++)
    id[i] = 'a' + ((n >> ((i % 8) * 4)) & 0xf);
  id[LUMO_EXTENSION_ID_LEN] = '\0';
}

/* A flood of fresh extension IDs: past the bound a new caller is refused,
 * and nothing of it is recorded, announced or counted. */
static void
test_pending_flood (LumoTestPolicy *f,
                    gconstpointer   data)
{
  g_autoptr(GPtrArray) callers = NULL;
  g_autoptr(GError) error = NULL;
  char id[LUMO_EXTENSION_ID_LEN + 1];
  LumoPolicyStatus status;
  guint n_pending = 0;

  lumo_test_policy_register (f);
  g_ptr_array_set_size (f->events, 0);

  for (guint i = 0; i < LUMO_POLICY_MAX_NEW_PENDING; i++)
    {
      fill_id (id, i);
      g_assert_true (lumo_policy_probe (f->policy, TEST_PROVIDER_ID, id, "Agent", &status, &error));
      g_assert_no_error (error);
      g_assert_true (status.pending_approval);
      f->now += G_USEC_PER_SEC;
    }

  fill_id (id, 1000);
  g_assert_false (lumo_policy_probe (f->policy, TEST_PROVIDER_ID, id, "One too many", &status, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_LIMIT_EXCEEDED);
  g_assert_false (status.pending_approval);
  g_clear_error (&error);

  for (guint i = 0; i < f->events->len; i++)
    if (g_str_has_prefix (g_ptr_array_index (f->events, i), "caller-pending:"))
      n_pending++;
  g_assert_cmpuint (n_pending, ==, LUMO_POLICY_MAX_NEW_PENDING);
  callers = lumo_policy_list_callers (f->policy, TEST_PROVIDER_ID, LUMO_CALLER_STATE_ANY, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (callers->len, ==, LUMO_POLICY_MAX_NEW_PENDING);

  /* A caller it knows already is still answered. */
  fill_id (id, 0);
  g_assert_true (lumo_policy_probe (f->policy, TEST_PROVIDER_ID, id, NULL, &status, &error));
  g_assert_true (status.pending_approval);

  /* The window slides: a minute after the first, one more may ask. */
  f->now += LUMO_POLICY_NEW_PENDING_WINDOW_US - LUMO_POLICY_MAX_NEW_PENDING * G_USEC_PER_SEC;
  fill_id (id, 1000);
  g_assert_true (lumo_policy_probe (f->policy, TEST_PROVIDER_ID, id, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_true (status.pending_approval);
  fill_id (id, 1001);
  g_assert_false (lumo_policy_probe (f->policy, TEST_PROVIDER_ID, id, NULL, &status, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_LIMIT_EXCEEDED);
}

static void
test_probe_unknown_provider (LumoTestPolicy *f,
                             gconstpointer   data)
{
  g_autoptr(GPtrArray) callers = NULL;
  g_autoptr(GError) error = NULL;
  LumoPolicyStatus status;

  g_assert_true (lumo_policy_probe (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, "Lumo", &status,
                                    &error));
  g_assert_no_error (error);
  g_assert_false (status.enabled);
  g_assert_false (status.authorized);
  g_assert_false (status.ready);
  g_assert_false (status.pending_approval);

  callers = lumo_policy_list_callers (f->policy, NULL, LUMO_CALLER_STATE_ANY, &error);
  g_assert_cmpuint (callers->len, ==, 0);
  g_assert_cmpuint (history_length (f->policy), ==, 0);
  g_assert_cmpuint (f->events->len, ==, 0);
}

static void
test_approve_deny_forget (LumoTestPolicy *f,
                          gconstpointer   data)
{
  g_autoptr(GError) error = NULL;
  LumoPolicyStatus status;

  lumo_test_policy_register (f);
  lumo_policy_probe (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, "Lumo", &status, &error);
  g_assert_no_error (error);

  /* approve → the next probe is authorized */
  lumo_test_policy_allow (f, TEST_CALLER_ID);
  g_assert_true (lumo_policy_probe (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, "Lumo", &status,
                                    &error));
  g_assert_true (status.enabled);
  g_assert_true (status.authorized);
  g_assert_false (status.pending_approval);
  g_assert_cmpint (lumo_test_policy_read (f, TEST_CALLER_ID), ==, LUMO_DENY_REASON_NONE);

  /* deny → not authorized, not pending, and the bridge is told */
  g_ptr_array_set_size (f->events, 0);
  g_assert_true (lumo_policy_deny_caller (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID,
                                          LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_cmpuint (lumo_test_policy_count_events (f, "revoked", TEST_CALLER_ID), ==, 1);
  g_assert_true (lumo_policy_probe (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, "Lumo", &status,
                                    &error));
  g_assert_false (status.authorized);
  g_assert_false (status.pending_approval);
  g_assert_cmpint (lumo_test_policy_read (f, TEST_CALLER_ID), ==, LUMO_DENY_REASON_NOT_AUTHORIZED);

  /* forget → gone; the next probe asks again */
  g_assert_true (lumo_policy_forget_caller (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID,
                                            LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_null (lumo_policy_get_caller (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND);
  g_clear_error (&error);
  g_assert_false (lumo_policy_forget_caller (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID,
                                             LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND);
  g_clear_error (&error);
  g_assert_true (lumo_policy_probe (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, "Lumo", &status,
                                    &error));
  g_assert_true (status.pending_approval);

  /* Forgetting an allowed caller revokes it too. */
  lumo_test_policy_allow (f, TEST_CALLER_ID);
  g_ptr_array_set_size (f->events, 0);
  g_assert_true (lumo_policy_forget_caller (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID,
                                            LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_cmpuint (lumo_test_policy_count_events (f, "revoked", TEST_CALLER_ID), ==, 1);

  /* A person may block or pre-approve an ID that never probed. */
  g_assert_true (lumo_policy_deny_caller (f->policy, TEST_PROVIDER_ID, TEST_CALLER2_ID,
                                          LUMO_POLICY_ORIGIN_CLI, &error));
  g_assert_cmpint (lumo_test_policy_read (f, TEST_CALLER2_ID), ==, LUMO_DENY_REASON_NOT_AUTHORIZED);

  /* Add by ID: allowed, and adding twice says so. */
  g_assert_true (lumo_policy_add_caller (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, "Desk agent",
                                         LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_no_error (error);
  g_assert_cmpint (lumo_test_policy_read (f, TEST_CALLER_ID), ==, LUMO_DENY_REASON_NONE);
  g_assert_false (lumo_policy_add_caller (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, NULL,
                                          LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_DUPLICATE);
  g_clear_error (&error);

  /* Callers of an unknown provider cannot be changed. */
  g_assert_false (lumo_policy_allow_caller (f->policy, TEST_PROVIDER2_ID, TEST_CALLER_ID,
                                            LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND);
}

/* ---- the decision table -------------------------------------------------- */

static void
test_decision_order (LumoTestPolicy *f,
                     gconstpointer   data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(LumoCallerInfo) caller = NULL;
  LumoPolicyStatus status;
  gint64 retry = -1;

  /* 1. provider unknown → disabled */
  g_assert_cmpint (lumo_test_policy_read (f, TEST_CALLER_ID), ==, LUMO_DENY_REASON_DISABLED);

  /* 1. provider disabled → disabled, even for an allowed caller */
  lumo_test_policy_register (f);
  lumo_test_policy_allow (f, TEST_CALLER_ID);
  lumo_test_policy_set_switch (f, LUMO_POLICY_SWITCH_ENABLED, FALSE);
  g_assert_cmpint (lumo_test_policy_read (f, TEST_CALLER_ID), ==, LUMO_DENY_REASON_DISABLED);
  g_assert_true (lumo_policy_probe (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, NULL, &status,
                                    &error));
  g_assert_false (status.enabled);
  lumo_test_policy_set_switch (f, LUMO_POLICY_SWITCH_ENABLED, TRUE);

  /* 2. caller pending → pending (before not_authorized) */
  lumo_policy_probe (f->policy, TEST_PROVIDER_ID, TEST_CALLER2_ID, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_cmpint (lumo_test_policy_write (f, TEST_CALLER2_ID, NULL), ==, LUMO_DENY_REASON_PENDING);

  /* 3. caller unknown or denied → not_authorized */
  g_assert_cmpint (lumo_test_policy_read (f, TEST_UNKNOWN_ID), ==, LUMO_DENY_REASON_NOT_AUTHORIZED);
  lumo_policy_deny_caller (f->policy, TEST_PROVIDER_ID, TEST_CALLER2_ID, LUMO_POLICY_ORIGIN_UI,
                           &error);
  g_assert_no_error (error);
  g_assert_cmpint (lumo_test_policy_write (f, TEST_CALLER2_ID, NULL), ==,
                   LUMO_DENY_REASON_NOT_AUTHORIZED);

  /* 4. a read of an allowed caller → allow, whatever the write switches */
  lumo_test_policy_set_switch (f, LUMO_POLICY_SWITCH_WRITES, FALSE);
  g_assert_cmpint (lumo_test_policy_read (f, TEST_CALLER_ID), ==, LUMO_DENY_REASON_NONE);

  /* 5. writes off → writes_off */
  g_assert_cmpint (lumo_test_policy_write (f, TEST_CALLER_ID, NULL), ==,
                   LUMO_DENY_REASON_WRITES_OFF);
  lumo_test_policy_set_switch (f, LUMO_POLICY_SWITCH_WRITES, TRUE);

  /* No denial so far consumed a rate-limit slot. */
  g_assert_cmpuint (slots_used (f, TEST_CALLER_ID), ==, 0);
  g_assert_cmpuint (slots_used (f, TEST_CALLER2_ID), ==, 0);

  /* 7. review on → review_required (after the rate limit, so it counts) */
  g_assert_cmpint (lumo_test_policy_write (f, TEST_CALLER_ID, &retry), ==,
                   LUMO_DENY_REASON_REVIEW_REQUIRED);
  g_assert_cmpint (retry, ==, 0);
  g_assert_cmpuint (slots_used (f, TEST_CALLER_ID), ==, 1);

  /* 8. otherwise → allow */
  lumo_test_policy_set_switch (f, LUMO_POLICY_SWITCH_REVIEW, FALSE);
  g_assert_cmpint (lumo_test_policy_write (f, TEST_CALLER_ID, NULL), ==, LUMO_DENY_REASON_NONE);
  g_assert_cmpuint (slots_used (f, TEST_CALLER_ID), ==, 2);

  caller = lumo_policy_get_caller (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, &error);
  g_assert_cmpuint (caller->write_count, ==, 2);

  /* 6. a full window → rate_limited, checked before review */
  lumo_test_policy_set_switch (f, LUMO_POLICY_SWITCH_REVIEW, TRUE);
  for (guint i = 2; i < LUMO_RATE_LIMIT_WRITES; i++)
    g_assert_cmpint (lumo_test_policy_write (f, TEST_CALLER_ID, NULL), ==,
                     LUMO_DENY_REASON_REVIEW_REQUIRED);
  g_assert_cmpint (lumo_test_policy_write (f, TEST_CALLER_ID, &retry), ==,
                   LUMO_DENY_REASON_RATE_LIMITED);
  g_assert_cmpint (retry, ==, LUMO_RATE_LIMIT_WINDOW_US);
  /* Reads are never rate-limited. */
  g_assert_cmpint (lumo_test_policy_read (f, TEST_CALLER_ID), ==, LUMO_DENY_REASON_NONE);
}

static void
test_rate_limit_clock (LumoTestPolicy *f,
                       gconstpointer   data)
{
  gint64 retry = 0;

  lumo_test_policy_register (f);
  lumo_test_policy_allow (f, TEST_CALLER_ID);
  lumo_test_policy_allow (f, TEST_CALLER2_ID);
  lumo_test_policy_set_switch (f, LUMO_POLICY_SWITCH_REVIEW, FALSE);

  for (guint i = 0; i < LUMO_RATE_LIMIT_WRITES; i++)
    {
      g_assert_cmpint (lumo_test_policy_write (f, TEST_CALLER_ID, NULL), ==, LUMO_DENY_REASON_NONE);
      f->now += G_USEC_PER_SEC;
    }

  /* 30 s after the first write the window is full for 30 s more. */
  g_assert_cmpint (lumo_test_policy_write (f, TEST_CALLER_ID, &retry), ==,
                   LUMO_DENY_REASON_RATE_LIMITED);
  g_assert_cmpint (retry, ==, 30 * G_USEC_PER_SEC);
  /* The window is per caller. */
  g_assert_cmpint (lumo_test_policy_write (f, TEST_CALLER2_ID, NULL), ==, LUMO_DENY_REASON_NONE);

  /* A clock that steps back must not reopen the window. */
  f->now -= (gint64) 3600 * G_USEC_PER_SEC;
  g_assert_cmpint (lumo_test_policy_write (f, TEST_CALLER_ID, NULL), ==,
                   LUMO_DENY_REASON_RATE_LIMITED);

  /* When the oldest write leaves the window, one slot opens. */
  f->now = 1000 * G_USEC_PER_SEC + LUMO_RATE_LIMIT_WINDOW_US;
  g_assert_cmpint (lumo_test_policy_write (f, TEST_CALLER_ID, NULL), ==, LUMO_DENY_REASON_NONE);
  g_assert_cmpint (lumo_test_policy_write (f, TEST_CALLER_ID, &retry), ==,
                   LUMO_DENY_REASON_RATE_LIMITED);
  g_assert_cmpint (retry, ==, G_USEC_PER_SEC);

  /* A denied write never takes a slot: writes off leaves the meter alone. */
  f->now += 10 * LUMO_RATE_LIMIT_WINDOW_US;
  lumo_test_policy_set_switch (f, LUMO_POLICY_SWITCH_WRITES, FALSE);
  for (guint i = 0; i < 100; i++)
    g_assert_cmpint (lumo_test_policy_write (f, TEST_CALLER_ID, NULL), ==,
                     LUMO_DENY_REASON_WRITES_OFF);
  g_assert_cmpuint (slots_used (f, TEST_CALLER_ID), ==, 0);
}

/* ---- switches, history, undo --------------------------------------------- */

static void
test_switches_and_history (LumoTestPolicy *f,
                           gconstpointer   data)
{
  g_autoptr(GPtrArray) history = NULL;
  g_autoptr(GError) error = NULL;
  LumoHistoryEntry *entry;

  lumo_test_policy_register (f);
  lumo_test_policy_allow (f, TEST_CALLER_ID);
  g_ptr_array_set_size (f->events, 0);

  lumo_test_policy_set_switch (f, LUMO_POLICY_SWITCH_WRITES, FALSE);
  g_assert_cmpuint (lumo_test_policy_count_events (f, "provider-changed", NULL), ==, 1);
  g_assert_cmpuint (lumo_test_policy_count_events (f, "history-changed", NULL), ==, 1);
  g_assert_cmpuint (lumo_test_policy_count_events (f, "revoked", TEST_CALLER_ID), ==, 0);

  /* The same value again is not a change. */
  lumo_test_policy_set_switch (f, LUMO_POLICY_SWITCH_WRITES, FALSE);
  g_assert_cmpuint (lumo_test_policy_count_events (f, "history-changed", NULL), ==, 1);

  /* Turning the provider off revokes its allowed callers. */
  lumo_test_policy_set_switch (f, LUMO_POLICY_SWITCH_ENABLED, FALSE);
  g_assert_cmpuint (lumo_test_policy_count_events (f, "revoked", TEST_CALLER_ID), ==, 1);

  g_assert_false (lumo_policy_set_switch (f->policy, TEST_PROVIDER2_ID, LUMO_POLICY_SWITCH_REVIEW,
                                          FALSE, LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND);
  g_clear_error (&error);

  history = lumo_policy_list_history (f->policy, 0, &error);
  g_assert_no_error (error);
  /* registered (bridge), allowed (ui), writes off (cli), enabled off (cli) */
  g_assert_cmpuint (history->len, ==, 4);
  entry = g_ptr_array_index (history, 0);
  g_assert_cmpstr (entry->field, ==, "enabled");
  g_assert_cmpstr (entry->old_value, ==, "on");
  g_assert_cmpstr (entry->new_value, ==, "off");
  g_assert_cmpint (entry->origin, ==, LUMO_POLICY_ORIGIN_CLI);
  g_assert_cmpstr (entry->provider_id, ==, TEST_PROVIDER_ID);
  g_assert_null (entry->caller_id);
  entry = g_ptr_array_index (history, 2);
  g_assert_cmpstr (entry->field, ==, "caller");
  g_assert_cmpstr (entry->caller_id, ==, TEST_CALLER_ID);
  g_assert_null (entry->old_value);
  g_assert_cmpstr (entry->new_value, ==, "allowed");
  g_assert_cmpint (entry->origin, ==, LUMO_POLICY_ORIGIN_UI);
  entry = g_ptr_array_index (history, 3);
  g_assert_cmpint (entry->origin, ==, LUMO_POLICY_ORIGIN_BRIDGE);
  g_assert_cmpint (((LumoHistoryEntry *) g_ptr_array_index (history, 0))->id, >, entry->id);

  g_clear_pointer (&history, g_ptr_array_unref);
  history = lumo_policy_list_history (f->policy, 2, &error);
  g_assert_cmpuint (history->len, ==, 2);
}

static void
test_undo (LumoTestPolicy *f,
           gconstpointer   data)
{
  g_autoptr(LumoHistoryEntry) undone = NULL;
  g_autoptr(LumoProviderInfo) info = NULL;
  g_autoptr(LumoCallerInfo) caller = NULL;
  g_autoptr(GPtrArray) history = NULL;
  g_autoptr(GError) error = NULL;
  LumoPolicyStatus status;
  LumoHistoryEntry *entry;

  lumo_test_policy_register (f);
  lumo_policy_probe (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, "Lumo", &status, &error);
  lumo_test_policy_allow (f, TEST_CALLER_ID);                         /* ui: pending → allowed */
  lumo_test_policy_set_switch (f, LUMO_POLICY_SWITCH_WRITES, FALSE);  /* cli: writes on → off */
  g_assert_true (lumo_policy_deny_caller (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID,
                                          LUMO_POLICY_ORIGIN_UI, &error));
  /* A new pending caller arrives after the person's last change. */
  lumo_policy_probe (f->policy, TEST_PROVIDER_ID, TEST_CALLER2_ID, "Other", &status, &error);
  g_assert_no_error (error);

  /* The newest human change goes first; the bridge's pending caller stays. */
  g_ptr_array_set_size (f->events, 0);
  g_assert_true (lumo_policy_undo_last (f->policy, LUMO_POLICY_ORIGIN_CLI, &undone, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (undone->field, ==, "caller");
  g_assert_cmpstr (undone->new_value, ==, "denied");
  caller = lumo_policy_get_caller (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, &error);
  g_assert_cmpint (caller->state, ==, LUMO_CALLER_STATE_ALLOWED);
  g_assert_true (caller_exists (f, TEST_CALLER2_ID));
  g_assert_cmpuint (lumo_test_policy_count_events (f, "caller-changed", TEST_CALLER_ID), ==, 1);
  g_assert_cmpuint (lumo_test_policy_count_events (f, "history-changed", NULL), ==, 1);

  /* The undo is a history entry of its own origin that points back. */
  history = lumo_policy_list_history (f->policy, 1, &error);
  entry = g_ptr_array_index (history, 0);
  g_assert_cmpint (entry->origin, ==, LUMO_POLICY_ORIGIN_CLI);
  g_assert_cmpint (entry->undoes, ==, undone->id);
  g_assert_cmpstr (entry->old_value, ==, "denied");
  g_assert_cmpstr (entry->new_value, ==, "allowed");
  g_assert_cmpint (undone->undone_by, ==, entry->id);

  /* Repeated undos walk back: writes on again, then the caller pending. */
  g_clear_pointer (&undone, lumo_history_entry_free);
  g_assert_true (lumo_policy_undo_last (f->policy, LUMO_POLICY_ORIGIN_UI, &undone, &error));
  g_assert_cmpstr (undone->field, ==, "writes");
  info = lumo_policy_get_provider (f->policy, TEST_PROVIDER_ID, &error);
  g_assert_true (info->writes);

  g_assert_true (lumo_policy_undo_last (f->policy, LUMO_POLICY_ORIGIN_UI, NULL, &error));
  g_clear_pointer (&caller, lumo_caller_info_free);
  caller = lumo_policy_get_caller (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, &error);
  g_assert_cmpint (caller->state, ==, LUMO_CALLER_STATE_PENDING);

  /* Only bridge entries and undos are left: nothing to undo. */
  g_assert_false (lumo_policy_undo_last (f->policy, LUMO_POLICY_ORIGIN_UI, NULL, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND);
  g_clear_error (&error);
  g_assert_true (provider_exists (f, TEST_PROVIDER_ID));
}

static void
test_undo_removals (LumoTestPolicy *f,
                    gconstpointer   data)
{
  g_autoptr(LumoProviderInfo) info = NULL;
  g_autoptr(LumoCallerInfo) caller = NULL;
  g_autoptr(GError) error = NULL;
  LumoPolicyStatus status;

  lumo_test_policy_register (f);
  for (guint i = 0; i < 3; i++)
    lumo_policy_probe (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, "Lumo", &status, &error);
  lumo_test_policy_allow (f, TEST_CALLER_ID);
  lumo_test_policy_set_switch (f, LUMO_POLICY_SWITCH_REVIEW, FALSE);

  /* Forget, then undo: state, name and counters come back. */
  g_assert_true (lumo_policy_forget_caller (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID,
                                            LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_true (lumo_policy_undo_last (f->policy, LUMO_POLICY_ORIGIN_UI, NULL, &error));
  g_assert_no_error (error);
  caller = lumo_policy_get_caller (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, &error);
  g_assert_no_error (error);
  g_assert_cmpint (caller->state, ==, LUMO_CALLER_STATE_ALLOWED);
  g_assert_cmpstr (caller->display_name, ==, "Lumo");
  g_assert_cmpuint (caller->probe_count, ==, 3);

  /* Remove the provider with its callers, then undo. */
  g_ptr_array_set_size (f->events, 0);
  g_assert_true (lumo_policy_remove_provider (f->policy, TEST_PROVIDER_ID, LUMO_POLICY_ORIGIN_CLI,
                                              &error));
  g_assert_cmpuint (lumo_test_policy_count_events (f, "revoked", TEST_CALLER_ID), ==, 1);
  g_assert_cmpuint (lumo_test_policy_count_events (f, "provider-changed", NULL), ==, 1);
  g_assert_false (provider_exists (f, TEST_PROVIDER_ID));
  g_assert_cmpint (lumo_test_policy_read (f, TEST_CALLER_ID), ==, LUMO_DENY_REASON_DISABLED);

  g_assert_true (lumo_policy_undo_last (f->policy, LUMO_POLICY_ORIGIN_CLI, NULL, &error));
  g_assert_no_error (error);
  info = lumo_policy_get_provider (f->policy, TEST_PROVIDER_ID, &error);
  g_assert_no_error (error);
  g_assert_false (info->review);
  g_assert_cmpstr (info->namespace_, ==, "userscripts");
  g_clear_pointer (&caller, lumo_caller_info_free);
  caller = lumo_policy_get_caller (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, &error);
  g_assert_cmpint (caller->state, ==, LUMO_CALLER_STATE_ALLOWED);
  g_assert_cmpint (lumo_test_policy_read (f, TEST_CALLER_ID), ==, LUMO_DENY_REASON_NONE);

  /* A provider watched by hand: duplicate refused, undo removes it. */
  g_assert_true (lumo_policy_add_provider (f->policy, TEST_PROVIDER2_ID, LUMO_POLICY_ORIGIN_UI,
                                           &error));
  g_clear_pointer (&info, lumo_provider_info_free);
  info = lumo_policy_get_provider (f->policy, TEST_PROVIDER2_ID, &error);
  g_assert_true (info->watched);
  g_assert_true (info->enabled && info->writes && info->review);
  g_assert_cmpint (info->first_seen, ==, 0);
  g_assert_false (lumo_policy_add_provider (f->policy, TEST_PROVIDER2_ID, LUMO_POLICY_ORIGIN_UI,
                                            &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_DUPLICATE);
  g_clear_error (&error);
  g_assert_true (lumo_policy_undo_last (f->policy, LUMO_POLICY_ORIGIN_UI, NULL, &error));
  g_assert_false (provider_exists (f, TEST_PROVIDER2_ID));
  g_assert_false (lumo_policy_remove_provider (f->policy, TEST_PROVIDER2_ID, LUMO_POLICY_ORIGIN_UI,
                                               &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND);
}

/* The app's first-run set-up ends with the first hello, and stays over:
 * for a provider removed since, and for the next process on the file. */
static void
test_seen_provider (LumoTestPolicy *f,
                    gconstpointer   data)
{
  g_autoptr(LumoPolicy) reopened = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_false (lumo_policy_has_seen_provider (f->policy, &error));
  g_assert_no_error (error);

  /* Watched by hand, never connected: not yet. */
  g_assert_true (lumo_policy_add_provider (f->policy, TEST_PROVIDER2_ID, LUMO_POLICY_ORIGIN_UI,
                                           &error));
  g_assert_false (lumo_policy_has_seen_provider (f->policy, &error));
  g_assert_no_error (error);

  /* The watched one says hello, then a person removes it: it connected. */
  g_assert_true (lumo_policy_register_provider (f->policy, TEST_PROVIDER2_ID, "other", "Other",
                                                "1", &error));
  g_assert_true (lumo_policy_has_seen_provider (f->policy, &error));
  g_assert_true (lumo_policy_remove_provider (f->policy, TEST_PROVIDER2_ID, LUMO_POLICY_ORIGIN_UI,
                                              &error));
  g_assert_true (lumo_policy_has_seen_provider (f->policy, &error));
  g_assert_no_error (error);

  /* Another process, on the same file, after a new provider came and went. */
  lumo_test_policy_register (f);
  g_assert_true (lumo_policy_remove_provider (f->policy, TEST_PROVIDER_ID, LUMO_POLICY_ORIGIN_CLI,
                                              &error));
  reopened = lumo_policy_new (f->path, &error);
  g_assert_no_error (error);
  g_assert_true (lumo_policy_has_seen_provider (reopened, &error));
  g_assert_no_error (error);
}

/* Only a hello counts: a store with watched providers and callers added by
 * hand (the CLI preparing a machine) is still before its first run. */
static void
test_seen_provider_hand_made (LumoTestPolicy *f,
                              gconstpointer   data)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (lumo_policy_add_provider (f->policy, TEST_PROVIDER_ID, LUMO_POLICY_ORIGIN_CLI,
                                           &error));
  g_assert_true (lumo_policy_add_caller (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, "Lumo",
                                         LUMO_POLICY_ORIGIN_CLI, &error));
  g_assert_true (lumo_policy_remove_provider (f->policy, TEST_PROVIDER_ID, LUMO_POLICY_ORIGIN_CLI,
                                              &error));
  g_assert_true (lumo_policy_undo_last (f->policy, LUMO_POLICY_ORIGIN_CLI, NULL, &error));
  g_assert_no_error (error);
  g_assert_false (lumo_policy_has_seen_provider (f->policy, &error));
  g_assert_no_error (error);
}

/* ---- bad input ----------------------------------------------------------- */

static void
assert_invalid_id (gboolean  ok,
                   GError  **error)
{
  g_assert_false (ok);
  g_assert_error (*error, LUMO_ERROR, LUMO_ERROR_INVALID_ID);
  g_clear_error (error);
}

static void
test_bad_ids (LumoTestPolicy *f,
              gconstpointer   data)
{
  g_autoptr(GPtrArray) callers = NULL;
  g_autoptr(GPtrArray) providers = NULL;
  g_autoptr(GError) error = NULL;
  LumoPolicyDecision decision;
  LumoPolicyStatus status;
  guint history_before;

  lumo_test_policy_register (f);
  lumo_test_policy_allow (f, TEST_CALLER_ID);
  history_before = history_length (f->policy);
  g_ptr_array_set_size (f->events, 0);

  for (guint i = 0; lumo_test_bad_ids[i] != NULL; i++)
    {
      const char *bad = lumo_test_bad_ids[i];

      assert_invalid_id (lumo_policy_probe (f->policy, TEST_PROVIDER_ID, bad, "x", &status, &error),
                         &error);
      g_assert_false (status.authorized || status.enabled || status.pending_approval);
      assert_invalid_id (lumo_policy_probe (f->policy, bad, TEST_CALLER_ID, "x", &status, &error),
                         &error);
      assert_invalid_id (lumo_policy_authorize (f->policy, TEST_PROVIDER_ID, bad, "t", FALSE, NULL, NULL,
                                                &decision, &error), &error);
      g_assert_false (decision.allowed);
      assert_invalid_id (lumo_policy_authorize (f->policy, bad, TEST_CALLER_ID, "t", FALSE, NULL, NULL,
                                                &decision, &error), &error);
      g_assert_false (decision.allowed);
      assert_invalid_id (lumo_policy_register_provider (f->policy, bad, "ns", "n", "1", &error), &error);
      assert_invalid_id (lumo_policy_add_provider (f->policy, bad, LUMO_POLICY_ORIGIN_CLI, &error), &error);
      assert_invalid_id (lumo_policy_remove_provider (f->policy, bad, LUMO_POLICY_ORIGIN_CLI, &error), &error);
      assert_invalid_id (lumo_policy_set_switch (f->policy, bad, LUMO_POLICY_SWITCH_ENABLED, FALSE,
                                                 LUMO_POLICY_ORIGIN_CLI, &error), &error);
      assert_invalid_id (lumo_policy_allow_caller (f->policy, TEST_PROVIDER_ID, bad,
                                                   LUMO_POLICY_ORIGIN_CLI, &error), &error);
      assert_invalid_id (lumo_policy_deny_caller (f->policy, bad, TEST_CALLER_ID,
                                                  LUMO_POLICY_ORIGIN_CLI, &error), &error);
      assert_invalid_id (lumo_policy_deny_caller (f->policy, TEST_PROVIDER_ID, bad,
                                                  LUMO_POLICY_ORIGIN_CLI, &error), &error);
      assert_invalid_id (lumo_policy_add_caller (f->policy, TEST_PROVIDER_ID, bad, "x",
                                                 LUMO_POLICY_ORIGIN_UI, &error), &error);
      assert_invalid_id (lumo_policy_forget_caller (f->policy, TEST_PROVIDER_ID, bad,
                                                    LUMO_POLICY_ORIGIN_CLI, &error), &error);
      assert_invalid_id (lumo_policy_get_caller (f->policy, TEST_PROVIDER_ID, bad, &error) != NULL,
                         &error);
      assert_invalid_id (lumo_policy_list_callers (f->policy, bad, LUMO_CALLER_STATE_ANY, &error) != NULL, &error);
    }

  /* A NULL ID is bad input too, not a crash. */
  assert_invalid_id (lumo_policy_allow_caller (f->policy, TEST_PROVIDER_ID, NULL,
                                               LUMO_POLICY_ORIGIN_CLI, &error), &error);
  g_assert_false (lumo_policy_authorize (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, "", FALSE,
                                         NULL, NULL, &decision, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  /* Nothing changed. */
  g_assert_cmpuint (history_length (f->policy), ==, history_before);
  g_assert_cmpuint (f->events->len, ==, 0);
  providers = lumo_policy_list_providers (f->policy, &error);
  g_assert_cmpuint (providers->len, ==, 1);
  callers = lumo_policy_list_callers (f->policy, NULL, LUMO_CALLER_STATE_ANY, &error);
  g_assert_cmpuint (callers->len, ==, 1);
}

static void
test_failed_change_changes_nothing (LumoTestPolicy *f,
                                    gconstpointer   data)
{
  g_autoptr(LumoProviderInfo) info = NULL;
  g_autoptr(GError) error = NULL;
  sqlite3 *db = NULL;

  lumo_test_policy_register (f);
  lumo_test_policy_allow (f, TEST_CALLER_ID);
  g_ptr_array_set_size (f->events, 0);

  /* Make the history write fail, after the switch's UPDATE ran. */
  g_assert_cmpint (sqlite3_open (f->path, &db), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (db,
                                 "CREATE TRIGGER fail_history BEFORE INSERT ON history "
                                 "BEGIN SELECT RAISE (ABORT, 'injected failure'); END",
                                 NULL, NULL, NULL), ==, SQLITE_OK);

  g_assert_false (lumo_policy_set_switch (f->policy, TEST_PROVIDER_ID, LUMO_POLICY_SWITCH_ENABLED, FALSE,
                                          LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_DB);
  g_clear_error (&error);
  g_assert_false (lumo_policy_forget_caller (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID,
                                             LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_DB);
  g_clear_error (&error);

  info = lumo_policy_get_provider (f->policy, TEST_PROVIDER_ID, &error);
  g_assert_true (info->enabled);
  g_assert_cmpint (lumo_test_policy_read (f, TEST_CALLER_ID), ==, LUMO_DENY_REASON_NONE);
  g_assert_cmpuint (f->events->len, ==, 0);

  g_assert_cmpint (sqlite3_exec (db, "DROP TRIGGER fail_history", NULL, NULL, NULL), ==, SQLITE_OK);
  sqlite3_close (db);
}

/* ---- another process ----------------------------------------------------- */

static void
test_other_process (LumoTestPolicy *f,
                    gconstpointer   data)
{
  g_autoptr(LumoPolicy) other = NULL;
  g_autoptr(GError) error = NULL;

  lumo_test_policy_register (f);
  lumo_test_policy_allow (f, TEST_CALLER_ID);
  g_ptr_array_set_size (f->events, 0);

  other = lumo_policy_new (f->path, &error);
  g_assert_no_error (error);

  /* The CLI denies the caller: the app's very next decision knows. */
  g_assert_true (lumo_policy_deny_caller (other, TEST_PROVIDER_ID, TEST_CALLER_ID,
                                          LUMO_POLICY_ORIGIN_CLI, &error));
  g_assert_cmpint (lumo_test_policy_read (f, TEST_CALLER_ID), ==, LUMO_DENY_REASON_NOT_AUTHORIZED);

  /* … and a refresh turns it into the same signals a local change gives. */
  g_assert_true (lumo_policy_refresh (f->policy, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (lumo_test_policy_count_events (f, "caller-changed", TEST_CALLER_ID), ==, 1);
  g_assert_cmpuint (lumo_test_policy_count_events (f, "revoked", TEST_CALLER_ID), ==, 1);
  g_assert_cmpuint (lumo_test_policy_count_events (f, "history-changed", NULL), ==, 1);

  /* Nothing new: a second refresh is silent. */
  g_ptr_array_set_size (f->events, 0);
  g_assert_true (lumo_policy_refresh (f->policy, &error));
  g_assert_cmpuint (f->events->len, ==, 0);

  /* Without a refresh, the file monitor brings the change in. */
  g_assert_true (lumo_policy_set_switch (other, TEST_PROVIDER_ID, LUMO_POLICY_SWITCH_WRITES, FALSE,
                                         LUMO_POLICY_ORIGIN_CLI, &error));
  lumo_test_policy_wait_for_event (f, "provider-changed", NULL);
  g_assert_cmpint (lumo_test_policy_read (f, TEST_CALLER_ID), ==, LUMO_DENY_REASON_NOT_AUTHORIZED);

  g_assert_true (lumo_policy_probe (other, TEST_PROVIDER_ID, TEST_CALLER2_ID, "New agent",
                                    &(LumoPolicyStatus) { 0 }, &error));
  lumo_test_policy_wait_for_event (f, "caller-pending", TEST_CALLER2_ID);

  /* The undo by the other instance is seen the same way. */
  g_assert_true (lumo_policy_undo_last (other, LUMO_POLICY_ORIGIN_CLI, NULL, &error));
  g_ptr_array_set_size (f->events, 0);
  g_assert_true (lumo_policy_refresh (f->policy, &error));
  g_assert_cmpuint (lumo_test_policy_count_events (f, "provider-changed", NULL), ==, 1);
}

static void
test_newer_db_refused (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = lumo_test_dir_new ("policy");
  g_autofree char *path = g_build_filename (dir, "policy.db", NULL);
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  gsize before_len, after_len;
  LumoPolicy *policy;
  sqlite3 *db = NULL;

  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (db, "CREATE TABLE future (x); PRAGMA user_version = 99",
                                 NULL, NULL, NULL), ==, SQLITE_OK);
  sqlite3_close (db);
  g_assert_true (g_file_get_contents (path, &before, &before_len, NULL));

  policy = lumo_policy_new (path, &error);
  g_assert_null (policy);
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_DB_TOO_NEW);

  g_assert_true (g_file_get_contents (path, &after, &after_len, NULL));
  g_assert_cmpmem (before, before_len, after, after_len);

  lumo_test_dir_remove (dir);
}

static void
test_default_path (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = lumo_test_dir_new ("policy");
  g_autofree char *data_dir = g_build_filename (dir, "data", NULL);
  g_autofree char *expected = g_build_filename (data_dir, "policy.db", NULL);
  LumoPolicy *policy;

  lumo_paths_set_data_dir (data_dir);
  policy = lumo_policy_new (NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (lumo_policy_get_path (policy), ==, expected);
  g_assert_true (g_file_test (expected, G_FILE_TEST_IS_REGULAR));
  g_object_unref (policy);

  lumo_test_dir_remove (dir);
}

static void
test_strings (void)
{
  static const struct { LumoDenyReason reason; const char *wire; } reasons[] = {
    { LUMO_DENY_REASON_DISABLED, "disabled" },
    { LUMO_DENY_REASON_NOT_AUTHORIZED, "not_authorized" },
    { LUMO_DENY_REASON_PENDING, "pending" },
    { LUMO_DENY_REASON_WRITES_OFF, "writes_off" },
    { LUMO_DENY_REASON_RATE_LIMITED, "rate_limited" },
    { LUMO_DENY_REASON_REVIEW_REQUIRED, "review_required" },
    { LUMO_DENY_REASON_REVIEW_REJECTED, "review_rejected" },
    { LUMO_DENY_REASON_REVIEW_TIMEOUT, "review_timeout" },
    { LUMO_DENY_REASON_AUDIT_FAILED, "audit_failed" },
  };
  LumoCallerState state;
  LumoPolicySwitch sw;

  for (guint i = 0; i < G_N_ELEMENTS (reasons); i++)
    g_assert_cmpstr (lumo_deny_reason_to_string (reasons[i].reason), ==, reasons[i].wire);

  g_assert_true (lumo_caller_state_from_string ("denied", &state));
  g_assert_cmpint (state, ==, LUMO_CALLER_STATE_DENIED);
  g_assert_false (lumo_caller_state_from_string ("Denied", &state));
  g_assert_false (lumo_caller_state_from_string (NULL, &state));
  g_assert_true (lumo_policy_switch_from_string ("review", &sw));
  g_assert_cmpint (sw, ==, LUMO_POLICY_SWITCH_REVIEW);
  g_assert_false (lumo_policy_switch_from_string ("writes ", &sw));
  g_assert_cmpstr (lumo_policy_origin_to_string (LUMO_POLICY_ORIGIN_IMPORT), ==, "import");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  lumo_test_policy_add ("/policy/defaults", test_defaults);
  lumo_test_policy_add ("/policy/probe/unknown-caller-pending", test_unknown_caller_pending);
  lumo_test_policy_add ("/policy/probe/unknown-provider", test_probe_unknown_provider);
  lumo_test_policy_add ("/policy/probe/pending-flood", test_pending_flood);
  lumo_test_policy_add ("/policy/callers/approve-deny-forget", test_approve_deny_forget);
  lumo_test_policy_add ("/policy/decision/order", test_decision_order);
  lumo_test_policy_add ("/policy/decision/rate-limit-clock", test_rate_limit_clock);
  lumo_test_policy_add ("/policy/switches-and-history", test_switches_and_history);
  lumo_test_policy_add ("/policy/undo/walk-back", test_undo);
  lumo_test_policy_add ("/policy/undo/removals", test_undo_removals);
  lumo_test_policy_add ("/policy/seen-provider", test_seen_provider);
  lumo_test_policy_add ("/policy/seen-provider/hand-made", test_seen_provider_hand_made);
  lumo_test_policy_add ("/policy/bad-ids", test_bad_ids);
  lumo_test_policy_add ("/policy/failed-change-changes-nothing", test_failed_change_changes_nothing);
  lumo_test_policy_add ("/policy/other-process", test_other_process);
  g_test_add_func ("/policy/newer-db-refused", test_newer_db_refused);
  g_test_add_func ("/policy/default-path", test_default_path);
  g_test_add_func ("/policy/strings", test_strings);

  return g_test_run ();
}
