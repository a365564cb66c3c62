/* lumo-backend.h — the provider backend hosted in the app
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoBackend owns (or is given) the LumoPolicy, the LumoAuditStore and the
 * LumoReviewQueue, plus the tool registry of all providers, and it keeps the
 * live bridge sessions (a GListModel of LumoBridgeSession) and the open L1
 * ports of every provider. Each native-messaging connection handed over by
 * lumo-access-host (the app's D-Bus Attach method) becomes one session
 * through lumo_backend_attach_async(), which completes when the session
 * ends. Policy changes are pushed to the affected sessions the moment the
 * policy signals them.
 */
#pragma once

#include <gio/gio.h>

#include "lumo-agent-port.h"
#include "lumo-audit-store.h"
#include "lumo-bridge-session.h"
#include "lumo-managed-settings.h"
#include "lumo-policy.h"
#include "lumo-probe-status.h"
#include "lumo-recommended-server.h"
#include "lumo-types.h"

G_BEGIN_DECLS

#define LUMO_TYPE_BACKEND (lumo_backend_get_type ())
G_DECLARE_FINAL_TYPE (LumoBackend, lumo_backend, LUMO, BACKEND, GObject)

/* Uses the given stores (references are taken). */
LumoBackend      *lumo_backend_new                (LumoPolicy        *policy,
                                                   LumoAuditStore    *audit_store,
                                                   LumoReviewQueue   *review_queue);
/* Opens policy.db and audit.db (with @audit_flags) in @data_dir (NULL:
 * lumo_paths_get_data_dir()), with a new review queue. Fails if a store
 * cannot be opened (corrupt, too new, no secret): the caller shows the
 * error and serves no session. */
LumoBackend      *lumo_backend_new_for_data_dir   (const char        *data_dir,
                                                   LumoAuditStoreFlags audit_flags,
                                                   GError           **error);

LumoPolicy       *lumo_backend_get_policy         (LumoBackend       *self);
LumoAuditStore   *lumo_backend_get_audit_store    (LumoBackend       *self);
LumoReviewQueue  *lumo_backend_get_review_queue   (LumoBackend       *self);
LumoToolRegistry *lumo_backend_get_tool_registry  (LumoBackend       *self);
/* The review timeout and audit retention under the managed policy. */
LumoManagedSettings *lumo_backend_get_managed_settings (LumoBackend    *self);
/* The version sent in hello.result (default PACKAGE_VERSION). */
void              lumo_backend_set_app_version    (LumoBackend       *self,
                                                   const char        *version);
const char       *lumo_backend_get_app_version    (LumoBackend       *self);
/* Rebuilds each caller's write window from the audit store's allowed
 * writes of the last LUMO_RATE_LIMIT_WINDOW_US, so a restart gives no
 * caller fresh slots. Call once at start, after any set_clock(). */
gboolean          lumo_backend_restore_rate_windows (LumoBackend     *self,
                                                     GError         **error);
/* One monotonic clock for the rate limiter and the review queue (tests). */
void              lumo_backend_set_clock          (LumoBackend       *self,
                                                   LumoClockFunc      clock,
                                                   gpointer           user_data);

/* A person's decision on the waiting review @request_id (the Requests
 * page, a notification, the CLI over D-Bus): reject it, or approve it —
 * this write alone (@grant ONCE), or with the caller's next writes of the
 * same tool for ten minutes or always. Then the grant is made in the
 * policy first (history origin @origin), the write is approved, and the
 * other writes of that caller and tool that wait for review are let
 * through by the grant (LUMO_REVIEW_OUTCOME_GRANTED, audited as such). If
 * the grant cannot be made (the caller is no longer allowed, a database
 * error) nothing is decided and the review still waits.
 * LUMO_ERROR_NOT_FOUND when no such review waits. @grant is ignored when
 * rejecting. lumo-backend-review.c. */
gboolean          lumo_backend_decide_review      (LumoBackend       *self,
                                                   const char        *request_id,
                                                   gboolean           approve,
                                                   LumoGrantScope     grant,
                                                   LumoPolicyOrigin   origin,
                                                   GError           **error);

/* A GListModel of LumoBridgeSession, in the order they started. */
GListModel       *lumo_backend_get_sessions       (LumoBackend       *self);
guint             lumo_backend_get_n_sessions     (LumoBackend       *self);
/* TRUE if a session of @provider_id has said hello. */
gboolean          lumo_backend_is_provider_connected (LumoBackend    *self,
                                                      const char     *provider_id);
