/* test-gateway-listener.c — the endpoint's sockets and connection bounds
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Over real loopback sockets, with a trivial handler on the listener's
 * SoupServer: it listens on 127.0.0.1 and ::1 and nowhere else, says when
 * its port is taken, times out a connection that brings no whole request,
 * keeps a connection for a client's next request and lets it go when
 * the client does, closes it after its answer when the client asks,
 * sends without Nagle's delay,
 * keeps serving (with a bounded number of descriptors) under a flood of
 * idle connections, and lets everything go when it stops.
 */
#include "config.h"

#include <string.h>

#include "http-test-util.h"
#include "lumo-gateway-listener-private.h"
#include "lumo-test.h"

static void
on_request_cb (SoupServer        *server,
               SoupServerMessage *msg,
               const char        *path,
               GHashTable        *query,
               gpointer           user_data)
{
  soup_server_message_set_status (msg, SOUP_STATUS_OK, NULL);
  soup_server_message_set_response (msg, "text/plain", SOUP_MEMORY_STATIC, "ok", 2);
}

static LumoGatewayListener *
listener_new_started (void)
{
  g_autoptr(GError) error = NULL;
  LumoGatewayListener *listener = lumo_gateway_listener_new ();

  soup_server_add_handler (lumo_gateway_listener_get_server (listener), NULL,
                           on_request_cb, NULL, NULL);
  g_assert_true (lumo_gateway_listener_start (listener, 0, &error));
  g_assert_no_error (error);
  g_assert_cmpint (lumo_gateway_listener_get_state (listener), ==, LUMO_GATEWAY_LISTENER_LISTENING);
  g_assert_cmpuint (lumo_gateway_listener_get_port (listener), >, 0);

  return listener;
}

static char *
request_for (guint       port,
             const char *connection)
{
  return g_strdup_printf ("GET / HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nConnection: %s\r\n\r\n",
                          port, connection);
}

/* A request is answered. */
static void
assert_served (const char *address,
               guint       port)
{
  g_autofree char *request = request_for (port, "close");
  g_autoptr(HttpReply) reply = http_exchange (address, port, request, -1, 0);

  g_assert_cmpuint (reply->status, ==, 200);
  g_assert_cmpstr (reply->body, ==, "ok");
}

static gboolean
has_no_connections (gpointer listener)
{
  return lumo_gateway_listener_get_n_connections (listener) == 0;
}

static gboolean
has_ipv6_loopback (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GSocket) socket = g_socket_new (G_SOCKET_FAMILY_IPV6, G_SOCKET_TYPE_STREAM,
                                            G_SOCKET_PROTOCOL_TCP, &error);
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV6);
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new (loopback, 0);

  return socket != NULL && g_socket_bind (socket, address, FALSE, NULL);
}

/* 127.0.0.1 and ::1 answer; 127.0.0.2, another loopback address the
 * kernel routes to this machine, does not: nothing listens on a wildcard
 * address. */
static void
test_loopback_only (void)
{
  g_autoptr(LumoGatewayListener) listener = listener_new_started ();
  guint port = lumo_gateway_listener_get_port (listener);
  g_autoptr(GError) refused = NULL;

  assert_served ("127.0.0.1", port);
  if (has_ipv6_loopback ())
    assert_served ("::1", port);
  else
    g_test_message ("No IPv6 loopback here: only 127.0.0.1 was tried");

  refused = http_connect_error ("127.0.0.2", port);
  g_assert_error (refused, G_IO_ERROR, G_IO_ERROR_CONNECTION_REFUSED);

  lumo_test_wait_until (has_no_connections, listener, "the connections to close");
  g_assert_cmpuint (_lumo_gateway_listener_get_n_timers (listener), ==, 0);
}

static void
on_request_count_nodelay_cb (SoupServer        *server,
                             SoupServerMessage *msg,
                             const char        *path,
                             GHashTable        *query,
                             gpointer           user_data)
{
  LumoGatewayListener *listener = user_data;
  g_autofree char *body = g_strdup_printf ("%u of %u",
                                           _lumo_gateway_listener_get_n_nodelay (listener),
                                           lumo_gateway_listener_get_n_connections (listener));

  soup_server_message_set_status (msg, SOUP_STATUS_OK, NULL);
  soup_server_message_set_response (msg, "text/plain", SOUP_MEMORY_COPY, body, strlen (body));
}

