/* test-bridge-managed.c — the managed policy reaching the provider: a
 * change of policy.d while a bridge session is open, and the review
 * timeout and audit retention in force
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A real session over pipes (bridge-test-peer.c) and the backend's
 * LumoManagedSettings; the files are written into the backend's own
 * policy.d (env->managed_dir) and the app notices through its monitor.
 */
#include "config.h"

#include <string.h>

#include "lumo-audit-store.h"
#include "lumo-error.h"
#include "lumo-managed-settings.h"
#include "lumo-review-queue.h"

#include "bridge-test-peer.h"

#define HASH "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

static void
peer_hello (Peer *peer)
{
  peer_send (peer, BRIDGE_TEST_HELLO);
  peer_expect (peer, "{\"type\":\"hello.result\",\"re\":1,\"bridge\":1,"
                     "\"tools\":{\"accepted\":[\"list_scripts\",\"save_script\"],\"refused\":[]}}");
}

static char *
write_request (guint       id,
               const char *caller)
{
  return g_strdup_printf ("{\"type\":\"authorize\",\"id\":%u,\"caller\":{\"id\":\"%s\",\"name\":\"Lumo\"},"
                          "\"tool\":\"save_script\",\"write\":true,"
                          "\"target\":\"0f8fad5b-d9cb-469f-a165-70867728950e\",\"paramsHash\":\"" HASH "\","
                          "\"preview\":{\"name\":\"Dark mode\",\"bytes\":812}}",
                          id, caller);
}

