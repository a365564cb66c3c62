/* lumo-activity-page.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-activity-page"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "lumo-activity-page.h"
#include "lumo-backend.h"
#include "lumo-format.h"
#include "lumo-gateway.h"
#include "lumo-meter-row.h"
#include "lumo-policy.h"
#include "lumo-ui-util.h"

struct _LumoActivityPage
{
  AdwBin          parent_instance;

  /* Template widgets */
  GtkListBox     *meters_list;
  GtkListBox     *sessions_list;

  /* Owned */
  LumoBackend    *backend;
  LumoMeterModel *meters;
  LumoGateway    *gateway;    /* NULL outside a LumoApplication */
};

G_DEFINE_FINAL_TYPE (LumoActivityPage, lumo_activity_page, ADW_TYPE_BIN)

static char *
provider_title (LumoActivityPage *self,
                const char       *provider_id)
{
  g_autoptr(LumoProviderInfo) info =
    lumo_policy_get_provider (lumo_backend_get_policy (self->backend), provider_id, NULL);

  return g_strdup (lumo_format_provider_title (info, provider_id));
}

static char *
caller_title (LumoActivityPage *self,
              const char       *provider_id,
              const char       *caller_id)
{
  g_autoptr(LumoCallerInfo) info =
    lumo_policy_get_caller (lumo_backend_get_policy (self->backend), provider_id, caller_id, NULL);

  return g_strdup (lumo_format_caller_title (info, caller_id));
}

static GtkWidget *
create_meter_row_cb (gpointer item,
                     gpointer user_data)
{
  LumoActivityPage *self = user_data;
  g_autofree char *title = provider_title (self, lumo_meter_item_get_provider_id (item));
  GtkWidget *row = lumo_meter_row_new (item, title);

  if (lumo_policy_is_agent (lumo_backend_get_policy (self->backend), lumo_meter_item_get_caller_id (item)))
    lumo_meter_row_set_desktop_agent (LUMO_METER_ROW (row));
  return row;
}

/* The line of each open session under its provider: @lines holds a
 * GPtrArray of strings per provider, @order the providers as they came. */
static void
add_session_line (GHashTable *lines,
                  GPtrArray  *order,
                  const char *provider_id,
                  char       *line)
{
  GPtrArray *list = g_hash_table_lookup (lines, provider_id);

  if (list == NULL)
    {
      list = g_ptr_array_new_with_free_func (g_free);
      g_hash_table_insert (lines, g_strdup (provider_id), list);
      g_ptr_array_add (order, g_strdup (provider_id));
    }
  g_ptr_array_add (list, line);
}

/* One row per provider with open sessions — its extensions' ports and
 * the desktop agents' sessions; few enough to rebuild on change. */
static void
reload_sessions (LumoActivityPage *self)
{
  g_autoptr(GPtrArray) ports = lumo_backend_list_ports (self->backend, NULL);
  g_autoptr(GHashTable) lines = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                       (GDestroyNotify) g_ptr_array_unref);
  g_autoptr(GPtrArray) order = g_ptr_array_new_with_free_func (g_free);
  GListModel *sessions = self->gateway != NULL ? lumo_gateway_get_sessions (self->gateway) : NULL;
  guint n_sessions = sessions != NULL ? g_list_model_get_n_items (sessions) : 0;

  lumo_ui_list_box_remove_all (self->sessions_list);

  for (guint i = 0; ports != NULL && i < ports->len; i++)
    {
      LumoBridgePort *port = g_ptr_array_index (ports, i);
      g_autofree char *name = caller_title (self, port->provider_id, port->caller_id);
      g_autofree char *since = lumo_format_time_relative (port->opened_us, 0);

      /* Translators: an open session: the agent and since when, e.g. "Foo Agent, since 5 minutes ago". */
      add_session_line (lines, order, port->provider_id, g_strdup_printf (_("%s, since %s"), name, since));
    }

  for (guint i = 0; i < n_sessions; i++)
    {
      g_autoptr(LumoAgentSession) session = g_list_model_get_item (sessions, i);

      if (lumo_agent_session_is_closed (session))
        continue;
      /* Translators: an open session of a desktop agent and how it came, e.g.
       * "Claude Code, desktop agent over HTTP" (or "over stdio"). */
      add_session_line (lines, order, lumo_agent_session_get_provider_id (session),
                        g_strdup_printf (_("%s, desktop agent over %s"),
                                         lumo_agent_session_get_agent_name (session),
                                         lumo_format_transport (lumo_agent_session_get_transport (session))));
    }

  for (guint i = 0; i < order->len; i++)
    {
      const char *provider_id = g_ptr_array_index (order, i);
      GPtrArray *list = g_hash_table_lookup (lines, provider_id);
      g_autofree char *title = provider_title (self, provider_id);
      g_autoptr(GString) callers = g_string_new (NULL);
      g_autofree char *subtitle = NULL;
      GtkWidget *row = adw_action_row_new ();

      for (guint j = 0; j < list->len; j++)
        {
          if (callers->len > 0)
            g_string_append_c (callers, '\n');
          g_string_append (callers, g_ptr_array_index (list, j));
        }

      /* Translators: the number of open sessions of a provider, then who holds them. */
      subtitle = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u open session:\n%s",
                                               "%u open sessions:\n%s", list->len),
                                  list->len, callers->str);

      adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
      adw_action_row_set_subtitle_lines (ADW_ACTION_ROW (row), 0);
      gtk_list_box_append (self->sessions_list, row);
    }
}