/* Every connection sends what it is given at once, as libsoup's own
 * listener does: an answer's body does not wait behind its headers for
 * the client's acknowledgement. */
static void
test_nodelay (void)
{
  g_autoptr(LumoGatewayListener) listener = lumo_gateway_listener_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *request = NULL;
  g_autoptr(HttpReply) reply = NULL;

  soup_server_add_handler (lumo_gateway_listener_get_server (listener), NULL,
                           on_request_count_nodelay_cb, listener, NULL);
  g_assert_true (lumo_gateway_listener_start (listener, 0, &error));
  g_assert_no_error (error);
  request = request_for (lumo_gateway_listener_get_port (listener), "close");
  reply = http_exchange ("127.0.0.1", lumo_gateway_listener_get_port (listener), request, -1, 0);
  g_assert_cmpuint (reply->status, ==, 200);
  g_assert_cmpstr (reply->body, ==, "1 of 1");
  lumo_test_wait_until (has_no_connections, listener, "the connection to close");
}

/* A port another program holds is "port in use", with the port asked
 * for; once it is free, the same listener takes it. */
static void
test_port_in_use (void)
{
  g_autoptr(LumoGatewayListener) first = listener_new_started ();
  g_autoptr(LumoGatewayListener) second = lumo_gateway_listener_new ();
  guint port = lumo_gateway_listener_get_port (first);
  g_autoptr(GError) error = NULL;

  g_assert_false (lumo_gateway_listener_start (second, port, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_ADDRESS_IN_USE);
  g_assert_cmpint (lumo_gateway_listener_get_state (second), ==, LUMO_GATEWAY_LISTENER_PORT_IN_USE);
  g_assert_cmpuint (lumo_gateway_listener_get_port (second), ==, port);
  g_clear_error (&error);

  lumo_gateway_listener_stop (first);
  g_assert_cmpint (lumo_gateway_listener_get_state (first), ==, LUMO_GATEWAY_LISTENER_OFF);
  g_assert_cmpuint (lumo_gateway_listener_get_port (first), ==, 0);

  g_assert_true (lumo_gateway_listener_start (second, port, &error));
  g_assert_no_error (error);
  g_assert_cmpint (lumo_gateway_listener_get_state (second), ==, LUMO_GATEWAY_LISTENER_LISTENING);
}

/* Half a request line, then nothing (slowloris): cut once the deadline
 * passes. The deadline is lowered so that the test waits for the cut,
 * not for half a minute. */
static void
test_request_timeout (void)
{
  g_autoptr(LumoGatewayListener) listener = lumo_gateway_listener_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(HttpReply) slow = NULL;
  guint port;

  soup_server_add_handler (lumo_gateway_listener_get_server (listener), NULL,
                           on_request_cb, NULL, NULL);
  _lumo_gateway_listener_set_limits (listener, LUMO_GATEWAY_LISTENER_MAX_CONNECTIONS, 200);
  g_assert_true (lumo_gateway_listener_start (listener, 0, &error));
  port = lumo_gateway_listener_get_port (listener);

  slow = http_exchange ("127.0.0.1", port, "GET / HTTP/1.1\r\nHo", -1, 0);
  g_assert_true (slow->closed);
  g_assert_cmpuint (slow->status, ==, 0);

  lumo_test_wait_until (has_no_connections, listener, "the connections to close");
  g_assert_cmpuint (_lumo_gateway_listener_get_n_timers (listener), ==, 0);
}

typedef struct
{
  GBytes *body;
  guint   status;
} Fetched;

static void
on_fetched_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  Fetched *f = user_data;
  g_autoptr(GError) error = NULL;

  f->body = soup_session_send_and_read_finish (SOUP_SESSION (source), result, &error);
  g_assert_no_error (error);
  f->status = 200;
}

static gboolean
has_fetched (gpointer data)
{
  return ((Fetched *) data)->body != NULL;
}

