/* test-audit-sorting.c — the Audit page's column headers sort the log in SQL
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A log of a little more than three pages whose times are out of id order
 * (an import), with callers, tools and outcomes that tie often. Sorting
 * by a column's title (what a click on its button asks: _lumo_audit_page_sort_by)
 * must show every row once, in the order the store documents — the key,
 * then the id, both in the same direction — at every position, across the
 * boundaries of the model's 200-row keyset pages, both ways, with and
 * without a search. The expected order is computed here from the rows the
 * test wrote, not asked of the store.
 */
#include "config.h"

#include <string.h>

#include "app-test-util.h"
#include "lumo-audit-header.h"
#include "lumo-audit-page-private.h"

#define N_ROWS 650

typedef struct
{
  gint64            id;
  gint64            time_us;
  const char       *caller_id;
  const char       *caller_name;
  const char       *tool;
  LumoAuditOutcome  outcome;
} Written;

static const char hash[] = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

typedef struct
{
  AppFixture      app;
  Written         rows[N_ROWS];
  LumoAuditPage  *page;
  LumoAuditModel *model;
} Fixture;

/* Callers tie on the name ("" twice: the id decides), tools on the tool,
 * times run backwards in stretches. */
static void
fill (Fixture *f)
{
  static const char *callers[] = { TEST_CALLER_ID, TEST_CALLER2_ID, TEST_CALLER3_ID, TEST_CALLER2_ID };
  static const char *names[] = { "Mail Helper", "", "Lumo", "Zed" };
  static const char *tools[] = { "userscripts.update_script", "userscripts.install_script",
                                 "userscripts.delete_script" };
  g_autofree LumoAuditImportRecord *batch = g_new0 (LumoAuditImportRecord, N_ROWS);
  g_autoptr(GError) error = NULL;
  gint64 base = g_get_real_time () - 10 * G_TIME_SPAN_DAY;

  for (guint i = 0; i < N_ROWS; i++)
    {
      LumoAuditImportRecord *r = &batch[i];
      Written *w = &f->rows[i];
      guint k = i + 1;

      w->id = k;
      /* Blocks of 50 rows in reverse time order, and every 9th row at the
       * same second as the one before it. */
      w->time_us = base + (gint64) ((N_ROWS / 50 - i / 50) * 50 + i % 50) * G_USEC_PER_SEC;
      if (k % 9 == 0)
        w->time_us = f->rows[i - 1].time_us;
      w->caller_id = callers[(k / 3) % G_N_ELEMENTS (callers)];
      w->caller_name = names[(k / 3) % G_N_ELEMENTS (names)];
      w->tool = tools[(k / 5) % G_N_ELEMENTS (tools)];

      r->record.time_us = w->time_us;
      r->record.provider_id = TEST_PROVIDER_ID;
      r->record.caller_id = w->caller_id;
      r->record.caller_name = w->caller_name;
      r->record.tool = w->tool;
      r->record.write = TRUE;
      r->record.params_sha256 = hash;
      if (k % 7 == 0)
        {
          r->record.decision = LUMO_AUDIT_DECISION_DENY;
          r->record.reason = LUMO_AUDIT_REASON_RATE_LIMITED;
          w->outcome = LUMO_AUDIT_OUTCOME_DENIED;
        }
      else
        {
          r->record.decision = LUMO_AUDIT_DECISION_ALLOW;
          r->result = k % 4 == 0 ? LUMO_AUDIT_RESULT_NONE
                      : k % 4 == 1 ? LUMO_AUDIT_RESULT_ERROR : LUMO_AUDIT_RESULT_OK;
          r->result_text = r->result == LUMO_AUDIT_RESULT_ERROR ? "Failed" : NULL;
          w->outcome = r->result == LUMO_AUDIT_RESULT_NONE ? LUMO_AUDIT_OUTCOME_PENDING
                       : r->result == LUMO_AUDIT_RESULT_ERROR ? LUMO_AUDIT_OUTCOME_ERROR
                       : LUMO_AUDIT_OUTCOME_OK;
        }
    }

  g_assert_true (lumo_audit_store_import (f->app.audit, batch, N_ROWS, &error));
  g_assert_no_error (error);
}

