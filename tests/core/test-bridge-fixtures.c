/* test-bridge-fixtures.c — the shared bridge fixtures, read by the C side
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * tests/fixtures/bridge/ is the contract between the app and the provider
 * extension (docs/bridge-protocol.md); the extension's tests read the same
 * files. Here every provider → app message is parsed and gets exactly the
 * documented error; every app → provider message is validated, rebuilt with
 * the app's builders from its own values and compared; every raw frame
 * decodes to the documented error; and every scenario is played against a
 * real backend session (test-bridge-scenario.c).
 */
#include "config.h"

#include <string.h>

#include "lumo-bridge-message.h"
#include "lumo-error.h"
#include "lumo-frame.h"
#include "lumo-protocol.h"

#include "bridge-test-util.h"

/* ---- provider → app ------------------------------------------------------ */

static JsonNode *
member_or_null (JsonObject *object,
                const char *name)
{
  JsonNode *node = json_object_get_member (object, name);

  return node != NULL && !JSON_NODE_HOLDS_NULL (node) ? node : NULL;
}

/* A hello or tools answer in a fixture lists the accepted names and the
 * refusals: the catalogue check must agree entry by entry. */
static void
check_catalogue (JsonObject *message,
                 JsonObject *answer,
                 const char *name)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(LumoCatalogue) catalogue = NULL;
  JsonObject *expect_tools;
  JsonArray *accepted;
  JsonArray *refused;
  const char *ns = "userscripts";

  if (!json_object_has_member (answer, "tools") || !JSON_NODE_HOLDS_OBJECT (json_object_get_member (answer, "tools")))
    return;
  expect_tools = json_object_get_object_member (answer, "tools");

  if (json_object_has_member (message, "service"))
    ns = json_object_get_string_member (json_object_get_object_member (message, "service"), "namespace");

  catalogue = lumo_bridge_validate_catalogue (ns, json_object_get_array_member (message, "tools"), &error);
  g_assert_no_error (error);

  accepted = json_object_get_array_member (expect_tools, "accepted");
  refused = json_object_get_array_member (expect_tools, "refused");
  g_assert_cmpuint (catalogue->tools->len, ==, json_array_get_length (accepted));
  for (guint i = 0; i < catalogue->tools->len; i++)
    {
      LumoToolInfo *info = g_ptr_array_index (catalogue->tools, i);

      g_assert_cmpstr (info->name, ==, json_array_get_string_element (accepted, i));
    }

  if (g_test_verbose () && catalogue->refusals->len != json_array_get_length (refused))
    g_printerr ("%s: %u refusals\n", name, catalogue->refusals->len);
  g_assert_cmpuint (catalogue->refusals->len, ==, json_array_get_length (refused));
  for (guint i = 0; i < catalogue->refusals->len; i++)
    {
      LumoToolRefusal *refusal = g_ptr_array_index (catalogue->refusals, i);
      JsonObject *expect = json_array_get_object_element (refused, i);
      JsonNode *expect_name = member_or_null (expect, "name");

      g_assert_cmpint (refusal->index, ==, json_object_get_int_member (expect, "index"));
      /* The answer cuts long names; the catalogue keeps them whole. */
      if (expect_name == NULL)
        g_assert_null (refusal->name);
      else
        g_assert_true (g_str_has_prefix (refusal->name, json_node_get_string (expect_name)));
      g_assert_cmpstr (lumo_bridge_refusal_reason (refusal->code), ==,
                       json_object_get_string_member (expect, "reason"));
      g_assert_nonnull (refusal->reason);
    }

  /* And the answer the app builds from it is one the provider accepts. */
  {
    g_autoptr(GPtrArray) names = g_ptr_array_new ();
    g_autoptr(JsonObject) built = NULL;
    g_autofree char *field = NULL;

    for (guint i = 0; i < catalogue->tools->len; i++)
      g_ptr_array_add (names, ((LumoToolInfo *) g_ptr_array_index (catalogue->tools, i))->name);
    g_ptr_array_add (names, NULL);
    built = lumo_bridge_build_hello_result (json_object_get_member (message, "id"), "0.1.0",
                                            TRUE, TRUE, FALSE,
                                            (const char * const *) names->pdata, catalogue->refusals);
    g_assert_true (lumo_bridge_validate_app_message (built, &field, &error));
    g_assert_no_error (error);
    g_assert_true (bridge_json_matches (json_object_get_member (built, "tools"),
                                        json_object_get_member (answer, "tools"), NULL));
  }
}

