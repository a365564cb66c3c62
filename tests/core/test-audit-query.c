/* test-audit-query.c — the search language, its SQL, and searching a store
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "audit-test-util.h"

#define NOW_US G_GINT64_CONSTANT (1767225600000000)   /* 2026-01-01T00:00:00Z */
#define HOUR_US G_GINT64_CONSTANT (3600000000)

/* ---- the parser ---------------------------------------------------------------- */

static LumoAuditQuery *
parse_ok (const char *text)
{
  g_autoptr(GError) error = NULL;
  LumoAuditQuery *q = lumo_audit_query_parse (text, NOW_US, &error);

  g_assert_no_error (error);
  g_assert_nonnull (q);
  return q;
}

static void
assert_parse_error (const char *text,
                    const char *needle)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(LumoAuditQuery) q = lumo_audit_query_parse (text, NOW_US, &error);

  g_assert_null (q);
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT);
  if (strstr (error->message, needle) == NULL)
    g_error ("“%s”: “%s” does not say “%s”", text, error->message, needle);
}

static void
test_parse_terms (void)
{
  g_autoptr(LumoAuditQuery) q = NULL;

  q = parse_ok (NULL);
  g_assert_true (lumo_audit_query_is_empty (q));
  g_clear_pointer (&q, lumo_audit_query_unref);
  q = parse_ok ("   ");
  g_assert_true (lumo_audit_query_is_empty (q));
  g_clear_pointer (&q, lumo_audit_query_unref);

  q = parse_ok ("script");
  g_assert_false (lumo_audit_query_is_empty (q));
  g_assert_false (lumo_audit_query_uses_scan (q));
  g_assert_cmpstr (lumo_audit_query_get_text (q), ==, "script");
  g_clear_pointer (&q, lumo_audit_query_unref);

  /* Under three characters: no trigram, a scan, and the query says so. */
  q = parse_ok ("sc");
  g_assert_true (lumo_audit_query_uses_scan (q));
  g_clear_pointer (&q, lumo_audit_query_unref);
  q = parse_ok ("script tool:ab");
  g_assert_true (lumo_audit_query_uses_scan (q));
  g_clear_pointer (&q, lumo_audit_query_unref);

  /* Characters, not bytes. */
  q = parse_ok ("中文字");
  g_assert_false (lumo_audit_query_uses_scan (q));
  g_clear_pointer (&q, lumo_audit_query_unref);

  /* Unknown prefixes are text; an unterminated quote runs to the end. */
  q = parse_ok ("12:30 \"not found");
  g_assert_false (lumo_audit_query_is_empty (q));
  g_clear_pointer (&q, lumo_audit_query_unref);

  q = parse_ok ("TOOL:save \"\"");
  g_assert_false (lumo_audit_query_is_empty (q));
}

