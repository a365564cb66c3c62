/* test-gateway-http-rules.c — the endpoint's header checks, on bad input
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each header check of lumo-gateway-http-rules.h on its own: what a DNS
 * rebinding page, a confused client or a fuzzer sends, and what a real
 * desktop client sends.
 */
#include "config.h"

#include "lumo-error.h"
#include "lumo-gateway-http-rules.h"
#include "lumo-test.h"

#define PORT 8137

static void
assert_host (const char *host,
             guint       port,
             gboolean    ok)
{
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (lumo_gateway_http_check_host (host, port, &error), ==, ok);
  if (ok)
    g_assert_no_error (error);
  else
    {
      g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT);
      g_assert_true (g_str_has_prefix (error->message, "Host: "));
    }
}

/* Only the three loopback names, with the endpoint's own port. A page
 * rebound to 127.0.0.1 still sends its own name as Host. */
static void
test_host (void)
{
  assert_host ("127.0.0.1:8137", PORT, TRUE);
  assert_host ("localhost:8137", PORT, TRUE);
  assert_host ("LocalHost:8137", PORT, TRUE);
  assert_host ("[::1]:8137", PORT, TRUE);
  assert_host ("localhost:80", 80, TRUE);
  assert_host ("localhost", 80, TRUE);

  assert_host (NULL, PORT, FALSE);
  assert_host ("", PORT, FALSE);
  assert_host ("localhost", PORT, FALSE);
  assert_host ("127.0.0.1", PORT, FALSE);
  assert_host ("localhost:8138", PORT, FALSE);
  assert_host ("localhost:08137", PORT, FALSE);
  assert_host ("localhost:+8137", PORT, FALSE);
  assert_host ("localhost:8137 ", PORT, FALSE);
  assert_host ("localhost:81370", PORT, FALSE);
  assert_host ("localhost:", PORT, FALSE);
  assert_host ("localhost.:8137", PORT, FALSE);
  assert_host ("evil.example:8137", PORT, FALSE);
  assert_host ("localhost.evil.example:8137", PORT, FALSE);
  assert_host ("127.0.0.1.nip.io:8137", PORT, FALSE);
  assert_host ("127.0.0.2:8137", PORT, FALSE);
  assert_host ("0.0.0.0:8137", PORT, FALSE);
  assert_host ("[::ffff:127.0.0.1]:8137", PORT, FALSE);
  assert_host ("[0:0:0:0:0:0:0:1]:8137", PORT, FALSE);
  assert_host ("::1:8137", PORT, FALSE);
  assert_host ("user@localhost:8137", PORT, FALSE);
  assert_host ("localhost:8137@evil.example", PORT, FALSE);
}

static void
assert_origin (const char *origin,
               gboolean    ok)
{
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (lumo_gateway_http_check_origin (origin, PORT, &error), ==, ok);
  if (ok)
    g_assert_no_error (error);
  else
    {
      g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT);
      g_assert_true (g_str_has_prefix (error->message, "Origin: "));
    }
}

/* No Origin is a desktop client; an Origin is a browser's, and only the
 * endpoint's own origins pass. */
static void
test_origin (void)
{
  assert_origin (NULL, TRUE);
  assert_origin ("http://127.0.0.1:8137", TRUE);
  assert_origin ("http://localhost:8137", TRUE);
  assert_origin ("HTTP://LOCALHOST:8137", TRUE);
  assert_origin ("http://[::1]:8137", TRUE);

  assert_origin ("", FALSE);
  assert_origin ("null", FALSE);
  assert_origin ("https://localhost:8137", FALSE);
  assert_origin ("http://localhost", FALSE);
  assert_origin ("http://localhost:8138", FALSE);
  assert_origin ("http://localhost:8137/", FALSE);
  assert_origin ("http://evil.example", FALSE);
  assert_origin ("http://evil.example:8137", FALSE);
  assert_origin ("http://localhost.evil.example:8137", FALSE);
  assert_origin ("chrome-extension://abcdefghijklmnopabcdefghijklmnop", FALSE);
  assert_origin ("file://", FALSE);
  assert_origin ("http://", FALSE);
  assert_origin ("localhost:8137", FALSE);
}

