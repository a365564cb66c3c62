/* test-audit-index.c — the search index catches up off the decision path
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * An append commits its row alone; the trigram index follows in a later
 * transaction (lumo-audit-writer.c). These tests hold that a row is found
 * by a search at once, that the index catches up by itself, and that rows
 * a killed writer left out of it are indexed when the store opens.
 */
#include "config.h"

#include <string.h>

#include "audit-test-util.h"

/* ---- looking at the file from outside -------------------------------------- */

/* Rows the index itself holds for a trigram (no re-check, no tail). */
static gint64
index_hits (const char *path,
            const char *trigram)
{
  g_autofree char *sql = g_strdup_printf ("SELECT count(*) FROM audit_fts WHERE audit_fts MATCH '\"%s\"'",
                                          trigram);

  return audit_test_query_int (path, sql);
}

static void
assert_index_sound (const char *path)
{
  sqlite3 *db = NULL;
  char *err = NULL;

  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  if (sqlite3_exec (db, "INSERT INTO audit_fts (audit_fts, rank) VALUES ('integrity-check', 0)",
                    NULL, NULL, &err) != SQLITE_OK)
    g_error ("the search index does not match the rows: %s", err);
  sqlite3_close (db);
}


static void
assert_order_sound (const char *path)
{
  g_assert_true (audit_test_order_sound (path));
}

/* ---- what the keys of time and params find ----------------------------------- */

#define N_KEYED 9

typedef struct
{
  gint64   id;
  gint64   time_us;
  gboolean a;        /* params SHA_A, else SHA_B */
  gboolean allowed;
} Keyed;

static int
keyed_by_time (gconstpointer pa,
               gconstpointer pb)
{
  const Keyed *a = pa, *b = pb;

  if (a->time_us != b->time_us)
    return a->time_us < b->time_us ? -1 : 1;
  return a->id < b->id ? -1 : a->id > b->id;
}

static LumoAuditQuery *
parse (const char *text)
{
  g_autoptr(GError) error = NULL;
  LumoAuditQuery *q = lumo_audit_query_parse (text, 0, &error);

  g_assert_no_error (error);
  return q;
}

/* Every page of @text in @key and @order, 2 rows a page: the ids. */
static GArray *
all_pages (LumoAuditStore     *store,
           const char         *text,
           LumoAuditSortKey    key,
           LumoAuditSortOrder  order)
{
  g_autoptr(LumoAuditQuery) q = parse (text);
  g_autoptr(LumoAuditRow) after = NULL;
  GArray *ids = g_array_new (FALSE, FALSE, sizeof (gint64));

  for (;;)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GPtrArray) rows = lumo_audit_store_fetch_sorted (store, q, key, order, after, 2,
                                                                 NULL, &error);

      g_assert_no_error (error);
      if (rows->len == 0)
        break;
      for (guint i = 0; i < rows->len; i++)
        {
          gint64 id = lumo_audit_row_get_id (g_ptr_array_index (rows, i));

          g_array_append_val (ids, id);
        }
      g_set_object (&after, g_ptr_array_index (rows, rows->len - 1));
    }

  return ids;
}

static void
assert_ids (GArray       *got,
            const Keyed **want,
            guint         n_want)
{
  g_assert_cmpuint (got->len, ==, n_want);
  for (guint i = 0; i < n_want; i++)
    g_assert_cmpint (g_array_index (got, gint64, i), ==, want[i]->id);
}

/* since:, params:, pages by time and by id under them, counts, a summary
 * and the writes a rate window is rebuilt from, against the rows as
 * written: the same whether or not the index has caught up. */
