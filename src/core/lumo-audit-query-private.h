/* lumo-audit-query-private.h — the parsed form of a LumoAuditQuery, shared
 * by its parser (lumo-audit-query.c) and its SQL builder
 * (lumo-audit-query-sql.c)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

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
  gint64           since;       /* 0: none */
  gint64           until;       /* 0: none; exclusive */
  gboolean         uses_scan;
};

G_END_DECLS
