/* test-gateway-http.c — the endpoint refuses what it must, in its order
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Over real loopback sockets with a raw client (it sends what no HTTP
 * library sends): every check of lumo-gateway-http.h, each with a request
 * that fails it and nothing else, and the order between them where the
 * order is the defence (Host before the token, the token before the
 * provider). "Nothing done" is checked as no session opened and no caller
 * made pending.
 */
#include "config.h"

#include <string.h>

#include "gateway-http-test-util.h"
#include "lumo-gateway-http-rules.h"
#include "lumo-mcp.h"

#define POST_HEADERS "Accept: application/json, text/event-stream\r\n"
#define INIT ENDPOINT_INITIALIZE ("1", "2025-06-18")

static void
assert_no_pending (Endpoint *e)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) pending = lumo_policy_list_callers (e->env->policy, NULL, LUMO_CALLER_STATE_PENDING,
                                                           &error);

  g_assert_no_error (error);
  g_assert_cmpuint (pending->len, ==, 0);
}

/* A reply must never carry the token back. */
static void
assert_no_token (Endpoint  *e,
                 HttpReply *reply)
{
  const char *secret = e->token + strlen (e->token) - 43;

  g_assert_null (strstr (reply->head != NULL ? reply->head : "", secret));
  g_assert_null (strstr (reply->body != NULL ? reply->body : "", secret));
}

/* No token, another scheme, a malformed one, a wrong one, a removed
 * agent's, a denied agent's: 401 with WWW-Authenticate: Bearer, and no
 * session, no pending caller. */