static void
check_keys (LumoAuditStore *store,
            const Keyed    *rows,
            guint           n_rows,
            const char     *params_a,
            gint64          since_us)
{
  g_autofree char *q_params = g_strdup_printf ("params:%s", params_a);
  g_autofree char *q_both = g_strdup_printf ("since:1d params:%s", params_a);
  g_autofree const Keyed **by_time = g_new0 (const Keyed *, n_rows);
  g_autofree const Keyed **recent = g_new0 (const Keyed *, n_rows);
  g_autofree const Keyed **recent_desc_id = g_new0 (const Keyed *, n_rows);
  g_autofree const Keyed **a_desc_id = g_new0 (const Keyed *, n_rows);
  g_autofree const Keyed **allowed = g_new0 (const Keyed *, n_rows);
  g_autofree Keyed *sorted = g_memdup2 (rows, n_rows * sizeof *rows);
  guint n_recent = 0, n_a = 0, n_both = 0, n_allowed = 0, n = 0;
  g_autoptr(GError) error = NULL;

  qsort (sorted, n_rows, sizeof *sorted, keyed_by_time);
  for (guint i = 0; i < n_rows; i++)
    {
      by_time[i] = &sorted[i];
      if (sorted[i].time_us >= since_us)
        recent[n_recent++] = &sorted[i];
      if (sorted[i].time_us >= since_us && sorted[i].allowed)
        allowed[n_allowed++] = &sorted[i];
    }
  for (guint i = n_rows; i-- > 0;)
    {
      if (rows[i].time_us >= since_us)
        recent_desc_id[n++] = &rows[i];
      if (rows[i].a)
        a_desc_id[n_a++] = &rows[i];
      if (rows[i].a && rows[i].time_us >= since_us)
        n_both++;
    }

  g_assert_cmpint (audit_test_count (store, ""), ==, n_rows);
  g_assert_cmpint (audit_test_count (store, "since:1d"), ==, n_recent);
  g_assert_cmpint (audit_test_count (store, q_params), ==, n_a);
  g_assert_cmpint (audit_test_count (store, q_both), ==, n_both);
  g_assert_cmpint (audit_test_count (store, "since:1d decision:allow"), ==, n_allowed);

  {
    g_autoptr(GArray) ids = all_pages (store, "", LUMO_AUDIT_SORT_TIME, LUMO_AUDIT_SORT_ASCENDING);

    assert_ids (ids, by_time, n_rows);
  }
  {
    g_autoptr(GArray) ids = all_pages (store, "since:1d", LUMO_AUDIT_SORT_TIME,
                                       LUMO_AUDIT_SORT_DESCENDING);

    g_assert_cmpuint (ids->len, ==, n_recent);
    for (guint i = 0; i < n_recent; i++)
      g_assert_cmpint (g_array_index (ids, gint64, i), ==, recent[n_recent - 1 - i]->id);
  }
  {
    g_autoptr(GArray) ids = all_pages (store, "since:1d", LUMO_AUDIT_SORT_ID,
                                       LUMO_AUDIT_SORT_DESCENDING);

    assert_ids (ids, recent_desc_id, n_recent);
  }
  {
    g_autoptr(GArray) ids = all_pages (store, q_params, LUMO_AUDIT_SORT_ID,
                                       LUMO_AUDIT_SORT_DESCENDING);

    assert_ids (ids, a_desc_id, n_a);
  }
  {
    g_autoptr(LumoAuditQuery) q = parse ("since:1d");
    g_autoptr(GPtrArray) stats = lumo_audit_store_stats (store, q, LUMO_AUDIT_GROUP_NONE, NULL, &error);

    g_assert_no_error (error);
    g_assert_cmpuint (stats->len, ==, 1);
    g_assert_cmpint (((LumoAuditStats *) g_ptr_array_index (stats, 0))->total, ==, n_recent);
  }
  {
    g_autoptr(GPtrArray) writes = lumo_audit_store_list_allowed_writes (store, since_us, &error);
    g_autoptr(GArray) ids = g_array_new (FALSE, FALSE, sizeof (gint64));

    g_assert_no_error (error);
    for (guint i = 0; i < writes->len; i++)
      {
        gint64 id = lumo_audit_row_get_id (g_ptr_array_index (writes, i));

        g_array_append_val (ids, id);
      }
    assert_ids (ids, allowed, n_allowed);
  }
}

/* ---- tests ------------------------------------------------------------------- */

/* The append's transaction leaves the index alone; a search finds the row
 * all the same, and finds it once when the index has it too. */