static void
setup (Fixture       *f,
       gconstpointer  data)
{
  app_fixture_setup_stores (&f->app);
  fill (f);
  app_fixture_setup_window (&f->app, TRUE);
  lumo_window_set_page (f->app.window, "audit");
  f->page = _lumo_window_get_audit_page (f->app.window);
  f->model = lumo_audit_page_get_model (f->page);
}

static void
teardown (Fixture       *f,
          gconstpointer  data)
{
  app_fixture_teardown (&f->app, NULL);
}

/* ---- the expected order ------------------------------------------------- */

static LumoAuditSortKey sort_key;
static LumoAuditSortOrder sort_order;

static int
cmp_int (gint64 a,
         gint64 b)
{
  return a < b ? -1 : a > b;
}

static int
compare_written (gconstpointer pa,
                 gconstpointer pb)
{
  const Written *a = pa, *b = pb;
  int c = 0;

  switch (sort_key)
    {
    case LUMO_AUDIT_SORT_TIME:
      c = cmp_int (a->time_us, b->time_us);
      break;
    case LUMO_AUDIT_SORT_CALLER:
      if ((c = strcmp (a->caller_name, b->caller_name)) == 0)
        c = strcmp (a->caller_id, b->caller_id);
      break;
    case LUMO_AUDIT_SORT_TOOL:
      c = strcmp (a->tool, b->tool);
      break;
    case LUMO_AUDIT_SORT_OUTCOME:
      c = cmp_int (a->outcome, b->outcome);
      break;
    case LUMO_AUDIT_SORT_ID:
    default:
      break;
    }
  if (c == 0)
    c = cmp_int (a->id, b->id);
  return sort_order == LUMO_AUDIT_SORT_ASCENDING ? c : -c;
}

/* The ids of the rows @tool_filter (NULL: all) selects, in the order. */
static GArray *
expected_ids (Fixture            *f,
              LumoAuditSortKey    key,
              LumoAuditSortOrder  order,
              const char         *tool_filter)
{
  g_autofree Written *copy = g_memdup2 (f->rows, sizeof f->rows);
  GArray *ids = g_array_new (FALSE, FALSE, sizeof (gint64));

  sort_key = key;
  sort_order = order;
  qsort (copy, N_ROWS, sizeof (Written), compare_written);
  for (guint i = 0; i < N_ROWS; i++)
    if (tool_filter == NULL || strstr (copy[i].tool, tool_filter) != NULL)
      g_array_append_val (ids, copy[i].id);
  return ids;
}

/* ---- through the page --------------------------------------------------- */

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

/* Every position of the model holds the expected row, read in the order
 * a scroll reads them: the first rows, then page by page. */
static void
assert_model_order (Fixture *f,
                    GArray  *ids,
                    const char *what)
{
  lumo_test_wait_until (settled, f->model, "the sorted rows and their count");
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (f->model)), ==, ids->len);

  for (guint p = 0; p < ids->len; p++)
    {
      g_autoptr(LumoAuditItem) item = g_list_model_get_item (G_LIST_MODEL (f->model), p);
      gint64 id;

      lumo_test_wait_until (item_loaded, item, "a row of the sorted log");
      id = lumo_audit_row_get_id (lumo_audit_item_get_row (item));
      if (id != g_array_index (ids, gint64, p))
        g_error ("%s: position %u (page %u) holds row %" G_GINT64_FORMAT ", not %" G_GINT64_FORMAT,
                 what, p, p / LUMO_AUDIT_MODEL_PAGE_SIZE, id, g_array_index (ids, gint64, p));
    }
  /* Nothing beyond the last row. */
  g_assert_null (g_list_model_get_item (G_LIST_MODEL (f->model), ids->len));
}

/* A jump far down before reading from the top: the pages between are
 * reached by their anchors, never by skipping rows. */
static void
assert_jump (Fixture *f,
             GArray  *ids)
{
  guint p = ids->len - 3;
  g_autoptr(LumoAuditItem) item = NULL;

  lumo_test_wait_until (settled, f->model, "the sorted rows and their count");
  item = g_list_model_get_item (G_LIST_MODEL (f->model), p);
  lumo_test_wait_until (item_loaded, item, "a row far down");
  g_assert_cmpint (lumo_audit_row_get_id (lumo_audit_item_get_row (item)), ==, g_array_index (ids, gint64, p));
}

typedef struct
{
  LumoAuditColumn  column;
  LumoAuditSortKey key;
} Sortable;

