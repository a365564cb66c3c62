/* gateway-http-test-util.c — the endpoint's fixture of gateway-http-test-util.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "gateway-http-test-util.h"
#include "lumo-json.h"
#include "lumo-mcp.h"

void
endpoint_set_up (Endpoint      *e,
                 gconstpointer  data)
{
  const char *providers[] = { TEST_PROVIDER_ID, NULL };
  g_autoptr(GError) error = NULL;

  e->env = bridge_test_env_new ();
  g_assert_true (lumo_policy_add_provider (e->env->policy, TEST_PROVIDER_ID, LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_true (lumo_policy_register_provider (e->env->policy, TEST_PROVIDER_ID, "userscripts",
                                                "Lumo Userscripts", "1.0.1", &error));
  g_assert_true (lumo_policy_add_agent (e->env->policy, "Claude Code", providers, LUMO_POLICY_ORIGIN_UI,
                                        &e->agent_id, &e->token, &error));
  g_assert_no_error (error);

  e->gateway = lumo_gateway_new (e->env->backend);
  lumo_gateway_set_enabled (e->gateway, TRUE);
  e->http = lumo_gateway_http_new (e->gateway);
  g_assert_true (lumo_gateway_http_start (e->http, 0, &error));
  g_assert_no_error (error);
  e->port = lumo_gateway_http_get_port (e->http);
}

static gboolean
has_no_connections (gpointer listener)
{
  return lumo_gateway_listener_get_n_connections (listener) == 0;
}

void
endpoint_tear_down (Endpoint      *e,
                    gconstpointer  data)
{
  LumoGatewayListener *listener = _lumo_gateway_http_get_listener (e->http);

  /* Every connection a test opened is closed by then, or cut here. */
  lumo_gateway_http_stop (e->http);
  lumo_test_wait_until (has_no_connections, listener, "the endpoint's connections to close");
  g_assert_cmpuint (_lumo_gateway_listener_get_n_timers (listener), ==, 0);

  g_clear_object (&e->http);
  g_clear_object (&e->gateway);
  bridge_test_env_free (e->env);
  g_free (e->agent_id);
  g_free (e->token);
}

void
endpoint_add (const char *path,
              void      (*func) (Endpoint *, gconstpointer))
{
  g_test_add (path, Endpoint, NULL, endpoint_set_up, func, endpoint_tear_down);
}

char *
endpoint_auth (Endpoint *e)
{
  return g_strdup_printf ("Authorization: Bearer %s\r\n", e->token);
}

char *
endpoint_request (Endpoint   *e,
                  const char *method,
                  const char *path,
                  const char *headers,
                  const char *body)
{
  GString *request = g_string_new (NULL);

  g_string_append_printf (request, "%s %s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nConnection: close\r\n",
                          method, path, e->port);
  if (headers != NULL)
    g_string_append (request, headers);
  if (body != NULL)
    g_string_append_printf (request, "Content-Type: application/json\r\nContent-Length: %" G_GSIZE_FORMAT "\r\n",
                            strlen (body));
  g_string_append (request, "\r\n");
  if (body != NULL)
    g_string_append (request, body);

  return g_string_free (request, FALSE);
}

char *
endpoint_post_request (Endpoint   *e,
                       const char *session_id,
                       const char *version,
                       const char *body)
{
  g_autofree char *auth = endpoint_auth (e);
  g_autoptr(GString) headers = g_string_new (auth);

  g_string_append (headers, "Accept: application/json, text/event-stream\r\n");
  if (session_id != NULL)
    g_string_append_printf (headers, "Mcp-Session-Id: %s\r\n", session_id);
  if (version != NULL)
    g_string_append_printf (headers, "MCP-Protocol-Version: %s\r\n", version);

  return endpoint_request (e, "POST", "/mcp/userscripts", headers->str, body);
}

HttpReply *
endpoint_exchange (Endpoint   *e,
                   const char *request)
{
  return http_exchange ("127.0.0.1", e->port, request, -1, 0);
}

HttpReply *
endpoint_post (Endpoint   *e,
               const char *session_id,
               const char *version,
               const char *body)
{
  g_autofree char *request = endpoint_post_request (e, session_id, version, body);

  return endpoint_exchange (e, request);
}

char *
endpoint_initialize (Endpoint   *e,
                     const char *version)
{
  g_autofree char *body = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
                                           "\"params\":{\"protocolVersion\":\"%s\",\"capabilities\":{},"
                                           "\"clientInfo\":{\"name\":\"claude-code\",\"version\":\"2.1.0\"}}}",
                                           version);
  g_autoptr(HttpReply) reply = endpoint_post (e, NULL, NULL, body);
  g_autoptr(GPtrArray) messages = NULL;
  JsonObject *answer;
  char *session_id;

  g_assert_cmpuint (reply->status, ==, 200);
  session_id = http_reply_header (reply, "Mcp-Session-Id");
  g_assert_nonnull (session_id);
  messages = endpoint_messages (reply);
  g_assert_cmpuint (messages->len, ==, 1);
  answer = g_ptr_array_index (messages, 0);
  g_assert_cmpint (json_object_get_int_member (answer, "id"), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (answer, "result"),
                                                  "protocolVersion"), ==, version);
  return session_id;
}

