/* lumo-access-page.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-access-page"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "lumo-access-page-private.h"
#include "lumo-backend.h"
#include "lumo-error.h"
#include "lumo-format.h"
#include "lumo-provider-model.h"
#include "lumo-ui-util.h"

G_DEFINE_FINAL_TYPE (LumoAccessPage, lumo_access_page, ADW_TYPE_BIN)

static LumoPolicy *
get_policy (LumoAccessPage *self)
{
  return lumo_backend_get_policy (self->backend);
}

/* ---- switches ----------------------------------------------------------- */

/* A switch a managed file binds shows what is in force, cannot be
 * changed, and says why instead of what it does. */
static void
sync_row (AdwActionRow     *row,
          const char       *subtitle,
          LumoProviderInfo *info,
          LumoPolicySwitch  sw,
          gboolean          sensitive)
{
  gboolean managed = info != NULL && (info->managed & (1u << sw)) != 0;

  adw_action_row_set_subtitle (row, managed ? lumo_ui_managed_text () : subtitle);
  gtk_widget_set_sensitive (GTK_WIDGET (row), sensitive && !managed);
}

static void
sync_switches (LumoAccessPage *self)
{
  g_autoptr(LumoProviderInfo) info = NULL;

  if (self->provider_id != NULL)
    info = lumo_policy_get_provider (get_policy (self), self->provider_id, NULL);

  self->syncing = TRUE;
  gtk_switch_set_active (self->enabled_switch, info != NULL && info->enabled);
  gtk_switch_set_active (self->writes_switch, info != NULL && info->writes);
  gtk_switch_set_active (self->review_switch, info != NULL && info->review);
  self->syncing = FALSE;

  /* The policy keeps each switch as it is; the rows only show which
   * ones matter while the one above is off. */
  sync_row (self->enabled_row, self->switch_subtitles[0], info, LUMO_POLICY_SWITCH_ENABLED, info != NULL);
  sync_row (self->writes_row, self->switch_subtitles[1], info, LUMO_POLICY_SWITCH_WRITES,
            info != NULL && info->enabled);
  sync_row (self->review_row, self->switch_subtitles[2], info, LUMO_POLICY_SWITCH_REVIEW,
            info != NULL && info->enabled && info->writes);
}

static void
on_switch_active_cb (GtkSwitch      *sw,
                     GParamSpec     *pspec,
                     LumoAccessPage *self)
{
  g_autoptr(GError) error = NULL;
  LumoPolicySwitch which;

  if (self->syncing || self->provider_id == NULL)
    return;

  if (sw == self->enabled_switch)
    which = LUMO_POLICY_SWITCH_ENABLED;
  else if (sw == self->writes_switch)
    which = LUMO_POLICY_SWITCH_WRITES;
  else
    which = LUMO_POLICY_SWITCH_REVIEW;

  if (!lumo_policy_set_switch (get_policy (self), self->provider_id, which,
                               gtk_switch_get_active (sw), LUMO_POLICY_ORIGIN_UI, &error))
    lumo_ui_show_error (GTK_WIDGET (self), _("Could not change the setting"), error);

  /* Either way the switches show what the policy holds now. */
  sync_switches (self);
}

/* ---- caller lists ------------------------------------------------------- */

static char *
caller_subtitle_markup (LumoCallerItem *item)
{
  const LumoCallerInfo *info = lumo_caller_item_get_info (item);
  g_autofree char *first = lumo_format_time_relative (info->first_seen, 0);
  g_autofree char *last = lumo_format_time_relative (info->last_seen, 0);
  g_autofree char *details = NULL;
  guint n_writes = (guint) MIN (info->write_count, G_MAXUINT);

  /* Translators: "first seen 5 minutes ago · last seen just now · 3 writes". */
  details = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                          "first seen %s · last seen %s · %u write",
                                          "first seen %s · last seen %s · %u writes",
                                          n_writes),
                             first, last, n_writes);
  if (info->managed)
    return g_markup_printf_escaped ("<tt>%s</tt>\n%s\n%s", info->id, lumo_ui_managed_text (), details);
  return g_markup_printf_escaped ("<tt>%s</tt>\n%s", info->id, details);
}

