/* lumo-bridge-message.c — the bridge's vocabulary: codes, faults, catalogues
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Parsing lives in lumo-bridge-message-parse.c; the builders and the
 * app-message validator in lumo-bridge-message-build.c.
 */
#define G_LOG_DOMAIN "lumo-bridge-message"

#include "config.h"

#include <string.h>

#include "lumo-bridge-message.h"
#include "lumo-error.h"
#include "lumo-text.h"

static const char * const error_codes[] = {
  [LUMO_BRIDGE_ERROR_TOO_LARGE] = "too_large",
  [LUMO_BRIDGE_ERROR_INVALID_UTF8] = "invalid_utf8",
  [LUMO_BRIDGE_ERROR_INVALID_JSON] = "invalid_json",
  [LUMO_BRIDGE_ERROR_NOT_OBJECT] = "not_object",
  [LUMO_BRIDGE_ERROR_UNKNOWN_TYPE] = "unknown_type",
  [LUMO_BRIDGE_ERROR_BAD_FIELD] = "bad_field",
  [LUMO_BRIDGE_ERROR_INVALID_ID] = "invalid_id",
  [LUMO_BRIDGE_ERROR_HELLO_REQUIRED] = "hello_required",
  [LUMO_BRIDGE_ERROR_DUPLICATE_HELLO] = "duplicate_hello",
  [LUMO_BRIDGE_ERROR_DUPLICATE_ID] = "duplicate_id",
  [LUMO_BRIDGE_ERROR_BUSY] = "busy",
  [LUMO_BRIDGE_ERROR_UNKNOWN_AUDIT_ID] = "unknown_audit_id",
  [LUMO_BRIDGE_ERROR_INTERNAL] = "internal",
  [LUMO_BRIDGE_ERROR_UNAVAILABLE] = "unavailable",
};

static const char * const message_types[] = {
  [LUMO_BRIDGE_MESSAGE_HELLO] = "hello",
  [LUMO_BRIDGE_MESSAGE_PROBE] = "probe",
  [LUMO_BRIDGE_MESSAGE_AUTHORIZE] = "authorize",
  [LUMO_BRIDGE_MESSAGE_RESULT] = "result",
  [LUMO_BRIDGE_MESSAGE_TOOLS] = "tools",
  [LUMO_BRIDGE_MESSAGE_PORT] = "port",
  [LUMO_BRIDGE_MESSAGE_PROBE_TARGET_RESULT] = "probeTarget.result",
  [LUMO_BRIDGE_MESSAGE_ERROR] = "error",
  [LUMO_BRIDGE_MESSAGE_AGENT_OPEN_RESULT] = "agentOpen.result",
  [LUMO_BRIDGE_MESSAGE_AGENT_MESSAGE] = "agentMessage",
  [LUMO_BRIDGE_MESSAGE_AGENT_CLOSE] = "agentClose",
};

const char *
lumo_bridge_error_code_to_string (LumoBridgeErrorCode code)
{
  if (code < 1 || code >= G_N_ELEMENTS (error_codes))
    return "internal";

  return error_codes[code];
}

gboolean
lumo_bridge_error_code_from_string (const char          *str,
                                    LumoBridgeErrorCode *code)
{
  g_return_val_if_fail (code != NULL, FALSE);

  if (str == NULL)
    return FALSE;

  for (guint i = 1; i < G_N_ELEMENTS (error_codes); i++)
    {
      if (g_str_equal (str, error_codes[i]))
        {
          *code = i;
          return TRUE;
        }
    }

  return FALSE;
}

const char *
lumo_bridge_message_type_to_string (LumoBridgeMessageType type)
{
  if (type < 1 || type >= G_N_ELEMENTS (message_types))
    return NULL;

  return message_types[type];
}

/* ---- faults --------------------------------------------------------------- */

LumoBridgeFault *
lumo_bridge_fault_new (LumoBridgeErrorCode  code,
                       JsonNode            *re,
                       const char          *field,
                       const char          *format,
                       ...)
{
  LumoBridgeFault *fault;
  va_list args;

  g_return_val_if_fail (format != NULL, NULL);

  fault = g_new0 (LumoBridgeFault, 1);
  fault->code = code;
  fault->field = g_strdup (field);
  fault->re = re != NULL ? json_node_copy (re) : NULL;
  fault->answerable = TRUE;

  va_start (args, format);
  fault->message = g_strdup_vprintf (format, args);
  va_end (args);

  return fault;
}

