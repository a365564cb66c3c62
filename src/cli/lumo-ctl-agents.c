/* lumo-ctl-agents.c — the desktop agents subcommands of lumo-access-ctl
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * agents, agents add and agents remove. An agent's token exists once, in
 * the output of "agents add" (with --json, together with the set-ups of
 * the MCP clients, built by the gateway's one function the app uses too);
 * nothing else prints it, and "agents --json" has no token in it. Like
 * every policy command, IDs are checked before policy.db is opened, and a
 * running app sees the change through its file monitor: removing an agent
 * ends its sessions there at once.
 */
#define G_LOG_DOMAIN "lumo-access-ctl"

#include "config.h"

#include <string.h>

#include <gio/gio.h>
#include <glib/gi18n-lib.h>

#include "lumo-ctl.h"
#include "lumo-error.h"
#include "lumo-gateway-snippets.h"
#include "lumo-paths.h"
#include "lumo-policy.h"

/* The endpoint's port as the app uses it: GSettings desktop-agents-port
 * when the app's schema has it, else the default. */
static guint
endpoint_port (void)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr(GSettingsSchema) schema = NULL;
  g_autoptr(GSettings) settings = NULL;
  g_autoptr(GVariant) value = NULL;
  guint64 port = 0;

  if (source == NULL ||
      !(schema = g_settings_schema_source_lookup (source, APP_ID, TRUE)) ||
      !g_settings_schema_has_key (schema, "desktop-agents-port"))
    return LUMO_GATEWAY_DEFAULT_PORT;

  settings = g_settings_new_full (schema, NULL, NULL);
  value = g_settings_get_value (settings, "desktop-agents-port");
  if (g_variant_is_of_type (value, G_VARIANT_TYPE_UINT32))
    port = g_variant_get_uint32 (value);
  else if (g_variant_is_of_type (value, G_VARIANT_TYPE_UINT16))
    port = g_variant_get_uint16 (value);
  else if (g_variant_is_of_type (value, G_VARIANT_TYPE_INT32) && g_variant_get_int32 (value) > 0)
    port = (guint64) g_variant_get_int32 (value);

  return port > 0 && port <= 65535 ? (guint) port : LUMO_GATEWAY_DEFAULT_PORT;
}

/* The caller rows of @agent_id, one per provider. */
static GPtrArray *
agent_callers (LumoPolicy  *policy,
               const char  *agent_id,
               GError     **error)
{
  g_autoptr(GPtrArray) all = NULL;
  GPtrArray *mine;

  if (!(all = lumo_policy_list_callers (policy, NULL, LUMO_CALLER_STATE_ANY, error)))
    return NULL;

  mine = g_ptr_array_new_with_free_func ((GDestroyNotify) lumo_caller_info_free);
  for (guint i = 0; i < all->len; i++)
    {
      LumoCallerInfo *c = g_ptr_array_index (all, i);

      if (g_str_equal (c->id, agent_id))
        g_ptr_array_add (mine, lumo_caller_info_copy (c));
    }
  return mine;
}

/* ---- agents --------------------------------------------------------------- */

static JsonNode *
agent_to_json (const LumoAgentInfo *agent,
               GPtrArray           *callers)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autofree char *created = lumo_ctl_format_iso (agent->created);

  json_builder_begin_object (b);
  lumo_ctl_json_member (b, "id", agent->id);
  lumo_ctl_json_member (b, "name", agent->name);
  lumo_ctl_json_member (b, "created", created);
  json_builder_set_member_name (b, "providers");
  json_builder_begin_array (b);
  for (guint i = 0; i < callers->len; i++)
    {
      LumoCallerInfo *c = g_ptr_array_index (callers, i);
      g_autofree char *last = lumo_ctl_format_iso (c->last_seen);

      json_builder_begin_object (b);
      lumo_ctl_json_member (b, "provider", c->provider_id);
      lumo_ctl_json_member (b, "state", lumo_caller_state_to_string (c->state));
      lumo_ctl_json_member (b, "lastSeen", last);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);

  return json_builder_get_root (b);
}

static char *
describe_states (GPtrArray *callers)
{
  g_autoptr(GString) text = g_string_new (NULL);

  for (guint i = 0; i < callers->len; i++)
    {
      LumoCallerInfo *c = g_ptr_array_index (callers, i);

      g_string_append_printf (text, "%s%s %s", i > 0 ? ", " : "", c->provider_id,
                              lumo_caller_state_to_string (c->state));
    }
  return g_string_free (g_steal_pointer (&text), FALSE);
}

