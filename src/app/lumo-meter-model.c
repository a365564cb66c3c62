/* lumo-meter-model.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-meter-model"

#include "config.h"

#include <string.h>

#include "lumo-meter-model.h"
#include "lumo-protocol.h"
#include "lumo-rate-limiter.h"

/* ---- LumoMeterItem ------------------------------------------------------ */

struct _LumoMeterItem
{
  GObject   parent_instance;

  char     *provider_id;
  char     *caller_id;
  char     *key;
  char     *title;
  guint     used;
  guint     limit;
  gint64    next_free_us;
  /* Limiter-clock times of the admissions seen since the app started,
   * pruned to the window: at most `limit` of them. */
  GArray   *admissions;
  guint     history[LUMO_METER_N_BUCKETS];
};

G_DEFINE_FINAL_TYPE (LumoMeterItem, lumo_meter_item, G_TYPE_OBJECT)

enum {
  ITEM_PROP_0,
  ITEM_PROP_PROVIDER_ID,
  ITEM_PROP_CALLER_ID,
  ITEM_PROP_TITLE,
  ITEM_PROP_USED,
  ITEM_PROP_LIMIT,
  ITEM_PROP_FULL,
  ITEM_PROP_NEXT_FREE_US,
  ITEM_PROP_HISTORY,
  N_ITEM_PROPS
};

static GParamSpec *item_properties[N_ITEM_PROPS];

static void
lumo_meter_item_finalize (GObject *object)
{
  LumoMeterItem *self = (LumoMeterItem *)object;

  g_clear_pointer (&self->provider_id, g_free);
  g_clear_pointer (&self->caller_id, g_free);
  g_clear_pointer (&self->key, g_free);
  g_clear_pointer (&self->title, g_free);
  g_clear_pointer (&self->admissions, g_array_unref);

  G_OBJECT_CLASS (lumo_meter_item_parent_class)->finalize (object);
}

