/* lumo-requests-page.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-requests-page"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "lumo-backend.h"
#include "lumo-caller-row.h"
#include "lumo-error.h"
#include "lumo-first-run.h"
#include "lumo-format.h"
#include "lumo-policy.h"
#include "lumo-protocol.h"
#include "lumo-requests-page.h"
#include "lumo-review-queue.h"
#include "lumo-review-row.h"
#include "lumo-ui-util.h"

struct _LumoRequestsPage
{
  AdwBin           parent_instance;

  /* Template widgets */
  GtkStack        *stack;
  LumoFirstRun    *first_run;
  GtkWidget       *callers_box;
  GtkListBox      *callers_list;
  GtkWidget       *bulk_box;
  GtkWidget       *reviews_box;
  GtkListBox      *reviews_list;

  /* Owned */
  LumoBackend     *backend;
  LumoCallerModel *pending;
  GHashTable      *checked;        /* "provider/caller" of the checked rows */
  guint            countdown_id;
  guint            set_up : 1;      /* a provider has connected once: no first-run set-up */
};

G_DEFINE_FINAL_TYPE (LumoRequestsPage, lumo_requests_page, ADW_TYPE_BIN)

static LumoPolicy *
get_policy (LumoRequestsPage *self)
{
  return self->backend != NULL ? lumo_backend_get_policy (self->backend) : NULL;
}

static GListModel *
get_reviews (LumoRequestsPage *self)
{
  return self->backend != NULL ? G_LIST_MODEL (lumo_backend_get_review_queue (self->backend)) : NULL;
}

static void
update_bulk_actions (LumoRequestsPage *self)
{
  gboolean any = g_hash_table_size (self->checked) > 0;

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "requests.approve-selected", any);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "requests.deny-selected", any);
}

static gboolean
on_countdown_cb (gpointer user_data)
{
  LumoRequestsPage *self = user_data;

  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->reviews_list));
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (LUMO_IS_REVIEW_ROW (child))
      lumo_review_row_update (LUMO_REVIEW_ROW (child));

  return G_SOURCE_CONTINUE;
}

/* Shows the right parts and keeps the countdown ticking only while a
 * review waits. */
static void
update_state (LumoRequestsPage *self)
{
  guint n_callers = self->pending ? g_list_model_get_n_items (G_LIST_MODEL (self->pending)) : 0;
  GListModel *reviews = get_reviews (self);
  guint n_reviews = reviews ? g_list_model_get_n_items (reviews) : 0;

  gtk_widget_set_visible (self->callers_box, n_callers > 0);
  gtk_widget_set_visible (self->bulk_box, n_callers > 1);
  gtk_widget_set_visible (self->reviews_box, n_reviews > 0);
  /* Something waiting always wins over the set-up. */
  if (n_callers + n_reviews > 0)
    gtk_stack_set_visible_child_name (self->stack, "list");
  else
    gtk_stack_set_visible_child_name (self->stack, self->set_up ? "empty" : "setup");

  if (n_reviews > 0 && self->countdown_id == 0)
    {
      self->countdown_id = g_timeout_add_seconds (1, on_countdown_cb, self);
      g_source_set_name_by_id (self->countdown_id, "[lumo] review countdown");
    }
  else if (n_reviews == 0)
    g_clear_handle_id (&self->countdown_id, g_source_remove);
}

static void
on_pending_items_changed_cb (GListModel       *model,
                             guint             position,
                             guint             removed,
                             guint             added,
                             LumoRequestsPage *self)
{
  GHashTableIter iter;
  const char *key;

  /* A caller that was decided (here, by the CLI, by a notification) is no
   * longer part of a selection. */
  g_hash_table_iter_init (&iter, self->checked);
  while (g_hash_table_iter_next (&iter, (gpointer *)&key, NULL))
    {
      char provider_id[LUMO_EXTENSION_ID_LEN + 1];
      char caller_id[LUMO_EXTENSION_ID_LEN + 1];

      if (!lumo_caller_key_split (key, provider_id, caller_id) ||
          lumo_caller_model_find (self->pending, provider_id, caller_id) == NULL)
        g_hash_table_iter_remove (&iter);
    }

  update_bulk_actions (self);
  update_state (self);
}

static void
on_reviews_items_changed_cb (GListModel       *model,
                             guint             position,
                             guint             removed,
                             guint             added,
                             LumoRequestsPage *self)
{
  update_state (self);
}

