/* test-policy-managed.c — LumoPolicy under the organization's policy:
 * decisions, refusals, signals, and a change of policy.d while it runs
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each test writes files into the fixture's own policy.d (f->managed_dir)
 * and reads it at once (lumo_test_policy_apply_managed()), except the
 * live ones, which wait for the policy's file monitor to notice.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "lumo-error.h"
#include "lumo-managed-policy.h"
#include "lumo-test-policy.h"

static gboolean
has_event (LumoTestPolicy *f,
           const char     *event)
{
  for (guint i = 0; i < f->events->len; i++)
    if (g_str_equal (g_ptr_array_index (f->events, i), event))
      return TRUE;

  return FALSE;
}

static LumoProviderInfo *
provider (LumoTestPolicy *f)
{
  g_autoptr(GError) error = NULL;
  LumoProviderInfo *info = lumo_policy_get_provider (f->policy, TEST_PROVIDER_ID, &error);

  g_assert_no_error (error);
  return info;
}

static LumoCallerState
state_of (LumoTestPolicy *f,
          const char     *caller)
{
  g_autoptr(LumoCallerInfo) info = lumo_policy_get_caller (f->policy, TEST_PROVIDER_ID, caller, NULL);

  return info != NULL ? info->state : LUMO_CALLER_STATE_ANY;
}

static LumoPolicyStatus
probe (LumoTestPolicy *f,
       const char     *caller)
{
  g_autoptr(GError) error = NULL;
  LumoPolicyStatus status;

  g_assert_true (lumo_policy_probe (f->policy, TEST_PROVIDER_ID, caller, "Agent", &status, &error));
  g_assert_no_error (error);
  return status;
}

static guint
history_length (LumoTestPolicy *f)
{
  g_autoptr(GPtrArray) history = lumo_policy_list_history (f->policy, 0, NULL);

  return history->len;
}

/* The refusal of a change a file binds: LUMO_ERROR_MANAGED naming the
 * file, and nothing recorded. */
static void
assert_refused (LumoTestPolicy *f,
                GError         *error,
                const char     *file_name,
                guint           history_before)
{
  g_autofree char *file = g_build_filename (f->managed_dir, file_name, NULL);

  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_MANAGED);
  g_test_message ("refused: %s", error->message);
  g_assert_nonnull (strstr (error->message, file));
  g_assert_nonnull (strstr (error->message, "organization"));
  g_assert_cmpuint (history_length (f), ==, history_before);
}

/* ---- switches --------------------------------------------------------------- */

static void
test_switch_bound (LumoTestPolicy *f,
                   gconstpointer   data)
{
  g_autoptr(LumoProviderInfo) info = NULL;
  g_autoptr(GError) error = NULL;
  guint history;

  lumo_test_policy_register (f);
  lumo_test_policy_allow (f, TEST_CALLER_ID);
  lumo_test_policy_set_switch (f, LUMO_POLICY_SWITCH_REVIEW, FALSE);
  g_assert_cmpint (lumo_test_policy_write (f, TEST_CALLER_ID, NULL), ==, LUMO_DENY_REASON_NONE);
  g_ptr_array_set_size (f->events, 0);

  lumo_test_policy_apply_managed (f, "50-writes.json", "{\n  \"writes\": false\n}\n");

  /* In force at once, with the signals a person's change would send. */
  g_assert_cmpint (lumo_test_policy_write (f, TEST_CALLER_ID, NULL), ==, LUMO_DENY_REASON_WRITES_OFF);
  g_assert_cmpint (lumo_test_policy_read (f, TEST_CALLER_ID), ==, LUMO_DENY_REASON_NONE);
  g_assert_true (has_event (f, "provider-changed:" TEST_PROVIDER_ID));
  g_assert_true (has_event (f, "managed-changed"));
  info = provider (f);
  g_assert_false (info->writes);
  g_assert_true (info->user_writes);
  g_assert_true (lumo_policy_is_switch_managed (f->policy, TEST_PROVIDER_ID, LUMO_POLICY_SWITCH_WRITES));
  g_assert_false (lumo_policy_is_switch_managed (f->policy, TEST_PROVIDER_ID, LUMO_POLICY_SWITCH_REVIEW));

  /* A person cannot change it, either way, and nothing is recorded. */
  history = history_length (f);
  g_assert_false (lumo_policy_set_switch (f->policy, TEST_PROVIDER_ID, LUMO_POLICY_SWITCH_WRITES, TRUE,
                                          LUMO_POLICY_ORIGIN_UI, &error));
  assert_refused (f, error, "50-writes.json", history);
  g_assert_nonnull (strstr (error->message, "line 2"));
  g_clear_error (&error);
  g_assert_false (lumo_policy_set_switch (f->policy, TEST_PROVIDER_ID, LUMO_POLICY_SWITCH_WRITES, FALSE,
                                          LUMO_POLICY_ORIGIN_CLI, &error));
  assert_refused (f, error, "50-writes.json", history);
  g_clear_error (&error);
  /* The switches it does not bind stay the person's. */
  lumo_test_policy_set_switch (f, LUMO_POLICY_SWITCH_REVIEW, TRUE);
  g_assert_cmpint (lumo_test_policy_authorize (f, TEST_PROVIDER_ID, TEST_CALLER_ID, TRUE, NULL),
                   ==, LUMO_DENY_REASON_WRITES_OFF);

  /* The file goes: the person's value is back, without a restart. */
  g_ptr_array_set_size (f->events, 0);
  lumo_test_policy_apply_managed (f, "50-writes.json", NULL);
  g_assert_true (has_event (f, "provider-changed:" TEST_PROVIDER_ID));
  g_clear_pointer (&info, lumo_provider_info_free);
  info = provider (f);
  g_assert_true (info->writes);
  g_assert_cmpint (lumo_test_policy_write (f, TEST_CALLER_ID, NULL), ==, LUMO_DENY_REASON_REVIEW_REQUIRED);
}