static void
lumo_meter_item_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  LumoMeterItem *self = LUMO_METER_ITEM (object);

  switch (prop_id)
    {
    case ITEM_PROP_PROVIDER_ID:
      g_value_set_string (value, self->provider_id);
      break;
    case ITEM_PROP_CALLER_ID:
      g_value_set_string (value, self->caller_id);
      break;
    case ITEM_PROP_TITLE:
      g_value_set_string (value, self->title);
      break;
    case ITEM_PROP_USED:
      g_value_set_uint (value, self->used);
      break;
    case ITEM_PROP_LIMIT:
      g_value_set_uint (value, self->limit);
      break;
    case ITEM_PROP_FULL:
      g_value_set_boolean (value, lumo_meter_item_get_full (self));
      break;
    case ITEM_PROP_NEXT_FREE_US:
      g_value_set_int64 (value, self->next_free_us);
      break;
    case ITEM_PROP_HISTORY:
      g_value_set_pointer (value, self->history);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
lumo_meter_item_class_init (LumoMeterItemClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags flags = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->finalize = lumo_meter_item_finalize;
  object_class->get_property = lumo_meter_item_get_property;

  item_properties[ITEM_PROP_PROVIDER_ID] = g_param_spec_string ("provider-id", NULL, NULL, NULL, flags);
  item_properties[ITEM_PROP_CALLER_ID] = g_param_spec_string ("caller-id", NULL, NULL, NULL, flags);
  item_properties[ITEM_PROP_TITLE] = g_param_spec_string ("title", NULL, NULL, NULL, flags);
  item_properties[ITEM_PROP_USED] = g_param_spec_uint ("used", NULL, NULL, 0, G_MAXUINT, 0, flags);
  item_properties[ITEM_PROP_LIMIT] = g_param_spec_uint ("limit", NULL, NULL, 0, G_MAXUINT, 0, flags);
  item_properties[ITEM_PROP_FULL] = g_param_spec_boolean ("full", NULL, NULL, FALSE, flags);
  item_properties[ITEM_PROP_NEXT_FREE_US] =
    g_param_spec_int64 ("next-free-us", NULL, NULL, 0, G_MAXINT64, 0, flags);
  /* Notified when the sparkline moved; read it with the getter. */
  item_properties[ITEM_PROP_HISTORY] = g_param_spec_pointer ("history", NULL, NULL, flags);

  g_object_class_install_properties (object_class, N_ITEM_PROPS, item_properties);
}

static void
lumo_meter_item_init (LumoMeterItem *self)
{
  self->admissions = g_array_new (FALSE, FALSE, sizeof (gint64));
}

static LumoMeterItem *
lumo_meter_item_new (const char *provider_id,
                     const char *caller_id,
                     const char *title)
{
  LumoMeterItem *self = g_object_new (LUMO_TYPE_METER_ITEM, NULL);

  self->provider_id = g_strdup (provider_id);
  self->caller_id = g_strdup (caller_id);
  self->key = lumo_caller_key_new (provider_id, caller_id);
  self->title = g_strdup (title != NULL && *title != '\0' ? title : caller_id);

  return self;
}

/* Reads the limiter and rebuilds the sparkline; notifies what moved.
 * Returns TRUE if the meter is above zero. */
static gboolean
lumo_meter_item_refresh (LumoMeterItem   *self,
                         LumoRateLimiter *limiter)
{
  gint64 now = lumo_rate_limiter_now (limiter);
  gint64 window = lumo_rate_limiter_get_window (limiter);
  gint64 bucket_us = window / LUMO_METER_N_BUCKETS;
  guint history[LUMO_METER_N_BUCKETS] = { 0 };
  gboolean was_full = lumo_meter_item_get_full (self);
  guint used, limit;
  gint64 next_free_us;
  guint keep = 0;

  lumo_rate_limiter_usage (limiter, self->key, &used, &limit, &next_free_us);
  next_free_us = MAX (next_free_us, 0);

  for (guint i = 0; i < self->admissions->len; i++)
    {
      gint64 t = g_array_index (self->admissions, gint64, i);
      gint64 age = now - t;

      if (age >= window || age < 0)
        continue;
      g_array_index (self->admissions, gint64, keep++) = t;
      history[LUMO_METER_N_BUCKETS - 1 - MIN (age / bucket_us, LUMO_METER_N_BUCKETS - 1)]++;
    }
  g_array_set_size (self->admissions, keep);

  g_object_freeze_notify (G_OBJECT (self));
  if (used != self->used)
    {
      self->used = used;
      g_object_notify_by_pspec (G_OBJECT (self), item_properties[ITEM_PROP_USED]);
    }
  if (limit != self->limit)
    {
      self->limit = limit;
      g_object_notify_by_pspec (G_OBJECT (self), item_properties[ITEM_PROP_LIMIT]);
    }
  if (next_free_us != self->next_free_us)
    {
      self->next_free_us = next_free_us;
      g_object_notify_by_pspec (G_OBJECT (self), item_properties[ITEM_PROP_NEXT_FREE_US]);
    }
  if (was_full != lumo_meter_item_get_full (self))
    g_object_notify_by_pspec (G_OBJECT (self), item_properties[ITEM_PROP_FULL]);
  if (memcmp (history, self->history, sizeof history) != 0)
    {
      memcpy (self->history, history, sizeof history);
      g_object_notify_by_pspec (G_OBJECT (self), item_properties[ITEM_PROP_HISTORY]);
    }
  g_object_thaw_notify (G_OBJECT (self));

  return used > 0;
}

const char *
lumo_meter_item_get_provider_id (LumoMeterItem *self)
{
  g_return_val_if_fail (LUMO_IS_METER_ITEM (self), NULL);
  return self->provider_id;
}

const char *
lumo_meter_item_get_caller_id (LumoMeterItem *self)
{
  g_return_val_if_fail (LUMO_IS_METER_ITEM (self), NULL);
  return self->caller_id;
}

const char *
lumo_meter_item_get_title (LumoMeterItem *self)
{
  g_return_val_if_fail (LUMO_IS_METER_ITEM (self), NULL);
  return self->title;
}

guint
lumo_meter_item_get_used (LumoMeterItem *self)
{
  g_return_val_if_fail (LUMO_IS_METER_ITEM (self), 0);
  return self->used;
}

guint
lumo_meter_item_get_limit (LumoMeterItem *self)
{
  g_return_val_if_fail (LUMO_IS_METER_ITEM (self), 0);
  return self->limit;
}

gboolean
lumo_meter_item_get_full (LumoMeterItem *self)
{
  g_return_val_if_fail (LUMO_IS_METER_ITEM (self), FALSE);
  return self->limit > 0 && self->used >= self->limit;
}

gint64
lumo_meter_item_get_next_free_us (LumoMeterItem *self)
{
  g_return_val_if_fail (LUMO_IS_METER_ITEM (self), 0);
  return self->next_free_us;
}

const guint *
lumo_meter_item_get_history (LumoMeterItem *self)
{
  g_return_val_if_fail (LUMO_IS_METER_ITEM (self), NULL);
  return self->history;
}

/* ---- LumoMeterModel ----------------------------------------------------- */

struct _LumoMeterModel
{
  GObject          parent_instance;

  LumoPolicy      *policy;
  LumoRateLimiter *limiter;
  GPtrArray       *items;      /* LumoMeterItem */
  guint            tick_id;
};

static void list_model_iface_init (GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (LumoMeterModel, lumo_meter_model, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, list_model_iface_init))

enum {
  PROP_0,
  PROP_TICKING,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static GType
lumo_meter_model_get_item_type (GListModel *model)
{
  return LUMO_TYPE_METER_ITEM;
}

static guint
lumo_meter_model_get_n_items (GListModel *model)
{
  return LUMO_METER_MODEL (model)->items->len;
}

static gpointer
lumo_meter_model_get_item (GListModel *model,
                           guint       position)
{
  LumoMeterModel *self = LUMO_METER_MODEL (model);

  if (position >= self->items->len)
    return NULL;
  return g_object_ref (g_ptr_array_index (self->items, position));
}

static void
list_model_iface_init (GListModelInterface *iface)
{
  iface->get_item_type = lumo_meter_model_get_item_type;
  iface->get_n_items = lumo_meter_model_get_n_items;
  iface->get_item = lumo_meter_model_get_item;
}

static gboolean
on_tick_cb (gpointer user_data)
{
  LumoMeterModel *self = user_data;

  lumo_meter_model_tick (self);

  return self->tick_id != 0 ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
}

static void
set_ticking (LumoMeterModel *self,
             gboolean        ticking)
{
  if (ticking == (self->tick_id != 0))
    return;

  if (ticking)
    {
      self->tick_id = g_timeout_add (1000, on_tick_cb, self);
      g_source_set_name_by_id (self->tick_id, "[lumo] rate meters");
    }
  else
    {
      /* Called from within on_tick_cb too: it returns G_SOURCE_REMOVE then. */
      GSource *source = g_main_context_find_source_by_id (NULL, self->tick_id);

      if (source != NULL && !g_source_is_destroyed (source) &&
          source != g_main_current_source ())
        g_source_destroy (source);
      self->tick_id = 0;
    }

  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TICKING]);
}

