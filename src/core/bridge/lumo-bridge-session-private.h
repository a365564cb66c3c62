/* lumo-bridge-session-private.h — the session's state, shared by its files,
 * and the entry points of the backend, the tests and the fuzzer
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * lumo-bridge-session.c owns the lifecycle; lumo-bridge-session-io.c the
 * frame I/O; lumo-bridge-session-dispatch.c what each provider request does;
 * lumo-bridge-session-push.c the policy push and the app's probeTarget
 * requests. A session made without streams is
 * "detached": nothing is read, and what it would write is queued for
 * _lumo_bridge_session_pop_outgoing() — the fuzzer and the scenario tests
 * drive dispatch that way without pipes.
 */
#pragma once

#if !defined (LUMO_CORE_COMPILATION)
# error "This header is private to src/core (and its tests): it may speak SQL, which stays out of the app and the CLI."
#endif

#include <json-glib/json-glib.h>

#include "lumo-agent-port.h"
#include "lumo-audit-row.h"
#include "lumo-backend.h"
#include "lumo-bridge-message.h"
#include "lumo-bridge-session.h"
#include "lumo-frame.h"

G_BEGIN_DECLS

typedef enum
{
  LUMO_BRIDGE_POLICY_EVENT_PROVIDER,   /* switches (or the provider) changed */
  LUMO_BRIDGE_POLICY_EVENT_CALLER,     /* a caller was added, changed or removed */
  LUMO_BRIDGE_POLICY_EVENT_REVOKED,    /* a caller lost access */
} LumoBridgePolicyEvent;

struct _LumoBridgeSession
{
  GObject          parent_instance;

  /* borrowed: the backend outlives its sessions (it closes them in dispose) */
  LumoBackend     *backend;

  /* owned */
  char            *provider_id;
  LumoFrameReader *reader;            /* NULL when detached */
  LumoFrameWriter *writer;            /* NULL when detached */
  GSource         *read_source;       /* watches the input while reading is wanted */
  GQueue           outgoing;          /* detached: JsonObject to "send" */
  GCancellable    *cancellable;       /* reads and reviews; cancelled on close */
  gint64           started;

  char            *namespace_;
  char            *service_name;
  char            *service_version;
  LumoCatalogue   *catalogue;         /* accepted tools; NULL before hello */

  GHashTable      *in_flight;         /* id_key → Request (owned by its operation) */
  GHashTable      *allowed_audit_ids; /* gint64* → NULL: allowed writes without result */
  GQueue           allowed_order;     /* the same keys, oldest first (borrowed) */
  GPtrArray       *ports;             /* LumoBridgePort, in opening order */
  GHashTable      *probe_targets;     /* app request id → GTask */
  guint            next_app_request;  /* the app's request ids: "app-N" */

  /* Virtual ports of desktop agents (lumo-bridge-session-agents.c). */
  GHashTable      *agent_ports;       /* port id → LumoAgentPort (a reference) */
  GHashTable      *agent_opens;       /* app request id of an agentOpen → port id */
  guint            next_agent_port;   /* port ids: "aN" */
  guint64          hello_serial;      /* the backend's count at our hello; 0 before */

  /* The policy push: what the provider was told last, and what changed. */
  gboolean         told_enabled;
  gboolean         told_writes;
  gboolean         told_review;
  GHashTable      *caller_states;     /* caller_id → GINT_TO_POINTER (LumoCallerState) */
  GPtrArray       *revoked;           /* caller ids to push */
  gboolean         callers_dirty;
  guint            push_source;

  guint            in_read : 1;       /* taking frames (no re-entry) */
  guint            read_kicked : 1;   /* read_source's ready time is set */
  guint            hello_done : 1;
  guint            closing : 1;       /* flushing a last answer before closing */
  guint            closed : 1;
};

/* Allowed writes whose result may still come, per session: a provider that
 * never sends results must not grow the session without bound. The oldest
 * is forgotten first (its row keeps no result). */
#define LUMO_BRIDGE_MAX_OPEN_RESULTS 4096