/* `recommended` in a fixture: the customMarketMcpServers the app keeps,
 * null when the member is absent or not an array. */
static void
check_recommended (LumoBridgeMessage *parsed,
                   JsonNode          *expect,
                   const char        *name)
{
  JsonArray *array;

  if (JSON_NODE_HOLDS_NULL (expect))
    {
      g_assert_null (parsed->recommended_servers);
      return;
    }

  array = json_node_get_array (expect);
  g_assert_nonnull (parsed->recommended_servers);
  g_assert_cmpuint (parsed->recommended_servers->len, ==, json_array_get_length (array));
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonObject *e = json_array_get_object_element (array, i);
      LumoRecommendedServer *server = g_ptr_array_index (parsed->recommended_servers, i);

      g_assert_cmpstr (server->id, ==, json_object_get_string_member (e, "id"));
      g_assert_cmpstr (server->name, ==, json_object_get_string_member (e, "name"));
      g_assert_cmpstr (server->url, ==, json_object_get_string_member (e, "url"));
      g_assert_cmpstr (server->description, ==, json_object_get_string_member_with_default (e, "description", NULL));
      g_assert_cmpstr (server->transport, ==, json_object_get_string_member_with_default (e, "type", NULL));
    }
}

static void
check_provider_case (JsonObject *c)
{
  const char *name = json_object_get_string_member (c, "name");
  JsonObject *message = json_object_get_object_member (c, "message");
  gboolean valid = json_object_get_boolean_member (c, "valid");
  g_autoptr(LumoBridgeFault) fault = NULL;
  g_autoptr(LumoBridgeMessage) parsed = NULL;

  g_test_message ("case: %s", name);
  parsed = lumo_bridge_message_parse (message, &fault);

  if (valid)
    {
      if (fault != NULL)
        g_error ("“%s” should be valid, got %s (%s): %s", name,
                 lumo_bridge_error_code_to_string (fault->code), fault->field, fault->message);
      g_assert_nonnull (parsed);

      if (json_object_has_member (c, "recommended"))
        check_recommended (parsed, json_object_get_member (c, "recommended"), name);

      if (json_object_has_member (c, "answer"))
        {
          JsonObject *answer = json_object_get_object_member (c, "answer");

          if (parsed->tools != NULL)
            check_catalogue (message, answer, name);
          if (json_object_has_member (answer, "re"))
            g_assert_true (json_node_equal (json_object_get_member (answer, "re"), parsed->id));
        }
      return;
    }

  {
    JsonObject *expect = json_object_get_object_member (c, "error");
    JsonNode *code = member_or_null (expect, "code");
    JsonNode *field = member_or_null (expect, "field");

    if (parsed != NULL)
      g_error ("“%s” should be refused", name);
    g_assert_nonnull (fault);
    g_assert_nonnull (fault->message);
    g_assert_true (g_utf8_validate (fault->message, -1, NULL));

    if (code == NULL)
      {
        /* A bad answer of the provider is dropped, never answered. */
        g_assert_false (fault->answerable);
      }
    else
      {
        g_autoptr(JsonObject) answer = NULL;
        g_autofree char *bad_field = NULL;
        g_autoptr(GError) error = NULL;
        JsonNode *re = json_object_get_member (expect, "re");

        g_assert_true (fault->answerable);
        if (g_strcmp0 (lumo_bridge_error_code_to_string (fault->code), json_node_get_string (code)) != 0)
          g_error ("“%s”: expected %s, got %s (%s)", name, json_node_get_string (code),
                   lumo_bridge_error_code_to_string (fault->code), fault->message);

        answer = lumo_bridge_build_error (fault);
        g_assert_true (lumo_bridge_validate_app_message (answer, &bad_field, &error));
        g_assert_no_error (error);
        g_assert_true (re != NULL);
        g_assert_true (json_node_equal (json_object_get_member (answer, "re"), re));
      }

    if (field != NULL)
      g_assert_cmpstr (fault->field, ==, json_node_get_string (field));
  }
}

/* ---- app → provider ------------------------------------------------------ */

static int
refusal_code (const char *reason)
{
  if (g_str_equal (reason, "invalid_name"))
    return LUMO_ERROR_INVALID_NAME;
  if (g_str_equal (reason, "limit"))
    return LUMO_ERROR_LIMIT_EXCEEDED;
  if (g_str_equal (reason, "duplicate"))
    return LUMO_ERROR_DUPLICATE;
  return LUMO_ERROR_INVALID_ARGUMENT;
}

