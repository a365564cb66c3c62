/* test-notifier.c — requests announce themselves while no window is active
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The notifications' buttons call application actions; activating those
 * actions is what a click on the notification does (the desktop activates
 * them over D-Bus), and it must work with the window hidden. Only a click
 * does: Approve and Deny carry a one-time token of their notification,
 * and a sandboxed app may activate no action at all.
 */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "app-test-util.h"
#include "lumo-notifier.h"

/* A stand-in for the desktop's notification server (org.gtk.Notifications,
 * which GLib prefers when the name is owned): it records what arrives, and
 * the buttons of each notification by its ID. */
static GPtrArray *server_log;
static GHashTable *server_buttons;   /* id → aa{sv} */
static GHashTable *server_bodies;    /* id → body */

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
      if (buttons != NULL)
        g_hash_table_replace (server_buttons, g_strdup (id), g_variant_ref (buttons));
      {
        const char *body = NULL;

        if (g_variant_lookup (info, "body", "&s", &body))
          g_hash_table_replace (server_bodies, g_strdup (id), g_strdup (body));
      }
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
  server_buttons = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_variant_unref);
  server_bodies = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
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

/* The target of the button for @action of the notification @id, as the
 * desktop would pass it when the person clicks. */
static GVariant *
button_target (const char *id,
               const char *action)
{
  GVariant *buttons = g_hash_table_lookup (server_buttons, id);

  g_assert_nonnull (buttons);
  for (gsize i = 0; i < g_variant_n_children (buttons); i++)
    {
      g_autoptr(GVariant) button = g_variant_get_child_value (buttons, i);
      const char *name = NULL;
      GVariant *target;

      if (g_variant_lookup (button, "action", "&s", &name) && g_str_equal (name, action) &&
          (target = g_variant_lookup_value (button, "target", NULL)) != NULL)
        return target;
    }

  g_error ("The notification %s has no button for %s", id, action);
  return NULL;
}

typedef struct
{
  AppFixture    base;
  LumoNotifier *notifier;
  char         *proc_root;   /* a fake /proc, for the sandboxed caller */
} NotifierFixture;

static void
setup (NotifierFixture *f,
       gconstpointer    data)
{
  /* What an earlier test's notifications left is not this test's. */
  g_ptr_array_set_size (server_log, 0);
  g_hash_table_remove_all (server_buttons);
  g_hash_table_remove_all (server_bodies);

  /* The window exists but is hidden. */
  app_fixture_setup (&f->base, GINT_TO_POINTER (FALSE));
  f->notifier = lumo_notifier_new (app_test_get_application (), f->base.backend);
}

