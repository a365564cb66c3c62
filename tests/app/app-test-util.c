/* app-test-util.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "app-test-util.h"
#include "lumo-audit-row-view.h"
#include "lumo-paths.h"
#include "lumo-ui-util.h"

static GtkApplication *test_application;

GtkApplication *
app_test_init_application (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *id = g_strdup_printf ("dev.lumo.Access.Test%d", (int) getpid ());

  /* Dark style and the stylesheet as in the app. */
  adw_init ();
  /* No animations: a test waits for what a person would see at rest.
   * With them, libadwaita 1.2's AdwFlap now and then allocated its
   * content with a width of G_MININT on a loaded machine while the Audit
   * detail slid in — a warning, fatal in tests. */
  g_object_set (gtk_settings_get_default (), "gtk-enable-animations", FALSE, NULL);

  /* An AdwApplication, as the app's: it loads style.css (GtkApplication
   * only loads the menus and the shortcuts window). */
  test_application = GTK_APPLICATION (adw_application_new (id, G_APPLICATION_NON_UNIQUE));
  g_object_set (test_application, "resource-base-path", "/dev/lumo/Access", NULL);
  if (!g_application_register (G_APPLICATION (test_application), NULL, &error))
    g_error ("Cannot register the test application: %s", error->message);

  return test_application;
}

GtkApplication *
app_test_get_application (void)
{
  g_assert_nonnull (test_application);
  return test_application;
}

void
app_fixture_setup_stores (AppFixture *f)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *policy_path = NULL;
  g_autofree char *audit_path = NULL;

  f->dir = lumo_test_dir_new ("app-test");

  policy_path = g_build_filename (f->dir, "policy.db", NULL);
  audit_path = g_build_filename (f->dir, "audit.db", NULL);

  f->managed_dir = g_build_filename (f->dir, "policy.d", NULL);
  f->policy = lumo_policy_new_full (policy_path, f->managed_dir, &error);
  g_assert_no_error (error);
  f->audit = lumo_audit_store_new (audit_path, &error);
  g_assert_no_error (error);
  f->queue = lumo_review_queue_new ();
  f->backend = lumo_backend_new (f->policy, f->audit, f->queue);
}

void
app_fixture_setup_window (AppFixture *f,
                          gboolean    present)
{
  GtkApplication *application = f->app != NULL ? GTK_APPLICATION (f->app) : app_test_get_application ();

  f->window = lumo_window_new (application, f->backend, NULL);
  g_object_ref_sink (f->window);
  if (present)
    gtk_window_present (GTK_WINDOW (f->window));
  app_test_iterate ();
}

void
app_fixture_setup (AppFixture    *f,
                   gconstpointer  data)
{
  app_fixture_setup_stores (f);
  app_fixture_setup_window (f, GPOINTER_TO_INT (data));
}

static gboolean
quit_app_cb (gpointer data)
{
  g_application_quit (data);
  return G_SOURCE_REMOVE;
}

