/* lumo-probe-status.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-probe-status"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "lumo-error.h"
#include "lumo-text.h"
#include "lumo-probe-status.h"

/* Texts that come from another extension are shown in a label: keep them
 * to one line and a bounded length. */
#define MAX_FOREIGN_TEXT_CHARS 300

G_DEFINE_BOXED_TYPE (LumoProbeOutcome, lumo_probe_outcome,
                     lumo_probe_outcome_copy, lumo_probe_outcome_free)

LumoProbeOutcome *
lumo_probe_outcome_new (LumoProbeOutcomeKind  kind,
                        const char           *error,
                        JsonNode             *answer)
{
  LumoProbeOutcome *outcome;

  g_return_val_if_fail (kind <= LUMO_PROBE_OUTCOME_ANSWER, NULL);

  outcome = g_new0 (LumoProbeOutcome, 1);
  outcome->kind = kind;
  outcome->error = g_strdup (error);
  outcome->answer = answer ? json_node_copy (answer) : NULL;

  return outcome;
}

LumoProbeOutcome *
lumo_probe_outcome_copy (const LumoProbeOutcome *outcome)
{
  g_return_val_if_fail (outcome != NULL, NULL);

  return lumo_probe_outcome_new (outcome->kind, outcome->error, outcome->answer);
}

void
lumo_probe_outcome_free (LumoProbeOutcome *outcome)
{
  if (outcome == NULL)
    return;

  g_free (outcome->error);
  g_clear_pointer (&outcome->answer, json_node_unref);
  g_free (outcome);
}

LumoProbeOutcome *
lumo_probe_outcome_from_json (JsonNode  *node,
                              GError   **error)
{
  static const struct { const char *name; LumoProbeOutcomeKind kind; } kinds[] = {
    { "rejected", LUMO_PROBE_OUTCOME_REJECTED },
    { "timeout",  LUMO_PROBE_OUTCOME_TIMEOUT },
    { "answer",   LUMO_PROBE_OUTCOME_ANSWER },
  };
  JsonObject *object;
  JsonNode *member;
  const char *kind_name;
  const char *error_text = NULL;
  JsonNode *answer = NULL;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                   "The probe outcome must be a JSON object");
      return NULL;
    }
  object = json_node_get_object (node);

  member = json_object_get_member (object, "kind");
  if (member == NULL || !JSON_NODE_HOLDS_VALUE (member) ||
      json_node_get_value_type (member) != G_TYPE_STRING)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                   "The probe outcome has no string field “kind”");
      return NULL;
    }
  kind_name = json_node_get_string (member);

  member = json_object_get_member (object, "error");
  if (member != NULL && !JSON_NODE_HOLDS_NULL (member))
    {
      if (!JSON_NODE_HOLDS_VALUE (member) || json_node_get_value_type (member) != G_TYPE_STRING)
        {
          g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                       "The field “error” of the probe outcome must be a string");
          return NULL;
        }
      error_text = json_node_get_string (member);
    }

  /* "answer": null is an answer of null (not valid, but an answer); an
   * absent member is an answer of nothing. Both map to a protocol error. */
  answer = json_object_get_member (object, "answer");

  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    {
      if (g_str_equal (kind_name, kinds[i].name))
        {
          if (kinds[i].kind != LUMO_PROBE_OUTCOME_ANSWER && answer != NULL)
            {
              g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                           "A probe outcome of kind “%s” cannot carry an “answer”",
                           kind_name);
              return NULL;
            }
          return lumo_probe_outcome_new (kinds[i].kind, error_text, answer);
        }
    }

  {
    g_autofree char *shown = lumo_utf8_excerpt (kind_name, 40);

    g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                 "The probe outcome kind “%s” is not one of “rejected”, “timeout”, “answer”",
                 shown);
  }
  return NULL;
}

/* One line, bounded, no control characters; NULL if nothing is left. */
static char *
sanitize_foreign_text (const char *text)
{
  g_autoptr(GString) out = NULL;
  const char *p;
  guint n_chars = 0;

  if (text == NULL || !g_utf8_validate (text, -1, NULL))
    return NULL;

  out = g_string_new (NULL);
  for (p = text; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (n_chars == MAX_FOREIGN_TEXT_CHARS)
        {
          g_string_append (out, "…");
          break;
        }
      if (g_unichar_iscntrl (c) || c == 0x2028 || c == 0x2029)
        c = ' ';
      g_string_append_unichar (out, c);
      n_chars++;
    }

  g_strstrip (out->str);
  if (out->str[0] == '\0')
    return NULL;

  return g_strdup (out->str);
}

static const char *
get_string (JsonObject *object,
            const char *name)
{
  JsonNode *node;

  if (object == NULL || !(node = json_object_get_member (object, name)))
    return NULL;
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;

  return json_node_get_string (node);
}

static JsonObject *
get_object (JsonObject *object,
            const char *name)
{
  JsonNode *node = json_object_get_member (object, name);

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return NULL;

  return json_node_get_object (node);
}

typedef enum { FIELD_MISSING, FIELD_WRONG_TYPE, FIELD_OK } FieldState;

static FieldState
get_boolean (JsonObject *object,
             const char *name,
             gboolean   *value)
{
  JsonNode *node = json_object_get_member (object, name);

  *value = FALSE;
  if (node == NULL)
    return FIELD_MISSING;
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
    return FIELD_WRONG_TYPE;

  *value = json_node_get_boolean (node);
  return FIELD_OK;
}

