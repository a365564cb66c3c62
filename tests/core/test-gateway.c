/* test-gateway.c — desktop agents' sessions relayed over a virtual port
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A gateway on a backend with temporary stores; the provider is a detached
 * bridge session driven by the test (it says hello, answers agentOpen and
 * answers the agentMessage requests as the provider's McpServer would),
 * and the agent is the test calling lumo_agent_session_receive() and
 * reading ::message. No transport, no display.
 */
#include "config.h"

#include <string.h>

#include "lumo-bridge-session-private.h"
#include "lumo-error.h"
#include "lumo-gateway.h"
#include "lumo-gateway-snippets.h"
#include "lumo-mcp.h"

#include "bridge-test-util.h"

typedef struct
{
  BridgeTestEnv     *env;
  LumoGateway       *gateway;
  LumoBridgeSession *bridge;     /* the provider, once it said hello */
  char              *agent_id;
  char              *token;
} Fixture;

/* What the agent heard from one session. */
typedef struct
{
  LumoAgentSession *session;
  GPtrArray *messages;   /* JsonObject */
  GPtrArray *related;    /* JSON text of the related request id, or "" */
  char      *closed;
} Agent;

static void
on_session_message_cb (LumoAgentSession *session,
                       JsonObject       *message,
                       JsonNode         *related,
                       Agent            *agent)
{
  g_ptr_array_add (agent->messages, json_object_ref (message));
  g_ptr_array_add (agent->related, related != NULL ? bridge_json_to_string (related) : g_strdup (""));
}

static void
on_session_closed_cb (LumoAgentSession *session,
                      const char       *reason,
                      Agent            *agent)
{
  g_assert_null (agent->closed);
  agent->closed = g_strdup (reason);
}

static Agent *
agent_new (LumoAgentSession *session)
{
  Agent *agent = g_new0 (Agent, 1);

  agent->session = g_object_ref (session);
  agent->messages = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  agent->related = g_ptr_array_new_with_free_func (g_free);
  g_signal_connect (session, "message", G_CALLBACK (on_session_message_cb), agent);
  g_signal_connect (session, "closed", G_CALLBACK (on_session_closed_cb), agent);
  return agent;
}

static void
agent_free (Agent *agent)
{
  g_signal_handlers_disconnect_by_data (agent->session, agent);
  g_object_unref (agent->session);
  g_ptr_array_unref (agent->messages);
  g_ptr_array_unref (agent->related);
  g_free (agent->closed);
  g_free (agent);
}

static JsonObject *
parse (const char *json)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;

  json_parser_load_from_data (parser, json, -1, &error);
  g_assert_no_error (error);
  return json_object_ref (json_node_get_object (json_parser_get_root (parser)));
}

static gboolean
matches (JsonObject *actual,
         const char *expected_json)
{
  g_autoptr(JsonObject) expected = parse (expected_json);
  g_autoptr(JsonNode) a = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(JsonNode) e = json_node_new (JSON_NODE_OBJECT);

  json_node_set_object (a, actual);
  json_node_set_object (e, expected);
  return bridge_json_matches (a, e, NULL);
}

/* The agent sends @json. */
static void
agent_send (LumoAgentSession *session,
            const char       *json)
{
  g_autoptr(JsonObject) message = parse (json);
  g_autoptr(GError) error = NULL;

  g_assert_true (lumo_agent_session_receive (session, message, &error));
  g_assert_no_error (error);
}

/* The @i-th message the agent heard must match, related to @related (the
 * request id as JSON, "" for none). */
static void
agent_heard (Agent      *agent,
             guint       i,
             const char *expected_json,
             const char *related)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  g_autofree char *text = NULL;

  if (i >= agent->messages->len)
    g_error ("The agent heard %u messages; expected %s as number %u", agent->messages->len, expected_json, i + 1);
  json_node_set_object (node, g_ptr_array_index (agent->messages, i));
  text = bridge_json_to_string (node);
  if (!matches (g_ptr_array_index (agent->messages, i), expected_json))
    g_error ("The agent heard %s; expected %s", text, expected_json);
  g_assert_cmpstr (g_ptr_array_index (agent->related, i), ==, related);
}

/* ---- the provider's side --------------------------------------------------- */

static void
provider_hello (Fixture *f)
{
  f->bridge = bridge_detached_hello (f->env);
}

/* The next agentMessage must carry a request of @method; returns the id
 * the app gave it. */
static gint64
provider_expect_request (Fixture    *f,
                         const char *method)
{
  g_autoptr(JsonObject) m = bridge_detached_recv (f->bridge);
  JsonObject *rpc;

  g_assert_nonnull (m);
  g_assert_cmpstr (json_object_get_string_member (m, "type"), ==, "agentMessage");
  rpc = json_object_get_object_member (m, "message");
  g_assert_cmpstr (json_object_get_string_member (rpc, "method"), ==, method);
  g_assert_true (JSON_NODE_HOLDS_VALUE (json_object_get_member (rpc, "id")));
  g_assert_cmpint (json_node_get_value_type (json_object_get_member (rpc, "id")), ==, G_TYPE_INT64);
  return json_object_get_int_member (rpc, "id");
}

