/* lumo-gateway-http-stream.c — the HTTP side of each session: SSE streams
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A session the endpoint opened has a binding here. Everything the
 * session sends (::message) goes to one of its SSE streams: to the POST
 * stream that waits for the request it belongs to, or to the standalone
 * GET stream when it belongs to none (notifications/tools/list_changed).
 * A POST stream ends with the last answer it waits for. A POST of one
 * request holds its headers: if its answer comes first, it goes as one
 * application/json object with a Content-Length (one write, nothing to
 * close in a thread, the client not woken before there is something to
 * read); anything else first, or the first keep-alive, makes it a stream. A response whose
 * POST is gone (the client disconnected) is dropped: MCP never puts an
 * answer on the standalone stream.
 *
 * Streams are chunked responses whose chunks libsoup frees once written
 * (the body does not accumulate). What is appended and not yet written
 * is counted, and the session hears the sum over its streams
 * (lumo_agent_session_note_unsent()): past its bound it ends. A stream
 * whose client takes nothing of what waits for it for
 * LUMO_GATEWAY_HTTP_STALL_TIMEOUT_S is cut off with its connection, so a
 * client that never reads holds neither memory nor a connection for long
 * (the deadline runs only while bytes wait). An open stream gets an SSE
 * comment every LUMO_GATEWAY_HTTP_KEEPALIVE_S: a client that went away
 * without a word is found (the write fails) and its stream ends, instead
 * of holding its session busy for ever. A binding with no stream open has
 * an idle deadline; past it the session ends.
 */
#define G_LOG_DOMAIN "lumo-gateway-http"

#include "config.h"

#include <string.h>

#include "lumo-canonical-json.h"
#include "lumo-gateway-http-private.h"
#include "lumo-mcp.h"

typedef struct _HttpStream HttpStream;

struct _HttpBinding
{
  LumoGatewayHttp  *http;         /* unowned: it owns us */
  LumoAgentSession *session;
  char             *session_id;
  char             *agent_id;
  HttpStream       *standalone;   /* the GET stream, or NULL */
  GPtrArray        *posts;        /* HttpStream waiting for answers (unowned) */
  GSource          *idle;         /* armed while no stream is open */
  gint64            last_active;  /* monotonic µs of the last request or stream end */
  gulong            message_id;
  gulong            closed_id;
};

struct _HttpStream
{
  LumoGatewayHttp   *http;        /* unowned: http->streams owns us */
  HttpBinding       *binding;     /* NULL once the session no longer writes here */
  SoupServerMessage *msg;
  GHashTable        *pending;     /* id keys of the requests answered here; NULL: GET */
  gsize              unread;      /* appended, not yet written */
  GSource           *stall;       /* armed while bytes wait and none get written */
  GSource           *keepalive;   /* while the stream is open */
  gboolean           held;        /* headers not written yet: the answer may come as JSON */
  gboolean           ended;
  gulong             wrote_id;
  gulong             finished_id;
};

static void binding_arm_idle    (HttpBinding *b);
static void binding_note_unsent (HttpBinding *b);

/* ---- streams ------------------------------------------------------------ */

static void
stream_disarm (HttpStream *s)
{
  if (s->stall != NULL)
    {
      g_source_destroy (s->stall);
      g_clear_pointer (&s->stall, g_source_unref);
    }
}

static void
stream_stop_keepalive (HttpStream *s)
{
  if (s->keepalive != NULL)
    {
      g_source_destroy (s->keepalive);
      g_clear_pointer (&s->keepalive, g_source_unref);
    }
}

static void
stream_free (HttpStream *s)
{
  stream_disarm (s);
  stream_stop_keepalive (s);
  g_clear_signal_handler (&s->wrote_id, s->msg);
  g_clear_signal_handler (&s->finished_id, s->msg);
  g_clear_object (&s->msg);
  g_clear_pointer (&s->pending, g_hash_table_unref);
  g_free (s);
}

static void
binding_forget_stream (HttpBinding *b,
                       HttpStream  *s)
{
  if (b->standalone == s)
    b->standalone = NULL;
  else
    g_ptr_array_remove_fast (b->posts, s);
  s->binding = NULL;

  b->last_active = g_get_monotonic_time ();
  binding_arm_idle (b);
}

/* The answer is an SSE stream from here on: its headers go out as soon
 * as the message is unpaused. */
static void
stream_open_sse (HttpStream *s)
{
  SoupMessageHeaders *headers = soup_server_message_get_response_headers (s->msg);

  s->held = FALSE;
  soup_server_message_set_status (s->msg, SOUP_STATUS_OK, NULL);
  soup_message_headers_set_content_type (headers, "text/event-stream", NULL);
  soup_message_headers_replace (headers, "Cache-Control", "no-cache");
  soup_message_headers_set_encoding (headers, SOUP_ENCODING_CHUNKED);
}

