/* test-bridge-faults.c — bad input and broken pieces on the real path
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The helper refuses a bad origin before it touches the bus; an app that
 * cannot be reached gets exactly one error frame; a helper killed
 * mid-session does not end the session (the app holds the pipes); an app
 * killed mid-session ends its helpers and the next connection starts a
 * fresh one with an intact audit log; fifty sessions at once are served.
 */
#include "config.h"

#include <json-glib/json-glib.h>
#include <signal.h>
#include <string.h>

#include "lumo-test-session.h"

#define N_CONCURRENT 50

typedef struct
{
  guint n_connections;
} Listener;

static gboolean
on_incoming_cb (GSocketService    *service,
                GSocketConnection *connection,
                GObject           *source_object,
                gpointer           user_data)
{
  Listener *listener = user_data;

  listener->n_connections++;
  return FALSE;
}

/* The helper exits 1 having written nothing at all. */
static void
assert_refused_silently (char       **env,
                         const char  *origin)
{
  g_autoptr(LumoTestPeer) peer = NULL;
  g_autoptr(GBytes) out = NULL;

  g_test_message ("origin “%s”", origin != NULL ? origin : "(none)");
  peer = lumo_test_peer_spawn (env, origin, NULL);
  out = lumo_test_peer_read_to_end (peer);
  g_assert_cmpint (lumo_test_peer_wait (peer), ==, 1);
  g_assert_cmpuint (g_bytes_get_size (out), ==, 0);
}

static void
test_bad_origin (void)
{
  static const char * const bad_origins[] = {
    "",
    "chrome-extension://abc/",
    "chrome-extension://" TEST_PROVIDER_ID,            /* no trailing slash */
    "chrome-extension://" TEST_PROVIDER_ID "/x",       /* something after it */
    "chrome-extension://" TEST_BAD_ID_LONG "/",
    "chrome-extension://" TEST_BAD_ID_PAST_P "/",
    "chrome-extension://" TEST_BAD_ID_UPPER "/",
    "moz-extension://" TEST_PROVIDER_ID "/",
    "https://example.com/",
    TEST_PROVIDER_ID,
  };
  g_autoptr(LumoTestSession) s = lumo_test_session_new (NULL, NULL);
  g_autoptr(GSocketService) service = NULL;
  g_autoptr(GSocketAddress) address = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *socket_path = NULL;
  g_autofree char *bus_address = NULL;
  g_auto(GStrv) env = NULL;
  Listener listener = { 0 };

  if (s == NULL)
    return;

  /* The helper gets a bus address that we listen on ourselves: any
   * connection attempt at all would show up here. */
  socket_path = g_build_filename (lumo_test_bus_get_dir (s->bus), "watch.sock", NULL);
  address = g_unix_socket_address_new (socket_path);
  service = g_socket_service_new ();
  g_socket_listener_add_address (G_SOCKET_LISTENER (service), address, G_SOCKET_TYPE_STREAM,
                                 G_SOCKET_PROTOCOL_DEFAULT, NULL, NULL, &error);
  g_assert_no_error (error);
  g_signal_connect (service, "incoming", G_CALLBACK (on_incoming_cb), &listener);
  g_socket_service_start (service);

  bus_address = g_strdup_printf ("unix:path=%s", socket_path);
  env = g_strdupv (s->env);
  env = g_environ_setenv (env, "DBUS_SESSION_BUS_ADDRESS", bus_address, TRUE);

  for (guint i = 0; i < G_N_ELEMENTS (bad_origins); i++)
    assert_refused_silently (env, bad_origins[i]);
  /* No origin at all. */
  assert_refused_silently (env, NULL);

  lumo_test_drain ();
  g_assert_cmpuint (listener.n_connections, ==, 0);

  /* And on the real bus, a bad origin activates nothing. */
  assert_refused_silently (s->env, "chrome-extension://abc/");
  g_assert_cmpint (lumo_test_bus_get_app_pid (s->bus), ==, 0);

  g_socket_service_stop (service);
}

