/* test-probe-status.c — the host-side state table, row by row
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <locale.h>
#include <string.h>
#include <libintl.h>

#include "lumo-error.h"
#include "lumo-probe-status.h"

#define FULL_SERVICE "\"service\":{\"namespace\":\"userscripts\",\"name\":\"Lumo Userscripts\",\"version\":\"1.0.1\"}"

static JsonNode *
parse (const char *json)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;

  json_parser_load_from_data (parser, json, -1, &error);
  g_assert_no_error (error);

  return json_node_copy (json_parser_get_root (parser));
}

/* Maps an answer given as JSON text (NULL: no answer at all). */
static LumoProbeRow
map_answer (const char      *json,
            LumoProbeState  *state,
            char           **message)
{
  g_autoptr(JsonNode) node = json ? parse (json) : NULL;
  g_autoptr(LumoProbeOutcome) outcome = lumo_probe_outcome_new (LUMO_PROBE_OUTCOME_ANSWER, NULL, node);

  return lumo_probe_status_map (outcome, state, message);
}

static void
assert_answer (const char   *json,
               LumoProbeRow  row,
               const char   *message)
{
  g_autofree char *got = NULL;
  LumoProbeState state = 99;

  g_test_message ("answer %s", json ? json : "(none)");
  g_assert_cmpint (map_answer (json, &state, &got), ==, row);
  g_assert_cmpint (state, ==, row == LUMO_PROBE_ROW_CONNECTED ? LUMO_PROBE_STATE_CONNECTED
                                                              : LUMO_PROBE_STATE_ERROR);
  g_assert_cmpstr (got, ==, message);
}

static void
test_row_rejected (void)
{
  g_autoptr(LumoProbeOutcome) outcome =
    lumo_probe_outcome_new (LUMO_PROBE_OUTCOME_REJECTED,
                            "Could not establish connection. Receiving end does not exist.", NULL);
  g_autofree char *message = NULL;
  LumoProbeState state = LUMO_PROBE_STATE_CONNECTED;

  g_assert_cmpint (lumo_probe_status_map (outcome, &state, &message), ==, LUMO_PROBE_ROW_REJECTED);
  g_assert_cmpint (state, ==, LUMO_PROBE_STATE_ERROR);
  g_assert_cmpstr (message, ==, "The extension is not installed, or has no agent endpoint.");
}

static void
test_row_timeout (void)
{
  g_autoptr(LumoProbeOutcome) outcome = NULL;
  g_autofree char *message = NULL;
  LumoProbeState state = LUMO_PROBE_STATE_CONNECTED;

  /* The raw error text, as given… */
  outcome = lumo_probe_outcome_new (LUMO_PROBE_OUTCOME_TIMEOUT, "probe timed out after 1500 ms", NULL);
  g_assert_cmpint (lumo_probe_status_map (outcome, &state, &message), ==, LUMO_PROBE_ROW_TIMEOUT);
  g_assert_cmpint (state, ==, LUMO_PROBE_STATE_ERROR);
  g_assert_cmpstr (message, ==, "probe timed out after 1500 ms");
  g_clear_pointer (&message, g_free);
  g_clear_pointer (&outcome, lumo_probe_outcome_free);

  /* …on one line… */
  outcome = lumo_probe_outcome_new (LUMO_PROBE_OUTCOME_TIMEOUT, "timed\nout\t", NULL);
  lumo_probe_status_map (outcome, NULL, &message);
  g_assert_cmpstr (message, ==, "timed out");
  g_clear_pointer (&message, g_free);
  g_clear_pointer (&outcome, lumo_probe_outcome_free);

  /* …and a text of our own when there is none. */
  outcome = lumo_probe_outcome_new (LUMO_PROBE_OUTCOME_TIMEOUT, "", NULL);
  lumo_probe_status_map (outcome, &state, &message);
  g_assert_cmpstr (message, ==, "No answer within 1500 ms.");
  g_clear_pointer (&message, g_free);
  g_clear_pointer (&outcome, lumo_probe_outcome_free);

  outcome = lumo_probe_outcome_new (LUMO_PROBE_OUTCOME_TIMEOUT, NULL, NULL);
  lumo_probe_status_map (outcome, &state, &message);
  g_assert_cmpstr (message, ==, "No answer within 1500 ms.");
}

