/* test-gateway-http-stream.c — sessions over the endpoint, end to end
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A raw client over real sockets, the real gateway and a provider the
 * test plays on a detached bridge session: sessions while the provider is
 * away and once it is there, what goes on which SSE stream, the bounds
 * (a client that never reads, a thousand idle connections, sixteen
 * sessions, idle sessions), stopping, and that the token is found in no
 * log and no file.
 */
#include "config.h"

#include <string.h>

#include "gateway-http-test-util.h"
#include "lumo-agent-session.h"
#include "lumo-mcp.h"

/* Every message this process logs, debug included. */
static GString *logged;

static GLogWriterOutput
capture_log_writer (GLogLevelFlags   level,
                    const GLogField *fields,
                    gsize            n_fields,
                    gpointer         user_data)
{
  for (gsize i = 0; i < n_fields; i++)
    if (g_strcmp0 (fields[i].key, "MESSAGE") == 0)
      {
        g_string_append_len (logged, fields[i].value,
                             fields[i].length < 0 ? (gssize) strlen (fields[i].value) : fields[i].length);
        g_string_append_c (logged, '\n');
      }

  /* Debug is captured, not printed: the test log stays readable. */
  if (level & G_LOG_LEVEL_DEBUG)
    return G_LOG_WRITER_HANDLED;
  return g_log_writer_default (level, fields, n_fields, user_data);
}

typedef struct
{
  HttpCall   *call;
  const char *needle;
} Received;

static gboolean
has_received (gpointer data)
{
  Received *r = data;

  return http_call_has_received (r->call, r->needle);
}

static void
wait_received (HttpCall   *call,
               const char *needle)
{
  Received r = { call, needle };
  g_autofree char *what = g_strdup_printf ("the client to receive %s", needle);

  lumo_test_wait_until (has_received, &r, what);
}

static char *
session_request (Endpoint   *e,
                 const char *method,
                 const char *session_id,
                 const char *accept)
{
  g_autofree char *auth = endpoint_auth (e);
  g_autofree char *headers = g_strdup_printf ("%sMcp-Session-Id: %s\r\n%s", auth, session_id,
                                              accept != NULL ? accept : "");

  return endpoint_request (e, method, "/mcp/userscripts", headers, NULL);
}

/* A GET of the session's standalone stream, open once its headers came. */
static HttpCall *
open_standalone (Endpoint   *e,
                 const char *session_id)
{
  g_autofree char *request = session_request (e, "GET", session_id, "Accept: text/event-stream\r\n");
  HttpCall *call = http_call_start ("127.0.0.1", e->port, request, -1, 0);

  wait_received (call, "\r\n\r\n");
  if (!http_call_has_received (call, "HTTP/1.1 200 OK"))
    {
      g_autoptr(HttpReply) reply = http_call_finish (call);

      g_error ("The GET was answered %u: %s\n%s", reply->status, reply->head, reply->body);
    }
  g_assert_true (http_call_has_received (call, "Content-Type: text/event-stream"));
  return call;
}

static void
provider_answer (Endpoint   *e,
                 const char *port,
                 gint64      id,
                 const char *result_json)
{
  g_autofree char *message = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%" G_GINT64_FORMAT ",\"result\":%s}",
                                              id, result_json);

  endpoint_provider_push (e, port, message);
}

#define SERVER_INITIALIZED \
  "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{\"listChanged\":true}}," \
  "\"serverInfo\":{\"name\":\"lumo-userscripts\",\"version\":\"1.0.1\"}}"

/* initialize, relayed to the connected provider; returns the session id
 * and (in @port) the virtual port that serves it. */