static const Sortable sortables[] = {
  { LUMO_AUDIT_COLUMN_TIME, LUMO_AUDIT_SORT_TIME },
  { LUMO_AUDIT_COLUMN_CALLER, LUMO_AUDIT_SORT_CALLER },
  { LUMO_AUDIT_COLUMN_TOOL, LUMO_AUDIT_SORT_TOOL },
  { LUMO_AUDIT_COLUMN_OUTCOME, LUMO_AUDIT_SORT_OUTCOME },
};

static void
sort_by (Fixture            *f,
         const Sortable     *s,
         LumoAuditSortOrder  order)
{
  _lumo_audit_page_sort_by (f->page, s->column, order);
  g_assert_cmpint (lumo_audit_model_get_sort_key (f->model), ==, s->key);
  g_assert_cmpint (lumo_audit_model_get_sort_order (f->model), ==, order);
}

static void
test_each_column_both_ways (Fixture       *f,
                            gconstpointer  data)
{
  const char *filter = data;

  if (filter != NULL)
    {
      g_autofree char *text = g_strdup_printf ("tool:%s", filter);

      gtk_editable_set_text (lumo_audit_page_get_search_entry (f->page), text);
      g_assert_true (lumo_audit_page_search_now (f->page));
    }

  /* Unsorted: the order rows were written in, newest first. */
  {
    g_autoptr(GArray) ids = expected_ids (f, LUMO_AUDIT_SORT_ID, LUMO_AUDIT_SORT_DESCENDING, filter);

    assert_model_order (f, ids, "newest first");
  }

  for (guint i = 0; i < G_N_ELEMENTS (sortables); i++)
    for (LumoAuditSortOrder order = LUMO_AUDIT_SORT_DESCENDING; order <= LUMO_AUDIT_SORT_ASCENDING; order++)
      {
        g_autoptr(GArray) ids = expected_ids (f, sortables[i].key, order, filter);
        g_autofree char *what = g_strdup_printf ("%s %s%s%s", g_enum_to_string (LUMO_TYPE_AUDIT_SORT_KEY, sortables[i].key),
                                                 order == LUMO_AUDIT_SORT_ASCENDING ? "ascending" : "descending",
                                                 filter != NULL ? " in tool:" : "", filter != NULL ? filter : "");

        g_test_message ("%s: %u rows", what, ids->len);
        sort_by (f, &sortables[i], order);
        assert_jump (f, ids);
        /* Jumped there first: the rows from the top must still be these. */
        assert_model_order (f, ids, what);
      }
}

/* The title's sort state, as a screen reader reads it. */
static void
assert_title_sort (Fixture           *f,
                   LumoAuditColumn    column,
                   GtkAccessibleSort  sort)
{
  GtkWidget *header = app_test_find_widget (GTK_WIDGET (f->page), LUMO_TYPE_AUDIT_HEADER, 0);
  GtkWidget *button = lumo_audit_header_get_button (LUMO_AUDIT_HEADER (header), column);
  g_autofree char *wrong = gtk_test_accessible_check_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_SORT, sort);

  if (wrong != NULL)
    g_error ("the title of column %u reads as sorted %s, not %d", column, wrong, sort);
}

/* A click on a column's title button (the header's own, through its
 * action) sorts by it ascending, the next click turns it round, and the
 * view's rows follow the model; the title says which way. */
