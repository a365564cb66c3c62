/* lumo-gateway-stdio.c — the stdio transport of lumo-gateway-stdio.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Read like a bridge session: every line the reader has buffered is taken
 * and passed to the session in the same main-loop iteration, with one
 * non-blocking read per wake-up, and no reading at all while the writer is
 * congested.
 */
#define G_LOG_DOMAIN "lumo-gateway-stdio"

#include "config.h"

#include "lumo-error.h"
#include "lumo-frame.h"
#include "lumo-gateway-stdio.h"
#include "lumo-mcp.h"

typedef struct
{
  GTask            *task;        /* our own reference until we return */
  LumoAgentSession *session;
  LumoFrameReader  *reader;
  LumoFrameWriter  *writer;
  GSource          *read_source;
  char             *reason;      /* what we return once the session has closed */
  gulong            message_id;
  gulong            closed_id;
  gulong            congested_id;
  gulong            queued_id;
  gulong            writer_closed_id;
  gulong            cancelled_id;
  gboolean          in_read;
  gboolean          done;
} Serve;

static void watch_input (Serve *serve);

static void
serve_disconnect (Serve *serve)
{
  GCancellable *cancellable = serve->task != NULL ? g_task_get_cancellable (serve->task) : NULL;

  if (serve->read_source != NULL)
    {
      g_source_destroy (serve->read_source);
      g_clear_pointer (&serve->read_source, g_source_unref);
    }
  g_clear_signal_handler (&serve->message_id, serve->session);
  g_clear_signal_handler (&serve->closed_id, serve->session);
  g_clear_signal_handler (&serve->congested_id, serve->writer);
  g_clear_signal_handler (&serve->queued_id, serve->writer);
  g_clear_signal_handler (&serve->writer_closed_id, serve->writer);
  if (cancellable != NULL && serve->cancelled_id != 0)
    g_cancellable_disconnect (cancellable, serve->cancelled_id);
  serve->cancelled_id = 0;
}

static void
serve_free (Serve *serve)
{
  serve_disconnect (serve);
  g_clear_object (&serve->session);
  g_clear_object (&serve->reader);
  if (serve->writer != NULL)
    lumo_frame_writer_close (serve->writer);
  g_clear_object (&serve->writer);
  g_free (serve->reason);
  g_free (serve);
}

/* Returns @reason; @serve may be gone after. */
static void
serve_return (Serve      *serve,
              const char *reason)
{
  g_autoptr(GTask) task = NULL;

  if (serve->done)
    return;

  serve->done = TRUE;
  serve_disconnect (serve);
  task = g_steal_pointer (&serve->task);
  g_task_return_pointer (task, g_strdup (reason), g_free);
}

/* Ends the session (if it still runs) and returns @reason. */
static void
serve_end (Serve      *serve,
           const char *reason,
           const char *session_reason)
{
  if (serve->done)
    return;

  if (lumo_agent_session_is_closed (serve->session))
    {
      serve_return (serve, reason);
      return;
    }

  /* ::closed returns what we set here. */
  g_free (serve->reason);
  serve->reason = g_strdup (reason);
  lumo_agent_session_close (serve->session, session_reason);
  serve_return (serve, reason);
}

static void
send_line (Serve      *serve,
           JsonObject *message)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) line = NULL;

  if (serve->done)
    return;

  if (!(line = lumo_line_encode (message, &error)))
    {
      JsonNode *id = json_object_get_member (message, "id");
      g_autoptr(JsonObject) refusal = NULL;

      g_debug ("A message for the agent cannot be sent: %s", error->message);
      /* An answer still answers: the client must not wait for ever. */
      if (lumo_mcp_classify (message, NULL) != LUMO_MCP_RESPONSE)
        return;
      refusal = lumo_mcp_new_error (id, LUMO_MCP_INTERNAL_ERROR, error->message);
      g_clear_error (&error);
      line = lumo_line_encode (refusal, &error);
      g_assert (line != NULL);
    }

  if (!lumo_frame_writer_send_bytes (serve->writer, line, &error))
    {
      g_debug ("Ending a stdio session: %s", error->message);
      serve_end (serve, "error: the client does not read what it is sent",
                 "The client does not read what it is sent.");
    }
}

