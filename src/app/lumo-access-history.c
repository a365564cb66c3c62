/* lumo-access-history.c — the policy history on the Access page
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The newest HISTORY_ROWS changes of every provider as sentences, and undo
 * of the last change a person made (the policy decides which one that is;
 * the button is offered while the list shows an entry that qualifies).
 */
#define G_LOG_DOMAIN "lumo-access-page"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "lumo-access-page-private.h"
#include "lumo-backend.h"
#include "lumo-format.h"
#include "lumo-ui-util.h"

#define HISTORY_ROWS 30

static gboolean
entry_can_be_undone (const LumoHistoryEntry *entry)
{
  return entry->origin != LUMO_POLICY_ORIGIN_BRIDGE && entry->undoes == 0 && entry->undone_by == 0;
}

static char *
describe_entry (LumoAccessPage         *self,
                const LumoHistoryEntry *entry)
{
  g_autoptr(LumoCallerInfo) caller = NULL;
  LumoProviderItem *provider = NULL;
  const char *caller_title = NULL;

  if (entry->caller_id != NULL)
    {
      caller = lumo_policy_get_caller (lumo_backend_get_policy (self->backend), entry->provider_id, entry->caller_id, NULL);
      caller_title = lumo_format_caller_title (caller, entry->caller_id);
    }
  if (entry->provider_id != NULL)
    provider = lumo_provider_model_find (self->providers, entry->provider_id, NULL);

  return lumo_format_history_entry (entry, caller_title,
                                    provider != NULL ? lumo_provider_item_get_title (provider) : NULL);
}

void
_lumo_access_page_reload_history (LumoAccessPage *self)
{
  g_autoptr(GPtrArray) entries = NULL;
  g_autoptr(GError) error = NULL;
  gboolean can_undo = FALSE;

  lumo_ui_list_box_remove_all (self->history_list);

  if (!(entries = lumo_policy_list_history (lumo_backend_get_policy (self->backend), HISTORY_ROWS, &error)))
    {
      g_warning ("Cannot read the policy history: %s", error->message);
      return;
    }

  for (guint i = 0; i < entries->len; i++)
    {
      const LumoHistoryEntry *entry = g_ptr_array_index (entries, i);
      g_autofree char *title = describe_entry (self, entry);
      g_autofree char *when = lumo_format_time_relative (entry->time, 0);
      g_autofree char *origin = lumo_format_origin (entry->origin);
      g_autofree char *subtitle = NULL;
      GtkWidget *row = adw_action_row_new ();

      if (entry->undoes != 0)
        /* Translators: "5 minutes ago · by you · an undo". */
        subtitle = g_strdup_printf (_("%s · %s · an undo"), when, origin);
      else if (entry->undone_by != 0)
        subtitle = g_strdup_printf (_("%s · %s · undone"), when, origin);
      else
        subtitle = g_strdup_printf ("%s · %s", when, origin);

      adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
      gtk_list_box_append (self->history_list, row);

      can_undo |= entry_can_be_undone (entry);
    }

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "access.undo", can_undo);
}

void
_lumo_access_page_undo_action (GtkWidget  *widget,
                               const char *action_name,
                               GVariant   *param)
{
  LumoAccessPage *self = LUMO_ACCESS_PAGE (widget);
  g_autoptr(LumoHistoryEntry) undone = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *description = NULL;
  g_autofree char *text = NULL;

  if (!lumo_policy_undo_last (lumo_backend_get_policy (self->backend), LUMO_POLICY_ORIGIN_UI, &undone, &error))
    {
      lumo_ui_show_error (widget, _("Nothing was undone"), error);
      return;
    }

  description = describe_entry (self, undone);
  /* Translators: %s describes the change that was reverted. */
  text = g_strdup_printf (_("Undone: %s"), description);
  lumo_ui_show_toast (widget, lumo_ui_toast_new (text));
}

