/* lumo-gateway-http-private.h — shared by the endpoint's two files, and tests
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * lumo-gateway-http.c takes requests apart and checks them;
 * lumo-gateway-http-stream.c keeps the HTTP side of each session (its
 * SSE streams, its idle deadline) and writes what the session sends.
 */
#pragma once

#ifndef LUMO_CORE_COMPILATION
# error "lumo-gateway-http-private.h is for src/core and its tests only"
#endif

#include "lumo-gateway-http.h"
#include "lumo-gateway-listener-private.h"

G_BEGIN_DECLS

struct _LumoGatewayHttp
{
  GObject               parent_instance;

  LumoGateway          *gateway;
  LumoGatewayListener  *listener;
  GHashTable           *bindings;      /* session id → HttpBinding (owned) */
  GHashTable           *streams;       /* HttpStream, each until its message finishes */

  guint                 session_idle_ms;
  guint                 stall_timeout_ms;
  guint                 keepalive_ms;
};

/* The HTTP side of one LumoAgentSession this endpoint opened. */
typedef struct _HttpBinding HttpBinding;

/* Makes the (empty) tables of bindings and streams. */
void              _lumo_gateway_http_streams_init    (LumoGatewayHttp   *self);
HttpBinding      *_lumo_gateway_http_bind            (LumoGatewayHttp   *self,
                                                      LumoAgentSession  *session);
HttpBinding      *_lumo_gateway_http_lookup          (LumoGatewayHttp   *self,
                                                      const char        *session_id);
/* The binding of @agent_id with no stream open that was used longest ago
 * (the one to end when the agent has its most sessions), or NULL. */
HttpBinding      *_lumo_gateway_http_find_idle       (LumoGatewayHttp   *self,
                                                      const char        *agent_id);
/* Ends every session this endpoint opened. */
void              _lumo_gateway_http_unbind_all      (LumoGatewayHttp   *self,
                                                      const char        *reason);
/* Lets every stream go (the endpoint is disposed). */
void              _lumo_gateway_http_drop_streams    (LumoGatewayHttp   *self);

LumoAgentSession *_http_binding_get_session          (HttpBinding       *binding);
/* A request of the session came: its idle deadline starts again. */
void              _http_binding_touch                (HttpBinding       *binding);
/* TRUE while a request with id key @key waits for its answer on a stream. */
gboolean          _http_binding_is_pending           (HttpBinding       *binding,
                                                      const char        *key);
gboolean          _http_binding_has_standalone       (HttpBinding       *binding);
/* Turns @msg into an SSE stream of the session (paused until there is
 * something to write): for the answers to the requests whose id keys are
 * @keys (a POST), or the standalone stream (@keys NULL, a GET). With
 * @may_hold (a POST of one request, not a batch) the headers wait, and an
 * answer that comes first goes as one JSON object instead. */
void              _http_binding_open_stream          (HttpBinding       *binding,
                                                      SoupServerMessage *msg,
                                                      GPtrArray         *keys,
                                                      gboolean           may_hold);

/* Shorter deadlines, for tests: a session's idleness, a stream's stall,
 * the keep-alive of an open stream. */
void              _lumo_gateway_http_set_deadlines   (LumoGatewayHttp   *self,
                                                      guint              session_idle_ms,
                                                      guint              stall_timeout_ms,
                                                      guint              keepalive_ms);
LumoGatewayListener *_lumo_gateway_http_get_listener (LumoGatewayHttp   *self);

G_END_DECLS