static void
test_row_protocol_error (void)
{
  assert_answer ("{\"ok\":false,\"error\":\"unsupported probe version 2\"}",
                 LUMO_PROBE_ROW_PROTOCOL_ERROR, "unsupported probe version 2");
  assert_answer ("{\"ok\":false,\"reason\":\"bad channel\"}",
                 LUMO_PROBE_ROW_PROTOCOL_ERROR, "bad channel");
  assert_answer ("{\"ok\":false,\"error\":{\"code\":\"x\",\"message\":\"bad id\"}}",
                 LUMO_PROBE_ROW_PROTOCOL_ERROR, "bad id");
  assert_answer ("{\"ok\":false}",
                 LUMO_PROBE_ROW_PROTOCOL_ERROR, "The provider reported a protocol error.");
  assert_answer ("{\"ok\":false,\"error\":17}",
                 LUMO_PROBE_ROW_PROTOCOL_ERROR, "The provider reported a protocol error.");
  /* ok:false wins over everything after it in the table. */
  assert_answer ("{\"ok\":false,\"error\":\"e\"," FULL_SERVICE ","
                 "\"status\":{\"enabled\":false,\"authorized\":false,\"ready\":false}}",
                 LUMO_PROBE_ROW_PROTOCOL_ERROR, "e");
}

static void
test_row_incomplete (void)
{
  const char *incomplete[] = {
    "{\"ok\":true}",
    "{\"ok\":true," FULL_SERVICE "}",
    "{\"ok\":true,\"status\":{\"enabled\":true,\"authorized\":true,\"ready\":true}}",
    "{\"ok\":true,\"service\":\"userscripts\",\"status\":{\"enabled\":true,\"authorized\":true,\"ready\":true}}",
    "{\"ok\":true," FULL_SERVICE ",\"status\":[true,true,true]}",
    "{\"ok\":true," FULL_SERVICE ",\"status\":null}",
    /* Wrong types or missing fields inside status. */
    "{\"ok\":true," FULL_SERVICE ",\"status\":{\"enabled\":\"yes\",\"authorized\":true,\"ready\":true}}",
    "{\"ok\":true," FULL_SERVICE ",\"status\":{\"enabled\":1,\"authorized\":true,\"ready\":true}}",
    "{\"ok\":true," FULL_SERVICE ",\"status\":{\"authorized\":true,\"ready\":true}}",
    "{\"ok\":true," FULL_SERVICE ",\"status\":{\"enabled\":true,\"ready\":true}}",
    "{\"ok\":true," FULL_SERVICE ",\"status\":{\"enabled\":true,\"authorized\":true}}",
    "{\"ok\":true," FULL_SERVICE ",\"status\":{\"enabled\":true,\"authorized\":null,\"ready\":true}}",
    "{\"ok\":true," FULL_SERVICE ",\"status\":{\"enabled\":true,\"authorized\":false,\"ready\":true,\"pendingApproval\":\"yes\"}}",
    /* Incomplete comes before the policy rows: enabled:false is not read. */
    "{\"ok\":true,\"status\":{\"enabled\":false,\"authorized\":true,\"ready\":true}}",
  };

  for (guint i = 0; i < G_N_ELEMENTS (incomplete); i++)
    assert_answer (incomplete[i], LUMO_PROBE_ROW_INCOMPLETE, "The probe response is incomplete.");
}

