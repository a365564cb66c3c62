/* lumo-policy-decide.c — the two questions the backend asks: the L0 probe
 * status of a caller, and whether one tool call may run
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Both read the database on every call, never a cache, so a switch flipped
 * by another process counts at the very next call.
 */
#define G_LOG_DOMAIN "lumo-policy"

#include "config.h"

#include "lumo-error.h"
#include "lumo-policy-private.h"
#include "lumo-protocol.h"

gboolean
lumo_policy_probe (LumoPolicy        *self,
                   const char        *provider_id,
                   const char        *caller_id,
                   const char        *display_name,
                   LumoPolicyStatus  *status,
                   GError           **error)
{
  g_autoptr(LumoProviderInfo) provider = NULL;
  g_autoptr(LumoCallerInfo) caller = NULL;
  g_autoptr(sqlite3_stmt) stmt = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autofree char *name = NULL;
  LumoCallerState state;

  g_return_val_if_fail (LUMO_IS_POLICY (self), FALSE);
  g_return_val_if_fail (status != NULL, FALSE);

  *status = (LumoPolicyStatus) { FALSE, FALSE, FALSE, FALSE };

  if (!lumo_validate_extension_id (provider_id, "provider ID", error) ||
      !lumo_validate_extension_id (caller_id, "caller ID", error))
    return FALSE;

  name = lumo_policy_store_clean_text (display_name);

  if (!lumo_db_begin (self->db, error))
    return FALSE;

  if (!(provider = lumo_policy_store_get_provider (self->db, provider_id, &local_error)))
    {
      lumo_db_rollback (self->db);
      /* Nothing to record: a caller exists only under a known provider. */
      if (g_error_matches (local_error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND))
        return TRUE;
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }

  if ((caller = lumo_policy_store_get_caller (self->db, provider_id, caller_id, &local_error)))
    {
      state = caller->state;
    }
  else if (g_error_matches (local_error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND))
    {
      state = LUMO_CALLER_STATE_PENDING;
      if (!lumo_policy_store_put_caller (self->db, provider_id, caller_id, state, name, error) ||
          !lumo_policy_store_add_history (self->db, LUMO_POLICY_ORIGIN_BRIDGE, provider_id, caller_id,
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

  if (!lumo_db_commit (self->db, error))
    return FALSE;

  status->enabled = provider->enabled;
  status->authorized = state == LUMO_CALLER_STATE_ALLOWED;
  status->pending_approval = state == LUMO_CALLER_STATE_PENDING;
  status->ready = TRUE;

  lumo_policy_announce (self);

  return TRUE;

fail:
  lumo_db_rollback (self->db);
  return FALSE;
}

static void
decide (LumoPolicyDecision *decision,
        LumoDenyReason      reason,
        gint64              retry_after_us)
{
  decision->allowed = reason == LUMO_DENY_REASON_NONE;
  decision->reason = reason;
  decision->retry_after_us = retry_after_us;
}

static void
count_write (LumoPolicy *self,
             const char *provider_id,
             const char *caller_id)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;
  g_autoptr(GError) error = NULL;

  /* Bookkeeping for the UI; the decision does not depend on it. */
  if (!(stmt = lumo_db_prepare (self->db,
                                "UPDATE callers SET write_count = write_count + 1, last_seen = ? "
                                "WHERE provider_id = ? AND id = ?",
                                &error)))
    {
      g_warning ("Cannot count a write: %s", error->message);
      return;
    }
  sqlite3_bind_int64 (stmt, 1, g_get_real_time ());
  sqlite3_bind_text (stmt, 2, provider_id, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (stmt, 3, caller_id, -1, SQLITE_TRANSIENT);
  if (sqlite3_step (stmt) != SQLITE_DONE)
    g_warning ("Cannot count a write: %s", sqlite3_errmsg (self->db));
  g_clear_pointer (&stmt, sqlite3_finalize);

  lumo_policy_announce (self);
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
  g_autoptr(sqlite3_stmt) stmt = NULL;
  g_autofree char *key = NULL;
  LumoCallerState state = LUMO_CALLER_STATE_ANY;
  gboolean writes, review;
  gint64 retry_after = 0;
  int rc;

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

  if (!(stmt = lumo_db_prepare (self->db,
                                "SELECT p.enabled, p.writes, p.review, c.state "
                                "FROM providers p "
                                "LEFT JOIN callers c ON c.provider_id = p.id AND c.id = ?2 "
                                "WHERE p.id = ?1",
                                error)))
    return FALSE;
  sqlite3_bind_text (stmt, 1, provider_id, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (stmt, 2, caller_id, -1, SQLITE_TRANSIENT);

  rc = sqlite3_step (stmt);
  if (rc == SQLITE_DONE)
    return TRUE;  /* unknown provider: disabled */
  if (rc != SQLITE_ROW)
    {
      lumo_db_set_error (error, self->db, rc, "Cannot read the policy");
      return FALSE;
    }

  if (sqlite3_column_int (stmt, 0) == 0)
    return TRUE;
  writes = sqlite3_column_int (stmt, 1) != 0;
  review = sqlite3_column_int (stmt, 2) != 0;
  if (sqlite3_column_type (stmt, 3) != SQLITE_NULL)
    lumo_caller_state_from_string ((const char *) sqlite3_column_text (stmt, 3), &state);
  g_clear_pointer (&stmt, sqlite3_finalize);

  if (state == LUMO_CALLER_STATE_PENDING)
    decide (decision, LUMO_DENY_REASON_PENDING, 0);
  else if (state != LUMO_CALLER_STATE_ALLOWED)
    decide (decision, LUMO_DENY_REASON_NOT_AUTHORIZED, 0);
  else if (!is_write)
    decide (decision, LUMO_DENY_REASON_NONE, 0);
  else if (!writes)
    decide (decision, LUMO_DENY_REASON_WRITES_OFF, 0);
  else if (key = lumo_rate_limiter_key (provider_id, caller_id),
           !lumo_rate_limiter_try_acquire (self->limiter, key, &retry_after))
    decide (decision, LUMO_DENY_REASON_RATE_LIMITED, retry_after);
  else
    {
      decide (decision, review ? LUMO_DENY_REASON_REVIEW_REQUIRED : LUMO_DENY_REASON_NONE, 0);
      count_write (self, provider_id, caller_id);
    }

  return TRUE;
}
