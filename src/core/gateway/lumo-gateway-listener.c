/* lumo-gateway-listener.c — sockets, connections and their bounds
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each accepted connection is handed to the SoupServer inside a thin
 * GIOStream of ours whose close tells the listener it is gone: libsoup
 * closes the stream it was given when it is done with a connection, and
 * has no public signal for it. The SoupServer's request signals say what
 * a connection does (its messages carry the remote address the listener
 * gave it): from accept or the end of an answer until the request has
 * been read, it waits, under a deadline; while an answer is written, it
 * does not.
 *
 * A connection is never closed under libsoup's feet (its sources watch
 * the descriptor): the listener shuts the socket down, libsoup sees the
 * end or a failed write at once, and closes the stream itself.
 *
 * Connections are kept between requests by the listener, not by libsoup:
 * libsoup 3.2 closes every connection after its answer unless the
 * SoupServer has a listener of its own, which this one has not. So each
 * exchange gets a stream of its own over the same socket, with input and
 * output streams whose close leaves the socket alone; when libsoup closes
 * it after a keep-alive answer, the listener hands the socket to the
 * SoupServer again, as a new connection that waits for the next request
 * under the same deadline and bounds as a new one. libsoup reads ahead
 * into a buffer of the exchange's own, so bytes a client pipelines before
 * its answer are lost with it: its next request then fails to parse (400)
 * or times out; no client we know of pipelines.
 */
#define G_LOG_DOMAIN "lumo-gateway-http"

#include "config.h"

#include <gio/gio.h>
#include <gio/gnetworking.h>

#include "lumo-gateway-listener-private.h"

typedef struct _Connection Connection;

/* ---- pass-through streams: one exchange's view of the socket ----------- */

/* libsoup wraps the input it is given in a buffering filter stream that
 * closes it when it goes; the socket's own streams cannot be closed and
 * used again, so each exchange reads and writes through these. Their
 * close does nothing: the listener owns the socket. */

#define LUMO_TYPE_PASS_INPUT (lumo_pass_input_get_type ())
G_DECLARE_FINAL_TYPE (LumoPassInput, lumo_pass_input, LUMO, PASS_INPUT, GInputStream)

struct _LumoPassInput
{
  GInputStream  parent_instance;
  GInputStream *base;   /* the socket's, pollable */
};

