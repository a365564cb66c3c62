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
/* Terms up to this long are looked up by every trigram (see
 * build_fts_query()). */
#define COVER_ALL_MAX_CHARS 5

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
 * trigrams apart, so append_filters() re-checks (lumo_audit_contains) every term the
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
      glong n_chars;

      if (term->scan)
        continue;

      /* Every third trigram and the last one cover every character of the
       * term: the rows that hold all of them are the rows the re-check
       * (needs_recheck(): every term of four or more characters) tests.
       * For a long term the trigrams in between would narrow that little,
       * but each one is another doclist to walk, and common ones (the
       * "-4" of every UUID) cost most of a slow search. A term of up to
       * COVER_ALL_MAX_CHARS takes every trigram: its cover is two that
       * share a character, both often common (a UUID's "85-" and "-43"
       * are in 15,000 and 70,000 of 1,000,000 rows), and the one between
       * them cuts the rows the re-check must read by a factor of 3
       * there (docs/PERFORMANCE.md). */
      n_chars = g_utf8_strlen (term->value, -1);
      for (glong c = 0; c + LUMO_AUDIT_MIN_INDEXED_CHARS <= n_chars; c++)
        {
          const char *start, *end;

          if (n_chars > COVER_ALL_MAX_CHARS && c % LUMO_AUDIT_MIN_INDEXED_CHARS != 0 &&
              c + LUMO_AUDIT_MIN_INDEXED_CHARS != n_chars)
            continue;

          start = g_utf8_offset_to_pointer (term->value, c);
          end = g_utf8_offset_to_pointer (start, LUMO_AUDIT_MIN_INDEXED_CHARS);

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

/* ---- case-insensitive containment, folded as the index folds ---------------
 *
 * FTS5's trigram tokenizer (case_sensitive=0) folds every code point by its
 * simple lowercase mapping; LIKE folds ASCII only, so a re-check with LIKE
 * dropped "ÉCOLE" for "école" that the index had found. lumo_audit_contains
 * (needle, haystack...) folds with g_unichar_tolower(), the same per-code-
 * point mapping (GLib's Unicode tables are newer than SQLite's, so a few
 * recent scripts fold here and not in the index: the index stays the
 * stricter of the two, and no row is found by one and refused by the
 * other for any script both know). The needle comes folded from the query
 * builder. */

#define FOLD_STACK 256

/* Folds @len bytes of valid UTF-8 into @buf (or a new array when it does
 * not fit); returns the array and its length in @n_out. */
static gunichar *
fold_ucs4 (const char *text,
           gssize      len,
           gunichar   *buf,
           gsize       buf_len,
           gsize      *n_out)
{
  const char *end = text + len;
  gsize n = 0;
  gunichar *out = buf;
  gsize cap = buf_len;

  for (const char *p = text; p < end; p = g_utf8_next_char (p))
    {
      if (n == cap)
        {
          gsize new_cap = MAX (cap * 2, 64);

          if (out == buf)
            {
              out = g_new (gunichar, new_cap);
              if (n > 0)
                memcpy (out, buf, n * sizeof (gunichar));
            }
          else
            out = g_renew (gunichar, out, new_cap);
          cap = new_cap;
        }
      out[n++] = g_unichar_tolower (g_utf8_get_char (p));
    }

  *n_out = n;
  return out;
}

static gboolean
ucs4_contains (const gunichar *hay,
               gsize           n_hay,
               const gunichar *needle,
               gsize           n_needle)
{
  if (n_needle > n_hay)
    return FALSE;

  for (gsize i = 0; i + n_needle <= n_hay; i++)
    if (hay[i] == needle[0] && memcmp (hay + i, needle, n_needle * sizeof (gunichar)) == 0)
      return TRUE;

  return FALSE;
}

static gboolean
is_ascii (const guchar *s,
          int           len)
{
  for (int i = 0; i < len; i++)
    if (s[i] >= 0x80)
      return FALSE;
  return TRUE;
}

/* ASCII haystack, ASCII needle (already lowercase): no decoding. */
static gboolean
ascii_contains (const guchar *hay,
                int           n_hay,
                const guchar *needle,
                int           n_needle)
{
  for (int i = 0; i + n_needle <= n_hay; i++)
    {
      int k = 0;

      while (k < n_needle && g_ascii_tolower (hay[i + k]) == needle[k])
        k++;
      if (k == n_needle)
        return TRUE;
    }

  return FALSE;
}

typedef struct
{
  gunichar *chars;
  gsize     n_chars;
  guchar   *ascii;     /* the folded bytes when all of it is ASCII, or NULL */
} Needle;

static void
needle_free (gpointer data)
{
  Needle *n = data;

  g_free (n->chars);
  g_free (n->ascii);
  g_free (n);
}

static void
contains_func (sqlite3_context  *ctx,
               int               argc,
               sqlite3_value   **argv)
{
  Needle *needle;
  const guchar *needle_text;
  int needle_len;

  if (argc < 2 || sqlite3_value_type (argv[0]) == SQLITE_NULL)
    {
      sqlite3_result_int (ctx, 0);
      return;
    }

  needle_text = sqlite3_value_text (argv[0]);
  needle_len = sqlite3_value_bytes (argv[0]);
  if (needle_text == NULL || !g_utf8_validate ((const char *) needle_text, needle_len, NULL))
    {
      sqlite3_result_int (ctx, 0);
      return;
    }

  /* The needle is the same for every row of a statement. */
  needle = sqlite3_get_auxdata (ctx, 0);
  if (needle == NULL)
    {
      needle = g_new0 (Needle, 1);
      needle->chars = fold_ucs4 ((const char *) needle_text, needle_len, NULL, 0,
                                 &needle->n_chars);
      if (is_ascii (needle_text, needle_len))
        {
          needle->ascii = g_malloc (needle->n_chars + 1);
          for (gsize k = 0; k < needle->n_chars; k++)
            needle->ascii[k] = (guchar) needle->chars[k];
        }
      sqlite3_set_auxdata (ctx, 0, needle, needle_free);
      if ((needle = sqlite3_get_auxdata (ctx, 0)) == NULL)
        {
          sqlite3_result_error_nomem (ctx);
          return;
        }
    }

  if (needle->n_chars == 0)
    {
      sqlite3_result_int (ctx, 1);
      return;
    }

  for (int i = 1; i < argc; i++)
    {
      const guchar *hay;
      int hay_len;
      gunichar stack[FOLD_STACK];
      g_autofree gunichar *heap = NULL;
      gunichar *chars;
      gsize n_chars;
      gboolean found;

      if (sqlite3_value_type (argv[i]) == SQLITE_NULL)
        continue;
      hay = sqlite3_value_text (argv[i]);
      hay_len = sqlite3_value_bytes (argv[i]);
      if (hay == NULL || hay_len < (int) needle->n_chars)
        continue;

      if (needle->ascii != NULL && is_ascii (hay, hay_len))
        found = ascii_contains (hay, hay_len, needle->ascii, (int) needle->n_chars);
      else
        {
          /* Stored text is validated UTF-8; anything else cannot match. */
          if (!g_utf8_validate ((const char *) hay, hay_len, NULL))
            continue;
          chars = fold_ucs4 ((const char *) hay, hay_len, stack, FOLD_STACK, &n_chars);
          if (chars != stack)
            heap = chars;
          found = ucs4_contains (chars, n_chars, needle->chars, needle->n_chars);
        }

      if (found)
        {
          sqlite3_result_int (ctx, 1);
          return;
        }
    }

  sqlite3_result_int (ctx, 0);
}

gboolean
_lumo_audit_query_register_functions (sqlite3  *db,
                                      GError  **error)
{
  int rc;

  g_return_val_if_fail (db != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  rc = sqlite3_create_function_v2 (db, "lumo_audit_contains", -1,
                                   SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
                                   NULL, contains_func, NULL, NULL, NULL);
  if (rc != SQLITE_OK)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_DB,
                   "Cannot register the audit search function: %s", sqlite3_errstr (rc));
      return FALSE;
    }

  return TRUE;
}

