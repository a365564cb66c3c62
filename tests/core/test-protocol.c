/* test-protocol.c — the fixed names, the ID test, name rules, catalogues
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "lumo-error.h"
#include "lumo-protocol.h"
#include "lumo-test-ids.h"

static void
test_fixed_names (void)
{
  g_assert_cmpstr (LUMO_PROBE_CHANNEL, ==, "lumo:probe");
  g_assert_cmpstr (LUMO_MCP_PORT_NAME, ==, "lumo:mcp");
  g_assert_cmpint (LUMO_PROBE_VERSION, ==, 1);
  g_assert_cmpint (LUMO_PROBE_TIMEOUT_MS, ==, 1500);
  g_assert_cmpint (LUMO_MAX_TOOLS, ==, 64);
  g_assert_cmpint (LUMO_MAX_NAMESPACE_LEN, ==, 16);
  g_assert_cmpint (LUMO_MAX_TOOL_NAME_LEN, ==, 40);
  g_assert_cmpint (LUMO_MAX_QUALIFIED_NAME_LEN, ==, 57);
  g_assert_cmpint (LUMO_MAX_NAMESPACE_LEN + 1 + LUMO_MAX_TOOL_NAME_LEN, ==, 57);

  const char *reserved[] = { "browser", "page", "file", "network", "devtools", "webmcp", "ext", NULL };
  g_assert_true (g_strv_equal (lumo_reserved_namespaces (), reserved));
}

static void
test_extension_id (void)
{
  g_assert_true (lumo_is_extension_id (TEST_PROVIDER_ID));
  g_assert_true (lumo_is_extension_id ("pppppppppppppppppppppppppppppppp"));
  g_assert_true (lumo_is_extension_id ("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));

  g_assert_false (lumo_is_extension_id (NULL));
  g_assert_false (lumo_is_extension_id (""));
  g_assert_false (lumo_is_extension_id ("abcdefghijklmnopabcdefghijklmno"));    /* 31 */
  g_assert_false (lumo_is_extension_id ("abcdefghijklmnopabcdefghijklmnopa"));  /* 33 */
  g_assert_false (lumo_is_extension_id ("Abcdefghijklmnopabcdefghijklmnop"));   /* upper */
  g_assert_false (lumo_is_extension_id ("abcdefghijklmnopabcdefghijklmnoq"));   /* q */
  g_assert_false (lumo_is_extension_id ("zbcdefghijklmnopabcdefghijklmnop"));   /* z */
  g_assert_false (lumo_is_extension_id ("0bcdefghijklmnopabcdefghijklmnop"));   /* digit */
  g_assert_false (lumo_is_extension_id ("abcdefghijklmnopabcdefghijklmn\xc3\xa9")); /* é: 32 bytes */
  g_assert_false (lumo_is_extension_id ("abcdefghijklmnopabcdefghijklmnop "));
  g_assert_false (lumo_is_extension_id (" abcdefghijklmnopabcdefghijklmno"));
  g_assert_false (lumo_is_extension_id ("abcdefghijklmnopabcdefghijklmno\n"));

  /* The IDs every other test relies on are what tests/common says. */
  g_assert_true (lumo_is_extension_id (TEST_PROVIDER2_ID));
  g_assert_true (lumo_is_extension_id (TEST_CALLER_ID));
  g_assert_true (lumo_is_extension_id (TEST_CALLER2_ID));
  g_assert_true (lumo_is_extension_id (TEST_CALLER3_ID));
  g_assert_true (lumo_is_extension_id (TEST_UNKNOWN_ID));
  for (guint i = 0; lumo_test_bad_ids[i] != NULL; i++)
    g_assert_false (lumo_is_extension_id (lumo_test_bad_ids[i]));

  /* A NUL inside a length-delimited string is refused. */
  g_assert_true (lumo_is_extension_id_len (TEST_PROVIDER_ID, 32));
  g_assert_false (lumo_is_extension_id_len ("abcdefghijklmnop\0bcdefghijklmnop", 32));
  g_assert_false (lumo_is_extension_id_len (TEST_PROVIDER_ID, 31));
  g_assert_false (lumo_is_extension_id_len (NULL, 32));
}

