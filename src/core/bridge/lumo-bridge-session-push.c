/* lumo-bridge-session-push.c — what the app says first: the policy push and
 * the probeTarget requests, and the answers to the app's requests
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-bridge-session"

#include "config.h"

#include "lumo-bridge-session-private.h"
#include "lumo-error.h"
#include "lumo-policy.h"

/* ---- the policy push ------------------------------------------------------ */

static gboolean
is_decided (LumoCallerState state)
{
  return state == LUMO_CALLER_STATE_ALLOWED || state == LUMO_CALLER_STATE_DENIED;
}

static LumoCallerState
current_caller_state (LumoBridgeSession *self,
                      const char        *caller_id)
{
  g_autoptr(LumoCallerInfo) info = NULL;

  info = lumo_policy_get_caller (lumo_backend_get_policy (self->backend), self->provider_id, caller_id, NULL);
  return info != NULL ? info->state : LUMO_CALLER_STATE_ANY;
}

void
_lumo_bridge_session_remember_policy (LumoBridgeSession *self,
                                      gboolean           enabled,
                                      gboolean           writes,
                                      gboolean           review)
{
  g_autoptr(GPtrArray) callers = NULL;

  self->told_enabled = enabled;
  self->told_writes = writes;
  self->told_review = review;

  g_hash_table_remove_all (self->caller_states);
  callers = lumo_policy_list_callers (lumo_backend_get_policy (self->backend), self->provider_id,
                                      LUMO_CALLER_STATE_ANY, NULL);
  for (guint i = 0; callers != NULL && i < callers->len; i++)
    {
      LumoCallerInfo *info = g_ptr_array_index (callers, i);

      g_hash_table_insert (self->caller_states, g_strdup (info->id), GINT_TO_POINTER (info->state));
    }
}

static gboolean
push_policy_cb (gpointer user_data)
{
  LumoBridgeSession *self = user_data;
  g_autoptr(LumoProviderInfo) info = NULL;
  gboolean enabled = FALSE;
  gboolean writes = FALSE;
  gboolean review = FALSE;

  self->push_source = 0;

  /* A removed provider has nothing enabled. */
  if ((info = lumo_policy_get_provider (lumo_backend_get_policy (self->backend), self->provider_id, NULL)))
    {
      enabled = info->enabled;
      writes = info->writes;
      review = info->review;
    }

  if (!self->callers_dirty && self->revoked->len == 0 &&
      enabled == self->told_enabled && writes == self->told_writes && review == self->told_review)
    return G_SOURCE_REMOVE;

  g_ptr_array_add (self->revoked, NULL);
  _lumo_bridge_session_send (self, lumo_bridge_build_policy (enabled, writes, review,
                                                             (const char * const *) self->revoked->pdata));
  g_ptr_array_set_size (self->revoked, 0);
  self->callers_dirty = FALSE;
  self->told_enabled = enabled;
  self->told_writes = writes;
  self->told_review = review;

  return G_SOURCE_REMOVE;
}

/* One person's change often arrives as several signals (a denial is a
 * caller change and a revocation): they are pushed as one message, from an
 * idle of high priority — before the session reads its next frame. */
void
_lumo_bridge_session_policy_event (LumoBridgeSession     *self,
                                   LumoBridgePolicyEvent  event,
                                   const char            *caller_id)
{
  g_return_if_fail (LUMO_IS_BRIDGE_SESSION (self));

  if (self->closed || !self->hello_done)
    return;

  switch (event)
    {
    case LUMO_BRIDGE_POLICY_EVENT_REVOKED:
      if (!g_ptr_array_find_with_equal_func (self->revoked, caller_id, g_str_equal, NULL))
        g_ptr_array_add (self->revoked, g_strdup (caller_id));
      break;

    case LUMO_BRIDGE_POLICY_EVENT_CALLER:
      {
        LumoCallerState before = GPOINTER_TO_INT (g_hash_table_lookup (self->caller_states, caller_id));
        LumoCallerState now = current_caller_state (self, caller_id);

        if (before == now)
          return;
        if (now == LUMO_CALLER_STATE_ANY)
          g_hash_table_remove (self->caller_states, caller_id);
        else
          g_hash_table_insert (self->caller_states, g_strdup (caller_id), GINT_TO_POINTER (now));
        /* A new pending caller is a request to a person, not a policy. */
        if (!is_decided (before) && !is_decided (now))
          return;
        self->callers_dirty = TRUE;
      }
      break;

    case LUMO_BRIDGE_POLICY_EVENT_PROVIDER:
    default:
      break;
    }

  if (self->push_source == 0)
    self->push_source = g_idle_add_full (G_PRIORITY_HIGH, push_policy_cb, self, NULL);
}