static void
allow (BridgeTestEnv *env,
       const char    *caller)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (lumo_policy_allow_caller (env->policy, TEST_PROVIDER_ID, caller, LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_no_error (error);
}

static void
write_managed (BridgeTestEnv *env,
               const char    *contents)
{
  lumo_test_write_in (env->managed_dir, "50-org.json", contents);
}

static gboolean
queue_not_empty (gpointer data)
{
  return g_list_model_get_n_items (G_LIST_MODEL (data)) > 0;
}

/* An admin rewrites policy.d while the provider's session is open: the
 * session is told at once — the caller's ports are to be closed, the
 * switches are pushed — and the next call is decided under it. */
static void
test_live_change (void)
{
  BridgeTestEnv *env = bridge_test_env_new ();
  Peer *peer = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *w1 = write_request (10, TEST_CALLER_ID);
  g_autofree char *w2 = write_request (11, TEST_CALLER2_ID);
  g_autofree char *w3 = write_request (12, TEST_CALLER2_ID);

  g_assert_true (lumo_policy_add_provider (env->policy, TEST_PROVIDER_ID, LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_true (lumo_policy_set_switch (env->policy, TEST_PROVIDER_ID, LUMO_POLICY_SWITCH_REVIEW, FALSE,
                                         LUMO_POLICY_ORIGIN_UI, &error));
  allow (env, TEST_CALLER_ID);
  allow (env, TEST_CALLER2_ID);
  peer = peer_new (env, TEST_PROVIDER_ORIGIN);
  peer_hello (peer);
  peer_send (peer, "{\"type\":\"port\",\"id\":2,\"caller\":{\"id\":\"" TEST_CALLER_ID "\"},\"port\":\"p1\",\"state\":\"open\"}");
  peer_expect (peer, "{\"type\":\"port.result\",\"re\":2}");

  /* Denied by the organization: its port is revoked in one push. */
  write_managed (env, "{\"callers\": {\"deny\": [\"" TEST_CALLER_ID "\"]}}");
  peer_expect (peer, "{\"type\":\"policy\",\"enabled\":true,\"writes\":true,\"review\":false,"
                     "\"revoked\":[\"" TEST_CALLER_ID "\"]}");
  peer_authorize (peer, w1, "{\"re\":10,\"allow\":false,\"reason\":\"not_authorized\",\"auditId\":\"<any>\"}");
  peer_authorize (peer, w2, "{\"re\":11,\"allow\":true,\"auditId\":\"<any>\"}");

  /* Rewritten: writes off instead. The switch is pushed; nobody revoked. */
  write_managed (env, "{\"writes\": false}");
  peer_expect (peer, "{\"type\":\"policy\",\"enabled\":true,\"writes\":false,\"review\":false,\"revoked\":[]}");
  peer_authorize (peer, w3, "{\"re\":12,\"allow\":false,\"reason\":\"writes_off\",\"auditId\":\"<any>\"}");

  /* Broken: the strictest reading, so off altogether, and both revoked. */
  write_managed (env, "{\"writes\": false,");
  {
    g_autoptr(JsonObject) push = peer_recv (peer);
    JsonArray *revoked = json_object_get_array_member (push, "revoked");

    g_assert_cmpstr (json_object_get_string_member (push, "type"), ==, "policy");
    g_assert_false (json_object_get_boolean_member (push, "enabled"));
    g_assert_true (json_object_get_boolean_member (push, "review"));
    g_assert_cmpuint (json_array_get_length (revoked), ==, 2);
  }

  peer_free (peer);
  bridge_test_env_free (env);
}

/* A write waits for review when a file denies its caller: it is answered
 * at once, refused, and nobody can approve it any more. */
static void
test_pending_review_cancelled (void)
{
  BridgeTestEnv *env = bridge_test_env_new ();
  LumoReviewQueue *queue = lumo_backend_get_review_queue (env->backend);
  Peer *peer = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *w = write_request (20, TEST_CALLER_ID);
  gboolean answered = FALSE;
  gboolean pushed = FALSE;

  g_assert_true (lumo_policy_add_provider (env->policy, TEST_PROVIDER_ID, LUMO_POLICY_ORIGIN_UI, &error));
  allow (env, TEST_CALLER_ID);
  peer = peer_new (env, TEST_PROVIDER_ORIGIN);
  peer_hello (peer);
  peer_send (peer, w);
  lumo_test_wait_until (queue_not_empty, queue, "the write to wait for review");

  write_managed (env, "{\"callers\": {\"deny\": [\"" TEST_CALLER_ID "\"]}}");
  while (!answered || !pushed)
    {
      g_autoptr(JsonObject) m = peer_recv (peer);
      const char *type = json_object_get_string_member (m, "type");

      if (g_str_equal (type, "policy"))
        {
          JsonArray *revoked = json_object_get_array_member (m, "revoked");

          g_assert_cmpuint (json_array_get_length (revoked), ==, 1);
          g_assert_cmpstr (json_array_get_string_element (revoked, 0), ==, TEST_CALLER_ID);
          pushed = TRUE;
          continue;
        }
      g_assert_cmpstr (type, ==, "authorize.result");
      g_assert_cmpint (json_object_get_int_member (m, "re"), ==, 20);
      g_assert_false (json_object_get_boolean_member (m, "allow"));
      answered = TRUE;
    }
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (queue)), ==, 0);

  peer_free (peer);
  bridge_test_env_free (env);
}

/* ---- the review timeout ---------------------------------------------------- */

static void
test_review_timeout (void)
{
  BridgeTestEnv *env = bridge_test_env_new ();
  LumoManagedSettings *settings = lumo_backend_get_managed_settings (env->backend);
  LumoReviewQueue *queue = lumo_backend_get_review_queue (env->backend);

  g_assert_cmpuint (lumo_review_queue_get_timeout (queue), ==, LUMO_REVIEW_DEFAULT_TIMEOUT_S);
  lumo_managed_settings_set_review_timeout (settings, 600);
  g_assert_cmpuint (lumo_review_queue_get_timeout (queue), ==, 600);

  /* Bounds in force at once, and the person's value back after. */
  write_managed (env, "{\"reviewTimeoutSeconds\": {\"min\": 30, \"max\": 120}}");
  lumo_policy_reload_managed (env->policy);
  g_assert_cmpuint (lumo_review_queue_get_timeout (queue), ==, 120);
  lumo_managed_settings_set_review_timeout (settings, 10);
  g_assert_cmpuint (lumo_review_queue_get_timeout (queue), ==, 30);
  lumo_managed_settings_set_review_timeout (settings, 45);
  g_assert_cmpuint (lumo_review_queue_get_timeout (queue), ==, 45);

  write_managed (env, "{}");
  lumo_managed_settings_set_review_timeout (settings, 600);
  lumo_policy_reload_managed (env->policy);
  g_assert_cmpuint (lumo_review_queue_get_timeout (queue), ==, 600);

  bridge_test_env_free (env);
}

/* ---- the audit retention --------------------------------------------------- */

static void
import_rows (BridgeTestEnv *env,
             const guint   *days_ago,
             guint          n)
{
  g_autofree LumoAuditImportRecord *records = g_new0 (LumoAuditImportRecord, n);
  g_autoptr(GError) error = NULL;
  gint64 now = g_get_real_time ();

  for (guint i = 0; i < n; i++)
    {
      records[i].record.time_us = now - (gint64) days_ago[i] * 86400 * G_USEC_PER_SEC;
      records[i].record.provider_id = TEST_PROVIDER_ID;
      records[i].record.caller_id = TEST_CALLER_ID;
      records[i].record.tool = "userscripts.save_script";
      records[i].record.write = TRUE;
      records[i].record.params_sha256 = HASH;
      records[i].record.decision = LUMO_AUDIT_DECISION_ALLOW;
      records[i].result = LUMO_AUDIT_RESULT_OK;
    }

  g_assert_true (lumo_audit_store_import (lumo_backend_get_audit_store (env->backend), records, n, &error));
  g_assert_no_error (error);
}

static gint64
apply_retention (LumoManagedSettings *settings)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  gint64 n;

  lumo_managed_settings_apply_retention_async (settings, NULL, lumo_test_keep_result_cb, &result);
  lumo_test_wait_until (lumo_test_is_set, &result, "retention to be applied");
  n = lumo_managed_settings_apply_retention_finish (settings, result, &error);
  g_assert_no_error (error);
  return n;
}