static void
on_row_checked_cb (LumoCallerRow    *row,
                   GParamSpec       *pspec,
                   LumoRequestsPage *self)
{
  LumoCallerItem *item = lumo_caller_row_get_item (row);
  char *key = lumo_caller_key_new (lumo_caller_item_get_provider_id (item), lumo_caller_item_get_caller_id (item));

  if (lumo_caller_row_get_checked (row))
    g_hash_table_add (self->checked, key);
  else
    {
      g_hash_table_remove (self->checked, key);
      g_free (key);
    }

  update_bulk_actions (self);
}

static GtkWidget *
create_caller_row_cb (gpointer item,
                      gpointer user_data)
{
  LumoRequestsPage *self = user_data;
  LumoCallerItem *caller = item;
  g_autoptr(LumoProviderInfo) provider = NULL;
  g_autofree char *key = NULL;
  const char *provider_id = lumo_caller_item_get_provider_id (caller);
  GtkWidget *row;

  provider = lumo_policy_get_provider (get_policy (self), provider_id, NULL);
  row = lumo_caller_row_new (caller, lumo_format_provider_title (provider, provider_id));
  key = lumo_caller_key_new (provider_id, lumo_caller_item_get_caller_id (caller));
  lumo_caller_row_set_checked (LUMO_CALLER_ROW (row), g_hash_table_contains (self->checked, key));
  g_signal_connect_object (row, "notify::checked", G_CALLBACK (on_row_checked_cb), self, 0);

  return row;
}

static GtkWidget *
create_review_row_cb (gpointer item,
                      gpointer user_data)
{
  LumoRequestsPage *self = user_data;
  GtkWidget *row = lumo_review_row_new (item, lumo_backend_get_review_queue (self->backend));

  if (lumo_policy_is_agent (get_policy (self), lumo_review_request_get_caller_id (item)))
    lumo_review_row_set_desktop_agent (LUMO_REVIEW_ROW (row));
  lumo_review_row_set_grants_managed (LUMO_REVIEW_ROW (row),
                                      lumo_policy_are_grants_managed (get_policy (self),
                                                                      lumo_review_request_get_provider_id (item)));
  return row;
}

/* A managed policy file that starts or stops forcing review changes what
 * the waiting rows' grant buttons can do. */
static void
on_policy_managed_changed_cb (LumoPolicy       *policy,
                              LumoRequestsPage *self)
{
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->reviews_list));
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      LumoReviewRequest *request;

      if (!LUMO_IS_REVIEW_ROW (child))
        continue;
      request = lumo_review_row_get_request (LUMO_REVIEW_ROW (child));
      lumo_review_row_set_grants_managed (LUMO_REVIEW_ROW (child),
                                          lumo_policy_are_grants_managed (policy,
                                                                          lumo_review_request_get_provider_id (request)));
    }
}

/* ---- the first-run set-up ----------------------------------------------- */

/* The set-up is over once any provider has said hello, and stays over (the
 * policy remembers it across restarts). A database error keeps it shown: it
 * only explains, it never decides anything. */
static void
check_set_up (LumoRequestsPage *self,
              const char       *provider_id)
{
  g_autoptr(GError) error = NULL;
  LumoPolicy *policy = get_policy (self);

  if (self->set_up || policy == NULL)
    return;

  if (!lumo_policy_has_seen_provider (policy, &error))
    {
      if (error != NULL)
        g_warning ("Cannot tell whether a provider has connected: %s", error->message);
      return;
    }

  self->set_up = TRUE;
  update_state (self);

  /* Announced only when it happens while the window is open. */
  if (provider_id != NULL)
    {
      g_autoptr(LumoProviderInfo) info = lumo_policy_get_provider (policy, provider_id, NULL);
      /* Translators: %s is a provider's name, e.g. "Lumo Userscripts". */
      g_autofree char *text = g_strdup_printf (_("%s connected: the set-up is complete"),
                                               lumo_format_provider_title (info, provider_id));

      lumo_ui_show_toast (GTK_WIDGET (self), lumo_ui_toast_new (text));
    }
}

static void
on_provider_changed_cb (LumoPolicy       *policy,
                        const char       *provider_id,
                        LumoRequestsPage *self)
{
  check_set_up (self, provider_id);
}

/* ---- actions ------------------------------------------------------------ */

