/* lumo-audit-store-pages.c — pages of rows in any order, counts, and the
 * two parts of a search
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A query with index terms, a page in any order but id's, or a bound on
 * time or params, reads one snapshot twice: the rows up to the index's
 * watermark through the search index or audit_order (which holds the
 * time and params indexes), the newer rows (the writer indexes them
 * after it has answered) by scanning them. Both parts come in the
 * page's order and are merged, so a row is found as soon as it is
 * committed, whether or not the index has caught up.
 */
#define G_LOG_DOMAIN "lumo-audit"

#include "config.h"

#include <string.h>

#include "lumo-audit-private.h"
#include "lumo-db.h"
#include "lumo-error.h"

#define MAX_PAGE_LIMIT 10000

/* Inside a read transaction: the watermark, and whether any row lies
 * above it. */
gboolean
_lumo_audit_read_watermark (sqlite3  *db,
                gint64   *indexed_to,
                gboolean *has_tail,
                GError  **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;
  int rc;

  if (!(stmt = lumo_db_prepare (db, "SELECT s.indexed_to, EXISTS (SELECT 1 FROM audit "
                                    "WHERE id > s.indexed_to) FROM audit_fts_state s", error)))
    return FALSE;

  rc = sqlite3_step (stmt);
  if (rc != SQLITE_ROW)
    {
      if (rc == SQLITE_DONE)
        g_set_error (error, LUMO_ERROR, LUMO_ERROR_DB_CORRUPT,
                     "The audit log has no search index watermark (audit_fts_state is empty)");
      else
        lumo_db_set_error (error, db, rc, "Cannot read the search index watermark");
      return FALSE;
    }

  *indexed_to = sqlite3_column_int64 (stmt, 0);
  *has_tail = sqlite3_column_int (stmt, 1) != 0;
  return TRUE;
}

static gboolean
run_rows (sqlite3       *db,
          const char    *sql,
          GPtrArray     *binds,
          GPtrArray     *rows,
          GCancellable  *cancellable,
          GError       **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;
  int rc;

  if (!(stmt = _lumo_audit_prepare_bound (db, sql, binds, error)))
    return FALSE;

  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    g_ptr_array_add (rows, _lumo_audit_row_new_from_stmt (stmt));

  if (rc != SQLITE_DONE)
    {
      _lumo_audit_set_step_error (error, db, rc, cancellable, "Cannot search the audit log");
      return FALSE;
    }

  return TRUE;
}

static gboolean
run_part_rows (sqlite3                 *db,
               const LumoAuditQuery    *query,
               LumoAuditPart            part,
               gint64                   indexed_to,
               const LumoAuditPageSpec *spec,
               guint                    limit,
               GPtrArray               *rows,
               GCancellable            *cancellable,
               GError                 **error)
{
  g_autoptr(GPtrArray) binds = g_ptr_array_new_with_free_func ((GDestroyNotify) g_variant_unref);
  g_autofree char *sql = NULL;

  sql = _lumo_audit_query_build_page_sql (query, LUMO_AUDIT_ROW_COLUMNS, part, indexed_to, spec,
                                          limit, binds);
  return run_rows (db, sql, binds, rows, cancellable, error);
}

/* The first @limit rows of two lists in the same order. */
static GPtrArray *
merge (const LumoAuditPageSpec *spec,
       GPtrArray               *a,
       GPtrArray               *b,
       guint                    limit)
{
  GPtrArray *out = g_ptr_array_new_full (MIN (limit, a->len + b->len), g_object_unref);
  guint i = 0, j = 0;

  while (out->len < limit && (i < a->len || j < b->len))
    {
      gboolean take_a;

      if (i == a->len)
        take_a = FALSE;
      else if (j == b->len)
        take_a = TRUE;
      else
        take_a = _lumo_audit_sort_compare (spec->key, spec->order, g_ptr_array_index (a, i),
                                           g_ptr_array_index (b, j)) < 0;
      g_ptr_array_add (out, g_object_ref (g_ptr_array_index (take_a ? a : b, take_a ? i++ : j++)));
    }

  return out;
}

