/* lumo-audit-query.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-audit"

#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lumo-audit-query.h"
#include "lumo-audit-row.h"
#include "lumo-audit-secret.h"
#include "lumo-error.h"
#include "lumo-protocol.h"

/* Trigrams need three characters; shorter values cannot use the index. */
#define MIN_INDEXED_CHARS 3

typedef enum
{
  TERM_TEXT,
  TERM_CALLER,
  TERM_TOOL,
} TermKind;

typedef struct
{
  TermKind  kind;
  char     *value;
  gboolean  scan;
} Term;

typedef enum
{
  OUTCOME_OK,
  OUTCOME_ERROR,
  OUTCOME_DENIED,
  OUTCOME_PENDING,
} Outcome;

struct _LumoAuditQuery
{
  gatomicrefcount  ref_count;
  char            *text;
  GPtrArray       *terms;       /* Term */
  GPtrArray       *providers;   /* char* */
  GPtrArray       *decisions;   /* char* (stored spelling) */
  GArray          *outcomes;    /* Outcome */
  GPtrArray       *params;      /* GBytes, 32 bytes */
  gint64           since;       /* 0: none */
  gint64           until;       /* 0: none; exclusive */
  gboolean         uses_scan;
};

G_DEFINE_BOXED_TYPE (LumoAuditQuery, lumo_audit_query, lumo_audit_query_ref, lumo_audit_query_unref)

static void
term_free (gpointer data)
{
  Term *term = data;

  g_free (term->value);
  g_free (term);
}

LumoAuditQuery *
lumo_audit_query_new (void)
{
  LumoAuditQuery *self = g_new0 (LumoAuditQuery, 1);

  g_atomic_ref_count_init (&self->ref_count);
  self->text = g_strdup ("");
  self->terms = g_ptr_array_new_with_free_func (term_free);
  self->providers = g_ptr_array_new_with_free_func (g_free);
  self->decisions = g_ptr_array_new_with_free_func (g_free);
  self->outcomes = g_array_new (FALSE, FALSE, sizeof (Outcome));
  self->params = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);

  return self;
}

LumoAuditQuery *
lumo_audit_query_ref (LumoAuditQuery *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

void
lumo_audit_query_unref (LumoAuditQuery *self)
{
  g_return_if_fail (self != NULL);

  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;

  g_free (self->text);
  g_ptr_array_unref (self->terms);
  g_ptr_array_unref (self->providers);
  g_ptr_array_unref (self->decisions);
  g_array_unref (self->outcomes);
  g_ptr_array_unref (self->params);
  g_free (self);
}

const char *
lumo_audit_query_get_text (const LumoAuditQuery *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->text;
}

gboolean
lumo_audit_query_is_empty (const LumoAuditQuery *self)
{
  g_return_val_if_fail (self != NULL, TRUE);

  return self->terms->len == 0 && self->providers->len == 0 &&
         self->decisions->len == 0 && self->outcomes->len == 0 &&
         self->params->len == 0 && self->since == 0 && self->until == 0;
}

gboolean
lumo_audit_query_uses_scan (const LumoAuditQuery *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return self->uses_scan;
}

gint64
lumo_audit_query_get_since (const LumoAuditQuery *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->since;
}

gint64
lumo_audit_query_get_until (const LumoAuditQuery *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->until;
}

/* ---- parsing ----------------------------------------------------------------- */

/* Reads a "quoted" run starting at *pos (on the quote); an unterminated
 * quote runs to the end, so a search box stays usable while typing. */
static char *
read_quoted (const char  *text,
             gsize       *pos)
{
  gsize start = *pos + 1;
  const char *end = strchr (text + start, '"');
  gsize stop = end != NULL ? (gsize) (end - text) : strlen (text);

  *pos = end != NULL ? stop + 1 : stop;
  return g_strndup (text + start, stop - start);
}

static gboolean
is_space (char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static char *
read_word (const char *text,
           gsize      *pos)
{
  gsize start = *pos;

  while (text[*pos] != '\0' && !is_space (text[*pos]))
    (*pos)++;

  return g_strndup (text + start, *pos - start);
}

static void
add_term (LumoAuditQuery *self,
          TermKind        kind,
          char           *value)
{
  Term *term;

  if (*value == '\0')
    {
      g_free (value);
      return;
    }

  term = g_new0 (Term, 1);
  term->kind = kind;
  term->value = value;
  term->scan = g_utf8_strlen (value, -1) < MIN_INDEXED_CHARS;
  self->uses_scan |= term->scan;
  g_ptr_array_add (self->terms, term);
}

static gboolean
parse_relative (const char *value,
                gint64      now_us,
                gint64     *out)
{
  static const struct { char unit; gint64 us; } units[] = {
    { 's', G_GINT64_CONSTANT (1000000) },
    { 'm', G_GINT64_CONSTANT (60000000) },
    { 'h', G_GINT64_CONSTANT (3600000000) },
    { 'd', G_GINT64_CONSTANT (86400000000) },
    { 'w', G_GINT64_CONSTANT (604800000000) },
  };
  gsize len = strlen (value);
  guint64 n;
  char *end = NULL;

  if (len < 2 || !g_ascii_isdigit (value[0]))
    return FALSE;

  for (guint i = 0; i < G_N_ELEMENTS (units); i++)
    {
      if (value[len - 1] != units[i].unit)
        continue;

      errno = 0;
      n = g_ascii_strtoull (value, &end, 10);
      if (errno != 0 || end != value + len - 1 || n > (guint64) (now_us / units[i].us))
        return FALSE;

      *out = now_us - (gint64) n * units[i].us;
      return TRUE;
    }

  return FALSE;
}

static gboolean
parse_time (const char  *filter,
            const char  *value,
            gboolean     is_until,
            gint64       now_us,
            gint64      *out,
            GError     **error)
{
  g_autoptr(GTimeZone) local = g_time_zone_new_local ();
  g_autoptr(GDateTime) dt = NULL;
  guint y, m, d;
  char tail;

  if (parse_relative (value, now_us, out))
    return TRUE;

  /* A date alone: local midnight; until: covers the whole day. */
  if (strlen (value) == 10 &&
      sscanf (value, "%4u-%2u-%2u%c", &y, &m, &d, &tail) == 3 &&
      value[4] == '-' && value[7] == '-' &&
      g_date_valid_dmy (d, m, y))
    {
      g_autoptr(GDateTime) day = g_date_time_new (local, y, m, d, 0, 0, 0);

      if (day != NULL && is_until)
        dt = g_date_time_add_days (day, 1);
      else
        dt = g_steal_pointer (&day);
    }
  else if (strchr (value, 'T') != NULL || strchr (value, 't') != NULL || strchr (value, ' ') != NULL)
    {
      dt = g_date_time_new_from_iso8601 (value, local);
    }

  if (dt == NULL)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                   "%s: “%s” is not a date (2025-01-31), a date and time "
                   "(2025-01-31T10:00) or a time ago (30m, 1h, 7d, 2w)",
                   filter, value);
      return FALSE;
    }

  *out = g_date_time_to_unix (dt) * G_USEC_PER_SEC + g_date_time_get_microsecond (dt);
  return TRUE;
}