static void lumo_pass_input_pollable_init (GPollableInputStreamInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (LumoPassInput, lumo_pass_input, G_TYPE_INPUT_STREAM,
                               G_IMPLEMENT_INTERFACE (G_TYPE_POLLABLE_INPUT_STREAM,
                                                      lumo_pass_input_pollable_init))

static gssize
lumo_pass_input_read (GInputStream  *stream,
                      void          *buffer,
                      gsize          count,
                      GCancellable  *cancellable,
                      GError       **error)
{
  return g_input_stream_read (LUMO_PASS_INPUT (stream)->base, buffer, count, cancellable, error);
}

static gboolean
lumo_pass_input_close (GInputStream  *stream,
                       GCancellable  *cancellable,
                       GError       **error)
{
  return TRUE;
}

static gboolean
lumo_pass_input_is_readable (GPollableInputStream *stream)
{
  return g_pollable_input_stream_is_readable (G_POLLABLE_INPUT_STREAM (LUMO_PASS_INPUT (stream)->base));
}

static GSource *
lumo_pass_input_create_source (GPollableInputStream *stream,
                               GCancellable         *cancellable)
{
  GSource *base = g_pollable_input_stream_create_source (G_POLLABLE_INPUT_STREAM (LUMO_PASS_INPUT (stream)->base),
                                                         cancellable);
  GSource *source = g_pollable_source_new_full (stream, base, cancellable);

  g_source_unref (base);
  return source;
}

static gssize
lumo_pass_input_read_nonblocking (GPollableInputStream  *stream,
                                  void                  *buffer,
                                  gsize                  count,
                                  GError               **error)
{
  return g_pollable_input_stream_read_nonblocking (G_POLLABLE_INPUT_STREAM (LUMO_PASS_INPUT (stream)->base),
                                                   buffer, count, NULL, error);
}

static void
lumo_pass_input_finalize (GObject *object)
{
  g_clear_object (&LUMO_PASS_INPUT (object)->base);
  G_OBJECT_CLASS (lumo_pass_input_parent_class)->finalize (object);
}

static void
lumo_pass_input_class_init (LumoPassInputClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = lumo_pass_input_finalize;
  G_INPUT_STREAM_CLASS (klass)->read_fn = lumo_pass_input_read;
  G_INPUT_STREAM_CLASS (klass)->close_fn = lumo_pass_input_close;
}

static void
lumo_pass_input_pollable_init (GPollableInputStreamInterface *iface)
{
  iface->is_readable = lumo_pass_input_is_readable;
  iface->create_source = lumo_pass_input_create_source;
  iface->read_nonblocking = lumo_pass_input_read_nonblocking;
}

static void
lumo_pass_input_init (LumoPassInput *self)
{
}

#define LUMO_TYPE_PASS_OUTPUT (lumo_pass_output_get_type ())
G_DECLARE_FINAL_TYPE (LumoPassOutput, lumo_pass_output, LUMO, PASS_OUTPUT, GOutputStream)

struct _LumoPassOutput
{
  GOutputStream  parent_instance;
  GOutputStream *base;   /* the socket's, pollable */
};

static void lumo_pass_output_pollable_init (GPollableOutputStreamInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (LumoPassOutput, lumo_pass_output, G_TYPE_OUTPUT_STREAM,
                               G_IMPLEMENT_INTERFACE (G_TYPE_POLLABLE_OUTPUT_STREAM,
                                                      lumo_pass_output_pollable_init))

static gssize
lumo_pass_output_write (GOutputStream  *stream,
                        const void     *buffer,
                        gsize           count,
                        GCancellable   *cancellable,
                        GError        **error)
{
  return g_output_stream_write (LUMO_PASS_OUTPUT (stream)->base, buffer, count, cancellable, error);
}

static gboolean
lumo_pass_output_close (GOutputStream  *stream,
                        GCancellable   *cancellable,
                        GError        **error)
{
  return TRUE;
}

static gboolean
lumo_pass_output_is_writable (GPollableOutputStream *stream)
{
  return g_pollable_output_stream_is_writable (G_POLLABLE_OUTPUT_STREAM (LUMO_PASS_OUTPUT (stream)->base));
}

static GSource *
lumo_pass_output_create_source (GPollableOutputStream *stream,
                                GCancellable          *cancellable)
{
  GSource *base = g_pollable_output_stream_create_source (G_POLLABLE_OUTPUT_STREAM (LUMO_PASS_OUTPUT (stream)->base),
                                                          cancellable);
  GSource *source = g_pollable_source_new_full (stream, base, cancellable);

  g_source_unref (base);
  return source;
}

static gssize
lumo_pass_output_write_nonblocking (GPollableOutputStream  *stream,
                                    const void             *buffer,
                                    gsize                   count,
                                    GError                **error)
{
  return g_pollable_output_stream_write_nonblocking (G_POLLABLE_OUTPUT_STREAM (LUMO_PASS_OUTPUT (stream)->base),
                                                     buffer, count, NULL, error);
}

static void
lumo_pass_output_finalize (GObject *object)
{
  g_clear_object (&LUMO_PASS_OUTPUT (object)->base);
  G_OBJECT_CLASS (lumo_pass_output_parent_class)->finalize (object);
}

static void
lumo_pass_output_class_init (LumoPassOutputClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = lumo_pass_output_finalize;
  G_OUTPUT_STREAM_CLASS (klass)->write_fn = lumo_pass_output_write;
  G_OUTPUT_STREAM_CLASS (klass)->close_fn = lumo_pass_output_close;
}

static void
lumo_pass_output_pollable_init (GPollableOutputStreamInterface *iface)
{
  iface->is_writable = lumo_pass_output_is_writable;
  iface->create_source = lumo_pass_output_create_source;
  iface->write_nonblocking = lumo_pass_output_write_nonblocking;
}

static void
lumo_pass_output_init (LumoPassOutput *self)
{
}

/* ---- LumoListenerStream: the GIOStream handed to libsoup ---------------- */

#define LUMO_TYPE_LISTENER_STREAM (lumo_listener_stream_get_type ())
G_DECLARE_FINAL_TYPE (LumoListenerStream, lumo_listener_stream, LUMO, LISTENER_STREAM, GIOStream)

struct _LumoListenerStream
{
  GIOStream   parent_instance;

  GIOStream     *base;      /* the accepted GSocketConnection */
  GInputStream  *input;     /* this exchange's view of it */
  GOutputStream *output;
  Connection    *connection; /* NULL once the listener forgot it */
};

G_DEFINE_FINAL_TYPE (LumoListenerStream, lumo_listener_stream, G_TYPE_IO_STREAM)

static gboolean connection_closed (Connection *c);

static GInputStream *
lumo_listener_stream_get_input_stream (GIOStream *stream)
{
  return LUMO_LISTENER_STREAM (stream)->input;
}

static GOutputStream *
lumo_listener_stream_get_output_stream (GIOStream *stream)
{
  return LUMO_LISTENER_STREAM (stream)->output;
}

static gboolean
lumo_listener_stream_close_fn (GIOStream     *stream,
                               GCancellable  *cancellable,
                               GError       **error)
{
  LumoListenerStream *self = LUMO_LISTENER_STREAM (stream);
  Connection *c = g_steal_pointer (&self->connection);

  /* After a keep-alive answer the socket stays, for the next exchange. */
  if (c != NULL && !connection_closed (c))
    return TRUE;

  return g_io_stream_close (self->base, cancellable, error);
}

/* Closing a socket does not block: no thread for it. */
static void
lumo_listener_stream_close_async (GIOStream           *stream,
                                  int                  io_priority,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (stream, cancellable, callback, user_data);
  GError *error = NULL;

  g_task_set_source_tag (task, lumo_listener_stream_close_async);
  if (lumo_listener_stream_close_fn (stream, cancellable, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

static gboolean
lumo_listener_stream_close_finish (GIOStream     *stream,
                                   GAsyncResult  *result,
                                   GError       **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
lumo_listener_stream_finalize (GObject *object)
{
  LumoListenerStream *self = LUMO_LISTENER_STREAM (object);

  g_clear_object (&self->input);
  g_clear_object (&self->output);
  g_clear_object (&self->base);

  G_OBJECT_CLASS (lumo_listener_stream_parent_class)->finalize (object);
}

static void
lumo_listener_stream_class_init (LumoListenerStreamClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GIOStreamClass *stream_class = G_IO_STREAM_CLASS (klass);

  /* GIOStream's dispose closes a stream that is still open, so the
   * listener hears of every end exactly once. */
  object_class->finalize = lumo_listener_stream_finalize;
  stream_class->get_input_stream = lumo_listener_stream_get_input_stream;
  stream_class->get_output_stream = lumo_listener_stream_get_output_stream;
  stream_class->close_fn = lumo_listener_stream_close_fn;
  stream_class->close_async = lumo_listener_stream_close_async;
  stream_class->close_finish = lumo_listener_stream_close_finish;
}

static void
lumo_listener_stream_init (LumoListenerStream *self)
{
}

/* ---- the listener ------------------------------------------------------- */

struct _Connection
{
  LumoGatewayListener *listener;     /* unowned: it outlives every entry */
  LumoListenerStream  *stream;       /* unowned: alive until it closes, which frees us */
  GSocketConnection   *socket_conn;
  char                *key;          /* the remote address, "ip:port" */
  gint64               waiting_since; /* monotonic µs; 0 while an answer is written */
  GSource             *timeout;
  GSource             *again;        /* hands the socket to libsoup again */
  gboolean             read;         /* the request in progress was read whole */
  gboolean             keep;         /* the last answer was keep-alive */
  gboolean             cut;
};

struct _LumoGatewayListener
{
  GObject                   parent_instance;

  SoupServer               *server;
  GSocketService           *service;
  GHashTable               *connections;   /* key → Connection (owned) */
  LumoGatewayListenerState  state;
  guint                     port;

  guint                     max_connections;
  guint                     request_timeout_ms;
  guint                     n_accepted;
};

G_DEFINE_FINAL_TYPE (LumoGatewayListener, lumo_gateway_listener, G_TYPE_OBJECT)

G_DEFINE_ENUM_TYPE (LumoGatewayListenerState, lumo_gateway_listener_state,
                    G_DEFINE_ENUM_VALUE (LUMO_GATEWAY_LISTENER_OFF, "off"),
                    G_DEFINE_ENUM_VALUE (LUMO_GATEWAY_LISTENER_LISTENING, "listening"),
                    G_DEFINE_ENUM_VALUE (LUMO_GATEWAY_LISTENER_PORT_IN_USE, "port-in-use"),
                    G_DEFINE_ENUM_VALUE (LUMO_GATEWAY_LISTENER_FAILED, "failed"))

enum {
  PROP_0,
  PROP_STATE,
  PROP_PORT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static char *
address_key (GSocketAddress *address)
{
  g_autofree char *ip = NULL;

  if (!G_IS_INET_SOCKET_ADDRESS (address))
    return NULL;

  ip = g_inet_address_to_string (g_inet_socket_address_get_address (G_INET_SOCKET_ADDRESS (address)));
  return g_strdup_printf ("%s:%u", ip, g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (address)));
}

static void
connection_stop_timer (Connection *c)
{
  if (c->timeout != NULL)
    {
      g_source_destroy (c->timeout);
      g_clear_pointer (&c->timeout, g_source_unref);
    }
}

static void
connection_free (Connection *c)
{
  connection_stop_timer (c);
  if (c->again != NULL)
    {
      g_source_destroy (c->again);
      g_clear_pointer (&c->again, g_source_unref);
    }
  g_clear_object (&c->socket_conn);
  g_free (c->key);
  g_free (c);
}

/* Shuts the socket down both ways: a read libsoup waits on sees the end,
 * a write it waits to make fails, and it closes the stream (and so tells
 * us) from the main loop. */
static void
connection_cut (Connection *c,
                const char *why)
{
  g_autoptr(GError) error = NULL;

  if (c->cut)
    return;

  g_debug ("Closing the connection from %s: %s", c->key, why);
  c->cut = TRUE;
  connection_stop_timer (c);
  if (!g_socket_shutdown (g_socket_connection_get_socket (c->socket_conn), TRUE, TRUE, &error))
    g_debug ("Cannot shut the connection from %s down: %s", c->key, error->message);
}

static void connection_accept (Connection *c);

static gboolean
on_connection_again_cb (gpointer user_data)
{
  Connection *c = user_data;

  g_clear_pointer (&c->again, g_source_unref);
  connection_accept (c);
  return G_SOURCE_REMOVE;
}

/* libsoup is done with an exchange. After a keep-alive answer on a socket
 * that is still whole, the connection stays and the socket goes to libsoup
 * again from the main loop (not from inside its disconnect); returns
 * whether the connection is gone. */
static gboolean
connection_closed (Connection *c)
{
  LumoGatewayListener *self = c->listener;

  if (c->keep && !c->cut && !g_socket_is_closed (g_socket_connection_get_socket (c->socket_conn)))
    {
      c->keep = FALSE;
      c->stream = NULL;
      c->again = g_idle_source_new ();
      g_source_set_priority (c->again, G_PRIORITY_DEFAULT);
      g_source_set_callback (c->again, on_connection_again_cb, c, NULL);
      g_source_attach (c->again, NULL);
      return FALSE;
    }

  g_debug ("Connection from %s closed", c->key);
  g_hash_table_remove (self->connections, c->key);
  return TRUE;
}

static gboolean
on_request_timeout_cb (gpointer user_data)
{
  Connection *c = user_data;

  g_clear_pointer (&c->timeout, g_source_unref);
  connection_cut (c, "no whole request in time");
  return G_SOURCE_REMOVE;
}

static void
connection_wait (Connection *c)
{
  if (c->cut)
    return;

  connection_stop_timer (c);
  c->waiting_since = g_get_monotonic_time ();
  c->timeout = g_timeout_source_new (c->listener->request_timeout_ms);
  g_source_set_callback (c->timeout, on_request_timeout_cb, c, NULL);
  g_source_attach (c->timeout, NULL);
}

static void
connection_respond (Connection *c)
{
  connection_stop_timer (c);
  c->waiting_since = 0;
}

static Connection *
lookup_message (LumoGatewayListener *self,
                SoupServerMessage   *msg)
{
  g_autofree char *key = address_key (soup_server_message_get_remote_address (msg));

  return key != NULL ? g_hash_table_lookup (self->connections, key) : NULL;
}

/* Runs after libsoup's own got-headers, and so after the early handlers.
 * An answer they gave on the headers alone is the connection's last, and
 * says so: libsoup would otherwise hold the exchange open to read a body
 * nobody wants, and a client that pooled the connection would send its
 * next request into it. */
static void
on_message_got_headers_cb (SoupServerMessage *msg,
                           gpointer           user_data)
{
  if (soup_server_message_get_status (msg) != 0)
    soup_message_headers_replace (soup_server_message_get_response_headers (msg), "Connection", "close");
}

static void
on_server_request_started_cb (SoupServer          *server,
                              SoupServerMessage   *msg,
                              LumoGatewayListener *self)
{
  g_signal_connect (msg, "got-headers", G_CALLBACK (on_message_got_headers_cb), NULL);
}

static void
on_server_request_read_cb (SoupServer          *server,
                           SoupServerMessage   *msg,
                           LumoGatewayListener *self)
{
  Connection *c = lookup_message (self, msg);

  if (c != NULL)
    {
      c->read = TRUE;
      connection_respond (c);
    }
}

/* HTTP/1.1 and "Connection: close" neither way (libsoup's own test is
 * private). An HTTP/1.0 client gets one answer per connection. */
static gboolean
message_is_keepalive (SoupServerMessage *msg)
{
  return soup_server_message_get_http_version (msg) == SOUP_HTTP_1_1 &&
         !soup_message_headers_header_contains (soup_server_message_get_request_headers (msg), "Connection", "close") &&
         !soup_message_headers_header_contains (soup_server_message_get_response_headers (msg), "Connection", "close");
}

static void
on_server_request_done_cb (SoupServer          *server,
                           SoupServerMessage   *msg,
                           LumoGatewayListener *self)
{
  Connection *c = lookup_message (self, msg);

  /* A connection that outlives its answer waits for its next request
   * under a new deadline, and gives way first when the endpoint is full.
   * libsoup closes the exchange right after this signal; a keep-alive
   * one (HTTP/1.1, no "Connection: close" either way) keeps its socket. */
  if (c != NULL)
    {
      /* An answer given before the body was read (413, an early 403)
       * leaves the rest of the body on the socket: not kept. */
      c->keep = c->read && message_is_keepalive (msg);
      c->read = FALSE;
      connection_wait (c);
    }
}

static void
on_server_request_aborted_cb (SoupServer          *server,
                              SoupServerMessage   *msg,
                              LumoGatewayListener *self)
{
  Connection *c = lookup_message (self, msg);

  if (c != NULL)
    {
      c->keep = c->read = FALSE;
      connection_wait (c);
    }
}

static guint
count_open (LumoGatewayListener *self)
{
  GHashTableIter iter;
  Connection *c;
  guint n = 0;

  g_hash_table_iter_init (&iter, self->connections);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &c))
    if (!c->cut)
      n++;

  return n;
}

/* The connection that has waited longest for a request, if any waits. */
static Connection *
find_longest_waiting (LumoGatewayListener *self)
{
  GHashTableIter iter;
  Connection *c;
  Connection *oldest = NULL;

  g_hash_table_iter_init (&iter, self->connections);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &c))
    if (!c->cut && c->waiting_since > 0 &&
        (oldest == NULL || c->waiting_since < oldest->waiting_since))
      oldest = c;

  return oldest;
}

/* Hands the connection's socket to the SoupServer for its next exchange. */
static void
connection_accept (Connection *c)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GSocketAddress) local = NULL;
  g_autoptr(GSocketAddress) remote = NULL;
  g_autoptr(LumoListenerStream) stream = NULL;
  LumoPassInput *input;
  LumoPassOutput *output;

  if (!(local = g_socket_connection_get_local_address (c->socket_conn, &error)) ||
      !(remote = g_socket_connection_get_remote_address (c->socket_conn, &error)))
    {
      g_debug ("The connection from %s is gone: %s", c->key, error->message);
      g_io_stream_close (G_IO_STREAM (c->socket_conn), NULL, NULL);
      g_hash_table_remove (c->listener->connections, c->key);
      return;
    }

  input = g_object_new (LUMO_TYPE_PASS_INPUT, NULL);
  input->base = g_object_ref (g_io_stream_get_input_stream (G_IO_STREAM (c->socket_conn)));
  output = g_object_new (LUMO_TYPE_PASS_OUTPUT, NULL);
  output->base = g_object_ref (g_io_stream_get_output_stream (G_IO_STREAM (c->socket_conn)));

  stream = g_object_new (LUMO_TYPE_LISTENER_STREAM, NULL);
  stream->base = G_IO_STREAM (g_object_ref (c->socket_conn));
  stream->input = G_INPUT_STREAM (input);
  stream->output = G_OUTPUT_STREAM (output);
  stream->connection = c;
  c->stream = stream;

  if (!soup_server_accept_iostream (c->listener->server, G_IO_STREAM (stream), local, remote, &error))
    {
      g_debug ("The server refused a connection from %s: %s", c->key, error->message);
      g_io_stream_close (G_IO_STREAM (stream), NULL, NULL);
    }
}

