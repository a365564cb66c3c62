/* lumo-bridge-message-parse.c — strict parsing of provider → app messages
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Half of lumo-bridge-message.h: the envelope, then every field of the
 * message's type, each with the fault (code, field, re) the protocol
 * promises. Nothing is kept from a message that fails.
 */
#define G_LOG_DOMAIN "lumo-bridge-message"

#include "config.h"

#include <string.h>

#include "lumo-bridge-message.h"
#include "lumo-error.h"
#include "lumo-text.h"

/* ---- field readers -------------------------------------------------------
 *
 * Each returns FALSE with *fault set. `null` counts as absent for optional
 * members, as JavaScript providers write `undefined` members as either. */

typedef struct
{
  JsonNode         *re;
  LumoBridgeFault **fault;
} Ctx;

static gboolean
fail (Ctx                 *ctx,
      LumoBridgeErrorCode  code,
      const char          *field,
      const char          *message)
{
  *ctx->fault = lumo_bridge_fault_new (code, ctx->re, field, "%s", message);
  return FALSE;
}

static gboolean
node_is_string (JsonNode *node)
{
  return node != NULL && JSON_NODE_HOLDS_VALUE (node) &&
         json_node_get_value_type (node) == G_TYPE_STRING;
}

static gboolean
node_is_int (JsonNode *node)
{
  return node != NULL && JSON_NODE_HOLDS_VALUE (node) &&
         json_node_get_value_type (node) == G_TYPE_INT64;
}

static gboolean
node_is_bool (JsonNode *node)
{
  return node != NULL && JSON_NODE_HOLDS_VALUE (node) &&
         json_node_get_value_type (node) == G_TYPE_BOOLEAN;
}

static JsonNode *
get_member (JsonObject *object,
            const char *name)
{
  JsonNode *node = json_object_get_member (object, name);

  if (node != NULL && JSON_NODE_HOLDS_NULL (node))
    return NULL;

  return node;
}

/* A string of @min..@max bytes; @out NULL when optional and absent. */
static gboolean
read_string (Ctx         *ctx,
             JsonObject  *object,
             const char  *name,
             const char  *field,
             gsize        min,
             gsize        max,
             gboolean     required,
             char       **out)
{
  JsonNode *node = get_member (object, name);
  const char *str;
  gsize len;

  *out = NULL;

  if (node == NULL)
    {
      if (!required)
        return TRUE;
      *ctx->fault = lumo_bridge_fault_new (LUMO_BRIDGE_ERROR_BAD_FIELD, ctx->re, field,
                                           "The field “%s” is missing", field);
      return FALSE;
    }

  if (!node_is_string (node))
    {
      *ctx->fault = lumo_bridge_fault_new (LUMO_BRIDGE_ERROR_BAD_FIELD, ctx->re, field,
                                           "The field “%s” must be a string", field);
      return FALSE;
    }

  str = json_node_get_string (node);
  len = strlen (str);
  if (len < min || len > max)
    {
      *ctx->fault = lumo_bridge_fault_new (LUMO_BRIDGE_ERROR_BAD_FIELD, ctx->re, field,
                                           "The field “%s” must be %" G_GSIZE_FORMAT "–%" G_GSIZE_FORMAT
                                           " bytes long, not %" G_GSIZE_FORMAT,
                                           field, min, max, len);
      return FALSE;
    }

  *out = g_strdup (str);
  return TRUE;
}

/* A name from outside: a string within its byte bound (the wire's rule),
 * kept as display text (lumo_clean_display_name()). Nothing visible left
 * is absent, or a fault when the name is required. */
static gboolean
read_name (Ctx         *ctx,
           JsonObject  *object,
           const char  *name,
           const char  *field,
           gsize        max,
           gboolean     required,
           char       **out)
{
  g_autofree char *raw = NULL;

  if (!read_string (ctx, object, name, field, required ? 1 : 0, max, required, &raw))
    return FALSE;

  *out = lumo_clean_display_name (raw, max);
  if (*out == NULL && required)
    {
      *ctx->fault = lumo_bridge_fault_new (LUMO_BRIDGE_ERROR_BAD_FIELD, ctx->re, field,
                                           "The field “%s” has no visible text", field);
      return FALSE;
    }

  return TRUE;
}

