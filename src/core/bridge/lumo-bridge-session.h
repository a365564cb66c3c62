/* lumo-bridge-session.h — one native-messaging connection of a provider
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoBridgeSession owns one provider connection: its LumoFrameReader and
 * LumoFrameWriter, the requests in flight (several at once, answered out of
 * order: a probe is answered while an authorize waits for a review), the
 * audit ids of its allowed writes, its open L1 ports, the waiting reviews it
 * started (cancelled when it closes) and the app's own probeTarget requests.
 * Sessions are created by LumoBackend (lumo_backend_attach_async()); the
 * provider's identity is the origin the backend was given, never a field of
 * a message.
 *
 * Back-pressure: while the writer is congested (the provider does not read
 * its answers) the session reads no more frames, and at most
 * LUMO_BRIDGE_MAX_IN_FLIGHT requests wait at once, so a provider that
 * pipelines without reading cannot grow the app's memory.
 */
#pragma once

#include <gio/gio.h>

#include "lumo-types.h"

G_BEGIN_DECLS

/* One open L1 port (`lumo:mcp`) as the provider reported it. */
typedef struct
{
  char   *provider_id;
  char   *caller_id;
  char   *port_id;      /* the provider's own id of the port */
  gint64  opened_us;    /* wall clock, µs since the Unix epoch */
} LumoBridgePort;

#define LUMO_TYPE_BRIDGE_PORT (lumo_bridge_port_get_type ())
GType           lumo_bridge_port_get_type  (void) G_GNUC_CONST;
LumoBridgePort *lumo_bridge_port_copy      (const LumoBridgePort *port);
void            lumo_bridge_port_free      (LumoBridgePort       *port);

#define LUMO_TYPE_BRIDGE_SESSION (lumo_bridge_session_get_type ())
G_DECLARE_FINAL_TYPE (LumoBridgeSession, lumo_bridge_session, LUMO, BRIDGE_SESSION, GObject)

const char *lumo_bridge_session_get_provider_id     (LumoBridgeSession *self);
/* From the provider's hello; NULL before it. Display only. */
const char *lumo_bridge_session_get_namespace       (LumoBridgeSession *self);
const char *lumo_bridge_session_get_service_name    (LumoBridgeSession *self);
const char *lumo_bridge_session_get_service_version (LumoBridgeSession *self);
gboolean    lumo_bridge_session_get_hello_done      (LumoBridgeSession *self);
/* Wall clock, µs since the Unix epoch. */
gint64      lumo_bridge_session_get_started         (LumoBridgeSession *self);
/* The accepted tool names of the current catalogue (free with g_strfreev). */
char      **lumo_bridge_session_list_tools          (LumoBridgeSession *self);
/* Provider requests waiting for their answer now. */
guint       lumo_bridge_session_get_n_in_flight     (LumoBridgeSession *self);
/* Bytes of answers queued for the provider and not yet written. */
gsize       lumo_bridge_session_get_queued_bytes    (LumoBridgeSession *self);
/* TRUE while reading is paused because the provider does not read. */
gboolean    lumo_bridge_session_get_stalled         (LumoBridgeSession *self);
/* LumoBridgePort, in the order they opened. */
GPtrArray  *lumo_bridge_session_list_ports          (LumoBridgeSession *self);
gboolean    lumo_bridge_session_is_closed           (LumoBridgeSession *self);
/* Ends the session from the app's side (waiting reviews are cancelled,
 * ports reported closed); ::closed is emitted with "closed". */
void        lumo_bridge_session_close               (LumoBridgeSession *self);

/* Signals:
 *   ::closed       (const char *reason)  once; "closed" when the provider
 *                  or the app ended it, "error: …" when the stream broke or
 *                  went out of sync
 *   ::port-opened  (LumoBridgePort *port)
 *   ::port-closed  (LumoBridgePort *port)
 * Properties: provider-id, namespace, service-name, hello-done, in-flight,
 * stalled (all read-only, notified). */

G_DEFINE_AUTOPTR_CLEANUP_FUNC (LumoBridgePort, lumo_bridge_port_free)

G_END_DECLS
