/* test-cli-agents.c — lumo-access-ctl agents, agents add, agents remove
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The token is printed once, by "agents add" (with --json, beside the
 * set-ups), and nowhere else; the agent is a caller of kind agent that
 * allow and deny work on; bad input changes nothing.
 */
#define G_LOG_DOMAIN "test-cli"

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "lumo-error.h"
#include "lumo-policy.h"

#include "cli-test-util.h"

/* The one token in @text: "lumo_" + 32 letters + "_" + 43 characters. */
static char *
find_token (const char *text)
{
  g_autoptr(GRegex) regex = g_regex_new ("lumo_[a-p]{32}_[A-Za-z0-9_-]{43}", 0, 0, NULL);
  g_autoptr(GMatchInfo) match = NULL;
  char *token;

  g_assert_true (g_regex_match (regex, text, 0, &match));
  token = g_match_info_fetch (match, 0);
  g_assert_true (g_match_info_next (match, NULL) == FALSE);
  return token;
}

static guint
count_agents (Fixture *f)
{
  g_autoptr(GPtrArray) agents = lumo_policy_list_agents (policy (f), NULL);

  return agents->len;
}

static void
test_add_list_remove (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(LumoCallerInfo) caller = NULL;
  g_autoptr(GDir) dir = NULL;
  g_autofree char *token = NULL;
  g_autofree char *id = NULL;
  const char *name;
  JsonObject *agent;

  register_provider (f, TEST_PROVIDER_ID, "Lumo Userscripts");
  g_assert_true (lumo_policy_add_provider (policy (f), TEST_PROVIDER2_ID, LUMO_POLICY_ORIGIN_UI, &error));

  g_assert_cmpint (run_ctl (f, "agents"), ==, 0);
  g_assert_nonnull (strstr (f->out, "No desktop agents"));

  /* Without --provider: every known provider. */
  g_assert_cmpint (run_ctl (f, "agents", "add", "Claude Code"), ==, 0);
  token = find_token (f->out);
  g_assert_nonnull (strstr (f->out, "http://127.0.0.1:8137/mcp/userscripts"));
  id = lumo_policy_authenticate_agent (policy (f), token, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (f->out, id));
  caller = lumo_policy_get_caller (policy (f), TEST_PROVIDER2_ID, id, &error);
  g_assert_no_error (error);
  g_assert_cmpint (caller->state, ==, LUMO_CALLER_STATE_ALLOWED);
  g_assert_cmpint (caller->kind, ==, LUMO_CALLER_KIND_AGENT);

  /* Listing never shows the token. */
  g_assert_cmpint (run_ctl (f, "agents", "--json"), ==, 0);
  g_assert_null (strstr (f->out, token + 38));
  root = lumo_test_parse_json (f->out);
  g_assert_cmpuint (json_array_get_length (json_node_get_array (root)), ==, 1);
  agent = json_array_get_object_element (json_node_get_array (root), 0);
  g_assert_cmpstr (json_object_get_string_member (agent, "id"), ==, id);
  g_assert_cmpstr (json_object_get_string_member (agent, "name"), ==, "Claude Code");
  g_assert_false (json_object_has_member (agent, "token"));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (agent, "providers")), ==, 2);
  g_assert_cmpint (run_ctl (f, "agents"), ==, 0);
  g_assert_nonnull (strstr (f->out, "Claude Code"));
  g_assert_null (strstr (f->out, token + 38));

  /* Callers say which are desktop agents. */
  g_assert_cmpint (run_ctl (f, "callers", "--json"), ==, 0);
  g_clear_pointer (&root, json_node_unref);
  root = lumo_test_parse_json (f->out);
  for (guint i = 0; i < json_array_get_length (json_node_get_array (root)); i++)
    g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (json_node_get_array (root), i),
                                                    "kind"), ==, "agent");
  g_assert_cmpint (run_ctl (f, "callers"), ==, 0);
  g_assert_nonnull (strstr (f->out, "desktop agent"));
  g_assert_cmpint (run_ctl (f, "history"), ==, 0);
  g_assert_nonnull (strstr (f->out, "Claude Code"));
  g_assert_null (strstr (f->out, token + 38));

  /* Removed: the token stops working. */
  g_assert_cmpint (run_ctl (f, "agents", "remove", id), ==, 0);
  g_assert_nonnull (strstr (f->out, "Claude Code"));
  g_assert_null (lumo_policy_authenticate_agent (policy (f), token, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND);
  g_clear_error (&error);
  g_assert_cmpint (run_ctl (f, "agents", "remove", id), ==, 1);
  g_assert_cmpint (count_agents (f), ==, 0);

  /* And "undo" brings it back. */
  g_assert_cmpint (run_ctl (f, "undo"), ==, 0);
  g_assert_cmpint (count_agents (f), ==, 1);

  /* The token is in no file of the data directory. Last, with the policy
   * closed: opening and closing a database file in this process would
   * drop its SQLite locks. */
  g_clear_object (&f->policy);
  dir = g_dir_open (f->data_dir, 0, &error);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (f->data_dir, name, NULL);

      g_assert_false (lumo_test_file_contains (path, token + 38));
    }
}

