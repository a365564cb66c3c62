/* bench-soup-echo.c — a bare libsoup 3 echo server, the endpoint's floor
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The desktop agents' benchmark (tests/e2e/bench-agents.mjs) sends the
 * same POST to this program and to the app's endpoint, from the same
 * client, and the difference is what the endpoint itself costs per
 * request: its checks (Host, Origin, token, provider, headers), the
 * session, the strict JSON parse, the SSE stream. Here there is none of
 * that: one SoupServer on 127.0.0.1, on the GLib main loop like the app's,
 * answering every request the way the endpoint answers a POST of a
 * request — a chunked text/event-stream with one `message` event — whose
 * data is the request body, as it came.
 *
 *   bench-soup-echo        prints "PORT\n" once it listens, then serves
 *                          until its stdin closes (or SIGTERM)
 */
#define G_LOG_DOMAIN "bench-soup-echo"

#include "config.h"

#include <glib-unix.h>
#include <libsoup/soup.h>
#include <stdio.h>
#include <unistd.h>

static void
on_request_cb (SoupServer        *server,
               SoupServerMessage *msg,
               const char        *path,
               GHashTable        *query,
               gpointer           user_data)
{
  SoupMessageBody *request = soup_server_message_get_request_body (msg);
  SoupMessageHeaders *headers = soup_server_message_get_response_headers (msg);
  g_autoptr(GBytes) body = soup_message_body_flatten (request);
  SoupMessageBody *response = soup_server_message_get_response_body (msg);

  soup_server_message_set_status (msg, SOUP_STATUS_OK, NULL);
  soup_message_headers_set_content_type (headers, "text/event-stream", NULL);
  soup_message_headers_replace (headers, "Cache-Control", "no-cache");
  soup_message_headers_set_encoding (headers, SOUP_ENCODING_CHUNKED);
  soup_message_body_append (response, SOUP_MEMORY_STATIC, "event: message\ndata: ", 21);
  soup_message_body_append_bytes (response, body);
  soup_message_body_append (response, SOUP_MEMORY_STATIC, "\n\n", 2);
  soup_message_body_complete (response);
}

static gboolean
on_stdin_cb (gint         fd,
             GIOCondition condition,
             gpointer     user_data)
{
  char buf[256];

  /* Anything but data (EOF, an error) ends the program. */
  if ((condition & G_IO_IN) == 0 || read (fd, buf, sizeof buf) <= 0)
    {
      g_main_loop_quit (user_data);
      return G_SOURCE_REMOVE;
    }
  return G_SOURCE_CONTINUE;
}

static gboolean
on_sigterm_cb (gpointer user_data)
{
  g_main_loop_quit (user_data);
  return G_SOURCE_REMOVE;
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  g_autoptr(SoupServer) server = soup_server_new (NULL, NULL);
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new (loopback, 0);
  g_autoptr(GError) error = NULL;
  g_autoslist(GUri) uris = NULL;

  soup_server_add_handler (server, NULL, on_request_cb, NULL, NULL);
  if (!soup_server_listen (server, address, 0, &error))
    {
      g_printerr ("bench-soup-echo: cannot listen: %s\n", error->message);
      return 1;
    }
  uris = soup_server_get_uris (server);
  g_print ("%d\n", g_uri_get_port (uris->data));
  fflush (stdout);

  g_unix_fd_add (0, G_IO_IN | G_IO_HUP | G_IO_ERR, on_stdin_cb, loop);
  g_unix_signal_add (SIGTERM, on_sigterm_cb, loop);
  g_main_loop_run (loop);
  return 0;
}