/* One provider request in flight. */
typedef struct
{
  LumoBridgeSession *session;          /* owned */
  LumoBridgeMessage *message;          /* owned */
  /* owned: the steps that finish after the session closed (the backend may
   * be gone by then) still record the audit row */
  LumoPolicy        *policy;
  LumoAuditStore    *audit_store;
  /* authorize: owned, a copy of the catalogue's entry, since a tools
   * message may replace the catalogue while the write waits for review */
  LumoToolInfo      *tool;
  LumoAuditDecision  audit_decision;
  const char        *reason;           /* static wire reason, NULL when allowed */
  gint64             retry_after_ms;   /* -1 when none */
  gboolean           by_grant;         /* a review grant let it through, not a person */
} LumoBridgeRequest;

LumoBridgeSession *_lumo_bridge_session_new            (LumoBackend       *backend,
                                                        const char        *provider_id,
                                                        GInputStream      *input,
                                                        GOutputStream     *output);
/* Starts reading (no-op when detached). */
void               _lumo_bridge_session_start          (LumoBridgeSession *self);
/* Handles one decoded frame exactly as if it had been read. */
void               _lumo_bridge_session_dispatch       (LumoBridgeSession *self,
                                                        JsonObject        *object);
/* Handles a framing error of lumo_frame_decode()/the reader: an answer if
 * the stream is in sync, else the answer (too_large) and the end. */
void               _lumo_bridge_session_frame_error    (LumoBridgeSession *self,
                                                        const GError      *error,
                                                        gboolean           in_sync);
/* Detached sessions: the next message the session sent, or NULL. */
JsonObject        *_lumo_bridge_session_pop_outgoing   (LumoBridgeSession *self);
void               _lumo_bridge_session_policy_event   (LumoBridgeSession     *self,
                                                        LumoBridgePolicyEvent  event,
                                                        const char            *caller_id);
/* Sends probeTarget and completes @task with a LumoProbeOutcome or an
 * error (see lumo_backend_probe_target_async()). */
void               _lumo_bridge_session_probe_target   (LumoBridgeSession *self,
                                                        const char        *target_id,
                                                        GTask             *task);
/* Ends the session with @reason ("closed" or "error: …"). */
void               _lumo_bridge_session_close_with_reason (LumoBridgeSession *self,
                                                           const char        *reason);

/* The session said hello: the backend notes which is the newest and
 * emits ::provider-connected. */
void               _lumo_backend_session_said_hello      (LumoBackend       *self,
                                                          LumoBridgeSession *session);

/* A detached session of @provider_id in the backend's list (no streams, no
 * Attach task): for the fuzzer and the scenario tests. Remove it with
 * _lumo_backend_remove_detached_session(), which closes it. */
LumoBridgeSession *_lumo_backend_add_detached_session    (LumoBackend       *self,
                                                          const char        *provider_id);
void               _lumo_backend_remove_detached_session (LumoBackend       *self,
                                                          LumoBridgeSession *session);

/* ---- shared between the session's files ---------------------------------- */

/* lumo-bridge-session-io.c: makes the reader and the writer of @input and
 * @output; watches the input while reading is wanted (not closed, not
 * closing, the writer not congested), and stops watching otherwise. */
void               _lumo_bridge_session_open_streams   (LumoBridgeSession *self,
                                                        GInputStream      *input,
                                                        GOutputStream     *output);
void               _lumo_bridge_session_watch_input    (LumoBridgeSession *self);
void               _lumo_bridge_session_notify_stalled (LumoBridgeSession *self);

void               _lumo_bridge_session_send           (LumoBridgeSession *self,
                                                        JsonObject        *object);
void               _lumo_bridge_session_send_fault     (LumoBridgeSession *self,
                                                        LumoBridgeFault   *fault);
void               _lumo_bridge_session_handle_answer  (LumoBridgeSession *self,
                                                        LumoBridgeMessage *message);
/* Completes the app's probeTarget request @id (takes @outcome or @error);
 * nothing if it is not in flight. */
void               _lumo_bridge_session_probe_target_complete (LumoBridgeSession *self,
                                                               const char        *id,
                                                               LumoProbeOutcome  *outcome,
                                                               GError            *error);
/* Takes the policy's view after hello: what the provider now knows. */
void               _lumo_bridge_session_remember_policy (LumoBridgeSession *self,
                                                         gboolean           enabled,
                                                         gboolean           writes,
                                                         gboolean           review);
