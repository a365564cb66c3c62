/* lumo-audit-query-private.h — the parsed form of a LumoAuditQuery, shared
 * by its parser (lumo-audit-query.c) and its SQL builder
 * (lumo-audit-query-sql.c), and the SQL that the store runs for it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#if !defined (LUMO_CORE_COMPILATION)
# error "This header is private to src/core (and its tests): it may speak SQL, which stays out of the app and the CLI."
#endif

#include <sqlite3.h>

#include "lumo-audit-query.h"
#include "lumo-audit-row.h"

G_BEGIN_DECLS

/* Trigrams need three characters; shorter values cannot use the index. */
#define LUMO_AUDIT_MIN_INDEXED_CHARS 3

typedef enum
{
  LUMO_AUDIT_TERM_TEXT,
  LUMO_AUDIT_TERM_CALLER,
  LUMO_AUDIT_TERM_TOOL,
} LumoAuditTermKind;

typedef struct
{
  LumoAuditTermKind  kind;
  char              *value;
  gboolean           scan;   /* too short for the index */
} LumoAuditTerm;

struct _LumoAuditQuery
{
  gatomicrefcount  ref_count;
  char            *text;
  GPtrArray       *terms;       /* LumoAuditTerm */
  GPtrArray       *providers;   /* char* */
  GPtrArray       *decisions;   /* char* (stored spelling) */
  GArray          *outcomes;    /* LumoAuditOutcome */
  GPtrArray       *params;      /* GBytes, 32 bytes */
  GPtrArray       *kinds;       /* char* (stored spelling) */
  GArray          *grants;      /* gboolean */
  gint64           since;       /* 0: none */
  gint64           until;       /* 0: none; exclusive */
  gboolean         uses_scan;
};

/* lumo_audit_row_get_outcome() in SQL, over the columns of table alias a
 * (audit_order.outcome holds its value for the rows up to the watermark). */
#define LUMO_AUDIT_OUTCOME_SQL_(p) \
  "(CASE WHEN " p "decision = 'deny' THEN 3 WHEN " p "result = 'error' THEN 2 " \
  "WHEN " p "result IS NULL THEN 1 ELSE 0 END)"
#define LUMO_AUDIT_OUTCOME_SQL LUMO_AUDIT_OUTCOME_SQL_ ("a.")

/* Which rows a statement covers. The search index holds the rows up to
 * its watermark (audit_fts_state.indexed_to); the writer indexes newer
 * ones after it has answered. A query with index terms is run twice — the
 * indexed rows through the index, the newer rows (the tail) by scanning
 * them — so a row is found as soon as it is committed. */
typedef enum
{
  LUMO_AUDIT_PART_ALL,      /* a query without index terms: every row */
  LUMO_AUDIT_PART_INDEXED,  /* ids ≤ the watermark, through the index */
  LUMO_AUDIT_PART_TAIL,     /* ids > the watermark, every term re-checked */
  LUMO_AUDIT_PART_ORDERED,  /* ids ≤ the watermark, through audit_order and
                             * one of its indexes (without index terms: a
                             * sort by anything but id, a bound on time or
                             * a params filter, a count of every row) */
} LumoAuditPart;

/* What a statement is for, which decides the part that reads the rows up
 * to the watermark. */
typedef enum
{
  LUMO_AUDIT_USE_PAGE,
  LUMO_AUDIT_USE_COUNT,
  LUMO_AUDIT_USE_STATS,
} LumoAuditUse;

/* The rows after @1 up to @2 into audit_order, from audit. */
#define LUMO_AUDIT_ORDER_FILL_SQL \
  "INSERT INTO audit_order (id, caller_name, caller_id, tool, outcome, time_us, params_hmac) " \
  "SELECT a.id, a.caller_name, a.caller_id, a.tool, " LUMO_AUDIT_OUTCOME_SQL ", a.time_us, " \
  "a.params_hmac FROM audit a WHERE a.id > ? AND a.id <= ? ORDER BY a.id"

/* A page's order, and where it starts: after @after (the last row of the
 * previous page), or at the start when NULL. */
typedef struct
{
  LumoAuditSortKey    key;
  LumoAuditSortOrder  order;
  LumoAuditRow       *after;
  gint64              after_id;   /* id order only, when @after is NULL: 0 = none */
} LumoAuditPageSpec;

/* TRUE when the query has a term the index can look up. */
gboolean         _lumo_audit_query_uses_index      (const LumoAuditQuery *query);
/* The part for the rows up to the watermark (the tail follows it unless
 * it is LUMO_AUDIT_PART_ALL); @key only for a page. audit_order holds the
 * time and params indexes, so every bound on them reads it (schema 3). */
LumoAuditPart    _lumo_audit_query_first_part      (const LumoAuditQuery *query,
                                                    LumoAuditUse          use,
                                                    LumoAuditSortKey      key);

/* SQL over the audit schema for one page of @part, at most @limit rows.
 * @columns is a fixed column list of table alias "a". Bind values are
 * appended to @binds (floating-free GVariants of type "x", "s" or "ay";
 * make @binds with g_ptr_array_new_with_free_func (g_variant_unref)). */
char            *_lumo_audit_query_build_page_sql  (const LumoAuditQuery    *query,
                                                    const char              *columns,
                                                    LumoAuditPart            part,
                                                    gint64                   indexed_to,
                                                    const LumoAuditPageSpec *spec,
                                                    guint                    limit,
                                                    GPtrArray               *binds);
/* SELECT count(*) of @part. */
char            *_lumo_audit_query_build_count_sql (const LumoAuditQuery    *query,
                                                    LumoAuditPart            part,
                                                    gint64                   indexed_to,
                                                    GPtrArray               *binds);
/* SELECT @group_expr, count(*), allowed, denied, failed, the caller name
 * of the group's newest row and its id, grouped by @group_expr (a fixed
 * SQL expression over alias a), ordered by it. */
char            *_lumo_audit_query_build_stats_sql (const LumoAuditQuery    *query,
                                                    LumoAuditPart            part,
                                                    gint64                   indexed_to,
                                                    const char              *group_expr,
                                                    GPtrArray               *binds);
/* Orders two rows as @key and @order do (negative: @a comes first). */
int              _lumo_audit_sort_compare          (LumoAuditSortKey         key,
                                                    LumoAuditSortOrder       order,
                                                    LumoAuditRow            *a,
                                                    LumoAuditRow            *b);
gboolean         _lumo_audit_query_bind            (sqlite3_stmt         *stmt,
                                                    GPtrArray            *binds,
                                                    GError              **error);
/* The SQL above calls lumo_audit_contains(); register it once on every
 * connection that runs it (the store's readers have it). */
gboolean         _lumo_audit_query_register_functions (sqlite3           *db,
                                                       GError           **error);

G_END_DECLS
