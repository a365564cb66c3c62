/* test-audit-model.c — a million-row log opens without being loaded
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One log of 1,000,000 rows is written once for the whole program (every
 * 1000th row uses the tool "userscripts.special_tool"); each test opens a
 * window over it. The model must report n_items = 1,000,000 having fetched
 * only the pages the view asked for, search in SQL, show new rows at the
 * top, and export what the search shows.
 */
#include "config.h"

#include <string.h>

#include "app-test-util.h"

#define N_ROWS        1000000
#define SPECIAL_EVERY 1000

static char *shared_dir;

typedef struct
{
  char           *dir;
  LumoPolicy     *policy;
  LumoAuditStore *audit;
  LumoBackend    *backend;
  LumoWindow     *window;
  LumoAuditModel *model;
} Fixture;

static void
setup (Fixture       *f,
       gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *policy_path = g_build_filename (shared_dir, "policy.db", NULL);
  g_autofree char *audit_path = g_build_filename (shared_dir, "audit.db", NULL);
  g_autoptr(LumoReviewQueue) queue = lumo_review_queue_new ();

  f->policy = lumo_policy_new (policy_path, &error);
  g_assert_no_error (error);
  f->audit = lumo_audit_store_new (audit_path, &error);
  g_assert_no_error (error);
  f->backend = lumo_backend_new (f->policy, f->audit, queue);
  f->window = g_object_ref_sink (lumo_window_new (app_test_get_application (), f->backend, NULL));
  lumo_window_set_page (f->window, "audit");
  gtk_window_present (GTK_WINDOW (f->window));
  f->model = lumo_audit_page_get_model (_lumo_window_get_audit_page (f->window));
}

static void
teardown (Fixture       *f,
          gconstpointer  data)
{
  gtk_window_destroy (GTK_WINDOW (f->window));
  g_clear_object (&f->window);
  app_test_iterate ();
  g_clear_object (&f->backend);
  g_clear_object (&f->audit);
  g_clear_object (&f->policy);
  app_test_iterate ();
}

static gboolean
model_counted (gpointer data)
{
  return lumo_audit_model_get_counted (data) && !lumo_audit_model_get_loading (data);
}

static gboolean
item_loaded (gpointer data)
{
  return lumo_audit_item_get_row (data) != NULL;
}

static LumoAuditItem *
loaded_item (LumoAuditModel *model,
             guint           position)
{
  LumoAuditItem *item = g_list_model_get_item (G_LIST_MODEL (model), position);

  g_assert_nonnull (item);
  lumo_test_wait_until (item_loaded, item, "an item's page");
  return item;
}

static void
test_million_rows_without_loading_them (Fixture       *f,
                                        gconstpointer  data)
{
  guint64 fetched;
  gint64 top;
  LumoAuditItem *item;

  lumo_test_wait_until (model_counted, f->model, "the count of the log");
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (f->model)), ==, N_ROWS);

  /* The view asked for the rows it shows; nothing near a million. */
  fetched = lumo_audit_model_get_rows_fetched (f->model);
  g_test_message ("rows fetched to show the first screen: %" G_GUINT64_FORMAT, fetched);
  g_assert_cmpuint (fetched, >, 0);
  g_assert_cmpuint (fetched, <=, 5 * LUMO_AUDIT_MODEL_PAGE_SIZE);

  item = loaded_item (f->model, 0);
  top = lumo_audit_row_get_id (lumo_audit_item_get_row (item));
  g_assert_cmpint (top, ==, N_ROWS);
  g_object_unref (item);

  /* A jump to the middle and to the end: one page each. */
  fetched = lumo_audit_model_get_rows_fetched (f->model);
  item = loaded_item (f->model, 500000);
  g_assert_cmpint (lumo_audit_row_get_id (lumo_audit_item_get_row (item)), ==, top - 500000);
  g_object_unref (item);
  item = loaded_item (f->model, N_ROWS - 1);
  g_assert_cmpint (lumo_audit_row_get_id (lumo_audit_item_get_row (item)), ==, 1);
  g_object_unref (item);
  /* (The last page may be in memory already: the count is confirmed by
   * reading it.) */
  g_assert_cmpuint (lumo_audit_model_get_rows_fetched (f->model) - fetched, <=, 2 * LUMO_AUDIT_MODEL_PAGE_SIZE);
  g_assert_cmpuint (lumo_audit_model_get_rows_fetched (f->model) - fetched, >=, LUMO_AUDIT_MODEL_PAGE_SIZE);

  /* Asking for the same positions again hits the cache. */
  fetched = lumo_audit_model_get_rows_fetched (f->model);
  item = loaded_item (f->model, 500001);
  g_object_unref (item);
  g_assert_cmpuint (lumo_audit_model_get_rows_fetched (f->model), ==, fetched);

  /* Many distant positions: the cache stays bounded. */
  for (guint i = 0; i < 3 * LUMO_AUDIT_MODEL_MAX_PAGES; i++)
    g_object_unref (loaded_item (f->model, (i * 7919u * LUMO_AUDIT_MODEL_PAGE_SIZE) % N_ROWS));
  g_assert_cmpuint (lumo_audit_model_get_pages_cached (f->model), <=, LUMO_AUDIT_MODEL_MAX_PAGES);
}