/* The needle as lumo_audit_contains() wants it: folded the same way. */
static char *
fold_needle (const char *value)
{
  GString *out = g_string_sized_new (strlen (value));

  for (const char *p = value; *p; p = g_utf8_next_char (p))
    g_string_append_unichar (out, g_unichar_tolower (g_utf8_get_char (p)));

  return g_string_free (out, FALSE);
}

gboolean
_lumo_audit_query_uses_index (const LumoAuditQuery *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  for (guint i = 0; i < self->terms->len; i++)
    if (!((const LumoAuditTerm *) g_ptr_array_index (self->terms, i))->scan)
      return TRUE;

  return FALSE;
}

/* The smallest id of a row at or after @1 (and @2, the same time): from
 * audit_order's time index and from the rows above the watermark, in one
 * statement and so one snapshot. Every entry of audit_order is a row with
 * that row's time, so the first half needs no bound of its own. min (+id),
 * not min (id): the latter lets SQLite walk audit_order in rowid order
 * from its oldest row until one is recent enough (most of the table for
 * since:1d) instead of the time index's range. Retention wants the
 * opposite (LUMO_AUDIT_FIRST_KEPT_SQL): its cutoff is old, so the walk
 * stops at once where the range would be every row kept. */
#define SINCE_BOUND_SQL \
  "(SELECT coalesce (min (m), 9223372036854775807) FROM (" \
  "SELECT min (+id) AS m FROM audit_order WHERE time_us >= ?" \
  " UNION ALL SELECT min (id) FROM audit" \
  " WHERE id > (SELECT indexed_to FROM audit_fts_state) AND +time_us >= ?))"

