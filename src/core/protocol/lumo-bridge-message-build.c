/* lumo-bridge-message-build.c — building and checking app → provider messages
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Half of lumo-bridge-message.h: every message the app sends is built here,
 * and lumo_bridge_validate_app_message() holds them to the rules a provider
 * applies, so the fixtures can prove that what the C side builds is what
 * the TypeScript side accepts.
 */
#define G_LOG_DOMAIN "lumo-bridge-message"

#include "config.h"

#include <string.h>

#include "lumo-bridge-message.h"
#include "lumo-error.h"
#include "lumo-mcp.h"
#include "lumo-text.h"

static const char * const deny_reasons[] = {
  "disabled", "not_authorized", "pending", "writes_off", "rate_limited",
  "review_rejected", "review_timeout", "audit_failed",
};

static void
set_re (JsonObject *object,
        JsonNode   *re)
{
  json_object_set_member (object, "re", re != NULL ? json_node_copy (re) : json_node_new (JSON_NODE_NULL));
}

static JsonObject *
new_answer (const char *type,
            JsonNode   *re)
{
  JsonObject *object = json_object_new ();

  json_object_set_string_member (object, "type", type);
  set_re (object, re);
  return object;
}

JsonObject *
lumo_bridge_build_error (const LumoBridgeFault *fault)
{
  JsonObject *object;

  g_return_val_if_fail (fault != NULL, NULL);

  object = new_answer ("error", fault->re);
  json_object_set_string_member (object, "code", lumo_bridge_error_code_to_string (fault->code));
  if (fault->field != NULL)
    json_object_set_string_member (object, "field", fault->field);
  json_object_set_string_member (object, "message", fault->message != NULL ? fault->message : "");
  return object;
}

JsonObject *
lumo_bridge_build_unavailable (const char *message)
{
  LumoBridgeFault fault = {
    .code = LUMO_BRIDGE_ERROR_UNAVAILABLE,
    .message = (char *) message,
  };

  g_return_val_if_fail (message != NULL, NULL);

  return lumo_bridge_build_error (&fault);
}

/* A refused name or reason is the provider's own text: shown in full it
 * could make the answer too long to send. */
#define MAX_REFUSED_NAME_LEN     128
#define MAX_REFUSED_MESSAGE_LEN  512

static gint
compare_refusals (gconstpointer a,
                  gconstpointer b)
{
  const LumoToolRefusal *ra = *(LumoToolRefusal * const *) a;
  const LumoToolRefusal *rb = *(LumoToolRefusal * const *) b;

  return (ra->index > rb->index) - (ra->index < rb->index);
}

static JsonObject *
build_tools (const char * const *accepted,
             GPtrArray          *refusals)
{
  JsonObject *tools = json_object_new ();
  JsonArray *names = json_array_new ();
  JsonArray *refused = json_array_new ();

  for (guint i = 0; accepted != NULL && accepted[i] != NULL; i++)
    json_array_add_string_element (names, accepted[i]);

  if (refusals != NULL && refusals->len > 0)
    {
      /* Not g_ptr_array_copy(): the copy would inherit the free function. */
      g_autoptr(GPtrArray) sorted = g_ptr_array_sized_new (refusals->len);

      for (guint i = 0; i < refusals->len; i++)
        g_ptr_array_add (sorted, g_ptr_array_index (refusals, i));
      g_ptr_array_sort (sorted, compare_refusals);
      for (guint i = 0; i < sorted->len; i++)
        {
          const LumoToolRefusal *refusal = g_ptr_array_index (sorted, i);
          JsonObject *entry = json_object_new ();
          g_autofree char *name = NULL;
          g_autofree char *message = NULL;

          json_object_set_int_member (entry, "index", refusal->index);
          /* A name that is not UTF-8 cannot go into JSON; say there was none. */
          if (refusal->name != NULL && g_utf8_validate (refusal->name, -1, NULL))
            {
              name = lumo_utf8_cut (refusal->name, MAX_REFUSED_NAME_LEN);
              json_object_set_string_member (entry, "name", name);
            }
          else
            json_object_set_null_member (entry, "name");
          json_object_set_string_member (entry, "reason", lumo_bridge_refusal_reason (refusal->code));
          if (refusal->reason != NULL && g_utf8_validate (refusal->reason, -1, NULL))
            {
              message = lumo_utf8_cut (refusal->reason, MAX_REFUSED_MESSAGE_LEN);
              json_object_set_string_member (entry, "message", message);
            }
          else
            json_object_set_string_member (entry, "message", "");
          json_array_add_object_element (refused, entry);
        }
    }

  json_object_set_array_member (tools, "accepted", names);
  json_object_set_array_member (tools, "refused", refused);
  return tools;
}

