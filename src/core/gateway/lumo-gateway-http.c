/* lumo-gateway-http.c — the endpoint's requests, checked in order
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Two libsoup handlers: the early one runs on the headers, before a byte
 * of the body is read, and makes every check that needs no body (Host,
 * Origin, token, provider, method, Accept, Content-Type, declared size);
 * it also switches the body's accumulation off, so the body is gathered
 * here under the 1 MiB bound and a longer one is refused as it arrives.
 * The normal one runs on the whole body: the session, the version, the
 * JSON, and then the session gets the messages.
 */
#define G_LOG_DOMAIN "lumo-gateway-http"

#include "config.h"

#include <string.h>

#include "lumo-canonical-json.h"
#include "lumo-error.h"
#include "lumo-frame.h"
#include "lumo-gateway-http-private.h"
#include "lumo-gateway-http-rules.h"
#include "lumo-gateway-verdict.h"
#include "lumo-json.h"
#include "lumo-mcp.h"

#define REQUEST_KEY "lumo-gateway-request"

/* What the early handler learnt, for the normal one. */
typedef struct
{
  char       *agent_id;
  char       *provider_id;
  GByteArray *body;      /* NULL once the body passed the bound */
  gsize       seen;
} Request;

G_DEFINE_FINAL_TYPE (LumoGatewayHttp, lumo_gateway_http, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_STATE,
  PROP_PORT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
request_free (Request *req)
{
  g_free (req->agent_id);
  g_free (req->provider_id);
  g_clear_pointer (&req->body, g_byte_array_unref);
  g_free (req);
}

/* A JSON-RPC error (id null) as the body of an HTTP error. */
static void
respond_error (SoupServerMessage *msg,
               guint              status,
               gint64             code,
               const char        *message)
{
  g_autoptr(JsonObject) error = lumo_mcp_new_error (NULL, code, message);
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), error);
  char *json = lumo_canonical_json (node, NULL);

  g_debug ("%u: %s", status, message);
  soup_server_message_set_status (msg, status, NULL);
  if (json != NULL)
    soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_TAKE, json, strlen (json));
}

static void
respond_unauthorized (SoupServerMessage *msg,
                      const char        *message)
{
  respond_error (msg, SOUP_STATUS_UNAUTHORIZED, LUMO_MCP_SERVER_ERROR, message);
  soup_message_headers_replace (soup_server_message_get_response_headers (msg),
                                "WWW-Authenticate", "Bearer");
}

static void
respond_verdict (SoupServerMessage  *msg,
                 LumoGatewayVerdict  verdict,
                 const char         *message)
{
  g_autoptr(GError) error = NULL;

  lumo_gateway_verdict_to_error (verdict, message, &error);

  switch (verdict)
    {
    case LUMO_GATEWAY_BAD_TOKEN:
    case LUMO_GATEWAY_DENIED:
      respond_unauthorized (msg, error->message);
      break;
    case LUMO_GATEWAY_PENDING:
    case LUMO_GATEWAY_DISABLED:
      respond_error (msg, SOUP_STATUS_FORBIDDEN, LUMO_MCP_SERVER_ERROR, error->message);
      break;
    case LUMO_GATEWAY_NO_PROVIDER:
      respond_error (msg, SOUP_STATUS_NOT_FOUND, LUMO_MCP_SERVER_ERROR, error->message);
      break;
    case LUMO_GATEWAY_TOO_MANY:
      /* Too Many Requests: libsoup 3.2 has no name for it. */
      respond_error (msg, 429, LUMO_MCP_SERVER_ERROR, error->message);
      break;
    case LUMO_GATEWAY_OK:
    default:
      g_assert_not_reached ();
    }
}

/* ---- the early checks (headers only) ------------------------------------ */