/* A caller whose state a managed file decides cannot be changed here. */
static void
update_caller_row (AdwActionRow   *row,
                   LumoCallerItem *item)
{
  g_autofree char *title = g_markup_escape_text (lumo_caller_item_get_title (item), -1);
  g_autofree char *subtitle = caller_subtitle_markup (item);

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_action_row_set_subtitle (row, subtitle);
  gtk_widget_set_sensitive (GTK_WIDGET (row), !lumo_caller_item_get_info (item)->managed);
}

static void
on_caller_item_notify_cb (LumoCallerItem *item,
                          GParamSpec     *pspec,
                          AdwActionRow   *row)
{
  update_caller_row (row, item);
}

static GtkWidget *
caller_button (LumoCallerItem *item,
               const char     *icon_name,
               const char     *label,
               const char     *tooltip,
               const char     *action_name,
               char           *accessible)
{
  GtkWidget *button;

  if (icon_name != NULL)
    {
      button = gtk_button_new_from_icon_name (icon_name);
      gtk_widget_add_css_class (button, "flat");
    }
  else
    button = gtk_button_new_with_mnemonic (label);

  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  gtk_widget_set_tooltip_text (button, tooltip);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (button), action_name);
  gtk_actionable_set_action_target (GTK_ACTIONABLE (button), "(ss)",
                                    lumo_caller_item_get_provider_id (item),
                                    lumo_caller_item_get_caller_id (item));
  lumo_ui_set_accessible_label (button, accessible);
  g_free (accessible);

  return button;
}

static GtkWidget *
new_caller_row (LumoCallerItem *item)
{
  GtkWidget *row = adw_action_row_new ();

  adw_action_row_set_subtitle_lines (ADW_ACTION_ROW (row), 0);
  update_caller_row (ADW_ACTION_ROW (row), item);
  if (lumo_caller_item_get_info (item)->kind == LUMO_CALLER_KIND_AGENT)
    adw_action_row_add_suffix (ADW_ACTION_ROW (row), lumo_ui_agent_tag_new ());
  g_signal_connect_object (item, "notify", G_CALLBACK (on_caller_item_notify_cb), row, 0);

  return row;
}

static GtkWidget *
create_allowed_row_cb (gpointer item,
                       gpointer user_data)
{
  GtkWidget *row = new_caller_row (item);

  adw_action_row_add_suffix (ADW_ACTION_ROW (row),
                             caller_button (item, "user-trash-symbolic", NULL,
                                            _("Remove from the allow-list; it will have to ask again"),
                                            "access.forget-caller",
                                            g_strdup_printf (_("Remove %s"), lumo_caller_item_get_title (item))));
  return row;
}

static GtkWidget *
create_denied_row_cb (gpointer item,
                      gpointer user_data)
{
  GtkWidget *row = new_caller_row (item);

  adw_action_row_add_suffix (ADW_ACTION_ROW (row),
                             caller_button (item, NULL, _("_Forget"),
                                            _("Forget this agent; it will have to ask again"),
                                            "access.forget-caller",
                                            g_strdup_printf (_("Forget %s"), lumo_caller_item_get_title (item))));
  adw_action_row_add_suffix (ADW_ACTION_ROW (row),
                             caller_button (item, NULL, _("A_llow"), _("Allow this agent"),
                                            "access.allow-caller",
                                            g_strdup_printf (_("Allow %s"), lumo_caller_item_get_title (item))));
  return row;
}

static void
undo_with_toast (AdwToast       *toast,
                 LumoAccessPage *self)
{
  gtk_widget_activate_action (GTK_WIDGET (self), "access.undo", NULL);
}

static void
caller_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *param)
{
  LumoAccessPage *self = LUMO_ACCESS_PAGE (widget);
  g_autoptr(GError) error = NULL;
  g_autoptr(LumoCallerInfo) info = NULL;
  const char *provider_id, *caller_id;
  gboolean forget = g_str_equal (action_name, "access.forget-caller");
  gboolean ok;

  g_variant_get (param, "(&s&s)", &provider_id, &caller_id);
  info = lumo_policy_get_caller (get_policy (self), provider_id, caller_id, NULL);

  if (forget)
    ok = lumo_policy_forget_caller (get_policy (self), provider_id, caller_id,
                                    LUMO_POLICY_ORIGIN_UI, &error);
  else
    ok = lumo_policy_allow_caller (get_policy (self), provider_id, caller_id,
                                   LUMO_POLICY_ORIGIN_UI, &error);

  if (!ok)
    lumo_ui_show_error (widget, forget ? _("Could not remove the agent") : _("Could not allow the agent"),
                        error);
  else if (forget)
    {
      g_autofree char *text = g_strdup_printf (_("Removed %s"), lumo_format_caller_title (info, caller_id));
      AdwToast *toast = lumo_ui_toast_new (text);

      adw_toast_set_button_label (toast, _("_Undo"));
      g_signal_connect_object (toast, "button-clicked", G_CALLBACK (undo_with_toast), self, 0);
      lumo_ui_show_toast (widget, toast);
    }
}