static GPtrArray *
read_page (sqlite3                 *db,
           const LumoAuditQuery    *query,
           const LumoAuditPageSpec *spec,
           guint                    limit,
           GCancellable            *cancellable,
           GError                 **error)
{
  g_autoptr(GPtrArray) indexed = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GPtrArray) tail = g_ptr_array_new_with_free_func (g_object_unref);
  gint64 indexed_to = 0;
  gboolean has_tail = FALSE, ok;
  LumoAuditPart first;

  first = _lumo_audit_query_first_part (query, LUMO_AUDIT_USE_PAGE, spec->key);
  if (first == LUMO_AUDIT_PART_ALL)
    {
      if (!run_part_rows (db, query, LUMO_AUDIT_PART_ALL, 0, spec, limit, indexed, cancellable, error))
        return NULL;
      return g_steal_pointer (&indexed);
    }

  /* One snapshot for the watermark and both parts. */
  if (!lumo_db_exec (db, "BEGIN", error))
    return NULL;
  ok = _lumo_audit_read_watermark (db, &indexed_to, &has_tail, error) &&
       run_part_rows (db, query, first, indexed_to, spec, limit, indexed, cancellable, error) &&
       (!has_tail || run_part_rows (db, query, LUMO_AUDIT_PART_TAIL, indexed_to, spec, limit, tail,
                                    cancellable, error));
  lumo_db_exec (db, "COMMIT", NULL);
  if (!ok)
    return NULL;

  if (tail->len == 0)
    return g_steal_pointer (&indexed);
  return merge (spec, indexed, tail, limit);
}

static gboolean
check_limit (guint    limit,
             GError **error)
{
  if (limit < 1 || limit > MAX_PAGE_LIMIT)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                   "A page of %u rows is out of range (1–%d)", limit, MAX_PAGE_LIMIT);
      return FALSE;
    }

  return TRUE;
}

static GPtrArray *
fetch (LumoAuditStore          *self,
       LumoAuditQuery          *query,
       const LumoAuditPageSpec *spec,
       guint                    limit,
       GCancellable            *cancellable,
       GError                 **error)
{
  g_autoptr(LumoAuditQuery) all = NULL;
  GPtrArray *rows;
  sqlite3 *db;

  if (!check_limit (limit, error))
    return NULL;

  if (query == NULL)
    query = all = lumo_audit_query_new ();

  if (!(db = _lumo_audit_read_begin (self, cancellable, error)))
    return NULL;
  rows = read_page (db, query, spec, limit, cancellable, error);
  _lumo_audit_read_end (self, db);

  return rows;
}

GPtrArray *
lumo_audit_store_fetch_page (LumoAuditStore  *self,
                             LumoAuditQuery  *query,
                             gint64           before_id,
                             guint            limit,
                             GCancellable    *cancellable,
                             GError         **error)
{
  LumoAuditPageSpec spec = { LUMO_AUDIT_SORT_ID, LUMO_AUDIT_SORT_DESCENDING, NULL, before_id };

  g_return_val_if_fail (LUMO_IS_AUDIT_STORE (self), NULL);
  g_return_val_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (before_id < 0)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                   "The page cursor %" G_GINT64_FORMAT " is negative", before_id);
      return NULL;
    }

  return fetch (self, query, &spec, limit, cancellable, error);
}

GPtrArray *
lumo_audit_store_fetch_sorted (LumoAuditStore      *self,
                               LumoAuditQuery      *query,
                               LumoAuditSortKey     key,
                               LumoAuditSortOrder   order,
                               LumoAuditRow        *after,
                               guint                limit,
                               GCancellable        *cancellable,
                               GError             **error)
{
  LumoAuditPageSpec spec = { key, order, after, 0 };

  g_return_val_if_fail (LUMO_IS_AUDIT_STORE (self), NULL);
  g_return_val_if_fail (after == NULL || LUMO_IS_AUDIT_ROW (after), NULL);
  g_return_val_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if ((guint) key > LUMO_AUDIT_SORT_OUTCOME)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                   "The sort key %d is not id, time, caller, tool or outcome", (int) key);
      return NULL;
    }
  if (order != LUMO_AUDIT_SORT_DESCENDING && order != LUMO_AUDIT_SORT_ASCENDING)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                   "The sort order %d is not descending or ascending", (int) order);
      return NULL;
    }

  return fetch (self, query, &spec, limit, cancellable, error);
}