static gboolean
read_bool (Ctx        *ctx,
           JsonObject *object,
           const char *name,
           gboolean   *out)
{
  JsonNode *node = get_member (object, name);

  if (!node_is_bool (node))
    {
      *ctx->fault = lumo_bridge_fault_new (LUMO_BRIDGE_ERROR_BAD_FIELD, ctx->re, name,
                                           node == NULL ? "The field “%s” is missing"
                                                        : "The field “%s” must be true or false",
                                           name);
      return FALSE;
    }

  *out = json_node_get_boolean (node);
  return TRUE;
}

static JsonObject *
read_object (Ctx        *ctx,
             JsonObject *object,
             const char *name)
{
  JsonNode *node = get_member (object, name);

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      *ctx->fault = lumo_bridge_fault_new (LUMO_BRIDGE_ERROR_BAD_FIELD, ctx->re, name,
                                           node == NULL ? "The field “%s” is missing"
                                                        : "The field “%s” must be an object",
                                           name);
      return NULL;
    }

  return json_node_get_object (node);
}

static gboolean
read_caller (Ctx               *ctx,
             JsonObject        *object,
             LumoBridgeMessage *message)
{
  JsonObject *caller;
  JsonNode *id;

  if (!(caller = read_object (ctx, object, "caller")))
    return FALSE;

  id = get_member (caller, "id");
  if (!node_is_string (id) || !lumo_is_extension_id (json_node_get_string (id)))
    return fail (ctx, LUMO_BRIDGE_ERROR_INVALID_ID, "caller.id",
                 "The field “caller.id” must be an extension ID: 32 letters a–p");

  message->caller_id = g_strdup (json_node_get_string (id));

  return read_name (ctx, caller, "name", "caller.name", LUMO_BRIDGE_MAX_DISPLAY_LEN,
                    FALSE, &message->caller_name) &&
         read_name (ctx, caller, "version", "caller.version", LUMO_BRIDGE_MAX_VERSION_LEN,
                    FALSE, &message->caller_version);
}

/* A request id or an answer's `re`: a string of 1–64 bytes without control
 * characters, or an integer 0 … 2^53 − 1. */
static gboolean
id_is_valid (JsonNode *node)
{
  if (node_is_int (node))
    {
      gint64 n = json_node_get_int (node);

      return n >= 0 && n <= LUMO_BRIDGE_MAX_INT_ID;
    }

  if (node_is_string (node))
    {
      const char *s = json_node_get_string (node);
      gsize len = strlen (s);

      if (len < 1 || len > LUMO_BRIDGE_MAX_ID_LEN)
        return FALSE;

      for (gsize i = 0; i < len; i++)
        {
          if ((guchar) s[i] < 0x20 || (guchar) s[i] == 0x7f)
            return FALSE;
        }

      return TRUE;
    }

  return FALSE;
}

static char *
id_key (JsonNode *node)
{
  if (node_is_int (node))
    return g_strdup_printf ("n:%" G_GINT64_FORMAT, json_node_get_int (node));

  return g_strconcat ("s:", json_node_get_string (node), NULL);
}

static gboolean
is_uuid (const char *s)
{
  static const int dashes[] = { 8, 13, 18, 23 };

  if (strlen (s) != 36)
    return FALSE;

  for (int i = 0, d = 0; i < 36; i++)
    {
      if (d < (int) G_N_ELEMENTS (dashes) && i == dashes[d])
        {
          if (s[i] != '-')
            return FALSE;
          d++;
        }
      else if (!g_ascii_isxdigit (s[i]))
        return FALSE;
    }

  return TRUE;
}

static gboolean
is_lower_hex (const char *s,
              gsize       len)
{
  if (strlen (s) != len)
    return FALSE;

  for (gsize i = 0; i < len; i++)
    {
      if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
        return FALSE;
    }

  return TRUE;
}

static gboolean
type_from_string (const char            *str,
                  LumoBridgeMessageType *type)
{
  for (LumoBridgeMessageType t = LUMO_BRIDGE_MESSAGE_HELLO; t <= LUMO_BRIDGE_MESSAGE_AGENT_CLOSE; t++)
    {
      if (g_str_equal (str, lumo_bridge_message_type_to_string (t)))
        {
          *type = t;
          return TRUE;
        }
    }

  return FALSE;
}

