/* test-audit-live.c — rows written while the Audit page is open
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Writes arrive in bursts (a provider's writes, an import by another
 * program): whatever their order and number, the list must end up as the
 * log is, newest first, every row once. Rows and results another process
 * writes (a second store on the same file, as a second instance of the
 * app or the CLI has) appear without a search, and a result this store
 * fills in updates its row without the page polling.
 */
#include "config.h"

#include "app-test-util.h"
#include "lumo-audit-model-private.h"
#include "lumo-audit-row-view.h"

static const char hash[] = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

static gboolean
settled (gpointer data)
{
  LumoAuditModel *model = data;

  return lumo_audit_model_get_counted (model) && !lumo_audit_model_get_loading (model);
}

static gboolean
item_loaded (gpointer data)
{
  return lumo_audit_item_get_row (data) != NULL;
}

static void
on_appended_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  guint *pending = user_data;

  g_assert_cmpint (lumo_audit_store_append_finish (LUMO_AUDIT_STORE (object), result, NULL), >, 0);
  (*pending)--;
}

static gboolean
none_pending (gpointer data)
{
  return *(guint *) data == 0;
}

static guint serial;

/* The next row of a burst; every one has an agent of its own, @name
 * (the caller frees it). */
static LumoAuditRecord
next_live_record (char **name)
{
  *name = g_strdup_printf ("Live Agent %u", ++serial);
  return (LumoAuditRecord) {
    .provider_id = TEST_PROVIDER_ID,
    .caller_id = TEST_CALLER_ID,
    .caller_name = *name,
    .tool = "userscripts.live_tool",
    .write = TRUE,
    .params_sha256 = hash,
    .decision = LUMO_AUDIT_DECISION_ALLOW,
  };
}

static void
append_burst_to (LumoAuditStore *store,
                 guint           n)
{
  guint pending = n;

  for (guint i = 0; i < n; i++)
    {
      g_autofree char *name = NULL;
      LumoAuditRecord record = next_live_record (&name);

      lumo_audit_store_append_async (store, &record, NULL, on_appended_cb, &pending);
    }
  lumo_test_wait_until (none_pending, &pending, "the appends");
}

static void
append_burst (AppFixture *f,
              guint       n)
{
  append_burst_to (f->audit, n);
}

typedef struct
{
  LumoAuditModel *model;
  guint           n;
} ModelWait;

/* Counted, n rows, the newest on top: a count may see rows of another
 * process before its ::changed brings them to the top, and the model is
 * right again once it has. */
static gboolean
settled_at (gpointer data)
{
  ModelWait *wait = data;
  g_autoptr(LumoAuditItem) top = NULL;

  if (!settled (wait->model) || g_list_model_get_n_items (G_LIST_MODEL (wait->model)) < wait->n)
    return FALSE;
  top = g_list_model_get_item (G_LIST_MODEL (wait->model), 0);
  return lumo_audit_item_get_row (top) != NULL &&
         lumo_audit_row_get_id (lumo_audit_item_get_row (top)) == (gint64) wait->n;
}

/* The model is the log: n rows, ids n … 1 from the top. */
static void
check_model (LumoAuditModel *model,
             guint           n)
{
  ModelWait wait = { model, n };

  /* The live head refreshes on a timer too: the rows arrive when they do,
   * but they must arrive, and no more of them. */
  lumo_test_wait_until (settled_at, &wait, "the model to hold the whole log");

  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), ==, n);
  for (guint p = 0; p < n; p++)
    {
      g_autoptr(LumoAuditItem) item = g_list_model_get_item (G_LIST_MODEL (model), p);

      lumo_test_wait_until (item_loaded, item, "a row");
      if (lumo_audit_row_get_id (lumo_audit_item_get_row (item)) != (gint64) (n - p))
        g_error ("position %u holds row %" G_GINT64_FORMAT ", not %u",
                 p, lumo_audit_row_get_id (lumo_audit_item_get_row (item)), n - p);
    }
}

/* The rows on screen, top to bottom: each the texts of its cells. */
static GPtrArray *
shown_rows (AppFixture *f)
{
  g_autoptr(GPtrArray) shown = app_test_audit_shown_rows (GTK_WIDGET (_lumo_window_get_audit_page (f->window)));
  GPtrArray *rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);

  for (guint i = 0; i < shown->len; i++)
    {
      GPtrArray *row = g_ptr_array_new ();

      for (guint c = 0; c < LUMO_AUDIT_N_COLUMNS; c++)
        g_ptr_array_add (row, (gpointer) lumo_audit_row_view_get_text (g_ptr_array_index (shown, i), c));
      g_ptr_array_add (rows, row);
    }
  return rows;
}

