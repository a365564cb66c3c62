/* lumo-dbus-service.h — the dev.lumo.Access.Bridge D-Bus object
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoDBusService owns the exported dev.lumo.Access.Bridge skeleton
 * (dev.lumo.Access.xml) and the method calls in flight: every Attach call
 * stays unanswered while its bridge session runs, and every AttachAgent
 * call while its desktop agent's stdio session runs; each is answered with
 * the reason when the session ends. It borrows the backend from its
 * LumoBackendGetter at call time, because the object is exported in
 * GApplication::dbus_register, before ::startup has created the backend.
 *
 * Every method asks first who called (lumo-peer.h): a sandboxed app may
 * not list or decide reviews, and only the helper of this installation may
 * attach; a refused call gets org.freedesktop.DBus.Error.AccessDenied and
 * is logged.
 *
 * ::session-started and ::session-ended let the application hold itself
 * while sessions run.
 */
#pragma once

#include <gio/gio.h>

#include "lumo-gateway.h"
#include "lumo-types.h"

G_BEGIN_DECLS

/* Returns the backend (borrowed), or NULL and @error when there is none. */
typedef LumoBackend *(*LumoBackendGetter) (gpointer   user_data,
                                           GError   **error);

#define LUMO_TYPE_DBUS_SERVICE (lumo_dbus_service_get_type ())
G_DECLARE_FINAL_TYPE (LumoDBusService, lumo_dbus_service, LUMO, DBUS_SERVICE, GObject)

LumoDBusService *lumo_dbus_service_new            (LumoBackendGetter  getter,
                                                   gpointer           user_data);
gboolean         lumo_dbus_service_export         (LumoDBusService   *self,
                                                   GDBusConnection   *connection,
                                                   const char        *object_path,
                                                   GError           **error);
void             lumo_dbus_service_unexport       (LumoDBusService   *self);
/* The gateway AttachAgent opens desktop agents' sessions with (set at
 * ::startup, like the backend; NULL refuses them as unavailable). */
void             lumo_dbus_service_set_gateway    (LumoDBusService   *self,
                                                   LumoGateway       *gateway);
guint            lumo_dbus_service_get_n_sessions (LumoDBusService   *self);
/* Ends every open session now and answers its helper with @reason (the
 * app is quitting). */
void             lumo_dbus_service_end_all        (LumoDBusService   *self,
                                                   const char        *reason);
/* Where peers (and this process) are looked up: NULL for /proc; tests
 * pass a fake one (see lumo-peer.h). */
void             lumo_dbus_service_set_proc_root  (LumoDBusService   *self,
                                                   const char        *proc_root);

G_END_DECLS
