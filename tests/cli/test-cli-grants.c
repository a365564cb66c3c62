/* test-cli-grants.c — lumo-access-ctl grants and revoke-grant
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The grants are made the way the app makes them (a review approved for
 * ten minutes or always, here straight through the policy); the CLI lists
 * them, revokes one in the same policy.db, and its change is a history
 * entry that "undo" reverts, as every other.
 */
#define G_LOG_DOMAIN "test-cli"

#include "config.h"

#include <string.h>

#include "lumo-error.h"
#include "cli-test-util.h"

#define TOOL       "userscripts.save_script"
#define OTHER_TOOL "userscripts.remove_script"

static guint
n_grants (Fixture *f)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) grants = lumo_policy_list_grants (policy (f), NULL, &error);

  g_assert_no_error (error);
  return grants->len;
}

static guint
history_count (Fixture *f)
{
  g_autoptr(GPtrArray) history = lumo_policy_list_history (policy (f), 0, NULL);

  return history->len;
}

static void
grant (Fixture        *f,
       const char     *tool,
       LumoGrantScope  scope)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (lumo_policy_add_grant (policy (f), TEST_PROVIDER_ID, TEST_CALLER_ID, tool, scope,
                                        LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_no_error (error);
}

static void
set_scene (Fixture *f)
{
  g_autoptr(GError) error = NULL;

  register_provider (f, TEST_PROVIDER_ID, "Lumo Userscripts");
  g_assert_true (lumo_policy_allow_caller (policy (f), TEST_PROVIDER_ID, TEST_CALLER_ID,
                                           LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_no_error (error);
}

static void
test_list (Fixture       *f,
           gconstpointer  data)
{
  g_autoptr(JsonNode) root = NULL;
  JsonObject *always, *timed;
  JsonArray *array;

  set_scene (f);
  g_assert_cmpint (run_ctl (f, "grants"), ==, 0);
  g_assert_nonnull (strstr (f->out, "No review grants"));
  g_assert_cmpint (run_ctl (f, "grants", "--json"), ==, 0);
  g_assert_cmpuint (json_array_length_of_out (f), ==, 0);

  grant (f, TOOL, LUMO_GRANT_SCOPE_ALWAYS);
  grant (f, OTHER_TOOL, LUMO_GRANT_SCOPE_TEN_MINUTES);

  g_assert_cmpint (run_ctl (f, "grants"), ==, 0);
  g_assert_nonnull (strstr (f->out, TOOL));
  g_assert_nonnull (strstr (f->out, OTHER_TOOL));
  g_assert_nonnull (strstr (f->out, TEST_CALLER_ID));
  g_assert_nonnull (strstr (f->out, "always"));
  g_assert_nonnull (strstr (f->out, "10m"));

  g_assert_cmpint (run_ctl (f, "grants", "--json"), ==, 0);
  root = lumo_test_parse_json (f->out);
  array = json_node_get_array (root);
  g_assert_cmpuint (json_array_get_length (array), ==, 2);
  /* By provider, caller, tool: remove_script before save_script. */
  timed = json_array_get_object_element (array, 0);
  always = json_array_get_object_element (array, 1);
  g_assert_cmpstr (json_object_get_string_member (always, "provider"), ==, TEST_PROVIDER_ID);
  g_assert_cmpstr (json_object_get_string_member (always, "caller"), ==, TEST_CALLER_ID);
  g_assert_cmpstr (json_object_get_string_member (always, "tool"), ==, TOOL);
  g_assert_cmpstr (json_object_get_string_member (always, "scope"), ==, "always");
  g_assert_true (json_object_get_null_member (always, "expires"));
  g_assert_cmpstr (json_object_get_string_member (timed, "scope"), ==, "10m");
  g_assert_true (g_str_has_suffix (json_object_get_string_member (timed, "expires"), "Z"));
  g_assert_nonnull (json_object_get_string_member (timed, "created"));

  /* Another provider has none; a bad provider ID is a wrong command line. */
  g_assert_cmpint (run_ctl (f, "grants", "--provider", TEST_PROVIDER2_ID, "--json"), ==, 0);
  g_assert_cmpuint (json_array_length_of_out (f), ==, 0);
  g_assert_cmpint (run_ctl (f, "grants", "--provider", TEST_BAD_ID_SHORT), ==, 2);
}

static void
test_revoke_and_undo (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(JsonNode) root = NULL;
  JsonObject *entry;

  set_scene (f);
  grant (f, TOOL, LUMO_GRANT_SCOPE_ALWAYS);

  g_assert_cmpint (run_ctl (f, "revoke-grant", TEST_PROVIDER_ID, TEST_CALLER_ID, TOOL), ==, 0);
  g_assert_nonnull (strstr (f->out, "Revoked the grant of " TOOL));
  /* The app's policy sees it at once. */
  g_assert_cmpuint (n_grants (f), ==, 0);

  g_assert_cmpint (run_ctl (f, "history", "--limit", "1", "--json"), ==, 0);
  root = lumo_test_parse_json (f->out);
  entry = json_array_get_object_element (json_node_get_array (root), 0);
  g_assert_cmpstr (json_object_get_string_member (entry, "field"), ==, "grant");
  g_assert_cmpstr (json_object_get_string_member (entry, "tool"), ==, TOOL);
  g_assert_cmpstr (json_object_get_string_member (entry, "origin"), ==, "cli");
  g_assert_cmpstr (json_object_get_string_member (entry, "old"), ==, "always");
  g_assert_true (json_object_get_null_member (entry, "new"));
  g_assert_cmpint (run_ctl (f, "history"), ==, 0);
  g_assert_nonnull (strstr (f->out, "grant " TOOL));

  /* Not there twice: the policy's words, exit 1. */
  g_assert_cmpint (run_ctl (f, "revoke-grant", TEST_PROVIDER_ID, TEST_CALLER_ID, TOOL), ==, 1);
  g_assert_nonnull (strstr (f->err, "has no review grant"));

  g_assert_cmpint (run_ctl (f, "undo"), ==, 0);
  g_assert_nonnull (strstr (f->out, "the grant of " TOOL));
  g_assert_cmpuint (n_grants (f), ==, 1);
}

/* A wrong command line changes nothing and opens no database. */
static void
test_bad_input (Fixture       *f,
                gconstpointer  data)
{
  guint before;

  set_scene (f);
  grant (f, TOOL, LUMO_GRANT_SCOPE_ALWAYS);
  before = history_count (f);

  g_assert_cmpint (run_ctl (f, "revoke-grant", TEST_BAD_ID_UPPER, TEST_CALLER_ID, TOOL), ==, 2);
  g_assert_nonnull (strstr (f->err, "provider ID"));
  g_assert_cmpint (run_ctl (f, "revoke-grant", TEST_PROVIDER_ID, TEST_BAD_ID_DIGIT, TOOL), ==, 2);
  g_assert_nonnull (strstr (f->err, "caller ID"));
  g_assert_cmpint (run_ctl (f, "revoke-grant", TEST_PROVIDER_ID, TEST_CALLER_ID, "save_script"), ==, 2);
  g_assert_nonnull (strstr (f->err, "not a qualified name"));
  g_assert_cmpint (run_ctl (f, "revoke-grant", TEST_PROVIDER_ID, TEST_CALLER_ID), ==, 2);
  g_assert_cmpint (run_ctl (f, "revoke-grant", TEST_PROVIDER_ID, TEST_CALLER_ID, TOOL, TOOL), ==, 2);

  g_assert_cmpuint (history_count (f), ==, before);
  g_assert_cmpuint (n_grants (f), ==, 1);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(name, func) \
  g_test_add ("/cli/grants/" name, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("list", test_list);
  ADD ("revoke-and-undo", test_revoke_and_undo);
  ADD ("bad-input", test_bad_input);
#undef ADD

  return g_test_run ();
}
