/* test-bridge-session.c — real bridge sessions over pipes
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each test plays the provider end of one or more native-messaging
 * connections: non-blocking pipes, GUnix streams on the app's side as the
 * D-Bus Attach method makes them, and a backend on temporary policy and
 * audit databases with a fake clock.
 */
#include "config.h"

#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>


#include <sqlite3.h>

#include "lumo-audit-private.h"
#include "lumo-audit-store.h"
#include "lumo-bridge-session-private.h"
#include "lumo-error.h"
#include "lumo-frame.h"
#include "lumo-review-queue.h"
#include "lumo-tool-registry.h"

#include "bridge-test-peer.h"
#include "fault-vfs.h"

#define HASH "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

#define HELLO \
  "{\"type\":\"hello\",\"id\":1,\"bridge\":1," \
  "\"service\":{\"namespace\":\"userscripts\",\"name\":\"Lumo Userscripts\",\"version\":\"1.0.1\"}," \
  "\"tools\":[{\"name\":\"list_scripts\",\"write\":false},{\"name\":\"save_script\",\"write\":true}]}"

static void
peer_hello (Peer *peer)
{
  peer_send (peer, HELLO);
  peer_expect (peer, "{\"type\":\"hello.result\",\"re\":1,\"bridge\":1,"
                     "\"tools\":{\"accepted\":[\"list_scripts\",\"save_script\"],\"refused\":[]}}");
}

static LumoBridgeSession *
only_session (BridgeTestEnv *env)
{
  GListModel *sessions = lumo_backend_get_sessions (env->backend);
  g_autoptr(LumoBridgeSession) session = NULL;

  g_assert_cmpuint (g_list_model_get_n_items (sessions), ==, 1);
  session = g_list_model_get_item (sessions, 0);
  return session;   /* the backend keeps its reference */
}

static void
setup_provider (BridgeTestEnv *env,
                gboolean       writes,
                gboolean       review)
{
  g_autoptr(GError) error = NULL;

  lumo_policy_add_provider (env->policy, TEST_PROVIDER_ID, LUMO_POLICY_ORIGIN_UI, &error);
  g_assert_no_error (error);
  lumo_policy_set_switch (env->policy, TEST_PROVIDER_ID, LUMO_POLICY_SWITCH_WRITES, writes,
                          LUMO_POLICY_ORIGIN_UI, &error);
  g_assert_no_error (error);
  lumo_policy_set_switch (env->policy, TEST_PROVIDER_ID, LUMO_POLICY_SWITCH_REVIEW, review,
                          LUMO_POLICY_ORIGIN_UI, &error);
  g_assert_no_error (error);
}

static GPtrArray *
audit_rows (BridgeTestEnv *env)
{
  g_autoptr(GError) error = NULL;
  GPtrArray *rows;

  rows = lumo_audit_store_fetch_page (lumo_backend_get_audit_store (env->backend), NULL, 0, 1000, NULL, &error);
  g_assert_no_error (error);
  return rows;
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

/* ---- tests ---------------------------------------------------------------- */

static void
test_hello_probe_allow (void)
{
  BridgeTestEnv *env = bridge_test_env_new ();
  Peer *peer = peer_new (env, TEST_PROVIDER_ORIGIN);
  g_autoptr(GError) error = NULL;
  LumoBridgeSession *session;

  peer_send (peer,
             "{\"type\":\"probe\",\"id\":\"early\",\"caller\":{\"id\":\"" TEST_CALLER_ID "\"}}");
  peer_expect (peer, "{\"type\":\"error\",\"re\":\"early\",\"code\":\"hello_required\"}");

  peer_hello (peer);
  session = only_session (env);
  g_assert_true (lumo_bridge_session_get_hello_done (session));
  g_assert_cmpstr (lumo_bridge_session_get_namespace (session), ==, "userscripts");
  g_assert_true (lumo_backend_is_provider_connected (env->backend, TEST_PROVIDER_ID));

  /* An unknown caller is pending: the person has not decided. */
  peer_send (peer,
             "{\"type\":\"probe\",\"id\":2,\"caller\":{\"id\":\"" TEST_CALLER_ID "\",\"name\":\"Lumo\"}}");
  peer_expect (peer, "{\"type\":\"probe.result\",\"re\":2,\"status\":{\"enabled\":true,\"authorized\":false,"
                     "\"ready\":true,\"pendingApproval\":true}}");

  /* The person allows it: the provider is told, and the next probe in the
   * same session is authorized. */
  lumo_policy_allow_caller (env->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, LUMO_POLICY_ORIGIN_UI,
                            &error);
  g_assert_no_error (error);
  peer_expect (peer, "{\"type\":\"policy\",\"revoked\":[]}");
  peer_send (peer, "{\"type\":\"probe\",\"id\":3,\"caller\":{\"id\":\"" TEST_CALLER_ID "\"}}");
  peer_expect (peer, "{\"type\":\"probe.result\",\"re\":3,\"status\":{\"authorized\":true,\"pendingApproval\":false}}");

  /* 33 letters is not an ID, and nothing is recorded for it. */
  peer_send (peer, "{\"type\":\"probe\",\"id\":4,\"caller\":{\"id\":\"" TEST_CALLER_ID "a\"}}");
  peer_expect (peer, "{\"type\":\"error\",\"re\":4,\"code\":\"invalid_id\",\"field\":\"caller.id\"}");
  {
    g_autoptr(GPtrArray) callers = lumo_policy_list_callers (env->policy, TEST_PROVIDER_ID,
                                                             LUMO_CALLER_STATE_ANY, &error);

    g_assert_cmpuint (callers->len, ==, 1);
  }

  peer_close_write (peer);
  lumo_test_wait_until (peer_done, peer, "the session to end");
  g_assert_no_error (peer->error);
  g_assert_cmpstr (peer->reason, ==, "closed");
  g_assert_cmpuint (lumo_backend_get_n_sessions (env->backend), ==, 0);
  g_assert_false (lumo_backend_is_provider_connected (env->backend, TEST_PROVIDER_ID));

  peer_free (peer);
  bridge_test_env_free (env);
}

static void
test_bad_origin (void)
{
  BridgeTestEnv *env = bridge_test_env_new ();
  const char *origins[] = {
    "chrome-extension://" TEST_PROVIDER_ID,          /* no slash */
    "chrome-extension://" TEST_PROVIDER_ID "/x",
    "https://" TEST_PROVIDER_ID "/",
    "chrome-extension://abcdefghijklmnopabcdefghijklmnoq/",
    "",
  };

  for (guint i = 0; i < G_N_ELEMENTS (origins); i++)
    {
      Peer *peer = peer_new (env, origins[i]);

      lumo_test_wait_until (peer_done, peer, "the session to end");
      g_assert_error (peer->error, LUMO_ERROR, LUMO_ERROR_INVALID_ID);
      g_assert_null (peer->reason);
      g_assert_cmpuint (lumo_backend_get_n_sessions (env->backend), ==, 0);
      peer_free (peer);
    }

  bridge_test_env_free (env);
}

static void
test_writes_audited (void)
{
  BridgeTestEnv *env = bridge_test_env_new ();
  Peer *peer = peer_new (env, TEST_PROVIDER_ORIGIN);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) rows = NULL;
  g_autofree char *w1 = write_request (10, TEST_CALLER_ID);
  g_autofree char *w2 = write_request (11, TEST_CALLER_ID);
  g_autofree char *w3 = write_request (12, TEST_CALLER2_ID);
  g_autofree char *result = NULL;
  gint64 allowed;
  gint64 denied;

  setup_provider (env, TRUE, FALSE);
  lumo_policy_allow_caller (env->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, LUMO_POLICY_ORIGIN_UI,
                            &error);
  g_assert_no_error (error);
  peer_hello (peer);

  allowed = peer_authorize (peer, w1, "{\"re\":10,\"allow\":true,\"auditId\":\"<any>\"}");
  result = g_strdup_printf ("{\"type\":\"result\",\"id\":20,\"auditId\":%" G_GINT64_FORMAT ",\"ok\":false,"
                            "\"error\":\"Script not found\"}", allowed);
  peer_send (peer, result);
  peer_expect (peer, "{\"type\":\"result.result\",\"re\":20}");

  /* An unknown caller's write is denied, and still recorded. */
  peer_authorize (peer, w3, "{\"re\":12,\"allow\":false,\"reason\":\"not_authorized\",\"auditId\":\"<any>\"}");

  lumo_policy_set_switch (env->policy, TEST_PROVIDER_ID, LUMO_POLICY_SWITCH_WRITES, FALSE,
                          LUMO_POLICY_ORIGIN_UI, &error);
  g_assert_no_error (error);
  peer_expect (peer, "{\"type\":\"policy\",\"enabled\":true,\"writes\":false,\"revoked\":[]}");
  denied = peer_authorize (peer, w2, "{\"re\":11,\"allow\":false,\"reason\":\"writes_off\",\"auditId\":\"<any>\"}");

  /* Reads are not writes. */
  peer_authorize (peer,
                  "{\"type\":\"authorize\",\"id\":13,\"caller\":{\"id\":\"" TEST_CALLER_ID "\"},"
                        "\"tool\":\"list_scripts\",\"write\":false}",
                  "{\"re\":13,\"allow\":true}");

  rows = audit_rows (env);
  g_assert_cmpuint (rows->len, ==, 3);
  for (guint i = 0; i < rows->len; i++)
    {
      LumoAuditRow *row = g_ptr_array_index (rows, i);

      g_assert_cmpstr (lumo_audit_row_get_provider_id (row), ==, TEST_PROVIDER_ID);
      g_assert_cmpstr (lumo_audit_row_get_tool (row), ==, "userscripts.save_script");
      g_assert_cmpstr (lumo_audit_row_get_target (row), ==, "0f8fad5b-d9cb-469f-a165-70867728950e");
      g_assert_true (lumo_audit_row_get_write (row));
      /* Keyed, never the provider's hash itself. */
      g_assert_cmpstr (lumo_audit_row_get_params_hmac (row), !=, HASH);
      if (lumo_audit_row_get_id (row) == allowed)
        {
          g_assert_cmpint (lumo_audit_row_get_decision (row), ==, LUMO_AUDIT_DECISION_ALLOW);
          g_assert_cmpint (lumo_audit_row_get_result (row), ==, LUMO_AUDIT_RESULT_ERROR);
          g_assert_cmpstr (lumo_audit_row_get_result_text (row), ==, "Script not found");
        }
      else
        {
          g_assert_cmpint (lumo_audit_row_get_decision (row), ==, LUMO_AUDIT_DECISION_DENY);
          if (lumo_audit_row_get_id (row) == denied)
            g_assert_cmpstr (lumo_audit_row_get_reason (row), ==, "writes_off");
          else
            g_assert_cmpstr (lumo_audit_row_get_reason (row), ==, "not_authorized");
        }
    }

  peer_free (peer);
  bridge_test_env_free (env);
}