static gboolean
on_service_incoming_cb (GSocketService      *service,
                        GSocketConnection   *socket_conn,
                        GObject             *source_object,
                        LumoGatewayListener *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GSocketAddress) local = NULL;
  g_autoptr(GSocketAddress) remote = NULL;
  g_autofree char *key = NULL;
  Connection *c;

  self->n_accepted++;

  if (!(local = g_socket_connection_get_local_address (socket_conn, &error)) ||
      !(remote = g_socket_connection_get_remote_address (socket_conn, &error)) ||
      !(key = address_key (remote)) ||
      g_hash_table_contains (self->connections, key))
    {
      g_debug ("Refusing a connection: %s", error != NULL ? error->message : "no usable address");
      g_io_stream_close (G_IO_STREAM (socket_conn), NULL, NULL);
      return TRUE;
    }

  if (count_open (self) >= self->max_connections)
    {
      Connection *oldest = find_longest_waiting (self);

      if (oldest == NULL)
        {
          /* Every connection is writing an answer: the new one waits for
           * none of them, and holds nothing. */
          g_debug ("Refusing a connection from %s: %u connections are busy",
                   key, self->max_connections);
          g_io_stream_close (G_IO_STREAM (socket_conn), NULL, NULL);
          return TRUE;
        }
      connection_cut (oldest, "the endpoint is full and it waited longest");
    }

  /* As libsoup does with a connection its own listener accepts: an
   * answer's headers and its body are two writes, and Nagle would hold
   * the body until the client acknowledged the headers. */
  if (!g_socket_set_option (g_socket_connection_get_socket (socket_conn), IPPROTO_TCP, TCP_NODELAY, TRUE, &error))
    {
      g_debug ("Cannot turn Nagle off for the connection from %s: %s", key, error->message);
      g_clear_error (&error);
    }

  c = g_new0 (Connection, 1);
  c->listener = self;
  c->socket_conn = g_object_ref (socket_conn);
  c->key = g_steal_pointer (&key);
  g_hash_table_insert (self->connections, c->key, c);
  connection_wait (c);
  connection_accept (c);

  return TRUE;
}