void
app_fixture_setup_app_stores (AppFixture *f)
{
  static guint n_apps;
  g_autoptr(GSettings) settings = lumo_ui_lookup_settings ("notify-new-requests", NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *id = g_strdup_printf ("dev.lumo.Access.Test%d.App%u", (int) getpid (), n_apps++);

  f->dir = lumo_test_dir_new ("app-test");
  lumo_paths_set_data_dir (f->dir);
  /* Its own policy.d, as app_fixture_setup_stores() gives the policy. */
  f->managed_dir = g_build_filename (f->dir, "policy.d", NULL);
  g_setenv ("LUMO_ACCESS_POLICY_DIR", f->managed_dir, TRUE);
  /* Its notifier would talk to a desktop that is not there (test-notifier
   * stands one in for it). */
  if (settings != NULL)
    g_settings_set_boolean (settings, "notify-new-requests", FALSE);

  /* Its own ID: tests run in parallel on one bus. A service, so that
   * g_application_run() at teardown (which alone unregisters it and lets
   * it go) opens no window. */
  f->app = g_object_new (LUMO_TYPE_APPLICATION,
                         "application-id", id,
                         "flags", G_APPLICATION_NON_UNIQUE | G_APPLICATION_IS_SERVICE,
                         "resource-base-path", "/dev/lumo/Access",
                         NULL);
  if (!g_application_register (G_APPLICATION (f->app), NULL, &error))
    g_error ("Cannot register the test's LumoApplication: %s", error->message);
  g_assert_nonnull (lumo_application_get_backend (f->app));

  f->backend = g_object_ref (lumo_application_get_backend (f->app));
  f->policy = g_object_ref (lumo_backend_get_policy (f->backend));
  f->audit = g_object_ref (lumo_backend_get_audit_store (f->backend));
  f->queue = g_object_ref (lumo_backend_get_review_queue (f->backend));
}

void
app_fixture_setup_app (AppFixture    *f,
                       gconstpointer  data)
{
  app_fixture_setup_app_stores (f);
  app_fixture_setup_window (f, GPOINTER_TO_INT (data));
}

void
app_fixture_teardown (AppFixture    *f,
                      gconstpointer  data)
{
  gtk_window_destroy (GTK_WINDOW (f->window));
  g_clear_object (&f->window);
  app_test_iterate ();

  if (f->app != NULL)
    {
      g_autoptr(GSettings) settings = lumo_ui_lookup_settings ("desktop-agents", "desktop-agents-port",
                                                               "notify-new-requests", NULL);

      /* The memory backend outlives the test: the next one starts off. */
      if (settings != NULL)
        {
          g_settings_reset (settings, "desktop-agents");
          g_settings_reset (settings, "desktop-agents-port");
          g_settings_reset (settings, "notify-new-requests");
        }
      app_test_iterate ();
    }

  g_clear_object (&f->backend);
  g_clear_object (&f->queue);
  g_clear_object (&f->audit);
  g_clear_object (&f->policy);
  if (f->app != NULL)
    {
      GObject *app = G_OBJECT (f->app);

      /* Its shutdown, as when the app quits: the endpoint closes, the
       * bus object goes, and nothing of it follows the next test's keys. */
      g_idle_add (quit_app_cb, f->app);
      g_assert_cmpint (g_application_run (G_APPLICATION (f->app), 0, NULL), ==, 0);
      g_object_add_weak_pointer (app, (gpointer *) &app);
      g_clear_object (&f->app);
      app_test_iterate ();
      g_assert_null (app);
    }
  app_test_iterate ();

  lumo_test_dir_remove (f->dir);
  g_clear_pointer (&f->dir, g_free);
  g_clear_pointer (&f->managed_dir, g_free);
}

void
app_fixture_add_provider (AppFixture *f,
                          const char *provider_id,
                          const char *name)
{
  g_autoptr(GError) error = NULL;

  lumo_policy_register_provider (f->policy, provider_id, "userscripts", name, "1.0.0", &error);
  g_assert_no_error (error);
}

void
app_test_iterate (void)
{
  for (guint i = 0; i < 1000 && g_main_context_pending (NULL); i++)
    g_main_context_iteration (NULL, FALSE);
}

static GtkWidget *
find_widget (GtkWidget *root,
             GType      type,
             guint     *nth)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (root, type))
    {
      if (*nth == 0)
        return root;
      (*nth)--;
    }

  for (GtkWidget *child = gtk_widget_get_first_child (root);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_widget (child, type, nth);

      if (found != NULL)
        return found;
    }

  return NULL;
}

GtkWidget *
app_test_find_widget (GtkWidget *root,
                      GType      type,
                      guint      nth)
{
  return find_widget (root, type, &nth);
}

