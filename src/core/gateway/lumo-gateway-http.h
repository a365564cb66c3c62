/* lumo-gateway-http.h — the desktop agents' Streamable HTTP endpoint
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoGatewayHttp serves MCP's Streamable HTTP transport at
 * http://127.0.0.1:PORT/mcp/<provider namespace> for a LumoGateway's
 * sessions. It owns the LumoGatewayListener (the loopback sockets and the
 * connection bounds) and the HTTP side of each session it opened: the SSE
 * streams open on it, and how long it has been idle. It decides nothing
 * about who may call: lumo_gateway_authenticate() does, for every request.
 *
 * Each request is checked in this order, and refused at the first check
 * it fails (docs/desktop-agents.md says why): Host and Origin (403,
 * before the token is looked at), the token (401 with
 * WWW-Authenticate: Bearer, nothing else done), the provider (404), the
 * method (405), Accept and Content-Type (406, 415), the body size (413,
 * while it is read), Mcp-Session-Id (400 when missing after initialize,
 * 404 when unknown or ended), MCP-Protocol-Version (400), the JSON
 * (-32700) and the JSON-RPC envelope (-32600), a batch under a version
 * that has none (-32600).
 *
 * A POST of requests is answered with an SSE stream that carries what
 * the session sends about them (progress, a review that takes minutes)
 * and ends with their answers; a POST of notifications or responses with
 * 202; GET opens the session's one standalone SSE stream; DELETE ends the
 * session. What its streams hold unread counts against the session's bound
 * (LUMO_AGENT_SESSION_MAX_QUEUED_BYTES): past it the session ends; a
 * stream whose client takes nothing of what waits for it for
 * LUMO_GATEWAY_HTTP_STALL_TIMEOUT_S is cut off with its connection; an
 * open stream carries an SSE comment every LUMO_GATEWAY_HTTP_KEEPALIVE_S,
 * so a client that went away silently is found. A
 * session with no stream open and no request for
 * LUMO_GATEWAY_HTTP_SESSION_IDLE_S is ended (the client starts a new one
 * when it comes back: 404).
 */
#pragma once

#include "lumo-gateway.h"
#include "lumo-gateway-listener.h"

G_BEGIN_DECLS

#define LUMO_GATEWAY_HTTP_SESSION_IDLE_S  (30 * 60)
#define LUMO_GATEWAY_HTTP_STALL_TIMEOUT_S 30
#define LUMO_GATEWAY_HTTP_KEEPALIVE_S     15

#define LUMO_TYPE_GATEWAY_HTTP (lumo_gateway_http_get_type ())
G_DECLARE_FINAL_TYPE (LumoGatewayHttp, lumo_gateway_http, LUMO, GATEWAY_HTTP, GObject)

LumoGatewayHttp          *lumo_gateway_http_new       (LumoGateway      *gateway);
LumoGateway              *lumo_gateway_http_get_gateway (LumoGatewayHttp *self);

/* Listens on 127.0.0.1:@port and [::1]:@port (lumo_gateway_listener_start()). */
gboolean                  lumo_gateway_http_start     (LumoGatewayHttp  *self,
                                                       guint             port,
                                                       GError          **error);
/* Stops listening, ends the sessions this endpoint opened and cuts its
 * connections. */
void                      lumo_gateway_http_stop      (LumoGatewayHttp  *self);
LumoGatewayListenerState  lumo_gateway_http_get_state (LumoGatewayHttp  *self);
guint                     lumo_gateway_http_get_port  (LumoGatewayHttp  *self);

/* Properties: "state" (LumoGatewayListenerState) and "port", notified:
 * what the UI shows (listening, port in use, off). */

G_END_DECLS
