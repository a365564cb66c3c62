/* test-recommended-setup.c — the set-up text of a recommended MCP server
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What Copy Set-up copies and `lumo-access-ctl recommended` prints, built
 * in one place (lumo-recommended-server.c): an mcp.json entry that is
 * valid JSON with the URL exactly as the provider sent it, and a `claude
 * mcp add` line a shell runs as one command with that URL, whatever the id
 * and the URL hold.
 */
#include "config.h"

#include <string.h>

#include "lumo-json.h"
#include "lumo-recommended-server.h"

static LumoRecommendedServer *
server (const char *id,
        const char *url,
        const char *transport)
{
  LumoRecommendedServer s = { (char *) id, (char *) "Name", NULL, (char *) url, (char *) transport };

  return lumo_recommended_server_copy (&s);
}

/* The one server of an mcp.json text, checked with the strict parser. */
static JsonObject *
parse_entry (const char  *text,
             const char  *name)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) root = lumo_json_parse (text, strlen (text), 8, &error);
  JsonObject *servers;

  g_assert_no_error (error);
  servers = json_object_get_object_member (json_node_get_object (root), "mcpServers");
  g_assert_cmpuint (json_object_get_size (servers), ==, 1);
  return json_object_ref (json_object_get_object_member (servers, name));
}

static void
test_guide_example (void)
{
  /* The guide's customMarketMcpServers entry. */
  g_autoptr(LumoRecommendedServer) s = server ("ppt-mcp", "https://your-mcp-server-url.com/servers/ppt-mcp/sse", "sse");
  g_autofree char *json = lumo_recommended_server_setup (s, LUMO_RECOMMENDED_SETUP_MCP_JSON);
  g_autofree char *line = lumo_recommended_server_setup (s, LUMO_RECOMMENDED_SETUP_CLAUDE_MCP_ADD);
  g_autoptr(JsonNode) node = lumo_recommended_server_setup_json (s);
  g_autofree char *from_node = json_to_string (node, FALSE);
  g_autoptr(JsonNode) reparsed = lumo_json_parse (json, strlen (json), 8, NULL);
  g_autofree char *from_text = json_to_string (reparsed, FALSE);

  g_assert_cmpstr (json, ==,
                   "{\n"
                   "  \"mcpServers\": {\n"
                   "    \"ppt-mcp\": {\n"
                   "      \"type\": \"sse\",\n"
                   "      \"url\": \"https://your-mcp-server-url.com/servers/ppt-mcp/sse\"\n"
                   "    }\n"
                   "  }\n"
                   "}");
  g_assert_cmpstr (line, ==, "claude mcp add --transport sse ppt-mcp https://your-mcp-server-url.com/servers/ppt-mcp/sse");
  /* The object the CLI prints with --json is the same as the text. */
  g_assert_cmpstr (from_node, ==, from_text);
}

static void
test_transport (void)
{
  g_autoptr(LumoRecommendedServer) streamable = server ("docs", "http://localhost:8080/mcp", "streamableHttp");
  g_autoptr(LumoRecommendedServer) untyped = server ("docs", "https://mcp.example.test/mcp", NULL);
  g_autofree char *line = lumo_recommended_server_setup (streamable, LUMO_RECOMMENDED_SETUP_CLAUDE_MCP_ADD);
  g_autofree char *json = lumo_recommended_server_setup (untyped, LUMO_RECOMMENDED_SETUP_MCP_JSON);
  g_autoptr(JsonObject) entry = parse_entry (json, "docs");

  g_assert_cmpstr (lumo_recommended_server_client_transport (streamable), ==, "http");
  g_assert_cmpstr (lumo_recommended_server_client_transport (untyped), ==, "http");
  g_assert_cmpstr (line, ==, "claude mcp add --transport http docs http://localhost:8080/mcp");
  g_assert_cmpstr (json_object_get_string_member (entry, "type"), ==, "http");
}

static void
test_names (void)
{
  static const struct { const char *id; const char *name; } cases[] = {
    { "ppt-mcp", "ppt-mcp" },
    { "PPT_mcp2", "PPT_mcp2" },
    { "PPT 文档 server", "PPT-server" },       /* a run of other bytes is one "-" */
    { "-rf", "rf" },                           /* never read as an option */
    { "a.b/c", "a-b-c" },
    { "文档", "server" },                       /* nothing left */
    { "--", "server" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(LumoRecommendedServer) s = server (cases[i].id, "https://x.test/sse", "sse");
      g_autofree char *name = lumo_recommended_server_client_name (s);
      g_autofree char *line = lumo_recommended_server_setup (s, LUMO_RECOMMENDED_SETUP_CLAUDE_MCP_ADD);
      g_autofree char *want = g_strdup_printf ("claude mcp add --transport sse %s https://x.test/sse", cases[i].name);

      g_assert_cmpstr (name, ==, cases[i].name);
      g_assert_cmpstr (line, ==, want);
    }

  {
    g_autofree char *long_id = g_strnfill (200, 'x');
    g_autoptr(LumoRecommendedServer) s = server (long_id, "https://x.test/sse", NULL);
    g_autofree char *name = lumo_recommended_server_client_name (s);

    g_assert_cmpuint (strlen (name), ==, LUMO_RECOMMENDED_CLIENT_NAME_MAX);
  }
}

/* A URL is passed on exactly: quoted for the shell where it must be, and
 * escaped for JSON. */
static void
test_url_quoting (void)
{
  static const char *urls[] = {
    "https://mcp.example.test/sse?key=a&b=$HOME;rm -rf ~",
    "https://mcp.example.test/it's/\"quoted\"\\path#frag",
    "https://mcp.example.test/文档/sse",
  };

  for (guint i = 0; i < G_N_ELEMENTS (urls); i++)
    {
      g_autoptr(LumoRecommendedServer) s = server ("x", urls[i], "sse");
      g_autofree char *line = lumo_recommended_server_setup (s, LUMO_RECOMMENDED_SETUP_CLAUDE_MCP_ADD);
      g_autofree char *json = lumo_recommended_server_setup (s, LUMO_RECOMMENDED_SETUP_MCP_JSON);
      g_autoptr(JsonObject) entry = parse_entry (json, "x");
      g_auto(GStrv) argv = NULL;
      g_autoptr(GError) error = NULL;

      /* The shell's reading of the line: seven words, the last the URL. */
      g_assert_true (g_shell_parse_argv (line, NULL, &argv, &error));
      g_assert_no_error (error);
      g_assert_cmpuint (g_strv_length (argv), ==, 7);
      g_assert_cmpstr (argv[6], ==, urls[i]);
      g_assert_cmpstr (json_object_get_string_member (entry, "url"), ==, urls[i]);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/recommended/setup/guide-example", test_guide_example);
  g_test_add_func ("/recommended/setup/transport", test_transport);
  g_test_add_func ("/recommended/setup/names", test_names);
  g_test_add_func ("/recommended/setup/url-quoting", test_url_quoting);

  return g_test_run ();
}
