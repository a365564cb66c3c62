/* test-gateway-stdio.c — a desktop agent's session over two pipes
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What lumo_gateway_stdio_serve_async() does with the launcher's pipes,
 * without the launcher or D-Bus (the integration suite has those): the
 * real gateway, its session answering while the provider is away, and a
 * client the test plays on the other ends of the pipes. Every bad line
 * gets its JSON-RPC error and the stream goes on; the end of the client's
 * input ends the session; the end of the session ends the operation.
 */
#include "config.h"

#include <signal.h>
#include <string.h>

#include "bridge-test-util.h"
#include "frame-test-util.h"
#include "lumo-gateway-stdio.h"
#include "lumo-gateway.h"
#include "lumo-mcp.h"

typedef struct
{
  BridgeTestEnv    *env;
  LumoGateway      *gateway;
  LumoAgentSession *session;
  char             *agent_id;
  char             *token;
  Pipe              to_app;      /* the client writes, the app reads */
  Pipe              from_app;    /* the app writes, the client reads */
  LumoFrameReader  *client;      /* lines of from_app */
  GAsyncResult     *result;      /* of the serve */
} Stdio;

static void
stdio_set_up (Stdio         *s,
              gconstpointer  data)
{
  const char *providers[] = { TEST_PROVIDER_ID, NULL };
  g_autoptr(GError) error = NULL;
  LumoGatewayVerdict verdict = LUMO_GATEWAY_BAD_TOKEN;

  s->env = bridge_test_env_new ();
  g_assert_true (lumo_policy_add_provider (s->env->policy, TEST_PROVIDER_ID, LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_true (lumo_policy_register_provider (s->env->policy, TEST_PROVIDER_ID, "userscripts",
                                                "Lumo Userscripts", "1.0.1", &error));
  g_assert_true (lumo_policy_add_agent (s->env->policy, "Claude Desktop", providers, LUMO_POLICY_ORIGIN_UI,
                                        &s->agent_id, &s->token, &error));
  g_assert_no_error (error);
  s->gateway = lumo_gateway_new (s->env->backend);
  lumo_gateway_set_enabled (s->gateway, TRUE);
  s->session = lumo_gateway_open_session (s->gateway, s->agent_id, TEST_PROVIDER_ID, "stdio", &verdict);
  g_assert_cmpint (verdict, ==, LUMO_GATEWAY_OK);

  pipe_open (&s->to_app);
  pipe_open (&s->from_app);
  s->client = lumo_frame_reader_new_for_lines (s->from_app.in);
  lumo_gateway_stdio_serve_async (s->session, s->to_app.in, s->from_app.out, NULL,
                                  lumo_test_keep_result_cb, &s->result);
}

static void
stdio_tear_down (Stdio         *s,
                 gconstpointer  data)
{
  /* The client's end of its output: the serve sees the end and returns. */
  if (s->result == NULL)
    {
      g_output_stream_close (s->to_app.out, NULL, NULL);
      lumo_test_wait_until (lumo_test_is_set, &s->result, "the stdio session to end");
    }
  g_clear_object (&s->result);
  g_clear_object (&s->client);
  pipe_clear (&s->to_app);
  pipe_clear (&s->from_app);
  g_clear_object (&s->session);
  g_clear_object (&s->gateway);
  bridge_test_env_free (s->env);
  g_free (s->agent_id);
  g_free (s->token);
}

/* ---- the client --------------------------------------------------------- */

typedef struct
{
  Pipe       *pipe;
  const char *data;
  gsize       len;
  gsize       pos;
} Feeder;

/* Writes what the pipe takes now; TRUE once all is written. The app
 * reads in this same main loop, between the calls. */
static gboolean
feed (gpointer user_data)
{
  Feeder *f = user_data;

  while (f->pos < f->len)
    {
      gssize n = write (f->pipe->write_fd, f->data + f->pos, f->len - f->pos);

      if (n <= 0)
        return FALSE;
      f->pos += n;
    }

  return TRUE;
}

static void
client_send (Stdio      *s,
             const char *data,
             gssize      len)
{
  Feeder f = { &s->to_app, data, len < 0 ? strlen (data) : (gsize) len, 0 };

  lumo_test_wait_until (feed, &f, "the app to take the client's bytes");
}

typedef struct
{
  LumoFrameReader *reader;
  JsonNode        *node;
} Take;

static gboolean
has_line (gpointer user_data)
{
  Take *t = user_data;
  g_autoptr(GError) error = NULL;

  for (;;)
    {
      switch (lumo_frame_reader_take_node (t->reader, &t->node, NULL, &error))
        {
        case LUMO_FRAME_READ_OBJECT:
          return TRUE;
        case LUMO_FRAME_READ_NEED_MORE:
          if (!lumo_frame_reader_fill_nonblocking (t->reader, &error))
            {
              g_assert_error (error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK);
              return FALSE;
            }
          continue;
        case LUMO_FRAME_READ_END:
          g_error ("The app closed the client's input");
        case LUMO_FRAME_READ_ERROR:
        default:
          g_error ("The app wrote a line that is no message: %s", error->message);
        }
    }
}

/* The next line the app writes (a JSON-RPC object). */
static JsonObject *
client_recv (Stdio *s)
{
  Take t = { s->client, NULL };
  g_autoptr(JsonNode) node = NULL;

  lumo_test_wait_until (has_line, &t, "a line from the app");
  node = t.node;
  g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
  return json_object_ref (json_node_get_object (node));
}

/* The next line must be an error of @code answering @id (NULL: null). */
static void
client_expect_error (Stdio      *s,
                     const char *id,
                     gint64      code)
{
  g_autoptr(JsonObject) line = client_recv (s);
  JsonObject *error;

  g_assert_cmpint (lumo_mcp_classify (line, NULL), ==, LUMO_MCP_RESPONSE);
  if (id == NULL)
    g_assert_true (json_object_get_null_member (line, "id"));
  else
    g_assert_cmpstr (json_object_get_string_member (line, "id"), ==, id);
  error = json_object_get_object_member (line, "error");
  g_assert_nonnull (error);
  g_assert_cmpint (json_object_get_int_member (error, "code"), ==, code);
  g_test_message ("%s", json_object_get_string_member (error, "message"));
}

/* The next line must answer @id with a result. */
static JsonObject *
client_expect_result (Stdio      *s,
                      const char *id)
{
  g_autoptr(JsonObject) line = client_recv (s);

  g_assert_cmpstr (json_object_get_string_member (line, "id"), ==, id);
  g_assert_true (json_object_has_member (line, "result"));
  return json_object_ref (json_object_get_object_member (line, "result"));
}

#define PING(id) "{\"jsonrpc\":\"2.0\",\"id\":\"" id "\",\"method\":\"ping\"}\n"

static void
client_initialize (Stdio      *s,
                   const char *version)
{
  g_autofree char *line = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":\"init\",\"method\":\"initialize\","
                                           "\"params\":{\"protocolVersion\":\"%s\",\"capabilities\":{},"
                                           "\"clientInfo\":{\"name\":\"claude-desktop\",\"version\":\"1\"}}}\n",
                                           version);
  g_autoptr(JsonObject) result = NULL;

  client_send (s, line, -1);
  result = client_expect_result (s, "init");
  g_assert_cmpstr (json_object_get_string_member (result, "protocolVersion"), ==, version);
}

static char *
serve_reason (Stdio *s)
{
  g_autoptr(GError) error = NULL;
  char *reason;

  lumo_test_wait_until (lumo_test_is_set, &s->result, "the stdio session to end");
  reason = lumo_gateway_stdio_serve_finish (s->result, &error);
  g_assert_no_error (error);
  return reason;
}

/* ---- tests -------------------------------------------------------------- */

/* initialize, a notification (no answer), tools/list, then the client
 * closes its output: the session ends, and the serve says "closed". */
static void
test_session (Stdio         *s,
              gconstpointer  data)
{
  g_autoptr(JsonObject) tools = NULL;
  g_autofree char *reason = NULL;

  client_initialize (s, "2025-06-18");
  client_send (s, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
                  "{\"jsonrpc\":\"2.0\",\"id\":\"list\",\"method\":\"tools/list\"}\n", -1);
  tools = client_expect_result (s, "list");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (tools, "tools")), ==, 0);

  pipe_close_writer (&s->to_app);
  reason = serve_reason (s);
  g_assert_cmpstr (reason, ==, "closed");
  g_assert_true (lumo_agent_session_is_closed (s->session));
}

