/* lumo-gateway.c — the desktop agents' sessions, under the same policy
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The gateway turns a token into an agent and a namespace into a provider,
 * decides from the policy whether the agent may open a session there, and
 * ends its sessions the moment the policy says it may no longer call: the
 * policy's ::revoked (denied, removed, provider disabled or removed) and
 * ::agent-changed (the agent removed), and desktop agents turned off.
 */
#define G_LOG_DOMAIN "lumo-gateway"

#include "config.h"

#include "lumo-agent-session-private.h"
#include "lumo-error.h"
#include "lumo-gateway.h"
#include "lumo-policy.h"
#include "lumo-protocol.h"

struct _LumoGateway
{
  GObject      parent_instance;

  /* owned */
  LumoBackend *backend;
  GListStore  *sessions;     /* LumoAgentSession, oldest first */
  GHashTable  *by_id;        /* session id → LumoAgentSession (borrowed from @sessions) */

  gboolean     enabled;
};

enum {
  PROP_0,
  PROP_ENABLED,
  N_PROPS
};

enum {
  SESSION_OPENED,
  SESSION_CLOSED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (LumoGateway, lumo_gateway, G_TYPE_OBJECT)

static LumoPolicy *
policy (LumoGateway *self)
{
  return lumo_backend_get_policy (self->backend);
}

/* Closes every session @match selects, each with @reason. */
typedef gboolean (*SessionMatch) (LumoAgentSession *session,
                                  const char       *agent_id,
                                  const char       *provider_id);

static void
close_matching (LumoGateway  *self,
                SessionMatch  match,
                const char   *agent_id,
                const char   *provider_id,
                const char   *reason)
{
  g_autoptr(GPtrArray) doomed = g_ptr_array_new_with_free_func (g_object_unref);
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->sessions));

  /* Collected first: closing a session takes it out of the list. */
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(LumoAgentSession) session = g_list_model_get_item (G_LIST_MODEL (self->sessions), i);

      if (match (session, agent_id, provider_id))
        g_ptr_array_add (doomed, g_steal_pointer (&session));
    }

  for (guint i = 0; i < doomed->len; i++)
    lumo_agent_session_close (g_ptr_array_index (doomed, i), reason);
}

static gboolean
match_all (LumoAgentSession *session,
           const char       *agent_id,
           const char       *provider_id)
{
  return TRUE;
}

static gboolean
match_agent (LumoAgentSession *session,
             const char       *agent_id,
             const char       *provider_id)
{
  return g_str_equal (lumo_agent_session_get_agent_id (session), agent_id);
}

static gboolean
match_agent_and_provider (LumoAgentSession *session,
                          const char       *agent_id,
                          const char       *provider_id)
{
  return match_agent (session, agent_id, NULL) &&
         g_str_equal (lumo_agent_session_get_provider_id (session), provider_id);
}

static gboolean
match_provider (LumoAgentSession *session,
                const char       *agent_id,
                const char       *provider_id)
{
  return g_str_equal (lumo_agent_session_get_provider_id (session), provider_id);
}

/* ---- policy and backend signals ------------------------------------------- */

static void
on_policy_revoked_cb (LumoPolicy  *policy,
                      const char  *provider_id,
                      const char  *caller_id,
                      LumoGateway *self)
{
  close_matching (self, match_agent_and_provider, caller_id, provider_id,
                  "Lumo Access no longer lets this agent use the provider: it was denied or removed, "
                  "or the provider was turned off.");
}

static void
on_policy_agent_changed_cb (LumoPolicy  *policy,
                            const char  *agent_id,
                            LumoGateway *self)
{
  if (!lumo_policy_is_agent (policy, agent_id))
    close_matching (self, match_agent, agent_id, NULL, "The agent was removed from Lumo Access.");
}

static void
on_backend_provider_connected_cb (LumoBackend *backend,
                                  const char  *provider_id,
                                  LumoGateway *self)
{
  g_autoptr(GPtrArray) sessions = g_ptr_array_new_with_free_func (g_object_unref);
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->sessions));

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(LumoAgentSession) session = g_list_model_get_item (G_LIST_MODEL (self->sessions), i);

      if (match_provider (session, NULL, provider_id))
        g_ptr_array_add (sessions, g_steal_pointer (&session));
    }

  for (guint i = 0; i < sessions->len; i++)
    _lumo_agent_session_provider_connected (g_ptr_array_index (sessions, i));
}