static void
test_header_click_turns_round (Fixture       *f,
                               gconstpointer  data)
{
  GtkWidget *tool = app_test_find_action_button (GTK_WIDGET (f->page), "audit.sort-column",
                                                 g_variant_new_uint32 (LUMO_AUDIT_COLUMN_TOOL));
  GtkWidget *caller = app_test_find_action_button (GTK_WIDGET (f->page), "audit.sort-column",
                                                   g_variant_new_uint32 (LUMO_AUDIT_COLUMN_CALLER));
  g_autoptr(GArray) ascending = expected_ids (f, LUMO_AUDIT_SORT_TOOL, LUMO_AUDIT_SORT_ASCENDING, NULL);
  g_autoptr(GArray) descending = expected_ids (f, LUMO_AUDIT_SORT_TOOL, LUMO_AUDIT_SORT_DESCENDING, NULL);
  g_autoptr(GArray) by_caller = expected_ids (f, LUMO_AUDIT_SORT_CALLER, LUMO_AUDIT_SORT_ASCENDING, NULL);

  g_assert_nonnull (tool);
  g_assert_nonnull (caller);
  g_assert_true (gtk_widget_get_focusable (tool));
  lumo_test_wait_until (settled, f->model, "the log");
  assert_title_sort (f, LUMO_AUDIT_COLUMN_TOOL, GTK_ACCESSIBLE_SORT_NONE);

  app_test_click (tool);
  assert_model_order (f, ascending, "tool ascending");
  assert_title_sort (f, LUMO_AUDIT_COLUMN_TOOL, GTK_ACCESSIBLE_SORT_ASCENDING);
  app_test_click (tool);
  assert_model_order (f, descending, "tool descending");
  assert_title_sort (f, LUMO_AUDIT_COLUMN_TOOL, GTK_ACCESSIBLE_SORT_DESCENDING);

  /* Another title: ascending by it, the first says nothing any more. */
  app_test_click (caller);
  assert_model_order (f, by_caller, "caller ascending");
  assert_title_sort (f, LUMO_AUDIT_COLUMN_CALLER, GTK_ACCESSIBLE_SORT_ASCENDING);
  assert_title_sort (f, LUMO_AUDIT_COLUMN_TOOL, GTK_ACCESSIBLE_SORT_NONE);

  /* No column at all: newest first again. */
  _lumo_audit_page_sort_by (f->page, LUMO_AUDIT_N_COLUMNS, LUMO_AUDIT_SORT_ASCENDING);
  g_assert_cmpint (lumo_audit_model_get_sort_key (f->model), ==, LUMO_AUDIT_SORT_ID);
  g_assert_cmpint (lumo_audit_model_get_sort_order (f->model), ==, LUMO_AUDIT_SORT_DESCENDING);
  assert_title_sort (f, LUMO_AUDIT_COLUMN_CALLER, GTK_ACCESSIBLE_SORT_NONE);
}

static gboolean
grown (gpointer data)
{
  return settled (data) && g_list_model_get_n_items (data) == N_ROWS + 1;
}

/* A row written while the list is sorted by caller appears where the
 * order puts it, and every other row stays once. */
static void
test_new_row_in_sorted_list (Fixture       *f,
                             gconstpointer  data)
{
  LumoAuditRecord record = {
    .provider_id = TEST_PROVIDER_ID,
    .caller_id = TEST_CALLER3_ID,
    .caller_name = "Lumo",
    .tool = "userscripts.update_script",
    .write = TRUE,
    .params_sha256 = hash,
    .decision = LUMO_AUDIT_DECISION_DENY,
    .reason = LUMO_AUDIT_REASON_WRITES_OFF,
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) ids = NULL;
  Written *w;
  gint64 id;

  sort_by (f, &sortables[1], LUMO_AUDIT_SORT_ASCENDING);
  lumo_test_wait_until (settled, f->model, "the sorted log");

  id = lumo_audit_store_append (f->app.audit, &record, &error);
  g_assert_no_error (error);
  g_assert_cmpint (id, ==, N_ROWS + 1);

  /* The expected order, with the new row. */
  w = g_new0 (Written, N_ROWS + 1);
  memcpy (w, f->rows, sizeof f->rows);
  w[N_ROWS] = (Written) { id, 0, TEST_CALLER3_ID, "Lumo", "userscripts.update_script", LUMO_AUDIT_OUTCOME_DENIED };
  sort_key = LUMO_AUDIT_SORT_CALLER;
  sort_order = LUMO_AUDIT_SORT_ASCENDING;
  qsort (w, N_ROWS + 1, sizeof (Written), compare_written);
  ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  for (guint i = 0; i < N_ROWS + 1; i++)
    g_array_append_val (ids, w[i].id);
  g_free (w);

  lumo_test_wait_until (grown, f->model, "the new row in the sorted log");
  assert_model_order (f, ids, "caller ascending with a new row");
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

  g_test_add ("/audit-sort/each-column", Fixture, NULL, setup, test_each_column_both_ways, teardown);
  g_test_add ("/audit-sort/each-column-searched", Fixture, "install", setup, test_each_column_both_ways, teardown);
  g_test_add ("/audit-sort/header-click", Fixture, NULL, setup, test_header_click_turns_round, teardown);
  g_test_add ("/audit-sort/new-row", Fixture, NULL, setup, test_new_row_in_sorted_list, teardown);

  return g_test_run ();
}