JsonObject *
lumo_bridge_build_hello_result (JsonNode           *re,
                                const char         *app_version,
                                gboolean            enabled,
                                gboolean            writes,
                                gboolean            review,
                                const char * const *accepted,
                                GPtrArray          *refusals)
{
  JsonObject *object = new_answer ("hello.result", re);
  JsonObject *app = json_object_new ();
  JsonObject *policy = json_object_new ();

  g_return_val_if_fail (app_version != NULL, NULL);

  json_object_set_int_member (object, "bridge", LUMO_BRIDGE_VERSION);
  json_object_set_string_member (app, "version", app_version);
  json_object_set_object_member (object, "app", app);
  json_object_set_boolean_member (policy, "enabled", enabled);
  json_object_set_boolean_member (policy, "writes", writes);
  json_object_set_boolean_member (policy, "review", review);
  json_object_set_object_member (object, "policy", policy);
  json_object_set_object_member (object, "tools", build_tools (accepted, refusals));
  return object;
}

JsonObject *
lumo_bridge_build_tools_result (JsonNode           *re,
                                const char * const *accepted,
                                GPtrArray          *refusals)
{
  JsonObject *object = new_answer ("tools.result", re);

  json_object_set_object_member (object, "tools", build_tools (accepted, refusals));
  return object;
}

JsonObject *
lumo_bridge_build_probe_result (JsonNode *re,
                                gboolean  enabled,
                                gboolean  authorized,
                                gboolean  ready,
                                gboolean  pending_approval)
{
  JsonObject *object = new_answer ("probe.result", re);
  JsonObject *status = json_object_new ();

  json_object_set_boolean_member (status, "enabled", enabled);
  json_object_set_boolean_member (status, "authorized", authorized);
  json_object_set_boolean_member (status, "ready", ready);
  json_object_set_boolean_member (status, "pendingApproval", pending_approval);
  json_object_set_object_member (object, "status", status);
  return object;
}

JsonObject *
lumo_bridge_build_authorize_result (JsonNode   *re,
                                    gboolean    allow,
                                    const char *reason,
                                    gint64      retry_after_ms,
                                    gint64      audit_id,
                                    const char *message)
{
  JsonObject *object;
  g_autofree char *text = NULL;

  g_return_val_if_fail (allow == (reason == NULL), NULL);
  g_return_val_if_fail (reason == NULL || lumo_bridge_is_deny_reason (reason), NULL);

  object = new_answer ("authorize.result", re);
  json_object_set_boolean_member (object, "allow", allow);
  if (reason != NULL)
    json_object_set_string_member (object, "reason", reason);
  if (retry_after_ms >= 0)
    json_object_set_int_member (object, "retryAfterMs", retry_after_ms);
  if (audit_id > 0)
    json_object_set_int_member (object, "auditId", audit_id);
  if (message == NULL)
    message = text = lumo_bridge_decision_message (reason, retry_after_ms);
  json_object_set_string_member (object, "message", message);
  return object;
}

JsonObject *
lumo_bridge_build_empty_result (const char *type,
                                JsonNode   *re)
{
  g_return_val_if_fail (type != NULL, NULL);

  return new_answer (type, re);
}