/* The entries are judged one by one later; here only their number. */
static gboolean
read_tools (Ctx               *ctx,
            JsonObject        *object,
            LumoBridgeMessage *message)
{
  JsonNode *tools = get_member (object, "tools");

  if (tools == NULL || !JSON_NODE_HOLDS_ARRAY (tools))
    return fail (ctx, LUMO_BRIDGE_ERROR_BAD_FIELD, "tools", "The field “tools” must be an array");

  if (json_array_get_length (json_node_get_array (tools)) > LUMO_BRIDGE_MAX_CATALOGUE_ENTRIES)
    {
      *ctx->fault = lumo_bridge_fault_new (LUMO_BRIDGE_ERROR_BAD_FIELD, ctx->re, "tools",
                                           "The field “tools” has %u entries; at most %d are allowed",
                                           json_array_get_length (json_node_get_array (tools)),
                                           LUMO_BRIDGE_MAX_CATALOGUE_ENTRIES);
      return FALSE;
    }

  message->tools = json_array_ref (json_node_get_array (tools));
  /* Advisory: bad entries are dropped, never a fault. */
  message->recommended_servers =
    lumo_recommended_servers_from_json (get_member (object, "customMarketMcpServers"));
  return TRUE;
}

/* ---- per type ------------------------------------------------------------ */

static gboolean
parse_hello (Ctx               *ctx,
             JsonObject        *object,
             LumoBridgeMessage *message)
{
  g_autoptr(GError) error = NULL;
  JsonNode *bridge = get_member (object, "bridge");
  JsonObject *service;

  if (!node_is_int (bridge) || json_node_get_int (bridge) != LUMO_BRIDGE_VERSION)
    return fail (ctx, LUMO_BRIDGE_ERROR_BAD_FIELD, "bridge",
                 "The field “bridge” must be 1: this app speaks bridge protocol version 1");

  if (!(service = read_object (ctx, object, "service")))
    return FALSE;

  if (!read_string (ctx, service, "namespace", "service.namespace", 1, LUMO_MAX_NAMESPACE_LEN + 64,
                    TRUE, &message->namespace_))
    return FALSE;

  if (!lumo_validate_namespace (message->namespace_, &error))
    {
      *ctx->fault = lumo_bridge_fault_new (LUMO_BRIDGE_ERROR_BAD_FIELD, ctx->re, "service.namespace",
                                           "The field “service.namespace” is refused: %s",
                                           error->message);
      return FALSE;
    }

  if (!read_name (ctx, service, "name", "service.name", LUMO_BRIDGE_MAX_DISPLAY_LEN,
                  TRUE, &message->service_name) ||
      !read_name (ctx, service, "version", "service.version", LUMO_BRIDGE_MAX_VERSION_LEN,
                  TRUE, &message->service_version))
    return FALSE;

  return read_tools (ctx, object, message);
}

/* A virtual port's id (@required: agentMessage, agentClose; optional in
 * authorize). */
static gboolean
read_agent_port (Ctx               *ctx,
                 JsonObject        *object,
                 gboolean           required,
                 LumoBridgeMessage *message)
{
  JsonNode *node = get_member (object, "port");

  if (node == NULL && !required)
    return TRUE;

  if (!node_is_string (node) || !lumo_bridge_is_agent_port_id (json_node_get_string (node)))
    return fail (ctx, LUMO_BRIDGE_ERROR_BAD_FIELD, "port",
                 node == NULL ? "The field “port” is missing"
                              : "The field “port” must be a virtual port id: 1–64 of A–Z, a–z, 0–9, _ and -");

  message->port = g_strdup (json_node_get_string (node));
  return TRUE;
}

