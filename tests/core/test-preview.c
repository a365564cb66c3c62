/* test-preview.c — what a reviewer is shown of a write
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The previews of docs/bridge-protocol.md (Previews): a script update
 * that widens where it runs and changes a site pack's tools, a create, a
 * site tool call, and the things that must never reach a reviewer as
 * sent — source, multi-line text, control and bidi characters.
 */
#include "config.h"

#include <string.h>

#include "lumo-preview.h"

/* The value of the row labelled @label, or NULL. */
static const char *
field (GPtrArray  *fields,
       const char *label)
{
  for (guint i = 0; i < fields->len; i++)
    {
      const LumoPreviewField *f = g_ptr_array_index (fields, i);

      if (g_str_equal (f->label, label))
        return f->value;
    }
  return NULL;
}

static void
assert_no_value_contains (GPtrArray  *fields,
                          const char *needle)
{
  for (guint i = 0; i < fields->len; i++)
    {
      const LumoPreviewField *f = g_ptr_array_index (fields, i);

      if (strstr (f->value, needle) != NULL || strstr (f->label, needle) != NULL)
        g_error ("“%s” reached the preview: %s = %s", needle, f->label, f->value);
    }
}

static void
test_update_site_pack (void)
{
  const char *json =
    "{\"action\":\"update\",\"uuid\":\"0f8fad5b-d9cb-469f-a165-70867728950e\",\"name\":\"Shop helper\","
    "\"bytes\":812,\"sourceSha256\":\"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\","
    "\"added\":3,\"removed\":1,"
    "\"matches\":{\"old\":[\"https://shop.test/*\"],\"new\":[\"<all_urls>\"]},"
    "\"sitePack\":{\"old\":{\"domain\":\"shop.test\",\"type\":\"contentScriptMcpServer\",\"version\":\"1.0.0\","
    "\"url\":\"http://shop.test/\",\"isAlwaysEnabled\":false,"
    "\"tools\":[{\"name\":\"shop_get\",\"write\":false}]},"
    "\"new\":{\"domain\":\"shop.test\",\"type\":\"contentScriptMcpServer\",\"version\":\"1.1.0\","
    "\"url\":\"http://shop.test/\",\"isAlwaysEnabled\":true,"
    "\"tools\":[{\"name\":\"shop_get\",\"write\":false},{\"name\":\"shop_put\",\"write\":true}]}},"
    "\"source\":\"document.cookie\"}";
  guint hidden = 0;
  g_autoptr(GPtrArray) fields = lumo_preview_format (json, &hidden);
  g_autofree char *text = lumo_preview_to_text (json);

  g_assert_cmpstr (field (fields, "Action"), ==, "Change a script");
  g_assert_cmpstr (field (fields, "Name"), ==, "Shop helper");
  g_assert_cmpstr (field (fields, "Runs on"), ==, "https://shop.test/* → <all_urls>");
  g_assert_cmpstr (field (fields, "Site pack"), ==,
                   "shop.test · contentScriptMcpServer · 1.0.0 → shop.test · contentScriptMcpServer · 1.1.0");
  g_assert_cmpstr (field (fields, "Always on"), ==, "No → Yes");
  g_assert_cmpstr (field (fields, "Site pack tools"), ==,
                   "shop_get (reads) → shop_get (reads), shop_put (writes)");
  g_assert_cmpstr (field (fields, "Source SHA-256"), ==,
                   "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08");

  /* The source never, and not silently either. */
  assert_no_value_contains (fields, "document.cookie");
  g_assert_cmpuint (hidden, ==, 1);
  g_assert_nonnull (strstr (text, "Runs on: https://shop.test/* → <all_urls>"));
  g_assert_nonnull (strstr (text, "1 field of the preview is not shown"));
  g_assert_null (strstr (text, "document.cookie"));
}

