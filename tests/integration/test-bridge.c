/* test-bridge.c — the real path: browser → lumo-access-host → D-Bus → app
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every test starts a private bus on which the app is activatable, starts
 * the helper as Chrome does, and speaks the bridge protocol to it. Policy is
 * changed from outside the app, with lumo-access-ctl, while the session
 * runs: the app must notice without a reconnect.
 */
#include "config.h"

#include <gio/gunixfdlist.h>
#include <json-glib/json-glib.h>
#include <signal.h>
#include <sqlite3.h>
#include <string.h>
#include <unistd.h>

#include "lumo-dbus.h"
#include "lumo-test-session.h"

static void
test_probe_pending_then_allowed (void)
{
  g_autoptr(LumoTestSession) s = lumo_test_session_start ();
  g_autoptr(JsonObject) status = NULL;
  gint64 id = 2;

  if (s == NULL)
    return;

  /* An unknown caller is not refused: it waits for a person. */
  status = lumo_test_probe (s->peer, id++, TEST_CALLER_ID);
  g_assert_true (json_object_get_boolean_member (status, "enabled"));
  g_assert_false (json_object_get_boolean_member (status, "authorized"));
  g_assert_true (json_object_get_boolean_member (status, "pendingApproval"));

  lumo_test_ctl_ok (s->bus, "allow", TEST_PROVIDER_ID, TEST_CALLER_ID, NULL);

  /* The same session (same helper, no reconnect) sees the decision made in
   * another process. */
  lumo_test_wait_for_policy_push (s->peer);
  g_clear_pointer (&status, json_object_unref);
  status = lumo_test_probe (s->peer, id++, TEST_CALLER_ID);
  g_assert_true (json_object_get_boolean_member (status, "authorized"));
  g_assert_false (json_object_get_boolean_member (status, "pendingApproval"));
  g_assert_false (lumo_test_peer_has_exited (s->peer));

  /* Chrome closes the port: the app ends the session, the helper exits 0. */
  lumo_test_peer_end (s->peer);
}

static void
test_parent_window_argument_ignored (void)
{
  g_autoptr(LumoTestSession) s = lumo_test_session_new (NULL, NULL);
  g_autoptr(JsonObject) status = NULL;

  if (s == NULL)
    return;

  lumo_test_session_connect (s, "--parent-window=0");
  status = lumo_test_probe (s->peer, 2, TEST_CALLER_ID);
  g_assert_true (json_object_get_boolean_member (status, "pendingApproval"));

  lumo_test_peer_end (s->peer);
}

static void
test_writes_off (void)
{
  g_autoptr(LumoTestSession) s = lumo_test_session_start ();
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(JsonArray) rows = NULL;

  if (s == NULL)
    return;

  lumo_test_ctl_ok (s->bus, "allow", TEST_PROVIDER_ID, TEST_CALLER_ID, NULL);
  lumo_test_wait_for_policy_push (s->peer);
  lumo_test_ctl_ok (s->bus, "set", TEST_PROVIDER_ID, "writes", "off", NULL);
  lumo_test_wait_for_policy_push (s->peer);

  answer = lumo_test_authorize_write (s->peer, 10, TEST_CALLER_ID);
  g_assert_false (json_object_get_boolean_member (answer, "allow"));
  g_assert_cmpstr (json_object_get_string_member (answer, "reason"), ==, "writes_off");
  g_assert_cmpint (json_object_get_int_member (answer, "auditId"), >, 0);

  /* Reads are still allowed: writes_off is about writes only. */
  g_clear_pointer (&answer, json_object_unref);
  answer = lumo_test_authorize_read (s->peer, 11, TEST_CALLER_ID);
  g_assert_true (json_object_get_boolean_member (answer, "allow"));

  /* The denied attempt is in the audit log. */
  rows = lumo_test_audit_search (s->bus, TEST_CALLER_ID);
  g_assert_cmpuint (json_array_get_length (rows), ==, 1);
  lumo_test_assert_audit_row (json_array_get_object_element (rows, 0), "writes_off");

  lumo_test_peer_end (s->peer);
}

