/* lumo-ctl-probe.c — probe-state: the host-side state table on the command
 * line
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Reads one JSON document from stdin and prints the state and message a
 * person would see for it, through the same lumo_probe_status_map() the
 * Providers page uses. The document is either a raw L0 answer
 * ({ok, service, status}), or the bridge's outcome form
 * {kind: "rejected"|"timeout"|"answer", error?, answer?} — told apart by
 * the "kind" member, which an L0 answer never has.
 */
#define G_LOG_DOMAIN "lumo-access-ctl"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "lumo-ctl.h"
#include "lumo-error.h"
#include "lumo-probe-status.h"

static const char *
row_name (LumoProbeRow row)
{
  switch (row)
    {
    case LUMO_PROBE_ROW_REJECTED:         return "rejected";
    case LUMO_PROBE_ROW_TIMEOUT:          return "timeout";
    case LUMO_PROBE_ROW_PROTOCOL_ERROR:   return "protocol_error";
    case LUMO_PROBE_ROW_INCOMPLETE:       return "incomplete";
    case LUMO_PROBE_ROW_DISABLED:         return "disabled";
    case LUMO_PROBE_ROW_PENDING_APPROVAL: return "pending_approval";
    case LUMO_PROBE_ROW_NOT_AUTHORIZED:   return "not_authorized";
    case LUMO_PROBE_ROW_NOT_READY:        return "not_ready";
    case LUMO_PROBE_ROW_CONNECTED:        return "connected";
    default:                              return "unknown";
    }
}

int
lumo_ctl_probe_state (const LumoCtlCommand   *command,
                      char                 ***args)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(LumoProbeOutcome) outcome = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *input = NULL;
  g_autofree char *message = NULL;
  LumoProbeState state;
  LumoProbeRow row;
  JsonNode *root;
  gboolean json = FALSE;
  int tools = -1;
  int exit_code = 0;
  const GOptionEntry entries[] = {
    { "tools", 0, 0, G_OPTION_ARG_INT, &tools,
      N_("For a connected answer, say how many tools appeared"), N_("N") },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print JSON"), NULL },
    G_OPTION_ENTRY_NULL
  };

  if (!lumo_ctl_parse (command, entries, args, 0, 0, &exit_code))
    return exit_code;
  if (tools < -1)
    return lumo_ctl_usage_error (command, _("--tools must be 0 or more, not %d"), tools);

  if (!(input = lumo_ctl_read_stdin (&error)))
    return lumo_ctl_fail (error);
  if (!json_parser_load_from_data (parser, input, -1, &error))
    return lumo_ctl_usage_error (command, _("stdin is not JSON: %s"), error->message);
  root = json_parser_get_root (parser);
  if (root == NULL)
    return lumo_ctl_usage_error (command, _("stdin is empty: pipe a probe answer in"));

  if (JSON_NODE_HOLDS_OBJECT (root) && json_object_has_member (json_node_get_object (root), "kind"))
    {
      if (!(outcome = lumo_probe_outcome_from_json (root, &error)))
        return lumo_ctl_fail (error);
    }
  else
    {
      outcome = lumo_probe_outcome_new (LUMO_PROBE_OUTCOME_ANSWER, NULL, root);
    }

  row = lumo_probe_status_map (outcome, &state, &message);
  if (row == LUMO_PROBE_ROW_CONNECTED && tools >= 0)
    {
      g_free (message);
      message = lumo_probe_status_connected_message ((guint) tools);
    }

  if (json)
    {
      g_autoptr(JsonBuilder) b = json_builder_new ();
      g_autoptr(JsonNode) out = NULL;

      json_builder_begin_object (b);
      lumo_ctl_json_member (b, "state", state == LUMO_PROBE_STATE_CONNECTED ? "connected" : "error");
      lumo_ctl_json_member (b, "row", row_name (row));
      lumo_ctl_json_member (b, "message", message);
      json_builder_end_object (b);
      out = json_builder_get_root (b);
      lumo_ctl_print_json (out);
    }
  else
    {
      g_print ("%s\n%s\n", state == LUMO_PROBE_STATE_CONNECTED ? "connected" : "error", message);
    }

  return LUMO_CTL_EXIT_OK;
}
