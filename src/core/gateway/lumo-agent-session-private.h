/* lumo-agent-session-private.h — what the gateway asks of its sessions
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#if !defined (LUMO_CORE_COMPILATION)
# error "This header is private to src/core (and its tests)."
#endif

#include "lumo-agent-session.h"
#include "lumo-backend.h"
#include "lumo-policy.h"

G_BEGIN_DECLS

/* A request of the agent that waits for the provider's answer. */
typedef struct
{
  JsonNode *agent_id;       /* NULL for the replayed initialize */
  char     *method;
  char     *progress;       /* the request's progressToken as JSON, or NULL */
} InFlight;

struct _LumoAgentSession
{
  GObject        parent_instance;

  /* owned */
  LumoBackend   *backend;
  char          *id;
  char          *agent_id;
  char          *agent_name;
  char          *provider_id;
  char          *provider_title;
  char          *provider_version;
  char          *transport;
  char          *protocol_version;
  JsonObject    *init_params;      /* the agent's initialize, for the replay */
  LumoAgentPort *port;             /* while a provider's McpServer serves us */
  GHashTable    *in_flight;        /* our request id (gint64 *) → InFlight */
  gint64         next_id;
  gint64         replay_id;        /* the replayed initialize in flight, or 0 */
  char          *port_error;       /* why the last port could not be opened */

  guint          initialized : 1;
  guint          agent_said_initialized : 1;
  guint          closed : 1;
};

/* A session of @agent_id (shown as @agent_name) with @provider. NULL only
 * when no random session id can be made (LUMO_ERROR_SECRET). */
LumoAgentSession *_lumo_agent_session_new                (LumoBackend            *backend,
                                                          const char             *agent_id,
                                                          const char             *agent_name,
                                                          const LumoProviderInfo *provider,
                                                          const char             *transport,
                                                          GError                **error);
/* The provider said hello: a session the agent initialized gets a new
 * virtual port, the replayed initialize, then tools/list_changed. */
void              _lumo_agent_session_provider_connected (LumoAgentSession       *self);

/* What the session tells the agent while the provider is away (English:
 * the model reads it). */
char             *_lumo_agent_session_away_reason        (LumoAgentSession       *self);

/* ---- shared by the session's files ---- */

void              _lumo_agent_session_in_flight_free     (InFlight               *f);
/* ::message, unless the session is closed; takes @message. */
void              _lumo_agent_session_emit               (LumoAgentSession       *self,
                                                          JsonObject             *message,
                                                          JsonNode               *related);
/* Every request in flight gets its answer now, with @reason (relay). */
void              _lumo_agent_session_answer_in_flight   (LumoAgentSession       *self,
                                                          const char             *reason);
/* Lets go of the port without telling the provider (relay). */
void              _lumo_agent_session_drop_port          (LumoAgentSession       *self);

/* ---- lumo-agent-session-away.c ---- */

/* The session's own answer to @request while no provider serves it;
 * *@initialized is set when it answered initialize. */
JsonObject       *_lumo_agent_session_answer_away        (LumoAgentSession       *self,
                                                          JsonObject             *request,
                                                          gboolean               *initialized);
/* The answer to a request whose provider went away (or whose session
 * ended) before it answered: a tool error the model reads for tools/call,
 * a JSON-RPC error otherwise. */
JsonObject       *_lumo_agent_session_answer_lost        (JsonNode               *agent_id,
                                                          const char             *method,
                                                          const char             *reason);

G_END_DECLS