static void
on_session_closed_cb (LumoAgentSession *session,
                      const char       *reason,
                      LumoGateway      *self)
{
  g_autoptr(LumoAgentSession) hold = NULL;
  guint position;

  /* The list's reference goes first. */
  hold = g_object_ref (session);
  g_signal_handlers_disconnect_by_data (session, self);
  g_hash_table_remove (self->by_id, lumo_agent_session_get_id (session));
  if (g_list_store_find (self->sessions, session, &position))
    g_list_store_remove (self->sessions, position);

  g_signal_emit (self, signals[SESSION_CLOSED], 0, session, reason);
}

/* ---- GObject -------------------------------------------------------------- */

static void
lumo_gateway_dispose (GObject *object)
{
  LumoGateway *self = LUMO_GATEWAY (object);

  if (self->sessions != NULL)
    close_matching (self, match_all, NULL, NULL, "Lumo Access is quitting.");
  if (self->backend != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->backend, self);
      g_signal_handlers_disconnect_by_data (lumo_backend_get_policy (self->backend), self);
    }
  g_clear_object (&self->sessions);
  g_clear_object (&self->backend);

  G_OBJECT_CLASS (lumo_gateway_parent_class)->dispose (object);
}

static void
lumo_gateway_finalize (GObject *object)
{
  LumoGateway *self = LUMO_GATEWAY (object);

  g_clear_pointer (&self->by_id, g_hash_table_unref);

  G_OBJECT_CLASS (lumo_gateway_parent_class)->finalize (object);
}