/* A caller's name is display text: a newline or a bidi override in it is
 * cleaned where the message is parsed, so the name neither breaks the
 * write (the audit log refuses control characters: every write of such a
 * caller used to fail as audit_failed) nor reaches a row as sent. */
static void
test_names_are_display_text (void)
{
  BridgeTestEnv *env = bridge_test_env_new ();
  Peer *peer = peer_new (env, TEST_PROVIDER_ORIGIN);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) rows = NULL;
  g_autoptr(LumoCallerInfo) caller = NULL;
  g_autoptr(LumoProviderInfo) provider = NULL;

  setup_provider (env, TRUE, FALSE);
  peer_send (peer, "{\"type\":\"hello\",\"id\":1,\"bridge\":1,"
                   "\"service\":{\"namespace\":\"userscripts\",\"name\":\"Lumo\\nUserscripts\\u202e\","
                   "\"version\":\"1.0.1\"},"
                   "\"tools\":[{\"name\":\"save_script\",\"title\":\"Save\\u2066 it\\r\",\"write\":true}]}");
  peer_expect (peer, "{\"type\":\"hello.result\",\"re\":1}");
  provider = lumo_policy_get_provider (env->policy, TEST_PROVIDER_ID, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (provider->display_name, ==, "Lumo Userscripts");
  g_assert_cmpstr (lumo_catalogue_find (only_session (env)->catalogue,
                                        "save_script")->title, ==, "Save it");

  peer_send (peer, "{\"type\":\"probe\",\"id\":2,\"caller\":{\"id\":\"" TEST_CALLER_ID "\","
                   "\"name\":\"Evil\\nAgent\\u202e\\u0007\"}}");
  peer_expect (peer, "{\"type\":\"probe.result\",\"re\":2,\"status\":{\"pendingApproval\":true}}");
  caller = lumo_policy_get_caller (env->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (caller->display_name, ==, "Evil Agent");

  lumo_policy_allow_caller (env->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, LUMO_POLICY_ORIGIN_UI, &error);
  g_assert_no_error (error);
  peer_expect (peer, "{\"type\":\"policy\",\"revoked\":[]}");

  peer_authorize (peer,
                  "{\"type\":\"authorize\",\"id\":3,\"caller\":{\"id\":\"" TEST_CALLER_ID "\","
                  "\"name\":\"Evil\\nAgent\\u202e\\u0007\"},\"tool\":\"save_script\",\"write\":true,"
                  "\"paramsHash\":\"" HASH "\",\"preview\":{}}",
                  "{\"re\":3,\"allow\":true,\"auditId\":\"<any>\"}");
  rows = audit_rows (env);
  g_assert_cmpuint (rows->len, ==, 1);
  g_assert_cmpstr (lumo_audit_row_get_caller_name (g_ptr_array_index (rows, 0)), ==, "Evil Agent");

  peer_free (peer);
  bridge_test_env_free (env);
}

/* The bounds of one session that a provider (or agents through it) could
 * otherwise grow without end: new pending callers per minute, and open
 * ports. Over a bound the request gets a clear `busy` and nothing grows. */
static void
test_bounds (void)
{
  BridgeTestEnv *env = bridge_test_env_new ();
  Peer *peer = peer_new (env, TEST_PROVIDER_ORIGIN);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) callers = NULL;
  guint id = 100;

  setup_provider (env, TRUE, FALSE);
  peer_hello (peer);

  for (guint i = 0; i <= LUMO_POLICY_MAX_NEW_PENDING; i++)
    {
      g_autofree char *probe = NULL;
      char caller[LUMO_EXTENSION_ID_LEN + 1];

      for (guint j = 0; j < LUMO_EXTENSION_ID_LEN; j++)
        caller[j] = 'a' + ((i >> ((j % 8) * 4)) & 0xf);
      caller[LUMO_EXTENSION_ID_LEN] = '\0';
      probe = g_strdup_printf ("{\"type\":\"probe\",\"id\":%u,\"caller\":{\"id\":\"%s\"}}", ++id, caller);
      peer_send (peer, probe);
      if (i < LUMO_POLICY_MAX_NEW_PENDING)
        {
          g_autofree char *expected =
            g_strdup_printf ("{\"type\":\"probe.result\",\"re\":%u,\"status\":{\"pendingApproval\":true}}", id);

          peer_expect (peer, expected);
        }
      else
        {
          g_autofree char *expected =
            g_strdup_printf ("{\"type\":\"error\",\"re\":%u,\"code\":\"busy\",\"field\":\"caller.id\"}", id);

          peer_expect (peer, expected);
        }
    }
  callers = lumo_policy_list_callers (env->policy, TEST_PROVIDER_ID, LUMO_CALLER_STATE_ANY, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (callers->len, ==, LUMO_POLICY_MAX_NEW_PENDING);

  /* Ports: 256 open, the 257th refused; a known one may be reported
   * again, and closing one makes room. */
  for (guint i = 0; i <= LUMO_BRIDGE_MAX_PORTS; i++)
    {
      g_autofree char *port = g_strdup_printf ("{\"type\":\"port\",\"id\":%u,\"caller\":{\"id\":\"" TEST_CALLER_ID "\"},"
                                               "\"port\":\"p%u\",\"state\":\"open\"}", ++id, i);
      g_autofree char *expected = i < LUMO_BRIDGE_MAX_PORTS
        ? g_strdup_printf ("{\"type\":\"port.result\",\"re\":%u}", id)
        : g_strdup_printf ("{\"type\":\"error\",\"re\":%u,\"code\":\"busy\"}", id);

      peer_send (peer, port);
      peer_expect (peer, expected);
    }
  g_assert_cmpuint (only_session (env)->ports->len, ==, LUMO_BRIDGE_MAX_PORTS);
  peer_send (peer, "{\"type\":\"port\",\"id\":\"again\",\"caller\":{\"id\":\"" TEST_CALLER_ID "\"},"
                   "\"port\":\"p0\",\"state\":\"open\"}");
  peer_expect (peer, "{\"type\":\"port.result\",\"re\":\"again\"}");
  peer_send (peer, "{\"type\":\"port\",\"id\":\"close\",\"caller\":{\"id\":\"" TEST_CALLER_ID "\"},"
                   "\"port\":\"p0\",\"state\":\"closed\"}");
  peer_expect (peer, "{\"type\":\"port.result\",\"re\":\"close\"}");
  peer_send (peer, "{\"type\":\"port\",\"id\":\"new\",\"caller\":{\"id\":\"" TEST_CALLER_ID "\"},"
                   "\"port\":\"p-new\",\"state\":\"open\"}");
  peer_expect (peer, "{\"type\":\"port.result\",\"re\":\"new\"}");
  g_assert_cmpuint (only_session (env)->ports->len, ==, LUMO_BRIDGE_MAX_PORTS);

  peer_free (peer);
  bridge_test_env_free (env);
}

static gint64
restart_clock (gpointer user_data)
{
  return *(gint64 *) user_data;
}

static void
append_write (LumoAuditStore    *store,
              const char        *caller,
              gint64             time_us,
              LumoAuditDecision  decision)
{
  g_autoptr(GError) error = NULL;
  LumoAuditRecord record = {
    .time_us = time_us,
    .provider_id = TEST_PROVIDER_ID,
    .caller_id = caller,
    .tool = "userscripts.save_script",
    .write = TRUE,
    .params_sha256 = HASH,
    .decision = decision,
    .reason = decision == LUMO_AUDIT_DECISION_ALLOW ? NULL : "writes_off",
  };

  g_assert_cmpint (lumo_audit_store_append (store, &record, &error), >, 0);
  g_assert_no_error (error);
}

/* The write limit survives a restart: the new process rebuilds each
 * caller's window from the audit log's allowed writes of the last minute. */
static void
test_rate_window_survives_restart (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = lumo_test_dir_new ("restart");
  g_autoptr(LumoBackend) before = NULL;
  g_autoptr(LumoBackend) after = NULL;
  LumoPolicyDecision decision;
  gint64 real_now = g_get_real_time ();
  gint64 clock = G_GINT64_CONSTANT (5000) * G_USEC_PER_SEC;

  g_assert_no_error (error);
  before = lumo_backend_new_for_data_dir (dir, LUMO_AUDIT_STORE_FLAGS_NONE, &error);
  g_assert_no_error (error);
  lumo_policy_add_provider (lumo_backend_get_policy (before), TEST_PROVIDER_ID, LUMO_POLICY_ORIGIN_UI, &error);
  lumo_policy_set_switch (lumo_backend_get_policy (before), TEST_PROVIDER_ID, LUMO_POLICY_SWITCH_WRITES, TRUE,
                          LUMO_POLICY_ORIGIN_UI, &error);
  lumo_policy_set_switch (lumo_backend_get_policy (before), TEST_PROVIDER_ID, LUMO_POLICY_SWITCH_REVIEW, FALSE,
                          LUMO_POLICY_ORIGIN_UI, &error);
  lumo_policy_allow_caller (lumo_backend_get_policy (before), TEST_PROVIDER_ID, TEST_CALLER_ID, LUMO_POLICY_ORIGIN_UI, &error);
  lumo_policy_allow_caller (lumo_backend_get_policy (before), TEST_PROVIDER_ID, TEST_CALLER2_ID, LUMO_POLICY_ORIGIN_UI, &error);
  g_assert_no_error (error);

  /* 30 allowed writes in the last 50 s; older or denied ones count not. */
  append_write (lumo_backend_get_audit_store (before), TEST_CALLER_ID, real_now - (gint64) 70 * G_USEC_PER_SEC,
                LUMO_AUDIT_DECISION_ALLOW);
  for (guint i = 0; i < LUMO_RATE_LIMIT_WRITES; i++)
    append_write (lumo_backend_get_audit_store (before), TEST_CALLER_ID,
                  real_now - (gint64) (50 - i) * G_USEC_PER_SEC, LUMO_AUDIT_DECISION_ALLOW);
  append_write (lumo_backend_get_audit_store (before), TEST_CALLER2_ID, real_now - G_USEC_PER_SEC,
                LUMO_AUDIT_DECISION_DENY);
  g_object_run_dispose (G_OBJECT (before));
  g_clear_object (&before);
  lumo_test_drain ();

  /* The app starts again. */
  after = lumo_backend_new_for_data_dir (dir, LUMO_AUDIT_STORE_FLAGS_NONE, &error);
  g_assert_no_error (error);
  lumo_backend_set_clock (after, restart_clock, &clock);
  g_assert_true (lumo_backend_restore_rate_windows (after, &error));
  g_assert_no_error (error);

  g_assert_true (lumo_policy_authorize (lumo_backend_get_policy (after), TEST_PROVIDER_ID, TEST_CALLER_ID,
                                        "userscripts.save_script", TRUE, NULL, HASH, &decision, &error));
  g_assert_false (decision.allowed);
  g_assert_cmpint (decision.reason, ==, LUMO_DENY_REASON_RATE_LIMITED);
  /* The oldest of the 30 was ~50 s ago: about 10 s until a slot frees. */
  g_assert_cmpint (decision.retry_after_us, >, 5 * G_USEC_PER_SEC);
  g_assert_cmpint (decision.retry_after_us, <=, 10 * G_USEC_PER_SEC);

  /* The other caller had no allowed write: its window is empty. */
  g_assert_true (lumo_policy_authorize (lumo_backend_get_policy (after), TEST_PROVIDER_ID, TEST_CALLER2_ID,
                                        "userscripts.save_script", TRUE, NULL, HASH, &decision, &error));
  g_assert_true (decision.allowed);

  /* And the window still slides: once the oldest expired, one more. */
  clock += 11 * G_USEC_PER_SEC;
  g_assert_true (lumo_policy_authorize (lumo_backend_get_policy (after), TEST_PROVIDER_ID, TEST_CALLER_ID,
                                        "userscripts.save_script", TRUE, NULL, HASH, &decision, &error));
  g_assert_true (decision.allowed);

  g_object_run_dispose (G_OBJECT (after));
  g_clear_object (&after);
  lumo_test_drain ();
  lumo_test_dir_remove (dir);
}

/* A backend whose audit store sits on the fault VFS. */
static BridgeTestEnv *
env_on_fault_vfs (void)
{
  BridgeTestEnv *env = g_new0 (BridgeTestEnv, 1);
  g_autoptr(GError) error = NULL;
  g_autoptr(LumoPolicy) policy = NULL;
  g_autoptr(LumoAuditStore) store = NULL;
  g_autoptr(LumoReviewQueue) queue = lumo_review_queue_new ();
  g_autofree char *policy_path = NULL;
  g_autofree char *audit_path = NULL;

  env->dir = lumo_test_dir_new ("bridge-fault");
  policy_path = g_build_filename (env->dir, "policy.db", NULL);
  audit_path = g_build_filename (env->dir, "audit.db", NULL);
  policy = lumo_policy_new (policy_path, &error);
  g_assert_no_error (error);
  store = _lumo_audit_store_new_full (audit_path, NULL, NULL, FAULT_VFS, LUMO_AUDIT_STORE_FLAGS_NONE, &error);
  g_assert_no_error (error);
  env->backend = lumo_backend_new (policy, store, queue);
  env->policy = lumo_backend_get_policy (env->backend);
  env->now = 1000 * G_USEC_PER_SEC;
  lumo_backend_set_clock (env->backend, restart_clock, &env->now);
  lumo_backend_set_app_version (env->backend, "0.1.0-test");
  return env;
}

static JsonObject *
authorize_answer (Peer       *peer,
                  const char *request)
{
  JsonObject *answer;

  peer_send (peer, request);
  answer = peer_recv (peer);
  g_assert_nonnull (answer);
  g_assert_cmpstr (json_object_get_string_member (answer, "type"), ==, "authorize.result");
  return answer;
}

/* The disk is full or the log cannot be written: a write that the policy
 * allowed is denied with audit_failed, never allowed unaudited; a denial
 * stays the denial it was; and once the store can write again, so can the
 * caller. Through the real session, on the fault VFS. */
static void
test_audit_failed (void)
{
  BridgeTestEnv *env = env_on_fault_vfs ();
  Peer *peer = peer_new (env, TEST_PROVIDER_ORIGIN);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) rows = NULL;
  g_autofree char *w1 = write_request (10, TEST_CALLER_ID);
  g_autofree char *w2 = write_request (11, TEST_CALLER2_ID);
  g_autofree char *w3 = write_request (12, TEST_CALLER_ID);
  const int faults[] = { SQLITE_FULL, SQLITE_IOERR_WRITE };

  setup_provider (env, TRUE, FALSE);
  lumo_policy_allow_caller (env->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, LUMO_POLICY_ORIGIN_UI, &error);
  g_assert_no_error (error);
  peer_hello (peer);

  for (guint i = 0; i < G_N_ELEMENTS (faults); i++)
    {
      g_autoptr(JsonObject) allowed = NULL;
      g_autoptr(JsonObject) denied = NULL;

      g_atomic_int_set (&fault_vfs_write_fault, faults[i]);
      g_test_expect_message ("lumo-bridge-session", G_LOG_LEVEL_WARNING, "Cannot record a write*");
      allowed = authorize_answer (peer, w1);
      g_test_assert_expected_messages ();
      g_assert_false (json_object_get_boolean_member (allowed, "allow"));
      g_assert_cmpstr (json_object_get_string_member (allowed, "reason"), ==, "audit_failed");
      g_assert_false (json_object_has_member (allowed, "auditId"));

      /* Not allowed anyway: the answer keeps its own reason. */
      g_test_expect_message ("lumo-bridge-session", G_LOG_LEVEL_WARNING, "Cannot record a write*");
      denied = authorize_answer (peer, w2);
      g_test_assert_expected_messages ();
      g_assert_false (json_object_get_boolean_member (denied, "allow"));
      g_assert_cmpstr (json_object_get_string_member (denied, "reason"), ==, "not_authorized");
      g_assert_false (json_object_has_member (denied, "auditId"));
      fault_vfs_clear ();
    }

  /* Nothing of the failed rows remains; the store writes again. */
  rows = audit_rows (env);
  g_assert_cmpuint (rows->len, ==, 0);
  peer_authorize (peer, w3, "{\"re\":12,\"allow\":true,\"auditId\":\"<any>\"}");
  g_clear_pointer (&rows, g_ptr_array_unref);
  rows = audit_rows (env);
  g_assert_cmpuint (rows->len, ==, 1);

  peer_free (peer);
  bridge_test_env_free (env);
}

