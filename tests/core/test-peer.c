/* test-peer.c — who may decide and who may attach, from a fake /proc
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The peer rules read .flatpak-info in /proc/PID/root, /proc/PID/cgroup,
 * /proc/PID/attr/current and /proc/PID/exe under an injectable root, so a
 * Flatpak app, a Snap and a stranger's program are directories here.
 */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "lumo-error.h"
#include "lumo-peer.h"
#include "lumo-test.h"

#define APP_EXE_BUILD    BUILD_ROOT "/src/app/lumo-access"
#define HELPER_BUILD     BUILD_ROOT "/src/host/lumo-access-host"

typedef struct
{
  char *root;
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  f->root = lumo_test_dir_new ("proc");
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  lumo_test_dir_remove (f->root);
  g_free (f->root);
}

/* A process @pid in the fake /proc: its root directory, optionally a
 * .flatpak-info, a cgroup file and an exe link. */
static void
add_process (Fixture    *f,
             guint32     pid,
             const char *flatpak_info,
             const char *cgroup,
             const char *exe)
{
  g_autofree char *pid_s = g_strdup_printf ("%u", pid);
  g_autofree char *dir = g_build_filename (f->root, pid_s, NULL);
  g_autofree char *root = g_build_filename (dir, "root", NULL);

  g_assert_cmpint (g_mkdir_with_parents (root, 0700), ==, 0);
  if (flatpak_info != NULL)
    {
      g_autofree char *path = g_build_filename (root, ".flatpak-info", NULL);

      g_assert_true (g_file_set_contents (path, flatpak_info, -1, NULL));
    }
  if (cgroup != NULL)
    {
      g_autofree char *path = g_build_filename (dir, "cgroup", NULL);

      g_assert_true (g_file_set_contents (path, cgroup, -1, NULL));
    }
  if (exe != NULL)
    {
      g_autofree char *path = g_build_filename (dir, "exe", NULL);

      g_assert_cmpint (symlink (exe, path), ==, 0);
    }
}

static void
test_classify (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(LumoPeer) flatpak = NULL;
  g_autoptr(LumoPeer) runtime_only = NULL;
  g_autoptr(LumoPeer) snap_cgroup = NULL;
  g_autoptr(LumoPeer) snap_label = NULL;
  g_autoptr(LumoPeer) plain = NULL;
  g_autoptr(LumoPeer) gone = NULL;
  g_autoptr(LumoPeer) deleted = NULL;

  add_process (f, 100, "[Application]\nname=org.example.Evil\nruntime=runtime/org.gnome.Platform\n",
               NULL, "/app/bin/evil");
  add_process (f, 101, "[Runtime]\nruntime=runtime/org.gnome.Platform\n", NULL, NULL);
  add_process (f, 102, NULL,
               "0::/user.slice/user-1000.slice/user@1000.service/app.slice/snap.evil.evil-1234.scope\n",
               "/snap/evil/1/bin/evil");
  add_process (f, 103, NULL, "0::/user.slice\n", NULL);
  add_process (f, 104, NULL, "0::/user.slice/user-1000.slice/session-2.scope\n", "/usr/bin/python3.11");
  add_process (f, 105, NULL, "0::/\n", HELPER_BUILD " (deleted)");

  flatpak = lumo_peer_new_from_proc (f->root, 100, NULL);
  g_assert_cmpint (flatpak->sandbox, ==, LUMO_PEER_SANDBOX_FLATPAK);
  g_assert_cmpstr (flatpak->app_id, ==, "org.example.Evil");

  /* Sandboxed, with no app ID: it matches nobody. */
  runtime_only = lumo_peer_new_from_proc (f->root, 101, NULL);
  g_assert_cmpint (runtime_only->sandbox, ==, LUMO_PEER_SANDBOX_FLATPAK);
  g_assert_null (runtime_only->app_id);

  snap_cgroup = lumo_peer_new_from_proc (f->root, 102, NULL);
  g_assert_cmpint (snap_cgroup->sandbox, ==, LUMO_PEER_SANDBOX_SNAP);
  g_assert_cmpstr (snap_cgroup->app_id, ==, "evil");

  snap_label = lumo_peer_new_from_proc (f->root, 103, "snap.other.app (enforce)");
  g_assert_cmpint (snap_label->sandbox, ==, LUMO_PEER_SANDBOX_SNAP);
  g_assert_cmpstr (snap_label->app_id, ==, "other");

  plain = lumo_peer_new_from_proc (f->root, 104, "unconfined");
  g_assert_cmpint (plain->sandbox, ==, LUMO_PEER_SANDBOX_NONE);
  g_assert_cmpstr (plain->exe, ==, "/usr/bin/python3.11");

  gone = lumo_peer_new_from_proc (f->root, 999, NULL);
  g_assert_cmpint (gone->sandbox, ==, LUMO_PEER_SANDBOX_UNKNOWN);

  deleted = lumo_peer_new_from_proc (f->root, 105, NULL);
  g_assert_cmpstr (deleted->exe, ==, HELPER_BUILD);
}

