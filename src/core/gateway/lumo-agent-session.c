/* lumo-agent-session.c — one desktop agent's MCP session with one provider
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The object: what a session is (its ids, its agent and provider, the
 * version it settled), how it ends, and its signals. What it relays and
 * how is in lumo-agent-session-relay.c; what it answers by itself while
 * the provider is away in lumo-agent-session-away.c.
 */
#define G_LOG_DOMAIN "lumo-gateway"

#include "config.h"

#include "lumo-agent-session-private.h"
#include "lumo-error.h"
#include "lumo-secret.h"

enum {
  MESSAGE,
  CLOSED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (LumoAgentSession, lumo_agent_session, G_TYPE_OBJECT)

void
_lumo_agent_session_in_flight_free (InFlight *f)
{
  g_clear_pointer (&f->agent_id, json_node_unref);
  g_free (f->method);
  g_free (f->progress);
  g_free (f);
}

void
_lumo_agent_session_emit (LumoAgentSession *self,
                          JsonObject       *message,
                          JsonNode         *related)
{
  g_autoptr(JsonObject) owned = NULL;

  owned = message;
  if (self->closed)
    return;

  g_signal_emit (self, signals[MESSAGE], 0, message, related);
}

void
lumo_agent_session_close (LumoAgentSession *self,
                          const char       *reason)
{
  g_autoptr(LumoAgentSession) hold = NULL;

  g_return_if_fail (LUMO_IS_AGENT_SESSION (self));
  g_return_if_fail (reason != NULL);

  if (self->closed)
    return;

  hold = g_object_ref (self);
  _lumo_agent_session_answer_in_flight (self, reason);
  self->closed = TRUE;
  if (self->port != NULL)
    lumo_agent_port_close (self->port, reason);
  _lumo_agent_session_drop_port (self);

  g_debug ("%s's session %s with %s ended: %s", self->agent_name, self->id, self->provider_id, reason);
  g_signal_emit (self, signals[CLOSED], 0, reason);
}

void
lumo_agent_session_note_unsent (LumoAgentSession *self,
                                gsize             unsent_bytes)
{
  g_return_if_fail (LUMO_IS_AGENT_SESSION (self));

  if (unsent_bytes > LUMO_AGENT_SESSION_MAX_QUEUED_BYTES)
    lumo_agent_session_close (self, "The agent did not read what Lumo Access sent it.");
}

/* ---- object ------------------------------------------------------------------- */

static void
lumo_agent_session_dispose (GObject *object)
{
  LumoAgentSession *self = LUMO_AGENT_SESSION (object);

  lumo_agent_session_close (self, "Lumo Access ended the session.");
  g_clear_object (&self->backend);

  G_OBJECT_CLASS (lumo_agent_session_parent_class)->dispose (object);
}

static void
lumo_agent_session_finalize (GObject *object)
{
  LumoAgentSession *self = LUMO_AGENT_SESSION (object);

  g_free (self->id);
  g_free (self->agent_id);
  g_free (self->agent_name);
  g_free (self->provider_id);
  g_free (self->provider_title);
  g_free (self->provider_version);
  g_free (self->transport);
  g_free (self->protocol_version);
  g_free (self->port_error);
  g_clear_pointer (&self->init_params, json_object_unref);
  g_clear_pointer (&self->in_flight, g_hash_table_unref);

  G_OBJECT_CLASS (lumo_agent_session_parent_class)->finalize (object);
}

static void
lumo_agent_session_class_init (LumoAgentSessionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = lumo_agent_session_dispose;
  object_class->finalize = lumo_agent_session_finalize;

  signals[MESSAGE] =
    g_signal_new ("message", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2, JSON_TYPE_OBJECT, JSON_TYPE_NODE);
  signals[CLOSED] =
    g_signal_new ("closed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void
lumo_agent_session_init (LumoAgentSession *self)
{
  self->in_flight = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                           (GDestroyNotify) _lumo_agent_session_in_flight_free);
}

LumoAgentSession *
_lumo_agent_session_new (LumoBackend             *backend,
                         const char              *agent_id,
                         const char              *agent_name,
                         const LumoProviderInfo  *provider,
                         const char              *transport,
                         GError                 **error)
{
  g_autoptr(LumoAgentSession) self = NULL;
  guint8 random[16];

  g_return_val_if_fail (LUMO_IS_BACKEND (backend), NULL);
  g_return_val_if_fail (lumo_is_extension_id (agent_id), NULL);
  g_return_val_if_fail (provider != NULL, NULL);

  if (!lumo_secret_fill_random (random, sizeof random, error))
    return NULL;

  self = g_object_new (LUMO_TYPE_AGENT_SESSION, NULL);
  self->backend = g_object_ref (backend);
  self->id = g_malloc (2 * sizeof random + 1);
  for (guint i = 0; i < sizeof random; i++)
    g_snprintf (self->id + 2 * i, 3, "%02x", random[i]);
  self->agent_id = g_strdup (agent_id);
  self->agent_name = g_strdup (agent_name != NULL ? agent_name : agent_id);
  self->provider_id = g_strdup (provider->id);
  self->provider_title = g_strdup (provider->display_name != NULL ? provider->display_name
                                   : provider->namespace_ != NULL ? provider->namespace_ : provider->id);
  self->provider_version = g_strdup (provider->version != NULL ? provider->version : PACKAGE_VERSION);
  self->transport = g_strdup (transport != NULL ? transport : "");

  return g_steal_pointer (&self);
}

/* ---- getters ------------------------------------------------------------------ */

const char *
lumo_agent_session_get_id (LumoAgentSession *self)
{
  g_return_val_if_fail (LUMO_IS_AGENT_SESSION (self), NULL);
  return self->id;
}

const char *
lumo_agent_session_get_agent_id (LumoAgentSession *self)
{
  g_return_val_if_fail (LUMO_IS_AGENT_SESSION (self), NULL);
  return self->agent_id;
}

const char *
lumo_agent_session_get_agent_name (LumoAgentSession *self)
{
  g_return_val_if_fail (LUMO_IS_AGENT_SESSION (self), NULL);
  return self->agent_name;
}

const char *
lumo_agent_session_get_provider_id (LumoAgentSession *self)
{
  g_return_val_if_fail (LUMO_IS_AGENT_SESSION (self), NULL);
  return self->provider_id;
}

const char *
lumo_agent_session_get_transport (LumoAgentSession *self)
{
  g_return_val_if_fail (LUMO_IS_AGENT_SESSION (self), NULL);
  return self->transport;
}

const char *
lumo_agent_session_get_protocol_version (LumoAgentSession *self)
{
  g_return_val_if_fail (LUMO_IS_AGENT_SESSION (self), NULL);
  return self->protocol_version;
}

gboolean
lumo_agent_session_get_initialized (LumoAgentSession *self)
{
  g_return_val_if_fail (LUMO_IS_AGENT_SESSION (self), FALSE);
  return self->initialized;
}

gboolean
lumo_agent_session_get_connected (LumoAgentSession *self)
{
  g_return_val_if_fail (LUMO_IS_AGENT_SESSION (self), FALSE);
  return self->port != NULL;
}

gboolean
lumo_agent_session_is_closed (LumoAgentSession *self)
{
  g_return_val_if_fail (LUMO_IS_AGENT_SESSION (self), TRUE);
  return self->closed;
}

char *
_lumo_agent_session_away_reason (LumoAgentSession *self)
{
  if (self->port_error != NULL && lumo_backend_is_provider_connected (self->backend, self->provider_id))
    return g_strdup_printf ("The browser extension “%s” cannot take another desktop agent session now: %s",
                            self->provider_title, self->port_error);

  return g_strdup_printf ("The browser extension “%s” is not connected to Lumo Access (the browser "
                          "may be closed, or the extension asleep). Open the browser, then try again: "
                          "its tools come back by themselves.", self->provider_title);
}
