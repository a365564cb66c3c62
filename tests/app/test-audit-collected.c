/* test-audit-collected.c — Open Audit Log…: another machine's log, read-only
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * An admin copies a machine's audit.db (and its audit.key), or gets a JSON
 * Lines export of it, and opens it from the Audit page's menu. It opens in
 * a window of its own titled with the file, in the same viewer: search,
 * sort, summary, export and Verify work; Verify with the key file checks
 * the results too. The folder with the copies — every file's bytes, and
 * which files there are — is the same afterwards. A copy someone edited
 * verifies as broken at the first edited row, and a damaged file says why
 * it cannot be opened instead of the log.
 */
#include "config.h"

#include <string.h>

#include "app-test-util.h"
#include "lumo-audit-detail.h"
#include "lumo-audit-header.h"
#include "lumo-audit-log-window.h"
#include "lumo-audit-page-private.h"
#include "lumo-error.h"

#define N_ROWS 450

typedef struct
{
  AppFixture  app;
  char       *collected;   /* the admin's folder */
  char       *db;          /* collected/laptop-7.db */
  char       *key;         /* collected/laptop-7.key */
  char       *jsonl;       /* collected/laptop-7.jsonl */
  char       *out;         /* where exports go, elsewhere */
} Fixture;

static void
copy_file (const char *from,
           const char *to)
{
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  gsize len = 0;

  g_assert_true (g_file_get_contents (from, &contents, &len, &error));
  g_assert_true (g_file_set_contents_full (to, contents, len, G_FILE_SET_CONTENTS_NONE, 0600, &error));
  g_assert_no_error (error);
}

/* "Another machine": a store of its own, some rows with results, an
 * export, then closed (the WAL folded into the file, as a copy taken with
 * the app closed has it) and copied. */
static void
setup (Fixture       *f,
       gconstpointer  data)
{
  g_autofree char *machine = lumo_test_dir_new ("laptop-7");
  g_autofree char *db = g_build_filename (machine, "audit.db", NULL);
  g_autofree char *key = g_build_filename (machine, "audit.key", NULL);
  g_autoptr(LumoAuditStore) store = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) out_file = NULL;
  g_autoptr(GFileOutputStream) out = NULL;

  f->collected = lumo_test_dir_new ("collected");
  f->out = lumo_test_dir_new ("exports");
  f->db = g_build_filename (f->collected, "laptop-7.db", NULL);
  f->key = g_build_filename (f->collected, "laptop-7.key", NULL);
  f->jsonl = g_build_filename (f->collected, "laptop-7.jsonl", NULL);

  store = lumo_audit_store_new (db, &error);
  g_assert_no_error (error);
  app_test_fill_audit (store, N_ROWS, 50);

  out_file = g_file_new_for_path (f->jsonl);
  out = g_file_replace (out_file, NULL, FALSE, G_FILE_CREATE_PRIVATE, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (lumo_audit_store_export (store, NULL, LUMO_AUDIT_EXPORT_JSONL, G_OUTPUT_STREAM (out),
                                          NULL, NULL, NULL, &error));
  g_assert_true (g_output_stream_close (G_OUTPUT_STREAM (out), NULL, &error));
  g_assert_no_error (error);
  g_clear_object (&store);

  copy_file (db, f->db);
  copy_file (key, f->key);
  lumo_test_dir_remove (machine);

  app_fixture_setup (&f->app, GINT_TO_POINTER (TRUE));
  lumo_window_set_page (f->app.window, "audit");
}

static void
teardown (Fixture       *f,
          gconstpointer  data)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  /* The collected logs' windows and their dialogs first. */
  for (guint i = g_list_model_get_n_items (toplevels); i > 0; i--)
    {
      g_autoptr(GtkWidget) window = g_list_model_get_item (toplevels, i - 1);

      if (LUMO_IS_AUDIT_LOG_WINDOW (window) || ADW_IS_MESSAGE_DIALOG (window))
        gtk_window_destroy (GTK_WINDOW (window));
    }
  app_test_iterate ();
  app_fixture_teardown (&f->app, NULL);

  lumo_test_dir_remove (f->collected);
  lumo_test_dir_remove (f->out);
  g_free (f->collected);
  g_free (f->out);
  g_free (f->db);
  g_free (f->key);
  g_free (f->jsonl);
}

