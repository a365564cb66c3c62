/* lumo-mcp.h — what the app itself must know of MCP to carry it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The app relays a desktop agent's MCP messages to the provider's SDK
 * server, which speaks MCP and settles the protocol version at initialize.
 * The transports (HTTP, the stdio launcher) still need a few rules of
 * their own, and this is their one home: the protocol versions the
 * project's pinned SDK negotiates and which of them have JSON-RPC batches,
 * what kind of JSON-RPC message an object is, when two request ids are the
 * same id, and the JSON-RPC error objects a transport answers with.
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* JSON-RPC 2.0 error codes the transports answer with. */
#define LUMO_JSONRPC_PARSE_ERROR       (-32700)
#define LUMO_JSONRPC_INVALID_REQUEST   (-32600)
#define LUMO_JSONRPC_METHOD_NOT_FOUND  (-32601)
#define LUMO_JSONRPC_INTERNAL_ERROR    (-32603)
/* The transport refused the request (an HTTP 4xx, a refused token). */
#define LUMO_JSONRPC_SERVER_ERROR      (-32000)
/* The session is unknown or ended: start a new one. */
#define LUMO_JSONRPC_SESSION_NOT_FOUND (-32001)

typedef enum
{
  LUMO_JSONRPC_REQUEST = 1,   /* method and id */
  LUMO_JSONRPC_NOTIFICATION,  /* method, no id */
  LUMO_JSONRPC_RESPONSE,      /* id and exactly one of result, error */
} LumoJsonRpcKind;

/* The protocol versions the pinned MCP SDK (extension/package.json)
 * negotiates, newest first, NULL-terminated. */
const char * const *lumo_mcp_get_protocol_versions    (void);
gboolean            lumo_mcp_protocol_version_is_known (const char *version);
/* TRUE for a version whose transports carry JSON-RPC batches (2025-03-26
 * and before; 2025-06-18 took them out). FALSE for an unknown version. */
gboolean            lumo_mcp_protocol_version_has_batches (const char *version);

/* The kind of JSON-RPC 2.0 message @message is; 0 and
 * LUMO_ERROR_INVALID_ARGUMENT (naming the member) when it is none: no
 * "jsonrpc": "2.0", a method that is not a string, an id that is neither
 * a string nor an integer (null only on an error response), both or
 * neither of result and error. The envelope only: params are the SDK's. */
LumoJsonRpcKind     lumo_jsonrpc_classify              (JsonObject  *message,
                                                        GError     **error);
/* TRUE for a request whose method is "initialize". */
gboolean            lumo_jsonrpc_is_initialize         (JsonObject  *message);
/* A key equal for two ids exactly when they are the same JSON-RPC id
 * ("s:" + the string, "i:" + the integer), NULL when @id is not a string
 * or an integer. */
char               *lumo_jsonrpc_id_key                (JsonNode    *id);

/* {"jsonrpc": "2.0", "id": @id (null when NULL), "error": {"code": @code,
 * "message": @message}}. */
JsonObject         *lumo_jsonrpc_error_new             (JsonNode    *id,
                                                        gint64       code,
                                                        const char  *message);

/* The messages of one body or line: @node itself when it is an object;
 * the members of a batch when @version has batches. Refuses
 * (LUMO_ERROR_INVALID_ARGUMENT, nothing returned) a batch under a version
 * without batches or before a version is settled (@version NULL: an
 * initialize is never batched), an empty batch, a member that is not an
 * object. Returns a new array of JsonObject (references). */
GPtrArray          *lumo_mcp_split_batch               (JsonNode    *node,
                                                        const char  *version,
                                                        GError     **error);

G_END_DECLS