/* Exactly one frame, {"type":"error","code":"unavailable",…}, then EOF. */
static void
assert_one_unavailable_frame (GBytes *out)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  const guint8 *data;
  gsize size;
  guint32 len;
  JsonObject *object;

  data = g_bytes_get_data (out, &size);
  g_assert_cmpuint (size, >, sizeof len);
  memcpy (&len, data, sizeof len);
  g_assert_cmpuint (size, ==, sizeof len + len);

  json_parser_load_from_data (parser, (const char *) data + sizeof len, len, &error);
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)));
  object = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpstr (json_object_get_string_member (object, "type"), ==, "error");
  g_assert_cmpstr (json_object_get_string_member (object, "code"), ==, "unavailable");
  g_assert_cmpuint (strlen (json_object_get_string_member (object, "message")), >, 20);
}

/* A helper for the provider in @env reaches no app: it writes exactly
 * one unavailable frame and exits 1. */
static void
assert_unavailable (char **env)
{
  g_autoptr(LumoTestPeer) peer = lumo_test_peer_spawn (env, TEST_PROVIDER_ORIGIN, NULL);
  g_autoptr(GBytes) out = lumo_test_peer_read_to_end (peer);

  g_assert_cmpint (lumo_test_peer_wait (peer), ==, 1);
  assert_one_unavailable_frame (out);
}

static void
test_unreachable_no_bus (void)
{
  g_autoptr(LumoTestSession) s = lumo_test_session_new (NULL, NULL);

  if (s == NULL)
    return;

  /* The bus exists only for its temporary directories. No address, and a
   * runtime dir without a bus socket: nothing to connect to. */
  s->env = g_environ_unsetenv (s->env, "DBUS_SESSION_BUS_ADDRESS");
  s->env = g_environ_setenv (s->env, "XDG_RUNTIME_DIR", lumo_test_bus_get_data_home (s->bus), TRUE);

  assert_unavailable (s->env);
  g_assert_cmpint (lumo_test_bus_get_app_pid (s->bus), ==, 0);
}

static void
test_unreachable_broken_service (gconstpointer data)
{
  g_autoptr(LumoTestSession) s = lumo_test_session_new (data, NULL);

  if (s == NULL)
    return;

  assert_unavailable (s->env);
}

