/* lumo-test-bus.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-test-bus"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gunixinputstream.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "lumo-test.h"
#include "lumo-test-bus.h"

struct _LumoTestBus
{
  char            *dir;
  char            *data_home;
  char            *runtime_dir;
  char           **env;           /* activation environment, and helpers' */
  GSubprocess     *daemon;
  char            *address;
  GDBusConnection *connection;
};

static const char *
required_env (const char *name)
{
  const char *value = g_getenv (name);

  if (value == NULL || *value == '\0')
    g_error ("%s is not set; run this test through meson test", name);

  return value;
}

const char *
lumo_test_app_path (void)
{
  return required_env ("LUMO_TEST_APP");
}

const char *
lumo_test_host_path (void)
{
  return required_env ("LUMO_TEST_HOST");
}

const char *
lumo_test_ctl_path (void)
{
  return required_env ("LUMO_TEST_CTL");
}

gboolean
lumo_test_can_run (char **reason)
{
  if (g_getenv ("DISPLAY") == NULL && g_getenv ("WAYLAND_DISPLAY") == NULL)
    {
      *reason = g_strdup ("no display: run under xvfb-run (tools/check.sh does)");
      return FALSE;
    }

  if (!g_file_test ("/usr/bin/dbus-daemon", G_FILE_TEST_IS_EXECUTABLE) &&
      g_find_program_in_path ("dbus-daemon") == NULL)
    {
      *reason = g_strdup ("dbus-daemon is not installed");
      return FALSE;
    }

  return TRUE;
}

static char *
make_dir (const char *parent,
          const char *name)
{
  lumo_test_mkdir_in (parent, name);
  return g_build_filename (parent, name, NULL);
}

/* A test that fails aborts without tearing down: the bus must not outlive
 * it, and the app goes with the bus (it quits when its connection closes). */
static void
die_with_parent (gpointer user_data)
{
  prctl (PR_SET_PDEATHSIG, SIGTERM);
}