static void
test_row_disabled (void)
{
  assert_answer ("{\"ok\":true," FULL_SERVICE ",\"status\":{\"enabled\":false,\"authorized\":true,"
                 "\"ready\":true,\"pendingApproval\":false}}",
                 LUMO_PROBE_ROW_DISABLED, "Agent access is turned off in the provider.");
  /* Disabled wins over not authorized and not ready. */
  assert_answer ("{\"ok\":true," FULL_SERVICE ",\"status\":{\"enabled\":false,\"authorized\":false,"
                 "\"ready\":false,\"pendingApproval\":true}}",
                 LUMO_PROBE_ROW_DISABLED, "Agent access is turned off in the provider.");
}

static void
test_row_pending (void)
{
  assert_answer ("{\"ok\":true," FULL_SERVICE ",\"status\":{\"enabled\":true,\"authorized\":false,"
                 "\"ready\":true,\"pendingApproval\":true}}",
                 LUMO_PROBE_ROW_PENDING_APPROVAL, "Waiting for your approval in the provider.");
  assert_answer ("{\"ok\":true," FULL_SERVICE ",\"status\":{\"enabled\":true,\"authorized\":false,"
                 "\"ready\":false,\"pendingApproval\":true}}",
                 LUMO_PROBE_ROW_PENDING_APPROVAL, "Waiting for your approval in the provider.");
}

static void
test_row_not_authorized (void)
{
  assert_answer ("{\"ok\":true," FULL_SERVICE ",\"status\":{\"enabled\":true,\"authorized\":false,"
                 "\"ready\":true,\"pendingApproval\":false}}",
                 LUMO_PROBE_ROW_NOT_AUTHORIZED, "The caller is not on the allow-list.");
  /* pendingApproval may be left out. */
  assert_answer ("{\"ok\":true," FULL_SERVICE ",\"status\":{\"enabled\":true,\"authorized\":false,"
                 "\"ready\":true}}",
                 LUMO_PROBE_ROW_NOT_AUTHORIZED, "The caller is not on the allow-list.");
  /* pendingApproval only matters while not authorized. */
  assert_answer ("{\"ok\":true," FULL_SERVICE ",\"status\":{\"enabled\":true,\"authorized\":true,"
                 "\"ready\":true,\"pendingApproval\":true}}",
                 LUMO_PROBE_ROW_CONNECTED, "Connected");
}

static void
test_row_not_ready (void)
{
  assert_answer ("{\"ok\":true," FULL_SERVICE ",\"status\":{\"enabled\":true,\"authorized\":true,"
                 "\"ready\":false,\"reason\":\"No userscripts are installed yet.\"}}",
                 LUMO_PROBE_ROW_NOT_READY, "No userscripts are installed yet.");
  assert_answer ("{\"ok\":true,\"reason\":\"Top-level reason\"," FULL_SERVICE ","
                 "\"status\":{\"enabled\":true,\"authorized\":true,\"ready\":false}}",
                 LUMO_PROBE_ROW_NOT_READY, "Top-level reason");
  assert_answer ("{\"ok\":true," FULL_SERVICE ",\"status\":{\"enabled\":true,\"authorized\":true,"
                 "\"ready\":false}}",
                 LUMO_PROBE_ROW_NOT_READY, "The provider is not ready.");
  assert_answer ("{\"ok\":true," FULL_SERVICE ",\"status\":{\"enabled\":true,\"authorized\":true,"
                 "\"ready\":false,\"reason\":\"  \"}}",
                 LUMO_PROBE_ROW_NOT_READY, "The provider is not ready.");
  assert_answer ("{\"ok\":true," FULL_SERVICE ",\"status\":{\"enabled\":true,\"authorized\":true,"
                 "\"ready\":false,\"reason\":{\"text\":\"x\"}}}",
                 LUMO_PROBE_ROW_NOT_READY, "The provider is not ready.");
}

static void
test_row_connected (void)
{
  g_autofree char *one = NULL;
  g_autofree char *many = NULL;

  assert_answer ("{\"ok\":true," FULL_SERVICE ",\"status\":{\"enabled\":true,\"authorized\":true,"
                 "\"ready\":true,\"pendingApproval\":false},\"extra\":[1,2]}",
                 LUMO_PROBE_ROW_CONNECTED, "Connected");

  one = lumo_probe_status_connected_message (1);
  many = lumo_probe_status_connected_message (12);
  g_assert_cmpstr (one, ==, "Connected · 1 tool");
  g_assert_cmpstr (many, ==, "Connected · 12 tools");
}

