/* lumo-policy-types.c — the small value types of the policy store and
 * their stable string names
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The strings here are stored in policy.db and sent on the bridge, so they
 * never change once released.
 */
#define G_LOG_DOMAIN "lumo-policy"

#include "config.h"

#include "lumo-policy.h"

G_DEFINE_BOXED_TYPE (LumoProviderInfo, lumo_provider_info,
                     lumo_provider_info_copy, lumo_provider_info_free)
G_DEFINE_BOXED_TYPE (LumoCallerInfo, lumo_caller_info,
                     lumo_caller_info_copy, lumo_caller_info_free)
G_DEFINE_BOXED_TYPE (LumoHistoryEntry, lumo_history_entry,
                     lumo_history_entry_copy, lumo_history_entry_free)
G_DEFINE_BOXED_TYPE (LumoAgentInfo, lumo_agent_info,
                     lumo_agent_info_copy, lumo_agent_info_free)
G_DEFINE_BOXED_TYPE (LumoGrantInfo, lumo_grant_info,
                     lumo_grant_info_copy, lumo_grant_info_free)

LumoProviderInfo *
lumo_provider_info_copy (const LumoProviderInfo *info)
{
  LumoProviderInfo *copy;

  g_return_val_if_fail (info != NULL, NULL);

  copy = g_memdup2 (info, sizeof *info);
  copy->id = g_strdup (info->id);
  copy->namespace_ = g_strdup (info->namespace_);
  copy->display_name = g_strdup (info->display_name);
  copy->version = g_strdup (info->version);

  return copy;
}

void
lumo_provider_info_free (LumoProviderInfo *info)
{
  if (info == NULL)
    return;

  g_free (info->id);
  g_free (info->namespace_);
  g_free (info->display_name);
  g_free (info->version);
  g_free (info);
}

LumoCallerInfo *
lumo_caller_info_copy (const LumoCallerInfo *info)
{
  LumoCallerInfo *copy;

  g_return_val_if_fail (info != NULL, NULL);

  copy = g_memdup2 (info, sizeof *info);
  copy->provider_id = g_strdup (info->provider_id);
  copy->id = g_strdup (info->id);
  copy->display_name = g_strdup (info->display_name);

  return copy;
}

void
lumo_caller_info_free (LumoCallerInfo *info)
{
  if (info == NULL)
    return;

  g_free (info->provider_id);
  g_free (info->id);
  g_free (info->display_name);
  g_free (info);
}

LumoHistoryEntry *
lumo_history_entry_copy (const LumoHistoryEntry *entry)
{
  LumoHistoryEntry *copy;

  g_return_val_if_fail (entry != NULL, NULL);

  copy = g_memdup2 (entry, sizeof *entry);
  copy->provider_id = g_strdup (entry->provider_id);
  copy->caller_id = g_strdup (entry->caller_id);
  copy->field = g_strdup (entry->field);
  copy->old_value = g_strdup (entry->old_value);
  copy->new_value = g_strdup (entry->new_value);
  copy->tool = g_strdup (entry->tool);

  return copy;
}

void
lumo_history_entry_free (LumoHistoryEntry *entry)
{
  if (entry == NULL)
    return;

  g_free (entry->provider_id);
  g_free (entry->caller_id);
  g_free (entry->field);
  g_free (entry->old_value);
  g_free (entry->new_value);
  g_free (entry->tool);
  g_free (entry);
}

LumoAgentInfo *
lumo_agent_info_copy (const LumoAgentInfo *info)
{
  LumoAgentInfo *copy;

  g_return_val_if_fail (info != NULL, NULL);

  copy = g_memdup2 (info, sizeof *info);
  copy->id = g_strdup (info->id);
  copy->name = g_strdup (info->name);

  return copy;
}

void
lumo_agent_info_free (LumoAgentInfo *info)
{
  if (info == NULL)
    return;

  g_free (info->id);
  g_free (info->name);
  g_free (info);
}

LumoGrantInfo *
lumo_grant_info_copy (const LumoGrantInfo *info)
{
  LumoGrantInfo *copy;

  g_return_val_if_fail (info != NULL, NULL);

  copy = g_memdup2 (info, sizeof *info);
  copy->provider_id = g_strdup (info->provider_id);
  copy->caller_id = g_strdup (info->caller_id);
  copy->tool = g_strdup (info->tool);

  return copy;
}

void
lumo_grant_info_free (LumoGrantInfo *info)
{
  if (info == NULL)
    return;

  g_free (info->provider_id);
  g_free (info->caller_id);
  g_free (info->tool);
  g_free (info);
}