static void
test_parse_filters (void)
{
  g_autoptr(LumoAuditQuery) q = NULL;
  g_autoptr(GTimeZone) local = g_time_zone_new_local ();
  g_autoptr(GDateTime) midnight = g_date_time_new (local, 2025, 1, 31, 0, 0, 0);
  gint64 midnight_us = g_date_time_to_unix (midnight) * G_USEC_PER_SEC;

  q = parse_ok ("since:1h");
  g_assert_cmpint (lumo_audit_query_get_since (q), ==, NOW_US - HOUR_US);
  g_assert_cmpint (lumo_audit_query_get_until (q), ==, 0);
  g_clear_pointer (&q, lumo_audit_query_unref);

  q = parse_ok ("since:7d until:30m");
  g_assert_cmpint (lumo_audit_query_get_since (q), ==, NOW_US - 7 * 24 * HOUR_US);
  g_assert_cmpint (lumo_audit_query_get_until (q), ==, NOW_US - HOUR_US / 2);
  g_clear_pointer (&q, lumo_audit_query_unref);

  q = parse_ok ("since:2w until:45s");
  g_assert_cmpint (lumo_audit_query_get_since (q), ==, NOW_US - 14 * 24 * HOUR_US);
  g_assert_cmpint (lumo_audit_query_get_until (q), ==, NOW_US - 45 * G_USEC_PER_SEC);
  g_clear_pointer (&q, lumo_audit_query_unref);

  /* A date is local midnight; until: takes in the whole day. */
  q = parse_ok ("since:2025-01-31 until:2025-01-31");
  g_assert_cmpint (lumo_audit_query_get_since (q), ==, midnight_us);
  g_assert_cmpint (lumo_audit_query_get_until (q), ==, midnight_us + 24 * HOUR_US);
  g_clear_pointer (&q, lumo_audit_query_unref);

  q = parse_ok ("since:2025-01-31T10:00:00Z until:\"2025-01-31 12:30:00+02:00\"");
  g_assert_cmpint (lumo_audit_query_get_since (q), ==, G_GINT64_CONSTANT (1738317600) * G_USEC_PER_SEC);
  g_assert_cmpint (lumo_audit_query_get_until (q), ==, G_GINT64_CONSTANT (1738319400) * G_USEC_PER_SEC);
  g_clear_pointer (&q, lumo_audit_query_unref);

  /* Repeated bounds narrow. */
  q = parse_ok ("since:2d since:1d");
  g_assert_cmpint (lumo_audit_query_get_since (q), ==, NOW_US - 24 * HOUR_US);
  g_clear_pointer (&q, lumo_audit_query_unref);

  q = parse_ok ("caller:\"Lumo Agent\" tool:save provider:" TEST_PROVIDER_ID " decision:deny "
                "decision:pending-review result:ok result:Error result:denied result:pending "
                "params:" SHA_A " params:" "9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B2B0B822CD15D6C15B0F00A08");
  g_assert_false (lumo_audit_query_is_empty (q));
}

static void
test_parse_errors (void)
{
  assert_parse_error ("tool:", "tool: needs a value");
  assert_parse_error ("caller:\"\"", "caller: needs a value");
  assert_parse_error ("provider:lumo", "provider: “lumo” is not an extension id");
  assert_parse_error ("provider:" TEST_CALLER_ID "x", "provider:");
  assert_parse_error ("decision:maybe", "decision: “maybe” is not one of allow, deny, pending-review");
  assert_parse_error ("result:great", "result: “great” is not one of ok, error, denied, pending");
  assert_parse_error ("params:abc", "params: “abc” is not a keyed params hash");
  assert_parse_error ("since:yesterday", "since: “yesterday” is not a date");
  assert_parse_error ("until:2025-02-30", "until: “2025-02-30”");
  assert_parse_error ("since:5y", "since: “5y”");
  assert_parse_error ("since:99999999999999999999d", "since:");
  assert_parse_error ("since:2025-13-01T00:00", "since:");
  assert_parse_error ("since:1h until:2h", "until: must be later than since:");
  assert_parse_error ("bad \xff utf8", "UTF-8");
}