static void
test_damaged_store (void)
{
  g_autoptr(LumoTestSession) s = lumo_test_session_new (NULL, NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *policy = NULL;
  g_autofree char *contents = NULL;

  if (s == NULL)
    return;

  dir = g_build_filename (lumo_test_bus_get_data_home (s->bus), "lumo-access", NULL);
  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  policy = g_build_filename (dir, "policy.db", NULL);
  g_file_set_contents (policy, "this is not an SQLite database, and must stay as it is", -1, &error);
  g_assert_no_error (error);

  /* The app starts but cannot serve: the provider is told so in one
   * frame, the helper exits 1, and the damaged file is left alone. */
  assert_unavailable (s->env);

  g_file_get_contents (policy, &contents, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (contents, ==, "this is not an SQLite database, and must stay as it is");
}

static void
test_helper_killed (void)
{
  g_autoptr(LumoTestSession) s = lumo_test_session_start ();
  g_autoptr(JsonObject) status = NULL;
  LumoTestPeer *victim;
  LumoTestPeer *bystander;
  GPid app_pid;

  if (s == NULL)
    return;

  victim = s->peer;
  bystander = lumo_test_session_connect (s, NULL);
  app_pid = lumo_test_bus_get_app_pid (s->bus);
  lumo_test_bus_wait_for_sessions (s->bus, 2);

  /* Chrome still holds its pipe ends, and so does the app: the session
   * goes on without the helper. */
  lumo_test_peer_kill (victim, SIGKILL);
  g_assert_cmpint (lumo_test_peer_wait (victim), ==, 128 + SIGKILL);

  status = lumo_test_probe (victim, 2, TEST_CALLER_ID);
  g_assert_true (json_object_get_boolean_member (status, "pendingApproval"));
  g_assert_cmpuint (lumo_test_bus_get_sessions (s->bus), ==, 2);

  /* Closing the browser end ends it cleanly. */
  lumo_test_peer_close_input (victim);
  g_assert_null (lumo_test_peer_recv (victim));
  lumo_test_bus_wait_for_sessions (s->bus, 1);

  /* Nothing else was disturbed. */
  g_clear_pointer (&status, json_object_unref);
  status = lumo_test_probe (bystander, 2, TEST_CALLER_ID);
  g_assert_true (json_object_get_boolean_member (status, "pendingApproval"));
  g_assert_cmpint (lumo_test_bus_get_app_pid (s->bus), ==, app_pid);

  lumo_test_peer_end (bystander);
}

static void
test_app_killed (void)
{
  g_autoptr(LumoTestSession) s = lumo_test_session_start ();
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(JsonObject) status = NULL;
  g_autoptr(JsonArray) rows = NULL;
  LumoTestPeer *first;
  LumoTestPeer *second;
  LumoTestPeer *next;
  GPid app_pid;
  GPid new_pid;

  if (s == NULL)
    return;

  first = s->peer;
  second = lumo_test_session_connect (s, NULL);

  lumo_test_ctl_ok (s->bus, "allow", TEST_PROVIDER_ID, TEST_CALLER_ID, NULL);
  lumo_test_wait_for_policy_push (first);
  lumo_test_wait_for_policy_push (second);
  lumo_test_ctl_ok (s->bus, "set", TEST_PROVIDER_ID, "review", "off", NULL);
  lumo_test_wait_for_policy_push (first);
  lumo_test_wait_for_policy_push (second);

  /* Some audit rows, one of them without its result yet. */
  for (gint64 i = 0; i < 5; i++)
    {
      g_autoptr(JsonObject) allowed = lumo_test_authorize_write (first, 10 + i, TEST_CALLER_ID);

      g_assert_true (json_object_get_boolean_member (allowed, "allow"));
      if (i < 4)
        lumo_test_send_result (first, 100 + i, json_object_get_int_member (allowed, "auditId"));
    }

  app_pid = lumo_test_bus_get_app_pid (s->bus);
  g_assert_cmpint (app_pid, >, 0);
  g_assert_cmpint (kill (app_pid, SIGKILL), ==, 0);

  /* Both helpers learn at once that their session is gone. */
  g_assert_cmpint (lumo_test_peer_wait (first), !=, 0);
  g_assert_cmpint (lumo_test_peer_wait (second), !=, 0);
  g_assert_null (lumo_test_peer_recv (first));
  g_assert_null (lumo_test_peer_recv (second));
  lumo_test_bus_wait_for_app_exit (s->bus, app_pid);

  /* The next connection starts a fresh app by activation, with the same
   * policy. */
  next = lumo_test_session_connect (s, NULL);
  new_pid = lumo_test_bus_get_app_pid (s->bus);
  g_assert_cmpint (new_pid, >, 0);
  g_assert_cmpint (new_pid, !=, app_pid);
  status = lumo_test_probe (next, 2, TEST_CALLER_ID);
  g_assert_true (json_object_get_boolean_member (status, "authorized"));
  answer = lumo_test_authorize_write (next, 3, TEST_CALLER_ID);
  g_assert_true (json_object_get_boolean_member (answer, "allow"));

  /* Every row made it, and the chain verifies. */
  rows = lumo_test_audit_search (s->bus, TEST_CALLER_ID);
  g_assert_cmpuint (json_array_get_length (rows), ==, 6);
  lumo_test_ctl_ok (s->bus, "audit", "verify", NULL);

  lumo_test_peer_end (next);
}

static void
test_app_quits (void)
{
  g_autoptr(LumoTestSession) s = lumo_test_session_start ();
  GPid app_pid;

  if (s == NULL)
    return;

  /* A write waits for review while the app is asked to quit. */
  lumo_test_ctl_ok (s->bus, "allow", TEST_PROVIDER_ID, TEST_CALLER_ID, NULL);
  lumo_test_wait_for_policy_push (s->peer);
  lumo_test_send_authorize_write (s->peer, 2, TEST_CALLER_ID);
  g_free (lumo_test_wait_for_review (s->bus, TEST_CALLER_ID));

  /* A clean quit (logout sends SIGTERM) answers the helper, which exits
   * with an error status and writes nothing of its own. */
  app_pid = lumo_test_bus_get_app_pid (s->bus);
  g_assert_cmpint (kill (app_pid, SIGTERM), ==, 0);
  g_assert_cmpint (lumo_test_peer_wait (s->peer), ==, 1);
  lumo_test_bus_wait_for_app_exit (s->bus, app_pid);
  g_assert_null (lumo_test_peer_recv (s->peer));
}

static void
test_concurrent_sessions (void)
{
  g_autoptr(LumoTestSession) s = lumo_test_session_new (NULL, NULL);

  if (s == NULL)
    return;

  /* All helpers start before any is served: the first one's call starts
   * the app, and the rest queue behind the activation. */
  for (guint i = 0; i < N_CONCURRENT; i++)
    lumo_test_session_spawn (s, TEST_PROVIDER_ORIGIN, NULL);

  for (guint i = 0; i < N_CONCURRENT; i++)
    lumo_test_peer_send_printf (g_ptr_array_index (s->peers, i),
                                "{\"type\":\"hello\",\"id\":1,\"bridge\":1,"
                                "\"service\":{\"namespace\":\"userscripts\",\"name\":\"Lumo Userscripts\","
                                "\"version\":\"1.0.1\"},\"tools\":[{\"name\":\"list_scripts\",\"write\":false}]}");

  for (guint i = 0; i < N_CONCURRENT; i++)
    {
      g_autoptr(JsonObject) answer = lumo_test_peer_expect_answer (g_ptr_array_index (s->peers, i), 1);

      g_assert_cmpstr (json_object_get_string_member (answer, "type"), ==, "hello.result");
    }
  g_assert_cmpuint (lumo_test_bus_get_sessions (s->bus), ==, N_CONCURRENT);

  for (guint i = 0; i < N_CONCURRENT; i++)
    {
      g_autoptr(JsonObject) status = lumo_test_probe (g_ptr_array_index (s->peers, i), 2, TEST_CALLER_ID);

      g_assert_true (json_object_get_boolean_member (status, "pendingApproval"));
    }

  for (guint i = 0; i < N_CONCURRENT; i++)
    lumo_test_peer_close_input (g_ptr_array_index (s->peers, i));
  for (guint i = 0; i < N_CONCURRENT; i++)
    g_assert_cmpint (lumo_test_peer_wait (g_ptr_array_index (s->peers, i)), ==, 0);
  lumo_test_bus_wait_for_sessions (s->bus, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/integration/faults/bad-origin", test_bad_origin);
  g_test_add_func ("/integration/faults/unreachable/no-bus", test_unreachable_no_bus);
  g_test_add_data_func ("/integration/faults/unreachable/missing-binary",
                        "/nonexistent/lumo-access --gapplication-service",
                        test_unreachable_broken_service);
  g_test_add_data_func ("/integration/faults/unreachable/exits-at-once",
                        "/bin/false", test_unreachable_broken_service);
  g_test_add_func ("/integration/faults/damaged-store", test_damaged_store);
  g_test_add_func ("/integration/faults/helper-killed", test_helper_killed);
  g_test_add_func ("/integration/faults/app-killed", test_app_killed);
  g_test_add_func ("/integration/faults/app-quits", test_app_quits);
  g_test_add_func ("/integration/faults/concurrent-sessions", test_concurrent_sessions);

  return g_test_run ();
}
