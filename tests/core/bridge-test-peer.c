/* bridge-test-peer.c — the provider end of a real bridge connection, for tests
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Non-blocking pipes; the app's ends become GUnix streams handed to
 * lumo_backend_attach_async() as the D-Bus Attach method hands them. The
 * provider's side is plain read()/write() driven from the test's main loop.
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <glib-unix.h>
#include <gio/gunixinputstream.h>
#include <gio/gunixoutputstream.h>

#include "lumo-bridge-message.h"
#include "lumo-frame.h"

#include "bridge-test-peer.h"


static void
on_attached_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  Peer *peer = user_data;

  peer->reason = lumo_backend_attach_finish (LUMO_BACKEND (object), result, &peer->error);
  peer->done = TRUE;
}

Peer *
peer_new (BridgeTestEnv *env,
          const char    *origin)
{
  Peer *peer = g_new0 (Peer, 1);
  g_autoptr(GInputStream) input = NULL;
  g_autoptr(GOutputStream) output = NULL;
  int to_app[2];
  int from_app[2];

  g_autoptr(GError) error = NULL;

  /* Both ends non-blocking, as the Attach method makes the app's. */
  g_assert_true (g_unix_open_pipe (to_app, FD_CLOEXEC, &error));
  g_assert_true (g_unix_open_pipe (from_app, FD_CLOEXEC, &error));
  for (guint i = 0; i < 2; i++)
    {
      g_assert_true (g_unix_set_fd_nonblocking (to_app[i], TRUE, &error));
      g_assert_true (g_unix_set_fd_nonblocking (from_app[i], TRUE, &error));
    }

  peer->env = env;
  peer->to_app = to_app[1];
  peer->from_app = from_app[0];
  peer->out = g_byte_array_new ();
  peer->in = g_byte_array_new ();

  input = g_unix_input_stream_new (to_app[0], TRUE);
  output = g_unix_output_stream_new (from_app[1], TRUE);
  lumo_backend_attach_async (env->backend, origin, input, output, NULL, on_attached_cb, peer);
  return peer;
}

void
peer_close_write (Peer *peer)
{
  if (peer->to_app >= 0)
    close (peer->to_app);
  peer->to_app = -1;
}

/* Ends the connection as Chrome does and waits for the session to end. */
void
peer_free (Peer *peer)
{
  peer_close_write (peer);
  lumo_test_wait_until (peer_done, peer, "the session to end");
  if (peer->from_app >= 0)
    close (peer->from_app);
  g_byte_array_unref (peer->out);
  g_byte_array_unref (peer->in);
  g_free (peer->reason);
  g_clear_error (&peer->error);
  g_free (peer);
}

/* Writes what the pipe takes now; TRUE if anything was written. */
gboolean
peer_write_some (Peer  *peer,
                 gsize  max)
{
  gboolean progress = FALSE;

  while (peer->out_pos < peer->out->len && peer->to_app >= 0)
    {
      gssize n = write (peer->to_app, peer->out->data + peer->out_pos,
                        MIN (peer->out->len - peer->out_pos, max));

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 && errno == EPIPE)
        {
          /* The app ended the session: the rest is not wanted. */
          peer->out_pos = peer->out->len;
          break;
        }
      if (n < 0)
        {
          g_assert_cmpint (errno, ==, EAGAIN);
          break;
        }
      peer->out_pos += n;
      progress = TRUE;
    }

  if (peer->out_pos == peer->out->len)
    {
      g_byte_array_set_size (peer->out, 0);
      peer->out_pos = 0;
    }

  return progress;
}

void
peer_queue_bytes (Peer         *peer,
                  const guint8 *data,
                  gsize         len)
{
  g_byte_array_append (peer->out, data, len);
}

void
peer_queue (Peer       *peer,
            const char *json)
{
  guint32 len = strlen (json);

  peer_queue_bytes (peer, (const guint8 *) &len, 4);
  peer_queue_bytes (peer, (const guint8 *) json, len);
}

gboolean
peer_out_empty (gpointer data)
{
  Peer *peer = data;

  peer_write_some (peer, G_MAXSIZE);
  return peer->out->len == peer->out_pos || peer->to_app < 0;
}

void
peer_send (Peer       *peer,
           const char *json)
{
  peer_queue (peer, json);
  lumo_test_wait_until (peer_out_empty, peer, "the provider's bytes to be taken");
}

/* Decodes one answer from what was read, if it is all there. */
static JsonObject *
peer_try_decode (Peer *peer)
{
  g_autoptr(GError) error = NULL;
  JsonObject *object = NULL;
  gboolean in_sync = FALSE;
  gsize consumed = 0;

  if (!lumo_frame_decode (peer->in->data + peer->in_pos, peer->in->len - peer->in_pos,
                          &consumed, &object, &in_sync, &error))
    {
      /* The app never sends a bad frame. */
      g_assert_no_error (error);
      return NULL;
    }

  peer->in_pos += consumed;
  if (peer->in_pos == peer->in->len)
    {
      g_byte_array_set_size (peer->in, 0);
      peer->in_pos = 0;
    }
  return object;
}

static void
peer_read_some (Peer *peer)
{
  guint8 buf[65536];

  while (!peer->eof)
    {
      gssize n = read (peer->from_app, buf, sizeof buf);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          g_assert_cmpint (errno, ==, EAGAIN);
          return;
        }
      if (n == 0)
        peer->eof = TRUE;
      else
        g_byte_array_append (peer->in, buf, n);
    }
}

typedef struct
{
  Peer       *peer;
  JsonObject *object;
} Recv;

static gboolean
received (gpointer data)
{
  Recv *recv = data;

  peer_write_some (recv->peer, G_MAXSIZE);
  peer_read_some (recv->peer);
  recv->object = peer_try_decode (recv->peer);
  return recv->object != NULL || recv->peer->eof;
}

/* The next message of the app, or NULL at the end of the stream. */
JsonObject *
peer_recv (Peer *peer)
{
  Recv recv = { peer, NULL };

  lumo_test_wait_until (received, &recv, "a message from the app");
  return recv.object;
}

void
peer_expect (Peer       *peer,
             const char *expected_json)
{
  g_autoptr(JsonObject) actual = peer_recv (peer);
  g_autoptr(JsonNode) expected = NULL;
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  g_autofree char *where = NULL;
  g_autofree char *field = NULL;
  g_autoptr(GError) error = NULL;

  expected = json_from_string (expected_json, &error);
  g_assert_no_error (error);
  if (actual == NULL)
    g_error ("The session ended; expected %s", expected_json);

  json_node_set_object (node, actual);
  g_assert_true (lumo_bridge_validate_app_message (actual, &field, &error));
  if (!bridge_json_matches (node, expected, &where))
    g_error ("At %s the app sent\n  %s\ninstead of\n  %s", where, bridge_json_to_string (node), expected_json);
}

/* Sends @request and returns the answer's auditId (0 if none). */
gint64
peer_authorize (Peer       *peer,
                const char *request,
                const char *expected)
{
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(JsonNode) want = json_from_string (expected, NULL);
  g_autofree char *where = NULL;

  peer_send (peer, request);
  answer = peer_recv (peer);
  g_assert_nonnull (answer);
  json_node_set_object (node, answer);
  if (!bridge_json_matches (node, want, &where))
    g_error ("At %s the app sent\n  %s\ninstead of\n  %s", where, bridge_json_to_string (node), expected);
  return json_object_get_int_member_with_default (answer, "auditId", 0);
}

gboolean
peer_done (gpointer data)
{
  return ((Peer *) data)->done;
}
