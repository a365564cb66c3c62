/* lumo-audit-query-sql.c — a parsed query as SQL with bound values only
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-audit"

#include "config.h"

#include <string.h>

#include "lumo-audit-query.h"
#include "lumo-audit-query-private.h"
#include "lumo-error.h"

#define FTS_TABLE "audit_fts"

static void
bind_str (GPtrArray  *binds,
          const char *s)
{
  g_ptr_array_add (binds, g_variant_ref_sink (g_variant_new_string (s)));
}

static void
bind_int (GPtrArray *binds,
          gint64     v)
{
  g_ptr_array_add (binds, g_variant_ref_sink (g_variant_new_int64 (v)));
}

static void
bind_bytes (GPtrArray *binds,
            GBytes    *bytes)
{
  g_ptr_array_add (binds, g_variant_ref_sink (g_variant_new_from_bytes (G_VARIANT_TYPE_BYTESTRING,
                                                                         bytes, TRUE)));
}

/* The index is FTS5 with the trigram tokenizer and detail=none (a quarter
 * of the size of detail=full, and under half the insert cost), which knows
 * which rows hold a trigram but not where. A term is looked up as the AND of
 * its trigrams, each quoted (quotes doubled, as FTS5 requires); that finds
 * every row that contains the term and perhaps a few that hold the same
 * trigrams apart, so append_filters() re-checks with LIKE every term the
 * trigrams alone do not prove: longer than three characters, or limited to
 * one column. The FTS5 text is bound as a value like everything else. */
static gboolean
needs_recheck (const LumoAuditTerm *term)
{
  return term->scan || term->kind != LUMO_AUDIT_TERM_TEXT ||
         g_utf8_strlen (term->value, -1) > LUMO_AUDIT_MIN_INDEXED_CHARS;
}

static char *
build_fts_query (const LumoAuditQuery *self)
{
  g_autoptr(GString) q = g_string_new (NULL);

  for (guint i = 0; i < self->terms->len; i++)
    {
      const LumoAuditTerm *term = g_ptr_array_index (self->terms, i);

      if (term->scan)
        continue;

      for (const char *start = term->value; *start; start = g_utf8_next_char (start))
        {
          const char *end = start;

          for (guint k = 0; k < LUMO_AUDIT_MIN_INDEXED_CHARS && *end; k++)
            end = g_utf8_next_char (end);
          if (g_utf8_strlen (start, end - start) < LUMO_AUDIT_MIN_INDEXED_CHARS)
            break;

          if (q->len > 0)
            g_string_append (q, " AND ");
          g_string_append_c (q, '"');
          for (const char *p = start; p < end; p++)
            {
              if (*p == '"')
                g_string_append_c (q, '"');
              g_string_append_c (q, *p);
            }
          g_string_append_c (q, '"');
        }
    }

  return q->len > 0 ? g_string_free (g_steal_pointer (&q), FALSE) : NULL;
}

static char *
like_pattern (const char *value)
{
  GString *p = g_string_new ("%");

  for (const char *c = value; *c; c++)
    {
      if (*c == '%' || *c == '_' || *c == '\\')
        g_string_append_c (p, '\\');
      g_string_append_c (p, *c);
    }
  g_string_append_c (p, '%');

  return g_string_free (p, FALSE);
}