static LumoPeer *
peer_of (LumoPeerSandbox  sandbox,
         const char      *app_id,
         const char      *exe)
{
  LumoPeer *peer = g_new0 (LumoPeer, 1);

  peer->pid = 42;
  peer->sandbox = sandbox;
  peer->app_id = g_strdup (app_id);
  peer->exe = g_strdup (exe);
  return peer;
}

static void
assert_refused (gboolean  ok,
                GError  **error)
{
  g_assert_false (ok);
  g_assert_error (*error, LUMO_ERROR, LUMO_ERROR_PERMISSION_DENIED);
  g_clear_error (error);
}

static void
test_may_decide (Fixture       *f,
                 gconstpointer  data)
{
  g_autoptr(LumoPeer) app = peer_of (LUMO_PEER_SANDBOX_NONE, NULL, APP_EXE_BUILD);
  g_autoptr(LumoPeer) flatpak_app = peer_of (LUMO_PEER_SANDBOX_FLATPAK, "dev.lumo.Access", "/app/bin/lumo-access");
  g_autoptr(LumoPeer) cli = peer_of (LUMO_PEER_SANDBOX_NONE, NULL, "/usr/bin/lumo-access-ctl");
  g_autoptr(LumoPeer) evil = peer_of (LUMO_PEER_SANDBOX_FLATPAK, "org.example.Evil", "/app/bin/evil");
  g_autoptr(LumoPeer) nameless = peer_of (LUMO_PEER_SANDBOX_FLATPAK, NULL, NULL);
  g_autoptr(LumoPeer) ours = peer_of (LUMO_PEER_SANDBOX_FLATPAK, "dev.lumo.Access", "/app/bin/lumo-access-ctl");
  g_autoptr(LumoPeer) snap = peer_of (LUMO_PEER_SANDBOX_SNAP, "dev.lumo.Access", NULL);
  g_autoptr(LumoPeer) unseen = peer_of (LUMO_PEER_SANDBOX_UNKNOWN, NULL, NULL);
  g_autoptr(GError) error = NULL;

  /* The CLI and the desktop's notification server are not sandboxed. */
  g_assert_true (lumo_peer_may_decide (cli, app, "dev.lumo.Access", &error));
  g_assert_no_error (error);

  assert_refused (lumo_peer_may_decide (evil, app, "dev.lumo.Access", &error), &error);
  assert_refused (lumo_peer_may_decide (nameless, app, "dev.lumo.Access", &error), &error);
  assert_refused (lumo_peer_may_decide (unseen, app, "dev.lumo.Access", &error), &error);
  /* A Flatpak that calls itself dev.lumo.Access is not this native app. */
  assert_refused (lumo_peer_may_decide (ours, app, "dev.lumo.Access", &error), &error);

  /* Lumo Access in its own Flatpak: its own CLI may, others may not. */
  g_assert_true (lumo_peer_may_decide (ours, flatpak_app, "dev.lumo.Access", &error));
  assert_refused (lumo_peer_may_decide (evil, flatpak_app, "dev.lumo.Access", &error), &error);
  assert_refused (lumo_peer_may_decide (snap, flatpak_app, "dev.lumo.Access", &error), &error);

  /* The refusal says who and why. */
  g_assert_false (lumo_peer_may_decide (evil, app, "dev.lumo.Access", &error));
  g_assert_nonnull (strstr (error->message, "org.example.Evil"));
}