/* No more bytes: the last chunk goes out, and libsoup finishes the
 * message (keeping the connection for the next request). What still
 * waits is written first; the stall deadline still guards it. */
static void
stream_end (HttpStream *s)
{
  HttpBinding *b = s->binding;

  if (b != NULL)
    binding_forget_stream (b, s);

  if (s->ended)
    return;

  s->ended = TRUE;
  stream_stop_keepalive (s);
  /* Ended before its answer came (the session closed): an empty stream,
   * as when the headers went out at once. */
  if (s->held)
    stream_open_sse (s);
  soup_message_body_complete (soup_server_message_get_response_body (s->msg));
  soup_server_message_unpause (s->msg);
  if (b != NULL)
    binding_note_unsent (b);
}

static gboolean
on_stream_stalled_cb (gpointer user_data)
{
  HttpStream *s = user_data;

  g_clear_pointer (&s->stall, g_source_unref);
  g_debug ("Cutting off an SSE stream whose client read nothing of %" G_GSIZE_FORMAT " bytes",
           s->unread);
  lumo_gateway_listener_cut (s->http->listener, s->msg);
  stream_end (s);
  return G_SOURCE_REMOVE;
}

/* A new deadline whenever bytes wait and the client took some (or none
 * waited before). */
static void
stream_rearm (HttpStream *s)
{
  stream_disarm (s);
  if (s->unread == 0)
    return;

  s->stall = g_timeout_source_new (s->http->stall_timeout_ms);
  g_source_set_callback (s->stall, on_stream_stalled_cb, s, NULL);
  g_source_attach (s->stall, NULL);
}

static void
on_stream_wrote_body_data_cb (SoupServerMessage *msg,
                              guint              size,
                              HttpStream        *s)
{
  s->unread -= MIN ((gsize) size, s->unread);
  stream_rearm (s);
  if (s->binding != NULL)
    binding_note_unsent (s->binding);
}

/* libsoup is done with the message: written whole, or the client went. */
static void
on_stream_finished_cb (SoupServerMessage *msg,
                       HttpStream        *s)
{
  if (s->binding != NULL)
    binding_forget_stream (s->binding, s);
  s->ended = TRUE;
  g_hash_table_remove (s->http->streams, s);
}

/* Takes @chunk (@len bytes). */
static void
stream_append (HttpStream *s,
               char       *chunk,
               gsize       len)
{
  soup_message_body_append_take (soup_server_message_get_response_body (s->msg),
                                 (guchar *) chunk, len);
  s->unread += len;
  if (s->stall == NULL)
    stream_rearm (s);
  soup_server_message_unpause (s->msg);
  /* May end the session, and so this stream. */
  if (s->binding != NULL)
    binding_note_unsent (s->binding);
}

static gboolean
on_stream_keepalive_cb (gpointer user_data)
{
  HttpStream *s = user_data;
  static const char comment[] = ": keepalive\n\n";

  /* An answer held back this long goes as a stream: the comment finds
   * out a client that is gone. */
  if (s->held)
    stream_open_sse (s);
  stream_append (s, g_strdup (comment), strlen (comment));
  return G_SOURCE_CONTINUE;
}

/* The answer to the one request of a POST whose headers were held: one
 * JSON object with a Content-Length, the whole answer in one write. */
static void
stream_respond_json (HttpStream *s,
                     char       *json)
{
  SoupMessageHeaders *headers = soup_server_message_get_response_headers (s->msg);
  gsize len = strlen (json);

  s->held = FALSE;
  soup_server_message_set_status (s->msg, SOUP_STATUS_OK, NULL);
  soup_message_headers_set_content_type (headers, "application/json", NULL);
  soup_message_headers_set_content_length (headers, len);
  stream_append (s, json, len);
}

/* @is_answer: @message is the answer to the one request @s waits for. */
static void
stream_send (HttpStream *s,
             JsonObject *message,
             gboolean    is_answer)
{
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), message);
  g_autoptr(GError) error = NULL;
  g_autofree char *json = NULL;
  char *event;
  gsize len;

  if (s->ended)
    return;

  /* Canonical JSON has no raw newline, so one data line holds it. */
  if (!(json = lumo_canonical_json (node, &error)))
    {
      g_debug ("Cannot write a message of the session: %s", error->message);
      return;
    }

  if (s->held && is_answer)
    {
      stream_respond_json (s, g_steal_pointer (&json));
      return;
    }
  /* Something else comes first (a notification, a request of the
   * server): the answer will follow it on a stream. */
  if (s->held)
    stream_open_sse (s);

  event = g_strconcat ("event: message\ndata: ", json, "\n\n", NULL);
  len = strlen (event);
  stream_append (s, event, len);
}