static gboolean
row_shows (GPtrArray  *row,
           const char *text)
{
  for (guint i = 0; i < row->len; i++)
    if (g_strcmp0 (g_ptr_array_index (row, i), text) == 0)
      return TRUE;
  return FALSE;
}

typedef struct
{
  AppFixture     *f;
  LumoAuditModel *model;
} ViewWait;

/* The rows on screen are the model's first rows, checked on every
 * iteration of the loop: the view lays out what the model announced on
 * the frames after it, and must not settle anywhere else (it once stayed
 * five rows down, held there by a burst that arrived in two parts).
 * A row is told by its agent and its hash: the agents of an import repeat
 * every three rows, so a view three rows down would show the same agents. */
static gboolean
view_shows_top (gpointer data)
{
  ViewWait *wait = data;
  g_autoptr(GPtrArray) shown = shown_rows (wait->f);

  if (shown->len <= 3)
    return FALSE;
  for (guint p = 0; p < shown->len; p++)
    {
      g_autoptr(LumoAuditItem) item = g_list_model_get_item (G_LIST_MODEL (wait->model), p);
      GPtrArray *row = g_ptr_array_index (shown, p);

      if (item == NULL || lumo_audit_item_get_row (item) == NULL ||
          !row_shows (row, lumo_audit_item_get_text (item, LUMO_AUDIT_COLUMN_CALLER)) ||
          !row_shows (row, lumo_audit_item_get_text (item, LUMO_AUDIT_COLUMN_HASH)))
        return FALSE;
    }
  return TRUE;
}

static void
check_view (AppFixture     *f,
            LumoAuditModel *model)
{
  ViewWait wait = { f, model };

  lumo_test_wait_until (view_shows_top, &wait, "the view to show the model's first rows");
}

static void
test_burst_while_another_page_shows (AppFixture    *f,
                                     gconstpointer  data)
{
  LumoAuditModel *model = lumo_audit_page_get_model (_lumo_window_get_audit_page (f->window));

  gtk_window_set_default_size (GTK_WINDOW (f->window), 1100, 800);
  lumo_window_set_page (f->window, "requests");
  lumo_test_wait_until (settled, model, "the empty log");

  app_test_fill_audit (f->audit, 1000, 0);
  append_burst (f, 44);
  check_model (model, 1044);

  /* Only now does the column view come on screen. */
  lumo_window_set_page (f->window, "audit");
  check_view (f, model);

  append_burst (f, 5);
  check_model (model, 1049);
  check_view (f, model);
}

/* The page opens (its model reads the first page) while rows are being
 * written: a count may see rows committed before their announcement came,
 * and the list must still end up as the log is, every row once and none
 * a placeholder left unfilled. */
static void
test_opened_while_written (AppFixture    *f,
                           gconstpointer  data)
{
  LumoAuditModel *model;
  g_autoptr(GError) error = NULL;

  lumo_window_set_page (f->window, "audit");
  model = lumo_audit_page_get_model (_lumo_window_get_audit_page (f->window));
  for (guint i = 0; i < 5; i++)
    {
      LumoAuditRecord record = {
        .provider_id = TEST_PROVIDER_ID,
        .caller_id = TEST_CALLER_ID,
        .caller_name = "Written While Opening",
        .tool = "userscripts.live_tool",
        .write = TRUE,
        .params_sha256 = hash,
        .decision = LUMO_AUDIT_DECISION_ALLOW,
      };

      g_assert_cmpint (lumo_audit_store_append (f->audit, &record, &error), >, 0);
      g_assert_no_error (error);
    }
  check_model (model, 5);
  check_view (f, model);
}

/* The page opens while another program imports into the log and a
 * provider writes: the list must end up as the log is, and a far page
 * must still be one read away (the first page found the log empty: rows
 * seen since are not a gap in the ids). */
static void
test_opened_during_import (AppFixture    *f,
                           gconstpointer  data)
{
  LumoAuditModel *model;

  lumo_window_set_page (f->window, "audit");
  model = lumo_audit_page_get_model (_lumo_window_get_audit_page (f->window));
  app_test_fill_audit (f->audit, 1000, 0);
  append_burst (f, 30);
  check_model (model, 1030);
  check_view (f, model);
  g_assert_true (_lumo_audit_model_is_contiguous (model));
}