static void
read_tools (JsonObject  *message,
            GStrv       *accepted,
            GPtrArray  **refusals)
{
  JsonObject *tools = json_object_get_object_member (message, "tools");
  JsonArray *names = json_object_get_array_member (tools, "accepted");
  JsonArray *refused = json_object_get_array_member (tools, "refused");
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  for (guint i = 0; i < json_array_get_length (names); i++)
    g_strv_builder_add (builder, json_array_get_string_element (names, i));
  *accepted = g_strv_builder_end (builder);

  *refusals = g_ptr_array_new_with_free_func ((GDestroyNotify) lumo_tool_refusal_free);
  /* Reversed on purpose: the builder sorts by index. */
  for (guint i = json_array_get_length (refused); i > 0; i--)
    {
      JsonObject *entry = json_array_get_object_element (refused, i - 1);
      LumoToolRefusal *refusal = g_new0 (LumoToolRefusal, 1);
      JsonNode *name = member_or_null (entry, "name");

      refusal->index = json_object_get_int_member (entry, "index");
      refusal->name = name ? g_strdup (json_node_get_string (name)) : NULL;
      refusal->code = refusal_code (json_object_get_string_member (entry, "reason"));
      refusal->reason = g_strdup (json_object_get_string_member (entry, "message"));
      g_ptr_array_add (*refusals, refusal);
    }
}

static JsonObject *
rebuild (JsonObject *m)
{
  const char *type = json_object_get_string_member (m, "type");
  JsonNode *re = member_or_null (m, "re");

  if (g_str_equal (type, "hello.result"))
    {
      JsonObject *policy = json_object_get_object_member (m, "policy");
      g_auto(GStrv) accepted = NULL;
      g_autoptr(GPtrArray) refusals = NULL;

      read_tools (m, &accepted, &refusals);
      return lumo_bridge_build_hello_result (re,
                                             json_object_get_string_member (json_object_get_object_member (m, "app"), "version"),
                                             json_object_get_boolean_member (policy, "enabled"),
                                             json_object_get_boolean_member (policy, "writes"),
                                             json_object_get_boolean_member (policy, "review"),
                                             (const char * const *) accepted, refusals);
    }
  if (g_str_equal (type, "tools.result"))
    {
      g_auto(GStrv) accepted = NULL;
      g_autoptr(GPtrArray) refusals = NULL;

      read_tools (m, &accepted, &refusals);
      return lumo_bridge_build_tools_result (re, (const char * const *) accepted, refusals);
    }
  if (g_str_equal (type, "probe.result"))
    {
      JsonObject *s = json_object_get_object_member (m, "status");

      return lumo_bridge_build_probe_result (re,
                                             json_object_get_boolean_member (s, "enabled"),
                                             json_object_get_boolean_member (s, "authorized"),
                                             json_object_get_boolean_member (s, "ready"),
                                             json_object_get_boolean_member (s, "pendingApproval"));
    }
  if (g_str_equal (type, "authorize.result"))
    {
      gboolean allow = json_object_get_boolean_member (m, "allow");
      const char *reason = json_object_get_string_member_with_default (m, "reason", NULL);
      gint64 retry = json_object_get_int_member_with_default (m, "retryAfterMs", -1);
      gint64 audit = json_object_get_int_member_with_default (m, "auditId", 0);
      g_autofree char *standard = lumo_bridge_decision_message (reason, retry);

      /* The fixtures use the app's own sentences. */
      g_assert_cmpstr (standard, ==, json_object_get_string_member (m, "message"));
      return lumo_bridge_build_authorize_result (re, allow, reason, retry, audit, NULL);
    }
  if (g_str_equal (type, "result.result") || g_str_equal (type, "port.result"))
    return lumo_bridge_build_empty_result (type, re);
  if (g_str_equal (type, "error"))
    {
      LumoBridgeErrorCode code;
      g_autoptr(LumoBridgeFault) fault = NULL;

      g_assert_true (lumo_bridge_error_code_from_string (json_object_get_string_member (m, "code"), &code));
      fault = lumo_bridge_fault_new (code, re, json_object_get_string_member_with_default (m, "field", NULL),
                                     "%s", json_object_get_string_member (m, "message"));
      return lumo_bridge_build_error (fault);
    }
  if (g_str_equal (type, "policy"))
    {
      JsonArray *revoked = json_object_get_array_member (m, "revoked");
      g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
      g_auto(GStrv) ids = NULL;

      for (guint i = 0; i < json_array_get_length (revoked); i++)
        g_strv_builder_add (builder, json_array_get_string_element (revoked, i));
      ids = g_strv_builder_end (builder);
      return lumo_bridge_build_policy (json_object_get_boolean_member (m, "enabled"),
                                       json_object_get_boolean_member (m, "writes"),
                                       json_object_get_boolean_member (m, "review"),
                                       (const char * const *) ids);
    }
  if (g_str_equal (type, "probeTarget"))
    return lumo_bridge_build_probe_target (json_object_get_string_member (m, "id"),
                                           json_object_get_string_member (m, "target"));
  if (g_str_equal (type, "agentOpen"))
    {
      JsonObject *caller = json_object_get_object_member (m, "caller");

      return lumo_bridge_build_agent_open (json_object_get_member (m, "id"),
                                           json_object_get_string_member (m, "port"),
                                           json_object_get_string_member (caller, "id"),
                                           json_object_get_string_member (caller, "name"));
    }
  if (g_str_equal (type, "agentMessage"))
    {
      JsonObject *d = json_object_get_member (m, "decision") != NULL
                      ? json_object_get_object_member (m, "decision") : NULL;
      g_autoptr(JsonObject) decision = NULL;

      if (d != NULL)
        {
          const char *reason = json_object_get_string_member_with_default (d, "reason", NULL);
          g_autofree char *standard = lumo_bridge_decision_message (reason, -1);

          /* The fixtures use the app's own sentences. */
          g_assert_cmpstr (standard, ==, json_object_get_string_member (d, "message"));
          decision = lumo_bridge_build_relayed_decision (json_object_get_member (d, "id"),
                                                         json_object_get_string_member (d, "tool"), reason);
        }
      return lumo_bridge_build_agent_message (json_object_get_string_member (m, "port"),
                                              json_object_get_object_member (m, "message"), decision);
    }
  if (g_str_equal (type, "agentClose"))
    return lumo_bridge_build_agent_close (json_object_get_string_member (m, "port"),
                                          json_object_get_string_member (m, "reason"));

  g_error ("no builder for %s", type);
  return NULL;
}