/* Opens a virtual port for the desktop agent @caller_id (shown to the
 * provider as @caller_name, already cleaned) on the session of
 * @provider_id that said hello last (docs/bridge-protocol.md, "Desktop
 * agents"). The caller owns the new reference. NULL with
 * LUMO_ERROR_INVALID_ID, LUMO_ERROR_UNAVAILABLE when no session of the
 * provider said hello, LUMO_ERROR_LIMIT_EXCEEDED when that session has
 * LUMO_BRIDGE_MAX_AGENT_PORTS open. Who may call is not checked here: the
 * gateway opens ports only for agents the policy allows, and every call
 * is authorized on its own. */
LumoAgentPort    *lumo_backend_open_agent_port    (LumoBackend       *self,
                                                   const char        *provider_id,
                                                   const char        *caller_id,
                                                   const char        *caller_name,
                                                   GError           **error);
/* LumoBridgePort of @provider_id (NULL: every provider), oldest first. */
GPtrArray        *lumo_backend_list_ports         (LumoBackend       *self,
                                                   const char        *provider_id);

/* Serves one native-messaging connection. @origin is what Chrome passed to
 * the helper, "chrome-extension://ID/" (a bare extension ID is accepted
 * too, for callers that parsed it already); it is validated with
 * lumo_extension_id_from_origin() and a bad one fails at once
 * (LUMO_ERROR_INVALID_ID) without a session. The streams must be
 * non-blocking pollable streams (GUnixInputStream/GUnixOutputStream on
 * O_NONBLOCK fds); the backend keeps references until the session ends.
 * Cancelling @cancellable ends the session. */
void              lumo_backend_attach_async       (LumoBackend         *self,
                                                   const char          *origin,
                                                   GInputStream        *input,
                                                   GOutputStream       *output,
                                                   GCancellable        *cancellable,
                                                   GAsyncReadyCallback  callback,
                                                   gpointer             user_data);
/* Returns why the session ended: "closed", or "error: <what went wrong>";
 * NULL with @error if it never started. */
char             *lumo_backend_attach_finish      (LumoBackend         *self,
                                                   GAsyncResult        *result,
                                                   GError             **error);

/* Asks a connected session of @provider_id to send the L0 probe to
 * @target_id and report the raw outcome (map it with
 * lumo_probe_status_map()). Errors: LUMO_ERROR_INVALID_ID for a bad ID;
 * LUMO_ERROR_UNAVAILABLE when no session of the provider has said hello,
 * when it ends first, or when it does not answer within
 * LUMO_BRIDGE_PROBE_TARGET_TIMEOUT_MS; LUMO_ERROR_PROTOCOL when the
 * provider answers with an error. */
void              lumo_backend_probe_target_async (LumoBackend         *self,
                                                   const char          *provider_id,
                                                   const char          *target_id,
                                                   GCancellable        *cancellable,
                                                   GAsyncReadyCallback  callback,
                                                   gpointer             user_data);
LumoProbeOutcome *lumo_backend_probe_target_finish (LumoBackend        *self,
                                                    GAsyncResult       *result,
                                                    GError            **error);

/* The MCP servers @provider_id recommends (`customMarketMcpServers` of its
 * latest hello or tools message), in memory only: a message that carries
 * the member replaces the list (an empty one clears it), one without it
 * keeps it, and the list is dropped when the provider's last session ends.
 * set takes a copy, does nothing for @servers NULL, and emits
 * ::recommended-changed. dup returns a new array (empty when none) of
 * LumoRecommendedServer. */
void              lumo_backend_set_recommended_servers (LumoBackend *self,
                                                        const char  *provider_id,
                                                        GPtrArray   *servers);
GPtrArray        *lumo_backend_dup_recommended_servers (LumoBackend *self,
                                                        const char  *provider_id);
/* The providers that recommend at least one server now, sorted. */
GStrv             lumo_backend_dup_recommending_providers (LumoBackend *self);

/* Signals:
 *   ::session-added   (LumoBridgeSession *session)
 *   ::session-removed (LumoBridgeSession *session, const char *reason)
 *   ::port-opened     (LumoBridgePort *port)
 *   ::port-closed     (LumoBridgePort *port)
 *   ::recommended-changed (const char *provider_id)
 *   ::provider-connected    (const char *provider_id)  a session of it said
 *                           hello (each time one does)
 *   ::provider-disconnected (const char *provider_id)  its last session that
 *                           said hello ended
 */

G_END_DECLS
