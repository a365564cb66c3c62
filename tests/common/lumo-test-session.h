/* lumo-test-session.h — the integration fixture: a private bus where the
 * app is activatable, helpers on it, and the bridge-protocol steps
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoTestSession owns a LumoTestBus (the app starts by activation when
 * the first helper calls it; the CLI runs on it too), the environment the
 * helpers run in, and every helper the test started. Most tests begin with
 *
 *   g_autoptr(LumoTestSession) s = lumo_test_session_start ();
 *
 *   if (s == NULL)
 *     return;
 *
 * and then speak the protocol through s->peer, a helper for
 * TEST_PROVIDER_ORIGIN that said hello; lumo_test_peer_end (s->peer)
 * closes the port and checks the helper exits 0. Freeing the session
 * stops every helper, the app and the bus, and removes the directory.
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "lumo-test.h"
#include "lumo-test-bus.h"
#include "lumo-test-peer.h"

G_BEGIN_DECLS

/* The paramsHash of the write requests below (SHA-256 of nothing). */
#define TEST_PARAMS_HASH "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

typedef struct
{
  LumoTestBus   *bus;
  char         **env;     /* for helpers: the test's, on the private bus */
  LumoTestPeer  *peer;    /* the first helper lumo_test_session_connect() started */
  GPtrArray     *peers;   /* every helper of the session */
} LumoTestSession;

/* A bus, its environment, no helper yet. @exec_override and @app_env as
 * for lumo_test_bus_new(). NULL, after g_test_skip(), where the test
 * cannot run (no display). */
LumoTestSession *lumo_test_session_new      (const char          *exec_override,
                                             const char * const  *app_env);
/* lumo_test_session_new (NULL, NULL), then lumo_test_session_connect (s,
 * NULL): the app, started by the bus, serving one helper. */
LumoTestSession *lumo_test_session_start    (void);
void             lumo_test_session_free     (LumoTestSession     *s);

/* A helper for @origin (argv[1] as is), @extra_arg as argv[2]; nothing
 * said yet. The session keeps it. */
LumoTestPeer    *lumo_test_session_spawn    (LumoTestSession     *s,
                                             const char          *origin,
                                             const char          *extra_arg);
/* A helper for TEST_PROVIDER_ORIGIN that said hello (request 1) and got
 * hello.result; the first one becomes s->peer. */
LumoTestPeer    *lumo_test_session_connect  (LumoTestSession     *s,
                                             const char          *extra_arg);

/* ---- bridge-protocol steps, each checking the answer's type ------------- */

/* probe → its `status` object. */
JsonObject *lumo_test_probe                 (LumoTestPeer *peer,
                                             gint64        id,
                                             const char   *caller_id);
/* authorize userscripts.save_script (a write, with a preview). */
void        lumo_test_send_authorize_write  (LumoTestPeer *peer,
                                             gint64        id,
                                             const char   *caller_id);
JsonObject *lumo_test_authorize_write       (LumoTestPeer *peer,
                                             gint64        id,
                                             const char   *caller_id);
JsonObject *lumo_test_authorize_read        (LumoTestPeer *peer,
                                             gint64        id,
                                             const char   *caller_id);
/* The provider reports the result of the write @audit_id was given for;
 * checks the answer is result.result. */
void        lumo_test_send_result           (LumoTestPeer *peer,
                                             gint64        id,
                                             gint64        audit_id);
/* Reads frames until the app pushes `policy`; any other frame fails. */
void        lumo_test_wait_for_policy_push  (LumoTestPeer *peer);

/* ---- the CLI and the app's D-Bus interface ------------------------------ */

/* lumo-access-ctl must exit 0. */
void        lumo_test_ctl_ok                (LumoTestBus  *bus,
                                             const char   *first_arg,
                                             ...) G_GNUC_NULL_TERMINATED;
/* `lumo-access-ctl audit search --json caller:ID` → the rows. */
JsonArray  *lumo_test_audit_search          (LumoTestBus  *bus,
                                             const char   *caller_id);
/* A row of TEST_PROVIDER_ID and TEST_CALLER_ID for the write tool. */
void        lumo_test_assert_audit_row      (JsonObject   *row,
                                             const char   *reason);
void        lumo_test_assert_audit_contains (JsonArray    *rows,
                                             const char   *reason,
                                             guint         count);

/* Polls ListReviews until a request of @caller_id waits; returns its id. */
char       *lumo_test_wait_for_review       (LumoTestBus  *bus,
                                             const char   *caller_id);
void        lumo_test_decide_review         (LumoTestBus  *bus,
                                             const char   *review_id,
                                             gboolean      approve,
                                             GError      **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (LumoTestSession, lumo_test_session_free)

G_END_DECLS