static void
test_sql_binds_everything (void)
{
  const char *evil = "x'); DROP TABLE audit; --";
  g_autofree char *text = g_strdup_printf ("\"%s\" caller:\"%s\" tool:\"%s\" %s zz "
                                           "decision:allow result:pending since:1d kind:agent",
                                           evil, evil, evil, "ab%_\\");
  g_autoptr(LumoAuditQuery) q = parse_ok (text);
  const LumoAuditPart parts[] = { LUMO_AUDIT_PART_INDEXED, LUMO_AUDIT_PART_TAIL,
                                  LUMO_AUDIT_PART_ORDERED, LUMO_AUDIT_PART_ALL };
  const LumoAuditPageSpec specs[] = {
    { LUMO_AUDIT_SORT_ID, LUMO_AUDIT_SORT_DESCENDING, NULL, 500 },
    { LUMO_AUDIT_SORT_CALLER, LUMO_AUDIT_SORT_ASCENDING, NULL, 0 },
  };

  for (guint p = 0; p < G_N_ELEMENTS (parts); p++)
    for (guint k = 0; k < G_N_ELEMENTS (specs); k++)
      {
        g_autoptr(GPtrArray) binds = g_ptr_array_new_with_free_func ((GDestroyNotify) g_variant_unref);
        g_autoptr(GPtrArray) count_binds = g_ptr_array_new_with_free_func ((GDestroyNotify) g_variant_unref);
        g_autoptr(GPtrArray) stats_binds = g_ptr_array_new_with_free_func ((GDestroyNotify) g_variant_unref);
        g_autofree char *sql = _lumo_audit_query_build_page_sql (q, "a.id", parts[p], 42, &specs[k], 20,
                                                                 binds);
        g_autofree char *count_sql = _lumo_audit_query_build_count_sql (q, parts[p], 42, count_binds);
        g_autofree char *stats_sql = _lumo_audit_query_build_stats_sql (q, parts[p], 42, "a.tool",
                                                                        stats_binds);
        const char *sqls[] = { sql, count_sql, stats_sql };
        GPtrArray *bindss[] = { binds, count_binds, stats_binds };
        gboolean found = FALSE;

        for (guint i = 0; i < G_N_ELEMENTS (sqls); i++)
          {
            guint placeholders = 0;

            /* No user text reaches the SQL; every value is a placeholder. */
            g_assert_null (strstr (sqls[i], "DROP"));
            g_assert_null (strstr (sqls[i], "allow"));
            g_assert_null (strstr (sqls[i], "agent"));
            for (const char *c = sqls[i]; *c; c++)
              placeholders += *c == '?';
            g_assert_cmpuint (placeholders, ==, bindss[i]->len);
          }

        for (guint i = 0; i < binds->len; i++)
          {
            GVariant *v = g_ptr_array_index (binds, i);

            /* (Re-check needles are bound case-folded.) */
            if (g_variant_is_of_type (v, G_VARIANT_TYPE_STRING) &&
                (strstr (g_variant_get_string (v, NULL), "DROP TABLE") != NULL ||
                 strstr (g_variant_get_string (v, NULL), "drop table") != NULL))
              found = TRUE;
          }
        g_assert_true (found);
      }
}

/* ---- searching a store ------------------------------------------------------------- */

typedef struct
{
  const char        *tool;
  const char        *caller_id;
  const char        *caller_name;
  const char        *provider_id;
  LumoAuditDecision  decision;
  int                result;       /* -1 none, 0 error, 1 ok */
  const char        *error_text;
  gint64             hours_ago;
} Seed;

static const Seed seeds[] = {
  { "save_script", TEST_CALLER_ID, "Lumo Agent", TEST_PROVIDER_ID, LUMO_AUDIT_DECISION_ALLOW, 1, NULL, 50 },
  { "save_script", TEST_CALLER_ID, "Lumo Agent", TEST_PROVIDER_ID, LUMO_AUDIT_DECISION_ALLOW, 0, "Script not found", 40 },
  { "delete_script", TEST_CALLER2_ID, "Other Bot", TEST_PROVIDER_ID, LUMO_AUDIT_DECISION_DENY, -1, NULL, 30 },
  { "list_scripts", TEST_CALLER2_ID, "Other Bot", TEST_PROVIDER2_ID, LUMO_AUDIT_DECISION_ALLOW, -1, NULL, 20 },
  { "export_everything", TEST_CALLER_ID, "Lumo Agent", TEST_PROVIDER2_ID, LUMO_AUDIT_DECISION_PENDING_REVIEW, -1, NULL, 10 },
  { "save_script", TEST_CALLER2_ID, "Other Bot", TEST_PROVIDER_ID, LUMO_AUDIT_DECISION_ALLOW, 0, "Permission denied by page 100%", 5 },
  { "run_macro", TEST_CALLER_ID, "Lumo Agent", TEST_PROVIDER_ID, LUMO_AUDIT_DECISION_ALLOW, 1, NULL, 1 },
};

typedef struct
{
  char           *dir;
  LumoAuditStore *store;
  gint64          now;
} SearchFixture;