static void
test_rate_limited (void)
{
  g_autoptr(LumoTestSession) s = lumo_test_session_start ();
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(JsonArray) rows = NULL;
  gint64 started = g_get_monotonic_time ();
  gint64 retry_after;
  LumoTestPeer *next;
  GPid app_pid;

  if (s == NULL)
    return;

  lumo_test_ctl_ok (s->bus, "allow", TEST_PROVIDER_ID, TEST_CALLER_ID, NULL);
  lumo_test_wait_for_policy_push (s->peer);
  lumo_test_ctl_ok (s->bus, "set", TEST_PROVIDER_ID, "review", "off", NULL);
  lumo_test_wait_for_policy_push (s->peer);

  /* 30 writes fill the window; each is completed with its result. */
  for (gint64 i = 0; i < 30; i++)
    {
      g_autoptr(JsonObject) allowed = lumo_test_authorize_write (s->peer, 100 + i, TEST_CALLER_ID);
      gint64 audit_id;

      g_assert_true (json_object_get_boolean_member (allowed, "allow"));
      audit_id = json_object_get_int_member (allowed, "auditId");
      g_assert_cmpint (audit_id, >, 0);
      lumo_test_send_result (s->peer, 1000 + i, audit_id);
    }

  /* The 31st within 60 s is refused, with the time until a slot frees.
   * A limiter that lets it through fails here: 30 writes take a second or
   * two, and if they took the whole window that is a failure too. */
  answer = lumo_test_authorize_write (s->peer, 200, TEST_CALLER_ID);
  g_assert_cmpint (g_get_monotonic_time () - started, <, 60 * G_USEC_PER_SEC);
  g_assert_false (json_object_get_boolean_member (answer, "allow"));
  g_assert_cmpstr (json_object_get_string_member (answer, "reason"), ==, "rate_limited");
  retry_after = json_object_get_int_member (answer, "retryAfterMs");
  g_assert_cmpint (retry_after, >, 0);
  g_assert_cmpint (retry_after, <=, 60000);
  g_assert_cmpint (json_object_get_int_member (answer, "auditId"), >, 0);

  /* Every attempt, allowed or refused, is one audit row. */
  rows = lumo_test_audit_search (s->bus, TEST_CALLER_ID);
  g_assert_cmpuint (json_array_get_length (rows), ==, 31);
  lumo_test_assert_audit_contains (rows, "rate_limited", 1);
  lumo_test_ctl_ok (s->bus, "audit", "verify", NULL);

  /* The app restarts (killed, started again by the next helper): the
   * window is rebuilt from the audit log, so the caller gets no fresh
   * slots. */
  app_pid = lumo_test_bus_get_app_pid (s->bus);
  g_assert_cmpint (app_pid, >, 0);
  g_assert_cmpint (kill (app_pid, SIGKILL), ==, 0);
  g_assert_cmpint (lumo_test_peer_wait (s->peer), !=, 0);
  lumo_test_bus_wait_for_app_exit (s->bus, app_pid);
  next = lumo_test_session_connect (s, NULL);
  g_assert_cmpint (lumo_test_bus_get_app_pid (s->bus), !=, app_pid);
  g_clear_pointer (&answer, json_object_unref);
  answer = lumo_test_authorize_write (next, 300, TEST_CALLER_ID);
  g_assert_cmpint (g_get_monotonic_time () - started, <, 60 * G_USEC_PER_SEC);
  g_assert_false (json_object_get_boolean_member (answer, "allow"));
  g_assert_cmpstr (json_object_get_string_member (answer, "reason"), ==, "rate_limited");

  lumo_test_peer_end (next);
}

/* Only the helper of this installation may hand a session over: the test
 * program itself calls Attach with pipes and a valid origin, as a fake
 * provider would, and is refused before the app reads a byte. */