static void
test_bursts_into_an_empty_log (AppFixture    *f,
                               gconstpointer  data)
{
  LumoAuditModel *model = lumo_audit_page_get_model (_lumo_window_get_audit_page (f->window));

  lumo_window_set_page (f->window, "audit");
  lumo_test_wait_until (settled, model, "the empty log");
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), ==, 0);

  append_burst (f, 3);
  check_model (model, 3);
  append_burst (f, 60);
  check_model (model, 63);
}

static void
test_import_then_burst (AppFixture    *f,
                        gconstpointer  data)
{
  LumoAuditModel *model = lumo_audit_page_get_model (_lumo_window_get_audit_page (f->window));

  lumo_window_set_page (f->window, "audit");
  lumo_test_wait_until (settled, model, "the empty log");

  /* An import announces nothing; the burst after it does. */
  app_test_fill_audit (f->audit, 1000, 0);
  append_burst (f, 44);
  check_model (model, 1044);

  /* More than a page at once: the model reads the log again. */
  append_burst (f, 450);
  check_model (model, 1494);
}

/* Another connection to the same file: what a second instance of the app
 * (or any other process writing the log) is to this one. */
static LumoAuditStore *
open_second_store (AppFixture *f)
{
  g_autofree char *path = g_build_filename (f->dir, "audit.db", NULL);
  g_autoptr(GError) error = NULL;
  LumoAuditStore *other = lumo_audit_store_new (path, &error);

  g_assert_no_error (error);
  return other;
}

static void
test_rows_of_another_process (AppFixture    *f,
                              gconstpointer  data)
{
  LumoAuditModel *model = lumo_audit_page_get_model (_lumo_window_get_audit_page (f->window));
  g_autoptr(LumoAuditStore) other = open_second_store (f);

  gtk_window_set_default_size (GTK_WINDOW (f->window), 1100, 800);
  lumo_window_set_page (f->window, "audit");
  lumo_test_wait_until (settled, model, "the empty log");
  app_test_fill_audit (f->audit, 300, 0);
  append_burst (f, 20);
  check_model (model, 320);

  /* Nobody searches: the other store's rows show up on their own. */
  append_burst_to (other, 7);
  check_model (model, 327);
  check_view (f, model);

  /* Interleaved with this store's own. */
  append_burst_to (other, 3);
  append_burst (f, 2);
  append_burst_to (other, 4);
  check_model (model, 336);
  check_view (f, model);

  /* More at once than one read of the newest rows holds. */
  append_burst_to (other, LUMO_AUDIT_MODEL_PAGE_SIZE + 50);
  check_model (model, 336 + LUMO_AUDIT_MODEL_PAGE_SIZE + 50);
  check_view (f, model);
}

/* What the view shows after the model was asked for many distant pages
 * (a scrollbar dragged down and back): a new search must refill the rows
 * on screen, whose page the cache could have dropped meanwhile. */
static void
test_search_after_far_jumps (AppFixture    *f,
                             gconstpointer  data)
{
  LumoAuditPage *page = _lumo_window_get_audit_page (f->window);
  LumoAuditModel *model = lumo_audit_page_get_model (page);
  guint n = (LUMO_AUDIT_MODEL_MAX_PAGES + 12) * LUMO_AUDIT_MODEL_PAGE_SIZE;

  gtk_window_set_default_size (GTK_WINDOW (f->window), 1100, 800);
  lumo_window_set_page (f->window, "audit");
  lumo_test_wait_until (settled, model, "the empty log");
  append_burst (f, 30);
  app_test_fill_audit (f->audit, n - 30, 0);
  append_burst (f, 1);
  check_model (model, n + 1);
  check_view (f, model);

  /* Every page but the first, as a drag of the scrollbar would. */
  for (guint k = 1; k < n / LUMO_AUDIT_MODEL_PAGE_SIZE; k++)
    {
      g_autoptr(LumoAuditItem) item = g_list_model_get_item (G_LIST_MODEL (model), k * LUMO_AUDIT_MODEL_PAGE_SIZE + 7);

      lumo_test_wait_until (item_loaded, item, "a far row");
    }
  g_assert_cmpuint (lumo_audit_model_get_pages_cached (model), <=, LUMO_AUDIT_MODEL_MAX_PAGES + 1);

  /* A search for the oldest rows: the view's rows are those of the
   * search, not the rows it showed before. */
  gtk_editable_set_text (lumo_audit_page_get_search_entry (page), "tool:live_tool");
  g_assert_true (lumo_audit_page_search_now (page));
  lumo_test_wait_until (settled, model, "the search");
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), ==, 31);
  check_view (f, model);
}

/* Another process writes while this one counts: the count sees rows that
 * have not reached the head yet, so for a moment the list is longer than
 * the log, and reading its last page shortens it again. */