static void
test_helper_for_app (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *installed = lumo_peer_helper_for_app (BINDIR "/lumo-access", &error);
  g_autofree char *built = NULL;
  g_autofree char *elsewhere = NULL;

  g_assert_no_error (error);
  g_assert_true (g_str_has_suffix (installed, "/lumo-access-host"));
  g_assert_true (g_str_has_prefix (installed, LIBEXECDIR) || g_path_is_absolute (installed));

  built = lumo_peer_helper_for_app (APP_EXE_BUILD, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (built, ==, HELPER_BUILD);

  /* An app run from anywhere else (a copy, a test program) names none. */
  elsewhere = lumo_peer_helper_for_app ("/tmp/lumo-access", &error);
  g_assert_null (elsewhere);
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND);
  g_clear_error (&error);
  g_assert_null (lumo_peer_helper_for_app (NULL, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND);
}

static void
test_may_attach (Fixture       *f,
                 gconstpointer  data)
{
  g_autoptr(LumoPeer) app = peer_of (LUMO_PEER_SANDBOX_NONE, NULL, APP_EXE_BUILD);
  g_autoptr(LumoPeer) copied_app = peer_of (LUMO_PEER_SANDBOX_NONE, NULL, "/tmp/lumo-access");
  g_autoptr(LumoPeer) flatpak_app = peer_of (LUMO_PEER_SANDBOX_FLATPAK, "dev.lumo.Access", "/app/bin/lumo-access");
  g_autoptr(LumoPeer) helper = peer_of (LUMO_PEER_SANDBOX_NONE, NULL, HELPER_BUILD);
  g_autoptr(LumoPeer) python = peer_of (LUMO_PEER_SANDBOX_NONE, NULL, "/usr/bin/python3.11");
  g_autoptr(LumoPeer) no_exe = peer_of (LUMO_PEER_SANDBOX_NONE, NULL, NULL);
  g_autoptr(LumoPeer) sandboxed_helper = peer_of (LUMO_PEER_SANDBOX_FLATPAK, "org.example.Evil", HELPER_BUILD);
  g_autoptr(LumoPeer) own_helper = peer_of (LUMO_PEER_SANDBOX_FLATPAK, "dev.lumo.Access", "/app/libexec/lumo-access-host");
  g_autoptr(LumoPeer) unseen = peer_of (LUMO_PEER_SANDBOX_UNKNOWN, NULL, NULL);
  g_autoptr(GError) error = NULL;

  g_assert_true (lumo_peer_may_attach (helper, app, "dev.lumo.Access", &error));
  g_assert_no_error (error);

  assert_refused (lumo_peer_may_attach (python, app, "dev.lumo.Access", &error), &error);
  assert_refused (lumo_peer_may_attach (no_exe, app, "dev.lumo.Access", &error), &error);
  assert_refused (lumo_peer_may_attach (sandboxed_helper, app, "dev.lumo.Access", &error), &error);
  assert_refused (lumo_peer_may_attach (unseen, app, "dev.lumo.Access", &error), &error);
  /* An app that cannot tell its own helper accepts none. */
  assert_refused (lumo_peer_may_attach (helper, copied_app, "dev.lumo.Access", &error), &error);

  /* In its own Flatpak the app sees no other process. */
  g_assert_true (lumo_peer_may_attach (unseen, flatpak_app, "dev.lumo.Access", &error));
  g_assert_true (lumo_peer_may_attach (own_helper, flatpak_app, "dev.lumo.Access", &error));
  assert_refused (lumo_peer_may_attach (sandboxed_helper, flatpak_app, "dev.lumo.Access", &error), &error);
}

/* A desktop agent's launcher: whatever program the user runs may hand a
 * session over (the token decides who the agent is), no other app's
 * sandbox may; in its own Flatpak the app sees no other process. */
static void
test_may_attach_agent (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(LumoPeer) app = peer_of (LUMO_PEER_SANDBOX_NONE, NULL, APP_EXE_BUILD);
  g_autoptr(LumoPeer) flatpak_app = peer_of (LUMO_PEER_SANDBOX_FLATPAK, "dev.lumo.Access", "/app/bin/lumo-access");
  g_autoptr(LumoPeer) launcher = peer_of (LUMO_PEER_SANDBOX_NONE, NULL, "/usr/libexec/lumo-access-mcp");
  g_autoptr(LumoPeer) python = peer_of (LUMO_PEER_SANDBOX_NONE, NULL, "/usr/bin/python3.11");
  g_autoptr(LumoPeer) evil = peer_of (LUMO_PEER_SANDBOX_FLATPAK, "org.example.Evil", "/app/bin/lumo-access-mcp");
  g_autoptr(LumoPeer) snap = peer_of (LUMO_PEER_SANDBOX_SNAP, "evil", NULL);
  g_autoptr(LumoPeer) own_launcher = peer_of (LUMO_PEER_SANDBOX_FLATPAK, "dev.lumo.Access", "/app/libexec/lumo-access-mcp");
  g_autoptr(LumoPeer) unseen = peer_of (LUMO_PEER_SANDBOX_UNKNOWN, NULL, NULL);
  g_autoptr(GError) error = NULL;

  g_assert_true (lumo_peer_may_attach_agent (launcher, app, "dev.lumo.Access", &error));
  g_assert_no_error (error);
  g_assert_true (lumo_peer_may_attach_agent (python, app, "dev.lumo.Access", &error));
  g_assert_no_error (error);

  assert_refused (lumo_peer_may_attach_agent (evil, app, "dev.lumo.Access", &error), &error);
  assert_refused (lumo_peer_may_attach_agent (snap, app, "dev.lumo.Access", &error), &error);
  assert_refused (lumo_peer_may_attach_agent (unseen, app, "dev.lumo.Access", &error), &error);
  /* A Flatpak that calls itself dev.lumo.Access is not this native app. */
  assert_refused (lumo_peer_may_attach_agent (own_launcher, app, "dev.lumo.Access", &error), &error);

  g_assert_true (lumo_peer_may_attach_agent (unseen, flatpak_app, "dev.lumo.Access", &error));
  g_assert_true (lumo_peer_may_attach_agent (own_launcher, flatpak_app, "dev.lumo.Access", &error));
  assert_refused (lumo_peer_may_attach_agent (evil, flatpak_app, "dev.lumo.Access", &error), &error);
  g_assert_false (lumo_peer_may_attach_agent (evil, flatpak_app, "dev.lumo.Access", &error));
  g_assert_nonnull (strstr (error->message, "org.example.Evil"));
}

/* The credentials come from the bus: our own connection, seen through a
 * fake /proc where this process is a Flatpak app, and through the real one. */
typedef struct
{
  LumoPeer *peer;
  GError   *error;
  gboolean  done;
} Lookup;

static void
on_lookup_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  Lookup *lookup = user_data;

  lookup->peer = lumo_peer_lookup_finish (result, &lookup->error);
  lookup->done = TRUE;
}