static void
test_attach_by_stranger_refused (void)
{
  g_autoptr(LumoTestSession) s = lumo_test_session_start ();
  g_autoptr(GUnixFDList) fds = g_unix_fd_list_new ();
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GError) error = NULL;
  int in_pipe[2];
  int out_pipe[2];
  const char *stranger_origin = TEST_PROVIDER2_ORIGIN;

  if (s == NULL)
    return;

  g_assert_cmpint (pipe (in_pipe), ==, 0);
  g_assert_cmpint (pipe (out_pipe), ==, 0);
  g_assert_cmpint (g_unix_fd_list_append (fds, in_pipe[0], NULL), ==, 0);
  g_assert_cmpint (g_unix_fd_list_append (fds, out_pipe[1], NULL), ==, 1);
  reply = g_dbus_connection_call_with_unix_fd_list_sync (lumo_test_bus_get_connection (s->bus),
                                                         lumo_dbus_get_name (), lumo_dbus_get_object_path (),
                                                         lumo_dbus_get_bridge_interface (), "Attach",
                                                         g_variant_new ("(hhs)", 0, 1, stranger_origin),
                                                         G_VARIANT_TYPE ("(s)"), G_DBUS_CALL_FLAGS_NONE,
                                                         30000, fds, NULL, NULL, &error);
  g_assert_null (reply);
  g_assert_error (error, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED);
  g_assert_nonnull (strstr (error->message, "only the helper"));

  /* No session, no provider of that ID; the real helper still works. */
  g_assert_cmpuint (lumo_test_bus_get_sessions (s->bus), ==, 1);
  {
    g_autofree char *out = NULL;

    g_assert_cmpint (lumo_test_bus_run_ctl (s->bus, &out, "providers", "--json", NULL), ==, 0);
    g_assert_null (strstr (out, TEST_PROVIDER2_ID));
  }
  for (int i = 0; i < 2; i++)
    {
      close (in_pipe[i]);
      close (out_pipe[i]);
    }
  lumo_test_peer_end (s->peer);
}

/* The audit log cannot be written (another process holds its write lock
 * past the app's busy timeout): the write the policy allowed is denied
 * with audit_failed, in the real app; once the lock is gone, writes pass. */