LumoAuditPart
_lumo_audit_query_first_part (const LumoAuditQuery *self,
                              LumoAuditUse          use,
                              LumoAuditSortKey      key)
{
  gboolean narrows;

  g_return_val_if_fail (self != NULL, LUMO_AUDIT_PART_ALL);

  if (_lumo_audit_query_uses_index (self))
    return LUMO_AUDIT_PART_INDEXED;

  narrows = self->since != 0 || self->until != 0 || self->params->len > 0;
  switch (use)
    {
    case LUMO_AUDIT_USE_PAGE:
      /* By id, since: alone bounds the scan of every row (SINCE_BOUND_SQL). */
      return key != LUMO_AUDIT_SORT_ID || self->params->len > 0 ? LUMO_AUDIT_PART_ORDERED
                                                               : LUMO_AUDIT_PART_ALL;
    case LUMO_AUDIT_USE_COUNT:
      /* Every row: audit_order's smallest index counts them. */
      return narrows || lumo_audit_query_is_empty (self) ? LUMO_AUDIT_PART_ORDERED
                                                         : LUMO_AUDIT_PART_ALL;
    case LUMO_AUDIT_USE_STATS:
    default:
      return narrows ? LUMO_AUDIT_PART_ORDERED : LUMO_AUDIT_PART_ALL;
    }
}

/* The conditions on the row (alias a; in the ordered part the time and
 * params tests are on its audit_order entry, alias o, whose indexes they
 * can use). In the tail every term is re-checked: those rows are not in
 * the index. @plain_time: the time bounds may use a time index; else they
 * are written +….time_us, which keeps the planner on the order a page
 * needs. Sets @uses_row when a condition reads a column of the row
 * itself. */