static HttpStream *
find_post_stream (HttpBinding *b,
                  const char  *key)
{
  for (guint i = 0; i < b->posts->len; i++)
    {
      HttpStream *s = g_ptr_array_index (b->posts, i);

      if (g_hash_table_contains (s->pending, key))
        return s;
    }

  return NULL;
}

/* ---- bindings ----------------------------------------------------------- */

static gboolean
on_binding_idle_cb (gpointer user_data)
{
  HttpBinding *b = user_data;

  g_clear_pointer (&b->idle, g_source_unref);
  g_debug ("Ending the idle HTTP session %s of %s", b->session_id, b->agent_id);
  /* ::closed frees the binding. */
  lumo_agent_session_close (b->session, "The session was idle too long; start a new one.");
  return G_SOURCE_REMOVE;
}

static void
binding_disarm_idle (HttpBinding *b)
{
  if (b->idle != NULL)
    {
      g_source_destroy (b->idle);
      g_clear_pointer (&b->idle, g_source_unref);
    }
}

/* A deadline only while nothing is open: an SSE stream is a client that
 * is there. */
static void
binding_arm_idle (HttpBinding *b)
{
  binding_disarm_idle (b);
  if (b->standalone != NULL || b->posts->len > 0 || b->session == NULL)
    return;

  b->idle = g_timeout_source_new (b->http->session_idle_ms);
  g_source_set_callback (b->idle, on_binding_idle_cb, b, NULL);
  g_source_attach (b->idle, NULL);
}

/* What every stream of the session holds unread, for the session's bound. */
static void
binding_note_unsent (HttpBinding *b)
{
  gsize unsent = b->standalone != NULL ? b->standalone->unread : 0;

  if (b->session == NULL)
    return;

  for (guint i = 0; i < b->posts->len; i++)
    unsent += ((HttpStream *) g_ptr_array_index (b->posts, i))->unread;
  lumo_agent_session_note_unsent (b->session, unsent);
}

static void
on_session_message_cb (LumoAgentSession *session,
                       JsonObject       *message,
                       JsonNode         *related,
                       HttpBinding      *b)
{
  g_autofree char *key = related != NULL ? lumo_mcp_id_key (related) : NULL;
  gboolean is_response = lumo_mcp_classify (message, NULL) == LUMO_MCP_RESPONSE;
  HttpStream *s = key != NULL ? find_post_stream (b, key) : NULL;

  if (s == NULL)
    {
      if (is_response)
        {
          g_debug ("Dropping the answer to a request whose POST has gone");
          return;
        }
      if ((s = b->standalone) == NULL)
        {
          g_debug ("Dropping a message for the standalone stream: none is open");
          return;
        }
    }

  stream_send (s, message, is_response && s->pending != NULL && g_hash_table_size (s->pending) == 1 &&
                           g_hash_table_contains (s->pending, key));

  /* The session may have ended over the bound, and the stream with it. */
  if (is_response && !s->ended && s->pending != NULL && g_hash_table_remove (s->pending, key) &&
      g_hash_table_size (s->pending) == 0)
    stream_end (s);
}

static void
binding_free (HttpBinding *b)
{
  /* Without its session the binding arms no deadline again. */
  g_autoptr(LumoAgentSession) session = g_steal_pointer (&b->session);

  binding_disarm_idle (b);

  /* The streams end now; each goes when libsoup finishes it. */
  if (b->standalone != NULL)
    stream_end (b->standalone);
  while (b->posts->len > 0)
    stream_end (g_ptr_array_index (b->posts, 0));

  g_clear_signal_handler (&b->message_id, session);
  g_clear_signal_handler (&b->closed_id, session);
  g_ptr_array_unref (b->posts);
  g_free (b->session_id);
  g_free (b->agent_id);
  g_free (b);
}

static void
on_session_closed_cb (LumoAgentSession *session,
                      const char       *reason,
                      HttpBinding      *b)
{
  g_debug ("HTTP session %s ended: %s", b->session_id, reason);
  g_hash_table_remove (b->http->bindings, b->session_id);
}

HttpBinding *
_lumo_gateway_http_bind (LumoGatewayHttp  *self,
                         LumoAgentSession *session)
{
  HttpBinding *b = g_new0 (HttpBinding, 1);

  b->http = self;
  b->session = g_object_ref (session);
  b->session_id = g_strdup (lumo_agent_session_get_id (session));
  b->agent_id = g_strdup (lumo_agent_session_get_agent_id (session));
  b->posts = g_ptr_array_new ();
  b->last_active = g_get_monotonic_time ();
  b->message_id = g_signal_connect (session, "message", G_CALLBACK (on_session_message_cb), b);
  b->closed_id = g_signal_connect (session, "closed", G_CALLBACK (on_session_closed_cb), b);
  g_hash_table_insert (self->bindings, b->session_id, b);
  binding_arm_idle (b);

  return b;
}

