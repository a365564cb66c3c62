/* test-window.c — what is expected of the window as a GNOME app
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "app-test-util.h"
#include "lumo-audit-page.h"
#include "lumo-caller-row.h"
#include "lumo-review-row.h"

static gboolean
has_shortcut (GtkWidget  *widget,
              const char *trigger,
              const char *action)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (widget);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GObject) controller = g_list_model_get_item (controllers, i);

      if (!GTK_IS_SHORTCUT_CONTROLLER (controller))
        continue;

      for (guint j = 0; j < g_list_model_get_n_items (G_LIST_MODEL (controller)); j++)
        {
          g_autoptr(GtkShortcut) shortcut = g_list_model_get_item (G_LIST_MODEL (controller), j);
          g_autofree char *t = gtk_shortcut_trigger_to_string (gtk_shortcut_get_trigger (shortcut));
          GtkShortcutAction *a = gtk_shortcut_get_action (shortcut);
          g_autofree char *s = gtk_shortcut_action_to_string (a);

          if (g_str_equal (t, trigger) && strstr (s, action) != NULL)
            return TRUE;
        }
    }

  return FALSE;
}

/* The icons of the first frame are in the display's theme once the window
 * is built: every page of the switcher and the main menu show their own
 * icon, not the theme's "image-missing" (a guard for any change to when
 * and where the themes are read, docs/PERFORMANCE.md). */
static void
test_icons_found (AppFixture    *f,
                  gconstpointer  data)
{
  GtkIconTheme *theme = gtk_icon_theme_get_for_display (gtk_widget_get_display (GTK_WIDGET (f->window)));
  AdwViewStack *stack = ADW_VIEW_STACK (app_test_find_widget (GTK_WIDGET (f->window), ADW_TYPE_VIEW_STACK, 0));
  g_autoptr(GtkSelectionModel) pages = adw_view_stack_get_pages (stack);
  GtkMenuButton *menu = GTK_MENU_BUTTON (app_test_find_widget (GTK_WIDGET (f->window), GTK_TYPE_MENU_BUTTON, 0));
  g_autoptr(GPtrArray) names = g_ptr_array_new ();

  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (pages)); i++)
    {
      g_autoptr(AdwViewStackPage) page = g_list_model_get_item (G_LIST_MODEL (pages), i);

      g_ptr_array_add (names, (gpointer) adw_view_stack_page_get_icon_name (page));
    }
  g_ptr_array_add (names, (gpointer) gtk_menu_button_get_icon_name (menu));
  g_assert_cmpuint (names->len, ==, 6);

  for (guint i = 0; i < names->len; i++)
    {
      const char *name = g_ptr_array_index (names, i);
      g_autoptr(GtkIconPaintable) icon = NULL;
      g_autoptr(GFile) file = NULL;
      g_autofree char *basename = NULL;

      g_assert_nonnull (name);
      g_assert_true (gtk_icon_theme_has_icon (theme, name));
      icon = gtk_icon_theme_lookup_icon (theme, name, NULL, 16, 1, GTK_TEXT_DIR_NONE, 0);
      file = gtk_icon_paintable_get_file (icon);
      g_assert_nonnull (file);
      basename = g_file_get_basename (file);
      g_assert_true (g_str_has_prefix (basename, name));
    }
}

/* Only the page on screen is visible (the window's first layout measures
 * no other), and the switcher still offers all five. */
static void
test_only_shown_page_visible (AppFixture    *f,
                              gconstpointer  data)
{
  static const char *names[] = { "requests", "access", "activity", "providers", "audit" };
  GtkWidget *pages[] = {
    GTK_WIDGET (_lumo_window_get_requests_page (f->window)), GTK_WIDGET (_lumo_window_get_access_page (f->window)),
    GTK_WIDGET (_lumo_window_get_activity_page (f->window)), GTK_WIDGET (_lumo_window_get_providers_page (f->window)),
    GTK_WIDGET (_lumo_window_get_audit_page (f->window)),
  };
  AdwViewStack *stack = ADW_VIEW_STACK (app_test_find_widget (GTK_WIDGET (f->window), ADW_TYPE_VIEW_STACK, 0));
  g_autoptr(GtkSelectionModel) stack_pages = adw_view_stack_get_pages (stack);

  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (stack_pages)), ==, G_N_ELEMENTS (names));
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_assert_true (lumo_window_set_page (f->window, names[i]));
      app_test_iterate ();
      for (guint j = 0; j < G_N_ELEMENTS (pages); j++)
        {
          g_autoptr(AdwViewStackPage) page = g_list_model_get_item (G_LIST_MODEL (stack_pages), j);

          g_assert_true (adw_view_stack_page_get_visible (page));
          g_assert_cmpint (gtk_widget_get_visible (pages[j]), ==, i == j);
        }
      g_assert_true (gtk_widget_get_mapped (pages[i]));
    }
}