static gboolean
parse_authorize (Ctx               *ctx,
                 JsonObject        *object,
                 LumoBridgeMessage *message)
{
  JsonNode *preview;
  g_autofree char *target = NULL;

  if (!read_caller (ctx, object, message) ||
      !read_agent_port (ctx, object, FALSE, message))
    return FALSE;

  if (!read_string (ctx, object, "tool", "tool", 1, LUMO_MAX_TOOL_NAME_LEN, TRUE, &message->tool))
    return FALSE;

  if (!read_bool (ctx, object, "write", &message->write))
    return FALSE;

  if (!read_string (ctx, object, "target", "target", 36, 36, FALSE, &target))
    {
      /* Say what the value must be, not only how long. */
      g_clear_pointer (ctx->fault, lumo_bridge_fault_free);
      return fail (ctx, LUMO_BRIDGE_ERROR_BAD_FIELD, "target",
                   "The field “target” must be a UUID (8-4-4-4-12 hex digits)");
    }
  if (target != NULL)
    {
      if (!is_uuid (target))
        return fail (ctx, LUMO_BRIDGE_ERROR_BAD_FIELD, "target",
                     "The field “target” must be a UUID (8-4-4-4-12 hex digits)");
      message->target = g_ascii_strdown (target, -1);
    }

  if (!read_string (ctx, object, "paramsHash", "paramsHash", 0, 64, message->write,
                    &message->params_hash) ||
      (message->params_hash != NULL && !is_lower_hex (message->params_hash, 64)))
    {
      g_clear_pointer (ctx->fault, lumo_bridge_fault_free);
      return fail (ctx, LUMO_BRIDGE_ERROR_BAD_FIELD, "paramsHash",
                   message->write && message->params_hash == NULL
                   ? "The field “paramsHash” is required for a write"
                   : "The field “paramsHash” must be 64 lowercase hex digits (SHA-256)");
    }

  preview = get_member (object, "preview");
  if (preview == NULL && message->write)
    return fail (ctx, LUMO_BRIDGE_ERROR_BAD_FIELD, "preview",
                 "The field “preview” is required for a write");
  if (preview != NULL)
    {
      g_autoptr(JsonGenerator) generator = NULL;
      g_autofree char *json = NULL;
      gsize len = 0;

      if (!JSON_NODE_HOLDS_OBJECT (preview))
        return fail (ctx, LUMO_BRIDGE_ERROR_BAD_FIELD, "preview",
                     "The field “preview” must be an object");

      generator = json_generator_new ();
      json_generator_set_root (generator, preview);
      json = json_generator_to_data (generator, &len);
      if (len > LUMO_BRIDGE_MAX_PREVIEW_LEN)
        {
          *ctx->fault = lumo_bridge_fault_new (LUMO_BRIDGE_ERROR_BAD_FIELD, ctx->re, "preview",
                                               "The field “preview” is %" G_GSIZE_FORMAT
                                               " bytes as JSON; at most %d are allowed",
                                               len, LUMO_BRIDGE_MAX_PREVIEW_LEN);
          return FALSE;
        }
      message->preview_json = g_steal_pointer (&json);
    }

  return TRUE;
}

static gboolean
parse_result (Ctx               *ctx,
              JsonObject        *object,
              LumoBridgeMessage *message)
{
  JsonNode *audit_id = get_member (object, "auditId");

  if (!node_is_int (audit_id) || json_node_get_int (audit_id) <= 0)
    return fail (ctx, LUMO_BRIDGE_ERROR_BAD_FIELD, "auditId",
                 "The field “auditId” must be a positive integer from an authorize answer");
  message->audit_id = json_node_get_int (audit_id);

  return read_bool (ctx, object, "ok", &message->ok) &&
         read_string (ctx, object, "error", "error", 0, LUMO_BRIDGE_MAX_RESULT_ERROR_LEN,
                      FALSE, &message->error);
}

static gboolean
parse_port (Ctx               *ctx,
            JsonObject        *object,
            LumoBridgeMessage *message)
{
  g_autofree char *state = NULL;

  if (!read_caller (ctx, object, message) ||
      !read_string (ctx, object, "port", "port", 1, LUMO_BRIDGE_MAX_PORT_LEN, TRUE, &message->port))
    return FALSE;

  if (!read_string (ctx, object, "state", "state", 0, 16, TRUE, &state) ||
      !(g_str_equal (state, "open") || g_str_equal (state, "closed")))
    {
      g_clear_pointer (ctx->fault, lumo_bridge_fault_free);
      return fail (ctx, LUMO_BRIDGE_ERROR_BAD_FIELD, "state",
                   "The field “state” must be \"open\" or \"closed\"");
    }

  message->open = g_str_equal (state, "open");
  return TRUE;
}

static gboolean
parse_probe_target_result (Ctx               *ctx,
                           JsonObject        *object,
                           LumoBridgeMessage *message)
{
  JsonObject *outcome;
  g_autofree char *kind = NULL;
  g_autofree char *error = NULL;
  JsonNode *answer;
  LumoProbeOutcomeKind k;

  if (!(outcome = read_object (ctx, object, "outcome")))
    return FALSE;

  if (!read_string (ctx, outcome, "kind", "outcome.kind", 1, 16, TRUE, &kind))
    return FALSE;

  if (g_str_equal (kind, "answer"))
    k = LUMO_PROBE_OUTCOME_ANSWER;
  else if (g_str_equal (kind, "rejected"))
    k = LUMO_PROBE_OUTCOME_REJECTED;
  else if (g_str_equal (kind, "timeout"))
    k = LUMO_PROBE_OUTCOME_TIMEOUT;
  else
    return fail (ctx, LUMO_BRIDGE_ERROR_BAD_FIELD, "outcome.kind",
                 "The field “outcome.kind” must be \"answer\", \"rejected\" or \"timeout\"");

  if (!read_string (ctx, outcome, "error", "outcome.error", 0, LUMO_BRIDGE_MAX_RESULT_ERROR_LEN,
                    k == LUMO_PROBE_OUTCOME_REJECTED, &error))
    return FALSE;

  /* A target that answered `null` still answered: only a missing member
   * means there was no answer. */
  answer = json_object_get_member (outcome, "answer");
  if (k == LUMO_PROBE_OUTCOME_ANSWER && answer == NULL)
    return fail (ctx, LUMO_BRIDGE_ERROR_BAD_FIELD, "outcome.answer",
                 "The field “outcome.answer” is required when the kind is \"answer\"");

  message->outcome = lumo_probe_outcome_new (k, error, k == LUMO_PROBE_OUTCOME_ANSWER ? answer : NULL);
  return TRUE;
}