static void
set_state (LumoGatewayListener      *self,
           LumoGatewayListenerState  state,
           guint                     port)
{
  if (self->port != port)
    {
      self->port = port;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PORT]);
    }
  if (self->state != state)
    {
      self->state = state;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATE]);
    }
}

static void
close_service (LumoGatewayListener *self)
{
  if (self->service == NULL)
    return;

  g_signal_handlers_disconnect_by_data (self->service, self);
  g_socket_service_stop (self->service);
  g_socket_listener_close (G_SOCKET_LISTENER (self->service));
  g_clear_object (&self->service);
}

static void
cut_all (LumoGatewayListener *self,
         const char          *why)
{
  GHashTableIter iter;
  Connection *c;

  g_hash_table_iter_init (&iter, self->connections);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &c))
    connection_cut (c, why);
}

static gboolean
add_loopback (GSocketListener  *listener,
              GSocketFamily     family,
              guint             port,
              guint            *effective_port,
              GError          **error)
{
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (family);
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new (loopback, port);
  g_autoptr(GSocketAddress) effective = NULL;

  if (!g_socket_listener_add_address (listener, address, G_SOCKET_TYPE_STREAM,
                                      G_SOCKET_PROTOCOL_TCP, NULL, &effective, error))
    return FALSE;

  if (effective_port != NULL)
    *effective_port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (effective));
  return TRUE;
}

