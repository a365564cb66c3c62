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
 */
#pragma once

#include <adwaita.h>

#include "lumo-types.h"

G_BEGIN_DECLS

#define LUMO_TYPE_APPLICATION (lumo_application_get_type ())
G_DECLARE_FINAL_TYPE (LumoApplication, lumo_application, LUMO, APPLICATION, AdwApplication)

LumoApplication *lumo_application_new         (void);
/* NULL before ::startup, or when the data store could not be opened (then
 * lumo_application_get_startup_error() says why). */
LumoBackend     *lumo_application_get_backend       (LumoApplication *self);
const GError    *lumo_application_get_startup_error (LumoApplication *self);

G_END_DECLS