/* The messages of an answer to a POST: one JSON object with its
 * Content-Length, or the data lines of an SSE stream. */
GPtrArray *
endpoint_messages (HttpReply *reply)
{
  GPtrArray *messages = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  g_autofree char *content_type = http_reply_header (reply, "Content-Type");
  g_auto(GStrv) lines = NULL;

  if (g_strcmp0 (content_type, "application/json") == 0)
    {
      g_autofree char *length = http_reply_header (reply, "Content-Length");
      g_autoptr(JsonNode) node = NULL;
      g_autoptr(GError) error = NULL;

      g_assert_nonnull (length);
      g_assert_cmpuint (g_ascii_strtoull (length, NULL, 10), ==, reply->body_len);
      node = lumo_json_parse (reply->body, reply->body_len, 64, &error);
      g_assert_no_error (error);
      g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
      g_ptr_array_add (messages, json_object_ref (json_node_get_object (node)));
      return messages;
    }

  g_assert_cmpstr (content_type, ==, "text/event-stream");
  lines = g_strsplit (reply->body != NULL ? reply->body : "", "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr(JsonNode) node = NULL;
      g_autoptr(GError) error = NULL;

      if (!g_str_has_prefix (lines[i], "data: "))
        continue;
      node = lumo_json_parse (lines[i] + 6, strlen (lines[i] + 6), 64, &error);
      g_assert_no_error (error);
      g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
      g_ptr_array_add (messages, json_object_ref (json_node_get_object (node)));
    }

  return messages;
}

void
endpoint_assert_error (HttpReply *reply,
                       guint      status,
                       gint64     code)
{
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *rpc;

  if (reply->status != status)
    g_error ("Expected %u, got %u: %s\n%s", status, reply->status, reply->head, reply->body);
  node = lumo_json_parse (reply->body, reply->body_len, 64, &error);
  g_assert_no_error (error);
  rpc = json_node_get_object (node);
  g_assert_cmpint (lumo_mcp_classify (rpc, NULL), ==, LUMO_MCP_RESPONSE);
  g_assert_true (json_object_get_null_member (rpc, "id"));
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (rpc, "error"), "code"), ==, code);
  g_test_message ("%u: %s", status,
                  json_object_get_string_member (json_object_get_object_member (rpc, "error"), "message"));
}

guint
endpoint_n_sessions (Endpoint *e)
{
  return g_list_model_get_n_items (lumo_gateway_get_sessions (e->gateway));
}

/* ---- the provider ------------------------------------------------------- */

void
endpoint_provider_hello (Endpoint *e)
{
  e->bridge = bridge_detached_hello (e->env);
}

typedef struct
{
  LumoBridgeSession *bridge;
  JsonObject        *message;
} Outgoing;

static gboolean
has_outgoing (gpointer data)
{
  Outgoing *o = data;

  return (o->message = _lumo_bridge_session_pop_outgoing (o->bridge)) != NULL;
}

JsonObject *
endpoint_provider_recv (Endpoint *e)
{
  Outgoing o = { e->bridge, NULL };

  g_assert_nonnull (e->bridge);
  lumo_test_wait_until (has_outgoing, &o, "the app to send the provider a message");
  return o.message;
}

char *
endpoint_provider_open (Endpoint *e)
{
  g_autoptr(JsonObject) m = endpoint_provider_recv (e);
  g_autofree char *answer = NULL;

  g_assert_cmpstr (json_object_get_string_member (m, "type"), ==, "agentOpen");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (m, "caller"), "id"), ==,
                   e->agent_id);
  answer = g_strdup_printf ("{\"type\":\"agentOpen.result\",\"re\":\"%s\"}",
                            json_object_get_string_member (m, "id"));
  bridge_detached_send (e->bridge, answer);
  return g_strdup (json_object_get_string_member (m, "port"));
}

gint64
endpoint_provider_expect (Endpoint   *e,
                          const char *method)
{
  g_autoptr(JsonObject) m = endpoint_provider_recv (e);
  JsonObject *rpc;

  g_assert_cmpstr (json_object_get_string_member (m, "type"), ==, "agentMessage");
  rpc = json_object_get_object_member (m, "message");
  g_assert_cmpstr (json_object_get_string_member (rpc, "method"), ==, method);
  return json_object_get_int_member (rpc, "id");
}

void
endpoint_provider_push (Endpoint   *e,
                        const char *port,
                        const char *rpc_json)
{
  g_autofree char *message = g_strdup_printf ("{\"type\":\"agentMessage\",\"port\":\"%s\",\"message\":%s}",
                                              port, rpc_json);

  bridge_detached_send (e->bridge, message);
}