/* ---- the window --------------------------------------------------------- */

static gboolean
window_loaded (gpointer data)
{
  return !lumo_audit_log_window_get_loading (data);
}

static gboolean
settled (gpointer data)
{
  return lumo_audit_model_get_counted (data) && !lumo_audit_model_get_loading (data);
}

static gboolean
item_loaded (gpointer data)
{
  return lumo_audit_item_get_row (data) != NULL;
}

static gboolean
summary_idle (gpointer data)
{
  return !lumo_audit_summary_get_busy (data);
}

/* The page's menu offers @action. */
static gboolean
menu_has_action (GtkWidget  *page,
                 const char *action)
{
  GtkWidget *button = app_test_find_widget (page, GTK_TYPE_MENU_BUTTON, 0);
  GMenuModel *menu = gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (button));

  for (int s = 0; s < g_menu_model_get_n_items (menu); s++)
    {
      g_autoptr(GMenuModel) section = g_menu_model_get_item_link (menu, s, G_MENU_LINK_SECTION);

      for (int i = 0; section != NULL && i < g_menu_model_get_n_items (section); i++)
        {
          g_autofree char *name = NULL;

          if (g_menu_model_get_item_attribute (section, i, G_MENU_ATTRIBUTE_ACTION, "s", &name) &&
              g_str_equal (name, action))
            return TRUE;
        }
    }
  return FALSE;
}

/* What the menu's file chooser does with the file it chose; returns the
 * new window once it has opened the file (or failed to). */
static LumoAuditLogWindow *
open_log (Fixture    *f,
          const char *path)
{
  LumoAuditPage *page = _lumo_window_get_audit_page (f->app.window);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  GList *before = g_list_copy (gtk_application_get_windows (app_test_get_application ()));
  LumoAuditLogWindow *window = NULL;

  g_assert_true (menu_has_action (GTK_WIDGET (page), "audit.open-log"));
  _lumo_audit_page_open_log (page, file);

  for (GList *l = gtk_application_get_windows (app_test_get_application ()); l != NULL; l = l->next)
    if (LUMO_IS_AUDIT_LOG_WINDOW (l->data) && g_list_find (before, l->data) == NULL)
      window = l->data;
  g_list_free (before);
  g_assert_nonnull (window);

  lumo_test_wait_until (window_loaded, window, "the collected log to open");
  return window;
}

typedef struct
{
  gboolean               done;
  gboolean               ok;
  GError                *error;
  LumoAuditVerifyReport  report;
} JobResult;

static void
on_verified_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  JobResult *r = user_data;

  r->ok = lumo_audit_page_verify_finish (LUMO_AUDIT_PAGE (object), result, &r->report, &r->error);
  r->done = TRUE;
}

static void
on_exported_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  JobResult *r = user_data;

  r->ok = lumo_audit_page_export_finish (LUMO_AUDIT_PAGE (object), result, &r->error);
  r->done = TRUE;
}

static gboolean
job_done (gpointer data)
{
  return ((JobResult *) data)->done;
}