static void
append_filters (const LumoAuditQuery *self,
                GString              *sql,
                const char           *id_column,
                gboolean              for_page,
                gboolean              plain_time,
                LumoAuditPart         part,
                GPtrArray            *binds,
                gboolean             *uses_row)
{
  gboolean o = part == LUMO_AUDIT_PART_ORDERED;
  const char *time_column = for_page && !plain_time ? (o ? "+o.time_us" : "+a.time_us")
                                                    : (o ? "o.time_us" : "a.time_us");
  gboolean row = FALSE;

  for (guint i = 0; i < self->terms->len; i++)
    {
      const LumoAuditTerm *term = g_ptr_array_index (self->terms, i);
      g_autofree char *needle = NULL;

      if (part != LUMO_AUDIT_PART_TAIL && !needs_recheck (term))
        continue;

      needle = fold_needle (term->value);
      if (term->kind == LUMO_AUDIT_TERM_TOOL)
        g_string_append (sql, " AND lumo_audit_contains (?, a.tool)");
      else if (term->kind == LUMO_AUDIT_TERM_CALLER)
        g_string_append (sql, " AND lumo_audit_contains (?, a.caller_id, a.caller_name)");
      else
        g_string_append (sql, " AND lumo_audit_contains (?, a.tool, a.caller_id, a.caller_name,"
                              " a.target, a.result_text)");
      bind_str (binds, needle);
      row = TRUE;
    }

  for (guint i = 0; i < self->providers->len; i++)
    {
      g_string_append (sql, " AND a.provider_id = ?");
      bind_str (binds, g_ptr_array_index (self->providers, i));
      row = TRUE;
    }

  for (guint i = 0; i < self->decisions->len; i++)
    {
      g_string_append (sql, " AND a.decision = ?");
      bind_str (binds, g_ptr_array_index (self->decisions, i));
      row = TRUE;
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
      row = TRUE;
    }

  for (guint i = 0; i < self->params->len; i++)
    {
      g_string_append (sql, o ? " AND o.params_hmac = ?" : " AND a.params_hmac = ?");
      bind_bytes (binds, g_ptr_array_index (self->params, i));
      row = row || !o;
    }

  for (guint i = 0; i < self->kinds->len; i++)
    {
      g_string_append (sql, " AND a.caller_kind = ?");
      bind_str (binds, g_ptr_array_index (self->kinds, i));
      row = TRUE;
    }

  for (guint i = 0; i < self->grants->len; i++)
    {
      g_string_append (sql, g_array_index (self->grants, gboolean, i) ? " AND a.by_grant = 1"
                                                                     : " AND a.by_grant = 0");
      row = TRUE;
    }

  /* Newest first, a scan reaches the rows after until: at once, but would
   * walk on through every row older than since: the lowest id at or after
   * since (SINCE_BOUND_SQL: a walk over the rows in range only) bounds
   * it. Time and id rise together, but not strictly (imports, clock
   * changes), so the time test itself stays. A page by time in the
   * ordered part has its range in the time index already. */
  if (self->since != 0)
    {
      if (for_page && !(o && plain_time))
        {
          g_string_append_printf (sql, " AND %s >= " SINCE_BOUND_SQL, id_column);
          bind_int (binds, self->since);
          bind_int (binds, self->since);
        }
      g_string_append_printf (sql, " AND %s >= ?", time_column);
      bind_int (binds, self->since);
      row = row || !o;
    }

  if (self->until != 0)
    {
      g_string_append_printf (sql, " AND %s < ?", time_column);
      bind_int (binds, self->until);
      row = row || !o;
    }

  if (uses_row != NULL)
    *uses_row = row;
}

/* FROM and WHERE for @part: the index drives the loop of the indexed
 * part (CROSS JOIN keeps it outermost when the order is not the index's
 * rowid order), the table that of the others. Returns the id column. */
/* @below: > 0 to bound the ids of the indexed part under it as well, in
 * the one rowid bound FTS5 takes (given two upper bounds it walks the
 * doclist from the higher one). */