static void
test_rate_limit (void)
{
  BridgeTestEnv *env = bridge_test_env_new ();
  Peer *peer = peer_new (env, TEST_PROVIDER_ORIGIN);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) rows = NULL;

  setup_provider (env, TRUE, FALSE);
  lumo_policy_allow_caller (env->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, LUMO_POLICY_ORIGIN_UI,
                            &error);
  g_assert_no_error (error);
  peer_hello (peer);

  for (guint i = 0; i < 30; i++)
    {
      g_autofree char *w = write_request (100 + i, TEST_CALLER_ID);
      g_autofree char *want = g_strdup_printf ("{\"re\":%u,\"allow\":true}", 100 + i);

      peer_authorize (peer, w, want);
      bridge_test_env_advance (env, G_USEC_PER_SEC);
    }

  /* 30 in the last 60 s: the first frees its slot 30 s from now. */
  {
    g_autofree char *w = write_request (200, TEST_CALLER_ID);

    peer_authorize (peer, w, "{\"re\":200,\"allow\":false,\"reason\":\"rate_limited\",\"retryAfterMs\":30000}");
  }
  bridge_test_env_advance (env, 30 * G_USEC_PER_SEC);
  {
    g_autofree char *w = write_request (201, TEST_CALLER_ID);

    peer_authorize (peer, w, "{\"re\":201,\"allow\":true}");
  }

  rows = audit_rows (env);
  g_assert_cmpuint (rows->len, ==, 32);

  peer_free (peer);
  bridge_test_env_free (env);
}

