/* test-forged-ids.c — the forged-ID table through every input path of the app
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * tests/fixtures/bridge/extension-ids.json lists IDs Chrome never gives
 * (upper case, 31 or 33 letters, q–z, digits, homoglyphs, padding, a NUL,
 * an origin, non-strings) and three it does. The provider's tests run it
 * through the extension; these run it through the app's: the bridge's
 * probe, authorize and port (caller.id), the origin of a session (the
 * helper's argument and Attach's), and the policy calls behind the CLI's
 * allow and deny and the window's ID entry. Every forged ID is refused
 * with invalid_id / LUMO_ERROR_INVALID_ID, and nothing of it is recorded.
 */
#include "config.h"

#include <signal.h>
#include <string.h>

#include "lumo-audit-store.h"
#include "lumo-bridge-session-private.h"
#include "lumo-error.h"
#include "lumo-protocol.h"

#include "bridge-test-peer.h"

#define TEST_PARAMS_HASH "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

static JsonNode *table;

static JsonArray *
forged (void)
{
  return json_object_get_array_member (json_node_get_object (table), "forged");
}

/* The forged value as it appears in a message: JSON of any type. */
static char *
forged_json (guint i)
{
  JsonObject *entry = json_array_get_object_element (forged (), i);

  return json_to_string (json_object_get_member (entry, "id"), FALSE);
}

static const char *
forged_name (guint i)
{
  return json_object_get_string_member (json_array_get_object_element (forged (), i), "name");
}

/* The forged value as a C string, or NULL when it is not a JSON string. A
 * string with a NUL in it is that C string's prefix — the form in which a
 * careless reader would see it. */
static const char *
forged_string (guint i)
{
  JsonNode *id = json_object_get_member (json_array_get_object_element (forged (), i), "id");

  return JSON_NODE_HOLDS_VALUE (id) && json_node_get_value_type (id) == G_TYPE_STRING
         ? json_node_get_string (id) : NULL;
}

/* json-glib keeps strings as C strings, so a forged ID with a NUL in it
 * reads back as the valid ID before the NUL. Which entries have one is
 * read from the fixture's text; the bridge reads frames with its own
 * parser, which refuses U+0000 (tested on its own below). */
static GHashTable *names_with_nul;

static gboolean
has_nul_at (guint i)
{
  return g_hash_table_contains (names_with_nul, forged_name (i));
}

static void
find_names_with_nul (const char *text)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  g_autofree char *name = NULL;

  names_with_nul = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *line = g_strstrip (lines[i]);

      if (g_str_has_prefix (line, "\"name\": \""))
        {
          g_free (name);
          name = g_strndup (line + strlen ("\"name\": \""), strlen (line) - strlen ("\"name\": \"") - 2);
        }
      else if (g_str_has_prefix (line, "\"id\":") && strstr (line, "\\u0000") != NULL && name != NULL)
        g_hash_table_add (names_with_nul, g_strdup (name));
    }
  g_assert_cmpuint (g_hash_table_size (names_with_nul), >, 0);
}

static void
test_rule (void)
{
  JsonArray *valid = json_object_get_array_member (json_node_get_object (table), "valid");

  for (guint i = 0; i < json_array_get_length (valid); i++)
    g_assert_true (lumo_is_extension_id (json_array_get_string_element (valid, i)));

  for (guint i = 0; i < json_array_get_length (forged ()); i++)
    {
      g_autoptr(GError) error = NULL;
      const char *s = forged_string (i);
      g_autofree char *origin = NULL;

      /* A C string ends at the NUL: that case is for the paths that read
       * JSON (the bridge), which must refuse it there. */
      if (s == NULL || has_nul_at (i))
        continue;
      if (lumo_is_extension_id (s))
        g_error ("“%s” passed the ID rule", forged_name (i));

      origin = g_strconcat (LUMO_EXTENSION_ORIGIN_PREFIX, s, "/", NULL);
      g_assert_null (lumo_extension_id_from_origin (origin, &error));
      g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ID);
      g_assert_true (g_utf8_validate (error->message, -1, NULL));
    }
}

