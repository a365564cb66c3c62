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