static void
on_got_chunk_cb (SoupServerMessage *msg,
                 GBytes            *chunk,
                 LumoGatewayHttp   *self)
{
  Request *req = g_object_get_data (G_OBJECT (msg), REQUEST_KEY);
  gsize size = g_bytes_get_size (chunk);

  if (req == NULL)
    return;

  req->seen += size;
  if (req->seen > LUMO_GATEWAY_HTTP_MAX_BODY)
    {
      g_clear_pointer (&req->body, g_byte_array_unref);
      if (soup_server_message_get_status (msg) == 0)
        {
          respond_error (msg, SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE, LUMO_MCP_INVALID_REQUEST,
                         "The request body is over 1 MiB");
          soup_message_headers_replace (soup_server_message_get_response_headers (msg),
                                        "Connection", "close");
        }
      /* Read on only so far, to answer a client that sends its body
       * before it reads: one that keeps sending is cut off. */
      if (req->seen > 2 * (gsize) LUMO_GATEWAY_HTTP_MAX_BODY)
        lumo_gateway_listener_cut (self->listener, msg);
      return;
    }

  if (req->body != NULL && soup_server_message_get_status (msg) == 0)
    g_byte_array_append (req->body, g_bytes_get_data (chunk, NULL), size);
}

static gboolean
check_headers (LumoGatewayHttp   *self,
               SoupServerMessage *msg,
               const char        *path,
               Request           *req)
{
  SoupMessageHeaders *headers = soup_server_message_get_request_headers (msg);
  const char *method = soup_server_message_get_method (msg);
  guint port = lumo_gateway_listener_get_port (self->listener);
  g_autoptr(GError) error = NULL;
  g_autofree char *token = NULL;
  g_autofree char *namespace_ = NULL;
  g_autofree char *message = NULL;
  LumoGatewayVerdict verdict;
  goffset length;

  /* DNS rebinding: before anything about the token is looked at. */
  if (!lumo_gateway_http_check_host (soup_message_headers_get_one (headers, "Host"), port, &error) ||
      !lumo_gateway_http_check_origin (soup_message_headers_get_one (headers, "Origin"), port, &error))
    {
      respond_error (msg, SOUP_STATUS_FORBIDDEN, LUMO_MCP_SERVER_ERROR, error->message);
      return FALSE;
    }

  if (!(token = lumo_gateway_http_parse_bearer (soup_message_headers_get_one (headers, "Authorization"),
                                                &error)))
    {
      respond_unauthorized (msg, error->message);
      return FALSE;
    }

  namespace_ = lumo_gateway_http_path_namespace (path);
  verdict = lumo_gateway_authenticate (self->gateway, token, namespace_ != NULL ? namespace_ : "",
                                       &req->agent_id, &req->provider_id, &message);
  memset (token, 0, strlen (token));
  if (verdict != LUMO_GATEWAY_OK)
    {
      respond_verdict (msg, verdict, message);
      return FALSE;
    }

  if (namespace_ == NULL)
    {
      respond_error (msg, SOUP_STATUS_NOT_FOUND, LUMO_MCP_SERVER_ERROR,
                     "No MCP endpoint here: the path is /mcp/<provider namespace>");
      return FALSE;
    }

  if (method != SOUP_METHOD_POST && method != SOUP_METHOD_GET && method != SOUP_METHOD_DELETE)
    {
      respond_error (msg, SOUP_STATUS_METHOD_NOT_ALLOWED, LUMO_MCP_SERVER_ERROR,
                     "Only POST, GET and DELETE are served here");
      soup_message_headers_replace (soup_server_message_get_response_headers (msg),
                                    "Allow", "GET, POST, DELETE");
      return FALSE;
    }

  if (method == SOUP_METHOD_POST)
    {
      const char *accept = soup_message_headers_get_list (headers, "Accept");

      if (!lumo_gateway_http_accepts (accept, "application/json") ||
          !lumo_gateway_http_accepts (accept, "text/event-stream"))
        {
          respond_error (msg, SOUP_STATUS_NOT_ACCEPTABLE, LUMO_MCP_SERVER_ERROR,
                         "Accept: a POST must accept application/json and text/event-stream");
          return FALSE;
        }
      if (!lumo_gateway_http_is_json (soup_message_headers_get_one (headers, "Content-Type")))
        {
          respond_error (msg, SOUP_STATUS_UNSUPPORTED_MEDIA_TYPE, LUMO_MCP_SERVER_ERROR,
                         "Content-Type: the body must be application/json");
          return FALSE;
        }
    }
  else if (method == SOUP_METHOD_GET &&
           !lumo_gateway_http_accepts (soup_message_headers_get_list (headers, "Accept"),
                                       "text/event-stream"))
    {
      respond_error (msg, SOUP_STATUS_NOT_ACCEPTABLE, LUMO_MCP_SERVER_ERROR,
                     "Accept: a GET must accept text/event-stream");
      return FALSE;
    }

  /* A size said up front is refused up front; an unsaid one as it grows. */
  if (soup_message_headers_get_encoding (headers) == SOUP_ENCODING_CONTENT_LENGTH &&
      (length = soup_message_headers_get_content_length (headers)) > LUMO_GATEWAY_HTTP_MAX_BODY)
    {
      respond_error (msg, SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE, LUMO_MCP_INVALID_REQUEST,
                     "The request body is over 1 MiB");
      soup_message_headers_replace (soup_server_message_get_response_headers (msg),
                                    "Connection", "close");
      return FALSE;
    }

  return TRUE;
}