/* ---- counting ---------------------------------------------------------------- */

static gboolean
count_part (sqlite3              *db,
            const LumoAuditQuery *query,
            LumoAuditPart         part,
            gint64                indexed_to,
            gint64               *count,
            GCancellable         *cancellable,
            GError              **error)
{
  g_autoptr(GPtrArray) binds = g_ptr_array_new_with_free_func ((GDestroyNotify) g_variant_unref);
  g_autoptr(sqlite3_stmt) stmt = NULL;
  g_autofree char *sql = NULL;
  int rc;

  sql = _lumo_audit_query_build_count_sql (query, part, indexed_to, binds);
  if (!(stmt = _lumo_audit_prepare_bound (db, sql, binds, error)))
    return FALSE;

  rc = sqlite3_step (stmt);
  if (rc != SQLITE_ROW)
    {
      _lumo_audit_set_step_error (error, db, rc, cancellable, "Cannot count the audit rows");
      return FALSE;
    }

  *count += sqlite3_column_int64 (stmt, 0);
  return TRUE;
}

gint64
lumo_audit_store_count (LumoAuditStore  *self,
                        LumoAuditQuery  *query,
                        GCancellable    *cancellable,
                        GError         **error)
{
  g_autoptr(LumoAuditQuery) all = NULL;
  gint64 count = 0, indexed_to = 0;
  gboolean has_tail = FALSE, ok;
  LumoAuditPart first;
  sqlite3 *db;

  g_return_val_if_fail (LUMO_IS_AUDIT_STORE (self), -1);
  g_return_val_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable), -1);
  g_return_val_if_fail (error == NULL || *error == NULL, -1);

  if (query == NULL)
    query = all = lumo_audit_query_new ();

  if (!(db = _lumo_audit_read_begin (self, cancellable, error)))
    return -1;

  first = _lumo_audit_query_first_part (query, LUMO_AUDIT_USE_COUNT, LUMO_AUDIT_SORT_ID);
  /* An older collected log's audit_order is a view over a join
   * (lumo-audit-file.c), which SQLite counts row by row (2.8 s on a
   * million): its rows are counted on its audit table, as that version
   * did. */
  if (first == LUMO_AUDIT_PART_ORDERED && self->legacy_schema != 0 && lumo_audit_query_is_empty (query))
    first = LUMO_AUDIT_PART_ALL;
  if (first == LUMO_AUDIT_PART_ALL)
    ok = count_part (db, query, LUMO_AUDIT_PART_ALL, 0, &count, cancellable, error);
  else if ((ok = lumo_db_exec (db, "BEGIN", error)))
    {
      ok = _lumo_audit_read_watermark (db, &indexed_to, &has_tail, error) &&
           count_part (db, query, first, indexed_to, &count, cancellable, error) &&
           (!has_tail || count_part (db, query, LUMO_AUDIT_PART_TAIL, indexed_to, &count,
                                     cancellable, error));
      lumo_db_exec (db, "COMMIT", NULL);
    }

  _lumo_audit_read_end (self, db);
  return ok ? count : -1;
}

/* ---- async wrappers -------------------------------------------------------------- */

typedef struct
{
  LumoAuditQuery     *query;
  gboolean            sorted;
  LumoAuditSortKey    key;
  LumoAuditSortOrder  order;
  LumoAuditRow       *after;
  gint64              before_id;
  guint               limit;
} ReadData;

static void
read_data_free (gpointer data)
{
  ReadData *rd = data;

  g_clear_pointer (&rd->query, lumo_audit_query_unref);
  g_clear_object (&rd->after);
  g_free (rd);
}

