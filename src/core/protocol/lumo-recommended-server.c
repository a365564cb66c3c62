/* lumo-recommended-server.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-recommended-server"

#include "config.h"

#include <string.h>

#include "lumo-client-setup.h"
#include "lumo-protocol.h"
#include "lumo-recommended-server.h"

G_DEFINE_BOXED_TYPE (LumoRecommendedServer, lumo_recommended_server,
                     lumo_recommended_server_copy, lumo_recommended_server_free)

LumoRecommendedServer *
lumo_recommended_server_copy (const LumoRecommendedServer *server)
{
  LumoRecommendedServer *copy;

  g_return_val_if_fail (server != NULL, NULL);

  copy = g_new0 (LumoRecommendedServer, 1);
  copy->id = g_strdup (server->id);
  copy->name = g_strdup (server->name);
  copy->description = g_strdup (server->description);
  copy->url = g_strdup (server->url);
  copy->transport = g_strdup (server->transport);
  return copy;
}

void
lumo_recommended_server_free (LumoRecommendedServer *server)
{
  if (server == NULL)
    return;
  g_free (server->id);
  g_free (server->name);
  g_free (server->description);
  g_free (server->url);
  g_free (server->transport);
  g_free (server);
}

/* Only what a person can read: no control characters (C0, DEL, C1) and no
 * line or paragraph separators, which could hide part of a label, end a
 * line of the CLI's output, or drive the terminal it prints to. */
static gboolean
text_is_printable (const char *text)
{
  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (g_unichar_iscntrl (c) || c == 0x2028 || c == 0x2029)
        return FALSE;
    }
  return TRUE;
}

/* A string member within @max bytes, printable; @optional lets it be
 * absent (NULL). */
static gboolean
read_string (JsonObject  *object,
             const char  *member,
             gsize        max,
             gboolean     optional,
             const char **out)
{
  JsonNode *node = json_object_get_member (object, member);

  *out = NULL;
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return optional;
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return FALSE;
  *out = json_node_get_string (node);
  if (strlen (*out) > max || !g_utf8_validate (*out, -1, NULL) || !text_is_printable (*out))
    return FALSE;
  return optional || **out != '\0';
}

/* An http(s) URL with a host (read_string made sure it is printable). */
static gboolean
url_is_valid (const char *url)
{
  g_autoptr(GUri) uri = NULL;
  const char *scheme;

  if (!(uri = g_uri_parse (url, G_URI_FLAGS_NONE, NULL)))
    return FALSE;
  scheme = g_uri_get_scheme (uri);
  return (g_ascii_strcasecmp (scheme, "http") == 0 || g_ascii_strcasecmp (scheme, "https") == 0) &&
         g_uri_get_host (uri) != NULL && *g_uri_get_host (uri) != '\0';
}

static LumoRecommendedServer *
server_from_json (JsonNode *node)
{
  g_autoptr(LumoRecommendedServer) server = NULL;
  const char *id, *name, *url, *description, *transport;
  JsonObject *object;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    return NULL;
  object = json_node_get_object (node);

  if (!read_string (object, "id", LUMO_RECOMMENDED_MAX_NAME_LEN, FALSE, &id) ||
      !read_string (object, "name", LUMO_RECOMMENDED_MAX_NAME_LEN, FALSE, &name) ||
      !read_string (object, "url", LUMO_RECOMMENDED_MAX_URL_LEN, FALSE, &url) ||
      !read_string (object, "description", LUMO_RECOMMENDED_MAX_DESCRIPTION_LEN, TRUE, &description) ||
      !read_string (object, "type", 32, TRUE, &transport))
    return NULL;
  if (!url_is_valid (url))
    return NULL;
  if (transport != NULL && g_strcmp0 (transport, "sse") != 0 && g_strcmp0 (transport, "streamableHttp") != 0)
    return NULL;

  server = g_new0 (LumoRecommendedServer, 1);
  server->id = g_strdup (id);
  /* Display text, like every name from outside; a name of nothing but
   * controls is no name. */
  if (!(server->name = lumo_clean_display_name (name, LUMO_RECOMMENDED_MAX_NAME_LEN)))
    return NULL;
  server->description = lumo_clean_display_name (description, LUMO_RECOMMENDED_MAX_DESCRIPTION_LEN);
  server->url = g_strdup (url);
  server->transport = g_strdup (transport);
  return g_steal_pointer (&server);
}

