/* lumo-dbus.c — the app's bus name, object path and interface name
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-dbus"

#include "config.h"

#include "lumo-dbus.h"

const char *
lumo_dbus_get_name (void)
{
  return APP_ID;
}

const char *
lumo_dbus_get_object_path (void)
{
  static gsize path;

  if (g_once_init_enter (&path))
    {
      char *p = g_strconcat ("/", APP_ID, NULL);

      /* GApplication's rule: dots become slashes, dashes underscores. */
      g_strdelimit (p, ".", '/');
      g_strdelimit (p, "-", '_');
      g_once_init_leave (&path, (gsize) p);
    }
  return (const char *) path;
}

const char *
lumo_dbus_get_bridge_interface (void)
{
  return lumo_dbus_bridge_interface_info ()->name;
}

GDBusConnection *
lumo_dbus_get_session_bus (GError **error)
{
  const char *address = g_getenv ("DBUS_SESSION_BUS_ADDRESS");
  g_autofree char *user_bus = NULL;
  g_autofree char *user_address = NULL;
  g_autofree char *escaped = NULL;

  if (address == NULL || *address == '\0')
    {
      user_bus = g_build_filename (g_get_user_runtime_dir (), "bus", NULL);
      if (!g_file_test (user_bus, G_FILE_TEST_EXISTS))
        {
          g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                               "DBUS_SESSION_BUS_ADDRESS is not set and there is no "
                               "user bus socket");
          return NULL;
        }
      escaped = g_dbus_address_escape_value (user_bus);
      user_address = g_strdup_printf ("unix:path=%s", escaped);
      address = user_address;
    }

  return g_dbus_connection_new_for_address_sync (address,
                                                 G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
                                                 G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
                                                 NULL, NULL, error);
}

gboolean
lumo_dbus_error_is_unreachable (const GError *error)
{
  if (error->domain != G_DBUS_ERROR)
    return FALSE;

  switch (error->code)
    {
    case G_DBUS_ERROR_SERVICE_UNKNOWN:
    case G_DBUS_ERROR_NAME_HAS_NO_OWNER:
    case G_DBUS_ERROR_SPAWN_EXEC_FAILED:
    case G_DBUS_ERROR_SPAWN_FORK_FAILED:
    case G_DBUS_ERROR_SPAWN_CHILD_EXITED:
    case G_DBUS_ERROR_SPAWN_CHILD_SIGNALED:
    case G_DBUS_ERROR_SPAWN_FAILED:
    case G_DBUS_ERROR_SPAWN_SETUP_FAILED:
    case G_DBUS_ERROR_SPAWN_CONFIG_INVALID:
    case G_DBUS_ERROR_SPAWN_SERVICE_INVALID:
    case G_DBUS_ERROR_SPAWN_SERVICE_NOT_FOUND:
    case G_DBUS_ERROR_SPAWN_PERMISSIONS_INVALID:
    case G_DBUS_ERROR_SPAWN_FILE_INVALID:
    case G_DBUS_ERROR_SPAWN_NO_MEMORY:
    case G_DBUS_ERROR_UNKNOWN_METHOD:
    case G_DBUS_ERROR_UNKNOWN_OBJECT:
    case G_DBUS_ERROR_UNKNOWN_INTERFACE:
    /* The app refused the caller before it took the pipes. */
    case G_DBUS_ERROR_ACCESS_DENIED:
      return TRUE;
    default:
      return FALSE;
    }
}