LumoBridgeFault *
lumo_bridge_fault_new_for_frame_error (const GError *error)
{
  LumoBridgeErrorCode code = LUMO_BRIDGE_ERROR_INTERNAL;

  g_return_val_if_fail (error != NULL, NULL);

  if (error->domain == LUMO_ERROR)
    {
      switch (error->code)
        {
        case LUMO_ERROR_FRAME_TOO_LARGE:
        case LUMO_ERROR_LIMIT_EXCEEDED:
          code = LUMO_BRIDGE_ERROR_TOO_LARGE;
          break;
        case LUMO_ERROR_FRAME_INVALID_UTF8:
          code = LUMO_BRIDGE_ERROR_INVALID_UTF8;
          break;
        case LUMO_ERROR_FRAME_INVALID_JSON:
          code = LUMO_BRIDGE_ERROR_INVALID_JSON;
          break;
        case LUMO_ERROR_FRAME_NOT_OBJECT:
          code = LUMO_BRIDGE_ERROR_NOT_OBJECT;
          break;
        default:
          break;
        }
    }

  return lumo_bridge_fault_new (code, NULL, NULL, "%s", error->message);
}

void
lumo_bridge_fault_free (LumoBridgeFault *fault)
{
  if (fault == NULL)
    return;

  g_free (fault->field);
  g_free (fault->message);
  g_clear_pointer (&fault->re, json_node_unref);
  g_free (fault);
}

void
lumo_bridge_message_free (LumoBridgeMessage *message)
{
  if (message == NULL)
    return;

  g_clear_pointer (&message->id, json_node_unref);
  g_free (message->id_key);
  g_clear_pointer (&message->re, json_node_unref);
  g_free (message->caller_id);
  g_free (message->caller_name);
  g_free (message->caller_version);
  g_free (message->namespace_);
  g_free (message->service_name);
  g_free (message->service_version);
  g_clear_pointer (&message->tools, json_array_unref);
  g_clear_pointer (&message->recommended_servers, g_ptr_array_unref);
  g_free (message->tool);
  g_free (message->target);
  g_free (message->params_hash);
  g_free (message->preview_json);
  g_free (message->error);
  g_free (message->port);
  g_clear_pointer (&message->jsonrpc, json_object_unref);
  g_free (message->reason);
  g_clear_pointer (&message->outcome, lumo_probe_outcome_free);
  g_free (message->error_code);
  g_free (message->error_message);
  g_free (message);
}

gboolean
lumo_bridge_message_is_request (const LumoBridgeMessage *message)
{
  g_return_val_if_fail (message != NULL, FALSE);

  return message->type != LUMO_BRIDGE_MESSAGE_PROBE_TARGET_RESULT &&
         message->type != LUMO_BRIDGE_MESSAGE_ERROR &&
         message->type != LUMO_BRIDGE_MESSAGE_AGENT_OPEN_RESULT &&
         !lumo_bridge_message_is_push (message);
}

gboolean
lumo_bridge_message_is_push (const LumoBridgeMessage *message)
{
  g_return_val_if_fail (message != NULL, FALSE);

  return message->type == LUMO_BRIDGE_MESSAGE_AGENT_MESSAGE ||
         message->type == LUMO_BRIDGE_MESSAGE_AGENT_CLOSE;
}

/* ---- desktop agents ------------------------------------------------------- */

gboolean
lumo_bridge_is_agent_port_id (const char *port)
{
  gsize len;

  if (port == NULL)
    return FALSE;

  len = strlen (port);
  if (len < 1 || len > LUMO_BRIDGE_MAX_PORT_LEN)
    return FALSE;

  for (gsize i = 0; i < len; i++)
    {
      if (!(g_ascii_isalnum (port[i]) || port[i] == '_' || port[i] == '-'))
        return FALSE;
    }

  return TRUE;
}

static gboolean
is_jsonrpc_id (JsonNode *node)
{
  return node != NULL && JSON_NODE_HOLDS_VALUE (node) &&
         (json_node_get_value_type (node) == G_TYPE_STRING ||
          json_node_get_value_type (node) == G_TYPE_INT64);
}

static gboolean
jsonrpc_refuse (GError     **error,
                const char  *message)
{
  g_set_error_literal (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT, message);
  return FALSE;
}

gboolean
lumo_bridge_check_jsonrpc_message (JsonObject  *object,
                                   GError     **error)
{
  JsonNode *version;
  JsonNode *method;
  JsonNode *id;
  gboolean result;
  gboolean has_error;

  if (object == NULL)
    return jsonrpc_refuse (error, "A JSON-RPC message is an object");

  version = json_object_get_member (object, "jsonrpc");
  if (version == NULL || !JSON_NODE_HOLDS_VALUE (version) ||
      json_node_get_value_type (version) != G_TYPE_STRING ||
      !g_str_equal (json_node_get_string (version), "2.0"))
    return jsonrpc_refuse (error, "jsonrpc: a JSON-RPC message says \"jsonrpc\": \"2.0\"");

  method = json_object_get_member (object, "method");
  id = json_object_get_member (object, "id");
  if (method != NULL)
    {
      if (!JSON_NODE_HOLDS_VALUE (method) || json_node_get_value_type (method) != G_TYPE_STRING)
        return jsonrpc_refuse (error, "method: must be a string");
      if (id != NULL && !is_jsonrpc_id (id))
        return jsonrpc_refuse (error, "id: a request id is a string or an integer");
      return TRUE;
    }

  result = json_object_has_member (object, "result");
  has_error = json_object_has_member (object, "error");
  if (result == has_error)
    return jsonrpc_refuse (error, result ? "result: a response has a result or an error, not both"
                                         : "method: neither a request, a notification nor a response");

  if (!is_jsonrpc_id (id) && !(has_error && id != NULL && JSON_NODE_HOLDS_NULL (id)))
    return jsonrpc_refuse (error, "id: a response id is a string or an integer");

  return TRUE;
}

