/* lumo-audit-store-stats.c — writes allowed, denied and failed, per group
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One GROUP BY over the rows a query matches, in the same two parts as a
 * page (lumo-audit-store-pages.c): the indexed rows and the unindexed
 * tail, summed here by key.
 */
#define G_LOG_DOMAIN "lumo-audit"

#include "config.h"

#include <string.h>

#include "lumo-audit-private.h"
#include "lumo-db.h"
#include "lumo-error.h"

G_DEFINE_ENUM_TYPE (LumoAuditGroup, lumo_audit_group,
  G_DEFINE_ENUM_VALUE (LUMO_AUDIT_GROUP_NONE, "none"),
  G_DEFINE_ENUM_VALUE (LUMO_AUDIT_GROUP_CALLER, "caller"),
  G_DEFINE_ENUM_VALUE (LUMO_AUDIT_GROUP_TOOL, "tool"),
  G_DEFINE_ENUM_VALUE (LUMO_AUDIT_GROUP_DAY, "day"))

G_DEFINE_BOXED_TYPE (LumoAuditStats, lumo_audit_stats, lumo_audit_stats_copy, lumo_audit_stats_free)

LumoAuditStats *
lumo_audit_stats_copy (const LumoAuditStats *stats)
{
  LumoAuditStats *copy;

  g_return_val_if_fail (stats != NULL, NULL);

  copy = g_memdup2 (stats, sizeof *stats);
  copy->key = g_strdup (stats->key);
  copy->name = g_strdup (stats->name);
  return copy;
}

void
lumo_audit_stats_free (LumoAuditStats *stats)
{
  if (stats == NULL)
    return;

  g_free (stats->key);
  g_free (stats->name);
  g_free (stats);
}

/* A group's stats while the parts are summed: the id of the row the name
 * came from decides which part's name is the newest. */
typedef struct
{
  LumoAuditStats stats;
  gint64         name_id;
} Group;

static void
group_free (gpointer data)
{
  Group *g = data;

  g_free (g->stats.key);
  g_free (g->stats.name);
  g_free (g);
}

static const char *
group_expr (LumoAuditGroup group)
{
  switch (group)
    {
    case LUMO_AUDIT_GROUP_CALLER:
      return "a.caller_id";
    case LUMO_AUDIT_GROUP_TOOL:
      return "a.tool";
    case LUMO_AUDIT_GROUP_DAY:
      /* Integer division first: the day of a row is that of its second. */
      return "date (a.time_us / 1000000, 'unixepoch', 'localtime')";
    case LUMO_AUDIT_GROUP_NONE:
    default:
      return "NULL";
    }
}

static gboolean
stats_part (sqlite3              *db,
            const LumoAuditQuery *query,
            LumoAuditPart         part,
            gint64                indexed_to,
            LumoAuditGroup        group,
            GHashTable           *groups,
            GCancellable         *cancellable,
            GError              **error)
{
  g_autoptr(GPtrArray) binds = g_ptr_array_new_with_free_func ((GDestroyNotify) g_variant_unref);
  g_autoptr(sqlite3_stmt) stmt = NULL;
  g_autofree char *sql = NULL;
  int rc;

  sql = _lumo_audit_query_build_stats_sql (query, part, indexed_to, group_expr (group), binds);
  if (!(stmt = _lumo_audit_prepare_bound (db, sql, binds, error)))
    return FALSE;

  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      const char *key = (const char *) sqlite3_column_text (stmt, 0);
      const char *name = (const char *) sqlite3_column_text (stmt, 5);
      gint64 name_id = sqlite3_column_int64 (stmt, 6);
      Group *g;

      /* An aggregate over no rows still answers one row of NULLs. */
      if (sqlite3_column_int64 (stmt, 1) == 0)
        continue;

      g = g_hash_table_lookup (groups, key != NULL ? key : "");
      if (g == NULL)
        {
          g = g_new0 (Group, 1);
          g->stats.key = g_strdup (key);
          g_hash_table_insert (groups, g_strdup (key != NULL ? key : ""), g);
        }
      g->stats.total += sqlite3_column_int64 (stmt, 1);
      g->stats.allowed += sqlite3_column_int64 (stmt, 2);
      g->stats.denied += sqlite3_column_int64 (stmt, 3);
      g->stats.failed += sqlite3_column_int64 (stmt, 4);
      if (group == LUMO_AUDIT_GROUP_CALLER && name_id > g->name_id)
        {
          g_free (g->stats.name);
          g->stats.name = g_strdup (name != NULL ? name : "");
          g->name_id = name_id;
        }
    }

  if (rc != SQLITE_DONE)
    {
      _lumo_audit_set_step_error (error, db, rc, cancellable, "Cannot summarize the audit log");
      return FALSE;
    }

  return TRUE;
}

