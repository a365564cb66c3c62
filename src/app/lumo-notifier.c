/* lumo-notifier.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-notifier"

#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>
#include <errno.h>
#include <sys/random.h>

#include "lumo-action-guard.h"
#include "lumo-backend.h"
#include "lumo-error.h"
#include "lumo-format.h"
#include "lumo-notifier.h"
#include "lumo-policy.h"
#include "lumo-preview.h"
#include "lumo-review-queue.h"
#include "lumo-ui-util.h"
#include "lumo-window.h"

struct _LumoNotifier
{
  GObject          parent_instance;

  GtkApplication  *application;   /* weak: the application owns us */
  LumoBackend     *backend;
  GSettings       *settings;      /* NULL without the schema */
  /* Notification IDs sent and not withdrawn → the one-time token its
   * Approve and Deny buttons carry ("" once used). */
  GHashTable      *shown;
  LumoActionGuard *guard;         /* NULL off the bus */
  guint            n_sent;
  guint            n_withdrawn;
};

G_DEFINE_FINAL_TYPE (LumoNotifier, lumo_notifier, G_TYPE_OBJECT)

char *
lumo_notifier_caller_id (const char *provider_id,
                         const char *caller_id)
{
  return g_strdup_printf ("caller-%s-%s", provider_id, caller_id);
}

char *
lumo_notifier_review_id (const char *request_id)
{
  return g_strdup_printf ("review-%s", request_id);
}

/* Someone is looking at a Lumo Access window right now, or the person
 * turned notifications off. */
static gboolean
should_stay_quiet (LumoNotifier *self)
{
  if (self->settings != NULL && !g_settings_get_boolean (self->settings, "notify-new-requests"))
    return TRUE;

  for (GList *l = gtk_application_get_windows (self->application); l != NULL; l = l->next)
    if (LUMO_IS_WINDOW (l->data) && gtk_widget_get_visible (l->data) && gtk_window_is_active (l->data))
      return TRUE;
  return FALSE;
}

/* 128 random bits from the kernel, as hex: a button's action carries it,
 * so an activation that did not come from the notification does nothing. */
static char *
new_token (void)
{
  guint8 bytes[16];
  gsize got = 0;

  while (got < sizeof bytes)
    {
      ssize_t n = getrandom (bytes + got, sizeof bytes - got, 0);

      if (n > 0)
        got += n;
      else if (errno != EINTR)
        g_error ("No random bytes for a notification token: %s", g_strerror (errno));
    }

  return g_strdup_printf ("%02x%02x%02x%02x%02x%02x%02x%02x%02x%02x%02x%02x%02x%02x%02x%02x",
                          bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                          bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]);
}

static void
send (LumoNotifier  *self,
      const char    *id,
      char          *token,
      GNotification *notification)
{
  g_application_send_notification (G_APPLICATION (self->application), id, notification);
  g_hash_table_replace (self->shown, g_strdup (id), token);
  self->n_sent++;
}

/* TRUE, once, when @token is the one the notification @id was sent with. */
static gboolean
take_token (LumoNotifier *self,
            const char   *id,
            const char   *token)
{
  char *expected = g_hash_table_lookup (self->shown, id);
  gsize len;
  guint8 diff = 0;

  if (expected == NULL || *expected == '\0' || token == NULL ||
      (len = strlen (expected)) != strlen (token))
    return FALSE;

  /* In constant time, as any comparison of a secret. */
  for (gsize i = 0; i < len; i++)
    diff |= expected[i] ^ token[i];
  if (diff != 0)
    return FALSE;

  g_hash_table_replace (self->shown, g_strdup (id), g_strdup (""));
  return TRUE;
}

static void
withdraw (LumoNotifier *self,
          const char   *id)
{
  if (!g_hash_table_remove (self->shown, id))
    return;
  g_application_withdraw_notification (G_APPLICATION (self->application), id);
  self->n_withdrawn++;
}

static char *
provider_title (LumoNotifier *self,
                const char   *provider_id)
{
  g_autoptr(LumoProviderInfo) info =
    lumo_policy_get_provider (lumo_backend_get_policy (self->backend), provider_id, NULL);

  return g_strdup (lumo_format_provider_title (info, provider_id));
}