static void
send_error (Serve      *serve,
            JsonNode   *id,
            gint64      code,
            const char *message)
{
  g_autoptr(JsonObject) error = lumo_mcp_new_error (id, code, message);

  send_line (serve, error);
}

static void
on_session_message_cb (LumoAgentSession *session,
                       JsonObject       *message,
                       JsonNode         *related,
                       Serve            *serve)
{
  send_line (serve, message);
}

static void
on_session_closed_cb (LumoAgentSession *session,
                      const char       *reason,
                      Serve            *serve)
{
  g_autofree char *ended = serve->reason != NULL ? g_strdup (serve->reason)
                                                 : g_strdup_printf ("error: %s", reason);

  serve_return (serve, ended);
}

/* One line: a message, or a batch taken whole or not at all. */
static void
take_node (Serve    *serve,
           JsonNode *node)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) messages = NULL;
  const char *version = lumo_agent_session_get_protocol_version (serve->session);

  if (!(messages = lumo_mcp_split_batch (node, version, &error)))
    {
      send_error (serve, NULL, LUMO_MCP_INVALID_REQUEST, error->message);
      return;
    }

  for (guint i = 0; i < messages->len; i++)
    if (lumo_mcp_classify (g_ptr_array_index (messages, i), &error) == 0)
      {
        JsonNode *id = json_object_get_member (g_ptr_array_index (messages, i), "id");
        g_autofree char *key = lumo_mcp_id_key (id);

        send_error (serve, key != NULL ? id : NULL, LUMO_MCP_INVALID_REQUEST, error->message);
        return;
      }

  for (guint i = 0; i < messages->len && !serve->done; i++)
    if (!lumo_agent_session_receive (serve->session, g_ptr_array_index (messages, i), &error))
      {
        send_error (serve, NULL, LUMO_MCP_INVALID_REQUEST, error->message);
        g_clear_error (&error);
      }
}

static void
take_error (Serve        *serve,
            const GError *error)
{
  gint64 code = LUMO_MCP_PARSE_ERROR;

  /* JSON that is no message is an invalid request; the rest does not parse. */
  if (g_error_matches (error, LUMO_ERROR, LUMO_ERROR_FRAME_NOT_OBJECT) ||
      g_error_matches (error, LUMO_ERROR, LUMO_ERROR_FRAME_TOO_LARGE))
    code = LUMO_MCP_INVALID_REQUEST;

  send_error (serve, NULL, code, error->message);
}

static void
read_lines (Serve *serve)
{
  gboolean filled = FALSE;

  if (serve->in_read)
    return;
  serve->in_read = TRUE;

  while (!serve->done && !lumo_frame_writer_get_congested (serve->writer))
    {
      g_autoptr(JsonNode) node = NULL;
      g_autoptr(GError) error = NULL;

      switch (lumo_frame_reader_take_node (serve->reader, &node, NULL, &error))
        {
        case LUMO_FRAME_READ_OBJECT:
          take_node (serve, node);
          continue;

        case LUMO_FRAME_READ_ERROR:
          take_error (serve, error);
          continue;

        case LUMO_FRAME_READ_END:
          serve_end (serve, "closed", "The agent ended its session.");
          continue;

        case LUMO_FRAME_READ_NEED_MORE:
        default:
          break;
        }

      /* One read per wake-up: a client that writes without pause cannot
       * hold the main loop here. */
      if (filled)
        break;
      filled = TRUE;
      if (!lumo_frame_reader_fill_nonblocking (serve->reader, &error))
        {
          if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
            {
              g_debug ("Cannot read from the agent: %s", error->message);
              serve_end (serve, "closed", "The agent's input broke.");
            }
          break;
        }
    }

  serve->in_read = FALSE;
  if (!serve->done)
    watch_input (serve);
}

static gboolean
on_input_ready_cb (GObject  *stream,
                   gpointer  user_data)
{
  Serve *serve = user_data;
  g_autoptr(GTask) task = serve->task != NULL ? g_object_ref (serve->task) : NULL;

  /* The task keeps @serve alive while it reads, even if it returns. */
  g_source_set_ready_time (serve->read_source, -1);
  read_lines (serve);
  return G_SOURCE_CONTINUE;
}

/* Watches the input while reading is wanted, and only then; a new watch
 * fires at once, for lines left buffered while the client did not read. */
