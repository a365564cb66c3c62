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
const char       *_lumo_agent_session_get_provider_title (LumoAgentSession       *self);
const char       *_lumo_agent_session_get_provider_version (LumoAgentSession     *self);
void              _lumo_agent_session_set_protocol_version (LumoAgentSession     *self,
                                                            const char           *version);

G_END_DECLS
