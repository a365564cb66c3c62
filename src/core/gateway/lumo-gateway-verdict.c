/* lumo-gateway-verdict.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-gateway"

#include "config.h"

#include "lumo-error.h"
#include "lumo-gateway-verdict.h"

void
lumo_gateway_verdict_to_error (LumoGatewayVerdict   verdict,
                               const char          *message,
                               GError             **error)
{
  LumoError code;
  const char *fallback;

  switch (verdict)
    {
    case LUMO_GATEWAY_BAD_TOKEN:
      code = LUMO_ERROR_NOT_AUTHORIZED;
      fallback = "The token is not valid: it is malformed, or no agent has it (removed?)";
      break;
    case LUMO_GATEWAY_DENIED:
      code = LUMO_ERROR_NOT_AUTHORIZED;
      fallback = "The agent is denied on this provider";
      break;
    case LUMO_GATEWAY_PENDING:
      code = LUMO_ERROR_NOT_AUTHORIZED;
      fallback = "The agent waits for your approval in Lumo Access";
      break;
    case LUMO_GATEWAY_DISABLED:
      code = LUMO_ERROR_UNAVAILABLE;
      fallback = "Desktop agents or the provider are turned off in Lumo Access";
      break;
    case LUMO_GATEWAY_NO_PROVIDER:
      code = LUMO_ERROR_NOT_FOUND;
      fallback = "No provider has this namespace";
      break;
    case LUMO_GATEWAY_TOO_MANY:
      code = LUMO_ERROR_LIMIT_EXCEEDED;
      fallback = "The agent has its most sessions open already";
      break;
    case LUMO_GATEWAY_OK:
    default:
      g_return_if_reached ();
    }

  g_set_error_literal (error, LUMO_ERROR, code, message != NULL ? message : fallback);
}
