/* test-mcp.c — the MCP rules the app enforces while it relays
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "lumo-error.h"
#include "lumo-json.h"
#include "lumo-mcp.h"
#include "lumo-test.h"

static JsonNode *
parse (const char *json)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = lumo_json_parse (json, strlen (json), 64, &error);

  g_assert_no_error (error);
  return node;
}

static JsonObject *
parse_object (const char *json)
{
  g_autoptr(JsonNode) node = parse (json);

  g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
  return json_object_ref (json_node_get_object (node));
}

/* The versions are the SDK's own list: when the pinned SDK is installed,
 * its SUPPORTED_PROTOCOL_VERSIONS must be ours, in the same order, so an
 * SDK update that adds a version fails here until the table knows it. */
static void
test_versions_match_sdk (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("G_TEST_SRCDIR"), "..", "extension",
                                            "node_modules", "@modelcontextprotocol", "sdk", "dist",
                                            "esm", "types.js", NULL);
  g_autofree char *text = NULL;
  g_autoptr(GRegex) latest = g_regex_new ("LATEST_PROTOCOL_VERSION = '([0-9-]+)'", 0, 0, NULL);
  g_autoptr(GRegex) supported = g_regex_new ("SUPPORTED_PROTOCOL_VERSIONS = \\[([^\\]]*)\\]", 0, 0, NULL);
  g_autoptr(GMatchInfo) match = NULL;
  g_autofree char *latest_version = NULL;
  g_autofree char *list = NULL;
  g_auto(GStrv) items = NULL;
  const char * const *ours = lumo_mcp_supported_versions ();
  guint i;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    {
      g_test_skip ("the extension's node_modules are not installed (tools/setup.sh)");
      return;
    }

  g_assert_true (g_regex_match (latest, text, 0, &match));
  latest_version = g_match_info_fetch (match, 1);
  g_clear_pointer (&match, g_match_info_unref);
  g_assert_true (g_regex_match (supported, text, 0, &match));
  list = g_match_info_fetch (match, 1);
  items = g_strsplit (list, ",", -1);

  for (i = 0; items[i] != NULL; i++)
    {
      g_autofree char *item = g_strstrip (g_strdup (items[i]));
      const char *version = item;

      if (g_strcmp0 (item, "LATEST_PROTOCOL_VERSION") == 0)
        version = latest_version;
      else
        {
          g_assert_true (item[0] == '\'' || item[0] == '"');
          item[strlen (item) - 1] = '\0';
          version = item + 1;
        }
      g_assert_nonnull (ours[i]);
      g_assert_cmpstr (ours[i], ==, version);
    }
  g_assert_null (ours[i]);
}

static void
test_versions (void)
{
  g_assert_true (lumo_mcp_is_supported_version ("2025-03-26"));
  g_assert_true (lumo_mcp_is_supported_version ("2025-06-18"));
  g_assert_true (lumo_mcp_is_supported_version ("2025-11-25"));
  g_assert_false (lumo_mcp_is_supported_version (NULL));
  g_assert_false (lumo_mcp_is_supported_version (""));
  g_assert_false (lumo_mcp_is_supported_version ("2025-03-26 "));
  g_assert_false (lumo_mcp_is_supported_version ("2099-01-01"));
  g_assert_false (lumo_mcp_is_supported_version ("DRAFT-2026-v1"));

  g_assert_true (lumo_mcp_version_has_batches ("2025-03-26"));
  g_assert_false (lumo_mcp_version_has_batches ("2025-06-18"));
  g_assert_false (lumo_mcp_version_has_batches ("2025-11-25"));
  g_assert_false (lumo_mcp_version_has_batches ("2099-01-01"));
  g_assert_false (lumo_mcp_version_has_batches (NULL));
}

static void
assert_kind (const char      *json,
             LumoMcpKind  kind)
{
  g_autoptr(JsonObject) object = parse_object (json);
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (lumo_mcp_classify (object, &error), ==, kind);
  g_assert_no_error (error);
}

static void
assert_invalid (const char *json,
                const char *member)
{
  g_autoptr(JsonObject) object = parse_object (json);
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (lumo_mcp_classify (object, &error), ==, 0);
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT);
  g_assert_true (g_str_has_prefix (error->message, member));
  g_test_message ("%s → %s", json, error->message);
}

static void
test_classify (void)
{
  assert_kind ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}", LUMO_MCP_REQUEST);
  assert_kind ("{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"ping\",\"params\":{}}", LUMO_MCP_REQUEST);
  assert_kind ("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", LUMO_MCP_NOTIFICATION);
  assert_kind ("{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}", LUMO_MCP_RESPONSE);
  assert_kind ("{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"error\":{\"code\":1,\"message\":\"m\"}}", LUMO_MCP_RESPONSE);
  assert_kind ("{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":1,\"message\":\"m\"}}", LUMO_MCP_RESPONSE);

  assert_invalid ("{\"id\":1,\"method\":\"ping\"}", "jsonrpc");
  assert_invalid ("{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}", "jsonrpc");
  assert_invalid ("{\"jsonrpc\":2.0,\"id\":1,\"method\":\"ping\"}", "jsonrpc");
  assert_invalid ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":7}", "method");
  assert_invalid ("{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}", "id");
  assert_invalid ("{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}", "id");
  assert_invalid ("{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}", "id");
  assert_invalid ("{\"jsonrpc\":\"2.0\",\"id\":true,\"method\":\"ping\"}", "id");
  assert_invalid ("{\"jsonrpc\":\"2.0\",\"id\":1}", "method");
  assert_invalid ("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{},\"error\":{}}", "result");
  assert_invalid ("{\"jsonrpc\":\"2.0\",\"id\":null,\"result\":{}}", "id");
  assert_invalid ("{\"jsonrpc\":\"2.0\",\"result\":{}}", "id");
}