static void
search_set_up (SearchFixture *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  f->dir = audit_test_tmpdir ();
  f->store = audit_test_open (f->dir);
  f->now = g_get_real_time ();

  for (guint i = 0; i < G_N_ELEMENTS (seeds); i++)
    {
      const Seed *s = &seeds[i];
      LumoAuditRecord r = audit_test_record (s->tool);
      gint64 id;

      r.caller_id = s->caller_id;
      r.caller_name = s->caller_name;
      r.provider_id = s->provider_id;
      r.decision = s->decision;
      r.reason = s->decision == LUMO_AUDIT_DECISION_DENY ? "not_authorized" : NULL;
      r.time_us = f->now - s->hours_ago * HOUR_US;
      id = lumo_audit_store_append (f->store, &r, &error);
      g_assert_no_error (error);
      if (s->result >= 0)
        g_assert_true (lumo_audit_store_set_result (f->store, id, s->result == 1, s->error_text,
                                                    &error));
      g_assert_no_error (error);
    }
}

static void
search_tear_down (SearchFixture *f,
                  gconstpointer  data)
{
  g_clear_object (&f->store);
  lumo_test_dir_remove (f->dir);
  g_free (f->dir);
}

/* The ids (1-based seed positions) a search finds, newest first, as "7,6,1". */
static char *
search (SearchFixture *f,
        const char    *text,
        gboolean      *scanned)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(LumoAuditQuery) q = lumo_audit_query_parse (text, 0, &error);
  g_autoptr(GPtrArray) rows = NULL;
  g_autoptr(GString) out = g_string_new (NULL);

  g_assert_no_error (error);
  rows = lumo_audit_store_fetch_page (f->store, q, 0, 100, NULL, &error);
  g_assert_no_error (error);

  for (guint i = 0; i < rows->len; i++)
    g_string_append_printf (out, "%s%" G_GINT64_FORMAT, i ? "," : "",
                            lumo_audit_row_get_id (g_ptr_array_index (rows, i)));

  /* The count agrees with the rows. */
  g_assert_cmpint (lumo_audit_store_count (f->store, q, NULL, &error), ==, rows->len);
  if (scanned != NULL)
    *scanned = lumo_audit_query_uses_scan (q);

  return g_string_free (g_steal_pointer (&out), FALSE);
}

#define assert_search(f, text, expected) \
  G_STMT_START { \
    g_autofree char *got_ = search ((f), (text), NULL); \
    if (g_strcmp0 (got_, (expected)) != 0) \
      g_error ("search “%s”: got [%s], expected [%s]", (text), got_, (expected)); \
  } G_STMT_END

static void
test_search_substring (SearchFixture *f,
                       gconstpointer  data)
{
  gboolean scanned = TRUE;
  g_autofree char *got = NULL;

  /* 3, 5 and 10 characters, through the trigram index. */
  got = search (f, "scr", &scanned);
  g_assert_cmpstr (got, ==, "6,4,3,2,1");
  g_assert_false (scanned);
  assert_search (f, "ete_s", "3");
  assert_search (f, "Script not", "2");
  /* Case-insensitive, any field: caller name, caller id, target, text. */
  assert_search (f, "OTHER", "6,4,3");
  assert_search (f, "ponmlkjihg", "7,5,2,1");
  assert_search (f, "d9cb-469f", "7,6,5,4,3,2,1");
  assert_search (f, "denied by", "6");
  assert_search (f, "\"page 100%\"", "6");
  /* Every term must match. */
  assert_search (f, "save agent", "2,1");
  assert_search (f, "nothing_like_this", "");
}

static void
test_search_short (SearchFixture *f,
                   gconstpointer  data)
{
  gboolean scanned = FALSE;
  g_autofree char *got = NULL;

  got = search (f, "ru", &scanned);
  g_assert_true (scanned);
  g_assert_cmpstr (got, ==, "7");
  g_clear_pointer (&got, g_free);

  /* LIKE wildcards in the text are literal. */
  got = search (f, "0%", &scanned);
  g_assert_true (scanned);
  g_assert_cmpstr (got, ==, "6");
  assert_search (f, "_", "7,6,5,4,3,2,1");
  assert_search (f, "%", "6");
  /* Mixed: the long term through the index, the short one scanned. */
  assert_search (f, "script ot", "6,4,3,2");
}

/* The index folds case by Unicode's simple lowercase mapping; the re-check
 * of longer terms, the scan of short ones and the caller:/tool: filters
 * must fold the same way, or the index finds a row the re-check drops. */
