/* test-providers.c — the Providers page: rows, probe results, watching
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "app-test-util.h"
#include "lumo-error.h"
#include "lumo-provider-row.h"
#include "probe-cases.h"

static LumoProviderRow *
provider_row (AppFixture *f,
              const char *provider_id)
{
  GtkWidget *page = GTK_WIDGET (lumo_window_get_providers_page (f->window));

  for (guint i = 0;; i++)
    {
      GtkWidget *row = app_test_find_widget (page, LUMO_TYPE_PROVIDER_ROW, i);

      if (row == NULL)
        return NULL;
      if (g_str_equal (lumo_provider_item_get_id (lumo_provider_row_get_item (LUMO_PROVIDER_ROW (row))),
                       provider_id))
        return LUMO_PROVIDER_ROW (row);
    }
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
  LumoProvidersPage *page = lumo_window_get_providers_page (f->window);

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
  LumoProvidersPage *page = lumo_window_get_providers_page (f->window);
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
  LumoProvidersPage *page = lumo_window_get_providers_page (f->window);
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
#undef ADD

  return g_test_run ();
}