static LumoPeer *
lookup (GDBusConnection *connection,
        const char      *sender,
        const char      *proc_root,
        GError         **error)
{
  Lookup l = { 0 };

  lumo_peer_lookup_async (connection, sender, proc_root, NULL, on_lookup_cb, &l);
  while (!l.done)
    g_main_context_iteration (NULL, TRUE);
  if (l.error != NULL)
    g_propagate_error (error, l.error);
  return l.peer;
}

static void
test_lookup_on_bus (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *daemon = g_find_program_in_path ("dbus-daemon");
  g_autoptr(GTestDBus) bus = NULL;
  g_autoptr(GDBusConnection) connection = NULL;
  g_autoptr(LumoPeer) as_flatpak = NULL;
  g_autoptr(LumoPeer) real = NULL;
  g_autoptr(LumoPeer) nobody = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *self_exe = g_file_read_link ("/proc/self/exe", NULL);

  if (daemon == NULL)
    {
      g_test_skip ("dbus-daemon is not installed");
      return;
    }

  bus = g_test_dbus_new (G_TEST_DBUS_NONE);
  g_test_dbus_up (bus);
  connection = g_dbus_connection_new_for_address_sync (g_test_dbus_get_bus_address (bus),
                                                       G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
                                                       G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
                                                       NULL, NULL, &error);
  g_assert_no_error (error);

  add_process (f, (guint32) getpid (), "[Application]\nname=org.example.Evil\n", NULL, NULL);
  as_flatpak = lookup (connection, g_dbus_connection_get_unique_name (connection), f->root, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (as_flatpak->pid, ==, (guint32) getpid ());
  g_assert_cmpint (as_flatpak->sandbox, ==, LUMO_PEER_SANDBOX_FLATPAK);
  g_assert_cmpstr (as_flatpak->app_id, ==, "org.example.Evil");

  real = lookup (connection, g_dbus_connection_get_unique_name (connection), NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (real->sandbox, ==, LUMO_PEER_SANDBOX_NONE);
  g_assert_cmpstr (real->exe, ==, self_exe);

  /* A name nobody owns has no credentials: refused, not guessed. */
  nobody = lookup (connection, ":1.9999", NULL, &error);
  g_assert_null (nobody);
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_PERMISSION_DENIED);

  g_dbus_connection_close_sync (connection, NULL, NULL);
  g_test_dbus_down (bus);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("/peer/classify", test_classify);
  ADD ("/peer/may-decide", test_may_decide);
  ADD ("/peer/helper-for-app", test_helper_for_app);
  ADD ("/peer/may-attach", test_may_attach);
  ADD ("/peer/may-attach-agent", test_may_attach_agent);
  ADD ("/peer/lookup-on-bus", test_lookup_on_bus);
#undef ADD

  return g_test_run ();
}