static void
on_caller_pending_cb (LumoPolicy   *policy,
                      const char   *provider_id,
                      const char   *caller_id,
                      LumoNotifier *self)
{
  g_autoptr(LumoCallerInfo) info = lumo_policy_get_caller (policy, provider_id, caller_id, NULL);
  g_autoptr(GNotification) notification = NULL;
  g_autofree char *id = lumo_notifier_caller_id (provider_id, caller_id);
  g_autofree char *provider = provider_title (self, provider_id);
  g_autofree char *body = NULL;
  char *token;
  const char *name;

  if (info == NULL || info->state != LUMO_CALLER_STATE_PENDING || should_stay_quiet (self))
    return;

  name = info->display_name != NULL && *info->display_name != '\0' ? info->display_name : _("An agent");
  if (info->kind == LUMO_CALLER_KIND_AGENT)
    /* Translators: "The desktop agent “Claude Code” (ID) wants to use Lumo Userscripts." */
    body = g_strdup_printf (_("The desktop agent “%s” (%s) wants to use %s. Approve it only if you added it yourself."),
                            name, caller_id, provider);
  else
    /* Translators: "“Foo Agent” (ID) wants to use Lumo Userscripts." */
    body = g_strdup_printf (_("“%s” (%s) wants to use %s. Approve it only if you installed it yourself."),
                            name, caller_id, provider);

  notification = g_notification_new (info->kind == LUMO_CALLER_KIND_AGENT ? _("A Desktop Agent Asks for Access")
                                                                          : _("An Agent Asks for Access"));
  g_notification_set_body (notification, body);
  g_notification_set_priority (notification, G_NOTIFICATION_PRIORITY_HIGH);
  g_notification_set_default_action (notification, "app.show-requests");
  token = new_token ();
  g_notification_add_button_with_target (notification, _("Deny"), "app.deny-caller",
                                         "(sss)", provider_id, caller_id, token);
  g_notification_add_button_with_target (notification, _("Approve"), "app.approve-caller",
                                         "(sss)", provider_id, caller_id, token);
  g_notification_add_button (notification, _("Open"), "app.show-requests");

  send (self, id, token, notification);
}

static void
on_caller_changed_cb (LumoPolicy   *policy,
                      const char   *provider_id,
                      const char   *caller_id,
                      LumoNotifier *self)
{
  g_autoptr(LumoCallerInfo) info = lumo_policy_get_caller (policy, provider_id, caller_id, NULL);
  g_autofree char *id = lumo_notifier_caller_id (provider_id, caller_id);

  if (info == NULL || info->state != LUMO_CALLER_STATE_PENDING)
    withdraw (self, id);
}

static void
notify_review (LumoNotifier      *self,
               LumoReviewRequest *request)
{
  g_autoptr(GNotification) notification = NULL;
  g_autofree char *id = lumo_notifier_review_id (lumo_review_request_get_id (request));
  LumoReviewQueue *queue = lumo_backend_get_review_queue (self->backend);
  g_autofree char *left = lumo_format_duration (lumo_review_request_get_deadline (request) -
                                                lumo_review_queue_now (queue));
  g_autofree char *body = NULL;
  const char *name = lumo_review_request_get_caller_name (request);
  g_autofree char *preview = NULL;
  char *token = new_token ();

  if (name == NULL || *name == '\0')
    name = lumo_review_request_get_caller_id (request);

  if (lumo_policy_is_agent (lumo_backend_get_policy (self->backend), lumo_review_request_get_caller_id (request)))
    /* Translators: "The desktop agent Claude Code wants to run userscripts.install_script. It is rejected in 45 s unless you approve it." */
    body = g_strdup_printf (_("The desktop agent %s wants to run %s. It is rejected in %s unless you approve it."),
                            name, lumo_review_request_get_tool (request), left);
  else
    /* Translators: "Foo Agent wants to run userscripts.install_script. It is rejected in 45 s unless you approve it." */
    body = g_strdup_printf (_("%s wants to run %s. It is rejected in %s unless you approve it."),
                            name, lumo_review_request_get_tool (request), left);
  /* What is approved, as in the window: the reviewer may decide from here. */
  if ((preview = lumo_preview_to_text (lumo_review_request_get_preview (request))) != NULL)
    {
      char *with_preview = g_strconcat (body, "\n\n", preview, NULL);

      g_free (body);
      body = with_preview;
    }

  notification = g_notification_new (_("A Write Waits for Review"));
  g_notification_set_body (notification, body);
  g_notification_set_priority (notification, G_NOTIFICATION_PRIORITY_HIGH);
  g_notification_set_default_action (notification, "app.show-requests");
  /* Up to three buttons, the most a notification shows; the body opens the
   * window (for ten minutes, among the rest). All three carry the same
   * one-time token: the first one used spends it. */
  g_notification_add_button_with_target (notification, _("Reject"), "app.reject-review",
                                         "(ss)", lumo_review_request_get_id (request), token);
  g_notification_add_button_with_target (notification, _("Approve Once"), "app.approve-review",
                                         "(ss)", lumo_review_request_get_id (request), token);
  /* A managed file forcing review refuses the grant Always would make:
   * a notification cannot show a button it would not take, so none. */
  if (!lumo_policy_are_grants_managed (lumo_backend_get_policy (self->backend),
                                       lumo_review_request_get_provider_id (request)))
    /* Translators: a notification button: approve this write and every
     * later write of the same tool by the same agent. */
    g_notification_add_button_with_target (notification, _("Always"), "app.approve-review-always",
                                           "(ss)", lumo_review_request_get_id (request), token);

  send (self, id, token, notification);
}