LumoTestBus *
lumo_test_bus_new (const char         *exec_override,
                   const char * const *extra_env)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GInputStream) address_stream = NULL;
  g_autoptr(GDataInputStream) address_reader = NULL;
  g_autofree char *services = NULL;
  g_autofree char *config_path = NULL;
  g_autofree char *config = NULL;
  g_autofree char *service = NULL;
  g_autofree char *exec = NULL;
  g_autofree char *config_home = NULL;
  g_autofree char *cache_home = NULL;
  g_autofree char *state_home = NULL;
  g_autofree char *address = NULL;
  LumoTestBus *bus;
  int pipe_fds[2];

  bus = g_new0 (LumoTestBus, 1);
  bus->dir = lumo_test_dir_new ("integration");

  bus->data_home = make_dir (bus->dir, "data");
  bus->runtime_dir = make_dir (bus->dir, "runtime");
  config_home = make_dir (bus->dir, "config");
  cache_home = make_dir (bus->dir, "cache");
  state_home = make_dir (bus->dir, "state");
  services = make_dir (bus->dir, "services");

  /* The bus config of a session bus, minus every system location: only our
   * services dir, so nothing but the app under test can be activated. */
  config = g_markup_printf_escaped (
    "<!DOCTYPE busconfig PUBLIC \"-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN\"\n"
    " \"http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd\">\n"
    "<busconfig>\n"
    "  <type>session</type>\n"
    "  <keep_umask/>\n"
    "  <listen>unix:dir=%s</listen>\n"
    "  <auth>EXTERNAL</auth>\n"
    "  <servicedir>%s</servicedir>\n"
    "  <policy context=\"default\">\n"
    "    <allow send_destination=\"*\" eavesdrop=\"true\"/>\n"
    "    <allow eavesdrop=\"true\"/>\n"
    "    <allow own=\"*\"/>\n"
    "  </policy>\n"
    "  <limit name=\"service_start_timeout\">60000</limit>\n"
    "</busconfig>\n",
    bus->runtime_dir, services);
  lumo_test_write_in (bus->dir, "bus.conf", config);
  config_path = g_build_filename (bus->dir, "bus.conf", NULL);

  if (exec_override != NULL)
    exec = g_strdup (exec_override);
  else
    exec = g_strdup_printf ("%s --gapplication-service", lumo_test_app_path ());
  service = g_strdup_printf ("[D-BUS Service]\nName=%s\nExec=%s\n", APP_ID, exec);
  lumo_test_write_in (services, APP_ID ".service", service);

  /* The daemon's environment is what activated services get. */
  bus->env = g_get_environ ();
  bus->env = g_environ_unsetenv (bus->env, "DBUS_SESSION_BUS_ADDRESS");
  bus->env = g_environ_unsetenv (bus->env, "LUMO_ACCESS_DATA_DIR");
  bus->env = g_environ_setenv (bus->env, "XDG_DATA_HOME", bus->data_home, TRUE);
  bus->env = g_environ_setenv (bus->env, "XDG_CONFIG_HOME", config_home, TRUE);
  bus->env = g_environ_setenv (bus->env, "XDG_CACHE_HOME", cache_home, TRUE);
  bus->env = g_environ_setenv (bus->env, "XDG_STATE_HOME", state_home, TRUE);
  bus->env = g_environ_setenv (bus->env, "XDG_RUNTIME_DIR", bus->runtime_dir, TRUE);
  bus->env = g_environ_setenv (bus->env, "GSETTINGS_BACKEND", "memory", TRUE);
  bus->env = g_environ_setenv (bus->env, "NO_AT_BRIDGE", "1", TRUE);
  bus->env = g_environ_setenv (bus->env, "GTK_A11Y", "none", TRUE);
  for (guint i = 0; extra_env != NULL && extra_env[i] != NULL; i++)
    {
      g_auto(GStrv) pair = g_strsplit (extra_env[i], "=", 2);

      g_assert_nonnull (pair[1]);
      bus->env = g_environ_setenv (bus->env, pair[0], pair[1], TRUE);
    }

  /* The address comes on fd 3: the daemon's stdout must stay off the TAP
   * stream. */
  g_assert_cmpint (pipe (pipe_fds), ==, 0);
  g_assert_cmpint (fcntl (pipe_fds[0], F_SETFD, FD_CLOEXEC), ==, 0);

  /* The daemon's stdout (and the app's, which inherits it: GLib writes
   * debug messages there) goes to our stderr, into the test log. */
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);
  g_subprocess_launcher_take_stdout_fd (launcher, dup (STDERR_FILENO));
  g_subprocess_launcher_set_environ (launcher, bus->env);
  g_subprocess_launcher_take_fd (launcher, pipe_fds[1], 3);
  g_subprocess_launcher_set_child_setup (launcher, die_with_parent, NULL, NULL);
  bus->daemon = g_subprocess_launcher_spawn (launcher, &error,
                                             "dbus-daemon",
                                             "--config-file", config_path,
                                             "--nofork",
                                             "--nopidfile",
                                             "--print-address=3",
                                             NULL);
  g_assert_no_error (error);
  /* Our copy of the write end must go, or EOF never comes. */
  g_clear_object (&launcher);

  address_stream = g_unix_input_stream_new (pipe_fds[0], TRUE);
  address_reader = g_data_input_stream_new (address_stream);
  address = g_data_input_stream_read_line (address_reader, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (address);
  bus->address = g_strdup (g_strstrip (address));

  bus->connection = g_dbus_connection_new_for_address_sync (bus->address,
                                                            G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
                                                            G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
                                                            NULL, NULL, &error);
  g_assert_no_error (error);
  g_dbus_connection_set_exit_on_close (bus->connection, FALSE);

  bus->env = g_environ_setenv (bus->env, "DBUS_SESSION_BUS_ADDRESS", bus->address, TRUE);

  return bus;
}

const char *
lumo_test_bus_get_address (LumoTestBus *bus)
{
  return bus->address;
}

GDBusConnection *
lumo_test_bus_get_connection (LumoTestBus *bus)
{
  return bus->connection;
}

const char *
lumo_test_bus_get_dir (LumoTestBus *bus)
{
  return bus->dir;
}

const char *
lumo_test_bus_get_data_home (LumoTestBus *bus)
{
  return bus->data_home;
}

char **
lumo_test_bus_get_env (LumoTestBus *bus)
{
  return g_strdupv (bus->env);
}

GPid
lumo_test_bus_get_app_pid (LumoTestBus *bus)
{
  g_autoptr(GVariant) reply = NULL;
  guint32 pid = 0;

  reply = g_dbus_connection_call_sync (bus->connection,
                                       "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                       "org.freedesktop.DBus", "GetConnectionUnixProcessID",
                                       g_variant_new ("(s)", APP_ID),
                                       G_VARIANT_TYPE ("(u)"),
                                       G_DBUS_CALL_FLAGS_NONE, -1, NULL, NULL);
  if (reply != NULL)
    g_variant_get (reply, "(u)", &pid);

  return (GPid) pid;
}