static void
test_malformed (void)
{
  assert_answer (NULL, LUMO_PROBE_ROW_PROTOCOL_ERROR,
                 "The probe response is not valid: the provider sent no answer.");
  assert_answer ("null", LUMO_PROBE_ROW_PROTOCOL_ERROR,
                 "The probe response is not valid: it is not a JSON object.");
  assert_answer ("[true]", LUMO_PROBE_ROW_PROTOCOL_ERROR,
                 "The probe response is not valid: it is not a JSON object.");
  assert_answer ("\"ok\"", LUMO_PROBE_ROW_PROTOCOL_ERROR,
                 "The probe response is not valid: it is not a JSON object.");
  assert_answer ("{}", LUMO_PROBE_ROW_PROTOCOL_ERROR,
                 "The probe response is not valid: the field “ok” is missing.");
  assert_answer ("{\"ok\":\"true\"," FULL_SERVICE ",\"status\":{\"enabled\":true,\"authorized\":true,\"ready\":true}}",
                 LUMO_PROBE_ROW_PROTOCOL_ERROR,
                 "The probe response is not valid: the field “ok” is not true or false.");
  assert_answer ("{\"ok\":1}", LUMO_PROBE_ROW_PROTOCOL_ERROR,
                 "The probe response is not valid: the field “ok” is not true or false.");
  assert_answer ("{\"ok\":null}", LUMO_PROBE_ROW_PROTOCOL_ERROR,
                 "The probe response is not valid: the field “ok” is not true or false.");
}

static void
test_foreign_text_bounded (void)
{
  g_autoptr(GString) json = g_string_new ("{\"ok\":false,\"error\":\"");
  g_autofree char *message = NULL;

  for (guint i = 0; i < 1000; i++)
    g_string_append (json, "ab");
  g_string_append (json, "\"}");

  map_answer (json->str, NULL, &message);
  g_assert_cmpint (g_utf8_strlen (message, -1), ==, 301);
  g_assert_true (g_str_has_suffix (message, "…"));
}

static void
test_from_json (void)
{
  struct { const char *json; LumoProbeOutcomeKind kind; const char *error; gboolean has_answer; } good[] = {
    { "{\"kind\":\"rejected\",\"error\":\"Could not establish connection\"}", LUMO_PROBE_OUTCOME_REJECTED, "Could not establish connection", FALSE },
    { "{\"kind\":\"timeout\",\"error\":\"timeout\"}", LUMO_PROBE_OUTCOME_TIMEOUT, "timeout", FALSE },
    { "{\"kind\":\"timeout\"}", LUMO_PROBE_OUTCOME_TIMEOUT, NULL, FALSE },
    { "{\"kind\":\"answer\",\"answer\":{\"ok\":true}}", LUMO_PROBE_OUTCOME_ANSWER, NULL, TRUE },
    { "{\"kind\":\"answer\",\"answer\":null}", LUMO_PROBE_OUTCOME_ANSWER, NULL, TRUE },
    { "{\"kind\":\"answer\"}", LUMO_PROBE_OUTCOME_ANSWER, NULL, FALSE },
    { "{\"kind\":\"answer\",\"error\":null,\"future\":1,\"answer\":{}}", LUMO_PROBE_OUTCOME_ANSWER, NULL, TRUE },
  };
  struct { const char *json; const char *needle; } bad[] = {
    { "[]", "JSON object" },
    { "{}", "kind" },
    { "{\"kind\":1}", "kind" },
    { "{\"kind\":\"answered\"}", "answered" },
    { "{\"kind\":\"Rejected\"}", "Rejected" },
    { "{\"kind\":\"timeout\",\"error\":5}", "error" },
    { "{\"kind\":\"rejected\",\"error\":{}}", "error" },
    { "{\"kind\":\"timeout\",\"answer\":{\"ok\":true}}", "answer" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (good); i++)
    {
      g_autoptr(JsonNode) node = parse (good[i].json);
      g_autoptr(GError) error = NULL;
      g_autoptr(LumoProbeOutcome) outcome = lumo_probe_outcome_from_json (node, &error);
      g_autoptr(LumoProbeOutcome) copy = NULL;

      g_assert_no_error (error);
      g_assert_cmpint (outcome->kind, ==, good[i].kind);
      g_assert_cmpstr (outcome->error, ==, good[i].error);
      g_assert_cmpint (outcome->answer != NULL, ==, good[i].has_answer);

      copy = lumo_probe_outcome_copy (outcome);
      g_assert_cmpint (copy->kind, ==, outcome->kind);
      g_assert_cmpstr (copy->error, ==, outcome->error);
      if (outcome->answer)
        g_assert_true (json_node_equal (copy->answer, outcome->answer));
    }

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(JsonNode) node = parse (bad[i].json);
      g_autoptr(GError) error = NULL;
      g_autoptr(LumoProbeOutcome) outcome = lumo_probe_outcome_from_json (node, &error);

      g_test_message ("outcome %s", bad[i].json);
      g_assert_null (outcome);
      g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT);
      g_assert_nonnull (strstr (error->message, bad[i].needle));
    }

  {
    g_autoptr(GError) error = NULL;
    g_assert_null (lumo_probe_outcome_from_json (NULL, &error));
    g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT);
  }
}