static void
on_reviews_changed_cb (GListModel   *model,
                       guint         position,
                       guint         removed,
                       guint         added,
                       LumoNotifier *self)
{
  LumoReviewQueue *queue = LUMO_REVIEW_QUEUE (model);
  g_autoptr(GPtrArray) gone = g_ptr_array_new_with_free_func (g_free);
  GHashTableIter iter;
  const char *id;

  /* Decided, timed out or cancelled: the notification goes. */
  g_hash_table_iter_init (&iter, self->shown);
  while (g_hash_table_iter_next (&iter, (gpointer *)&id, NULL))
    if (g_str_has_prefix (id, "review-") && lumo_review_queue_lookup (queue, id + strlen ("review-")) == NULL)
      g_ptr_array_add (gone, g_strdup (id));
  for (guint i = 0; i < gone->len; i++)
    withdraw (self, g_ptr_array_index (gone, i));

  if (added == 0 || should_stay_quiet (self))
    return;

  for (guint i = position; i < position + added; i++)
    {
      g_autoptr(LumoReviewRequest) request = g_list_model_get_item (model, i);

      if (request != NULL)
        notify_review (self, request);
    }
}

/* ---- application actions ------------------------------------------------ */

static void
report_error (LumoNotifier *self,
              const char   *what,
              GError       *error)
{
  g_autoptr(GNotification) notification = g_notification_new (what);

  g_warning ("%s: %s", what, error->message);
  g_notification_set_body (notification, error->message);
  g_notification_set_default_action (notification, "app.show-requests");
  g_application_send_notification (G_APPLICATION (self->application), "error", notification);
}

static void
decide_caller_cb (GSimpleAction *action,
                  GVariant      *param,
                  gpointer       user_data)
{
  LumoNotifier *self = user_data;
  gboolean allow = g_str_equal (g_action_get_name (G_ACTION (action)), "approve-caller");
  g_autoptr(GError) error = NULL;
  const char *provider_id, *caller_id, *token;
  LumoPolicy *policy = lumo_backend_get_policy (self->backend);
  g_autofree char *id = NULL;
  gboolean ok;

  g_variant_get (param, "(&s&s&s)", &provider_id, &caller_id, &token);
  id = lumo_notifier_caller_id (provider_id, caller_id);
  if (!take_token (self, id, token))
    {
      g_message ("Ignored %s of %s/%s: it did not come from that caller's notification",
                 g_action_get_name (G_ACTION (action)), provider_id, caller_id);
      return;
    }

  if (allow)
    ok = lumo_policy_allow_caller (policy, provider_id, caller_id, LUMO_POLICY_ORIGIN_UI, &error);
  else
    ok = lumo_policy_deny_caller (policy, provider_id, caller_id, LUMO_POLICY_ORIGIN_UI, &error);

  if (!ok)
    report_error (self, allow ? _("Could not approve the agent") : _("Could not deny the agent"), error);
}

static void
decide_review_cb (GSimpleAction *action,
                  GVariant      *param,
                  gpointer       user_data)
{
  LumoNotifier *self = user_data;
  const char *name = g_action_get_name (G_ACTION (action));
  gboolean approve = !g_str_equal (name, "reject-review");
  LumoGrantScope grant = g_str_equal (name, "approve-review-always") ? LUMO_GRANT_SCOPE_ALWAYS
                                                                      : LUMO_GRANT_SCOPE_ONCE;
  g_autoptr(GError) error = NULL;
  g_autofree char *id = NULL;
  const char *review_id, *token;

  g_variant_get (param, "(&s&s)", &review_id, &token);
  id = lumo_notifier_review_id (review_id);
  if (!take_token (self, id, token))
    {
      g_message ("Ignored %s of the review %s: it did not come from that review's notification",
                 g_action_get_name (G_ACTION (action)), review_id);
      return;
    }

  if (!lumo_backend_decide_review (self->backend, review_id, approve, grant, LUMO_POLICY_ORIGIN_UI, &error))
    report_error (self,
                  g_error_matches (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND)
                  ? _("The write is no longer waiting") : _("Could not approve the write"),
                  error);
}

