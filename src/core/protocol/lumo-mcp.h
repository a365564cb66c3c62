/* lumo-mcp.h — the little of MCP and JSON-RPC the app itself speaks
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * MCP stays in the provider's official SDK; the app relays it. What the
 * app says by itself — the answers of a desktop agent's session while the
 * provider is away, the errors of a transport (a parse error, a batch
 * under a version that has none, a bound) — is built here, and so is the
 * list of protocol versions, the same the project's pinned SDK negotiates,
 * so the session and the transports check one list. It sits with the wire
 * rules (not with the gateway) because the stdio launcher, which links
 * only those, answers its client with these errors too.
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* JSON-RPC 2.0 error codes, and the SDK's for a closed connection. */
#define LUMO_MCP_PARSE_ERROR        (-32700)
#define LUMO_MCP_INVALID_REQUEST    (-32600)
#define LUMO_MCP_METHOD_NOT_FOUND   (-32601)
#define LUMO_MCP_INVALID_PARAMS     (-32602)
#define LUMO_MCP_INTERNAL_ERROR     (-32603)
#define LUMO_MCP_CONNECTION_CLOSED  (-32000)
/* A transport refused the request (an HTTP 4xx, a refused token): the
 * first server-error code, the one the SDK's own transports use. */
#define LUMO_MCP_SERVER_ERROR       (-32000)
/* The session is unknown or has ended: start a new one (as the SDK says). */
#define LUMO_MCP_SESSION_NOT_FOUND  (-32001)

/* The newest version first, as @modelcontextprotocol/sdk lists them. */
#define LUMO_MCP_LATEST_PROTOCOL_VERSION "2025-11-25"

/* NULL-terminated, newest first. */
const char * const *lumo_mcp_supported_versions   (void);
gboolean            lumo_mcp_is_supported_version (const char *version);
/* The SDK server's rule: the client's version if supported, else the
 * latest. */
const char         *lumo_mcp_negotiate_version    (const char *requested);
/* Since 2025-06-18 a JSON-RPC batch is not part of MCP. */
gboolean            lumo_mcp_version_has_batches  (const char *version);

/* New JSON-RPC objects; @id is copied (NULL: null, for a parse error). */
JsonObject *lumo_mcp_new_result        (JsonNode   *id,
                                        JsonObject *result);
JsonObject *lumo_mcp_new_error         (JsonNode   *id,
                                        int         code,
                                        const char *message);
/* @params may be NULL. */
JsonObject *lumo_mcp_new_notification  (const char *method,
                                        JsonObject *params);
/* A tools/call result the model reads as a failure: one text content,
 * isError true. */
JsonObject *lumo_mcp_new_tool_error    (const char *text);

/* What one JSON-RPC object is (lumo_bridge_is_jsonrpc_message() said it
 * is one). */
typedef enum
{
  LUMO_MCP_REQUEST = 1,
  LUMO_MCP_NOTIFICATION,
  LUMO_MCP_RESPONSE,
} LumoMcpKind;

LumoMcpKind  lumo_mcp_kind             (JsonObject *message);
/* The method of a request or notification, else NULL. */
const char  *lumo_mcp_method           (JsonObject *message);

/* ---- what a transport takes apart --------------------------------------- */

/* The kind of @message when it is a JSON-RPC object
 * (lumo_bridge_check_jsonrpc_message()); 0 with its error otherwise. */
LumoMcpKind  lumo_mcp_classify         (JsonObject  *message,
                                        GError     **error);
/* TRUE for a valid request whose method is "initialize". */
gboolean     lumo_mcp_is_initialize    (JsonObject  *message);
/* A key equal for two ids exactly when they are the same JSON-RPC id
 * ("s:" + the string, "i:" + the integer: "1" and 1 differ), NULL when
 * @id is neither a string nor an integer. */
char        *lumo_mcp_id_key           (JsonNode    *id);
/* The messages of one HTTP body or stdio line: @node itself when it is an
 * object; the members of a batch when @version has batches. Refuses
 * (LUMO_ERROR_INVALID_ARGUMENT, nothing returned) a batch under a version
 * without batches or before a version is settled (@version NULL: an
 * initialize is never batched), an empty batch, a member that is not an
 * object. Returns a new array of JsonObject (references). */
GPtrArray   *lumo_mcp_split_batch      (JsonNode    *node,
                                        const char  *version,
                                        GError     **error);

G_END_DECLS