typedef struct
{
  LumoAuditStore *other;
  guint           n;
} WriteDuring;

static void
on_head_grew_cb (GListModel  *model,
                 guint        position,
                 guint        removed,
                 guint        added,
                 WriteDuring *write)
{
  g_autoptr(GError) error = NULL;

  if (write->n == 0 || position != 0 || added == 0)
    return;

  /* Between the read of the newest rows and the count that follows it. */
  for (; write->n > 0; write->n--)
    {
      g_autofree char *name = NULL;
      LumoAuditRecord record = next_live_record (&name);

      g_assert_cmpint (lumo_audit_store_append (write->other, &record, &error), >, 0);
      g_assert_no_error (error);
    }
}

static void
test_counted_while_another_process_writes (AppFixture    *f,
                                           gconstpointer  data)
{
  LumoAuditModel *model = lumo_audit_page_get_model (_lumo_window_get_audit_page (f->window));
  g_autoptr(LumoAuditStore) other = open_second_store (f);
  /* Enough to reach a page past the log's end, whose anchor is unknown. */
  WriteDuring write = { other, LUMO_AUDIT_MODEL_PAGE_SIZE - 50 };
  gulong handler;

  gtk_window_set_default_size (GTK_WINDOW (f->window), 1100, 800);
  lumo_window_set_page (f->window, "audit");
  lumo_test_wait_until (settled, model, "the empty log");
  app_test_fill_audit (f->audit, 300, 0);
  append_burst (f, 20);
  check_model (model, 320);

  handler = g_signal_connect (model, "items-changed", G_CALLBACK (on_head_grew_cb), &write);
  append_burst_to (other, 1);
  check_model (model, 321 + LUMO_AUDIT_MODEL_PAGE_SIZE - 50);
  g_signal_handler_disconnect (model, handler);
  g_assert_cmpuint (write.n, ==, 0);

  /* A page the shortened list no longer reaches is dropped, not asked
   * for again after every read (it was, without end, and the reads kept
   * the window from laying out the new rows). */
  g_assert_false (_lumo_audit_model_has_pages_past_end (model));
  check_view (f, model);
}

typedef struct
{
  guint frames;
  guint wanted;
} FrameWait;

static gboolean
on_frame_cb (GtkWidget     *widget,
             GdkFrameClock *clock,
             gpointer       data)
{
  ((FrameWait *) data)->frames++;
  return G_SOURCE_CONTINUE;
}

static gboolean
frames_passed (gpointer data)
{
  FrameWait *wait = data;

  return wait->frames >= wait->wanted;
}

/* Lets the window draw @n frames: whatever the page holds after new rows
 * is over by then. */
static void
wait_frames (AppFixture *f,
             guint       n)
{
  FrameWait wait = { 0, n };
  guint id = gtk_widget_add_tick_callback (GTK_WIDGET (f->window), on_frame_cb, &wait, NULL);

  lumo_test_wait_until (frames_passed, &wait, "frames");
  gtk_widget_remove_tick_callback (GTK_WIDGET (f->window), id);
}

/* Rows at the top of a list shorter than the view, then, frames later,
 * rows below them (the log read again after an import): the view stays
 * at the top. */
static void
test_short_list_grows (AppFixture    *f,
                       gconstpointer  data)
{
  LumoAuditModel *model = lumo_audit_page_get_model (_lumo_window_get_audit_page (f->window));

  gtk_window_set_default_size (GTK_WINDOW (f->window), 1100, 800);
  lumo_window_set_page (f->window, "audit");
  lumo_test_wait_until (settled, model, "the empty log");
  append_burst (f, 20);
  check_model (model, 20);
  check_view (f, model);
  wait_frames (f, 10);

  app_test_fill_audit (f->audit, 1000, 0);
  append_burst (f, 1);
  check_model (model, 1021);
  check_view (f, model);
}

typedef struct
{
  LumoAuditItem   *item;
  LumoAuditResult  result;
} ResultWait;

static gboolean
item_has_result (gpointer data)
{
  ResultWait *wait = data;
  LumoAuditRow *row = lumo_audit_item_get_row (wait->item);

  return row != NULL && lumo_audit_row_get_result (row) == wait->result;
}

static LumoAuditItem *
item_of_row (LumoAuditModel *model,
             gint64          id)
{
  for (guint p = 0; p < g_list_model_get_n_items (G_LIST_MODEL (model)); p++)
    {
      g_autoptr(LumoAuditItem) item = g_list_model_get_item (G_LIST_MODEL (model), p);

      lumo_test_wait_until (item_loaded, item, "a row");
      if (lumo_audit_row_get_id (lumo_audit_item_get_row (item)) == id)
        return g_steal_pointer (&item);
    }
  g_error ("row %" G_GINT64_FORMAT " is not in the list", id);
}