/* ---- adding by ID ------------------------------------------------------- */

static void
on_add_entry_submit_cb (LumoAccessPage *self,
                        const char     *id)
{
  g_autoptr(GError) error = NULL;

  if (self->provider_id == NULL)
    return;

  if (!lumo_policy_add_caller (get_policy (self), self->provider_id, id, NULL,
                               LUMO_POLICY_ORIGIN_UI, &error))
    {
      lumo_id_entry_show_error (self->add_entry, error->message);
      return;
    }

  lumo_id_entry_clear (self->add_entry);
  lumo_ui_show_toast (GTK_WIDGET (self), lumo_ui_toast_new (_("Agent added to the allow-list")));
}

/* ---- providers ---------------------------------------------------------- */

static void
show_provider (LumoAccessPage *self,
               const char     *provider_id)
{
  if (g_strcmp0 (self->provider_id, provider_id) != 0)
    {
      g_free (self->provider_id);
      self->provider_id = g_strdup (provider_id);
    }

  lumo_caller_model_set_provider_id (self->allowed, provider_id != NULL ? provider_id : "");
  lumo_caller_model_set_provider_id (self->denied, provider_id != NULL ? provider_id : "");
  lumo_grants_group_set_provider_id (self->grants_group, provider_id);
  sync_switches (self);
  lumo_id_entry_set_ready (self->add_entry, provider_id != NULL);
}

static void
on_provider_selected_cb (AdwComboRow    *row,
                         GParamSpec     *pspec,
                         LumoAccessPage *self)
{
  LumoProviderItem *item = adw_combo_row_get_selected_item (row);

  if (item != NULL)
    show_provider (self, lumo_provider_item_get_id (item));
}

static void
on_providers_items_changed_cb (GListModel     *model,
                               guint           position,
                               guint           removed,
                               guint           added,
                               LumoAccessPage *self)
{
  guint n = g_list_model_get_n_items (model);
  guint index = 0;

  gtk_stack_set_visible_child_name (self->stack, n > 0 ? "page" : "empty");
  gtk_widget_set_visible (GTK_WIDGET (self->provider_group), n > 1);

  if (n == 0)
    {
      show_provider (self, NULL);
      return;
    }

  /* Keep showing the same provider when others come and go. */
  if (self->provider_id == NULL ||
      lumo_provider_model_find (self->providers, self->provider_id, &index) == NULL)
    index = 0;

  if (adw_combo_row_get_selected (self->provider_row) != index)
    adw_combo_row_set_selected (self->provider_row, index);
  else
    on_provider_selected_cb (self->provider_row, NULL, self);
}

static void
on_policy_provider_changed_cb (LumoPolicy     *policy,
                               const char     *provider_id,
                               LumoAccessPage *self)
{
  if (g_strcmp0 (provider_id, self->provider_id) == 0)
    sync_switches (self);
}

static void
on_policy_history_changed_cb (LumoPolicy     *policy,
                              LumoAccessPage *self)
{
  _lumo_access_page_reload_history (self);
}

/* ---- GObject ------------------------------------------------------------ */

static void
lumo_access_page_dispose (GObject *object)
{
  LumoAccessPage *self = (LumoAccessPage *)object;

  if (self->allowed_list != NULL)
    gtk_list_box_bind_model (self->allowed_list, NULL, NULL, NULL, NULL);
  if (self->denied_list != NULL)
    gtk_list_box_bind_model (self->denied_list, NULL, NULL, NULL, NULL);
  if (self->provider_row != NULL)
    adw_combo_row_set_model (self->provider_row, NULL);

  g_clear_object (&self->allowed);
  g_clear_object (&self->denied);
  g_clear_object (&self->providers);
  g_clear_object (&self->backend);

  G_OBJECT_CLASS (lumo_access_page_parent_class)->dispose (object);
}