JsonObject *
lumo_bridge_build_policy (gboolean            enabled,
                          gboolean            writes,
                          gboolean            review,
                          const char * const *revoked)
{
  JsonObject *object = json_object_new ();
  JsonArray *ids = json_array_new ();

  json_object_set_string_member (object, "type", "policy");
  json_object_set_boolean_member (object, "enabled", enabled);
  json_object_set_boolean_member (object, "writes", writes);
  json_object_set_boolean_member (object, "review", review);
  for (guint i = 0; revoked != NULL && revoked[i] != NULL; i++)
    json_array_add_string_element (ids, revoked[i]);
  json_object_set_array_member (object, "revoked", ids);
  return object;
}

JsonObject *
lumo_bridge_build_probe_target (const char *id,
                                const char *target)
{
  JsonObject *object;

  g_return_val_if_fail (id != NULL, NULL);
  g_return_val_if_fail (lumo_is_extension_id (target), NULL);

  object = json_object_new ();
  json_object_set_string_member (object, "type", "probeTarget");
  json_object_set_string_member (object, "id", id);
  json_object_set_string_member (object, "target", target);
  return object;
}

JsonObject *
lumo_bridge_build_agent_open (JsonNode   *id,
                              const char *port,
                              const char *caller_id,
                              const char *caller_name)
{
  JsonObject *object;
  JsonObject *caller;

  g_return_val_if_fail (id != NULL, NULL);
  g_return_val_if_fail (lumo_bridge_is_agent_port_id (port), NULL);
  g_return_val_if_fail (lumo_is_extension_id (caller_id), NULL);
  g_return_val_if_fail (caller_name != NULL, NULL);

  object = json_object_new ();
  json_object_set_string_member (object, "type", "agentOpen");
  json_object_set_member (object, "id", json_node_copy (id));
  json_object_set_string_member (object, "port", port);
  caller = json_object_new ();
  json_object_set_string_member (caller, "id", caller_id);
  json_object_set_string_member (caller, "name", caller_name);
  json_object_set_string_member (caller, "kind", "agent");
  json_object_set_object_member (object, "caller", caller);
  return object;
}

JsonObject *
lumo_bridge_build_agent_message (const char *port,
                                 JsonObject *message,
                                 JsonObject *decision)
{
  JsonObject *object;

  g_return_val_if_fail (lumo_bridge_is_agent_port_id (port), NULL);
  g_return_val_if_fail (message != NULL, NULL);

  object = json_object_new ();
  json_object_set_string_member (object, "type", "agentMessage");
  json_object_set_string_member (object, "port", port);
  json_object_set_object_member (object, "message", json_object_ref (message));
  /* Beside the agent's message, never in it: only the app writes here. */
  if (decision != NULL)
    json_object_set_object_member (object, "decision", json_object_ref (decision));
  return object;
}

JsonObject *
lumo_bridge_build_relayed_decision (JsonNode   *id,
                                    const char *tool,
                                    const char *reason)
{
  JsonObject *object;
  g_autofree char *text = NULL;

  g_return_val_if_fail (id != NULL, NULL);
  g_return_val_if_fail (tool != NULL, NULL);
  g_return_val_if_fail (reason == NULL || lumo_bridge_is_deny_reason (reason), NULL);

  object = json_object_new ();
  json_object_set_member (object, "id", json_node_copy (id));
  json_object_set_string_member (object, "tool", tool);
  json_object_set_boolean_member (object, "allow", reason == NULL);
  if (reason != NULL)
    json_object_set_string_member (object, "reason", reason);
  text = lumo_bridge_decision_message (reason, -1);
  json_object_set_string_member (object, "message", text);
  return object;
}

JsonObject *
lumo_bridge_build_agent_close (const char *port,
                               const char *reason)
{
  JsonObject *object;
  g_autofree char *cut = NULL;

  g_return_val_if_fail (lumo_bridge_is_agent_port_id (port), NULL);
  g_return_val_if_fail (reason != NULL, NULL);

  object = json_object_new ();
  json_object_set_string_member (object, "type", "agentClose");
  json_object_set_string_member (object, "port", port);
  cut = lumo_utf8_cut (reason, LUMO_BRIDGE_MAX_REASON_LEN);
  json_object_set_string_member (object, "reason", cut);
  return object;
}

