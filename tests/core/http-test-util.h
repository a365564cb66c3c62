/* http-test-util.h — a raw HTTP client for the endpoint's tests
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The endpoint runs on the test's main loop, so the client runs in a
 * thread of its own with plain blocking sockets: it can send what no HTTP
 * library sends (a foreign Host, half a header, a body longer than it
 * says) and read exactly what came back. Each call waits on its thread
 * with lumo_test_wait_until(), iterating the main loop meanwhile.
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct
{
  guint    status;      /* of the first response; 0 when none came */
  char    *head;        /* status line and headers of the first response */
  char    *body;        /* everything after them until the end */
  gsize    body_len;
  gboolean closed;      /* the server closed the connection */
} HttpReply;

void       http_reply_free        (HttpReply   *reply);
/* The value of header @name in @reply's head (case-insensitive), or NULL. */
char      *http_reply_header      (HttpReply   *reply,
                                   const char  *name);

/* Connects to @address:@port (an IP literal), sends @request (@len bytes,
 * -1: a string), and reads until the server closes the connection or
 * @read_timeout_ms pass (0: until it closes; the test's deadline guards
 * it). */
HttpReply *http_exchange          (const char  *address,
                                   guint        port,
                                   const char  *request,
                                   gssize       len,
                                   guint        read_timeout_ms);
/* An error connecting to @address:@port, or NULL if it connected. */
GError    *http_connect_error     (const char  *address,
                                   guint        port);

/* The descriptors this process has open now. */
guint      http_count_open_fds    (void);
/* Raises the soft limit on open descriptors to @n (or the hard limit),
 * for tests that open hundreds of connections. */
void       http_raise_fd_limit    (guint        n);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HttpReply, http_reply_free)

G_END_DECLS
