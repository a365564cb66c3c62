/* test-audit-sort.c — pages in every order, both ways, across boundaries
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The rows are made so that every key has ties (callers with one name,
 * tools used many times, equal times, times out of id order), and the
 * pages are small so their boundaries fall inside runs of ties. Every
 * order is read page by page with keyset cursors and compared with the
 * whole set sorted here, by the rule the header states. The summaries of
 * lumo_audit_store_stats() are checked against the same rows, counted
 * here.
 */
#include "config.h"

#include <string.h>

#include "audit-test-util.h"

#define N_ROWS    37
#define PAGE_SIZE 4

typedef struct
{
  char           *dir;
  LumoAuditStore *store;
} Fixture;

static const char *names[] = { "Lumo", "", "Bot", "Lumo", "Zed" };
static const char *caller_ids[] = { TEST_CALLER_ID, TEST_CALLER2_ID, TEST_CALLER3_ID, TEST_CALLER2_ID,
                                    TEST_CALLER_ID };
static const char *tools[] = { "save_script", "delete_script", "save_script", "list" };

/* Half the rows are written with the index held back, so a search runs
 * through the index and over the unindexed tail at once. */
static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  gint64 base = g_get_real_time () - 1000 * G_USEC_PER_SEC;

  f->dir = audit_test_tmpdir ();
  f->store = audit_test_open (f->dir);

  for (guint i = 0; i < N_ROWS; i++)
    {
      g_autoptr(GError) error = NULL;
      LumoAuditRecord r = audit_test_record (tools[i % G_N_ELEMENTS (tools)]);
      guint c = (i * 7) % G_N_ELEMENTS (names);
      gint64 id;

      if (i == N_ROWS / 2)
        {
          g_autofree char *path = g_build_filename (f->dir, "audit.db", NULL);

          audit_test_wait_indexed (path, N_ROWS / 2);
          _lumo_audit_store_set_index_catch_up (f->store, FALSE);
        }

      r.caller_name = names[c];
      r.caller_id = caller_ids[c];
      /* Times in runs of equal values, and falling every fifth row. */
      r.time_us = base + (i / 3) * G_USEC_PER_SEC - (i % 5 == 4 ? 30 * G_USEC_PER_SEC : 0) -
                  (i % 10 == 9 ? (gint64) 2 * 86400 * G_USEC_PER_SEC : 0);
      if (i % 6 == 5)
        {
          r.decision = LUMO_AUDIT_DECISION_DENY;
          r.reason = LUMO_AUDIT_REASON_WRITES_OFF;
        }
      else if (i % 12 == 3)
        r.decision = LUMO_AUDIT_DECISION_PENDING_REVIEW;
      id = lumo_audit_store_append (f->store, &r, &error);
      g_assert_no_error (error);
      if (i % 6 == 1 || i % 6 == 2)
        {
          g_assert_true (lumo_audit_store_set_result (f->store, id, i % 6 == 1,
                                                      i % 6 == 1 ? NULL : "failed", &error));
          g_assert_no_error (error);
        }
    }
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  g_clear_object (&f->store);
  lumo_test_dir_remove (f->dir);
  g_free (f->dir);
}

/* The rule of each order, written out again here. */
static int
outcome_rank (LumoAuditRow *row)
{
  if (lumo_audit_row_get_decision (row) == LUMO_AUDIT_DECISION_DENY)
    return 3;
  switch (lumo_audit_row_get_result (row))
    {
    case LUMO_AUDIT_RESULT_ERROR:
      return 2;
    case LUMO_AUDIT_RESULT_NONE:
      return 1;
    case LUMO_AUDIT_RESULT_OK:
    default:
      return 0;
    }
}

static LumoAuditSortKey sort_key;
static LumoAuditSortOrder sort_order;