static void
test_validate_extension_id (void)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (lumo_validate_extension_id (TEST_PROVIDER_ID, "caller ID", &error));
  g_assert_no_error (error);

  g_assert_false (lumo_validate_extension_id ("abc", "caller ID", &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ID);
  g_assert_nonnull (strstr (error->message, "caller ID"));
  g_assert_nonnull (strstr (error->message, "3 characters instead of 32"));
  g_clear_error (&error);

  g_assert_false (lumo_validate_extension_id ("abcdefghijklmnopabcdefghijklmnopab", NULL, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ID);
  g_assert_nonnull (strstr (error->message, "34 characters instead of 32"));
  g_clear_error (&error);

  g_assert_false (lumo_validate_extension_id ("abcdefghijxlmnopabcdefghijklmnop", "provider ID", &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ID);
  g_assert_nonnull (strstr (error->message, "character “x” at position 11 is not one of a–p"));
  g_clear_error (&error);

  g_assert_false (lumo_validate_extension_id ("abcdefghijklmnopabcdefghijklmn\xff\xfe", NULL, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ID);
  g_assert_nonnull (strstr (error->message, "byte 0xff at position 31"));
  g_assert_true (g_utf8_validate (error->message, -1, NULL));
  g_clear_error (&error);

  g_assert_false (lumo_validate_extension_id (NULL, "caller ID", &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ID);
  g_assert_nonnull (strstr (error->message, "missing"));
}

static void
test_origin (void)
{
  const char *bad[] = {
    "chrome-extension://" TEST_PROVIDER_ID,                 /* no trailing slash */
    "chrome-extension://" TEST_PROVIDER_ID "//",
    "chrome-extension://" TEST_PROVIDER_ID "/x",
    "chrome-extension://" TEST_PROVIDER_ID "/?a",
    "chrome-extension://ABCDEFGHIJKLMNOPABCDEFGHIJKLMNOP/",
    "chrome-extension://abcdefghijklmnopabcdefghijklmnoz/",
    "chrome-extension://abcdefghijklmnopabcdefghijklmno/",
    "Chrome-Extension://" TEST_PROVIDER_ID "/",
    "moz-extension://" TEST_PROVIDER_ID "/",
    "https://" TEST_PROVIDER_ID "/",
    " chrome-extension://" TEST_PROVIDER_ID "/",
    "chrome-extension:/" TEST_PROVIDER_ID "/",
    "",
  };
  g_autoptr(GError) error = NULL;
  g_autofree char *id = NULL;
  g_autofree char *origin = NULL;

  id = lumo_extension_id_from_origin ("chrome-extension://" TEST_PROVIDER_ID "/", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (id, ==, TEST_PROVIDER_ID);

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *none = lumo_extension_id_from_origin (bad[i], &error);

      g_test_message ("origin %s", bad[i]);
      g_assert_null (none);
      g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ID);
      g_clear_error (&error);
    }

  g_assert_null (lumo_extension_id_from_origin (NULL, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ID);
  g_clear_error (&error);

  origin = lumo_extension_origin_from_id (TEST_PROVIDER_ID);
  g_assert_cmpstr (origin, ==, "chrome-extension://" TEST_PROVIDER_ID "/");
  g_assert_null (lumo_extension_origin_from_id ("nope"));
}

/* "provider/caller": the one key the policy, the rate limiter and the UI
 * use for a caller, built and split in one place. */
static void
test_caller_key (void)
{
  const char *bad[] = {
    "",
    TEST_PROVIDER_ID,
    TEST_PROVIDER_ID "/",
    "/" TEST_CALLER_ID,
    TEST_PROVIDER_ID TEST_CALLER_ID,                      /* no separator */
    TEST_PROVIDER_ID ":" TEST_CALLER_ID,
    TEST_PROVIDER_ID "/" TEST_CALLER_ID "/",              /* anything after */
    TEST_PROVIDER_ID "/" TEST_CALLER_ID "p",
    TEST_PROVIDER_ID "//" TEST_CALLER_ID,
    TEST_PROVIDER_ID "/ppppppppppppppppppppppppppppppp",  /* 31 letters */
    TEST_BAD_ID_SHORT "/" TEST_CALLER_ID "p",             /* right length, '/' one early */
    TEST_PROVIDER_ID "/pppppppppppppppppppppppppppppppq",  /* not a–p */
    TEST_BAD_ID_ONE_UPPER "/" TEST_CALLER_ID,
  };
  char key[LUMO_CALLER_KEY_SIZE];
  char provider_id[LUMO_EXTENSION_ID_LEN + 1];
  char caller_id[LUMO_EXTENSION_ID_LEN + 1];
  g_autofree char *owned = NULL;

  lumo_caller_key_fill (key, TEST_PROVIDER_ID, TEST_CALLER_ID);
  g_assert_cmpstr (key, ==, TEST_PROVIDER_ID "/" TEST_CALLER_ID);
  owned = lumo_caller_key_new (TEST_PROVIDER_ID, TEST_CALLER_ID);
  g_assert_cmpstr (owned, ==, key);
  g_assert_cmpuint (strlen (key), ==, LUMO_CALLER_KEY_SIZE - 1);

  g_assert_true (lumo_caller_key_split (key, provider_id, caller_id));
  g_assert_cmpstr (provider_id, ==, TEST_PROVIDER_ID);
  g_assert_cmpstr (caller_id, ==, TEST_CALLER_ID);

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      memset (provider_id, 'x', sizeof provider_id);
      memset (caller_id, 'x', sizeof caller_id);
      g_test_message ("key %s", bad[i]);
      g_assert_false (lumo_caller_key_split (bad[i], provider_id, caller_id));
      /* Nothing written on failure. */
      g_assert_cmpint (provider_id[0], ==, 'x');
      g_assert_cmpint (caller_id[0], ==, 'x');
    }
  g_assert_false (lumo_caller_key_split (NULL, provider_id, caller_id));

  /* Only extension IDs make a key: anything else is a programmer error. */
  if (g_test_undefined ())
    {
      g_test_expect_message ("lumo-protocol", G_LOG_LEVEL_CRITICAL, "*lumo_is_extension_id*");
      g_assert_null (lumo_caller_key_new ("a/b", TEST_CALLER_ID));
      g_test_assert_expected_messages ();
    }
}

static void
test_namespace (void)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (lumo_validate_namespace ("userscripts", &error));
  g_assert_true (lumo_validate_namespace ("a", &error));
  g_assert_true (lumo_validate_namespace ("a0_-", &error));
  g_assert_true (lumo_validate_namespace ("abcdefghijklmnop", &error));   /* 16 */
  g_assert_no_error (error);

  g_assert_false (lumo_validate_namespace ("abcdefghijklmnopq", &error)); /* 17 */
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_LIMIT_EXCEEDED);
  g_assert_nonnull (strstr (error->message, "17 characters; at most 16"));
  g_clear_error (&error);

  const char *bad_chars[] = { "User", "0abc", "_abc", "-abc", "a.b", "a b", "é", "a/b", "a:b" };
  for (guint i = 0; i < G_N_ELEMENTS (bad_chars); i++)
    {
      g_assert_false (lumo_validate_namespace (bad_chars[i], &error));
      g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_NAME);
      g_assert_nonnull (strstr (error->message, bad_chars[i]));
      g_clear_error (&error);
    }

  g_assert_false (lumo_validate_namespace ("", &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_NAME);
  g_clear_error (&error);
  g_assert_false (lumo_validate_namespace (NULL, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_NAME);
  g_clear_error (&error);

  for (const char * const *r = lumo_reserved_namespaces (); *r; r++)
    {
      g_assert_true (lumo_is_reserved_namespace (*r));
      g_assert_false (lumo_validate_namespace (*r, &error));
      g_assert_error (error, LUMO_ERROR, LUMO_ERROR_RESERVED_NAMESPACE);
      g_assert_nonnull (strstr (error->message, *r));
      g_clear_error (&error);
    }
  /* Reserved means exactly those names, not prefixes of them. */
  g_assert_true (lumo_validate_namespace ("browsers", NULL));
  g_assert_true (lumo_validate_namespace ("extra", NULL));
}

static void
test_tool_name (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *q = NULL;
  char name40[41];
  char name41[42];

  memset (name40, 'A', 40); name40[40] = '\0';
  memset (name41, 'b', 41); name41[41] = '\0';

  g_assert_true (lumo_validate_tool_name ("list_scripts", &error));
  g_assert_true (lumo_validate_tool_name ("Get-Script_2", &error));
  g_assert_true (lumo_validate_tool_name (name40, &error));
  g_assert_no_error (error);

  g_assert_false (lumo_validate_tool_name (name41, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_LIMIT_EXCEEDED);
  g_assert_nonnull (strstr (error->message, "41 characters; at most 40"));
  g_clear_error (&error);

  const char *bad[] = { "a.b", "a b", "naïve", "a/b", "tool!", "a\tb" };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_assert_false (lumo_validate_tool_name (bad[i], &error));
      g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_NAME);
      g_assert_nonnull (strstr (error->message, "position"));
      g_clear_error (&error);
    }
  g_assert_false (lumo_validate_tool_name ("", &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_NAME);
  g_clear_error (&error);

  q = lumo_qualified_tool_name ("userscripts", "list", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (q, ==, "userscripts.list");
  g_clear_pointer (&q, g_free);

  /* 16 + 1 + 40 = 57 is the most allowed… */
  q = lumo_qualified_tool_name ("abcdefghijklmnop", name40, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (strlen (q), ==, 57);
  g_clear_pointer (&q, g_free);

  /* …and each part is checked on its own. */
  g_assert_null (lumo_qualified_tool_name ("page", "list", &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_RESERVED_NAMESPACE);
  g_clear_error (&error);
  g_assert_null (lumo_qualified_tool_name ("ok", name41, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_LIMIT_EXCEEDED);
  g_clear_error (&error);
}

static JsonArray *
parse_array (const char *json)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;

  json_parser_load_from_data (parser, json, -1, &error);
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_ARRAY (json_parser_get_root (parser)));

  return json_array_ref (json_node_get_array (json_parser_get_root (parser)));
}

static const LumoToolRefusal *
refusal_at (LumoCatalogue *catalogue,
            guint          index)
{
  for (guint i = 0; i < catalogue->refusals->len; i++)
    {
      const LumoToolRefusal *r = g_ptr_array_index (catalogue->refusals, i);

      if (r->index == index)
        return r;
    }

  return NULL;
}

static void
test_catalogue (void)
{
  g_autoptr(JsonArray) tools = NULL;
  g_autoptr(LumoCatalogue) catalogue = NULL;
  g_autoptr(LumoCatalogue) copy = NULL;
  g_autoptr(GError) error = NULL;
  const LumoToolInfo *info;
  const LumoToolRefusal *r;

  tools = parse_array ("["
    "{\"name\":\"list\",\"title\":\"List scripts\",\"description\":\"d\",\"inputSchema\":{}},"
    "{\"name\":\"save\",\"write\":true},"
    "{\"name\":\"bad name\"},"
    "{\"name\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"},"
    "{\"name\":\"list\"},"
    "{\"title\":\"no name\"},"
    "42,"
    "{\"name\":\"w\",\"write\":\"yes\"},"
    "{\"name\":\"t\",\"title\":7},"
    "{\"name\":12}"
    "]");

  catalogue = lumo_catalogue_validate ("userscripts", tools, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (catalogue->namespace_, ==, "userscripts");
  g_assert_cmpuint (catalogue->tools->len, ==, 2);
  g_assert_cmpuint (catalogue->refusals->len, ==, 8);

  info = g_ptr_array_index (catalogue->tools, 0);
  g_assert_cmpstr (info->name, ==, "list");
  g_assert_cmpstr (info->qualified_name, ==, "userscripts.list");
  g_assert_cmpstr (info->title, ==, "List scripts");
  g_assert_cmpstr (info->description, ==, "d");
  g_assert_false (info->write);
  g_assert_true (json_object_has_member (info->descriptor, "inputSchema"));
  info = g_ptr_array_index (catalogue->tools, 1);
  g_assert_cmpstr (info->name, ==, "save");
  g_assert_true (info->write);
  g_assert_null (info->title);
  g_assert_true (lumo_catalogue_find (catalogue, "save") == info);
  g_assert_null (lumo_catalogue_find (catalogue, "bad name"));

  r = refusal_at (catalogue, 2);
  g_assert_cmpint (r->code, ==, LUMO_ERROR_INVALID_NAME);
  g_assert_cmpstr (r->name, ==, "bad name");
  g_assert_nonnull (strstr (r->reason, "Tool 3"));
  r = refusal_at (catalogue, 3);
  g_assert_cmpint (r->code, ==, LUMO_ERROR_LIMIT_EXCEEDED);
  g_assert_nonnull (strstr (r->reason, "41 characters"));
  r = refusal_at (catalogue, 4);
  g_assert_cmpint (r->code, ==, LUMO_ERROR_DUPLICATE);
  g_assert_nonnull (strstr (r->reason, "already used"));
  r = refusal_at (catalogue, 5);
  g_assert_cmpint (r->code, ==, LUMO_ERROR_INVALID_ARGUMENT);
  g_assert_null (r->name);
  g_assert_nonnull (strstr (r->reason, "name"));
  r = refusal_at (catalogue, 6);
  g_assert_cmpint (r->code, ==, LUMO_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (r->reason, "not a JSON object"));
  r = refusal_at (catalogue, 7);
  g_assert_cmpint (r->code, ==, LUMO_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (r->reason, "write"));
  r = refusal_at (catalogue, 8);
  g_assert_cmpint (r->code, ==, LUMO_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (r->reason, "title"));
  r = refusal_at (catalogue, 9);
  g_assert_cmpint (r->code, ==, LUMO_ERROR_INVALID_ARGUMENT);

  copy = lumo_catalogue_copy (catalogue);
  g_assert_cmpuint (copy->tools->len, ==, 2);
  g_assert_cmpuint (copy->refusals->len, ==, 8);
  g_assert_cmpstr (((LumoToolInfo *) g_ptr_array_index (copy->tools, 1))->qualified_name, ==,
                   "userscripts.save");
}

static void
test_catalogue_limit (void)
{
  g_autoptr(JsonArray) tools = json_array_new ();
  g_autoptr(LumoCatalogue) catalogue = NULL;
  g_autoptr(GError) error = NULL;

  /* An invalid entry first: it must not count against the 64. */
  {
    JsonObject *o = json_object_new ();
    json_object_set_string_member (o, "name", "in valid");
    json_array_add_object_element (tools, o);
  }
  for (guint i = 0; i < 70; i++)
    {
      JsonObject *o = json_object_new ();
      g_autofree char *name = g_strdup_printf ("tool_%02u", i);

      json_object_set_string_member (o, "name", name);
      json_array_add_object_element (tools, o);
    }

  catalogue = lumo_catalogue_validate ("many", tools, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (catalogue->tools->len, ==, 64);
  g_assert_cmpuint (catalogue->refusals->len, ==, 7);
  g_assert_cmpstr (((LumoToolInfo *) g_ptr_array_index (catalogue->tools, 0))->name, ==, "tool_00");
  g_assert_cmpstr (((LumoToolInfo *) g_ptr_array_index (catalogue->tools, 63))->name, ==, "tool_63");
  for (guint i = 1; i < 7; i++)
    {
      const LumoToolRefusal *r = g_ptr_array_index (catalogue->refusals, i);

      g_assert_cmpint (r->code, ==, LUMO_ERROR_LIMIT_EXCEEDED);
      g_assert_nonnull (strstr (r->reason, "at most 64"));
    }
}

static void
test_catalogue_bad_namespace (void)
{
  g_autoptr(JsonArray) tools = json_array_new ();
  g_autoptr(GError) error = NULL;

  g_assert_null (lumo_catalogue_validate ("browser", tools, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_RESERVED_NAMESPACE);
  g_clear_error (&error);
  g_assert_null (lumo_catalogue_validate ("Bad", tools, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_NAME);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/protocol/fixed-names", test_fixed_names);
  g_test_add_func ("/protocol/extension-id", test_extension_id);
  g_test_add_func ("/protocol/extension-id/validate", test_validate_extension_id);
  g_test_add_func ("/protocol/extension-id/origin", test_origin);
  g_test_add_func ("/protocol/caller-key", test_caller_key);
  g_test_add_func ("/protocol/names/namespace", test_namespace);
  g_test_add_func ("/protocol/names/tool", test_tool_name);
  g_test_add_func ("/protocol/catalogue/checks", test_catalogue);
  g_test_add_func ("/protocol/catalogue/limit", test_catalogue_limit);
  g_test_add_func ("/protocol/catalogue/bad-namespace", test_catalogue_bad_namespace);

  return g_test_run ();
}
