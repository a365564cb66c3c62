/* lumo-providers-page.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-providers-page"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "lumo-backend.h"
#include "lumo-browsers-group.h"
#include "lumo-error.h"
#include "lumo-id-entry.h"
#include "lumo-policy.h"
#include "lumo-provider-row.h"
#include "lumo-providers-page.h"
#include "lumo-tool-registry.h"
#include "lumo-ui-util.h"

struct _LumoProvidersPage
{
  AdwBin             parent_instance;

  /* Template widgets */
  AdwPreferencesPage *preferences_page;
  GtkListBox        *providers_list;
  LumoIdEntry       *watch_entry;

  /* Owned */
  LumoBackend       *backend;
  LumoProviderModel *providers;
  GCancellable      *cancellable;
  LumoBrowsersGroup *browsers;
};

G_DEFINE_FINAL_TYPE (LumoProvidersPage, lumo_providers_page, ADW_TYPE_BIN)

static GtkWidget *
create_provider_row_cb (gpointer item,
                        gpointer user_data)
{
  LumoProvidersPage *self = user_data;
  GtkWidget *row = lumo_provider_row_new (item, lumo_backend_get_tool_registry (self->backend));
  g_autoptr(GPtrArray) servers =
    lumo_backend_dup_recommended_servers (self->backend, lumo_provider_item_get_id (item));

  lumo_provider_row_set_recommended (LUMO_PROVIDER_ROW (row), servers);
  return row;
}

static void
on_recommended_changed_cb (LumoProvidersPage *self,
                           const char        *provider_id)
{
  g_autoptr(GPtrArray) servers = NULL;

  if (self->backend == NULL)
    return;
  servers = lumo_backend_dup_recommended_servers (self->backend, provider_id);
  for (GtkWidget *row = gtk_widget_get_first_child (GTK_WIDGET (self->providers_list));
       row != NULL; row = gtk_widget_get_next_sibling (row))
    if (LUMO_IS_PROVIDER_ROW (row) &&
        g_str_equal (lumo_provider_item_get_id (lumo_provider_row_get_item (LUMO_PROVIDER_ROW (row))),
                     provider_id))
      lumo_provider_row_set_recommended (LUMO_PROVIDER_ROW (row), servers);
}

/* ---- probing ------------------------------------------------------------ */

/* The provider that sends the probe: a connected one other than the target
 * (an extension does not probe itself), else the target itself. */
static const char *
choose_prober (LumoProvidersPage *self,
               const char        *target_id)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->providers));
  const char *fallback = NULL;

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(LumoProviderItem) item = g_list_model_get_item (G_LIST_MODEL (self->providers), i);
      const char *id = lumo_provider_item_get_id (item);

      if (!lumo_provider_item_get_connected (item))
        continue;
      if (!g_str_equal (id, target_id))
        return lumo_provider_item_get_id (item);   /* the model keeps the item */
      fallback = lumo_provider_item_get_id (item);
    }

  return fallback;
}

typedef struct
{
  LumoProvidersPage *self;
  char              *target_id;
} ProbeData;

static void
probe_data_free (ProbeData *data)
{
  g_object_unref (data->self);
  g_free (data->target_id);
  g_free (data);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ProbeData, probe_data_free)

static void
on_probe_target_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(ProbeData) data = user_data;
  g_autoptr(LumoProbeOutcome) outcome = NULL;
  g_autoptr(GError) error = NULL;
  LumoProvidersPage *self = data->self;
  LumoProviderItem *item;

  outcome = lumo_backend_probe_target_finish (LUMO_BACKEND (object), result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) || self->providers == NULL)
    return;

  if ((item = lumo_provider_model_find (self->providers, data->target_id, NULL)) != NULL)
    lumo_provider_item_set_probing (item, FALSE);

  if (outcome == NULL)
    {
      lumo_ui_show_error (GTK_WIDGET (self), _("The probe could not be sent"), error);
      return;
    }

  lumo_providers_page_show_outcome (self, data->target_id, outcome);
}