static void
test_token (Endpoint      *e,
            gconstpointer  data)
{
  g_autofree char *wrong = g_strdup (e->token);
  g_autofree char *wrong_header = NULL;
  g_autoptr(GError) error = NULL;
  const char *headers[] = {
    POST_HEADERS,
    "Authorization: Basic YWxhZGRpbjpvcGVuc2VzYW1l\r\n" POST_HEADERS,
    "Authorization: Bearer\r\n" POST_HEADERS,
    "Authorization: Bearer not a token\r\n" POST_HEADERS,
    "Authorization: Bearer lumo_\r\n" POST_HEADERS,
    NULL,
  };

  wrong[60] = wrong[60] == 'A' ? 'B' : 'A';
  wrong_header = g_strdup_printf ("Authorization: Bearer %s\r\n" POST_HEADERS, wrong);
  headers[G_N_ELEMENTS (headers) - 1] = wrong_header;

  for (guint i = 0; i < G_N_ELEMENTS (headers); i++)
    {
      g_autofree char *request = endpoint_request (e, "POST", "/mcp/userscripts", headers[i], INIT);
      g_autoptr(HttpReply) reply = endpoint_exchange (e, request);
      g_autofree char *challenge = NULL;

      endpoint_assert_error (reply, 401, LUMO_MCP_SERVER_ERROR);
      challenge = http_reply_header (reply, "WWW-Authenticate");
      g_assert_cmpstr (challenge, ==, "Bearer");
      assert_no_token (e, reply);
    }
  g_assert_cmpuint (endpoint_n_sessions (e), ==, 0);
  assert_no_pending (e);

  /* Denied on the provider, then removed: the same answer. */
  g_assert_true (lumo_policy_deny_caller (e->env->policy, TEST_PROVIDER_ID, e->agent_id,
                                          LUMO_POLICY_ORIGIN_UI, &error));
  {
    g_autoptr(HttpReply) reply = endpoint_post (e, NULL, NULL, INIT);

    endpoint_assert_error (reply, 401, LUMO_MCP_SERVER_ERROR);
  }
  g_assert_true (lumo_policy_remove_agent (e->env->policy, e->agent_id, LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_no_error (error);
  {
    g_autoptr(HttpReply) reply = endpoint_post (e, NULL, NULL, INIT);
    g_autofree char *challenge = NULL;

    endpoint_assert_error (reply, 401, LUMO_MCP_SERVER_ERROR);
    challenge = http_reply_header (reply, "WWW-Authenticate");
    g_assert_cmpstr (challenge, ==, "Bearer");
  }
  g_assert_cmpuint (endpoint_n_sessions (e), ==, 0);
}

/* A foreign Host or Origin is refused with 403 before the token is looked
 * at: with a wrong token too the answer is 403, not 401. The endpoint's
 * own names pass. */
static void
test_host_origin (Endpoint      *e,
                  gconstpointer  data)
{
  g_autofree char *auth = endpoint_auth (e);
  /* The Host names, and an Origin after it (none: ""). */
  const struct { const char *host; const char *origin; } foreign[] = {
    { "evil.example", "" },
    { "localhost.evil.example", "" },
    { "127.0.0.1", "Origin: http://evil.example\r\n" },
    { "127.0.0.1", "Origin: null\r\n" },
    { "127.0.0.1", "Origin: https://localhost\r\n" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (foreign); i++)
    for (guint with_token = 0; with_token < 2; with_token++)
      {
        g_autofree char *host = g_strdup_printf ("Host: %s:%u\r\n%s", foreign[i].host, e->port,
                                                 foreign[i].origin);
        g_autofree char *request =
          g_strdup_printf ("POST /mcp/userscripts HTTP/1.1\r\n%s%sConnection: close\r\n" POST_HEADERS
                           "Content-Type: application/json\r\nContent-Length: %" G_GSIZE_FORMAT "\r\n\r\n%s",
                           host, with_token ? auth : "Authorization: Bearer wrong\r\n", strlen (INIT), INIT);
        g_autoptr(HttpReply) reply = endpoint_exchange (e, request);

        endpoint_assert_error (reply, 403, LUMO_MCP_SERVER_ERROR);
      }
  g_assert_cmpuint (endpoint_n_sessions (e), ==, 0);

  /* localhost, and the endpoint's own origin, are the endpoint. */
  {
    g_autofree char *request =
      g_strdup_printf ("POST /mcp/userscripts HTTP/1.1\r\nHost: localhost:%u\r\nOrigin: http://localhost:%u\r\n"
                       "%sConnection: close\r\n" POST_HEADERS
                       "Content-Type: application/json\r\nContent-Length: %" G_GSIZE_FORMAT "\r\n\r\n%s",
                       e->port, e->port, auth, strlen (INIT), INIT);
    g_autoptr(HttpReply) reply = endpoint_exchange (e, request);

    g_assert_cmpuint (reply->status, ==, 200);
  }
}

/* An unknown namespace or path is 404 — after the token (a wrong token is
 * 401 there too); another method is 405 with Allow; what the client must
 * accept or send is 406 and 415. */
static void
test_path_method_types (Endpoint      *e,
                        gconstpointer  data)
{
  g_autofree char *auth = endpoint_auth (e);
  g_autofree char *post_headers = g_strconcat (auth, POST_HEADERS, NULL);
  struct { const char *method; const char *path; const char *headers; const char *body; guint status; } cases[] = {
    { "POST", "/mcp/nosuch", post_headers, INIT, 404 },
    { "POST", "/mcp", post_headers, INIT, 404 },
    { "POST", "/sse", post_headers, INIT, 404 },
    { "POST", "/mcp/nosuch", "Authorization: Bearer wrong\r\n" POST_HEADERS, INIT, 401 },
    { "PUT", "/mcp/userscripts", post_headers, INIT, 405 },
    { "OPTIONS", "/mcp/userscripts", post_headers, NULL, 405 },
    { "POST", "/mcp/userscripts", auth, INIT, 406 },
    { "GET", "/mcp/userscripts", auth, NULL, 406 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *request = endpoint_request (e, cases[i].method, cases[i].path, cases[i].headers,
                                                   cases[i].body);
      g_autoptr(HttpReply) reply = endpoint_exchange (e, request);

      endpoint_assert_error (reply, cases[i].status, LUMO_MCP_SERVER_ERROR);
      if (cases[i].status == 405)
        {
          g_autofree char *allow = http_reply_header (reply, "Allow");

          g_assert_cmpstr (allow, ==, "GET, POST, DELETE");
        }
    }

  /* Accept without one of the two types; a body that is not JSON's. */
  {
    g_autofree char *headers = g_strconcat (auth, "Accept: application/json\r\n", NULL);
    g_autofree char *request = endpoint_request (e, "POST", "/mcp/userscripts", headers, INIT);
    g_autoptr(HttpReply) reply = endpoint_exchange (e, request);

    endpoint_assert_error (reply, 406, LUMO_MCP_SERVER_ERROR);
  }
  {
    g_autofree char *request =
      g_strdup_printf ("POST /mcp/userscripts HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nConnection: close\r\n%s"
                       POST_HEADERS "Content-Type: text/plain\r\nContent-Length: %" G_GSIZE_FORMAT "\r\n\r\n%s",
                       e->port, auth, strlen (INIT), INIT);
    g_autoptr(HttpReply) reply = endpoint_exchange (e, request);

    endpoint_assert_error (reply, 415, LUMO_MCP_SERVER_ERROR);
  }
  g_assert_cmpuint (endpoint_n_sessions (e), ==, 0);
}

/* After initialize a request without Mcp-Session-Id is 400; an unknown
 * id, another agent's, or an ended one is 404 (the client re-initializes). */
static void
test_session_id (Endpoint      *e,
                 gconstpointer  data)
{
  const char *providers[] = { TEST_PROVIDER_ID, NULL };
  const char *list = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}";
  g_autofree char *session_id = endpoint_initialize (e, "2025-06-18");
  g_autofree char *other_id = NULL;
  g_autofree char *other_token = NULL;
  g_autofree char *other_session = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(HttpReply) missing = NULL;
  g_autoptr(HttpReply) unknown = NULL;
  g_autoptr(HttpReply) foreign = NULL;
  g_autoptr(HttpReply) deleted = NULL;
  g_autoptr(HttpReply) ended = NULL;
  g_autoptr(HttpReply) get = NULL;
  g_autofree char *auth = endpoint_auth (e);
  g_autofree char *get_request = NULL;
  g_autofree char *delete_headers = NULL;
  g_autofree char *delete_request = NULL;
  g_autofree char *saved_token = NULL;

  g_assert_cmpuint (strlen (session_id), >=, 32);

  missing = endpoint_post (e, NULL, "2025-06-18", list);
  endpoint_assert_error (missing, 400, LUMO_MCP_SERVER_ERROR);
  unknown = endpoint_post (e, "0123456789abcdef0123456789abcdef", "2025-06-18", list);
  endpoint_assert_error (unknown, 404, LUMO_MCP_SESSION_NOT_FOUND);

  /* Another agent's session is unknown to this one. */
  g_assert_true (lumo_policy_add_agent (e->env->policy, "Cursor", providers, LUMO_POLICY_ORIGIN_UI,
                                        &other_id, &other_token, &error));
  saved_token = g_steal_pointer (&e->token);
  e->token = g_strdup (other_token);
  other_session = endpoint_initialize (e, "2025-06-18");
  g_free (e->token);
  e->token = g_steal_pointer (&saved_token);
  foreign = endpoint_post (e, other_session, "2025-06-18", list);
  endpoint_assert_error (foreign, 404, LUMO_MCP_SESSION_NOT_FOUND);

  {
    g_autofree char *with_auth = g_strconcat (auth, "Accept: text/event-stream\r\n", NULL);

    get_request = endpoint_request (e, "GET", "/mcp/userscripts", with_auth, NULL);
  }
  get = endpoint_exchange (e, get_request);
  endpoint_assert_error (get, 400, LUMO_MCP_SERVER_ERROR);

  /* DELETE ends it; then it is unknown. */
  delete_headers = g_strdup_printf ("%sMcp-Session-Id: %s\r\n", auth, session_id);
  delete_request = endpoint_request (e, "DELETE", "/mcp/userscripts", delete_headers, NULL);
  deleted = endpoint_exchange (e, delete_request);
  g_assert_cmpuint (deleted->status, ==, 200);
  ended = endpoint_post (e, session_id, "2025-06-18", list);
  endpoint_assert_error (ended, 404, LUMO_MCP_SESSION_NOT_FOUND);
  g_assert_cmpuint (endpoint_n_sessions (e), ==, 1);
}

/* After initialize, MCP-Protocol-Version is a version the SDK negotiates
 * (MCP: 400 for an "invalid or unsupported" one), or absent; an unknown
 * one is 400. Another known version is taken, and the session keeps the
 * rules of the one it settled: 2025-06-18 has no batches. */
static void
test_protocol_version (Endpoint      *e,
                       gconstpointer  data)
{
  const char *ping = "{\"jsonrpc\":\"2.0\",\"id\":\"p\",\"method\":\"ping\"}";
  const char *batch = "[{\"jsonrpc\":\"2.0\",\"id\":\"b\",\"method\":\"ping\"}]";
  g_autofree char *session_id = endpoint_initialize (e, "2025-06-18");
  const char *refused[] = { "2099-01-01", "", "2025-06-18x" };
  g_autoptr(HttpReply) batched = endpoint_post (e, session_id, "2025-03-26", batch);

  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    {
      g_autoptr(HttpReply) reply = endpoint_post (e, session_id, refused[i], ping);

      endpoint_assert_error (reply, 400, LUMO_MCP_SERVER_ERROR);
    }

  endpoint_assert_error (batched, 400, LUMO_MCP_INVALID_REQUEST);

  for (guint i = 0; i < 4; i++)
    {
      const char *versions[] = { "2025-06-18", NULL, "2025-03-26", "2025-11-25" };
      g_autoptr(HttpReply) reply = endpoint_post (e, session_id, versions[i], ping);
      g_autoptr(GPtrArray) messages = endpoint_messages (reply);

      g_assert_cmpuint (reply->status, ==, 200);
      g_assert_cmpuint (messages->len, ==, 1);
      g_assert_cmpstr (json_object_get_string_member (g_ptr_array_index (messages, 0), "id"), ==, "p");
    }
}

/* One byte over 1 MiB is 413, said up front (Content-Length) or found
 * while a chunked body is read; exactly 1 MiB is taken. Nothing opens. */
static void
test_body_too_large (Endpoint      *e,
                     gconstpointer  data)
{
  g_autofree char *auth = endpoint_auth (e);
  g_autoptr(GString) body = g_string_new (INIT);
  g_autoptr(GString) chunked = g_string_new (NULL);
  g_autoptr(HttpReply) said = NULL;
  g_autoptr(HttpReply) found = NULL;
  g_autoptr(HttpReply) exact = NULL;
  g_autofree char *connection = NULL;

  /* JSON allows the whitespace: an initialize of exactly 1 MiB + 1. */
  while (body->len < LUMO_GATEWAY_HTTP_MAX_BODY + 1)
    g_string_append_c (body, ' ');
  {
    g_autofree char *request = endpoint_post_request (e, NULL, NULL, body->str);

    said = endpoint_exchange (e, request);
  }
  endpoint_assert_error (said, 413, LUMO_MCP_INVALID_REQUEST);
  connection = http_reply_header (said, "Connection");
  g_assert_cmpstr (connection, ==, "close");

  g_string_append_printf (chunked, "POST /mcp/userscripts HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nConnection: close\r\n%s"
                          POST_HEADERS "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
                          e->port, auth);
  for (gsize sent = 0; sent < body->len; sent += 64 * 1024)
    {
      gsize n = MIN (64 * 1024, body->len - sent);

      g_string_append_printf (chunked, "%" G_GSIZE_MODIFIER "x\r\n", n);
      g_string_append_len (chunked, body->str + sent, n);
      g_string_append (chunked, "\r\n");
    }
  g_string_append (chunked, "0\r\n\r\n");
  found = http_exchange ("127.0.0.1", e->port, chunked->str, chunked->len, 0);
  endpoint_assert_error (found, 413, LUMO_MCP_INVALID_REQUEST);
  g_assert_cmpuint (endpoint_n_sessions (e), ==, 0);

  g_string_truncate (body, LUMO_GATEWAY_HTTP_MAX_BODY);
  {
    g_autofree char *request = endpoint_post_request (e, NULL, NULL, body->str);

    exact = endpoint_exchange (e, request);
  }
  g_assert_cmpuint (exact->status, ==, 200);
  g_assert_cmpuint (endpoint_n_sessions (e), ==, 1);
}

/* Not JSON is a parse error (-32700), JSON that is no JSON-RPC message an
 * invalid request (-32600); both 400, and nothing reaches the session. */
static void
test_invalid_json (Endpoint      *e,
                   gconstpointer  data)
{
  g_autofree char *session_id = endpoint_initialize (e, "2025-06-18");
  struct { const char *body; gint64 code; } cases[] = {
    { "{", LUMO_MCP_PARSE_ERROR },
    { "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"} trailing", LUMO_MCP_PARSE_ERROR },
    { "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"\xff\"}", LUMO_MCP_PARSE_ERROR },
    { "{\"jsonrpc\":\"2.0\",\"id\":2,\"id\":3,\"method\":\"ping\"}", LUMO_MCP_PARSE_ERROR },
    { "", LUMO_MCP_PARSE_ERROR },
    { "{}", LUMO_MCP_INVALID_REQUEST },
    { "\"ping\"", LUMO_MCP_INVALID_REQUEST },
    { "{\"jsonrpc\":\"2.0\",\"id\":true,\"method\":\"ping\"}", LUMO_MCP_INVALID_REQUEST },
    { "{\"jsonrpc\":\"1.0\",\"id\":2,\"method\":\"ping\"}", LUMO_MCP_INVALID_REQUEST },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(HttpReply) reply = endpoint_post (e, session_id, "2025-06-18", cases[i].body);

      endpoint_assert_error (reply, 400, cases[i].code);
    }

  /* Without a session a parse error comes before the missing id. */
  {
    g_autoptr(HttpReply) reply = endpoint_post (e, NULL, NULL, "{");

    endpoint_assert_error (reply, 400, LUMO_MCP_PARSE_ERROR);
  }
  g_assert_cmpuint (endpoint_n_sessions (e), ==, 1);
}

/* A batch under 2025-06-18 (which has none) is an invalid request, and
 * none of its messages is taken; under 2025-03-26 each is answered, on a
 * stream, a batch of one request too (one JSON object would not be the
 * array JSON-RPC answers a batch with). An initialize is never batched. */
static void
test_batch (Endpoint      *e,
            gconstpointer  data)
{
  const char *batch = "[{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"},"
                      "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"ping\"}]";
  g_autofree char *new_session = endpoint_initialize (e, "2025-06-18");
  g_autofree char *old_session = endpoint_initialize (e, "2025-03-26");
  g_autofree char *init_batch = g_strdup_printf ("[%s]", INIT);
  g_autoptr(HttpReply) refused = endpoint_post (e, new_session, "2025-06-18", batch);
  g_autoptr(HttpReply) split = endpoint_post (e, old_session, NULL, batch);
  g_autoptr(HttpReply) init = endpoint_post (e, NULL, NULL, init_batch);
  g_autoptr(HttpReply) one = endpoint_post (e, old_session, NULL,
                                            "[{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}]");
  g_autofree char *one_type = http_reply_header (one, "Content-Type");
  g_autoptr(GPtrArray) answers = NULL;
  g_autoptr(GPtrArray) one_answers = NULL;

  endpoint_assert_error (refused, 400, LUMO_MCP_INVALID_REQUEST);
  g_assert_nonnull (strstr (refused->body, "2025-06-18"));

  g_assert_cmpuint (split->status, ==, 200);
  answers = endpoint_messages (split);
  g_assert_cmpuint (answers->len, ==, 2);
  g_assert_cmpint (json_object_get_int_member (g_ptr_array_index (answers, 0), "id"), ==, 7);
  g_assert_cmpint (json_object_get_int_member (g_ptr_array_index (answers, 1), "id"), ==, 8);

  g_assert_cmpuint (one->status, ==, 200);
  g_assert_cmpstr (one_type, ==, "text/event-stream");
  one_answers = endpoint_messages (one);
  g_assert_cmpuint (one_answers->len, ==, 1);
  g_assert_cmpint (json_object_get_int_member (g_ptr_array_index (one_answers, 0), "id"), ==, 9);

  endpoint_assert_error (init, 400, LUMO_MCP_INVALID_REQUEST);
  g_assert_cmpuint (endpoint_n_sessions (e), ==, 2);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  endpoint_add ("/gateway/http/token", test_token);
  endpoint_add ("/gateway/http/host-origin", test_host_origin);
  endpoint_add ("/gateway/http/path-method-types", test_path_method_types);
  endpoint_add ("/gateway/http/session-id", test_session_id);
  endpoint_add ("/gateway/http/protocol-version", test_protocol_version);
  endpoint_add ("/gateway/http/body-too-large", test_body_too_large);
  endpoint_add ("/gateway/http/invalid-json", test_invalid_json);
  endpoint_add ("/gateway/http/batch", test_batch);

  return g_test_run ();
}