static char *
initialize_relayed (Endpoint  *e,
                    char     **port)
{
  g_autofree char *request = endpoint_post_request (e, NULL, NULL, ENDPOINT_INITIALIZE ("1", "2025-06-18"));
  HttpCall *call = http_call_start ("127.0.0.1", e->port, request, -1, 0);
  g_autoptr(HttpReply) reply = NULL;
  g_autoptr(GPtrArray) answers = NULL;
  g_autofree char *port_id = endpoint_provider_open (e);
  JsonObject *result;

  provider_answer (e, port_id, endpoint_provider_expect (e, "initialize"), SERVER_INITIALIZED);

  reply = http_call_finish (call);
  g_assert_cmpuint (reply->status, ==, 200);
  answers = endpoint_messages (reply);
  g_assert_cmpuint (answers->len, ==, 1);
  g_assert_cmpint (json_object_get_int_member (g_ptr_array_index (answers, 0), "id"), ==, 1);
  result = json_object_get_object_member (g_ptr_array_index (answers, 0), "result");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (result, "serverInfo"), "name"),
                   ==, "lumo-userscripts");

  if (port != NULL)
    *port = g_steal_pointer (&port_id);
  return http_reply_header (reply, "Mcp-Session-Id");
}

/* While the provider is away the session answers by itself, as MCP: a
 * notification is 202 with no body, tools/list is empty, tools/call a
 * tool error; DELETE ends the session. */
static void
test_away (Endpoint      *e,
           gconstpointer  data)
{
  g_autofree char *session_id = endpoint_initialize (e, "2025-06-18");
  g_autoptr(HttpReply) initialized = endpoint_post (e, session_id, "2025-06-18",
                                                    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
  g_autoptr(HttpReply) list = endpoint_post (e, session_id, "2025-06-18",
                                             "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}");
  g_autoptr(HttpReply) call = endpoint_post (e, session_id, "2025-06-18",
                                             "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\","
                                             "\"params\":{\"name\":\"userscripts_list_scripts\",\"arguments\":{}}}");
  g_autoptr(GPtrArray) tools = endpoint_messages (list);
  g_autoptr(GPtrArray) results = endpoint_messages (call);
  g_autofree char *content_type = http_reply_header (list, "Content-Type");
  JsonObject *result;

  g_assert_cmpuint (initialized->status, ==, 202);
  g_assert_cmpuint (initialized->body_len, ==, 0);

  /* One request answered at once: one JSON object, no stream. */
  g_assert_cmpuint (list->status, ==, 200);
  g_assert_cmpstr (content_type, ==, "application/json");
  g_assert_cmpuint (tools->len, ==, 1);
  result = json_object_get_object_member (g_ptr_array_index (tools, 0), "result");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (result, "tools")), ==, 0);

  g_assert_cmpuint (results->len, ==, 1);
  result = json_object_get_object_member (g_ptr_array_index (results, 0), "result");
  g_assert_true (json_object_get_boolean_member (result, "isError"));
}

/* With the provider there: initialize is relayed (its answer carries the
 * agent's own id), and a tool call's progress goes on that call's POST
 * stream, which ends with the call's answer. */
static void
test_relay (Endpoint      *e,
            gconstpointer  data)
{
  g_autofree char *port = NULL;
  g_autofree char *session_id = NULL;
  g_autofree char *request = NULL;
  g_autoptr(HttpReply) initialized = NULL;
  g_autoptr(HttpReply) reply = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(JsonObject) note = NULL;
  HttpCall *call;
  gint64 id;

  endpoint_provider_hello (e);
  session_id = initialize_relayed (e, &port);

  initialized = endpoint_post (e, session_id, "2025-06-18",
                               "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
  g_assert_cmpuint (initialized->status, ==, 202);
  note = endpoint_provider_recv (e);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (note, "message"), "method"),
                   ==, "notifications/initialized");

  request = endpoint_post_request (e, session_id, "2025-06-18",
                                   "{\"jsonrpc\":\"2.0\",\"id\":\"call-5\",\"method\":\"tools/call\",\"params\":"
                                   "{\"name\":\"list_scripts\",\"arguments\":{},\"_meta\":{\"progressToken\":\"tok\"}}}");
  call = http_call_start ("127.0.0.1", e->port, request, -1, 0);
  id = endpoint_provider_expect (e, "tools/call");
  endpoint_provider_push (e, port, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\","
                                   "\"params\":{\"progressToken\":\"tok\",\"progress\":1,\"total\":2}}");
  /* The stream is open and carries the progress before the answer. */
  wait_received (call, "notifications/progress");
  provider_answer (e, port, id, "{\"content\":[{\"type\":\"text\",\"text\":\"3 scripts\"}]}");

  reply = http_call_finish (call);
  g_assert_cmpuint (reply->status, ==, 200);
  events = endpoint_messages (reply);
  g_assert_cmpuint (events->len, ==, 2);
  g_assert_cmpstr (json_object_get_string_member (g_ptr_array_index (events, 0), "method"), ==,
                   "notifications/progress");
  g_assert_cmpstr (json_object_get_string_member (g_ptr_array_index (events, 1), "id"), ==, "call-5");
  g_assert_true (json_object_has_member (g_ptr_array_index (events, 1), "result"));
}

