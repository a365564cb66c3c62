/* lumo-audit-item.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-audit-item"

#include "config.h"

#include "lumo-audit-model-private.h"
#include "lumo-format.h"

struct _LumoAuditItem
{
  GObject       parent_instance;

  LumoAuditRow *row;
  char         *time;
  char         *caller;
  char         *provider;
  char         *outcome;
  char         *hash_prefix;
};

G_DEFINE_FINAL_TYPE (LumoAuditItem, lumo_audit_item, G_TYPE_OBJECT)

enum {
  ITEM_PROP_0,
  ITEM_PROP_ROW,
  ITEM_PROP_LOADED,
  ITEM_PROP_TIME,
  ITEM_PROP_CALLER,
  ITEM_PROP_PROVIDER,
  ITEM_PROP_TOOL,
  ITEM_PROP_TARGET,
  ITEM_PROP_OUTCOME,
  ITEM_PROP_DENIED,
  ITEM_PROP_HASH_PREFIX,
  N_ITEM_PROPS
};

static GParamSpec *item_properties[N_ITEM_PROPS];

static void
lumo_audit_item_finalize (GObject *object)
{
  LumoAuditItem *self = (LumoAuditItem *)object;

  g_clear_object (&self->row);
  g_clear_pointer (&self->time, g_free);
  g_clear_pointer (&self->caller, g_free);
  g_clear_pointer (&self->provider, g_free);
  g_clear_pointer (&self->outcome, g_free);
  g_clear_pointer (&self->hash_prefix, g_free);

  G_OBJECT_CLASS (lumo_audit_item_parent_class)->finalize (object);
}

static void
lumo_audit_item_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  LumoAuditItem *self = LUMO_AUDIT_ITEM (object);

  switch (prop_id)
    {
    case ITEM_PROP_ROW:
      g_value_set_object (value, self->row);
      break;
    case ITEM_PROP_LOADED:
      g_value_set_boolean (value, self->row != NULL);
      break;
    case ITEM_PROP_TIME:
      g_value_set_string (value, self->time);
      break;
    case ITEM_PROP_CALLER:
      g_value_set_string (value, self->caller);
      break;
    case ITEM_PROP_PROVIDER:
      g_value_set_string (value, self->provider);
      break;
    case ITEM_PROP_TOOL:
      g_value_set_string (value, self->row ? lumo_audit_row_get_tool (self->row) : NULL);
      break;
    case ITEM_PROP_TARGET:
      g_value_set_string (value, self->row ? lumo_audit_row_get_target (self->row) : NULL);
      break;
    case ITEM_PROP_OUTCOME:
      g_value_set_string (value, self->outcome);
      break;
    case ITEM_PROP_DENIED:
      g_value_set_boolean (value, self->row != NULL &&
                           lumo_audit_row_get_decision (self->row) == LUMO_AUDIT_DECISION_DENY);
      break;
    case ITEM_PROP_HASH_PREFIX:
      g_value_set_string (value, self->hash_prefix);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
lumo_audit_item_class_init (LumoAuditItemClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags flags = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->finalize = lumo_audit_item_finalize;
  object_class->get_property = lumo_audit_item_get_property;

  item_properties[ITEM_PROP_ROW] =
    g_param_spec_object ("row", NULL, NULL, LUMO_TYPE_AUDIT_ROW, flags);
  item_properties[ITEM_PROP_LOADED] = g_param_spec_boolean ("loaded", NULL, NULL, FALSE, flags);
  item_properties[ITEM_PROP_TIME] = g_param_spec_string ("time", NULL, NULL, NULL, flags);
  item_properties[ITEM_PROP_CALLER] = g_param_spec_string ("caller", NULL, NULL, NULL, flags);
  item_properties[ITEM_PROP_PROVIDER] = g_param_spec_string ("provider", NULL, NULL, NULL, flags);
  item_properties[ITEM_PROP_TOOL] = g_param_spec_string ("tool", NULL, NULL, NULL, flags);
  item_properties[ITEM_PROP_TARGET] = g_param_spec_string ("target", NULL, NULL, NULL, flags);
  item_properties[ITEM_PROP_OUTCOME] = g_param_spec_string ("outcome", NULL, NULL, NULL, flags);
  item_properties[ITEM_PROP_DENIED] = g_param_spec_boolean ("denied", NULL, NULL, FALSE, flags);
  item_properties[ITEM_PROP_HASH_PREFIX] =
    g_param_spec_string ("hash-prefix", NULL, NULL, NULL, flags);

  g_object_class_install_properties (object_class, N_ITEM_PROPS, item_properties);
}

static void
lumo_audit_item_init (LumoAuditItem *self)
{
}

/* Formats the texts once per row, so binding a cell reads a string and
 * never formats or queries anything. */
