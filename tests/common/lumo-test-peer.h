/* lumo-test-peer.h — the browser's end of one native-messaging session
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoTestPeer starts lumo-access-host the way Chrome does (the origin as
 * argv[1], a --parent-window argument after it, pipes on fds 0 and 1, stderr
 * inherited, nothing else open, the binary's own directory as cwd) and
 * speaks native-messaging frames to it. It owns the subprocess and the
 * browser ends of both pipes, so a test can kill the helper and go on
 * talking to the app, exactly as Chrome still holds its pipe ends when the
 * helper dies.
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef struct _LumoTestPeer LumoTestPeer;

/* The origin goes to argv[1] as is (tests pass bad ones too); @extra_arg,
 * if not NULL, becomes argv[2] (Chrome on Windows adds --parent-window=…). */
LumoTestPeer *lumo_test_peer_spawn         (char       **env,
                                            const char  *origin,
                                            const char  *extra_arg);
void          lumo_test_peer_free          (LumoTestPeer *peer);

GPid          lumo_test_peer_get_pid       (LumoTestPeer *peer);
void          lumo_test_peer_send_json     (LumoTestPeer *peer,
                                            const char   *json);
void          lumo_test_peer_send_printf   (LumoTestPeer *peer,
                                            const char   *format,
                                            ...) G_GNUC_PRINTF (2, 3);
/* The next frame, or NULL at a clean end of stream. A broken frame, or no
 * frame within a generous safety timeout, fails the test. */
JsonObject   *lumo_test_peer_recv          (LumoTestPeer *peer);
/* The next answer whose `re` is the integer @re; other frames (pushes,
 * other answers) are kept for later calls. */
JsonObject   *lumo_test_peer_expect_answer (LumoTestPeer *peer,
                                            gint64        re);
/* Every byte the helper's stdout gives until EOF, frames or not. */
GBytes       *lumo_test_peer_read_to_end   (LumoTestPeer *peer);
/* The browser closes its end of the helper's stdin (the port went away). */
void          lumo_test_peer_close_input   (LumoTestPeer *peer);
void          lumo_test_peer_kill          (LumoTestPeer *peer,
                                            int           signal_number);
/* Waits for the helper to exit; returns its exit status, or 128 + the
 * signal that killed it. */
int           lumo_test_peer_wait          (LumoTestPeer *peer);
/* Chrome closes the port: the helper must end the session and exit 0. */
void          lumo_test_peer_end           (LumoTestPeer *peer);
/* TRUE once the helper has exited (without waiting). */
gboolean      lumo_test_peer_has_exited    (LumoTestPeer *peer);

/* The helper's first session steps: hello with one read and one write
 * tool (namespace "userscripts"), and its answer. */
void          lumo_test_peer_hello         (LumoTestPeer *peer,
                                            gint64        id);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (LumoTestPeer, lumo_test_peer_free)

G_END_DECLS