static void
test_searchable_at_once (void)
{
  g_autofree char *dir = audit_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "audit.db", NULL);
  g_autoptr(LumoAuditStore) store = audit_test_open (dir);
  gint64 first, second;

  _lumo_audit_store_set_index_catch_up (store, FALSE);
  first = audit_test_append (store, "needle_tool");

  g_assert_cmpint (audit_test_watermark (path), <, first);
  g_assert_cmpint (index_hits (path, "dle"), ==, 0);
  g_assert_cmpint (audit_test_count (store, "needle_tool"), ==, 1);
  g_assert_cmpint (audit_test_count (store, "dle"), ==, 1);
  g_assert_cmpint (audit_test_count (store, "tool:needle"), ==, 1);

  /* The next commit, with indexing allowed, brings both rows in. */
  _lumo_audit_store_set_index_catch_up (store, TRUE);
  second = audit_test_append (store, "needle_tool");
  audit_test_wait_indexed (path, second);
  g_assert_cmpint (index_hits (path, "dle"), ==, 2);
  g_assert_cmpint (audit_test_count (store, "needle_tool"), ==, 2);
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(LumoAuditQuery) q = lumo_audit_query_parse ("needle", 0, &error);
    g_autoptr(GPtrArray) rows = lumo_audit_store_fetch_page (store, q, 0, 10, NULL, &error);

    g_assert_no_error (error);
    g_assert_cmpuint (rows->len, ==, 2);
    g_assert_cmpint (lumo_audit_row_get_id (g_ptr_array_index (rows, 0)), ==, second);
    g_assert_cmpint (lumo_audit_row_get_id (g_ptr_array_index (rows, 1)), ==, first);
  }
  assert_index_sound (path);

  g_clear_object (&store);
  lumo_test_dir_remove (dir);
}

/* Pages of a search that straddle the watermark: newer rows from the scan,
 * older ones from the index, each once and in order. */
static void
test_pages_across_watermark (void)
{
  g_autofree char *dir = audit_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "audit.db", NULL);
  g_autoptr(LumoAuditStore) store = audit_test_open (dir);
  g_autoptr(LumoAuditQuery) q = NULL;
  g_autoptr(GError) error = NULL;
  gint64 before = 0, expected = 12;
  gint64 last = 0;

  for (guint i = 0; i < 6; i++)
    last = audit_test_append (store, i % 2 ? "other" : "save_script");
  audit_test_wait_indexed (path, last);
  _lumo_audit_store_set_index_catch_up (store, FALSE);
  for (guint i = 0; i < 6; i++)
    last = audit_test_append (store, i % 2 ? "other" : "save_script");
  g_assert_cmpint (audit_test_watermark (path), ==, 6);

  q = lumo_audit_query_parse ("save", 0, &error);
  g_assert_no_error (error);
  g_assert_cmpint (lumo_audit_store_count (store, q, NULL, &error), ==, 6);
  for (;;)
    {
      g_autoptr(GPtrArray) rows = lumo_audit_store_fetch_page (store, q, before, 2, NULL, &error);

      g_assert_no_error (error);
      if (rows->len == 0)
        break;
      for (guint i = 0; i < rows->len; i++)
        {
          gint64 id = lumo_audit_row_get_id (g_ptr_array_index (rows, i));

          /* Rows 1, 3, 5, 7, 9, 11 hold save_script, newest first. */
          expected -= 1;
          g_assert_cmpint (id, ==, expected);
          expected -= 1;
        }
      before = lumo_audit_row_get_id (g_ptr_array_index (rows, rows->len - 1));
    }
  g_assert_cmpint (expected, ==, 0);
  g_assert_cmpint (last, ==, 12);

  g_clear_object (&store);
  lumo_test_dir_remove (dir);
}


/* The time and params keys read audit_order up to the watermark and the
 * rows above it: with the catch-up held back, some rows are in neither
 * index and are found all the same, once, in their place. The times are
 * not in id order (an import, a clock set back). */