/* tools/call of the relayed session, sent; returns the id the provider
 * got it under. */
static gint64
start_call (Endpoint    *e,
            const char  *session_id,
            HttpCall   **call)
{
  g_autofree char *request = endpoint_post_request (e, session_id, "2025-06-18",
                                                    "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\","
                                                    "\"params\":{\"name\":\"list_scripts\",\"arguments\":{}}}");

  *call = http_call_start ("127.0.0.1", e->port, request, -1, 0);
  return endpoint_provider_expect (e, "tools/call");
}

/* One request with nothing before its answer: the headers wait for it,
 * and it comes as one JSON object with its Content-Length, no stream. */
static void
test_json_answer (Endpoint      *e,
                  gconstpointer  data)
{
  g_autofree char *port = NULL;
  g_autofree char *session_id = NULL;
  g_autoptr(HttpReply) reply = NULL;
  g_autoptr(GPtrArray) answers = NULL;
  g_autofree char *content_type = NULL;
  g_autofree char *encoding = NULL;
  HttpCall *call;
  gint64 id;

  endpoint_provider_hello (e);
  session_id = initialize_relayed (e, &port);
  id = start_call (e, session_id, &call);
  provider_answer (e, port, id, "{\"content\":[{\"type\":\"text\",\"text\":\"3 scripts\"}]}");

  reply = http_call_finish (call);
  g_assert_cmpuint (reply->status, ==, 200);
  content_type = http_reply_header (reply, "Content-Type");
  encoding = http_reply_header (reply, "Transfer-Encoding");
  g_assert_cmpstr (content_type, ==, "application/json");
  g_assert_null (encoding);
  answers = endpoint_messages (reply);
  g_assert_cmpuint (answers->len, ==, 1);
  g_assert_cmpint (json_object_get_int_member (g_ptr_array_index (answers, 0), "id"), ==, 7);
  g_assert_true (json_object_has_member (g_ptr_array_index (answers, 0), "result"));
}

/* An answer that takes longer than the keep-alive goes as a stream: the
 * comment, which finds out a client that went, then the answer. */
static void
test_slow_answer_streams (Endpoint      *e,
                          gconstpointer  data)
{
  g_autofree char *port = NULL;
  g_autofree char *session_id = NULL;
  g_autoptr(HttpReply) reply = NULL;
  g_autoptr(GPtrArray) answers = NULL;
  HttpCall *call;
  gint64 id;

  _lumo_gateway_http_set_deadlines (e->http, LUMO_GATEWAY_HTTP_SESSION_IDLE_S * 1000,
                                    LUMO_GATEWAY_HTTP_STALL_TIMEOUT_S * 1000, 50);
  endpoint_provider_hello (e);
  session_id = initialize_relayed (e, &port);
  id = start_call (e, session_id, &call);
  wait_received (call, ": keepalive");
  g_assert_true (http_call_has_received (call, "Content-Type: text/event-stream"));
  provider_answer (e, port, id, "{\"content\":[]}");

  reply = http_call_finish (call);
  g_assert_cmpuint (reply->status, ==, 200);
  answers = endpoint_messages (reply);
  g_assert_cmpuint (answers->len, ==, 1);
  g_assert_cmpint (json_object_get_int_member (g_ptr_array_index (answers, 0), "id"), ==, 7);
}

/* The session ends while an answer is held: the call still gets its
 * answer (a tool error: the call is lost), whole. */
