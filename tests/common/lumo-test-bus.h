/* lumo-test-bus.h — a private session bus with the app as an activatable service
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoTestBus owns one temporary directory (data, config, cache, runtime
 * dirs and a services dir), a dbus-daemon --session started on it with its
 * own config, and the test's connection to it. The generated
 * dev.lumo.Access.service starts the app under test
 * (`lumo-access --gapplication-service`) by activation; the daemon's
 * environment is the activation environment, so the app sees the test's
 * XDG_DATA_HOME, DISPLAY and GSETTINGS_BACKEND=memory.
 *
 * lumo_test_bus_free() kills whatever owns the app's name, then the bus,
 * then removes the directory: a test leaves no process behind.
 */
#pragma once

#include <gio/gio.h>
#include <stdarg.h>

G_BEGIN_DECLS

typedef struct _LumoTestBus LumoTestBus;

/* Paths of the binaries under test, from the environment meson sets
 * (LUMO_TEST_APP, LUMO_TEST_HOST, LUMO_TEST_CTL). */
const char      *lumo_test_app_path          (void);
const char      *lumo_test_host_path         (void);
const char      *lumo_test_ctl_path          (void);

/* FALSE (and a reason for g_test_skip) when there is no display. */
gboolean         lumo_test_can_run           (char           **reason);

/* @exec_override: the service file's Exec= line, or NULL for the real app.
 * @extra_env: NULL-terminated "NAME=value" pairs for the activation
 * environment (e.g. LUMO_ACCESS_REVIEW_TIMEOUT_S=1). */
LumoTestBus     *lumo_test_bus_new           (const char      *exec_override,
                                              const char * const *extra_env);
void             lumo_test_bus_free          (LumoTestBus     *bus);

const char      *lumo_test_bus_get_address   (LumoTestBus     *bus);
GDBusConnection *lumo_test_bus_get_connection(LumoTestBus     *bus);
/* The root of the temporary directory, and XDG_DATA_HOME in it. */
const char      *lumo_test_bus_get_dir       (LumoTestBus     *bus);
const char      *lumo_test_bus_get_data_home (LumoTestBus     *bus);
/* The environment for the helper and the CLI: the test's own, with the
 * private bus and the test's XDG directories. */
char           **lumo_test_bus_get_env       (LumoTestBus     *bus);

/* The pid of the process owning the app's name, 0 when nobody owns it. */
GPid             lumo_test_bus_get_app_pid   (LumoTestBus     *bus);
/* The app's Sessions property (number of open bridge sessions). */
guint            lumo_test_bus_get_sessions  (LumoTestBus     *bus);
/* Iterates the main context until the app has @n sessions open. */
void             lumo_test_bus_wait_for_sessions (LumoTestBus *bus,
                                              guint            n);
/* Iterates the main context until @pid no longer owns the app's name and
 * no longer runs. */
void             lumo_test_bus_wait_for_app_exit (LumoTestBus *bus,
                                              GPid             pid);

/* Runs lumo-access-ctl with the arguments (without the program name, up
 * to a NULL) against the test's data and bus; returns its exit status and
 * its stdout in @out (optional). */
int              lumo_test_bus_run_ctl       (LumoTestBus     *bus,
                                              char           **out,
                                              const char      *first_arg,
                                              ...) G_GNUC_NULL_TERMINATED;
int              lumo_test_bus_run_ctlv      (LumoTestBus     *bus,
                                              char           **out,
                                              const char      *first_arg,
                                              va_list          args);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (LumoTestBus, lumo_test_bus_free)

G_END_DECLS
