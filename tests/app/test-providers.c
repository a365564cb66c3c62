/* test-providers.c — the Providers page: rows, probe results, watching
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "app-test-util.h"
#include "lumo-error.h"
#include "lumo-format.h"
#include "lumo-provider-row.h"
#include "probe-cases.h"

static gboolean
is_row_of (GtkWidget     *row,
           gconstpointer  provider_id)
{
  return g_str_equal (lumo_provider_item_get_id (lumo_provider_row_get_item (LUMO_PROVIDER_ROW (row))),
                      provider_id);
}

static LumoProviderRow *
provider_row (AppFixture *f,
              const char *provider_id)
{
  GtkWidget *page = GTK_WIDGET (_lumo_window_get_providers_page (f->window));

  return LUMO_PROVIDER_ROW (app_test_find_widget_where (page, LUMO_TYPE_PROVIDER_ROW, is_row_of, provider_id));
}

static LumoProbeOutcome *
outcome_from_json (const char *json)
{
  g_autoptr(JsonNode) node = json_from_string (json, NULL);
  g_autoptr(GError) error = NULL;
  LumoProbeOutcome *outcome;

  g_assert_nonnull (node);
  outcome = lumo_probe_outcome_from_json (node, &error);
  g_assert_no_error (error);
  return outcome;
}

static void
test_rows_show_provider (AppFixture    *f,
                         gconstpointer  data)
{
  LumoProviderRow *row;

  app_fixture_add_provider (f, TEST_PROVIDER_ID, "Lumo Userscripts");
  app_test_iterate ();

  row = provider_row (f, TEST_PROVIDER_ID);
  g_assert_nonnull (row);
  g_assert_true (app_test_any_text_contains (GTK_WIDGET (row), "Lumo Userscripts"));
  g_assert_true (app_test_any_text_contains (GTK_WIDGET (row), "userscripts"));
  g_assert_true (app_test_any_text_contains (GTK_WIDGET (row), "version 1.0.0"));
  g_assert_true (app_test_any_text_contains (GTK_WIDGET (row), "Not connected"));
  g_assert_true (app_test_any_text_contains (GTK_WIDGET (row), "0 tools"));
  /* Expanded: the tools against the limits. */
  gtk_expander_set_expanded (GTK_EXPANDER (app_test_find_widget (GTK_WIDGET (row), GTK_TYPE_EXPANDER, 0)), TRUE);
  g_assert_true (app_test_any_text_contains (GTK_WIDGET (row), "0 of 64 tools"));
  g_assert_true (app_test_any_text_contains (GTK_WIDGET (row), "namespace “userscripts”: 11 of 16 characters"));
  g_assert_true (app_test_any_text_contains (GTK_WIDGET (row), TEST_PROVIDER_ID));
  g_assert_cmpstr (lumo_provider_row_get_probe_text (row), ==, "Not probed yet");
}

static void
test_each_state_table_row (AppFixture    *f,
                           gconstpointer  data)
{
  LumoProvidersPage *page = _lumo_window_get_providers_page (f->window);

  app_fixture_add_provider (f, TEST_PROVIDER_ID, "Lumo Userscripts");
  app_test_iterate ();

  for (guint i = 0; i < G_N_ELEMENTS (probe_cases); i++)
    {
      g_autoptr(LumoProbeOutcome) outcome = outcome_from_json (probe_cases[i].outcome_json);

      g_test_message ("state table row: %s", probe_cases[i].name);
      g_assert_true (lumo_providers_page_show_outcome (page, TEST_PROVIDER_ID, outcome));
      g_assert_cmpstr (lumo_provider_row_get_probe_text (provider_row (f, TEST_PROVIDER_ID)), ==,
                       probe_cases[i].message_c);
      g_assert_true (app_test_any_text_contains (GTK_WIDGET (provider_row (f, TEST_PROVIDER_ID)),
                                                 "Last probe: just now"));
    }

  /* An unknown provider has no row to show it on. */
  {
    g_autoptr(LumoProbeOutcome) outcome = outcome_from_json (probe_cases[0].outcome_json);

    g_assert_false (lumo_providers_page_show_outcome (page, TEST_PROVIDER2_ID, outcome));
  }
}