gboolean
lumo_bridge_is_deny_reason (const char *reason)
{
  if (reason == NULL)
    return FALSE;

  for (guint i = 0; i < G_N_ELEMENTS (deny_reasons); i++)
    {
      if (g_str_equal (reason, deny_reasons[i]))
        return TRUE;
    }

  return FALSE;
}

/* The model reads these; they stay English whatever the desktop's locale,
 * because the agent's conversation is not the app's UI. */
char *
lumo_bridge_decision_message (const char *reason,
                              gint64      retry_after_ms)
{
  if (reason == NULL)
    return g_strdup ("Allowed.");
  if (g_str_equal (reason, "disabled"))
    return g_strdup ("Agent access is turned off in the provider.");
  if (g_str_equal (reason, "not_authorized"))
    return g_strdup ("The caller is not on the allow-list.");
  if (g_str_equal (reason, "pending"))
    return g_strdup ("Waiting for your approval in the provider.");
  if (g_str_equal (reason, "writes_off"))
    return g_strdup ("Writes are turned off for this provider.");
  if (g_str_equal (reason, "rate_limited"))
    {
      gint64 seconds = MAX ((retry_after_ms + 999) / 1000, 1);

      return g_strdup_printf ("Too many writes: at most %d in %d seconds. Try again in %" G_GINT64_FORMAT
                              " second%s.",
                              LUMO_RATE_LIMIT_WRITES, (int) (LUMO_RATE_LIMIT_WINDOW_US / G_USEC_PER_SEC),
                              seconds, seconds == 1 ? "" : "s");
    }
  if (g_str_equal (reason, "review_rejected"))
    return g_strdup ("The reviewer rejected this write.");
  if (g_str_equal (reason, "review_timeout"))
    return g_strdup ("No reviewer decided on this write in time.");
  if (g_str_equal (reason, "audit_failed"))
    return g_strdup ("The write could not be recorded in the audit log, so it was not allowed.");

  return g_strdup ("The call was not allowed.");
}

/* ---- validation of app → provider messages ------------------------------- */

typedef struct
{
  char   **field;
  GError **error;
} Check;

static gboolean
bad (Check      *check,
     const char *field,
     const char *why)
{
  if (check->field != NULL)
    *check->field = g_strdup (field);
  g_set_error (check->error, LUMO_ERROR, LUMO_ERROR_PROTOCOL, "The field “%s” %s", field, why);
  return FALSE;
}

static gboolean
is_type (JsonNode *node,
         GType     type)
{
  return node != NULL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == type;
}

static gboolean
is_id (JsonNode *node)
{
  if (is_type (node, G_TYPE_INT64))
    return json_node_get_int (node) >= 0 && json_node_get_int (node) <= LUMO_BRIDGE_MAX_INT_ID;
  if (is_type (node, G_TYPE_STRING))
    {
      gsize len = strlen (json_node_get_string (node));

      return len >= 1 && len <= LUMO_BRIDGE_MAX_ID_LEN;
    }
  return FALSE;
}

static gboolean
check_bools (Check       *check,
             JsonObject  *object,
             const char  *prefix,
             const char **names)
{
  for (guint i = 0; names[i] != NULL; i++)
    {
      if (!is_type (json_object_get_member (object, names[i]), G_TYPE_BOOLEAN))
        {
          g_autofree char *field = prefix ? g_strconcat (prefix, ".", names[i], NULL) : g_strdup (names[i]);

          return bad (check, field, "must be true or false");
        }
    }
  return TRUE;
}

static JsonObject *
get_object (JsonObject *object,
            const char *name)
{
  JsonNode *node = json_object_get_member (object, name);

  return node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
}

