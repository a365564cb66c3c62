/* test-bridge-session-io.c — how a session reads and answers over real pipes
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The per-message path: every frame of one read is dispatched in the same
 * main-loop iteration and a request decided at once is answered by then; a
 * frame split across reads waits for its rest; answers the provider does
 * not read yet wait in order without stopping the session.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "lumo-bridge-session-private.h"
#include "lumo-error.h"
#include "lumo-frame.h"

#include "bridge-test-peer.h"


#define HELLO \
  "{\"type\":\"hello\",\"id\":1,\"bridge\":1," \
  "\"service\":{\"namespace\":\"userscripts\",\"name\":\"Lumo Userscripts\",\"version\":\"1.0.1\"}," \
  "\"tools\":[{\"name\":\"list_scripts\",\"write\":false},{\"name\":\"save_script\",\"write\":true}]}"

#define PROBE(id) "{\"type\":\"probe\",\"id\":" #id ",\"caller\":{\"id\":\"" TEST_CALLER_ID "\"}}"

/* An allowed caller, so that a read is decided at once. */
static Peer *
connect_allowed (BridgeTestEnv *env)
{
  g_autoptr(GError) error = NULL;
  Peer *peer;

  lumo_policy_add_provider (env->policy, TEST_PROVIDER_ID, LUMO_POLICY_ORIGIN_UI, &error);
  g_assert_no_error (error);
  lumo_policy_allow_caller (env->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, LUMO_POLICY_ORIGIN_UI,
                            &error);
  g_assert_no_error (error);

  peer = peer_new (env, TEST_PROVIDER_ORIGIN);
  peer_send (peer, HELLO);
  peer_expect (peer, "{\"type\":\"hello.result\",\"re\":1}");
  return peer;
}

static gboolean
app_has_written (gpointer data)
{
  struct pollfd pfd = { .fd = ((Peer *) data)->from_app, .events = POLLIN };

  return poll (&pfd, 1, 0) == 1;
}

/* Everything the app has written so far, as messages, without running the
 * main loop again. */
static GPtrArray *
read_written_now (Peer *peer)
{
  GPtrArray *messages = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  g_autoptr(GByteArray) bytes = g_byte_array_new ();
  gsize pos = 0;

  for (;;)
    {
      guint8 buf[65536];
      gssize n = read (peer->from_app, buf, sizeof buf);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      g_byte_array_append (bytes, buf, n);
    }

  for (;;)
    {
      g_autoptr(GError) error = NULL;
      JsonObject *object = NULL;
      gsize consumed = 0;

      if (!lumo_frame_decode (bytes->data + pos, bytes->len - pos, &consumed, &object, NULL, &error))
        {
          g_assert_no_error (error);
          break;
        }
      g_ptr_array_add (messages, object);
      pos += consumed;
    }
  g_assert_cmpuint (pos, ==, bytes->len);

  return messages;
}

static void
assert_answer (GPtrArray  *messages,
               guint       index,
               const char *type,
               gint64      re)
{
  JsonObject *m;

  g_assert_cmpuint (index, <, messages->len);
  m = g_ptr_array_index (messages, index);
  g_assert_cmpstr (json_object_get_string_member (m, "type"), ==, type);
  if (re < 0)
    g_assert_true (json_object_get_null_member (m, "re"));
  else
    g_assert_cmpint (json_object_get_int_member (m, "re"), ==, re);
}

/* Six frames in one write: one read takes them all, and the answers of the
 * requests decided at once — a bad frame's error among them — are all in
 * the pipe, in order, when the first of them can be read. */
static void
test_several_frames_one_read (void)
{
  BridgeTestEnv *env = bridge_test_env_new ();
  Peer *peer = connect_allowed (env);
  g_autoptr(GPtrArray) answers = NULL;
  guint32 len = 8;

  peer_queue (peer, PROBE (10));
  peer_queue (peer, "{\"type\":\"authorize\",\"id\":11,\"caller\":{\"id\":\"" TEST_CALLER_ID "\"},"
                    "\"tool\":\"list_scripts\",\"write\":false}");
  peer_queue (peer,
              "{\"type\":\"port\",\"id\":12,\"caller\":{\"id\":\"" TEST_CALLER_ID "\"},\"port\":\"p1\",\"state\":\"open\"}");
  peer_queue (peer, PROBE (13));
  peer_queue_bytes (peer, (const guint8 *) &len, 4);
  peer_queue_bytes (peer, (const guint8 *) "not json", 8);
  peer_queue (peer, PROBE (14));
  g_assert_true (peer->out->len < 4096);   /* one atomic write */
  g_assert_true (peer_write_some (peer, G_MAXSIZE));

  lumo_test_wait_until (app_has_written, peer, "the app to write");
  answers = read_written_now (peer);
  g_assert_cmpuint (answers->len, ==, 6);
  assert_answer (answers, 0, "probe.result", 10);
  assert_answer (answers, 1, "authorize.result", 11);
  g_assert_true (json_object_get_boolean_member (g_ptr_array_index (answers, 1), "allow"));
  assert_answer (answers, 2, "port.result", 12);
  assert_answer (answers, 3, "probe.result", 13);
  assert_answer (answers, 4, "error", -1);
  g_assert_cmpstr (json_object_get_string_member (g_ptr_array_index (answers, 4), "code"), ==, "invalid_json");
  assert_answer (answers, 5, "probe.result", 14);

  peer_free (peer);
  bridge_test_env_free (env);
}