HttpBinding *
_lumo_gateway_http_lookup (LumoGatewayHttp *self,
                           const char      *session_id)
{
  return g_hash_table_lookup (self->bindings, session_id);
}

HttpBinding *
_lumo_gateway_http_find_idle (LumoGatewayHttp *self,
                              const char      *agent_id)
{
  GHashTableIter iter;
  HttpBinding *b;
  HttpBinding *oldest = NULL;

  g_hash_table_iter_init (&iter, self->bindings);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &b))
    if (g_strcmp0 (b->agent_id, agent_id) == 0 && b->standalone == NULL && b->posts->len == 0 &&
        (oldest == NULL || b->last_active < oldest->last_active))
      oldest = b;

  return oldest;
}

void
_lumo_gateway_http_unbind_all (LumoGatewayHttp *self,
                               const char      *reason)
{
  g_autoptr(GPtrArray) sessions = g_ptr_array_new_with_free_func (g_object_unref);
  GHashTableIter iter;
  HttpBinding *b;

  g_hash_table_iter_init (&iter, self->bindings);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &b))
    g_ptr_array_add (sessions, g_object_ref (b->session));

  /* Each ::closed removes its binding; one the gateway closed already
   * may not say it again. */
  for (guint i = 0; i < sessions->len; i++)
    lumo_agent_session_close (g_ptr_array_index (sessions, i), reason);
  g_hash_table_remove_all (self->bindings);
}

void
_lumo_gateway_http_drop_streams (LumoGatewayHttp *self)
{
  g_hash_table_remove_all (self->streams);
}

LumoAgentSession *
_http_binding_get_session (HttpBinding *b)
{
  return b->session;
}

void
_http_binding_touch (HttpBinding *b)
{
  b->last_active = g_get_monotonic_time ();
  binding_arm_idle (b);
}

gboolean
_http_binding_is_pending (HttpBinding *b,
                          const char  *key)
{
  return find_post_stream (b, key) != NULL;
}

gboolean
_http_binding_has_standalone (HttpBinding *b)
{
  return b->standalone != NULL;
}

void
_http_binding_open_stream (HttpBinding       *b,
                           SoupServerMessage *msg,
                           GPtrArray         *keys,
                           gboolean           may_hold)
{
  HttpStream *s = g_new0 (HttpStream, 1);

  /* Written chunks are freed: a stream that runs for hours holds only
   * what its client has not read yet. */
  soup_message_body_set_accumulate (soup_server_message_get_response_body (msg), FALSE);

  s->http = b->http;
  s->binding = b;
  s->msg = g_object_ref (msg);
  /* One request: its headers wait for what comes first. Its answer is
   * then one JSON object (MCP lets the server choose, the client accepts
   * both), which the client reads in one go with no stream to close;
   * anything else, or the first keep-alive, makes it a stream. A batch
   * is answered on a stream: its answer would be an array. */
  if (may_hold && keys != NULL && keys->len == 1)
    {
      s->held = TRUE;
      soup_server_message_pause (msg);
    }
  else
    stream_open_sse (s);
  s->wrote_id = g_signal_connect (msg, "wrote-body-data", G_CALLBACK (on_stream_wrote_body_data_cb), s);
  s->finished_id = g_signal_connect (msg, "finished", G_CALLBACK (on_stream_finished_cb), s);
  s->keepalive = g_timeout_source_new (b->http->keepalive_ms);
  g_source_set_callback (s->keepalive, on_stream_keepalive_cb, s, NULL);
  g_source_attach (s->keepalive, NULL);
  g_hash_table_add (b->http->streams, s);

  if (keys != NULL)
    {
      s->pending = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      for (guint i = 0; i < keys->len; i++)
        g_hash_table_add (s->pending, g_strdup (g_ptr_array_index (keys, i)));
      g_ptr_array_add (b->posts, s);
    }
  else
    b->standalone = s;

  b->last_active = g_get_monotonic_time ();
  binding_disarm_idle (b);

  /* A stream is not paused: libsoup writes the headers now (a client
   * waits for them to know its stream is open) and pauses by itself at
   * the empty body. */
}

void
_lumo_gateway_http_streams_init (LumoGatewayHttp *self)
{
  self->bindings = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                          (GDestroyNotify) binding_free);
  self->streams = g_hash_table_new_full (g_direct_hash, g_direct_equal,
                                         (GDestroyNotify) stream_free, NULL);
}