static void
provider_expect_notification (Fixture    *f,
                              const char *method)
{
  g_autoptr(JsonObject) m = bridge_detached_recv (f->bridge);
  JsonObject *rpc;

  g_assert_nonnull (m);
  rpc = json_object_get_object_member (m, "message");
  g_assert_cmpstr (json_object_get_string_member (rpc, "method"), ==, method);
  g_assert_false (json_object_has_member (rpc, "id"));
}

/* agentOpen, answered. */
static void
provider_open (Fixture *f)
{
  g_autoptr(JsonObject) m = bridge_detached_recv (f->bridge);
  g_autofree char *answer = NULL;

  g_assert_nonnull (m);
  g_assert_cmpstr (json_object_get_string_member (m, "type"), ==, "agentOpen");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (m, "caller"), "id"), ==,
                   f->agent_id);
  answer = g_strdup_printf ("{\"type\":\"agentOpen.result\",\"re\":\"%s\"}",
                            json_object_get_string_member (m, "id"));
  bridge_detached_send (f->bridge, answer);
}

static void
provider_reply (Fixture    *f,
                const char *port,
                gint64      id,
                const char *result_json)
{
  g_autofree char *message = g_strdup_printf ("{\"type\":\"agentMessage\",\"port\":\"%s\",\"message\":"
                                              "{\"jsonrpc\":\"2.0\",\"id\":%" G_GINT64_FORMAT ",\"result\":%s}}",
                                              port, id, result_json);

  bridge_detached_send (f->bridge, message);
}

static void
provider_push (Fixture    *f,
               const char *port,
               const char *rpc_json)
{
  g_autofree char *message = g_strdup_printf ("{\"type\":\"agentMessage\",\"port\":\"%s\",\"message\":%s}",
                                              port, rpc_json);

  bridge_detached_send (f->bridge, message);
}

/* ---- fixture ---------------------------------------------------------------- */

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  const char *providers[] = { TEST_PROVIDER_ID, NULL };
  g_autoptr(GError) error = NULL;

  f->env = bridge_test_env_new ();
  g_assert_true (lumo_policy_add_provider (f->env->policy, TEST_PROVIDER_ID, LUMO_POLICY_ORIGIN_UI, &error));
  /* The namespace comes with the first hello. */
  g_assert_true (lumo_policy_register_provider (f->env->policy, TEST_PROVIDER_ID, "userscripts",
                                                "Lumo Userscripts", "1.0.1", &error));
  g_assert_true (lumo_policy_add_agent (f->env->policy, "Claude Code", providers, LUMO_POLICY_ORIGIN_UI,
                                        &f->agent_id, &f->token, &error));
  g_assert_no_error (error);

  f->gateway = lumo_gateway_new (f->env->backend);
  lumo_gateway_set_enabled (f->gateway, TRUE);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  g_clear_object (&f->gateway);
  bridge_test_env_free (f->env);
  g_free (f->agent_id);
  g_free (f->token);
}

static void
fixture_add (const char *path,
             void      (*func) (Fixture *, gconstpointer))
{
  g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down);
}

static LumoAgentSession *
open_session (Fixture *f)
{
  LumoGatewayVerdict verdict = LUMO_GATEWAY_BAD_TOKEN;
  LumoAgentSession *session;

  session = lumo_gateway_open_session (f->gateway, f->agent_id, TEST_PROVIDER_ID, "http", &verdict);
  g_assert_cmpint (verdict, ==, LUMO_GATEWAY_OK);
  g_assert_nonnull (session);
  return session;
}

#define INITIALIZE(id) \
  "{\"jsonrpc\":\"2.0\",\"id\":" id ",\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\"," \
  "\"capabilities\":{},\"clientInfo\":{\"name\":\"claude-code\",\"version\":\"2.1.0\"}}}"

/* ---- who gets a session ------------------------------------------------------ */

static void
expect_verdict (Fixture            *f,
                const char         *token,
                const char         *namespace_,
                LumoGatewayVerdict  expected)
{
  g_autofree char *agent = NULL;
  g_autofree char *provider = NULL;
  g_autofree char *message = NULL;
  LumoGatewayVerdict verdict;

  verdict = lumo_gateway_authenticate (f->gateway, token, namespace_, &agent, &provider, &message);
  g_assert_cmpint (verdict, ==, expected);
  g_assert_nonnull (message);
  if (f->token != NULL)
    g_assert_null (strstr (message, f->token + 38));
  if (expected == LUMO_GATEWAY_OK)
    {
      g_assert_nonnull (agent);
      g_assert_cmpstr (provider, ==, TEST_PROVIDER_ID);
    }
  else
    {
      g_assert_null (agent);
      g_assert_null (provider);
    }
}