static gboolean
review_waiting (gpointer data)
{
  BridgeTestEnv *env = data;

  return g_list_model_get_n_items (G_LIST_MODEL (lumo_backend_get_review_queue (env->backend))) > 0;
}

static gboolean
review_queue_empty (gpointer data)
{
  return !review_waiting (data);
}

static void
decide_oldest (BridgeTestEnv *env,
               gboolean       approve)
{
  LumoReviewQueue *queue = lumo_backend_get_review_queue (env->backend);
  g_autoptr(LumoReviewRequest) request = NULL;
  g_autoptr(GError) error = NULL;

  lumo_test_wait_until (review_waiting, env, "a review to wait");
  request = g_list_model_get_item (G_LIST_MODEL (queue), 0);
  g_assert_cmpstr (lumo_review_request_get_caller_id (request), ==, TEST_CALLER_ID);
  g_assert_cmpstr (lumo_review_request_get_tool (request), ==, "userscripts.save_script");
  lumo_review_queue_decide (queue, lumo_review_request_get_id (request), approve, &error);
  g_assert_no_error (error);
}

static void
test_review (void)
{
  BridgeTestEnv *env = bridge_test_env_new ();
  Peer *peer = peer_new (env, TEST_PROVIDER_ORIGIN);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) rows = NULL;
  g_autofree char *w1 = write_request (30, TEST_CALLER_ID);
  g_autofree char *w2 = write_request (31, TEST_CALLER_ID);
  g_autofree char *w3 = write_request (32, TEST_CALLER_ID);

  setup_provider (env, TRUE, TRUE);
  lumo_policy_allow_caller (env->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, LUMO_POLICY_ORIGIN_UI,
                            &error);
  g_assert_no_error (error);
  peer_hello (peer);

  /* The write waits for a person; a probe is answered meanwhile. */
  peer_send (peer, w1);
  lumo_test_wait_until (review_waiting, env, "a review to wait");
  peer_send (peer, "{\"type\":\"probe\",\"id\":\"p\",\"caller\":{\"id\":\"" TEST_CALLER_ID "\"}}");
  peer_expect (peer, "{\"type\":\"probe.result\",\"re\":\"p\",\"status\":{\"authorized\":true}}");
  g_assert_cmpuint (lumo_bridge_session_get_n_in_flight (only_session (env)), ==, 1);
  decide_oldest (env, TRUE);
  peer_expect (peer, "{\"type\":\"authorize.result\",\"re\":30,\"allow\":true,\"auditId\":\"<any>\"}");

  peer_send (peer, w2);
  decide_oldest (env, FALSE);
  peer_expect (peer, "{\"type\":\"authorize.result\",\"re\":31,\"allow\":false,\"reason\":\"review_rejected\"}");

  /* Nobody decides: the review times out on the (fake) clock. */
  peer_send (peer, w3);
  lumo_test_wait_until (review_waiting, env, "a review to wait");
  bridge_test_env_advance (env, (LUMO_REVIEW_DEFAULT_TIMEOUT_S + 1) * G_USEC_PER_SEC);
  peer_expect (peer, "{\"type\":\"authorize.result\",\"re\":32,\"allow\":false,\"reason\":\"review_timeout\"}");

  rows = audit_rows (env);
  g_assert_cmpuint (rows->len, ==, 3);

  peer_free (peer);
  bridge_test_env_free (env);
}