int
lumo_ctl_agents (const LumoCtlCommand   *command,
                 char                 ***args)
{
  g_autoptr(LumoPolicy) policy = NULL;
  g_autoptr(GPtrArray) agents = NULL;
  g_autoptr(GError) error = NULL;
  gboolean json = FALSE;
  int exit_code = 0;
  const GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print JSON (never with a token)"), NULL },
    G_OPTION_ENTRY_NULL
  };

  if (!lumo_ctl_parse (command, entries, args, 0, 0, &exit_code) ||
      !(policy = lumo_ctl_open_policy (&exit_code)))
    return exit_code;

  if (!(agents = lumo_policy_list_agents (policy, &error)))
    return lumo_ctl_fail (error);

  if (json)
    {
      g_autoptr(JsonArray) array = json_array_new ();
      g_autoptr(JsonNode) root = json_node_new (JSON_NODE_ARRAY);

      for (guint i = 0; i < agents->len; i++)
        {
          LumoAgentInfo *agent = g_ptr_array_index (agents, i);
          g_autoptr(GPtrArray) callers = agent_callers (policy, agent->id, &error);

          if (callers == NULL)
            return lumo_ctl_fail (error);
          json_array_add_element (array, agent_to_json (agent, callers));
        }
      json_node_set_array (root, array);
      lumo_ctl_print_json (root);
    }
  else if (agents->len == 0)
    {
      g_print ("%s\n", _("No desktop agents. Add one with “lumo-access-ctl agents add NAME”."));
    }
  else
    {
      g_autoptr(LumoCtlTable) table =
        lumo_ctl_table_new (_("ID"), _("NAME"), _("PROVIDERS"), _("ADDED"), NULL);

      for (guint i = 0; i < agents->len; i++)
        {
          LumoAgentInfo *agent = g_ptr_array_index (agents, i);
          g_autoptr(GPtrArray) callers = agent_callers (policy, agent->id, &error);
          g_autofree char *created = lumo_ctl_format_time (agent->created);
          g_autofree char *states = NULL;

          if (callers == NULL)
            return lumo_ctl_fail (error);
          states = describe_states (callers);
          lumo_ctl_table_add (table, agent->id, agent->name, *states != '\0' ? states : _("none yet"),
                              created, NULL);
        }
      lumo_ctl_table_print (table);
    }

  return LUMO_CTL_EXIT_OK;
}

/* ---- agents add ----------------------------------------------------------- */

static JsonNode *
added_to_json (const char *agent_id,
               const char *name,
               const char *token,
               GPtrArray  *providers)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autofree char *flatpak = lumo_paths_dup_flatpak_app_id ();
  guint port = endpoint_port ();

  json_builder_begin_object (b);
  lumo_ctl_json_member (b, "id", agent_id);
  lumo_ctl_json_member (b, "name", name);
  lumo_ctl_json_member (b, "token", token);
  json_builder_set_member_name (b, "providers");
  json_builder_begin_array (b);
  for (guint i = 0; i < providers->len; i++)
    {
      LumoProviderInfo *p = g_ptr_array_index (providers, i);

      json_builder_begin_object (b);
      lumo_ctl_json_member (b, "id", p->id);
      lumo_ctl_json_member (b, "namespace", p->namespace_);
      lumo_ctl_json_member (b, "name", p->display_name);
      /* A provider that never said hello has no namespace, so no URL yet. */
      json_builder_set_member_name (b, "setups");
      if (p->namespace_ != NULL)
        {
          g_autoptr(JsonObject) snippets = lumo_gateway_build_snippets (p->namespace_, token, port, flatpak);
          g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);

          json_node_set_object (node, snippets);
          json_builder_add_value (b, g_steal_pointer (&node));
        }
      else
        json_builder_add_null_value (b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);

  return json_builder_get_root (b);
}

