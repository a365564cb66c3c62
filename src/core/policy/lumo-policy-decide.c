/* lumo-policy-decide.c — the two questions the backend asks: the L0 probe
 * status of a caller, and whether one tool call may run
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Both answer from the policy's snapshot once _lumo_policy_ensure_current()
 * has shown it is the file's state (one PRAGMA data_version; a reload when
 * another process committed), so a switch flipped by another process
 * counts at the very next call. What they count is left in memory
 * (lumo-policy-bookkeeping.c). Only a caller's first probe writes at once: a
 * new pending caller is a request to a person, with its history row.
 *
 * The snapshot holds the values in force after the managed policy. A
 * caller it does not know yet is judged by the managed policy first: one
 * a file denies (or leaves out under onlyListedCallers) is refused without
 * asking anyone and nothing is recorded; one a file allows is recorded as
 * it asked (pending) and is allowed at once.
 */
#define G_LOG_DOMAIN "lumo-policy"

#include "config.h"

#include "lumo-error.h"
#include "lumo-managed-policy.h"
#include "lumo-policy-private.h"
#include "lumo-protocol.h"

static void
set_status (LumoPolicyStatus *status,
            gboolean          enabled,
            LumoCallerState   state)
{
  status->enabled = enabled;
  status->authorized = state == LUMO_CALLER_STATE_ALLOWED;
  status->pending_approval = state == LUMO_CALLER_STATE_PENDING;
  status->ready = TRUE;
}

/* A caller the snapshot does not know: checked again inside the write
 * lock, since another process may have added it since. */
