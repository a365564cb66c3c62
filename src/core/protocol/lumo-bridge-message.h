/* lumo-bridge-message.h — parsing, validating and building bridge messages
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * This file owns the wire form of bridge protocol v1 (docs/bridge-protocol.md)
 * as pure functions: a provider → app JSON object becomes a
 * LumoBridgeMessage, or a LumoBridgeFault that says which error answer it
 * gets (code, field, the request id to put in `re`); and every app → provider
 * message is built here. Nothing here keeps state: the checks that need a
 * session (hello first, ids in flight, the catalogue, audit ids) are
 * LumoBridgeSession's.
 */
#pragma once

#include <glib-object.h>
#include <json-glib/json-glib.h>

#include "lumo-probe-status.h"
#include "lumo-protocol.h"
#include "lumo-recommended-server.h"

G_BEGIN_DECLS

#define LUMO_BRIDGE_VERSION               1
/* Requests in flight per session, and L1 ports open per session. */
#define LUMO_BRIDGE_MAX_IN_FLIGHT         64
#define LUMO_BRIDGE_MAX_PORTS             256
/* Byte bounds of string fields (docs/bridge-protocol.md). */
#define LUMO_BRIDGE_MAX_ID_LEN            64
#define LUMO_BRIDGE_MAX_DISPLAY_LEN       128
#define LUMO_BRIDGE_MAX_VERSION_LEN       64
#define LUMO_BRIDGE_MAX_DESCRIPTION_LEN   4096
#define LUMO_BRIDGE_MAX_RESULT_ERROR_LEN  1024
#define LUMO_BRIDGE_MAX_PORT_LEN          64
#define LUMO_BRIDGE_MAX_PREVIEW_LEN       (16 * 1024)
/* agentClose's `reason`. */
#define LUMO_BRIDGE_MAX_REASON_LEN        512
/* Virtual ports (desktop agents) open per session: the provider serves
 * at most this many, and the app opens no more. */
#define LUMO_BRIDGE_MAX_AGENT_PORTS       64
/* Entries of a hello's or tools' catalogue (at most LUMO_MAX_TOOLS are
 * accepted; the rest are refused one by one, up to this many). */
#define LUMO_BRIDGE_MAX_CATALOGUE_ENTRIES 256
/* The largest integer id: Number.MAX_SAFE_INTEGER, so JavaScript reads it
 * back exactly. */
#define LUMO_BRIDGE_MAX_INT_ID            G_GINT64_CONSTANT (9007199254740991)
/* How long the app waits for a probeTarget answer. */
#define LUMO_BRIDGE_PROBE_TARGET_TIMEOUT_MS 5000

/* The messages a provider sends. */
typedef enum
{
  LUMO_BRIDGE_MESSAGE_HELLO = 1,
  LUMO_BRIDGE_MESSAGE_PROBE,
  LUMO_BRIDGE_MESSAGE_AUTHORIZE,
  LUMO_BRIDGE_MESSAGE_RESULT,
  LUMO_BRIDGE_MESSAGE_TOOLS,
  LUMO_BRIDGE_MESSAGE_PORT,
  /* answers to the app's probeTarget request */
  LUMO_BRIDGE_MESSAGE_PROBE_TARGET_RESULT,
  LUMO_BRIDGE_MESSAGE_ERROR,
  /* desktop agents: the answer to the app's agentOpen, and the pushes of
   * a virtual port (no id, no answer) */
  LUMO_BRIDGE_MESSAGE_AGENT_OPEN_RESULT,
  LUMO_BRIDGE_MESSAGE_AGENT_MESSAGE,
  LUMO_BRIDGE_MESSAGE_AGENT_CLOSE,
} LumoBridgeMessageType;

/* The `code` of an error answer. */
typedef enum
{
  LUMO_BRIDGE_ERROR_TOO_LARGE = 1,
  LUMO_BRIDGE_ERROR_INVALID_UTF8,
  LUMO_BRIDGE_ERROR_INVALID_JSON,
  LUMO_BRIDGE_ERROR_NOT_OBJECT,
  LUMO_BRIDGE_ERROR_UNKNOWN_TYPE,
  LUMO_BRIDGE_ERROR_BAD_FIELD,
  LUMO_BRIDGE_ERROR_INVALID_ID,
  LUMO_BRIDGE_ERROR_HELLO_REQUIRED,
  LUMO_BRIDGE_ERROR_DUPLICATE_HELLO,
  LUMO_BRIDGE_ERROR_DUPLICATE_ID,
  LUMO_BRIDGE_ERROR_BUSY,
  LUMO_BRIDGE_ERROR_UNKNOWN_AUDIT_ID,
  LUMO_BRIDGE_ERROR_INTERNAL,
  LUMO_BRIDGE_ERROR_UNAVAILABLE,
} LumoBridgeErrorCode;

const char *lumo_bridge_error_code_to_string    (LumoBridgeErrorCode    code);
gboolean    lumo_bridge_error_code_from_string  (const char            *str,
                                                 LumoBridgeErrorCode   *code);