static void
probe_action (GtkWidget  *widget,
              const char *action_name,
              GVariant   *param)
{
  LumoProvidersPage *self = LUMO_PROVIDERS_PAGE (widget);
  const char *target_id = g_variant_get_string (param, NULL);
  LumoProviderItem *item = lumo_provider_model_find (self->providers, target_id, NULL);
  const char *prober;
  ProbeData *data;

  if (item == NULL || lumo_provider_item_get_probing (item))
    return;

  if ((prober = choose_prober (self, target_id)) == NULL)
    {
      g_autoptr(GError) error =
        g_error_new_literal (LUMO_ERROR, LUMO_ERROR_UNAVAILABLE,
                             _("no provider is connected to send it. Open the browser with the provider extension first."));

      lumo_ui_show_error (widget, _("The probe could not be sent"), error);
      return;
    }

  data = g_new0 (ProbeData, 1);
  data->self = g_object_ref (self);
  data->target_id = g_strdup (target_id);

  lumo_provider_item_set_probing (item, TRUE);
  lumo_backend_probe_target_async (self->backend, prober, target_id, self->cancellable,
                                   on_probe_target_cb, data);
}

gboolean
lumo_providers_page_show_outcome (LumoProvidersPage      *self,
                                  const char             *provider_id,
                                  const LumoProbeOutcome *outcome)
{
  LumoProviderItem *item;
  g_autofree char *message = NULL;
  LumoProbeState state;
  LumoProbeRow row;

  g_return_val_if_fail (LUMO_IS_PROVIDERS_PAGE (self), FALSE);
  g_return_val_if_fail (provider_id != NULL && outcome != NULL, FALSE);

  if (self->providers == NULL ||
      (item = lumo_provider_model_find (self->providers, provider_id, NULL)) == NULL)
    return FALSE;

  row = lumo_probe_status_map (outcome, &state, &message);

  /* "The tools appear, with their count": the count is known when the
   * provider is connected to this app. */
  if (row == LUMO_PROBE_ROW_CONNECTED && lumo_provider_item_get_connected (item))
    {
      g_free (message);
      message = lumo_probe_status_connected_message (lumo_provider_item_get_n_tools (item));
    }

  lumo_provider_item_set_probe (item, row, state, message, g_get_real_time ());
  return TRUE;
}

/* ---- removing and watching ---------------------------------------------- */

static void
undo_cb (AdwToast          *toast,
         LumoProvidersPage *self)
{
  g_autoptr(GError) error = NULL;

  if (!lumo_policy_undo_last (lumo_backend_get_policy (self->backend), LUMO_POLICY_ORIGIN_UI, NULL, &error))
    lumo_ui_show_error (GTK_WIDGET (self), _("Nothing was undone"), error);
}

static void
remove_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *param)
{
  LumoProvidersPage *self = LUMO_PROVIDERS_PAGE (widget);
  const char *provider_id = g_variant_get_string (param, NULL);
  LumoProviderItem *item = lumo_provider_model_find (self->providers, provider_id, NULL);
  g_autofree char *title = g_strdup (item != NULL ? lumo_provider_item_get_title (item) : provider_id);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  AdwToast *toast;

  if (!lumo_policy_remove_provider (lumo_backend_get_policy (self->backend), provider_id,
                                    LUMO_POLICY_ORIGIN_UI, &error))
    {
      lumo_ui_show_error (widget, _("Could not remove the provider"), error);
      return;
    }

  /* Translators: %s is a provider's name. */
  text = g_strdup_printf (_("Removed %s and its agents"), title);
  toast = lumo_ui_toast_new (text);
  adw_toast_set_button_label (toast, _("_Undo"));
  g_signal_connect_object (toast, "button-clicked", G_CALLBACK (undo_cb), self, 0);
  lumo_ui_show_toast (widget, toast);
}