/* A frame split across two writes is answered once its rest arrives, and
 * the frame that came with the rest right after it. */
static void
test_split_frame (void)
{
  BridgeTestEnv *env = bridge_test_env_new ();
  Peer *peer = connect_allowed (env);
  LumoBridgeSession *session;

  {
    GListModel *sessions = lumo_backend_get_sessions (env->backend);
    g_autoptr(LumoBridgeSession) item = g_list_model_get_item (sessions, 0);

    session = item;
  }

  peer_queue (peer, PROBE (20));
  peer_queue (peer, PROBE (21));
  {
    g_autoptr(GByteArray) rest = g_byte_array_new ();

    /* Inside the first body: nothing to answer yet. */
    g_byte_array_append (rest, peer->out->data + 30, peer->out->len - 30);
    g_byte_array_set_size (peer->out, 30);
    lumo_test_wait_until (peer_out_empty, peer, "the provider's bytes to be taken");
    lumo_test_drain ();
    g_assert_false (app_has_written (peer));
    g_assert_false (lumo_bridge_session_is_closed (session));

    peer_queue_bytes (peer, rest->data, rest->len);
  }

  lumo_test_wait_until (peer_out_empty, peer, "the provider's bytes to be taken");
  peer_expect (peer, "{\"type\":\"probe.result\",\"re\":20}");
  peer_expect (peer, "{\"type\":\"probe.result\",\"re\":21}");
  g_assert_false (lumo_bridge_session_is_closed (session));

  peer_free (peer);
  bridge_test_env_free (env);
}

/* The provider stops reading: the app writes what the pipe takes, keeps
 * the rest in order, and goes on reading requests while that is below the
 * high-water mark; once the provider reads, every answer arrives whole and
 * in order. */
static void
test_answers_wait_for_reader (void)
{
  BridgeTestEnv *env = bridge_test_env_new ();
  Peer *peer = connect_allowed (env);
  g_autoptr(GString) tools = g_string_new ("[");
  LumoBridgeSession *session;
  gsize max_queued = 0;
  const guint n = 200;

  {
    GListModel *sessions = lumo_backend_get_sessions (env->backend);
    g_autoptr(LumoBridgeSession) item = g_list_model_get_item (sessions, 0);

    session = item;
  }

  /* About 1.1 KiB per answer: 200 of them are more than the pipe holds. */
  for (guint i = 0; i < 24; i++)
    g_string_append_printf (tools, "%s{\"name\":\"tool_%02u_%s\",\"write\":false}", i ? "," : "", i,
                            "abcdefghijklmnopabcdefghijklmnopab");
  g_string_append (tools, "]");
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *m = g_strdup_printf ("{\"type\":\"tools\",\"id\":%u,\"tools\":%s}", 100 + i, tools->str);

      peer_queue (peer, m);
    }

  while (peer->out->len > peer->out_pos)
    {
      peer_write_some (peer, G_MAXSIZE);
      g_main_context_iteration (NULL, FALSE);
      max_queued = MAX (max_queued, lumo_bridge_session_get_queued_bytes (session));
    }
  lumo_test_drain ();
  max_queued = MAX (max_queued, lumo_bridge_session_get_queued_bytes (session));

  /* All requests read and answered; part of the answers wait. */
  g_assert_cmpuint (lumo_bridge_session_get_n_in_flight (session), ==, 0);
  g_assert_cmpuint (max_queued, >, 0);
  g_assert_false (lumo_bridge_session_get_stalled (session));

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(JsonObject) answer = peer_recv (peer);

      g_assert_nonnull (answer);
      g_assert_cmpstr (json_object_get_string_member (answer, "type"), ==, "tools.result");
      g_assert_cmpint (json_object_get_int_member (answer, "re"), ==, 100 + i);
    }
  g_assert_cmpuint (lumo_bridge_session_get_queued_bytes (session), ==, 0);

  /* And the next answer goes out at once again. */
  peer_queue (peer, PROBE (30));
  peer_write_some (peer, G_MAXSIZE);
  lumo_test_wait_until (app_has_written, peer, "the app to write");
  peer_expect (peer, "{\"type\":\"probe.result\",\"re\":30}");

  peer_free (peer);
  bridge_test_env_free (env);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  signal (SIGPIPE, SIG_IGN);

  g_test_add_func ("/bridge-session-io/several-frames-one-read", test_several_frames_one_read);
  g_test_add_func ("/bridge-session-io/split-frame", test_split_frame);
  g_test_add_func ("/bridge-session-io/answers-wait-for-reader", test_answers_wait_for_reader);

  return g_test_run ();
}
