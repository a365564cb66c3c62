/* lumo-policy-changes.c — every change a person or a provider makes to the
 * policy, and the reads the UI and CLI list it with
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each change validates its IDs first, then runs as one IMMEDIATE
 * transaction that holds both the change and its history row (and the
 * bookkeeping that was waiting, _lumo_policy_begin()); on any error the
 * transaction is rolled back, so a failed change changes nothing. A
 * change to the value a thing already has succeeds and records nothing.
 *
 * The caller reads add this instance's waiting bookkeeping, so the counts
 * it shows never go back when they are written.
 */
#define G_LOG_DOMAIN "lumo-policy"

#include "config.h"

#include "lumo-error.h"
#include "lumo-policy-private.h"
#include "lumo-protocol.h"

static gboolean
nothing_to_do (LumoPolicy *self)
{
  lumo_db_rollback (self->db);
  return TRUE;
}

/* ---- providers ------------------------------------------------------------- */

gboolean
lumo_policy_register_provider (LumoPolicy  *self,
                               const char  *provider_id,
                               const char  *namespace_,
                               const char  *display_name,
                               const char  *version,
                               GError     **error)
{
  g_autoptr(LumoProviderInfo) provider = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autoptr(sqlite3_stmt) stmt = NULL;
  g_autofree char *clean_ns = NULL;
  g_autofree char *clean_name = NULL;
  g_autofree char *clean_version = NULL;
  gboolean ok = TRUE;

  g_return_val_if_fail (LUMO_IS_POLICY (self), FALSE);

  if (!lumo_validate_extension_id (provider_id, "provider ID", error))
    return FALSE;

  clean_ns = _lumo_policy_store_clean_text (namespace_);
  clean_name = _lumo_policy_store_clean_text (display_name);
  clean_version = _lumo_policy_store_clean_text (version);

  if (!_lumo_policy_begin (self, error))
    return FALSE;

  provider = _lumo_policy_store_get_provider (self->db, provider_id, &local_error);
  if (provider == NULL && !g_error_matches (local_error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND))
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return _lumo_policy_finish (self, FALSE, error);
    }

  if (provider == NULL)
    ok = _lumo_policy_store_insert_provider (self->db, provider_id, FALSE, error) &&
         _lumo_policy_store_add_history (self->db, LUMO_POLICY_ORIGIN_BRIDGE, provider_id, NULL,
                                         "provider", NULL, "registered", NULL, 0, error);

  /* The hello describes the provider; the switches stay the person's. */
  ok = ok &&
       (stmt = lumo_db_prepare (self->db,
                                "UPDATE providers SET namespace = ?, display_name = ?, version = ?, "
                                "  first_seen = coalesce (first_seen, ?4), last_seen = ?4 "
                                "WHERE id = ?5",
                                error)) != NULL;
  if (ok)
    {
      sqlite3_bind_text (stmt, 1, clean_ns, -1, SQLITE_TRANSIENT);
      sqlite3_bind_text (stmt, 2, clean_name, -1, SQLITE_TRANSIENT);
      sqlite3_bind_text (stmt, 3, clean_version, -1, SQLITE_TRANSIENT);
      sqlite3_bind_int64 (stmt, 4, g_get_real_time ());
      sqlite3_bind_text (stmt, 5, provider_id, -1, SQLITE_TRANSIENT);
      ok = _lumo_policy_store_step_done (self->db, stmt, "Cannot record the provider’s hello", error);
    }

  return _lumo_policy_finish (self, ok, error);
}

gboolean
lumo_policy_add_provider (LumoPolicy        *self,
                          const char        *provider_id,
                          LumoPolicyOrigin   origin,
                          GError           **error)
{
  g_autoptr(LumoProviderInfo) provider = NULL;
  g_autoptr(GError) local_error = NULL;

  g_return_val_if_fail (LUMO_IS_POLICY (self), FALSE);
  g_return_val_if_fail (_lumo_policy_origin_is_valid (origin), FALSE);

  if (!lumo_validate_extension_id (provider_id, "provider ID", error))
    return FALSE;

  if (!_lumo_policy_begin (self, error))
    return FALSE;

  if ((provider = _lumo_policy_store_get_provider (self->db, provider_id, &local_error)))
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_DUPLICATE,
                   "The provider “%s” is already in the list", provider_id);
      return _lumo_policy_finish (self, FALSE, error);
    }
  if (!g_error_matches (local_error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND))
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return _lumo_policy_finish (self, FALSE, error);
    }

  return _lumo_policy_finish (self,
                              _lumo_policy_store_insert_provider (self->db, provider_id, TRUE, error) &&
                              _lumo_policy_store_add_history (self->db, origin, provider_id, NULL,
                                                              "provider", NULL, "watched", NULL, 0, error),
                              error);
}

