/* test-notifier.c — requests announce themselves while no window is active
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The notifications' buttons call application actions; activating those
 * actions is what a click on the notification does (the desktop activates
 * them over D-Bus), and it must work with the window hidden.
 */
#include "config.h"

#include "app-test-util.h"
#include "lumo-notifier.h"

/* A stand-in for the desktop's notification server (org.gtk.Notifications,
 * which GLib prefers when the name is owned): it records what arrives. */
static GPtrArray *server_log;

static const char server_xml[] =
  "<node><interface name='org.gtk.Notifications'>"
  "<method name='AddNotification'><arg type='s' direction='in'/><arg type='s' direction='in'/>"
  "<arg type='a{sv}' direction='in'/></method>"
  "<method name='RemoveNotification'><arg type='s' direction='in'/><arg type='s' direction='in'/></method>"
  "</interface></node>";

static void
on_server_call_cb (GDBusConnection       *connection,
                   const char            *sender,
                   const char            *object_path,
                   const char            *interface_name,
                   const char            *method_name,
                   GVariant              *parameters,
                   GDBusMethodInvocation *invocation,
                   gpointer               user_data)
{
  const char *id;

  if (g_str_equal (method_name, "AddNotification"))
    {
      g_autoptr(GVariant) info = NULL;
      g_autoptr(GVariant) buttons = NULL;

      g_variant_get (parameters, "(&s&s@a{sv})", NULL, &id, &info);
      buttons = g_variant_lookup_value (info, "buttons", NULL);
      g_ptr_array_add (server_log, g_strdup_printf ("add %s %zu", id,
                                                    buttons ? g_variant_n_children (buttons) : 0));
    }
  else
    {
      g_variant_get (parameters, "(&s&s)", NULL, &id);
      g_ptr_array_add (server_log, g_strdup_printf ("remove %s", id));
    }

  g_dbus_method_invocation_return_value (invocation, NULL);
}

static void
start_notification_server (void)
{
  static const GDBusInterfaceVTable vtable = { on_server_call_cb };
  /* Kept for the whole program: the name goes with the connection. */
  static GDBusConnection *bus;
  g_autoptr(GDBusNodeInfo) node = g_dbus_node_info_new_for_xml (server_xml, NULL);
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GError) error = NULL;

  bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, NULL);
  server_log = g_ptr_array_new_with_free_func (g_free);
  g_dbus_connection_register_object (bus, "/org/gtk/Notifications", node->interfaces[0],
                                     &vtable, NULL, NULL, &error);
  g_assert_no_error (error);
  reply = g_dbus_connection_call_sync (bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                       "org.freedesktop.DBus", "RequestName",
                                       g_variant_new ("(su)", "org.gtk.Notifications", 0),
                                       G_VARIANT_TYPE ("(u)"), G_DBUS_CALL_FLAGS_NONE, -1, NULL, &error);
  g_assert_no_error (error);
}

static gboolean
server_saw (gpointer data)
{
  for (guint i = 0; i < server_log->len; i++)
    if (g_str_equal (g_ptr_array_index (server_log, i), data))
      return TRUE;
  return FALSE;
}

typedef struct
{
  AppFixture    base;
  LumoNotifier *notifier;
} NotifierFixture;

static void
setup (NotifierFixture *f,
       gconstpointer    data)
{
  /* The window exists but is hidden. */
  app_fixture_setup (&f->base, GINT_TO_POINTER (FALSE));
  f->notifier = lumo_notifier_new (app_test_get_application (), f->base.backend);
}

static void
teardown (NotifierFixture *f,
          gconstpointer    data)
{
  g_clear_object (&f->notifier);
  app_fixture_teardown (&f->base, data);
}

