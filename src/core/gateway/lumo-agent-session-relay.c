/* lumo-agent-session-relay.c — a desktop agent's messages to the provider
 * and back
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The agent's requests go to the provider's McpServer on a virtual port
 * with ids of the session's own (so the initialize replayed after a
 * reconnect never collides with the agent's), and the answers come back
 * under the agent's ids. Every request gets exactly one answer: the
 * provider's, the session's own while the provider is away
 * (lumo-agent-session-away.c), or an error when the port goes away or the
 * session ends with the request in flight.
 */
#define G_LOG_DOMAIN "lumo-gateway"

#include "config.h"

#include "lumo-agent-session-private.h"
#include "lumo-bridge-message.h"
#include "lumo-error.h"
#include "lumo-mcp.h"

/* Every request in flight gets its answer now, with @reason. */
void
_lumo_agent_session_answer_in_flight (LumoAgentSession *self,
                                      const char       *reason)
{
  g_autoptr(GHashTable) waiting = g_steal_pointer (&self->in_flight);
  GHashTableIter iter;
  gpointer value;

  self->in_flight = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                           (GDestroyNotify) _lumo_agent_session_in_flight_free);
  self->replay_id = 0;

  g_hash_table_iter_init (&iter, waiting);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      InFlight *f = value;

      if (f->agent_id != NULL)
        _lumo_agent_session_emit (self, _lumo_agent_session_answer_lost (f->agent_id, f->method, reason), f->agent_id);
    }
}

/* ---- the port --------------------------------------------------------------- */

void
_lumo_agent_session_drop_port (LumoAgentSession *self)
{
  if (self->port == NULL)
    return;

  g_signal_handlers_disconnect_by_data (self->port, self);
  g_clear_object (&self->port);
}

static JsonObject *
copy_object (JsonObject *object)
{
  g_autoptr(GList) members = json_object_get_members (object);
  JsonObject *copy = json_object_new ();

  for (GList *l = members; l != NULL; l = l->next)
    json_object_set_member (copy, l->data, json_node_copy (json_object_get_member (object, l->data)));
  return copy;
}

static char *
progress_key (JsonNode *token)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();

  json_generator_set_root (generator, token);
  return json_generator_to_data (generator, NULL);
}

/* The request of the agent a notification of the server belongs to: a
 * progress notification names the request's progressToken. */
static JsonNode *
related_request (LumoAgentSession *self,
                 JsonObject       *notification)
{
  JsonNode *params = json_object_get_member (notification, "params");
  JsonNode *token;
  g_autofree char *key = NULL;
  GHashTableIter iter;
  gpointer value;

  if (params == NULL || !JSON_NODE_HOLDS_OBJECT (params) ||
      !(token = json_object_get_member (json_node_get_object (params), "progressToken")))
    return NULL;

  key = progress_key (token);
  g_hash_table_iter_init (&iter, self->in_flight);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      InFlight *f = value;

      if (f->agent_id != NULL && g_strcmp0 (f->progress, key) == 0)
        return f->agent_id;
    }

  return NULL;
}