static void
test_shortcuts (AppFixture    *f,
                gconstpointer  data)
{
  static const char *pages[] = { "requests", "access", "activity", "providers", "audit" };
  GtkWidget *focus;

  for (guint i = 0; i < G_N_ELEMENTS (pages); i++)
    {
      g_autofree char *trigger = g_strdup_printf ("<Control>%u", i + 1);
      g_autofree char *action = g_strdup_printf ("win.page('%s')", pages[i]);

      g_assert_true (has_shortcut (GTK_WIDGET (f->window), trigger, "win.page"));
      g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.page", "s", pages[i]));
      g_assert_cmpstr (lumo_window_get_page (f->window), ==, pages[i]);
    }
  g_assert_true (has_shortcut (GTK_WIDGET (f->window), "<Control>f", "win.search"));
  g_assert_true (has_shortcut (GTK_WIDGET (f->window), "<Control>q", "win.quit"));
  g_assert_true (has_shortcut (GTK_WIDGET (f->window), "<Control>w", "win.close"));

  /* Ctrl+F: the Audit page, with the search entry focused. */
  lumo_window_set_page (f->window, "requests");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.search", NULL));
  app_test_iterate ();
  g_assert_cmpstr (lumo_window_get_page (f->window), ==, "audit");
  focus = gtk_root_get_focus (GTK_ROOT (f->window));
  g_assert_nonnull (focus);
  g_assert_true (focus == GTK_WIDGET (lumo_audit_page_get_search_entry (_lumo_window_get_audit_page (f->window))) ||
                 gtk_widget_is_ancestor (focus, GTK_WIDGET (lumo_audit_page_get_search_entry (_lumo_window_get_audit_page (f->window)))));

  g_assert_false (lumo_window_set_page (f->window, "nonsense"));
  g_assert_cmpstr (lumo_window_get_page (f->window), ==, "audit");

}

static gboolean
menu_has_action (GMenuModel *model,
                 const char *action)
{
  for (int i = 0; i < g_menu_model_get_n_items (model); i++)
    {
      g_autofree char *name = NULL;
      g_autoptr(GMenuModel) section = g_menu_model_get_item_link (model, i, G_MENU_LINK_SECTION);

      if (g_menu_model_get_item_attribute (model, i, G_MENU_ATTRIBUTE_ACTION, "s", &name) &&
          g_str_equal (name, action))
        return TRUE;
      if (section != NULL && menu_has_action (section, action))
        return TRUE;
    }
  return FALSE;
}

static gboolean
is_primary_menu_button (GtkWidget     *widget,
                        gconstpointer  data)
{
  return gtk_menu_button_get_primary (GTK_MENU_BUTTON (widget));
}

/* The main menu and the shortcuts window are built when first opened; the
 * menu's item and the shortcuts open the shortcuts window each time. */
