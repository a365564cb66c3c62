/* test-access.c — the Access page edits the policy and follows it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "app-test-util.h"
#include "lumo-error.h"

static LumoProviderInfo *
provider (AppFixture *f)
{
  g_autoptr(GError) error = NULL;
  LumoProviderInfo *info = lumo_policy_get_provider (f->policy, TEST_PROVIDER_ID, &error);

  g_assert_no_error (error);
  return info;
}

static void
test_switches_follow_and_change_policy (AppFixture    *f,
                                        gconstpointer  data)
{
  LumoAccessPage *page = _lumo_window_get_access_page (f->window);
  GtkSwitch *enabled = lumo_access_page_get_switch (page, LUMO_POLICY_SWITCH_ENABLED);
  GtkSwitch *writes = lumo_access_page_get_switch (page, LUMO_POLICY_SWITCH_WRITES);
  GtkSwitch *review = lumo_access_page_get_switch (page, LUMO_POLICY_SWITCH_REVIEW);
  g_autoptr(GError) error = NULL;
  LumoProviderInfo *info;

  app_fixture_add_provider (f, TEST_PROVIDER_ID, "Lumo Userscripts");
  app_test_iterate ();
  g_assert_cmpstr (lumo_access_page_get_provider (page), ==, TEST_PROVIDER_ID);

  /* The defaults of a new provider. */
  g_assert_true (gtk_switch_get_active (enabled));
  g_assert_true (gtk_switch_get_active (writes));
  g_assert_true (gtk_switch_get_active (review));

  /* A person flips a switch: the policy changes. */
  gtk_switch_set_active (review, FALSE);
  info = provider (f);
  g_assert_false (info->review);
  g_assert_true (info->writes);
  lumo_provider_info_free (info);

  gtk_switch_set_active (writes, FALSE);
  info = provider (f);
  g_assert_false (info->writes);
  lumo_provider_info_free (info);

  /* The policy changes elsewhere (the CLI): the switches move. */
  lumo_policy_set_switch (f->policy, TEST_PROVIDER_ID, LUMO_POLICY_SWITCH_ENABLED, FALSE,
                          LUMO_POLICY_ORIGIN_CLI, &error);
  g_assert_no_error (error);
  g_assert_false (gtk_switch_get_active (enabled));
  lumo_policy_set_switch (f->policy, TEST_PROVIDER_ID, LUMO_POLICY_SWITCH_WRITES, TRUE,
                          LUMO_POLICY_ORIGIN_CLI, &error);
  g_assert_no_error (error);
  g_assert_true (gtk_switch_get_active (writes));
  g_assert_false (gtk_switch_get_active (review));

  /* Another process wrote the file: refresh() emits the same signals. */
  {
    g_autoptr(LumoPolicy) other = lumo_policy_new (lumo_policy_get_path (f->policy), &error);

    g_assert_no_error (error);
    lumo_policy_set_switch (other, TEST_PROVIDER_ID, LUMO_POLICY_SWITCH_ENABLED, TRUE,
                            LUMO_POLICY_ORIGIN_CLI, &error);
    g_assert_no_error (error);
  }
  lumo_policy_refresh (f->policy, &error);
  g_assert_no_error (error);
  g_assert_true (gtk_switch_get_active (enabled));

  /* Undo of the last change made here, through the page's action. */
  gtk_switch_set_active (review, TRUE);
  info = provider (f);
  g_assert_true (info->review);
  lumo_provider_info_free (info);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "access.undo", NULL));
  app_test_iterate ();
  info = provider (f);
  g_assert_false (info->review);
  lumo_provider_info_free (info);
  g_assert_false (gtk_switch_get_active (review));
}

static void
test_add_caller_validates_as_typed (AppFixture    *f,
                                    gconstpointer  data)
{
  LumoAccessPage *page = _lumo_window_get_access_page (f->window);
  AdwEntryRow *entry = lumo_access_page_get_add_entry (page);
  GtkWidget *button = lumo_access_page_get_add_button (page);
  GtkLabel *error_label = lumo_access_page_get_add_error (page);
  LumoPolicyStatus status;
  g_autoptr(GError) error = NULL;

  app_fixture_add_provider (f, TEST_PROVIDER_ID, "Lumo Userscripts");
  app_test_iterate ();

  /* Too short, wrong letters, upper case: refused with a reason. */
  gtk_editable_set_text (GTK_EDITABLE (entry), "abc");
  g_assert_false (gtk_widget_get_sensitive (button));
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (error_label)));
  g_assert_nonnull (strstr (gtk_label_get_text (error_label), "agent ID"));

  gtk_editable_set_text (GTK_EDITABLE (entry), "bcdefghijklmnopabcdefghijklmnopz");
  g_assert_false (gtk_widget_get_sensitive (button));
  g_assert_nonnull (strstr (gtk_label_get_text (error_label), "“z”"));

  gtk_editable_set_text (GTK_EDITABLE (entry), "BCDEFGHIJKLMNOPABCDEFGHIJKLMNOPA");
  g_assert_false (gtk_widget_get_sensitive (button));

  /* Empty is not an error yet. */
  gtk_editable_set_text (GTK_EDITABLE (entry), "");
  g_assert_false (gtk_widget_get_sensitive (button));
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (error_label)));

  /* A pasted ID with spaces around it is fine. */
  gtk_editable_set_text (GTK_EDITABLE (entry), "  " TEST_CALLER_ID "\n");
  g_assert_true (gtk_widget_get_sensitive (button));
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (error_label)));

  app_test_click (button);
  app_test_iterate ();
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (entry)), ==, "");
  g_assert_nonnull (lumo_caller_model_find (lumo_access_page_get_allowed (page), TEST_PROVIDER_ID, TEST_CALLER_ID));
  lumo_policy_probe (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, "Added", &status, &error);
  g_assert_no_error (error);
  g_assert_true (status.authorized);

  /* Again: the core says it is there already, and the page says so. */
  gtk_editable_set_text (GTK_EDITABLE (entry), TEST_CALLER_ID);
  app_test_click (button);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (error_label)));
}