#define HELLO \
  "{\"type\":\"hello\",\"id\":1,\"bridge\":1," \
  "\"service\":{\"namespace\":\"userscripts\",\"name\":\"Lumo Userscripts\",\"version\":\"1.0.1\"}," \
  "\"tools\":[{\"name\":\"save_script\",\"write\":true}]}"

/* Each message a caller ID rides in: probe, authorize, port. */
static char *
caller_message (guint       which,
                guint       id,
                const char *caller_id_json)
{
  switch (which)
    {
    case 0:
      return g_strdup_printf ("{\"type\":\"probe\",\"id\":%u,\"caller\":{\"id\":%s}}", id, caller_id_json);
    case 1:
      return g_strdup_printf ("{\"type\":\"authorize\",\"id\":%u,\"caller\":{\"id\":%s},"
                              "\"tool\":\"save_script\",\"write\":true,"
                              "\"paramsHash\":\"" TEST_PARAMS_HASH "\",\"preview\":{}}", id, caller_id_json);
    default:
      return g_strdup_printf ("{\"type\":\"port\",\"id\":%u,\"caller\":{\"id\":%s},"
                              "\"port\":\"p1\",\"state\":\"open\"}", id, caller_id_json);
    }
}

/* Each of them through the real session. */
static void
test_bridge (void)
{
  BridgeTestEnv *env = bridge_test_env_new ();
  Peer *peer = peer_new (env, TEST_PROVIDER_ORIGIN);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) callers = NULL;
  guint id = 10;

  lumo_policy_add_provider (env->policy, TEST_PROVIDER_ID, LUMO_POLICY_ORIGIN_UI, &error);
  lumo_policy_set_switch (env->policy, TEST_PROVIDER_ID, LUMO_POLICY_SWITCH_WRITES, TRUE,
                          LUMO_POLICY_ORIGIN_UI, &error);
  g_assert_no_error (error);
  peer_send (peer, HELLO);
  peer_expect (peer, "{\"type\":\"hello.result\",\"re\":1}");

  for (guint i = 0; i < json_array_get_length (forged ()); i++)
    for (guint t = 0; t < 3 && !has_nul_at (i); t++)
      {
        g_autofree char *value = forged_json (i);
        g_autofree char *message = caller_message (t, ++id, value);
        g_autofree char *expected =
          g_strdup_printf ("{\"type\":\"error\",\"re\":%u,\"code\":\"invalid_id\",\"field\":\"caller.id\"}", id);
        g_autoptr(JsonObject) answer = NULL;
        g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
        g_autoptr(JsonNode) want = json_from_string (expected, NULL);
        g_autofree char *where = NULL;

        peer_send (peer, message);
        answer = peer_recv (peer);
        g_assert_nonnull (answer);
        json_node_set_object (node, answer);
        if (!bridge_json_matches (node, want, &where))
          g_error ("%s in %s: the app answered %s", forged_name (i), message, bridge_json_to_string (node));
      }

  /* The ID with a NUL, as the provider would send it: the frame itself
   * is refused (the app's parser takes no U+0000). */
  for (guint t = 0; t < 3; t++)
    {
      g_autofree char *message = caller_message (t, ++id, "\"" TEST_CALLER_ID "\\u0000\"");
      g_autoptr(JsonObject) answer = NULL;

      peer_send (peer, message);
      answer = peer_recv (peer);
      g_assert_nonnull (answer);
      g_assert_cmpstr (json_object_get_string_member (answer, "type"), ==, "error");
      g_assert_cmpstr (json_object_get_string_member (answer, "code"), ==, "invalid_json");
    }

  /* Nothing of them is recorded: no caller, no port, no audit row. */
  callers = lumo_policy_list_callers (env->policy, NULL, LUMO_CALLER_STATE_ANY, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (callers->len, ==, 0);
  {
    g_autoptr(GPtrArray) ports = lumo_backend_list_ports (env->backend, TEST_PROVIDER_ID);
    g_autoptr(GPtrArray) rows = lumo_audit_store_fetch_page (lumo_backend_get_audit_store (env->backend),
                                                             NULL, 0, 100, NULL, &error);

    g_assert_cmpuint (ports->len, ==, 0);
    g_assert_no_error (error);
    g_assert_cmpuint (rows->len, ==, 0);
  }

  peer_free (peer);
  bridge_test_env_free (env);
}

