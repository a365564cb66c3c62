/* lumo-gateway-listener-private.h — the listener's bounds, for tests
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#ifndef LUMO_CORE_COMPILATION
# error "lumo-gateway-listener-private.h is for src/core and its tests only"
#endif

#include "lumo-gateway-listener.h"

G_BEGIN_DECLS

/* Lower bounds, so that a test sees a timeout or an eviction without
 * waiting half a minute or opening hundreds of connections. */
void   _lumo_gateway_listener_set_limits    (LumoGatewayListener *self,
                                             guint                max_connections,
                                             guint                request_timeout_ms);
/* Connections accepted since the listener was made (a test's condition). */
guint  _lumo_gateway_listener_get_n_accepted (LumoGatewayListener *self);
/* Open connections whose socket sends at once (TCP_NODELAY). */
guint  _lumo_gateway_listener_get_n_nodelay  (LumoGatewayListener *self);
/* Request timers armed now: none while no connection waits. */
guint  _lumo_gateway_listener_get_n_timers   (LumoGatewayListener *self);

G_END_DECLS
