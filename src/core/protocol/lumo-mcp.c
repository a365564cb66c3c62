/* lumo-mcp.c — JSON-RPC objects the app builds, and MCP's versions
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-mcp"

#include "config.h"

#include "lumo-bridge-message.h"
#include "lumo-error.h"
#include "lumo-mcp.h"

/* SUPPORTED_PROTOCOL_VERSIONS of the SDK the provider pins (extension/
 * package.json); a new SDK that adds one adds it here (tests/core/
 * test-mcp.c compares the two when the SDK is installed). */
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

/* ---- what a transport takes apart --------------------------------------- */

LumoMcpKind
lumo_mcp_classify (JsonObject  *message,
                   GError     **error)
{
  g_return_val_if_fail (message != NULL, 0);

  if (!lumo_bridge_check_jsonrpc_message (message, error))
    return 0;

  return lumo_mcp_kind (message);
}

gboolean
lumo_mcp_is_initialize (JsonObject *message)
{
  g_return_val_if_fail (message != NULL, FALSE);

  return lumo_mcp_classify (message, NULL) == LUMO_MCP_REQUEST &&
         g_strcmp0 (lumo_mcp_method (message), "initialize") == 0;
}

char *
lumo_mcp_id_key (JsonNode *id)
{
  if (id == NULL || !JSON_NODE_HOLDS_VALUE (id))
    return NULL;

  /* lumo_json_parse() keeps an integer literal as an int; 1.0 or 1e3 is a
   * double, and MCP's ids are strings or integers. */
  if (json_node_get_value_type (id) == G_TYPE_STRING)
    return g_strconcat ("s:", json_node_get_string (id), NULL);
  if (json_node_get_value_type (id) == G_TYPE_INT64)
    return g_strdup_printf ("i:%" G_GINT64_FORMAT, json_node_get_int (id));

  return NULL;
}

GPtrArray *
lumo_mcp_split_batch (JsonNode    *node,
                      const char  *version,
                      GError     **error)
{
  g_autoptr(GPtrArray) messages = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  JsonArray *array;
  guint n;

  g_return_val_if_fail (node != NULL, NULL);

  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      g_ptr_array_add (messages, json_object_ref (json_node_get_object (node)));
      return g_steal_pointer (&messages);
    }

  if (!JSON_NODE_HOLDS_ARRAY (node))
    {
      g_set_error_literal (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                           "A JSON-RPC message is an object");
      return NULL;
    }

  if (version == NULL)
    {
      g_set_error_literal (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                           "A JSON-RPC batch cannot start a session: send initialize alone");
      return NULL;
    }

  if (!lumo_mcp_version_has_batches (version))
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                   "MCP %s has no JSON-RPC batches: send one message at a time", version);
      return NULL;
    }

  array = json_node_get_array (node);
  n = json_array_get_length (array);
  if (n == 0)
    {
      g_set_error_literal (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                           "The JSON-RPC batch is empty");
      return NULL;
    }

  for (guint i = 0; i < n; i++)
    {
      JsonNode *member = json_array_get_element (array, i);

      if (!JSON_NODE_HOLDS_OBJECT (member))
        {
          g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                       "Member %u of the JSON-RPC batch is not an object", i);
          return NULL;
        }
      g_ptr_array_add (messages, json_object_ref (json_node_get_object (member)));
    }

  return g_steal_pointer (&messages);
}