guint
app_test_count_widgets (GtkWidget *root,
                        GType      type)
{
  guint n = G_TYPE_CHECK_INSTANCE_TYPE (root, type) ? 1 : 0;

  for (GtkWidget *child = gtk_widget_get_first_child (root);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    n += app_test_count_widgets (child, type);

  return n;
}

GtkWidget *
app_test_find_widget_where (GtkWidget     *root,
                            GType          type,
                            AppTestMatch   match,
                            gconstpointer  data)
{
  for (guint i = 0;; i++)
    {
      GtkWidget *widget = app_test_find_widget (root, type, i);

      if (widget == NULL || match (widget, data))
        return widget;
    }
}

typedef struct
{
  const char *action_name;
  GVariant   *target;
} ActionTarget;

static gboolean
has_action (GtkWidget     *button,
            gconstpointer  data)
{
  const ActionTarget *wanted = data;
  GVariant *target = gtk_actionable_get_action_target_value (GTK_ACTIONABLE (button));

  if (g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (button)), wanted->action_name) != 0)
    return FALSE;
  if (wanted->target == NULL || target == NULL)
    return wanted->target == target;
  return g_variant_equal (target, wanted->target);
}

GtkWidget *
app_test_find_action_button (GtkWidget  *root,
                             const char *action_name,
                             GVariant   *target)
{
  g_autoptr(GVariant) owned = target != NULL ? g_variant_ref_sink (target) : NULL;
  ActionTarget wanted = { action_name, owned };

  return app_test_find_widget_where (root, GTK_TYPE_BUTTON, has_action, &wanted);
}

static void
add_text (GPtrArray  *texts,
          const char *text)
{
  if (text != NULL && *text != '\0')
    g_ptr_array_add (texts, g_strdup (text));
}

static void
collect (GtkWidget *widget,
         GPtrArray *texts)
{
  add_text (texts, gtk_widget_get_tooltip_text (widget));

  if (GTK_IS_LABEL (widget))
    {
      add_text (texts, gtk_label_get_text (GTK_LABEL (widget)));
      add_text (texts, gtk_label_get_label (GTK_LABEL (widget)));
    }
  if (GTK_IS_INSCRIPTION (widget))
    add_text (texts, gtk_inscription_get_text (GTK_INSCRIPTION (widget)));
  if (LUMO_IS_AUDIT_ROW_VIEW (widget))
    for (guint c = 0; c < LUMO_AUDIT_N_COLUMNS; c++)
      add_text (texts, lumo_audit_row_view_get_text (LUMO_AUDIT_ROW_VIEW (widget), c));
  if (GTK_IS_EDITABLE (widget))
    add_text (texts, gtk_editable_get_text (GTK_EDITABLE (widget)));
  if (ADW_IS_PREFERENCES_ROW (widget))
    add_text (texts, adw_preferences_row_get_title (ADW_PREFERENCES_ROW (widget)));
  if (ADW_IS_ACTION_ROW (widget))
    add_text (texts, adw_action_row_get_subtitle (ADW_ACTION_ROW (widget)));
  if (ADW_IS_STATUS_PAGE (widget))
    {
      add_text (texts, adw_status_page_get_title (ADW_STATUS_PAGE (widget)));
      add_text (texts, adw_status_page_get_description (ADW_STATUS_PAGE (widget)));
    }
  if (GTK_IS_WINDOW (widget))
    add_text (texts, gtk_window_get_title (GTK_WINDOW (widget)));

  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    collect (child, texts);
}

typedef struct
{
  double     y;
  GtkWidget *row;
} ShownRow;

static int
compare_shown_rows (gconstpointer a,
                    gconstpointer b)
{
  const ShownRow *ra = a, *rb = b;

  return ra->y < rb->y ? -1 : ra->y > rb->y;
}

/* One walk of the tree: a search from the top for each row would be
 * quadratic, on every turn of a loop that waits. */
static void
collect_rows (GtkWidget *widget,
              GtkWidget *root,
              GArray    *rows)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      LumoAuditItem *item;
      graphene_point_t point;

      if (!gtk_widget_get_mapped (child))
        continue;
      if (!LUMO_IS_AUDIT_ROW_VIEW (child))
        {
          collect_rows (child, root, rows);
          continue;
        }
      item = lumo_audit_row_view_get_item (LUMO_AUDIT_ROW_VIEW (child));
      if (item != NULL && lumo_audit_item_get_row (item) != NULL &&
          gtk_widget_compute_point (child, root, &GRAPHENE_POINT_INIT (0, 0), &point))
        g_array_append_val (rows, ((ShownRow) { point.y, child }));
    }
}