void               _lumo_bridge_session_port           (LumoBridgeSession *self,
                                                        const char        *caller_id,
                                                        const char        *port_id,
                                                        gboolean           open);
/* The next id of an app request, "app-N" (probeTarget, agentOpen). */
char              *_lumo_bridge_session_next_request_id (LumoBridgeSession *self);
/* Sends @object (consumed) or says why not, with nothing sent: the
 * session is closed (LUMO_ERROR_UNAVAILABLE), the frame would pass 1 MiB,
 * or the provider does not read and its queue is past the high-water mark
 * (LUMO_ERROR_LIMIT_EXCEEDED). For what an agent sends: the agent hears
 * the refusal, the session stays. */
gboolean           _lumo_bridge_session_send_checked   (LumoBridgeSession *self,
                                                        JsonObject        *object,
                                                        GError           **error);

/* ---- lumo-bridge-session-agents.c: virtual ports ---- */

/* Opens a virtual port for @caller_id (sends agentOpen). NULL with
 * LUMO_ERROR_UNAVAILABLE when the session is closed or has not said
 * hello, LUMO_ERROR_LIMIT_EXCEEDED when LUMO_BRIDGE_MAX_AGENT_PORTS are
 * open. The caller owns the returned reference; the session keeps one. */
LumoAgentPort     *_lumo_bridge_session_open_agent_port  (LumoBridgeSession *self,
                                                          const char        *caller_id,
                                                          const char        *caller_name,
                                                          GError           **error);
/* The app ends @port: agentClose, and the session forgets it. */
void               _lumo_bridge_session_close_agent_port (LumoBridgeSession *self,
                                                          LumoAgentPort     *port,
                                                          const char        *reason);
/* The provider's agentMessage and agentClose. */
void               _lumo_bridge_session_handle_agent_push (LumoBridgeSession *self,
                                                           LumoBridgeMessage *message);
/* TRUE if @message answers one of our agentOpen requests (and handles it). */
gboolean           _lumo_bridge_session_handle_agent_open_answer (LumoBridgeSession *self,
                                                                  LumoBridgeMessage *message);
/* TRUE if @port_id is a virtual port of this session opened for exactly
 * @caller_id: what an authorize with `port` must name. */
gboolean           _lumo_bridge_session_is_agent_port    (LumoBridgeSession *self,
                                                          const char        *port_id,
                                                          const char        *caller_id);
/* The session ends: each port's owner hears ::closed with @reason. */
void               _lumo_bridge_session_end_agent_ports  (LumoBridgeSession *self,
                                                          const char        *reason);
/* The `decision` to send beside @message on @port (a new reference), or
 * NULL: the app's decision, made now, when @message is a tools/call of a
 * read tool of the accepted catalogue (docs/bridge-protocol.md,
 * "agentMessage"). */
JsonObject        *_lumo_bridge_session_relay_decision   (LumoBridgeSession *self,
                                                          LumoAgentPort     *port,
                                                          JsonObject        *message);

/* lumo-bridge-session-dispatch.c: the one decision on a read of @tool
 * (not a write) by @caller_id, for an authorize and for a read relayed
 * from a desktop agent. @port_id NULL for a call on no virtual port.
 * Sets @reason to NULL when allowed, else to the wire deny reason; FALSE
 * with @error when the policy cannot decide. */
gboolean           _lumo_bridge_session_decide_read      (LumoBridgeSession   *self,
                                                          const char          *port_id,
                                                          const char          *caller_id,
                                                          const LumoToolInfo  *tool,
                                                          const char          *target,
                                                          const char         **reason,
                                                          GError             **error);

/* lumo-agent-port.c, for the session */
LumoAgentPort     *_lumo_agent_port_new                  (LumoBridgeSession *session,
                                                          const char        *port_id,
                                                          const char        *caller_id);
void               _lumo_agent_port_opened               (LumoAgentPort     *self);
void               _lumo_agent_port_deliver              (LumoAgentPort     *self,
                                                          JsonObject        *message);
/* The provider's side ended the port: ::closed, once. */
void               _lumo_agent_port_ended                (LumoAgentPort     *self,
                                                          const char        *reason);

G_END_DECLS