static LumoMeterItem *
find_by_key (LumoMeterModel *self,
             const char     *key,
             guint          *position)
{
  for (guint i = 0; i < self->items->len; i++)
    {
      LumoMeterItem *item = g_ptr_array_index (self->items, i);

      if (g_str_equal (item->key, key))
        {
          if (position != NULL)
            *position = i;
          return item;
        }
    }
  return NULL;
}

static LumoMeterItem *
add_item (LumoMeterModel *self,
          const char     *provider_id,
          const char     *caller_id)
{
  g_autoptr(LumoCallerInfo) info = lumo_policy_get_caller (self->policy, provider_id, caller_id, NULL);
  LumoMeterItem *item = lumo_meter_item_new (provider_id, caller_id,
                                             info != NULL ? info->display_name : NULL);

  lumo_meter_item_refresh (item, self->limiter);
  g_ptr_array_add (self->items, item);
  g_list_model_items_changed (G_LIST_MODEL (self), self->items->len - 1, 0, 1);

  return item;
}

static void
on_limiter_changed_cb (LumoRateLimiter *limiter,
                       const char      *key,
                       LumoMeterModel  *self)
{
  LumoMeterItem *item = find_by_key (self, key, NULL);
  gint64 now = lumo_rate_limiter_now (limiter);

  if (item == NULL)
    {
      char provider_id[LUMO_EXTENSION_ID_LEN + 1];
      char caller_id[LUMO_EXTENSION_ID_LEN + 1];

      if (!lumo_caller_key_split (key, provider_id, caller_id))
        return;
      item = add_item (self, provider_id, caller_id);
    }

  g_array_append_val (item->admissions, now);
  if (lumo_meter_item_refresh (item, limiter))
    set_ticking (self, TRUE);
}

static void
on_policy_caller_changed_cb (LumoPolicy     *policy,
                             const char     *provider_id,
                             const char     *caller_id,
                             LumoMeterModel *self)
{
  g_autoptr(LumoCallerInfo) info = lumo_policy_get_caller (policy, provider_id, caller_id, NULL);
  char key[LUMO_CALLER_KEY_SIZE];
  guint position;
  LumoMeterItem *item;

  lumo_caller_key_fill (key, provider_id, caller_id);
  item = find_by_key (self, key, &position);

  if (info != NULL && info->state == LUMO_CALLER_STATE_ALLOWED)
    {
      if (item == NULL)
        add_item (self, provider_id, caller_id);
      else if (info->display_name != NULL && *info->display_name != '\0' &&
               g_strcmp0 (item->title, info->display_name) != 0)
        {
          g_free (item->title);
          item->title = g_strdup (info->display_name);
          g_object_notify_by_pspec (G_OBJECT (item), item_properties[ITEM_PROP_TITLE]);
        }
    }
  else if (item != NULL && item->used == 0)
    {
      g_ptr_array_remove_index (self->items, position);
      g_list_model_items_changed (G_LIST_MODEL (self), position, 1, 0);
    }
}

