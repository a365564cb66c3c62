/* test-bridge-agents.c — virtual ports of desktop agents on a bridge session
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Detached sessions of a backend on temporary stores: agentOpen, the
 * routing of agentMessage to the port's owner, agentClose both ways, the
 * newest session serving new ports, ::provider-connected and
 * ::provider-disconnected, and the rules of an authorize that names a
 * port (docs/bridge-protocol.md, "authorize from a virtual port").
 */
#include "config.h"

#include <string.h>

#include "lumo-audit-store.h"
#include "lumo-bridge-session-private.h"
#include "lumo-error.h"
#include "lumo-review-queue.h"

#include "bridge-test-util.h"

#define HASH "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

/* What a port's owner heard. */
typedef struct
{
  guint       opened;
  GPtrArray  *messages;   /* JsonObject */
  char       *closed;     /* the reason, once */
  guint       n_closed;
} Owner;

static void
on_port_opened_cb (LumoAgentPort *port,
                   Owner         *owner)
{
  owner->opened++;
}

static void
on_port_message_cb (LumoAgentPort *port,
                    JsonObject    *message,
                    Owner         *owner)
{
  g_ptr_array_add (owner->messages, json_object_ref (message));
}

static void
on_port_closed_cb (LumoAgentPort *port,
                   const char    *reason,
                   Owner         *owner)
{
  g_free (owner->closed);
  owner->closed = g_strdup (reason);
  owner->n_closed++;
}

static void
owner_init (Owner         *owner,
            LumoAgentPort *port)
{
  owner->messages = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  g_signal_connect (port, "opened", G_CALLBACK (on_port_opened_cb), owner);
  g_signal_connect (port, "message", G_CALLBACK (on_port_message_cb), owner);
  g_signal_connect (port, "closed", G_CALLBACK (on_port_closed_cb), owner);
}

static void
owner_clear (Owner *owner)
{
  g_clear_pointer (&owner->messages, g_ptr_array_unref);
  g_clear_pointer (&owner->closed, g_free);
}

static LumoAgentPort *
open_port (BridgeTestEnv *env,
           const char    *agent_id)
{
  g_autoptr(GError) error = NULL;
  LumoAgentPort *port;

  port = lumo_backend_open_agent_port (env->backend, TEST_PROVIDER_ID, agent_id, "Claude Code", &error);
  g_assert_no_error (error);
  g_assert_nonnull (port);
  return port;
}

static JsonObject *
jsonrpc (const char *json)
{
  g_autoptr(JsonParser) parser = json_parser_new ();

  g_assert_true (json_parser_load_from_data (parser, json, -1, NULL));
  return json_object_ref (json_node_get_object (json_parser_get_root (parser)));
}

/* ---- opening, routing, closing ------------------------------------------- */

