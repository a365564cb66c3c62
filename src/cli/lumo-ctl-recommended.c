/* lumo-ctl-recommended.c — recommended: the MCP servers the connected
 * providers recommend, each with its set-up for a desktop MCP client
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A provider sends the servers it recommends with its catalogue (a site
 * pack's customMarketMcpServers); the app keeps them in memory while the
 * provider is connected, so this asks the running app (ListRecommended,
 * never starting it). The set-up text — the mcp.json entry and the
 * `claude mcp add` line — is core's (lumo_recommended_server_setup()), the
 * same the Providers page copies.
 */
#define G_LOG_DOMAIN "lumo-access-ctl"

#include "config.h"

#include <gio/gio.h>
#include <glib/gi18n-lib.h>

#include "lumo-ctl.h"
#include "lumo-recommended-server.h"

typedef struct
{
  const char           *provider;
  LumoRecommendedServer server;
} Recommended;

static const char *
empty_to_null (const char *s)
{
  return s != NULL && *s != '\0' ? s : NULL;
}

static JsonNode *
recommended_to_json (const Recommended *r)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autofree char *claude = lumo_recommended_server_setup (&r->server, LUMO_RECOMMENDED_SETUP_CLAUDE_MCP_ADD);

  json_builder_begin_object (b);
  lumo_ctl_json_member (b, "provider", r->provider);
  lumo_ctl_json_member (b, "id", r->server.id);
  lumo_ctl_json_member (b, "name", r->server.name);
  lumo_ctl_json_member (b, "description", r->server.description);
  lumo_ctl_json_member (b, "url", r->server.url);
  lumo_ctl_json_member (b, "type", r->server.transport);
  json_builder_set_member_name (b, "setup");
  json_builder_begin_object (b);
  /* The object itself, so a script can merge it into its mcp.json. */
  json_builder_set_member_name (b, "mcpJson");
  json_builder_add_value (b, lumo_recommended_server_setup_json (&r->server));
  lumo_ctl_json_member (b, "claudeMcpAdd", claude);
  json_builder_end_object (b);
  json_builder_end_object (b);

  return json_builder_get_root (b);
}

static void
print_recommended (const Recommended *r)
{
  g_autofree char *claude = lumo_recommended_server_setup (&r->server, LUMO_RECOMMENDED_SETUP_CLAUDE_MCP_ADD);
  g_autofree char *json = lumo_recommended_server_setup (&r->server, LUMO_RECOMMENDED_SETUP_MCP_JSON);
  g_auto(GStrv) lines = g_strsplit (json, "\n", -1);

  g_print ("%s  %s\n", r->server.id, r->server.name);
  /* Translators: the rows under one recommended server; keep the colons. */
  g_print ("  %s %s\n", _("Provider:"), r->provider);
  if (r->server.description != NULL)
    g_print ("  %s %s\n", _("About:"), r->server.description);
  g_print ("  %s %s\n", _("URL:"), r->server.url);
  g_print ("  %s\n    %s\n", _("Claude Code:"), claude);
  g_print ("  %s\n", _("mcp.json:"));
  for (guint i = 0; lines[i] != NULL; i++)
    g_print ("    %s\n", lines[i]);
}

int
lumo_ctl_recommended (const LumoCtlCommand   *command,
                      char                 ***args)
{
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GVariantIter) iter = NULL;
  g_autoptr(GArray) found = g_array_new (FALSE, TRUE, sizeof (Recommended));
  g_autofree char *provider = NULL;
  gboolean json = FALSE;
  int exit_code = 0;
  const char *description, *transport;
  Recommended r = { 0 };
  const GOptionEntry entries[] = {
    { "provider", 0, 0, G_OPTION_ARG_STRING, &provider, N_("Only this provider’s"), N_("ID") },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print JSON"), NULL },
    G_OPTION_ENTRY_NULL
  };

  if (!lumo_ctl_parse (command, entries, args, 0, 0, &exit_code))
    return exit_code;
  if (provider != NULL && !lumo_ctl_check_id (provider, "provider ID"))
    return LUMO_CTL_EXIT_USAGE;

  if (!(reply = lumo_ctl_call_app ("ListRecommended", NULL, G_VARIANT_TYPE ("(a(ssssss))"),
                                   _("Lumo Access is not running. A provider’s recommended servers are "
                                     "known only while it is connected to the running app; start Lumo Access "
                                     "(and the browser with the provider) and try again."),
                                   &exit_code)))
    return exit_code;

  /* The strings point into @reply, which outlives the array. */
  g_variant_get (reply, "(a(ssssss))", &iter);
  while (g_variant_iter_next (iter, "(&s&s&s&s&s&s)", &r.provider, &r.server.id, &r.server.name,
                              &description, &r.server.url, &transport))
    {
      if (provider != NULL && g_strcmp0 (provider, r.provider) != 0)
        continue;
      r.server.description = (char *) empty_to_null (description);
      r.server.transport = (char *) empty_to_null (transport);
      g_array_append_val (found, r);
    }

  if (json)
    {
      g_autoptr(JsonArray) array = json_array_new ();
      g_autoptr(JsonNode) root = json_node_new (JSON_NODE_ARRAY);

      for (guint i = 0; i < found->len; i++)
        json_array_add_element (array, recommended_to_json (&g_array_index (found, Recommended, i)));
      json_node_set_array (root, array);
      lumo_ctl_print_json (root);
    }
  else if (found->len == 0)
    {
      g_print ("%s\n", _("No connected provider recommends an MCP server."));
    }
  else
    {
      for (guint i = 0; i < found->len; i++)
        {
          if (i > 0)
            g_print ("\n");
          print_recommended (&g_array_index (found, Recommended, i));
        }
    }

  return LUMO_CTL_EXIT_OK;
}
