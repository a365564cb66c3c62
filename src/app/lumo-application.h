/* lumo-application.h — the Lumo Access application object
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoApplication owns the LumoBackend (policy, audit store, review queue,
 * bridge sessions), created in ::startup from the data directory, and the
 * D-Bus service object through which the native-messaging helper hands over
 * its sessions. It runs either with a window (a person started it) or as a
 * window-less service (--gapplication-service, started by the bus for the
 * helper); in service mode it quits a few seconds after the last session.
 *
 * It also owns the desktop agents' LumoGateway and its HTTP endpoint, and
 * follows the desktop-agents and desktop-agents-port keys: on, the gateway
 * takes sessions and the endpoint listens (and the app stays up while it
 * does); off, both stop and every agent session ends.
 */
#pragma once

#include <adwaita.h>

#include "lumo-gateway.h"
#include "lumo-gateway-listener.h"
#include "lumo-types.h"

G_BEGIN_DECLS

#define LUMO_TYPE_APPLICATION (lumo_application_get_type ())
G_DECLARE_FINAL_TYPE (LumoApplication, lumo_application, LUMO, APPLICATION, AdwApplication)

LumoApplication *lumo_application_new         (void);
/* NULL before ::startup, or when the data store could not be opened (then
 * lumo_application_get_startup_error() says why). */
LumoBackend     *lumo_application_get_backend       (LumoApplication *self);
const GError    *lumo_application_get_startup_error (LumoApplication *self);
/* NULL before ::startup or without a backend. */
LumoGateway     *lumo_application_get_gateway       (LumoApplication *self);
/* The "desktop-agents-state" property, for the UI to show beside the port. */
LumoGatewayListenerState lumo_application_get_desktop_agents_state (LumoApplication *self);

G_END_DECLS
