/* lumo-bridge-session-agents.c — the virtual ports of a session
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A desktop agent's session reaches the provider as a virtual port
 * (docs/bridge-protocol.md, "Desktop agents"): the app opens it with
 * agentOpen, both sides push agentMessage and agentClose, and an
 * authorize that names the port must be for the caller the port was
 * opened for. The session keeps its open ports by id; a push for a port it
 * does not have is dropped (it may just have closed).
 */
#define G_LOG_DOMAIN "lumo-bridge-session"

#include "config.h"

#include "lumo-bridge-session-private.h"
#include "lumo-error.h"
#include "lumo-mcp.h"

LumoAgentPort *
_lumo_bridge_session_open_agent_port (LumoBridgeSession  *self,
                                      const char         *caller_id,
                                      const char         *caller_name,
                                      GError            **error)
{
  g_autoptr(JsonNode) request_id = NULL;
  g_autofree char *port_id = NULL;
  g_autofree char *id = NULL;
  LumoAgentPort *port;

  g_return_val_if_fail (LUMO_IS_BRIDGE_SESSION (self), NULL);
  g_return_val_if_fail (lumo_is_extension_id (caller_id), NULL);
  g_return_val_if_fail (caller_name != NULL, NULL);

  if (self->closed || !self->hello_done)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_UNAVAILABLE,
                   "The provider %s has no open session", self->provider_id);
      return NULL;
    }

  if (g_hash_table_size (self->agent_ports) >= LUMO_BRIDGE_MAX_AGENT_PORTS)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_LIMIT_EXCEEDED,
                   "The provider serves %d desktop agent sessions already, the most it takes",
                   LUMO_BRIDGE_MAX_AGENT_PORTS);
      return NULL;
    }

  port_id = g_strdup_printf ("a%u", ++self->next_agent_port);
  id = _lumo_bridge_session_next_request_id (self);
  request_id = json_node_init_string (json_node_alloc (), id);

  port = _lumo_agent_port_new (self, port_id, caller_id);
  g_hash_table_insert (self->agent_ports, g_strdup (port_id), g_object_ref (port));
  g_hash_table_insert (self->agent_opens, g_strdup (id), g_strdup (port_id));

  _lumo_bridge_session_send (self, lumo_bridge_build_agent_open (request_id, port_id, caller_id,
                                                                 caller_name));
  return port;
}

void
_lumo_bridge_session_close_agent_port (LumoBridgeSession *self,
                                       LumoAgentPort     *port,
                                       const char        *reason)
{
  const char *id = lumo_agent_port_get_id (port);

  g_return_if_fail (LUMO_IS_BRIDGE_SESSION (self));

  if (!g_hash_table_remove (self->agent_ports, id))
    return;

  _lumo_bridge_session_send (self, lumo_bridge_build_agent_close (id, reason));
}

gboolean
_lumo_bridge_session_is_agent_port (LumoBridgeSession *self,
                                    const char        *port_id,
                                    const char        *caller_id)
{
  LumoAgentPort *port;

  if (port_id == NULL || caller_id == NULL)
    return FALSE;

  port = g_hash_table_lookup (self->agent_ports, port_id);
  return port != NULL && g_str_equal (lumo_agent_port_get_caller_id (port), caller_id);
}

/* Takes the port out of the session and tells its owner. */
static void
end_port (LumoBridgeSession *self,
          const char        *port_id,
          const char        *reason)
{
  gpointer key = NULL;
  gpointer value = NULL;

  if (!g_hash_table_steal_extended (self->agent_ports, port_id, &key, &value))
    return;

  g_free (key);
  _lumo_agent_port_ended (value, reason);
  g_object_unref (value);
}

