/* lumo-gateway-listener.h — the desktop agents' endpoint's sockets
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoGatewayListener owns the loopback sockets of the endpoint (127.0.0.1
 * and ::1 on one port, nothing else), every connection accepted on them,
 * and the SoupServer each is handed to with soup_server_accept_iostream().
 * Accepting the connections itself, not through soup_server_listen(), is
 * what lets the app count them and bound them: at most
 * LUMO_GATEWAY_LISTENER_MAX_CONNECTIONS are open, a connection must bring
 * a whole request within LUMO_GATEWAY_LISTENER_REQUEST_TIMEOUT_S of
 * starting to wait for it (an idle keep-alive, or a client that sends its
 * headers a byte at a time), and when the endpoint is full the connection
 * that has waited longest for a request gives its place to the new one,
 * so a flood of idle connections cannot hold the app's descriptors or
 * keep a real client out. Connections whose answer is still being written
 * (an SSE stream) are never timed out or evicted here: their bound is the
 * bytes they leave unread (LumoGatewayHttp cuts them).
 *
 * It knows nothing of MCP: LumoGatewayHttp adds the handlers. No timer
 * runs while no connection is open.
 */
#pragma once

#include <libsoup/soup.h>

#include "lumo-types.h"

G_BEGIN_DECLS

#define LUMO_GATEWAY_LISTENER_MAX_CONNECTIONS   128
#define LUMO_GATEWAY_LISTENER_REQUEST_TIMEOUT_S 30

/* What the UI shows next to the port. */
typedef enum
{
  LUMO_GATEWAY_LISTENER_OFF,
  LUMO_GATEWAY_LISTENER_LISTENING,
  LUMO_GATEWAY_LISTENER_PORT_IN_USE,  /* another program has the port */
  LUMO_GATEWAY_LISTENER_FAILED,       /* any other reason it cannot listen */
} LumoGatewayListenerState;

#define LUMO_TYPE_GATEWAY_LISTENER_STATE (lumo_gateway_listener_state_get_type ())
GType lumo_gateway_listener_state_get_type (void) G_GNUC_CONST;

#define LUMO_TYPE_GATEWAY_LISTENER (lumo_gateway_listener_get_type ())
G_DECLARE_FINAL_TYPE (LumoGatewayListener, lumo_gateway_listener, LUMO, GATEWAY_LISTENER, GObject)

LumoGatewayListener      *lumo_gateway_listener_new             (void);
/* The server the connections go to (owned by the listener). */
SoupServer               *lumo_gateway_listener_get_server      (LumoGatewayListener  *self);

/* Listens on 127.0.0.1:@port and [::1]:@port (only on 127.0.0.1 where
 * the machine has no IPv6); @port 0 picks a free port (tests). Stops a
 * listening one first. On failure the state says why (PORT_IN_USE with
 * G_IO_ERROR_ADDRESS_IN_USE, else FAILED) and nothing listens. */
gboolean                  lumo_gateway_listener_start           (LumoGatewayListener  *self,
                                                                 guint                 port,
                                                                 GError              **error);
/* Closes the sockets and cuts every connection; the state becomes OFF. */
void                      lumo_gateway_listener_stop            (LumoGatewayListener  *self);
LumoGatewayListenerState  lumo_gateway_listener_get_state       (LumoGatewayListener  *self);
/* The port listened on, or asked for when the start failed; 0 when off. */
guint                     lumo_gateway_listener_get_port        (LumoGatewayListener  *self);
/* Connections open now (not yet closed by the server). */
guint                     lumo_gateway_listener_get_n_connections (LumoGatewayListener *self);

/* Cuts the connection @msg came on (a client that does not read what is
 * written to it): its socket is shut down both ways, so the server sees
 * the end at once and closes it. The caller ends its own paused message. */
void                      lumo_gateway_listener_cut             (LumoGatewayListener  *self,
                                                                 SoupServerMessage    *msg);

/* Properties: "state" (LumoGatewayListenerState), "port" (guint), both
 * notified. */

G_END_DECLS
