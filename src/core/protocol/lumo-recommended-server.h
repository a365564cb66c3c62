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
 * "streamableHttp" when present; none of them with a control character or
 * a line separator, since the app and the CLI show them), in order, repeats of an earlier id or url
 * dropped, at most LUMO_RECOMMENDED_MAX_SERVERS. @node NULL (the member is
 * absent) or not an array returns NULL: the previous list stays. An array
 * returns a (possibly empty) GPtrArray of LumoRecommendedServer. */
GPtrArray *lumo_recommended_servers_from_json (JsonNode  *node);
/* A deep copy (NULL stays NULL). */
GPtrArray *lumo_recommended_servers_copy      (GPtrArray *servers);

/* ---- set-up for a desktop MCP client --------------------------------------
 *
 * What Copy Set-up on the Providers page copies and `lumo-access-ctl
 * recommended` prints: the server's URL as a desktop MCP client takes it.
 * The one home of that text; the UI and the CLI only show it. */

typedef enum
{
  LUMO_RECOMMENDED_SETUP_MCP_JSON,       /* {"mcpServers": {NAME: {"type", "url"}}} */
  LUMO_RECOMMENDED_SETUP_CLAUDE_MCP_ADD, /* claude mcp add --transport T NAME URL */
} LumoRecommendedSetup;

#define LUMO_RECOMMENDED_CLIENT_NAME_MAX 64

/* The name the client lists the server under: the id with every byte but
 * ASCII letters, digits, "-" and "_" made "-", without leading or trailing
 * "-" (a leading one would read as an option), at most
 * LUMO_RECOMMENDED_CLIENT_NAME_MAX bytes; "server" when nothing is left. */
char       *lumo_recommended_server_client_name      (const LumoRecommendedServer *server);
/* The client's transport: "sse" for type "sse"; "http" (streamable HTTP)
 * for "streamableHttp" and when the type is absent. */
const char *lumo_recommended_server_client_transport (const LumoRecommendedServer *server);
/* {"mcpServers": {NAME: {"type": TRANSPORT, "url": URL}}}, the part of an
 * mcp.json (Claude Desktop, Claude Code's .mcp.json, Cursor…) for this
 * server. */
JsonNode   *lumo_recommended_server_setup_json       (const LumoRecommendedServer *server);
/* The text to copy, without a trailing newline: the object above with two
 * spaces of indent, or the one `claude mcp add` line, the URL in single
 * quotes when a shell would read anything in it. */
char       *lumo_recommended_server_setup            (const LumoRecommendedServer *server,
                                                      LumoRecommendedSetup         setup);

G_END_DECLS
