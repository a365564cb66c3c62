/* lumo-provider-model.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-provider-model"

#include "config.h"

#include "lumo-backend.h"
#include "lumo-format.h"
#include "lumo-provider-model.h"
#include "lumo-tool-registry.h"

/* ---- LumoProviderItem --------------------------------------------------- */

struct _LumoProviderItem
{
  GObject           parent_instance;

  LumoProviderInfo *info;
  gboolean          connected;
  guint             n_tools;

  gboolean          has_probe;
  gboolean          probing;
  LumoProbeRow      probe_row;
  LumoProbeState    probe_state;
  char             *probe_message;
  gint64            probe_time;
};

G_DEFINE_FINAL_TYPE (LumoProviderItem, lumo_provider_item, G_TYPE_OBJECT)

enum {
  ITEM_PROP_0,
  ITEM_PROP_ID,
  ITEM_PROP_TITLE,
  ITEM_PROP_NAMESPACE,
  ITEM_PROP_VERSION,
  ITEM_PROP_ENABLED,
  ITEM_PROP_WRITES,
  ITEM_PROP_REVIEW,
  ITEM_PROP_CONNECTED,
  ITEM_PROP_N_TOOLS,
  ITEM_PROP_LAST_SEEN,
  ITEM_PROP_HAS_PROBE,
  ITEM_PROP_PROBING,
  ITEM_PROP_PROBE_MESSAGE,
  ITEM_PROP_PROBE_TIME,
  N_ITEM_PROPS
};

static GParamSpec *item_properties[N_ITEM_PROPS];

static void
lumo_provider_item_finalize (GObject *object)
{
  LumoProviderItem *self = (LumoProviderItem *)object;

  g_clear_pointer (&self->info, lumo_provider_info_free);
  g_clear_pointer (&self->probe_message, g_free);

  G_OBJECT_CLASS (lumo_provider_item_parent_class)->finalize (object);
}