/* ---- the app's probeTarget requests -------------------------------------- */

typedef struct
{
  LumoBridgeSession *session;   /* unowned: the session completes every task before it is freed */
  char              *id;
  GSource           *timeout;
} ProbeTargetData;

static void
probe_target_data_free (ProbeTargetData *data)
{
  if (data->timeout != NULL)
    {
      g_source_destroy (data->timeout);
      g_source_unref (data->timeout);
    }
  g_free (data->id);
  g_free (data);
}

void
_lumo_bridge_session_probe_target_complete (LumoBridgeSession *self,
                                            const char        *id,
                                            LumoProbeOutcome  *outcome,
                                            GError            *error)
{
  gpointer key = NULL;
  gpointer value = NULL;
  g_autoptr(GTask) task = NULL;

  if (!g_hash_table_steal_extended (self->probe_targets, id, &key, &value))
    {
      g_clear_pointer (&outcome, lumo_probe_outcome_free);
      g_clear_error (&error);
      return;
    }

  g_free (key);
  task = value;
  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, outcome, (GDestroyNotify) lumo_probe_outcome_free);
}

static gboolean
on_probe_target_timeout_cb (gpointer user_data)
{
  ProbeTargetData *data = user_data;

  g_clear_pointer (&data->timeout, g_source_unref);
  _lumo_bridge_session_probe_target_complete (data->session, data->id, NULL,
                                              g_error_new (LUMO_ERROR, LUMO_ERROR_UNAVAILABLE,
                                                           "The provider did not answer the probe request within %d ms",
                                                           LUMO_BRIDGE_PROBE_TARGET_TIMEOUT_MS));
  return G_SOURCE_REMOVE;
}

void
_lumo_bridge_session_probe_target (LumoBridgeSession *self,
                                   const char        *target_id,
                                   GTask             *task)
{
  ProbeTargetData *data;

  g_return_if_fail (LUMO_IS_BRIDGE_SESSION (self));
  g_return_if_fail (lumo_is_extension_id (target_id));
  g_return_if_fail (G_IS_TASK (task));

  if (self->closed || !self->hello_done)
    {
      g_task_return_new_error (task, LUMO_ERROR, LUMO_ERROR_UNAVAILABLE,
                               "The provider %s has no open session", self->provider_id);
      return;
    }

  data = g_new0 (ProbeTargetData, 1);
  data->session = self;
  data->id = _lumo_bridge_session_next_request_id (self);
  data->timeout = g_timeout_source_new (LUMO_BRIDGE_PROBE_TARGET_TIMEOUT_MS);
  g_source_set_callback (data->timeout, on_probe_target_timeout_cb, data, NULL);
  g_source_attach (data->timeout, g_main_context_get_thread_default ());
  g_task_set_task_data (task, data, (GDestroyNotify) probe_target_data_free);
  g_hash_table_insert (self->probe_targets, g_strdup (data->id), g_object_ref (task));

  _lumo_bridge_session_send (self, lumo_bridge_build_probe_target (data->id, target_id));
}

char *
_lumo_bridge_session_next_request_id (LumoBridgeSession *self)
{
  return g_strdup_printf ("app-%u", ++self->next_app_request);
}

void
_lumo_bridge_session_handle_answer (LumoBridgeSession *self,
                                    LumoBridgeMessage *message)
{
  g_autofree char *id = NULL;

  if (_lumo_bridge_session_handle_agent_open_answer (self, message))
    return;

  /* The app's ids are strings; anything else is nobody's answer. */
  if (!JSON_NODE_HOLDS_VALUE (message->re) || json_node_get_value_type (message->re) != G_TYPE_STRING ||
      !g_hash_table_contains (self->probe_targets, json_node_get_string (message->re)))
    {
      g_debug ("Ignored an answer of %s to no request in flight", self->provider_id);
      return;
    }

  id = g_strdup (json_node_get_string (message->re));
  if (message->type == LUMO_BRIDGE_MESSAGE_ERROR)
    _lumo_bridge_session_probe_target_complete (self, id, NULL,
                                                g_error_new (LUMO_ERROR, LUMO_ERROR_PROTOCOL,
                                                             "The provider refused the probe request: %s: %s",
                                                             message->error_code,
                                                             message->error_message ? message->error_message : ""));
  else
    _lumo_bridge_session_probe_target_complete (self, id, lumo_probe_outcome_copy (message->outcome), NULL);
}