static void
test_held_session_ends (Endpoint      *e,
                        gconstpointer  data)
{
  g_autofree char *port = NULL;
  g_autofree char *session_id = NULL;
  g_autofree char *request = NULL;
  g_autoptr(HttpReply) deleted = NULL;
  g_autoptr(HttpReply) reply = NULL;
  g_autoptr(GPtrArray) answers = NULL;
  HttpCall *call;

  endpoint_provider_hello (e);
  session_id = initialize_relayed (e, &port);
  start_call (e, session_id, &call);
  request = session_request (e, "DELETE", session_id, NULL);
  deleted = endpoint_exchange (e, request);
  g_assert_cmpuint (deleted->status, ==, 200);

  reply = http_call_finish (call);
  g_assert_cmpuint (reply->status, ==, 200);
  answers = endpoint_messages (reply);
  g_assert_cmpuint (answers->len, ==, 1);
  g_assert_cmpint (json_object_get_int_member (g_ptr_array_index (answers, 0), "id"), ==, 7);
  /* A tool call that is lost is a tool error, as MCP. */
  g_assert_true (json_object_get_boolean_member (json_object_get_object_member (g_ptr_array_index (answers, 0),
                                                                                "result"), "isError"));
}

/* GET opens the one standalone stream (a second is 409); when the
 * provider comes back, tools/list_changed arrives there. A client that
 * goes away silently is found by the keep-alive, and a new GET may open. */
static gboolean
has_no_connections (gpointer listener)
{
  return lumo_gateway_listener_get_n_connections (listener) == 0;
}

static void
test_standalone (Endpoint      *e,
                 gconstpointer  data)
{
  g_autofree char *session_id = endpoint_initialize (e, "2025-06-18");
  g_autofree char *request = session_request (e, "GET", session_id, "Accept: text/event-stream\r\n");
  g_autofree char *port = NULL;
  g_autoptr(HttpReply) second = NULL;
  g_autoptr(HttpReply) first = NULL;
  g_autoptr(JsonObject) note = NULL;
  g_autoptr(HttpReply) initialized = endpoint_post (e, session_id, NULL,
                                                    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
  HttpCall *call;
  HttpCall *again;

  g_assert_cmpuint (initialized->status, ==, 202);
  _lumo_gateway_http_set_deadlines (e->http, LUMO_GATEWAY_HTTP_SESSION_IDLE_S * 1000,
                                    LUMO_GATEWAY_HTTP_STALL_TIMEOUT_S * 1000, 50);
  call = open_standalone (e, session_id);
  second = endpoint_exchange (e, request);
  endpoint_assert_error (second, 409, LUMO_MCP_SERVER_ERROR);

  /* The provider says hello: the session gets a port, its initialize is
   * replayed, and the agent hears the tools changed. */
  endpoint_provider_hello (e);
  port = endpoint_provider_open (e);
  provider_answer (e, port, endpoint_provider_expect (e, "initialize"), SERVER_INITIALIZED);
  note = endpoint_provider_recv (e);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (note, "message"), "method"),
                   ==, "notifications/initialized");
  wait_received (call, "notifications/tools/list_changed");

  /* The client goes without a word; the keep-alive finds it, and a new
   * GET may open the stream again. */
  http_call_hang_up (call);
  first = http_call_finish (call);
  g_assert_cmpuint (first->status, ==, 200);
  lumo_test_wait_until (has_no_connections, _lumo_gateway_http_get_listener (e->http),
                        "the keep-alive to find the client gone");
  again = open_standalone (e, session_id);
  wait_received (again, ": keepalive");
  http_call_hang_up (again);
  g_clear_pointer (&first, http_reply_free);
  first = http_call_finish (again);
}

static gboolean
has_no_sessions (gpointer e)
{
  return endpoint_n_sessions (e) == 0;
}

static char *
big_notification (void)
{
  g_autofree char *filler = g_strnfill (512 * 1024, 'x');

  return g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\","
                          "\"params\":{\"level\":\"info\",\"data\":\"%s\"}}", filler);
}

/* The provider pushes big notifications on @port until @done holds (at
 * most 16 session bounds' worth); returns how many bytes it pushed. */