static void
test_keys_while_lagging (void)
{
  g_autofree char *dir = audit_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "audit.db", NULL);
  g_autoptr(LumoAuditStore) store = audit_test_open (dir);
  g_autoptr(LumoAuditRow) first = NULL;
  g_autoptr(GError) error = NULL;
  gint64 now = g_get_real_time ();
  gint64 hour = (gint64) 3600 * G_USEC_PER_SEC;
  /* Hours before now: rows 1–4 indexed, all older than a day; 5–9 not.
   * (since:1d then finds nothing in audit_order: its bound must come from
   * the rows above the watermark.) */
  const gint64 ago[N_KEYED] = { 240, 50, 72, 30, 5, 26, 1, 48, 3 };
  Keyed rows[N_KEYED];
  const char *params_a;

  for (guint i = 0; i < N_KEYED; i++)
    {
      LumoAuditRecord r = audit_test_record ("keyed_tool");

      if (i == 4)
        {
          audit_test_wait_indexed (path, 4);
          _lumo_audit_store_set_index_catch_up (store, FALSE);
        }
      r.time_us = now - ago[i] * hour;
      r.params_sha256 = i % 3 == 0 ? SHA_A : SHA_B;
      r.decision = i == 6 ? LUMO_AUDIT_DECISION_DENY : LUMO_AUDIT_DECISION_ALLOW;
      rows[i] = (Keyed) { lumo_audit_store_append (store, &r, &error), r.time_us, i % 3 == 0, i != 6 };
      g_assert_no_error (error);
      g_assert_cmpint (rows[i].id, ==, i + 1);
    }
  g_assert_cmpint (audit_test_watermark (path), ==, 4);
  first = lumo_audit_store_get_row (store, 1, &error);
  g_assert_no_error (error);
  params_a = lumo_audit_row_get_params_hmac (first);

  check_keys (store, rows, N_KEYED, params_a, now - 24 * hour);
  assert_order_sound (path);

  /* Caught up: the same answers, now from the indexes alone. */
  _lumo_audit_store_set_index_catch_up (store, TRUE);
  {
    LumoAuditRecord r = audit_test_record ("keyed_tool");

    r.time_us = now - 4 * hour;
    r.params_sha256 = SHA_A;
    g_assert_cmpint (lumo_audit_store_append (store, &r, &error), ==, N_KEYED + 1);
    g_assert_no_error (error);
    audit_test_wait_indexed (path, N_KEYED + 1);
    {
      Keyed all[N_KEYED + 1];

      memcpy (all, rows, sizeof rows);
      all[N_KEYED] = (Keyed) { N_KEYED + 1, r.time_us, TRUE, TRUE };
      check_keys (store, all, N_KEYED + 1, params_a, now - 24 * hour);
    }
  }
  assert_order_sound (path);

  g_clear_object (&store);
  lumo_test_dir_remove (dir);
}

/* A writer killed between its commits and the index's catch-up: the rows
 * are there and found by a search, and the next store that opens the file
 * indexes them. */
static void
test_rebuilt_after_kill (void)
{
  g_autofree char *dir = audit_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "audit.db", NULL);
  g_autofree char *self_exe = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *exe_dir = g_path_get_dirname (self_exe);
  g_autofree char *writer = g_build_filename (exe_dir, "audit-writer", NULL);
  g_autoptr(LumoAuditStore) store = NULL;
  g_autoptr(GSubprocess) proc = NULL;
  g_autoptr(GDataInputStream) lines = NULL;
  g_autoptr(GError) error = NULL;
  LumoAuditVerifyReport report;
  gint64 newest = 0;

  /* Create the store (and its secret) first, as the app would have. */
  g_object_unref (audit_test_open (dir));

  proc = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error,
                           writer, path, "0", "2", "killed_writer", "--no-index", NULL);
  g_assert_no_error (error);
  lines = g_data_input_stream_new (g_subprocess_get_stdout_pipe (proc));
  for (guint n = 0; n < 40; n++)
    {
      g_autofree char *line = g_data_input_stream_read_line (lines, NULL, NULL, &error);

      g_assert_no_error (error);
      g_assert_nonnull (line);
      newest = MAX (newest, g_ascii_strtoll (line, NULL, 10));
    }
  g_subprocess_force_exit (proc);
  g_assert_true (g_subprocess_wait (proc, NULL, &error));
  g_assert_no_error (error);

  /* Every acknowledged row is committed, none is indexed. */
  newest = MAX (newest, audit_test_query_int (path, "SELECT max (id) FROM audit"));
  g_assert_cmpint (newest, >=, 40);
  g_assert_cmpint (audit_test_watermark (path), ==, 0);
  g_assert_cmpint (index_hits (path, "led"), ==, 0);

  g_assert_cmpint (audit_test_query_int (path, "SELECT count(*) FROM audit_order"), ==, 0);

  store = audit_test_open (dir);
  /* Found before the catch-up is done (by the scan) and after (by the
   * index), and never twice; so by time. */
  g_assert_cmpint (audit_test_count (store, "killed_writer"), ==, newest);
  g_assert_cmpint (audit_test_count (store, "since:1d"), ==, newest);
  audit_test_wait_indexed (path, newest);
  g_assert_cmpint (index_hits (path, "led"), ==, newest);
  g_assert_cmpint (audit_test_count (store, "killed_writer"), ==, newest);
  g_assert_cmpint (audit_test_count (store, "since:1d"), ==, newest);
  assert_index_sound (path);
  assert_order_sound (path);

  g_assert_true (lumo_audit_store_verify (store, NULL, NULL, NULL, &report, &error));
  g_assert_no_error (error);
  g_assert_cmpint (report.rows_checked, ==, newest);

  g_clear_object (&store);
  lumo_test_dir_remove (dir);
}