const char *lumo_bridge_message_type_to_string  (LumoBridgeMessageType  type);

/* Why a message is not acted on. @answerable is FALSE for a bad *answer*
 * of the provider (answers are never answered: the session logs and drops
 * it). */
typedef struct
{
  LumoBridgeErrorCode  code;
  char                *field;     /* "caller.id", …; NULL if no single field */
  char                *message;   /* English, for logs and developers */
  JsonNode            *re;        /* the request id, NULL if it could not be read */
  gboolean             answerable;
} LumoBridgeFault;

LumoBridgeFault *lumo_bridge_fault_new        (LumoBridgeErrorCode  code,
                                               JsonNode            *re,
                                               const char          *field,
                                               const char          *format,
                                               ...) G_GNUC_PRINTF (4, 5);
/* The fault for a framing error of lumo_frame_decode() (in sync or not). */
LumoBridgeFault *lumo_bridge_fault_new_for_frame_error (const GError *error);
void             lumo_bridge_fault_free       (LumoBridgeFault     *fault);

/* One provider → app message, validated. Only the members of its type are
 * set. Strings are valid UTF-8 within their bounds; caller IDs passed
 * lumo_is_extension_id(). */
typedef struct
{
  LumoBridgeMessageType  type;
  JsonNode              *id;          /* requests: the id as sent (string or integer) */
  char                  *id_key;      /* requests: "s:<id>" or "n:<id>", for in-flight sets */
  JsonNode              *re;          /* answers: as sent */

  /* probe, authorize, port */
  char                  *caller_id;
  char                  *caller_name;     /* NULL if absent */
  char                  *caller_version;  /* NULL if absent */

  /* hello */
  char                  *namespace_;
  char                  *service_name;
  char                  *service_version;
  /* hello, tools: the entries as sent. Each entry is judged on its own by
   * lumo_bridge_validate_catalogue() with the session's namespace: a bad
   * entry is refused, never an error. */
  JsonArray             *tools;
  /* hello, tools: `customMarketMcpServers`, LumoRecommendedServer; NULL
   * when absent or not an array (the previous list stays), else the valid
   * entries (lumo_recommended_servers_from_json()). */
  GPtrArray             *recommended_servers;

  /* authorize */
  char                  *tool;
  gboolean               write;
  char                  *target;          /* lowercase UUID, NULL if absent */
  char                  *params_hash;     /* NULL if absent */
  char                  *preview_json;    /* compact, NULL if absent */

  /* result */
  gint64                 audit_id;
  gboolean               ok;
  char                  *error;           /* NULL if absent */

  /* port; authorize from a virtual port (NULL if absent); agentMessage,
   * agentClose: the virtual port */
  char                  *port;
  gboolean               open;

  /* agentMessage: the JSON-RPC object */
  JsonObject            *jsonrpc;
  /* agentClose */
  char                  *reason;

  /* probeTarget.result */
  LumoProbeOutcome      *outcome;
  /* error (answer) */
  char                  *error_code;
  char                  *error_message;
} LumoBridgeMessage;

void               lumo_bridge_message_free    (LumoBridgeMessage   *message);
/* Validates @object completely (the stateless checks 2–4 and 7 of the
 * protocol's order). Returns NULL and sets @fault when it fails. */
LumoBridgeMessage *lumo_bridge_message_parse   (JsonObject          *object,
                                                LumoBridgeFault    **fault);
gboolean           lumo_bridge_message_is_request (const LumoBridgeMessage *message);
/* agentMessage and agentClose: neither request nor answer. */
gboolean           lumo_bridge_message_is_push (const LumoBridgeMessage *message);
/* The envelope alone (checks 2–4), for the session's state checks that come
 * before the fields: TRUE if @object is a provider *request* with a valid
 * id, with its type and in-flight key (free with g_free). */
gboolean           lumo_bridge_message_peek_request (JsonObject            *object,
                                                     LumoBridgeMessageType *type,
                                                     char                 **id_key);
/* TRUE if @object's type is a push (agentMessage, agentClose): for the
 * session's hello_required, which comes before the fields of a push too. */
gboolean           lumo_bridge_message_peek_push    (JsonObject            *object);

/* The catalogue of a hello or tools message: lumo_catalogue_validate() plus
 * the bridge's stricter entry rules (`write` must be a boolean; title and
 * description within their bounds). NULL only when @ns is invalid. */
LumoCatalogue     *lumo_bridge_validate_catalogue (const char       *ns,
                                                   JsonArray        *tools,
                                                   GError          **error);
/* The wire `reason` of a LumoToolRefusal: invalid, invalid_name, limit,
 * duplicate. */
const char        *lumo_bridge_refusal_reason  (int                  lumo_error_code);

/* A virtual port's id: ^[A-Za-z0-9_-]{1,64}$ (agentOpen, agentMessage,
 * agentClose, and authorize's `port`). */