static void
lumo_provider_item_get_property (GObject    *object,
                                 guint       prop_id,
                                 GValue     *value,
                                 GParamSpec *pspec)
{
  LumoProviderItem *self = LUMO_PROVIDER_ITEM (object);

  switch (prop_id)
    {
    case ITEM_PROP_ID:
      g_value_set_string (value, self->info->id);
      break;
    case ITEM_PROP_TITLE:
      g_value_set_string (value, lumo_provider_item_get_title (self));
      break;
    case ITEM_PROP_NAMESPACE:
      g_value_set_string (value, self->info->namespace_);
      break;
    case ITEM_PROP_VERSION:
      g_value_set_string (value, self->info->version);
      break;
    case ITEM_PROP_ENABLED:
      g_value_set_boolean (value, self->info->enabled);
      break;
    case ITEM_PROP_WRITES:
      g_value_set_boolean (value, self->info->writes);
      break;
    case ITEM_PROP_REVIEW:
      g_value_set_boolean (value, self->info->review);
      break;
    case ITEM_PROP_CONNECTED:
      g_value_set_boolean (value, self->connected);
      break;
    case ITEM_PROP_N_TOOLS:
      g_value_set_uint (value, self->n_tools);
      break;
    case ITEM_PROP_LAST_SEEN:
      g_value_set_int64 (value, self->info->last_seen);
      break;
    case ITEM_PROP_HAS_PROBE:
      g_value_set_boolean (value, self->has_probe);
      break;
    case ITEM_PROP_PROBING:
      g_value_set_boolean (value, self->probing);
      break;
    case ITEM_PROP_PROBE_MESSAGE:
      g_value_set_string (value, self->probe_message);
      break;
    case ITEM_PROP_PROBE_TIME:
      g_value_set_int64 (value, self->probe_time);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
lumo_provider_item_class_init (LumoProviderItemClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags flags = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->finalize = lumo_provider_item_finalize;
  object_class->get_property = lumo_provider_item_get_property;

  item_properties[ITEM_PROP_ID] = g_param_spec_string ("id", NULL, NULL, NULL, flags);
  item_properties[ITEM_PROP_TITLE] = g_param_spec_string ("title", NULL, NULL, NULL, flags);
  item_properties[ITEM_PROP_NAMESPACE] = g_param_spec_string ("namespace", NULL, NULL, NULL, flags);
  item_properties[ITEM_PROP_VERSION] = g_param_spec_string ("version", NULL, NULL, NULL, flags);
  item_properties[ITEM_PROP_ENABLED] = g_param_spec_boolean ("enabled", NULL, NULL, FALSE, flags);
  item_properties[ITEM_PROP_WRITES] = g_param_spec_boolean ("writes", NULL, NULL, FALSE, flags);
  item_properties[ITEM_PROP_REVIEW] = g_param_spec_boolean ("review", NULL, NULL, FALSE, flags);
  item_properties[ITEM_PROP_CONNECTED] = g_param_spec_boolean ("connected", NULL, NULL, FALSE, flags);
  item_properties[ITEM_PROP_N_TOOLS] = g_param_spec_uint ("n-tools", NULL, NULL, 0, G_MAXUINT, 0, flags);
  item_properties[ITEM_PROP_LAST_SEEN] =
    g_param_spec_int64 ("last-seen", NULL, NULL, 0, G_MAXINT64, 0, flags);
  item_properties[ITEM_PROP_HAS_PROBE] = g_param_spec_boolean ("has-probe", NULL, NULL, FALSE, flags);
  item_properties[ITEM_PROP_PROBING] = g_param_spec_boolean ("probing", NULL, NULL, FALSE, flags);
  item_properties[ITEM_PROP_PROBE_MESSAGE] =
    g_param_spec_string ("probe-message", NULL, NULL, NULL, flags);
  item_properties[ITEM_PROP_PROBE_TIME] =
    g_param_spec_int64 ("probe-time", NULL, NULL, 0, G_MAXINT64, 0, flags);

  g_object_class_install_properties (object_class, N_ITEM_PROPS, item_properties);
}

static void
lumo_provider_item_init (LumoProviderItem *self)
{
}

static void
notify_range (LumoProviderItem *self,
              guint             first,
              guint             last)
{
  g_object_freeze_notify (G_OBJECT (self));
  for (guint i = first; i <= last; i++)
    g_object_notify_by_pspec (G_OBJECT (self), item_properties[i]);
  g_object_thaw_notify (G_OBJECT (self));
}

const LumoProviderInfo *
lumo_provider_item_get_info (LumoProviderItem *self)
{
  g_return_val_if_fail (LUMO_IS_PROVIDER_ITEM (self), NULL);

  return self->info;
}

const char *
lumo_provider_item_get_id (LumoProviderItem *self)
{
  g_return_val_if_fail (LUMO_IS_PROVIDER_ITEM (self), NULL);

  return self->info->id;
}

const char *
lumo_provider_item_get_title (LumoProviderItem *self)
{
  g_return_val_if_fail (LUMO_IS_PROVIDER_ITEM (self), NULL);

  return lumo_format_provider_title (self->info, self->info->id);
}

gboolean
lumo_provider_item_get_connected (LumoProviderItem *self)
{
  g_return_val_if_fail (LUMO_IS_PROVIDER_ITEM (self), FALSE);

  return self->connected;
}

guint
lumo_provider_item_get_n_tools (LumoProviderItem *self)
{
  g_return_val_if_fail (LUMO_IS_PROVIDER_ITEM (self), 0);

  return self->n_tools;
}

gboolean
lumo_provider_item_get_probe (LumoProviderItem  *self,
                              LumoProbeRow      *row,
                              LumoProbeState    *state,
                              const char       **message,
                              gint64            *time_us)
{
  g_return_val_if_fail (LUMO_IS_PROVIDER_ITEM (self), FALSE);

  if (row != NULL)
    *row = self->probe_row;
  if (state != NULL)
    *state = self->probe_state;
  if (message != NULL)
    *message = self->probe_message;
  if (time_us != NULL)
    *time_us = self->probe_time;

  return self->has_probe;
}

void
lumo_provider_item_set_probe (LumoProviderItem *self,
                              LumoProbeRow      row,
                              LumoProbeState    state,
                              const char       *message,
                              gint64            time_us)
{
  g_return_if_fail (LUMO_IS_PROVIDER_ITEM (self));
  g_return_if_fail (message != NULL);

  self->has_probe = TRUE;
  self->probe_row = row;
  self->probe_state = state;
  g_free (self->probe_message);
  self->probe_message = g_strdup (message);
  self->probe_time = time_us;

  notify_range (self, ITEM_PROP_HAS_PROBE, ITEM_PROP_PROBE_TIME);
}

gboolean
lumo_provider_item_get_probing (LumoProviderItem *self)
{
  g_return_val_if_fail (LUMO_IS_PROVIDER_ITEM (self), FALSE);

  return self->probing;
}

void
lumo_provider_item_set_probing (LumoProviderItem *self,
                                gboolean          probing)
{
  g_return_if_fail (LUMO_IS_PROVIDER_ITEM (self));

  probing = !!probing;
  if (self->probing == probing)
    return;

  self->probing = probing;
  g_object_notify_by_pspec (G_OBJECT (self), item_properties[ITEM_PROP_PROBING]);
}

/* ---- LumoProviderModel -------------------------------------------------- */

struct _LumoProviderModel
{
  GObject      parent_instance;

  LumoBackend *backend;
  GPtrArray   *items;   /* LumoProviderItem, in the policy's order */
};

static void list_model_iface_init (GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (LumoProviderModel, lumo_provider_model, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, list_model_iface_init))

static GType
lumo_provider_model_get_item_type (GListModel *model)
{
  return LUMO_TYPE_PROVIDER_ITEM;
}

static guint
lumo_provider_model_get_n_items (GListModel *model)
{
  return LUMO_PROVIDER_MODEL (model)->items->len;
}

static gpointer
lumo_provider_model_get_item (GListModel *model,
                              guint       position)
{
  LumoProviderModel *self = LUMO_PROVIDER_MODEL (model);

  if (position >= self->items->len)
    return NULL;
  return g_object_ref (g_ptr_array_index (self->items, position));
}

static void
list_model_iface_init (GListModelInterface *iface)
{
  iface->get_item_type = lumo_provider_model_get_item_type;
  iface->get_n_items = lumo_provider_model_get_n_items;
  iface->get_item = lumo_provider_model_get_item;
}

/* Refreshes the live parts of @item (connection, tools); notifies only if
 * they moved. */
static void
refresh_live (LumoProviderModel *self,
              LumoProviderItem  *item)
{
  gboolean connected = lumo_backend_is_provider_connected (self->backend, item->info->id);
  LumoToolRegistry *registry = lumo_backend_get_tool_registry (self->backend);
  guint n_tools = registry != NULL ? lumo_tool_registry_count (registry, item->info->id) : 0;

  if (connected != item->connected)
    {
      item->connected = connected;
      g_object_notify_by_pspec (G_OBJECT (item), item_properties[ITEM_PROP_CONNECTED]);
    }
  if (n_tools != item->n_tools)
    {
      item->n_tools = n_tools;
      g_object_notify_by_pspec (G_OBJECT (item), item_properties[ITEM_PROP_N_TOOLS]);
    }
}

/* Rebuilds the list from the policy, keeping the item objects (and so the
 * probe results and the rows bound to them) of providers that stay. */
static void
lumo_provider_model_reload (LumoProviderModel *self)
{
  g_autoptr(GPtrArray) infos = NULL;
  g_autoptr(GPtrArray) old = NULL;
  g_autoptr(GError) error = NULL;
  guint old_len = self->items->len;
  gboolean same_order;

  if (!(infos = lumo_policy_list_providers (lumo_backend_get_policy (self->backend), &error)))
    {
      g_warning ("Cannot list the providers: %s", error->message);
      return;
    }

  old = g_steal_pointer (&self->items);
  self->items = g_ptr_array_new_with_free_func (g_object_unref);
  same_order = infos->len == old->len;

  for (guint i = 0; i < infos->len; i++)
    {
      const LumoProviderInfo *info = g_ptr_array_index (infos, i);
      LumoProviderItem *item = NULL;

      for (guint j = 0; j < old->len; j++)
        {
          LumoProviderItem *candidate = g_ptr_array_index (old, j);

          if (g_str_equal (candidate->info->id, info->id))
            {
              item = g_object_ref (candidate);
              same_order = same_order && i == j;
              break;
            }
        }

      if (item == NULL)
        {
          item = g_object_new (LUMO_TYPE_PROVIDER_ITEM, NULL);
          same_order = FALSE;
        }

      g_clear_pointer (&item->info, lumo_provider_info_free);
      item->info = lumo_provider_info_copy (info);
      notify_range (item, ITEM_PROP_ID, ITEM_PROP_REVIEW);
      g_object_notify_by_pspec (G_OBJECT (item), item_properties[ITEM_PROP_LAST_SEEN]);
      refresh_live (self, item);
      g_ptr_array_add (self->items, item);
    }

  /* Switch flips and hellos keep the order: the items notified above are
   * enough, and the rows (with their expanded state) stay. */
  if (!same_order)
    g_list_model_items_changed (G_LIST_MODEL (self), 0, old_len, self->items->len);
}

static void
on_policy_provider_changed_cb (LumoPolicy        *policy,
                               const char        *provider_id,
                               LumoProviderModel *self)
{
  lumo_provider_model_reload (self);
}

static void
refresh_provider (LumoProviderModel *self,
                  const char        *provider_id)
{
  LumoProviderItem *item;

  if ((item = lumo_provider_model_find (self, provider_id, NULL)) != NULL)
    refresh_live (self, item);
}

static void
on_session_hello_done_cb (LumoBridgeSession *session,
                          GParamSpec        *pspec,
                          LumoProviderModel *self)
{
  refresh_provider (self, lumo_bridge_session_get_provider_id (session));
}

static void
on_backend_session_added_cb (LumoBackend       *backend,
                             LumoBridgeSession *session,
                             LumoProviderModel *self)
{
  g_signal_connect_object (session, "notify::hello-done",
                           G_CALLBACK (on_session_hello_done_cb), self, 0);
  refresh_provider (self, lumo_bridge_session_get_provider_id (session));
}

static void
on_backend_session_removed_cb (LumoBackend       *backend,
                               LumoBridgeSession *session,
                               const char        *reason,
                               LumoProviderModel *self)
{
  g_signal_handlers_disconnect_by_func (session, on_session_hello_done_cb, self);
  refresh_provider (self, lumo_bridge_session_get_provider_id (session));
}

static void
on_registry_changed_cb (LumoToolRegistry  *registry,
                        const char        *provider_id,
                        LumoProviderModel *self)
{
  refresh_provider (self, provider_id);
}

static void
lumo_provider_model_dispose (GObject *object)
{
  LumoProviderModel *self = (LumoProviderModel *)object;

  if (self->backend != NULL)
    {
      GListModel *sessions = lumo_backend_get_sessions (self->backend);

      for (guint i = 0; sessions != NULL && i < g_list_model_get_n_items (sessions); i++)
        {
          g_autoptr(LumoBridgeSession) session = g_list_model_get_item (sessions, i);

          g_signal_handlers_disconnect_by_func (session, on_session_hello_done_cb, self);
        }
    }

  g_clear_object (&self->backend);
  if (self->items != NULL)
    g_ptr_array_set_size (self->items, 0);

  G_OBJECT_CLASS (lumo_provider_model_parent_class)->dispose (object);
}

static void
lumo_provider_model_finalize (GObject *object)
{
  LumoProviderModel *self = (LumoProviderModel *)object;

  g_clear_pointer (&self->items, g_ptr_array_unref);

  G_OBJECT_CLASS (lumo_provider_model_parent_class)->finalize (object);
}

static void
lumo_provider_model_class_init (LumoProviderModelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = lumo_provider_model_dispose;
  object_class->finalize = lumo_provider_model_finalize;
}

static void
lumo_provider_model_init (LumoProviderModel *self)
{
  self->items = g_ptr_array_new_with_free_func (g_object_unref);
}

LumoProviderModel *
lumo_provider_model_new (LumoBackend *backend)
{
  LumoProviderModel *self;
  LumoToolRegistry *registry;
  GListModel *sessions;

  g_return_val_if_fail (LUMO_IS_BACKEND (backend), NULL);

  self = g_object_new (LUMO_TYPE_PROVIDER_MODEL, NULL);
  self->backend = g_object_ref (backend);

  g_signal_connect_object (lumo_backend_get_policy (backend), "provider-changed",
                           G_CALLBACK (on_policy_provider_changed_cb), self, 0);
  g_signal_connect_object (backend, "session-added",
                           G_CALLBACK (on_backend_session_added_cb), self, 0);
  g_signal_connect_object (backend, "session-removed",
                           G_CALLBACK (on_backend_session_removed_cb), self, 0);
  if ((registry = lumo_backend_get_tool_registry (backend)) != NULL)
    g_signal_connect_object (registry, "changed",
                             G_CALLBACK (on_registry_changed_cb), self, 0);

  sessions = lumo_backend_get_sessions (backend);
  for (guint i = 0; sessions != NULL && i < g_list_model_get_n_items (sessions); i++)
    {
      g_autoptr(LumoBridgeSession) session = g_list_model_get_item (sessions, i);

      g_signal_connect_object (session, "notify::hello-done",
                               G_CALLBACK (on_session_hello_done_cb), self, 0);
    }

  lumo_provider_model_reload (self);

  return self;
}

LumoBackend *
lumo_provider_model_get_backend (LumoProviderModel *self)
{
  g_return_val_if_fail (LUMO_IS_PROVIDER_MODEL (self), NULL);

  return self->backend;
}

LumoProviderItem *
lumo_provider_model_find (LumoProviderModel *self,
                          const char        *provider_id,
                          guint             *position)
{
  g_return_val_if_fail (LUMO_IS_PROVIDER_MODEL (self), NULL);
  g_return_val_if_fail (provider_id != NULL, NULL);

  for (guint i = 0; i < self->items->len; i++)
    {
      LumoProviderItem *item = g_ptr_array_index (self->items, i);

      if (g_str_equal (item->info->id, provider_id))
        {
          if (position != NULL)
            *position = i;
          return item;
        }
    }

  return NULL;
}
