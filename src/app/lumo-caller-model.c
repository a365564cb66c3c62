/* lumo-caller-model.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-caller-model"

#include "config.h"

#include "lumo-caller-model.h"
#include "lumo-error.h"
#include "lumo-format.h"

/* ---- LumoCallerItem ----------------------------------------------------- */

struct _LumoCallerItem
{
  GObject         parent_instance;
  LumoCallerInfo *info;
};

G_DEFINE_FINAL_TYPE (LumoCallerItem, lumo_caller_item, G_TYPE_OBJECT)

enum {
  ITEM_PROP_0,
  ITEM_PROP_PROVIDER_ID,
  ITEM_PROP_CALLER_ID,
  ITEM_PROP_TITLE,
  ITEM_PROP_DISPLAY_NAME,
  ITEM_PROP_STATE,
  ITEM_PROP_FIRST_SEEN,
  ITEM_PROP_LAST_SEEN,
  ITEM_PROP_PROBE_COUNT,
  ITEM_PROP_WRITE_COUNT,
  N_ITEM_PROPS
};

static GParamSpec *item_properties[N_ITEM_PROPS];

static void
lumo_caller_item_finalize (GObject *object)
{
  LumoCallerItem *self = (LumoCallerItem *)object;

  g_clear_pointer (&self->info, lumo_caller_info_free);

  G_OBJECT_CLASS (lumo_caller_item_parent_class)->finalize (object);
}