static void
test_shortcuts_window (AppFixture    *f,
                       gconstpointer  data)
{
  GtkApplicationWindow *window = GTK_APPLICATION_WINDOW (f->window);
  GtkShortcutsWindow *overlay;
  GtkWidget *menu_button;
  GtkPopover *popover;

  g_assert_null (gtk_application_window_get_help_overlay (window));
  menu_button = app_test_find_widget_where (GTK_WIDGET (f->window), GTK_TYPE_MENU_BUTTON, is_primary_menu_button, NULL);
  g_assert_nonnull (menu_button);
  /* The main menu is made when it first opens, with the item. */
  g_assert_null (gtk_menu_button_get_popover (GTK_MENU_BUTTON (menu_button)));
  gtk_menu_button_popup (GTK_MENU_BUTTON (menu_button));
  app_test_iterate ();
  g_assert_nonnull (gtk_menu_button_get_popover (GTK_MENU_BUTTON (menu_button)));
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (gtk_menu_button_get_popover (GTK_MENU_BUTTON (menu_button)))));
  g_assert_true (menu_has_action (gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (menu_button)), "win.show-help-overlay"));
  popover = gtk_menu_button_get_popover (GTK_MENU_BUTTON (menu_button));
  gtk_menu_button_popdown (GTK_MENU_BUTTON (menu_button));
  app_test_iterate ();
  /* Opened again, it is the same menu. */
  gtk_menu_button_popup (GTK_MENU_BUTTON (menu_button));
  app_test_iterate ();
  g_assert_true (gtk_menu_button_get_popover (GTK_MENU_BUTTON (menu_button)) == popover);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (popover)));
  gtk_menu_button_popdown (GTK_MENU_BUTTON (menu_button));
  g_assert_true (has_shortcut (GTK_WIDGET (f->window), "<Control>question", "win.show-help-overlay"));
  g_assert_true (has_shortcut (GTK_WIDGET (f->window), "<Control>F1", "win.show-help-overlay"));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.show-help-overlay", NULL));
  app_test_iterate ();
  overlay = gtk_application_window_get_help_overlay (window);
  g_assert_nonnull (overlay);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (overlay)));
  g_assert_true (gtk_window_get_transient_for (GTK_WINDOW (overlay)) == GTK_WINDOW (f->window));

  /* Closing hides it; the next time shows the same one again. */
  gtk_window_close (GTK_WINDOW (overlay));
  app_test_iterate ();
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (overlay)));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.show-help-overlay", NULL));
  app_test_iterate ();
  g_assert_true (gtk_application_window_get_help_overlay (window) == overlay);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (overlay)));
  gtk_window_close (GTK_WINDOW (overlay));
}

static void
test_about (AppFixture    *f,
            gconstpointer  data)
{
  GList *windows;
  AdwAboutWindow *about = NULL;

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.about", NULL));
  app_test_iterate ();

  windows = gtk_window_list_toplevels ();
  for (GList *l = windows; l != NULL; l = l->next)
    if (ADW_IS_ABOUT_WINDOW (l->data))
      about = l->data;
  g_list_free (windows);

  g_assert_nonnull (about);
  g_assert_cmpstr (adw_about_window_get_application_name (about), ==, "Lumo Access");
  g_assert_cmpstr (adw_about_window_get_version (about), ==, PACKAGE_VERSION);
  gtk_window_destroy (GTK_WINDOW (about));
}

static void
test_size_is_remembered (AppFixture    *f,
                         gconstpointer  data)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  LumoWindow *window;
  int width, height;

  g_settings_set_int (settings, "window-width", 700);
  g_settings_set_int (settings, "window-height", 500);
  window = lumo_window_new (app_test_get_application (), f->backend, NULL);
  gtk_window_get_default_size (GTK_WINDOW (window), &width, &height);
  g_assert_cmpint (width, ==, 700);
  g_assert_cmpint (height, ==, 500);

  gtk_window_present (GTK_WINDOW (window));
  gtk_window_set_default_size (GTK_WINDOW (window), 820, 610);
  app_test_iterate ();
  gtk_window_close (GTK_WINDOW (window));
  app_test_iterate ();
  g_assert_cmpint (g_settings_get_int (settings, "window-width"), ==, 820);
  g_assert_cmpint (g_settings_get_int (settings, "window-height"), ==, 610);
  g_assert_false (g_settings_get_boolean (settings, "window-maximized"));
}

static void
dump_widest (GtkWidget *widget,
             int        depth)
{
  int minimum;

  gtk_widget_measure (widget, GTK_ORIENTATION_HORIZONTAL, -1, &minimum, NULL, NULL, NULL);
  if (minimum <= 360 || depth > 30)
    return;
  g_test_message ("%*s%s %d", depth, "", G_OBJECT_TYPE_NAME (widget), minimum);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    dump_widest (child, depth + 1);
}

