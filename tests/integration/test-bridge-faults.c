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

#include "lumo-test-bus.h"
#include "lumo-test-peer.h"
#include "lumo-test-util.h"

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

static void
test_bad_origin (void)
{
  static const char * const bad_origins[] = {
    "",
    "chrome-extension://abc/",
    "chrome-extension://" PROVIDER_ID,                 /* no trailing slash */
    "chrome-extension://" PROVIDER_ID "/x",            /* something after it */
    "chrome-extension://" PROVIDER_ID "a/",            /* 33 letters */
    "chrome-extension://abcdefghijklmnopabcdefghijklmnoq/",  /* q is not a–p */
    "chrome-extension://ABCDEFGHIJKLMNOPABCDEFGHIJKLMNOP/",
    "moz-extension://" PROVIDER_ID "/",
    "https://example.com/",
    PROVIDER_ID,
  };
  g_autoptr(LumoTestBus) bus = NULL;
  g_autoptr(GSocketService) service = NULL;
  g_autoptr(GSocketAddress) address = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *socket_path = NULL;
  g_autofree char *bus_address = NULL;
  g_auto(GStrv) env = NULL;
  Listener listener = { 0 };

  if (!lumo_test_begin ())
    return;

  bus = lumo_test_bus_new (NULL, NULL);

  /* The helper gets a bus address that we listen on ourselves: any
   * connection attempt at all would show up here. */
  socket_path = g_build_filename (lumo_test_bus_get_dir (bus), "watch.sock", NULL);
  address = g_unix_socket_address_new (socket_path);
  service = g_socket_service_new ();
  g_socket_listener_add_address (G_SOCKET_LISTENER (service), address, G_SOCKET_TYPE_STREAM,
                                 G_SOCKET_PROTOCOL_DEFAULT, NULL, NULL, &error);
  g_assert_no_error (error);
  g_signal_connect (service, "incoming", G_CALLBACK (on_incoming_cb), &listener);
  g_socket_service_start (service);

  bus_address = g_strdup_printf ("unix:path=%s", socket_path);
  env = lumo_test_bus_get_env (bus);
  env = g_environ_setenv (env, "DBUS_SESSION_BUS_ADDRESS", bus_address, TRUE);

  for (guint i = 0; i < G_N_ELEMENTS (bad_origins); i++)
    {
      g_autoptr(LumoTestPeer) peer = NULL;
      g_autoptr(GBytes) out = NULL;

      g_test_message ("origin “%s”", bad_origins[i]);
      peer = lumo_test_peer_spawn (env, bad_origins[i], NULL);
      out = lumo_test_peer_read_to_end (peer);
      g_assert_cmpint (lumo_test_peer_wait (peer), ==, 1);
      g_assert_cmpuint (g_bytes_get_size (out), ==, 0);
    }

  /* No origin at all. */
  {
    g_autoptr(LumoTestPeer) peer = lumo_test_peer_spawn (env, NULL, NULL);
    g_autoptr(GBytes) out = lumo_test_peer_read_to_end (peer);

    g_assert_cmpint (lumo_test_peer_wait (peer), ==, 1);
    g_assert_cmpuint (g_bytes_get_size (out), ==, 0);
  }

  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_assert_cmpuint (listener.n_connections, ==, 0);

  /* And on the real bus, a bad origin activates nothing. */
  g_strfreev (g_steal_pointer (&env));
  env = lumo_test_bus_get_env (bus);
  {
    g_autoptr(LumoTestPeer) peer = lumo_test_peer_spawn (env, "chrome-extension://abc/", NULL);
    g_autoptr(GBytes) out = lumo_test_peer_read_to_end (peer);

    g_assert_cmpint (lumo_test_peer_wait (peer), ==, 1);
    g_assert_cmpuint (g_bytes_get_size (out), ==, 0);
  }
  g_assert_cmpint (lumo_test_bus_get_app_pid (bus), ==, 0);

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

static void
test_unreachable_no_bus (void)
{
  g_autoptr(LumoTestBus) bus = NULL;
  g_autoptr(LumoTestPeer) peer = NULL;
  g_autoptr(GBytes) out = NULL;
  g_auto(GStrv) env = NULL;

  if (!lumo_test_begin ())
    return;

  /* The bus exists only for its temporary directories. No address, and a
   * runtime dir without a bus socket: nothing to connect to. */
  bus = lumo_test_bus_new (NULL, NULL);
  env = lumo_test_bus_get_env (bus);
  env = g_environ_unsetenv (env, "DBUS_SESSION_BUS_ADDRESS");
  env = g_environ_setenv (env, "XDG_RUNTIME_DIR", lumo_test_bus_get_data_home (bus), TRUE);

  peer = lumo_test_peer_spawn (env, PROVIDER_ORIGIN, NULL);
  out = lumo_test_peer_read_to_end (peer);
  g_assert_cmpint (lumo_test_peer_wait (peer), ==, 1);
  assert_one_unavailable_frame (out);
  g_assert_cmpint (lumo_test_bus_get_app_pid (bus), ==, 0);
}

static void
test_unreachable_broken_service (gconstpointer data)
{
  const char *exec = data;
  g_autoptr(LumoTestBus) bus = NULL;
  g_autoptr(LumoTestPeer) peer = NULL;
  g_autoptr(GBytes) out = NULL;
  g_auto(GStrv) env = NULL;

  if (!lumo_test_begin ())
    return;

  bus = lumo_test_bus_new (exec, NULL);
  env = lumo_test_bus_get_env (bus);
  peer = lumo_test_peer_spawn (env, PROVIDER_ORIGIN, NULL);
  out = lumo_test_peer_read_to_end (peer);
  g_assert_cmpint (lumo_test_peer_wait (peer), ==, 1);
  assert_one_unavailable_frame (out);
}

static void
test_damaged_store (void)
{
  g_autoptr(LumoTestBus) bus = NULL;
  g_autoptr(LumoTestPeer) peer = NULL;
  g_autoptr(GBytes) out = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *policy = NULL;
  g_autofree char *contents = NULL;
  g_auto(GStrv) env = NULL;

  if (!lumo_test_begin ())
    return;

  bus = lumo_test_bus_new (NULL, NULL);
  dir = g_build_filename (lumo_test_bus_get_data_home (bus), "lumo-access", NULL);
  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  policy = g_build_filename (dir, "policy.db", NULL);
  g_file_set_contents (policy, "this is not an SQLite database, and must stay as it is", -1, &error);
  g_assert_no_error (error);

  /* The app starts but cannot serve: the provider is told so in one
   * frame, the helper exits 1, and the damaged file is left alone. */
  env = lumo_test_bus_get_env (bus);
  peer = lumo_test_peer_spawn (env, PROVIDER_ORIGIN, NULL);
  out = lumo_test_peer_read_to_end (peer);
  g_assert_cmpint (lumo_test_peer_wait (peer), ==, 1);
  assert_one_unavailable_frame (out);

  g_file_get_contents (policy, &contents, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (contents, ==, "this is not an SQLite database, and must stay as it is");
}

static gboolean
sessions_are (LumoTestBus *bus,
              guint        n)
{
  return lumo_test_bus_get_sessions (bus) == n;
}

typedef struct
{
  LumoTestBus *bus;
  guint        n;
} SessionsWait;

static gboolean
sessions_reached (gpointer user_data)
{
  SessionsWait *wait = user_data;

  return sessions_are (wait->bus, wait->n);
}

static void
wait_for_sessions (LumoTestBus *bus,
                   guint        n)
{
  SessionsWait wait = { bus, n };

  g_assert_true (lumo_test_wait_until (sessions_reached, &wait, 60000));
}

static void
test_helper_killed (void)
{
  g_autoptr(LumoTestBus) bus = NULL;
  g_autoptr(LumoTestPeer) victim = NULL;
  g_autoptr(LumoTestPeer) bystander = NULL;
  g_auto(GStrv) env = NULL;
  g_autoptr(JsonObject) status = NULL;
  GPid app_pid;

  if (!lumo_test_begin ())
    return;

  bus = lumo_test_bus_new (NULL, NULL);
  env = lumo_test_bus_get_env (bus);
  victim = lumo_test_peer_spawn (env, PROVIDER_ORIGIN, NULL);
  lumo_test_peer_hello (victim, 1);
  bystander = lumo_test_peer_spawn (env, PROVIDER_ORIGIN, NULL);
  lumo_test_peer_hello (bystander, 1);
  app_pid = lumo_test_bus_get_app_pid (bus);
  wait_for_sessions (bus, 2);

  /* Chrome still holds its pipe ends, and so does the app: the session
   * goes on without the helper. */
  lumo_test_peer_kill (victim, SIGKILL);
  g_assert_cmpint (lumo_test_peer_wait (victim), ==, 128 + SIGKILL);

  status = lumo_test_probe (victim, 2, CALLER_ID);
  g_assert_true (json_object_get_boolean_member (status, "pendingApproval"));
  g_assert_cmpuint (lumo_test_bus_get_sessions (bus), ==, 2);

  /* Closing the browser end ends it cleanly. */
  lumo_test_peer_close_input (victim);
  g_assert_null (lumo_test_peer_recv (victim));
  wait_for_sessions (bus, 1);

  /* Nothing else was disturbed. */
  g_clear_pointer (&status, json_object_unref);
  status = lumo_test_probe (bystander, 2, CALLER_ID);
  g_assert_true (json_object_get_boolean_member (status, "pendingApproval"));
  g_assert_cmpint (lumo_test_bus_get_app_pid (bus), ==, app_pid);

  lumo_test_peer_close_input (bystander);
  g_assert_cmpint (lumo_test_peer_wait (bystander), ==, 0);
}

static void
test_app_killed (void)
{
  g_autoptr(LumoTestBus) bus = NULL;
  g_autoptr(LumoTestPeer) first = NULL;
  g_autoptr(LumoTestPeer) second = NULL;
  g_autoptr(LumoTestPeer) next = NULL;
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(JsonObject) status = NULL;
  g_autoptr(JsonArray) rows = NULL;
  g_auto(GStrv) env = NULL;
  GPid app_pid;
  GPid new_pid;

  if (!lumo_test_begin ())
    return;

  bus = lumo_test_bus_new (NULL, NULL);
  env = lumo_test_bus_get_env (bus);
  first = lumo_test_peer_spawn (env, PROVIDER_ORIGIN, NULL);
  lumo_test_peer_hello (first, 1);
  second = lumo_test_peer_spawn (env, PROVIDER_ORIGIN, NULL);
  lumo_test_peer_hello (second, 1);

  lumo_test_ctl_ok (bus, "allow", PROVIDER_ID, CALLER_ID, NULL);
  lumo_test_wait_for_policy_push (first);
  lumo_test_wait_for_policy_push (second);
  lumo_test_ctl_ok (bus, "set", PROVIDER_ID, "review", "off", NULL);
  lumo_test_wait_for_policy_push (first);
  lumo_test_wait_for_policy_push (second);

  /* Some audit rows, one of them without its result yet. */
  for (gint64 i = 0; i < 5; i++)
    {
      g_autoptr(JsonObject) allowed = lumo_test_authorize_write (first, 10 + i, CALLER_ID);

      g_assert_true (json_object_get_boolean_member (allowed, "allow"));
      if (i < 4)
        {
          g_autoptr(JsonObject) done = NULL;

          lumo_test_peer_send_printf (first,
                                      "{\"type\":\"result\",\"id\":%" G_GINT64_FORMAT ","
                                      "\"auditId\":%" G_GINT64_FORMAT ",\"ok\":true}",
                                      100 + i, json_object_get_int_member (allowed, "auditId"));
          done = lumo_test_peer_expect_answer (first, 100 + i);
        }
    }

  app_pid = lumo_test_bus_get_app_pid (bus);
  g_assert_cmpint (app_pid, >, 0);
  g_assert_cmpint (kill (app_pid, SIGKILL), ==, 0);

  /* Both helpers learn at once that their session is gone. */
  g_assert_cmpint (lumo_test_peer_wait (first), !=, 0);
  g_assert_cmpint (lumo_test_peer_wait (second), !=, 0);
  g_assert_null (lumo_test_peer_recv (first));
  g_assert_null (lumo_test_peer_recv (second));
  g_assert_true (lumo_test_wait_for_app_exit (bus, app_pid));

  /* The next connection starts a fresh app by activation, with the same
   * policy. */
  next = lumo_test_peer_spawn (env, PROVIDER_ORIGIN, NULL);
  lumo_test_peer_hello (next, 1);
  new_pid = lumo_test_bus_get_app_pid (bus);
  g_assert_cmpint (new_pid, >, 0);
  g_assert_cmpint (new_pid, !=, app_pid);
  status = lumo_test_probe (next, 2, CALLER_ID);
  g_assert_true (json_object_get_boolean_member (status, "authorized"));
  answer = lumo_test_authorize_write (next, 3, CALLER_ID);
  g_assert_true (json_object_get_boolean_member (answer, "allow"));

  /* Every row made it, and the chain verifies. */
  rows = lumo_test_audit_search (bus, CALLER_ID);
  g_assert_cmpuint (json_array_get_length (rows), ==, 6);
  lumo_test_ctl_ok (bus, "audit", "verify", NULL);

  lumo_test_peer_close_input (next);
  g_assert_cmpint (lumo_test_peer_wait (next), ==, 0);
}

static void
test_app_quits (void)
{
  g_autoptr(LumoTestBus) bus = NULL;
  g_autoptr(LumoTestPeer) peer = NULL;
  g_auto(GStrv) env = NULL;
  GPid app_pid;

  if (!lumo_test_begin ())
    return;

  bus = lumo_test_bus_new (NULL, NULL);
  env = lumo_test_bus_get_env (bus);
  peer = lumo_test_peer_spawn (env, PROVIDER_ORIGIN, NULL);
  lumo_test_peer_hello (peer, 1);
  /* A write waits for review while the app is asked to quit. */
  lumo_test_ctl_ok (bus, "allow", PROVIDER_ID, CALLER_ID, NULL);
  {
    g_autoptr(JsonObject) push = lumo_test_wait_for_policy_push (peer);
  }
  lumo_test_send_authorize_write (peer, 2, CALLER_ID);
  g_free (lumo_test_wait_for_review (bus, CALLER_ID));

  /* A clean quit (logout sends SIGTERM) answers the helper, which exits
   * with an error status and writes nothing of its own. */
  app_pid = lumo_test_bus_get_app_pid (bus);
  g_assert_cmpint (kill (app_pid, SIGTERM), ==, 0);
  g_assert_cmpint (lumo_test_peer_wait (peer), ==, 1);
  g_assert_true (lumo_test_wait_for_app_exit (bus, app_pid));
  g_assert_null (lumo_test_peer_recv (peer));
}

static void
test_concurrent_sessions (void)
{
  g_autoptr(LumoTestBus) bus = NULL;
  g_autoptr(GPtrArray) peers = NULL;
  g_auto(GStrv) env = NULL;

  if (!lumo_test_begin ())
    return;

  bus = lumo_test_bus_new (NULL, NULL);
  env = lumo_test_bus_get_env (bus);
  peers = g_ptr_array_new_with_free_func ((GDestroyNotify) lumo_test_peer_free);

  /* All helpers start before any is served: the first one's call starts
   * the app, and the rest queue behind the activation. */
  for (guint i = 0; i < N_CONCURRENT; i++)
    g_ptr_array_add (peers, lumo_test_peer_spawn (env, PROVIDER_ORIGIN, NULL));

  for (guint i = 0; i < N_CONCURRENT; i++)
    lumo_test_peer_send_printf (g_ptr_array_index (peers, i),
                                "{\"type\":\"hello\",\"id\":1,\"bridge\":1,"
                                "\"service\":{\"namespace\":\"userscripts\",\"name\":\"Lumo Userscripts\","
                                "\"version\":\"1.0.1\"},\"tools\":[{\"name\":\"list_scripts\",\"write\":false}]}");

  for (guint i = 0; i < N_CONCURRENT; i++)
    {
      g_autoptr(JsonObject) answer = lumo_test_peer_expect_answer (g_ptr_array_index (peers, i), 1);

      g_assert_cmpstr (json_object_get_string_member (answer, "type"), ==, "hello.result");
    }
  g_assert_cmpuint (lumo_test_bus_get_sessions (bus), ==, N_CONCURRENT);

  for (guint i = 0; i < N_CONCURRENT; i++)
    {
      g_autoptr(JsonObject) status = lumo_test_probe (g_ptr_array_index (peers, i), 2, CALLER_ID);

      g_assert_true (json_object_get_boolean_member (status, "pendingApproval"));
    }

  for (guint i = 0; i < N_CONCURRENT; i++)
    lumo_test_peer_close_input (g_ptr_array_index (peers, i));
  for (guint i = 0; i < N_CONCURRENT; i++)
    g_assert_cmpint (lumo_test_peer_wait (g_ptr_array_index (peers, i)), ==, 0);
  wait_for_sessions (bus, 0);
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