/* Everything the viewer does, on the collected log. */
static void
use_the_viewer (Fixture            *f,
                LumoAuditLogWindow *window,
                const char         *name)
{
  LumoAuditPage *page = lumo_audit_log_window_get_page (window);
  LumoAuditModel *model = lumo_audit_page_get_model (page);
  g_autofree char *export_path = g_build_filename (f->out, "from-collected.csv", NULL);
  g_autoptr(GFile) export_file = g_file_new_for_path (export_path);
  g_autoptr(GFile) key_file = g_file_new_for_path (f->key);
  g_autoptr(LumoAuditItem) item = NULL;
  g_autofree char *exported = NULL;
  JobResult result = { 0 };

  g_assert_no_error (lumo_audit_log_window_get_error (window));
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, name);
  g_assert_true (lumo_audit_store_is_read_only (lumo_audit_page_get_store (page)));

  /* Every row, newest first. */
  lumo_test_wait_until (settled, model, "the collected log's rows");
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), ==, N_ROWS);
  item = g_list_model_get_item (G_LIST_MODEL (model), 0);
  lumo_test_wait_until (item_loaded, item, "the newest row");
  g_assert_cmpint (lumo_audit_row_get_id (lumo_audit_item_get_row (item)), ==, N_ROWS);
  g_clear_object (&item);

  /* Search. */
  gtk_editable_set_text (lumo_audit_page_get_search_entry (page), "tool:special_tool");
  g_assert_true (lumo_audit_page_search_now (page));
  lumo_test_wait_until (settled, model, "the search");
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), ==, N_ROWS / 50);

  /* Sort, by the time's header, oldest special row first. */
  _lumo_audit_page_sort_by (page, LUMO_AUDIT_COLUMN_TIME, LUMO_AUDIT_SORT_ASCENDING);
  {
    GtkWidget *header = app_test_find_widget (GTK_WIDGET (page), LUMO_TYPE_AUDIT_HEADER, 0);
    GtkWidget *button = lumo_audit_header_get_button (LUMO_AUDIT_HEADER (header), LUMO_AUDIT_COLUMN_TIME);
    g_autofree char *wrong = gtk_test_accessible_check_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_SORT,
                                                                 GTK_ACCESSIBLE_SORT_ASCENDING);

    g_assert_null (wrong);
  }
  lumo_test_wait_until (settled, model, "the sorted search");
  item = g_list_model_get_item (G_LIST_MODEL (model), 0);
  lumo_test_wait_until (item_loaded, item, "the oldest special row");
  g_assert_cmpint (lumo_audit_row_get_id (lumo_audit_item_get_row (item)), ==, 50);
  g_clear_object (&item);

  /* The summary of the search, counted here from the rows the other
   * machine wrote (app_test_fill_audit(): every 7th denied, every 11th
   * allowed one failed). */
  {
    LumoAuditSummary *summary = lumo_audit_page_get_summary (page);
    gint64 allowed = 0, denied = 0, failed = 0;
    g_autofree char *expected = NULL;

    for (guint k = 50; k <= N_ROWS; k += 50)
      {
        if (k % 7 == 0)
          denied++;
        else
          {
            allowed++;
            failed += k % 11 == 0;
          }
      }
    expected = g_strdup_printf ("All agents: %" G_GINT64_FORMAT " allowed · %" G_GINT64_FORMAT " denied · %"
                                G_GINT64_FORMAT " failed", allowed, denied, failed);
    lumo_test_wait_until (summary_idle, summary, "the summary");
    g_assert_cmpuint (lumo_audit_summary_get_lines (summary)->len, >, 0);
    g_assert_cmpstr (g_ptr_array_index (lumo_audit_summary_get_lines (summary), 0), ==, expected);
  }

  /* Export what the search shows, elsewhere. */
  lumo_audit_page_export_async (page, export_file, LUMO_AUDIT_EXPORT_CSV, NULL, on_exported_cb, &result);
  lumo_test_wait_until (job_done, &result, "the export");
  g_assert_no_error (result.error);
  g_assert_true (g_file_get_contents (export_path, &exported, NULL, NULL));
  g_assert_nonnull (strstr (exported, "userscripts.special_tool"));

  /* Verify: without the key the chain; with it the results as well. */
  result = (JobResult) { 0 };
  lumo_audit_page_verify_async (page, NULL, on_verified_cb, &result);
  lumo_test_wait_until (job_done, &result, "the verification");
  g_assert_no_error (result.error);
  g_assert_true (result.ok);
  g_assert_false (result.report.keyed);
  g_assert_cmpint (result.report.rows_checked, ==, N_ROWS);

  result = (JobResult) { 0 };
  lumo_audit_page_verify_with_key_async (page, key_file, NULL, on_verified_cb, &result);
  lumo_test_wait_until (job_done, &result, "the verification with the key");
  g_assert_no_error (result.error);
  g_assert_true (result.ok);
  g_assert_true (result.report.keyed);
  g_assert_cmpint (result.report.rows_checked, ==, N_ROWS);
}