static void
on_early_request_cb (SoupServer        *server,
                     SoupServerMessage *msg,
                     const char        *path,
                     GHashTable        *query,
                     gpointer           user_data)
{
  LumoGatewayHttp *self = user_data;
  Request *req = g_new0 (Request, 1);

  g_object_set_data_full (G_OBJECT (msg), REQUEST_KEY, req, (GDestroyNotify) request_free);

  /* Gathered by on_got_chunk_cb, under the bound, whatever happens next:
   * libsoup reads the body of a refused request too. */
  soup_message_body_set_accumulate (soup_server_message_get_request_body (msg), FALSE);
  req->body = g_byte_array_new ();
  g_signal_connect_object (msg, "got-chunk", G_CALLBACK (on_got_chunk_cb), self, 0);

  if (!check_headers (self, msg, path, req))
    g_clear_pointer (&req->body, g_byte_array_unref);
}

/* ---- the whole request -------------------------------------------------- */

/* The session @msg names, if it is one of this agent's, on this provider,
 * opened here; otherwise the answer is set and NULL returned. */
static HttpBinding *
lookup_binding (LumoGatewayHttp   *self,
                SoupServerMessage *msg,
                Request           *req,
                const char        *session_id)
{
  SoupMessageHeaders *headers = soup_server_message_get_request_headers (msg);
  g_autoptr(GError) error = NULL;
  LumoAgentSession *session;
  HttpBinding *binding;

  if (session_id == NULL)
    {
      respond_error (msg, SOUP_STATUS_BAD_REQUEST, LUMO_MCP_SERVER_ERROR,
                     "Mcp-Session-Id: missing; only initialize starts a session");
      return NULL;
    }

  session = lumo_gateway_lookup_session (self->gateway, req->agent_id, session_id);
  binding = _lumo_gateway_http_lookup (self, session_id);
  if (session == NULL || binding == NULL || _http_binding_get_session (binding) != session ||
      g_strcmp0 (lumo_agent_session_get_provider_id (session), req->provider_id) != 0 ||
      lumo_agent_session_is_closed (session))
    {
      respond_error (msg, SOUP_STATUS_NOT_FOUND, LUMO_MCP_SESSION_NOT_FOUND,
                     "The session is unknown or has ended: start a new one with initialize");
      return NULL;
    }

  if (!lumo_gateway_http_check_protocol_version (soup_message_headers_get_one (headers, "MCP-Protocol-Version"),
                                                 &error))
    {
      respond_error (msg, SOUP_STATUS_BAD_REQUEST, LUMO_MCP_SERVER_ERROR, error->message);
      return NULL;
    }

  _http_binding_touch (binding);
  return binding;
}

/* A new session for an initialize; when the agent has its most open, the
 * one it left idle longest gives way. */