static void
lumo_gateway_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  LumoGateway *self = LUMO_GATEWAY (object);

  switch (prop_id)
    {
    case PROP_ENABLED:
      g_value_set_boolean (value, self->enabled);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
lumo_gateway_set_property (GObject      *object,
                           guint         prop_id,
                           const GValue *value,
                           GParamSpec   *pspec)
{
  LumoGateway *self = LUMO_GATEWAY (object);

  switch (prop_id)
    {
    case PROP_ENABLED:
      lumo_gateway_set_enabled (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
lumo_gateway_class_init (LumoGatewayClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = lumo_gateway_dispose;
  object_class->finalize = lumo_gateway_finalize;
  object_class->get_property = lumo_gateway_get_property;
  object_class->set_property = lumo_gateway_set_property;

  properties[PROP_ENABLED] =
    g_param_spec_boolean ("enabled", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[SESSION_OPENED] =
    g_signal_new ("session-opened", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, LUMO_TYPE_AGENT_SESSION);
  signals[SESSION_CLOSED] =
    g_signal_new ("session-closed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2, LUMO_TYPE_AGENT_SESSION, G_TYPE_STRING);
}

static void
lumo_gateway_init (LumoGateway *self)
{
  self->sessions = g_list_store_new (LUMO_TYPE_AGENT_SESSION);
  self->by_id = g_hash_table_new (g_str_hash, g_str_equal);
}

LumoGateway *
lumo_gateway_new (LumoBackend *backend)
{
  LumoGateway *self;

  g_return_val_if_fail (LUMO_IS_BACKEND (backend), NULL);

  self = g_object_new (LUMO_TYPE_GATEWAY, NULL);
  self->backend = g_object_ref (backend);

  g_signal_connect (lumo_backend_get_policy (backend), "revoked",
                    G_CALLBACK (on_policy_revoked_cb), self);
  g_signal_connect (lumo_backend_get_policy (backend), "agent-changed",
                    G_CALLBACK (on_policy_agent_changed_cb), self);
  g_signal_connect (backend, "provider-connected",
                    G_CALLBACK (on_backend_provider_connected_cb), self);

  return self;
}

LumoBackend *
lumo_gateway_get_backend (LumoGateway *self)
{
  g_return_val_if_fail (LUMO_IS_GATEWAY (self), NULL);
  return self->backend;
}

void
lumo_gateway_set_enabled (LumoGateway *self,
                          gboolean     enabled)
{
  g_return_if_fail (LUMO_IS_GATEWAY (self));

  enabled = !!enabled;
  if (self->enabled == enabled)
    return;

  self->enabled = enabled;
  if (!enabled)
    close_matching (self, match_all, NULL, NULL, "Desktop agents were turned off in Lumo Access.");
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ENABLED]);
}

gboolean
lumo_gateway_get_enabled (LumoGateway *self)
{
  g_return_val_if_fail (LUMO_IS_GATEWAY (self), FALSE);
  return self->enabled;
}

/* ---- who may open a session ---------------------------------------------- */

static LumoGatewayVerdict
verdict (char               **message,
         LumoGatewayVerdict   verdict,
         const char          *text)
{
  if (message != NULL)
    *message = g_strdup (text);
  return verdict;
}

/* The provider that has @namespace_: the connected one, else the one seen
 * last (two extensions may have said the same namespace). */
static LumoProviderInfo *
find_provider (LumoGateway *self,
               const char  *namespace_)
{
  g_autoptr(GPtrArray) providers = NULL;
  g_autoptr(GError) error = NULL;
  LumoProviderInfo *best = NULL;

  if (namespace_ == NULL || !lumo_validate_namespace (namespace_, NULL))
    return NULL;

  if (!(providers = lumo_policy_list_providers (policy (self), &error)))
    {
      g_warning ("Cannot list the providers: %s", error->message);
      return NULL;
    }

  for (guint i = 0; i < providers->len; i++)
    {
      LumoProviderInfo *p = g_ptr_array_index (providers, i);
      gboolean connected;

      if (g_strcmp0 (p->namespace_, namespace_) != 0)
        continue;
      connected = lumo_backend_is_provider_connected (self->backend, p->id);
      if (best == NULL || (connected && !lumo_backend_is_provider_connected (self->backend, best->id)) ||
          (connected == lumo_backend_is_provider_connected (self->backend, best->id) &&
           p->last_seen > best->last_seen))
        best = p;
    }

  return best != NULL ? lumo_provider_info_copy (best) : NULL;
}

/* What the caller row of @agent_id on @provider_id allows now. */
static LumoGatewayVerdict
standing (LumoGateway  *self,
          const char   *agent_id,
          const char   *provider_id,
          char        **message)
{
  g_autoptr(LumoProviderInfo) provider = lumo_policy_get_provider (policy (self), provider_id, NULL);
  g_autoptr(LumoCallerInfo) caller = lumo_policy_get_caller (policy (self), provider_id, agent_id, NULL);

  if (provider == NULL)
    return verdict (message, LUMO_GATEWAY_NO_PROVIDER, "No provider of Lumo Access has this namespace.");
  if (!provider->enabled)
    return verdict (message, LUMO_GATEWAY_DISABLED, "Agent access is turned off for this provider in Lumo Access.");
  if (caller != NULL && caller->state == LUMO_CALLER_STATE_ALLOWED)
    return verdict (message, LUMO_GATEWAY_OK, "Allowed.");
  if (caller != NULL && caller->state == LUMO_CALLER_STATE_PENDING)
    return verdict (message, LUMO_GATEWAY_PENDING,
                    "This agent waits for a person's approval in Lumo Access (Requests page).");
  return verdict (message, LUMO_GATEWAY_DENIED, "This agent is not allowed to use this provider.");
}

LumoGatewayVerdict
lumo_gateway_authenticate (LumoGateway  *self,
                           const char   *token,
                           const char   *namespace_,
                           char        **agent_id,
                           char        **provider_id,
                           char        **message)
{
  g_autoptr(LumoProviderInfo) provider = NULL;
  g_autoptr(LumoAgentInfo) agent = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *id = NULL;
  LumoPolicyStatus status;
  LumoGatewayVerdict result;

  g_return_val_if_fail (LUMO_IS_GATEWAY (self), LUMO_GATEWAY_BAD_TOKEN);

  if (!self->enabled)
    return verdict (message, LUMO_GATEWAY_DISABLED, "Desktop agents are turned off in Lumo Access.");

  if (!(id = lumo_policy_authenticate_agent (policy (self), token, &error)))
    {
      /* A key file that cannot be read is the app's problem; the client
       * still gets no access (fail closed), and the person a warning. */
      if (!g_error_matches (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT) &&
          !g_error_matches (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND))
        g_warning ("Cannot check a desktop agent's token: %s", error->message);
      return verdict (message, LUMO_GATEWAY_BAD_TOKEN, error->message);
    }
  if (!(agent = lumo_policy_get_agent (policy (self), id, &error)))
    return verdict (message, LUMO_GATEWAY_BAD_TOKEN, "The agent of this token was removed from Lumo Access.");

  if (!(provider = find_provider (self, namespace_)))
    return verdict (message, LUMO_GATEWAY_NO_PROVIDER, "No provider of Lumo Access has this namespace.");

  /* Like an extension's probe: a first request makes the agent pending
   * (bounded like new callers), and every request counts as seen. */
  if (!lumo_policy_probe (policy (self), provider->id, id, agent->name, &status, &error))
    {
      g_warning ("Cannot decide on desktop agent %s: %s", id, error->message);
      return verdict (message,
                      g_error_matches (error, LUMO_ERROR, LUMO_ERROR_LIMIT_EXCEEDED)
                      ? LUMO_GATEWAY_PENDING : LUMO_GATEWAY_DISABLED,
                      error->message);
    }

  result = standing (self, id, provider->id, message);
  if (result != LUMO_GATEWAY_OK)
    return result;

  if (agent_id != NULL)
    *agent_id = g_steal_pointer (&id);
  if (provider_id != NULL)
    *provider_id = g_strdup (provider->id);
  return LUMO_GATEWAY_OK;
}

static guint
count_sessions (LumoGateway *self,
                const char  *agent_id)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->sessions));
  guint count = 0;

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(LumoAgentSession) session = g_list_model_get_item (G_LIST_MODEL (self->sessions), i);

      count += match_agent (session, agent_id, NULL);
    }

  return count;
}