static void
lumo_activity_page_dispose (GObject *object)
{
  LumoActivityPage *self = (LumoActivityPage *)object;

  if (self->meters_list != NULL)
    gtk_list_box_bind_model (self->meters_list, NULL, NULL, NULL, NULL);
  g_clear_object (&self->meters);
  g_clear_object (&self->gateway);
  g_clear_object (&self->backend);

  G_OBJECT_CLASS (lumo_activity_page_parent_class)->dispose (object);
}

static void
lumo_activity_page_class_init (LumoActivityPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = lumo_activity_page_dispose;

  gtk_widget_class_set_template_from_resource (widget_class, "/dev/lumo/Access/lumo-activity-page.ui");
  gtk_widget_class_bind_template_child (widget_class, LumoActivityPage, meters_list);
  gtk_widget_class_bind_template_child (widget_class, LumoActivityPage, sessions_list);
}

static void
lumo_activity_page_init (LumoActivityPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  gtk_list_box_set_placeholder (self->meters_list,
                                lumo_ui_placeholder_new (_("No agent is allowed yet. Meters appear for allowed agents and for any agent that writes.")));
  gtk_list_box_set_placeholder (self->sessions_list, lumo_ui_placeholder_new (_("No open sessions")));
}

void
lumo_activity_page_set_backend (LumoActivityPage *self,
                                LumoBackend      *backend)
{
  g_return_if_fail (LUMO_IS_ACTIVITY_PAGE (self));
  g_return_if_fail (LUMO_IS_BACKEND (backend));
  g_return_if_fail (self->backend == NULL);

  self->backend = g_object_ref (backend);
  self->meters = lumo_meter_model_new (lumo_backend_get_policy (backend));

  gtk_list_box_bind_model (self->meters_list, G_LIST_MODEL (self->meters),
                           create_meter_row_cb, self, NULL);

  g_signal_connect_object (backend, "port-opened", G_CALLBACK (reload_sessions), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (backend, "port-closed", G_CALLBACK (reload_sessions), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (backend, "session-added", G_CALLBACK (reload_sessions), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (backend, "session-removed", G_CALLBACK (reload_sessions), self, G_CONNECT_SWAPPED);
  reload_sessions (self);
}

void
lumo_activity_page_set_gateway (LumoActivityPage *self,
                                LumoGateway      *gateway)
{
  g_return_if_fail (LUMO_IS_ACTIVITY_PAGE (self));
  g_return_if_fail (LUMO_IS_GATEWAY (gateway));
  g_return_if_fail (self->backend != NULL && self->gateway == NULL);

  self->gateway = g_object_ref (gateway);
  g_signal_connect_object (lumo_gateway_get_sessions (gateway), "items-changed",
                           G_CALLBACK (reload_sessions), self, G_CONNECT_SWAPPED);
  reload_sessions (self);
}

LumoMeterModel *
lumo_activity_page_get_meters (LumoActivityPage *self)
{
  g_return_val_if_fail (LUMO_IS_ACTIVITY_PAGE (self), NULL);

  return self->meters;
}