/* The catalogue that po/meson.build compiles into <builddir>/po. Under
 * meson test G_TEST_BUILDDIR is <builddir>/tests; run by hand, it is the
 * folder of the binary, <builddir>/tests/core. */
static char *
find_podir (void)
{
  g_autofree char *dir = g_strdup (g_test_get_dir (G_TEST_BUILT));

  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *podir = g_build_filename (dir, "po", NULL);
      g_autofree char *mo = g_build_filename (podir, "zh_CN", "LC_MESSAGES",
                                              GETTEXT_PACKAGE ".mo", NULL);
      g_autofree char *parent = NULL;

      if (g_file_test (mo, G_FILE_TEST_IS_REGULAR))
        return g_steal_pointer (&podir);

      parent = g_path_get_dirname (dir);
      g_free (dir);
      dir = g_steal_pointer (&parent);
    }

  g_printerr ("The compiled zh_CN catalogue was not found; build the po targets first\n");
  return NULL;
}

/* Runs in a subprocess: the locale is process-wide. */
static void
test_zh_cn (void)
{
  if (g_test_subprocess ())
    {
      g_autofree char *podir = find_podir ();
      g_autofree char *many = NULL;
      struct { const char *json; const char *zh; } rows[] = {
        { "{\"ok\":true}", "探测响应不完整。" },
        { "{\"ok\":true," FULL_SERVICE ",\"status\":{\"enabled\":false,\"authorized\":true,\"ready\":true}}",
          "提供方中的智能体访问已关闭。" },
        { "{\"ok\":true," FULL_SERVICE ",\"status\":{\"enabled\":true,\"authorized\":false,\"ready\":true,\"pendingApproval\":true}}",
          "正在提供方中等待你的批准。" },
        { "{\"ok\":true," FULL_SERVICE ",\"status\":{\"enabled\":true,\"authorized\":false,\"ready\":true}}",
          "调用方不在允许列表。" },
      };
      g_autoptr(LumoProbeOutcome) rejected = lumo_probe_outcome_new (LUMO_PROBE_OUTCOME_REJECTED, "x", NULL);
      g_autofree char *message = NULL;

      g_assert_nonnull (podir);
      g_setenv ("LANGUAGE", "zh_CN", TRUE);
      g_assert_nonnull (setlocale (LC_ALL, "C.UTF-8"));
      bindtextdomain (GETTEXT_PACKAGE, podir);
      bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");

      lumo_probe_status_map (rejected, NULL, &message);
      g_assert_cmpstr (message, ==, "扩展未安装，或没有智能体端点。");

      for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
        {
          g_autofree char *zh = NULL;

          map_answer (rows[i].json, NULL, &zh);
          g_assert_cmpstr (zh, ==, rows[i].zh);
        }

      many = lumo_probe_status_connected_message (3);
      g_assert_cmpstr (many, ==, "已连接 · 3 个工具");
      return;
    }

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
}