static void
on_port_message_cb (LumoAgentPort    *port,
                    JsonObject       *message,
                    LumoAgentSession *self)
{
  g_autoptr(LumoAgentSession) hold = NULL;
  g_autoptr(JsonObject) answer = NULL;
  JsonNode *id = json_object_get_member (message, "id");
  gpointer key = NULL;
  gpointer value = NULL;
  gint64 our_id;
  InFlight *f;

  /* The agent's handler may end the session. */
  hold = g_object_ref (self);
  if (lumo_mcp_kind (message) != LUMO_MCP_RESPONSE)
    {
      /* The server's own requests and notifications pass as they are:
       * their ids are the server's, and the agent answers with them. */
      _lumo_agent_session_emit (self, json_object_ref (message),
                    lumo_mcp_kind (message) == LUMO_MCP_NOTIFICATION ? related_request (self, message) : NULL);
      return;
    }

  if (id == NULL || !JSON_NODE_HOLDS_VALUE (id) || json_node_get_value_type (id) != G_TYPE_INT64)
    {
      g_debug ("Dropped an answer of %s with an id the session never sent", self->provider_id);
      return;
    }
  our_id = json_node_get_int (id);
  if (!g_hash_table_steal_extended (self->in_flight, &our_id, &key, &value))
    {
      g_debug ("Dropped an answer of %s to no request in flight", self->provider_id);
      return;
    }
  g_free (key);
  f = value;

  if (our_id == self->replay_id)
    {
      self->replay_id = 0;
      if (json_object_has_member (message, "error"))
        {
          g_warning ("The provider %s refused the initialize Lumo Access replayed for %s",
                     self->provider_id, self->agent_name);
          _lumo_agent_session_in_flight_free (f);
          lumo_agent_port_close (port, "The provider refused to initialize again.");
          _lumo_agent_session_drop_port (self);
          return;
        }
      _lumo_agent_session_in_flight_free (f);
      /* The provider's tools are back: the agent asks for them again. */
      _lumo_agent_session_emit (self, lumo_mcp_new_notification ("notifications/tools/list_changed", NULL), NULL);
      return;
    }

  if (g_strcmp0 (f->method, "initialize") == 0 && json_object_has_member (message, "result"))
    {
      JsonNode *result = json_object_get_member (message, "result");
      const char *version = NULL;

      if (JSON_NODE_HOLDS_OBJECT (result))
        version = json_object_get_string_member_with_default (json_node_get_object (result),
                                                              "protocolVersion", NULL);
      if (version != NULL)
        {
          g_free (self->protocol_version);
          self->protocol_version = g_strdup (version);
        }
      self->initialized = TRUE;
    }

  /* The same answer under the agent's own id. */
  answer = copy_object (message);
  json_object_set_member (answer, "id", json_node_copy (f->agent_id));
  _lumo_agent_session_emit (self, g_steal_pointer (&answer), f->agent_id);
  _lumo_agent_session_in_flight_free (f);
}

static void
on_port_closed_cb (LumoAgentPort    *port,
                   const char       *reason,
                   LumoAgentSession *self)
{
  g_autoptr(LumoAgentSession) hold = NULL;

  hold = g_object_ref (self);
  g_debug ("The port of %s's session with %s ended: %s", self->agent_name, self->provider_id, reason);
  _lumo_agent_session_drop_port (self);
  /* Never silence: what was asked is answered, and the session stays. */
  _lumo_agent_session_answer_in_flight (self, reason);
}

static gboolean
send_to_port (LumoAgentSession  *self,
              JsonObject        *message,
              GError           **error)
{
  g_autoptr(JsonObject) owned = NULL;

  owned = message;
  return lumo_agent_port_send (self->port, message, error);
}

static JsonObject *
new_replay_initialize (gint64      id,
                       JsonObject *params)
{
  JsonObject *request = json_object_new ();

  json_object_set_string_member (request, "jsonrpc", "2.0");
  json_object_set_int_member (request, "id", id);
  json_object_set_string_member (request, "method", "initialize");
  json_object_set_object_member (request, "params", json_object_ref (params));
  return request;
}

/* A port to the provider if it is connected: a new McpServer, so an agent
 * that initialized gets its initialize replayed first. */
