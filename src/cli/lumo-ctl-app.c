/* lumo-ctl-app.c — calling the running app over the session bus
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What lives only in the running app (review requests, the servers the
 * connected providers recommend) is asked for over dev.lumo.Access.Bridge
 * (src/dbus/dev.lumo.Access.xml). The app is never started for it — a
 * freshly started one has nothing of the kind — and a CLI that finds it
 * not running, too old or silent says so in a sentence, exit 1.
 */
#define G_LOG_DOMAIN "lumo-access-ctl"

#include "config.h"

#include <gio/gio.h>
#include <glib/gi18n-lib.h>

#include "lumo-ctl.h"
#include "lumo-dbus.h"

#define CALL_TIMEOUT_MS  10000

static gboolean
is_not_running (const GError *error)
{
  return g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_SERVICE_UNKNOWN) ||
         g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_NAME_HAS_NO_OWNER);
}

static gboolean
is_missing_method (const GError *error)
{
  return g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_METHOD) ||
         g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_OBJECT) ||
         g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_INTERFACE);
}

GVariant *
lumo_ctl_call_app (const char         *method,
                   GVariant           *parameters,
                   const GVariantType *reply_type,
                   const char         *not_running,
                   int                *exit_code)
{
  g_autoptr(GVariant) owned_parameters = parameters ? g_variant_ref_sink (parameters) : NULL;
  g_autoptr(GDBusConnection) bus = NULL;
  g_autoptr(GError) error = NULL;
  GVariant *reply;

  *exit_code = LUMO_CTL_EXIT_FAIL;

  if (!(bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, &error)))
    {
      g_printerr ("lumo-access-ctl: %s\n", not_running);
      g_printerr ("lumo-access-ctl: %s: %s\n", _("There is no session bus"), error->message);
      return NULL;
    }

  /* A development build (dev.lumo.Access.Devel) has its own name and path. */
  reply = g_dbus_connection_call_sync (bus, lumo_dbus_get_name (), lumo_dbus_get_object_path (),
                                       lumo_dbus_get_bridge_interface (), method,
                                       owned_parameters, reply_type,
                                       G_DBUS_CALL_FLAGS_NO_AUTO_START, CALL_TIMEOUT_MS,
                                       NULL, &error);
  if (reply != NULL)
    {
      *exit_code = LUMO_CTL_EXIT_OK;
      return reply;
    }

  if (is_not_running (error))
    {
      g_printerr ("lumo-access-ctl: %s\n", not_running);
    }
  else if (is_missing_method (error))
    {
      g_printerr ("lumo-access-ctl: ");
      g_printerr (_("The running Lumo Access does not offer %s; is it an older version?"), method);
      g_printerr ("\n");
    }
  else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT))
    {
      g_printerr ("lumo-access-ctl: ");
      g_printerr (_("Lumo Access did not answer within %d seconds"), CALL_TIMEOUT_MS / 1000);
      g_printerr ("\n");
    }
  else
    {
      /* The app's own message (e.g. no such review), without the
       * "GDBus.Error:dev.lumo.Access.Error.NotFound: " prefix. */
      g_dbus_error_strip_remote_error (error);
      g_printerr ("lumo-access-ctl: %s\n", error->message);
    }

  return NULL;
}