static void
test_lists_remove_allow_forget (AppFixture    *f,
                                gconstpointer  data)
{
  LumoAccessPage *page = _lumo_window_get_access_page (f->window);
  GtkWidget *button;
  g_autoptr(GError) error = NULL;
  LumoCallerInfo *info;

  app_fixture_add_provider (f, TEST_PROVIDER_ID, "Lumo Userscripts");
  lumo_policy_allow_caller (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, LUMO_POLICY_ORIGIN_CLI, &error);
  g_assert_no_error (error);
  lumo_policy_deny_caller (f->policy, TEST_PROVIDER_ID, TEST_CALLER2_ID, LUMO_POLICY_ORIGIN_CLI, &error);
  g_assert_no_error (error);
  app_test_iterate ();

  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (lumo_access_page_get_allowed (page))), ==, 1);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (lumo_access_page_get_denied (page))), ==, 1);
  g_assert_true (app_test_any_text_contains (GTK_WIDGET (page), TEST_CALLER_ID));

  /* "Allow" on the deny-list. */
  button = app_test_find_action_button (GTK_WIDGET (page), "access.allow-caller",
                                        g_variant_new ("(ss)", TEST_PROVIDER_ID, TEST_CALLER2_ID));
  app_test_click (button);
  app_test_iterate ();
  info = lumo_policy_get_caller (f->policy, TEST_PROVIDER_ID, TEST_CALLER2_ID, &error);
  g_assert_cmpint (info->state, ==, LUMO_CALLER_STATE_ALLOWED);
  lumo_caller_info_free (info);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (lumo_access_page_get_allowed (page))), ==, 2);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (lumo_access_page_get_denied (page))), ==, 0);

  /* "Remove" on the allow-list forgets: the next probe asks again. */
  button = app_test_find_action_button (GTK_WIDGET (page), "access.forget-caller",
                                        g_variant_new ("(ss)", TEST_PROVIDER_ID, TEST_CALLER_ID));
  app_test_click (button);
  app_test_iterate ();
  info = lumo_policy_get_caller (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, &error);
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND);
  g_assert_null (info);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (lumo_access_page_get_allowed (page))), ==, 1);
}

static void
test_provider_selector (AppFixture    *f,
                        gconstpointer  data)
{
  LumoAccessPage *page = _lumo_window_get_access_page (f->window);
  GtkWidget *combo;
  g_autoptr(GError) error = NULL;
  GtkWidget *stack = app_test_find_widget (GTK_WIDGET (page), GTK_TYPE_STACK, 0);

  /* No provider: the page says what will appear. */
  g_assert_cmpstr (gtk_stack_get_visible_child_name (GTK_STACK (stack)), ==, "empty");

  app_fixture_add_provider (f, TEST_PROVIDER_ID, "Alpha");
  app_test_iterate ();
  g_assert_cmpstr (gtk_stack_get_visible_child_name (GTK_STACK (stack)), ==, "page");
  combo = app_test_find_widget (GTK_WIDGET (page), ADW_TYPE_COMBO_ROW, 0);
  /* One provider: no selector. */
  g_assert_false (gtk_widget_get_visible (gtk_widget_get_ancestor (combo, ADW_TYPE_PREFERENCES_GROUP)));

  app_fixture_add_provider (f, TEST_PROVIDER2_ID, "Beta");
  lumo_policy_allow_caller (f->policy, TEST_PROVIDER2_ID, TEST_CALLER3_ID, LUMO_POLICY_ORIGIN_CLI, &error);
  g_assert_no_error (error);
  app_test_iterate ();
  g_assert_true (gtk_widget_get_visible (gtk_widget_get_ancestor (combo, ADW_TYPE_PREFERENCES_GROUP)));
  /* Still the first one. */
  g_assert_cmpstr (lumo_access_page_get_provider (page), ==, TEST_PROVIDER_ID);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (lumo_access_page_get_allowed (page))), ==, 0);

  adw_combo_row_set_selected (ADW_COMBO_ROW (combo), 1);
  g_assert_cmpstr (lumo_access_page_get_provider (page), ==, TEST_PROVIDER2_ID);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (lumo_access_page_get_allowed (page))), ==, 1);
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);
  app_test_init_application ();

#define ADD(path, func) \
  g_test_add ("/access/" path, AppFixture, GINT_TO_POINTER (TRUE), app_fixture_setup, func, app_fixture_teardown)
  ADD ("switches", test_switches_follow_and_change_policy);
  ADD ("add-by-id", test_add_caller_validates_as_typed);
  ADD ("lists", test_lists_remove_allow_forget);
  ADD ("provider-selector", test_provider_selector);
#undef ADD

  return g_test_run ();
}