static void
test_search_unicode (void)
{
  static const struct { const char *name; const char *text; } rows[] = {
    { "Éric Müller", NULL },
    { "Lumo", "Fichier ÉCOLE introuvable" },
    { "Lumo", "ОШИБКА доступа" },
  };
  SearchFixture fixture = { 0, };
  SearchFixture *f = &fixture;
  g_autoptr(GError) error = NULL;
  gboolean scanned = FALSE;
  g_autofree char *got = NULL;

  f->dir = audit_test_tmpdir ();
  f->store = audit_test_open (f->dir);
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      LumoAuditRecord r = audit_test_record ("save_script");
      gint64 id;

      r.caller_name = rows[i].name;
      id = lumo_audit_store_append (f->store, &r, &error);
      g_assert_no_error (error);
      g_assert_true (lumo_audit_store_set_result (f->store, id, rows[i].text == NULL,
                                                  rows[i].text, &error));
      g_assert_no_error (error);
    }

  /* Longer than three characters: the index, then the re-check. */
  assert_search (f, "éric", "1");
  assert_search (f, "ÉRIC MÜ", "1");
  assert_search (f, "école", "2");
  assert_search (f, "École introuVABLE", "2");
  assert_search (f, "ошибка", "3");
  assert_search (f, "ДОСТУПА", "3");
  /* Three characters: the index alone. */
  assert_search (f, "éCO", "2");
  /* Case, not accents: neither the index nor the re-check strips them. */
  assert_search (f, "ecole", "");
  assert_search (f, "eric", "");
  /* Short terms scan, and fold the same way. */
  got = search (f, "ÜL", &scanned);
  g_assert_true (scanned);
  g_assert_cmpstr (got, ==, "1");
  assert_search (f, "шИ", "3");
  /* Field filters too. */
  assert_search (f, "caller:MÜLLER", "1");
  assert_search (f, "caller:éR", "1");
  assert_search (f, "tool:SAVE_S", "3,2,1");

  search_tear_down (f, NULL);
}

static void
test_search_filters (SearchFixture *f,
                     gconstpointer  data)
{
  assert_search (f, "caller:other", "6,4,3");
  assert_search (f, "caller:" TEST_CALLER_ID, "7,5,2,1");
  assert_search (f, "caller:Lu", "7,5,2,1");
  assert_search (f, "tool:save_script", "6,2,1");
  assert_search (f, "tool:script", "6,4,3,2,1");
  assert_search (f, "tool:ma", "7");
  assert_search (f, "provider:" TEST_PROVIDER2_ID, "5,4");
  assert_search (f, "decision:deny", "3");
  assert_search (f, "decision:pending-review", "5");
  assert_search (f, "decision:allow", "7,6,4,2,1");
  assert_search (f, "result:ok", "7,1");
  assert_search (f, "result:error", "6,2");
  assert_search (f, "result:denied", "3");
  assert_search (f, "result:pending", "5,4");
  assert_search (f, "since:25h", "7,6,5,4");
  assert_search (f, "until:25h", "3,2,1");
  assert_search (f, "since:45h until:15h", "4,3,2");
  assert_search (f, "since:12h tool:save", "6");
  assert_search (f, "caller:lumo result:ok since:2h", "7");
  assert_search (f, "\"Lumo Agent\" tool:save_script result:error", "2");
  /* A filter looks only at its own field. */
  assert_search (f, "tool:agent", "");
  assert_search (f, "caller:script", "");
}

/* The index holds which rows have a trigram, not where: "abcd" must not
 * find a row that has "abc" and "bcd" apart. */
static void
test_search_trigrams_apart (void)
{
  g_autofree char *dir = audit_test_tmpdir ();
  g_autoptr(LumoAuditStore) store = audit_test_open (dir);

  audit_test_append (store, "abcxbcd");
  audit_test_append (store, "zabcdz");
  g_assert_cmpint (audit_test_count (store, "abcd"), ==, 1);
  g_assert_cmpint (audit_test_count (store, "abc"), ==, 2);
  g_assert_cmpint (audit_test_count (store, "bcd"), ==, 2);
  g_assert_cmpint (audit_test_count (store, "ABCD"), ==, 1);
  g_assert_cmpint (audit_test_count (store, "xbcd"), ==, 1);

  g_clear_object (&store);
  lumo_test_dir_remove (dir);
}

