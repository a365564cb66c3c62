/* lumo-grants-group.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-grants-group"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "lumo-format.h"
#include "lumo-grants-group.h"
#include "lumo-ui-util.h"

struct _LumoGrantsGroup
{
  AdwPreferencesGroup  parent_instance;

  /* Template widgets */
  GtkListBox          *list;

  /* Owned */
  LumoPolicy          *policy;
  char                *provider_id;
  GHashTable          *shown_callers;   /* caller IDs with a row: their names matter */
  gboolean             reloading;
};

G_DEFINE_FINAL_TYPE (LumoGrantsGroup, lumo_grants_group, ADW_TYPE_PREFERENCES_GROUP)

static GtkWidget *
new_grant_row (LumoGrantsGroup     *self,
               const LumoGrantInfo *grant)
{
  g_autoptr(LumoCallerInfo) caller = lumo_policy_get_caller (self->policy, grant->provider_id,
                                                             grant->caller_id, NULL);
  const char *who = lumo_format_caller_title (caller, grant->caller_id);
  g_autofree char *until = lumo_format_grant_expiry (grant, 0);
  g_autofree char *subtitle = NULL;
  g_autofree char *accessible = NULL;
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *button;

  /* Names come from agents and tools from providers: plain text. */
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), grant->tool);
  /* Translators: who may write a tool without asking, and until when:
   * "Foo Agent · For 10 minutes, until 14:32". */
  subtitle = g_strdup_printf (_("%s · %s"), who, until);
  /* While a managed file forces review, no grant lets a write through:
   * the row says whose rule that is. The grant is kept (it counts again
   * when the file goes), so Revoke still works. */
  if (lumo_policy_are_grants_managed (self->policy, grant->provider_id))
    {
      g_autofree char *line = g_steal_pointer (&subtitle);

      subtitle = g_strdup_printf ("%s\n%s", line, lumo_ui_managed_text ());
    }
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  adw_action_row_set_subtitle_lines (ADW_ACTION_ROW (row), 0);

  button = gtk_button_new_with_mnemonic (_("_Revoke"));
  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  gtk_widget_set_tooltip_text (button, _("End the grant; the agent’s next write of this tool waits for review"));
  gtk_actionable_set_action_name (GTK_ACTIONABLE (button), "grants.revoke");
  gtk_actionable_set_action_target (GTK_ACTIONABLE (button), "(sss)", grant->provider_id,
                                    grant->caller_id, grant->tool);
  /* Translators: "Revoke the grant of userscripts.save_script to Foo Agent". */
  accessible = g_strdup_printf (_("Revoke the grant of %s to %s"), grant->tool, who);
  lumo_ui_set_accessible_label (button, accessible);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), button);

  return row;
}

static void
reload (LumoGrantsGroup *self)
{
  g_autoptr(GPtrArray) grants = NULL;
  g_autoptr(GError) error = NULL;

  /* Listing looks at the clock and may announce a grant that ran out,
   * which lands here again: the outer listing is the newer one. */
  if (self->reloading || self->policy == NULL)
    return;

  self->reloading = TRUE;
  if (self->provider_id != NULL &&
      !(grants = lumo_policy_list_grants (self->policy, self->provider_id, &error)))
    g_warning ("Cannot list the review grants: %s", error->message);
  self->reloading = FALSE;

  lumo_ui_list_box_remove_all (self->list);
  g_hash_table_remove_all (self->shown_callers);
  for (guint i = 0; grants != NULL && i < grants->len; i++)
    {
      const LumoGrantInfo *grant = g_ptr_array_index (grants, i);

      gtk_list_box_append (self->list, new_grant_row (self, grant));
      g_hash_table_add (self->shown_callers, g_strdup (grant->caller_id));
    }
}

static void
on_policy_grant_changed_cb (LumoPolicy      *policy,
                            const char      *provider_id,
                            const char      *caller_id,
                            const char      *tool,
                            LumoGrantsGroup *self)
{
  if (g_strcmp0 (provider_id, self->provider_id) == 0)
    reload (self);
}

static void
on_policy_caller_changed_cb (LumoPolicy      *policy,
                             const char      *provider_id,
                             const char      *caller_id,
                             LumoGrantsGroup *self)
{
  /* A new name for an agent that has a row; counts change often, and
   * only the rows of callers with grants show anything of a caller. */
  if (g_strcmp0 (provider_id, self->provider_id) == 0 &&
      g_hash_table_contains (self->shown_callers, caller_id))
    reload (self);
}