static void
test_authenticate (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *wrong = g_strdup (f->token);
  g_autofree char *other_id = NULL;
  g_autofree char *other_token = NULL;
  g_autoptr(LumoCallerInfo) caller = NULL;
  g_autoptr(GError) error = NULL;

  expect_verdict (f, f->token, "userscripts", LUMO_GATEWAY_OK);

  wrong[60] = wrong[60] == 'x' ? 'y' : 'x';
  expect_verdict (f, NULL, "userscripts", LUMO_GATEWAY_BAD_TOKEN);
  expect_verdict (f, "", "userscripts", LUMO_GATEWAY_BAD_TOKEN);
  expect_verdict (f, "lumo_", "userscripts", LUMO_GATEWAY_BAD_TOKEN);
  expect_verdict (f, wrong, "userscripts", LUMO_GATEWAY_BAD_TOKEN);
  /* The token is checked before the path: a bad token learns nothing. */
  expect_verdict (f, wrong, "nosuchthing", LUMO_GATEWAY_BAD_TOKEN);
  expect_verdict (f, f->token, "nosuchthing", LUMO_GATEWAY_NO_PROVIDER);
  expect_verdict (f, f->token, "Not A Namespace", LUMO_GATEWAY_NO_PROVIDER);
  expect_verdict (f, f->token, NULL, LUMO_GATEWAY_NO_PROVIDER);

  /* An agent the person did not allow here waits, as a new caller does. */
  g_assert_true (lumo_policy_add_agent (f->env->policy, "Cursor", NULL, LUMO_POLICY_ORIGIN_CLI,
                                        &other_id, &other_token, &error));
  expect_verdict (f, other_token, "userscripts", LUMO_GATEWAY_PENDING);
  caller = lumo_policy_get_caller (f->env->policy, TEST_PROVIDER_ID, other_id, &error);
  g_assert_no_error (error);
  g_assert_cmpint (caller->state, ==, LUMO_CALLER_STATE_PENDING);
  g_assert_cmpint (caller->kind, ==, LUMO_CALLER_KIND_AGENT);
  g_assert_cmpstr (caller->display_name, ==, "Cursor");
  expect_verdict (f, other_token, "userscripts", LUMO_GATEWAY_PENDING);
  g_assert_null (lumo_gateway_open_session (f->gateway, other_id, TEST_PROVIDER_ID, "http", NULL));

  /* Denied: 401, like a removed one. */
  g_assert_true (lumo_policy_deny_caller (f->env->policy, TEST_PROVIDER_ID, other_id, LUMO_POLICY_ORIGIN_UI, &error));
  expect_verdict (f, other_token, "userscripts", LUMO_GATEWAY_DENIED);
  g_assert_true (lumo_policy_remove_agent (f->env->policy, other_id, LUMO_POLICY_ORIGIN_UI, &error));
  expect_verdict (f, other_token, "userscripts", LUMO_GATEWAY_BAD_TOKEN);

  /* The provider off, or desktop agents off. */
  g_assert_true (lumo_policy_set_switch (f->env->policy, TEST_PROVIDER_ID, LUMO_POLICY_SWITCH_ENABLED, FALSE,
                                         LUMO_POLICY_ORIGIN_UI, &error));
  expect_verdict (f, f->token, "userscripts", LUMO_GATEWAY_DISABLED);
  g_assert_true (lumo_policy_set_switch (f->env->policy, TEST_PROVIDER_ID, LUMO_POLICY_SWITCH_ENABLED, TRUE,
                                         LUMO_POLICY_ORIGIN_UI, &error));
  lumo_gateway_set_enabled (f->gateway, FALSE);
  expect_verdict (f, f->token, "userscripts", LUMO_GATEWAY_DISABLED);
  {
    LumoGatewayVerdict verdict = LUMO_GATEWAY_OK;

    g_assert_null (lumo_gateway_open_session (f->gateway, f->agent_id, TEST_PROVIDER_ID, "http", &verdict));
    g_assert_cmpint (verdict, ==, LUMO_GATEWAY_DISABLED);
  }
}

/* ---- the relay ------------------------------------------------------------- */