static void
lumo_access_page_finalize (GObject *object)
{
  LumoAccessPage *self = (LumoAccessPage *)object;

  g_clear_pointer (&self->provider_id, g_free);
  for (guint i = 0; i < G_N_ELEMENTS (self->switch_subtitles); i++)
    g_clear_pointer (&self->switch_subtitles[i], g_free);

  G_OBJECT_CLASS (lumo_access_page_parent_class)->finalize (object);
}

static void
lumo_access_page_class_init (LumoAccessPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = lumo_access_page_dispose;
  object_class->finalize = lumo_access_page_finalize;

  g_type_ensure (LUMO_TYPE_ID_ENTRY);
  g_type_ensure (LUMO_TYPE_AGENTS_GROUP);
  g_type_ensure (LUMO_TYPE_GRANTS_GROUP);
  gtk_widget_class_set_template_from_resource (widget_class, "/dev/lumo/Access/lumo-access-page.ui");
  gtk_widget_class_bind_template_child (widget_class, LumoAccessPage, stack);
  gtk_widget_class_bind_template_child (widget_class, LumoAccessPage, provider_group);
  gtk_widget_class_bind_template_child (widget_class, LumoAccessPage, provider_row);
  gtk_widget_class_bind_template_child (widget_class, LumoAccessPage, enabled_row);
  gtk_widget_class_bind_template_child (widget_class, LumoAccessPage, writes_row);
  gtk_widget_class_bind_template_child (widget_class, LumoAccessPage, review_row);
  gtk_widget_class_bind_template_child (widget_class, LumoAccessPage, enabled_switch);
  gtk_widget_class_bind_template_child (widget_class, LumoAccessPage, writes_switch);
  gtk_widget_class_bind_template_child (widget_class, LumoAccessPage, review_switch);
  gtk_widget_class_bind_template_child (widget_class, LumoAccessPage, allowed_list);
  gtk_widget_class_bind_template_child (widget_class, LumoAccessPage, grants_group);
  gtk_widget_class_bind_template_child (widget_class, LumoAccessPage, denied_list);
  gtk_widget_class_bind_template_child (widget_class, LumoAccessPage, add_entry);
  gtk_widget_class_bind_template_child (widget_class, LumoAccessPage, agents_group);
  gtk_widget_class_bind_template_child (widget_class, LumoAccessPage, history_list);
  gtk_widget_class_bind_template_callback (widget_class, on_add_entry_submit_cb);

  gtk_widget_class_install_action (widget_class, "access.forget-caller", "(ss)", caller_action);
  gtk_widget_class_install_action (widget_class, "access.allow-caller", "(ss)", caller_action);
  gtk_widget_class_install_action (widget_class, "access.undo", NULL, _lumo_access_page_undo_action);
}

static void
lumo_access_page_init (LumoAccessPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  /* What each switch does, shown again when no managed file binds it. */
  self->switch_subtitles[0] = g_strdup (adw_action_row_get_subtitle (self->enabled_row));
  self->switch_subtitles[1] = g_strdup (adw_action_row_get_subtitle (self->writes_row));
  self->switch_subtitles[2] = g_strdup (adw_action_row_get_subtitle (self->review_row));

  gtk_list_box_set_placeholder (self->allowed_list, lumo_ui_placeholder_new (_("No agent is allowed yet")));
  gtk_list_box_set_placeholder (self->denied_list, lumo_ui_placeholder_new (_("No agent is denied")));
  gtk_list_box_set_placeholder (self->history_list, lumo_ui_placeholder_new (_("No changes yet")));

  g_signal_connect (self->enabled_switch, "notify::active", G_CALLBACK (on_switch_active_cb), self);
  g_signal_connect (self->writes_switch, "notify::active", G_CALLBACK (on_switch_active_cb), self);
  g_signal_connect (self->review_switch, "notify::active", G_CALLBACK (on_switch_active_cb), self);

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "access.undo", FALSE);
}