static void
test_probe_without_connected_provider (AppFixture    *f,
                                       gconstpointer  data)
{
  LumoProvidersPage *page = _lumo_window_get_providers_page (f->window);
  LumoProviderRow *row;

  app_fixture_add_provider (f, TEST_PROVIDER_ID, "Lumo Userscripts");
  app_test_iterate ();
  row = provider_row (f, TEST_PROVIDER_ID);

  /* Nobody can send the probe: the row stays as it was, a toast says why. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "providers.probe", "s", TEST_PROVIDER_ID));
  app_test_iterate ();
  g_assert_false (lumo_provider_item_get_probing (lumo_provider_row_get_item (row)));
  g_assert_cmpstr (lumo_provider_row_get_probe_text (row), ==, "Not probed yet");
}

static void
test_watch_by_id (AppFixture    *f,
                  gconstpointer  data)
{
  LumoProvidersPage *page = _lumo_window_get_providers_page (f->window);
  GtkWidget *entry = app_test_find_widget (GTK_WIDGET (page), ADW_TYPE_ENTRY_ROW, 0);
  GtkWidget *button = app_test_find_button_with_label (entry, "_Watch");
  g_autoptr(LumoProviderInfo) info = NULL;
  g_autoptr(GError) error = NULL;

  gtk_editable_set_text (GTK_EDITABLE (entry), "chrome-extension://" TEST_PROVIDER2_ID "/");
  g_assert_false (gtk_widget_get_sensitive (button));
  g_assert_true (app_test_any_text_contains (GTK_WIDGET (page), "provider ID"));

  gtk_editable_set_text (GTK_EDITABLE (entry), TEST_PROVIDER2_ID);
  g_assert_true (gtk_widget_get_sensitive (button));
  app_test_click (button);
  app_test_iterate ();

  info = lumo_policy_get_provider (f->policy, TEST_PROVIDER2_ID, &error);
  g_assert_no_error (error);
  g_assert_true (info->watched);
  g_assert_nonnull (provider_row (f, TEST_PROVIDER2_ID));
  g_assert_true (app_test_any_text_contains (GTK_WIDGET (provider_row (f, TEST_PROVIDER2_ID)), "watched"));

  /* Remove, as the row's button does. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "providers.remove", "s", TEST_PROVIDER2_ID));
  app_test_iterate ();
  g_assert_null (provider_row (f, TEST_PROVIDER2_ID));
  g_clear_pointer (&info, lumo_provider_info_free);
  info = lumo_policy_get_provider (f->policy, TEST_PROVIDER2_ID, &error);
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND);
}

static gboolean
has_text (GtkWidget     *label,
          gconstpointer  text)
{
  return g_strcmp0 (gtk_label_get_text (GTK_LABEL (label)), text) == 0;
}

/* The "Recommended servers" heading is there and visible. */
static gboolean
recommended_shown (LumoProviderRow *row)
{
  GtkWidget *label = app_test_find_widget_where (GTK_WIDGET (row), GTK_TYPE_LABEL, has_text,
                                                 "Recommended servers");

  return label != NULL && gtk_widget_is_visible (label);
}

static void
test_recommended_servers (AppFixture    *f,
                          gconstpointer  data)
{
  g_autoptr(JsonNode) node = json_from_string (
    "[{\"id\":\"ppt-mcp\",\"name\":\"PPT <b>MCP</b> server\",\"description\":\"Makes slides\","
    "\"url\":\"https://mcp.example.test/servers/ppt-mcp/sse\",\"type\":\"sse\","
    "\"icon\":\"https://tracker.example.test/icon.png\"},"
    "{\"id\":\"bad\",\"name\":\"Bad\",\"url\":\"javascript:alert(1)\"}]", NULL);
  g_autoptr(GPtrArray) servers = lumo_recommended_servers_from_json (node);
  g_autoptr(GPtrArray) none = g_ptr_array_new ();
  LumoProviderRow *row;

  /* Only the page on screen is visible. */
  g_assert_true (lumo_window_set_page (f->window, "providers"));
  app_fixture_add_provider (f, TEST_PROVIDER_ID, "Lumo Userscripts");
  app_test_iterate ();
  row = provider_row (f, TEST_PROVIDER_ID);
  g_assert_false (recommended_shown (row));

  /* As a hello carrying customMarketMcpServers leaves them. */
  lumo_backend_set_recommended_servers (f->backend, TEST_PROVIDER_ID, servers);
  app_test_iterate ();
  row = provider_row (f, TEST_PROVIDER_ID);
  /* The name as text, not markup; the URL shown; the bad entry and the
   * icon nowhere. */
  g_assert_true (app_test_any_text_contains (GTK_WIDGET (row), "PPT <b>MCP</b> server"));
  g_assert_true (app_test_any_text_contains (GTK_WIDGET (row), "Makes slides"));
  g_assert_true (app_test_any_text_contains (GTK_WIDGET (row), "https://mcp.example.test/servers/ppt-mcp/sse"));
  g_assert_false (app_test_any_text_contains (GTK_WIDGET (row), "javascript:"));
  g_assert_false (app_test_any_text_contains (GTK_WIDGET (row), "tracker.example.test"));
  g_assert_true (recommended_shown (row));

  /* Copy Set-up: a menu of the two forms; each puts core's text on the
   * clipboard, the same `lumo-access-ctl recommended` prints. */
  {
    GtkWidget *button = app_test_find_widget (GTK_WIDGET (row), GTK_TYPE_MENU_BUTTON, 0);
    GMenuModel *menu;
    GdkClipboard *clipboard = gtk_widget_get_clipboard (GTK_WIDGET (row));
    const LumoRecommendedServer *ppt = g_ptr_array_index (servers, 0);

    g_assert_nonnull (button);
    g_assert_cmpstr (gtk_menu_button_get_label (GTK_MENU_BUTTON (button)), ==, "Copy Set-up");
    menu = gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (button));
    g_assert_cmpint (g_menu_model_get_n_items (menu), ==, 2);

    for (int i = 0; i < 2; i++)
      {
        g_autofree char *action = NULL;
        g_autoptr(GVariant) target = g_menu_model_get_item_attribute_value (menu, i, G_MENU_ATTRIBUTE_TARGET,
                                                                             G_VARIANT_TYPE ("(uu)"));
        g_autofree char *want = NULL;
        g_autofree char *got = NULL;
        guint index, setup;

        g_assert_true (g_menu_model_get_item_attribute (menu, i, G_MENU_ATTRIBUTE_ACTION, "s", &action));
        g_assert_cmpstr (action, ==, "recommended.copy-setup");
        g_variant_get (target, "(uu)", &index, &setup);
        g_assert_cmpuint (index, ==, 0);
        g_assert_cmpuint (setup, ==, i == 0 ? LUMO_RECOMMENDED_SETUP_MCP_JSON : LUMO_RECOMMENDED_SETUP_CLAUDE_MCP_ADD);

        g_assert_true (gtk_widget_activate_action_variant (GTK_WIDGET (row), action, target));
        want = lumo_recommended_server_setup (ppt, setup);
        got = app_test_clipboard_text (clipboard);
        g_assert_cmpstr (got, ==, want);
      }

    /* A target that names no server changes nothing. */
    gtk_widget_activate_action (GTK_WIDGET (row), "recommended.copy-setup", "(uu)", 7, 0);
    {
      g_autofree char *got = app_test_clipboard_text (clipboard);

      g_assert_true (g_str_has_prefix (got, "claude mcp add --transport sse ppt-mcp "));
    }
  }

  /* A row made afterwards (the list rebuilt) shows them too. */
  {
    g_autoptr(GPtrArray) kept = lumo_backend_dup_recommended_servers (f->backend, TEST_PROVIDER_ID);

    g_assert_cmpuint (kept->len, ==, 1);
    g_assert_cmpstr (((LumoRecommendedServer *) kept->pdata[0])->id, ==, "ppt-mcp");
  }

  /* An empty list replaces it. */
  lumo_backend_set_recommended_servers (f->backend, TEST_PROVIDER_ID, none);
  app_test_iterate ();
  g_assert_false (app_test_any_text_contains (GTK_WIDGET (provider_row (f, TEST_PROVIDER_ID)),
                                              "mcp.example.test"));
  g_assert_false (recommended_shown (provider_row (f, TEST_PROVIDER_ID)));
}