static gboolean
apply_filter (LumoAuditQuery  *self,
              const char      *name,
              char            *value,
              gint64           now_us,
              GError         **error)
{
  g_autofree char *owned = value;

  if (*value == '\0')
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                   "%s: needs a value (for example %s)", name,
                   g_str_equal (name, "caller") ? "caller:lumo" :
                   g_str_equal (name, "tool") ? "tool:save_script" :
                   g_str_equal (name, "provider") ? "provider:<extension id>" :
                   g_str_equal (name, "decision") ? "decision:deny" :
                   g_str_equal (name, "result") ? "result:error" :
                   g_str_equal (name, "params") ? "params:<64 hex digits>" :
                   g_str_equal (name, "since") ? "since:7d" : "until:2025-01-31");
      return FALSE;
    }

  if (g_str_equal (name, "caller"))
    add_term (self, TERM_CALLER, g_steal_pointer (&owned));
  else if (g_str_equal (name, "tool"))
    add_term (self, TERM_TOOL, g_steal_pointer (&owned));
  else if (g_str_equal (name, "provider"))
    {
      if (!lumo_is_extension_id (value))
        {
          g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                       "provider: “%s” is not an extension id (32 letters a–p)", value);
          return FALSE;
        }
      g_ptr_array_add (self->providers, g_steal_pointer (&owned));
    }
  else if (g_str_equal (name, "decision"))
    {
      if (!lumo_audit_decision_from_string (value, NULL))
        {
          g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                       "decision: “%s” is not one of allow, deny, pending-review", value);
          return FALSE;
        }
      g_ptr_array_add (self->decisions, g_steal_pointer (&owned));
    }
  else if (g_str_equal (name, "result"))
    {
      static const char * const names[] = { "ok", "error", "denied", "pending" };
      Outcome outcome;

      for (outcome = OUTCOME_OK; outcome <= OUTCOME_PENDING; outcome++)
        if (g_ascii_strcasecmp (value, names[outcome]) == 0)
          break;
      if (outcome > OUTCOME_PENDING)
        {
          g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                       "result: “%s” is not one of ok, error, denied, pending", value);
          return FALSE;
        }
      g_array_append_val (self->outcomes, outcome);
    }
  else if (g_str_equal (name, "params"))
    {
      g_autofree char *lower = g_ascii_strdown (value, -1);
      guint8 *bytes = g_malloc (32);

      if (!lumo_audit_is_sha256_hex (lower) || !lumo_audit_hex_decode (lower, bytes, 32))
        {
          g_free (bytes);
          g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                       "params: “%s” is not a keyed params hash (64 hex digits)", value);
          return FALSE;
        }
      g_ptr_array_add (self->params, g_bytes_new_take (bytes, 32));
    }
  else
    {
      gboolean is_until = g_str_equal (name, "until");
      gint64 t;

      g_assert (is_until || g_str_equal (name, "since"));
      if (!parse_time (name, value, is_until, now_us, &t, error))
        return FALSE;

      /* Repeated bounds narrow the range. */
      if (is_until)
        self->until = self->until == 0 ? t : MIN (self->until, t);
      else
        self->since = MAX (self->since, t);
    }

  return TRUE;
}