gboolean           lumo_bridge_is_agent_port_id (const char          *port);
/* One JSON-RPC 2.0 object, never a batch: `"jsonrpc": "2.0"` and either a
 * string `method` (a request or notification; an `id`, when present, a
 * string or an integer) or an `id` (a string or an integer, or null on an
 * error) with exactly one of `result` and `error`. What agentMessage
 * carries both ways, and what a desktop agent's session takes. */
gboolean           lumo_bridge_is_jsonrpc_message (JsonObject        *object);
/* The same, saying why not (LUMO_ERROR_INVALID_ARGUMENT, naming the
 * member): what a desktop agent's transport answers a bad message with. */
gboolean           lumo_bridge_check_jsonrpc_message (JsonObject     *object,
                                                      GError        **error);

/* ---- app → provider ------------------------------------------------------ */

/* Every builder returns a new object ready for lumo_frame_writer_send().
 * @re is the request's id node (copied), NULL for JSON null. */
JsonObject *lumo_bridge_build_error           (const LumoBridgeFault  *fault);
/* The one frame a provider gets when the app cannot serve it at all (the
 * helper cannot reach the app, or the app cannot open its stores):
 * `error` with code `unavailable`, `re` null, and @message for the person. */
JsonObject *lumo_bridge_build_unavailable     (const char             *message);
/* @accepted: tool names in catalogue order; @refusals: LumoToolRefusal,
 * emitted sorted by index. */
JsonObject *lumo_bridge_build_hello_result    (JsonNode               *re,
                                               const char             *app_version,
                                               gboolean                enabled,
                                               gboolean                writes,
                                               gboolean                review,
                                               const char * const     *accepted,
                                               GPtrArray              *refusals);
JsonObject *lumo_bridge_build_tools_result    (JsonNode               *re,
                                               const char * const     *accepted,
                                               GPtrArray              *refusals);
JsonObject *lumo_bridge_build_probe_result    (JsonNode               *re,
                                               gboolean                enabled,
                                               gboolean                authorized,
                                               gboolean                ready,
                                               gboolean                pending_approval);
/* @reason NULL when allowed; @retry_after_ms < 0 and @audit_id <= 0 leave
 * the members out; @message NULL uses lumo_bridge_decision_message(). */
JsonObject *lumo_bridge_build_authorize_result (JsonNode              *re,
                                                gboolean               allow,
                                                const char            *reason,
                                                gint64                 retry_after_ms,
                                                gint64                 audit_id,
                                                const char            *message);
/* `result.result` and `port.result`: @type plus `re`. */
JsonObject *lumo_bridge_build_empty_result    (const char             *type,
                                               JsonNode               *re);
JsonObject *lumo_bridge_build_policy          (gboolean                enabled,
                                               gboolean                writes,
                                               gboolean                review,
                                               const char * const     *revoked);
JsonObject *lumo_bridge_build_probe_target    (const char             *id,
                                               const char             *target);
/* Desktop agents (docs/bridge-protocol.md, "Desktop agents"). @id is the
 * request id node (copied); @caller_name is the agent's cleaned name. */
JsonObject *lumo_bridge_build_agent_open      (JsonNode               *id,
                                               const char             *port,
                                               const char             *caller_id,
                                               const char             *caller_name);
/* @message: a JSON-RPC object (a reference is taken); @decision: NULL, or
 * the app's decision on the read tool that @message calls, from
 * lumo_bridge_build_relayed_decision() (a reference is taken). */
JsonObject *lumo_bridge_build_agent_message   (const char             *port,
                                               JsonObject             *message,
                                               JsonObject             *decision);
/* The `decision` of an agentMessage: the app's answer, made as it relays
 * it, to the call @id (the JSON-RPC id the provider sees, copied) of the
 * read tool @tool; @reason NULL when allowed. The fields of an
 * authorize.result of a read: `allow`, `reason`, `message`. */
JsonObject *lumo_bridge_build_relayed_decision (JsonNode              *id,
                                                const char            *tool,
                                                const char            *reason);
JsonObject *lumo_bridge_build_agent_close     (const char             *port,
                                               const char             *reason);

/* The English sentence for the model in an authorize answer: "Allowed." or
 * the one of @reason (a wire reason), with the wait for rate_limited. */
char       *lumo_bridge_decision_message      (const char             *reason,
                                               gint64                  retry_after_ms);
/* TRUE if @reason is one of the wire reasons of authorize.result. */
gboolean    lumo_bridge_is_deny_reason        (const char             *reason);

/* Checks an app → provider message the way the provider must (the roundtrip
 * of the fixtures, and a self-check of what the app sends). On failure sets
 * @field (the offending member) and a LUMO_ERROR_PROTOCOL error. */
gboolean    lumo_bridge_validate_app_message  (JsonObject             *object,
                                               char                  **field,
                                               GError                **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (LumoBridgeFault, lumo_bridge_fault_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (LumoBridgeMessage, lumo_bridge_message_free)

G_END_DECLS
