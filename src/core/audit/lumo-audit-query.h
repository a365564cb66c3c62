/* lumo-audit-query.h — the search language of the audit log, and its SQL
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoAuditQuery is a parsed search string: free-text terms and field
 * filters, all of which a row must match (AND). It owns nothing but the
 * parsed values; LumoAuditStore runs it.
 *
 * Language (whitespace separates terms; "double quotes" make one term or
 * value of several words; a term whose prefix is not a known filter, such as
 * "12:30", is plain text):
 *
 *   word, "a phrase"   substring, case-insensitive (Unicode simple lowercase
 *                      mapping, as the index folds: "ÉCOLE" finds "école"), of the tool, the
 *                      caller id or name, the target, or the result text.
 *                      Three characters or more use the FTS5 trigram index;
 *                      shorter terms fall back to a scan of the rows and
 *                      lumo_audit_query_uses_scan() says so (the UI shows it).
 *   caller:VALUE       substring of the caller id or display name
 *   tool:VALUE         substring of the tool name
 *   provider:ID        exactly this provider (an extension id)
 *   decision:D         allow | deny | pending-review
 *   result:R           ok | error | denied | pending (allowed or in review,
 *                      result not yet known)
 *   params:HEX         the keyed params hash (64 hex digits, as
 *                      lumo_audit_store_key_params_hash() returns it)
 *   kind:K             extension | agent (the caller's kind)
 *   grant:G            yes | no (the write was allowed by a review grant)
 *   since:T  until:T   ISO 8601 date (2025-01-31: local midnight; until:
 *                      includes the whole day), date-time (2025-01-31T10:00,
 *                      local time unless it has an offset or Z), or relative
 *                      to now: Ns, Nm, Nh, Nd, Nw (1h = one hour ago).
 *
 * A repeated filter must match every time (tool:a tool:b needs both). A bad
 * filter value fails with LUMO_ERROR_INVALID_ARGUMENT and a message that
 * names the filter and says what it expects.
 *
 * The SQL builder (lumo-audit-query-private.h) emits only fixed SQL text with "?" placeholders; every
 * user value is bound (_lumo_audit_query_bind()), never pasted into SQL.
 */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

typedef struct _LumoAuditQuery LumoAuditQuery;

/* The orders a page of rows can come in (lumo_audit_store_fetch_sorted()).
 * Every order ends with the row id, so rows that tie on the key keep one
 * order and keyset paging never skips or repeats one. */
typedef enum
{
  LUMO_AUDIT_SORT_ID,       /* the order rows were written in */
  LUMO_AUDIT_SORT_TIME,     /* time_us (an import or a clock change can make
                             * it differ from the id order), then id */
  LUMO_AUDIT_SORT_CALLER,   /* the caller's display name as written in the row
                             * (byte order: "" first), then caller id, then id */
  LUMO_AUDIT_SORT_TOOL,     /* the tool name (byte order), then id */
  LUMO_AUDIT_SORT_OUTCOME,  /* lumo_audit_outcome_rank(), then id */
} LumoAuditSortKey;

typedef enum
{
  LUMO_AUDIT_SORT_DESCENDING,  /* newest, Z, denied first */
  LUMO_AUDIT_SORT_ASCENDING,
} LumoAuditSortOrder;

#define LUMO_TYPE_AUDIT_SORT_KEY   (lumo_audit_sort_key_get_type ())
#define LUMO_TYPE_AUDIT_SORT_ORDER (lumo_audit_sort_order_get_type ())
GType            lumo_audit_sort_key_get_type   (void) G_GNUC_CONST;
GType            lumo_audit_sort_order_get_type (void) G_GNUC_CONST;

#define LUMO_TYPE_AUDIT_QUERY (lumo_audit_query_get_type ())
GType            lumo_audit_query_get_type   (void) G_GNUC_CONST;

/* Every row. */
LumoAuditQuery  *lumo_audit_query_new        (void);
/* @now_us: wall clock for relative times (0 = now). NULL or "" text gives
 * every row. */
LumoAuditQuery  *lumo_audit_query_parse      (const char            *text,
                                              gint64                 now_us,
                                              GError               **error);
LumoAuditQuery  *lumo_audit_query_ref        (LumoAuditQuery        *query);
void             lumo_audit_query_unref      (LumoAuditQuery        *query);

const char      *lumo_audit_query_get_text   (const LumoAuditQuery  *query);
/* TRUE when no term or filter restricts the rows. */
gboolean         lumo_audit_query_is_empty   (const LumoAuditQuery  *query);
/* TRUE when a free-text or caller:/tool: value is shorter than three
 * characters, so the search scans rows instead of using the index. */
gboolean         lumo_audit_query_uses_scan  (const LumoAuditQuery  *query);
/* The bounds of since:/until: (µs since the epoch), 0 when absent. until
 * is exclusive. */
gint64           lumo_audit_query_get_since  (const LumoAuditQuery  *query);
gint64           lumo_audit_query_get_until  (const LumoAuditQuery  *query);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (LumoAuditQuery, lumo_audit_query_unref)

G_END_DECLS
