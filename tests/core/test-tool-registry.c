/* test-tool-registry.c — first comer keeps a name, never overwritten
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "lumo-error.h"
#include "lumo-tool-registry.h"
#include "lumo-test-ids.h"


static LumoCatalogue *
catalogue (const char *ns,
           const char *json)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  LumoCatalogue *c;

  json_parser_load_from_data (parser, json, -1, &error);
  g_assert_no_error (error);
  c = lumo_catalogue_validate (ns, json_node_get_array (json_parser_get_root (parser)), &error);
  g_assert_no_error (error);
  return c;
}

static void
on_changed_cb (LumoToolRegistry *registry,
               const char       *provider_id,
               guint            *n_changed)
{
  (*n_changed)++;
}

static void
test_first_comer_keeps (void)
{
  g_autoptr(LumoToolRegistry) registry = lumo_tool_registry_new ();
  g_autoptr(LumoCatalogue) a = catalogue ("scripts", "[{\"name\":\"list\"},{\"name\":\"save\",\"write\":true}]");
  g_autoptr(LumoCatalogue) b = catalogue ("scripts", "[{\"name\":\"save\",\"description\":\"B's\"},{\"name\":\"run\"}]");
  g_autoptr(GPtrArray) refusals = g_ptr_array_new_with_free_func ((GDestroyNotify) lumo_tool_refusal_free);
  const LumoToolInfo *info = NULL;
  const LumoToolRefusal *r;
  guint n_changed = 0;

  g_signal_connect (registry, "changed", G_CALLBACK (on_changed_cb), &n_changed);

  g_assert_cmpuint (lumo_tool_registry_set_catalogue (registry, TEST_PROVIDER_ID, a, refusals), ==, 2);
  g_assert_cmpuint (refusals->len, ==, 0);
  g_assert_cmpuint (lumo_tool_registry_set_catalogue (registry, TEST_PROVIDER2_ID, b, refusals), ==, 1);
  g_assert_cmpuint (n_changed, ==, 2);

  /* B's "scripts.save" is refused, naming who holds it… */
  g_assert_cmpuint (refusals->len, ==, 1);
  r = g_ptr_array_index (refusals, 0);
  g_assert_cmpint (r->code, ==, LUMO_ERROR_DUPLICATE);
  g_assert_cmpstr (r->name, ==, "save");
  g_assert_cmpuint (r->index, ==, 0);
  g_assert_nonnull (strstr (r->reason, TEST_PROVIDER_ID));
  g_assert_nonnull (strstr (r->reason, "scripts.save"));

  /* …and A's tool is untouched. */
  g_assert_cmpstr (lumo_tool_registry_lookup (registry, "scripts.save", &info), ==, TEST_PROVIDER_ID);
  g_assert_true (info->write);
  g_assert_null (info->description);
  g_assert_cmpstr (lumo_tool_registry_lookup (registry, "scripts.run", NULL), ==, TEST_PROVIDER2_ID);
  g_assert_null (lumo_tool_registry_lookup (registry, "scripts.nope", &info));
  g_assert_null (info);

  g_assert_cmpuint (lumo_tool_registry_count (registry, TEST_PROVIDER_ID), ==, 2);
  g_assert_cmpuint (lumo_tool_registry_count (registry, TEST_PROVIDER2_ID), ==, 1);
  g_assert_cmpuint (lumo_tool_registry_get_n_tools (registry), ==, 3);
}