static void
watch_input (Serve *serve)
{
  gboolean wanted = !serve->done && !lumo_frame_writer_get_congested (serve->writer);

  if (wanted && serve->read_source == NULL)
    {
      serve->read_source = lumo_frame_reader_create_source (serve->reader, NULL);
      g_source_set_callback (serve->read_source, G_SOURCE_FUNC (on_input_ready_cb), serve, NULL);
      g_source_set_ready_time (serve->read_source, 0);
      g_source_attach (serve->read_source, g_main_context_get_thread_default ());
    }
  else if (!wanted && serve->read_source != NULL)
    {
      g_source_destroy (serve->read_source);
      g_clear_pointer (&serve->read_source, g_source_unref);
    }
}

static void
on_writer_congested_cb (LumoFrameWriter *writer,
                        GParamSpec      *pspec,
                        Serve           *serve)
{
  watch_input (serve);
}

/* The session's bound on what an agent leaves unread is the one that
 * counts; the writer's own is no smaller. */
static void
on_writer_queued_cb (LumoFrameWriter *writer,
                     GParamSpec      *pspec,
                     Serve           *serve)
{
  if (!serve->done)
    lumo_agent_session_note_unsent (serve->session, lumo_frame_writer_get_queued_bytes (writer));
}

static void
on_writer_closed_cb (LumoFrameWriter *writer,
                     const GError    *error,
                     Serve           *serve)
{
  /* The client closed its end of our output: it is gone. */
  g_debug ("The agent's output closed: %s", error != NULL ? error->message : "closed");
  serve_end (serve, "closed", "The agent ended its session.");
}

static gboolean
on_cancelled_idle_cb (gpointer user_data)
{
  GTask *task = user_data;
  Serve *serve = g_task_get_task_data (task);

  serve_end (serve, "error: Lumo Access is quitting", "Lumo Access is quitting.");
  return G_SOURCE_REMOVE;
}

/* From whatever thread cancels, and always later: the work is done on the
 * task's context, where disconnecting from the cancellable inside its own
 * ::cancelled would deadlock. */
static void
on_cancelled_cb (GCancellable *cancellable,
                 GTask        *task)
{
  g_autoptr(GSource) idle = g_idle_source_new ();

  g_source_set_callback (idle, on_cancelled_idle_cb, g_object_ref (task), g_object_unref);
  g_source_attach (idle, g_task_get_context (task));
}

void
lumo_gateway_stdio_serve_async (LumoAgentSession    *session,
                                GInputStream        *input,
                                GOutputStream       *output,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  Serve *serve;

  g_return_if_fail (LUMO_IS_AGENT_SESSION (session));
  g_return_if_fail (G_IS_POLLABLE_INPUT_STREAM (input));
  g_return_if_fail (G_IS_OUTPUT_STREAM (output));

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, lumo_gateway_stdio_serve_async);

  serve = g_new0 (Serve, 1);
  serve->task = g_object_ref (task);
  serve->session = g_object_ref (session);
  serve->reader = lumo_frame_reader_new_for_lines (input);
  serve->writer = lumo_frame_writer_new (output);
  g_task_set_task_data (task, serve, (GDestroyNotify) serve_free);

  if (lumo_agent_session_is_closed (session))
    {
      serve_return (serve, "error: the session has ended");
      return;
    }

  serve->message_id = g_signal_connect (session, "message", G_CALLBACK (on_session_message_cb), serve);
  serve->closed_id = g_signal_connect (session, "closed", G_CALLBACK (on_session_closed_cb), serve);
  serve->congested_id = g_signal_connect (serve->writer, "notify::congested",
                                          G_CALLBACK (on_writer_congested_cb), serve);
  serve->queued_id = g_signal_connect (serve->writer, "notify::queued-bytes",
                                       G_CALLBACK (on_writer_queued_cb), serve);
  serve->writer_closed_id = g_signal_connect (serve->writer, "closed",
                                              G_CALLBACK (on_writer_closed_cb), serve);
  if (cancellable != NULL)
    serve->cancelled_id = g_cancellable_connect (cancellable, G_CALLBACK (on_cancelled_cb), task, NULL);

  watch_input (serve);
}

char *
lumo_gateway_stdio_serve_finish (GAsyncResult  *result,
                                 GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == lumo_gateway_stdio_serve_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