typedef struct
{
  LumoAuditStore *store;
  guint           n;
  GMutex          lock;
  GCond           cond;
  guint           appended;   /* under lock */
} AdderData;

static gpointer
adder_thread (gpointer data)
{
  AdderData *ad = data;

  for (guint i = 0; i < ad->n; i++)
    {
      audit_test_append (ad->store, i % 2 ? "page_tool_odd" : "page_tool_even");
      g_mutex_lock (&ad->lock);
      ad->appended++;
      g_cond_signal (&ad->cond);
      g_mutex_unlock (&ad->lock);
    }

  return NULL;
}

/* Until the adder has appended past @seen (or is done): so every page is
 * read with rows added since the one before. */
static guint
wait_for_append (AdderData *ad,
                 guint      seen)
{
  guint now;

  g_mutex_lock (&ad->lock);
  while (ad->appended <= seen && ad->appended < ad->n)
    g_cond_wait (&ad->cond, &ad->lock);
  now = ad->appended;
  g_mutex_unlock (&ad->lock);
  return now;
}

/* Pages while another thread appends: every row that existed when the
 * first page was read shows up exactly once, in order. */
static void
check_paging_while_adding (LumoAuditStore *store,
                           const char     *text,
                           gint64          first_id,
                           guint           expected_step)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(LumoAuditQuery) q = lumo_audit_query_parse (text, 0, &error);
  g_autoptr(GHashTable) seen = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autoptr(GArray) ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  AdderData ad = { store, 120 };
  GThread *thread;
  gint64 before = 0, top = 0;
  guint appended = 0;

  g_mutex_init (&ad.lock);
  g_cond_init (&ad.cond);

  thread = g_thread_new ("adder", adder_thread, &ad);

  for (;;)
    {
      g_autoptr(GPtrArray) page = lumo_audit_store_fetch_page (store, q, before, 37, NULL, &error);

      g_assert_no_error (error);
      for (guint i = 0; i < page->len; i++)
        {
          gint64 id = lumo_audit_row_get_id (g_ptr_array_index (page, i));

          g_assert_false (g_hash_table_contains (seen, &id));
          g_array_append_val (ids, id);
          g_hash_table_add (seen, &g_array_index (ids, gint64, ids->len - 1));
          if (top == 0)
            top = id;
          g_assert_true (before == 0 || id < before);
          before = id;
        }
      if (page->len < 37)
        break;
      appended = wait_for_append (&ad, appended);
    }

  g_thread_join (thread);
  g_mutex_clear (&ad.lock);
  g_cond_clear (&ad.cond);

  /* No gaps: every matching id from the newest of the first page down. */
  g_assert_cmpint (ids->len, >, 0);
  for (guint i = 0; i < ids->len; i++)
    g_assert_cmpint (g_array_index (ids, gint64, i), ==, top - (gint64) i * expected_step);
  g_assert_cmpint (g_array_index (ids, gint64, ids->len - 1), ==, first_id);
}

static void
test_keyset_paging (void)
{
  g_autofree char *dir = audit_test_tmpdir ();
  g_autoptr(LumoAuditStore) store = audit_test_open (dir);
  g_autoptr(GArray) records = g_array_new (FALSE, TRUE, sizeof (LumoAuditImportRecord));
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < 500; i++)
    {
      LumoAuditImportRecord r = { 0, };

      r.record = audit_test_record (i % 2 ? "page_tool_odd" : "page_tool_even");
      g_array_append_val (records, r);
    }
  g_assert_true (lumo_audit_store_import (store, (LumoAuditImportRecord *) records->data,
                                          records->len, &error));
  g_assert_no_error (error);

  /* All rows, then only the odd ones through the index. */
  check_paging_while_adding (store, NULL, 1, 1);
  check_paging_while_adding (store, "page_tool_odd", 2, 2);
  check_paging_while_adding (store, "tool:odd since:1d", 2, 2);
  g_assert_cmpint (audit_test_count (store, NULL), ==, 860);
  g_assert_cmpint (audit_test_count (store, "page_tool_odd"), ==, 430);

  g_clear_object (&store);
  lumo_test_dir_remove (dir);
}