static void
ensure_port (LumoAgentSession *self)
{
  g_autoptr(GError) error = NULL;

  if (self->port != NULL || self->closed ||
      !lumo_backend_is_provider_connected (self->backend, self->provider_id))
    return;

  self->port = lumo_backend_open_agent_port (self->backend, self->provider_id, self->agent_id,
                                             self->agent_name, &error);
  if (self->port == NULL)
    {
      g_free (self->port_error);
      self->port_error = g_strdup (error->message);
      g_debug ("No port for %s's session with %s: %s", self->agent_name, self->provider_id, error->message);
      return;
    }
  g_clear_pointer (&self->port_error, g_free);
  g_signal_connect (self->port, "message", G_CALLBACK (on_port_message_cb), self);
  g_signal_connect (self->port, "closed", G_CALLBACK (on_port_closed_cb), self);

  if (self->initialized && self->init_params != NULL)
    {
      gint64 *key = g_new (gint64, 1);
      InFlight *f = g_new0 (InFlight, 1);

      *key = self->replay_id = ++self->next_id;
      f->method = g_strdup ("initialize");
      g_hash_table_insert (self->in_flight, key, f);

      if (!send_to_port (self, new_replay_initialize (self->replay_id, self->init_params), &error) ||
          (self->agent_said_initialized &&
           !send_to_port (self, lumo_mcp_new_notification ("notifications/initialized", NULL), &error)))
        {
          g_warning ("Cannot replay the initialize of %s to %s: %s", self->agent_name,
                     self->provider_id, error->message);
          lumo_agent_port_close (self->port, "Lumo Access could not initialize the connection again.");
          _lumo_agent_session_drop_port (self);
          _lumo_agent_session_answer_in_flight (self, error->message);
        }
    }
}

void
_lumo_agent_session_provider_connected (LumoAgentSession *self)
{
  g_return_if_fail (LUMO_IS_AGENT_SESSION (self));

  /* An agent that has not initialized gets its port with its first
   * request: there is nothing to replay and nothing changed for it. */
  if (self->initialized)
    ensure_port (self);
}

/* ---- from the agent ----------------------------------------------------------- */

static JsonNode *
find_request (LumoAgentSession *self,
              JsonNode         *agent_id,
              gint64           *our_id)
{
  GHashTableIter iter;
  gpointer key;
  gpointer value;

  g_hash_table_iter_init (&iter, self->in_flight);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      InFlight *f = value;

      if (f->agent_id != NULL && json_node_equal (f->agent_id, agent_id))
        {
          *our_id = *(gint64 *) key;
          return f->agent_id;
        }
    }

  return NULL;
}

static void
receive_request (LumoAgentSession *self,
                 JsonObject       *message)
{
  g_autoptr(GError) error = NULL;
  JsonNode *agent_id = json_object_get_member (message, "id");
  const char *method = lumo_mcp_method (message);
  g_autoptr(JsonObject) forward = NULL;
  JsonNode *params;
  InFlight *f;
  gint64 *key;

  if (g_hash_table_size (self->in_flight) >= LUMO_AGENT_SESSION_MAX_IN_FLIGHT)
    {
      g_autofree char *why = g_strdup_printf ("Too many requests: %d already wait for their answers",
                                              LUMO_AGENT_SESSION_MAX_IN_FLIGHT);

      _lumo_agent_session_emit (self, lumo_mcp_new_error (agent_id, LUMO_MCP_INTERNAL_ERROR, why), agent_id);
      return;
    }

  if (g_str_equal (method, "initialize"))
    {
      params = json_object_get_member (message, "params");
      g_clear_pointer (&self->init_params, json_object_unref);
      self->init_params = params != NULL && JSON_NODE_HOLDS_OBJECT (params)
                          ? json_object_ref (json_node_get_object (params)) : json_object_new ();
      self->agent_said_initialized = FALSE;
    }

  ensure_port (self);
  if (self->port == NULL)
    {
      gboolean initialized = FALSE;

      _lumo_agent_session_emit (self, _lumo_agent_session_answer_away (self, message, &initialized), agent_id);
      if (initialized)
        self->initialized = TRUE;
      return;
    }

  /* The same object with our id. */
  forward = copy_object (message);
  key = g_new (gint64, 1);
  *key = ++self->next_id;
  json_object_set_int_member (forward, "id", *key);

  f = g_new0 (InFlight, 1);
  f->agent_id = json_node_copy (agent_id);
  f->method = g_strdup (method);
  params = json_object_get_member (message, "params");
  if (params != NULL && JSON_NODE_HOLDS_OBJECT (params))
    {
      JsonNode *meta = json_object_get_member (json_node_get_object (params), "_meta");
      JsonNode *token = meta != NULL && JSON_NODE_HOLDS_OBJECT (meta)
                        ? json_object_get_member (json_node_get_object (meta), "progressToken") : NULL;

      if (token != NULL)
        f->progress = progress_key (token);
    }

  if (!send_to_port (self, g_steal_pointer (&forward), &error))
    {
      /* Too big for the bridge, or a provider that does not read: the
       * agent hears why, at once. */
      _lumo_agent_session_emit (self, lumo_mcp_new_error (agent_id, LUMO_MCP_INTERNAL_ERROR, error->message), agent_id);
      _lumo_agent_session_in_flight_free (f);
      g_free (key);
      return;
    }

  g_hash_table_insert (self->in_flight, key, f);
}