static gsize
push_until (Endpoint          *e,
            const char        *port,
            LumoTestCondition  done,
            gpointer           data)
{
  g_autofree char *push = big_notification ();
  gsize pushed = 0;

  while (!done (data))
    {
      g_assert_cmpuint (pushed, <, 16 * LUMO_AGENT_SESSION_MAX_QUEUED_BYTES);
      endpoint_provider_push (e, port, push);
      pushed += strlen (push);
      lumo_test_drain ();
    }

  return pushed;
}

/* A client that never reads its SSE stream: the session ends once more
 * than its bound waits unread — not before — and when the client goes,
 * its connection goes too. The stall deadline is out of the way here. */
static void
test_slow_reader_bound (Endpoint      *e,
                        gconstpointer  data)
{
  LumoGatewayListener *listener = _lumo_gateway_http_get_listener (e->http);
  g_autofree char *port = NULL;
  g_autofree char *session_id = NULL;
  g_autoptr(HttpReply) reply = NULL;
  gsize pushed;
  HttpCall *call;

  _lumo_gateway_http_set_deadlines (e->http, LUMO_GATEWAY_HTTP_SESSION_IDLE_S * 1000,
                                    10 * LUMO_TEST_WAIT_DEADLINE_S * 1000,
                                    10 * LUMO_TEST_WAIT_DEADLINE_S * 1000);
  endpoint_provider_hello (e);
  session_id = initialize_relayed (e, &port);
  call = open_standalone (e, session_id);
  http_call_stop_reading (call);

  pushed = push_until (e, port, has_no_sessions, e);
  g_test_message ("The session ended after %" G_GSIZE_FORMAT " bytes pushed", pushed);
  /* Not before its bound: the kernel's buffers take some, the rest waits. */
  g_assert_cmpuint (pushed, >, LUMO_AGENT_SESSION_MAX_QUEUED_BYTES);

  http_call_hang_up (call);
  reply = http_call_finish (call);
  lumo_test_wait_until (has_no_connections, listener, "the stream's connection to close");
}

/* A stream whose client takes nothing of what waits for it is cut off
 * with its connection once the stall deadline passes (lowered here), so
 * a client that stops reading holds no connection. */
static void
test_stalled_stream (Endpoint      *e,
                     gconstpointer  data)
{
  LumoGatewayListener *listener = _lumo_gateway_http_get_listener (e->http);
  g_autofree char *port = NULL;
  g_autofree char *session_id = NULL;
  g_autoptr(HttpReply) reply = NULL;
  gsize pushed;
  HttpCall *call;

  _lumo_gateway_http_set_deadlines (e->http, LUMO_GATEWAY_HTTP_SESSION_IDLE_S * 1000, 100,
                                    LUMO_GATEWAY_HTTP_KEEPALIVE_S * 1000);
  endpoint_provider_hello (e);
  session_id = initialize_relayed (e, &port);
  call = open_standalone (e, session_id);
  http_call_stop_reading (call);

  /* Until the kernel's buffers are full and the stream stalls. */
  pushed = push_until (e, port, has_no_connections, listener);
  g_test_message ("The stream was cut off after %" G_GSIZE_FORMAT " bytes pushed", pushed);

  http_call_hang_up (call);
  reply = http_call_finish (call);
}

/* 1,000 connections that never send a byte: the endpoint keeps at most
 * its cap of them, its descriptors stay bounded, and an agent still gets
 * its session. */
static gboolean
is_within_cap (gpointer listener)
{
  return lumo_gateway_listener_get_n_connections (listener) <= LUMO_GATEWAY_LISTENER_MAX_CONNECTIONS;
}

static void
test_idle_flood (Endpoint      *e,
                 gconstpointer  data)
{
  LumoGatewayListener *listener = _lumo_gateway_http_get_listener (e->http);
  g_autoptr(GPtrArray) clients = NULL;
  g_autofree char *session_id = NULL;
  const guint n_clients = 1000;
  guint baseline;
  guint fds;

  http_raise_fd_limit (n_clients + LUMO_GATEWAY_LISTENER_MAX_CONNECTIONS + 256);
  baseline = http_count_open_fds ();
  clients = http_open_idle (e->port, n_clients, (HttpAcceptedFunc) _lumo_gateway_listener_get_n_accepted,
                            listener);
  lumo_test_wait_until (is_within_cap, listener, "the oldest idle connections to close");
  fds = http_count_open_fds ();
  g_test_message ("%u descriptors with %u idle clients (%u before)", fds, n_clients, baseline);
  g_assert_cmpuint (fds, <=, baseline + n_clients + LUMO_GATEWAY_LISTENER_MAX_CONNECTIONS + 8);

  session_id = endpoint_initialize (e, "2025-06-18");
  g_assert_cmpuint (endpoint_n_sessions (e), ==, 1);

  g_ptr_array_set_size (clients, 0);
  lumo_test_wait_until (has_no_connections, listener, "the idle connections to close");
}