void
lumo_access_page_set_backend (LumoAccessPage *self,
                              LumoBackend    *backend)
{
  LumoPolicy *policy;

  g_return_if_fail (LUMO_IS_ACCESS_PAGE (self));
  g_return_if_fail (LUMO_IS_BACKEND (backend));
  g_return_if_fail (self->backend == NULL);

  self->backend = g_object_ref (backend);
  policy = get_policy (self);
  self->providers = lumo_provider_model_new (backend);
  /* Nothing until a provider is chosen. */
  self->allowed = lumo_caller_model_new (policy, "", LUMO_CALLER_STATE_ALLOWED);
  self->denied = lumo_caller_model_new (policy, "", LUMO_CALLER_STATE_DENIED);

  gtk_list_box_bind_model (self->allowed_list, G_LIST_MODEL (self->allowed),
                           create_allowed_row_cb, self, NULL);
  gtk_list_box_bind_model (self->denied_list, G_LIST_MODEL (self->denied),
                           create_denied_row_cb, self, NULL);
  lumo_grants_group_set_policy (self->grants_group, policy);

  adw_combo_row_set_expression (self->provider_row,
                                gtk_property_expression_new (LUMO_TYPE_PROVIDER_ITEM, NULL, "title"));
  adw_combo_row_set_model (self->provider_row, G_LIST_MODEL (self->providers));
  g_signal_connect (self->provider_row, "notify::selected-item",
                    G_CALLBACK (on_provider_selected_cb), self);
  g_signal_connect_object (self->providers, "items-changed",
                           G_CALLBACK (on_providers_items_changed_cb), self, 0);
  g_signal_connect_object (policy, "provider-changed",
                           G_CALLBACK (on_policy_provider_changed_cb), self, 0);
  g_signal_connect_object (policy, "history-changed",
                           G_CALLBACK (on_policy_history_changed_cb), self, 0);

  on_providers_items_changed_cb (G_LIST_MODEL (self->providers), 0, 0, 0, self);
  _lumo_access_page_reload_history (self);
  lumo_agents_group_set_backend (self->agents_group, backend);
}

gboolean
lumo_access_page_set_provider (LumoAccessPage *self,
                               const char     *provider_id)
{
  guint index;

  g_return_val_if_fail (LUMO_IS_ACCESS_PAGE (self), FALSE);
  g_return_val_if_fail (provider_id != NULL, FALSE);

  if (self->providers == NULL ||
      lumo_provider_model_find (self->providers, provider_id, &index) == NULL)
    return FALSE;

  adw_combo_row_set_selected (self->provider_row, index);
  show_provider (self, provider_id);
  return TRUE;
}

const char *
lumo_access_page_get_provider (LumoAccessPage *self)
{
  g_return_val_if_fail (LUMO_IS_ACCESS_PAGE (self), NULL);

  return self->provider_id;
}

GtkSwitch *
lumo_access_page_get_switch (LumoAccessPage   *self,
                             LumoPolicySwitch  sw)
{
  g_return_val_if_fail (LUMO_IS_ACCESS_PAGE (self), NULL);

  switch (sw)
    {
    case LUMO_POLICY_SWITCH_ENABLED:
      return self->enabled_switch;
    case LUMO_POLICY_SWITCH_WRITES:
      return self->writes_switch;
    case LUMO_POLICY_SWITCH_REVIEW:
      return self->review_switch;
    default:
      g_return_val_if_reached (NULL);
    }
}

LumoCallerModel *
lumo_access_page_get_allowed (LumoAccessPage *self)
{
  g_return_val_if_fail (LUMO_IS_ACCESS_PAGE (self), NULL);
  return self->allowed;
}

LumoCallerModel *
lumo_access_page_get_denied (LumoAccessPage *self)
{
  g_return_val_if_fail (LUMO_IS_ACCESS_PAGE (self), NULL);
  return self->denied;
}

AdwEntryRow *
lumo_access_page_get_add_entry (LumoAccessPage *self)
{
  g_return_val_if_fail (LUMO_IS_ACCESS_PAGE (self), NULL);
  return lumo_id_entry_get_row (self->add_entry);
}

GtkWidget *
lumo_access_page_get_add_button (LumoAccessPage *self)
{
  g_return_val_if_fail (LUMO_IS_ACCESS_PAGE (self), NULL);
  return lumo_id_entry_get_button (self->add_entry);
}

GtkLabel *
lumo_access_page_get_add_error (LumoAccessPage *self)
{
  g_return_val_if_fail (LUMO_IS_ACCESS_PAGE (self), NULL);
  return lumo_id_entry_get_error_label (self->add_entry);
}

LumoAgentsGroup *
lumo_access_page_get_agents_group (LumoAccessPage *self)
{
  g_return_val_if_fail (LUMO_IS_ACCESS_PAGE (self), NULL);
  return self->agents_group;
}