GPtrArray *
app_test_audit_shown_rows (GtkWidget *root)
{
  g_autoptr(GArray) rows = g_array_new (FALSE, FALSE, sizeof (ShownRow));
  GPtrArray *shown = g_ptr_array_new ();

  collect_rows (root, root, rows);
  g_array_sort (rows, compare_shown_rows);
  for (guint i = 0; i < rows->len; i++)
    g_ptr_array_add (shown, g_array_index (rows, ShownRow, i).row);
  return shown;
}

GPtrArray *
app_test_audit_shown_texts (GtkWidget       *root,
                            LumoAuditColumn  column)
{
  g_autoptr(GPtrArray) rows = app_test_audit_shown_rows (root);
  GPtrArray *texts = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < rows->len; i++)
    g_ptr_array_add (texts, g_strdup (lumo_audit_row_view_get_text (g_ptr_array_index (rows, i), column)));
  return texts;
}

char *
app_test_audit_row_label (LumoAuditItem *item)
{
  GString *label = g_string_new (NULL);

  for (guint c = 0; c < LUMO_AUDIT_N_COLUMNS; c++)
    {
      const char *text = lumo_audit_item_get_text (item, c);

      if (*text == '\0')
        continue;
      if (label->len > 0)
        g_string_append (label, ", ");
      g_string_append (label, text);
      if (c == LUMO_AUDIT_COLUMN_CALLER && lumo_audit_item_get_caller_tag (item) != NULL)
        g_string_append_printf (label, " (%s)", lumo_audit_item_get_caller_tag (item));
    }
  return g_string_free (label, FALSE);
}

GPtrArray *
app_test_collect_texts (GtkWidget *root)
{
  GPtrArray *texts = g_ptr_array_new_with_free_func (g_free);

  collect (root, texts);
  return texts;
}

gboolean
app_test_any_text_contains (GtkWidget  *root,
                            const char *needle)
{
  g_autoptr(GPtrArray) texts = app_test_collect_texts (root);

  for (guint i = 0; i < texts->len; i++)
    if (strstr (g_ptr_array_index (texts, i), needle) != NULL)
      {
        g_test_message ("found “%s” in “%s”", needle, (char *) g_ptr_array_index (texts, i));
        return TRUE;
      }
  return FALSE;
}

void
app_test_click (GtkWidget *button)
{
  g_assert_true (GTK_IS_BUTTON (button));
  g_assert_true (gtk_widget_is_sensitive (button));
  g_signal_emit_by_name (button, "clicked");
}

#define FILL_BATCH 20000

void
app_test_fill_audit (LumoAuditStore *store,
                     guint           n_rows,
                     guint           special_every)
{
  static const char *tools[] = { "userscripts.install_script", "userscripts.update_script",
                                 "userscripts.list_scripts", "userscripts.delete_script" };
  static const char *callers[] = { TEST_CALLER_ID, TEST_CALLER2_ID, TEST_CALLER3_ID };
  static const char *names[] = { "Lumo", "Research Assistant", "Mail Helper" };
  static const char hash[] = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
  g_autofree LumoAuditImportRecord *batch = g_new0 (LumoAuditImportRecord, FILL_BATCH);
  gint64 start = g_get_real_time () - (gint64) n_rows * G_USEC_PER_SEC;
  guint done = 0;

  while (done < n_rows)
    {
      guint n = MIN (FILL_BATCH, n_rows - done);
      g_autoptr(GError) error = NULL;

      for (guint i = 0; i < n; i++)
        {
          guint k = done + i + 1;
          LumoAuditImportRecord *r = &batch[i];
          gboolean denied = k % 7 == 0;

          memset (r, 0, sizeof *r);
          r->record.time_us = start + (gint64) k * G_USEC_PER_SEC;
          r->record.provider_id = TEST_PROVIDER_ID;
          r->record.caller_id = callers[k % G_N_ELEMENTS (callers)];
          r->record.caller_name = names[k % G_N_ELEMENTS (names)];
          r->record.tool = special_every > 0 && k % special_every == 0
                           ? "userscripts.special_tool" : tools[k % G_N_ELEMENTS (tools)];
          r->record.write = TRUE;
          r->record.target = "0b7f2a52-4a53-4e0e-9d3e-6f1f5c3a9e11";
          r->record.params_sha256 = hash;
          r->record.decision = denied ? LUMO_AUDIT_DECISION_DENY : LUMO_AUDIT_DECISION_ALLOW;
          r->record.reason = denied ? LUMO_AUDIT_REASON_RATE_LIMITED : NULL;
          r->result = denied ? LUMO_AUDIT_RESULT_NONE
                             : (k % 11 == 0 ? LUMO_AUDIT_RESULT_ERROR : LUMO_AUDIT_RESULT_OK);
          r->result_text = r->result == LUMO_AUDIT_RESULT_ERROR ? "No script has this UUID." : NULL;
        }

      if (!lumo_audit_store_import (store, batch, n, &error))
        g_error ("Cannot fill the audit log: %s", error->message);
      done += n;
    }
}