/* The conditions on the audit table (alias a). */
static void
append_filters (const LumoAuditQuery *self,
                GString              *sql,
                const char           *id_column,
                gboolean              for_page,
                GPtrArray            *binds)
{
  for (guint i = 0; i < self->terms->len; i++)
    {
      const LumoAuditTerm *term = g_ptr_array_index (self->terms, i);
      g_autofree char *pattern = NULL;

      if (!needs_recheck (term))
        continue;

      pattern = like_pattern (term->value);
      if (term->kind == LUMO_AUDIT_TERM_TOOL)
        {
          g_string_append (sql, " AND a.tool LIKE ? ESCAPE '\\'");
          bind_str (binds, pattern);
        }
      else if (term->kind == LUMO_AUDIT_TERM_CALLER)
        {
          g_string_append (sql, " AND (a.caller_id LIKE ? ESCAPE '\\' OR a.caller_name LIKE ? ESCAPE '\\')");
          bind_str (binds, pattern);
          bind_str (binds, pattern);
        }
      else
        {
          g_string_append (sql,
                           " AND (a.tool LIKE ? ESCAPE '\\' OR a.caller_id LIKE ? ESCAPE '\\'"
                           " OR a.caller_name LIKE ? ESCAPE '\\' OR a.target LIKE ? ESCAPE '\\'"
                           " OR a.result_text LIKE ? ESCAPE '\\')");
          for (guint k = 0; k < 5; k++)
            bind_str (binds, pattern);
        }
    }

  for (guint i = 0; i < self->providers->len; i++)
    {
      g_string_append (sql, " AND a.provider_id = ?");
      bind_str (binds, g_ptr_array_index (self->providers, i));
    }

  for (guint i = 0; i < self->decisions->len; i++)
    {
      g_string_append (sql, " AND a.decision = ?");
      bind_str (binds, g_ptr_array_index (self->decisions, i));
    }

  for (guint i = 0; i < self->outcomes->len; i++)
    {
      switch (g_array_index (self->outcomes, LumoAuditOutcome, i))
        {
        case LUMO_AUDIT_OUTCOME_OK:
          g_string_append (sql, " AND a.result = 'ok'");
          break;
        case LUMO_AUDIT_OUTCOME_ERROR:
          g_string_append (sql, " AND a.result = 'error'");
          break;
        case LUMO_AUDIT_OUTCOME_DENIED:
          g_string_append (sql, " AND a.decision = 'deny'");
          break;
        case LUMO_AUDIT_OUTCOME_PENDING:
        default:
          g_string_append (sql, " AND a.result IS NULL AND a.decision <> 'deny'");
          break;
        }
    }

  for (guint i = 0; i < self->params->len; i++)
    {
      g_string_append (sql, " AND a.params_hmac = ?");
      bind_bytes (binds, g_ptr_array_index (self->params, i));
    }

  /* Newest first, a scan reaches the rows after until: at once, but would
   * walk on through every row older than since: the lowest id at or after
   * since, from the time index (a walk over the rows in range only), bounds
   * it. Time and id rise together, but not strictly (imports, clock
   * changes), so the time test itself stays. The unary + keeps the planner
   * on the id order that the page needs. */
  if (self->since != 0)
    {
      if (for_page)
        {
          g_string_append_printf (sql, " AND %s >= (SELECT coalesce (min (id), 9223372036854775807)"
                                       " FROM audit INDEXED BY audit_time WHERE time_us >= ?)",
                                  id_column);
          bind_int (binds, self->since);
          g_string_append (sql, " AND +a.time_us >= ?");
        }
      else
        g_string_append (sql, " AND a.time_us >= ?");
      bind_int (binds, self->since);
    }

  if (self->until != 0)
    {
      g_string_append (sql, for_page ? " AND +a.time_us < ?" : " AND a.time_us < ?");
      bind_int (binds, self->until);
    }
}