static void
test_relay (Fixture       *f,
            gconstpointer  data)
{
  g_autoptr(LumoAgentSession) session = NULL;
  Agent *agent;
  gint64 init_id, list_id, call_id, other_call_id;

  provider_hello (f);
  session = open_session (f);
  agent = agent_new (session);
  g_assert_false (lumo_agent_session_get_connected (session));
  g_assert_cmpuint (strlen (lumo_agent_session_get_id (session)), ==, 32);
  g_assert_true (lumo_gateway_lookup_session (f->gateway, f->agent_id, lumo_agent_session_get_id (session)) == session);
  g_assert_null (lumo_gateway_lookup_session (f->gateway, TEST_CALLER_ID, lumo_agent_session_get_id (session)));

  /* initialize opens the port and goes to the provider under our id. */
  agent_send (session, INITIALIZE ("\"init-1\""));
  g_assert_true (lumo_agent_session_get_connected (session));
  provider_open (f);
  init_id = provider_expect_request (f, "initialize");
  g_assert_cmpuint (agent->messages->len, ==, 0);
  provider_reply (f, "a1", init_id, "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":"
                                    "{\"listChanged\":true}},\"serverInfo\":{\"name\":\"Lumo Userscripts\",\"version\":\"1\"}}");
  agent_heard (agent, 0, "{\"jsonrpc\":\"2.0\",\"id\":\"init-1\",\"result\":{\"protocolVersion\":\"2025-06-18\"}}",
               "\"init-1\"");
  g_assert_cmpstr (lumo_agent_session_get_protocol_version (session), ==, "2025-06-18");
  g_assert_true (lumo_agent_session_get_initialized (session));

  agent_send (session, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
  provider_expect_notification (f, "notifications/initialized");

  /* The agent's ids come back as they were, whatever ours are. */
  agent_send (session, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\"}");
  list_id = provider_expect_request (f, "tools/list");
  g_assert_cmpint (list_id, !=, 7);
  g_assert_cmpint (list_id, !=, init_id);
  agent_send (session, "{\"jsonrpc\":\"2.0\",\"id\":\"c\",\"method\":\"tools/call\","
                       "\"params\":{\"name\":\"list_scripts\",\"arguments\":{},\"_meta\":{\"progressToken\":42}}}");
  call_id = provider_expect_request (f, "tools/call");
  /* The same id twice (a client may reuse one): two requests, two answers. */
  agent_send (session, "{\"jsonrpc\":\"2.0\",\"id\":\"c2\",\"method\":\"tools/call\","
                       "\"params\":{\"name\":\"list_scripts\",\"arguments\":{}}}");
  other_call_id = provider_expect_request (f, "tools/call");

  /* Progress belongs to the call that asked for it; list_changed to none. */
  provider_push (f, "a1", "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\","
                          "\"params\":{\"progressToken\":42,\"progress\":1}}");
  agent_heard (agent, 1, "{\"method\":\"notifications/progress\",\"params\":{\"progressToken\":42}}", "\"c\"");
  provider_push (f, "a1", "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}");
  agent_heard (agent, 2, "{\"method\":\"notifications/tools/list_changed\"}", "");

  provider_reply (f, "a1", call_id, "{\"content\":[{\"type\":\"text\",\"text\":\"[]\"}]}");
  agent_heard (agent, 3, "{\"id\":\"c\",\"result\":{\"content\":[{\"text\":\"[]\"}]}}", "\"c\"");
  provider_reply (f, "a1", list_id, "{\"tools\":[{\"name\":\"list_scripts\"}]}");
  agent_heard (agent, 4, "{\"id\":7,\"result\":{\"tools\":[{\"name\":\"list_scripts\"}]}}", "7");

  /* An answer to nothing in flight (a second one, a made-up id) is dropped. */
  provider_reply (f, "a1", list_id, "{}");
  provider_reply (f, "a1", 999, "{}");
  g_assert_cmpuint (agent->messages->len, ==, 5);

  /* A cancellation reaches the provider under our id. */
  agent_send (session, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
                       "\"params\":{\"requestId\":\"c2\",\"reason\":\"no longer needed\"}}");
  {
    g_autoptr(JsonObject) m = bridge_detached_recv (f->bridge);
    JsonObject *params = json_object_get_object_member (json_object_get_object_member (m, "message"), "params");

    g_assert_cmpint (json_object_get_int_member (params, "requestId"), ==, other_call_id);
    g_assert_cmpstr (json_object_get_string_member (params, "reason"), ==, "no longer needed");
  }

  /* The server asks the agent; the agent's answer goes back as it is. */
  provider_push (f, "a1", "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"roots/list\"}");
  agent_heard (agent, 5, "{\"id\":0,\"method\":\"roots/list\"}", "");
  agent_send (session, "{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"roots\":[]}}");
  {
    g_autoptr(JsonObject) m = bridge_detached_recv (f->bridge);

    g_assert_true (matches (m, "{\"type\":\"agentMessage\",\"message\":{\"id\":0,\"result\":{\"roots\":[]}}}"));
  }

  /* Not JSON-RPC: refused, nothing sent. */
  {
    g_autoptr(JsonObject) bad = parse ("{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}");
    g_autoptr(GError) error = NULL;

    g_assert_false (lumo_agent_session_receive (session, bad, &error));
    g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT);
    bridge_detached_expect_nothing (f->bridge);
  }

  /* The session ends: agentClose to the provider, ::closed once. */
  lumo_agent_session_close (session, "The agent ended its session.");
  bridge_detached_expect (f->bridge, "{\"type\":\"agentClose\",\"port\":\"a1\"}");
  g_assert_cmpstr (agent->closed, ==, "The agent ended its session.");
  g_assert_cmpuint (g_list_model_get_n_items (lumo_gateway_get_sessions (f->gateway)), ==, 0);
  g_assert_null (lumo_gateway_lookup_session (f->gateway, f->agent_id, lumo_agent_session_get_id (session)));

  agent_free (agent);
}

