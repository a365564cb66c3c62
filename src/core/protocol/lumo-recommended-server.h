/* lumo-recommended-server.h — MCP servers a provider recommends
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * This file owns the validated form of the `customMarketMcpServers` member
 * of a bridge hello or tools message (docs/bridge-protocol.md): what the
 * Providers page may show, as text only. The list is advisory, so a bad
 * entry is dropped on its own and never makes the message fail; the icon is
 * not kept at all, because the app never fetches anything a provider names.
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define LUMO_RECOMMENDED_MAX_NAME_LEN        128   /* id and name, bytes */
#define LUMO_RECOMMENDED_MAX_DESCRIPTION_LEN 1024
#define LUMO_RECOMMENDED_MAX_URL_LEN         2048
/* At most this many entries are kept per message (32 per site pack; a
 * bound on what one provider can make the page show). */
#define LUMO_RECOMMENDED_MAX_SERVERS         256

typedef struct
{
  char *id;
  char *name;
  char *description;   /* NULL if absent or empty */
  char *url;           /* http or https */
  char *transport;     /* "sse", "streamableHttp", or NULL if absent */
} LumoRecommendedServer;

#define LUMO_TYPE_RECOMMENDED_SERVER (lumo_recommended_server_get_type ())
GType                  lumo_recommended_server_get_type (void) G_GNUC_CONST;
LumoRecommendedServer *lumo_recommended_server_copy     (const LumoRecommendedServer *server);
void                   lumo_recommended_server_free     (LumoRecommendedServer       *server);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (LumoRecommendedServer, lumo_recommended_server_free)

/* The entries of @node that pass (id and name non-empty strings ≤ 128
 * bytes, url an http(s) URL, description ≤ 1024 bytes, type "sse" or
 * "streamableHttp" when present), in order, repeats of an earlier id or url
 * dropped, at most LUMO_RECOMMENDED_MAX_SERVERS. @node NULL (the member is
 * absent) or not an array returns NULL: the previous list stays. An array
 * returns a (possibly empty) GPtrArray of LumoRecommendedServer. */
GPtrArray *lumo_recommended_servers_from_json (JsonNode  *node);
/* A deep copy (NULL stays NULL). */
GPtrArray *lumo_recommended_servers_copy      (GPtrArray *servers);

G_END_DECLS