static int
expected_order (gconstpointer pa,
                gconstpointer pb)
{
  LumoAuditRow *a = *(LumoAuditRow * const *) pa;
  LumoAuditRow *b = *(LumoAuditRow * const *) pb;
  int c = 0;

  switch (sort_key)
    {
    case LUMO_AUDIT_SORT_TIME:
      c = (lumo_audit_row_get_time_us (a) > lumo_audit_row_get_time_us (b)) -
          (lumo_audit_row_get_time_us (a) < lumo_audit_row_get_time_us (b));
      break;
    case LUMO_AUDIT_SORT_CALLER:
      c = strcmp (lumo_audit_row_get_caller_name (a), lumo_audit_row_get_caller_name (b));
      if (c == 0)
        c = strcmp (lumo_audit_row_get_caller_id (a), lumo_audit_row_get_caller_id (b));
      break;
    case LUMO_AUDIT_SORT_TOOL:
      c = strcmp (lumo_audit_row_get_tool (a), lumo_audit_row_get_tool (b));
      break;
    case LUMO_AUDIT_SORT_OUTCOME:
      c = outcome_rank (a) - outcome_rank (b);
      break;
    case LUMO_AUDIT_SORT_ID:
    default:
      break;
    }
  c = c < 0 ? -1 : c > 0;
  if (c == 0)
    c = (lumo_audit_row_get_id (a) > lumo_audit_row_get_id (b)) -
        (lumo_audit_row_get_id (a) < lumo_audit_row_get_id (b));

  return sort_order == LUMO_AUDIT_SORT_ASCENDING ? c : -c;
}

static GPtrArray *
all_rows (Fixture        *f,
          LumoAuditQuery *query)
{
  g_autoptr(GError) error = NULL;
  GPtrArray *rows = lumo_audit_store_fetch_page (f->store, query, 0, 1000, NULL, &error);

  g_assert_no_error (error);
  return rows;
}

static char *
ids_of (GPtrArray *rows)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < rows->len; i++)
    g_string_append_printf (s, "%s%" G_GINT64_FORMAT, i ? "," : "",
                            lumo_audit_row_get_id (g_ptr_array_index (rows, i)));
  return g_string_free (s, FALSE);
}

static void
check_order (Fixture            *f,
             const char         *text,
             LumoAuditSortKey    key,
             LumoAuditSortOrder  order)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(LumoAuditQuery) query = lumo_audit_query_parse (text, 0, &error);
  g_autoptr(GPtrArray) expected = NULL;
  g_autoptr(GPtrArray) paged = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(LumoAuditRow) after = NULL;
  g_autofree char *want = NULL;
  g_autofree char *got = NULL;
  guint pages = 0;

  g_assert_no_error (error);
  expected = all_rows (f, query);
  sort_key = key;
  sort_order = order;
  g_ptr_array_sort (expected, expected_order);

  for (;;)
    {
      g_autoptr(GPtrArray) page = lumo_audit_store_fetch_sorted (f->store, query, key, order, after,
                                                                 PAGE_SIZE, NULL, &error);

      g_assert_no_error (error);
      g_assert_cmpuint (page->len, <=, PAGE_SIZE);
      if (page->len == 0)
        break;
      pages++;
      for (guint i = 0; i < page->len; i++)
        g_ptr_array_add (paged, g_object_ref (g_ptr_array_index (page, i)));
      g_set_object (&after, g_ptr_array_index (page, page->len - 1));
    }

  want = ids_of (expected);
  got = ids_of (paged);
  if (g_strcmp0 (want, got) != 0)
    g_error ("“%s” by %d %s: got [%s] in %u pages, expected [%s]", text, key,
             order == LUMO_AUDIT_SORT_ASCENDING ? "ascending" : "descending", got, pages, want);
  g_assert_cmpuint (pages, ==, (expected->len + PAGE_SIZE - 1) / PAGE_SIZE);
}

static void
test_every_order (Fixture       *f,
                  gconstpointer  data)
{
  /* No query; a filter on row columns; an index term (the rows above the
   * watermark come from the scan); a short term (a scan alone). */
  const char *queries[] = { "", "decision:allow", "save", "tool:script result:pending", "sa" };

  for (guint q = 0; q < G_N_ELEMENTS (queries); q++)
    for (LumoAuditSortKey key = LUMO_AUDIT_SORT_ID; key <= LUMO_AUDIT_SORT_OUTCOME; key++)
      {
        check_order (f, queries[q], key, LUMO_AUDIT_SORT_DESCENDING);
        check_order (f, queries[q], key, LUMO_AUDIT_SORT_ASCENDING);
      }
}

