/* lumo-action-guard.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-action-guard"

#include "config.h"

#include <string.h>
#include <unistd.h>

#include "lumo-action-guard.h"
#include "lumo-peer.h"

/* What the filter (on GDBus's worker thread) shares with the main context:
 * immutable after creation, reference-counted. */
typedef struct
{
  GWeakRef      application;
  GMainContext *context;
  char         *object_path;
  char         *proc_root;
  LumoPeer     *app_peer;
} GuardData;

struct _LumoActionGuard
{
  GDBusConnection *connection;
  guint            filter_id;
  GuardData       *data;
};

typedef struct
{
  GuardData       *data;
  GDBusConnection *connection;
  GDBusMessage    *message;
} PendingCall;

static void
guard_data_clear (GuardData *data)
{
  g_weak_ref_clear (&data->application);
  g_main_context_unref (data->context);
  g_free (data->object_path);
  g_free (data->proc_root);
  lumo_peer_free (data->app_peer);
}

static void
guard_data_unref (gpointer data)
{
  g_atomic_rc_box_release_full (data, (GDestroyNotify) guard_data_clear);
}

static void
pending_call_free (PendingCall *call)
{
  guard_data_unref (call->data);
  g_object_unref (call->connection);
  g_object_unref (call->message);
  g_free (call);
}

static void
reply_error (PendingCall *call,
             const char  *name,
             const char  *text)
{
  g_autoptr(GDBusMessage) reply = g_dbus_message_new_method_error_literal (call->message, name, text);

  g_dbus_connection_send_message (call->connection, reply, G_DBUS_SEND_MESSAGE_FLAGS_NONE, NULL, NULL);
}

/* What GApplication does for Activate, ActivateAction and SetState: the
 * action must exist, be enabled and take the parameter given. */
static void
dispatch (PendingCall  *call,
          GApplication *application)
{
  GVariant *body = g_dbus_message_get_body (call->message);
  gboolean set_state = g_str_equal (g_dbus_message_get_member (call->message), "SetState");
  g_autoptr(GVariant) value = NULL;
  g_autoptr(GVariant) platform_data = NULL;
  g_autoptr(GVariant) reply_body = NULL;
  g_autoptr(GDBusMessage) reply = NULL;
  const GVariantType *param_type = NULL;
  const char *name = NULL;
  gboolean enabled = FALSE;

  if (set_state)
    g_variant_get (body, "(&sv@a{sv})", &name, &value, &platform_data);
  else
    {
      g_autoptr(GVariantIter) iter = NULL;

      g_variant_get (body, "(&sav@a{sv})", &name, &iter, &platform_data);
      if (g_variant_iter_n_children (iter) == 1)
        g_variant_iter_next (iter, "v", &value);
      else if (g_variant_iter_n_children (iter) > 1)
        {
          reply_error (call, "org.freedesktop.DBus.Error.InvalidArgs", "An action takes one parameter at most");
          return;
        }
    }

  if (!g_action_group_query_action (G_ACTION_GROUP (application), name, &enabled, &param_type,
                                    NULL, NULL, NULL) ||
      !enabled ||
      (!set_state && (param_type == NULL) != (value == NULL)) ||
      (!set_state && value != NULL && !g_variant_is_of_type (value, param_type)))
    {
      reply_error (call, "org.freedesktop.DBus.Error.InvalidArgs",
                   "No enabled action of that name takes that parameter");
      return;
    }

  G_APPLICATION_GET_CLASS (application)->before_emit (application, platform_data);
  if (set_state)
    g_action_group_change_action_state (G_ACTION_GROUP (application), name, value);
  else
    g_action_group_activate_action (G_ACTION_GROUP (application), name, value);
  G_APPLICATION_GET_CLASS (application)->after_emit (application, platform_data);

  reply = g_dbus_message_new_method_reply (call->message);
  g_dbus_connection_send_message (call->connection, reply, G_DBUS_SEND_MESSAGE_FLAGS_NONE, NULL, NULL);
}

