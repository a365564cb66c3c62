/* http-test-util.c — the raw HTTP client of http-test-util.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>
#include <sys/resource.h>

#include "http-test-util.h"
#include "lumo-test.h"

typedef struct
{
  char     *address;
  guint     port;
  GBytes   *request;
  guint     read_timeout_ms;
  /* out */
  GByteArray *received;
  gboolean  closed;
  GError   *error;
} Exchange;

static void
exchange_free (Exchange *x)
{
  g_free (x->address);
  g_bytes_unref (x->request);
  if (x->received != NULL)
    g_byte_array_unref (x->received);
  g_clear_error (&x->error);
  g_free (x);
}

static GSocket *
connect_to (const char  *address,
            guint        port,
            GError     **error)
{
  g_autoptr(GInetAddress) inet = g_inet_address_new_from_string (address);
  g_autoptr(GSocketAddress) sockaddr = NULL;
  g_autoptr(GSocket) socket = NULL;

  g_assert_nonnull (inet);
  sockaddr = g_inet_socket_address_new (inet, port);
  socket = g_socket_new (g_inet_address_get_family (inet), G_SOCKET_TYPE_STREAM,
                         G_SOCKET_PROTOCOL_TCP, error);
  if (socket == NULL || !g_socket_connect (socket, sockaddr, NULL, error))
    return NULL;

  return g_steal_pointer (&socket);
}

static void
exchange_thread (GTask        *task,
                 gpointer      source_object,
                 gpointer      task_data,
                 GCancellable *cancellable)
{
  Exchange *x = task_data;
  g_autoptr(GSocket) socket = NULL;
  gsize size;
  const char *data = g_bytes_get_data (x->request, &size);
  gsize sent = 0;

  x->received = g_byte_array_new ();
  if (!(socket = connect_to (x->address, x->port, &x->error)))
    {
      g_task_return_boolean (task, TRUE);
      return;
    }

  while (sent < size)
    {
      gssize n = g_socket_send (socket, data + sent, size - sent, NULL, &x->error);

      /* The server may answer and close before it has read everything
       * (a body it refused): what it answered is still to be read. */
      if (n <= 0)
        {
          g_clear_error (&x->error);
          break;
        }
      sent += n;
    }

  for (;;)
    {
      guint8 buf[16 * 1024];
      g_autoptr(GError) error = NULL;
      gssize n;

      if (x->read_timeout_ms > 0 &&
          !g_socket_condition_timed_wait (socket, G_IO_IN, (gint64) x->read_timeout_ms * 1000,
                                          NULL, NULL))
        break;

      n = g_socket_receive (socket, (char *) buf, sizeof buf, NULL, &error);
      if (n <= 0)
        {
          /* An end, or a reset after the server shut down unread data. */
          x->closed = TRUE;
          break;
        }
      g_byte_array_append (x->received, buf, n);
    }

  g_task_return_boolean (task, TRUE);
}

void
http_reply_free (HttpReply *reply)
{
  g_free (reply->head);
  g_free (reply->body);
  g_free (reply);
}

char *
http_reply_header (HttpReply  *reply,
                   const char *name)
{
  g_auto(GStrv) lines = g_strsplit (reply->head != NULL ? reply->head : "", "\r\n", -1);

  for (guint i = 1; lines[i] != NULL; i++)
    {
      const char *colon = strchr (lines[i], ':');

      if (colon != NULL && (gsize) (colon - lines[i]) == strlen (name) &&
          g_ascii_strncasecmp (lines[i], name, strlen (name)) == 0)
        return g_strstrip (g_strdup (colon + 1));
    }

  return NULL;
}

HttpReply *
http_exchange (const char *address,
               guint       port,
               const char *request,
               gssize      len,
               guint       read_timeout_ms)
{
  g_autoptr(GTask) task = g_task_new (NULL, NULL, NULL, NULL);
  Exchange *x = g_new0 (Exchange, 1);
  HttpReply *reply = g_new0 (HttpReply, 1);
  const guint8 *end_of_head;

  x->address = g_strdup (address);
  x->port = port;
  x->request = g_bytes_new (request, len < 0 ? strlen (request) : (gsize) len);
  x->read_timeout_ms = read_timeout_ms;
  g_task_set_task_data (task, x, (GDestroyNotify) exchange_free);
  g_task_run_in_thread (task, exchange_thread);
  lumo_test_wait_until ((LumoTestCondition) g_task_get_completed, task, "the HTTP client");

  g_assert_no_error (x->error);
  reply->closed = x->closed;
  end_of_head = x->received->len > 0
    ? (const guint8 *) g_strstr_len ((const char *) x->received->data, x->received->len, "\r\n\r\n")
    : NULL;

  if (end_of_head != NULL)
    {
      gsize head_len = end_of_head - x->received->data;

      reply->head = g_strndup ((const char *) x->received->data, head_len);
      reply->body_len = x->received->len - head_len - 4;
      reply->body = g_strndup ((const char *) end_of_head + 4, reply->body_len);
      if (g_str_has_prefix (reply->head, "HTTP/1."))
        reply->status = (guint) g_ascii_strtoull (reply->head + 9, NULL, 10);
    }

  return reply;
}

GError *
http_connect_error (const char *address,
                    guint       port)
{
  g_autoptr(GSocket) socket = NULL;
  GError *error = NULL;

  /* A refused connect is immediate on loopback: no thread needed. */
  socket = connect_to (address, port, &error);
  return error;
}

guint
http_count_open_fds (void)
{
  g_autoptr(GDir) dir = g_dir_open ("/proc/self/fd", 0, NULL);
  guint n = 0;

  g_assert_nonnull (dir);
  while (g_dir_read_name (dir) != NULL)
    n++;

  /* Less the descriptor of the listing itself. */
  return n - 1;
}

void
http_raise_fd_limit (guint n)
{
  struct rlimit limit;

  g_assert_cmpint (getrlimit (RLIMIT_NOFILE, &limit), ==, 0);
  if (limit.rlim_cur >= n)
    return;

  limit.rlim_cur = MIN ((rlim_t) n, limit.rlim_max);
  g_assert_cmpint (setrlimit (RLIMIT_NOFILE, &limit), ==, 0);
  if (limit.rlim_cur < n)
    g_test_message ("Only %lu descriptors may be open", (unsigned long) limit.rlim_cur);
}