/* The pages of id order are the pages lumo_audit_store_fetch_page() gives. */
static void
test_id_order_is_fetch_page (Fixture       *f,
                             gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) a = lumo_audit_store_fetch_page (f->store, NULL, 20, 5, NULL, &error);
  g_autoptr(LumoAuditRow) after = lumo_audit_store_get_row (f->store, 20, &error);
  g_autoptr(GPtrArray) b = NULL;
  g_autofree char *ids_a = NULL;
  g_autofree char *ids_b = NULL;

  g_assert_no_error (error);
  b = lumo_audit_store_fetch_sorted (f->store, NULL, LUMO_AUDIT_SORT_ID, LUMO_AUDIT_SORT_DESCENDING,
                                     after, 5, NULL, &error);
  g_assert_no_error (error);
  ids_a = ids_of (a);
  ids_b = ids_of (b);
  g_assert_cmpstr (ids_a, ==, "19,18,17,16,15");
  g_assert_cmpstr (ids_b, ==, ids_a);
}

static void
test_bad_sort (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  GPtrArray *rows;

  rows = lumo_audit_store_fetch_sorted (f->store, NULL, 99, LUMO_AUDIT_SORT_ASCENDING, NULL, 5,
                                        NULL, &error);
  g_assert_null (rows);
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  rows = lumo_audit_store_fetch_sorted (f->store, NULL, LUMO_AUDIT_SORT_TOOL, 7, NULL, 5, NULL, &error);
  g_assert_null (rows);
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  rows = lumo_audit_store_fetch_sorted (f->store, NULL, LUMO_AUDIT_SORT_TOOL,
                                        LUMO_AUDIT_SORT_ASCENDING, NULL, 0, NULL, &error);
  g_assert_null (rows);
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT);
}

static void
on_sorted_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  GPtrArray **out = user_data;
  g_autoptr(GError) error = NULL;

  *out = lumo_audit_store_fetch_sorted_finish (LUMO_AUDIT_STORE (source), result, &error);
  g_assert_no_error (error);
}

static void
test_async (Fixture       *f,
            gconstpointer  data)
{
  g_autoptr(GPtrArray) rows = NULL;

  lumo_audit_store_fetch_sorted_async (f->store, NULL, LUMO_AUDIT_SORT_TOOL, LUMO_AUDIT_SORT_ASCENDING,
                                       NULL, 3, NULL, on_sorted_cb, &rows);
  lumo_test_wait_until (lumo_test_is_set, &rows, "the sorted page");
  g_assert_cmpuint (rows->len, ==, 3);
  g_assert_cmpstr (lumo_audit_row_get_tool (g_ptr_array_index (rows, 0)), ==, "delete_script");
}

/* ---- summaries ------------------------------------------------------------------ */

static char *
local_day (gint64 time_us)
{
  g_autoptr(GDateTime) dt = g_date_time_new_from_unix_local (time_us / G_USEC_PER_SEC);

  return g_date_time_format (dt, "%Y-%m-%d");
}

static char *
group_key (LumoAuditGroup  group,
           LumoAuditRow   *row)
{
  switch (group)
    {
    case LUMO_AUDIT_GROUP_CALLER:
      return g_strdup (lumo_audit_row_get_caller_id (row));
    case LUMO_AUDIT_GROUP_TOOL:
      return g_strdup (lumo_audit_row_get_tool (row));
    case LUMO_AUDIT_GROUP_DAY:
      return local_day (lumo_audit_row_get_time_us (row));
    case LUMO_AUDIT_GROUP_NONE:
    default:
      return g_strdup ("");
    }
}