static gboolean
decide_caller (LumoRequestsPage *self,
               const char       *provider_id,
               const char       *caller_id,
               gboolean          allow)
{
  g_autoptr(GError) error = NULL;
  LumoPolicy *policy = get_policy (self);
  gboolean ok;

  if (policy == NULL)
    return FALSE;

  if (allow)
    ok = lumo_policy_allow_caller (policy, provider_id, caller_id, LUMO_POLICY_ORIGIN_UI, &error);
  else
    ok = lumo_policy_deny_caller (policy, provider_id, caller_id, LUMO_POLICY_ORIGIN_UI, &error);

  if (!ok)
    lumo_ui_show_error (GTK_WIDGET (self),
                        allow ? _("Could not approve the agent") : _("Could not deny the agent"),
                        error);
  return ok;
}

static void
decide_caller_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *param)
{
  LumoRequestsPage *self = LUMO_REQUESTS_PAGE (widget);
  const char *provider_id;
  const char *caller_id;

  g_variant_get (param, "(&s&s)", &provider_id, &caller_id);
  decide_caller (self, provider_id, caller_id, g_str_equal (action_name, "requests.approve-caller"));
}

static void
decide_selected_action (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *param)
{
  LumoRequestsPage *self = LUMO_REQUESTS_PAGE (widget);
  gboolean allow = g_str_equal (action_name, "requests.approve-selected");
  g_autofree gpointer *keys = NULL;
  guint n_keys = 0;
  guint n_done = 0;

  /* A copy: each decision prunes the set through the model. */
  keys = g_hash_table_get_keys_as_array (self->checked, &n_keys);
  for (guint i = 0; i < n_keys; i++)
    keys[i] = g_strdup (keys[i]);

  for (guint i = 0; i < n_keys; i++)
    {
      char provider_id[LUMO_EXTENSION_ID_LEN + 1];
      char caller_id[LUMO_EXTENSION_ID_LEN + 1];

      if (lumo_caller_key_split (keys[i], provider_id, caller_id) &&
          decide_caller (self, provider_id, caller_id, allow))
        n_done++;
      g_free (keys[i]);
    }

  if (n_done > 0)
    {
      g_autofree char *text =
        g_strdup_printf (allow ? g_dngettext (GETTEXT_PACKAGE, "Approved %u agent", "Approved %u agents", n_done)
                               : g_dngettext (GETTEXT_PACKAGE, "Denied %u agent", "Denied %u agents", n_done),
                         n_done);

      lumo_ui_show_toast (GTK_WIDGET (self), lumo_ui_toast_new (text));
    }
}

static void
decide_review_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *param)
{
  LumoRequestsPage *self = LUMO_REQUESTS_PAGE (widget);
  gboolean approve = !g_str_equal (action_name, "requests.reject-review");
  LumoGrantScope grant = g_str_equal (action_name, "requests.approve-review-always") ? LUMO_GRANT_SCOPE_ALWAYS
                       : g_str_equal (action_name, "requests.approve-review-timed") ? LUMO_GRANT_SCOPE_TEN_MINUTES
                       : LUMO_GRANT_SCOPE_ONCE;
  g_autoptr(GError) error = NULL;

  if (self->backend == NULL)
    return;

  /* NOT_FOUND: it timed out or its session ended a moment ago; with a
   * grant, NOT_AUTHORIZED: the caller was denied meanwhile. */
  if (!lumo_backend_decide_review (self->backend, g_variant_get_string (param, NULL), approve, grant,
                                   LUMO_POLICY_ORIGIN_UI, &error))
    lumo_ui_show_error (GTK_WIDGET (self),
                        g_error_matches (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND)
                        ? _("The write is no longer waiting") : _("Could not approve the write"),
                        error);
}

/* ---- GObject ------------------------------------------------------------ */

static void
lumo_requests_page_dispose (GObject *object)
{
  LumoRequestsPage *self = (LumoRequestsPage *)object;

  g_clear_handle_id (&self->countdown_id, g_source_remove);
  if (self->callers_list != NULL)
    gtk_list_box_bind_model (self->callers_list, NULL, NULL, NULL, NULL);
  if (self->reviews_list != NULL)
    gtk_list_box_bind_model (self->reviews_list, NULL, NULL, NULL, NULL);
  if (self->backend != NULL)
    g_signal_handlers_disconnect_by_data (lumo_backend_get_review_queue (self->backend), self);
  g_clear_object (&self->pending);
  g_clear_object (&self->backend);

  G_OBJECT_CLASS (lumo_requests_page_parent_class)->dispose (object);
}

static void
lumo_requests_page_finalize (GObject *object)
{
  LumoRequestsPage *self = (LumoRequestsPage *)object;

  g_clear_pointer (&self->checked, g_hash_table_unref);

  G_OBJECT_CLASS (lumo_requests_page_parent_class)->finalize (object);
}

