/* lumo-mcp.c — JSON-RPC objects the app builds, and MCP's versions
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-gateway"

#include "config.h"

#include "lumo-mcp.h"

/* SUPPORTED_PROTOCOL_VERSIONS of the SDK the provider pins (extension/
 * package.json); a new SDK that adds one adds it here. */
static const char * const versions[] = {
  LUMO_MCP_LATEST_PROTOCOL_VERSION,
  "2025-06-18",
  "2025-03-26",
  "2024-11-05",
  "2024-10-07",
  NULL
};

const char * const *
lumo_mcp_supported_versions (void)
{
  return versions;
}

gboolean
lumo_mcp_is_supported_version (const char *version)
{
  return version != NULL && g_strv_contains (versions, version);
}

const char *
lumo_mcp_negotiate_version (const char *requested)
{
  for (guint i = 0; requested != NULL && versions[i] != NULL; i++)
    if (g_str_equal (versions[i], requested))
      return versions[i];

  return LUMO_MCP_LATEST_PROTOCOL_VERSION;
}

gboolean
lumo_mcp_version_has_batches (const char *version)
{
  /* ISO dates compare as strings. */
  return version != NULL && g_strcmp0 (version, "2025-06-18") < 0;
}

static JsonObject *
new_message (JsonNode *id)
{
  JsonObject *object = json_object_new ();

  json_object_set_string_member (object, "jsonrpc", "2.0");
  json_object_set_member (object, "id", id != NULL ? json_node_copy (id) : json_node_new (JSON_NODE_NULL));
  return object;
}

JsonObject *
lumo_mcp_new_result (JsonNode   *id,
                     JsonObject *result)
{
  JsonObject *object;

  g_return_val_if_fail (id != NULL, NULL);
  g_return_val_if_fail (result != NULL, NULL);

  object = new_message (id);
  json_object_set_object_member (object, "result", json_object_ref (result));
  return object;
}

JsonObject *
lumo_mcp_new_error (JsonNode   *id,
                    int         code,
                    const char *message)
{
  JsonObject *object;
  JsonObject *error;

  g_return_val_if_fail (message != NULL, NULL);

  object = new_message (id);
  error = json_object_new ();
  json_object_set_int_member (error, "code", code);
  json_object_set_string_member (error, "message", message);
  json_object_set_object_member (object, "error", error);
  return object;
}

JsonObject *
lumo_mcp_new_notification (const char *method,
                           JsonObject *params)
{
  JsonObject *object;

  g_return_val_if_fail (method != NULL, NULL);

  object = json_object_new ();
  json_object_set_string_member (object, "jsonrpc", "2.0");
  json_object_set_string_member (object, "method", method);
  if (params != NULL)
    json_object_set_object_member (object, "params", json_object_ref (params));
  return object;
}

JsonObject *
lumo_mcp_new_tool_error (const char *text)
{
  JsonObject *result = json_object_new ();
  JsonArray *content = json_array_new ();
  JsonObject *item = json_object_new ();

  g_return_val_if_fail (text != NULL, result);

  json_object_set_string_member (item, "type", "text");
  json_object_set_string_member (item, "text", text);
  json_array_add_object_element (content, item);
  json_object_set_array_member (result, "content", content);
  json_object_set_boolean_member (result, "isError", TRUE);
  return result;
}

LumoMcpKind
lumo_mcp_kind (JsonObject *message)
{
  g_return_val_if_fail (message != NULL, LUMO_MCP_RESPONSE);

  if (json_object_has_member (message, "method"))
    return json_object_has_member (message, "id") ? LUMO_MCP_REQUEST : LUMO_MCP_NOTIFICATION;

  return LUMO_MCP_RESPONSE;
}

const char *
lumo_mcp_method (JsonObject *message)
{
  g_return_val_if_fail (message != NULL, NULL);

  return json_object_get_string_member_with_default (message, "method", NULL);
}
