/* lumo-peer.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-peer"

#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lumo-error.h"
#include "lumo-peer.h"

#define DELETED_SUFFIX " (deleted)"

G_DEFINE_BOXED_TYPE (LumoPeer, lumo_peer, lumo_peer_copy, lumo_peer_free)

LumoPeer *
lumo_peer_copy (const LumoPeer *peer)
{
  LumoPeer *copy;

  g_return_val_if_fail (peer != NULL, NULL);

  copy = g_new0 (LumoPeer, 1);
  copy->pid = peer->pid;
  copy->sandbox = peer->sandbox;
  copy->app_id = g_strdup (peer->app_id);
  copy->exe = g_strdup (peer->exe);
  return copy;
}

void
lumo_peer_free (LumoPeer *peer)
{
  if (peer == NULL)
    return;

  g_free (peer->app_id);
  g_free (peer->exe);
  g_free (peer);
}

/* "snap.NAME.APP…" → NAME; NULL for anything else. */
static char *
snap_name_from_label (const char *label)
{
  const char *start;
  const char *end;

  if (label == NULL || !g_str_has_prefix (label, "snap."))
    return NULL;

  start = label + strlen ("snap.");
  end = start;
  while (*end != '\0' && *end != '.' && *end != ' ' && *end != '/')
    end++;

  return end > start ? g_strndup (start, end - start) : NULL;
}

/* A Snap app's processes run in a cgroup "snap.NAME.APP.…scope" (systemd)
 * or under AppArmor profile "snap.NAME.APP". */
static gboolean
read_snap (const char  *proc_dir,
           const char  *security_label,
           char       **name)
{
  g_autofree char *cgroup_path = g_build_filename (proc_dir, "cgroup", NULL);
  g_autofree char *attr_path = g_build_filename (proc_dir, "attr", "current", NULL);
  g_autofree char *cgroup = NULL;
  g_autofree char *attr = NULL;

  if ((*name = snap_name_from_label (security_label)))
    return TRUE;

  if (g_file_get_contents (attr_path, &attr, NULL, NULL) && (*name = snap_name_from_label (attr)))
    return TRUE;

  if (g_file_get_contents (cgroup_path, &cgroup, NULL, NULL))
    {
      g_auto(GStrv) lines = g_strsplit (cgroup, "\n", -1);

      for (guint i = 0; lines[i] != NULL; i++)
        {
          g_auto(GStrv) parts = g_strsplit (lines[i], "/", -1);

          for (guint j = 0; parts[j] != NULL; j++)
            if ((*name = snap_name_from_label (parts[j])))
              return TRUE;
        }
    }

  return FALSE;
}