static void
teardown (NotifierFixture *f,
          gconstpointer    data)
{
  g_clear_object (&f->notifier);
  if (f->proc_root != NULL)
    {
      lumo_test_dir_remove (f->proc_root);
      g_free (f->proc_root);
    }
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
  {
    g_autofree char *id = lumo_notifier_caller_id (TEST_PROVIDER_ID, TEST_CALLER_ID);

    g_action_group_activate_action (app, "approve-caller", button_target (id, "app.approve-caller"));
  }
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (f->base.window)));
  lumo_policy_probe (f->base.policy, TEST_PROVIDER_ID, TEST_CALLER_ID, "Helpful Agent", &status, &error);
  g_assert_true (status.authorized);
  /* Decided: the notification is withdrawn. */
  g_assert_cmpuint (lumo_notifier_get_n_withdrawn (f->notifier), ==, 1);

  /* "Deny" on another one. */
  lumo_policy_probe (f->base.policy, TEST_PROVIDER_ID, TEST_CALLER2_ID, "Other", &status, &error);
  g_assert_cmpuint (lumo_notifier_get_n_sent (f->notifier), ==, 2);
  {
    g_autofree char *id = lumo_notifier_caller_id (TEST_PROVIDER_ID, TEST_CALLER2_ID);
    g_autofree char *expected = g_strdup_printf ("add %s 3", id);

    lumo_test_wait_until (server_saw, expected, expected);
    g_action_group_activate_action (app, "deny-caller", button_target (id, "app.deny-caller"));
  }
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
                                  "userscripts.delete_script", NULL,
                                  "{\"name\":\"x\",\"matches\":[\"https://a.test/*\"],\"code\":\"alert(1)\"}", NULL,
                                  on_review_done_cb, &result);
  g_assert_cmpuint (lumo_notifier_get_n_sent (f->notifier), ==, 1);

  request = g_list_model_get_item (G_LIST_MODEL (f->base.queue), 0);
  {
    g_autofree char *id = lumo_notifier_review_id (lumo_review_request_get_id (request));
    g_autofree char *expected = g_strdup_printf ("add %s 3", id);

    lumo_test_wait_until (server_saw, expected, expected);
    /* What is approved is in the notification, as in the window. */
    g_assert_nonnull (strstr (g_hash_table_lookup (server_bodies, id), "Runs on: https://a.test/*"));
    g_assert_nonnull (strstr (g_hash_table_lookup (server_bodies, id), "1 field of the preview is not shown"));
    g_assert_null (strstr (g_hash_table_lookup (server_bodies, id), "alert"));
    g_action_group_activate_action (app, "reject-review", button_target (id, "app.reject-review"));
  }
  lumo_test_wait_until (review_done, &result, "the review's outcome");
  g_assert_cmpint (result.outcome, ==, LUMO_REVIEW_OUTCOME_REJECTED);
  g_assert_cmpuint (lumo_notifier_get_n_withdrawn (f->notifier), ==, 1);
}

/* The label of the button for @action of the notification @id. */
static const char *
button_label (const char *id,
              const char *action)
{
  GVariant *buttons = g_hash_table_lookup (server_buttons, id);

  g_assert_nonnull (buttons);
  for (gsize i = 0; i < g_variant_n_children (buttons); i++)
    {
      g_autoptr(GVariant) button = g_variant_get_child_value (buttons, i);
      const char *name = NULL;
      const char *label = NULL;

      if (g_variant_lookup (button, "action", "&s", &name) && g_str_equal (name, action) &&
          g_variant_lookup (button, "label", "&s", &label))
        return label;   /* in the variant the table keeps */
    }
  return NULL;
}

static guint
n_grants (NotifierFixture *f)
{
  g_autoptr(GPtrArray) grants = lumo_policy_list_grants (f->base.policy, NULL, NULL);

  g_assert_nonnull (grants);
  return grants->len;
}

/* A write's notification offers Reject, Approve Once and Always; Always
 * grants the caller the tool, which also lets through the write of the
 * same caller and tool that waited meanwhile. It carries the one-time
 * token too: without it, it grants nothing. */
