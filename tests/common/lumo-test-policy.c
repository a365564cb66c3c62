/* lumo-test-policy.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-test-policy"

#include "config.h"

#include "lumo-paths.h"
#include "lumo-rate-limiter.h"
#include "lumo-test-policy.h"

static void
on_provider_changed_cb (LumoPolicy     *policy,
                        const char     *provider_id,
                        LumoTestPolicy *f)
{
  g_ptr_array_add (f->events, g_strdup_printf ("provider-changed:%s", provider_id));
}

static void
on_caller_changed_cb (LumoPolicy     *policy,
                      const char     *provider_id,
                      const char     *caller_id,
                      LumoTestPolicy *f)
{
  g_ptr_array_add (f->events, g_strdup_printf ("caller-changed:%s/%s", provider_id, caller_id));
}

static void
on_caller_pending_cb (LumoPolicy     *policy,
                      const char     *provider_id,
                      const char     *caller_id,
                      LumoTestPolicy *f)
{
  g_ptr_array_add (f->events, g_strdup_printf ("caller-pending:%s/%s", provider_id, caller_id));
}

static void
on_revoked_cb (LumoPolicy     *policy,
               const char     *provider_id,
               const char     *caller_id,
               LumoTestPolicy *f)
{
  g_ptr_array_add (f->events, g_strdup_printf ("revoked:%s/%s", provider_id, caller_id));
}

static void
on_history_changed_cb (LumoPolicy     *policy,
                       LumoTestPolicy *f)
{
  g_ptr_array_add (f->events, g_strdup ("history-changed"));
}

static void
on_agent_changed_cb (LumoPolicy     *policy,
                     const char     *agent_id,
                     LumoTestPolicy *f)
{
  g_ptr_array_add (f->events, g_strdup_printf ("agent-changed:%s", agent_id));
}

static void
on_grant_changed_cb (LumoPolicy     *policy,
                     const char     *provider_id,
                     const char     *caller_id,
                     const char     *tool,
                     LumoTestPolicy *f)
{
  g_ptr_array_add (f->events, g_strdup_printf ("grant-changed:%s/%s/%s", provider_id, caller_id, tool));
}

static gint64
test_clock (gpointer user_data)
{
  return ((LumoTestPolicy *) user_data)->now;
}

static gint64
test_wall_clock (gpointer user_data)
{
  return ((LumoTestPolicy *) user_data)->wall;
}

void
lumo_test_policy_set_up (LumoTestPolicy *f,
                         gconstpointer   data)
{
  g_autoptr(GError) error = NULL;

  f->dir = lumo_test_dir_new ("policy");
  f->path = g_build_filename (f->dir, "policy.db", NULL);
  lumo_paths_set_data_dir (f->dir);

  f->policy = lumo_policy_new (f->path, &error);
  g_assert_no_error (error);
  g_assert_nonnull (f->policy);

  f->events = g_ptr_array_new_with_free_func (g_free);
  g_signal_connect (f->policy, "provider-changed", G_CALLBACK (on_provider_changed_cb), f);
  g_signal_connect (f->policy, "caller-changed", G_CALLBACK (on_caller_changed_cb), f);
  g_signal_connect (f->policy, "caller-pending", G_CALLBACK (on_caller_pending_cb), f);
  g_signal_connect (f->policy, "revoked", G_CALLBACK (on_revoked_cb), f);
  g_signal_connect (f->policy, "history-changed", G_CALLBACK (on_history_changed_cb), f);
  g_signal_connect (f->policy, "agent-changed", G_CALLBACK (on_agent_changed_cb), f);
  g_signal_connect (f->policy, "grant-changed", G_CALLBACK (on_grant_changed_cb), f);

  f->now = 1000 * G_USEC_PER_SEC;
  lumo_policy_set_clock (f->policy, test_clock, f);
  f->wall = G_GINT64_CONSTANT (1704067200) * G_USEC_PER_SEC;
  lumo_policy_set_wall_clock (f->policy, test_wall_clock, f);
}

void
lumo_test_policy_tear_down (LumoTestPolicy *f,
                            gconstpointer   data)
{
  g_clear_object (&f->policy);
  g_clear_pointer (&f->events, g_ptr_array_unref);
  lumo_test_dir_remove (f->dir);
  g_clear_pointer (&f->path, g_free);
  g_clear_pointer (&f->dir, g_free);
}

void
lumo_test_policy_add (const char         *path,
                      LumoTestPolicyFunc  func)
{
  g_test_add (path, LumoTestPolicy, NULL, lumo_test_policy_set_up, func, lumo_test_policy_tear_down);
}

static char *
event_name (const char *signal_name,
            const char *caller)
{
  if (g_str_equal (signal_name, "history-changed"))
    {
      g_assert_null (caller);
      return g_strdup (signal_name);
    }
  if (g_str_equal (signal_name, "provider-changed"))
    {
      g_assert_null (caller);
      return g_strconcat (signal_name, ":", TEST_PROVIDER_ID, NULL);
    }

  g_assert_nonnull (caller);
  return g_strconcat (signal_name, ":", TEST_PROVIDER_ID, "/", caller, NULL);
}

static guint
count_named (LumoTestPolicy *f,
             const char     *name)
{
  guint n = 0;

  for (guint i = 0; i < f->events->len; i++)
    if (g_str_equal (g_ptr_array_index (f->events, i), name))
      n++;

  return n;
}

guint
lumo_test_policy_count_events (LumoTestPolicy *f,
                               const char     *signal_name,
                               const char     *caller)
{
  g_autofree char *name = event_name (signal_name, caller);

  return count_named (f, name);
}

typedef struct
{
  LumoTestPolicy *f;
  const char     *name;
} EventWait;

static gboolean
event_arrived (gpointer data)
{
  EventWait *wait = data;

  return count_named (wait->f, wait->name) > 0;
}

void
lumo_test_policy_wait_for_event (LumoTestPolicy *f,
                                 const char     *signal_name,
                                 const char     *caller)
{
  g_autofree char *name = event_name (signal_name, caller);
  EventWait wait = { f, name };

  lumo_test_wait_until (event_arrived, &wait, name);
}

void
lumo_test_policy_register (LumoTestPolicy *f)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (lumo_policy_register_provider (f->policy, TEST_PROVIDER_ID, "userscripts",
                                                "Lumo Userscripts", "1.0.1", &error));
  g_assert_no_error (error);
}

void
lumo_test_policy_allow (LumoTestPolicy *f,
                        const char     *caller)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (lumo_policy_allow_caller (f->policy, TEST_PROVIDER_ID, caller,
                                           LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_no_error (error);
}

void
lumo_test_policy_set_switch (LumoTestPolicy   *f,
                             LumoPolicySwitch  sw,
                             gboolean          on)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (lumo_policy_set_switch (f->policy, TEST_PROVIDER_ID, sw, on,
                                         LUMO_POLICY_ORIGIN_CLI, &error));
  g_assert_no_error (error);
}

LumoDenyReason
lumo_test_policy_authorize (LumoTestPolicy *f,
                            const char     *provider,
                            const char     *caller,
                            gboolean        is_write,
                            gint64         *retry_after)
{
  g_autoptr(GError) error = NULL;
  LumoPolicyDecision decision;

  g_assert_true (lumo_policy_authorize (f->policy, provider, caller, "userscripts.save", is_write,
                                        "0f8fad5b-d9cb-469f-a165-70867728950e", NULL,
                                        &decision, &error));
  g_assert_no_error (error);
  g_assert_cmpint (decision.allowed, ==, decision.reason == LUMO_DENY_REASON_NONE);
  /* A delay belongs to a rate-limit refusal, and only to one. */
  g_assert_cmpint (decision.retry_after_us > 0, ==, decision.reason == LUMO_DENY_REASON_RATE_LIMITED);
  if (retry_after != NULL)
    *retry_after = decision.retry_after_us;

  return decision.reason;
}

LumoDenyReason
lumo_test_policy_read (LumoTestPolicy *f,
                       const char     *caller)
{
  return lumo_test_policy_authorize (f, TEST_PROVIDER_ID, caller, FALSE, NULL);
}

LumoDenyReason
lumo_test_policy_write (LumoTestPolicy *f,
                        const char     *caller,
                        gint64         *retry_after)
{
  return lumo_test_policy_authorize (f, TEST_PROVIDER_ID, caller, TRUE, retry_after);
}
