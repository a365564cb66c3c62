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
  char    *body;        /* everything after them until the end (a chunked
                         * body de-chunked, as far as it came whole) */
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
/* The same, started in its thread and left to run: the test drives the
 * provider meanwhile, then waits for the end with http_call_finish(). */
typedef struct _HttpCall HttpCall;

HttpCall  *http_call_start        (const char  *address,
                                   guint        port,
                                   const char  *request,
                                   gssize       len,
                                   guint        read_timeout_ms);
/* TRUE once what @call received so far contains @needle (a condition for
 * lumo_test_wait_until(): a stream that stays open still shows it). */
gboolean   http_call_has_received (HttpCall    *call,
                                   const char  *needle);
/* The client stops reading (the kernel still takes what fits in its
 * buffers): a client that never reads its stream. */
void       http_call_stop_reading (HttpCall    *call);
/* Closes the client's socket, which ends the call. */
void       http_call_hang_up      (HttpCall    *call);
HttpReply *http_call_finish       (HttpCall    *call);

/* An error connecting to @address:@port, or NULL if it connected. */
GError    *http_connect_error     (const char  *address,
                                   guint        port);

/* @n connections to 127.0.0.1:@port that never send a byte (each accepted
 * before the next batch goes, as a kernel backlog holds), in a new array
 * of GSocket; @n_accepted returns how many the server has accepted. */
typedef guint (*HttpAcceptedFunc) (gpointer user_data);
GPtrArray *http_open_idle         (guint             port,
                                   guint             n,
                                   HttpAcceptedFunc  n_accepted,
                                   gpointer          user_data);

/* The descriptors this process has open now. */
guint      http_count_open_fds    (void);
/* Raises the soft limit on open descriptors to @n (or the hard limit),
 * for tests that open hundreds of connections. */
void       http_raise_fd_limit    (guint        n);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HttpReply, http_reply_free)

G_END_DECLS