static void
fetch_page_thread (GTask        *task,
                   gpointer      source_object,
                   gpointer      task_data,
                   GCancellable *cancellable)
{
  ReadData *rd = task_data;
  GError *error = NULL;
  GPtrArray *rows;

  if (rd->sorted)
    rows = lumo_audit_store_fetch_sorted (source_object, rd->query, rd->key, rd->order, rd->after,
                                          rd->limit, cancellable, &error);
  else
    rows = lumo_audit_store_fetch_page (source_object, rd->query, rd->before_id, rd->limit,
                                        cancellable, &error);
  if (rows != NULL)
    g_task_return_pointer (task, rows, (GDestroyNotify) g_ptr_array_unref);
  else
    g_task_return_error (task, error);
}

static void
count_thread (GTask        *task,
              gpointer      source_object,
              gpointer      task_data,
              GCancellable *cancellable)
{
  ReadData *rd = task_data;
  GError *error = NULL;
  gint64 count;

  count = lumo_audit_store_count (source_object, rd->query, cancellable, &error);
  if (count >= 0)
    g_task_return_int (task, count);
  else
    g_task_return_error (task, error);
}

static void
run_read_async (LumoAuditStore      *self,
                gpointer             source_tag,
                GTaskThreadFunc      func,
                ReadData            *rd,
                GCancellable        *cancellable,
                GAsyncReadyCallback  callback,
                gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, source_tag);
  g_task_set_task_data (task, rd, read_data_free);
  g_task_run_in_thread (task, func);
}

static ReadData *
read_data_new (LumoAuditQuery *query,
               guint           limit)
{
  ReadData *rd = g_new0 (ReadData, 1);

  rd->query = query != NULL ? lumo_audit_query_ref (query) : NULL;
  rd->limit = limit;
  return rd;
}

void
lumo_audit_store_fetch_page_async (LumoAuditStore      *self,
                                   LumoAuditQuery      *query,
                                   gint64               before_id,
                                   guint                limit,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  ReadData *rd;

  g_return_if_fail (LUMO_IS_AUDIT_STORE (self));

  rd = read_data_new (query, limit);
  rd->before_id = before_id;
  run_read_async (self, lumo_audit_store_fetch_page_async, fetch_page_thread, rd,
                  cancellable, callback, user_data);
}

GPtrArray *
lumo_audit_store_fetch_page_finish (LumoAuditStore  *self,
                                    GAsyncResult    *result,
                                    GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == lumo_audit_store_fetch_page_async,
                        NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

void
lumo_audit_store_fetch_sorted_async (LumoAuditStore      *self,
                                     LumoAuditQuery      *query,
                                     LumoAuditSortKey     key,
                                     LumoAuditSortOrder   order,
                                     LumoAuditRow        *after,
                                     guint                limit,
                                     GCancellable        *cancellable,
                                     GAsyncReadyCallback  callback,
                                     gpointer             user_data)
{
  ReadData *rd;

  g_return_if_fail (LUMO_IS_AUDIT_STORE (self));
  g_return_if_fail (after == NULL || LUMO_IS_AUDIT_ROW (after));

  rd = read_data_new (query, limit);
  rd->sorted = TRUE;
  rd->key = key;
  rd->order = order;
  rd->after = after != NULL ? g_object_ref (after) : NULL;
  run_read_async (self, lumo_audit_store_fetch_sorted_async, fetch_page_thread, rd,
                  cancellable, callback, user_data);
}

GPtrArray *
lumo_audit_store_fetch_sorted_finish (LumoAuditStore  *self,
                                      GAsyncResult    *result,
                                      GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == lumo_audit_store_fetch_sorted_async,
                        NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

void
lumo_audit_store_count_async (LumoAuditStore      *self,
                              LumoAuditQuery      *query,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  g_return_if_fail (LUMO_IS_AUDIT_STORE (self));

  run_read_async (self, lumo_audit_store_count_async, count_thread, read_data_new (query, 0),
                  cancellable, callback, user_data);
}

gint64
lumo_audit_store_count_finish (LumoAuditStore  *self,
                               GAsyncResult    *result,
                               GError         **error)
{
  GError *local_error = NULL;
  gint64 count;

  g_return_val_if_fail (g_task_is_valid (result, self), -1);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == lumo_audit_store_count_async, -1);

  count = g_task_propagate_int (G_TASK (result), &local_error);
  if (local_error != NULL)
    {
      g_propagate_error (error, local_error);
      return -1;
    }

  return count;
}
