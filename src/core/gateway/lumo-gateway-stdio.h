/* lumo-gateway-stdio.h — a desktop agent's session over MCP's stdio transport
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The launcher (lumo-access-mcp) hands the app its MCP client's two pipes
 * over D-Bus (AttachAgent); lumo_gateway_stdio_serve_async() relays one
 * LumoAgentSession over them, one JSON-RPC message per line each way
 * (lumo-frame.h's lines, bounded). A line that is no message (not UTF-8,
 * not JSON, too long, not JSON-RPC) is answered with a JSON-RPC error and
 * the stream goes on; a batch is split under a version that has batches
 * and refused under one that has none. While the client does not read
 * what it is sent, nothing more is read from it; what it leaves unread
 * counts against the session's bound (lumo_agent_session_note_unsent()),
 * past which the session ends.
 *
 * The operation completes with why it ended: "closed" when the client
 * closed its input or its output (the session is ended then), or
 * "error: <why>" when the session ended first (the agent removed or
 * denied, desktop agents turned off) or @cancellable was cancelled.
 */
#pragma once

#include <gio/gio.h>

#include "lumo-agent-session.h"

G_BEGIN_DECLS

void   lumo_gateway_stdio_serve_async  (LumoAgentSession     *session,
                                        GInputStream         *input,
                                        GOutputStream        *output,
                                        GCancellable         *cancellable,
                                        GAsyncReadyCallback   callback,
                                        gpointer              user_data);
char  *lumo_gateway_stdio_serve_finish (GAsyncResult         *result,
                                        GError              **error);

G_END_DECLS