LumoAgentSession *
lumo_gateway_open_session (LumoGateway        *self,
                           const char         *agent_id,
                           const char         *provider_id,
                           const char         *transport,
                           LumoGatewayVerdict *result)
{
  g_autoptr(LumoAgentInfo) agent = NULL;
  g_autoptr(LumoProviderInfo) provider = NULL;
  g_autoptr(LumoAgentSession) session = NULL;
  g_autoptr(GError) error = NULL;
  LumoGatewayVerdict local_result;

  g_return_val_if_fail (LUMO_IS_GATEWAY (self), NULL);

  if (result == NULL)
    result = &local_result;

  /* Checked again: the policy may have changed since authenticate. */
  if (!self->enabled)
    {
      *result = LUMO_GATEWAY_DISABLED;
      return NULL;
    }
  if (!lumo_is_extension_id (agent_id) || !(agent = lumo_policy_get_agent (policy (self), agent_id, NULL)))
    {
      *result = LUMO_GATEWAY_BAD_TOKEN;
      return NULL;
    }
  if (!lumo_is_extension_id (provider_id) ||
      (*result = standing (self, agent_id, provider_id, NULL)) != LUMO_GATEWAY_OK)
    {
      if (!lumo_is_extension_id (provider_id))
        *result = LUMO_GATEWAY_NO_PROVIDER;
      return NULL;
    }
  if (count_sessions (self, agent_id) >= LUMO_GATEWAY_MAX_SESSIONS_PER_AGENT)
    {
      *result = LUMO_GATEWAY_TOO_MANY;
      return NULL;
    }

  provider = lumo_policy_get_provider (policy (self), provider_id, NULL);
  if (!(session = _lumo_agent_session_new (self->backend, agent_id, agent->name, provider,
                                           transport, &error)))
    {
      g_warning ("Cannot open a session for %s: %s", agent_id, error->message);
      *result = LUMO_GATEWAY_DISABLED;
      return NULL;
    }

  g_signal_connect (session, "closed", G_CALLBACK (on_session_closed_cb), self);
  g_list_store_append (self->sessions, session);
  g_hash_table_insert (self->by_id, (gpointer) lumo_agent_session_get_id (session), session);
  *result = LUMO_GATEWAY_OK;
  g_signal_emit (self, signals[SESSION_OPENED], 0, session);

  /* The caller's reference; the list keeps its own until the session ends. */
  return g_steal_pointer (&session);
}

LumoAgentSession *
lumo_gateway_lookup_session (LumoGateway *self,
                             const char  *agent_id,
                             const char  *session_id)
{
  LumoAgentSession *session;

  g_return_val_if_fail (LUMO_IS_GATEWAY (self), NULL);

  if (session_id == NULL || agent_id == NULL ||
      !(session = g_hash_table_lookup (self->by_id, session_id)) ||
      lumo_agent_session_is_closed (session) ||
      !g_str_equal (lumo_agent_session_get_agent_id (session), agent_id))
    return NULL;

  return session;
}

GListModel *
lumo_gateway_get_sessions (LumoGateway *self)
{
  g_return_val_if_fail (LUMO_IS_GATEWAY (self), NULL);
  return G_LIST_MODEL (self->sessions);
}
