/* lumo-dbus.h — where the app, the CLI and the helper meet on the bus
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The interface itself is dev.lumo.Access.xml, compiled by gdbus-codegen
 * into lumo-dbus-generated.h (LumoDBusBridge: skeleton and proxy). This
 * header adds what the XML cannot say: the bus name (the application ID,
 * so a development build has its own) and the object path GApplication
 * exports the application at.
 */
#pragma once

#include <gio/gio.h>

#include "lumo-dbus-generated.h"

G_BEGIN_DECLS

/* The well-known name the app owns, and the bus starts it for. */
const char *lumo_dbus_get_name             (void);
/* The application's object path, derived from the name as GApplication
 * derives it ("/dev/lumo/Access"). */
const char *lumo_dbus_get_object_path      (void);
/* The interface the helper and the CLI call and the app exports, as the
 * XML names it ("dev.lumo.Access.Bridge"). */
const char *lumo_dbus_get_bridge_interface (void);

/* The session bus, for the programs Chrome and MCP clients start: like
 * g_bus_get_sync (G_BUS_TYPE_SESSION), but never autolaunches a bus with
 * dbus-launch (an app started on a private bus of our own would be cut
 * off from the desktop, and the bus would outlive us). */
GDBusConnection *lumo_dbus_get_session_bus      (GError       **error);
/* TRUE for the errors of a call that mean nothing of the app ever ran for
 * it (no app to start, no such method, the app refused the caller before
 * it took the pipes): the caller's stdout is still its own to write on. */
gboolean         lumo_dbus_error_is_unreachable (const GError  *error);

G_END_DECLS