/* One try: 127.0.0.1, then ::1 on the same port. */
static GSocketService *
try_listen (guint    port,
            guint   *effective_port,
            GError **error)
{
  g_autoptr(GSocketService) service = g_socket_service_new ();
  g_autoptr(GError) v6_error = NULL;

  /* A new service accepts at once, and restarts its accept for each
   * address added; a connection the cancelled accept took is dropped.
   * Stopped until every address is in, it starts accepting once. */
  g_socket_service_stop (service);

  /* The kernel holds this many connections the main loop has not
   * accepted yet; a burst beyond it waits in the client's SYN retries. */
  g_socket_listener_set_backlog (G_SOCKET_LISTENER (service), 128);

  if (!add_loopback (G_SOCKET_LISTENER (service), G_SOCKET_FAMILY_IPV4, port, effective_port, error))
    return NULL;

  if (!add_loopback (G_SOCKET_LISTENER (service), G_SOCKET_FAMILY_IPV6, *effective_port, NULL, &v6_error))
    {
      /* A machine without IPv6 resolves localhost to 127.0.0.1 only. A
       * port another program holds on ::1 is a port in use: a client
       * that tries ::1 first would reach that program. */
      if (!g_error_matches (v6_error, G_IO_ERROR, G_IO_ERROR_ADDRESS_IN_USE))
        g_debug ("Not listening on [::1]: %s", v6_error->message);
      else
        {
          g_propagate_error (error, g_steal_pointer (&v6_error));
          return NULL;
        }
    }

  return g_steal_pointer (&service);
}