static gboolean
parse_agent_message (Ctx               *ctx,
                     JsonObject        *object,
                     LumoBridgeMessage *message)
{
  JsonNode *node;

  if (!read_agent_port (ctx, object, TRUE, message))
    return FALSE;

  node = get_member (object, "message");
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node) ||
      !lumo_bridge_is_jsonrpc_message (json_node_get_object (node)))
    return fail (ctx, LUMO_BRIDGE_ERROR_BAD_FIELD, "message",
                 node == NULL ? "The field “message” is missing"
                              : "The field “message” must be one JSON-RPC 2.0 object (not a batch)");

  message->jsonrpc = json_object_ref (json_node_get_object (node));
  return TRUE;
}

static gboolean
parse_agent_close (Ctx               *ctx,
                   JsonObject        *object,
                   LumoBridgeMessage *message)
{
  return read_agent_port (ctx, object, TRUE, message) &&
         read_string (ctx, object, "reason", "reason", 0, LUMO_BRIDGE_MAX_REASON_LEN,
                      TRUE, &message->reason);
}

static gboolean
parse_error_answer (Ctx               *ctx,
                    JsonObject        *object,
                    LumoBridgeMessage *message)
{
  return read_string (ctx, object, "code", "code", 1, 64, TRUE, &message->error_code) &&
         read_string (ctx, object, "message", "message", 0, LUMO_BRIDGE_MAX_RESULT_ERROR_LEN,
                      FALSE, &message->error_message);
}