/* The origin of a session: what Chrome passed the helper, and Attach. */
static void
test_origin (void)
{
  BridgeTestEnv *env = bridge_test_env_new ();

  for (guint i = 0; i < json_array_get_length (forged ()); i++)
    {
      const char *s = forged_string (i);
      g_autofree char *origin = NULL;
      Peer *peer;

      if (s == NULL || has_nul_at (i))
        continue;
      origin = g_strconcat (LUMO_EXTENSION_ORIGIN_PREFIX, s, "/", NULL);
      peer = peer_new (env, origin);
      lumo_test_wait_until (peer_done, peer, "the session to be refused");
      if (!g_error_matches (peer->error, LUMO_ERROR, LUMO_ERROR_INVALID_ID))
        g_error ("%s: a session of origin “%s” was not refused as an invalid ID", forged_name (i), origin);
      g_assert_cmpuint (lumo_backend_get_n_sessions (env->backend), ==, 0);
      peer_free (peer);
    }

  bridge_test_env_free (env);
}

/* What the CLI's allow, deny, forget and add-provider and the window's
 * ID entry call: the policy refuses the ID before anything is written. */
static void
test_policy_calls (void)
{
  BridgeTestEnv *env = bridge_test_env_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) providers = NULL;
  g_autoptr(GPtrArray) callers = NULL;

  lumo_policy_add_provider (env->policy, TEST_PROVIDER_ID, LUMO_POLICY_ORIGIN_CLI, &error);
  g_assert_no_error (error);

  for (guint i = 0; i < json_array_get_length (forged ()); i++)
    {
      const char *s = forged_string (i);

      if (s == NULL || has_nul_at (i))
        continue;

      g_assert_false (lumo_policy_allow_caller (env->policy, TEST_PROVIDER_ID, s, LUMO_POLICY_ORIGIN_CLI, &error));
      g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ID);
      g_clear_error (&error);
      g_assert_false (lumo_policy_deny_caller (env->policy, TEST_PROVIDER_ID, s, LUMO_POLICY_ORIGIN_CLI, &error));
      g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ID);
      g_clear_error (&error);
      g_assert_false (lumo_policy_add_provider (env->policy, s, LUMO_POLICY_ORIGIN_CLI, &error));
      g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ID);
      g_clear_error (&error);
      g_assert_false (lumo_validate_extension_id (s, "caller ID", &error));
      g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ID);
      g_clear_error (&error);
    }

  providers = lumo_policy_list_providers (env->policy, &error);
  callers = lumo_policy_list_callers (env->policy, NULL, LUMO_CALLER_STATE_ANY, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (providers->len, ==, 1);
  g_assert_cmpuint (callers->len, ==, 0);

  bridge_test_env_free (env);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();

  g_test_init (&argc, &argv, NULL);
  signal (SIGPIPE, SIG_IGN);

  path = g_test_build_filename (G_TEST_DIST, "fixtures", "bridge", "extension-ids.json", NULL);
  if (!json_parser_load_from_file (parser, path, &error))
    g_error ("%s: %s", path, error->message);
  table = json_node_copy (json_parser_get_root (parser));
  {
    g_autofree char *text = NULL;

    g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
    find_names_with_nul (text);
  }

  g_test_add_func ("/forged-ids/rule", test_rule);
  g_test_add_func ("/forged-ids/bridge", test_bridge);
  g_test_add_func ("/forged-ids/origin", test_origin);
  g_test_add_func ("/forged-ids/policy", test_policy_calls);

  return g_test_run ();
}