/* Each bad line gets its one error, in order, and the stream goes on:
 * not JSON, not UTF-8, JSON that is no message, an envelope that is
 * wrong, a line over the bound (refused once, while it still arrives);
 * blank lines get nothing. */
static void
test_bad_lines (Stdio         *s,
                gconstpointer  data)
{
  g_autoptr(GString) long_line = g_string_new ("{\"jsonrpc\":\"2.0\",\"id\":\"long\",\"method\":\"ping\",\"p\":\"");
  g_autoptr(JsonObject) pong = NULL;

  client_initialize (s, "2025-06-18");
  client_send (s, "not json\n", -1);
  client_expect_error (s, NULL, LUMO_MCP_PARSE_ERROR);
  client_send (s, "{\"jsonrpc\":\"2.0\",\"id\":\"u\",\"method\":\"\xff\"}\n", -1);
  client_expect_error (s, NULL, LUMO_MCP_PARSE_ERROR);
  client_send (s, "\"just a string\"\n", -1);
  client_expect_error (s, NULL, LUMO_MCP_INVALID_REQUEST);
  client_send (s, "{}\n", -1);
  client_expect_error (s, NULL, LUMO_MCP_INVALID_REQUEST);
  client_send (s, "{\"jsonrpc\":\"2.0\",\"id\":\"v\",\"method\":42}\n", -1);
  client_expect_error (s, "v", LUMO_MCP_INVALID_REQUEST);

  /* Blank lines are nothing: the next answer is the ping's. */
  client_send (s, "\n\r\n   \n" PING ("after-blank"), -1);
  g_clear_pointer (&pong, json_object_unref);
  pong = client_expect_result (s, "after-blank");

  while (long_line->len < 2 * LUMO_LINE_MAX)
    g_string_append (long_line, "0123456789abcdef");
  g_string_append (long_line, "\"}\n" PING ("after-long"));
  client_send (s, long_line->str, long_line->len);
  client_expect_error (s, NULL, LUMO_MCP_INVALID_REQUEST);
  g_clear_pointer (&pong, json_object_unref);
  pong = client_expect_result (s, "after-long");
}