LumoBridgeMessage *
lumo_bridge_message_parse (JsonObject       *object,
                           LumoBridgeFault **fault)
{
  g_autoptr(LumoBridgeMessage) message = NULL;
  JsonNode *type_node;
  JsonNode *id;
  LumoBridgeMessageType type;
  gboolean id_ok;
  gboolean ok = FALSE;
  Ctx ctx = { NULL, fault };

  g_return_val_if_fail (object != NULL, NULL);
  g_return_val_if_fail (fault != NULL && *fault == NULL, NULL);

  id = json_object_get_member (object, "id");
  id_ok = id_is_valid (id);
  if (id_ok)
    ctx.re = id;

  type_node = json_object_get_member (object, "type");
  if (!node_is_string (type_node))
    {
      fail (&ctx, LUMO_BRIDGE_ERROR_BAD_FIELD, "type",
            type_node == NULL ? "The field “type” is missing" : "The field “type” must be a string");
      return NULL;
    }

  if (!type_from_string (json_node_get_string (type_node), &type))
    {
      g_autofree char *shown = lumo_utf8_excerpt (json_node_get_string (type_node), 64);

      *fault = lumo_bridge_fault_new (LUMO_BRIDGE_ERROR_UNKNOWN_TYPE, ctx.re, NULL,
                                      "“%s” is not a message type of bridge protocol %d",
                                      shown, LUMO_BRIDGE_VERSION);
      return NULL;
    }

  message = g_new0 (LumoBridgeMessage, 1);
  message->type = type;

  /* A push has no id: its faults are answered with re null, and an id it
   * carries anyway is not read. */
  if (lumo_bridge_message_is_push (message))
    {
      ctx.re = NULL;
      if (type == LUMO_BRIDGE_MESSAGE_AGENT_MESSAGE)
        ok = parse_agent_message (&ctx, object, message);
      else
        ok = parse_agent_close (&ctx, object, message);

      return ok ? g_steal_pointer (&message) : NULL;
    }

  if (type == LUMO_BRIDGE_MESSAGE_PROBE_TARGET_RESULT || type == LUMO_BRIDGE_MESSAGE_ERROR ||
      type == LUMO_BRIDGE_MESSAGE_AGENT_OPEN_RESULT)
    {
      JsonNode *re = json_object_get_member (object, "re");

      /* An answer is never answered; the fault only says why it was dropped. */
      if (!id_is_valid (re))
        {
          *fault = lumo_bridge_fault_new (LUMO_BRIDGE_ERROR_BAD_FIELD, NULL, "re",
                                          "The field “re” must be the id of the app's request");
          (*fault)->answerable = FALSE;
          return NULL;
        }
      message->re = json_node_copy (re);
      ctx.re = NULL;

      if (type == LUMO_BRIDGE_MESSAGE_ERROR)
        ok = parse_error_answer (&ctx, object, message);
      else if (type == LUMO_BRIDGE_MESSAGE_AGENT_OPEN_RESULT)
        ok = TRUE;
      else
        ok = parse_probe_target_result (&ctx, object, message);

      if (!ok)
        {
          (*fault)->answerable = FALSE;
          return NULL;
        }

      return g_steal_pointer (&message);
    }

  if (!id_ok)
    {
      fail (&ctx, LUMO_BRIDGE_ERROR_INVALID_ID, "id",
            "The field “id” must be a string of 1–64 bytes without control characters, "
            "or an integer from 0 to 2^53 − 1");
      return NULL;
    }

  message->id = json_node_copy (id);
  message->id_key = id_key (id);

  switch (type)
    {
    case LUMO_BRIDGE_MESSAGE_HELLO:
      ok = parse_hello (&ctx, object, message);
      break;

    case LUMO_BRIDGE_MESSAGE_PROBE:
      ok = read_caller (&ctx, object, message);
      break;

    case LUMO_BRIDGE_MESSAGE_AUTHORIZE:
      ok = parse_authorize (&ctx, object, message);
      break;

    case LUMO_BRIDGE_MESSAGE_RESULT:
      ok = parse_result (&ctx, object, message);
      break;

    case LUMO_BRIDGE_MESSAGE_TOOLS:
      ok = read_tools (&ctx, object, message);
      break;

    case LUMO_BRIDGE_MESSAGE_PORT:
      ok = parse_port (&ctx, object, message);
      break;

    case LUMO_BRIDGE_MESSAGE_PROBE_TARGET_RESULT:
    case LUMO_BRIDGE_MESSAGE_ERROR:
    case LUMO_BRIDGE_MESSAGE_AGENT_OPEN_RESULT:
    case LUMO_BRIDGE_MESSAGE_AGENT_MESSAGE:
    case LUMO_BRIDGE_MESSAGE_AGENT_CLOSE:
    default:
      g_assert_not_reached ();
    }

  if (!ok)
    return NULL;

  return g_steal_pointer (&message);
}

gboolean
lumo_bridge_message_peek_request (JsonObject            *object,
                                  LumoBridgeMessageType *type,
                                  char                 **id_key_out)
{
  JsonNode *type_node;
  JsonNode *id;
  LumoBridgeMessageType t;

  g_return_val_if_fail (object != NULL, FALSE);

  type_node = json_object_get_member (object, "type");
  id = json_object_get_member (object, "id");
  if (!node_is_string (type_node) || !type_from_string (json_node_get_string (type_node), &t) ||
      t == LUMO_BRIDGE_MESSAGE_PROBE_TARGET_RESULT || t == LUMO_BRIDGE_MESSAGE_ERROR ||
      t == LUMO_BRIDGE_MESSAGE_AGENT_OPEN_RESULT || t == LUMO_BRIDGE_MESSAGE_AGENT_MESSAGE ||
      t == LUMO_BRIDGE_MESSAGE_AGENT_CLOSE || !id_is_valid (id))
    return FALSE;

  if (type != NULL)
    *type = t;
  if (id_key_out != NULL)
    *id_key_out = id_key (id);
  return TRUE;
}

gboolean
lumo_bridge_message_peek_push (JsonObject *object)
{
  JsonNode *type_node;
  LumoBridgeMessageType t;

  g_return_val_if_fail (object != NULL, FALSE);

  type_node = json_object_get_member (object, "type");
  return node_is_string (type_node) && type_from_string (json_node_get_string (type_node), &t) &&
         (t == LUMO_BRIDGE_MESSAGE_AGENT_MESSAGE || t == LUMO_BRIDGE_MESSAGE_AGENT_CLOSE);
}
