/* lumo-test-util.h — bridge-protocol steps shared by the integration tests
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "lumo-test-bus.h"
#include "lumo-test-peer.h"

G_BEGIN_DECLS

#define PROVIDER_ID     "abcdefghijklmnopabcdefghijklmnop"
#define PROVIDER_ORIGIN "chrome-extension://" PROVIDER_ID "/"
#define CALLER_ID       "ponmlkjihgfedcbaponmlkjihgfedcba"
#define PARAMS_HASH     "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

/* FALSE (after g_test_skip) when the test cannot run here. */
gboolean    lumo_test_begin                 (void);

/* probe → its `status` object. */
JsonObject *lumo_test_probe                 (LumoTestPeer *peer,
                                             gint64        id,
                                             const char   *caller_id);
void        lumo_test_send_authorize_write  (LumoTestPeer *peer,
                                             gint64        id,
                                             const char   *caller_id);
JsonObject *lumo_test_authorize_write       (LumoTestPeer *peer,
                                             gint64        id,
                                             const char   *caller_id);
JsonObject *lumo_test_authorize_read        (LumoTestPeer *peer,
                                             gint64        id,
                                             const char   *caller_id);
/* Reads frames until the app pushes `policy`; any other frame fails. */
JsonObject *lumo_test_wait_for_policy_push  (LumoTestPeer *peer);

/* lumo-access-ctl must exit 0. */
void        lumo_test_ctl_ok                (LumoTestBus  *bus,
                                             const char   *first_arg,
                                             ...) G_GNUC_NULL_TERMINATED;
/* `lumo-access-ctl audit search --json caller:ID` → the rows. */
JsonArray  *lumo_test_audit_search          (LumoTestBus  *bus,
                                             const char   *caller_id);
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
/* TRUE once @pid no longer owns the app's name and no longer runs. */
gboolean    lumo_test_wait_for_app_exit     (LumoTestBus  *bus,
                                             GPid          pid);

G_END_DECLS