/* Sixteen busy sessions (each with its stream open): the 17th initialize
 * is refused with 429 until one ends. When the agent left one idle, it
 * gives way to the new one. */
static void
test_session_limit (Endpoint      *e,
                    gconstpointer  data)
{
  g_autoptr(GPtrArray) ids = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) streams = g_ptr_array_new ();
  g_autofree char *seventeenth = NULL;
  g_autofree char *eighteenth = NULL;
  g_autofree char *delete_request = NULL;
  g_autoptr(HttpReply) refused = NULL;
  g_autoptr(HttpReply) deleted = NULL;
  g_autoptr(HttpReply) gone = NULL;

  for (guint i = 0; i < LUMO_GATEWAY_MAX_SESSIONS_PER_AGENT; i++)
    {
      char *id = endpoint_initialize (e, "2025-06-18");

      g_ptr_array_add (ids, id);
      g_ptr_array_add (streams, open_standalone (e, id));
    }

  refused = endpoint_post (e, NULL, NULL, ENDPOINT_INITIALIZE ("1", "2025-06-18"));
  endpoint_assert_error (refused, 429, LUMO_MCP_SERVER_ERROR);
  g_assert_cmpuint (endpoint_n_sessions (e), ==, LUMO_GATEWAY_MAX_SESSIONS_PER_AGENT);

  /* One ends: there is room. */
  delete_request = session_request (e, "DELETE", g_ptr_array_index (ids, 0), NULL);
  deleted = endpoint_exchange (e, delete_request);
  g_assert_cmpuint (deleted->status, ==, 200);
  seventeenth = endpoint_initialize (e, "2025-06-18");

  /* Full again, and the new one is idle (no stream): the next initialize
   * ends it and takes its place. */
  eighteenth = endpoint_initialize (e, "2025-06-18");
  gone = endpoint_post (e, seventeenth, NULL, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
  endpoint_assert_error (gone, 404, LUMO_MCP_SESSION_NOT_FOUND);
  g_assert_cmpuint (endpoint_n_sessions (e), ==, LUMO_GATEWAY_MAX_SESSIONS_PER_AGENT);

  for (guint i = 0; i < streams->len; i++)
    {
      HttpCall *call = g_ptr_array_index (streams, i);

      http_call_hang_up (call);
      http_reply_free (http_call_finish (call));
    }
}

/* A session left without a stream and a request for its idle deadline
 * ends; the client then gets 404 and starts a new one. */
static void
test_idle_session (Endpoint      *e,
                   gconstpointer  data)
{
  g_autofree char *session_id = NULL;
  g_autoptr(HttpReply) gone = NULL;

  _lumo_gateway_http_set_deadlines (e->http, 100, LUMO_GATEWAY_HTTP_STALL_TIMEOUT_S * 1000,
                                    LUMO_GATEWAY_HTTP_KEEPALIVE_S * 1000);
  session_id = endpoint_initialize (e, "2025-06-18");
  lumo_test_wait_until (has_no_sessions, e, "the idle session to end");
  gone = endpoint_post (e, session_id, NULL, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
  endpoint_assert_error (gone, 404, LUMO_MCP_SESSION_NOT_FOUND);
}

/* Stopping ends the sessions and their streams, and the port refuses. */
static void
test_stop (Endpoint      *e,
           gconstpointer  data)
{
  g_autofree char *session_id = endpoint_initialize (e, "2025-06-18");
  HttpCall *call = open_standalone (e, session_id);
  g_autoptr(HttpReply) reply = NULL;
  g_autoptr(GError) refused = NULL;

  lumo_gateway_http_stop (e->http);
  g_assert_cmpint (lumo_gateway_http_get_state (e->http), ==, LUMO_GATEWAY_LISTENER_OFF);
  g_assert_cmpuint (endpoint_n_sessions (e), ==, 0);
  reply = http_call_finish (call);
  g_assert_true (reply->closed);
  refused = http_connect_error ("127.0.0.1", e->port);
  g_assert_error (refused, G_IO_ERROR, G_IO_ERROR_CONNECTION_REFUSED);
}

static guint
assert_dir_lacks (const char *dir,
                  const char *needle)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  guint n = 0;

  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);

      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        n += assert_dir_lacks (path, needle);
      else
        {
          if (lumo_test_file_contains (path, needle))
            g_error ("%s holds the token", path);
          n++;
        }
    }

  return n;
}