/* A batch under 2025-06-18 is refused whole; under 2025-03-26 each of its
 * requests is answered. */
static void
test_batch (Stdio         *s,
            gconstpointer  data)
{
  const char *batch = "[{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"ping\"},"
                      "{\"jsonrpc\":\"2.0\",\"id\":\"b\",\"method\":\"ping\"}]\n";
  g_autoptr(JsonObject) a = NULL;

  client_initialize (s, "2025-06-18");
  client_send (s, batch, -1);
  client_expect_error (s, NULL, LUMO_MCP_INVALID_REQUEST);
  client_send (s, PING ("next"), -1);
  a = client_expect_result (s, "next");
}

static void
test_batch_2025_03_26 (Stdio         *s,
                       gconstpointer  data)
{
  const char *batch = "[{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"ping\"},"
                      "{\"jsonrpc\":\"2.0\",\"id\":\"b\",\"method\":\"ping\"}]\n";
  g_autoptr(JsonObject) a = NULL;
  g_autoptr(JsonObject) b = NULL;

  client_initialize (s, "2025-03-26");
  client_send (s, batch, -1);
  a = client_expect_result (s, "a");
  b = client_expect_result (s, "b");
}

/* The agent is removed: its session ends, and so does the serve, with the
 * reason (the launcher prints it and exits 1). */
static void
test_session_ended (Stdio         *s,
                    gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *reason = NULL;

  client_initialize (s, "2025-06-18");
  g_assert_true (lumo_policy_remove_agent (s->env->policy, s->agent_id, LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_no_error (error);
  reason = serve_reason (s);
  g_assert_true (g_str_has_prefix (reason, "error: "));
  g_test_message ("%s", reason);
}

/* The client closes its end of our output: the next write finds it gone,
 * and the session ends as "closed". */
static void
test_client_gone (Stdio         *s,
                  gconstpointer  data)
{
  g_autofree char *reason = NULL;

  client_initialize (s, "2025-06-18");
  g_clear_object (&s->client);
  g_clear_object (&s->from_app.in);
  client_send (s, PING ("unheard"), -1);
  reason = serve_reason (s);
  g_assert_cmpstr (reason, ==, "closed");
  g_assert_true (lumo_agent_session_is_closed (s->session));
}

static void
add (const char *path,
     void      (*func) (Stdio *, gconstpointer))
{
  g_test_add (path, Stdio, NULL, stdio_set_up, func, stdio_tear_down);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  /* A write to a pipe whose reader is gone must fail, not kill us. */
  signal (SIGPIPE, SIG_IGN);

  add ("/gateway/stdio/session", test_session);
  add ("/gateway/stdio/bad-lines", test_bad_lines);
  add ("/gateway/stdio/batch", test_batch);
  add ("/gateway/stdio/batch-2025-03-26", test_batch_2025_03_26);
  add ("/gateway/stdio/session-ended", test_session_ended);
  add ("/gateway/stdio/client-gone", test_client_gone);

  return g_test_run ();
}