/* A tools message while a write waits for review replaces the catalogue
 * the write was checked against: the review, its audit row and its answer
 * still name the tool the person approved. */
static void
test_review_outlives_catalogue (void)
{
  BridgeTestEnv *env = bridge_test_env_new ();
  Peer *peer = peer_new (env, TEST_PROVIDER_ORIGIN);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) rows = NULL;
  g_autofree char *w1 = write_request (40, TEST_CALLER_ID);

  setup_provider (env, TRUE, TRUE);
  lumo_policy_allow_caller (env->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, LUMO_POLICY_ORIGIN_UI,
                            &error);
  g_assert_no_error (error);
  peer_hello (peer);

  peer_send (peer, w1);
  lumo_test_wait_until (review_waiting, env, "a review to wait");
  peer_send (peer, "{\"type\":\"tools\",\"id\":41,\"tools\":["
                   "{\"name\":\"list_scripts\",\"write\":false},"
                   "{\"name\":\"save_script\",\"write\":true},"
                   "{\"name\":\"new_tool\",\"write\":false}]}");
  peer_expect (peer, "{\"type\":\"tools.result\",\"re\":41,"
                     "\"tools\":{\"accepted\":[\"list_scripts\",\"save_script\",\"new_tool\"],\"refused\":[]}}");

  decide_oldest (env, TRUE);
  peer_expect (peer, "{\"type\":\"authorize.result\",\"re\":40,\"allow\":true,\"auditId\":\"<any>\"}");
  rows = audit_rows (env);
  g_assert_cmpuint (rows->len, ==, 1);
  g_assert_cmpstr (lumo_audit_row_get_tool (g_ptr_array_index (rows, 0)), ==, "userscripts.save_script");

  peer_free (peer);
  bridge_test_env_free (env);
}

static void
on_port_cb (LumoBackend    *backend,
            LumoBridgePort *port,
            guint          *count)
{
  g_assert_cmpstr (port->caller_id, ==, TEST_CALLER_ID);
  (*count)++;
}

static gboolean
audit_has_rows (gpointer env)
{
  g_autoptr(GPtrArray) rows = audit_rows (env);

  return rows->len > 0;
}