/* Results come after their row: this store's through ::result-set, the
 * other process's through ::changed. The row shows its outcome, in place. */
static void
test_results_fill_in (AppFixture    *f,
                      gconstpointer  data)
{
  LumoAuditModel *model = lumo_audit_page_get_model (_lumo_window_get_audit_page (f->window));
  g_autoptr(LumoAuditStore) other = open_second_store (f);
  g_autoptr(LumoAuditItem) mine = NULL;
  g_autoptr(LumoAuditItem) theirs = NULL;
  g_autoptr(GError) error = NULL;
  ResultWait wait = { 0 };

  lumo_window_set_page (f->window, "audit");
  lumo_test_wait_until (settled, model, "the empty log");
  app_test_fill_audit (f->audit, 450, 0);
  append_burst (f, 3);
  append_burst_to (other, 3);
  check_model (model, 456);

  mine = item_of_row (model, 453);
  theirs = item_of_row (model, 456);
  g_assert_cmpint (lumo_audit_row_get_result (lumo_audit_item_get_row (mine)), ==, LUMO_AUDIT_RESULT_NONE);
  g_assert_cmpint (lumo_audit_row_get_result (lumo_audit_item_get_row (theirs)), ==, LUMO_AUDIT_RESULT_NONE);

  g_assert_true (lumo_audit_store_set_result (f->audit, 453, FALSE, "Target moved", &error));
  g_assert_no_error (error);
  wait = (ResultWait) { mine, LUMO_AUDIT_RESULT_ERROR };
  lumo_test_wait_until (item_has_result, &wait, "this store's result in its row");
  g_assert_cmpstr (lumo_audit_item_get_text (mine, LUMO_AUDIT_COLUMN_OUTCOME), ==, "Allowed · failed");

  g_assert_true (lumo_audit_store_set_result (other, 456, TRUE, NULL, &error));
  g_assert_no_error (error);
  wait = (ResultWait) { theirs, LUMO_AUDIT_RESULT_OK };
  lumo_test_wait_until (item_has_result, &wait, "the other process's result in its row");
  g_assert_cmpstr (lumo_audit_item_get_text (theirs, LUMO_AUDIT_COLUMN_OUTCOME), ==, "Allowed · succeeded");

  /* The row keeps its place: nothing was added or removed. */
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), ==, 456);
  check_model (model, 456);
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);
  app_test_init_application ();

  g_test_add ("/audit-live/bursts", AppFixture, GINT_TO_POINTER (TRUE),
              app_fixture_setup, test_bursts_into_an_empty_log, app_fixture_teardown);
  g_test_add ("/audit-live/import-then-burst", AppFixture, GINT_TO_POINTER (TRUE),
              app_fixture_setup, test_import_then_burst, app_fixture_teardown);
  g_test_add ("/audit-live/another-process", AppFixture, GINT_TO_POINTER (TRUE),
              app_fixture_setup, test_rows_of_another_process, app_fixture_teardown);
  g_test_add ("/audit-live/search-after-far-jumps", AppFixture, GINT_TO_POINTER (TRUE),
              app_fixture_setup, test_search_after_far_jumps, app_fixture_teardown);
  g_test_add ("/audit-live/counted-while-written", AppFixture, GINT_TO_POINTER (TRUE),
              app_fixture_setup, test_counted_while_another_process_writes, app_fixture_teardown);
  g_test_add ("/audit-live/short-list-grows", AppFixture, GINT_TO_POINTER (TRUE),
              app_fixture_setup, test_short_list_grows, app_fixture_teardown);
  g_test_add ("/audit-live/results", AppFixture, GINT_TO_POINTER (TRUE),
              app_fixture_setup, test_results_fill_in, app_fixture_teardown);
  g_test_add ("/audit-live/another-page", AppFixture, GINT_TO_POINTER (TRUE),
              app_fixture_setup, test_burst_while_another_page_shows, app_fixture_teardown);
  g_test_add ("/audit-live/opened-while-written", AppFixture, GINT_TO_POINTER (TRUE),
              app_fixture_setup, test_opened_while_written, app_fixture_teardown);
  g_test_add ("/audit-live/opened-during-import", AppFixture, GINT_TO_POINTER (TRUE),
              app_fixture_setup, test_opened_during_import, app_fixture_teardown);

  return g_test_run ();
}
