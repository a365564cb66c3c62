/* lumo-test-peer.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-test-peer"

#include "config.h"

#include <signal.h>
#include <string.h>

#include "lumo-test.h"
#include "lumo-test-bus.h"
#include "lumo-test-peer.h"

#define READ_CHUNK 65536

struct _LumoTestPeer
{
  GSubprocess   *process;
  GOutputStream *to_helper;     /* the browser's end of the helper's stdin */
  GInputStream  *from_helper;   /* the browser's end of the helper's stdout */
  GByteArray    *buffer;        /* bytes read, not yet a whole frame */
  GQueue         kept;          /* JsonObject frames skipped by expect_answer */
  gboolean       eof;
  gboolean       reading;
  GError        *read_error;
};

LumoTestPeer *
lumo_test_peer_spawn (char       **env,
                      const char  *origin,
                      const char  *extra_arg)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *cwd = g_path_get_dirname (lumo_test_host_path ());
  LumoTestPeer *peer;

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE |
                                        G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  g_subprocess_launcher_set_environ (launcher, env);
  g_subprocess_launcher_set_cwd (launcher, cwd);

  peer = g_new0 (LumoTestPeer, 1);
  peer->process = g_subprocess_launcher_spawn (launcher, &error,
                                               lumo_test_host_path (), origin, extra_arg,
                                               NULL);
  g_assert_no_error (error);
  peer->to_helper = g_object_ref (g_subprocess_get_stdin_pipe (peer->process));
  peer->from_helper = g_object_ref (g_subprocess_get_stdout_pipe (peer->process));
  peer->buffer = g_byte_array_new ();
  g_queue_init (&peer->kept);

  return peer;
}

void
lumo_test_peer_free (LumoTestPeer *peer)
{
  if (peer == NULL)
    return;

  /* A helper still running is a bug of the test; never leave it behind. */
  if (!lumo_test_peer_has_exited (peer))
    {
      g_subprocess_force_exit (peer->process);
      g_subprocess_wait (peer->process, NULL, NULL);
    }

  g_queue_clear_full (&peer->kept, (GDestroyNotify) json_object_unref);
  g_clear_object (&peer->to_helper);
  g_clear_object (&peer->from_helper);
  g_clear_object (&peer->process);
  g_byte_array_unref (peer->buffer);
  g_clear_error (&peer->read_error);
  g_free (peer);
}

GPid
lumo_test_peer_get_pid (LumoTestPeer *peer)
{
  const char *id = g_subprocess_get_identifier (peer->process);

  return id != NULL ? (GPid) atoi (id) : 0;
}

void
lumo_test_peer_send_json (LumoTestPeer *peer,
                          const char   *json)
{
  g_autoptr(GError) error = NULL;
  guint32 len = strlen (json);

  g_output_stream_write_all (peer->to_helper, &len, sizeof len, NULL, NULL, &error);
  g_assert_no_error (error);
  g_output_stream_write_all (peer->to_helper, json, len, NULL, NULL, &error);
  g_assert_no_error (error);
  g_output_stream_flush (peer->to_helper, NULL, &error);
  g_assert_no_error (error);
}

void
lumo_test_peer_send_printf (LumoTestPeer *peer,
                            const char   *format,
                            ...)
{
  g_autofree char *json = NULL;
  va_list args;

  va_start (args, format);
  json = g_strdup_vprintf (format, args);
  va_end (args);

  lumo_test_peer_send_json (peer, json);
}

static void
on_read_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  LumoTestPeer *peer = user_data;
  g_autoptr(GBytes) bytes = NULL;

  peer->reading = FALSE;
  bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (object), result, &peer->read_error);
  if (bytes == NULL)
    return;

  if (g_bytes_get_size (bytes) == 0)
    peer->eof = TRUE;
  else
    g_byte_array_append (peer->buffer, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
}

static gboolean
read_is_done (gpointer user_data)
{
  LumoTestPeer *peer = user_data;

  return !peer->reading;
}

/* Reads once more into the buffer; FALSE at EOF. */
static gboolean
read_more (LumoTestPeer *peer)
{
  if (peer->eof)
    return FALSE;

  peer->reading = TRUE;
  g_input_stream_read_bytes_async (peer->from_helper, READ_CHUNK, G_PRIORITY_DEFAULT,
                                   NULL, on_read_cb, peer);
  lumo_test_wait_until (read_is_done, peer, "bytes from the helper");
  g_assert_no_error (peer->read_error);

  return !peer->eof;
}