static void
test_add_json (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *found = NULL;
  JsonObject *added;
  JsonArray *providers;
  JsonObject *setups;
  const char *token;

  register_provider (f, TEST_PROVIDER_ID, "Lumo Userscripts");
  g_assert_true (lumo_policy_add_provider (policy (f), TEST_PROVIDER2_ID, LUMO_POLICY_ORIGIN_UI, &error));

  g_assert_cmpint (run_ctl (f, "agents", "add", "--json", "Cursor", "--provider", TEST_PROVIDER_ID,
                            "-p", TEST_PROVIDER2_ID, "-p", TEST_PROVIDER_ID), ==, 0);
  root = lumo_test_parse_json (f->out);
  added = json_node_get_object (root);
  token = json_object_get_string_member (added, "token");
  found = lumo_policy_authenticate_agent (policy (f), token, &error);
  g_assert_cmpstr (found, ==, json_object_get_string_member (added, "id"));
  g_assert_cmpstr (json_object_get_string_member (added, "name"), ==, "Cursor");

  /* Each provider once; the one that said hello has its set-ups. */
  providers = json_object_get_array_member (added, "providers");
  g_assert_cmpuint (json_array_get_length (providers), ==, 2);
  setups = json_object_get_object_member (json_array_get_object_element (providers, 0), "setups");
  g_assert_cmpstr (json_object_get_string_member (setups, "url"), ==, "http://127.0.0.1:8137/mcp/userscripts");
  g_assert_nonnull (strstr (json_object_get_string_member (setups, "claudeCode"), token));
  g_assert_nonnull (strstr (json_object_get_string_member (setups, "vscode"), "\"type\": \"http\""));
  g_assert_nonnull (strstr (json_object_get_string_member (setups, "claudeDesktop"), "LUMO_ACCESS_TOKEN"));
  g_assert_true (JSON_NODE_HOLDS_NULL (json_object_get_member (json_array_get_object_element (providers, 1),
                                                               "setups")));

  /* Only an explicit --provider: not the others. */
  g_clear_pointer (&root, json_node_unref);
  g_assert_cmpint (run_ctl (f, "agents", "add", "Codex", "-p", TEST_PROVIDER2_ID), ==, 0);
  {
    g_autofree char *codex_token = find_token (f->out);
    g_autofree char *codex = lumo_policy_authenticate_agent (policy (f), codex_token, &error);

    g_assert_null (lumo_policy_get_caller (policy (f), TEST_PROVIDER_ID, codex, NULL));
  }
}

static void
test_allow_deny (Fixture       *f,
                 gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(LumoCallerInfo) other = NULL;
  g_autoptr(LumoCallerInfo) denied = NULL;
  g_autofree char *token = NULL;
  g_autofree char *id = NULL;

  register_provider (f, TEST_PROVIDER_ID, "Lumo Userscripts");
  g_assert_true (lumo_policy_add_provider (policy (f), TEST_PROVIDER2_ID, LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_cmpint (run_ctl (f, "agents", "add", "Claude Code", "-p", TEST_PROVIDER_ID), ==, 0);
  token = find_token (f->out);
  id = lumo_policy_authenticate_agent (policy (f), token, &error);

  /* The agent's ID works where a caller's does. */
  g_assert_cmpint (run_ctl (f, "allow", id, "--provider", TEST_PROVIDER2_ID), ==, 0);
  other = lumo_policy_get_caller (policy (f), TEST_PROVIDER2_ID, id, &error);
  g_assert_cmpint (other->state, ==, LUMO_CALLER_STATE_ALLOWED);
  g_assert_cmpint (other->kind, ==, LUMO_CALLER_KIND_AGENT);

  g_assert_cmpint (run_ctl (f, "deny", id, "--provider", TEST_PROVIDER_ID), ==, 0);
  denied = lumo_policy_get_caller (policy (f), TEST_PROVIDER_ID, id, &error);
  g_assert_cmpint (denied->state, ==, LUMO_CALLER_STATE_DENIED);
}

static void
test_bad_input (Fixture       *f,
                gconstpointer  data)
{
  g_autofree char *before = NULL;

  /* IDs are checked before policy.db is even made. */
  g_assert_cmpint (run_ctl (f, "agents", "add", "Claude Code", "--provider", TEST_BAD_ID_UPPER), ==, 2);
  g_assert_cmpint (run_ctl (f, "agents", "remove", TEST_BAD_ID_SHORT), ==, 2);
  g_assert_false (g_file_test (f->policy_path, G_FILE_TEST_EXISTS));

  register_provider (f, TEST_PROVIDER_ID, "Lumo Userscripts");
  g_assert_cmpint (run_ctl (f, "agents", "add"), ==, 2);
  g_assert_cmpint (run_ctl (f, "agents", "add", "a", "b"), ==, 2);
  g_assert_cmpint (run_ctl (f, "agents", "add", ""), ==, 2);
  g_assert_cmpint (run_ctl (f, "agents", "add", "\u202e\u200e"), ==, 2);
  g_assert_cmpint (run_ctl (f, "agents", "add", "Claude Code", "-p", TEST_UNKNOWN_ID), ==, 1);
  g_assert_nonnull (strstr (f->err, TEST_UNKNOWN_ID));
  g_assert_cmpint (run_ctl (f, "agents", "remove", TEST_UNKNOWN_ID), ==, 1);
  g_assert_cmpint (run_ctl (f, "agents", "extra"), ==, 2);
  g_assert_cmpint (run_ctl (f, "agents", "--no-such-option"), ==, 2);
  g_assert_null (strstr (f->out, "lumo_"));
  g_assert_cmpint (count_agents (f), ==, 0);

  g_assert_cmpint (run_ctl (f, "agents", "add", "--help"), ==, 0);
  g_assert_nonnull (strstr (f->out, "--provider"));
  g_assert_cmpint (count_agents (f), ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(name, func) \
  g_test_add ("/cli/agents/" name, Fixture, NULL, fixture_set_up, func, fixture_tear_down)

  ADD ("add-list-remove", test_add_list_remove);
  ADD ("add-json", test_add_json);
  ADD ("allow-deny", test_allow_deny);
  ADD ("bad-input", test_bad_input);

#undef ADD

  return g_test_run ();
}