static void
on_watch_submit_cb (LumoProvidersPage *self,
                    const char        *id)
{
  g_autoptr(GError) error = NULL;

  if (self->backend == NULL)
    return;

  if (!lumo_policy_add_provider (lumo_backend_get_policy (self->backend), id,
                                 LUMO_POLICY_ORIGIN_UI, &error))
    {
      lumo_id_entry_show_error (self->watch_entry, error->message);
      return;
    }

  lumo_id_entry_clear (self->watch_entry);
}

/* ---- GObject ------------------------------------------------------------ */

static void
lumo_providers_page_dispose (GObject *object)
{
  LumoProvidersPage *self = (LumoProvidersPage *)object;

  g_cancellable_cancel (self->cancellable);
  if (self->providers_list != NULL)
    gtk_list_box_bind_model (self->providers_list, NULL, NULL, NULL, NULL);
  g_clear_object (&self->providers);
  g_clear_object (&self->backend);
  g_clear_object (&self->cancellable);

  G_OBJECT_CLASS (lumo_providers_page_parent_class)->dispose (object);
}

static void
lumo_providers_page_class_init (LumoProvidersPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = lumo_providers_page_dispose;

  g_type_ensure (LUMO_TYPE_ID_ENTRY);
  gtk_widget_class_set_template_from_resource (widget_class, "/dev/lumo/Access/lumo-providers-page.ui");
  gtk_widget_class_bind_template_child (widget_class, LumoProvidersPage, preferences_page);
  gtk_widget_class_bind_template_child (widget_class, LumoProvidersPage, providers_list);
  gtk_widget_class_bind_template_child (widget_class, LumoProvidersPage, watch_entry);
  gtk_widget_class_bind_template_callback (widget_class, on_watch_submit_cb);

  gtk_widget_class_install_action (widget_class, "providers.probe", "s", probe_action);
  gtk_widget_class_install_action (widget_class, "providers.remove", "s", remove_action);
}

static void
lumo_providers_page_init (LumoProvidersPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->cancellable = g_cancellable_new ();

  /* Browsers sit with the providers: both are about what lets the
   * extensions reach this app. A group of its own, after the providers. */
  self->browsers = LUMO_BROWSERS_GROUP (lumo_browsers_group_new ());
  adw_preferences_page_add (self->preferences_page, ADW_PREFERENCES_GROUP (self->browsers));
  gtk_list_box_set_placeholder (self->providers_list,
                                lumo_ui_placeholder_new (_("No provider has connected yet. Open the browser with the Lumo Userscripts extension, or watch a provider by its ID below.")));
}

void
lumo_providers_page_set_backend (LumoProvidersPage *self,
                                 LumoBackend       *backend)
{
  g_return_if_fail (LUMO_IS_PROVIDERS_PAGE (self));
  g_return_if_fail (LUMO_IS_BACKEND (backend));
  g_return_if_fail (self->backend == NULL);

  self->backend = g_object_ref (backend);
  self->providers = lumo_provider_model_new (backend);
  gtk_list_box_bind_model (self->providers_list, G_LIST_MODEL (self->providers),
                           create_provider_row_cb, self, NULL);
  lumo_browsers_group_set_backend (self->browsers, backend);
  g_signal_connect_object (backend, "recommended-changed",
                           G_CALLBACK (on_recommended_changed_cb), self, G_CONNECT_SWAPPED);
  lumo_id_entry_set_ready (self->watch_entry, TRUE);
}

LumoBrowsersGroup *
lumo_providers_page_get_browsers (LumoProvidersPage *self)
{
  g_return_val_if_fail (LUMO_IS_PROVIDERS_PAGE (self), NULL);

  return self->browsers;
}

LumoProviderModel *
lumo_providers_page_get_providers (LumoProvidersPage *self)
{
  g_return_val_if_fail (LUMO_IS_PROVIDERS_PAGE (self), NULL);

  return self->providers;
}
