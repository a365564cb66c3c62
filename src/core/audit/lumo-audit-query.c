/* lumo-audit-query.c — parsing the search language
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-audit"

#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lumo-audit-query.h"
#include "lumo-audit-query-private.h"
#include "lumo-audit-row.h"
#include "lumo-audit-secret.h"
#include "lumo-error.h"
#include "lumo-protocol.h"


G_DEFINE_BOXED_TYPE (LumoAuditQuery, lumo_audit_query, lumo_audit_query_ref, lumo_audit_query_unref)

G_DEFINE_ENUM_TYPE (LumoAuditSortKey, lumo_audit_sort_key,
  G_DEFINE_ENUM_VALUE (LUMO_AUDIT_SORT_ID, "id"),
  G_DEFINE_ENUM_VALUE (LUMO_AUDIT_SORT_TIME, "time"),
  G_DEFINE_ENUM_VALUE (LUMO_AUDIT_SORT_CALLER, "caller"),
  G_DEFINE_ENUM_VALUE (LUMO_AUDIT_SORT_TOOL, "tool"),
  G_DEFINE_ENUM_VALUE (LUMO_AUDIT_SORT_OUTCOME, "outcome"))

G_DEFINE_ENUM_TYPE (LumoAuditSortOrder, lumo_audit_sort_order,
  G_DEFINE_ENUM_VALUE (LUMO_AUDIT_SORT_DESCENDING, "descending"),
  G_DEFINE_ENUM_VALUE (LUMO_AUDIT_SORT_ASCENDING, "ascending"))

static void
term_free (gpointer data)
{
  LumoAuditTerm *term = data;

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
  self->outcomes = g_array_new (FALSE, FALSE, sizeof (LumoAuditOutcome));
  self->params = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  self->kinds = g_ptr_array_new_with_free_func (g_free);
  self->grants = g_array_new (FALSE, FALSE, sizeof (gboolean));

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
  g_ptr_array_unref (self->kinds);
  g_array_unref (self->grants);
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
         self->params->len == 0 && self->kinds->len == 0 && self->grants->len == 0 &&
         self->since == 0 && self->until == 0;
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
          LumoAuditTermKind        kind,
          char           *value)
{
  LumoAuditTerm *term;

  if (*value == '\0')
    {
      g_free (value);
      return;
    }

  term = g_new0 (LumoAuditTerm, 1);
  term->kind = kind;
  term->value = value;
  term->scan = g_utf8_strlen (value, -1) < LUMO_AUDIT_MIN_INDEXED_CHARS;
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
                   g_str_equal (name, "kind") ? "kind:agent" :
                   g_str_equal (name, "grant") ? "grant:yes" :
                   g_str_equal (name, "since") ? "since:7d" : "until:2025-01-31");
      return FALSE;
    }

  if (g_str_equal (name, "caller"))
    add_term (self, LUMO_AUDIT_TERM_CALLER, g_steal_pointer (&owned));
  else if (g_str_equal (name, "tool"))
    add_term (self, LUMO_AUDIT_TERM_TOOL, g_steal_pointer (&owned));
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
      LumoAuditOutcome outcome;

      if (!lumo_audit_outcome_from_string (value, &outcome))
        {
          g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                       "result: “%s” is not one of ok, error, denied, pending", value);
          return FALSE;
        }
      g_array_append_val (self->outcomes, outcome);
    }
  else if (g_str_equal (name, "kind"))
    {
      if (!lumo_audit_caller_kind_from_string (value, NULL))
        {
          g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                       "kind: “%s” is not one of extension, agent", value);
          return FALSE;
        }
      g_ptr_array_add (self->kinds, g_steal_pointer (&owned));
    }
  else if (g_str_equal (name, "grant"))
    {
      gboolean yes = g_ascii_strcasecmp (value, "yes") == 0;

      if (!yes && g_ascii_strcasecmp (value, "no") != 0)
        {
          g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                       "grant: “%s” is not one of yes, no", value);
          return FALSE;
        }
      g_array_append_val (self->grants, yes);
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
    "caller", "tool", "provider", "decision", "result", "params", "kind", "grant", "since",
    "until",
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
          add_term (self, LUMO_AUDIT_TERM_TEXT, read_quoted (text, &pos));
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

      add_term (self, LUMO_AUDIT_TERM_TEXT, read_word (text, &pos));
    }

  if (self->since != 0 && self->until != 0 && self->until <= self->since)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                   "until: must be later than since: (the range is empty)");
      return NULL;
    }

  return g_steal_pointer (&self);
}