static void
test_close_cancels_and_closes_ports (void)
{
  BridgeTestEnv *env = bridge_test_env_new ();
  Peer *peer = peer_new (env, TEST_PROVIDER_ORIGIN);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) rows = NULL;
  g_autoptr(GPtrArray) ports = NULL;
  g_autofree char *w = write_request (40, TEST_CALLER_ID);
  guint opened = 0;
  guint closed = 0;

  g_signal_connect (env->backend, "port-opened", G_CALLBACK (on_port_cb), &opened);
  g_signal_connect (env->backend, "port-closed", G_CALLBACK (on_port_cb), &closed);

  setup_provider (env, TRUE, TRUE);
  lumo_policy_allow_caller (env->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, LUMO_POLICY_ORIGIN_UI,
                            &error);
  g_assert_no_error (error);
  peer_hello (peer);

  peer_send (peer,
             "{\"type\":\"port\",\"id\":1,\"caller\":{\"id\":\"" TEST_CALLER_ID "\"},\"port\":\"p1\",\"state\":\"open\"}");
  peer_expect (peer, "{\"type\":\"port.result\",\"re\":1}");
  peer_send (peer,
             "{\"type\":\"port\",\"id\":2,\"caller\":{\"id\":\"" TEST_CALLER_ID "\"},\"port\":\"p2\",\"state\":\"open\"}");
  peer_expect (peer, "{\"type\":\"port.result\",\"re\":2}");
  peer_send (peer,
             "{\"type\":\"port\",\"id\":3,\"caller\":{\"id\":\"" TEST_CALLER_ID "\"},\"port\":\"p2\",\"state\":\"closed\"}");
  peer_expect (peer, "{\"type\":\"port.result\",\"re\":3}");
  ports = lumo_backend_list_ports (env->backend, TEST_PROVIDER_ID);
  g_assert_cmpuint (ports->len, ==, 1);
  g_assert_cmpstr (((LumoBridgePort *) g_ptr_array_index (ports, 0))->port_id, ==, "p1");
  g_assert_cmpuint (opened, ==, 2);
  g_assert_cmpuint (closed, ==, 1);

  peer_send (peer, w);
  lumo_test_wait_until (review_waiting, env, "a review to wait");

  /* Chrome closes the pipe (the service worker went away). */
  peer_close_write (peer);
  lumo_test_wait_until (peer_done, peer, "the session to end");
  g_assert_cmpstr (peer->reason, ==, "closed");
  lumo_test_wait_until (review_queue_empty, env, "the review queue to empty");
  g_assert_cmpuint (closed, ==, 2);
  g_clear_pointer (&ports, g_ptr_array_unref);
  ports = lumo_backend_list_ports (env->backend, NULL);
  g_assert_cmpuint (ports->len, ==, 0);

  /* The abandoned attempt is still a row. */
  lumo_test_wait_until (audit_has_rows, env, "the audit row");
  rows = audit_rows (env);
  g_assert_cmpuint (rows->len, ==, 1);
  g_assert_cmpint (lumo_audit_row_get_decision (g_ptr_array_index (rows, 0)), ==, LUMO_AUDIT_DECISION_DENY);
  g_assert_cmpstr (lumo_audit_row_get_reason (g_ptr_array_index (rows, 0)), ==, "review_cancelled");

  peer_free (peer);
  bridge_test_env_free (env);
}

static void
test_revoke_push (void)
{
  BridgeTestEnv *env = bridge_test_env_new ();
  Peer *peer = peer_new (env, TEST_PROVIDER_ORIGIN);
  g_autoptr(GError) error = NULL;
  g_autofree char *w = write_request (50, TEST_CALLER_ID);

  setup_provider (env, TRUE, TRUE);
  lumo_policy_allow_caller (env->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, LUMO_POLICY_ORIGIN_UI,
                            &error);
  g_assert_no_error (error);
  peer_hello (peer);

  /* A write waiting for review when its caller is revoked is not left for
   * a person to approve by mistake. */
  peer_send (peer, w);
  lumo_test_wait_until (review_waiting, env, "a review to wait");
  lumo_policy_deny_caller (env->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, LUMO_POLICY_ORIGIN_UI,
                           &error);
  g_assert_no_error (error);

  {
    g_autoptr(JsonObject) a = peer_recv (peer);
    g_autoptr(JsonObject) b = peer_recv (peer);
    JsonObject *push = g_str_equal (json_object_get_string_member (a, "type"), "policy") ? a : b;
    JsonObject *answer = push == a ? b : a;
    JsonArray *revoked = json_object_get_array_member (push, "revoked");

    g_assert_cmpuint (json_array_get_length (revoked), ==, 1);
    g_assert_cmpstr (json_array_get_string_element (revoked, 0), ==, TEST_CALLER_ID);
    g_assert_cmpstr (json_object_get_string_member (answer, "type"), ==, "authorize.result");
    g_assert_false (json_object_get_boolean_member (answer, "allow"));
    g_assert_cmpstr (json_object_get_string_member (answer, "reason"), ==, "not_authorized");
  }

  peer_free (peer);
  bridge_test_env_free (env);
}

static void
test_malformed_frames (void)
{
  BridgeTestEnv *env = bridge_test_env_new ();
  g_autofree char *dir = bridge_fixture_dir ();
  g_autofree char *path = g_build_filename (dir, "frames.json", NULL);
  g_autoptr(JsonNode) root = bridge_load_json (path);
  JsonArray *frames = json_object_get_array_member (json_node_get_object (root), "frames");
  Peer *peer = peer_new (env, TEST_PROVIDER_ORIGIN);

  peer_hello (peer);

  for (guint i = 0; i < json_array_get_length (frames); i++)
    {
      JsonObject *frame = json_array_get_object_element (frames, i);
      g_autoptr(GBytes) bytes = bridge_frame_bytes (frame);
      JsonNode *expect_error = json_object_get_member (frame, "error");
      gboolean close = json_object_get_boolean_member_with_default (frame, "close", FALSE);
      Peer *victim = close ? peer_new (env, TEST_PROVIDER_ORIGIN) : peer;

      g_test_message ("frame: %s", json_object_get_string_member (frame, "name"));
      peer_queue_bytes (victim, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
      if (close)
        {
          /* Out of sync: at most one answer, then the end. */
          g_autoptr(JsonObject) answer = NULL;

          lumo_test_wait_until (peer_out_empty, victim, "the provider's bytes to be taken");
          if (expect_error == NULL)
            peer_close_write (victim);   /* the stream ends inside the frame */
          answer = peer_recv (victim);
          if (expect_error != NULL)
            {
              g_autoptr(JsonObject) end = NULL;

              g_assert_nonnull (answer);
              g_assert_cmpstr (json_object_get_string_member (answer, "code"), ==,
                               json_object_get_string_member (json_node_get_object (expect_error), "code"));
              end = peer_recv (victim);
              g_assert_null (end);
            }
          else
            g_assert_null (answer);
          lumo_test_wait_until (peer_done, victim, "the session to end");
          g_assert_true (g_str_has_prefix (victim->reason, "error: "));
          peer_free (victim);
          continue;
        }

      lumo_test_wait_until (peer_out_empty, victim, "the provider's bytes to be taken");
      if (json_object_get_boolean_member (frame, "valid"))
        peer_expect (peer, "{\"type\":\"probe.result\",\"re\":\"p-1\"}");
      else
        {
          g_autofree char *want = g_strdup_printf ("{\"type\":\"error\",\"re\":null,\"code\":\"%s\"}",
                                                   json_object_get_string_member (json_node_get_object (expect_error),
                                                                                  "code"));

          peer_expect (peer, want);
        }
    }

  /* In sync all along: the first session still works. */
  peer_send (peer, "{\"type\":\"probe\",\"id\":9,\"caller\":{\"id\":\"" TEST_CALLER_ID "\"}}");
  peer_expect (peer, "{\"type\":\"probe.result\",\"re\":9}");
  g_assert_false (peer->done);

  peer_free (peer);
  bridge_test_env_free (env);
}

static void
test_one_byte_writes (void)
{
  BridgeTestEnv *env = bridge_test_env_new ();
  Peer *peer = peer_new (env, TEST_PROVIDER_ORIGIN);
  const char *probe = "{\"type\":\"probe\",\"id\":7,\"caller\":{\"id\":\"" TEST_CALLER_ID "\"}}";

  peer_hello (peer);
  peer_queue (peer, probe);
  while (peer->out->len > peer->out_pos)
    {
      peer_write_some (peer, 1);
      /* The app reads each byte as it comes and must wait for the rest. */
      lumo_test_drain ();
    }
  peer_expect (peer, "{\"type\":\"probe.result\",\"re\":7}");

  peer_free (peer);
  bridge_test_env_free (env);
}

/* 10,000 requests written without reading a single answer: the app stops
 * reading when its queue for the provider is full, instead of growing. */
static void
test_pipelined_without_reading (void)
{
  BridgeTestEnv *env = bridge_test_env_new ();
  Peer *peer = peer_new (env, TEST_PROVIDER_ORIGIN);
  g_autoptr(GString) tools = g_string_new ("[");
  LumoBridgeSession *session;
  gsize max_queued = 0;
  guint max_in_flight = 0;
  guint answers = 0;
  guint idle_rounds = 0;
  const guint n = 10000;

  peer_hello (peer);
  session = only_session (env);

  /* Each answer lists 24 tool names of 40 characters, about 1.1 KiB: 10,000
   * answers are more than the writer may hold at all
   * (LUMO_FRAME_WRITER_MAX_QUEUED), so only back-pressure keeps the
   * session alive. */
  for (guint i = 0; i < 24; i++)
    g_string_append_printf (tools, "%s{\"name\":\"tool_%02u_%s\",\"write\":false}", i ? "," : "", i,
                            "abcdefghijklmnopabcdefghijklmnopab");
  g_string_append (tools, "]");
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *m = g_strdup_printf ("{\"type\":\"tools\",\"id\":%u,\"tools\":%s}", 1000 + i, tools->str);

      peer_queue (peer, m);
    }

  /* Write, never read, until nothing moves any more. */
  while (idle_rounds < 50)
    {
      gboolean moved = peer_write_some (peer, G_MAXSIZE);

      moved |= g_main_context_iteration (NULL, FALSE);
      idle_rounds = moved ? 0 : idle_rounds + 1;
      max_queued = MAX (max_queued, lumo_bridge_session_get_queued_bytes (session));
      max_in_flight = MAX (max_in_flight, lumo_bridge_session_get_n_in_flight (session));
    }

  g_assert_true (lumo_bridge_session_get_stalled (session));
  g_assert_false (lumo_bridge_session_is_closed (session));
  g_assert_cmpuint (peer->out->len, >, peer->out_pos);   /* the provider is blocked, not the app */
  g_assert_cmpuint (max_queued, <=, LUMO_FRAME_WRITER_HIGH_WATER + 64 * 1024);
  g_assert_cmpuint (max_in_flight, <=, LUMO_BRIDGE_MAX_IN_FLIGHT);

  /* Now the provider reads: every request gets its answer, in order. */
  while (answers < n)
    {
      g_autoptr(JsonObject) answer = peer_recv (peer);

      g_assert_nonnull (answer);
      g_assert_cmpstr (json_object_get_string_member (answer, "type"), ==, "tools.result");
      g_assert_cmpint (json_object_get_int_member (answer, "re"), ==, 1000 + answers);
      answers++;
      max_queued = MAX (max_queued, lumo_bridge_session_get_queued_bytes (session));
    }
  g_assert_cmpuint (max_queued, <=, LUMO_FRAME_WRITER_HIGH_WATER + 64 * 1024);
  g_assert_false (lumo_bridge_session_get_stalled (session));

  peer_free (peer);
  bridge_test_env_free (env);
}