static gboolean
has_label (GtkWidget     *button,
           gconstpointer  label)
{
  return g_strcmp0 (gtk_button_get_label (GTK_BUTTON (button)), label) == 0;
}

GtkWidget *
app_test_find_button_with_label (GtkWidget  *root,
                                 const char *label)
{
  return app_test_find_widget_where (root, GTK_TYPE_BUTTON, has_label, label);
}

char *
app_test_clipboard_text (GdkClipboard *clipboard)
{
  GdkContentProvider *content = gdk_clipboard_get_content (clipboard);
  g_auto(GValue) value = G_VALUE_INIT;
  g_autoptr(GError) error = NULL;

  g_assert_nonnull (content);
  g_value_init (&value, G_TYPE_STRING);
  g_assert_true (gdk_content_provider_get_value (content, &value, &error));
  g_assert_no_error (error);
  return g_value_dup_string (&value);
}

const char *
app_test_row_subtitle (GtkWidget *row)
{
  if (ADW_IS_EXPANDER_ROW (row))
    return adw_expander_row_get_subtitle (ADW_EXPANDER_ROW (row));
  return adw_action_row_get_subtitle (ADW_ACTION_ROW (row));
}

guint
app_test_requests_badge (LumoWindow *window,
                         gboolean   *needs_attention)
{
  AdwViewStack *stack = ADW_VIEW_STACK (app_test_find_widget (GTK_WIDGET (window), ADW_TYPE_VIEW_STACK, 0));
  GtkWidget *child;
  AdwViewStackPage *page;

  g_assert_nonnull (stack);
  child = adw_view_stack_get_child_by_name (stack, "requests");
  g_assert_nonnull (child);
  page = adw_view_stack_get_page (stack, child);
  if (needs_attention != NULL)
    *needs_attention = adw_view_stack_page_get_needs_attention (page);
  return adw_view_stack_page_get_badge_number (page);
}

char *
app_test_fake_helper_new (const char *name)
{
  g_autofree char *dir = lumo_test_dir_new (name);
  char *path = g_build_filename (dir, "lumo-access-host", NULL);

  lumo_test_write_in (path, NULL, "#!/bin/sh\nexit 0\n");
  g_assert_cmpint (g_chmod (path, 0755), ==, 0);
  g_setenv ("LUMO_ACCESS_HOST_PATH", path, TRUE);
  return path;
}

void
app_test_fake_helper_remove (char *helper_path)
{
  g_autofree char *dir = g_path_get_dirname (helper_path);

  g_unsetenv ("LUMO_ACCESS_HOST_PATH");
  lumo_test_dir_remove (dir);
  g_free (helper_path);
}

guint
app_test_free_port (void)
{
  g_autoptr(GSocket) socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
                                            G_SOCKET_PROTOCOL_TCP, NULL);
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new (loopback, 0);
  g_autoptr(GSocketAddress) bound = NULL;

  g_assert_true (g_socket_bind (socket, address, FALSE, NULL));
  bound = g_socket_get_local_address (socket, NULL);
  return g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
}