static void
on_policy_managed_changed_cb (LumoPolicy      *policy,
                              LumoGrantsGroup *self)
{
  reload (self);
}

static void
undo_with_toast (AdwToast        *toast,
                 LumoGrantsGroup *self)
{
  /* The Access page's undo: the newest change a person made. */
  gtk_widget_activate_action (GTK_WIDGET (self), "access.undo", NULL);
}

static void
revoke_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *param)
{
  LumoGrantsGroup *self = LUMO_GRANTS_GROUP (widget);
  g_autoptr(GError) error = NULL;
  g_autoptr(LumoCallerInfo) caller = NULL;
  g_autofree char *text = NULL;
  const char *provider_id, *caller_id, *tool;
  AdwToast *toast;

  if (self->policy == NULL)
    return;

  g_variant_get (param, "(&s&s&s)", &provider_id, &caller_id, &tool);
  if (!lumo_policy_revoke_grant (self->policy, provider_id, caller_id, tool, LUMO_POLICY_ORIGIN_UI, &error))
    {
      lumo_ui_show_error (widget, _("Could not revoke the grant"), error);
      return;
    }

  caller = lumo_policy_get_caller (self->policy, provider_id, caller_id, NULL);
  text = g_strdup_printf (_("Revoked the grant of %s to %s"), tool, lumo_format_caller_title (caller, caller_id));
  toast = lumo_ui_toast_new (text);
  adw_toast_set_button_label (toast, _("_Undo"));
  g_signal_connect_object (toast, "button-clicked", G_CALLBACK (undo_with_toast), self, 0);
  lumo_ui_show_toast (widget, toast);
}

static void
lumo_grants_group_dispose (GObject *object)
{
  LumoGrantsGroup *self = (LumoGrantsGroup *)object;

  if (self->policy != NULL)
    g_signal_handlers_disconnect_by_data (self->policy, self);
  g_clear_object (&self->policy);

  G_OBJECT_CLASS (lumo_grants_group_parent_class)->dispose (object);
}

static void
lumo_grants_group_finalize (GObject *object)
{
  LumoGrantsGroup *self = (LumoGrantsGroup *)object;

  g_clear_pointer (&self->provider_id, g_free);
  g_clear_pointer (&self->shown_callers, g_hash_table_unref);

  G_OBJECT_CLASS (lumo_grants_group_parent_class)->finalize (object);
}

static void
lumo_grants_group_class_init (LumoGrantsGroupClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = lumo_grants_group_dispose;
  object_class->finalize = lumo_grants_group_finalize;

  gtk_widget_class_set_template_from_resource (widget_class, "/dev/lumo/Access/lumo-grants-group.ui");
  gtk_widget_class_bind_template_child (widget_class, LumoGrantsGroup, list);

  gtk_widget_class_install_action (widget_class, "grants.revoke", "(sss)", revoke_action);
}

static void
lumo_grants_group_init (LumoGrantsGroup *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->shown_callers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  gtk_list_box_set_placeholder (self->list,
                                lumo_ui_placeholder_new (_("No grants: each write waits for your review")));
}

void
lumo_grants_group_set_policy (LumoGrantsGroup *self,
                              LumoPolicy      *policy)
{
  g_return_if_fail (LUMO_IS_GRANTS_GROUP (self));
  g_return_if_fail (LUMO_IS_POLICY (policy));
  g_return_if_fail (self->policy == NULL);

  self->policy = g_object_ref (policy);
  g_signal_connect (policy, "grant-changed", G_CALLBACK (on_policy_grant_changed_cb), self);
  g_signal_connect (policy, "caller-changed", G_CALLBACK (on_policy_caller_changed_cb), self);
  g_signal_connect (policy, "managed-changed", G_CALLBACK (on_policy_managed_changed_cb), self);
  reload (self);
}

void
lumo_grants_group_set_provider_id (LumoGrantsGroup *self,
                                   const char      *provider_id)
{
  g_return_if_fail (LUMO_IS_GRANTS_GROUP (self));

  if (g_strcmp0 (self->provider_id, provider_id) == 0)
    return;

  g_free (self->provider_id);
  self->provider_id = g_strdup (provider_id);
  reload (self);
}

GtkListBox *
lumo_grants_group_get_list (LumoGrantsGroup *self)
{
  g_return_val_if_fail (LUMO_IS_GRANTS_GROUP (self), NULL);

  return self->list;
}