static void
test_review_and_enabled (LumoTestPolicy *f,
                         gconstpointer   data)
{
  g_autoptr(GError) error = NULL;
  LumoPolicyStatus status;

  lumo_test_policy_register (f);
  lumo_test_policy_allow (f, TEST_CALLER_ID);
  lumo_test_policy_set_switch (f, LUMO_POLICY_SWITCH_REVIEW, FALSE);

  /* review forced on: every write waits for a person. */
  lumo_test_policy_apply_managed (f, "50-review.json", "{\"review\": true}");
  g_assert_cmpint (lumo_test_policy_write (f, TEST_CALLER_ID, NULL), ==, LUMO_DENY_REASON_REVIEW_REQUIRED);
  g_assert_false (lumo_policy_set_switch (f->policy, TEST_PROVIDER_ID, LUMO_POLICY_SWITCH_REVIEW, FALSE,
                                          LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_MANAGED);
  g_clear_error (&error);

  /* enabled off for this provider: the allowed caller is revoked (its
   * ports close), the probe says off, every call is refused. */
  g_ptr_array_set_size (f->events, 0);
  lumo_test_policy_apply_managed (f, "60-off.json",
                                  "{\"providers\": {\"" TEST_PROVIDER_ID "\": {\"enabled\": false}}}");
  g_assert_true (has_event (f, "revoked:" TEST_PROVIDER_ID "/" TEST_CALLER_ID));
  status = probe (f, TEST_CALLER_ID);
  g_assert_false (status.enabled);
  g_assert_true (status.authorized);   /* the caller is still allowed, the provider is off */
  g_assert_cmpint (lumo_test_policy_read (f, TEST_CALLER_ID), ==, LUMO_DENY_REASON_DISABLED);
}

/* The stricter of the person and the files: a loose file value never
 * loosens what the person chose. */
static void
test_person_stricter (LumoTestPolicy *f,
                      gconstpointer   data)
{
  g_autoptr(LumoProviderInfo) info = NULL;

  lumo_test_policy_register (f);
  lumo_test_policy_allow (f, TEST_CALLER_ID);
  lumo_test_policy_set_switch (f, LUMO_POLICY_SWITCH_WRITES, FALSE);

  lumo_test_policy_apply_managed (f, "50-loose.json", "{\"writes\": true, \"review\": false, \"enabled\": true}");
  g_assert_cmpint (lumo_test_policy_write (f, TEST_CALLER_ID, NULL), ==, LUMO_DENY_REASON_WRITES_OFF);
  g_assert_false (lumo_policy_is_switch_managed (f->policy, TEST_PROVIDER_ID, LUMO_POLICY_SWITCH_WRITES));

  /* … and the person may still change it (the file allows both). */
  lumo_test_policy_set_switch (f, LUMO_POLICY_SWITCH_WRITES, TRUE);
  info = provider (f);
  g_assert_true (info->writes);
  g_assert_true (info->review);
  g_assert_cmpint (lumo_test_policy_write (f, TEST_CALLER_ID, NULL), ==, LUMO_DENY_REASON_REVIEW_REQUIRED);
}

/* ---- callers ------------------------------------------------------------------ */

static void
test_caller_denied (LumoTestPolicy *f,
                    gconstpointer   data)
{
  g_autoptr(GPtrArray) denied = NULL;
  g_autoptr(GPtrArray) allowed = NULL;
  g_autoptr(LumoCallerInfo) info = NULL;
  g_autoptr(GError) error = NULL;
  guint history;

  lumo_test_policy_register (f);
  lumo_test_policy_allow (f, TEST_CALLER_ID);
  lumo_test_policy_allow (f, TEST_CALLER2_ID);
  g_ptr_array_set_size (f->events, 0);

  lumo_test_policy_apply_managed (f, "50-deny.json",
                                  "{\"callers\": {\"deny\": [\"" TEST_CALLER_ID "\"]}}");
  g_assert_true (has_event (f, "revoked:" TEST_PROVIDER_ID "/" TEST_CALLER_ID));
  g_assert_false (has_event (f, "revoked:" TEST_PROVIDER_ID "/" TEST_CALLER2_ID));
  g_assert_cmpint (lumo_test_policy_read (f, TEST_CALLER_ID), ==, LUMO_DENY_REASON_NOT_AUTHORIZED);
  g_assert_cmpint (lumo_test_policy_read (f, TEST_CALLER2_ID), ==, LUMO_DENY_REASON_NONE);
  g_assert_false (probe (f, TEST_CALLER_ID).authorized);

  /* The lists are of what is in force; the person's choice is kept. */
  denied = lumo_policy_list_callers (f->policy, TEST_PROVIDER_ID, LUMO_CALLER_STATE_DENIED, NULL);
  allowed = lumo_policy_list_callers (f->policy, TEST_PROVIDER_ID, LUMO_CALLER_STATE_ALLOWED, NULL);
  g_assert_cmpuint (denied->len, ==, 1);
  g_assert_cmpstr (((LumoCallerInfo *) g_ptr_array_index (denied, 0))->id, ==, TEST_CALLER_ID);
  g_assert_cmpint (((LumoCallerInfo *) g_ptr_array_index (denied, 0))->user_state, ==, LUMO_CALLER_STATE_ALLOWED);
  g_assert_cmpuint (allowed->len, ==, 1);
  g_assert_true (lumo_policy_is_caller_managed (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID));
  g_assert_false (lumo_policy_is_caller_managed (f->policy, TEST_PROVIDER_ID, TEST_CALLER2_ID));

  /* Allow, deny, forget, add by ID: all refused, nothing recorded. */
  history = history_length (f);
  g_assert_false (lumo_policy_allow_caller (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID,
                                            LUMO_POLICY_ORIGIN_UI, &error));
  assert_refused (f, error, "50-deny.json", history);
  g_clear_error (&error);
  g_assert_false (lumo_policy_deny_caller (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID,
                                           LUMO_POLICY_ORIGIN_CLI, &error));
  assert_refused (f, error, "50-deny.json", history);
  g_clear_error (&error);
  g_assert_false (lumo_policy_forget_caller (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID,
                                             LUMO_POLICY_ORIGIN_UI, &error));
  assert_refused (f, error, "50-deny.json", history);
  g_clear_error (&error);
  info = lumo_policy_get_caller (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, &error);
  g_assert_no_error (error);
  g_assert_nonnull (info);

  /* The file goes: allowed again, as the person left it. */
  lumo_test_policy_apply_managed (f, "50-deny.json", NULL);
  g_assert_cmpint (lumo_test_policy_read (f, TEST_CALLER_ID), ==, LUMO_DENY_REASON_NONE);
}

static void
test_caller_allowed (LumoTestPolicy *f,
                     gconstpointer   data)
{
  g_autoptr(LumoCallerInfo) info = NULL;
  g_autoptr(GError) error = NULL;
  LumoPolicyStatus status;

  lumo_test_policy_register (f);
  lumo_test_policy_apply_managed (f, "50-allow.json",
                                  "{\"callers\": {\"allow\": [\"" TEST_CALLER_ID "\"]}}");
  g_ptr_array_set_size (f->events, 0);

  /* Allowed on its first probe, without a request to anyone. */
  status = probe (f, TEST_CALLER_ID);
  g_assert_true (status.authorized);
  g_assert_false (status.pending_approval);
  g_assert_false (has_event (f, "caller-pending:" TEST_PROVIDER_ID "/" TEST_CALLER_ID));
  g_assert_cmpint (lumo_test_policy_read (f, TEST_CALLER_ID), ==, LUMO_DENY_REASON_NONE);
  info = lumo_policy_get_caller (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, &error);
  g_assert_no_error (error);
  g_assert_cmpint (info->state, ==, LUMO_CALLER_STATE_ALLOWED);
  g_assert_cmpint (info->user_state, ==, LUMO_CALLER_STATE_PENDING);
  g_assert_true (lumo_policy_is_caller_managed (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID));

  /* A person's denial is stricter, so it counts. */
  g_ptr_array_set_size (f->events, 0);
  g_assert_true (lumo_policy_deny_caller (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID,
                                          LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_no_error (error);
  g_assert_true (has_event (f, "revoked:" TEST_PROVIDER_ID "/" TEST_CALLER_ID));
  g_assert_cmpint (state_of (f, TEST_CALLER_ID), ==, LUMO_CALLER_STATE_DENIED);
  g_assert_false (lumo_policy_is_caller_managed (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID));
  g_assert_true (lumo_policy_forget_caller (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID,
                                            LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_no_error (error);

  /* Its next probe is allowed again; without the file, it asks. */
  g_assert_true (probe (f, TEST_CALLER_ID).authorized);
  g_ptr_array_set_size (f->events, 0);
  lumo_test_policy_apply_managed (f, "50-allow.json", NULL);
  g_assert_cmpint (state_of (f, TEST_CALLER_ID), ==, LUMO_CALLER_STATE_PENDING);
  g_assert_true (has_event (f, "caller-pending:" TEST_PROVIDER_ID "/" TEST_CALLER_ID));
  g_assert_true (has_event (f, "revoked:" TEST_PROVIDER_ID "/" TEST_CALLER_ID));
}

static void
test_only_listed (LumoTestPolicy *f,
                  gconstpointer   data)
{
  g_autoptr(GPtrArray) pending = NULL;
  g_autoptr(GError) error = NULL;
  LumoPolicyStatus status;

  lumo_test_policy_register (f);
  lumo_test_policy_allow (f, TEST_CALLER2_ID);
  g_assert_true (probe (f, TEST_CALLER3_ID).pending_approval);
  g_ptr_array_set_size (f->events, 0);

  lumo_test_policy_apply_managed (f, "50-only.json",
                                  "{\"onlyListedCallers\": true,\n"
                                  " \"callers\": {\"allow\": [\"" TEST_CALLER_ID "\"]}}");

  /* The person's allowed caller is no longer allowed; the pending one no
   * longer asks. */
  g_assert_true (has_event (f, "revoked:" TEST_PROVIDER_ID "/" TEST_CALLER2_ID));
  g_assert_cmpint (state_of (f, TEST_CALLER2_ID), ==, LUMO_CALLER_STATE_DENIED);
  g_assert_cmpint (state_of (f, TEST_CALLER3_ID), ==, LUMO_CALLER_STATE_DENIED);
  pending = lumo_policy_list_callers (f->policy, TEST_PROVIDER_ID, LUMO_CALLER_STATE_PENDING, NULL);
  g_assert_cmpuint (pending->len, ==, 0);

  /* A stranger is denied without asking: no request, no row. */
  g_ptr_array_set_size (f->events, 0);
  status = probe (f, TEST_UNKNOWN_ID);
  g_assert_true (status.enabled);
  g_assert_false (status.authorized);
  g_assert_false (status.pending_approval);
  g_assert_cmpuint (f->events->len, ==, 0);
  g_assert_null (lumo_policy_get_caller (f->policy, TEST_PROVIDER_ID, TEST_UNKNOWN_ID, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND);
  g_clear_error (&error);
  g_assert_cmpint (lumo_test_policy_read (f, TEST_UNKNOWN_ID), ==, LUMO_DENY_REASON_NOT_AUTHORIZED);
  /* … and a person cannot let it in. */
  g_assert_false (lumo_policy_add_caller (f->policy, TEST_PROVIDER_ID, TEST_UNKNOWN_ID, NULL,
                                          LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_MANAGED);
  g_clear_error (&error);

  /* The listed one is allowed. */
  g_assert_true (probe (f, TEST_CALLER_ID).authorized);
}

static void
test_agents_forbidden (LumoTestPolicy *f,
                       gconstpointer   data)
{
  const char *providers[] = { TEST_PROVIDER_ID, NULL };
  g_autofree char *agent_id = NULL;
  g_autofree char *token = NULL;
  g_autofree char *id2 = NULL;
  g_autofree char *token2 = NULL;
  g_autoptr(GError) error = NULL;
  guint history;

  lumo_test_policy_register (f);
  lumo_test_policy_allow (f, TEST_CALLER_ID);
  g_assert_true (lumo_policy_add_agent (f->policy, "Claude Code", providers, LUMO_POLICY_ORIGIN_UI,
                                        &agent_id, &token, &error));
  g_assert_no_error (error);
  g_assert_cmpint (state_of (f, agent_id), ==, LUMO_CALLER_STATE_ALLOWED);
  g_ptr_array_set_size (f->events, 0);

  lumo_test_policy_apply_managed (f, "50-agents.json", "{\"desktopAgents\": false}");

  /* The agent's caller row is denied (the gateway ends its sessions on
   * ::revoked); the extension keeps its access. */
  {
    g_autofree char *revoked = g_strdup_printf ("revoked:%s/%s", TEST_PROVIDER_ID, agent_id);

    g_assert_true (has_event (f, revoked));
  }
  g_assert_cmpint (state_of (f, agent_id), ==, LUMO_CALLER_STATE_DENIED);
  g_assert_cmpint (state_of (f, TEST_CALLER_ID), ==, LUMO_CALLER_STATE_ALLOWED);
  g_assert_cmpint (lumo_test_policy_read (f, agent_id), ==, LUMO_DENY_REASON_NOT_AUTHORIZED);

  /* No new agent, and the old one cannot be allowed back. */
  history = history_length (f);
  g_assert_false (lumo_policy_add_agent (f->policy, "Cursor", NULL, LUMO_POLICY_ORIGIN_UI, &id2, &token2, &error));
  assert_refused (f, error, "50-agents.json", history);
  g_assert_null (id2);
  g_assert_null (token2);
  g_clear_error (&error);
  g_assert_false (lumo_policy_allow_caller (f->policy, TEST_PROVIDER_ID, agent_id, LUMO_POLICY_ORIGIN_CLI, &error));
  assert_refused (f, error, "50-agents.json", history);
  g_clear_error (&error);
  /* Removing one is stricter, so it is allowed. */
  g_assert_true (lumo_policy_remove_agent (f->policy, agent_id, LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_no_error (error);
}

/* Forbidden on one provider only: an agent may be added, but not allowed
 * there. */
static void
test_agents_forbidden_on_provider (LumoTestPolicy *f,
                                   gconstpointer   data)
{
  const char *both[] = { TEST_PROVIDER_ID, TEST_PROVIDER2_ID, NULL };
  const char *other[] = { TEST_PROVIDER2_ID, NULL };
  g_autofree char *agent_id = NULL;
  g_autofree char *token = NULL;
  g_autoptr(GError) error = NULL;

  lumo_test_policy_register (f);
  g_assert_true (lumo_policy_register_provider (f->policy, TEST_PROVIDER2_ID, "other", "Other", "1", &error));
  lumo_test_policy_apply_managed (f, "50-agents.json",
                                  "{\"providers\": {\"" TEST_PROVIDER_ID "\": {\"desktopAgents\": false}}}");

  g_assert_false (lumo_policy_add_agent (f->policy, "Claude Code", both, LUMO_POLICY_ORIGIN_UI,
                                         &agent_id, &token, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_MANAGED);
  g_clear_error (&error);
  g_assert_true (lumo_policy_add_agent (f->policy, "Claude Code", other, LUMO_POLICY_ORIGIN_UI,
                                        &agent_id, &token, &error));
  g_assert_no_error (error);
}

/* ---- review forced on, and the person's grants ---------------------------- */

/* A file that forces review asks a person for every write: a grant the
 * person made no longer skips it, and no new one can be made; it counts
 * again when the file goes. */
static void
test_review_forced_and_grants (LumoTestPolicy *f,
                               gconstpointer   data)
{
  g_autoptr(GError) error = NULL;
  guint history;

  lumo_test_policy_register (f);
  lumo_test_policy_allow (f, TEST_CALLER_ID);
  lumo_test_policy_allow (f, TEST_CALLER2_ID);
  lumo_test_policy_set_switch (f, LUMO_POLICY_SWITCH_REVIEW, TRUE);
  g_assert_true (lumo_policy_add_grant (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, "userscripts.save",
                                        LUMO_GRANT_SCOPE_ALWAYS, LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_no_error (error);
  g_assert_cmpint (lumo_test_policy_write (f, TEST_CALLER_ID, NULL), ==, LUMO_DENY_REASON_NONE);

  lumo_test_policy_apply_managed (f, "50-review.json", "{\"review\": true}");
  g_assert_cmpint (lumo_test_policy_write (f, TEST_CALLER_ID, NULL), ==, LUMO_DENY_REASON_REVIEW_REQUIRED);

  history = history_length (f);
  g_assert_false (lumo_policy_add_grant (f->policy, TEST_PROVIDER_ID, TEST_CALLER2_ID, "userscripts.save",
                                         LUMO_GRANT_SCOPE_TEN_MINUTES, LUMO_POLICY_ORIGIN_UI, &error));
  assert_refused (f, error, "50-review.json", history);
  g_clear_error (&error);

  /* The file goes: the person's grant, kept, counts again. */
  lumo_test_policy_apply_managed (f, "50-review.json", "{}");
  g_assert_cmpint (lumo_test_policy_write (f, TEST_CALLER_ID, NULL), ==, LUMO_DENY_REASON_NONE);
}

/* ---- a bad file: fail closed ---------------------------------------------- */

static void
test_broken_file (LumoTestPolicy *f,
                  gconstpointer   data)
{
  g_autoptr(LumoProviderInfo) info = NULL;
  GPtrArray *problems;

  lumo_test_policy_register (f);
  lumo_test_policy_allow (f, TEST_CALLER_ID);
  lumo_test_policy_set_switch (f, LUMO_POLICY_SWITCH_WRITES, FALSE);
  g_ptr_array_set_size (f->events, 0);

  /* It meant writes on; it does not parse. The person has writes off: they
   * stay off — and the strictest reading of the file turns off the rest. */
  lumo_test_policy_apply_managed (f, "50-broken.json", "{\n  \"writes\": true,\n  \"review\": fals\n}\n");
  problems = lumo_managed_policy_get_problems (lumo_policy_get_managed (f->policy));
  g_assert_cmpuint (problems->len, ==, 1);
  g_assert_cmpuint (((LumoManagedProblem *) g_ptr_array_index (problems, 0))->line, ==, 3);

  info = provider (f);
  g_assert_false (info->writes);
  g_assert_false (info->enabled);
  g_assert_true (info->review);
  g_assert_true (has_event (f, "revoked:" TEST_PROVIDER_ID "/" TEST_CALLER_ID));
  g_assert_cmpint (lumo_test_policy_read (f, TEST_CALLER_ID), ==, LUMO_DENY_REASON_DISABLED);
  g_assert_false (probe (f, TEST_CALLER_ID).enabled);

  /* Fixed: the person's values are back. */
  lumo_test_policy_apply_managed (f, "50-broken.json", "{\n  \"writes\": true,\n  \"review\": false\n}\n");
  g_assert_cmpuint (lumo_managed_policy_get_problems (lumo_policy_get_managed (f->policy))->len, ==, 0);
  g_assert_cmpint (lumo_test_policy_write (f, TEST_CALLER_ID, NULL), ==, LUMO_DENY_REASON_WRITES_OFF);
  g_assert_cmpint (lumo_test_policy_read (f, TEST_CALLER_ID), ==, LUMO_DENY_REASON_NONE);
}

/* A value of the wrong type: the strictest reading of that key only. */
static void
test_wrong_type (LumoTestPolicy *f,
                 gconstpointer   data)
{
  lumo_test_policy_register (f);
  lumo_test_policy_allow (f, TEST_CALLER_ID);
  lumo_test_policy_set_switch (f, LUMO_POLICY_SWITCH_REVIEW, FALSE);

  lumo_test_policy_apply_managed (f, "50-typo.json", "{\"writes\": \"true\"}");
  g_assert_cmpint (lumo_test_policy_read (f, TEST_CALLER_ID), ==, LUMO_DENY_REASON_NONE);
  g_assert_cmpint (lumo_test_policy_write (f, TEST_CALLER_ID, NULL), ==, LUMO_DENY_REASON_WRITES_OFF);
}

/* ---- a change while the app runs ------------------------------------------ */

static gboolean
writes_are (LumoTestPolicy *f,
            gboolean        on)
{
  g_autoptr(LumoProviderInfo) info = provider (f);

  return info->writes == on;
}

static gboolean
writes_off (gpointer data)
{
  return writes_are (data, FALSE);
}

static gboolean
enabled_again (gpointer data)
{
  g_autoptr(LumoProviderInfo) info = provider (data);

  return info->enabled;
}

static void
test_live_change (LumoTestPolicy *f,
                  gconstpointer   data)
{
  lumo_test_policy_register (f);
  lumo_test_policy_allow (f, TEST_CALLER_ID);

  /* policy.d does not exist yet: made later, it is seen (its parent is
   * watched, not polled). */
  g_assert_false (g_file_test (f->managed_dir, G_FILE_TEST_EXISTS));
  lumo_test_policy_write_managed (f, "50-live.json", "{\"writes\": false}");
  lumo_test_wait_until (writes_off, f, "writes off by a new file in a new policy.d");
  g_assert_true (has_event (f, "managed-changed"));
  g_assert_cmpint (lumo_test_policy_write (f, TEST_CALLER_ID, NULL), ==, LUMO_DENY_REASON_WRITES_OFF);

  /* Rewritten in place (atomically, as editors and config tools do). */
  g_ptr_array_set_size (f->events, 0);
  lumo_test_policy_write_managed (f, "50-live.json", "{\"writes\": true, \"enabled\": false}");
  lumo_test_policy_wait_for_event (f, "revoked", TEST_CALLER_ID);
  g_assert_true (writes_are (f, TRUE));
  g_assert_cmpint (lumo_test_policy_read (f, TEST_CALLER_ID), ==, LUMO_DENY_REASON_DISABLED);

  /* Removed with its directory: the person's values again. */
  lumo_test_policy_write_managed (f, "50-live.json", NULL);
  g_assert_no_errno (g_rmdir (f->managed_dir));
  lumo_test_wait_until (enabled_again, f, "the person's values after policy.d went");
  g_assert_cmpint (lumo_test_policy_read (f, TEST_CALLER_ID), ==, LUMO_DENY_REASON_NONE);

  /* And made again: still followed. */
  lumo_test_write_in (f->managed_dir, "10-again.json", "{\"writes\": false}");
  lumo_test_wait_until (writes_off, f, "writes off by policy.d made again");
}

static gboolean
writes_on (gpointer data)
{
  return writes_are (data, TRUE);
}

static gboolean
review_on (gpointer data)
{
  g_autoptr(LumoProviderInfo) info = provider (data);

  return info->review;
}

/* A file of policy.d that is a symbolic link (configuration tools keep
 * the real file elsewhere): a change of what it leads to is seen as soon
 * as one of the file itself, through every hop of the link. */
static void
test_linked_file (LumoTestPolicy *f,
                  gconstpointer   data)
{
  g_autofree char *elsewhere = g_build_filename (f->dir, "config-tool", NULL);
  g_autofree char *link = g_build_filename (f->managed_dir, "50-company.json", NULL);
  g_autofree char *current = g_build_filename (elsewhere, "current.json", NULL);
  g_autofree char *current_new = g_build_filename (elsewhere, "current.json.new", NULL);
  g_autofree char *v1 = g_build_filename (elsewhere, "v1.json", NULL);
  FILE *in_place;

  lumo_test_policy_register (f);
  lumo_test_policy_allow (f, TEST_CALLER_ID);

  /* policy.d/50-company.json → ../config-tool/current.json → v1.json */
  lumo_test_write_in (elsewhere, "v1.json", "{\"writes\": false}");
  g_assert_no_errno (symlink ("v1.json", current));
  g_assert_no_errno (g_mkdir_with_parents (f->managed_dir, 0700));
  g_assert_no_errno (symlink ("../config-tool/current.json", link));
  lumo_policy_reload_managed (f->policy);
  g_assert_true (writes_are (f, FALSE));
  g_assert_true (lumo_policy_set_switch (f->policy, TEST_PROVIDER_ID, LUMO_POLICY_SWITCH_REVIEW, FALSE,
                                         LUMO_POLICY_ORIGIN_CLI, NULL));
  g_assert_false (review_on (f));
  /* The directory's own events of the set-up are read in order: once a
   * file made after them counts, none of them is left to re-read
   * config-tool by chance below. */
  lumo_test_write_in (f->managed_dir, "10-sentinel.json", "{\"review\": true}");
  lumo_test_wait_until (review_on, f, "review forced by a file made after the links");

  /* The last hop's file replaced, as a tool writes it. */
  lumo_test_write_in (elsewhere, "v1.json", "{\"writes\": true}");
  lumo_test_wait_until (writes_on, f, "writes on by the linked file rewritten");

  /* Written in place. */
  g_assert_nonnull ((in_place = fopen (v1, "w")));
  fputs ("{\"writes\": false}", in_place);
  g_assert_no_errno (fclose (in_place));
  lumo_test_wait_until (writes_off, f, "writes off by the linked file written in place");

  /* The middle hop pointed at another file, the way such tools switch. */
  lumo_test_write_in (elsewhere, "v2.json", "{\"writes\": true}");
  g_assert_no_errno (symlink ("v2.json", current_new));
  g_assert_no_errno (g_rename (current_new, current));
  lumo_test_wait_until (writes_on, f, "writes on by the middle link retargeted");

  /* And the file it leads to now is followed, the old one no longer. */
  lumo_test_write_in (elsewhere, "v2.json", "{\"writes\": false}");
  lumo_test_wait_until (writes_off, f, "writes off by the new target rewritten");
  g_assert_cmpint (lumo_test_policy_write (f, TEST_CALLER_ID, NULL), ==, LUMO_DENY_REASON_WRITES_OFF);
}

/* Another process's LumoPolicy (lumo-access-ctl) reads the same files. */
static void
test_other_process_sees_it (LumoTestPolicy *f,
                            gconstpointer   data)
{
  g_autoptr(LumoPolicy) other = NULL;
  g_autoptr(GError) error = NULL;

  lumo_test_policy_register (f);
  lumo_test_policy_apply_managed (f, "50-review.json", "{\"review\": true}");

  other = lumo_policy_new_full (f->path, f->managed_dir, &error);
  g_assert_no_error (error);
  g_assert_false (lumo_policy_set_switch (other, TEST_PROVIDER_ID, LUMO_POLICY_SWITCH_REVIEW, FALSE,
                                          LUMO_POLICY_ORIGIN_CLI, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_MANAGED);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  lumo_test_policy_add ("/policy-managed/switch-bound", test_switch_bound);
  lumo_test_policy_add ("/policy-managed/review-and-enabled", test_review_and_enabled);
  lumo_test_policy_add ("/policy-managed/person-stricter", test_person_stricter);
  lumo_test_policy_add ("/policy-managed/caller-denied", test_caller_denied);
  lumo_test_policy_add ("/policy-managed/caller-allowed", test_caller_allowed);
  lumo_test_policy_add ("/policy-managed/only-listed", test_only_listed);
  lumo_test_policy_add ("/policy-managed/agents-forbidden", test_agents_forbidden);
  lumo_test_policy_add ("/policy-managed/agents-forbidden-on-provider", test_agents_forbidden_on_provider);
  lumo_test_policy_add ("/policy-managed/review-forced-and-grants", test_review_forced_and_grants);
  lumo_test_policy_add ("/policy-managed/broken-file", test_broken_file);
  lumo_test_policy_add ("/policy-managed/wrong-type", test_wrong_type);
  lumo_test_policy_add ("/policy-managed/live-change", test_live_change);
  lumo_test_policy_add ("/policy-managed/linked-file", test_linked_file);
  lumo_test_policy_add ("/policy-managed/other-process", test_other_process_sees_it);

  return g_test_run ();
}