gboolean
lumo_gateway_listener_start (LumoGatewayListener  *self,
                             guint                 port,
                             GError              **error)
{
  g_autoptr(GError) local_error = NULL;
  GSocketService *service = NULL;
  guint effective_port = port;

  g_return_val_if_fail (LUMO_IS_GATEWAY_LISTENER (self), FALSE);
  g_return_val_if_fail (port <= G_MAXUINT16, FALSE);

  lumo_gateway_listener_stop (self);

  /* With port 0 the kernel picks one for 127.0.0.1, which may be taken
   * on ::1: pick again. */
  for (guint attempt = 0; attempt < (port == 0 ? 8 : 1); attempt++)
    {
      g_clear_error (&local_error);
      effective_port = port;
      if ((service = try_listen (port, &effective_port, &local_error)) != NULL)
        break;
    }

  if (service == NULL)
    {
      g_debug ("Cannot listen on port %u: %s", port, local_error->message);
      set_state (self,
                 g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_ADDRESS_IN_USE)
                   ? LUMO_GATEWAY_LISTENER_PORT_IN_USE : LUMO_GATEWAY_LISTENER_FAILED,
                 port);
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }

  self->service = service;
  g_signal_connect (self->service, "incoming", G_CALLBACK (on_service_incoming_cb), self);
  g_socket_service_start (self->service);
  set_state (self, LUMO_GATEWAY_LISTENER_LISTENING, effective_port);
  g_debug ("Listening on 127.0.0.1:%u and [::1]:%u", effective_port, effective_port);

  return TRUE;
}

