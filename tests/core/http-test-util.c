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
  char       *address;
  guint       port;
  GBytes     *request;
  guint       read_timeout_ms;
  GMutex      lock;
  GSocket    *socket;      /* under lock, while the thread runs */
  gboolean    stop_reading;
  /* out, under lock */
  GByteArray *received;
  gboolean    closed;
  GError     *error;
} Exchange;

struct _HttpCall
{
  GTask    *task;
  Exchange *x;             /* the task's data */
};

static void
exchange_free (Exchange *x)
{
  g_free (x->address);
  g_bytes_unref (x->request);
  g_clear_object (&x->socket);
  if (x->received != NULL)
    g_byte_array_unref (x->received);
  g_clear_error (&x->error);
  g_mutex_clear (&x->lock);
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

  if (!(socket = connect_to (x->address, x->port, &x->error)))
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  g_mutex_lock (&x->lock);
  x->socket = g_object_ref (socket);
  g_mutex_unlock (&x->lock);

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
      gboolean stop;
      gssize n;

      g_mutex_lock (&x->lock);
      stop = x->stop_reading;
      g_mutex_unlock (&x->lock);
      if (stop)
        {
          /* Not reading, not closing: until the test hangs up. */
          g_socket_condition_wait (socket, G_IO_ERR | G_IO_NVAL, NULL, NULL);
          break;
        }

      if (x->read_timeout_ms > 0 &&
          !g_socket_condition_timed_wait (socket, G_IO_IN, (gint64) x->read_timeout_ms * 1000,
                                          NULL, NULL))
        break;
      if (x->read_timeout_ms == 0)
        g_socket_condition_wait (socket, G_IO_IN | G_IO_HUP | G_IO_ERR | G_IO_NVAL, NULL, NULL);

      g_mutex_lock (&x->lock);
      stop = x->stop_reading;
      g_mutex_unlock (&x->lock);
      if (stop)
        continue;

      n = g_socket_receive (socket, (char *) buf, sizeof buf, NULL, &error);
      g_mutex_lock (&x->lock);
      if (n <= 0)
        {
          /* An end, or a reset after the server shut down unread data. */
          x->closed = TRUE;
          g_mutex_unlock (&x->lock);
          break;
        }
      g_byte_array_append (x->received, buf, n);
      g_mutex_unlock (&x->lock);
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

HttpCall *
http_call_start (const char *address,
                 guint       port,
                 const char *request,
                 gssize      len,
                 guint       read_timeout_ms)
{
  HttpCall *call = g_new0 (HttpCall, 1);
  Exchange *x = g_new0 (Exchange, 1);

  x->address = g_strdup (address);
  x->port = port;
  x->request = g_bytes_new (request, len < 0 ? strlen (request) : (gsize) len);
  x->read_timeout_ms = read_timeout_ms;
  x->received = g_byte_array_new ();
  g_mutex_init (&x->lock);

  call->x = x;
  call->task = g_task_new (NULL, NULL, NULL, NULL);
  g_task_set_task_data (call->task, x, (GDestroyNotify) exchange_free);
  g_task_run_in_thread (call->task, exchange_thread);

  return call;
}

gboolean
http_call_has_received (HttpCall   *call,
                        const char *needle)
{
  gboolean found;

  g_mutex_lock (&call->x->lock);
  found = call->x->received->len > 0 &&
          g_strstr_len ((const char *) call->x->received->data, call->x->received->len, needle) != NULL;
  g_mutex_unlock (&call->x->lock);

  return found;
}

void
http_call_stop_reading (HttpCall *call)
{
  g_mutex_lock (&call->x->lock);
  call->x->stop_reading = TRUE;
  g_mutex_unlock (&call->x->lock);
}

void
http_call_hang_up (HttpCall *call)
{
  g_mutex_lock (&call->x->lock);
  if (call->x->socket != NULL)
    g_socket_shutdown (call->x->socket, TRUE, TRUE, NULL);
  g_mutex_unlock (&call->x->lock);
}

/* The body of a chunked response, as far as it came whole. */
static char *
dechunk (const char *data,
         gsize       len,
         gsize      *out_len)
{
  GString *body = g_string_new (NULL);
  gsize pos = 0;

  while (pos < len)
    {
      const char *line_end = g_strstr_len (data + pos, len - pos, "\r\n");
      guint64 size;
      char *end = NULL;

      if (line_end == NULL)
        break;
      size = g_ascii_strtoull (data + pos, &end, 16);
      if (end == data + pos || size == 0)
        break;
      pos = (line_end - data) + 2;
      if (pos + size > len)
        break;
      g_string_append_len (body, data + pos, size);
      pos += size + 2;
    }

  *out_len = body->len;
  return g_string_free (body, FALSE);
}

HttpReply *
http_call_finish (HttpCall *call)
{
  Exchange *x = call->x;
  HttpReply *reply = g_new0 (HttpReply, 1);
  const guint8 *end_of_head;

  lumo_test_wait_until ((LumoTestCondition) g_task_get_completed, call->task, "the HTTP client");

  g_assert_no_error (x->error);
  reply->closed = x->closed;
  end_of_head = x->received->len > 0
    ? (const guint8 *) g_strstr_len ((const char *) x->received->data, x->received->len, "\r\n\r\n")
    : NULL;

  if (end_of_head != NULL)
    {
      gsize head_len = end_of_head - x->received->data;

      g_autofree char *encoding = NULL;

      reply->head = g_strndup ((const char *) x->received->data, head_len);
      reply->body_len = x->received->len - head_len - 4;
      reply->body = g_strndup ((const char *) end_of_head + 4, reply->body_len);
      if (g_str_has_prefix (reply->head, "HTTP/1."))
        reply->status = (guint) g_ascii_strtoull (reply->head + 9, NULL, 10);

      encoding = http_reply_header (reply, "Transfer-Encoding");
      if (g_strcmp0 (encoding, "chunked") == 0)
        {
          char *raw = reply->body;

          reply->body = dechunk (raw, reply->body_len, &reply->body_len);
          g_free (raw);
        }
    }

  g_object_unref (call->task);
  g_free (call);
  return reply;
}

HttpReply *
http_exchange (const char *address,
               guint       port,
               const char *request,
               gssize      len,
               guint       read_timeout_ms)
{
  return http_call_finish (http_call_start (address, port, request, len, read_timeout_ms));
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

typedef struct
{
  HttpAcceptedFunc func;
  gpointer         data;
  guint            target;
} Accepted;

static gboolean
has_accepted (gpointer user_data)
{
  Accepted *a = user_data;

  return a->func (a->data) >= a->target;
}

GPtrArray *
http_open_idle (guint             port,
                guint             n,
                HttpAcceptedFunc  n_accepted,
                gpointer          user_data)
{
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new (loopback, port);
  GPtrArray *clients = g_ptr_array_new_with_free_func (g_object_unref);
  guint before = n_accepted (user_data);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GError) error = NULL;
      GSocket *socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
                                      G_SOCKET_PROTOCOL_TCP, &error);

      g_assert_no_error (error);
      g_socket_set_blocking (socket, FALSE);
      /* Loopback completes the handshake in the kernel: the connect is
       * pending at most until the server accepts. */
      if (!g_socket_connect (socket, address, NULL, &error))
        g_assert_error (error, G_IO_ERROR, G_IO_ERROR_PENDING);
      g_ptr_array_add (clients, socket);

      if ((i + 1) % 50 == 0)
        {
          Accepted a = { n_accepted, user_data, before + i + 1 };

          lumo_test_wait_until (has_accepted, &a, "the server to accept the batch");
        }
    }

  return clients;
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