static void
test_busy_and_duplicate_id (void)
{
  BridgeTestEnv *env = bridge_test_env_new ();
  Peer *peer = peer_new (env, TEST_PROVIDER_ORIGIN);
  g_autoptr(GError) error = NULL;
  /* Three callers, so that 64 writes stay under each one's rate limit. */
  const char *callers[] = { TEST_CALLER_ID, TEST_CALLER2_ID, TEST_CALLER3_ID };
  guint pushes = 0;

  setup_provider (env, TRUE, TRUE);
  for (guint i = 0; i < G_N_ELEMENTS (callers); i++)
    {
      lumo_policy_allow_caller (env->policy, TEST_PROVIDER_ID, callers[i], LUMO_POLICY_ORIGIN_UI,
                                &error);
      g_assert_no_error (error);
    }
  peer_hello (peer);

  /* 64 writes wait for review; the 65th is refused at once. */
  for (guint i = 0; i < LUMO_BRIDGE_MAX_IN_FLIGHT + 1; i++)
    {
      g_autofree char *w = write_request (300 + i, callers[i % G_N_ELEMENTS (callers)]);

      peer_queue (peer, w);
    }
  peer_send (peer, "{\"type\":\"probe\",\"id\":300,\"caller\":{\"id\":\"" TEST_CALLER_ID "\"}}");
  peer_expect (peer, "{\"type\":\"error\",\"re\":364,\"code\":\"busy\"}");
  peer_expect (peer, "{\"type\":\"error\",\"re\":300,\"code\":\"duplicate_id\",\"field\":\"id\"}");
  g_assert_cmpuint (lumo_bridge_session_get_n_in_flight (only_session (env)), ==, LUMO_BRIDGE_MAX_IN_FLIGHT);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (lumo_backend_get_review_queue (env->backend))), ==,
                    LUMO_BRIDGE_MAX_IN_FLIGHT);

  /* Turning the provider off cancels what waits: each answer says why,
   * and one push names every caller that lost access. */
  lumo_policy_set_switch (env->policy, TEST_PROVIDER_ID, LUMO_POLICY_SWITCH_ENABLED, FALSE,
                          LUMO_POLICY_ORIGIN_UI, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < LUMO_BRIDGE_MAX_IN_FLIGHT + 1; i++)
    {
      g_autoptr(JsonObject) m = peer_recv (peer);

      if (g_str_equal (json_object_get_string_member (m, "type"), "policy"))
        {
          g_assert_false (json_object_get_boolean_member (m, "enabled"));
          g_assert_cmpuint (json_array_get_length (json_object_get_array_member (m, "revoked")), ==, 3);
          pushes++;
          continue;
        }
      g_assert_cmpstr (json_object_get_string_member (m, "type"), ==, "authorize.result");
      g_assert_cmpstr (json_object_get_string_member (m, "reason"), ==, "disabled");
    }
  g_assert_cmpuint (pushes, ==, 1);

  peer_free (peer);
  bridge_test_env_free (env);
}

static void
on_probe_target_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  GError **error = user_data;
  g_autoptr(LumoProbeOutcome) outcome = NULL;
  LumoProbeState state;
  g_autofree char *message = NULL;

  outcome = lumo_backend_probe_target_finish (LUMO_BACKEND (object), result, error);
  if (outcome != NULL)
    {
      g_assert_cmpint (outcome->kind, ==, LUMO_PROBE_OUTCOME_REJECTED);
      g_assert_cmpint (lumo_probe_status_map (outcome, &state, &message), ==, LUMO_PROBE_ROW_REJECTED);
      g_assert_cmpint (state, ==, LUMO_PROBE_STATE_ERROR);
      *error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_EXISTS, "mapped");
    }
}

static gboolean
error_set (gpointer data)
{
  return *(GError **) data != NULL;
}