char *
lumo_audit_query_build_page_sql (const LumoAuditQuery *self,
                                 const char           *columns,
                                 gint64                before_id,
                                 guint                 limit,
                                 GPtrArray            *binds)
{
  g_autoptr(GString) sql = g_string_new ("SELECT ");
  g_autofree char *fts = NULL;
  const char *id_column;

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (columns != NULL, NULL);
  g_return_val_if_fail (binds != NULL, NULL);

  fts = build_fts_query (self);
  g_string_append (sql, columns);

  /* With an index term, FTS5 drives the loop newest first (it consumes
   * ORDER BY rowid DESC and the rowid bounds), and each hit is joined to
   * its row by primary key. */
  if (fts != NULL)
    {
      id_column = FTS_TABLE ".rowid";
      g_string_append (sql, " FROM " FTS_TABLE " JOIN audit a ON a.id = " FTS_TABLE ".rowid"
                            " WHERE " FTS_TABLE " MATCH ?");
      bind_str (binds, fts);
    }
  else
    {
      id_column = "a.id";
      g_string_append (sql, " FROM audit a WHERE 1");
    }

  if (before_id > 0)
    {
      g_string_append_printf (sql, " AND %s < ?", id_column);
      bind_int (binds, before_id);
    }

  append_filters (self, sql, id_column, TRUE, binds);

  g_string_append_printf (sql, " ORDER BY %s DESC LIMIT ?", id_column);
  bind_int (binds, limit);

  return g_string_free (g_steal_pointer (&sql), FALSE);
}

char *
lumo_audit_query_build_count_sql (const LumoAuditQuery *self,
                                  GPtrArray            *binds)
{
  g_autoptr(GString) sql = g_string_new ("SELECT count(*)");
  g_autofree char *fts = NULL;
  g_autoptr(GString) filters = g_string_new (NULL);

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (binds != NULL, NULL);

  fts = build_fts_query (self);

  if (fts != NULL)
    {
      g_autoptr(GPtrArray) filter_binds = g_ptr_array_new_with_free_func ((GDestroyNotify) g_variant_unref);

      append_filters (self, filters, FTS_TABLE ".rowid", FALSE, filter_binds);
      /* Only the index is needed when nothing filters on row columns. */
      if (filters->len == 0)
        g_string_append (sql, " FROM " FTS_TABLE " WHERE " FTS_TABLE " MATCH ?");
      else
        g_string_append (sql, " FROM " FTS_TABLE " JOIN audit a ON a.id = " FTS_TABLE ".rowid"
                              " WHERE " FTS_TABLE " MATCH ?");
      bind_str (binds, fts);
      g_string_append_len (sql, filters->str, filters->len);
      for (guint i = 0; i < filter_binds->len; i++)
        g_ptr_array_add (binds, g_variant_ref (g_ptr_array_index (filter_binds, i)));
    }
  else
    {
      g_string_append (sql, " FROM audit a WHERE 1");
      append_filters (self, sql, "a.id", FALSE, binds);
    }

  return g_string_free (g_steal_pointer (&sql), FALSE);
}

gboolean
lumo_audit_query_bind (sqlite3_stmt  *stmt,
                       GPtrArray     *binds,
                       GError       **error)
{
  g_return_val_if_fail (stmt != NULL, FALSE);
  g_return_val_if_fail (binds != NULL, FALSE);

  for (guint i = 0; i < binds->len; i++)
    {
      GVariant *v = g_ptr_array_index (binds, i);
      int rc;

      if (g_variant_is_of_type (v, G_VARIANT_TYPE_INT64))
        rc = sqlite3_bind_int64 (stmt, i + 1, g_variant_get_int64 (v));
      else if (g_variant_is_of_type (v, G_VARIANT_TYPE_STRING))
        rc = sqlite3_bind_text (stmt, i + 1, g_variant_get_string (v, NULL), -1, SQLITE_TRANSIENT);
      else
        {
          gsize len = 0;
          gconstpointer data = g_variant_get_fixed_array (v, &len, 1);

          g_assert (g_variant_is_of_type (v, G_VARIANT_TYPE_BYTESTRING));
          rc = sqlite3_bind_blob (stmt, i + 1, data, (int) len, SQLITE_TRANSIENT);
        }

      if (rc != SQLITE_OK)
        {
          g_set_error (error, LUMO_ERROR, LUMO_ERROR_DB,
                       "Cannot bind search value %u: %s", i + 1, sqlite3_errstr (rc));
          return FALSE;
        }
    }

  return TRUE;
}