/* libsoup's client on the same main loop: one keep-alive GET. */
static void
fetch_ok (SoupSession *session,
          guint        port)
{
  g_autofree char *url = g_strdup_printf ("http://127.0.0.1:%u/", port);
  g_autoptr(SoupMessage) msg = soup_message_new ("GET", url);
  Fetched f = { NULL, 0 };

  soup_session_send_and_read_async (session, msg, G_PRIORITY_DEFAULT, NULL, on_fetched_cb, &f);
  lumo_test_wait_until (has_fetched, &f, "the answer");
  g_assert_cmpuint (soup_message_get_status (msg), ==, SOUP_STATUS_OK);
  g_assert_null (soup_message_headers_get_one (soup_message_get_response_headers (msg), "Connection"));
  g_assert_cmpmem (g_bytes_get_data (f.body, NULL), g_bytes_get_size (f.body), "ok", 2);
  g_bytes_unref (f.body);
}

/* A client that keeps its connection sends its next requests on it and
 * they are answered there: one connection for three requests. While it
 * waits between two, it is an open connection under the request deadline
 * like a new one; when the client goes, the listener lets it go. */
static void
test_keep_alive (void)
{
  g_autoptr(LumoGatewayListener) listener = listener_new_started ();
  g_autoptr(SoupSession) session = soup_session_new ();
  guint port = lumo_gateway_listener_get_port (listener);

  for (guint i = 0; i < 3; i++)
    fetch_ok (session, port);

  g_assert_cmpuint (_lumo_gateway_listener_get_n_accepted (listener), ==, 1);
  g_assert_cmpuint (lumo_gateway_listener_get_n_connections (listener), ==, 1);
  g_assert_cmpuint (_lumo_gateway_listener_get_n_timers (listener), ==, 1);

  soup_session_abort (session);
  lumo_test_wait_until (has_no_connections, listener, "the kept connection to close");
}

/* A client that says "Connection: close" gets its answer and the end. */
static void
test_connection_close (void)
{
  g_autoptr(LumoGatewayListener) listener = listener_new_started ();
  guint port = lumo_gateway_listener_get_port (listener);
  g_autofree char *request = request_for (port, "close");
  g_autoptr(HttpReply) reply = http_exchange ("127.0.0.1", port, request, -1, 0);

  g_assert_cmpuint (reply->status, ==, 200);
  g_assert_cmpstr (reply->body, ==, "ok");
  g_assert_true (reply->closed);

  lumo_test_wait_until (has_no_connections, listener, "the connections to close");
}

static void
on_early_refuse_cb (SoupServer        *server,
                    SoupServerMessage *msg,
                    const char        *path,
                    GHashTable        *query,
                    gpointer           user_data)
{
  soup_server_message_set_status (msg, SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE, NULL);
}

/* An answer given on the headers, before the body was read (as the
 * endpoint's 413 is), is the connection's last: what is left of the body
 * on it is not read as the next request. (The read timeout only bounds
 * how long a failure takes to show.) */
static void
test_early_answer_closes (void)
{
  g_autoptr(LumoGatewayListener) listener = lumo_gateway_listener_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(HttpReply) reply = NULL;
  g_autofree char *request = NULL;
  guint port;

  soup_server_add_early_handler (lumo_gateway_listener_get_server (listener), NULL,
                                 on_early_refuse_cb, NULL, NULL);
  g_assert_true (lumo_gateway_listener_start (listener, 0, &error));
  port = lumo_gateway_listener_get_port (listener);

  request = g_strdup_printf ("POST / HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nConnection: keep-alive\r\n"
                             "Content-Length: 32\r\n\r\nGET /smuggled HTTP/1.1\r\nX: y\r\n\r\n",
                             port);
  reply = http_exchange ("127.0.0.1", port, request, -1, 5000);

  g_assert_cmpuint (reply->status, ==, 413);
  g_assert_null (strstr (reply->body, "HTTP/1.1"));
  g_assert_true (reply->closed);
  lumo_test_wait_until (has_no_connections, listener, "the connection to close");
}

typedef struct
{
  LumoGatewayListener *listener;
  guint                n;
} AcceptedAtLeast;

static gboolean
has_accepted (gpointer data)
{
  AcceptedAtLeast *a = data;

  return _lumo_gateway_listener_get_n_accepted (a->listener) >= a->n;
}

static gboolean
is_within_cap (gpointer listener)
{
  return lumo_gateway_listener_get_n_connections (listener) <= LUMO_GATEWAY_LISTENER_MAX_CONNECTIONS;
}