static const char *
match_filter_name (const char *text,
                   gsize       pos,
                   gsize      *name_len)
{
  static const char * const filters[] = {
    "caller", "tool", "provider", "decision", "result", "params", "since", "until",
  };

  for (guint i = 0; i < G_N_ELEMENTS (filters); i++)
    {
      gsize len = strlen (filters[i]);

      if (g_ascii_strncasecmp (text + pos, filters[i], len) == 0 && text[pos + len] == ':')
        {
          *name_len = len;
          return filters[i];
        }
    }

  return NULL;
}

LumoAuditQuery *
lumo_audit_query_parse (const char  *text,
                        gint64       now_us,
                        GError     **error)
{
  g_autoptr(LumoAuditQuery) self = lumo_audit_query_new ();
  gsize pos = 0;

  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (text == NULL)
    return g_steal_pointer (&self);

  if (!g_utf8_validate (text, -1, NULL))
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                   "The search text is not valid UTF-8");
      return NULL;
    }

  if (now_us == 0)
    now_us = g_get_real_time ();

  g_free (self->text);
  self->text = g_strdup (text);

  while (text[pos] != '\0')
    {
      const char *filter;
      gsize name_len = 0;

      if (is_space (text[pos]))
        {
          pos++;
          continue;
        }

      if (text[pos] == '"')
        {
          add_term (self, TERM_TEXT, read_quoted (text, &pos));
          continue;
        }

      if ((filter = match_filter_name (text, pos, &name_len)))
        {
          char *value;

          pos += name_len + 1;
          value = text[pos] == '"' ? read_quoted (text, &pos) : read_word (text, &pos);
          if (!apply_filter (self, filter, value, now_us, error))
            return NULL;
          continue;
        }

      add_term (self, TERM_TEXT, read_word (text, &pos));
    }

  if (self->since != 0 && self->until != 0 && self->until <= self->since)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                   "until: must be later than since: (the range is empty)");
      return NULL;
    }

  return g_steal_pointer (&self);
}

/* ---- SQL ------------------------------------------------------------------------ */

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
needs_recheck (const Term *term)
{
  return term->scan || term->kind != TERM_TEXT ||
         g_utf8_strlen (term->value, -1) > MIN_INDEXED_CHARS;
}

static char *
build_fts_query (const LumoAuditQuery *self)
{
  g_autoptr(GString) q = g_string_new (NULL);

  for (guint i = 0; i < self->terms->len; i++)
    {
      const Term *term = g_ptr_array_index (self->terms, i);

      if (term->scan)
        continue;

      for (const char *start = term->value; *start; start = g_utf8_next_char (start))
        {
          const char *end = start;

          for (guint k = 0; k < MIN_INDEXED_CHARS && *end; k++)
            end = g_utf8_next_char (end);
          if (g_utf8_strlen (start, end - start) < MIN_INDEXED_CHARS)
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
      const Term *term = g_ptr_array_index (self->terms, i);
      g_autofree char *pattern = NULL;

      if (!needs_recheck (term))
        continue;

      pattern = like_pattern (term->value);
      if (term->kind == TERM_TOOL)
        {
          g_string_append (sql, " AND a.tool LIKE ? ESCAPE '\\'");
          bind_str (binds, pattern);
        }
      else if (term->kind == TERM_CALLER)
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
      switch (g_array_index (self->outcomes, Outcome, i))
        {
        case OUTCOME_OK:
          g_string_append (sql, " AND a.result = 'ok'");
          break;
        case OUTCOME_ERROR:
          g_string_append (sql, " AND a.result = 'error'");
          break;
        case OUTCOME_DENIED:
          g_string_append (sql, " AND a.decision = 'deny'");
          break;
        case OUTCOME_PENDING:
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