static void
test_copied_database (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *before = lumo_test_dir_fingerprint (f->collected);
  g_autofree char *after = NULL;
  LumoAuditLogWindow *window = open_log (f, f->db);

  use_the_viewer (f, window, "laptop-7.db");
  gtk_window_destroy (GTK_WINDOW (window));
  app_test_iterate ();

  after = lumo_test_dir_fingerprint (f->collected);
  g_assert_cmpstr (after, ==, before);
}

static void
test_jsonl_export (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *before = lumo_test_dir_fingerprint (f->collected);
  g_autofree char *after = NULL;
  LumoAuditLogWindow *window = open_log (f, f->jsonl);

  use_the_viewer (f, window, "laptop-7.jsonl");
  gtk_window_destroy (GTK_WINDOW (window));
  app_test_iterate ();

  after = lumo_test_dir_fingerprint (f->collected);
  g_assert_cmpstr (after, ==, before);
}

/* ---- tampered and damaged copies ---------------------------------------- */

static void
replace_in_file (const char *path,
                 const char *from,
                 const char *to)
{
  g_autofree char *contents = NULL;
  g_autoptr(GString) s = NULL;

  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  g_assert_nonnull (strstr (contents, from));
  s = g_string_new (contents);
  g_string_replace (s, from, to, 1);
  g_assert_true (g_file_set_contents (path, s->str, s->len, NULL));
}

static gboolean
dialog_shown (gpointer data)
{
  GtkWidget **dialog = data;
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWidget) window = g_list_model_get_item (toplevels, i);

      if (ADW_IS_MESSAGE_DIALOG (window))
        *dialog = window;
    }
  return *dialog != NULL;
}

/* Verify names the first edited row, the way the page tells the person
 * (a dialog with a button to that row), and the detail pane shows it. */
static void
assert_verify_names_row (LumoAuditLogWindow *window,
                         gint64              bad_id)
{
  LumoAuditPage *page = lumo_audit_log_window_get_page (window);
  g_autofree char *start = g_strdup_printf ("Row %" G_GINT64_FORMAT " ", bad_id);
  GtkWidget *dialog = NULL;
  GtkWidget *detail;
  LumoAuditRow *shown;

  g_assert_no_error (lumo_audit_log_window_get_error (window));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "audit.verify", NULL));
  lumo_test_wait_until (dialog_shown, &dialog, "the verification's dialog");

  g_assert_cmpstr (adw_message_dialog_get_heading (ADW_MESSAGE_DIALOG (dialog)), ==, "The Log Was Changed");
  g_test_message ("verify: %s", adw_message_dialog_get_body (ADW_MESSAGE_DIALOG (dialog)));
  g_assert_true (g_str_has_prefix (adw_message_dialog_get_body (ADW_MESSAGE_DIALOG (dialog)), start));
  g_assert_true (adw_message_dialog_has_response (ADW_MESSAGE_DIALOG (dialog), "show"));

  adw_message_dialog_response (ADW_MESSAGE_DIALOG (dialog), "show");
  detail = app_test_find_widget (GTK_WIDGET (page), LUMO_TYPE_AUDIT_DETAIL, 0);
  lumo_test_wait_until ((LumoTestCondition) lumo_audit_detail_get_row, detail, "the row in the detail pane");
  shown = lumo_audit_detail_get_row (LUMO_AUDIT_DETAIL (detail));
  g_assert_cmpint (lumo_audit_row_get_id (shown), ==, bad_id);
  g_assert_true (app_test_any_text_contains (detail, "Not trustworthy"));
}

static void
test_tampered_database (Fixture       *f,
                        gconstpointer  data)
{
  const char *argv[] = { "sqlite3", "-bail", f->db,
                         "DROP TRIGGER audit_update_guard; UPDATE audit SET tool = 'userscripts.other' WHERE id = 37",
                         NULL };
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  LumoAuditLogWindow *window;

  /* Edited with the sqlite3 shell, as someone covering their tracks would. */
  g_assert_cmpint (lumo_test_run (launcher, argv, NULL, NULL, NULL), ==, 0);
  before = lumo_test_dir_fingerprint (f->collected);

  window = open_log (f, f->db);
  assert_verify_names_row (window, 37);
  gtk_window_destroy (GTK_WINDOW (window));
  app_test_iterate ();

  after = lumo_test_dir_fingerprint (f->collected);
  g_assert_cmpstr (after, ==, before);
}