static void
test_create_and_plain_script_to_pack (void)
{
  const char *create =
    "{\"action\":\"create\",\"name\":\"Greeter\",\"enabled\":true,\"matches\":[\"https://a.test/*\",\"https://b.test/*\"],"
    "\"sitePack\":{\"domain\":\"a.test\",\"type\":\"pageMcpServer\",\"version\":\"2.0.0\","
    "\"tools\":[{\"name\":\"greet\",\"write\":true}]}}";
  const char *to_pack =
    "{\"action\":\"update\",\"sitePack\":{\"old\":null,\"new\":{\"domain\":\"a.test\",\"type\":\"pageMcpServer\","
    "\"tools\":[]}}}";
  g_autoptr(GPtrArray) a = lumo_preview_format (create, NULL);
  g_autoptr(GPtrArray) b = lumo_preview_format (to_pack, NULL);

  g_assert_cmpstr (field (a, "Runs on"), ==, "https://a.test/*, https://b.test/*");
  g_assert_cmpstr (field (a, "Site pack"), ==, "a.test · pageMcpServer · 2.0.0");
  g_assert_cmpstr (field (a, "Site pack tools"), ==, "greet (writes)");
  g_assert_cmpstr (field (a, "Enabled"), ==, "Yes");

  g_assert_cmpstr (field (b, "Site pack"), ==, "no site pack → a.test · pageMcpServer");
  g_assert_cmpstr (field (b, "Site pack tools"), ==, "none → none");
}

static void
test_site_tool (void)
{
  const char *json =
    "{\"action\":\"site_tool\",\"uuid\":\"0f8fad5b-d9cb-469f-a165-70867728950e\",\"pack\":\"www.baidu.com\","
    "\"version\":\"1.0.0\",\"origin\":\"bundled\",\"type\":\"contentScriptMcpServer\",\"tool\":\"fill-search-box\","
    "\"title\":\"Fill the search box\",\"write\":true,\"argKeys\":[\"text\"],\"argCount\":1,\"argsBytes\":23}";
  g_autoptr(GPtrArray) fields = lumo_preview_format (json, NULL);

  g_assert_cmpstr (field (fields, "Action"), ==, "Run a site tool");
  g_assert_cmpstr (field (fields, "Site pack"), ==, "www.baidu.com");
  g_assert_cmpstr (field (fields, "Tool"), ==, "fill-search-box");
  g_assert_cmpstr (field (fields, "Writes"), ==, "Yes");
  g_assert_cmpstr (field (fields, "Arguments"), ==, "text");
  g_assert_cmpstr (field (fields, "Number of arguments"), ==, "1");
}

/* Whatever a provider puts in: display text or left out (and counted). */
static void
test_hostile (void)
{
  const char *json =
    "{\"name\":\"Dark\\u202e mode\\u0007\","
    "\"title\":\"line one\\nline two\","
    "\"matches\":[\"https://a.test/*\",\"https://evil.test/\\u202e*\",\"x\\ny\"],"
    "\"extra\":{\"count\":2,\"list\":[true,null],\"body\":\"secret\",\"deep\":{\"deeper\":{\"deepest\":[1]}}},"
    "\"names\":[\"document.cookie\"],"
    "\"code\":\"alert(1)\",\"Bad Key\":\"x\",\"long\":\"" 
    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}";
  guint hidden = 0;
  g_autoptr(GPtrArray) fields = lumo_preview_format (json, &hidden);

  g_assert_cmpstr (field (fields, "Name"), ==, "Dark mode");
  /* A multi-line title is left out, not cut. */
  g_assert_null (field (fields, "Title"));
  g_assert_cmpstr (field (fields, "Runs on"), ==, "https://a.test/*, https://evil.test/*, …");
  g_assert_cmpstr (field (fields, "extra"), ==, "count: 2, list: Yes, none, deep: deeper: deepest: …");
  /* A string nested in an unknown field could be code: its place is
   * shown, not the string. */
  g_assert_cmpstr (field (fields, "names"), ==, "…");
  assert_no_value_contains (fields, "document.cookie");
  assert_no_value_contains (fields, "secret");
  assert_no_value_contains (fields, "alert");
  assert_no_value_contains (fields, "\xe2\x80\xae");
  g_assert_null (field (fields, "long"));
  /* title, one match, body, deepest, the nested name, code, the bad key, long. */
  g_assert_cmpuint (hidden, ==, 8);

  g_assert_cmpuint (lumo_preview_format ("[1,2]", &hidden)->len, ==, 0);
  g_assert_cmpuint (lumo_preview_format ("not json", NULL)->len, ==, 0);
  g_assert_null (lumo_preview_to_text (NULL));
  g_assert_null (lumo_preview_to_text ("{}"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/preview/update-site-pack", test_update_site_pack);
  g_test_add_func ("/preview/create", test_create_and_plain_script_to_pack);
  g_test_add_func ("/preview/site-tool", test_site_tool);
  g_test_add_func ("/preview/hostile", test_hostile);

  return g_test_run ();
}
