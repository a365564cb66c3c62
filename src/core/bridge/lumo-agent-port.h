/* lumo-agent-port.h — a virtual port: a desktop agent's session as an L1
 * port of a provider
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoAgentPort is the app's end of one virtual port of a bridge session
 * (docs/bridge-protocol.md, "Desktop agents: virtual ports"): opened with
 * lumo_backend_open_agent_port() (the provider gets agentOpen), it carries
 * JSON-RPC objects both ways as agentMessage and ends with agentClose.
 * The session keeps it while it is open and checks every authorize that
 * names it against the caller it was opened for. The gateway owns the
 * reference lumo_backend_open_agent_port() returns; the port knows nothing
 * of MCP.
 */
#pragma once

#include <json-glib/json-glib.h>

#include "lumo-types.h"

G_BEGIN_DECLS

#define LUMO_TYPE_AGENT_PORT (lumo_agent_port_get_type ())
G_DECLARE_FINAL_TYPE (LumoAgentPort, lumo_agent_port, LUMO, AGENT_PORT, GObject)

/* The app's id of the port ("a1", "a2", … per bridge session). */
const char *lumo_agent_port_get_id          (LumoAgentPort *self);
const char *lumo_agent_port_get_provider_id (LumoAgentPort *self);
const char *lumo_agent_port_get_caller_id   (LumoAgentPort *self);
/* TRUE once the provider answered agentOpen. Messages may be sent before:
 * frames arrive in order, so the provider has the port by then. */
gboolean    lumo_agent_port_get_opened      (LumoAgentPort *self);
gboolean    lumo_agent_port_is_closed       (LumoAgentPort *self);

/* Sends @message (a JSON-RPC object) as agentMessage; a tools/call of a
 * read tool of the provider's accepted catalogue goes with the app's
 * decision on it, made now under the port's caller. FALSE, with nothing
 * sent, when the port is closed (LUMO_ERROR_UNAVAILABLE), when the frame
 * would pass 1 MiB, or when the provider does not read and the bytes
 * queued for it passed their bound (LUMO_ERROR_LIMIT_EXCEEDED). */
gboolean    lumo_agent_port_send            (LumoAgentPort *self,
                                             JsonObject    *message,
                                             GError       **error);
/* Ends the port from the app's side: the provider gets agentClose with
 * @reason. ::closed is not emitted for it. */
void        lumo_agent_port_close           (LumoAgentPort *self,
                                             const char    *reason);

/* Signals:
 *   ::opened  ()                      the provider answered agentOpen
 *   ::message (JsonObject *message)   a JSON-RPC object from the port's
 *                                     McpServer
 *   ::closed  (const char *reason)    once, when the provider's side ended
 *                                     it: its agentClose, its refusal of
 *                                     agentOpen, or the end of its session
 */

G_END_DECLS