/* The same table, read from the fixture that the extension's connector tests
 * read too: if either side drifts from the other, one of them fails. */
static LumoProbeRow
row_from_name (const char *name)
{
  static const char *names[] = {
    "rejected", "timeout", "protocol_error", "incomplete", "disabled",
    "pending_approval", "not_authorized", "not_ready", "connected",
  };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (g_strcmp0 (names[i], name) == 0)
      return (LumoProbeRow) i;

  g_error ("unknown row “%s” in the fixture", name);
}

static void
test_shared_fixture (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "fixtures",
                                                 "probe-status", "cases.json", NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonArray *cases;
  guint rows_seen = 0;

  json_parser_load_from_file (parser, path, &error);
  g_assert_no_error (error);
  cases = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)),
                                        "cases");
  g_assert_nonnull (cases);
  g_assert_cmpuint (json_array_get_length (cases), >, 9);

  for (guint i = 0; i < json_array_get_length (cases); i++)
    {
      JsonObject *c = json_array_get_object_element (cases, i);
      const char *name = json_object_get_string_member (c, "name");
      g_autoptr(LumoProbeOutcome) outcome = NULL;
      g_autoptr(GError) local_error = NULL;
      g_autofree char *message = NULL;
      LumoProbeState state;
      LumoProbeRow row, expected;

      g_test_message ("case: %s", name);
      outcome = lumo_probe_outcome_from_json (json_object_get_member (c, "outcome"),
                                              &local_error);
      g_assert_no_error (local_error);
      expected = row_from_name (json_object_get_string_member (c, "row"));
      row = lumo_probe_status_map (outcome, &state, &message);
      g_assert_cmpint (row, ==, expected);
      g_assert_cmpint (state, ==, expected == LUMO_PROBE_ROW_CONNECTED
                                    ? LUMO_PROBE_STATE_CONNECTED
                                    : LUMO_PROBE_STATE_ERROR);
      if (json_object_has_member (c, "message"))
        g_assert_cmpstr (message, ==, json_object_get_string_member (c, "message"));
      rows_seen |= 1u << row;
    }

  /* Every row of the table is reached by at least one case. */
  g_assert_cmpuint (rows_seen, ==, (1u << (LUMO_PROBE_ROW_CONNECTED + 1)) - 1);
}

int
main (int   argc,
      char *argv[])
{
  /* The English rows must not depend on the tester's language. */
  g_unsetenv ("LANGUAGE");
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/probe-status/row/rejected", test_row_rejected);
  g_test_add_func ("/probe-status/row/timeout", test_row_timeout);
  g_test_add_func ("/probe-status/row/protocol-error", test_row_protocol_error);
  g_test_add_func ("/probe-status/row/incomplete", test_row_incomplete);
  g_test_add_func ("/probe-status/row/disabled", test_row_disabled);
  g_test_add_func ("/probe-status/row/pending-approval", test_row_pending);
  g_test_add_func ("/probe-status/row/not-authorized", test_row_not_authorized);
  g_test_add_func ("/probe-status/row/not-ready", test_row_not_ready);
  g_test_add_func ("/probe-status/row/connected", test_row_connected);
  g_test_add_func ("/probe-status/malformed", test_malformed);
  g_test_add_func ("/probe-status/foreign-text-bounded", test_foreign_text_bounded);
  g_test_add_func ("/probe-status/from-json", test_from_json);
  g_test_add_func ("/probe-status/zh-CN", test_zh_cn);
  g_test_add_func ("/probe-status/shared-fixture", test_shared_fixture);

  return g_test_run ();
}