static void
test_search_narrows_in_sql (Fixture       *f,
                            gconstpointer  data)
{
  LumoAuditPage *page = _lumo_window_get_audit_page (f->window);
  GtkEditable *entry = lumo_audit_page_get_search_entry (page);
  LumoAuditItem *item;
  LumoAuditItem *top;

  lumo_test_wait_until (model_counted, f->model, "the count of the log");

  /* Fewer than three characters: no search yet, and the page says why. */
  gtk_editable_set_text (entry, "sp");
  g_signal_emit_by_name (entry, "search-changed");
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (f->model)), ==, N_ROWS);
  g_assert_nonnull (strstr (lumo_audit_page_get_status (page), "at least 3 characters"));

  /* A bad filter value: the message of the core, the rows stay. */
  gtk_editable_set_text (entry, "since:yesterdayish");
  g_assert_false (lumo_audit_page_search_now (page));
  g_test_message ("status: %s", lumo_audit_page_get_status (page));
  g_assert_nonnull (strstr (lumo_audit_page_get_status (page), "since"));
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (f->model)), ==, N_ROWS);

  top = loaded_item (f->model, 0);
  gtk_editable_set_text (entry, "tool:special");
  g_assert_true (lumo_audit_page_search_now (page));
  lumo_test_wait_until (model_counted, f->model, "the count of the search");
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (f->model)), ==, N_ROWS / SPECIAL_EVERY);

  /* The top position keeps its item object (the view keeps its row
   * widgets), refilled with the search's first row. */
  item = loaded_item (f->model, 0);
  g_assert_true (item == top);
  g_assert_cmpstr (lumo_audit_row_get_tool (lumo_audit_item_get_row (item)), ==, "userscripts.special_tool");
  g_object_unref (item);
  g_object_unref (top);
  /* A filtered result far from the top: reached page by page, in SQL. */
  item = loaded_item (f->model, N_ROWS / SPECIAL_EVERY - 1);
  g_assert_cmpstr (lumo_audit_row_get_tool (lumo_audit_item_get_row (item)), ==, "userscripts.special_tool");
  g_assert_cmpint (lumo_audit_row_get_id (lumo_audit_item_get_row (item)), ==, SPECIAL_EVERY);
  g_object_unref (item);

  /* Free text and a field filter together. */
  gtk_editable_set_text (entry, "special result:denied");
  g_assert_true (lumo_audit_page_search_now (page));
  lumo_test_wait_until (model_counted, f->model, "the count of the search");
  /* Every 7th row is denied; of the special rows (k = 1000 m) those with
   * 7 | m are: floor (1000 / 7). */
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (f->model)), ==, (N_ROWS / SPECIAL_EVERY) / 7);

  gtk_editable_set_text (entry, "");
  g_assert_true (lumo_audit_page_search_now (page));
  lumo_test_wait_until (model_counted, f->model, "the count of the log");
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (f->model)), ==, N_ROWS);
}

typedef struct
{
  guint position;
  guint removed;
  guint added;
  gboolean seen;
} ItemsChanged;

static void
on_items_changed_cb (GListModel   *model,
                     guint         position,
                     guint         removed,
                     guint         added,
                     ItemsChanged *change)
{
  change->position = position;
  change->removed = removed;
  change->added = added;
  change->seen = TRUE;
}

static gboolean
change_seen (gpointer data)
{
  return ((ItemsChanged *) data)->seen;
}

static void
test_new_rows_appear_at_the_top (Fixture       *f,
                                 gconstpointer  data)
{
  static const char hash[] = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
  ItemsChanged change = { 0 };
  LumoAuditRecord record = {
    .provider_id = TEST_PROVIDER_ID,
    .caller_id = TEST_CALLER_ID,
    .caller_name = "Live Agent",
    .tool = "userscripts.live_tool",
    .write = TRUE,
    .params_sha256 = hash,
    .decision = LUMO_AUDIT_DECISION_ALLOW,
  };
  g_autoptr(GError) error = NULL;
  LumoAuditItem *item;
  guint n;
  gint64 id;

  lumo_test_wait_until (model_counted, f->model, "the count of the log");
  n = g_list_model_get_n_items (G_LIST_MODEL (f->model));
  g_signal_connect (f->model, "items-changed", G_CALLBACK (on_items_changed_cb), &change);

  id = lumo_audit_store_append (f->audit, &record, &error);
  g_assert_no_error (error);
  lumo_test_wait_until (change_seen, &change, "the new row");

  g_assert_cmpuint (change.position, ==, 0);
  g_assert_cmpuint (change.removed, ==, 0);
  g_assert_cmpuint (change.added, ==, 1);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (f->model)), ==, n + 1);
  item = g_list_model_get_item (G_LIST_MODEL (f->model), 0);
  g_assert_cmpint (lumo_audit_row_get_id (lumo_audit_item_get_row (item)), ==, id);
  g_assert_cmpstr (lumo_audit_row_get_tool (lumo_audit_item_get_row (item)), ==, "userscripts.live_tool");
  g_object_unref (item);
  /* The row after it is the old top. */
  item = loaded_item (f->model, 1);
  g_assert_cmpint (lumo_audit_row_get_id (lumo_audit_item_get_row (item)), ==, id - 1);
  g_object_unref (item);

  g_signal_handlers_disconnect_by_func (f->model, on_items_changed_cb, &change);
}