static void
test_usable_at_360_px (AppFixture    *f,
                       gconstpointer  data)
{
  static const char *pages[] = { "requests", "access", "activity", "providers", "audit" };
  LumoPolicyStatus status;
  g_autoptr(GError) error = NULL;

  /* Some content, so rows are measured too. */
  app_fixture_add_provider (f, TEST_PROVIDER_ID, "Lumo Userscripts with a Rather Long Name");
  lumo_policy_probe (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, "An Agent With A Long Display Name",
                     &status, &error);
  g_assert_no_error (error);
  lumo_policy_allow_caller (f->policy, TEST_PROVIDER_ID, TEST_CALLER2_ID, LUMO_POLICY_ORIGIN_UI, &error);
  g_assert_no_error (error);
  app_test_iterate ();

  for (guint i = 0; i < G_N_ELEMENTS (pages); i++)
    {
      int minimum, natural;

      lumo_window_set_page (f->window, pages[i]);
      app_test_iterate ();
      /* The content: the window adds its decorations around it. */
      gtk_widget_measure (adw_application_window_get_content (ADW_APPLICATION_WINDOW (f->window)),
                          GTK_ORIENTATION_HORIZONTAL, -1, &minimum, &natural, NULL, NULL);
      g_test_message ("%s: minimum width %d", pages[i], minimum);
      if (minimum > 360)
        dump_widest (adw_application_window_get_content (ADW_APPLICATION_WINDOW (f->window)), 0);
      g_assert_cmpint (minimum, <=, 360);
    }
}

static void
check_controls_are_named (GtkWidget *widget)
{
  /* Buttons that show only an icon say what they do in a tooltip (and an
   * accessible label set beside it). Widgets inside libadwaita's and
   * GTK's own composites are theirs to name. */
  if (GTK_IS_BUTTON (widget) && gtk_actionable_get_action_name (GTK_ACTIONABLE (widget)) != NULL &&
      gtk_button_get_label (GTK_BUTTON (widget)) == NULL &&
      g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (widget)), "window.close") != 0 &&
      g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (widget)), "window.minimize") != 0 &&
      g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (widget)), "window.toggle-maximized") != 0)
    {
      g_test_message ("icon button %s", gtk_actionable_get_action_name (GTK_ACTIONABLE (widget)));
      g_assert_nonnull (gtk_widget_get_tooltip_text (widget));
    }
  if (GTK_IS_MENU_BUTTON (widget))
    g_assert_nonnull (gtk_widget_get_tooltip_text (widget));

  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    check_controls_are_named (child);
}

static void
test_controls_are_named (AppFixture    *f,
                         gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  app_fixture_add_provider (f, TEST_PROVIDER_ID, "Lumo Userscripts");
  lumo_policy_allow_caller (f->policy, TEST_PROVIDER_ID, TEST_CALLER2_ID, LUMO_POLICY_ORIGIN_UI, &error);
  g_assert_no_error (error);
  app_test_iterate ();

  /* Every page: each is built when first shown or asked for. */
  _lumo_window_get_requests_page (f->window);
  _lumo_window_get_access_page (f->window);
  _lumo_window_get_activity_page (f->window);
  _lumo_window_get_providers_page (f->window);
  _lumo_window_get_audit_page (f->window);
  check_controls_are_named (GTK_WIDGET (f->window));
}

static GtkWidget *
built_page (LumoWindow *window,
            const char *name)
{
  AdwViewStack *stack = ADW_VIEW_STACK (app_test_find_widget (GTK_WIDGET (window), ADW_TYPE_VIEW_STACK, 0));

  return adw_bin_get_child (ADW_BIN (adw_view_stack_get_child_by_name (stack, name)));
}

/* A window opened on the Audit page builds that page only; the others
 * come when first shown. The Requests page's badge counts what waits
 * (pending agents, writes in review) while that page was never built, and
 * the page, once shown, lists the same. */