static void
test_review_always (NotifierFixture *f,
                    gconstpointer    data)
{
  GActionGroup *app = G_ACTION_GROUP (app_test_get_application ());
  ReviewResult first = { 0 }, second = { 0 };
  g_autoptr(LumoReviewRequest) request = NULL;
  g_autoptr(GVariant) target = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *id = NULL;
  g_autofree char *expected = NULL;

  app_fixture_add_provider (&f->base, TEST_PROVIDER_ID, "Lumo Userscripts");
  g_assert_true (lumo_policy_allow_caller (f->base.policy, TEST_PROVIDER_ID, TEST_CALLER_ID,
                                           LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_no_error (error);

  lumo_review_queue_submit_async (f->base.queue, TEST_PROVIDER_ID, TEST_CALLER_ID, "Helpful Agent",
                                  "userscripts.save_script", NULL, "{\"name\":\"x\"}", NULL,
                                  on_review_done_cb, &first);
  request = g_list_model_get_item (G_LIST_MODEL (f->base.queue), 0);
  id = lumo_notifier_review_id (lumo_review_request_get_id (request));
  expected = g_strdup_printf ("add %s 3", id);
  lumo_test_wait_until (server_saw, expected, expected);
  g_assert_cmpstr (button_label (id, "app.reject-review"), ==, "Reject");
  g_assert_cmpstr (button_label (id, "app.approve-review"), ==, "Approve Once");
  g_assert_cmpstr (button_label (id, "app.approve-review-always"), ==, "Always");
  target = g_variant_ref_sink (button_target (id, "app.approve-review-always"));

  /* Not from the notification: nothing. */
  g_action_group_activate_action (app, "approve-review-always",
                                  g_variant_new ("(ss)", lumo_review_request_get_id (request),
                                                 "00000000000000000000000000000000"));
  app_test_iterate ();
  g_assert_false (first.done);
  g_assert_cmpuint (n_grants (f), ==, 0);

  lumo_review_queue_submit_async (f->base.queue, TEST_PROVIDER_ID, TEST_CALLER_ID, "Helpful Agent",
                                  "userscripts.save_script", NULL, "{\"name\":\"y\"}", NULL,
                                  on_review_done_cb, &second);
  g_action_group_activate_action (app, "approve-review-always", g_variant_ref (target));
  lumo_test_wait_until (review_done, &first, "the review's outcome");
  lumo_test_wait_until (review_done, &second, "the waiting write of the same tool");
  g_assert_cmpint (first.outcome, ==, LUMO_REVIEW_OUTCOME_APPROVED);
  g_assert_cmpint (second.outcome, ==, LUMO_REVIEW_OUTCOME_GRANTED);
  g_assert_cmpuint (n_grants (f), ==, 1);
}

/* A managed file forcing review: no Always, which would be refused; Once
 * still approves from the notification. */
static void
test_review_forced_no_always (NotifierFixture *f,
                              gconstpointer    data)
{
  GActionGroup *app = G_ACTION_GROUP (app_test_get_application ());
  ReviewResult result = { 0 };
  g_autoptr(LumoReviewRequest) request = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *id = NULL;
  g_autofree char *expected = NULL;

  app_fixture_add_provider (&f->base, TEST_PROVIDER_ID, "Lumo Userscripts");
  g_assert_true (lumo_policy_allow_caller (f->base.policy, TEST_PROVIDER_ID, TEST_CALLER_ID,
                                           LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_no_error (error);
  lumo_test_write_in (f->base.managed_dir, "50-org.json", "{\"review\": true}");
  lumo_policy_reload_managed (f->base.policy);

  lumo_review_queue_submit_async (f->base.queue, TEST_PROVIDER_ID, TEST_CALLER_ID, "Helpful Agent",
                                  "userscripts.save_script", NULL, "{\"name\":\"x\"}", NULL,
                                  on_review_done_cb, &result);
  request = g_list_model_get_item (G_LIST_MODEL (f->base.queue), 0);
  id = lumo_notifier_review_id (lumo_review_request_get_id (request));
  expected = g_strdup_printf ("add %s 2", id);
  lumo_test_wait_until (server_saw, expected, expected);
  g_assert_cmpstr (button_label (id, "app.reject-review"), ==, "Reject");
  g_assert_cmpstr (button_label (id, "app.approve-review"), ==, "Approve Once");
  g_assert_null (button_label (id, "app.approve-review-always"));

  g_action_group_activate_action (app, "approve-review", button_target (id, "app.approve-review"));
  lumo_test_wait_until (review_done, &result, "the review's outcome");
  g_assert_cmpint (result.outcome, ==, LUMO_REVIEW_OUTCOME_APPROVED);
  g_assert_cmpuint (n_grants (f), ==, 0);
}

/* A desktop agent says what it is, in its request for access and in its
 * writes that wait for review; an extension's text does not. */
static void
test_desktop_agent_is_named (NotifierFixture *f,
                             gconstpointer    data)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(LumoReviewRequest) request = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *agent_id = NULL;
  g_autofree char *token = NULL;
  g_autofree char *id = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *body = NULL;
  ReviewResult result = { 0 };
  LumoPolicyStatus status;

  app_fixture_add_provider (&f->base, TEST_PROVIDER_ID, "Lumo Userscripts");
  lumo_policy_add_agent (f->base.policy, "Claude Code", NULL, LUMO_POLICY_ORIGIN_CLI, &agent_id, &token, &error);
  g_assert_no_error (error);

  /* Its first request makes it wait: the gateway probes for it, as the
   * provider does for an extension. */
  lumo_policy_probe (f->base.policy, TEST_PROVIDER_ID, agent_id, "Claude Code", &status, &error);
  g_assert_no_error (error);
  g_assert_true (status.pending_approval);
  id = lumo_notifier_caller_id (TEST_PROVIDER_ID, agent_id);
  expected = g_strdup_printf ("add %s 3", id);
  lumo_test_wait_until (server_saw, expected, expected);
  body = g_strdup_printf ("The desktop agent “Claude Code” (%s) wants to use Lumo Userscripts. "
                          "Approve it only if you added it yourself.", agent_id);
  g_assert_cmpstr (g_hash_table_lookup (server_bodies, id), ==, body);

  lumo_policy_probe (f->base.policy, TEST_PROVIDER_ID, TEST_CALLER_ID, "Helpful Agent", &status, &error);
  g_assert_no_error (error);
  g_clear_pointer (&id, g_free);
  g_clear_pointer (&expected, g_free);
  id = lumo_notifier_caller_id (TEST_PROVIDER_ID, TEST_CALLER_ID);
  expected = g_strdup_printf ("add %s 3", id);
  lumo_test_wait_until (server_saw, expected, expected);
  g_assert_null (strstr (g_hash_table_lookup (server_bodies, id), "desktop agent"));

  /* Allowed, it writes; the write waits for review. */
  lumo_policy_allow_caller (f->base.policy, TEST_PROVIDER_ID, agent_id, LUMO_POLICY_ORIGIN_UI, &error);
  g_assert_no_error (error);
  lumo_review_queue_submit_async (f->base.queue, TEST_PROVIDER_ID, agent_id, "Claude Code",
                                  "userscripts.save_script", NULL, "{\"name\":\"x\"}", cancellable,
                                  on_review_done_cb, &result);
  request = g_list_model_get_item (G_LIST_MODEL (f->base.queue), 0);
  g_clear_pointer (&id, g_free);
  g_clear_pointer (&expected, g_free);
  id = lumo_notifier_review_id (lumo_review_request_get_id (request));
  expected = g_strdup_printf ("add %s 3", id);
  lumo_test_wait_until (server_saw, expected, expected);
  g_assert_true (g_str_has_prefix (g_hash_table_lookup (server_bodies, id),
                                   "The desktop agent Claude Code wants to run userscripts.save_script."));

  g_cancellable_cancel (cancellable);
  lumo_test_wait_until (review_done, &result, "the review's outcome");
}

/* Anyone on the bus can activate the app's actions; only the click on the
 * notification carries its token, and a token works once. */
static void
test_activation_needs_token (NotifierFixture *f,
                             gconstpointer    data)
{
  GActionGroup *app = G_ACTION_GROUP (app_test_get_application ());
  g_autofree char *id = lumo_notifier_caller_id (TEST_PROVIDER_ID, TEST_CALLER_ID);
  g_autofree char *expected = g_strdup_printf ("add %s 3", id);
  g_autoptr(GVariant) target = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(LumoReviewRequest) request = NULL;
  LumoPolicyStatus status;
  const char *token;
  ReviewResult result = { 0 };

  app_fixture_add_provider (&f->base, TEST_PROVIDER_ID, "Lumo Userscripts");
  lumo_policy_probe (f->base.policy, TEST_PROVIDER_ID, TEST_CALLER_ID, "Agent", &status, &error);
  g_assert_no_error (error);
  lumo_test_wait_until (server_saw, expected, expected);
  target = g_variant_ref_sink (button_target (id, "app.approve-caller"));
  g_variant_get_child (target, 2, "&s", &token);
  g_assert_cmpuint (strlen (token), ==, 32);

  /* No token, a wrong one, the right one for another caller: nothing. */
  g_action_group_activate_action (app, "approve-caller",
                                  g_variant_new ("(sss)", TEST_PROVIDER_ID, TEST_CALLER_ID, ""));
  g_action_group_activate_action (app, "approve-caller",
                                  g_variant_new ("(sss)", TEST_PROVIDER_ID, TEST_CALLER_ID,
                                                 "00000000000000000000000000000000"));
  g_action_group_activate_action (app, "approve-caller",
                                  g_variant_new ("(sss)", TEST_PROVIDER_ID, TEST_CALLER2_ID, token));
  lumo_policy_probe (f->base.policy, TEST_PROVIDER_ID, TEST_CALLER_ID, NULL, &status, &error);
  g_assert_true (status.pending_approval);

  /* The click works once. */
  g_action_group_activate_action (app, "deny-caller", g_variant_ref (target));
  g_action_group_activate_action (app, "deny-caller",
                                  g_variant_new ("(sss)", TEST_PROVIDER_ID, TEST_CALLER_ID, token));
  lumo_policy_probe (f->base.policy, TEST_PROVIDER_ID, TEST_CALLER_ID, NULL, &status, &error);
  g_assert_false (status.pending_approval);
  g_assert_false (status.authorized);
  lumo_policy_forget_caller (f->base.policy, TEST_PROVIDER_ID, TEST_CALLER_ID, LUMO_POLICY_ORIGIN_UI, &error);
  g_assert_no_error (error);
  lumo_policy_probe (f->base.policy, TEST_PROVIDER_ID, TEST_CALLER_ID, NULL, &status, &error);
  g_assert_true (status.pending_approval);
  /* The old token does not approve the new request. */
  g_action_group_activate_action (app, "approve-caller", g_variant_ref (target));
  lumo_policy_probe (f->base.policy, TEST_PROVIDER_ID, TEST_CALLER_ID, NULL, &status, &error);
  g_assert_true (status.pending_approval);

  /* Reviews the same. */
  lumo_review_queue_submit_async (f->base.queue, TEST_PROVIDER_ID, TEST_CALLER_ID, "Agent",
                                  "userscripts.delete_script", NULL, "{}", NULL,
                                  on_review_done_cb, &result);
  request = g_list_model_get_item (G_LIST_MODEL (f->base.queue), 0);
  g_action_group_activate_action (app, "approve-review",
                                  g_variant_new ("(ss)", lumo_review_request_get_id (request), token));
  app_test_iterate ();
  g_assert_false (result.done);
  g_assert_nonnull (lumo_review_queue_lookup (f->base.queue, lumo_review_request_get_id (request)));
  lumo_review_queue_decide (f->base.queue, lumo_review_request_get_id (request), FALSE, &error);
  lumo_test_wait_until (review_done, &result, "the review's outcome");
}

typedef struct
{
  GVariant *reply;
  GError   *error;
  gboolean  done;
} CallResult;

static void
on_call_done_cb (GObject      *object,
                 GAsyncResult *res,
                 gpointer      user_data)
{
  CallResult *r = user_data;

  r->reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (object), res, &r->error);
  r->done = TRUE;
}

static gboolean
call_done (gpointer data)
{
  return ((CallResult *) data)->done;
}

/* org.gtk.Actions.Activate as the desktop (or any client) sends it, from
 * a connection of its own; the app answers on the main loop. */
static void
activate_over_bus (const char *action,
                   GVariant   *target,
                   CallResult *result)
{
  GApplication *app = G_APPLICATION (app_test_get_application ());
  g_autoptr(GDBusConnection) other = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *address = g_dbus_address_get_for_bus_sync (G_BUS_TYPE_SESSION, NULL, &error);
  GVariantBuilder params;

  g_assert_no_error (error);
  other = g_dbus_connection_new_for_address_sync (address,
                                                  G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
                                                  G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
                                                  NULL, NULL, &error);
  g_assert_no_error (error);
  g_variant_builder_init (&params, G_VARIANT_TYPE ("av"));
  g_variant_builder_add (&params, "v", target);
  g_dbus_connection_call (other, g_dbus_connection_get_unique_name (g_application_get_dbus_connection (app)),
                          g_application_get_dbus_object_path (app), "org.gtk.Actions", "Activate",
                          g_variant_new ("(sava{sv})", action, &params, NULL),
                          NULL, G_DBUS_CALL_FLAGS_NONE, -1, NULL, on_call_done_cb, result);
  lumo_test_wait_until (call_done, result, "the activation's answer");
}

/* A sandboxed app may activate no action of Lumo Access, not even with the
 * right token; the desktop (not sandboxed) may, over the same path. */
static void
test_sandboxed_activation_refused (NotifierFixture *f,
                                   gconstpointer    data)
{
  g_autofree char *id = lumo_notifier_caller_id (TEST_PROVIDER_ID, TEST_CALLER_ID);
  g_autofree char *expected = g_strdup_printf ("add %s 3", id);
  g_autofree char *pid_dir = NULL;
  g_autofree char *info = NULL;
  g_autoptr(GVariant) target = NULL;
  g_autoptr(GError) error = NULL;
  CallResult refused = { 0 };
  CallResult allowed = { 0 };
  LumoPolicyStatus status;

  app_fixture_add_provider (&f->base, TEST_PROVIDER_ID, "Lumo Userscripts");
  lumo_policy_probe (f->base.policy, TEST_PROVIDER_ID, TEST_CALLER_ID, "Agent", &status, &error);
  g_assert_no_error (error);
  lumo_test_wait_until (server_saw, expected, expected);
  target = g_variant_ref_sink (button_target (id, "app.approve-caller"));

  /* In this fake /proc, the test program (every connection of it) is a
   * Flatpak app. */
  f->proc_root = lumo_test_dir_new ("proc");
  pid_dir = g_strdup_printf ("%s/%d/root", f->proc_root, (int) getpid ());
  g_assert_cmpint (g_mkdir_with_parents (pid_dir, 0700), ==, 0);
  info = g_build_filename (pid_dir, ".flatpak-info", NULL);
  g_assert_true (g_file_set_contents (info, "[Application]\nname=org.example.Evil\n", -1, NULL));
  lumo_notifier_set_proc_root (f->notifier, f->proc_root);

  activate_over_bus ("approve-caller", target, &refused);
  g_assert_error (refused.error, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED);
  g_assert_nonnull (strstr (refused.error->message, "org.example.Evil"));
  g_clear_error (&refused.error);
  lumo_policy_probe (f->base.policy, TEST_PROVIDER_ID, TEST_CALLER_ID, NULL, &status, &error);
  g_assert_true (status.pending_approval);

  /* Seen as it is (not sandboxed), the same call approves. */
  lumo_notifier_set_proc_root (f->notifier, NULL);
  activate_over_bus ("approve-caller", target, &allowed);
  g_assert_no_error (allowed.error);
  g_clear_pointer (&allowed.reply, g_variant_unref);
  lumo_policy_probe (f->base.policy, TEST_PROVIDER_ID, TEST_CALLER_ID, NULL, &status, &error);
  g_assert_true (status.authorized);
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
  g_test_add ("/notifier/review-always", NotifierFixture, NULL, setup,
              test_review_always, teardown);
  g_test_add ("/notifier/review-forced-no-always", NotifierFixture, NULL, setup,
              test_review_forced_no_always, teardown);
  g_test_add ("/notifier/desktop-agent", NotifierFixture, NULL, setup,
              test_desktop_agent_is_named, teardown);
  g_test_add ("/notifier/window-active", NotifierFixture, NULL, setup,
              test_no_notification_while_window_active, teardown);
  g_test_add ("/notifier/activation-needs-token", NotifierFixture, NULL, setup,
              test_activation_needs_token, teardown);
  g_test_add ("/notifier/sandboxed-activation-refused", NotifierFixture, NULL, setup,
              test_sandboxed_activation_refused, teardown);

  return g_test_run ();
}