static void
check_app_case (JsonObject *c)
{
  const char *name = json_object_get_string_member (c, "name");
  JsonObject *message = json_object_get_object_member (c, "message");
  gboolean valid = json_object_get_boolean_member (c, "valid");
  g_autoptr(GError) error = NULL;
  g_autofree char *field = NULL;
  gboolean ok;

  g_test_message ("case: %s", name);
  ok = lumo_bridge_validate_app_message (message, &field, &error);

  if (valid)
    {
      g_autoptr(JsonObject) built = NULL;
      g_autoptr(JsonNode) a = json_node_new (JSON_NODE_OBJECT);
      g_autoptr(JsonNode) b = json_node_new (JSON_NODE_OBJECT);

      if (!ok)
        g_error ("“%s” should be valid: %s", name, error->message);

      built = rebuild (message);
      json_node_set_object (a, built);
      json_node_set_object (b, message);
      if (!json_node_equal (a, b))
        g_error ("“%s”: the app builds\n%s\ninstead of\n%s", name,
                 bridge_json_to_string (a), bridge_json_to_string (b));
    }
  else
    {
      JsonObject *expect = json_object_get_object_member (c, "error");

      if (ok)
        g_error ("“%s” should be refused", name);
      g_assert_error (error, LUMO_ERROR, LUMO_ERROR_PROTOCOL);
      g_assert_cmpstr (field, ==, json_object_get_string_member (expect, "field"));
    }
}

static void
test_message_file (gconstpointer data)
{
  const char *path = data;
  g_autoptr(JsonNode) root = bridge_load_json (path);
  JsonObject *file = json_node_get_object (root);
  const char *direction = json_object_get_string_member (file, "direction");
  JsonArray *cases = json_object_get_array_member (file, "cases");
  guint n_valid = 0;
  guint n_invalid = 0;

  g_assert_cmpuint (json_array_get_length (cases), >, 0);
  for (guint i = 0; i < json_array_get_length (cases); i++)
    {
      JsonObject *c = json_array_get_object_element (cases, i);

      if (g_str_equal (direction, "provider-to-app"))
        check_provider_case (c);
      else if (g_str_equal (direction, "app-to-provider"))
        check_app_case (c);
      else
        g_error ("unknown direction %s", direction);

      if (json_object_get_boolean_member (c, "valid"))
        n_valid++;
      else
        n_invalid++;
    }

  /* Each file covers both sides: what must pass and what must not. */
  g_assert_cmpuint (n_valid, >, 0);
  g_assert_cmpuint (n_invalid, >, 0);
}

