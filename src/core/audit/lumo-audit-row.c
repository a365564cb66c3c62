/* lumo-audit-row.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-audit"

#include "config.h"

#include "lumo-audit-private.h"
#include "lumo-audit-row.h"
#include "lumo-audit-secret.h"

G_DEFINE_ENUM_TYPE (LumoAuditDecision, lumo_audit_decision,
  G_DEFINE_ENUM_VALUE (LUMO_AUDIT_DECISION_ALLOW, "allow"),
  G_DEFINE_ENUM_VALUE (LUMO_AUDIT_DECISION_DENY, "deny"),
  G_DEFINE_ENUM_VALUE (LUMO_AUDIT_DECISION_PENDING_REVIEW, "pending-review"))

G_DEFINE_ENUM_TYPE (LumoAuditResult, lumo_audit_result,
  G_DEFINE_ENUM_VALUE (LUMO_AUDIT_RESULT_NONE, "none"),
  G_DEFINE_ENUM_VALUE (LUMO_AUDIT_RESULT_OK, "ok"),
  G_DEFINE_ENUM_VALUE (LUMO_AUDIT_RESULT_ERROR, "error"))

G_DEFINE_ENUM_TYPE (LumoAuditOutcome, lumo_audit_outcome,
  G_DEFINE_ENUM_VALUE (LUMO_AUDIT_OUTCOME_OK, "ok"),
  G_DEFINE_ENUM_VALUE (LUMO_AUDIT_OUTCOME_PENDING, "pending"),
  G_DEFINE_ENUM_VALUE (LUMO_AUDIT_OUTCOME_ERROR, "error"),
  G_DEFINE_ENUM_VALUE (LUMO_AUDIT_OUTCOME_DENIED, "denied"))

static const char * const outcome_names[] = { "ok", "pending", "error", "denied" };

const char *
lumo_audit_outcome_to_string (LumoAuditOutcome outcome)
{
  return (guint) outcome < G_N_ELEMENTS (outcome_names) ? outcome_names[outcome] : NULL;
}

gboolean
lumo_audit_outcome_from_string (const char       *s,
                                LumoAuditOutcome *outcome)
{
  for (guint i = 0; s != NULL && i < G_N_ELEMENTS (outcome_names); i++)
    {
      if (g_ascii_strcasecmp (s, outcome_names[i]) == 0)
        {
          if (outcome != NULL)
            *outcome = (LumoAuditOutcome) i;
          return TRUE;
        }
    }

  return FALSE;
}

G_DEFINE_ENUM_TYPE (LumoAuditCallerKind, lumo_audit_caller_kind,
  G_DEFINE_ENUM_VALUE (LUMO_AUDIT_CALLER_KIND_EXTENSION, "extension"),
  G_DEFINE_ENUM_VALUE (LUMO_AUDIT_CALLER_KIND_AGENT, "agent"))

const char *
lumo_audit_caller_kind_to_string (LumoAuditCallerKind kind)
{
  switch (kind)
    {
    case LUMO_AUDIT_CALLER_KIND_EXTENSION:
      return "extension";
    case LUMO_AUDIT_CALLER_KIND_AGENT:
      return "agent";
    default:
      return NULL;
    }
}

gboolean
lumo_audit_caller_kind_from_string (const char          *s,
                                    LumoAuditCallerKind *kind)
{
  for (LumoAuditCallerKind k = LUMO_AUDIT_CALLER_KIND_EXTENSION; k <= LUMO_AUDIT_CALLER_KIND_AGENT; k++)
    {
      if (g_strcmp0 (s, lumo_audit_caller_kind_to_string (k)) == 0)
        {
          if (kind != NULL)
            *kind = k;
          return TRUE;
        }
    }

  return FALSE;
}

const char *
lumo_audit_decision_to_string (LumoAuditDecision decision)
{
  switch (decision)
    {
    case LUMO_AUDIT_DECISION_ALLOW:
      return "allow";
    case LUMO_AUDIT_DECISION_DENY:
      return "deny";
    case LUMO_AUDIT_DECISION_PENDING_REVIEW:
      return "pending-review";
    default:
      return NULL;
    }
}

gboolean
lumo_audit_decision_from_string (const char        *s,
                                 LumoAuditDecision *decision)
{
  for (LumoAuditDecision d = LUMO_AUDIT_DECISION_ALLOW; d <= LUMO_AUDIT_DECISION_PENDING_REVIEW; d++)
    {
      if (g_strcmp0 (s, lumo_audit_decision_to_string (d)) == 0)
        {
          if (decision != NULL)
            *decision = d;
          return TRUE;
        }
    }

  return FALSE;
}

const char *
lumo_audit_result_to_string (LumoAuditResult result)
{
  switch (result)
    {
    case LUMO_AUDIT_RESULT_OK:
      return "ok";
    case LUMO_AUDIT_RESULT_ERROR:
      return "error";
    case LUMO_AUDIT_RESULT_NONE:
    default:
      return NULL;
    }
}

struct _LumoAuditRow
{
  GObject            parent_instance;

  gint64             id;
  gint64             time_us;
  char              *provider_id;
  char              *caller_id;
  char              *caller_name;
  char              *tool;
  gboolean           write;
  char              *target;
  char              *params_hmac;
  LumoAuditDecision  decision;
  char              *reason;
  LumoAuditResult    result;
  char              *result_text;
  gint64             result_time_us;
  char              *hash;
  char              *result_mac;
  LumoAuditCallerKind caller_kind;
  gboolean           by_grant;
};

G_DEFINE_FINAL_TYPE (LumoAuditRow, lumo_audit_row, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_ID,
  PROP_TIME_US,
  PROP_PROVIDER_ID,
  PROP_CALLER_ID,
  PROP_CALLER_NAME,
  PROP_TOOL,
  PROP_WRITE,
  PROP_TARGET,
  PROP_PARAMS_HMAC,
  PROP_DECISION,
  PROP_REASON,
  PROP_RESULT,
  PROP_RESULT_TEXT,
  PROP_RESULT_TIME_US,
  PROP_HASH,
  PROP_RESULT_MAC,
  PROP_CALLER_KIND,
  PROP_BY_GRANT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
lumo_audit_row_finalize (GObject *object)
{
  LumoAuditRow *self = (LumoAuditRow *) object;

  g_free (self->provider_id);
  g_free (self->caller_id);
  g_free (self->caller_name);
  g_free (self->tool);
  g_free (self->target);
  g_free (self->params_hmac);
  g_free (self->reason);
  g_free (self->result_text);
  g_free (self->hash);
  g_free (self->result_mac);

  G_OBJECT_CLASS (lumo_audit_row_parent_class)->finalize (object);
}

static void
lumo_audit_row_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  LumoAuditRow *self = LUMO_AUDIT_ROW (object);

  switch (prop_id)
    {
    case PROP_ID:
      g_value_set_int64 (value, self->id);
      break;
    case PROP_TIME_US:
      g_value_set_int64 (value, self->time_us);
      break;
    case PROP_PROVIDER_ID:
      g_value_set_string (value, self->provider_id);
      break;
    case PROP_CALLER_ID:
      g_value_set_string (value, self->caller_id);
      break;
    case PROP_CALLER_NAME:
      g_value_set_string (value, self->caller_name);
      break;
    case PROP_TOOL:
      g_value_set_string (value, self->tool);
      break;
    case PROP_WRITE:
      g_value_set_boolean (value, self->write);
      break;
    case PROP_TARGET:
      g_value_set_string (value, self->target);
      break;
    case PROP_PARAMS_HMAC:
      g_value_set_string (value, self->params_hmac);
      break;
    case PROP_DECISION:
      g_value_set_enum (value, self->decision);
      break;
    case PROP_REASON:
      g_value_set_string (value, self->reason);
      break;
    case PROP_RESULT:
      g_value_set_enum (value, self->result);
      break;
    case PROP_RESULT_TEXT:
      g_value_set_string (value, self->result_text);
      break;
    case PROP_RESULT_TIME_US:
      g_value_set_int64 (value, self->result_time_us);
      break;
    case PROP_HASH:
      g_value_set_string (value, self->hash);
      break;
    case PROP_RESULT_MAC:
      g_value_set_string (value, self->result_mac);
      break;
    case PROP_CALLER_KIND:
      g_value_set_enum (value, self->caller_kind);
      break;
    case PROP_BY_GRANT:
      g_value_set_boolean (value, self->by_grant);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static GParamSpec *
string_prop (const char *name)
{
  return g_param_spec_string (name, NULL, NULL, NULL,
                              G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
}

static GParamSpec *
int64_prop (const char *name)
{
  return g_param_spec_int64 (name, NULL, NULL, 0, G_MAXINT64, 0,
                             G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
}

static void
lumo_audit_row_class_init (LumoAuditRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = lumo_audit_row_finalize;
  object_class->get_property = lumo_audit_row_get_property;

  properties[PROP_ID] = int64_prop ("id");
  properties[PROP_TIME_US] = int64_prop ("time-us");
  properties[PROP_PROVIDER_ID] = string_prop ("provider-id");
  properties[PROP_CALLER_ID] = string_prop ("caller-id");
  properties[PROP_CALLER_NAME] = string_prop ("caller-name");
  properties[PROP_TOOL] = string_prop ("tool");
  properties[PROP_WRITE] =
    g_param_spec_boolean ("write", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_TARGET] = string_prop ("target");
  properties[PROP_PARAMS_HMAC] = string_prop ("params-hmac");
  properties[PROP_DECISION] =
    g_param_spec_enum ("decision", NULL, NULL,
                       LUMO_TYPE_AUDIT_DECISION, LUMO_AUDIT_DECISION_ALLOW,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_REASON] = string_prop ("reason");
  properties[PROP_RESULT] =
    g_param_spec_enum ("result", NULL, NULL,
                       LUMO_TYPE_AUDIT_RESULT, LUMO_AUDIT_RESULT_NONE,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_RESULT_TEXT] = string_prop ("result-text");
  properties[PROP_RESULT_TIME_US] = int64_prop ("result-time-us");
  properties[PROP_HASH] = string_prop ("hash");
  properties[PROP_RESULT_MAC] = string_prop ("result-mac");
  properties[PROP_CALLER_KIND] =
    g_param_spec_enum ("caller-kind", NULL, NULL,
                       LUMO_TYPE_AUDIT_CALLER_KIND, LUMO_AUDIT_CALLER_KIND_EXTENSION,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_BY_GRANT] =
    g_param_spec_boolean ("by-grant", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
lumo_audit_row_init (LumoAuditRow *self)
{
}

static char *
dup_column (sqlite3_stmt *stmt,
            int           col)
{
  const char *s = (const char *) sqlite3_column_text (stmt, col);

  return g_strdup (s != NULL ? s : "");
}

static char *
hex_column (sqlite3_stmt *stmt,
            int           col)
{
  return lumo_audit_hex_encode (sqlite3_column_blob (stmt, col),
                                sqlite3_column_bytes (stmt, col));
}

LumoAuditRow *
_lumo_audit_row_new_from_stmt (sqlite3_stmt *stmt)
{
  LumoAuditRow *self = g_object_new (LUMO_TYPE_AUDIT_ROW, NULL);
  const char *result;

  self->id = sqlite3_column_int64 (stmt, LUMO_AUDIT_COL_ID);
  self->time_us = sqlite3_column_int64 (stmt, LUMO_AUDIT_COL_TIME_US);
  self->provider_id = dup_column (stmt, LUMO_AUDIT_COL_PROVIDER_ID);
  self->caller_id = dup_column (stmt, LUMO_AUDIT_COL_CALLER_ID);
  self->caller_name = dup_column (stmt, LUMO_AUDIT_COL_CALLER_NAME);
  self->tool = dup_column (stmt, LUMO_AUDIT_COL_TOOL);
  self->write = sqlite3_column_int64 (stmt, LUMO_AUDIT_COL_WRITE) != 0;
  self->target = dup_column (stmt, LUMO_AUDIT_COL_TARGET);
  self->params_hmac = hex_column (stmt, LUMO_AUDIT_COL_PARAMS_HMAC);
  if (!lumo_audit_decision_from_string ((const char *) sqlite3_column_text (stmt, LUMO_AUDIT_COL_DECISION),
                                        &self->decision))
    self->decision = LUMO_AUDIT_DECISION_DENY;
  self->reason = dup_column (stmt, LUMO_AUDIT_COL_REASON);
  result = (const char *) sqlite3_column_text (stmt, LUMO_AUDIT_COL_RESULT);
  if (g_strcmp0 (result, "ok") == 0)
    self->result = LUMO_AUDIT_RESULT_OK;
  else if (g_strcmp0 (result, "error") == 0)
    self->result = LUMO_AUDIT_RESULT_ERROR;
  else
    self->result = LUMO_AUDIT_RESULT_NONE;
  if (sqlite3_column_type (stmt, LUMO_AUDIT_COL_RESULT_TEXT) != SQLITE_NULL)
    self->result_text = dup_column (stmt, LUMO_AUDIT_COL_RESULT_TEXT);
  self->result_time_us = sqlite3_column_int64 (stmt, LUMO_AUDIT_COL_RESULT_TIME_US);
  self->hash = hex_column (stmt, LUMO_AUDIT_COL_HASH);
  if (sqlite3_column_type (stmt, LUMO_AUDIT_COL_RESULT_MAC) == SQLITE_BLOB)
    self->result_mac = hex_column (stmt, LUMO_AUDIT_COL_RESULT_MAC);
  /* Anything but "agent" reads as an extension: the schema's CHECK allows
   * nothing else, and a damaged row is verify's to report. */
  if (!lumo_audit_caller_kind_from_string ((const char *) sqlite3_column_text (stmt, LUMO_AUDIT_COL_CALLER_KIND),
                                           &self->caller_kind))
    self->caller_kind = LUMO_AUDIT_CALLER_KIND_EXTENSION;
  self->by_grant = sqlite3_column_int64 (stmt, LUMO_AUDIT_COL_BY_GRANT) != 0;

  return self;
}