gboolean
lumo_policy_remove_provider (LumoPolicy        *self,
                             const char        *provider_id,
                             LumoPolicyOrigin   origin,
                             GError           **error)
{
  g_autoptr(LumoProviderInfo) provider = NULL;
  g_autofree char *snapshot = NULL;

  g_return_val_if_fail (LUMO_IS_POLICY (self), FALSE);
  g_return_val_if_fail (_lumo_policy_origin_is_valid (origin), FALSE);

  if (!lumo_validate_extension_id (provider_id, "provider ID", error))
    return FALSE;

  if (!_lumo_policy_begin (self, error))
    return FALSE;

  if (!(provider = _lumo_policy_store_get_provider (self->db, provider_id, error)) ||
      !(snapshot = _lumo_policy_store_remove_provider (self->db, provider_id, error)))
    return _lumo_policy_finish (self, FALSE, error);

  return _lumo_policy_finish (self,
                              _lumo_policy_store_add_history (self->db, origin, provider_id, NULL, "provider",
                                                              provider->first_seen != 0 ? "registered" : "watched",
                                                              NULL, snapshot, 0, error),
                              error);
}

gboolean
lumo_policy_set_switch (LumoPolicy        *self,
                        const char        *provider_id,
                        LumoPolicySwitch   sw,
                        gboolean           on,
                        LumoPolicyOrigin   origin,
                        GError           **error)
{
  g_autoptr(LumoProviderInfo) provider = NULL;
  gboolean current;

  g_return_val_if_fail (LUMO_IS_POLICY (self), FALSE);
  g_return_val_if_fail (sw >= LUMO_POLICY_SWITCH_ENABLED && sw <= LUMO_POLICY_SWITCH_REVIEW, FALSE);
  g_return_val_if_fail (_lumo_policy_origin_is_valid (origin), FALSE);

  if (!lumo_validate_extension_id (provider_id, "provider ID", error))
    return FALSE;

  on = !!on;

  if (!_lumo_policy_begin (self, error))
    return FALSE;

  if (!(provider = _lumo_policy_store_get_provider (self->db, provider_id, error)))
    return _lumo_policy_finish (self, FALSE, error);

  current = sw == LUMO_POLICY_SWITCH_ENABLED ? provider->enabled
          : sw == LUMO_POLICY_SWITCH_WRITES ? provider->writes
          : provider->review;
  if (current == on)
    return nothing_to_do (self);

  return _lumo_policy_finish (self,
                              _lumo_policy_store_set_switch (self->db, provider_id, sw, on, error) &&
                              _lumo_policy_store_add_history (self->db, origin, provider_id, NULL,
                                                              lumo_policy_switch_to_string (sw),
                                                              current ? "on" : "off", on ? "on" : "off",
                                                              NULL, 0, error),
                              error);
}

LumoProviderInfo *
lumo_policy_get_provider (LumoPolicy  *self,
                          const char  *provider_id,
                          GError     **error)
{
  g_return_val_if_fail (LUMO_IS_POLICY (self), NULL);

  if (!lumo_validate_extension_id (provider_id, "provider ID", error))
    return NULL;

  return _lumo_policy_store_get_provider (self->db, provider_id, error);
}

GPtrArray *
lumo_policy_list_providers (LumoPolicy  *self,
                            GError     **error)
{
  g_return_val_if_fail (LUMO_IS_POLICY (self), NULL);

  return _lumo_policy_store_list_providers (self->db, error);
}