/* ---- the provider away, and back -------------------------------------------- */

static void
test_away (Fixture       *f,
           gconstpointer  data)
{
  g_autoptr(LumoAgentSession) session = open_session (f);
  Agent *agent = agent_new (session);
  JsonObject *result;

  agent_send (session, INITIALIZE ("1"));
  g_assert_false (lumo_agent_session_get_connected (session));
  agent_heard (agent, 0, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025-06-18\","
                         "\"capabilities\":{\"tools\":{\"listChanged\":true}},"
                         "\"serverInfo\":{\"name\":\"Lumo Userscripts\"}}}", "1");
  result = json_object_get_object_member (g_ptr_array_index (agent->messages, 0), "result");
  g_assert_nonnull (strstr (json_object_get_string_member (result, "instructions"), "not connected"));
  g_assert_true (lumo_agent_session_get_initialized (session));
  g_assert_cmpstr (lumo_agent_session_get_protocol_version (session), ==, "2025-06-18");

  agent_send (session, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
  agent_send (session, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}");
  agent_heard (agent, 1, "{\"id\":2,\"result\":{\"tools\":[]}}", "2");
  agent_send (session, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"list_scripts\"}}");
  agent_heard (agent, 2, "{\"id\":3,\"result\":{\"isError\":true,\"content\":[{\"type\":\"text\"}]}}", "3");
  g_assert_nonnull (strstr (json_object_get_string_member (
    json_array_get_object_element (json_object_get_array_member (
      json_object_get_object_member (g_ptr_array_index (agent->messages, 2), "result"), "content"), 0), "text"),
    "not connected"));
  agent_send (session, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}");
  agent_heard (agent, 3, "{\"id\":4,\"result\":{}}", "4");
  agent_send (session, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"resources/list\"}");
  agent_heard (agent, 4, "{\"id\":5,\"error\":{\"code\":-32601}}", "5");
  g_assert_cmpuint (agent->messages->len, ==, 5);

  /* A version the SDK does not speak gets the newest it does. */
  {
    g_autoptr(LumoAgentSession) other = open_session (f);
    Agent *other_agent = agent_new (other);

    agent_send (other, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"1999-01-01\"}}");
    agent_heard (other_agent, 0, "{\"result\":{\"protocolVersion\":\"" LUMO_MCP_LATEST_PROTOCOL_VERSION "\"}}", "1");
    lumo_agent_session_close (other, "The agent ended its session.");
    agent_free (other_agent);
  }

  /* The provider says hello: a port, the agent's initialize replayed with
   * its own parameters, initialized, and only then list_changed. */
  provider_hello (f);
  g_assert_true (lumo_agent_session_get_connected (session));
  provider_open (f);
  {
    g_autoptr(JsonObject) m = bridge_detached_recv (f->bridge);
    JsonObject *rpc = json_object_get_object_member (m, "message");
    gint64 replay_id = json_object_get_int_member (rpc, "id");

    g_assert_cmpstr (json_object_get_string_member (rpc, "method"), ==, "initialize");
    g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (
      json_object_get_object_member (rpc, "params"), "clientInfo"), "name"), ==, "claude-code");
    provider_expect_notification (f, "notifications/initialized");
    g_assert_cmpuint (agent->messages->len, ==, 5);

    provider_reply (f, "a1", replay_id, "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{}}");
  }
  /* The replayed answer is swallowed; the agent hears that tools changed. */
  g_assert_cmpuint (agent->messages->len, ==, 6);
  agent_heard (agent, 5, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}", "");
  g_assert_false (json_object_has_member (g_ptr_array_index (agent->messages, 5), "id"));

  /* And now the provider answers. */
  agent_send (session, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/list\"}");
  provider_reply (f, "a1", provider_expect_request (f, "tools/list"), "{\"tools\":[{\"name\":\"list_scripts\"}]}");
  agent_heard (agent, 6, "{\"id\":6,\"result\":{\"tools\":[{\"name\":\"list_scripts\"}]}}", "6");

  agent_free (agent);
}

/* A provider that goes away answers what waited — never silence — and the
 * session stays, answering by itself. */