static void
test_probe_target (void)
{
  BridgeTestEnv *env = bridge_test_env_new ();
  Peer *peer = peer_new (env, TEST_PROVIDER_ORIGIN);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) request = NULL;
  g_autofree char *answer = NULL;

  /* No session that said hello: a clear error, at once. */
  lumo_backend_probe_target_async (env->backend, TEST_PROVIDER_ID, TEST_CALLER2_ID, NULL,
                                   on_probe_target_cb, &error);
  lumo_test_wait_until (error_set, &error, "the error");
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_UNAVAILABLE);
  g_clear_error (&error);

  lumo_backend_probe_target_async (env->backend, TEST_PROVIDER_ID, "notanid", NULL,
                                   on_probe_target_cb, &error);
  lumo_test_wait_until (error_set, &error, "the error");
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ID);
  g_clear_error (&error);

  peer_hello (peer);
  lumo_backend_probe_target_async (env->backend, TEST_PROVIDER_ID, TEST_CALLER2_ID, NULL,
                                   on_probe_target_cb, &error);
  request = peer_recv (peer);
  g_assert_cmpstr (json_object_get_string_member (request, "type"), ==, "probeTarget");
  g_assert_cmpstr (json_object_get_string_member (request, "target"), ==, TEST_CALLER2_ID);
  answer = g_strdup_printf ("{\"type\":\"probeTarget.result\",\"re\":\"%s\","
                            "\"outcome\":{\"kind\":\"rejected\",\"error\":\"Receiving end does not exist.\"}}",
                            json_object_get_string_member (request, "id"));
  peer_send (peer, answer);
  lumo_test_wait_until (error_set, &error, "the error");
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS);   /* the outcome arrived and mapped */
  g_clear_error (&error);

  /* The provider refuses: a protocol error. */
  g_clear_pointer (&request, json_object_unref);
  g_clear_pointer (&answer, g_free);
  lumo_backend_probe_target_async (env->backend, TEST_PROVIDER_ID, TEST_CALLER2_ID, NULL,
                                   on_probe_target_cb, &error);
  request = peer_recv (peer);
  answer = g_strdup_printf ("{\"type\":\"error\",\"re\":\"%s\",\"code\":\"invalid_id\",\"message\":\"no\"}",
                            json_object_get_string_member (request, "id"));
  peer_send (peer, answer);
  lumo_test_wait_until (error_set, &error, "the error");
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_PROTOCOL);
  g_clear_error (&error);

  /* The session ends before the provider answers. */
  lumo_backend_probe_target_async (env->backend, TEST_PROVIDER_ID, TEST_CALLER2_ID, NULL,
                                   on_probe_target_cb, &error);
  peer_close_write (peer);
  lumo_test_wait_until (error_set, &error, "the error");
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_UNAVAILABLE);

  peer_free (peer);
  bridge_test_env_free (env);
}

static gboolean
all_done (gpointer data)
{
  GPtrArray *peers = data;

  for (guint i = 0; i < peers->len; i++)
    if (!((Peer *) g_ptr_array_index (peers, i))->done)
      return FALSE;
  return TRUE;
}

static void
test_many_sessions (void)
{
  BridgeTestEnv *env = bridge_test_env_new ();
  g_autoptr(GPtrArray) peers = g_ptr_array_new_with_free_func ((GDestroyNotify) peer_free);
  const guint n = 50;

  /* 50 providers (and so 50 namespaces), all at once. */
  for (guint i = 0; i < n; i++)
    {
      char id[33];
      g_autofree char *origin = NULL;

      for (guint k = 0; k < 32; k++)
        id[k] = 'a' + ((i >> (k % 4 * 2)) + k) % 16;
      id[32] = '\0';
      id[0] = 'a' + i % 16;
      id[1] = 'a' + i / 16;
      origin = g_strdup_printf ("chrome-extension://%s/", id);
      g_ptr_array_add (peers, peer_new (env, origin));
    }
  g_assert_cmpuint (lumo_backend_get_n_sessions (env->backend), ==, n);

  for (guint i = 0; i < n; i++)
    {
      g_autofree char *hello = g_strdup_printf ("{\"type\":\"hello\",\"id\":1,\"bridge\":1,"
                                                "\"service\":{\"namespace\":\"ns%u\",\"name\":\"P\",\"version\":\"1\"},"
                                                "\"tools\":[{\"name\":\"t\",\"write\":false}]}", i);

      peer_queue (g_ptr_array_index (peers, i), hello);
    }
  for (guint i = 0; i < n; i++)
    {
      Peer *peer = g_ptr_array_index (peers, i);

      lumo_test_wait_until (peer_out_empty, peer, "the provider's bytes to be taken");
      peer_expect (peer, "{\"type\":\"hello.result\",\"tools\":{\"accepted\":[\"t\"],\"refused\":[]}}");
      peer_send (peer, "{\"type\":\"probe\",\"id\":2,\"caller\":{\"id\":\"" TEST_CALLER_ID "\"}}");
      peer_expect (peer, "{\"type\":\"probe.result\",\"re\":2,\"status\":{\"pendingApproval\":true}}");
    }
  g_assert_cmpuint (lumo_tool_registry_get_n_tools (lumo_backend_get_tool_registry (env->backend)), ==, n);

  for (guint i = 0; i < n; i++)
    peer_close_write (g_ptr_array_index (peers, i));
  lumo_test_wait_until (all_done, peers, "every session to end");
  for (guint i = 0; i < n; i++)
    g_assert_cmpstr (((Peer *) g_ptr_array_index (peers, i))->reason, ==, "closed");
  g_assert_cmpuint (lumo_backend_get_n_sessions (env->backend), ==, 0);
  /* Gone providers hold no names. */
  g_assert_cmpuint (lumo_tool_registry_get_n_tools (lumo_backend_get_tool_registry (env->backend)), ==, 0);

  g_clear_pointer (&peers, g_ptr_array_unref);
  bridge_test_env_free (env);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  /* Writing to a session the app has closed is EPIPE, not death; the app
   * itself ignores SIGPIPE as every GDBus process does. */
  signal (SIGPIPE, SIG_IGN);
  fault_vfs_register ();

  g_test_add_func ("/bridge-session/hello-probe-allow", test_hello_probe_allow);
  g_test_add_func ("/bridge-session/bad-origin", test_bad_origin);
  g_test_add_func ("/bridge-session/writes-audited", test_writes_audited);
  g_test_add_func ("/bridge-session/names-are-display-text", test_names_are_display_text);
  g_test_add_func ("/bridge-session/bounds", test_bounds);
  g_test_add_func ("/bridge-session/rate-limit", test_rate_limit);
  g_test_add_func ("/bridge-session/audit-failed", test_audit_failed);
  g_test_add_func ("/bridge-session/rate-window-survives-restart", test_rate_window_survives_restart);
  g_test_add_func ("/bridge-session/review", test_review);
  g_test_add_func ("/bridge-session/review-outlives-catalogue", test_review_outlives_catalogue);
  g_test_add_func ("/bridge-session/close-cancels-and-closes-ports", test_close_cancels_and_closes_ports);
  g_test_add_func ("/bridge-session/revoke-push", test_revoke_push);
  g_test_add_func ("/bridge-session/malformed-frames", test_malformed_frames);
  g_test_add_func ("/bridge-session/one-byte-writes", test_one_byte_writes);
  g_test_add_func ("/bridge-session/pipelined-without-reading", test_pipelined_without_reading);
  g_test_add_func ("/bridge-session/busy-and-duplicate-id", test_busy_and_duplicate_id);
  g_test_add_func ("/bridge-session/probe-target", test_probe_target);
  g_test_add_func ("/bridge-session/many-sessions", test_many_sessions);

  return g_test_run ();
}