static const char *
append_from_below (const LumoAuditQuery *self,
                   GString              *sql,
                   LumoAuditPart         part,
                   gint64                indexed_to,
                   gboolean              id_order,
                   gint64                below,
                   GPtrArray            *binds)
{
  const char *id_column = "a.id";

  if (part == LUMO_AUDIT_PART_INDEXED)
    {
      g_autofree char *fts = build_fts_query (self);

      g_assert (fts != NULL);
      id_column = FTS_TABLE ".rowid";
      g_string_append_printf (sql, " FROM " FTS_TABLE " %s audit a ON a.id = " FTS_TABLE ".rowid"
                                   " WHERE " FTS_TABLE " MATCH ? AND " FTS_TABLE ".rowid <= ?",
                              id_order ? "JOIN" : "CROSS JOIN");
      bind_str (binds, fts);
      bind_int (binds, below > 0 ? MIN (indexed_to, below - 1) : indexed_to);
    }
  else if (part == LUMO_AUDIT_PART_ORDERED)
    {
      /* audit_order drives the loop in its index's order; each entry is
       * joined to its row by primary key. */
      id_column = "o.id";
      g_string_append (sql, " FROM audit_order o CROSS JOIN audit a ON a.id = o.id WHERE +o.id <= ?");
      bind_int (binds, indexed_to);
    }
  else
    {
      g_string_append (sql, " FROM audit a WHERE 1");
      if (part == LUMO_AUDIT_PART_TAIL)
        {
          g_string_append (sql, " AND a.id > ?");
          bind_int (binds, indexed_to);
        }
    }

  return id_column;
}

static const char *
append_from (const LumoAuditQuery *self,
             GString              *sql,
             LumoAuditPart         part,
             gint64                indexed_to,
             gboolean              id_order,
             GPtrArray            *binds)
{
  return append_from_below (self, sql, part, indexed_to, id_order, 0, binds);
}

/* The key columns of @key before the id: over audit_order (alias o) in
 * the ordered part, else over alias a. */
static guint
sort_columns (LumoAuditSortKey   key,
              LumoAuditPart      part,
              const char       **columns)
{
  gboolean o = part == LUMO_AUDIT_PART_ORDERED;

  switch (key)
    {
    case LUMO_AUDIT_SORT_TIME:
      columns[0] = o ? "o.time_us" : "a.time_us";
      return 1;
    case LUMO_AUDIT_SORT_CALLER:
      columns[0] = o ? "o.caller_name" : "a.caller_name";
      columns[1] = o ? "o.caller_id" : "a.caller_id";
      return 2;
    case LUMO_AUDIT_SORT_TOOL:
      columns[0] = o ? "o.tool" : "a.tool";
      return 1;
    case LUMO_AUDIT_SORT_OUTCOME:
      columns[0] = o ? "o.outcome" : LUMO_AUDIT_OUTCOME_SQL;
      return 1;
    case LUMO_AUDIT_SORT_ID:
    default:
      return 0;
    }
}

static void
bind_sort_values (LumoAuditSortKey  key,
                  LumoAuditRow     *row,
                  GPtrArray        *binds)
{
  switch (key)
    {
    case LUMO_AUDIT_SORT_TIME:
      bind_int (binds, lumo_audit_row_get_time_us (row));
      break;
    case LUMO_AUDIT_SORT_CALLER:
      bind_str (binds, lumo_audit_row_get_caller_name (row));
      bind_str (binds, lumo_audit_row_get_caller_id (row));
      break;
    case LUMO_AUDIT_SORT_TOOL:
      bind_str (binds, lumo_audit_row_get_tool (row));
      break;
    case LUMO_AUDIT_SORT_OUTCOME:
      bind_int (binds, lumo_audit_row_get_outcome (row));
      break;
    case LUMO_AUDIT_SORT_ID:
    default:
      break;
    }
  bind_int (binds, lumo_audit_row_get_id (row));
}