static void
test_provider_gone_mid_call (Fixture       *f,
                             gconstpointer  data)
{
  g_autoptr(LumoAgentSession) session = NULL;
  Agent *agent;

  provider_hello (f);
  session = open_session (f);
  agent = agent_new (session);
  agent_send (session, INITIALIZE ("1"));
  provider_open (f);
  provider_reply (f, "a1", provider_expect_request (f, "initialize"), "{\"protocolVersion\":\"2025-06-18\"}");
  agent_send (session, "{\"jsonrpc\":\"2.0\",\"id\":\"w\",\"method\":\"tools/call\",\"params\":{\"name\":\"save_script\"}}");
  agent_send (session, "{\"jsonrpc\":\"2.0\",\"id\":\"p\",\"method\":\"ping\"}");
  provider_expect_request (f, "tools/call");
  provider_expect_request (f, "ping");
  g_assert_cmpuint (agent->messages->len, ==, 1);

  _lumo_backend_remove_detached_session (f->env->backend, f->bridge);
  f->bridge = NULL;
  g_assert_false (lumo_agent_session_get_connected (session));
  g_assert_false (lumo_agent_session_is_closed (session));
  g_assert_cmpuint (agent->messages->len, ==, 3);
  /* In either order: the call as a tool error, the ping as an error. */
  for (guint i = 1; i < 3; i++)
    {
      JsonObject *m = g_ptr_array_index (agent->messages, i);

      if (g_str_equal (json_object_get_string_member (m, "id"), "w"))
        agent_heard (agent, i, "{\"id\":\"w\",\"result\":{\"isError\":true}}", "\"w\"");
      else
        agent_heard (agent, i, "{\"id\":\"p\",\"error\":{\"code\":-32000}}", "\"p\"");
    }

  agent_send (session, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/list\"}");
  agent_heard (agent, 3, "{\"id\":9,\"result\":{\"tools\":[]}}", "9");

  /* The provider closing the port itself: the same, and the next request
   * opens a new port with the replay first. */
  provider_hello (f);
  provider_open (f);
  provider_reply (f, "a1", provider_expect_request (f, "initialize"), "{}");
  agent_heard (agent, 4, "{\"method\":\"notifications/tools/list_changed\"}", "");
  agent_send (session, "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"tools/list\"}");
  provider_expect_request (f, "tools/list");
  bridge_detached_send (f->bridge, "{\"type\":\"agentClose\",\"port\":\"a1\",\"reason\":\"Revoked in the provider.\"}");
  agent_heard (agent, 5, "{\"id\":10,\"error\":{\"code\":-32000}}", "10");
  g_assert_false (lumo_agent_session_get_connected (session));

  agent_send (session, "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"tools/list\"}");
  g_assert_true (lumo_agent_session_get_connected (session));
  provider_open (f);
  provider_expect_request (f, "initialize");
  provider_expect_request (f, "tools/list");

  agent_free (agent);
}

/* ---- the policy ends sessions at once --------------------------------------- */