static void
show_requests_cb (GSimpleAction *action,
                  GVariant      *param,
                  gpointer       user_data)
{
  LumoNotifier *self = user_data;
  GtkWindow *window;

  g_application_activate (G_APPLICATION (self->application));
  window = gtk_application_get_active_window (self->application);
  if (LUMO_IS_WINDOW (window))
    {
      lumo_window_set_page (LUMO_WINDOW (window), "requests");
      gtk_window_present (window);
    }
}

static const GActionEntry app_actions[] = {
  /* (provider, caller, token) and (review, token): see take_token(). */
  { "approve-caller", decide_caller_cb, "(sss)" },
  { "deny-caller", decide_caller_cb, "(sss)" },
  { "approve-review", decide_review_cb, "(ss)" },
  { "approve-review-always", decide_review_cb, "(ss)" },
  { "reject-review", decide_review_cb, "(ss)" },
  { "show-requests", show_requests_cb },
};

/* ---- GObject ------------------------------------------------------------ */

static void
lumo_notifier_dispose (GObject *object)
{
  LumoNotifier *self = (LumoNotifier *)object;

  if (self->application != NULL)
    {
      for (guint i = 0; i < G_N_ELEMENTS (app_actions); i++)
        g_action_map_remove_action (G_ACTION_MAP (self->application), app_actions[i].name);
      g_object_remove_weak_pointer (G_OBJECT (self->application), (gpointer *)&self->application);
      self->application = NULL;
    }
  g_clear_pointer (&self->guard, lumo_action_guard_free);
  g_clear_object (&self->backend);
  g_clear_object (&self->settings);

  G_OBJECT_CLASS (lumo_notifier_parent_class)->dispose (object);
}

static void
lumo_notifier_finalize (GObject *object)
{
  LumoNotifier *self = (LumoNotifier *)object;

  g_clear_pointer (&self->shown, g_hash_table_unref);

  G_OBJECT_CLASS (lumo_notifier_parent_class)->finalize (object);
}

static void
lumo_notifier_class_init (LumoNotifierClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = lumo_notifier_dispose;
  object_class->finalize = lumo_notifier_finalize;
}

static void
lumo_notifier_init (LumoNotifier *self)
{
  self->shown = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

LumoNotifier *
lumo_notifier_new (GtkApplication *application,
                   LumoBackend    *backend)
{
  LumoNotifier *self;

  g_return_val_if_fail (GTK_IS_APPLICATION (application), NULL);
  g_return_val_if_fail (LUMO_IS_BACKEND (backend), NULL);

  self = g_object_new (LUMO_TYPE_NOTIFIER, NULL);
  self->application = application;
  g_object_add_weak_pointer (G_OBJECT (application), (gpointer *)&self->application);
  self->backend = g_object_ref (backend);
  self->settings = lumo_ui_lookup_settings ("notify-new-requests", NULL);

  g_action_map_add_action_entries (G_ACTION_MAP (application), app_actions,
                                   G_N_ELEMENTS (app_actions), self);
  self->guard = lumo_action_guard_new (G_APPLICATION (application), NULL);

  g_signal_connect_object (lumo_backend_get_policy (backend), "caller-pending",
                           G_CALLBACK (on_caller_pending_cb), self, 0);
  g_signal_connect_object (lumo_backend_get_policy (backend), "caller-changed",
                           G_CALLBACK (on_caller_changed_cb), self, 0);
  g_signal_connect_object (lumo_backend_get_review_queue (backend), "items-changed",
                           G_CALLBACK (on_reviews_changed_cb), self, 0);

  return self;
}

void
lumo_notifier_install (GtkApplication *application,
                       LumoBackend    *backend)
{
  g_return_if_fail (GTK_IS_APPLICATION (application));
  g_return_if_fail (LUMO_IS_BACKEND (backend));

  g_object_set_data_full (G_OBJECT (application), "lumo-notifier",
                          lumo_notifier_new (application, backend), g_object_unref);
}

void
lumo_notifier_set_proc_root (LumoNotifier *self,
                             const char   *proc_root)
{
  g_return_if_fail (LUMO_IS_NOTIFIER (self));

  g_clear_pointer (&self->guard, lumo_action_guard_free);
  if (self->application != NULL)
    self->guard = lumo_action_guard_new (G_APPLICATION (self->application), proc_root);
}

guint
lumo_notifier_get_n_sent (LumoNotifier *self)
{
  g_return_val_if_fail (LUMO_IS_NOTIFIER (self), 0);
  return self->n_sent;
}

guint
lumo_notifier_get_n_withdrawn (LumoNotifier *self)
{
  g_return_val_if_fail (LUMO_IS_NOTIFIER (self), 0);
  return self->n_withdrawn;
}