gboolean
lumo_policy_has_seen_provider (LumoPolicy  *self,
                               GError     **error)
{
  g_return_val_if_fail (LUMO_IS_POLICY (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return _lumo_policy_store_has_seen_provider (self->db, error) > 0;
}

/* ---- callers --------------------------------------------------------------- */

static gboolean
change_caller (LumoPolicy        *self,
               const char        *provider_id,
               const char        *caller_id,
               LumoCallerState    state,
               const char        *display_name,
               gboolean           refuse_same,
               LumoPolicyOrigin   origin,
               GError           **error)
{
  g_autoptr(LumoProviderInfo) provider = NULL;
  g_autoptr(LumoCallerInfo) caller = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autofree char *name = NULL;
  g_autofree char *grants = NULL;
  const char *old_state = NULL;

  if (!lumo_validate_extension_id (provider_id, "provider ID", error) ||
      !lumo_validate_extension_id (caller_id, "caller ID", error))
    return FALSE;

  name = _lumo_policy_store_clean_text (display_name);

  if (!_lumo_policy_begin (self, error))
    return FALSE;

  if (!(provider = _lumo_policy_store_get_provider (self->db, provider_id, error)))
    return _lumo_policy_finish (self, FALSE, error);

  if ((caller = _lumo_policy_store_get_caller (self->db, provider_id, caller_id, &local_error)))
    old_state = lumo_caller_state_to_string (caller->state);
  else if (!g_error_matches (local_error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND))
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return _lumo_policy_finish (self, FALSE, error);
    }

  if (caller != NULL && caller->state == state)
    {
      if (refuse_same)
        {
          g_set_error (error, LUMO_ERROR, LUMO_ERROR_DUPLICATE,
                       "The caller “%s” is already allowed to use the provider “%s”",
                       caller_id, provider_id);
          return _lumo_policy_finish (self, FALSE, error);
        }
      return nothing_to_do (self);
    }

  /* An allowed caller that stops being allowed loses its review grants
   * (the schema's trigger); the entry keeps them, so undo restores them. */
  if (caller != NULL && caller->state == LUMO_CALLER_STATE_ALLOWED &&
      !(grants = _lumo_policy_store_grants_snapshot (self->db, provider_id, caller_id, error)))
    return _lumo_policy_finish (self, FALSE, error);

  return _lumo_policy_finish (self,
                              _lumo_policy_store_put_caller (self->db, provider_id, caller_id, state, name, error) &&
                              _lumo_policy_store_add_history (self->db, origin, provider_id, caller_id, "caller",
                                                              old_state, lumo_caller_state_to_string (state),
                                                              grants != NULL && *grants != '\0' ? grants : NULL,
                                                              0, error),
                              error);
}

gboolean
lumo_policy_set_caller_state (LumoPolicy        *self,
                              const char        *provider_id,
                              const char        *caller_id,
                              LumoCallerState    state,
                              LumoPolicyOrigin   origin,
                              GError           **error)
{
  g_return_val_if_fail (LUMO_IS_POLICY (self), FALSE);
  g_return_val_if_fail (state == LUMO_CALLER_STATE_ALLOWED || state == LUMO_CALLER_STATE_DENIED, FALSE);
  g_return_val_if_fail (_lumo_policy_origin_is_valid (origin), FALSE);

  return change_caller (self, provider_id, caller_id, state, NULL, FALSE, origin, error);
}

gboolean
lumo_policy_allow_caller (LumoPolicy        *self,
                          const char        *provider_id,
                          const char        *caller_id,
                          LumoPolicyOrigin   origin,
                          GError           **error)
{
  return lumo_policy_set_caller_state (self, provider_id, caller_id,
                                       LUMO_CALLER_STATE_ALLOWED, origin, error);
}

gboolean
lumo_policy_deny_caller (LumoPolicy        *self,
                         const char        *provider_id,
                         const char        *caller_id,
                         LumoPolicyOrigin   origin,
                         GError           **error)
{
  return lumo_policy_set_caller_state (self, provider_id, caller_id,
                                       LUMO_CALLER_STATE_DENIED, origin, error);
}

gboolean
lumo_policy_add_caller (LumoPolicy        *self,
                        const char        *provider_id,
                        const char        *caller_id,
                        const char        *display_name,
                        LumoPolicyOrigin   origin,
                        GError           **error)
{
  g_return_val_if_fail (LUMO_IS_POLICY (self), FALSE);
  g_return_val_if_fail (_lumo_policy_origin_is_valid (origin), FALSE);

  return change_caller (self, provider_id, caller_id, LUMO_CALLER_STATE_ALLOWED,
                        display_name, TRUE, origin, error);
}

gboolean
lumo_policy_forget_caller (LumoPolicy        *self,
                           const char        *provider_id,
                           const char        *caller_id,
                           LumoPolicyOrigin   origin,
                           GError           **error)
{
  g_autoptr(LumoCallerInfo) caller = NULL;
  g_autofree char *snapshot = NULL;

  g_return_val_if_fail (LUMO_IS_POLICY (self), FALSE);
  g_return_val_if_fail (_lumo_policy_origin_is_valid (origin), FALSE);

  if (!lumo_validate_extension_id (provider_id, "provider ID", error) ||
      !lumo_validate_extension_id (caller_id, "caller ID", error))
    return FALSE;

  if (!_lumo_policy_begin (self, error))
    return FALSE;

  if (!(caller = _lumo_policy_store_get_caller (self->db, provider_id, caller_id, error)) ||
      !(snapshot = _lumo_policy_store_remove_caller (self->db, provider_id, caller_id, error)))
    return _lumo_policy_finish (self, FALSE, error);

  return _lumo_policy_finish (self,
                              _lumo_policy_store_add_history (self->db, origin, provider_id, caller_id, "caller",
                                                              lumo_caller_state_to_string (caller->state), NULL,
                                                              snapshot, 0, error),
                              error);
}

LumoCallerInfo *
lumo_policy_get_caller (LumoPolicy  *self,
                        const char  *provider_id,
                        const char  *caller_id,
                        GError     **error)
{
  LumoCallerInfo *info;

  g_return_val_if_fail (LUMO_IS_POLICY (self), NULL);

  if (!lumo_validate_extension_id (provider_id, "provider ID", error) ||
      !lumo_validate_extension_id (caller_id, "caller ID", error))
    return NULL;

  if (!(info = _lumo_policy_store_get_caller (self->db, provider_id, caller_id, error)))
    return NULL;
  _lumo_policy_bookkeeping_overlay (self, info);

  return info;
}

GPtrArray *
lumo_policy_list_callers (LumoPolicy       *self,
                          const char       *provider_id,
                          LumoCallerState   state,
                          GError          **error)
{
  GPtrArray *callers;

  g_return_val_if_fail (LUMO_IS_POLICY (self), NULL);
  g_return_val_if_fail (state >= LUMO_CALLER_STATE_ANY && state <= LUMO_CALLER_STATE_DENIED, NULL);

  if (provider_id != NULL && !lumo_validate_extension_id (provider_id, "provider ID", error))
    return NULL;

  if (!(callers = _lumo_policy_store_list_callers (self->db, provider_id, state, error)))
    return NULL;
  for (guint i = 0; i < callers->len; i++)
    _lumo_policy_bookkeeping_overlay (self, g_ptr_array_index (callers, i));

  return callers;
}

/* ---- history --------------------------------------------------------------- */

GPtrArray *
lumo_policy_list_history (LumoPolicy  *self,
                          guint        limit,
                          GError     **error)
{
  g_return_val_if_fail (LUMO_IS_POLICY (self), NULL);

  return _lumo_policy_store_list_history (self->db, limit, error);
}

gboolean
lumo_policy_undo_last (LumoPolicy         *self,
                       LumoPolicyOrigin    origin,
                       LumoHistoryEntry  **undone,
                       GError            **error)
{
  g_autoptr(LumoHistoryEntry) entry = NULL;

  g_return_val_if_fail (LUMO_IS_POLICY (self), FALSE);
  g_return_val_if_fail (_lumo_policy_origin_is_valid (origin), FALSE);
  g_return_val_if_fail (undone == NULL || *undone == NULL, FALSE);

  if (!_lumo_policy_begin (self, error))
    return FALSE;

  entry = _lumo_policy_store_undo_last (self->db, origin, error);
  if (!_lumo_policy_finish (self, entry != NULL, error))
    return FALSE;

  if (undone != NULL)
    *undone = g_steal_pointer (&entry);

  return TRUE;
}