static HttpBinding *
open_binding (LumoGatewayHttp   *self,
              SoupServerMessage *msg,
              Request           *req)
{
  g_autoptr(LumoAgentSession) session = NULL;
  LumoGatewayVerdict verdict = LUMO_GATEWAY_OK;
  HttpBinding *idle;

  session = lumo_gateway_open_session (self->gateway, req->agent_id, req->provider_id, "http", &verdict);
  if (session == NULL && verdict == LUMO_GATEWAY_TOO_MANY &&
      (idle = _lumo_gateway_http_find_idle (self, req->agent_id)) != NULL)
    {
      lumo_agent_session_close (_http_binding_get_session (idle),
                                "The agent opened a new session; this one was idle longest.");
      session = lumo_gateway_open_session (self->gateway, req->agent_id, req->provider_id, "http", &verdict);
    }

  if (session == NULL)
    {
      respond_verdict (msg, verdict, NULL);
      return NULL;
    }

  soup_message_headers_replace (soup_server_message_get_response_headers (msg),
                                "Mcp-Session-Id", lumo_agent_session_get_id (session));
  return _lumo_gateway_http_bind (self, session);
}

static void
handle_post (LumoGatewayHttp   *self,
             SoupServerMessage *msg,
             Request           *req,
             const char        *session_id)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GPtrArray) messages = NULL;
  g_autoptr(GPtrArray) keys = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(LumoAgentSession) session = NULL;
  HttpBinding *binding = NULL;
  gboolean initialize;

  if (session_id != NULL && !(binding = lookup_binding (self, msg, req, session_id)))
    return;

  if (!(node = lumo_json_parse ((const char *) req->body->data, req->body->len,
                                LUMO_FRAME_MAX_DEPTH, &error)))
    {
      g_autofree char *text = g_strdup_printf ("Parse error: %s", error->message);

      respond_error (msg, SOUP_STATUS_BAD_REQUEST, LUMO_MCP_PARSE_ERROR, text);
      return;
    }

  messages = lumo_mcp_split_batch (node, binding != NULL
                                           ? lumo_agent_session_get_protocol_version (_http_binding_get_session (binding))
                                           : NULL,
                                   &error);
  if (messages == NULL)
    {
      respond_error (msg, SOUP_STATUS_BAD_REQUEST, LUMO_MCP_INVALID_REQUEST, error->message);
      return;
    }

  /* Every message is looked at before any is passed on: a batch is taken
   * whole or not at all. */
  for (guint i = 0; i < messages->len; i++)
    {
      JsonObject *message = g_ptr_array_index (messages, i);
      LumoMcpKind kind = lumo_mcp_classify (message, &error);
      char *key;

      if (kind == 0)
        {
          respond_error (msg, SOUP_STATUS_BAD_REQUEST, LUMO_MCP_INVALID_REQUEST, error->message);
          return;
        }
      if (kind != LUMO_MCP_REQUEST)
        continue;

      key = lumo_mcp_id_key (json_object_get_member (message, "id"));
      if (g_hash_table_contains (seen, key) ||
          (binding != NULL && _http_binding_is_pending (binding, key)))
        {
          g_free (key);
          respond_error (msg, SOUP_STATUS_BAD_REQUEST, LUMO_MCP_INVALID_REQUEST,
                         "id: a request with this id is waiting for its answer already");
          return;
        }
      g_ptr_array_add (keys, key);
      g_hash_table_add (seen, key);
    }

  initialize = messages->len == 1 && lumo_mcp_is_initialize (g_ptr_array_index (messages, 0));
  if (binding == NULL)
    {
      if (!initialize)
        {
          respond_error (msg, SOUP_STATUS_BAD_REQUEST, LUMO_MCP_SERVER_ERROR,
                         "Mcp-Session-Id: missing; only initialize starts a session");
          return;
        }
      if (!(binding = open_binding (self, msg, req)))
        return;
    }
  else
    for (guint i = 0; i < messages->len; i++)
      if (lumo_mcp_is_initialize (g_ptr_array_index (messages, i)))
        {
          respond_error (msg, SOUP_STATUS_BAD_REQUEST, LUMO_MCP_INVALID_REQUEST,
                         "The session is initialized already: initialize starts a new one "
                         "without Mcp-Session-Id");
          return;
        }

  if (keys->len > 0)
    _http_binding_open_stream (binding, msg, keys, JSON_NODE_HOLDS_OBJECT (node));
  else
    soup_server_message_set_status (msg, SOUP_STATUS_ACCEPTED, NULL);

  /* The session may answer at once, or close, while it takes these: the
   * binding may be gone after any of them. */
  session = g_object_ref (_http_binding_get_session (binding));
  for (guint i = 0; i < messages->len && !lumo_agent_session_is_closed (session); i++)
    if (!lumo_agent_session_receive (session, g_ptr_array_index (messages, i), &error))
      {
        g_debug ("The session refused a message: %s", error->message);
        g_clear_error (&error);
      }
}

