/* lumo-ctl-grants.c — grants and revoke-grant: the review grants in force
 * and ending one
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A review grant is a person's approval of a write that stands for the
 * caller's next writes of the same tool, for ten minutes or always
 * (docs/policy.md). It is made where a review is decided — the window, a
 * notification, or “review approve ID --for 10m|--always” — never here;
 * here it is listed and revoked, in policy.db like the other policy
 * commands (origin "cli"), which a running app sees at its next decision.
 */
#define G_LOG_DOMAIN "lumo-access-ctl"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "lumo-ctl.h"
#include "lumo-error.h"
#include "lumo-policy.h"
#include "lumo-protocol.h"

static JsonNode *
grant_to_json (const LumoGrantInfo *g)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autofree char *created = lumo_ctl_format_iso (g->created);
  g_autofree char *expires = lumo_ctl_format_iso (g->expires);

  json_builder_begin_object (b);
  lumo_ctl_json_member (b, "provider", g->provider_id);
  lumo_ctl_json_member (b, "caller", g->caller_id);
  lumo_ctl_json_member (b, "tool", g->tool);
  lumo_ctl_json_member (b, "scope", lumo_grant_scope_to_string (g->scope));
  lumo_ctl_json_member (b, "created", created);
  /* null: until revoked. */
  lumo_ctl_json_member (b, "expires", expires);
  json_builder_end_object (b);

  return json_builder_get_root (b);
}

int
lumo_ctl_grants (const LumoCtlCommand   *command,
                 char                 ***args)
{
  g_autoptr(LumoPolicy) policy = NULL;
  g_autoptr(GPtrArray) grants = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *provider = NULL;
  gboolean json = FALSE;
  int exit_code = 0;
  const GOptionEntry entries[] = {
    { "provider", 'p', 0, G_OPTION_ARG_STRING, &provider,
      N_("Only the grants of this provider"), N_("ID") },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print JSON"), NULL },
    G_OPTION_ENTRY_NULL
  };

  if (!lumo_ctl_parse (command, entries, args, 0, 0, &exit_code))
    return exit_code;
  if (provider != NULL && !lumo_ctl_check_id (provider, "provider ID"))
    return LUMO_CTL_EXIT_USAGE;
  if (!(policy = lumo_ctl_open_policy (&exit_code)))
    return exit_code;

  if (!(grants = lumo_policy_list_grants (policy, provider, &error)))
    return lumo_ctl_fail (error);

  if (json)
    {
      g_autoptr(JsonArray) array = json_array_new ();
      g_autoptr(JsonNode) root = json_node_new (JSON_NODE_ARRAY);

      for (guint i = 0; i < grants->len; i++)
        json_array_add_element (array, grant_to_json (g_ptr_array_index (grants, i)));
      json_node_set_array (root, array);
      lumo_ctl_print_json (root);
    }
  else if (grants->len == 0)
    {
      g_print ("%s\n", _("No review grants: every write waits for review where review is on."));
    }
  else
    {
      g_autoptr(LumoCtlTable) table =
        lumo_ctl_table_new (_("PROVIDER"), _("CALLER"), _("TOOL"), _("SCOPE"), _("GRANTED"),
                            _("EXPIRES"), NULL);

      for (guint i = 0; i < grants->len; i++)
        {
          LumoGrantInfo *g = g_ptr_array_index (grants, i);
          g_autofree char *created = lumo_ctl_format_time (g->created);
          /* "—" for always: until revoked. */
          g_autofree char *expires = lumo_ctl_format_time (g->expires);

          lumo_ctl_table_add (table, g->provider_id, g->caller_id, g->tool,
                              lumo_grant_scope_to_string (g->scope), created, expires, NULL);
        }
      lumo_ctl_table_print (table);
    }

  return LUMO_CTL_EXIT_OK;
}

int
lumo_ctl_revoke_grant (const LumoCtlCommand   *command,
                       char                 ***args)
{
  g_autoptr(LumoPolicy) policy = NULL;
  g_autoptr(GError) error = NULL;
  const char *provider, *caller, *tool;
  int exit_code = 0;

  if (!lumo_ctl_parse (command, NULL, args, 3, 3, &exit_code))
    return exit_code;

  provider = (*args)[1];
  caller = (*args)[2];
  tool = (*args)[3];
  if (!lumo_ctl_check_id (provider, "provider ID") || !lumo_ctl_check_id (caller, "caller ID"))
    return LUMO_CTL_EXIT_USAGE;
  if (!lumo_validate_qualified_tool_name (tool, &error))
    return lumo_ctl_usage_error (command, "%s", error->message);
  if (!(policy = lumo_ctl_open_policy (&exit_code)))
    return exit_code;

  if (!lumo_policy_revoke_grant (policy, provider, caller, tool, LUMO_POLICY_ORIGIN_CLI, &error))
    return lumo_ctl_fail (error);

  g_print (_("Revoked the grant of %s to %s on %s; its next write waits for review "
             "(“undo” brings the grant back).\n"),
           tool, caller, provider);

  return LUMO_CTL_EXIT_OK;
}