typedef struct
{
  gboolean done;
  gboolean ok;
  GError  *error;
} JobResult;

static void
on_export_done_cb (GObject      *object,
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

static void
export_and_check (Fixture               *f,
                  LumoAuditExportFormat  format,
                  const char            *name)
{
  LumoAuditPage *page = _lumo_window_get_audit_page (f->window);
  g_autofree char *path = g_build_filename (shared_dir, name, NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;
  JobResult result = { 0 };
  guint n_lines = 0;
  guint expected = N_ROWS / SPECIAL_EVERY;

  lumo_audit_page_export_async (page, file, format, NULL, on_export_done_cb, &result);
  lumo_test_wait_until (job_done, &result, "the export");
  g_assert_no_error (result.error);
  g_assert_true (result.ok);

  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      if (lines[i][0] == '\0')
        continue;
      n_lines++;
      /* Every row of the export is a row of the search (the header aside). */
      if (!(format == LUMO_AUDIT_EXPORT_CSV && i == 0))
        g_assert_nonnull (strstr (lines[i], "userscripts.special_tool"));
    }
  g_assert_cmpuint (n_lines, ==, expected + (format == LUMO_AUDIT_EXPORT_CSV ? 1 : 0));
  {
    g_autofree char *partial = g_strconcat (path, ".partial", NULL);

    g_assert_false (g_file_test (partial, G_FILE_TEST_EXISTS));
  }
}

static void
test_export_writes_the_search (Fixture       *f,
                               gconstpointer  data)
{
  LumoAuditPage *page = _lumo_window_get_audit_page (f->window);

  lumo_test_wait_until (model_counted, f->model, "the count of the log");
  gtk_editable_set_text (lumo_audit_page_get_search_entry (page), "tool:special_tool");
  g_assert_true (lumo_audit_page_search_now (page));
  lumo_test_wait_until (model_counted, f->model, "the count of the search");

  export_and_check (f, LUMO_AUDIT_EXPORT_CSV, "export.csv");
  export_and_check (f, LUMO_AUDIT_EXPORT_JSONL, "export.jsonl");
}

static void
test_export_cancelled_keeps_old_file (Fixture       *f,
                                      gconstpointer  data)
{
  LumoAuditPage *page = _lumo_window_get_audit_page (f->window);
  g_autofree char *path = g_build_filename (shared_dir, "kept.csv", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autofree char *contents = NULL;
  JobResult result = { 0 };

  lumo_test_wait_until (model_counted, f->model, "the count of the log");
  g_assert_true (g_file_set_contents (path, "earlier export\n", -1, NULL));

  /* The whole log, cancelled at once: the earlier file stays as it was. */
  g_cancellable_cancel (cancellable);
  lumo_audit_page_export_async (page, file, LUMO_AUDIT_EXPORT_CSV, cancellable, on_export_done_cb, &result);
  lumo_test_wait_until (job_done, &result, "the export");
  g_assert_false (result.ok);
  g_assert_error (result.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&result.error);

  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "earlier export\n");
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  g_autoptr(LumoAuditStore) store = NULL;
  g_autofree char *audit_path = NULL;
  int status;

  gtk_test_init (&argc, &argv, NULL);
  app_test_init_application ();

  shared_dir = lumo_test_dir_new ("app-audit");
  audit_path = g_build_filename (shared_dir, "audit.db", NULL);
  store = lumo_audit_store_new (audit_path, &error);
  g_assert_no_error (error);
  app_test_fill_audit (store, N_ROWS, SPECIAL_EVERY);
  g_clear_object (&store);

  g_test_add ("/audit-model/million", Fixture, NULL, setup, test_million_rows_without_loading_them, teardown);
  g_test_add ("/audit-model/search", Fixture, NULL, setup, test_search_narrows_in_sql, teardown);
  g_test_add ("/audit-model/live", Fixture, NULL, setup, test_new_rows_appear_at_the_top, teardown);
  g_test_add ("/audit-model/export", Fixture, NULL, setup, test_export_writes_the_search, teardown);
  g_test_add ("/audit-model/export-cancelled", Fixture, NULL, setup, test_export_cancelled_keeps_old_file, teardown);

  status = g_test_run ();

  lumo_test_dir_remove (shared_dir);
  g_free (shared_dir);
  return status;
}