static void
test_audit_failed (void)
{
  g_autoptr(LumoTestSession) s = lumo_test_session_start ();
  g_autoptr(JsonObject) failed = NULL;
  g_autoptr(JsonObject) allowed = NULL;
  g_autofree char *db_path = NULL;
  sqlite3 *db = NULL;

  if (s == NULL)
    return;

  lumo_test_ctl_ok (s->bus, "allow", TEST_PROVIDER_ID, TEST_CALLER_ID, NULL);
  lumo_test_wait_for_policy_push (s->peer);
  lumo_test_ctl_ok (s->bus, "set", TEST_PROVIDER_ID, "review", "off", NULL);
  lumo_test_wait_for_policy_push (s->peer);

  db_path = g_build_filename (lumo_test_bus_get_data_home (s->bus), "lumo-access", "audit.db", NULL);
  g_assert_cmpint (sqlite3_open_v2 (db_path, &db, SQLITE_OPEN_READWRITE, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (db, "BEGIN IMMEDIATE", NULL, NULL, NULL), ==, SQLITE_OK);

  failed = lumo_test_authorize_write (s->peer, 10, TEST_CALLER_ID);
  g_assert_false (json_object_get_boolean_member (failed, "allow"));
  g_assert_cmpstr (json_object_get_string_member (failed, "reason"), ==, "audit_failed");
  g_assert_false (json_object_has_member (failed, "auditId"));

  g_assert_cmpint (sqlite3_exec (db, "ROLLBACK", NULL, NULL, NULL), ==, SQLITE_OK);
  sqlite3_close (db);

  allowed = lumo_test_authorize_write (s->peer, 11, TEST_CALLER_ID);
  g_assert_true (json_object_get_boolean_member (allowed, "allow"));
  g_assert_cmpint (json_object_get_int_member (allowed, "auditId"), >, 0);
  lumo_test_ctl_ok (s->bus, "audit", "verify", NULL);

  lumo_test_peer_end (s->peer);
}

static void
test_review_approve_and_reject (void)
{
  g_autoptr(LumoTestSession) s = lumo_test_session_start ();
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(JsonObject) status = NULL;
  g_autoptr(JsonArray) rows = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = NULL;
  g_autofree char *review_id = NULL;

  if (s == NULL)
    return;

  /* A new provider starts with review on. */
  lumo_test_ctl_ok (s->bus, "allow", TEST_PROVIDER_ID, TEST_CALLER_ID, NULL);
  lumo_test_wait_for_policy_push (s->peer);

  /* The write waits for a person; a probe sent after it is answered
   * meanwhile. */
  lumo_test_send_authorize_write (s->peer, 10, TEST_CALLER_ID);
  status = lumo_test_probe (s->peer, 11, TEST_CALLER_ID);
  g_assert_true (json_object_get_boolean_member (status, "authorized"));

  review_id = lumo_test_wait_for_review (s->bus, TEST_CALLER_ID);
  lumo_test_ctl_ok (s->bus, "review", "approve", review_id, NULL);
  answer = lumo_test_peer_expect_answer (s->peer, 10);
  g_assert_true (json_object_get_boolean_member (answer, "allow"));
  g_assert_cmpint (json_object_get_int_member (answer, "auditId"), >, 0);

  /* Rejected over D-Bus, as the app's own UI would. */
  g_clear_pointer (&review_id, g_free);
  g_clear_pointer (&answer, json_object_unref);
  lumo_test_send_authorize_write (s->peer, 12, TEST_CALLER_ID);
  review_id = lumo_test_wait_for_review (s->bus, TEST_CALLER_ID);
  lumo_test_decide_review (s->bus, review_id, FALSE, &error);
  g_assert_no_error (error);
  answer = lumo_test_peer_expect_answer (s->peer, 12);
  g_assert_false (json_object_get_boolean_member (answer, "allow"));
  g_assert_cmpstr (json_object_get_string_member (answer, "reason"), ==, "review_rejected");

  /* A decision on a request that is gone is refused, precisely. */
  lumo_test_decide_review (s->bus, review_id, TRUE, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_DBUS_ERROR);
  g_assert_true (g_dbus_error_is_remote_error (error));
  {
    g_autofree char *name = g_dbus_error_get_remote_error (error);
    g_assert_cmpstr (name, ==, "dev.lumo.Access.Error.NotFound");
  }

  rows = lumo_test_audit_search (s->bus, TEST_CALLER_ID);
  g_assert_cmpuint (json_array_get_length (rows), ==, 2);
  lumo_test_assert_audit_contains (rows, "review_rejected", 1);

  lumo_test_peer_end (s->peer);
}

/* lumo-access-ctl with its stderr, on the session's bus. */
static int
run_ctl_err (LumoTestSession *s,
             char           **err,
             const char * const *args)
{
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();

  g_ptr_array_add (argv, (char *) lumo_test_ctl_path ());
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);
  g_subprocess_launcher_set_environ (launcher, lumo_test_bus_get_env (s->bus));
  return lumo_test_run (launcher, (const char * const *) argv->pdata, NULL, NULL, err);
}

/* A managed file forces review: the CLI's For 10 Minutes and Always are
 * refused by the app (exit 1, the file named), the write keeps waiting,
 * and a plain approve still lets it through, with no grant made. */
static void
test_review_forced_refuses_grants (void)
{
  g_autoptr(LumoTestSession) s = NULL;
  g_autoptr(JsonObject) answer = NULL;
  g_autofree char *dir = lumo_test_dir_new ("review-forced");
  g_autofree char *managed_dir = g_build_filename (dir, "policy.d", NULL);
  g_autofree char *policy_env = g_strconcat ("LUMO_ACCESS_POLICY_DIR=", managed_dir, NULL);
  g_autofree char *review_id = NULL;
  g_autofree char *out = NULL;
  const char *grants[] = { "10m", "always" };

  lumo_test_write_in (managed_dir, "50-org.json", "{\"review\": true}");
  if (!(s = lumo_test_session_new (NULL, (const char *[]) { policy_env, NULL })))
    {
      lumo_test_dir_remove (dir);
      return;
    }
  lumo_test_session_connect (s, NULL);
  lumo_test_ctl_ok (s->bus, "allow", TEST_PROVIDER_ID, TEST_CALLER_ID, NULL);
  lumo_test_wait_for_policy_push (s->peer);

  lumo_test_send_authorize_write (s->peer, 10, TEST_CALLER_ID);
  review_id = lumo_test_wait_for_review (s->bus, TEST_CALLER_ID);
  for (guint i = 0; i < G_N_ELEMENTS (grants); i++)
    {
      g_autofree char *err = NULL;
      gboolean always = g_str_equal (grants[i], "always");
      const char *args[] = { "review", "approve", review_id,
                             always ? "--always" : "--for", always ? NULL : grants[i], NULL };

      g_assert_cmpint (run_ctl_err (s, &err, args), ==, 1);
      g_assert_nonnull (strstr (err, "50-org.json"));
    }
  /* Still waiting, for Once. */
  {
    g_autofree char *still = lumo_test_wait_for_review (s->bus, TEST_CALLER_ID);

    g_assert_cmpstr (still, ==, review_id);
  }
  lumo_test_ctl_ok (s->bus, "review", "approve", review_id, NULL);
  answer = lumo_test_peer_expect_answer (s->peer, 10);
  g_assert_true (json_object_get_boolean_member (answer, "allow"));

  g_assert_cmpint (lumo_test_bus_run_ctl (s->bus, &out, "grants", "--json", NULL), ==, 0);
  g_assert_cmpstr (g_strstrip (out), ==, "[]");

  lumo_test_peer_end (s->peer);
  g_clear_pointer (&s, lumo_test_session_free);
  lumo_test_dir_remove (dir);
}