static void
lumo_meter_model_dispose (GObject *object)
{
  LumoMeterModel *self = (LumoMeterModel *)object;

  g_clear_handle_id (&self->tick_id, g_source_remove);
  g_clear_object (&self->limiter);
  g_clear_object (&self->policy);
  if (self->items != NULL)
    g_ptr_array_set_size (self->items, 0);

  G_OBJECT_CLASS (lumo_meter_model_parent_class)->dispose (object);
}

static void
lumo_meter_model_finalize (GObject *object)
{
  LumoMeterModel *self = (LumoMeterModel *)object;

  g_clear_pointer (&self->items, g_ptr_array_unref);

  G_OBJECT_CLASS (lumo_meter_model_parent_class)->finalize (object);
}

static void
lumo_meter_model_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  LumoMeterModel *self = LUMO_METER_MODEL (object);

  switch (prop_id)
    {
    case PROP_TICKING:
      g_value_set_boolean (value, lumo_meter_model_get_ticking (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
lumo_meter_model_class_init (LumoMeterModelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = lumo_meter_model_dispose;
  object_class->finalize = lumo_meter_model_finalize;
  object_class->get_property = lumo_meter_model_get_property;

  properties[PROP_TICKING] =
    g_param_spec_boolean ("ticking", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
lumo_meter_model_init (LumoMeterModel *self)
{
  self->items = g_ptr_array_new_with_free_func (g_object_unref);
}

LumoMeterModel *
lumo_meter_model_new (LumoPolicy *policy)
{
  g_autoptr(GPtrArray) allowed = NULL;
  g_auto(GStrv) active = NULL;
  LumoMeterModel *self;

  g_return_val_if_fail (LUMO_IS_POLICY (policy), NULL);

  self = g_object_new (LUMO_TYPE_METER_MODEL, NULL);
  self->policy = g_object_ref (policy);
  self->limiter = g_object_ref (lumo_policy_get_rate_limiter (policy));

  g_signal_connect_object (self->limiter, "changed",
                           G_CALLBACK (on_limiter_changed_cb), self, 0);
  g_signal_connect_object (policy, "caller-changed",
                           G_CALLBACK (on_policy_caller_changed_cb), self, 0);

  allowed = lumo_policy_list_callers (policy, NULL, LUMO_CALLER_STATE_ALLOWED, NULL);
  for (guint i = 0; allowed != NULL && i < allowed->len; i++)
    {
      const LumoCallerInfo *info = g_ptr_array_index (allowed, i);

      g_ptr_array_add (self->items, lumo_meter_item_new (info->provider_id, info->id,
                                                         info->display_name));
    }

  active = lumo_rate_limiter_list_active (self->limiter);
  for (guint i = 0; active != NULL && active[i] != NULL; i++)
    {
      char provider_id[LUMO_EXTENSION_ID_LEN + 1];
      char caller_id[LUMO_EXTENSION_ID_LEN + 1];

      if (find_by_key (self, active[i], NULL) == NULL &&
          lumo_caller_key_split (active[i], provider_id, caller_id))
        g_ptr_array_add (self->items, lumo_meter_item_new (provider_id, caller_id, NULL));
    }

  lumo_meter_model_tick (self);

  return self;
}

void
lumo_meter_model_tick (LumoMeterModel *self)
{
  gboolean any = FALSE;

  g_return_if_fail (LUMO_IS_METER_MODEL (self));

  for (guint i = 0; i < self->items->len; i++)
    any |= lumo_meter_item_refresh (g_ptr_array_index (self->items, i), self->limiter);

  set_ticking (self, any);
}

gboolean
lumo_meter_model_get_ticking (LumoMeterModel *self)
{
  g_return_val_if_fail (LUMO_IS_METER_MODEL (self), FALSE);

  return self->tick_id != 0;
}

LumoMeterItem *
lumo_meter_model_find (LumoMeterModel *self,
                       const char     *provider_id,
                       const char     *caller_id)
{
  char key[LUMO_CALLER_KEY_SIZE];

  g_return_val_if_fail (LUMO_IS_METER_MODEL (self), NULL);
  g_return_val_if_fail (provider_id != NULL && caller_id != NULL, NULL);

  /* No caller has a key of anything else. */
  if (!lumo_is_extension_id (provider_id) || !lumo_is_extension_id (caller_id))
    return NULL;

  lumo_caller_key_fill (key, provider_id, caller_id);
  return find_by_key (self, key, NULL);
}