guint
lumo_test_bus_get_sessions (LumoTestBus *bus)
{
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GVariant) value = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_strconcat ("/", APP_ID, NULL);

  g_strdelimit (path, ".", '/');
  reply = g_dbus_connection_call_sync (bus->connection, APP_ID, path,
                                       "org.freedesktop.DBus.Properties", "Get",
                                       g_variant_new ("(ss)", "dev.lumo.Access.Bridge", "Sessions"),
                                       G_VARIANT_TYPE ("(v)"),
                                       G_DBUS_CALL_FLAGS_NO_AUTO_START, 10000, NULL, &error);
  g_assert_no_error (error);
  g_variant_get (reply, "(v)", &value);

  return g_variant_get_uint32 (value);
}

/* A process that is gone, or a zombie nobody reaped yet, no longer runs. */
static gboolean
process_is_gone (gpointer user_data)
{
  GPid pid = GPOINTER_TO_INT (user_data);
  g_autofree char *path = g_strdup_printf ("/proc/%d/stat", (int) pid);
  g_autofree char *stat = NULL;
  const char *state;

  if (!g_file_get_contents (path, &stat, NULL, NULL))
    return TRUE;

  state = strrchr (stat, ')');
  return state != NULL && (state[2] == 'Z' || state[2] == 'X');
}

static gboolean
daemon_exited (gpointer user_data)
{
  LumoTestBus *bus = user_data;

  return g_subprocess_get_if_exited (bus->daemon) || g_subprocess_get_if_signaled (bus->daemon);
}

typedef struct
{
  LumoTestBus *bus;
  guint        n;
} SessionsWait;

static gboolean
sessions_reached (gpointer user_data)
{
  SessionsWait *wait = user_data;

  return lumo_test_bus_get_sessions (wait->bus) == wait->n;
}

void
lumo_test_bus_wait_for_sessions (LumoTestBus *bus,
                                 guint        n)
{
  SessionsWait wait = { bus, n };
  g_autofree char *what = g_strdup_printf ("%u open sessions", n);

  lumo_test_wait_until (sessions_reached, &wait, what);
}

typedef struct
{
  LumoTestBus *bus;
  GPid         pid;
} AppWait;

static gboolean
app_has_exited (gpointer user_data)
{
  AppWait *wait = user_data;

  return lumo_test_bus_get_app_pid (wait->bus) != wait->pid &&
         process_is_gone (GINT_TO_POINTER (wait->pid));
}

void
lumo_test_bus_wait_for_app_exit (LumoTestBus *bus,
                                 GPid         pid)
{
  AppWait wait = { bus, pid };

  lumo_test_wait_until (app_has_exited, &wait, "the app to exit");
}

void
lumo_test_bus_free (LumoTestBus *bus)
{
  GPid app_pid;

  if (bus == NULL)
    return;

  /* The app first, politely (SIGTERM makes it quit cleanly and answer its
   * helpers), then for sure. */
  if ((app_pid = lumo_test_bus_get_app_pid (bus)) > 0)
    {
      kill (app_pid, SIGTERM);
      if (!lumo_test_try_wait_until (process_is_gone, GINT_TO_POINTER (app_pid), 10000))
        {
          g_test_message ("the app (pid %d) ignored SIGTERM; killing it", (int) app_pid);
          kill (app_pid, SIGKILL);
          lumo_test_wait_until (process_is_gone, GINT_TO_POINTER (app_pid), "the killed app to go");
        }
    }

  g_dbus_connection_close_sync (bus->connection, NULL, NULL);
  g_clear_object (&bus->connection);

  g_subprocess_send_signal (bus->daemon, SIGTERM);
  g_subprocess_wait (bus->daemon, NULL, NULL);
  g_assert_true (daemon_exited (bus));
  g_clear_object (&bus->daemon);

  lumo_test_dir_remove (bus->dir);

  g_free (bus->dir);
  g_free (bus->data_home);
  g_free (bus->runtime_dir);
  g_free (bus->address);
  g_strfreev (bus->env);
  g_free (bus);
}

int
lumo_test_bus_run_ctlv (LumoTestBus  *bus,
                        char        **out,
                        const char   *first_arg,
                        va_list       args)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);

  g_ptr_array_add (argv, (char *) lumo_test_ctl_path ());
  for (const char *arg = first_arg; arg != NULL; arg = va_arg (args, const char *))
    g_ptr_array_add (argv, (char *) arg);
  g_ptr_array_add (argv, NULL);

  g_subprocess_launcher_set_environ (launcher, bus->env);
  return lumo_test_run (launcher, (const char * const *) argv->pdata, NULL, out, NULL);
}

int
lumo_test_bus_run_ctl (LumoTestBus  *bus,
                       char        **out,
                       const char   *first_arg,
                       ...)
{
  va_list args;
  int status;

  va_start (args, first_arg);
  status = lumo_test_bus_run_ctlv (bus, out, first_arg, args);
  va_end (args);

  return status;
}