static void
test_review_timeout (void)
{
  const char * const extra_env[] = { "LUMO_ACCESS_REVIEW_TIMEOUT_S=1", NULL };
  g_autoptr(LumoTestSession) s = lumo_test_session_new (NULL, extra_env);
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(JsonArray) rows = NULL;

  if (s == NULL)
    return;

  lumo_test_session_connect (s, NULL);
  lumo_test_ctl_ok (s->bus, "allow", TEST_PROVIDER_ID, TEST_CALLER_ID, NULL);
  lumo_test_wait_for_policy_push (s->peer);

  /* Nobody decides: the configured timeout answers. */
  answer = lumo_test_authorize_write (s->peer, 10, TEST_CALLER_ID);
  g_assert_false (json_object_get_boolean_member (answer, "allow"));
  g_assert_cmpstr (json_object_get_string_member (answer, "reason"), ==, "review_timeout");

  rows = lumo_test_audit_search (s->bus, TEST_CALLER_ID);
  g_assert_cmpuint (json_array_get_length (rows), ==, 1);
  lumo_test_assert_audit_row (json_array_get_object_element (rows, 0), "review_timeout");

  lumo_test_peer_end (s->peer);
}

static void
test_caller_id_too_long (void)
{
  g_autoptr(LumoTestSession) s = lumo_test_session_start ();
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(JsonObject) status = NULL;

  if (s == NULL)
    return;

  /* 33 letters a–p: refused with the field named, and the session goes on. */
  lumo_test_peer_send_json (s->peer,
                            "{\"type\":\"probe\",\"id\":2,\"caller\":"
                            "{\"id\":\"" TEST_CALLER_ID "a\",\"name\":\"Lumo\"}}");
  answer = lumo_test_peer_expect_answer (s->peer, 2);
  g_assert_cmpstr (json_object_get_string_member (answer, "type"), ==, "error");
  g_assert_cmpstr (json_object_get_string_member (answer, "code"), ==, "invalid_id");
  g_assert_cmpstr (json_object_get_string_member (answer, "field"), ==, "caller.id");

  status = lumo_test_probe (s->peer, 3, TEST_CALLER_ID);
  g_assert_true (json_object_get_boolean_member (status, "pendingApproval"));

  lumo_test_peer_end (s->peer);
}

static gboolean
nothing_recommended (gpointer user_data)
{
  LumoTestBus *bus = user_data;
  g_autofree char *out = NULL;

  g_assert_cmpint (lumo_test_bus_run_ctl (bus, &out, "recommended", "--json", NULL), ==, 0);
  return g_str_equal (g_strstrip (out), "[]");
}

/* A provider's customMarketMcpServers reach `lumo-access-ctl recommended`
 * through the running app (ListRecommended), with core's set-up text, and
 * go with the provider's last session. */