static void
lumo_caller_item_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  LumoCallerItem *self = LUMO_CALLER_ITEM (object);

  switch (prop_id)
    {
    case ITEM_PROP_PROVIDER_ID:
      g_value_set_string (value, self->info->provider_id);
      break;
    case ITEM_PROP_CALLER_ID:
      g_value_set_string (value, self->info->id);
      break;
    case ITEM_PROP_TITLE:
      g_value_set_string (value, lumo_caller_item_get_title (self));
      break;
    case ITEM_PROP_DISPLAY_NAME:
      g_value_set_string (value, self->info->display_name);
      break;
    case ITEM_PROP_STATE:
      g_value_set_int (value, self->info->state);
      break;
    case ITEM_PROP_FIRST_SEEN:
      g_value_set_int64 (value, self->info->first_seen);
      break;
    case ITEM_PROP_LAST_SEEN:
      g_value_set_int64 (value, self->info->last_seen);
      break;
    case ITEM_PROP_PROBE_COUNT:
      g_value_set_uint64 (value, self->info->probe_count);
      break;
    case ITEM_PROP_WRITE_COUNT:
      g_value_set_uint64 (value, self->info->write_count);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
lumo_caller_item_class_init (LumoCallerItemClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags flags = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->finalize = lumo_caller_item_finalize;
  object_class->get_property = lumo_caller_item_get_property;

  item_properties[ITEM_PROP_PROVIDER_ID] = g_param_spec_string ("provider-id", NULL, NULL, NULL, flags);
  item_properties[ITEM_PROP_CALLER_ID] = g_param_spec_string ("caller-id", NULL, NULL, NULL, flags);
  item_properties[ITEM_PROP_TITLE] = g_param_spec_string ("title", NULL, NULL, NULL, flags);
  item_properties[ITEM_PROP_DISPLAY_NAME] = g_param_spec_string ("display-name", NULL, NULL, NULL, flags);
  item_properties[ITEM_PROP_STATE] =
    g_param_spec_int ("state", NULL, NULL, 0, LUMO_CALLER_STATE_DENIED, 0, flags);
  item_properties[ITEM_PROP_FIRST_SEEN] =
    g_param_spec_int64 ("first-seen", NULL, NULL, 0, G_MAXINT64, 0, flags);
  item_properties[ITEM_PROP_LAST_SEEN] =
    g_param_spec_int64 ("last-seen", NULL, NULL, 0, G_MAXINT64, 0, flags);
  item_properties[ITEM_PROP_PROBE_COUNT] =
    g_param_spec_uint64 ("probe-count", NULL, NULL, 0, G_MAXUINT64, 0, flags);
  item_properties[ITEM_PROP_WRITE_COUNT] =
    g_param_spec_uint64 ("write-count", NULL, NULL, 0, G_MAXUINT64, 0, flags);

  g_object_class_install_properties (object_class, N_ITEM_PROPS, item_properties);
}

static void
lumo_caller_item_init (LumoCallerItem *self)
{
}

static LumoCallerItem *
lumo_caller_item_new (const LumoCallerInfo *info)
{
  LumoCallerItem *self = g_object_new (LUMO_TYPE_CALLER_ITEM, NULL);

  self->info = lumo_caller_info_copy (info);
  return self;
}

/* Takes the new snapshot and notifies only what changed, so a bound row
 * redraws the labels that moved and nothing else. */
static void
lumo_caller_item_update (LumoCallerItem       *self,
                         const LumoCallerInfo *info)
{
  g_autoptr(LumoCallerInfo) old = g_steal_pointer (&self->info);

  self->info = lumo_caller_info_copy (info);

  g_object_freeze_notify (G_OBJECT (self));
  if (g_strcmp0 (old->display_name, info->display_name) != 0)
    {
      g_object_notify_by_pspec (G_OBJECT (self), item_properties[ITEM_PROP_DISPLAY_NAME]);
      g_object_notify_by_pspec (G_OBJECT (self), item_properties[ITEM_PROP_TITLE]);
    }
  if (old->state != info->state)
    g_object_notify_by_pspec (G_OBJECT (self), item_properties[ITEM_PROP_STATE]);
  if (old->first_seen != info->first_seen)
    g_object_notify_by_pspec (G_OBJECT (self), item_properties[ITEM_PROP_FIRST_SEEN]);
  if (old->last_seen != info->last_seen)
    g_object_notify_by_pspec (G_OBJECT (self), item_properties[ITEM_PROP_LAST_SEEN]);
  if (old->probe_count != info->probe_count)
    g_object_notify_by_pspec (G_OBJECT (self), item_properties[ITEM_PROP_PROBE_COUNT]);
  if (old->write_count != info->write_count)
    g_object_notify_by_pspec (G_OBJECT (self), item_properties[ITEM_PROP_WRITE_COUNT]);
  g_object_thaw_notify (G_OBJECT (self));
}

const LumoCallerInfo *
lumo_caller_item_get_info (LumoCallerItem *self)
{
  g_return_val_if_fail (LUMO_IS_CALLER_ITEM (self), NULL);

  return self->info;
}

const char *
lumo_caller_item_get_provider_id (LumoCallerItem *self)
{
  g_return_val_if_fail (LUMO_IS_CALLER_ITEM (self), NULL);

  return self->info->provider_id;
}

const char *
lumo_caller_item_get_caller_id (LumoCallerItem *self)
{
  g_return_val_if_fail (LUMO_IS_CALLER_ITEM (self), NULL);

  return self->info->id;
}

const char *
lumo_caller_item_get_title (LumoCallerItem *self)
{
  g_return_val_if_fail (LUMO_IS_CALLER_ITEM (self), NULL);

  return lumo_format_caller_title (self->info, self->info->id);
}

/* ---- LumoCallerModel ---------------------------------------------------- */

struct _LumoCallerModel
{
  GObject          parent_instance;

  LumoPolicy      *policy;
  char            *provider_id;
  LumoCallerState  state;
  GPtrArray       *items;        /* LumoCallerItem, newest first_seen first */
};

static void list_model_iface_init (GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (LumoCallerModel, lumo_caller_model, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, list_model_iface_init))

enum {
  PROP_0,
  PROP_POLICY,
  PROP_PROVIDER_ID,
  PROP_STATE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static GType
lumo_caller_model_get_item_type (GListModel *model)
{
  return LUMO_TYPE_CALLER_ITEM;
}

static guint
lumo_caller_model_get_n_items (GListModel *model)
{
  return LUMO_CALLER_MODEL (model)->items->len;
}

static gpointer
lumo_caller_model_get_item (GListModel *model,
                            guint       position)
{
  LumoCallerModel *self = LUMO_CALLER_MODEL (model);

  if (position >= self->items->len)
    return NULL;
  return g_object_ref (g_ptr_array_index (self->items, position));
}

static void
list_model_iface_init (GListModelInterface *iface)
{
  iface->get_item_type = lumo_caller_model_get_item_type;
  iface->get_n_items = lumo_caller_model_get_n_items;
  iface->get_item = lumo_caller_model_get_item;
}

static gboolean
matches (LumoCallerModel      *self,
         const LumoCallerInfo *info)
{
  if (self->provider_id != NULL && g_strcmp0 (self->provider_id, info->provider_id) != 0)
    return FALSE;
  return self->state == LUMO_CALLER_STATE_ANY || self->state == info->state;
}

/* The order of lumo_policy_list_callers(): newest first_seen first. */
static int
compare_infos (const LumoCallerInfo *a,
               const LumoCallerInfo *b)
{
  int cmp;

  if (a->first_seen != b->first_seen)
    return a->first_seen > b->first_seen ? -1 : 1;
  if ((cmp = g_strcmp0 (a->provider_id, b->provider_id)) != 0)
    return cmp;
  return g_strcmp0 (a->id, b->id);
}

static gboolean
find_position (LumoCallerModel *self,
               const char      *provider_id,
               const char      *caller_id,
               guint           *position)
{
  for (guint i = 0; i < self->items->len; i++)
    {
      LumoCallerItem *item = g_ptr_array_index (self->items, i);

      if (g_str_equal (item->info->id, caller_id) &&
          g_str_equal (item->info->provider_id, provider_id))
        {
          *position = i;
          return TRUE;
        }
    }

  return FALSE;
}

static void
remove_at (LumoCallerModel *self,
           guint            position)
{
  g_ptr_array_remove_index (self->items, position);
  g_list_model_items_changed (G_LIST_MODEL (self), position, 1, 0);
}

static void
insert_sorted (LumoCallerModel      *self,
               const LumoCallerInfo *info)
{
  guint position = 0;

  while (position < self->items->len &&
         compare_infos (((LumoCallerItem *)g_ptr_array_index (self->items, position))->info, info) < 0)
    position++;

  g_ptr_array_insert (self->items, position, lumo_caller_item_new (info));
  g_list_model_items_changed (G_LIST_MODEL (self), position, 0, 1);
}

static void
lumo_caller_model_reload (LumoCallerModel *self)
{
  g_autoptr(GPtrArray) infos = NULL;
  g_autoptr(GError) error = NULL;
  guint old_len = self->items->len;

  g_ptr_array_set_size (self->items, 0);

  /* "" is "no provider": an empty list, no query. */
  if (self->policy != NULL && g_strcmp0 (self->provider_id, "") != 0 &&
      !(infos = lumo_policy_list_callers (self->policy, self->provider_id, self->state, &error)))
    g_warning ("Cannot list the callers: %s", error->message);

  for (guint i = 0; infos != NULL && i < infos->len; i++)
    g_ptr_array_add (self->items, lumo_caller_item_new (g_ptr_array_index (infos, i)));

  if (old_len > 0 || self->items->len > 0)
    g_list_model_items_changed (G_LIST_MODEL (self), 0, old_len, self->items->len);
}

static void
on_policy_caller_changed_cb (LumoPolicy      *policy,
                             const char      *provider_id,
                             const char      *caller_id,
                             LumoCallerModel *self)
{
  g_autoptr(LumoCallerInfo) info = NULL;
  g_autoptr(GError) error = NULL;
  guint position;
  gboolean present;

  if (self->provider_id != NULL && g_strcmp0 (self->provider_id, provider_id) != 0)
    return;

  present = find_position (self, provider_id, caller_id, &position);
  info = lumo_policy_get_caller (policy, provider_id, caller_id, &error);

  if (info == NULL && !g_error_matches (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND))
    {
      g_warning ("Cannot read caller %s of %s: %s", caller_id, provider_id, error->message);
      return;
    }

  if (info == NULL || !matches (self, info))
    {
      if (present)
        remove_at (self, position);
      return;
    }

  if (present)
    {
      LumoCallerItem *item = g_ptr_array_index (self->items, position);

      /* first_seen never changes for a known caller, so its place holds. */
      lumo_caller_item_update (item, info);
      return;
    }

  insert_sorted (self, info);
}

static void
on_policy_provider_changed_cb (LumoPolicy      *policy,
                               const char      *provider_id,
                               LumoCallerModel *self)
{
  g_autoptr(LumoProviderInfo) info = NULL;

  if (self->provider_id != NULL && g_strcmp0 (self->provider_id, provider_id) != 0)
    return;

  /* A removed provider takes its callers along. */
  if ((info = lumo_policy_get_provider (policy, provider_id, NULL)) != NULL)
    return;

  for (guint i = self->items->len; i > 0; i--)
    {
      LumoCallerItem *item = g_ptr_array_index (self->items, i - 1);

      if (g_str_equal (item->info->provider_id, provider_id))
        remove_at (self, i - 1);
    }
}

static void
lumo_caller_model_constructed (GObject *object)
{
  LumoCallerModel *self = (LumoCallerModel *)object;

  G_OBJECT_CLASS (lumo_caller_model_parent_class)->constructed (object);

  g_signal_connect_object (self->policy, "caller-changed",
                           G_CALLBACK (on_policy_caller_changed_cb), self, 0);
  g_signal_connect_object (self->policy, "provider-changed",
                           G_CALLBACK (on_policy_provider_changed_cb), self, 0);
}

static void
lumo_caller_model_dispose (GObject *object)
{
  LumoCallerModel *self = (LumoCallerModel *)object;

  if (self->items != NULL)
    g_ptr_array_set_size (self->items, 0);
  g_clear_object (&self->policy);

  G_OBJECT_CLASS (lumo_caller_model_parent_class)->dispose (object);
}

static void
lumo_caller_model_finalize (GObject *object)
{
  LumoCallerModel *self = (LumoCallerModel *)object;

  g_clear_pointer (&self->items, g_ptr_array_unref);
  g_clear_pointer (&self->provider_id, g_free);

  G_OBJECT_CLASS (lumo_caller_model_parent_class)->finalize (object);
}

static void
lumo_caller_model_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  LumoCallerModel *self = LUMO_CALLER_MODEL (object);

  switch (prop_id)
    {
    case PROP_POLICY:
      g_value_set_object (value, self->policy);
      break;
    case PROP_PROVIDER_ID:
      g_value_set_string (value, self->provider_id);
      break;
    case PROP_STATE:
      g_value_set_int (value, self->state);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
lumo_caller_model_set_property (GObject      *object,
                                guint         prop_id,
                                const GValue *value,
                                GParamSpec   *pspec)
{
  LumoCallerModel *self = LUMO_CALLER_MODEL (object);

  switch (prop_id)
    {
    case PROP_POLICY:
      self->policy = g_value_dup_object (value);
      break;
    case PROP_PROVIDER_ID:
      lumo_caller_model_set_provider_id (self, g_value_get_string (value));
      break;
    case PROP_STATE:
      self->state = g_value_get_int (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
lumo_caller_model_class_init (LumoCallerModelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->constructed = lumo_caller_model_constructed;
  object_class->dispose = lumo_caller_model_dispose;
  object_class->finalize = lumo_caller_model_finalize;
  object_class->get_property = lumo_caller_model_get_property;
  object_class->set_property = lumo_caller_model_set_property;

  properties[PROP_POLICY] =
    g_param_spec_object ("policy", NULL, NULL, LUMO_TYPE_POLICY,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  properties[PROP_PROVIDER_ID] =
    g_param_spec_string ("provider-id", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_STATE] =
    g_param_spec_int ("state", NULL, NULL, LUMO_CALLER_STATE_ANY, LUMO_CALLER_STATE_DENIED,
                      LUMO_CALLER_STATE_ANY,
                      G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
lumo_caller_model_init (LumoCallerModel *self)
{
  self->items = g_ptr_array_new_with_free_func (g_object_unref);
}

LumoCallerModel *
lumo_caller_model_new (LumoPolicy      *policy,
                       const char      *provider_id,
                       LumoCallerState  state)
{
  g_return_val_if_fail (LUMO_IS_POLICY (policy), NULL);

  LumoCallerModel *self;

  self = g_object_new (LUMO_TYPE_CALLER_MODEL,
                       "state", state,
                       "policy", policy,
                       NULL);
  self->provider_id = g_strdup (provider_id);
  lumo_caller_model_reload (self);

  return self;
}

LumoPolicy *
lumo_caller_model_get_policy (LumoCallerModel *self)
{
  g_return_val_if_fail (LUMO_IS_CALLER_MODEL (self), NULL);

  return self->policy;
}

const char *
lumo_caller_model_get_provider_id (LumoCallerModel *self)
{
  g_return_val_if_fail (LUMO_IS_CALLER_MODEL (self), NULL);

  return self->provider_id;
}

void
lumo_caller_model_set_provider_id (LumoCallerModel *self,
                                   const char      *provider_id)
{
  g_return_if_fail (LUMO_IS_CALLER_MODEL (self));

  if (g_strcmp0 (self->provider_id, provider_id) == 0)
    return;

  g_free (self->provider_id);
  self->provider_id = g_strdup (provider_id);
  lumo_caller_model_reload (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROVIDER_ID]);
}

LumoCallerItem *
lumo_caller_model_find (LumoCallerModel *self,
                        const char      *provider_id,
                        const char      *caller_id)
{
  guint position;

  g_return_val_if_fail (LUMO_IS_CALLER_MODEL (self), NULL);
  g_return_val_if_fail (provider_id != NULL && caller_id != NULL, NULL);

  if (find_position (self, provider_id, caller_id, &position))
    return g_ptr_array_index (self->items, position);
  return NULL;
}