static void
handle_get (LumoGatewayHttp   *self,
            SoupServerMessage *msg,
            Request           *req,
            const char        *session_id)
{
  HttpBinding *binding;

  if (!(binding = lookup_binding (self, msg, req, session_id)))
    return;

  if (_http_binding_has_standalone (binding))
    {
      respond_error (msg, SOUP_STATUS_CONFLICT, LUMO_MCP_SERVER_ERROR,
                     "The session has its standalone stream open already");
      return;
    }

  _http_binding_open_stream (binding, msg, NULL, FALSE);
}

static void
handle_delete (LumoGatewayHttp   *self,
               SoupServerMessage *msg,
               Request           *req,
               const char        *session_id)
{
  HttpBinding *binding;

  if (!(binding = lookup_binding (self, msg, req, session_id)))
    return;

  soup_server_message_set_status (msg, SOUP_STATUS_OK, NULL);
  lumo_agent_session_close (_http_binding_get_session (binding), "The agent ended its session.");
}

static void
on_request_cb (SoupServer        *server,
               SoupServerMessage *msg,
               const char        *path,
               GHashTable        *query,
               gpointer           user_data)
{
  LumoGatewayHttp *self = user_data;
  Request *req = g_object_get_data (G_OBJECT (msg), REQUEST_KEY);
  const char *method = soup_server_message_get_method (msg);
  const char *session_id = soup_message_headers_get_one (soup_server_message_get_request_headers (msg),
                                                         "Mcp-Session-Id");

  /* The early handler refused everything it did not let through. */
  g_return_if_fail (req != NULL && req->agent_id != NULL && req->body != NULL);

  if (method == SOUP_METHOD_POST)
    handle_post (self, msg, req, session_id);
  else if (method == SOUP_METHOD_GET)
    handle_get (self, msg, req, session_id);
  else
    handle_delete (self, msg, req, session_id);
}

/* ---- the object --------------------------------------------------------- */

static void
on_listener_notify_cb (LumoGatewayListener *listener,
                       GParamSpec          *pspec,
                       LumoGatewayHttp     *self)
{
  if (g_strcmp0 (pspec->name, "state") == 0)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATE]);
  else if (g_strcmp0 (pspec->name, "port") == 0)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PORT]);
}

gboolean
lumo_gateway_http_start (LumoGatewayHttp  *self,
                         guint             port,
                         GError          **error)
{
  g_return_val_if_fail (LUMO_IS_GATEWAY_HTTP (self), FALSE);

  /* Sessions of the port before: their URL is gone. */
  _lumo_gateway_http_unbind_all (self, "The endpoint moved to another port.");
  return lumo_gateway_listener_start (self->listener, port, error);
}

void
lumo_gateway_http_stop (LumoGatewayHttp *self)
{
  g_return_if_fail (LUMO_IS_GATEWAY_HTTP (self));

  _lumo_gateway_http_unbind_all (self, "The desktop agents' endpoint was turned off.");
  lumo_gateway_listener_stop (self->listener);
}

LumoGatewayListenerState
lumo_gateway_http_get_state (LumoGatewayHttp *self)
{
  g_return_val_if_fail (LUMO_IS_GATEWAY_HTTP (self), LUMO_GATEWAY_LISTENER_OFF);

  return lumo_gateway_listener_get_state (self->listener);
}

guint
lumo_gateway_http_get_port (LumoGatewayHttp *self)
{
  g_return_val_if_fail (LUMO_IS_GATEWAY_HTTP (self), 0);

  return lumo_gateway_listener_get_port (self->listener);
}

LumoGateway *
lumo_gateway_http_get_gateway (LumoGatewayHttp *self)
{
  g_return_val_if_fail (LUMO_IS_GATEWAY_HTTP (self), NULL);

  return self->gateway;
}