static void
on_peer_looked_up_cb (GObject      *object,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  PendingCall *call = user_data;
  g_autoptr(GApplication) application = g_weak_ref_get (&call->data->application);
  g_autoptr(LumoPeer) peer = NULL;
  g_autoptr(GError) error = NULL;

  peer = lumo_peer_lookup_finish (result, &error);
  if (peer == NULL || !lumo_peer_may_decide (peer, call->data->app_peer, APP_ID, &error))
    {
      const char *action = NULL;

      g_variant_get_child (g_dbus_message_get_body (call->message), 0, "&s", &action);
      g_message ("Action “%s” from %s: %s", action, g_dbus_message_get_sender (call->message),
                 error->message);
      reply_error (call, "org.freedesktop.DBus.Error.AccessDenied", error->message);
    }
  else if (application == NULL)
    reply_error (call, "org.freedesktop.DBus.Error.UnknownObject", "Lumo Access is quitting");
  else
    dispatch (call, application);

  pending_call_free (call);
}

static gboolean
start_lookup_cb (gpointer user_data)
{
  PendingCall *call = user_data;

  lumo_peer_lookup_async (call->connection, g_dbus_message_get_sender (call->message),
                          call->data->proc_root, NULL, on_peer_looked_up_cb, call);
  return G_SOURCE_REMOVE;
}

static gboolean
is_action_call (GDBusMessage *message,
                const char   *object_path)
{
  const char *interface = g_dbus_message_get_interface (message);
  const char *member = g_dbus_message_get_member (message);
  GVariant *body = g_dbus_message_get_body (message);

  if (g_dbus_message_get_message_type (message) != G_DBUS_MESSAGE_TYPE_METHOD_CALL ||
      g_strcmp0 (g_dbus_message_get_path (message), object_path) != 0 ||
      interface == NULL || member == NULL || body == NULL)
    return FALSE;

  /* A call of another signature is GApplication's to refuse. */
  if (g_str_equal (interface, "org.gtk.Actions"))
    return (g_str_equal (member, "Activate") && g_variant_is_of_type (body, G_VARIANT_TYPE ("(sava{sv})"))) ||
           (g_str_equal (member, "SetState") && g_variant_is_of_type (body, G_VARIANT_TYPE ("(sva{sv})")));
  if (g_str_equal (interface, "org.freedesktop.Application"))
    return g_str_equal (member, "ActivateAction") && g_variant_is_of_type (body, G_VARIANT_TYPE ("(sava{sv})"));
  return FALSE;
}

/* On GDBus's worker thread: takes the action calls, leaves the rest. */
static GDBusMessage *
filter_cb (GDBusConnection *connection,
           GDBusMessage    *message,
           gboolean         incoming,
           gpointer         user_data)
{
  GuardData *data = user_data;
  PendingCall *call;

  if (!incoming || !is_action_call (message, data->object_path))
    return message;

  call = g_new0 (PendingCall, 1);
  call->data = g_atomic_rc_box_acquire (data);
  call->connection = g_object_ref (connection);
  call->message = message;   /* ours now: dropped from the dispatch */
  g_main_context_invoke (data->context, start_lookup_cb, call);
  return NULL;
}

LumoActionGuard *
lumo_action_guard_new (GApplication *application,
                       const char   *proc_root)
{
  GDBusConnection *connection;
  LumoActionGuard *guard;
  GuardData *data;

  g_return_val_if_fail (G_IS_APPLICATION (application), NULL);

  if ((connection = g_application_get_dbus_connection (application)) == NULL)
    return NULL;

  data = g_atomic_rc_box_new0 (GuardData);
  g_weak_ref_init (&data->application, application);
  data->context = g_main_context_ref_thread_default ();
  data->object_path = g_strdup (g_application_get_dbus_object_path (application));
  data->proc_root = g_strdup (proc_root);
  data->app_peer = lumo_peer_new_from_proc (proc_root, (guint32) getpid (), NULL);

  guard = g_new0 (LumoActionGuard, 1);
  guard->connection = g_object_ref (connection);
  guard->data = data;
  guard->filter_id = g_dbus_connection_add_filter (connection, filter_cb,
                                                   g_atomic_rc_box_acquire (data), guard_data_unref);
  return guard;
}

void
lumo_action_guard_free (LumoActionGuard *guard)
{
  if (guard == NULL)
    return;

  g_dbus_connection_remove_filter (guard->connection, guard->filter_id);
  g_object_unref (guard->connection);
  guard_data_unref (guard->data);
  g_free (guard);
}