GPtrArray *
lumo_recommended_servers_from_json (JsonNode *node)
{
  g_autoptr(GHashTable) seen = NULL;
  GPtrArray *servers;
  JsonArray *array;

  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    return NULL;

  array = json_node_get_array (node);
  servers = g_ptr_array_new_with_free_func ((GDestroyNotify) lumo_recommended_server_free);
  seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  for (guint i = 0; i < json_array_get_length (array) && servers->len < LUMO_RECOMMENDED_MAX_SERVERS; i++)
    {
      LumoRecommendedServer *server = server_from_json (json_array_get_element (array, i));
      g_autofree char *id_key = NULL;
      g_autofree char *url_key = NULL;

      if (server == NULL)
        continue;

      id_key = g_strconcat ("i:", server->id, NULL);
      url_key = g_strconcat ("u:", server->url, NULL);
      if (g_hash_table_contains (seen, id_key) || g_hash_table_contains (seen, url_key))
        {
          lumo_recommended_server_free (server);
          continue;
        }
      g_hash_table_add (seen, g_steal_pointer (&id_key));
      g_hash_table_add (seen, g_steal_pointer (&url_key));
      g_ptr_array_add (servers, server);
    }

  return servers;
}

GPtrArray *
lumo_recommended_servers_copy (GPtrArray *servers)
{
  GPtrArray *copy;

  if (servers == NULL)
    return NULL;

  copy = g_ptr_array_copy (servers, (GCopyFunc) lumo_recommended_server_copy, NULL);

  g_ptr_array_set_free_func (copy, (GDestroyNotify) lumo_recommended_server_free);
  return copy;
}

/* ---- set-up for a desktop MCP client -------------------------------------- */

char *
lumo_recommended_server_client_name (const LumoRecommendedServer *server)
{
  GString *name;

  g_return_val_if_fail (server != NULL && server->id != NULL, NULL);

  name = g_string_new (NULL);
  for (const char *p = server->id; *p != '\0' && name->len < LUMO_RECOMMENDED_CLIENT_NAME_MAX; p++)
    {
      gboolean plain = g_ascii_isalnum (*p) || *p == '-' || *p == '_';

      /* One "-" for a run of anything else (a UTF-8 character is several
       * bytes), none at the start. */
      if (plain)
        g_string_append_c (name, *p);
      else if (name->len > 0 && name->str[name->len - 1] != '-')
        g_string_append_c (name, '-');
    }
  while (name->len > 0 && name->str[0] == '-')
    g_string_erase (name, 0, 1);
  while (name->len > 0 && name->str[name->len - 1] == '-')
    g_string_truncate (name, name->len - 1);
  if (name->len == 0)
    g_string_assign (name, "server");

  return g_string_free (name, FALSE);
}

const char *
lumo_recommended_server_client_transport (const LumoRecommendedServer *server)
{
  g_return_val_if_fail (server != NULL, NULL);

  return g_strcmp0 (server->transport, "sse") == 0 ? "sse" : "http";
}

JsonNode *
lumo_recommended_server_setup_json (const LumoRecommendedServer *server)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autofree char *name = NULL;

  g_return_val_if_fail (server != NULL && server->url != NULL, NULL);

  name = lumo_recommended_server_client_name (server);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "mcpServers");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, name);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "type");
  json_builder_add_string_value (b, lumo_recommended_server_client_transport (server));
  json_builder_set_member_name (b, "url");
  json_builder_add_string_value (b, server->url);
  json_builder_end_object (b);
  json_builder_end_object (b);
  json_builder_end_object (b);

  return json_builder_get_root (b);
}

char *
lumo_recommended_server_setup (const LumoRecommendedServer *server,
                               LumoRecommendedSetup         setup)
{
  g_autofree char *name = NULL;
  g_autofree char *url = NULL;

  g_return_val_if_fail (server != NULL && server->url != NULL, NULL);

  name = lumo_recommended_server_client_name (server);
  switch (setup)
    {
    case LUMO_RECOMMENDED_SETUP_MCP_JSON:
      {
        g_autoptr(JsonNode) node = lumo_recommended_server_setup_json (server);

        return lumo_setup_json_text (node);
      }

    case LUMO_RECOMMENDED_SETUP_CLAUDE_MCP_ADD:
      url = lumo_setup_shell_word (server->url);
      return g_strdup_printf ("claude mcp add --transport %s %s %s",
                              lumo_recommended_server_client_transport (server), name, url);

    default:
      g_return_val_if_reached (NULL);
    }
}