static void
receive_notification (LumoAgentSession *self,
                      JsonObject       *message)
{
  g_autoptr(GError) error = NULL;
  const char *method = lumo_mcp_method (message);

  if (g_str_equal (method, "notifications/initialized"))
    self->agent_said_initialized = TRUE;

  if (self->port == NULL)
    return;

  if (g_str_equal (method, "notifications/cancelled"))
    {
      JsonNode *params = json_object_get_member (message, "params");
      JsonNode *request_id = params != NULL && JSON_NODE_HOLDS_OBJECT (params)
                             ? json_object_get_member (json_node_get_object (params), "requestId") : NULL;
      g_autoptr(JsonObject) forward = NULL;
      g_autoptr(JsonObject) forward_params = NULL;
      gint64 our_id = 0;

      /* The provider knows the request under our id; and it will not
       * answer a cancelled request, so it no longer counts as waiting. */
      if (request_id == NULL || find_request (self, request_id, &our_id) == NULL)
        return;

      forward_params = copy_object (json_node_get_object (params));
      json_object_set_int_member (forward_params, "requestId", our_id);
      forward = lumo_mcp_new_notification (method, forward_params);
      g_hash_table_remove (self->in_flight, &our_id);
      if (!send_to_port (self, g_steal_pointer (&forward), &error))
        g_debug ("Cannot pass a cancellation to %s: %s", self->provider_id, error->message);
      return;
    }

  if (!send_to_port (self, json_object_ref (message), &error))
    g_debug ("Dropped a notification of %s for %s: %s", self->agent_name, self->provider_id, error->message);
}

gboolean
lumo_agent_session_receive (LumoAgentSession  *self,
                            JsonObject        *message,
                            GError           **error)
{
  g_autoptr(LumoAgentSession) hold = NULL;
  g_autoptr(GError) local_error = NULL;

  g_return_val_if_fail (LUMO_IS_AGENT_SESSION (self), FALSE);
  g_return_val_if_fail (message != NULL, FALSE);

  if (self->closed)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_UNAVAILABLE, "The session has ended");
      return FALSE;
    }
  if (!lumo_bridge_is_jsonrpc_message (message))
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                   "Not a JSON-RPC 2.0 message: “jsonrpc” must be \"2.0\", with a string “method”, "
                   "or an “id” with one of “result” and “error”");
      return FALSE;
    }

  hold = g_object_ref (self);
  switch (lumo_mcp_kind (message))
    {
    case LUMO_MCP_REQUEST:
      receive_request (self, message);
      break;
    case LUMO_MCP_NOTIFICATION:
      receive_notification (self, message);
      break;
    case LUMO_MCP_RESPONSE:
    default:
      /* An answer to a request of the server: the server's id, as is. */
      if (self->port != NULL && !send_to_port (self, json_object_ref (message), &local_error))
        g_debug ("Dropped an answer of %s for %s: %s", self->agent_name, self->provider_id,
                 local_error->message);
      break;
    }

  return TRUE;
}