/* "key:total/allowed/denied/failed name;…" from rows counted one by one. */
static char *
count_rows (GPtrArray      *rows,
            LumoAuditGroup  group)
{
  g_autoptr(GTree) tree = g_tree_new_full ((GCompareDataFunc) g_strcmp0, NULL, g_free, g_free);
  g_autoptr(GHashTable) newest_names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  GString *out = g_string_new (NULL);

  /* Newest first: the first row of a caller holds its newest name. */
  for (guint i = 0; i < rows->len; i++)
    {
      LumoAuditRow *row = g_ptr_array_index (rows, i);
      char *key = group_key (group, row);
      gint64 *n = g_tree_lookup (tree, key);
      LumoAuditOutcome outcome = lumo_audit_row_get_outcome (row);

      if (n == NULL)
        {
          n = g_new0 (gint64, 4);
          g_tree_insert (tree, g_strdup (key), n);
          if (group == LUMO_AUDIT_GROUP_CALLER)
            g_hash_table_insert (newest_names, g_strdup (key), g_strdup (lumo_audit_row_get_caller_name (row)));
        }
      n[0]++;
      n[outcome == LUMO_AUDIT_OUTCOME_DENIED ? 2 : 1]++;
      if (outcome == LUMO_AUDIT_OUTCOME_ERROR)
        n[3]++;
      g_free (key);
    }

  if (group == LUMO_AUDIT_GROUP_NONE && g_tree_nnodes (tree) == 0)
    g_tree_insert (tree, g_strdup (""), g_new0 (gint64, 4));

  for (GTreeNode *node = g_tree_node_first (tree); node != NULL; node = g_tree_node_next (node))
    {
      const char *key = g_tree_node_key (node);
      gint64 *n = g_tree_node_value (node);

      g_string_append_printf (out, "%s:%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT
                              "/%" G_GINT64_FORMAT " %s;", key, n[0], n[1], n[2], n[3],
                              group == LUMO_AUDIT_GROUP_CALLER ? (char *) g_hash_table_lookup (newest_names, key) : "-");
    }

  return g_string_free (out, FALSE);
}

static char *
format_stats (GPtrArray      *stats,
              LumoAuditGroup  group)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < stats->len; i++)
    {
      LumoAuditStats *s = g_ptr_array_index (stats, i);

      g_assert_cmpint (s->allowed + s->denied, ==, s->total);
      g_string_append_printf (out, "%s:%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT
                              "/%" G_GINT64_FORMAT " %s;", s->key != NULL ? s->key : "", s->total,
                              s->allowed, s->denied, s->failed,
                              group == LUMO_AUDIT_GROUP_CALLER ? s->name : "-");
    }

  return g_string_free (out, FALSE);
}

static void
test_stats_match_counted_rows (Fixture       *f,
                               gconstpointer  data)
{
  const char *queries[] = { "", "decision:allow", "save", "tool:script result:error", "sa",
                            "nothing-matches-this" };

  for (guint q = 0; q < G_N_ELEMENTS (queries); q++)
    for (LumoAuditGroup group = LUMO_AUDIT_GROUP_NONE; group <= LUMO_AUDIT_GROUP_DAY; group++)
      {
        g_autoptr(GError) error = NULL;
        g_autoptr(LumoAuditQuery) query = lumo_audit_query_parse (queries[q], 0, &error);
        g_autoptr(GPtrArray) rows = all_rows (f, query);
        g_autoptr(GPtrArray) stats = lumo_audit_store_stats (f->store, query, group, NULL, &error);
        g_autofree char *want = count_rows (rows, group);
        g_autofree char *got = NULL;

        g_assert_no_error (error);
        got = format_stats (stats, group);
        if (g_strcmp0 (want, got) != 0)
          g_error ("stats of “%s” by %d: got [%s], counted [%s]", queries[q], group, got, want);
      }

  {
    g_autoptr(GError) error = NULL;

    g_assert_null (lumo_audit_store_stats (f->store, NULL, 42, NULL, &error));
    g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT);
  }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(name, func) \
  g_test_add ("/audit-sort/" name, Fixture, NULL, fixture_set_up, func, fixture_tear_down)

  ADD ("every-order", test_every_order);
  ADD ("id-order-is-fetch-page", test_id_order_is_fetch_page);
  ADD ("bad-sort", test_bad_sort);
  ADD ("async", test_async);
  ADD ("stats-match-counted-rows", test_stats_match_counted_rows);

  return g_test_run ();
}