LumoPeer *
lumo_peer_new_from_proc (const char *proc_root,
                         guint32     pid,
                         const char *security_label)
{
  g_autoptr(LumoPeer) peer = g_new0 (LumoPeer, 1);
  g_autofree char *pid_s = g_strdup_printf ("%u", pid);
  g_autofree char *proc_dir = NULL;
  g_autofree char *info_path = NULL;
  g_autofree char *exe_path = NULL;
  g_autoptr(GKeyFile) info = g_key_file_new ();
  g_autoptr(GError) error = NULL;
  char *exe;

  if (proc_root == NULL)
    proc_root = "/proc";

  peer->pid = pid;
  proc_dir = g_build_filename (proc_root, pid_s, NULL);
  info_path = g_build_filename (proc_dir, "root", ".flatpak-info", NULL);
  exe_path = g_build_filename (proc_dir, "exe", NULL);

  if (pid == 0 || !g_file_test (proc_dir, G_FILE_TEST_IS_DIR))
    {
      peer->sandbox = LUMO_PEER_SANDBOX_UNKNOWN;
      return g_steal_pointer (&peer);
    }

  if ((exe = g_file_read_link (exe_path, NULL)) != NULL)
    {
      /* A binary replaced since the process started (an upgrade, a
       * rebuild) is still the one at that path. */
      if (g_str_has_suffix (exe, DELETED_SUFFIX))
        exe[strlen (exe) - strlen (DELETED_SUFFIX)] = '\0';
      peer->exe = exe;
    }

  /* The file exists in every Flatpak sandbox; one we cannot parse still
   * says "sandboxed" (with no app ID it matches nobody). */
  if (g_file_test (info_path, G_FILE_TEST_EXISTS))
    {
      peer->sandbox = LUMO_PEER_SANDBOX_FLATPAK;
      if (g_key_file_load_from_file (info, info_path, G_KEY_FILE_NONE, NULL))
        peer->app_id = g_key_file_get_string (info, "Application", "name", NULL);
      return g_steal_pointer (&peer);
    }

  /* /proc/PID/root unreadable (another user's process, a process that
   * hides itself): its sandbox cannot be told, so it counts as unseen. */
  {
    g_autofree char *root_path = g_build_filename (proc_dir, "root", NULL);
    g_autoptr(GDir) root = g_dir_open (root_path, 0, &error);

    if (root == NULL && !g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
      {
        peer->sandbox = LUMO_PEER_SANDBOX_UNKNOWN;
        return g_steal_pointer (&peer);
      }
  }

  if (read_snap (proc_dir, security_label, &peer->app_id))
    peer->sandbox = LUMO_PEER_SANDBOX_SNAP;
  else
    peer->sandbox = LUMO_PEER_SANDBOX_NONE;

  return g_steal_pointer (&peer);
}

char *
lumo_peer_describe (const LumoPeer *peer)
{
  g_return_val_if_fail (peer != NULL, NULL);

  switch (peer->sandbox)
    {
    case LUMO_PEER_SANDBOX_NONE:
      return g_strdup_printf ("process %u (%s)", peer->pid, peer->exe != NULL ? peer->exe : "?");
    case LUMO_PEER_SANDBOX_FLATPAK:
      return g_strdup_printf ("process %u of the Flatpak app %s", peer->pid,
                              peer->app_id != NULL ? peer->app_id : "(unknown)");
    case LUMO_PEER_SANDBOX_SNAP:
      return g_strdup_printf ("process %u of the Snap %s", peer->pid,
                              peer->app_id != NULL ? peer->app_id : "(unknown)");
    case LUMO_PEER_SANDBOX_UNKNOWN:
    default:
      return g_strdup_printf ("process %u, which cannot be seen", peer->pid);
    }
}

/* ---- the bus ---------------------------------------------------------------- */

typedef struct
{
  char *proc_root;
} LookupData;

static void
lookup_data_free (LookupData *data)
{
  g_free (data->proc_root);
  g_free (data);
}

static void
on_credentials_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  LookupData *data = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GVariant) credentials = NULL;
  g_autoptr(GVariant) label = NULL;
  g_autofree char *label_text = NULL;
  guint32 pid = 0;

  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (object), result, &error);
  if (reply == NULL)
    {
      g_task_return_new_error (task, LUMO_ERROR, LUMO_ERROR_PERMISSION_DENIED,
                               "The bus does not say who called: %s", error->message);
      return;
    }

  credentials = g_variant_get_child_value (reply, 0);
  if (!g_variant_lookup (credentials, "ProcessID", "u", &pid) || pid == 0)
    {
      g_task_return_new_error (task, LUMO_ERROR, LUMO_ERROR_PERMISSION_DENIED,
                               "The bus does not say which process called");
      return;
    }

  /* A byte string, NUL-terminated on the wire. */
  if ((label = g_variant_lookup_value (credentials, "LinuxSecurityLabel", G_VARIANT_TYPE_BYTESTRING)))
    label_text = g_strdup (g_variant_get_bytestring (label));

  g_task_return_pointer (task, lumo_peer_new_from_proc (data->proc_root, pid, label_text),
                         (GDestroyNotify) lumo_peer_free);
}

void
lumo_peer_lookup_async (GDBusConnection     *connection,
                        const char          *sender,
                        const char          *proc_root,
                        GCancellable        *cancellable,
                        GAsyncReadyCallback  callback,
                        gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  LookupData *data;

  g_return_if_fail (G_IS_DBUS_CONNECTION (connection));

  task = g_task_new (connection, cancellable, callback, user_data);
  g_task_set_source_tag (task, lumo_peer_lookup_async);
  data = g_new0 (LookupData, 1);
  data->proc_root = g_strdup (proc_root);
  g_task_set_task_data (task, data, (GDestroyNotify) lookup_data_free);

  /* A peer-to-peer connection has no bus to ask, and no sender. */
  if (sender == NULL)
    {
      g_task_return_new_error (task, LUMO_ERROR, LUMO_ERROR_PERMISSION_DENIED,
                               "The call came without a sender");
      return;
    }

  g_dbus_connection_call (connection, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                          "org.freedesktop.DBus", "GetConnectionCredentials",
                          g_variant_new ("(s)", sender), G_VARIANT_TYPE ("(a{sv})"),
                          G_DBUS_CALL_FLAGS_NONE, -1, cancellable,
                          on_credentials_cb, g_steal_pointer (&task));
}