static guint
count_rows (BridgeTestEnv *env)
{
  g_autoptr(GPtrArray) rows = NULL;
  g_autoptr(GError) error = NULL;

  rows = lumo_audit_store_fetch_page (lumo_backend_get_audit_store (env->backend), NULL, 0, 1000, NULL, &error);
  g_assert_no_error (error);
  return rows->len;
}

static void
test_retention (void)
{
  const guint days_ago[] = { 900, 500, 30, 0 };
  BridgeTestEnv *env = bridge_test_env_new ();
  LumoManagedSettings *settings = lumo_backend_get_managed_settings (env->backend);

  import_rows (env, days_ago, G_N_ELEMENTS (days_ago));

  /* The person keeps a week; the organization at least 400 days: only the
   * rows older than 400 days go. */
  lumo_managed_settings_set_audit_retention (settings, 7);
  write_managed (env, "{\"minAuditRetentionDays\": 400}");
  lumo_policy_reload_managed (env->policy);
  g_assert_cmpuint (lumo_managed_settings_get_audit_retention (settings), ==, 400);
  g_assert_cmpint (apply_retention (settings), ==, 2);
  g_assert_cmpuint (count_rows (env), ==, 2);

  /* Forever in a file: nothing goes, whatever the person says. */
  write_managed (env, "{\"minAuditRetentionDays\": 0}");
  lumo_policy_reload_managed (env->policy);
  g_assert_cmpuint (lumo_managed_settings_get_audit_retention (settings), ==, 0);
  g_assert_cmpint (apply_retention (settings), ==, 0);
  g_assert_cmpuint (count_rows (env), ==, 2);

  /* Without the file, the person's week counts. */
  write_managed (env, "{}");
  lumo_policy_reload_managed (env->policy);
  g_assert_cmpint (apply_retention (settings), ==, 1);
  g_assert_cmpuint (count_rows (env), ==, 1);

  bridge_test_env_free (env);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/bridge-managed/live-change", test_live_change);
  g_test_add_func ("/bridge-managed/pending-review-cancelled", test_pending_review_cancelled);
  g_test_add_func ("/bridge-managed/review-timeout", test_review_timeout);
  g_test_add_func ("/bridge-managed/retention", test_retention);

  return g_test_run ();
}