static void
test_tampered_export (Fixture       *f,
                      gconstpointer  data)
{
  LumoAuditLogWindow *window;

  /* Edited with a text editor: row 100 (a special row) names another tool. */
  replace_in_file (f->jsonl, "\"tool\":\"userscripts.special_tool\"", "\"tool\":\"userscripts.install_script\"");
  window = open_log (f, f->jsonl);
  assert_verify_names_row (window, N_ROWS - N_ROWS % 50);
}

static gboolean
error_page_shown (gpointer data)
{
  return app_test_any_text_contains (data, "This Log Cannot Be Opened");
}

/* Damaged: the window says why, with the store's own message, and shows
 * no log; the file stays as it was. */
static void
assert_cannot_open (Fixture    *f,
                    const char *path,
                    int         code)
{
  g_autofree char *before = lumo_test_dir_fingerprint (f->collected);
  g_autofree char *after = NULL;
  LumoAuditLogWindow *window = open_log (f, path);
  const GError *error = lumo_audit_log_window_get_error (window);
  g_autofree char *name = g_path_get_basename (path);

  g_assert_error ((GError *) error, LUMO_ERROR, code);
  g_test_message ("%s: %s", name, error->message);
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, name);
  lumo_test_wait_until (error_page_shown, window, "the error page");
  g_assert_true (app_test_any_text_contains (GTK_WIDGET (window), error->message));
  g_assert_null (lumo_audit_page_get_store (lumo_audit_log_window_get_page (window)));

  gtk_window_destroy (GTK_WINDOW (window));
  app_test_iterate ();
  after = lumo_test_dir_fingerprint (f->collected);
  g_assert_cmpstr (after, ==, before);
}

static void
test_damaged_files (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *contents = NULL;
  g_autofree char *cut = g_build_filename (f->collected, "cut.db", NULL);
  g_autofree char *garbled = g_build_filename (f->collected, "garbled.jsonl", NULL);
  g_autofree char *notes = g_build_filename (f->collected, "notes.db", NULL);
  gsize len;

  /* A copy cut short in transfer. */
  g_assert_true (g_file_get_contents (f->db, &contents, &len, NULL));
  g_assert_true (g_file_set_contents (cut, contents, len / 2, NULL));
  assert_cannot_open (f, cut, LUMO_ERROR_DB_CORRUPT);

  /* An export with a line that is no audit row. */
  g_clear_pointer (&contents, g_free);
  g_assert_true (g_file_get_contents (f->jsonl, &contents, &len, NULL));
  g_assert_true (g_file_set_contents (garbled, "{\"id\": \"not a number\"}\n", -1, NULL));
  assert_cannot_open (f, garbled, LUMO_ERROR_INVALID_ARGUMENT);

  /* Not a log at all. */
  g_assert_true (g_file_set_contents (notes, "Meeting notes, not a database.\n", -1, NULL));
  assert_cannot_open (f, notes, LUMO_ERROR_INVALID_ARGUMENT);
}

int
main (int   argc,
      char *argv[])
{
  /* The rows' and titles' accessible properties are asserted: GTK's test
   * backend keeps them (the suite's GTK_A11Y=none keeps none). */
  g_setenv ("GTK_A11Y", "test", TRUE);
  gtk_test_init (&argc, &argv, NULL);
  app_test_init_application ();

  g_test_add ("/audit-collected/database", Fixture, NULL, setup, test_copied_database, teardown);
  g_test_add ("/audit-collected/jsonl", Fixture, NULL, setup, test_jsonl_export, teardown);
  g_test_add ("/audit-collected/tampered-database", Fixture, NULL, setup, test_tampered_database, teardown);
  g_test_add ("/audit-collected/tampered-export", Fixture, NULL, setup, test_tampered_export, teardown);
  g_test_add ("/audit-collected/damaged", Fixture, NULL, setup, test_damaged_files, teardown);

  return g_test_run ();
}