/* A result filled in before its row is indexed, and retention over rows
 * of which only some are indexed, leave the index whole. */
static void
test_results_and_retention (void)
{
  g_autofree char *dir = audit_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "audit.db", NULL);
  g_autoptr(LumoAuditStore) store = audit_test_open (dir);
  g_autoptr(GError) error = NULL;
  gint64 old_time = g_get_real_time () - (gint64) 10 * 86400 * G_USEC_PER_SEC;
  gint64 id = 0;

  /* Two old rows indexed, two old and one new not yet. */
  for (guint i = 0; i < 5; i++)
    {
      LumoAuditRecord r = audit_test_record ("save_script");

      if (i == 2)
        {
          audit_test_wait_indexed (path, id);
          _lumo_audit_store_set_index_catch_up (store, FALSE);
        }
      r.time_us = i < 4 ? old_time + i : 0;
      id = lumo_audit_store_append (store, &r, &error);
      g_assert_no_error (error);
    }
  g_assert_cmpint (audit_test_watermark (path), ==, 2);

  /* The text of an unindexed row's result waits for the catch-up. */
  g_assert_true (lumo_audit_store_set_result (store, 5, FALSE, "quokka trouble", &error));
  g_assert_no_error (error);
  g_assert_true (lumo_audit_store_set_result (store, 1, FALSE, "wombat trouble", &error));
  g_assert_no_error (error);
  g_assert_cmpint (audit_test_count (store, "quokka"), ==, 1);
  g_assert_cmpint (audit_test_count (store, "wombat"), ==, 1);
  assert_index_sound (path);

  g_assert_cmpint (lumo_audit_store_apply_retention (store, 1, &error), ==, 4);
  g_assert_no_error (error);
  assert_index_sound (path);

  _lumo_audit_store_set_index_catch_up (store, TRUE);
  audit_test_append (store, "after_retention");
  audit_test_wait_indexed (path, 6);
  assert_index_sound (path);
  assert_order_sound (path);
  g_assert_cmpint (index_hits (path, "kka"), ==, 1);
  g_assert_cmpint (audit_test_count (store, "quokka"), ==, 1);
  g_assert_cmpint (audit_test_count (store, "wombat"), ==, 0);
  g_assert_cmpint (audit_test_count (store, "save"), ==, 1);
  g_assert_true (lumo_audit_store_verify (store, NULL, NULL, NULL, NULL, &error));
  g_assert_no_error (error);

  g_clear_object (&store);
  lumo_test_dir_remove (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/audit-index/searchable-at-once", test_searchable_at_once);
  g_test_add_func ("/audit-index/pages-across-watermark", test_pages_across_watermark);
  g_test_add_func ("/audit-index/keys-while-lagging", test_keys_while_lagging);
  g_test_add_func ("/audit-index/rebuilt-after-kill", test_rebuilt_after_kill);
  g_test_add_func ("/audit-index/results-and-retention", test_results_and_retention);

  return g_test_run ();
}