static void
test_initialize (void)
{
  g_autoptr(JsonObject) init = parse_object ("{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{}}");
  g_autoptr(JsonObject) note = parse_object ("{\"jsonrpc\":\"2.0\",\"method\":\"initialize\"}");
  g_autoptr(JsonObject) other = parse_object ("{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"tools/list\"}");
  g_autoptr(JsonObject) broken = parse_object ("{\"id\":0,\"method\":\"initialize\"}");

  g_assert_true (lumo_mcp_is_initialize (init));
  g_assert_false (lumo_mcp_is_initialize (note));
  g_assert_false (lumo_mcp_is_initialize (other));
  g_assert_false (lumo_mcp_is_initialize (broken));
}

static void
assert_key (const char *json,
            const char *key)
{
  g_autoptr(JsonNode) node = parse (json);
  g_autofree char *actual = lumo_mcp_id_key (node);

  g_assert_cmpstr (actual, ==, key);
}

/* "1" and 1 are different ids; 1 and 1.0 are not both ids. */
static void
test_id_key (void)
{
  assert_key ("1", "i:1");
  assert_key ("-9007199254740993", "i:-9007199254740993");
  assert_key ("\"1\"", "s:1");
  assert_key ("\"\"", "s:");
  assert_key ("1.0", NULL);
  assert_key ("null", NULL);
  assert_key ("[1]", NULL);
  assert_key ("{}", NULL);
  assert_key ("false", NULL);
  g_assert_null (lumo_mcp_id_key (NULL));
}

static void
test_error_new (void)
{
  g_autoptr(JsonNode) id = parse ("\"req-1\"");
  g_autoptr(JsonObject) with_id = lumo_mcp_new_error (id, LUMO_MCP_INVALID_REQUEST, "bad");
  g_autoptr(JsonObject) without = lumo_mcp_new_error (NULL, LUMO_MCP_PARSE_ERROR, "not JSON");
  JsonObject *error;

  g_assert_cmpint (lumo_mcp_classify (with_id, NULL), ==, LUMO_MCP_RESPONSE);
  g_assert_cmpstr (json_object_get_string_member (with_id, "id"), ==, "req-1");
  error = json_object_get_object_member (with_id, "error");
  g_assert_cmpint (json_object_get_int_member (error, "code"), ==, -32600);
  g_assert_cmpstr (json_object_get_string_member (error, "message"), ==, "bad");

  g_assert_cmpint (lumo_mcp_classify (without, NULL), ==, LUMO_MCP_RESPONSE);
  g_assert_true (json_object_get_null_member (without, "id"));
  error = json_object_get_object_member (without, "error");
  g_assert_cmpint (json_object_get_int_member (error, "code"), ==, -32700);
}

static void
assert_split (const char *json,
              const char *version,
              guint       n)
{
  g_autoptr(JsonNode) node = parse (json);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) messages = lumo_mcp_split_batch (node, version, &error);

  g_assert_no_error (error);
  g_assert_nonnull (messages);
  g_assert_cmpuint (messages->len, ==, n);
}

static void
assert_split_refused (const char *json,
                      const char *version)
{
  g_autoptr(JsonNode) node = parse (json);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) messages = lumo_mcp_split_batch (node, version, &error);

  g_assert_null (messages);
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT);
  g_test_message ("%s under %s → %s", json, version, error->message);
}

/* A batch is split only under a version that has batches; before a
 * version is settled (initialize) never. */
static void
test_split_batch (void)
{
  const char *batch = "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"},"
                      "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\"}]";

  assert_split ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}", NULL, 1);
  assert_split ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}", "2025-06-18", 1);
  assert_split (batch, "2025-03-26", 2);

  assert_split_refused (batch, "2025-06-18");
  assert_split_refused (batch, "2025-11-25");
  assert_split_refused (batch, "2099-01-01");
  assert_split_refused (batch, NULL);
  assert_split_refused ("[]", "2025-03-26");
  assert_split_refused ("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"},3]", "2025-03-26");
  assert_split_refused ("\"text\"", "2025-03-26");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/mcp/versions", test_versions);
  g_test_add_func ("/mcp/versions/match-sdk", test_versions_match_sdk);
  g_test_add_func ("/mcp/classify", test_classify);
  g_test_add_func ("/mcp/initialize", test_initialize);
  g_test_add_func ("/mcp/id-key", test_id_key);
  g_test_add_func ("/mcp/error-new", test_error_new);
  g_test_add_func ("/mcp/split-batch", test_split_batch);

  return g_test_run ();
}
