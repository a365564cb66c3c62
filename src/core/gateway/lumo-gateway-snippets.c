/* lumo-gateway-snippets.c — the set-ups of MCP clients
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-gateway"

#include "config.h"

#include "lumo-client-setup.h"
#include "lumo-gateway-snippets.h"
#include "lumo-protocol.h"

char *
lumo_gateway_endpoint_url (const char *namespace_,
                           guint       port)
{
  g_return_val_if_fail (lumo_validate_namespace (namespace_, NULL), NULL);
  g_return_val_if_fail (port > 0 && port <= 65535, NULL);

  return g_strdup_printf ("http://127.0.0.1:%u/mcp/%s", port, namespace_);
}

char *
lumo_gateway_server_name (const char *namespace_)
{
  g_return_val_if_fail (lumo_validate_namespace (namespace_, NULL), NULL);

  return g_strconcat ("lumo-", namespace_, NULL);
}

static char *
to_json (JsonBuilder *builder)
{
  g_autoptr(JsonNode) root = json_builder_get_root (builder);

  return lumo_setup_json_text (root);
}

/* {"servers"|"mcpServers": {NAME: {"type": "http", "url": …, "headers": …}}} */
static char *
http_config (const char *top,
             const char *name,
             const char *url,
             const char *authorization)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, top);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, name);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "type");
  json_builder_add_string_value (b, "http");
  json_builder_set_member_name (b, "url");
  json_builder_add_string_value (b, url);
  json_builder_set_member_name (b, "headers");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "Authorization");
  json_builder_add_string_value (b, authorization);
  json_builder_end_object (b);
  json_builder_end_object (b);
  json_builder_end_object (b);
  json_builder_end_object (b);

  return to_json (b);
}

static char *
stdio_config (const char *name,
              const char *namespace_,
              const char *token,
              const char *flatpak_app_id)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "mcpServers");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, name);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "command");
  if (flatpak_app_id != NULL)
    {
      g_autofree char *command = g_strconcat ("--command=", LUMO_GATEWAY_LAUNCHER_NAME, NULL);

      json_builder_add_string_value (b, "flatpak");
      json_builder_set_member_name (b, "args");
      json_builder_begin_array (b);
      json_builder_add_string_value (b, "run");
      json_builder_add_string_value (b, command);
      json_builder_add_string_value (b, flatpak_app_id);
      json_builder_add_string_value (b, namespace_);
      json_builder_end_array (b);
    }
  else
    {
      g_autofree char *launcher = g_build_filename (LIBEXECDIR, LUMO_GATEWAY_LAUNCHER_NAME, NULL);

      json_builder_add_string_value (b, launcher);
      json_builder_set_member_name (b, "args");
      json_builder_begin_array (b);
      json_builder_add_string_value (b, namespace_);
      json_builder_end_array (b);
    }
  json_builder_set_member_name (b, "env");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, LUMO_GATEWAY_TOKEN_ENV);
  json_builder_add_string_value (b, token);
  json_builder_end_object (b);
  json_builder_end_object (b);
  json_builder_end_object (b);
  json_builder_end_object (b);

  return to_json (b);
}

JsonObject *
lumo_gateway_build_snippets (const char *namespace_,
                             const char *token,
                             guint       port,
                             const char *flatpak_app_id)
{
  g_autofree char *url = NULL;
  g_autofree char *name = NULL;
  g_autofree char *authorization = NULL;
  g_autofree char *header = NULL;
  g_autofree char *name_word = NULL;
  g_autofree char *url_word = NULL;
  g_autofree char *header_word = NULL;
  g_autofree char *claude_code = NULL;
  g_autofree char *vscode = NULL;
  g_autofree char *cursor = NULL;
  g_autofree char *claude_desktop = NULL;
  JsonObject *snippets;

  g_return_val_if_fail (lumo_validate_namespace (namespace_, NULL), NULL);
  g_return_val_if_fail (token != NULL, NULL);

  if (!(url = lumo_gateway_endpoint_url (namespace_, port)))
    return NULL;
  name = lumo_gateway_server_name (namespace_);
  authorization = g_strconcat ("Bearer ", token, NULL);
  header = g_strconcat ("Authorization: ", authorization, NULL);
  name_word = lumo_setup_shell_word (name);
  url_word = lumo_setup_shell_word (url);
  header_word = lumo_setup_shell_word (header);

  claude_code = g_strdup_printf ("claude mcp add --transport http %s %s --header %s",
                                 name_word, url_word, header_word);
  vscode = http_config ("servers", name, url, authorization);
  cursor = http_config ("mcpServers", name, url, authorization);
  claude_desktop = stdio_config (name, namespace_, token, flatpak_app_id);

  snippets = json_object_new ();
  json_object_set_string_member (snippets, "url", url);
  json_object_set_string_member (snippets, "claudeCode", claude_code);
  json_object_set_string_member (snippets, "vscode", vscode);
  json_object_set_string_member (snippets, "cursor", cursor);
  json_object_set_string_member (snippets, "claudeDesktop", claude_desktop);
  return snippets;
}