/* Every builder's output stays within what the provider accepts, even for
 * values a fixture would not think of. */
static void
test_builders_edge (void)
{
  g_autoptr(JsonNode) re = json_node_new (JSON_NODE_VALUE);
  g_autoptr(JsonObject) o = NULL;
  g_autoptr(GPtrArray) refusals = g_ptr_array_new_with_free_func ((GDestroyNotify) lumo_tool_refusal_free);
  LumoToolRefusal *bad = g_new0 (LumoToolRefusal, 1);
  g_autofree char *field = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *one = NULL;
  g_autofree char *many = NULL;

  json_node_set_int (re, 7);
  bad->index = 0;
  bad->name = g_strdup ("\xff\xfe");   /* not UTF-8: must become null */
  bad->code = LUMO_ERROR_INVALID_NAME;
  bad->reason = g_strdup ("Tool 1: bad");
  g_ptr_array_add (refusals, bad);

  o = lumo_bridge_build_tools_result (re, NULL, refusals);
  g_assert_true (lumo_bridge_validate_app_message (o, &field, &error));
  g_assert_true (JSON_NODE_HOLDS_NULL (json_object_get_member (
    json_array_get_object_element (json_object_get_array_member (json_object_get_object_member (o, "tools"), "refused"), 0),
    "name")));

  one = lumo_bridge_decision_message ("rate_limited", 1);
  g_assert_nonnull (strstr (one, "1 second."));
  many = lumo_bridge_decision_message ("rate_limited", 17250);
  g_assert_nonnull (strstr (many, "18 seconds."));
  g_assert_false (lumo_bridge_is_deny_reason ("review_required"));
  g_assert_true (lumo_bridge_is_deny_reason ("audit_failed"));
}

/* The frame the helper and the app write when the app cannot serve a
 * provider at all is the fixture's "unavailable" case, which the provider
 * accepts, and it is built by the one builder both programs call. */
static void
test_unavailable (void)
{
  g_autofree char *dir = bridge_fixture_dir ();
  g_autofree char *path = g_build_filename (dir, "messages-app.json", NULL);
  g_autoptr(JsonNode) root = bridge_load_json (path);
  JsonArray *cases = json_object_get_array_member (json_node_get_object (root), "cases");
  JsonObject *expected = NULL;
  g_autoptr(JsonObject) built = NULL;
  g_autoptr(JsonNode) a = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(JsonNode) b = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(GBytes) frame = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *field = NULL;

  for (guint i = 0; i < json_array_get_length (cases); i++)
    {
      JsonObject *c = json_array_get_object_element (cases, i);

      if (g_str_equal (json_object_get_string_member (c, "name"), "unavailable"))
        expected = json_object_get_object_member (c, "message");
    }
  g_assert_nonnull (expected);

  built = lumo_bridge_build_unavailable (json_object_get_string_member (expected, "message"));
  json_node_set_object (a, built);
  json_node_set_object (b, expected);
  g_assert_true (json_node_equal (a, b));
  g_assert_true (lumo_bridge_validate_app_message (built, &field, &error));
  g_assert_no_error (error);

  frame = lumo_frame_encode (built, LUMO_FRAME_MAX_OUT, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_bytes_get_size (frame), >, LUMO_FRAME_HEADER_SIZE);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GPtrArray) files = NULL;

  g_test_init (&argc, &argv, NULL);

  files = bridge_fixture_files ("messages-");
  for (guint i = 0; i < files->len; i++)
    {
      const char *path = g_ptr_array_index (files, i);
      g_autofree char *base = g_path_get_basename (path);
      g_autofree char *test_path = g_strdup_printf ("/bridge-fixtures/%s", base);

      g_test_add_data_func (test_path, path, test_message_file);
    }
  g_test_add_func ("/bridge-fixtures/builders-edge", test_builders_edge);
  g_test_add_func ("/bridge-fixtures/unavailable", test_unavailable);
  bridge_add_frame_tests ();
  bridge_add_scenario_tests ();

  return g_test_run ();
}