const char *
lumo_grant_scope_to_string (LumoGrantScope scope)
{
  switch (scope)
    {
    case LUMO_GRANT_SCOPE_ONCE:        return "once";
    case LUMO_GRANT_SCOPE_TEN_MINUTES: return "10m";
    case LUMO_GRANT_SCOPE_ALWAYS:      return "always";
    default:
      g_return_val_if_reached (NULL);
    }
}

gboolean
lumo_grant_scope_from_string (const char     *str,
                              LumoGrantScope *scope)
{
  for (LumoGrantScope s = LUMO_GRANT_SCOPE_ONCE; s <= LUMO_GRANT_SCOPE_ALWAYS; s++)
    {
      if (g_strcmp0 (str, lumo_grant_scope_to_string (s)) == 0)
        {
          if (scope != NULL)
            *scope = s;
          return TRUE;
        }
    }

  return FALSE;
}

const char *
lumo_deny_reason_to_string (LumoDenyReason reason)
{
  switch (reason)
    {
    case LUMO_DENY_REASON_NONE:            return "allow";
    case LUMO_DENY_REASON_DISABLED:        return "disabled";
    case LUMO_DENY_REASON_NOT_AUTHORIZED:  return "not_authorized";
    case LUMO_DENY_REASON_PENDING:         return "pending";
    case LUMO_DENY_REASON_WRITES_OFF:      return "writes_off";
    case LUMO_DENY_REASON_RATE_LIMITED:    return "rate_limited";
    case LUMO_DENY_REASON_REVIEW_REQUIRED: return "review_required";
    case LUMO_DENY_REASON_REVIEW_REJECTED: return "review_rejected";
    case LUMO_DENY_REASON_REVIEW_TIMEOUT:  return "review_timeout";
    case LUMO_DENY_REASON_AUDIT_FAILED:    return "audit_failed";
    default:
      g_return_val_if_reached (NULL);
    }
}

const char *
lumo_policy_origin_to_string (LumoPolicyOrigin origin)
{
  switch (origin)
    {
    case LUMO_POLICY_ORIGIN_UI:     return "ui";
    case LUMO_POLICY_ORIGIN_CLI:    return "cli";
    case LUMO_POLICY_ORIGIN_IMPORT: return "import";
    case LUMO_POLICY_ORIGIN_BRIDGE: return "bridge";
    default:
      g_return_val_if_reached (NULL);
    }
}

const char *
lumo_caller_state_to_string (LumoCallerState state)
{
  switch (state)
    {
    case LUMO_CALLER_STATE_PENDING: return "pending";
    case LUMO_CALLER_STATE_ALLOWED: return "allowed";
    case LUMO_CALLER_STATE_DENIED:  return "denied";
    case LUMO_CALLER_STATE_ANY:
    default:
      g_return_val_if_reached (NULL);
    }
}

const char *
lumo_caller_kind_to_string (LumoCallerKind kind)
{
  switch (kind)
    {
    case LUMO_CALLER_KIND_EXTENSION: return "extension";
    case LUMO_CALLER_KIND_AGENT:     return "agent";
    default:
      g_return_val_if_reached (NULL);
    }
}

gboolean
lumo_caller_state_from_string (const char      *str,
                               LumoCallerState *state)
{
  static const LumoCallerState states[] = {
    LUMO_CALLER_STATE_PENDING, LUMO_CALLER_STATE_ALLOWED, LUMO_CALLER_STATE_DENIED,
  };

  for (guint i = 0; i < G_N_ELEMENTS (states); i++)
    {
      if (g_strcmp0 (str, lumo_caller_state_to_string (states[i])) == 0)
        {
          if (state != NULL)
            *state = states[i];
          return TRUE;
        }
    }

  return FALSE;
}

const char *
lumo_policy_switch_to_string (LumoPolicySwitch sw)
{
  switch (sw)
    {
    case LUMO_POLICY_SWITCH_ENABLED: return "enabled";
    case LUMO_POLICY_SWITCH_WRITES:  return "writes";
    case LUMO_POLICY_SWITCH_REVIEW:  return "review";
    default:
      g_return_val_if_reached (NULL);
    }
}

gboolean
lumo_policy_switch_from_string (const char       *str,
                                LumoPolicySwitch *sw)
{
  static const LumoPolicySwitch switches[] = {
    LUMO_POLICY_SWITCH_ENABLED, LUMO_POLICY_SWITCH_WRITES, LUMO_POLICY_SWITCH_REVIEW,
  };

  for (guint i = 0; i < G_N_ELEMENTS (switches); i++)
    {
      if (g_strcmp0 (str, lumo_policy_switch_to_string (switches[i])) == 0)
        {
          if (sw != NULL)
            *sw = switches[i];
          return TRUE;
        }
    }

  return FALSE;
}
