/* lumo-agent-port.c — a virtual port of a bridge session
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The session holds a reference while the port is open and clears the
 * port's pointer back to it when either side ends it, so a closed port
 * never reaches a session (or a session that is gone).
 */
#define G_LOG_DOMAIN "lumo-bridge-session"

#include "config.h"

#include "lumo-agent-port.h"
#include "lumo-bridge-session-private.h"
#include "lumo-error.h"

struct _LumoAgentPort
{
  GObject            parent_instance;

  /* borrowed: cleared when the port ends */
  LumoBridgeSession *session;

  /* owned */
  char              *id;
  char              *provider_id;
  char              *caller_id;

  guint              opened : 1;
  guint              closed : 1;
};

enum {
  OPENED,
  MESSAGE,
  CLOSED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (LumoAgentPort, lumo_agent_port, G_TYPE_OBJECT)

static void
lumo_agent_port_finalize (GObject *object)
{
  LumoAgentPort *self = LUMO_AGENT_PORT (object);

  g_free (self->id);
  g_free (self->provider_id);
  g_free (self->caller_id);

  G_OBJECT_CLASS (lumo_agent_port_parent_class)->finalize (object);
}

static void
lumo_agent_port_class_init (LumoAgentPortClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = lumo_agent_port_finalize;

  signals[OPENED] =
    g_signal_new ("opened", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[MESSAGE] =
    g_signal_new ("message", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, JSON_TYPE_OBJECT);
  signals[CLOSED] =
    g_signal_new ("closed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void
lumo_agent_port_init (LumoAgentPort *self)
{
}

/* ---- the session's side ---------------------------------------------------- */

LumoAgentPort *
_lumo_agent_port_new (LumoBridgeSession *session,
                      const char        *port_id,
                      const char        *caller_id)
{
  LumoAgentPort *self = g_object_new (LUMO_TYPE_AGENT_PORT, NULL);

  self->session = session;
  self->id = g_strdup (port_id);
  self->provider_id = g_strdup (lumo_bridge_session_get_provider_id (session));
  self->caller_id = g_strdup (caller_id);

  return self;
}

void
_lumo_agent_port_opened (LumoAgentPort *self)
{
  if (self->closed || self->opened)
    return;

  self->opened = TRUE;
  g_signal_emit (self, signals[OPENED], 0);
}

void
_lumo_agent_port_deliver (LumoAgentPort *self,
                          JsonObject    *message)
{
  if (self->closed)
    return;

  g_signal_emit (self, signals[MESSAGE], 0, message);
}

void
_lumo_agent_port_ended (LumoAgentPort *self,
                        const char    *reason)
{
  g_autoptr(LumoAgentPort) hold = NULL;

  /* A handler of ::closed may drop the owner's reference. */
  hold = g_object_ref (self);
  self->session = NULL;
  if (self->closed)
    return;

  self->closed = TRUE;
  g_signal_emit (self, signals[CLOSED], 0, reason);
}

/* ---- API ------------------------------------------------------------------- */

const char *
lumo_agent_port_get_id (LumoAgentPort *self)
{
  g_return_val_if_fail (LUMO_IS_AGENT_PORT (self), NULL);
  return self->id;
}

const char *
lumo_agent_port_get_provider_id (LumoAgentPort *self)
{
  g_return_val_if_fail (LUMO_IS_AGENT_PORT (self), NULL);
  return self->provider_id;
}

const char *
lumo_agent_port_get_caller_id (LumoAgentPort *self)
{
  g_return_val_if_fail (LUMO_IS_AGENT_PORT (self), NULL);
  return self->caller_id;
}

gboolean
lumo_agent_port_get_opened (LumoAgentPort *self)
{
  g_return_val_if_fail (LUMO_IS_AGENT_PORT (self), FALSE);
  return self->opened;
}

gboolean
lumo_agent_port_is_closed (LumoAgentPort *self)
{
  g_return_val_if_fail (LUMO_IS_AGENT_PORT (self), TRUE);
  return self->closed;
}

gboolean
lumo_agent_port_send (LumoAgentPort  *self,
                      JsonObject     *message,
                      GError        **error)
{
  g_autoptr(JsonObject) decision = NULL;

  g_return_val_if_fail (LUMO_IS_AGENT_PORT (self), FALSE);
  g_return_val_if_fail (message != NULL, FALSE);

  if (self->closed || self->session == NULL)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_UNAVAILABLE,
                   "The virtual port %s of the provider %s is closed", self->id, self->provider_id);
      return FALSE;
    }

  /* A read the agent calls is decided now, under the agent's ID, and the
   * decision goes beside the message (docs/security.md, "Desktop agents"). */
  decision = _lumo_bridge_session_relay_decision (self->session, self, message);
  return _lumo_bridge_session_send_checked (self->session,
                                            lumo_bridge_build_agent_message (self->id, message, decision),
                                            error);
}

void
lumo_agent_port_close (LumoAgentPort *self,
                       const char    *reason)
{
  g_autoptr(LumoAgentPort) hold = NULL;
  LumoBridgeSession *session;

  g_return_if_fail (LUMO_IS_AGENT_PORT (self));
  g_return_if_fail (reason != NULL);

  if (self->closed)
    return;

  hold = g_object_ref (self);
  self->closed = TRUE;
  session = g_steal_pointer (&self->session);
  if (session != NULL)
    _lumo_bridge_session_close_agent_port (session, self, reason);
}