void
_lumo_audit_item_set_row (LumoAuditItem *self,
                          LumoAuditRow  *row,
                          GHashTable    *provider_names)
{
  const char *name;

  if (row == self->row)
    return;

  g_set_object (&self->row, row);
  g_clear_pointer (&self->time, g_free);
  g_clear_pointer (&self->caller, g_free);
  g_clear_pointer (&self->provider, g_free);
  g_clear_pointer (&self->outcome, g_free);
  g_clear_pointer (&self->hash_prefix, g_free);

  if (row != NULL)
    {
      const char *provider_id = lumo_audit_row_get_provider_id (row);

      self->time = lumo_format_time (lumo_audit_row_get_time_us (row));
      name = lumo_audit_row_get_caller_name (row);
      self->caller = g_strdup (name != NULL && *name != '\0' ? name : lumo_audit_row_get_caller_id (row));
      name = provider_names != NULL ? g_hash_table_lookup (provider_names, provider_id) : NULL;
      self->provider = g_strdup (name != NULL ? name : provider_id);
      self->outcome = lumo_format_outcome (row);
      self->hash_prefix = lumo_format_hash_prefix (lumo_audit_row_get_hash (row), 12);
    }

  g_object_freeze_notify (G_OBJECT (self));
  for (guint i = ITEM_PROP_ROW; i < N_ITEM_PROPS; i++)
    g_object_notify_by_pspec (G_OBJECT (self), item_properties[i]);
  g_object_thaw_notify (G_OBJECT (self));
}

LumoAuditRow *
lumo_audit_item_get_row (LumoAuditItem *self)
{
  g_return_val_if_fail (LUMO_IS_AUDIT_ITEM (self), NULL);

  return self->row;
}


const char *
lumo_audit_item_get_text (LumoAuditItem   *self,
                          LumoAuditColumn  column)
{
  const char *text = NULL;

  g_return_val_if_fail (LUMO_IS_AUDIT_ITEM (self), NULL);

  if (self->row == NULL)
    return "";

  switch (column)
    {
    case LUMO_AUDIT_COLUMN_TIME:
      text = self->time;
      break;
    case LUMO_AUDIT_COLUMN_CALLER:
      text = self->caller;
      break;
    case LUMO_AUDIT_COLUMN_PROVIDER:
      text = self->provider;
      break;
    case LUMO_AUDIT_COLUMN_TOOL:
      text = lumo_audit_row_get_tool (self->row);
      break;
    case LUMO_AUDIT_COLUMN_TARGET:
      text = lumo_audit_row_get_target (self->row);
      break;
    case LUMO_AUDIT_COLUMN_OUTCOME:
      text = self->outcome;
      break;
    case LUMO_AUDIT_COLUMN_HASH:
      text = self->hash_prefix;
      break;
    case LUMO_AUDIT_N_COLUMNS:
    default:
      g_return_val_if_reached ("");
    }

  return text != NULL ? text : "";
}

const char *
lumo_audit_item_get_caller_tag (LumoAuditItem *self)
{
  g_return_val_if_fail (LUMO_IS_AUDIT_ITEM (self), NULL);

  return self->row != NULL ? lumo_format_caller_kind_tag (lumo_audit_row_get_caller_kind (self->row)) : NULL;
}

gboolean
lumo_audit_item_get_denied (LumoAuditItem *self)
{
  g_return_val_if_fail (LUMO_IS_AUDIT_ITEM (self), FALSE);

  return self->row != NULL && lumo_audit_row_get_decision (self->row) == LUMO_AUDIT_DECISION_DENY;
}
