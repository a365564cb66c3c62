/* lumo-agent-session-away.c — what a session answers by itself
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * While no provider serves the session (the browser is closed, its service
 * worker recycled) the agent's session stays, and the app answers: the
 * initialize (tools capability with listChanged, so the agent asks again
 * when the tools come back, and a note in the instructions), an empty
 * tools/list, a tools/call as a tool error the model reads, ping, and
 * "method not found" for the rest. A request whose provider went away
 * while it waited gets an answer here too — never silence.
 */
#define G_LOG_DOMAIN "lumo-gateway"

#include "config.h"

#include "lumo-agent-session-private.h"
#include "lumo-mcp.h"

static JsonObject *
initialize_result (LumoAgentSession *self,
                   JsonObject       *request,
                   const char       *reason)
{
  JsonNode *params = json_object_get_member (request, "params");
  const char *requested = NULL;
  const char *version;
  JsonObject *result = json_object_new ();
  JsonObject *capabilities = json_object_new ();
  JsonObject *tools = json_object_new ();
  JsonObject *info = json_object_new ();

  if (params != NULL && JSON_NODE_HOLDS_OBJECT (params))
    requested = json_object_get_string_member_with_default (json_node_get_object (params),
                                                            "protocolVersion", NULL);
  version = lumo_mcp_negotiate_version (requested);
  g_free (self->protocol_version);
  self->protocol_version = g_strdup (version);

  json_object_set_string_member (result, "protocolVersion", version);
  json_object_set_boolean_member (tools, "listChanged", TRUE);
  json_object_set_object_member (capabilities, "tools", tools);
  json_object_set_object_member (result, "capabilities", capabilities);
  json_object_set_string_member (info, "name", self->provider_title);
  json_object_set_string_member (info, "version", self->provider_version);
  json_object_set_object_member (result, "serverInfo", info);
  json_object_set_string_member (result, "instructions", reason);

  return result;
}

JsonObject *
_lumo_agent_session_answer_away (LumoAgentSession *self,
                                 JsonObject       *request,
                                 gboolean         *initialized)
{
  JsonNode *id = json_object_get_member (request, "id");
  const char *method = json_object_get_string_member_with_default (request, "method", "");
  g_autofree char *reason = _lumo_agent_session_away_reason (self);
  g_autoptr(JsonObject) result = NULL;

  *initialized = FALSE;

  if (g_str_equal (method, "initialize"))
    {
      result = initialize_result (self, request, reason);
      *initialized = TRUE;
    }
  else if (g_str_equal (method, "tools/list"))
    {
      result = json_object_new ();
      json_object_set_array_member (result, "tools", json_array_new ());
    }
  else if (g_str_equal (method, "tools/call"))
    {
      result = lumo_mcp_new_tool_error (reason);
    }
  else if (g_str_equal (method, "ping"))
    {
      result = json_object_new ();
    }
  else
    {
      g_autofree char *why = g_strdup_printf ("Method not found: “%s” (%s)", method, reason);

      return lumo_mcp_new_error (id, LUMO_MCP_METHOD_NOT_FOUND, why);
    }

  return lumo_mcp_new_result (id, result);
}

JsonObject *
_lumo_agent_session_answer_lost (JsonNode   *agent_id,
                                 const char *method,
                                 const char *reason)
{
  g_autofree char *text = NULL;

  if (g_strcmp0 (method, "tools/call") == 0)
    {
      g_autoptr(JsonObject) result = NULL;

      /* The model reads it; it may have run, so it must not just retry. */
      text = g_strdup_printf ("The call did not finish: %s. It may or may not have run; "
                              "check before calling it again.", reason);
      result = lumo_mcp_new_tool_error (text);
      return lumo_mcp_new_result (agent_id, result);
    }

  text = g_strdup_printf ("No answer: %s", reason);
  return lumo_mcp_new_error (agent_id, LUMO_MCP_CONNECTION_CLOSED, text);
}
