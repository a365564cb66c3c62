/* lumo-gateway.h — desktop agents' MCP sessions, under the same policy
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoGateway owns every LumoAgentSession of every desktop agent. It turns
 * a bearer token into an agent (lumo_gateway_authenticate()), a provider
 * namespace into a provider, opens sessions (at most
 * LUMO_GATEWAY_MAX_SESSIONS_PER_AGENT per agent), and ends them the moment
 * the policy says the agent may no longer call (::revoked, the agent
 * removed, the provider disabled, desktop agents turned off). It knows
 * nothing of HTTP or stdio: LumoGatewayHttp and the D-Bus AttachAgent call
 * are its two transports and call only this API.
 */
#pragma once

#include <gio/gio.h>

#include "lumo-agent-session.h"
#include "lumo-types.h"

G_BEGIN_DECLS

#define LUMO_GATEWAY_MAX_SESSIONS_PER_AGENT 16

/* Why a request for a session was refused; the transports map it to
 * HTTP (401/403/404) or to the one JSON-RPC error line of the launcher. */
typedef enum
{
  LUMO_GATEWAY_OK = 0,
  LUMO_GATEWAY_BAD_TOKEN,       /* no, malformed or unknown token: 401 */
  LUMO_GATEWAY_DENIED,          /* agent denied on this provider: 401 */
  LUMO_GATEWAY_PENDING,         /* waits for a person's approval: 403 */
  LUMO_GATEWAY_DISABLED,        /* provider off, or desktop agents off: 403 */
  LUMO_GATEWAY_NO_PROVIDER,     /* no provider has this namespace: 404 */
  LUMO_GATEWAY_TOO_MANY,        /* LUMO_GATEWAY_MAX_SESSIONS_PER_AGENT: 429 */
} LumoGatewayVerdict;

#define LUMO_TYPE_GATEWAY (lumo_gateway_get_type ())
G_DECLARE_FINAL_TYPE (LumoGateway, lumo_gateway, LUMO, GATEWAY, GObject)

LumoGateway        *lumo_gateway_new                 (LumoBackend        *backend);
LumoBackend        *lumo_gateway_get_backend         (LumoGateway        *self);

/* Off (the default) refuses every new session with DISABLED and ends the
 * open ones. Property "enabled" (notified), so the app can bind the
 * desktop-agents setting to it. */
void                lumo_gateway_set_enabled         (LumoGateway        *self,
                                                      gboolean            enabled);
gboolean            lumo_gateway_get_enabled         (LumoGateway        *self);

/* Checks @token (the bearer token as the client sent it, NULL when none)
 * and whether that agent may use the provider of @namespace now. On OK,
 * *@agent_id (optional) is the agent and *@provider_id (optional) the
 * provider. A valid agent on a provider where it has no caller row becomes
 * pending there (::caller-pending, bounded like new extension callers) and
 * gets PENDING. Never logs or keeps @token. @message (optional) gets a
 * sentence for the client (no secret in it). */
LumoGatewayVerdict  lumo_gateway_authenticate        (LumoGateway        *self,
                                                      const char         *token,
                                                      const char         *namespace_,
                                                      char              **agent_id,
                                                      char              **provider_id,
                                                      char              **message);

/* A new session of @agent_id with @provider_id (both as authenticate
 * returned them), for @transport ("http" or "stdio", display only). NULL
 * with TOO_MANY / DENIED / … in @verdict when it may not open. The caller
 * owns the returned reference; the gateway keeps its own until the session
 * ends (::closed), and ends it itself when the policy says so. */
LumoAgentSession   *lumo_gateway_open_session        (LumoGateway        *self,
                                                      const char         *agent_id,
                                                      const char         *provider_id,
                                                      const char         *transport,
                                                      LumoGatewayVerdict *verdict);
/* The open session with @session_id, only if it belongs to @agent_id
 * (another agent's id is "unknown" too); NULL when unknown or ended.
 * Borrowed: take a reference to keep it. */
LumoAgentSession   *lumo_gateway_lookup_session      (LumoGateway        *self,
                                                      const char         *agent_id,
                                                      const char         *session_id);
/* A GListModel of the open LumoAgentSession (the Activity page). */
GListModel         *lumo_gateway_get_sessions        (LumoGateway        *self);

/* Signals:
 *   ::session-opened (LumoAgentSession *session)
 *   ::session-closed (LumoAgentSession *session, const char *reason)
 */

G_END_DECLS