/* The token goes through the whole path (a good request, a wrong one, a
 * refused one, a session that is used and ended) and is then found in no
 * log line (debug included) and in no file of the data directory. */
static void
test_token_kept_nowhere (Endpoint      *e,
                         gconstpointer  data)
{
  const char *secret = e->token + strlen (e->token) - 43;
  g_autofree char *wrong = g_strdup (e->token);
  g_autofree char *session_id = NULL;
  g_autofree char *saved = NULL;
  g_autofree char *delete_request = NULL;
  g_autoptr(GError) error = NULL;
  guint n_files;

  g_string_truncate (logged, 0);
  session_id = endpoint_initialize (e, "2025-06-18");
  http_reply_free (endpoint_post (e, session_id, NULL, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}"));
  http_reply_free (endpoint_post (e, session_id, NULL, "{"));
  wrong[strlen (wrong) - 1] = wrong[strlen (wrong) - 1] == 'A' ? 'B' : 'A';
  saved = g_steal_pointer (&e->token);
  e->token = g_strdup (wrong);
  http_reply_free (endpoint_post (e, NULL, NULL, ENDPOINT_INITIALIZE ("1", "2025-06-18")));
  g_free (e->token);
  e->token = g_steal_pointer (&saved);
  delete_request = session_request (e, "DELETE", session_id, NULL);
  http_reply_free (endpoint_exchange (e, delete_request));

  /* Everything the stores hold is on disk. Reading their files drops this
   * process's SQLite locks on them; no other process opens them here. */
  g_assert_true (lumo_policy_flush (e->env->policy, &error));
  g_assert_no_error (error);

  /* The capture works: the refusal of the wrong token was logged. */
  g_assert_nonnull (strstr (logged->str, "401: "));
  g_assert_null (strstr (logged->str, secret));
  g_assert_null (strstr (logged->str, wrong + strlen (wrong) - 43));
  n_files = assert_dir_lacks (e->env->dir, secret);
  g_test_message ("%u files and %" G_GSIZE_FORMAT " bytes of log hold no token", n_files, logged->len);
  g_assert_cmpuint (n_files, >, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  logged = g_string_new (NULL);
  g_log_set_writer_func (capture_log_writer, NULL, NULL);
  g_log_set_debug_enabled (TRUE);

  endpoint_add ("/gateway/http/away", test_away);
  endpoint_add ("/gateway/http/relay", test_relay);
  endpoint_add ("/gateway/http/json-answer", test_json_answer);
  endpoint_add ("/gateway/http/slow-answer-streams", test_slow_answer_streams);
  endpoint_add ("/gateway/http/held-session-ends", test_held_session_ends);
  endpoint_add ("/gateway/http/standalone", test_standalone);
  endpoint_add ("/gateway/http/slow-reader-bound", test_slow_reader_bound);
  endpoint_add ("/gateway/http/stalled-stream", test_stalled_stream);
  endpoint_add ("/gateway/http/idle-flood", test_idle_flood);
  endpoint_add ("/gateway/http/session-limit", test_session_limit);
  endpoint_add ("/gateway/http/idle-session", test_idle_session);
  endpoint_add ("/gateway/http/stop", test_stop);
  endpoint_add ("/gateway/http/token-kept-nowhere", test_token_kept_nowhere);

  return g_test_run ();
}