void
_lumo_bridge_session_handle_agent_push (LumoBridgeSession *self,
                                        LumoBridgeMessage *message)
{
  LumoAgentPort *port = g_hash_table_lookup (self->agent_ports, message->port);

  if (port == NULL)
    {
      g_debug ("Dropped a %s of %s for the port %s, which is not open",
               lumo_bridge_message_type_to_string (message->type), self->provider_id, message->port);
      return;
    }

  if (message->type == LUMO_BRIDGE_MESSAGE_AGENT_MESSAGE)
    {
      _lumo_agent_port_deliver (port, message->jsonrpc);
      return;
    }

  {
    g_autofree char *reason = g_strdup_printf ("The provider closed the connection: %s",
                                               *message->reason != '\0' ? message->reason : "no reason given");

    end_port (self, message->port, reason);
  }
}

gboolean
_lumo_bridge_session_handle_agent_open_answer (LumoBridgeSession *self,
                                               LumoBridgeMessage *message)
{
  g_autofree char *port_id = NULL;
  gpointer key = NULL;
  gpointer value = NULL;
  LumoAgentPort *port;

  if (!JSON_NODE_HOLDS_VALUE (message->re) || json_node_get_value_type (message->re) != G_TYPE_STRING ||
      !g_hash_table_steal_extended (self->agent_opens, json_node_get_string (message->re), &key, &value))
    return FALSE;

  g_free (key);
  port_id = value;

  if (message->type == LUMO_BRIDGE_MESSAGE_ERROR)
    {
      g_autofree char *reason =
        g_strdup_printf ("The provider refused the desktop agent's connection: %s%s%s",
                         message->error_code,
                         message->error_message != NULL ? ": " : "",
                         message->error_message != NULL ? message->error_message : "");

      end_port (self, port_id, reason);
      return TRUE;
    }

  if (message->type == LUMO_BRIDGE_MESSAGE_AGENT_OPEN_RESULT &&
      (port = g_hash_table_lookup (self->agent_ports, port_id)) != NULL)
    _lumo_agent_port_opened (port);

  /* Any other answer to our agentOpen is no answer; the port stays. */
  return TRUE;
}

JsonObject *
_lumo_bridge_session_relay_decision (LumoBridgeSession *self,
                                     LumoAgentPort     *port,
                                     JsonObject        *message)
{
  g_autoptr(GError) error = NULL;
  const LumoToolInfo *tool;
  const char *reason = NULL;
  JsonNode *params;
  JsonNode *name;

  g_return_val_if_fail (LUMO_IS_BRIDGE_SESSION (self), NULL);

  if (lumo_mcp_kind (message) != LUMO_MCP_REQUEST || g_strcmp0 (lumo_mcp_method (message), "tools/call") != 0)
    return NULL;
  params = json_object_get_member (message, "params");
  name = params != NULL && JSON_NODE_HOLDS_OBJECT (params)
         ? json_object_get_member (json_node_get_object (params), "name") : NULL;
  if (name == NULL || !JSON_NODE_HOLDS_VALUE (name) || json_node_get_value_type (name) != G_TYPE_STRING)
    return NULL;

  /* The class is the accepted catalogue's, never the agent's word; a
   * write, or a name the catalogue does not have, is the provider's to
   * authorize as before. */
  tool = lumo_catalogue_find (self->catalogue, json_node_get_string (name));
  if (tool == NULL || tool->write)
    return NULL;

  if (!_lumo_bridge_session_decide_read (self, lumo_agent_port_get_id (port), lumo_agent_port_get_caller_id (port),
                                         tool, NULL, &reason, &error))
    {
      /* No decision: the provider asks, and hears the same failure. */
      g_warning ("Session of %s: cannot decide a relayed read: %s", self->provider_id, error->message);
      return NULL;
    }

  return lumo_bridge_build_relayed_decision (json_object_get_member (message, "id"), tool->name, reason);
}

void
_lumo_bridge_session_end_agent_ports (LumoBridgeSession *self,
                                      const char        *reason)
{
  g_autoptr(GList) ids = g_hash_table_get_keys (self->agent_ports);

  g_hash_table_remove_all (self->agent_opens);
  for (GList *l = ids; l != NULL; l = l->next)
    {
      g_autofree char *id = g_strdup (l->data);

      end_port (self, id, reason);
    }
}