static gboolean
probe_new_caller (LumoPolicy        *self,
                  const char        *provider_id,
                  const char        *caller_id,
                  const char        *name,
                  gboolean           managed_allowed,
                  LumoPolicyStatus  *status,
                  GError           **error)
{
  g_autoptr(LumoProviderInfo) provider = NULL;
  g_autoptr(LumoCallerInfo) caller = NULL;
  g_autoptr(sqlite3_stmt) stmt = NULL;
  g_autoptr(GError) local_error = NULL;
  LumoCallerState state;

  if (!_lumo_policy_begin (self, error))
    return FALSE;

  if (!(provider = _lumo_policy_store_get_provider (self->db, provider_id, &local_error)))
    {
      lumo_db_rollback (self->db);
      /* Nothing to record: a caller exists only under a known provider. */
      if (g_error_matches (local_error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND))
        return TRUE;
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }

  if ((caller = _lumo_policy_store_get_caller (self->db, provider_id, caller_id, &local_error)))
    {
      state = caller->state;
    }
  else if (g_error_matches (local_error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND))
    {
      gint64 retry_after_us = 0;

      /* The files' own list bounds those: only strangers are limited. */
      if (!managed_allowed &&
          !lumo_rate_limiter_try_acquire (self->pending_limiter, provider_id, &retry_after_us))
        {
          g_set_error (error, LUMO_ERROR, LUMO_ERROR_LIMIT_EXCEEDED,
                       "More than %d new agents asked for access in the last minute; "
                       "this one is not recorded. Try again in %" G_GINT64_FORMAT " seconds.",
                       LUMO_POLICY_MAX_NEW_PENDING,
                       (retry_after_us + G_USEC_PER_SEC - 1) / G_USEC_PER_SEC);
          goto fail;
        }

      state = LUMO_CALLER_STATE_PENDING;
      if (!_lumo_policy_store_put_caller (self->db, provider_id, caller_id, state, name, error) ||
          !_lumo_policy_store_add_history (self->db, LUMO_POLICY_ORIGIN_BRIDGE, provider_id, caller_id,
                                           "caller", NULL, "pending", NULL, 0, error))
        goto fail;
    }
  else
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      goto fail;
    }

  if (!(stmt = lumo_db_prepare (self->db,
                                "UPDATE callers SET probe_count = probe_count + 1, last_seen = ?, "
                                "  display_name = coalesce (?, display_name) "
                                "WHERE provider_id = ? AND id = ?",
                                error)))
    goto fail;
  sqlite3_bind_int64 (stmt, 1, g_get_real_time ());
  sqlite3_bind_text (stmt, 2, name, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (stmt, 3, provider_id, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (stmt, 4, caller_id, -1, SQLITE_TRANSIENT);
  if (sqlite3_step (stmt) != SQLITE_DONE)
    {
      lumo_db_set_error (error, self->db, sqlite3_errcode (self->db), "Cannot count the probe");
      goto fail;
    }
  g_clear_pointer (&stmt, sqlite3_finalize);

  if (!_lumo_policy_commit (self, error))
    return FALSE;

  /* The answer is of what is in force, as every probe's. */
  provider->user_enabled = provider->enabled;
  provider->user_writes = provider->writes;
  provider->user_review = provider->review;
  _lumo_policy_managed_overlay_provider (self, provider);
  state = lumo_managed_policy_apply_caller (self->managed, provider_id, caller_id,
                                            _lumo_policy_kind_of (self, caller_id), state, NULL);
  set_status (status, provider->enabled, state);

  _lumo_policy_announce (self);

  return TRUE;

fail:
  lumo_db_rollback (self->db);
  return FALSE;
}

gboolean
lumo_policy_probe (LumoPolicy        *self,
                   const char        *provider_id,
                   const char        *caller_id,
                   const char        *display_name,
                   LumoPolicyStatus  *status,
                   GError           **error)
{
  const LumoProviderInfo *provider;
  const LumoCallerInfo *caller;
  char key[LUMO_CALLER_KEY_SIZE];

  g_return_val_if_fail (LUMO_IS_POLICY (self), FALSE);
  g_return_val_if_fail (status != NULL, FALSE);

  *status = (LumoPolicyStatus) { FALSE, FALSE, FALSE, FALSE };

  if (!lumo_validate_extension_id (provider_id, "provider ID", error) ||
      !lumo_validate_extension_id (caller_id, "caller ID", error))
    return FALSE;

  /* May emit signals: look nothing up before it. */
  if (!_lumo_policy_ensure_current (self, error))
    return FALSE;

  /* Nothing to record: a caller exists only under a known provider. */
  if (!(provider = g_hash_table_lookup (self->providers, provider_id)))
    return TRUE;

  lumo_caller_key_fill (key, provider_id, caller_id);
  if (!(caller = g_hash_table_lookup (self->callers, key)))
    {
      g_autofree char *name = NULL;
      LumoManagedCaller managed = lumo_managed_policy_get_caller (self->managed, provider_id, caller_id,
                                                                  _lumo_policy_kind_of (self, caller_id),
                                                                  NULL);

      /* Denied without asking: no request, no row. */
      if (managed == LUMO_MANAGED_CALLER_DENIED)
        {
          set_status (status, provider->enabled, LUMO_CALLER_STATE_DENIED);
          return TRUE;
        }

      name = _lumo_policy_store_clean_text (display_name);
      return probe_new_caller (self, provider_id, caller_id, name,
                               managed == LUMO_MANAGED_CALLER_ALLOWED, status, error);
    }

  set_status (status, provider->enabled, caller->state);
  _lumo_policy_bookkeeping_note (self, key, TRUE, display_name);

  return TRUE;
}

static void
decide (LumoPolicyDecision *decision,
        LumoDenyReason      reason,
        gint64              retry_after_us)
{
  decision->allowed = reason == LUMO_DENY_REASON_NONE;
  decision->reason = reason;
  decision->retry_after_us = retry_after_us;
  decision->by_grant = FALSE;
}

/* Review stands between the write and the tool; a person's grant for this
 * caller and tool, in force now, stands in for it. */
static gboolean
has_live_grant (LumoPolicy *self,
                const char *provider_id,
                const char *caller_id,
                const char *tool)
{
  g_autofree char *key = NULL;
  const LumoGrantInfo *grant;

  if (g_hash_table_size (self->grants) == 0)
    return FALSE;

  key = _lumo_policy_grant_key (provider_id, caller_id, tool);
  grant = g_hash_table_lookup (self->grants, key);

  return grant != NULL && _lumo_policy_grant_is_live (grant, _lumo_policy_wall_now (self));
}

gboolean
lumo_policy_authorize (LumoPolicy          *self,
                       const char          *provider_id,
                       const char          *caller_id,
                       const char          *tool,
                       gboolean             is_write,
                       const char          *target,
                       const char          *params_hash,
                       LumoPolicyDecision  *decision,
                       GError             **error)
{
  const LumoProviderInfo *provider;
  const LumoCallerInfo *caller;
  char key[LUMO_CALLER_KEY_SIZE];
  LumoCallerState state;
  gint64 retry_after = 0;

  g_return_val_if_fail (LUMO_IS_POLICY (self), FALSE);
  g_return_val_if_fail (decision != NULL, FALSE);

  /* Fail closed whatever happens below. */
  decide (decision, LUMO_DENY_REASON_DISABLED, 0);

  if (!lumo_validate_extension_id (provider_id, "provider ID", error) ||
      !lumo_validate_extension_id (caller_id, "caller ID", error))
    return FALSE;
  if (tool == NULL || *tool == '\0' || !g_utf8_validate (tool, -1, NULL))
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                   "The tool name of an authorization must be a non-empty UTF-8 string");
      return FALSE;
    }

  /* May emit signals: look nothing up before it. */
  if (!_lumo_policy_ensure_current (self, error))
    return FALSE;

  provider = g_hash_table_lookup (self->providers, provider_id);
  if (provider == NULL || !provider->enabled)
    return TRUE;

  lumo_caller_key_fill (key, provider_id, caller_id);
  caller = g_hash_table_lookup (self->callers, key);
  state = caller != NULL ? caller->state
        : lumo_managed_policy_apply_caller (self->managed, provider_id, caller_id,
                                            _lumo_policy_kind_of (self, caller_id),
                                            LUMO_CALLER_STATE_ANY, NULL);

  if (state == LUMO_CALLER_STATE_PENDING)
    decide (decision, LUMO_DENY_REASON_PENDING, 0);
  else if (state != LUMO_CALLER_STATE_ALLOWED)
    decide (decision, LUMO_DENY_REASON_NOT_AUTHORIZED, 0);
  else if (!is_write)
    decide (decision, LUMO_DENY_REASON_NONE, 0);
  else if (!provider->writes)
    decide (decision, LUMO_DENY_REASON_WRITES_OFF, 0);
  else if (!lumo_rate_limiter_try_acquire (self->limiter, key, &retry_after))
    decide (decision, LUMO_DENY_REASON_RATE_LIMITED, retry_after);
  else
    {
      /* Only here, after the writes switch and with the slot taken: a
       * grant stands in for review and for nothing else, and not where a
       * managed policy file forces review (a person for every write). */
      if (!provider->review)
        decide (decision, LUMO_DENY_REASON_NONE, 0);
      else if (has_live_grant (self, provider_id, caller_id, tool) &&
               !lumo_policy_are_grants_managed (self, provider_id))
        {
          decide (decision, LUMO_DENY_REASON_NONE, 0);
          decision->by_grant = TRUE;
        }
      else
        decide (decision, LUMO_DENY_REASON_REVIEW_REQUIRED, 0);
      /* Bookkeeping for the UI; the decision does not depend on it. */
      _lumo_policy_bookkeeping_note (self, key, FALSE, NULL);
    }

  return TRUE;
}