static void
assert_bearer (const char *header,
               const char *token)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *parsed = lumo_gateway_http_parse_bearer (header, &error);

  g_assert_cmpstr (parsed, ==, token);
  if (token != NULL)
    g_assert_no_error (error);
  else
    {
      g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT);
      g_assert_true (g_str_has_prefix (error->message, "Authorization: "));
      /* A refused token is never repeated back. */
      if (header != NULL && strlen (header) > 7)
        g_assert_null (strstr (error->message, header + 7));
    }
}

static void
test_bearer (void)
{
  g_autofree char *longest = g_strnfill (LUMO_GATEWAY_HTTP_MAX_TOKEN, 'a');
  g_autofree char *too_long = g_strnfill (LUMO_GATEWAY_HTTP_MAX_TOKEN + 1, 'a');
  g_autofree char *longest_header = g_strconcat ("Bearer ", longest, NULL);
  g_autofree char *too_long_header = g_strconcat ("Bearer ", too_long, NULL);

  assert_bearer ("Bearer lumo_abcdefghijklmnopabcdefghijklmnop_0123456789-_abcdefABCDEF",
                 "lumo_abcdefghijklmnopabcdefghijklmnop_0123456789-_abcdefABCDEF");
  assert_bearer ("bearer abc", "abc");
  assert_bearer ("BEARER abc", "abc");
  assert_bearer ("Bearer   abc", "abc");
  assert_bearer ("Bearer a.b~c+d/e==", "a.b~c+d/e==");
  assert_bearer (longest_header, longest);

  assert_bearer (NULL, NULL);
  assert_bearer ("", NULL);
  assert_bearer ("Bearer", NULL);
  assert_bearer ("Bearer ", NULL);
  assert_bearer ("Bearerabc", NULL);
  assert_bearer ("Basic YWxhZGRpbjpvcGVuc2VzYW1l", NULL);
  assert_bearer ("Token abc", NULL);
  assert_bearer ("Bearer secret-part other-part", NULL);
  assert_bearer ("Bearer secret\ttab", NULL);
  assert_bearer ("Bearer =abc", NULL);
  assert_bearer ("Bearer abc=def", NULL);
  assert_bearer ("Bearer abc\"def", NULL);
  assert_bearer ("Bearer s\xc3\xa9" "cret", NULL);
  assert_bearer (too_long_header, NULL);
}

/* POST needs application/json and text/event-stream listed; wildcards
 * count, q=0 takes a type out, no header admits nothing. */
static void
test_accepts (void)
{
  const char *both = "application/json, text/event-stream";

  g_assert_true (lumo_gateway_http_accepts (both, "application/json"));
  g_assert_true (lumo_gateway_http_accepts (both, "text/event-stream"));
  g_assert_true (lumo_gateway_http_accepts ("text/event-stream", "text/event-stream"));
  g_assert_true (lumo_gateway_http_accepts ("TEXT/Event-Stream;q=0.5", "text/event-stream"));
  g_assert_true (lumo_gateway_http_accepts ("*/*", "application/json"));
  g_assert_true (lumo_gateway_http_accepts ("application/*", "application/json"));
  g_assert_true (lumo_gateway_http_accepts ("text/html, */*;q=0.1", "text/event-stream"));
  g_assert_true (lumo_gateway_http_accepts (" application/json ; charset=utf-8 ", "application/json"));
  g_assert_true (lumo_gateway_http_accepts ("*/*;q=0, application/json", "application/json"));

  g_assert_false (lumo_gateway_http_accepts (NULL, "application/json"));
  g_assert_false (lumo_gateway_http_accepts ("", "application/json"));
  g_assert_false (lumo_gateway_http_accepts (",,,", "application/json"));
  g_assert_false (lumo_gateway_http_accepts ("application/json", "text/event-stream"));
  g_assert_false (lumo_gateway_http_accepts ("text/*", "application/json"));
  g_assert_false (lumo_gateway_http_accepts ("application/jsonx", "application/json"));
  g_assert_false (lumo_gateway_http_accepts ("application/json;q=0", "application/json"));
  g_assert_false (lumo_gateway_http_accepts ("application/json;q=0.000", "application/json"));
  g_assert_false (lumo_gateway_http_accepts ("application/json;q=abc", "application/json"));
  g_assert_false (lumo_gateway_http_accepts ("application/json;q=2", "application/json"));
  g_assert_false (lumo_gateway_http_accepts ("*/*, application/json;q=0", "application/json"));
  g_assert_false (lumo_gateway_http_accepts ("*", "application/json"));
}

