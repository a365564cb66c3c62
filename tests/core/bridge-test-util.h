/* bridge-test-util.h — helpers shared by the bridge tests and the fuzz replay
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* The fixture files of tests/fixtures/bridge/ whose name starts with
 * @prefix, sorted (full paths). */
GPtrArray *bridge_fixture_files   (const char *prefix);
char      *bridge_fixture_dir     (void);
JsonNode  *bridge_load_json       (const char *path);
char      *bridge_json_to_string  (JsonNode   *node);
/* The fixtures' `expect` match: every member of @expect is in @actual with
 * a matching value (recursively), arrays element-wise with the same length,
 * other values equal; the string "<any>" matches any present value. On a
 * mismatch @where (may be NULL) names the path. */
gboolean   bridge_json_matches    (JsonNode   *actual,
                                   JsonNode   *expect,
                                   char      **where);

/* The bytes on the wire for one entry of frames.json. */
GBytes    *bridge_frame_bytes     (JsonObject *frame);

/* Registered by test-bridge-scenario.c. */
void       bridge_add_frame_tests    (void);
void       bridge_add_scenario_tests (void);

G_END_DECLS

/* ---- a backend on a temporary data directory ---------------------------- */

#include "lumo-backend.h"
#include "lumo-policy.h"
#include "lumo-test.h"

typedef struct
{
  char        *dir;
  LumoBackend *backend;
  LumoPolicy  *policy;
  gint64       now;        /* the fake monotonic clock, µs */
} BridgeTestEnv;

BridgeTestEnv *bridge_test_env_new      (void);
void           bridge_test_env_free     (BridgeTestEnv *env);
/* Steps the fake clock and wakes the main context so that deadlines are
 * looked at again. */
void           bridge_test_env_advance  (BridgeTestEnv *env,
                                         gint64         us);

/* ---- a detached session: the dispatch of a real one, without pipes ------ */

#include "lumo-bridge-session.h"

/* TEST_PROVIDER_ID's hello with a read and a write tool. */
#define BRIDGE_TEST_HELLO \
  "{\"type\":\"hello\",\"id\":1,\"bridge\":1," \
  "\"service\":{\"namespace\":\"userscripts\",\"name\":\"Lumo Userscripts\",\"version\":\"1.0.1\"}," \
  "\"tools\":[{\"name\":\"list_scripts\",\"write\":false},{\"name\":\"save_script\",\"write\":true}]}"

/* The provider sends @json. */
void               bridge_detached_send           (LumoBridgeSession *session,
                                                   const char        *json);
/* The next message of the app (after the idles that send it ran), which
 * must pass lumo_bridge_validate_app_message(); NULL when there is none. */
JsonObject        *bridge_detached_recv           (LumoBridgeSession *session);
/* The next message must match @expected_json (bridge_json_matches()). */
void               bridge_detached_expect         (LumoBridgeSession *session,
                                                   const char        *expected_json);
void               bridge_detached_expect_nothing (LumoBridgeSession *session);
/* A detached session of TEST_PROVIDER_ID in env's backend that said
 * BRIDGE_TEST_HELLO (its answer taken). */
LumoBridgeSession *bridge_detached_hello          (BridgeTestEnv     *env);