static void
lumo_requests_page_class_init (LumoRequestsPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = lumo_requests_page_dispose;
  object_class->finalize = lumo_requests_page_finalize;

  gtk_widget_class_set_template_from_resource (widget_class, "/dev/lumo/Access/lumo-requests-page.ui");
  g_type_ensure (LUMO_TYPE_FIRST_RUN);
  gtk_widget_class_bind_template_child (widget_class, LumoRequestsPage, stack);
  gtk_widget_class_bind_template_child (widget_class, LumoRequestsPage, first_run);
  gtk_widget_class_bind_template_child (widget_class, LumoRequestsPage, callers_box);
  gtk_widget_class_bind_template_child (widget_class, LumoRequestsPage, callers_list);
  gtk_widget_class_bind_template_child (widget_class, LumoRequestsPage, bulk_box);
  gtk_widget_class_bind_template_child (widget_class, LumoRequestsPage, reviews_box);
  gtk_widget_class_bind_template_child (widget_class, LumoRequestsPage, reviews_list);

  gtk_widget_class_install_action (widget_class, "requests.approve-caller", "(ss)", decide_caller_action);
  gtk_widget_class_install_action (widget_class, "requests.deny-caller", "(ss)", decide_caller_action);
  gtk_widget_class_install_action (widget_class, "requests.approve-selected", NULL, decide_selected_action);
  gtk_widget_class_install_action (widget_class, "requests.deny-selected", NULL, decide_selected_action);
  gtk_widget_class_install_action (widget_class, "requests.approve-review", "s", decide_review_action);
  gtk_widget_class_install_action (widget_class, "requests.approve-review-timed", "s", decide_review_action);
  gtk_widget_class_install_action (widget_class, "requests.approve-review-always", "s", decide_review_action);
  gtk_widget_class_install_action (widget_class, "requests.reject-review", "s", decide_review_action);
}

static void
lumo_requests_page_init (LumoRequestsPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->checked = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  update_bulk_actions (self);
  update_state (self);
}

void
lumo_requests_page_set_backend (LumoRequestsPage *self,
                                LumoBackend      *backend,
                                LumoCallerModel  *pending)
{
  GListModel *reviews;

  g_return_if_fail (LUMO_IS_REQUESTS_PAGE (self));
  g_return_if_fail (LUMO_IS_BACKEND (backend));
  g_return_if_fail (LUMO_IS_CALLER_MODEL (pending));
  g_return_if_fail (lumo_caller_model_get_policy (pending) == lumo_backend_get_policy (backend));
  g_return_if_fail (self->backend == NULL);

  self->backend = g_object_ref (backend);
  self->pending = g_object_ref (pending);
  reviews = get_reviews (self);

  gtk_list_box_bind_model (self->callers_list, G_LIST_MODEL (self->pending),
                           create_caller_row_cb, self, NULL);
  gtk_list_box_bind_model (self->reviews_list, reviews, create_review_row_cb, self, NULL);

  g_signal_connect_object (self->pending, "items-changed",
                           G_CALLBACK (on_pending_items_changed_cb), self, 0);
  g_signal_connect_object (reviews, "items-changed",
                           G_CALLBACK (on_reviews_items_changed_cb), self, 0);
  g_signal_connect_object (lumo_backend_get_policy (backend), "managed-changed",
                           G_CALLBACK (on_policy_managed_changed_cb), self, 0);

  check_set_up (self, NULL);
  if (!self->set_up)
    {
      /* Only a window that shows the set-up looks for browsers here. */
      g_signal_connect_object (lumo_backend_get_policy (backend), "provider-changed",
                               G_CALLBACK (on_provider_changed_cb), self, 0);
      lumo_first_run_set_backend (self->first_run, backend);
    }

  update_state (self);
}

gboolean
lumo_requests_page_get_set_up (LumoRequestsPage *self)
{
  g_return_val_if_fail (LUMO_IS_REQUESTS_PAGE (self), FALSE);

  return self->set_up;
}

LumoFirstRun *
lumo_requests_page_get_first_run (LumoRequestsPage *self)
{
  g_return_val_if_fail (LUMO_IS_REQUESTS_PAGE (self), NULL);

  return self->first_run;
}

LumoCallerModel *
lumo_requests_page_get_pending (LumoRequestsPage *self)
{
  g_return_val_if_fail (LUMO_IS_REQUESTS_PAGE (self), NULL);

  return self->pending;
}
