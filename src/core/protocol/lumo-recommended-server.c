/* lumo-recommended-server.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-recommended-server"

#include "config.h"

#include <string.h>

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

/* A string member within @max bytes; @optional lets it be absent (NULL). */
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
  if (strlen (*out) > max || !g_utf8_validate (*out, -1, NULL))
    return FALSE;
  return optional || **out != '\0';
}

/* Only what a person can read and type: no control characters, which
 * could hide part of the URL in a label. */
static gboolean
url_is_valid (const char *url)
{
  g_autoptr(GUri) uri = NULL;
  const char *scheme;

  for (const char *p = url; *p != '\0'; p++)
    if ((guchar) *p < 0x20 || *p == 0x7f)
      return FALSE;

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
  server->name = g_strdup (name);
  server->description = description != NULL && *description != '\0' ? g_strdup (description) : NULL;
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