gboolean
lumo_bridge_is_jsonrpc_message (JsonObject *object)
{
  return lumo_bridge_check_jsonrpc_message (object, NULL);
}

/* ---- catalogues ----------------------------------------------------------- */

static gboolean
node_is_type (JsonNode *node,
              GType     type)
{
  return node != NULL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == type;
}

const char *
lumo_bridge_refusal_reason (int lumo_error_code)
{
  switch (lumo_error_code)
    {
    case LUMO_ERROR_INVALID_NAME:
    case LUMO_ERROR_RESERVED_NAMESPACE:
      return "invalid_name";
    case LUMO_ERROR_LIMIT_EXCEEDED:
      return "limit";
    case LUMO_ERROR_DUPLICATE:
      return "duplicate";
    default:
      return "invalid";
    }
}

/* The bridge is stricter than lumo_catalogue_validate(): a tool must say
 * whether it writes (a missing flag must not quietly make a write tool a
 * read), and its display texts are bounded. Such an entry is replaced by
 * `null` before validation, so its index is kept, and its refusal is then
 * rewritten with the real reason. */
LumoCatalogue *
lumo_bridge_validate_catalogue (const char  *ns,
                                JsonArray   *tools,
                                GError     **error)
{
  g_autoptr(JsonArray) checked = json_array_new ();
  g_autoptr(GHashTable) strict = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  g_autoptr(GHashTable) names = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  LumoCatalogue *catalogue;
  guint n;

  g_return_val_if_fail (tools != NULL, NULL);

  n = json_array_get_length (tools);
  for (guint i = 0; i < n; i++)
    {
      JsonNode *node = json_array_get_element (tools, i);
      const char *problem = NULL;

      if (JSON_NODE_HOLDS_OBJECT (node))
        {
          JsonObject *object = json_node_get_object (node);
          JsonNode *name = json_object_get_member (object, "name");
          JsonNode *title = json_object_get_member (object, "title");
          JsonNode *description = json_object_get_member (object, "description");

          if (node_is_type (name, G_TYPE_STRING))
            {
              if (!node_is_type (json_object_get_member (object, "write"), G_TYPE_BOOLEAN))
                problem = "the field “write” must be true or false";
              else if (node_is_type (title, G_TYPE_STRING) &&
                       strlen (json_node_get_string (title)) > LUMO_BRIDGE_MAX_DISPLAY_LEN)
                problem = "the field “title” is longer than 128 bytes";
              else if (node_is_type (description, G_TYPE_STRING) &&
                       strlen (json_node_get_string (description)) > LUMO_BRIDGE_MAX_DESCRIPTION_LEN)
                problem = "the field “description” is longer than 4096 bytes";

              if (problem != NULL)
                {
                  g_hash_table_insert (names, GUINT_TO_POINTER (i), g_strdup (json_node_get_string (name)));
                  g_hash_table_insert (strict, GUINT_TO_POINTER (i), g_strdup (problem));
                }
            }
        }

      if (problem != NULL)
        json_array_add_null_element (checked);
      else
        json_array_add_element (checked, json_node_copy (node));
    }

  if (!(catalogue = lumo_catalogue_validate (ns, checked, error)))
    return NULL;

  for (guint i = 0; i < catalogue->refusals->len; i++)
    {
      LumoToolRefusal *refusal = g_ptr_array_index (catalogue->refusals, i);
      const char *problem = g_hash_table_lookup (strict, GUINT_TO_POINTER (refusal->index));

      if (problem == NULL)
        continue;

      g_free (refusal->name);
      refusal->name = g_strdup (g_hash_table_lookup (names, GUINT_TO_POINTER (refusal->index)));
      refusal->code = LUMO_ERROR_INVALID_ARGUMENT;
      g_free (refusal->reason);
      {
        g_autofree char *shown = lumo_utf8_excerpt (refusal->name != NULL ? refusal->name : "?", 64);

        refusal->reason = g_strdup_printf ("Tool %u (“%s”): %s", refusal->index + 1, shown, problem);
      }
    }

  /* Titles are display text (lumo_clean_display_name()). */
  for (guint i = 0; i < catalogue->tools->len; i++)
    {
      LumoToolInfo *info = g_ptr_array_index (catalogue->tools, i);
      char *clean = lumo_clean_display_name (info->title, LUMO_BRIDGE_MAX_DISPLAY_LEN);

      g_free (info->title);
      info->title = clean;
    }

  return catalogue;
}