static void
test_pages_built_when_shown (void)
{
  static const char *names[] = { "requests", "access", "activity", "providers", "audit" };
  AppFixture fixture = { 0 }, *f = &fixture;
  g_autoptr(GError) error = NULL;
  LumoPolicyStatus status;
  gboolean attention = TRUE;
  GtkWidget *requests;

  app_fixture_setup_stores (f);
  app_fixture_add_provider (f, TEST_PROVIDER_ID, "Lumo Userscripts");
  /* One agent already waits when the window opens. */
  lumo_policy_probe (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, "Waiting Before", &status, &error);
  g_assert_no_error (error);

  g_setenv ("LUMO_ACCESS_PAGE", "audit", TRUE);
  app_fixture_setup_window (f, TRUE);
  g_unsetenv ("LUMO_ACCESS_PAGE");

  g_assert_cmpstr (lumo_window_get_page (f->window), ==, "audit");
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    g_assert_cmpint (built_page (f->window, names[i]) != NULL, ==, g_str_equal (names[i], "audit"));
  g_assert_true (LUMO_IS_AUDIT_PAGE (built_page (f->window, "audit")));
  g_assert_cmpuint (app_test_requests_badge (f->window, &attention), ==, 1);
  g_assert_true (attention);

  /* Another agent, and a write in review: the badge follows. */
  lumo_policy_probe (f->policy, TEST_PROVIDER_ID, TEST_CALLER2_ID, "Waiting After", &status, &error);
  g_assert_no_error (error);
  lumo_review_queue_submit_async (f->queue, TEST_PROVIDER_ID, TEST_CALLER3_ID, "Reviewed Agent",
                                  "userscripts.update_script", "0b7f2a52-4a53-4e0e-9d3e-6f1f5c3a9e11",
                                  "{\"action\":\"update\"}", NULL, NULL, NULL);
  app_test_iterate ();
  g_assert_cmpuint (app_test_requests_badge (f->window, NULL), ==, 3);
  g_assert_null (built_page (f->window, "requests"));

  /* Denied elsewhere (the CLI, a notification): one fewer. */
  lumo_policy_deny_caller (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, LUMO_POLICY_ORIGIN_UI, &error);
  g_assert_no_error (error);
  app_test_iterate ();
  g_assert_cmpuint (app_test_requests_badge (f->window, NULL), ==, 2);
  g_assert_null (built_page (f->window, "requests"));

  /* Ctrl+1: the page is built now, with what waits. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.page", "s", "requests"));
  app_test_iterate ();
  requests = built_page (f->window, "requests");
  g_assert_true (LUMO_IS_REQUESTS_PAGE (requests));
  g_assert_true (gtk_widget_get_mapped (requests));
  g_assert_false (gtk_widget_get_visible (built_page (f->window, "audit")));
  g_assert_true (app_test_any_text_contains (requests, "Waiting After"));
  g_assert_false (app_test_any_text_contains (requests, "Waiting Before"));
  g_assert_true (app_test_any_text_contains (requests, "Reviewed Agent"));
  g_assert_cmpuint (app_test_count_widgets (requests, LUMO_TYPE_CALLER_ROW), ==, 1);
  g_assert_cmpuint (app_test_count_widgets (requests, LUMO_TYPE_REVIEW_ROW), ==, 1);

  /* Decided from the page: the badge goes out. */
  {
    LumoReviewRequest *request = lumo_review_row_get_request (LUMO_REVIEW_ROW (
                                   app_test_find_widget (requests, LUMO_TYPE_REVIEW_ROW, 0)));

    g_assert_true (lumo_review_queue_decide (f->queue, lumo_review_request_get_id (request), FALSE, &error));
    g_assert_no_error (error);
  }
  lumo_policy_deny_caller (f->policy, TEST_PROVIDER_ID, TEST_CALLER2_ID, LUMO_POLICY_ORIGIN_UI, &error);
  g_assert_no_error (error);
  app_test_iterate ();
  g_assert_cmpuint (app_test_requests_badge (f->window, &attention), ==, 0);
  g_assert_false (attention);
  g_assert_cmpuint (app_test_count_widgets (requests, LUMO_TYPE_REVIEW_ROW), ==, 0);

  /* The others are built when shown, each with its backend. */
  g_assert_null (built_page (f->window, "access"));
  lumo_window_set_page (f->window, "access");
  app_test_iterate ();
  g_assert_true (LUMO_IS_ACCESS_PAGE (built_page (f->window, "access")));
  g_assert_nonnull (lumo_access_page_get_allowed (LUMO_ACCESS_PAGE (built_page (f->window, "access"))));
  g_assert_true (app_test_any_text_contains (built_page (f->window, "access"), "Lumo Userscripts"));

  app_fixture_teardown (f, NULL);
}

static void
test_no_store_says_why (void)
{
  g_autoptr(GError) error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_FAILED, "audit.db is not a database");
  LumoWindow *window = g_object_ref_sink (lumo_window_new (app_test_get_application (), NULL, error));

  g_assert_true (app_test_any_text_contains (GTK_WIDGET (window), "audit.db is not a database"));
  g_assert_false (lumo_window_set_page (window, "audit"));
  gtk_window_destroy (GTK_WINDOW (window));
  g_object_unref (window);
}

static gboolean
integrity_known (gpointer store)
{
  return lumo_audit_store_get_integrity (store) != LUMO_AUDIT_INTEGRITY_CHECKING;
}

