/* lumo-gateway-verdict.h — a refused session, as the transports say it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The HTTP endpoint and the D-Bus AttachAgent call refuse the same
 * verdicts of LumoGateway; this is their one sentence for each, and the
 * LUMO_ERROR code a D-Bus caller gets.
 */
#pragma once

#include "lumo-gateway.h"

G_BEGIN_DECLS

/* Sets @error for @verdict (not LUMO_GATEWAY_OK): LUMO_ERROR_NOT_AUTHORIZED
 * (bad token, denied, pending), LUMO_ERROR_UNAVAILABLE (disabled),
 * LUMO_ERROR_NOT_FOUND (no provider), LUMO_ERROR_LIMIT_EXCEEDED (too many
 * sessions), with @message (the gateway's sentence) or, when it is NULL,
 * one of ours. */
void lumo_gateway_verdict_to_error (LumoGatewayVerdict   verdict,
                                    const char          *message,
                                    GError             **error);

G_END_DECLS