static void
test_is_json (void)
{
  g_assert_true (lumo_gateway_http_is_json ("application/json"));
  g_assert_true (lumo_gateway_http_is_json ("Application/JSON"));
  g_assert_true (lumo_gateway_http_is_json ("application/json; charset=utf-8"));
  g_assert_true (lumo_gateway_http_is_json ("application/json;charset=UTF-8"));

  g_assert_false (lumo_gateway_http_is_json (NULL));
  g_assert_false (lumo_gateway_http_is_json (""));
  g_assert_false (lumo_gateway_http_is_json ("text/plain"));
  g_assert_false (lumo_gateway_http_is_json ("application/jsonp"));
  g_assert_false (lumo_gateway_http_is_json ("application/json-seq"));
  g_assert_false (lumo_gateway_http_is_json ("multipart/form-data; boundary=x"));
  g_assert_false (lumo_gateway_http_is_json ("application/x-www-form-urlencoded"));
}

static void
assert_version (const char *header,
                gboolean    ok)
{
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (lumo_gateway_http_check_protocol_version (header, &error), ==, ok);
  if (ok)
    g_assert_no_error (error);
  else
    {
      g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT);
      g_assert_true (g_str_has_prefix (error->message, "MCP-Protocol-Version: "));
      g_test_message ("%s: %s", header, error->message);
    }
}

/* The header names a version the SDK negotiates, or is absent (a client
 * of 2025-03-26 sends none). */
static void
test_protocol_version (void)
{
  assert_version (NULL, TRUE);
  assert_version ("2025-06-18", TRUE);
  assert_version ("2025-03-26", TRUE);
  assert_version ("2025-11-25", TRUE);

  assert_version ("2099-01-01", FALSE);
  assert_version ("", FALSE);
  assert_version ("2025-06-18x", FALSE);
  assert_version ("DRAFT-2026-v1", FALSE);
  assert_version ("\xff\xfe", FALSE);
}

static void
assert_path (const char *path,
             const char *namespace_)
{
  g_autofree char *parsed = lumo_gateway_http_path_namespace (path);

  g_assert_cmpstr (parsed, ==, namespace_);
}

static void
test_path (void)
{
  assert_path ("/mcp/userscripts", "userscripts");
  assert_path ("/mcp/a", "a");

  assert_path (NULL, NULL);
  assert_path ("", NULL);
  assert_path ("/", NULL);
  assert_path ("/mcp", NULL);
  assert_path ("/mcp/", NULL);
  assert_path ("/mcp/userscripts/", NULL);
  assert_path ("/mcp/userscripts/tools", NULL);
  assert_path ("/MCP/userscripts", NULL);
  assert_path ("//mcp/userscripts", NULL);
  assert_path ("/sse", NULL);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/gateway/http-rules/host", test_host);
  g_test_add_func ("/gateway/http-rules/origin", test_origin);
  g_test_add_func ("/gateway/http-rules/bearer", test_bearer);
  g_test_add_func ("/gateway/http-rules/accepts", test_accepts);
  g_test_add_func ("/gateway/http-rules/is-json", test_is_json);
  g_test_add_func ("/gateway/http-rules/protocol-version", test_protocol_version);
  g_test_add_func ("/gateway/http-rules/path", test_path);

  return g_test_run ();
}