char *
_lumo_audit_query_build_page_sql (const LumoAuditQuery    *self,
                                  const char              *columns,
                                  LumoAuditPart            part,
                                  gint64                   indexed_to,
                                  const LumoAuditPageSpec *spec,
                                  guint                    limit,
                                  GPtrArray               *binds)
{
  g_autoptr(GString) sql = g_string_new ("SELECT ");
  const char *keys[2];
  const char *dir;
  const char *id_column;
  guint n_keys;

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (columns != NULL, NULL);
  g_return_val_if_fail (spec != NULL, NULL);
  g_return_val_if_fail (binds != NULL, NULL);

  n_keys = sort_columns (spec->key, part, keys);
  dir = spec->order == LUMO_AUDIT_SORT_ASCENDING ? "ASC" : "DESC";

  g_string_append (sql, columns);
  /* In id order the index hands out its hits newest first (FTS5 consumes
   * ORDER BY rowid and the rowid bounds), each joined to its row by
   * primary key; in another order the hits are sorted. */
  id_column = append_from_below (self, sql, part, indexed_to, spec->key == LUMO_AUDIT_SORT_ID,
                                 spec->key != LUMO_AUDIT_SORT_ID ||
                                 spec->order != LUMO_AUDIT_SORT_DESCENDING ? 0 :
                                 spec->after != NULL ? lumo_audit_row_get_id (spec->after) : spec->after_id,
                                 binds);

  /* Keyset: after the last row of the previous page, as a row value, so
   * that ties on the key are broken by the id. */
  if (spec->after != NULL)
    {
      g_string_append (sql, " AND (");
      for (guint i = 0; i < n_keys; i++)
        g_string_append_printf (sql, "%s, ", keys[i]);
      g_string_append_printf (sql, "%s) %s (", id_column,
                              spec->order == LUMO_AUDIT_SORT_ASCENDING ? ">" : "<");
      for (guint i = 0; i < n_keys; i++)
        g_string_append (sql, "?, ");
      g_string_append (sql, "?)");
      bind_sort_values (spec->key, spec->after, binds);
    }
  else if (spec->key == LUMO_AUDIT_SORT_ID && spec->after_id > 0)
    {
      g_string_append_printf (sql, " AND %s %s ?", id_column,
                              spec->order == LUMO_AUDIT_SORT_ASCENDING ? ">" : "<");
      bind_int (binds, spec->after_id);
    }

  /* In the ordered part the sort's own index leads, or the params one
   * for a page by id; by time, the time bounds are that index's range. */
  append_filters (self, sql, id_column, TRUE,
                  part == LUMO_AUDIT_PART_ORDERED ? spec->key == LUMO_AUDIT_SORT_TIME
                                                  : spec->key != LUMO_AUDIT_SORT_ID,
                  part, binds, NULL);

  g_string_append (sql, " ORDER BY ");
  for (guint i = 0; i < n_keys; i++)
    g_string_append_printf (sql, "%s %s, ", keys[i], dir);
  g_string_append_printf (sql, "%s %s LIMIT ?", id_column, dir);
  bind_int (binds, limit);

  return g_string_free (g_steal_pointer (&sql), FALSE);
}

char *
_lumo_audit_query_build_count_sql (const LumoAuditQuery *self,
                                   LumoAuditPart         part,
                                   gint64                indexed_to,
                                   GPtrArray            *binds)
{
  g_autoptr(GString) sql = g_string_new ("SELECT count(*)");
  g_autoptr(GString) filters = g_string_new (NULL);
  g_autoptr(GPtrArray) filter_binds = g_ptr_array_new_with_free_func ((GDestroyNotify) g_variant_unref);
  const char *id_column = part == LUMO_AUDIT_PART_INDEXED ? FTS_TABLE ".rowid" :
                          part == LUMO_AUDIT_PART_ORDERED ? "o.id" : "a.id";
  gboolean uses_row = FALSE;

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (binds != NULL, NULL);

  append_filters (self, filters, id_column, FALSE, TRUE, part, filter_binds, &uses_row);

  /* Only the index is needed when nothing filters on row columns. */
  if (part == LUMO_AUDIT_PART_INDEXED && filters->len == 0)
    {
      g_autofree char *fts = build_fts_query (self);

      g_string_append (sql, " FROM " FTS_TABLE " WHERE " FTS_TABLE " MATCH ? AND rowid <= ?");
      bind_str (binds, fts);
      bind_int (binds, indexed_to);
    }
  else if (part == LUMO_AUDIT_PART_ORDERED && filters->len == 0)
    {
      /* Every indexed row: a count(*) without a WHERE counts the entries
       * of audit_order's smallest index and never reads a row. The
       * catch-up moves the watermark in the transaction that fills
       * audit_order, so the second count is of none; it keeps the part
       * to its bound all the same. */
      g_string_assign (sql, "SELECT (SELECT count(*) FROM audit_order)"
                            " - (SELECT count(*) FROM audit_order WHERE id > ?)");
      bind_int (binds, indexed_to);
    }
  else if (part == LUMO_AUDIT_PART_ORDERED && !uses_row)
    {
      /* Time and params alone: audit_order's index covers them. */
      g_string_append (sql, " FROM audit_order o WHERE +o.id <= ?");
      bind_int (binds, indexed_to);
    }
  else
    append_from (self, sql, part, indexed_to, TRUE, binds);

  g_string_append_len (sql, filters->str, filters->len);
  for (guint i = 0; i < filter_binds->len; i++)
    g_ptr_array_add (binds, g_variant_ref (g_ptr_array_index (filter_binds, i)));

  return g_string_free (g_steal_pointer (&sql), FALSE);
}