int
lumo_ctl_agents_add (const LumoCtlCommand   *command,
                     char                 ***args)
{
  g_autoptr(LumoPolicy) policy = NULL;
  g_autoptr(GPtrArray) providers = NULL;
  g_autoptr(GPtrArray) ids = g_ptr_array_new ();
  g_autoptr(LumoAgentInfo) agent = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) provider_opts = NULL;
  g_autofree char *agent_id = NULL;
  g_autofree char *token = NULL;
  gboolean json = FALSE;
  int exit_code = 0;
  const GOptionEntry entries[] = {
    { "provider", 'p', 0, G_OPTION_ARG_STRING_ARRAY, &provider_opts,
      N_("Allow the agent on this provider (repeat for more; default: every known provider)"), N_("ID") },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print JSON, with the set-ups of MCP clients"), NULL },
    G_OPTION_ENTRY_NULL
  };

  if (!lumo_ctl_parse (command, entries, args, 1, 1, &exit_code))
    return exit_code;

  for (guint i = 0; provider_opts != NULL && provider_opts[i] != NULL; i++)
    if (!lumo_ctl_check_id (provider_opts[i], "provider ID"))
      return LUMO_CTL_EXIT_USAGE;
  if (!(policy = lumo_ctl_open_policy (&exit_code)))
    return exit_code;

  /* The providers it is allowed on, as they are known now. */
  if (!(providers = lumo_policy_list_providers (policy, &error)))
    return lumo_ctl_fail (error);
  if (provider_opts != NULL)
    {
      g_autoptr(GPtrArray) chosen = g_ptr_array_new_with_free_func ((GDestroyNotify) lumo_provider_info_free);

      for (guint i = 0; provider_opts[i] != NULL; i++)
        {
          LumoProviderInfo *p = lumo_policy_get_provider (policy, provider_opts[i], &error);

          if (p == NULL)
            return lumo_ctl_fail (error);
          if (!g_ptr_array_find_with_equal_func (ids, p->id, g_str_equal, NULL))
            {
              g_ptr_array_add (ids, p->id);
              g_ptr_array_add (chosen, p);
            }
          else
            lumo_provider_info_free (p);
        }
      g_clear_pointer (&providers, g_ptr_array_unref);
      providers = g_steal_pointer (&chosen);
    }
  else
    {
      for (guint i = 0; i < providers->len; i++)
        g_ptr_array_add (ids, ((LumoProviderInfo *) g_ptr_array_index (providers, i))->id);
    }
  g_ptr_array_add (ids, NULL);

  if (!lumo_policy_add_agent (policy, (*args)[1], (const char * const *) ids->pdata,
                              LUMO_POLICY_ORIGIN_CLI, &agent_id, &token, &error) ||
      !(agent = lumo_policy_get_agent (policy, agent_id, &error)))
    return lumo_ctl_fail (error);

  if (json)
    {
      g_autoptr(JsonNode) root = added_to_json (agent_id, agent->name, token, providers);

      lumo_ctl_print_json (root);
    }
  else
    {
      g_print (_("Added the desktop agent “%s” (%s).\n"), agent->name, agent_id);
      if (providers->len == 0)
        g_print ("%s\n", _("It may use no provider yet: its first request to one waits for your approval."));
      for (guint i = 0; i < providers->len; i++)
        {
          LumoProviderInfo *p = g_ptr_array_index (providers, i);
          g_autofree char *url = p->namespace_ != NULL ? lumo_gateway_endpoint_url (p->namespace_, endpoint_port ())
                                                       : NULL;

          g_print (_("Allowed on %s (%s).\n"), p->display_name != NULL ? p->display_name : p->id, p->id);
          if (url != NULL)
            g_print ("  %s\n", url);
        }
      g_print ("\n%s\n  %s\n", _("Its token — shown only now; keep it like a password:"), token);
    }

  explicit_bzero (token, strlen (token));
  return LUMO_CTL_EXIT_OK;
}

/* ---- agents remove -------------------------------------------------------- */

int
lumo_ctl_agents_remove (const LumoCtlCommand   *command,
                        char                 ***args)
{
  g_autoptr(LumoPolicy) policy = NULL;
  g_autoptr(LumoAgentInfo) agent = NULL;
  g_autoptr(GError) error = NULL;
  const char *id;
  int exit_code = 0;

  if (!lumo_ctl_parse (command, NULL, args, 1, 1, &exit_code))
    return exit_code;

  id = (*args)[1];
  if (!lumo_ctl_check_id (id, "agent ID"))
    return LUMO_CTL_EXIT_USAGE;
  if (!(policy = lumo_ctl_open_policy (&exit_code)))
    return exit_code;

  if (!(agent = lumo_policy_get_agent (policy, id, &error)) ||
      !lumo_policy_remove_agent (policy, id, LUMO_POLICY_ORIGIN_CLI, &error))
    return lumo_ctl_fail (error);

  g_print (_("Removed the desktop agent “%s” (%s): its token no longer works, and its sessions end.\n"),
           agent->name, id);
  return LUMO_CTL_EXIT_OK;
}
