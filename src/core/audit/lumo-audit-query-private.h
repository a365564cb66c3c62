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

typedef enum
{
  LUMO_AUDIT_OUTCOME_OK,
  LUMO_AUDIT_OUTCOME_ERROR,
  LUMO_AUDIT_OUTCOME_DENIED,
  LUMO_AUDIT_OUTCOME_PENDING,
} LumoAuditOutcome;

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

/* SQL over the audit schema, newest first: rows with id < @before_id
 * (0 = from the newest), at most @limit. @columns is a fixed column list of
 * table alias "a". Bind values are appended to @binds (floating-free
 * GVariants of type "x", "s" or "ay"; make @binds with
 * g_ptr_array_new_with_free_func (g_variant_unref)). */
char            *_lumo_audit_query_build_page_sql  (const LumoAuditQuery *query,
                                                    const char           *columns,
                                                    gint64                before_id,
                                                    guint                 limit,
                                                    GPtrArray            *binds);
char            *_lumo_audit_query_build_count_sql (const LumoAuditQuery *query,
                                                    GPtrArray            *binds);
gboolean         _lumo_audit_query_bind            (sqlite3_stmt         *stmt,
                                                    GPtrArray            *binds,
                                                    GError              **error);
/* The SQL above calls lumo_audit_contains(); register it once on every
 * connection that runs it (the store's readers have it). */
gboolean         _lumo_audit_query_register_functions (sqlite3           *db,
                                                       GError           **error);

G_END_DECLS