JsonObject *
lumo_test_peer_recv (LumoTestPeer *peer)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  guint32 len;
  JsonNode *root;
  JsonObject *object;

  if (!g_queue_is_empty (&peer->kept))
    return g_queue_pop_head (&peer->kept);

  while (peer->buffer->len < sizeof len)
    if (!read_more (peer))
      {
        /* A clean end is only between frames. */
        g_assert_cmpuint (peer->buffer->len, ==, 0);
        return NULL;
      }

  memcpy (&len, peer->buffer->data, sizeof len);
  g_assert_cmpuint (len, <=, 1024 * 1024);
  while (peer->buffer->len < sizeof len + len)
    if (!read_more (peer))
      g_error ("The stream ended inside a frame of %u bytes", len);

  json_parser_load_from_data (parser, (const char *) peer->buffer->data + sizeof len, len, &error);
  g_assert_no_error (error);
  g_byte_array_remove_range (peer->buffer, 0, sizeof len + len);

  root = json_parser_get_root (parser);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (root));
  object = json_object_ref (json_node_get_object (root));

  if (g_test_verbose ())
    {
      g_autofree char *text = json_to_string (root, FALSE);
      g_test_message ("← %s", text);
    }

  return object;
}

JsonObject *
lumo_test_peer_expect_answer (LumoTestPeer *peer,
                              gint64        re)
{
  GQueue skipped = G_QUEUE_INIT;
  JsonObject *answer = NULL;

  /* Answers may come out of order and pushes may come in between; keep
   * what is not ours for later. */
  for (GList *l = peer->kept.head; l != NULL; l = l->next)
    {
      JsonNode *node = json_object_get_member (l->data, "re");

      if (node != NULL && JSON_NODE_HOLDS_VALUE (node) &&
          json_node_get_value_type (node) == G_TYPE_INT64 &&
          json_node_get_int (node) == re)
        {
          answer = l->data;
          g_queue_delete_link (&peer->kept, l);
          return answer;
        }
    }

  while (answer == NULL)
    {
      JsonObject *object;
      JsonNode *node;

      /* Bypass the kept queue: it holds only non-matching frames. */
      {
        GQueue saved = peer->kept;

        g_queue_init (&peer->kept);
        object = lumo_test_peer_recv (peer);
        peer->kept = saved;
      }

      if (object == NULL)
        g_error ("The session ended before the answer to request %" G_GINT64_FORMAT, re);

      node = json_object_get_member (object, "re");
      if (node != NULL && JSON_NODE_HOLDS_VALUE (node) &&
          json_node_get_value_type (node) == G_TYPE_INT64 &&
          json_node_get_int (node) == re)
        answer = object;
      else
        g_queue_push_tail (&skipped, object);
    }

  while (!g_queue_is_empty (&skipped))
    g_queue_push_tail (&peer->kept, g_queue_pop_head (&skipped));

  return answer;
}

GBytes *
lumo_test_peer_read_to_end (LumoTestPeer *peer)
{
  while (read_more (peer))
    ;

  return g_bytes_new (peer->buffer->data, peer->buffer->len);
}

void
lumo_test_peer_close_input (LumoTestPeer *peer)
{
  g_output_stream_close (peer->to_helper, NULL, NULL);
}

void
lumo_test_peer_kill (LumoTestPeer *peer,
                     int           signal_number)
{
  g_subprocess_send_signal (peer->process, signal_number);
}

gboolean
lumo_test_peer_has_exited (LumoTestPeer *peer)
{
  return g_subprocess_get_identifier (peer->process) == NULL;
}

static gboolean
has_exited_cb (gpointer user_data)
{
  return lumo_test_peer_has_exited (user_data);
}

int
lumo_test_peer_wait (LumoTestPeer *peer)
{
  /* GSubprocess reaps the child from the main context, so iterate it. */
  lumo_test_wait_until (has_exited_cb, peer, "the helper to exit");

  if (g_subprocess_get_if_exited (peer->process))
    return g_subprocess_get_exit_status (peer->process);

  return 128 + g_subprocess_get_term_sig (peer->process);
}

void
lumo_test_peer_end (LumoTestPeer *peer)
{
  lumo_test_peer_close_input (peer);
  g_assert_cmpint (lumo_test_peer_wait (peer), ==, 0);
}

void
lumo_test_peer_hello (LumoTestPeer *peer,
                      gint64        id)
{
  g_autoptr(JsonObject) answer = NULL;

  lumo_test_peer_send_printf (peer,
                              "{\"type\":\"hello\",\"id\":%" G_GINT64_FORMAT ",\"bridge\":1,"
                              "\"service\":{\"namespace\":\"userscripts\",\"name\":\"Lumo Userscripts\","
                              "\"version\":\"1.0.1\"},"
                              "\"tools\":[{\"name\":\"list_scripts\",\"write\":false},"
                              "{\"name\":\"save_script\",\"write\":true}]}",
                              id);
  answer = lumo_test_peer_expect_answer (peer, id);
  g_assert_cmpstr (json_object_get_string_member (answer, "type"), ==, "hello.result");
}
