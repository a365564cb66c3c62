/* lumo-probe-status.h — the host-side state table for an L0 probe
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoProbeOutcome owns one raw probe outcome (rejected, timed out, or an
 * answer as JSON); lumo_probe_status_map() turns it into the state and the
 * translated message a person sees, following the protocol's table row by
 * row (first match wins). The extension side reports the raw outcome in the
 * bridge's JSON form {kind:"rejected"|"timeout"|"answer", error?, answer?};
 * all interpretation happens here, so the Providers page and the tests agree.
 */
#pragma once

#include <glib-object.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef enum
{
  LUMO_PROBE_STATE_ERROR,
  LUMO_PROBE_STATE_CONNECTED,
} LumoProbeState;

typedef enum
{
  LUMO_PROBE_OUTCOME_REJECTED,   /* sendMessage was rejected */
  LUMO_PROBE_OUTCOME_TIMEOUT,    /* no answer within LUMO_PROBE_TIMEOUT_MS */
  LUMO_PROBE_OUTCOME_ANSWER,     /* an answer arrived (any JSON) */
} LumoProbeOutcomeKind;

/* Which row of the table matched; lets the UI pick an icon or an action
 * without parsing the message. */
typedef enum
{
  LUMO_PROBE_ROW_REJECTED,
  LUMO_PROBE_ROW_TIMEOUT,
  LUMO_PROBE_ROW_PROTOCOL_ERROR,   /* ok:false, or an answer that is not valid */
  LUMO_PROBE_ROW_INCOMPLETE,
  LUMO_PROBE_ROW_DISABLED,
  LUMO_PROBE_ROW_PENDING_APPROVAL,
  LUMO_PROBE_ROW_NOT_AUTHORIZED,
  LUMO_PROBE_ROW_NOT_READY,
  LUMO_PROBE_ROW_CONNECTED,
} LumoProbeRow;

typedef struct
{
  LumoProbeOutcomeKind  kind;
  char                 *error;    /* the raw error text, may be NULL */
  JsonNode             *answer;   /* for ANSWER; may be NULL or any JSON */
} LumoProbeOutcome;

#define LUMO_TYPE_PROBE_OUTCOME (lumo_probe_outcome_get_type ())

GType             lumo_probe_outcome_get_type  (void) G_GNUC_CONST;
/* @answer is copied. */
LumoProbeOutcome *lumo_probe_outcome_new       (LumoProbeOutcomeKind     kind,
                                                const char              *error,
                                                JsonNode                *answer);
LumoProbeOutcome *lumo_probe_outcome_copy      (const LumoProbeOutcome  *outcome);
void              lumo_probe_outcome_free      (LumoProbeOutcome        *outcome);
/* Parses the bridge form {kind, error?, answer?}; LUMO_ERROR_INVALID_ARGUMENT
 * with a message naming the field for anything else. */
LumoProbeOutcome *lumo_probe_outcome_from_json (JsonNode                *node,
                                                GError                 **error);

/* Maps @outcome to a state and a translated message (free with g_free).
 * Either out-parameter may be NULL. For the connected row the message is
 * "Connected"; the UI uses lumo_probe_status_connected_message() once it
 * knows the tool count. */
LumoProbeRow      lumo_probe_status_map        (const LumoProbeOutcome  *outcome,
                                                LumoProbeState          *state,
                                                char                   **message);
/* "Connected · 3 tools", translated with the plural form. */
char             *lumo_probe_status_connected_message (guint n_tools);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (LumoProbeOutcome, lumo_probe_outcome_free)

G_END_DECLS