static int
compare_groups (gconstpointer a,
                gconstpointer b)
{
  const LumoAuditStats *x = *(LumoAuditStats * const *) a;
  const LumoAuditStats *y = *(LumoAuditStats * const *) b;

  return g_strcmp0 (x->key, y->key);
}

GPtrArray *
lumo_audit_store_stats (LumoAuditStore  *self,
                        LumoAuditQuery  *query,
                        LumoAuditGroup   group,
                        GCancellable    *cancellable,
                        GError         **error)
{
  g_autoptr(LumoAuditQuery) all = NULL;
  g_autoptr(GHashTable) groups = NULL;
  g_autoptr(GPtrArray) out = NULL;
  GHashTableIter iter;
  gpointer value;
  gint64 indexed_to = 0;
  LumoAuditPart first;
  gboolean ok;
  sqlite3 *db;

  g_return_val_if_fail (LUMO_IS_AUDIT_STORE (self), NULL);
  g_return_val_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if ((guint) group > LUMO_AUDIT_GROUP_DAY)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                   "The grouping %d is not none, caller, tool or day", (int) group);
      return NULL;
    }

  if (query == NULL)
    query = all = lumo_audit_query_new ();

  if (!(db = _lumo_audit_read_begin (self, cancellable, error)))
    return NULL;

  groups = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, group_free);
  first = _lumo_audit_query_first_part (query, LUMO_AUDIT_USE_STATS, LUMO_AUDIT_SORT_ID);
  if (first == LUMO_AUDIT_PART_ALL)
    ok = stats_part (db, query, LUMO_AUDIT_PART_ALL, 0, group, groups, cancellable, error);
  else if ((ok = lumo_db_exec (db, "BEGIN", error)))
    {
      gboolean has_tail = FALSE;

      /* One snapshot for the watermark and both parts. */
      ok = _lumo_audit_read_watermark (db, &indexed_to, &has_tail, error);
      ok = ok &&
           stats_part (db, query, first, indexed_to, group, groups, cancellable, error) &&
           (!has_tail ||
            stats_part (db, query, LUMO_AUDIT_PART_TAIL, indexed_to, group, groups, cancellable, error));
      lumo_db_exec (db, "COMMIT", NULL);
    }
  _lumo_audit_read_end (self, db);

  if (!ok)
    return NULL;

  out = g_ptr_array_new_with_free_func ((GDestroyNotify) lumo_audit_stats_free);
  g_hash_table_iter_init (&iter, groups);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      Group *g = value;

      g_ptr_array_add (out, lumo_audit_stats_copy (&g->stats));
    }
  if (group == LUMO_AUDIT_GROUP_NONE && out->len == 0)
    g_ptr_array_add (out, g_new0 (LumoAuditStats, 1));
  g_ptr_array_sort (out, compare_groups);

  return g_steal_pointer (&out);
}

typedef struct
{
  LumoAuditQuery *query;
  LumoAuditGroup  group;
} StatsData;

static void
stats_data_free (gpointer data)
{
  StatsData *sd = data;

  g_clear_pointer (&sd->query, lumo_audit_query_unref);
  g_free (sd);
}

static void
stats_thread (GTask        *task,
              gpointer      source_object,
              gpointer      task_data,
              GCancellable *cancellable)
{
  StatsData *sd = task_data;
  GError *error = NULL;
  GPtrArray *stats;

  stats = lumo_audit_store_stats (source_object, sd->query, sd->group, cancellable, &error);
  if (stats != NULL)
    g_task_return_pointer (task, stats, (GDestroyNotify) g_ptr_array_unref);
  else
    g_task_return_error (task, error);
}

void
lumo_audit_store_stats_async (LumoAuditStore      *self,
                              LumoAuditQuery      *query,
                              LumoAuditGroup       group,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  StatsData *sd;

  g_return_if_fail (LUMO_IS_AUDIT_STORE (self));

  sd = g_new0 (StatsData, 1);
  sd->query = query != NULL ? lumo_audit_query_ref (query) : NULL;
  sd->group = group;

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, lumo_audit_store_stats_async);
  g_task_set_task_data (task, sd, stats_data_free);
  g_task_run_in_thread (task, stats_thread);
}

GPtrArray *
lumo_audit_store_stats_finish (LumoAuditStore  *self,
                               GAsyncResult    *result,
                               GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == lumo_audit_store_stats_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
