/* lumo-access-host.c — the native-messaging helper Chrome starts
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Chrome starts this binary for the native host dev.lumo.access with the
 * provider's origin as argv[1]. It owns nothing but the hand-over: it checks
 * the origin, passes its own stdin and stdout to the running Lumo Access app
 * over the session bus (Attach on dev.lumo.Access.Bridge; the bus starts the
 * app if needed) and waits, without a timeout, until the app answers that
 * the session ended. It never reads or writes the pipes itself, with one
 * exception: when the app cannot be reached at all it writes a single
 * native-messaging error frame, so the provider can tell the person why.
 *
 * Exit status: 0 when the session ended normally, 1 otherwise.
 */
#define G_LOG_DOMAIN "lumo-access-host"

#include "config.h"

#include <errno.h>
#include <gio/gio.h>
#include <gio/gunixfdlist.h>
#include <locale.h>
#include <signal.h>
#include <unistd.h>

#include "lumo-bridge-message.h"
#include "lumo-dbus.h"
#include "lumo-frame.h"
#include "lumo-protocol.h"

static void
write_all (int          fd,
           const void  *data,
           gsize        len)
{
  const guint8 *p = data;

  while (len > 0)
    {
      gssize n = write (fd, p, len);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return;
      p += n;
      len -= n;
    }
}

/* The one frame this process ever writes: Chrome hands it to the provider,
 * which shows the message to the person. */
static void
write_unavailable_frame (const char *message)
{
  g_autoptr(JsonObject) object = lumo_bridge_build_unavailable (message);
  g_autoptr(GBytes) frame = lumo_frame_encode (object, LUMO_FRAME_MAX_OUT, NULL);

  if (frame != NULL)
    write_all (STDOUT_FILENO, g_bytes_get_data (frame, NULL), g_bytes_get_size (frame));
}

static int
unavailable (const char   *message,
             const GError *error)
{
  g_printerr ("lumo-access-host: %s (%s)\n", message, error->message);
  write_unavailable_frame (message);
  return 1;
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GDBusConnection) bus = NULL;
  g_autoptr(GUnixFDList) fd_list = NULL;
  g_autoptr(GVariant) reply = NULL;
  g_autofree char *provider_id = NULL;
  const char *reason = NULL;
  int stdin_index;
  int stdout_index;

  setlocale (LC_ALL, "");

  /* Only the unavailable frame writes to stdout; if Chrome is gone by
   * then, that write must fail quietly. */
  signal (SIGPIPE, SIG_IGN);

  /* Chrome passes the origin first; on some platforms it adds
   * --parent-window=… after it, which we ignore. */
  if (argc < 2)
    {
      g_printerr ("lumo-access-host: started without a caller origin; this program "
                  "is started by the browser for the native host dev.lumo.access\n");
      return 1;
    }

  if (!(provider_id = lumo_extension_id_from_origin (argv[1], &error)))
    {
      g_printerr ("lumo-access-host: refusing to start: %s\n", error->message);
      return 1;
    }

  if (!(bus = lumo_dbus_get_session_bus (&error)))
    return unavailable ("Lumo Access cannot be reached: there is no desktop session bus. "
                        "Start Lumo Access from your desktop session and reconnect the extension.",
                        error);

  fd_list = g_unix_fd_list_new ();
  if ((stdin_index = g_unix_fd_list_append (fd_list, STDIN_FILENO, &error)) < 0 ||
      (stdout_index = g_unix_fd_list_append (fd_list, STDOUT_FILENO, &error)) < 0)
    {
      g_printerr ("lumo-access-host: cannot pass the browser pipes on: %s\n", error->message);
      return 1;
    }

  /* No timeout: the answer comes when the session ends, which may be days
   * later. Auto-start lets the bus start the app in service mode. */
  reply = g_dbus_connection_call_with_unix_fd_list_sync (bus,
                                                         lumo_dbus_get_name (),
                                                         lumo_dbus_get_object_path (),
                                                         lumo_dbus_get_bridge_interface (),
                                                         "Attach",
                                                         g_variant_new ("(hhs)",
                                                                        stdin_index,
                                                                        stdout_index,
                                                                        argv[1]),
                                                         G_VARIANT_TYPE ("(s)"),
                                                         G_DBUS_CALL_FLAGS_NONE,
                                                         G_MAXINT,
                                                         fd_list,
                                                         NULL,
                                                         NULL,
                                                         &error);
  if (reply == NULL)
    {
      if (g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED))
        return unavailable ("Lumo Access refused this helper: it accepts only the helper "
                            "installed with it. Reinstall Lumo Access, then reconnect the extension.",
                            error);
      if (lumo_dbus_error_is_unreachable (error))
        return unavailable ("Lumo Access could not be started. Check that it is installed, "
                            "then reconnect the extension.",
                            error);

      /* The app had the pipes (it died or refused mid-session): whatever it
       * wrote is on stdout already, and a frame from us could land in the
       * middle of one of its frames. */
      g_printerr ("lumo-access-host: the session ended abnormally: %s\n", error->message);
      return 1;
    }

  g_variant_get (reply, "(&s)", &reason);
  if (g_strcmp0 (reason, "closed") != 0)
    {
      g_printerr ("lumo-access-host: the session ended: %s\n", reason);
      return 1;
    }

  return 0;
}