void
lumo_gateway_listener_stop (LumoGatewayListener *self)
{
  g_return_if_fail (LUMO_IS_GATEWAY_LISTENER (self));

  close_service (self);
  cut_all (self, "the endpoint stopped");
  set_state (self, LUMO_GATEWAY_LISTENER_OFF, 0);
}

LumoGatewayListenerState
lumo_gateway_listener_get_state (LumoGatewayListener *self)
{
  g_return_val_if_fail (LUMO_IS_GATEWAY_LISTENER (self), LUMO_GATEWAY_LISTENER_OFF);

  return self->state;
}

guint
lumo_gateway_listener_get_port (LumoGatewayListener *self)
{
  g_return_val_if_fail (LUMO_IS_GATEWAY_LISTENER (self), 0);

  return self->port;
}

guint
lumo_gateway_listener_get_n_connections (LumoGatewayListener *self)
{
  g_return_val_if_fail (LUMO_IS_GATEWAY_LISTENER (self), 0);

  return g_hash_table_size (self->connections);
}

SoupServer *
lumo_gateway_listener_get_server (LumoGatewayListener *self)
{
  g_return_val_if_fail (LUMO_IS_GATEWAY_LISTENER (self), NULL);

  return self->server;
}

void
lumo_gateway_listener_cut (LumoGatewayListener *self,
                           SoupServerMessage   *msg)
{
  Connection *c;

  g_return_if_fail (LUMO_IS_GATEWAY_LISTENER (self));
  g_return_if_fail (SOUP_IS_SERVER_MESSAGE (msg));

  if ((c = lookup_message (self, msg)) != NULL)
    connection_cut (c, "it does not read what it is sent");
}

void
_lumo_gateway_listener_set_limits (LumoGatewayListener *self,
                                   guint                max_connections,
                                   guint                request_timeout_ms)
{
  g_return_if_fail (LUMO_IS_GATEWAY_LISTENER (self));
  g_return_if_fail (max_connections > 0 && request_timeout_ms > 0);

  self->max_connections = max_connections;
  self->request_timeout_ms = request_timeout_ms;
}