/* The answer's own error text for ok:false: "error" as a string or as an
 * object with a "message", else "reason". */
static char *
protocol_error_text (JsonObject *answer)
{
  const char *text = get_string (answer, "error");
  char *sanitized;

  if (text == NULL)
    text = get_string (get_object (answer, "error"), "message");
  if ((sanitized = sanitize_foreign_text (text)) != NULL)
    return sanitized;
  if ((sanitized = sanitize_foreign_text (get_string (answer, "reason"))) != NULL)
    return sanitized;

  return g_strdup (_("The provider reported a protocol error."));
}

static LumoProbeRow
map_answer (JsonNode  *node,
            char     **message)
{
  JsonObject *answer;
  JsonObject *status;
  gboolean ok, enabled, authorized, ready, pending;
  FieldState ok_state;

  if (node == NULL)
    {
      *message = g_strdup (_("The probe response is not valid: the provider sent no answer."));
      return LUMO_PROBE_ROW_PROTOCOL_ERROR;
    }
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      *message = g_strdup (_("The probe response is not valid: it is not a JSON object."));
      return LUMO_PROBE_ROW_PROTOCOL_ERROR;
    }
  answer = json_node_get_object (node);

  ok_state = get_boolean (answer, "ok", &ok);
  if (ok_state == FIELD_MISSING)
    {
      *message = g_strdup (_("The probe response is not valid: the field “ok” is missing."));
      return LUMO_PROBE_ROW_PROTOCOL_ERROR;
    }
  if (ok_state == FIELD_WRONG_TYPE)
    {
      *message = g_strdup (_("The probe response is not valid: the field “ok” is not true or false."));
      return LUMO_PROBE_ROW_PROTOCOL_ERROR;
    }
  if (!ok)
    {
      *message = protocol_error_text (answer);
      return LUMO_PROBE_ROW_PROTOCOL_ERROR;
    }

  /* Every field the later rows read must be there with the right type;
   * otherwise the answer is incomplete, not a policy state. */
  status = get_object (answer, "status");
  if (get_object (answer, "service") == NULL || status == NULL ||
      get_boolean (status, "enabled", &enabled) != FIELD_OK ||
      get_boolean (status, "authorized", &authorized) != FIELD_OK ||
      get_boolean (status, "ready", &ready) != FIELD_OK ||
      get_boolean (status, "pendingApproval", &pending) == FIELD_WRONG_TYPE)
    {
      *message = g_strdup (_("The probe response is incomplete."));
      return LUMO_PROBE_ROW_INCOMPLETE;
    }

  if (!enabled)
    {
      *message = g_strdup (_("Agent access is turned off in the provider."));
      return LUMO_PROBE_ROW_DISABLED;
    }

  if (!authorized && pending)
    {
      *message = g_strdup (_("Waiting for your approval in the provider."));
      return LUMO_PROBE_ROW_PENDING_APPROVAL;
    }

  if (!authorized)
    {
      *message = g_strdup (_("The caller is not on the allow-list."));
      return LUMO_PROBE_ROW_NOT_AUTHORIZED;
    }

  if (!ready)
    {
      *message = sanitize_foreign_text (get_string (status, "reason"));
      if (*message == NULL)
        *message = sanitize_foreign_text (get_string (answer, "reason"));
      if (*message == NULL)
        *message = g_strdup (_("The provider is not ready."));
      return LUMO_PROBE_ROW_NOT_READY;
    }

  *message = g_strdup (_("Connected"));
  return LUMO_PROBE_ROW_CONNECTED;
}

LumoProbeRow
lumo_probe_status_map (const LumoProbeOutcome  *outcome,
                       LumoProbeState          *state,
                       char                   **message)
{
  g_autofree char *text = NULL;
  LumoProbeRow row;

  g_return_val_if_fail (outcome != NULL, LUMO_PROBE_ROW_PROTOCOL_ERROR);

  switch (outcome->kind)
    {
    case LUMO_PROBE_OUTCOME_REJECTED:
      /* Chrome's own text ("Could not establish connection…") says
       * nothing a person can act on; the row's message does. */
      g_debug ("Probe rejected: %s", outcome->error ? outcome->error : "(no text)");
      text = g_strdup (_("The extension is not installed, or has no agent endpoint."));
      row = LUMO_PROBE_ROW_REJECTED;
      break;

    case LUMO_PROBE_OUTCOME_TIMEOUT:
      text = sanitize_foreign_text (outcome->error);
      if (text == NULL)
        text = g_strdup (_("No answer within 1500 ms."));
      row = LUMO_PROBE_ROW_TIMEOUT;
      break;

    case LUMO_PROBE_OUTCOME_ANSWER:
      row = map_answer (outcome->answer, &text);
      break;

    default:
      g_return_val_if_reached (LUMO_PROBE_ROW_PROTOCOL_ERROR);
    }

  if (state != NULL)
    *state = row == LUMO_PROBE_ROW_CONNECTED ? LUMO_PROBE_STATE_CONNECTED
                                             : LUMO_PROBE_STATE_ERROR;
  if (message != NULL)
    *message = g_steal_pointer (&text);

  return row;
}

char *
lumo_probe_status_connected_message (guint n_tools)
{
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                       "Connected · %u tool",
                                       "Connected · %u tools",
                                       n_tools),
                          n_tools);
}