/* The app holds the audit log's integrity check (seconds of a core and
 * the disk on a big log) until its window's first screen is drawn: on the
 * Requests page, until its first frame. */
static void
test_check_after_first_frame (void)
{
  AppFixture fixture = { 0 }, *f = &fixture;

  app_fixture_setup_app_stores (f);
  g_assert_true (lumo_audit_store_get_check_held (f->audit));

  /* A window not shown yet draws nothing. */
  app_fixture_setup_window (f, FALSE);
  g_assert_true (lumo_audit_store_get_check_held (f->audit));
  g_assert_cmpint (lumo_audit_store_get_integrity (f->audit), ==, LUMO_AUDIT_INTEGRITY_CHECKING);

  gtk_window_present (GTK_WINDOW (f->window));
  lumo_test_wait_until (integrity_known, f->audit, "the check after the first frame");
  g_assert_cmpint (lumo_audit_store_get_integrity (f->audit), ==, LUMO_AUDIT_INTEGRITY_OK);

  app_fixture_teardown (f, NULL);
}

/* Started as a service, with no window: nothing holds the check. */
static void
test_check_windowless (void)
{
  AppFixture fixture = { 0 }, *f = &fixture;

  app_fixture_setup_app_stores (f);
  g_assert_true (lumo_audit_store_get_check_held (f->audit));
  lumo_test_wait_until (integrity_known, f->audit, "the check without a window");
  g_assert_cmpint (lumo_audit_store_get_integrity (f->audit), ==, LUMO_AUDIT_INTEGRITY_OK);

  /* The teardown destroys a window. */
  app_fixture_setup_window (f, FALSE);
  app_fixture_teardown (f, NULL);
}

static int first_rows_seen;

static void
on_loading_cb (LumoAuditModel *model,
               GParamSpec     *pspec,
               AppFixture     *f)
{
  if (lumo_audit_model_get_loading (model))
    return;
  g_signal_handlers_disconnect_by_func (model, on_loading_cb, f);
  /* The first rows are in, not drawn yet: still held. */
  g_assert_true (lumo_audit_store_get_check_held (f->audit));
  first_rows_seen++;
}

/* On the Audit page: held through its first rows, until they are drawn. */
static void
test_check_after_first_rows (void)
{
  AppFixture fixture = { 0 }, *f = &fixture;
  LumoAuditModel *model;

  app_fixture_setup_app_stores (f);
  g_assert_true (lumo_audit_store_get_check_held (f->audit));

  g_setenv ("LUMO_ACCESS_PAGE", "audit", TRUE);
  f->window = g_object_ref_sink (lumo_window_new (GTK_APPLICATION (f->app), f->backend, NULL));
  g_unsetenv ("LUMO_ACCESS_PAGE");
  model = lumo_audit_page_get_model (_lumo_window_get_audit_page (f->window));
  g_assert_true (lumo_audit_model_get_loading (model));
  g_signal_connect (model, "notify::loading", G_CALLBACK (on_loading_cb), f);
  gtk_window_present (GTK_WINDOW (f->window));

  lumo_test_wait_until (integrity_known, f->audit, "the check after the first rows");
  g_assert_cmpint (first_rows_seen, ==, 1);
  g_assert_cmpint (lumo_audit_store_get_integrity (f->audit), ==, LUMO_AUDIT_INTEGRITY_OK);

  app_fixture_teardown (f, NULL);
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);
  app_test_init_application ();

#define ADD(path, func) \
  g_test_add ("/window/" path, AppFixture, GINT_TO_POINTER (TRUE), app_fixture_setup, func, app_fixture_teardown)
  ADD ("icons", test_icons_found);
  ADD ("shortcuts", test_shortcuts);
  ADD ("only-shown-page-visible", test_only_shown_page_visible);
  ADD ("about", test_about);
  ADD ("shortcuts-window", test_shortcuts_window);
  ADD ("size", test_size_is_remembered);
  ADD ("360px", test_usable_at_360_px);
  ADD ("named-controls", test_controls_are_named);
#undef ADD
  g_test_add_func ("/window/no-store", test_no_store_says_why);
  g_test_add_func ("/window/pages-built-when-shown", test_pages_built_when_shown);
  g_test_add_func ("/window/check-after-first-frame", test_check_after_first_frame);
  g_test_add_func ("/window/check-after-first-rows", test_check_after_first_rows);
  g_test_add_func ("/window/check-windowless", test_check_windowless);

  return g_test_run ();
}