static void
test_recommended_servers (void)
{
  g_autoptr(LumoTestSession) s = lumo_test_session_start ();
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *out = NULL;
  JsonObject *server, *setup;
  LumoTestPeer *other;
  GPid app_pid;

  if (s == NULL)
    return;

  lumo_test_peer_send_json (s->peer,
                            "{\"type\":\"tools\",\"id\":2,"
                            "\"tools\":[{\"name\":\"list_scripts\",\"write\":false}],"
                            "\"customMarketMcpServers\":[{\"id\":\"ppt-mcp\",\"name\":\"PPT文档MCP服务器\","
                            "\"url\":\"https://your-mcp-server-url.com/servers/ppt-mcp/sse\",\"type\":\"sse\","
                            "\"icon\":\"https://your-mcp-server-icon-url.com/icon.png\"},"
                            "{\"id\":\"esc\",\"name\":\"\\u001b[2J\",\"url\":\"https://esc.test/\"}]}");
  answer = lumo_test_peer_expect_answer (s->peer, 2);
  g_assert_cmpstr (json_object_get_string_member (answer, "type"), ==, "tools.result");

  g_assert_cmpint (lumo_test_bus_run_ctl (s->bus, &out, "recommended", "--json", NULL), ==, 0);
  root = lumo_test_parse_json (out);
  /* The one with a terminal escape in its name is not kept. */
  g_assert_cmpuint (json_array_get_length (json_node_get_array (root)), ==, 1);
  server = json_array_get_object_element (json_node_get_array (root), 0);
  g_assert_cmpstr (json_object_get_string_member (server, "provider"), ==, TEST_PROVIDER_ID);
  g_assert_cmpstr (json_object_get_string_member (server, "name"), ==, "PPT文档MCP服务器");
  g_assert_false (json_object_has_member (server, "icon"));
  setup = json_object_get_object_member (server, "setup");
  g_assert_cmpstr (json_object_get_string_member (setup, "claudeMcpAdd"), ==,
                   "claude mcp add --transport sse ppt-mcp https://your-mcp-server-url.com/servers/ppt-mcp/sse");

  /* The list lives with the provider's sessions: gone once the last one
   * ends (another provider's session keeps the app running meanwhile). */
  app_pid = lumo_test_bus_get_app_pid (s->bus);
  other = lumo_test_session_spawn (s, TEST_PROVIDER2_ORIGIN, NULL);
  lumo_test_peer_hello (other, 1);
  lumo_test_peer_end (s->peer);
  lumo_test_wait_until (nothing_recommended, s->bus, "the recommended servers to go with the session");
  g_assert_cmpint (lumo_test_bus_get_app_pid (s->bus), ==, app_pid);
  lumo_test_peer_end (other);
}

static void
test_service_quits_when_idle (void)
{
  g_autoptr(LumoTestSession) s = lumo_test_session_start ();
  GPid app_pid;

  if (s == NULL)
    return;
  app_pid = lumo_test_bus_get_app_pid (s->bus);
  g_assert_cmpint (app_pid, >, 0);
  g_assert_cmpuint (lumo_test_bus_get_sessions (s->bus), ==, 1);

  lumo_test_peer_end (s->peer);

  /* Started by the bus for a helper, the app does not linger once its
   * last session is over. */
  lumo_test_bus_wait_for_app_exit (s->bus, app_pid);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/integration/bridge/probe-pending-then-allowed", test_probe_pending_then_allowed);
  g_test_add_func ("/integration/bridge/parent-window-argument", test_parent_window_argument_ignored);
  g_test_add_func ("/integration/bridge/caller-id-33-letters", test_caller_id_too_long);
  g_test_add_func ("/integration/bridge/writes-off", test_writes_off);
  g_test_add_func ("/integration/bridge/rate-limited", test_rate_limited);
  g_test_add_func ("/integration/bridge/attach-by-stranger-refused", test_attach_by_stranger_refused);
  g_test_add_func ("/integration/bridge/audit-failed", test_audit_failed);
  g_test_add_func ("/integration/bridge/review-approve-reject", test_review_approve_and_reject);
  g_test_add_func ("/integration/bridge/review-timeout", test_review_timeout);
  g_test_add_func ("/integration/bridge/review-forced-refuses-grants", test_review_forced_refuses_grants);
  g_test_add_func ("/integration/bridge/recommended-servers", test_recommended_servers);
  g_test_add_func ("/integration/bridge/service-quits-when-idle", test_service_quits_when_idle);

  return g_test_run ();
}