static gboolean
check_tools (Check      *check,
             JsonObject *object)
{
  JsonObject *tools = get_object (object, "tools");
  JsonNode *accepted;
  JsonNode *refused;

  if (tools == NULL)
    return bad (check, "tools", "must be an object");

  accepted = json_object_get_member (tools, "accepted");
  if (accepted == NULL || !JSON_NODE_HOLDS_ARRAY (accepted))
    return bad (check, "tools.accepted", "must be an array");
  for (guint i = 0; i < json_array_get_length (json_node_get_array (accepted)); i++)
    if (!is_type (json_array_get_element (json_node_get_array (accepted), i), G_TYPE_STRING))
      return bad (check, "tools.accepted", "must hold only strings");

  refused = json_object_get_member (tools, "refused");
  if (refused == NULL || !JSON_NODE_HOLDS_ARRAY (refused))
    return bad (check, "tools.refused", "must be an array");
  for (guint i = 0; i < json_array_get_length (json_node_get_array (refused)); i++)
    {
      JsonNode *entry = json_array_get_element (json_node_get_array (refused), i);
      JsonObject *o = JSON_NODE_HOLDS_OBJECT (entry) ? json_node_get_object (entry) : NULL;
      JsonNode *name;
      JsonNode *reason;

      if (o == NULL)
        return bad (check, "tools.refused", "must hold only objects");
      name = json_object_get_member (o, "name");
      reason = json_object_get_member (o, "reason");
      if (!is_type (json_object_get_member (o, "index"), G_TYPE_INT64) ||
          json_object_get_int_member (o, "index") < 0)
        return bad (check, "tools.refused.index", "must be an integer ≥ 0");
      if (name == NULL || !(JSON_NODE_HOLDS_NULL (name) || is_type (name, G_TYPE_STRING)))
        return bad (check, "tools.refused.name", "must be a string or null");
      if (!is_type (reason, G_TYPE_STRING) ||
          !g_strv_contains ((const char * const[]) { "invalid", "invalid_name", "limit", "duplicate", NULL },
                            json_node_get_string (reason)))
        return bad (check, "tools.refused.reason", "must be invalid, invalid_name, limit or duplicate");
      if (!is_type (json_object_get_member (o, "message"), G_TYPE_STRING))
        return bad (check, "tools.refused.message", "must be a string");
    }

  return TRUE;
}

/* A display name as the provider takes it: within its bound, and with
 * something left once it is cleaned as display text. */
static gboolean
is_display_name (const char *name)
{
  g_autofree char *clean = NULL;

  if (name == NULL || strlen (name) > LUMO_BRIDGE_MAX_DISPLAY_LEN)
    return FALSE;

  return (clean = lumo_clean_display_name (name, LUMO_BRIDGE_MAX_DISPLAY_LEN)) != NULL;
}

/* The `decision` of an agentMessage: for the tools/call it carries, by
 * its id and tool name, with the fields of the answer to an authorize of
 * a read (no auditId, no retryAfterMs: neither is a read's). */
static gboolean
check_decision (Check      *check,
                JsonObject *object,
                JsonObject *message)
{
  JsonObject *decision = get_object (object, "decision");
  JsonObject *params = get_object (message, "params");
  JsonNode *tool;
  JsonNode *allow;
  JsonNode *reason;

  if (decision == NULL)
    return bad (check, "decision", "must be an object");
  if (lumo_mcp_kind (message) != LUMO_MCP_REQUEST || g_strcmp0 (lumo_mcp_method (message), "tools/call") != 0 ||
      params == NULL || !is_type (json_object_get_member (params, "name"), G_TYPE_STRING))
    return bad (check, "decision", "may only come with a tools/call request that names its tool");
  if (json_object_get_member (decision, "id") == NULL ||
      !json_node_equal (json_object_get_member (decision, "id"), json_object_get_member (message, "id")))
    return bad (check, "decision.id", "must be the id of the message's request");
  tool = json_object_get_member (decision, "tool");
  if (!is_type (tool, G_TYPE_STRING) ||
      !g_str_equal (json_node_get_string (tool), json_object_get_string_member (params, "name")))
    return bad (check, "decision.tool", "must be the name of the tool the message calls");
  allow = json_object_get_member (decision, "allow");
  reason = json_object_get_member (decision, "reason");
  if (!is_type (allow, G_TYPE_BOOLEAN))
    return bad (check, "decision.allow", "must be true or false");
  if (json_node_get_boolean (allow) && reason != NULL)
    return bad (check, "decision.reason", "must be absent when the call is allowed");
  if (!json_node_get_boolean (allow) &&
      (!is_type (reason, G_TYPE_STRING) || !lumo_bridge_is_deny_reason (json_node_get_string (reason))))
    return bad (check, "decision.reason", "must be one of the deny reasons of the protocol");
  if (json_object_get_member (decision, "auditId") != NULL)
    return bad (check, "decision.auditId", "must be absent: a read has no audit row");
  if (json_object_get_member (decision, "retryAfterMs") != NULL)
    return bad (check, "decision.retryAfterMs", "must be absent: a read is not rate limited");
  if (!is_type (json_object_get_member (decision, "message"), G_TYPE_STRING))
    return bad (check, "decision.message", "must be a string");
  return TRUE;
}