void
_lumo_gateway_http_set_deadlines (LumoGatewayHttp *self,
                                  guint            session_idle_ms,
                                  guint            stall_timeout_ms,
                                  guint            keepalive_ms)
{
  g_return_if_fail (LUMO_IS_GATEWAY_HTTP (self));
  g_return_if_fail (session_idle_ms > 0 && stall_timeout_ms > 0 && keepalive_ms > 0);

  self->session_idle_ms = session_idle_ms;
  self->stall_timeout_ms = stall_timeout_ms;
  self->keepalive_ms = keepalive_ms;
}

LumoGatewayListener *
_lumo_gateway_http_get_listener (LumoGatewayHttp *self)
{
  g_return_val_if_fail (LUMO_IS_GATEWAY_HTTP (self), NULL);

  return self->listener;
}

static void
lumo_gateway_http_dispose (GObject *object)
{
  LumoGatewayHttp *self = LUMO_GATEWAY_HTTP (object);

  if (self->bindings != NULL)
    _lumo_gateway_http_unbind_all (self, "Lumo Access is quitting.");
  if (self->streams != NULL)
    _lumo_gateway_http_drop_streams (self);

  if (self->listener != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->listener, self);
      soup_server_remove_handler (lumo_gateway_listener_get_server (self->listener), NULL);
      lumo_gateway_listener_stop (self->listener);
    }
  g_clear_object (&self->listener);
  g_clear_object (&self->gateway);

  G_OBJECT_CLASS (lumo_gateway_http_parent_class)->dispose (object);
}

static void
lumo_gateway_http_finalize (GObject *object)
{
  LumoGatewayHttp *self = LUMO_GATEWAY_HTTP (object);

  g_clear_pointer (&self->bindings, g_hash_table_unref);
  g_clear_pointer (&self->streams, g_hash_table_unref);

  G_OBJECT_CLASS (lumo_gateway_http_parent_class)->finalize (object);
}

static void
lumo_gateway_http_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  LumoGatewayHttp *self = LUMO_GATEWAY_HTTP (object);

  switch (prop_id)
    {
    case PROP_STATE:
      g_value_set_enum (value, lumo_gateway_listener_get_state (self->listener));
      break;

    case PROP_PORT:
      g_value_set_uint (value, lumo_gateway_listener_get_port (self->listener));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
lumo_gateway_http_class_init (LumoGatewayHttpClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = lumo_gateway_http_dispose;
  object_class->finalize = lumo_gateway_http_finalize;
  object_class->get_property = lumo_gateway_http_get_property;

  properties[PROP_STATE] =
    g_param_spec_enum ("state", NULL, NULL,
                       LUMO_TYPE_GATEWAY_LISTENER_STATE, LUMO_GATEWAY_LISTENER_OFF,
                       (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  properties[PROP_PORT] =
    g_param_spec_uint ("port", NULL, NULL,
                       0, G_MAXUINT16, 0,
                       (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
lumo_gateway_http_init (LumoGatewayHttp *self)
{
  self->session_idle_ms = LUMO_GATEWAY_HTTP_SESSION_IDLE_S * 1000;
  self->stall_timeout_ms = LUMO_GATEWAY_HTTP_STALL_TIMEOUT_S * 1000;
  self->keepalive_ms = LUMO_GATEWAY_HTTP_KEEPALIVE_S * 1000;
  _lumo_gateway_http_streams_init (self);
}

LumoGatewayHttp *
lumo_gateway_http_new (LumoGateway *gateway)
{
  LumoGatewayHttp *self;
  SoupServer *server;

  g_return_val_if_fail (LUMO_IS_GATEWAY (gateway), NULL);

  self = g_object_new (LUMO_TYPE_GATEWAY_HTTP, NULL);
  self->gateway = g_object_ref (gateway);
  self->listener = lumo_gateway_listener_new ();
  g_signal_connect (self->listener, "notify", G_CALLBACK (on_listener_notify_cb), self);

  server = lumo_gateway_listener_get_server (self->listener);
  soup_server_add_early_handler (server, NULL, on_early_request_cb, self, NULL);
  soup_server_add_handler (server, NULL, on_request_cb, self, NULL);

  return self;
}