typedef struct
{
  GMainLoop *loop;
  guint      pending;
  guint      page_len;
  gint64     count;
} AsyncReads;

static void
on_page_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  AsyncReads *ar = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) rows = lumo_audit_store_fetch_page_finish (LUMO_AUDIT_STORE (object),
                                                                  result, &error);

  g_assert_no_error (error);
  ar->page_len = rows->len;
  if (--ar->pending == 0)
    g_main_loop_quit (ar->loop);
}

static void
on_count_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  AsyncReads *ar = user_data;
  g_autoptr(GError) error = NULL;

  ar->count = lumo_audit_store_count_finish (LUMO_AUDIT_STORE (object), result, &error);
  g_assert_no_error (error);
  if (--ar->pending == 0)
    g_main_loop_quit (ar->loop);
}

static void
test_async_reads (SearchFixture *f,
                  gconstpointer  data)
{
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  g_autoptr(LumoAuditQuery) q = parse_ok ("script");
  AsyncReads ar = { loop, 2, 0, -1 };

  /* The count runs beside the first page, on its own connection. */
  lumo_audit_store_fetch_page_async (f->store, q, 0, 2, NULL, on_page_cb, &ar);
  lumo_audit_store_count_async (f->store, q, NULL, on_count_cb, &ar);
  g_main_loop_run (loop);

  g_assert_cmpuint (ar.page_len, ==, 2);
  g_assert_cmpint (ar.count, ==, 5);
}

/* ---- the plans of the reads that lost their index on the audit table ---------------- */

/* The plan SQLite makes for @sql on @db, one detail a line. */
static char *
plan_of (sqlite3    *db,
         const char *sql,
         GPtrArray  *binds)
{
  g_autofree char *eqp = g_strconcat ("EXPLAIN QUERY PLAN ", sql, NULL);
  GString *out = g_string_new (NULL);
  sqlite3_stmt *stmt = NULL;

  g_assert_cmpint (sqlite3_prepare_v2 (db, eqp, -1, &stmt, NULL), ==, SQLITE_OK);
  g_assert_true (_lumo_audit_query_bind (stmt, binds, NULL));
  while (sqlite3_step (stmt) == SQLITE_ROW)
    g_string_append_printf (out, "%s\n", (const char *) sqlite3_column_text (stmt, 3));
  sqlite3_finalize (stmt);

  return g_string_free (out, FALSE);
}

static void
assert_plan (sqlite3              *db,
             const LumoAuditQuery *q,
             LumoAuditUse          use,
             LumoAuditSortKey      key,
             LumoAuditPart         part,
             const char           *has,
             const char           *has_not)
{
  LumoAuditPageSpec spec = { key, LUMO_AUDIT_SORT_DESCENDING, NULL, 0 };
  g_autoptr(GPtrArray) binds = g_ptr_array_new_with_free_func ((GDestroyNotify) g_variant_unref);
  g_autofree char *sql = NULL;
  g_autofree char *plan = NULL;

  g_assert_cmpint (_lumo_audit_query_first_part (q, use, key), ==, part);
  if (use == LUMO_AUDIT_USE_COUNT)
    sql = _lumo_audit_query_build_count_sql (q, part, 1, binds);
  else
    sql = _lumo_audit_query_build_page_sql (q, LUMO_AUDIT_ROW_COLUMNS, part, 1, &spec, 200, binds);
  plan = plan_of (db, sql, binds);
  if (strstr (plan, has) == NULL || (has_not != NULL && strstr (plan, has_not) != NULL))
    g_error ("the plan of\n  %s\nis\n%swhich should have “%s”%s%s%s", sql, plan, has,
             has_not != NULL ? " and not “" : "", has_not != NULL ? has_not : "",
             has_not != NULL ? "”" : "");
}

/* Without the audit table's time index (schema 3), since: narrows
 * through audit_order's, and the rows follow by rowid; a count of every
 * row counts an index of audit_order and never reads the audit table; a
 * page by time walks the time index without a sort; params: looks its
 * hash up. (Each was once a scan of the whole table: 3.7 → 51.8 ms and
 * 15 → 65–86 ms on a million rows, docs/PERFORMANCE.md.) */
