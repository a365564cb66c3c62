/* lumo-bridge-message.c — parsing and validating provider → app messages
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The builders and the app-message validator live in
 * lumo-bridge-message-build.c.
 */
#define G_LOG_DOMAIN "lumo-bridge-message"

#include "config.h"

#include <string.h>

#include "lumo-bridge-message.h"
#include "lumo-error.h"

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
  g_free (message->tool);
  g_free (message->target);
  g_free (message->params_hash);
  g_free (message->preview_json);
  g_free (message->error);
  g_free (message->port);
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
         message->type != LUMO_BRIDGE_MESSAGE_ERROR;
}

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

  return read_string (ctx, caller, "name", "caller.name", 0, LUMO_BRIDGE_MAX_DISPLAY_LEN,
                      FALSE, &message->caller_name) &&
         read_string (ctx, caller, "version", "caller.version", 0, LUMO_BRIDGE_MAX_VERSION_LEN,
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
  for (guint i = 1; i < G_N_ELEMENTS (message_types); i++)
    {
      if (g_str_equal (str, message_types[i]))
        {
          *type = i;
          return TRUE;
        }
    }

  return FALSE;
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
  JsonNode *tools;

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

  if (!read_string (ctx, service, "name", "service.name", 1, LUMO_BRIDGE_MAX_DISPLAY_LEN,
                    TRUE, &message->service_name) ||
      !read_string (ctx, service, "version", "service.version", 1, LUMO_BRIDGE_MAX_VERSION_LEN,
                    TRUE, &message->service_version))
    return FALSE;

  tools = get_member (object, "tools");
  if (tools == NULL || !JSON_NODE_HOLDS_ARRAY (tools))
    return fail (ctx, LUMO_BRIDGE_ERROR_BAD_FIELD, "tools", "The field “tools” must be an array");

  message->tools = json_array_ref (json_node_get_array (tools));
  return TRUE;
}

static gboolean
parse_authorize (Ctx               *ctx,
                 JsonObject        *object,
                 LumoBridgeMessage *message)
{
  JsonNode *preview;
  g_autofree char *target = NULL;

  if (!read_caller (ctx, object, message))
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
      *fault = lumo_bridge_fault_new (LUMO_BRIDGE_ERROR_UNKNOWN_TYPE, ctx.re, NULL,
                                      "“%.64s” is not a message type of bridge protocol %d",
                                      json_node_get_string (type_node), LUMO_BRIDGE_VERSION);
      return NULL;
    }

  message = g_new0 (LumoBridgeMessage, 1);
  message->type = type;

  if (type == LUMO_BRIDGE_MESSAGE_PROBE_TARGET_RESULT || type == LUMO_BRIDGE_MESSAGE_ERROR)
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
      {
        JsonNode *tools = get_member (object, "tools");

        if (tools == NULL || !JSON_NODE_HOLDS_ARRAY (tools))
          ok = fail (&ctx, LUMO_BRIDGE_ERROR_BAD_FIELD, "tools", "The field “tools” must be an array");
        else
          {
            message->tools = json_array_ref (json_node_get_array (tools));
            ok = TRUE;
          }
      }
      break;

    case LUMO_BRIDGE_MESSAGE_PORT:
      ok = parse_port (&ctx, object, message);
      break;

    case LUMO_BRIDGE_MESSAGE_PROBE_TARGET_RESULT:
    case LUMO_BRIDGE_MESSAGE_ERROR:
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
      !id_is_valid (id))
    return FALSE;

  if (type != NULL)
    *type = t;
  if (id_key_out != NULL)
    *id_key_out = id_key (id);
  return TRUE;
}

/* ---- catalogues ----------------------------------------------------------- */

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
          JsonNode *title = get_member (object, "title");
          JsonNode *description = get_member (object, "description");

          if (node_is_string (name))
            {
              if (!node_is_bool (json_object_get_member (object, "write")))
                problem = "the field “write” must be true or false";
              else if (node_is_string (title) &&
                       strlen (json_node_get_string (title)) > LUMO_BRIDGE_MAX_DISPLAY_LEN)
                problem = "the field “title” is longer than 128 bytes";
              else if (node_is_string (description) &&
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
      refusal->reason = g_strdup_printf ("Tool %u (“%.64s”): %s", refusal->index + 1,
                                         g_utf8_validate (refusal->name, -1, NULL) ? refusal->name : "?",
                                         problem);
    }

  return catalogue;
}