#define GETTER(type, name) \
  type                                                   \
  lumo_audit_row_get_##name (LumoAuditRow *self)         \
  {                                                      \
    g_return_val_if_fail (LUMO_IS_AUDIT_ROW (self), 0);  \
    return self->name;                                   \
  }

GETTER (gint64, id)
GETTER (gint64, time_us)
GETTER (const char *, provider_id)
GETTER (const char *, caller_id)
GETTER (const char *, caller_name)
GETTER (const char *, tool)
GETTER (gboolean, write)
GETTER (const char *, target)
GETTER (const char *, params_hmac)
GETTER (LumoAuditDecision, decision)
GETTER (const char *, reason)
GETTER (LumoAuditResult, result)
GETTER (const char *, result_text)
GETTER (gint64, result_time_us)
GETTER (const char *, hash)
GETTER (const char *, result_mac)
GETTER (LumoAuditCallerKind, caller_kind)
GETTER (gboolean, by_grant)

/* The one home of the rule; LUMO_AUDIT_OUTCOME_SQL says the same in SQL. */
LumoAuditOutcome
lumo_audit_row_get_outcome (LumoAuditRow *self)
{
  g_return_val_if_fail (LUMO_IS_AUDIT_ROW (self), LUMO_AUDIT_OUTCOME_DENIED);

  if (self->decision == LUMO_AUDIT_DECISION_DENY)
    return LUMO_AUDIT_OUTCOME_DENIED;
  if (self->result == LUMO_AUDIT_RESULT_ERROR)
    return LUMO_AUDIT_OUTCOME_ERROR;
  if (self->result == LUMO_AUDIT_RESULT_NONE)
    return LUMO_AUDIT_OUTCOME_PENDING;
  return LUMO_AUDIT_OUTCOME_OK;
}