static void
test_open_and_route (void)
{
  BridgeTestEnv *env = bridge_test_env_new ();
  LumoBridgeSession *session = bridge_detached_hello (env);
  g_autoptr(LumoAgentPort) port = NULL;
  g_autoptr(JsonObject) request = jsonrpc ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
  g_autoptr(GError) error = NULL;
  Owner owner = { 0 };

  port = open_port (env, TEST_AGENT_ID);
  owner_init (&owner, port);
  g_assert_cmpstr (lumo_agent_port_get_id (port), ==, "a1");
  g_assert_cmpstr (lumo_agent_port_get_caller_id (port), ==, TEST_AGENT_ID);
  g_assert_cmpstr (lumo_agent_port_get_provider_id (port), ==, TEST_PROVIDER_ID);
  bridge_detached_expect (session, "{\"type\":\"agentOpen\",\"id\":\"app-1\",\"port\":\"a1\","
                                   "\"caller\":{\"id\":\"" TEST_AGENT_ID "\",\"name\":\"Claude Code\",\"kind\":\"agent\"}}");

  /* Messages may go before the answer: frames arrive in order. */
  g_assert_true (lumo_agent_port_send (port, request, &error));
  g_assert_no_error (error);
  bridge_detached_expect (session, "{\"type\":\"agentMessage\",\"port\":\"a1\","
                                   "\"message\":{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}}");

  g_assert_false (lumo_agent_port_get_opened (port));
  bridge_detached_send (session, "{\"type\":\"agentOpen.result\",\"re\":\"app-1\"}");
  g_assert_true (lumo_agent_port_get_opened (port));
  g_assert_cmpuint (owner.opened, ==, 1);
  /* A second answer to the same request is nobody's. */
  bridge_detached_send (session, "{\"type\":\"agentOpen.result\",\"re\":\"app-1\"}");
  g_assert_cmpuint (owner.opened, ==, 1);
  bridge_detached_expect_nothing (session);

  /* The provider's McpServer answers: the port's owner gets the object. */
  bridge_detached_send (session, "{\"type\":\"agentMessage\",\"port\":\"a1\","
                                 "\"message\":{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[]}}}");
  g_assert_cmpuint (owner.messages->len, ==, 1);
  g_assert_true (json_object_has_member (g_ptr_array_index (owner.messages, 0), "result"));

  /* For a port the session does not have: dropped, no answer. */
  bridge_detached_send (session, "{\"type\":\"agentMessage\",\"port\":\"a2\","
                                 "\"message\":{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}}");
  bridge_detached_expect_nothing (session);
  g_assert_cmpuint (owner.messages->len, ==, 1);

  /* Not a JSON-RPC object: bad_field with re null, and the port stays. */
  bridge_detached_send (session, "{\"type\":\"agentMessage\",\"port\":\"a1\",\"message\":[{\"jsonrpc\":\"2.0\"}]}");
  bridge_detached_expect (session, "{\"type\":\"error\",\"re\":null,\"code\":\"bad_field\",\"field\":\"message\"}");
  g_assert_false (lumo_agent_port_is_closed (port));
  g_assert_cmpuint (owner.messages->len, ==, 1);

  /* The app ends it: agentClose, and no ::closed for the owner. */
  lumo_agent_port_close (port, "The agent ended its session.");
  bridge_detached_expect (session, "{\"type\":\"agentClose\",\"port\":\"a1\",\"reason\":\"The agent ended its session.\"}");
  g_assert_true (lumo_agent_port_is_closed (port));
  g_assert_cmpuint (owner.n_closed, ==, 0);
  g_assert_false (lumo_agent_port_send (port, request, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_UNAVAILABLE);
  bridge_detached_expect_nothing (session);

  owner_clear (&owner);
  bridge_test_env_free (env);
}

static void
test_provider_closes (void)
{
  BridgeTestEnv *env = bridge_test_env_new ();
  LumoBridgeSession *session = bridge_detached_hello (env);
  g_autoptr(LumoAgentPort) a = NULL;
  g_autoptr(LumoAgentPort) b = NULL;
  g_autoptr(GError) error = NULL;
  Owner owner_a = { 0 };
  Owner owner_b = { 0 };

  a = open_port (env, TEST_AGENT_ID);
  b = open_port (env, TEST_AGENT_ID);
  owner_init (&owner_a, a);
  owner_init (&owner_b, b);
  bridge_detached_expect (session, "{\"type\":\"agentOpen\",\"id\":\"app-1\",\"port\":\"a1\"}");
  bridge_detached_expect (session, "{\"type\":\"agentOpen\",\"id\":\"app-2\",\"port\":\"a2\"}");

  /* The provider refuses one and closes the other. */
  bridge_detached_send (session, "{\"type\":\"error\",\"re\":\"app-1\",\"code\":\"busy\",\"message\":\"64 ports\"}");
  g_assert_cmpuint (owner_a.n_closed, ==, 1);
  g_assert_nonnull (strstr (owner_a.closed, "busy"));
  g_assert_true (lumo_agent_port_is_closed (a));

  bridge_detached_send (session, "{\"type\":\"agentClose\",\"port\":\"a2\",\"reason\":\"Revoked.\"}");
  g_assert_cmpuint (owner_b.n_closed, ==, 1);
  g_assert_nonnull (strstr (owner_b.closed, "Revoked."));
  /* Once: a second agentClose, or one for a port never opened, is nothing. */
  bridge_detached_send (session, "{\"type\":\"agentClose\",\"port\":\"a2\",\"reason\":\"Again.\"}");
  bridge_detached_send (session, "{\"type\":\"agentClose\",\"port\":\"zz\",\"reason\":\"\"}");
  g_assert_cmpuint (owner_b.n_closed, ==, 1);
  bridge_detached_expect_nothing (session);

  /* A closed port's id does not authorize anything. */
  {
    g_autoptr(JsonObject) m = jsonrpc ("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");

    g_assert_false (lumo_agent_port_send (b, m, &error));
    g_assert_error (error, LUMO_ERROR, LUMO_ERROR_UNAVAILABLE);
  }
  g_assert_false (_lumo_bridge_session_is_agent_port (session, "a2", TEST_AGENT_ID));

  owner_clear (&owner_a);
  owner_clear (&owner_b);
  bridge_test_env_free (env);
}

/* ---- sessions come and go -------------------------------------------------- */

typedef struct
{
  GPtrArray *events;   /* "connected:ID", "disconnected:ID" */
} Watch;

static void
on_provider_connected_cb (LumoBackend *backend,
                          const char  *provider_id,
                          Watch       *watch)
{
  g_ptr_array_add (watch->events, g_strdup_printf ("connected:%s", provider_id));
}

static void
on_provider_disconnected_cb (LumoBackend *backend,
                             const char  *provider_id,
                             Watch       *watch)
{
  g_ptr_array_add (watch->events, g_strdup_printf ("disconnected:%s", provider_id));
}

static void
test_sessions (void)
{
  BridgeTestEnv *env = bridge_test_env_new ();
  LumoBridgeSession *old_session;
  LumoBridgeSession *new_session;
  LumoBridgeSession *quiet;
  g_autoptr(LumoAgentPort) first = NULL;
  g_autoptr(LumoAgentPort) second = NULL;
  g_autoptr(LumoAgentPort) none = NULL;
  g_autoptr(GError) error = NULL;
  Watch watch = { g_ptr_array_new_with_free_func (g_free) };
  Owner owner = { 0 };

  g_signal_connect (env->backend, "provider-connected", G_CALLBACK (on_provider_connected_cb), &watch);
  g_signal_connect (env->backend, "provider-disconnected", G_CALLBACK (on_provider_disconnected_cb), &watch);

  /* No session that said hello: no port, and a push names none. */
  quiet = _lumo_backend_add_detached_session (env->backend, TEST_PROVIDER_ID);
  bridge_detached_send (quiet, "{\"type\":\"agentClose\",\"port\":\"a1\",\"reason\":\"\",\"id\":3}");
  bridge_detached_expect (quiet, "{\"type\":\"error\",\"re\":null,\"code\":\"hello_required\"}");
  none = lumo_backend_open_agent_port (env->backend, TEST_PROVIDER_ID, TEST_AGENT_ID, "Claude Code", &error);
  g_assert_null (none);
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_UNAVAILABLE);
  g_clear_error (&error);
  g_assert_null (lumo_backend_open_agent_port (env->backend, TEST_PROVIDER_ID, TEST_BAD_ID_UPPER,
                                               "Claude Code", &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ID);
  g_clear_error (&error);
  g_assert_cmpuint (watch.events->len, ==, 0);

  old_session = bridge_detached_hello (env);
  new_session = bridge_detached_hello (env);
  g_assert_cmpuint (watch.events->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (watch.events, 0), ==, "connected:" TEST_PROVIDER_ID);

  /* The session that said hello last serves new ports. */
  first = open_port (env, TEST_AGENT_ID);
  owner_init (&owner, first);
  bridge_detached_expect (new_session, "{\"type\":\"agentOpen\",\"port\":\"a1\"}");
  bridge_detached_expect_nothing (old_session);

  /* It ends: its ports' owners hear it, but the provider is still there. */
  _lumo_backend_remove_detached_session (env->backend, new_session);
  g_assert_cmpuint (owner.n_closed, ==, 1);
  g_assert_cmpuint (watch.events->len, ==, 2);
  g_assert_true (lumo_backend_is_provider_connected (env->backend, TEST_PROVIDER_ID));

  second = open_port (env, TEST_AGENT_ID);
  bridge_detached_expect (old_session, "{\"type\":\"agentOpen\",\"port\":\"a1\"}");

  /* A session that never said hello going away changes nothing; the last
   * one that did is the provider going away. */
  _lumo_backend_remove_detached_session (env->backend, quiet);
  g_assert_cmpuint (watch.events->len, ==, 2);
  _lumo_backend_remove_detached_session (env->backend, old_session);
  g_assert_cmpuint (watch.events->len, ==, 3);
  g_assert_cmpstr (g_ptr_array_index (watch.events, 2), ==, "disconnected:" TEST_PROVIDER_ID);
  g_assert_true (lumo_agent_port_is_closed (second));

  g_signal_handlers_disconnect_by_data (env->backend, &watch);
  g_ptr_array_unref (watch.events);
  owner_clear (&owner);
  bridge_test_env_free (env);
}

static void
test_port_limit (void)
{
  BridgeTestEnv *env = bridge_test_env_new ();
  LumoBridgeSession *session = bridge_detached_hello (env);
  g_autoptr(GPtrArray) ports = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < LUMO_BRIDGE_MAX_AGENT_PORTS; i++)
    g_ptr_array_add (ports, open_port (env, TEST_AGENT_ID));
  g_assert_null (lumo_backend_open_agent_port (env->backend, TEST_PROVIDER_ID, TEST_AGENT_ID,
                                               "Claude Code", &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_LIMIT_EXCEEDED);
  g_clear_error (&error);

  /* Closing one makes room. */
  lumo_agent_port_close (g_ptr_array_index (ports, 0), "done");
  g_ptr_array_add (ports, open_port (env, TEST_AGENT_ID));

  for (JsonObject *m; (m = bridge_detached_recv (session)) != NULL;)
    json_object_unref (m);
  bridge_test_env_free (env);
}

/* ---- authorize with and without port, and a review grant ------------------ */

static char *
new_agent (BridgeTestEnv *env,
           const char    *name)
{
  const char *providers[] = { TEST_PROVIDER_ID, NULL };
  g_autoptr(GError) error = NULL;
  g_autofree char *token = NULL;
  char *id = NULL;

  g_assert_true (lumo_policy_add_agent (env->policy, name, providers, LUMO_POLICY_ORIGIN_UI,
                                        &id, &token, &error));
  g_assert_no_error (error);
  return id;
}

static gboolean
has_outgoing (gpointer data)
{
  return !g_queue_is_empty (&((LumoBridgeSession *) data)->outgoing);
}

static void
authorize (LumoBridgeSession *session,
           guint              id,
           const char        *caller,
           const char        *port,
           gboolean           write,
           const char        *expected)
{
  g_autofree char *port_member = port != NULL ? g_strdup_printf (",\"port\":\"%s\"", port) : g_strdup ("");
  g_autofree char *request = NULL;

  if (write)
    request = g_strdup_printf ("{\"type\":\"authorize\",\"id\":%u,\"caller\":{\"id\":\"%s\",\"name\":\"x\"}%s,"
                               "\"tool\":\"save_script\",\"write\":true,\"paramsHash\":\"" HASH "\","
                               "\"preview\":{\"name\":\"a\"}}", id, caller, port_member);
  else
    request = g_strdup_printf ("{\"type\":\"authorize\",\"id\":%u,\"caller\":{\"id\":\"%s\",\"name\":\"x\"}%s,"
                               "\"tool\":\"list_scripts\",\"write\":false}", id, caller, port_member);

  bridge_detached_send (session, request);
  if (write)
    lumo_test_wait_until (has_outgoing, session, "the answer of a write, after its audit row");
  bridge_detached_expect (session, expected);
}

static void
test_authorize_port (void)
{
  BridgeTestEnv *env = bridge_test_env_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *agent = NULL;
  g_autofree char *other = NULL;
  g_autoptr(LumoAgentPort) port = NULL;
  g_autoptr(LumoAgentPort) other_port = NULL;
  g_autoptr(GPtrArray) rows = NULL;
  LumoBridgeSession *session;

  g_assert_true (lumo_policy_add_provider (env->policy, TEST_PROVIDER_ID, LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_true (lumo_policy_set_switch (env->policy, TEST_PROVIDER_ID, LUMO_POLICY_SWITCH_REVIEW, FALSE,
                                         LUMO_POLICY_ORIGIN_UI, &error));
  lumo_policy_allow_caller (env->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, LUMO_POLICY_ORIGIN_UI, &error);
  g_assert_no_error (error);
  agent = new_agent (env, "Claude Code");
  other = new_agent (env, "Cursor");
  session = bridge_detached_hello (env);

  port = lumo_backend_open_agent_port (env->backend, TEST_PROVIDER_ID, agent, "Claude Code", &error);
  other_port = lumo_backend_open_agent_port (env->backend, TEST_PROVIDER_ID, other, "Cursor", &error);
  g_assert_no_error (error);
  bridge_detached_expect (session, "{\"type\":\"agentOpen\",\"port\":\"a1\"}");
  bridge_detached_expect (session, "{\"type\":\"agentOpen\",\"port\":\"a2\"}");

  /* On its own port the agent is a caller like any other. */
  authorize (session, 10, agent, "a1", FALSE, "{\"type\":\"authorize.result\",\"re\":10,\"allow\":true}");
  authorize (session, 11, agent, "a1", TRUE, "{\"type\":\"authorize.result\",\"re\":11,\"allow\":true}");

  /* A port that is not open, another agent's port, no port at all. */
  authorize (session, 12, agent, "a9", FALSE,
             "{\"type\":\"authorize.result\",\"re\":12,\"allow\":false,\"reason\":\"not_authorized\"}");
  authorize (session, 13, agent, "a2", FALSE,
             "{\"type\":\"authorize.result\",\"re\":13,\"allow\":false,\"reason\":\"not_authorized\"}");
  authorize (session, 14, agent, NULL, FALSE,
             "{\"type\":\"authorize.result\",\"re\":14,\"allow\":false,\"reason\":\"not_authorized\"}");
  /* A write refused that way is still an audit row. */
  authorize (session, 15, other, "a1", TRUE,
             "{\"type\":\"authorize.result\",\"re\":15,\"allow\":false,\"reason\":\"not_authorized\",\"auditId\":\"<any>\"}");

  /* An extension caller: as before on a Chrome port, never on an agent's. */
  authorize (session, 16, TEST_CALLER_ID, NULL, FALSE, "{\"type\":\"authorize.result\",\"re\":16,\"allow\":true}");
  authorize (session, 17, TEST_CALLER_ID, "a1", FALSE,
             "{\"type\":\"authorize.result\",\"re\":17,\"allow\":false,\"reason\":\"not_authorized\"}");

  /* A malformed port is a bad field, not a denial. */
  bridge_detached_send (session, "{\"type\":\"authorize\",\"id\":18,\"caller\":{\"id\":\"" TEST_CALLER_ID "\"},"
                                 "\"port\":\"a 1\",\"tool\":\"list_scripts\",\"write\":false}");
  bridge_detached_expect (session, "{\"type\":\"error\",\"re\":18,\"code\":\"bad_field\",\"field\":\"port\"}");

  /* Once the port is closed, its agent's calls on it are refused. */
  lumo_agent_port_close (port, "The agent ended its session.");
  bridge_detached_expect (session, "{\"type\":\"agentClose\",\"port\":\"a1\"}");
  authorize (session, 19, agent, "a1", FALSE,
             "{\"type\":\"authorize.result\",\"re\":19,\"allow\":false,\"reason\":\"not_authorized\"}");

  rows = lumo_audit_store_fetch_page (lumo_backend_get_audit_store (env->backend), NULL, 0, 100, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (rows->len, ==, 2);
  /* The rows say who wrote: a desktop agent, as the policy knows it. */
  for (guint i = 0; i < rows->len; i++)
    g_assert_cmpint (lumo_audit_row_get_caller_kind (g_ptr_array_index (rows, i)), ==,
                     LUMO_AUDIT_CALLER_KIND_AGENT);

  bridge_test_env_free (env);
}

static gboolean
review_waits (gpointer data)
{
  return g_list_model_get_n_items (G_LIST_MODEL (lumo_backend_get_review_queue (data))) == 1;
}

/* A desktop agent's write approved always on its own port: its next write
 * of the tool goes through without asking, and the row says both that a
 * desktop agent wrote and that a grant let it through. */
static void
test_grant (void)
{
  BridgeTestEnv *env = bridge_test_env_new ();
  LumoReviewQueue *queue = lumo_backend_get_review_queue (env->backend);
  g_autoptr(GError) error = NULL;
  g_autofree char *agent = NULL;
  g_autofree char *first = NULL;
  g_autoptr(LumoAgentPort) port = NULL;
  g_autoptr(LumoReviewRequest) request = NULL;
  g_autoptr(LumoAuditRow) asked = NULL;
  g_autoptr(LumoAuditRow) granted = NULL;
  LumoBridgeSession *session;

  g_assert_true (lumo_policy_add_provider (env->policy, TEST_PROVIDER_ID, LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_no_error (error);
  agent = new_agent (env, "Claude Code");
  session = bridge_detached_hello (env);
  port = lumo_backend_open_agent_port (env->backend, TEST_PROVIDER_ID, agent, "Claude Code", &error);
  g_assert_no_error (error);
  bridge_detached_expect (session, "{\"type\":\"agentOpen\",\"port\":\"a1\"}");

  /* Review is on (the default): the first write waits for a person. */
  first = g_strdup_printf ("{\"type\":\"authorize\",\"id\":10,\"caller\":{\"id\":\"%s\"},\"port\":\"a1\","
                           "\"tool\":\"save_script\",\"write\":true,\"paramsHash\":\"" HASH "\","
                           "\"preview\":{\"name\":\"a\"}}", agent);
  bridge_detached_send (session, first);
  lumo_test_wait_until (review_waits, env->backend, "the agent's write to wait for review");
  request = g_list_model_get_item (G_LIST_MODEL (queue), 0);
  g_assert_cmpstr (lumo_review_request_get_caller_id (request), ==, agent);
  g_assert_true (lumo_backend_decide_review (env->backend, lumo_review_request_get_id (request), TRUE,
                                             LUMO_GRANT_SCOPE_ALWAYS, LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_no_error (error);
  lumo_test_wait_until (has_outgoing, session, "the approved write's answer");
  bridge_detached_expect (session, "{\"type\":\"authorize.result\",\"re\":10,\"allow\":true}");

  /* The next one does not ask. */
  authorize (session, 11, agent, "a1", TRUE, "{\"type\":\"authorize.result\",\"re\":11,\"allow\":true}");
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (queue)), ==, 0);

  asked = lumo_audit_store_get_row (lumo_backend_get_audit_store (env->backend), 1, &error);
  g_assert_no_error (error);
  granted = lumo_audit_store_get_row (lumo_backend_get_audit_store (env->backend), 2, &error);
  g_assert_no_error (error);
  g_assert_false (lumo_audit_row_get_by_grant (asked));
  g_assert_true (lumo_audit_row_get_by_grant (granted));
  g_assert_cmpint (lumo_audit_row_get_caller_kind (granted), ==, LUMO_AUDIT_CALLER_KIND_AGENT);
  g_assert_cmpstr (lumo_audit_row_get_caller_id (granted), ==, agent);

  bridge_test_env_free (env);
}

/* ---- a read relayed with the app's decision ------------------------------- */

/* The agent's @json relayed on @port: the envelope the provider gets, with
 * the agent's message inside it exactly as sent. */
static JsonObject *
relay (LumoBridgeSession *session,
       LumoAgentPort     *port,
       const char        *json)
{
  g_autoptr(JsonObject) message = jsonrpc (json);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) sent = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(JsonNode) inside = json_node_new (JSON_NODE_OBJECT);
  JsonObject *envelope;

  g_assert_true (lumo_agent_port_send (port, message, &error));
  g_assert_no_error (error);
  envelope = bridge_detached_recv (session);
  g_assert_nonnull (envelope);
  g_assert_cmpstr (json_object_get_string_member (envelope, "type"), ==, "agentMessage");
  json_node_set_object (sent, message);
  json_node_set_object (inside, json_object_get_object_member (envelope, "message"));
  g_assert_true (json_node_equal (sent, inside));
  return envelope;
}

/* The agent's @json relayed on @port goes without a decision. */
static void
relay_undecided (LumoBridgeSession *session,
                 LumoAgentPort     *port,
                 const char        *json)
{
  g_autoptr(JsonObject) envelope = relay (session, port, json);

  g_assert_false (json_object_has_member (envelope, "decision"));
}

static void
assert_decision (JsonObject *envelope,
                 const char *expected_json)
{
  g_autoptr(JsonObject) expected = jsonrpc (expected_json);
  g_autoptr(JsonNode) a = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(JsonNode) e = json_node_new (JSON_NODE_OBJECT);

  g_assert_true (json_object_has_member (envelope, "decision"));
  json_node_set_object (a, json_object_get_object_member (envelope, "decision"));
  json_node_set_object (e, expected);
  if (!json_node_equal (a, e))
    {
      g_autofree char *text = bridge_json_to_string (a);

      g_error ("The decision is %s; expected %s", text, expected_json);
    }
}

/* A read of an agent is decided as the app relays it, under the agent's
 * ID, with the class from the accepted catalogue: the envelope carries the
 * decision an authorize would have got; a write, an unknown tool and
 * anything else carry none, and nothing the agent puts in its message
 * becomes one. */
static void
test_relayed_read (void)
{
  BridgeTestEnv *env = bridge_test_env_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *agent = NULL;
  g_autoptr(LumoAgentPort) port = NULL;
  g_autoptr(GPtrArray) rows = NULL;
  LumoBridgeSession *session;
  JsonObject *envelope;

  g_assert_true (lumo_policy_add_provider (env->policy, TEST_PROVIDER_ID, LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_true (lumo_policy_set_switch (env->policy, TEST_PROVIDER_ID, LUMO_POLICY_SWITCH_REVIEW, FALSE,
                                         LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_no_error (error);
  agent = new_agent (env, "Claude Code");
  session = bridge_detached_hello (env);
  port = lumo_backend_open_agent_port (env->backend, TEST_PROVIDER_ID, agent, "Claude Code", &error);
  g_assert_no_error (error);
  bridge_detached_expect (session, "{\"type\":\"agentOpen\",\"port\":\"a1\"}");

  /* A read: allowed now, for this request id and this tool. */
  envelope = relay (session, port, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\","
                                   "\"params\":{\"name\":\"list_scripts\",\"arguments\":{}}}");
  assert_decision (envelope, "{\"id\":5,\"tool\":\"list_scripts\",\"allow\":true,\"message\":\"Allowed.\"}");
  json_object_unref (envelope);
  /* An authorize of the same read says the same. */
  authorize (session, 20, agent, "a1", FALSE, "{\"type\":\"authorize.result\",\"re\":20,\"allow\":true}");

  /* A write, a tool the catalogue does not have, not a call: none. A
   * look-alike the agent puts in its message stays inside it. */
  relay_undecided (session, port, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\","
                                  "\"decision\":{\"id\":6,\"tool\":\"save_script\",\"allow\":true,\"message\":\"Allowed.\"},"
                                  "\"params\":{\"name\":\"save_script\",\"arguments\":{},"
                                  "\"decision\":{\"id\":6,\"tool\":\"save_script\",\"allow\":true,\"message\":\"Allowed.\"}}}");
  relay_undecided (session, port, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\","
                                  "\"params\":{\"name\":\"no_such_tool\"}}");
  relay_undecided (session, port, "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/list\","
                                  "\"decision\":{\"id\":8,\"tool\":\"list_scripts\",\"allow\":true,\"message\":\"Allowed.\"}}");
  relay_undecided (session, port, "{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\","
                                  "\"params\":{\"name\":\"list_scripts\"}}");

  /* The class is the catalogue's: once the provider says list_scripts
   * writes, its calls go without a decision. */
  bridge_detached_send (session, "{\"type\":\"tools\",\"id\":2,\"tools\":[{\"name\":\"list_scripts\",\"write\":true}]}");
  bridge_detached_expect (session, "{\"type\":\"tools.result\",\"re\":2}");
  relay_undecided (session, port, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\","
                                  "\"params\":{\"name\":\"list_scripts\"}}");
  bridge_detached_send (session, "{\"type\":\"tools\",\"id\":3,\"tools\":[{\"name\":\"list_scripts\",\"write\":false}]}");
  bridge_detached_expect (session, "{\"type\":\"tools.result\",\"re\":3}");

  /* A denied agent: its read carries the denial, whatever its message
   * says, as an authorize of it is denied. */
  g_assert_true (lumo_policy_deny_caller (env->policy, TEST_PROVIDER_ID, agent, LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_no_error (error);
  bridge_detached_expect (session, "{\"type\":\"policy\",\"revoked\":[\"<any>\"]}");
  envelope = relay (session, port, "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"tools/call\","
                                   "\"decision\":{\"id\":10,\"tool\":\"list_scripts\",\"allow\":true,\"message\":\"Allowed.\"},"
                                   "\"params\":{\"name\":\"list_scripts\",\"_meta\":{\"allow\":true}}}");
  assert_decision (envelope, "{\"id\":10,\"tool\":\"list_scripts\",\"allow\":false,\"reason\":\"not_authorized\","
                             "\"message\":\"The caller is not on the allow-list.\"}");
  json_object_unref (envelope);
  authorize (session, 21, agent, "a1", FALSE,
             "{\"type\":\"authorize.result\",\"re\":21,\"allow\":false,\"reason\":\"not_authorized\"}");

  /* The provider turned off: disabled, for everyone. */
  g_assert_true (lumo_policy_allow_caller (env->policy, TEST_PROVIDER_ID, agent, LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_true (lumo_policy_set_switch (env->policy, TEST_PROVIDER_ID, LUMO_POLICY_SWITCH_ENABLED, FALSE,
                                         LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_no_error (error);
  bridge_detached_expect (session, "{\"type\":\"policy\",\"enabled\":false}");
  envelope = relay (session, port, "{\"jsonrpc\":\"2.0\",\"id\":\"s-11\",\"method\":\"tools/call\","
                                   "\"params\":{\"name\":\"list_scripts\"}}");
  assert_decision (envelope, "{\"id\":\"s-11\",\"tool\":\"list_scripts\",\"allow\":false,\"reason\":\"disabled\","
                             "\"message\":\"Agent access is turned off in the provider.\"}");
  json_object_unref (envelope);

  /* Reads are no audit rows, relayed or asked. */
  rows = lumo_audit_store_fetch_page (lumo_backend_get_audit_store (env->backend), NULL, 0, 100, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (rows->len, ==, 0);

  bridge_test_env_free (env);
}

/* What the app sends is held to the provider's rules; the shared fixtures
 * (messages-agent-*.json) hold the full table, these the rules of names
 * and port ids the app itself relies on. */
static void
test_app_messages (void)
{
  static const struct { const char *json; const char *field; } cases[] = {
    { "{\"type\":\"agentOpen\",\"id\":\"app-1\",\"port\":\"a1\","
      "\"caller\":{\"id\":\"" TEST_AGENT_ID "\",\"name\":\"Claude Code\",\"kind\":\"agent\"}}", NULL },
    { "{\"type\":\"agentOpen\",\"id\":\"app-1\",\"port\":\"a1\","
      "\"caller\":{\"id\":\"" TEST_AGENT_ID "\",\"name\":\"\\u0007\\u202e\\n\",\"kind\":\"agent\"}}", "caller.name" },
    { "{\"type\":\"agentOpen\",\"id\":\"app-1\",\"port\":\"a.1\","
      "\"caller\":{\"id\":\"" TEST_AGENT_ID "\",\"name\":\"Claude Code\",\"kind\":\"agent\"}}", "port" },
    { "{\"type\":\"agentOpen\",\"id\":\"app-1\",\"port\":\"a1\","
      "\"caller\":{\"id\":\"" TEST_AGENT_ID "\",\"name\":\"Claude Code\",\"kind\":\"extension\"}}", "caller.kind" },
    { "{\"type\":\"agentMessage\",\"port\":\"a1\",\"message\":{\"jsonrpc\":\"1.0\",\"method\":\"ping\"}}", "message" },
    { "{\"type\":\"agentClose\",\"port\":\"a1\"}", "reason" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(JsonObject) object = jsonrpc (cases[i].json);
      g_autoptr(GError) error = NULL;
      g_autofree char *field = NULL;
      gboolean ok = lumo_bridge_validate_app_message (object, &field, &error);

      g_assert_cmpint (ok, ==, cases[i].field == NULL);
      g_assert_cmpstr (field, ==, cases[i].field);
    }

  /* The builder cuts a long reason on a character boundary, within the
   * bound the provider checks. */
  {
    g_autoptr(GString) reason = g_string_new (NULL);
    g_autoptr(JsonObject) close = NULL;
    g_autofree char *field = NULL;

    for (guint i = 0; i < 300; i++)
      g_string_append (reason, "é");
    close = lumo_bridge_build_agent_close ("a1", reason->str);
    g_assert_true (lumo_bridge_validate_app_message (close, &field, NULL));
    g_assert_cmpuint (strlen (json_object_get_string_member (close, "reason")), ==, LUMO_BRIDGE_MAX_REASON_LEN);
  }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/bridge-agents/open-and-route", test_open_and_route);
  g_test_add_func ("/bridge-agents/provider-closes", test_provider_closes);
  g_test_add_func ("/bridge-agents/sessions", test_sessions);
  g_test_add_func ("/bridge-agents/port-limit", test_port_limit);
  g_test_add_func ("/bridge-agents/authorize-port", test_authorize_port);
  g_test_add_func ("/bridge-agents/grant", test_grant);
  g_test_add_func ("/bridge-agents/relayed-read", test_relayed_read);
  g_test_add_func ("/bridge-agents/app-messages", test_app_messages);

  return g_test_run ();
}