LumoPeer *
lumo_peer_lookup_finish (GAsyncResult  *result,
                         GError       **error)
{
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == lumo_peer_lookup_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- the rules ---------------------------------------------------------------- */

static gboolean
is_own_sandbox (const LumoPeer *peer,
                const LumoPeer *app,
                const char     *own_app_id)
{
  return (peer->sandbox == LUMO_PEER_SANDBOX_FLATPAK || peer->sandbox == LUMO_PEER_SANDBOX_SNAP) &&
         peer->app_id != NULL && own_app_id != NULL && g_str_equal (peer->app_id, own_app_id) &&
         app->sandbox == peer->sandbox;
}

gboolean
lumo_peer_may_decide (const LumoPeer  *peer,
                      const LumoPeer  *app,
                      const char      *own_app_id,
                      GError         **error)
{
  g_autofree char *who = NULL;

  g_return_val_if_fail (peer != NULL, FALSE);
  g_return_val_if_fail (app != NULL, FALSE);

  if (peer->sandbox == LUMO_PEER_SANDBOX_NONE || is_own_sandbox (peer, app, own_app_id))
    return TRUE;

  who = lumo_peer_describe (peer);
  if (peer->sandbox == LUMO_PEER_SANDBOX_UNKNOWN)
    g_set_error (error, LUMO_ERROR, LUMO_ERROR_PERMISSION_DENIED,
                 "Refused: the caller, %s, may be a sandboxed app; only a person at Lumo Access "
                 "decides", who);
  else
    g_set_error (error, LUMO_ERROR, LUMO_ERROR_PERMISSION_DENIED,
                 "Refused: the caller is a sandboxed app (%s); only a person at Lumo Access "
                 "decides", who);
  return FALSE;
}

/* @path with its symbolic links resolved, or a copy when it does not exist. */
static char *
real_path (const char *path)
{
  char *resolved = realpath (path, NULL);
  char *copy;

  if (resolved == NULL)
    return g_strdup (path);
  copy = g_strdup (resolved);
  free (resolved);
  return copy;
}

char *
lumo_peer_helper_for_app (const char  *app_exe,
                          GError     **error)
{
  g_autofree char *installed_app = real_path (BINDIR "/lumo-access");
  g_autofree char *build_app = real_path (BUILD_ROOT "/src/app/lumo-access");
  g_autofree char *exe = NULL;

  if (app_exe == NULL)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND,
                   "Lumo Access cannot tell which program it is, so it accepts no helper");
      return NULL;
    }

  exe = real_path (app_exe);
  if (g_str_equal (exe, installed_app))
    return real_path (LIBEXECDIR "/lumo-access-host");
  if (g_str_equal (exe, build_app))
    return real_path (BUILD_ROOT "/src/host/lumo-access-host");

  g_set_error (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND,
               "Lumo Access runs from %s, which is neither where it is installed (%s) nor its "
               "build tree, so it accepts no helper", exe, installed_app);
  return NULL;
}

/* Inside a Flatpak sandbox the app has a PID namespace of its own: a
 * program started with `flatpak run --command=…` is out of sight. Any peer
 * the app can see must be of its own app. */
static gboolean
flatpak_app_accepts (const LumoPeer  *peer,
                     const LumoPeer  *app,
                     const char      *own_app_id,
                     const char      *what,
                     GError         **error)
{
  g_autofree char *who = NULL;

  if (peer->sandbox == LUMO_PEER_SANDBOX_UNKNOWN || is_own_sandbox (peer, app, own_app_id))
    return TRUE;

  who = lumo_peer_describe (peer);
  g_set_error (error, LUMO_ERROR, LUMO_ERROR_PERMISSION_DENIED,
               "Refused %s from %s: only Lumo Access's own programs may hand one over", what, who);
  return FALSE;
}

gboolean
lumo_peer_may_attach (const LumoPeer  *peer,
                      const LumoPeer  *app,
                      const char      *own_app_id,
                      GError         **error)
{
  g_autofree char *helper = NULL;
  g_autofree char *who = NULL;
  g_autoptr(GError) local_error = NULL;

  g_return_val_if_fail (peer != NULL, FALSE);
  g_return_val_if_fail (app != NULL, FALSE);

  /* The helper is started by `flatpak run --command=lumo-access-host`. */
  if (app->sandbox == LUMO_PEER_SANDBOX_FLATPAK)
    return flatpak_app_accepts (peer, app, own_app_id, "a session", error);

  if (!lumo_peer_may_decide (peer, app, own_app_id, error))
    return FALSE;

  if (!(helper = lumo_peer_helper_for_app (app->exe, &local_error)))
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_PERMISSION_DENIED,
                   "Refused a session: %s", local_error->message);
      return FALSE;
    }

  if (peer->exe != NULL && g_str_equal (peer->exe, helper))
    return TRUE;

  who = lumo_peer_describe (peer);
  g_set_error (error, LUMO_ERROR, LUMO_ERROR_PERMISSION_DENIED,
               "Refused a session from %s: only the helper of this installation, %s, may "
               "attach one", who, helper);
  return FALSE;
}

gboolean
lumo_peer_may_attach_agent (const LumoPeer  *peer,
                            const LumoPeer  *app,
                            const char      *own_app_id,
                            GError         **error)
{
  g_return_val_if_fail (peer != NULL, FALSE);
  g_return_val_if_fail (app != NULL, FALSE);

  /* The launcher is started by `flatpak run --command=lumo-access-mcp`. */
  if (app->sandbox == LUMO_PEER_SANDBOX_FLATPAK)
    return flatpak_app_accepts (peer, app, own_app_id, "a desktop agent's session", error);

  return lumo_peer_may_decide (peer, app, own_app_id, error);
}
