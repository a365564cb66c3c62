/* gateway-http-test-util.h — the endpoint's fixture: a gateway, its HTTP
 * endpoint on a free port, a desktop agent, and a provider the test plays
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The backend runs on temporary stores (bridge-test-util.h); the provider
 * TEST_PROVIDER_ID ("userscripts") is registered, and the agent "Claude
 * Code" allowed on it. The provider is not connected until the test calls
 * endpoint_provider_hello(): then it is a detached bridge session the test
 * answers for. Requests are raw HTTP (http-test-util.h), so each test
 * says exactly what the client sends.
 */
#pragma once

#include "bridge-test-util.h"
#include "http-test-util.h"
#include "lumo-bridge-session-private.h"
#include "lumo-gateway-http-private.h"

G_BEGIN_DECLS

typedef struct
{
  BridgeTestEnv     *env;
  LumoGateway       *gateway;
  LumoGatewayHttp   *http;
  guint              port;
  char              *agent_id;
  char              *token;
  LumoBridgeSession *bridge;     /* the provider, once it said hello */
} Endpoint;

void        endpoint_set_up            (Endpoint      *e,
                                        gconstpointer  data);
void        endpoint_tear_down         (Endpoint      *e,
                                        gconstpointer  data);
/* g_test_add() of @func on a fresh endpoint. */
void        endpoint_add               (const char    *path,
                                        void         (*func) (Endpoint *, gconstpointer));

/* "Authorization: Bearer <token>\r\n" */
char       *endpoint_auth              (Endpoint      *e);
/* A whole request: @method @path HTTP/1.1, Host 127.0.0.1:PORT,
 * Connection: close, then @headers (each ending in \r\n, may be NULL),
 * and @body with its Content-Type and Content-Length (NULL: none). */
char       *endpoint_request           (Endpoint      *e,
                                        const char    *method,
                                        const char    *path,
                                        const char    *headers,
                                        const char    *body);
/* A POST of @body to /mcp/userscripts as an SDK client sends it: the
 * token, Accept of both types, and the session and version headers when
 * not NULL. */
char       *endpoint_post_request      (Endpoint      *e,
                                        const char    *session_id,
                                        const char    *version,
                                        const char    *body);
HttpReply  *endpoint_exchange          (Endpoint      *e,
                                        const char    *request);
HttpReply  *endpoint_post              (Endpoint      *e,
                                        const char    *session_id,
                                        const char    *version,
                                        const char    *body);
/* An initialize asking for @version; returns the session id it got
 * (the provider is away, so the app answers it). */
char       *endpoint_initialize        (Endpoint      *e,
                                        const char    *version);

/* The messages of an answer to a POST, in order: its one JSON object
 * (application/json, with a Content-Length that is right), or the JSON
 * of every "data:" line of its SSE stream. */
GPtrArray  *endpoint_messages          (HttpReply     *reply);
/* The one JSON-RPC error of an error reply; checks its code. */
void        endpoint_assert_error      (HttpReply     *reply,
                                        guint          status,
                                        gint64         code);
guint       endpoint_n_sessions        (Endpoint      *e);

/* ---- the provider ------------------------------------------------------- */

void        endpoint_provider_hello    (Endpoint      *e);
/* Waits for the next message the app sends the provider. */
JsonObject *endpoint_provider_recv     (Endpoint      *e);
/* agentOpen (for the fixture's agent), answered; returns the port id. */
char       *endpoint_provider_open     (Endpoint      *e);
/* The next agentMessage must carry a request of @method; returns the id
 * the app gave it. */
gint64      endpoint_provider_expect   (Endpoint      *e,
                                        const char    *method);
/* The provider's McpServer sends @rpc_json on @port. */
void        endpoint_provider_push     (Endpoint      *e,
                                        const char    *port,
                                        const char    *rpc_json);

#define ENDPOINT_INITIALIZE(id, version) \
  "{\"jsonrpc\":\"2.0\",\"id\":" id ",\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"" version "\"," \
  "\"capabilities\":{},\"clientInfo\":{\"name\":\"claude-code\",\"version\":\"2.1.0\"}}}"

G_END_DECLS