static gboolean
check_agent_message (Check      *check,
                     JsonObject *object,
                     const char *type)
{
  JsonNode *port = json_object_get_member (object, "port");

  if (!is_type (port, G_TYPE_STRING) || !lumo_bridge_is_agent_port_id (json_node_get_string (port)))
    return bad (check, "port", "must be a virtual port id");

  if (g_str_equal (type, "agentOpen"))
    {
      JsonObject *caller = get_object (object, "caller");
      JsonNode *id;
      JsonNode *name;
      JsonNode *kind;

      if (!is_id (json_object_get_member (object, "id")))
        return bad (check, "id", "must be a request id");
      if (caller == NULL)
        return bad (check, "caller", "must be an object");
      id = json_object_get_member (caller, "id");
      name = json_object_get_member (caller, "name");
      kind = json_object_get_member (caller, "kind");
      if (!is_type (id, G_TYPE_STRING) || !lumo_is_extension_id (json_node_get_string (id)))
        return bad (check, "caller.id", "must be an extension ID");
      if (!is_type (name, G_TYPE_STRING) || !is_display_name (json_node_get_string (name)))
        return bad (check, "caller.name", "must be a cleaned display name of 1–128 bytes");
      if (!is_type (kind, G_TYPE_STRING) || !g_str_equal (json_node_get_string (kind), "agent"))
        return bad (check, "caller.kind", "must be \"agent\"");
      return TRUE;
    }

  if (g_str_equal (type, "agentMessage"))
    {
      JsonObject *message = get_object (object, "message");

      if (!lumo_bridge_is_jsonrpc_message (message))
        return bad (check, "message", "must be one JSON-RPC 2.0 object");
      return json_object_get_member (object, "decision") == NULL || check_decision (check, object, message);
    }

  {
    JsonNode *reason = json_object_get_member (object, "reason");

    if (!is_type (reason, G_TYPE_STRING) || strlen (json_node_get_string (reason)) > LUMO_BRIDGE_MAX_REASON_LEN)
      return bad (check, "reason", "must be a string of at most 512 bytes");
    return TRUE;
  }
}