/* What a provider and a caller are called wherever they are shown (rows,
 * notifications, the audit log, requests): one rule in lumo-format.c. An
 * empty name is no name. */
static void
test_titles (void)
{
  LumoProviderInfo provider = { .id = (char *) TEST_PROVIDER_ID };
  LumoCallerInfo caller = { .provider_id = (char *) TEST_PROVIDER_ID, .id = (char *) TEST_CALLER_ID };

  g_assert_cmpstr (lumo_format_provider_title (NULL, TEST_PROVIDER_ID), ==, TEST_PROVIDER_ID);
  g_assert_cmpstr (lumo_format_provider_title (&provider, TEST_PROVIDER_ID), ==, TEST_PROVIDER_ID);
  provider.namespace_ = (char *) "";
  provider.display_name = (char *) "";
  g_assert_cmpstr (lumo_format_provider_title (&provider, TEST_PROVIDER_ID), ==, TEST_PROVIDER_ID);
  provider.namespace_ = (char *) "userscripts";
  g_assert_cmpstr (lumo_format_provider_title (&provider, TEST_PROVIDER_ID), ==, "userscripts");
  provider.display_name = (char *) "Lumo Userscripts";
  g_assert_cmpstr (lumo_format_provider_title (&provider, TEST_PROVIDER_ID), ==, "Lumo Userscripts");

  g_assert_cmpstr (lumo_format_caller_title (NULL, TEST_CALLER_ID), ==, TEST_CALLER_ID);
  caller.display_name = (char *) "";
  g_assert_cmpstr (lumo_format_caller_title (&caller, TEST_CALLER_ID), ==, TEST_CALLER_ID);
  caller.display_name = (char *) "Foo Agent";
  g_assert_cmpstr (lumo_format_caller_title (&caller, TEST_CALLER_ID), ==, "Foo Agent");
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);
  app_test_init_application ();

#define ADD(path, func) \
  g_test_add ("/providers/" path, AppFixture, GINT_TO_POINTER (TRUE), app_fixture_setup, func, app_fixture_teardown)
  ADD ("rows", test_rows_show_provider);
  ADD ("state-table", test_each_state_table_row);
  ADD ("probe-unavailable", test_probe_without_connected_provider);
  ADD ("watch", test_watch_by_id);
  ADD ("recommended", test_recommended_servers);
#undef ADD
  g_test_add_func ("/providers/titles", test_titles);

  return g_test_run ();
}
