/* test-l10n.c — the window in zh_CN shows the seed's wording of the state table
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The protocol's source documents are Chinese; their table of probe
 * outcomes is the zh_CN translation. This runs the window with the
 * translations of the build (LUMO_TEST_LOCALEDIR) in zh_CN and checks each
 * row of the table as the Providers page shows it.
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <locale.h>
#include <string.h>

#include "app-test-util.h"
#include "lumo-provider-row.h"
#include "probe-cases.h"

static LumoProbeOutcome *
outcome_from_json (const char *json)
{
  g_autoptr(JsonNode) node = json_from_string (json, NULL);
  g_autoptr(GError) error = NULL;
  LumoProbeOutcome *outcome = lumo_probe_outcome_from_json (node, &error);

  g_assert_no_error (error);
  return outcome;
}

static void
test_state_table_in_zh_cn (AppFixture    *f,
                           gconstpointer  data)
{
  LumoProvidersPage *page = _lumo_window_get_providers_page (f->window);
  GtkWidget *row;

  app_fixture_add_provider (f, TEST_PROVIDER_ID, "Lumo Userscripts");
  app_test_iterate ();
  row = app_test_find_widget (GTK_WIDGET (page), LUMO_TYPE_PROVIDER_ROW, 0);
  g_assert_nonnull (row);

  for (guint i = 0; i < G_N_ELEMENTS (probe_cases); i++)
    {
      g_autoptr(LumoProbeOutcome) outcome = outcome_from_json (probe_cases[i].outcome_json);

      g_test_message ("state table row: %s", probe_cases[i].name);
      g_assert_true (lumo_providers_page_show_outcome (page, TEST_PROVIDER_ID, outcome));
      g_assert_cmpstr (lumo_provider_row_get_probe_text (LUMO_PROVIDER_ROW (row)), ==,
                       probe_cases[i].message_zh_cn);
    }
}

static void
test_window_strings_are_translated (AppFixture    *f,
                                    gconstpointer  data)
{
  GtkWidget *page = GTK_WIDGET (_lumo_window_get_requests_page (f->window));

  /* The template strings come through the same catalogue. */
  g_assert_false (app_test_any_text_contains (page, "No Requests"));
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (f->window)), !=, "");
}

/* The organization's file is wrong: the banner says how in zh_CN too,
 * around the file's own names. */
static void
test_managed_banner_in_zh_cn (AppFixture    *f,
                              gconstpointer  data)
{
  LumoManagedBanner *banner = _lumo_window_get_managed_banner (f->window);
  const char *details;

  lumo_test_write_in (f->managed_dir, "50-org.json", "{\n  \"writes\": \"off\"\n}\n");
  lumo_policy_reload_managed (f->policy);
  app_test_iterate ();

  g_assert_true (lumo_managed_banner_is_revealed (banner));
  details = lumo_managed_banner_get_details (banner);
  g_assert_nonnull (strstr (details, "50-org.json"));
  g_assert_nonnull (strstr (details, "writes"));
  g_assert_nonnull (strstr (details, "必须是 true 或 false，而不是字符串；按 false（写入关闭） 处理"));
  g_assert_false (app_test_any_text_contains (GTK_WIDGET (f->window), "Your organization’s policy"));
}

int
main (int   argc,
      char *argv[])
{
  const char *localedir = g_getenv ("LUMO_TEST_LOCALEDIR");

  /* C.UTF-8 with LANGUAGE: glibc honours LANGUAGE for any locale but "C",
   * so no zh_CN locale needs to be installed. */
  g_setenv ("LANGUAGE", "zh_CN", TRUE);
  g_setenv ("LC_ALL", "C.UTF-8", TRUE);
  setlocale (LC_ALL, "");
  g_assert_nonnull (localedir);
  bindtextdomain (GETTEXT_PACKAGE, localedir);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  gtk_test_init (&argc, &argv, NULL);
  app_test_init_application ();

  g_test_add ("/l10n/state-table", AppFixture, GINT_TO_POINTER (TRUE),
              app_fixture_setup, test_state_table_in_zh_cn, app_fixture_teardown);
  g_test_add ("/l10n/managed-banner", AppFixture, GINT_TO_POINTER (TRUE),
              app_fixture_setup, test_managed_banner_in_zh_cn, app_fixture_teardown);
  g_test_add ("/l10n/window", AppFixture, GINT_TO_POINTER (TRUE),
              app_fixture_setup, test_window_strings_are_translated, app_fixture_teardown);

  return g_test_run ();
}
