/* bridge-test-peer.h — the provider end of a real bridge connection, for tests
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "bridge-test-util.h"

G_BEGIN_DECLS

typedef struct
{
  BridgeTestEnv     *env;
  int                to_app;     /* the provider writes here */
  int                from_app;   /* and reads the app's answers here */
  GByteArray        *out;        /* bytes not yet written, from out_pos */
  gsize              out_pos;
  GByteArray        *in;         /* bytes read, not yet decoded from in_pos */
  gsize              in_pos;
  gboolean           eof;
  gboolean           done;       /* the Attach call completed */
  char              *reason;
  GError            *error;
} Peer;

/* Connects a new provider to env's backend with @origin. */
Peer       *peer_new          (BridgeTestEnv *env,
                               const char    *origin);
/* Chrome closes the pipe: the session sees the end of its input. */
void        peer_close_write  (Peer          *peer);
/* Ends the connection as Chrome does and waits for the session to end. */
void        peer_free         (Peer          *peer);
/* Writes what the pipe takes now, at most @max bytes a write; TRUE if
 * anything was written. */
gboolean    peer_write_some   (Peer          *peer,
                               gsize          max);
void        peer_queue_bytes  (Peer          *peer,
                               const guint8  *data,
                               gsize          len);
/* Queues one frame of @json. */
void        peer_queue        (Peer          *peer,
                               const char    *json);
gboolean    peer_out_empty    (gpointer       peer);
gboolean    peer_done         (gpointer       peer);
/* Queues one frame and waits until it is written. */
void        peer_send         (Peer          *peer,
                               const char    *json);
/* The next message of the app, or NULL at the end of the stream. */
JsonObject *peer_recv         (Peer          *peer);
/* The next message must match @expected_json (bridge_json_matches()). */
void        peer_expect       (Peer          *peer,
                               const char    *expected_json);
/* Sends @request, checks the answer against @expected and returns its
 * auditId (0 if none). */
gint64      peer_authorize    (Peer          *peer,
                               const char    *request,
                               const char    *expected);

G_END_DECLS