gboolean
lumo_bridge_validate_app_message (JsonObject  *object,
                                  char       **field,
                                  GError     **error)
{
  static const char *switches[] = { "enabled", "writes", "review", NULL };
  static const char *status_names[] = { "enabled", "authorized", "ready", "pendingApproval", NULL };
  Check check = { field, error };
  JsonNode *type_node;
  const char *type;

  g_return_val_if_fail (object != NULL, FALSE);
  g_return_val_if_fail (field == NULL || *field == NULL, FALSE);

  type_node = json_object_get_member (object, "type");
  if (!is_type (type_node, G_TYPE_STRING))
    return bad (&check, "type", "must be a string");
  type = json_node_get_string (type_node);

  if (g_str_equal (type, "policy"))
    {
      JsonNode *revoked = json_object_get_member (object, "revoked");

      if (!check_bools (&check, object, NULL, switches))
        return FALSE;
      if (revoked == NULL || !JSON_NODE_HOLDS_ARRAY (revoked))
        return bad (&check, "revoked", "must be an array");
      for (guint i = 0; i < json_array_get_length (json_node_get_array (revoked)); i++)
        {
          JsonNode *id = json_array_get_element (json_node_get_array (revoked), i);

          if (!is_type (id, G_TYPE_STRING) || !lumo_is_extension_id (json_node_get_string (id)))
            return bad (&check, "revoked", "must hold only extension IDs");
        }
      return TRUE;
    }

  if (g_str_equal (type, "probeTarget"))
    {
      JsonNode *target = json_object_get_member (object, "target");

      if (!is_id (json_object_get_member (object, "id")))
        return bad (&check, "id", "must be a request id");
      if (!is_type (target, G_TYPE_STRING) || !lumo_is_extension_id (json_node_get_string (target)))
        return bad (&check, "target", "must be an extension ID");
      return TRUE;
    }

  if (g_str_equal (type, "agentOpen") || g_str_equal (type, "agentMessage") ||
      g_str_equal (type, "agentClose"))
    return check_agent_message (&check, object, type);

  /* Every other message is an answer. */
  if (g_str_equal (type, "error"))
    {
      JsonNode *re = json_object_get_member (object, "re");
      JsonNode *f = json_object_get_member (object, "field");

      if (re == NULL || !(JSON_NODE_HOLDS_NULL (re) || is_id (re)))
        return bad (&check, "re", "must be a request id or null");
      if (!is_type (json_object_get_member (object, "code"), G_TYPE_STRING))
        return bad (&check, "code", "must be a string");
      if (!is_type (json_object_get_member (object, "message"), G_TYPE_STRING))
        return bad (&check, "message", "must be a string");
      if (f != NULL && !is_type (f, G_TYPE_STRING))
        return bad (&check, "field", "must be a string");
      return TRUE;
    }

  if (!is_id (json_object_get_member (object, "re")))
    return bad (&check, "re", "must be the id of the request");

  if (g_str_equal (type, "hello.result"))
    {
      JsonNode *bridge = json_object_get_member (object, "bridge");
      JsonObject *app = get_object (object, "app");
      JsonObject *policy = get_object (object, "policy");

      if (!is_type (bridge, G_TYPE_INT64) || json_node_get_int (bridge) != LUMO_BRIDGE_VERSION)
        return bad (&check, "bridge", "must be 1");
      if (app == NULL || !is_type (json_object_get_member (app, "version"), G_TYPE_STRING))
        return bad (&check, "app.version", "must be a string");
      if (policy == NULL)
        return bad (&check, "policy", "must be an object");
      return check_bools (&check, policy, "policy", switches) && check_tools (&check, object);
    }

  if (g_str_equal (type, "tools.result"))
    return check_tools (&check, object);

  if (g_str_equal (type, "probe.result"))
    {
      JsonObject *status = get_object (object, "status");

      if (status == NULL)
        return bad (&check, "status", "must be an object");
      return check_bools (&check, status, "status", status_names);
    }

  if (g_str_equal (type, "authorize.result"))
    {
      JsonNode *allow = json_object_get_member (object, "allow");
      JsonNode *reason = json_object_get_member (object, "reason");
      JsonNode *retry = json_object_get_member (object, "retryAfterMs");
      JsonNode *audit = json_object_get_member (object, "auditId");

      if (!is_type (allow, G_TYPE_BOOLEAN))
        return bad (&check, "allow", "must be true or false");
      if (json_node_get_boolean (allow) && reason != NULL)
        return bad (&check, "reason", "must be absent when the call is allowed");
      if (!json_node_get_boolean (allow) &&
          (!is_type (reason, G_TYPE_STRING) || !lumo_bridge_is_deny_reason (json_node_get_string (reason))))
        return bad (&check, "reason", "must be one of the deny reasons of the protocol");
      if (retry != NULL && (!is_type (retry, G_TYPE_INT64) || json_node_get_int (retry) < 0))
        return bad (&check, "retryAfterMs", "must be an integer ≥ 0");
      if (audit != NULL && (!is_type (audit, G_TYPE_INT64) || json_node_get_int (audit) <= 0))
        return bad (&check, "auditId", "must be a positive integer");
      if (!is_type (json_object_get_member (object, "message"), G_TYPE_STRING))
        return bad (&check, "message", "must be a string");
      return TRUE;
    }

  if (g_str_equal (type, "result.result") || g_str_equal (type, "port.result"))
    return TRUE;

  return bad (&check, "type", "is not a message the app sends");
}