static void
test_pending_agent_notifies_and_approves (NotifierFixture *f,
                                          gconstpointer    data)
{
  GActionGroup *app = G_ACTION_GROUP (app_test_get_application ());
  LumoPolicyStatus status;
  g_autoptr(GError) error = NULL;

  app_fixture_add_provider (&f->base, TEST_PROVIDER_ID, "Lumo Userscripts");
  lumo_policy_probe (f->base.policy, TEST_PROVIDER_ID, TEST_CALLER_ID, "Helpful Agent", &status, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (lumo_notifier_get_n_sent (f->notifier), ==, 1);
  {
    g_autofree char *id = lumo_notifier_caller_id (TEST_PROVIDER_ID, TEST_CALLER_ID);
    g_autofree char *expected = g_strdup_printf ("add %s 3", id);

    /* It reached the desktop with Deny, Approve and Open. */
    lumo_test_wait_until (server_saw, expected, expected);
  }

  /* A second probe of the same agent does not notify again. */
  lumo_policy_probe (f->base.policy, TEST_PROVIDER_ID, TEST_CALLER_ID, "Helpful Agent", &status, &error);
  g_assert_cmpuint (lumo_notifier_get_n_sent (f->notifier), ==, 1);

  /* "Approve" on the notification, the window still hidden. */
  g_assert_true (g_action_group_has_action (app, "approve-caller"));
  g_action_group_activate_action (app, "approve-caller",
                                  g_variant_new ("(ss)", TEST_PROVIDER_ID, TEST_CALLER_ID));
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (f->base.window)));
  lumo_policy_probe (f->base.policy, TEST_PROVIDER_ID, TEST_CALLER_ID, "Helpful Agent", &status, &error);
  g_assert_true (status.authorized);
  /* Decided: the notification is withdrawn. */
  g_assert_cmpuint (lumo_notifier_get_n_withdrawn (f->notifier), ==, 1);

  /* "Deny" on another one. */
  lumo_policy_probe (f->base.policy, TEST_PROVIDER_ID, TEST_CALLER2_ID, "Other", &status, &error);
  g_assert_cmpuint (lumo_notifier_get_n_sent (f->notifier), ==, 2);
  g_action_group_activate_action (app, "deny-caller",
                                  g_variant_new ("(ss)", TEST_PROVIDER_ID, TEST_CALLER2_ID));
  lumo_policy_probe (f->base.policy, TEST_PROVIDER_ID, TEST_CALLER2_ID, "Other", &status, &error);
  g_assert_false (status.authorized);
  g_assert_false (status.pending_approval);
  g_assert_cmpuint (lumo_notifier_get_n_withdrawn (f->notifier), ==, 2);
}

typedef struct
{
  gboolean          done;
  LumoReviewOutcome outcome;
} ReviewResult;

static void
on_review_done_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  ReviewResult *r = user_data;

  r->outcome = lumo_review_queue_submit_finish (LUMO_REVIEW_QUEUE (object), result, NULL);
  r->done = TRUE;
}

static gboolean
review_done (gpointer data)
{
  return ((ReviewResult *) data)->done;
}

static void
test_review_notifies_and_rejects (NotifierFixture *f,
                                  gconstpointer    data)
{
  GActionGroup *app = G_ACTION_GROUP (app_test_get_application ());
  ReviewResult result = { 0 };
  g_autoptr(LumoReviewRequest) request = NULL;

  lumo_review_queue_submit_async (f->base.queue, TEST_PROVIDER_ID, TEST_CALLER_ID, "Helpful Agent",
                                  "userscripts.delete_script", NULL, "{\"name\":\"x\"}", NULL,
                                  on_review_done_cb, &result);
  g_assert_cmpuint (lumo_notifier_get_n_sent (f->notifier), ==, 1);

  request = g_list_model_get_item (G_LIST_MODEL (f->base.queue), 0);
  g_action_group_activate_action (app, "reject-review",
                                  g_variant_new_string (lumo_review_request_get_id (request)));
  lumo_test_wait_until (review_done, &result, "the review's outcome");
  g_assert_cmpint (result.outcome, ==, LUMO_REVIEW_OUTCOME_REJECTED);
  g_assert_cmpuint (lumo_notifier_get_n_withdrawn (f->notifier), ==, 1);
}

static void
test_no_notification_while_window_active (NotifierFixture *f,
                                          gconstpointer    data)
{
  LumoPolicyStatus status;
  g_autoptr(GError) error = NULL;

  gtk_window_present (GTK_WINDOW (f->base.window));
  app_test_iterate ();
  if (!gtk_window_is_active (GTK_WINDOW (f->base.window)))
    {
      /* Xvfb without a window manager gives no focus: nothing to check. */
      g_test_skip ("the X server gave the window no focus");
      return;
    }

  app_fixture_add_provider (&f->base, TEST_PROVIDER_ID, "Lumo Userscripts");
  lumo_policy_probe (f->base.policy, TEST_PROVIDER_ID, TEST_CALLER_ID, "Helpful Agent", &status, &error);
  g_assert_cmpuint (lumo_notifier_get_n_sent (f->notifier), ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);
  start_notification_server ();
  app_test_init_application ();

  g_test_add ("/notifier/pending-agent", NotifierFixture, NULL, setup,
              test_pending_agent_notifies_and_approves, teardown);
  g_test_add ("/notifier/review", NotifierFixture, NULL, setup,
              test_review_notifies_and_rejects, teardown);
  g_test_add ("/notifier/window-active", NotifierFixture, NULL, setup,
              test_no_notification_while_window_active, teardown);

  return g_test_run ();
}