guint
_lumo_gateway_listener_get_n_accepted (LumoGatewayListener *self)
{
  g_return_val_if_fail (LUMO_IS_GATEWAY_LISTENER (self), 0);

  return self->n_accepted;
}

/* The open connections @holds says yes to (the tests' view of them). */
static guint
count_connections (LumoGatewayListener *self,
                   gboolean           (*holds) (Connection *c))
{
  GHashTableIter iter;
  Connection *c;
  guint n = 0;

  g_hash_table_iter_init (&iter, self->connections);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &c))
    if (holds (c))
      n++;

  return n;
}

static gboolean
has_nodelay (Connection *c)
{
  gint value = 0;

  return g_socket_get_option (g_socket_connection_get_socket (c->socket_conn), IPPROTO_TCP, TCP_NODELAY,
                              &value, NULL) && value != 0;
}

static gboolean
has_timer (Connection *c)
{
  return c->timeout != NULL;
}

guint
_lumo_gateway_listener_get_n_nodelay (LumoGatewayListener *self)
{
  g_return_val_if_fail (LUMO_IS_GATEWAY_LISTENER (self), 0);

  return count_connections (self, has_nodelay);
}

guint
_lumo_gateway_listener_get_n_timers (LumoGatewayListener *self)
{
  g_return_val_if_fail (LUMO_IS_GATEWAY_LISTENER (self), 0);

  return count_connections (self, has_timer);
}

static void
lumo_gateway_listener_dispose (GObject *object)
{
  LumoGatewayListener *self = LUMO_GATEWAY_LISTENER (object);

  close_service (self);

  if (self->server != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->server, self);
      /* libsoup closes every stream it holds: each tells us, and goes. */
      soup_server_disconnect (self->server);
    }

  if (self->connections != NULL)
    {
      GHashTableIter iter;
      Connection *c;

      /* Streams libsoup still holds for a message in flight outlive us:
       * cut them, and let their close find nobody to tell. */
      g_hash_table_iter_init (&iter, self->connections);
      while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &c))
        {
          connection_cut (c, "the endpoint is going away");
          if (c->stream != NULL)
            c->stream->connection = NULL;
        }
      g_hash_table_remove_all (self->connections);
    }

  g_clear_object (&self->server);

  G_OBJECT_CLASS (lumo_gateway_listener_parent_class)->dispose (object);
}

static void
lumo_gateway_listener_finalize (GObject *object)
{
  LumoGatewayListener *self = LUMO_GATEWAY_LISTENER (object);

  g_clear_pointer (&self->connections, g_hash_table_unref);

  G_OBJECT_CLASS (lumo_gateway_listener_parent_class)->finalize (object);
}

static void
lumo_gateway_listener_get_property (GObject    *object,
                                    guint       prop_id,
                                    GValue     *value,
                                    GParamSpec *pspec)
{
  LumoGatewayListener *self = LUMO_GATEWAY_LISTENER (object);

  switch (prop_id)
    {
    case PROP_STATE:
      g_value_set_enum (value, self->state);
      break;

    case PROP_PORT:
      g_value_set_uint (value, self->port);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
lumo_gateway_listener_class_init (LumoGatewayListenerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = lumo_gateway_listener_dispose;
  object_class->finalize = lumo_gateway_listener_finalize;
  object_class->get_property = lumo_gateway_listener_get_property;

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
lumo_gateway_listener_init (LumoGatewayListener *self)
{
  self->max_connections = LUMO_GATEWAY_LISTENER_MAX_CONNECTIONS;
  self->request_timeout_ms = LUMO_GATEWAY_LISTENER_REQUEST_TIMEOUT_S * 1000;
  self->connections = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                             (GDestroyNotify) connection_free);
  self->server = soup_server_new (NULL, NULL);

  g_signal_connect (self->server, "request-started", G_CALLBACK (on_server_request_started_cb), self);
  g_signal_connect (self->server, "request-read", G_CALLBACK (on_server_request_read_cb), self);
  g_signal_connect (self->server, "request-finished", G_CALLBACK (on_server_request_done_cb), self);
  g_signal_connect (self->server, "request-aborted", G_CALLBACK (on_server_request_aborted_cb), self);
}

LumoGatewayListener *
lumo_gateway_listener_new (void)
{
  return g_object_new (LUMO_TYPE_GATEWAY_LISTENER, NULL);
}