/* 1,000 connections that never send a byte: the listener holds at most
 * its cap of them open (the oldest give way), its descriptors stay
 * within that cap, and a real request is still answered. */
static void
test_idle_flood (void)
{
  g_autoptr(LumoGatewayListener) listener = listener_new_started ();
  g_autoptr(GPtrArray) clients = NULL;
  guint port = lumo_gateway_listener_get_port (listener);
  guint baseline;
  guint fds;
  const guint n_clients = 1000;

  /* Only eviction may close them here, not the request deadline. */
  _lumo_gateway_listener_set_limits (listener, LUMO_GATEWAY_LISTENER_MAX_CONNECTIONS,
                                     10 * LUMO_TEST_WAIT_DEADLINE_S * 1000);
  http_raise_fd_limit (n_clients + LUMO_GATEWAY_LISTENER_MAX_CONNECTIONS + 256);
  baseline = http_count_open_fds ();
  clients = http_open_idle (port, n_clients, (HttpAcceptedFunc) _lumo_gateway_listener_get_n_accepted,
                            listener);

  lumo_test_wait_until (is_within_cap, listener, "the oldest idle connections to close");
  fds = http_count_open_fds ();
  g_test_message ("%u descriptors open with %u idle clients (%u before), %u connections held",
                  fds, n_clients, baseline, lumo_gateway_listener_get_n_connections (listener));
  g_assert_cmpuint (fds, <=, baseline + n_clients + LUMO_GATEWAY_LISTENER_MAX_CONNECTIONS + 8);

  /* Still serving. */
  assert_served ("127.0.0.1", port);

  g_ptr_array_set_size (clients, 0);
  lumo_test_wait_until (has_no_connections, listener, "the idle connections to close");
  g_assert_cmpuint (_lumo_gateway_listener_get_n_timers (listener), ==, 0);
}

/* Stopping closes the sockets and the connections: an idle client sees
 * the end, the port refuses, and nothing is left. */
static void
test_stop (void)
{
  g_autoptr(LumoGatewayListener) listener = listener_new_started ();
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) address = NULL;
  g_autoptr(GSocket) client = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) refused = NULL;
  AcceptedAtLeast a;
  guint port = lumo_gateway_listener_get_port (listener);
  char byte;

  address = g_inet_socket_address_new (loopback, port);
  client = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, &error);
  g_socket_set_blocking (client, FALSE);
  if (!g_socket_connect (client, address, NULL, &error))
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_PENDING);
  g_clear_error (&error);
  a = (AcceptedAtLeast) { listener, 1 };
  lumo_test_wait_until (has_accepted, &a, "the listener to accept");
  g_assert_cmpuint (lumo_gateway_listener_get_n_connections (listener), ==, 1);

  lumo_gateway_listener_stop (listener);
  g_assert_cmpint (lumo_gateway_listener_get_state (listener), ==, LUMO_GATEWAY_LISTENER_OFF);
  lumo_test_wait_until (has_no_connections, listener, "the idle connection to close");

  /* The client reads the end (or a reset), not "would block". */
  g_socket_set_blocking (client, TRUE);
  g_assert_cmpint (g_socket_receive (client, &byte, 1, NULL, &error), <=, 0);
  g_clear_error (&error);

  refused = http_connect_error ("127.0.0.1", port);
  g_assert_error (refused, G_IO_ERROR, G_IO_ERROR_CONNECTION_REFUSED);
  g_assert_cmpuint (_lumo_gateway_listener_get_n_timers (listener), ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/gateway/listener/loopback-only", test_loopback_only);
  g_test_add_func ("/gateway/listener/port-in-use", test_port_in_use);
  g_test_add_func ("/gateway/listener/nodelay", test_nodelay);
  g_test_add_func ("/gateway/listener/request-timeout", test_request_timeout);
  g_test_add_func ("/gateway/listener/keep-alive", test_keep_alive);
  g_test_add_func ("/gateway/listener/connection-close", test_connection_close);
  g_test_add_func ("/gateway/listener/early-answer-closes", test_early_answer_closes);
  g_test_add_func ("/gateway/listener/idle-flood", test_idle_flood);
  g_test_add_func ("/gateway/listener/stop", test_stop);

  return g_test_run ();
}
