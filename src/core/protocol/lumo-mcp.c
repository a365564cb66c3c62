/* lumo-mcp.c — the MCP rules of lumo-mcp.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-mcp"

#include "config.h"

#include "lumo-error.h"
#include "lumo-mcp.h"

/* SUPPORTED_PROTOCOL_VERSIONS of the SDK version extension/package.json
 * pins (tests/core/test-mcp.c compares them when node_modules is there).
 * Streamable HTTP came with 2025-03-26; the two before it are what an old
 * stdio client may still ask for. */
static const struct
{
  const char *version;
  gboolean    batches;
} versions[] = {
  { "2025-11-25", FALSE },
  { "2025-06-18", FALSE },
  { "2025-03-26", TRUE },
  { "2024-11-05", TRUE },
  { "2024-10-07", TRUE },
};

const char * const *
lumo_mcp_get_protocol_versions (void)
{
  static const char *names[G_N_ELEMENTS (versions) + 1];

  if (names[0] == NULL)
    for (guint i = 0; i < G_N_ELEMENTS (versions); i++)
      names[i] = versions[i].version;

  return names;
}

static int
find_version (const char *version)
{
  if (version == NULL)
    return -1;

  for (guint i = 0; i < G_N_ELEMENTS (versions); i++)
    if (g_strcmp0 (versions[i].version, version) == 0)
      return (int) i;

  return -1;
}

gboolean
lumo_mcp_protocol_version_is_known (const char *version)
{
  return find_version (version) >= 0;
}

gboolean
lumo_mcp_protocol_version_has_batches (const char *version)
{
  int i = find_version (version);

  return i >= 0 && versions[i].batches;
}

static gboolean
is_string (JsonNode *node)
{
  return node != NULL && JSON_NODE_HOLDS_VALUE (node) &&
         json_node_get_value_type (node) == G_TYPE_STRING;
}

char *
lumo_jsonrpc_id_key (JsonNode *id)
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

LumoJsonRpcKind
lumo_jsonrpc_classify (JsonObject  *message,
                       GError     **error)
{
  JsonNode *jsonrpc;
  JsonNode *method;
  JsonNode *id;
  gboolean has_result;
  gboolean has_error;
  g_autofree char *key = NULL;

  g_return_val_if_fail (message != NULL, 0);

  jsonrpc = json_object_get_member (message, "jsonrpc");
  if (!is_string (jsonrpc) || g_strcmp0 (json_node_get_string (jsonrpc), "2.0") != 0)
    {
      g_set_error_literal (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                           "jsonrpc: a JSON-RPC message must say \"jsonrpc\": \"2.0\"");
      return 0;
    }

  method = json_object_get_member (message, "method");
  id = json_object_get_member (message, "id");
  has_result = json_object_has_member (message, "result");
  has_error = json_object_has_member (message, "error");
  key = lumo_jsonrpc_id_key (id);

  if (method != NULL)
    {
      if (!is_string (method))
        {
          g_set_error_literal (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                               "method: must be a string");
          return 0;
        }
      if (has_result || has_error)
        {
          g_set_error_literal (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                               "method: a request or notification has no result or error");
          return 0;
        }
      if (id == NULL)
        return LUMO_JSONRPC_NOTIFICATION;
      if (key == NULL)
        {
          g_set_error_literal (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                               "id: a request id must be a string or an integer");
          return 0;
        }
      return LUMO_JSONRPC_REQUEST;
    }

  if (has_result == has_error)
    {
      g_set_error_literal (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                           has_result ? "result: a response has a result or an error, not both"
                                      : "method: neither a request, a notification nor a response");
      return 0;
    }

  /* An error about a message that had no readable id answers with null. */
  if (key == NULL && !(has_error && id != NULL && JSON_NODE_HOLDS_NULL (id)))
    {
      g_set_error_literal (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                           "id: a response id must be a string or an integer");
      return 0;
    }

  return LUMO_JSONRPC_RESPONSE;
}

gboolean
lumo_jsonrpc_is_initialize (JsonObject *message)
{
  g_return_val_if_fail (message != NULL, FALSE);

  return lumo_jsonrpc_classify (message, NULL) == LUMO_JSONRPC_REQUEST &&
         g_strcmp0 (json_object_get_string_member (message, "method"), "initialize") == 0;
}

JsonObject *
lumo_jsonrpc_error_new (JsonNode   *id,
                        gint64      code,
                        const char *message)
{
  JsonObject *object = json_object_new ();
  JsonObject *error = json_object_new ();

  g_return_val_if_fail (message != NULL, object);

  json_object_set_string_member (object, "jsonrpc", "2.0");
  if (id != NULL)
    json_object_set_member (object, "id", json_node_copy (id));
  else
    json_object_set_null_member (object, "id");
  json_object_set_int_member (error, "code", code);
  json_object_set_string_member (error, "message", message);
  json_object_set_object_member (object, "error", error);

  return object;
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

  if (!lumo_mcp_protocol_version_has_batches (version))
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
