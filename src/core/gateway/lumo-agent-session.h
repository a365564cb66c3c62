/* lumo-agent-session.h — one MCP session of one desktop agent
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoAgentSession relays one agent's JSON-RPC messages to the provider
 * over a virtual port (docs/bridge-protocol.md, "Desktop agents") and the
 * provider's back to the agent. MCP itself stays in the provider's SDK
 * server; the session only rewrites the agent's request ids (so the
 * initialize it replays after a reconnect never collides), answers by
 * itself while the provider is not connected (initialize, tools/list
 * empty, tools/call isError, ping), and replays initialize when the
 * provider comes back, then tells the agent the tool list changed.
 * Transport-agnostic: HTTP and stdio feed it whole JSON-RPC objects.
 */
#pragma once

#include <json-glib/json-glib.h>

#include "lumo-types.h"

G_BEGIN_DECLS

/* Requests of one session waiting for their answer; the next is refused
 * with a JSON-RPC error at once. */
#define LUMO_AGENT_SESSION_MAX_IN_FLIGHT 64
/* Bytes a transport may hold for an agent that does not read (unsent SSE
 * events, unwritten stdio lines); past it the session ends
 * (lumo_agent_session_note_unsent()). */
#define LUMO_AGENT_SESSION_MAX_QUEUED_BYTES (8 * 1024 * 1024)

#define LUMO_TYPE_AGENT_SESSION (lumo_agent_session_get_type ())
G_DECLARE_FINAL_TYPE (LumoAgentSession, lumo_agent_session, LUMO, AGENT_SESSION, GObject)

/* Random, ≥ 128 bits, lowercase hex: the HTTP Mcp-Session-Id. */
const char *lumo_agent_session_get_id               (LumoAgentSession *self);
const char *lumo_agent_session_get_agent_id         (LumoAgentSession *self);
const char *lumo_agent_session_get_agent_name       (LumoAgentSession *self);
const char *lumo_agent_session_get_provider_id      (LumoAgentSession *self);
const char *lumo_agent_session_get_transport        (LumoAgentSession *self);
/* The version settled at initialize (by the provider's SDK server, or by
 * the session itself while the provider was away); NULL before. */
const char *lumo_agent_session_get_protocol_version (LumoAgentSession *self);
gboolean    lumo_agent_session_get_initialized      (LumoAgentSession *self);
/* TRUE while a virtual port to a connected provider serves the session. */
gboolean    lumo_agent_session_get_connected        (LumoAgentSession *self);
gboolean    lumo_agent_session_is_closed            (LumoAgentSession *self);

/* One JSON-RPC object from the agent (a request, a notification or a
 * response to a server request). FALSE with LUMO_ERROR_INVALID_ARGUMENT
 * (and nothing done) when it is not a JSON-RPC 2.0 object; a request over
 * LUMO_AGENT_SESSION_MAX_IN_FLIGHT is answered with an error (::message),
 * not refused here. FALSE with LUMO_ERROR_UNAVAILABLE once the session is
 * closed. */
gboolean    lumo_agent_session_receive              (LumoAgentSession *self,
                                                     JsonObject       *message,
                                                     GError          **error);
/* The transport says how many bytes of ::message it holds for the agent
 * and has not delivered yet (call it when that grows; 0 when drained).
 * Past LUMO_AGENT_SESSION_MAX_QUEUED_BYTES the session closes: an agent
 * that does not read cannot hold the app's memory. */
void        lumo_agent_session_note_unsent          (LumoAgentSession *self,
                                                     gsize             unsent_bytes);
/* Ends the session: the provider gets agentClose, requests in flight are
 * answered with an error, ::closed is emitted once. */
void        lumo_agent_session_close                (LumoAgentSession *self,
                                                     const char       *reason);

/* Signals:
 *   ::message (JsonObject *message, JsonNode *related_request_id)
 *        a JSON-RPC object for the agent: an answer (related = the agent's
 *        own request id), or a notification/request of the server
 *        (related = the request it belongs to, e.g. progress; NULL for the
 *        standalone stream, e.g. notifications/tools/list_changed)
 *   ::closed  (const char *reason)                                once
 */

G_END_DECLS