static void
test_plans (void)
{
  g_autofree char *dir = audit_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "audit.db", NULL);
  g_autoptr(LumoAuditQuery) since = parse_ok ("result:error since:1d");
  g_autoptr(LumoAuditQuery) all = lumo_audit_query_new ();
  g_autoptr(LumoAuditQuery) params = parse_ok ("params:" SHA_A);
  sqlite3 *db = NULL;

  {
    g_autoptr(LumoAuditStore) store = audit_test_open (dir);

    audit_test_append (store, "save_script");
  }
  g_assert_cmpint (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  g_assert_true (_lumo_audit_query_register_functions (db, NULL));

  assert_plan (db, since, LUMO_AUDIT_USE_PAGE, LUMO_AUDIT_SORT_ID, LUMO_AUDIT_PART_ALL,
               "SEARCH audit_order USING COVERING INDEX audit_order_time (time_us>?)", NULL);
  assert_plan (db, since, LUMO_AUDIT_USE_PAGE, LUMO_AUDIT_SORT_ID, LUMO_AUDIT_PART_ALL,
               "SEARCH a USING INTEGER PRIMARY KEY (rowid>?)", "SCAN a\n");
  assert_plan (db, all, LUMO_AUDIT_USE_COUNT, LUMO_AUDIT_SORT_ID, LUMO_AUDIT_PART_ORDERED,
               "SCAN audit_order USING COVERING INDEX", "SCAN a\n");
  assert_plan (db, since, LUMO_AUDIT_USE_COUNT, LUMO_AUDIT_SORT_ID, LUMO_AUDIT_PART_ORDERED,
               "o USING COVERING INDEX audit_order_time (time_us>?)", "SCAN");
  assert_plan (db, since, LUMO_AUDIT_USE_PAGE, LUMO_AUDIT_SORT_TIME, LUMO_AUDIT_PART_ORDERED,
               "o USING COVERING INDEX audit_order_time (time_us>?)", "TEMP B-TREE");
  assert_plan (db, all, LUMO_AUDIT_USE_PAGE, LUMO_AUDIT_SORT_TIME, LUMO_AUDIT_PART_ORDERED,
               "SCAN o USING COVERING INDEX audit_order_time", "TEMP B-TREE");
  assert_plan (db, params, LUMO_AUDIT_USE_PAGE, LUMO_AUDIT_SORT_ID, LUMO_AUDIT_PART_ORDERED,
               "INDEX audit_order_params (params_hmac=?)", "TEMP B-TREE");

  /* Retention at every start: a walk from the oldest row, not the time
   * index read whole. */
  {
    g_autoptr(GPtrArray) no_binds = g_ptr_array_new ();
    g_autofree char *plan = plan_of (db, LUMO_AUDIT_FIRST_KEPT_SQL, no_binds);

    g_assert_nonnull (strstr (plan, "SCAN audit_order\n"));
    g_assert_null (strstr (plan, "audit_order_time"));
  }

  sqlite3_close (db);
  lumo_test_dir_remove (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/audit-query/parse-terms", test_parse_terms);
  g_test_add_func ("/audit-query/parse-filters", test_parse_filters);
  g_test_add_func ("/audit-query/parse-errors", test_parse_errors);
  g_test_add_func ("/audit-query/sql-binds-everything", test_sql_binds_everything);
  g_test_add_func ("/audit-query/plans", test_plans);
#define ADD(name, func) \
  g_test_add ("/audit-query/" name, SearchFixture, NULL, search_set_up, func, search_tear_down)
  ADD ("search-substring", test_search_substring);
  ADD ("search-short", test_search_short);
  ADD ("search-filters", test_search_filters);
  ADD ("async-reads", test_async_reads);
  g_test_add_func ("/audit-query/keyset-paging", test_keyset_paging);
  g_test_add_func ("/audit-query/trigrams-apart", test_search_trigrams_apart);
  g_test_add_func ("/audit-query/unicode-case", test_search_unicode);

  return g_test_run ();
}
