/* lumo-gateway-http-rules.h — what a request to the agents' endpoint must say
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The pure checks of the Streamable HTTP endpoint (lumo-gateway-http.c),
 * one function per header, so each is tested on its own bad input. The
 * endpoint runs them in the order docs/desktop-agents.md gives: Host and
 * Origin first (DNS rebinding: a web page's request carries its own
 * Origin, or a Host that names the attacker's domain), then the token,
 * then the rest. Every failure is LUMO_ERROR_INVALID_ARGUMENT with a
 * message naming the header; no message repeats a token.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The largest request body; a longer one is refused (413) while it is
 * read, never buffered whole. */
#define LUMO_GATEWAY_HTTP_MAX_BODY   (1024 * 1024)
/* The longest bearer token looked at: far above the app's own. */
#define LUMO_GATEWAY_HTTP_MAX_TOKEN  512

/* @host is exactly "127.0.0.1:PORT", "localhost:PORT" or "[::1]:PORT" for
 * @port (the name in any case; without ":PORT" only for port 80). NULL
 * (no Host header) is refused. */
gboolean  lumo_gateway_http_check_host             (const char  *host,
                                                    guint        port,
                                                    GError     **error);
/* No Origin (@origin NULL: a desktop client) passes; otherwise it must be
 * "http://" and one of the hosts above. "null" and every other origin are
 * refused. */
gboolean  lumo_gateway_http_check_origin           (const char  *origin,
                                                    guint        port,
                                                    GError     **error);
/* The token of "Bearer TOKEN" (RFC 6750: the scheme in any case, one or
 * more spaces, a b64token of at most LUMO_GATEWAY_HTTP_MAX_TOKEN
 * characters). NULL for no header, another scheme, or a malformed token;
 * the error never quotes the token. */
char     *lumo_gateway_http_parse_bearer           (const char  *authorization,
                                                    GError     **error);
/* TRUE when @accept (an Accept header, NULL when absent) admits
 * @media_type ("type/subtype"): a range naming it, or its type with a
 * wildcard subtype, or the wildcard of all types, unless the most
 * specific range that matches has q=0. An absent header
 * admits nothing here: MCP clients must list what they take. */
gboolean  lumo_gateway_http_accepts                (const char  *accept,
                                                    const char  *media_type);
/* TRUE for "application/json", with parameters or not, in any case. */
gboolean  lumo_gateway_http_is_json                (const char  *content_type);
/* The MCP-Protocol-Version header (NULL when absent: the negotiated
 * version is meant). Refused: a version the SDK does not negotiate. MCP
 * answers 400 to "an invalid or unsupported" version only: a client
 * SHOULD send the one it negotiated, and another it may send is not
 * refused (the official SDK's server takes it, and the conformance suite
 * sends one). What the session does — batches or not — follows the
 * version it settled at initialize, whatever the header says. */
gboolean  lumo_gateway_http_check_protocol_version (const char  *header,
                                                    GError     **error);
/* The provider namespace of a path "/mcp/NAMESPACE" (NAMESPACE not empty,
 * no further "/"); NULL for any other path. Whether a provider has it is
 * the gateway's to say. */
char     *lumo_gateway_http_path_namespace         (const char  *path);

G_END_DECLS