char *
_lumo_audit_query_build_stats_sql (const LumoAuditQuery *self,
                                   LumoAuditPart         part,
                                   gint64                indexed_to,
                                   const char           *group_expr,
                                   GPtrArray            *binds)
{
  g_autoptr(GString) sql = NULL;

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (group_expr != NULL, NULL);
  g_return_val_if_fail (binds != NULL, NULL);

  sql = g_string_new (NULL);
  /* With max () in the select list, SQLite takes the bare column
   * a.caller_name from the row that holds the maximum: the newest name. */
  g_string_append_printf (sql, "SELECT %s, count(*), "
                               "total (a.decision <> 'deny'), total (a.decision = 'deny'), "
                               "total (a.result = 'error'), a.caller_name, max (a.id)", group_expr);
  append_from (self, sql, part, indexed_to, TRUE, binds);
  append_filters (self, sql, part == LUMO_AUDIT_PART_INDEXED ? FTS_TABLE ".rowid" :
                             part == LUMO_AUDIT_PART_ORDERED ? "o.id" : "a.id",
                  FALSE, TRUE, part, binds, NULL);
  g_string_append_printf (sql, " GROUP BY 1 ORDER BY 1");

  return g_string_free (g_steal_pointer (&sql), FALSE);
}

static int
cmp_str (const char *a,
         const char *b)
{
  int c = strcmp (a != NULL ? a : "", b != NULL ? b : "");

  return c < 0 ? -1 : c > 0;
}

static int
cmp_int (gint64 a,
         gint64 b)
{
  return a < b ? -1 : a > b;
}

int
_lumo_audit_sort_compare (LumoAuditSortKey    key,
                          LumoAuditSortOrder  order,
                          LumoAuditRow       *a,
                          LumoAuditRow       *b)
{
  int c = 0;

  /* Byte order, as SQLite's BINARY collation compares text. */
  switch (key)
    {
    case LUMO_AUDIT_SORT_TIME:
      c = cmp_int (lumo_audit_row_get_time_us (a), lumo_audit_row_get_time_us (b));
      break;
    case LUMO_AUDIT_SORT_CALLER:
      c = cmp_str (lumo_audit_row_get_caller_name (a), lumo_audit_row_get_caller_name (b));
      if (c == 0)
        c = cmp_str (lumo_audit_row_get_caller_id (a), lumo_audit_row_get_caller_id (b));
      break;
    case LUMO_AUDIT_SORT_TOOL:
      c = cmp_str (lumo_audit_row_get_tool (a), lumo_audit_row_get_tool (b));
      break;
    case LUMO_AUDIT_SORT_OUTCOME:
      c = cmp_int (lumo_audit_row_get_outcome (a), lumo_audit_row_get_outcome (b));
      break;
    case LUMO_AUDIT_SORT_ID:
    default:
      break;
    }
  if (c == 0)
    c = cmp_int (lumo_audit_row_get_id (a), lumo_audit_row_get_id (b));

  return order == LUMO_AUDIT_SORT_ASCENDING ? c : -c;
}

gboolean
_lumo_audit_query_bind (sqlite3_stmt  *stmt,
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