static void
test_revoke (Fixture       *f,
             gconstpointer  data)
{
  g_autoptr(LumoAgentSession) a = NULL;
  g_autoptr(LumoAgentSession) b = NULL;
  g_autoptr(LumoAgentSession) c = NULL;
  g_autoptr(GError) error = NULL;
  Agent *agent_a;
  Agent *agent_b;
  Agent *agent_c;

  provider_hello (f);
  a = open_session (f);
  agent_a = agent_new (a);
  agent_send (a, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
  provider_open (f);
  provider_expect_request (f, "tools/list");

  /* Denied: the session ends now, its call is answered, the port closed. */
  g_assert_true (lumo_policy_deny_caller (f->env->policy, TEST_PROVIDER_ID, f->agent_id,
                                          LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_nonnull (agent_a->closed);
  agent_heard (agent_a, 0, "{\"id\":1,\"error\":{\"code\":-32000}}", "1");
  {
    g_autoptr(JsonObject) m = NULL;

    /* The policy push and agentClose, in either order. */
    for (guint i = 0; i < 2; i++)
      {
        g_clear_pointer (&m, json_object_unref);
        m = bridge_detached_recv (f->bridge);
        if (g_str_equal (json_object_get_string_member (m, "type"), "agentClose"))
          break;
      }
    g_assert_cmpstr (json_object_get_string_member (m, "type"), ==, "agentClose");
  }
  g_assert_cmpuint (g_list_model_get_n_items (lumo_gateway_get_sessions (f->gateway)), ==, 0);
  {
    LumoGatewayVerdict verdict = LUMO_GATEWAY_OK;

    g_assert_null (lumo_gateway_open_session (f->gateway, f->agent_id, TEST_PROVIDER_ID, "http", &verdict));
    g_assert_cmpint (verdict, ==, LUMO_GATEWAY_DENIED);
  }

  /* Removed: the same. */
  g_assert_true (lumo_policy_allow_caller (f->env->policy, TEST_PROVIDER_ID, f->agent_id,
                                           LUMO_POLICY_ORIGIN_UI, &error));
  b = open_session (f);
  agent_b = agent_new (b);
  g_assert_true (lumo_policy_remove_agent (f->env->policy, f->agent_id, LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_nonnull (agent_b->closed);

  /* Desktop agents off: every session. */
  g_assert_true (lumo_policy_undo_last (f->env->policy, LUMO_POLICY_ORIGIN_UI, NULL, &error));
  c = open_session (f);
  agent_c = agent_new (c);
  lumo_gateway_set_enabled (f->gateway, FALSE);
  g_assert_cmpstr (agent_c->closed, ==, "Desktop agents were turned off in Lumo Access.");
  g_assert_true (lumo_agent_session_is_closed (c));
  {
    g_autoptr(JsonObject) ping = parse ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");

    g_assert_false (lumo_agent_session_receive (c, ping, &error));
    g_assert_error (error, LUMO_ERROR, LUMO_ERROR_UNAVAILABLE);
  }

  agent_free (agent_a);
  agent_free (agent_b);
  agent_free (agent_c);
}

static void
test_provider_disabled (Fixture       *f,
                        gconstpointer  data)
{
  g_autoptr(LumoAgentSession) session = open_session (f);
  g_autoptr(GError) error = NULL;
  Agent *agent = agent_new (session);

  g_assert_true (lumo_policy_set_switch (f->env->policy, TEST_PROVIDER_ID, LUMO_POLICY_SWITCH_ENABLED, FALSE,
                                         LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_nonnull (agent->closed);
  agent_free (agent);
}

/* ---- bounds ------------------------------------------------------------------ */

static void
test_session_limit (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(GPtrArray) sessions = g_ptr_array_new_with_free_func (g_object_unref);
  LumoGatewayVerdict verdict = LUMO_GATEWAY_OK;

  for (guint i = 0; i < LUMO_GATEWAY_MAX_SESSIONS_PER_AGENT; i++)
    g_ptr_array_add (sessions, open_session (f));

  g_assert_null (lumo_gateway_open_session (f->gateway, f->agent_id, TEST_PROVIDER_ID, "stdio", &verdict));
  g_assert_cmpint (verdict, ==, LUMO_GATEWAY_TOO_MANY);

  /* One ends: room for one more. */
  lumo_agent_session_close (g_ptr_array_index (sessions, 0), "The agent ended its session.");
  g_ptr_array_add (sessions, open_session (f));
  g_assert_cmpuint (g_list_model_get_n_items (lumo_gateway_get_sessions (f->gateway)), ==,
                    LUMO_GATEWAY_MAX_SESSIONS_PER_AGENT);
}

static void
test_in_flight_limit (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(LumoAgentSession) session = NULL;
  gint64 first = 0;
  Agent *agent;

  provider_hello (f);
  session = open_session (f);
  agent = agent_new (session);

  for (guint i = 0; i < LUMO_AGENT_SESSION_MAX_IN_FLIGHT; i++)
    {
      g_autofree char *request = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%u,\"method\":\"ping\"}", i);

      agent_send (session, request);
    }
  provider_open (f);
  for (guint i = 0; i < LUMO_AGENT_SESSION_MAX_IN_FLIGHT; i++)
    {
      gint64 id = provider_expect_request (f, "ping");

      if (i == 0)
        first = id;
    }
  g_assert_cmpuint (agent->messages->len, ==, 0);

  /* The next is answered at once, and the provider never sees it. */
  agent_send (session, "{\"jsonrpc\":\"2.0\",\"id\":\"one too many\",\"method\":\"ping\"}");
  agent_heard (agent, 0, "{\"id\":\"one too many\",\"error\":{\"code\":-32603}}", "\"one too many\"");
  bridge_detached_expect_nothing (f->bridge);

  /* An answer makes room. */
  provider_reply (f, "a1", first, "{}");
  agent_heard (agent, 1, "{\"id\":0,\"result\":{}}", "0");
  agent_send (session, "{\"jsonrpc\":\"2.0\",\"id\":\"now\",\"method\":\"ping\"}");
  provider_expect_request (f, "ping");

  agent_free (agent);
}

/* A request the bridge cannot carry (its frame would pass 1 MiB) is
 * answered at once; the provider never sees a part of it. */
static void
test_too_large (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(LumoAgentSession) session = NULL;
  g_autoptr(GString) request = g_string_new ("{\"jsonrpc\":\"2.0\",\"id\":\"big\",\"method\":\"tools/call\","
                                             "\"params\":{\"name\":\"save_script\",\"arguments\":{\"source\":\"");
  Agent *agent;

  provider_hello (f);
  session = open_session (f);
  agent = agent_new (session);
  agent_send (session, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
  provider_open (f);
  provider_expect_request (f, "ping");

  for (guint i = 0; i < 1100 * 1024; i++)
    g_string_append_c (request, 'x');
  g_string_append (request, "\"}}}");
  agent_send (session, request->str);
  agent_heard (agent, 0, "{\"id\":\"big\",\"error\":{\"code\":-32603}}", "\"big\"");
  bridge_detached_expect_nothing (f->bridge);
  g_assert_false (lumo_agent_session_is_closed (session));

  agent_free (agent);
}

static void
test_unsent_bound (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(LumoAgentSession) session = open_session (f);
  Agent *agent = agent_new (session);

  lumo_agent_session_note_unsent (session, LUMO_AGENT_SESSION_MAX_QUEUED_BYTES);
  g_assert_null (agent->closed);
  lumo_agent_session_note_unsent (session, LUMO_AGENT_SESSION_MAX_QUEUED_BYTES + 1);
  g_assert_nonnull (agent->closed);
  agent_free (agent);
}

/* ---- snippets --------------------------------------------------------------- */

static JsonObject *
member_json (JsonObject *snippets,
             const char *name)
{
  return parse (json_object_get_string_member (snippets, name));
}

static void
test_snippets (void)
{
  const char *token = "lumo_abcdefghijklmnopabcdefghijklmnop_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
  g_autoptr(JsonObject) snippets = lumo_gateway_build_snippets ("userscripts", token, 8137, NULL);
  g_autoptr(JsonObject) flatpak = lumo_gateway_build_snippets ("userscripts", token, 9000, "dev.lumo.Access");
  g_autoptr(JsonObject) vscode = member_json (snippets, "vscode");
  g_autoptr(JsonObject) cursor = member_json (snippets, "cursor");
  g_autoptr(JsonObject) desktop = member_json (snippets, "claudeDesktop");
  g_autoptr(JsonObject) flatpak_desktop = member_json (flatpak, "claudeDesktop");
  g_autofree char *bearer = g_strconcat ("Bearer ", token, NULL);
  g_autofree char *claude = NULL;
  JsonObject *server;
  JsonArray *args;

  g_assert_cmpstr (json_object_get_string_member (snippets, "url"), ==, "http://127.0.0.1:8137/mcp/userscripts");
  claude = g_strdup_printf ("claude mcp add --transport http lumo-userscripts "
                            "http://127.0.0.1:8137/mcp/userscripts --header 'Authorization: Bearer %s'", token);
  g_assert_cmpstr (json_object_get_string_member (snippets, "claudeCode"), ==, claude);

  server = json_object_get_object_member (json_object_get_object_member (vscode, "servers"), "lumo-userscripts");
  g_assert_cmpstr (json_object_get_string_member (server, "type"), ==, "http");
  g_assert_cmpstr (json_object_get_string_member (server, "url"), ==, "http://127.0.0.1:8137/mcp/userscripts");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (server, "headers"), "Authorization"),
                   ==, bearer);
  server = json_object_get_object_member (json_object_get_object_member (cursor, "mcpServers"), "lumo-userscripts");
  g_assert_cmpstr (json_object_get_string_member (server, "type"), ==, "http");

  server = json_object_get_object_member (json_object_get_object_member (desktop, "mcpServers"), "lumo-userscripts");
  g_assert_true (g_path_is_absolute (json_object_get_string_member (server, "command")));
  g_assert_true (g_str_has_suffix (json_object_get_string_member (server, "command"), "/lumo-access-mcp"));
  args = json_object_get_array_member (server, "args");
  g_assert_cmpuint (json_array_get_length (args), ==, 1);
  g_assert_cmpstr (json_array_get_string_element (args, 0), ==, "userscripts");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (server, "env"), "LUMO_ACCESS_TOKEN"),
                   ==, token);

  /* In the Flatpak, the launcher is reached through flatpak run. */
  g_assert_cmpstr (json_object_get_string_member (flatpak, "url"), ==, "http://127.0.0.1:9000/mcp/userscripts");
  server = json_object_get_object_member (json_object_get_object_member (flatpak_desktop, "mcpServers"),
                                          "lumo-userscripts");
  g_assert_cmpstr (json_object_get_string_member (server, "command"), ==, "flatpak");
  args = json_object_get_array_member (server, "args");
  g_assert_cmpuint (json_array_get_length (args), ==, 4);
  g_assert_cmpstr (json_array_get_string_element (args, 0), ==, "run");
  g_assert_cmpstr (json_array_get_string_element (args, 1), ==, "--command=lumo-access-mcp");
  g_assert_cmpstr (json_array_get_string_element (args, 2), ==, "dev.lumo.Access");
  g_assert_cmpstr (json_array_get_string_element (args, 3), ==, "userscripts");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  fixture_add ("/gateway/authenticate", test_authenticate);
  fixture_add ("/gateway/relay", test_relay);
  fixture_add ("/gateway/away-and-back", test_away);
  fixture_add ("/gateway/provider-gone-mid-call", test_provider_gone_mid_call);
  fixture_add ("/gateway/revoke", test_revoke);
  fixture_add ("/gateway/provider-disabled", test_provider_disabled);
  fixture_add ("/gateway/session-limit", test_session_limit);
  fixture_add ("/gateway/in-flight-limit", test_in_flight_limit);
  fixture_add ("/gateway/too-large", test_too_large);
  fixture_add ("/gateway/unsent-bound", test_unsent_bound);
  g_test_add_func ("/gateway/snippets", test_snippets);

  return g_test_run ();
}
