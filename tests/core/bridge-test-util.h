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

/* Registered by test-bridge-frames.c and test-bridge-scenario.c. */
void       bridge_add_frame_tests    (void);
void       bridge_add_scenario_tests (void);

G_END_DECLS