static void
test_add_single (void)
{
  g_autoptr(LumoToolRegistry) registry = lumo_tool_registry_new ();
  g_autoptr(LumoCatalogue) a = catalogue ("notes", "[{\"name\":\"add\",\"title\":\"Add\"}]");
  g_autoptr(LumoCatalogue) a2 = catalogue ("notes", "[{\"name\":\"add\",\"title\":\"Add v2\"}]");
  g_autoptr(GError) error = NULL;
  const LumoToolInfo *tool = g_ptr_array_index (a->tools, 0);
  const LumoToolInfo *info = NULL;
  LumoToolInfo bad = { 0 };

  g_assert_true (lumo_tool_registry_add (registry, TEST_PROVIDER_ID, tool, &error));
  g_assert_no_error (error);

  g_assert_false (lumo_tool_registry_add (registry, TEST_PROVIDER2_ID, tool, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_DUPLICATE);
  g_assert_nonnull (strstr (error->message, TEST_PROVIDER_ID));
  g_clear_error (&error);

  /* The holder may update its own tool. */
  g_assert_true (lumo_tool_registry_add (registry, TEST_PROVIDER_ID, g_ptr_array_index (a2->tools, 0), &error));
  lumo_tool_registry_lookup (registry, "notes.add", &info);
  g_assert_cmpstr (info->title, ==, "Add v2");
  g_assert_cmpuint (lumo_tool_registry_count (registry, TEST_PROVIDER_ID), ==, 1);

  /* Only extension IDs hold tools, and only well-formed names. */
  g_assert_false (lumo_tool_registry_add (registry, "not-an-id", tool, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ID);
  g_clear_error (&error);

  bad.name = (char *) "x";
  bad.qualified_name = (char *) "page.x";
  g_assert_false (lumo_tool_registry_add (registry, TEST_PROVIDER_ID, &bad, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_RESERVED_NAMESPACE);
  g_clear_error (&error);

  bad.qualified_name = (char *) "x";
  g_assert_false (lumo_tool_registry_add (registry, TEST_PROVIDER_ID, &bad, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_NAME);
  g_clear_error (&error);

  bad.qualified_name = (char *) "ns.y";
  g_assert_false (lumo_tool_registry_add (registry, TEST_PROVIDER_ID, &bad, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_NAME);
}

static void
test_remove_provider (void)
{
  g_autoptr(LumoToolRegistry) registry = lumo_tool_registry_new ();
  g_autoptr(LumoCatalogue) a = catalogue ("scripts", "[{\"name\":\"list\"},{\"name\":\"save\"}]");
  g_autoptr(LumoCatalogue) b = catalogue ("scripts", "[{\"name\":\"save\"}]");
  g_autoptr(GPtrArray) refusals = g_ptr_array_new_with_free_func ((GDestroyNotify) lumo_tool_refusal_free);
  g_auto(GStrv) names = NULL;

  lumo_tool_registry_set_catalogue (registry, TEST_PROVIDER_ID, a, NULL);
  g_assert_cmpuint (lumo_tool_registry_set_catalogue (registry, TEST_PROVIDER2_ID, b, refusals), ==, 0);

  names = lumo_tool_registry_list (registry, TEST_PROVIDER_ID);
  g_assert_cmpuint (g_strv_length (names), ==, 2);
  g_assert_cmpstr (names[0], ==, "scripts.list");
  g_assert_cmpstr (names[1], ==, "scripts.save");

  g_assert_cmpuint (lumo_tool_registry_remove_provider (registry, TEST_PROVIDER_ID), ==, 2);
  g_assert_cmpuint (lumo_tool_registry_remove_provider (registry, TEST_PROVIDER_ID), ==, 0);
  g_assert_cmpuint (lumo_tool_registry_count (registry, TEST_PROVIDER_ID), ==, 0);
  g_assert_null (lumo_tool_registry_lookup (registry, "scripts.save", NULL));

  /* Once freed, the name goes to whoever registers next. */
  g_assert_cmpuint (lumo_tool_registry_set_catalogue (registry, TEST_PROVIDER2_ID, b, NULL), ==, 1);
  g_assert_cmpstr (lumo_tool_registry_lookup (registry, "scripts.save", NULL), ==, TEST_PROVIDER2_ID);
}

static void
test_catalogue_replaces (void)
{
  g_autoptr(LumoToolRegistry) registry = lumo_tool_registry_new ();
  g_autoptr(LumoCatalogue) v1 = catalogue ("scripts", "[{\"name\":\"a\"},{\"name\":\"b\"}]");
  g_autoptr(LumoCatalogue) v2 = catalogue ("scripts", "[{\"name\":\"b\"},{\"name\":\"c\"}]");

  lumo_tool_registry_set_catalogue (registry, TEST_PROVIDER_ID, v1, NULL);
  lumo_tool_registry_set_catalogue (registry, TEST_PROVIDER_ID, v2, NULL);
  g_assert_null (lumo_tool_registry_lookup (registry, "scripts.a", NULL));
  g_assert_cmpstr (lumo_tool_registry_lookup (registry, "scripts.c", NULL), ==, TEST_PROVIDER_ID);
  g_assert_cmpuint (lumo_tool_registry_count (registry, TEST_PROVIDER_ID), ==, 2);
}

static void
test_limit (void)
{
  g_autoptr(LumoToolRegistry) registry = lumo_tool_registry_new ();
  g_autoptr(LumoCatalogue) many = NULL;
  g_autoptr(LumoCatalogue) more = catalogue ("extra", "[{\"name\":\"one_more\"}]");
  g_autoptr(GString) json = g_string_new ("[");
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < 64; i++)
    g_string_append_printf (json, "%s{\"name\":\"t%u\"}", i ? "," : "", i);
  g_string_append (json, "]");
  many = catalogue ("many", json->str);

  g_assert_cmpuint (lumo_tool_registry_set_catalogue (registry, TEST_PROVIDER_ID, many, NULL), ==, 64);

  /* Even across namespaces, one provider holds at most 64 tools. */
  g_assert_false (lumo_tool_registry_add (registry, TEST_PROVIDER_ID, g_ptr_array_index (more->tools, 0), &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_LIMIT_EXCEEDED);
  g_assert_nonnull (strstr (error->message, "64"));
  g_clear_error (&error);
  g_assert_cmpuint (lumo_tool_registry_count (registry, TEST_PROVIDER_ID), ==, 64);

  g_assert_true (lumo_tool_registry_add (registry, TEST_PROVIDER2_ID, g_ptr_array_index (more->tools, 0), &error));
  g_assert_no_error (error);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/tool-registry/first-comer-keeps", test_first_comer_keeps);
  g_test_add_func ("/tool-registry/add-single", test_add_single);
  g_test_add_func ("/tool-registry/remove-provider", test_remove_provider);
  g_test_add_func ("/tool-registry/catalogue-replaces", test_catalogue_replaces);
  g_test_add_func ("/tool-registry/limit", test_limit);

  return g_test_run ();
}
