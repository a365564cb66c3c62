/* lumo-audit-row.h — one row of the audit log, as read back
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoAuditRow is an immutable snapshot of one audit row: the decision
 * fields that the hash chain covers, and the result that was filled in
 * later (if any). It is a GObject so that a GListModel of the Audit page can
 * hold rows directly and a GtkColumnView can bind to its properties. Rows
 * come from LumoAuditStore (lumo_audit_store_fetch_page() and friends);
 * there is no public constructor.
 */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

/* Stored as text: "allow", "deny", "pending-review". */
typedef enum
{
  LUMO_AUDIT_DECISION_ALLOW,
  LUMO_AUDIT_DECISION_DENY,
  LUMO_AUDIT_DECISION_PENDING_REVIEW,
} LumoAuditDecision;

/* Stored as text: NULL (not yet known), "ok", "error". */
typedef enum
{
  LUMO_AUDIT_RESULT_NONE,
  LUMO_AUDIT_RESULT_OK,
  LUMO_AUDIT_RESULT_ERROR,
} LumoAuditResult;

/* Who called: an extension (its ID is Chrome's sender.id) or a desktop
 * agent (an ID the app made, of the same form). Stored as text:
 * "extension", "agent" — the spelling of the policy's caller kinds. The
 * bridge copies it from the policy's caller when it records the write;
 * rows written before schema version 2 are extensions. */
typedef enum
{
  LUMO_AUDIT_CALLER_KIND_EXTENSION,
  LUMO_AUDIT_CALLER_KIND_AGENT,
} LumoAuditCallerKind;

/* What became of a write, as the result: filter and the Audit page name
 * it, in the order of LUMO_AUDIT_SORT_OUTCOME (ascending). */
typedef enum
{
  LUMO_AUDIT_OUTCOME_OK,       /* allowed, and the tool succeeded */
  LUMO_AUDIT_OUTCOME_PENDING,  /* allowed or held for review; no result yet */
  LUMO_AUDIT_OUTCOME_ERROR,    /* allowed, and the tool failed */
  LUMO_AUDIT_OUTCOME_DENIED,
} LumoAuditOutcome;

#define LUMO_TYPE_AUDIT_OUTCOME     (lumo_audit_outcome_get_type ())
GType        lumo_audit_outcome_get_type      (void) G_GNUC_CONST;
/* "ok", "pending", "error", "denied" (the result: filter's words). */
const char  *lumo_audit_outcome_to_string     (LumoAuditOutcome   outcome);
gboolean     lumo_audit_outcome_from_string   (const char        *s,
                                               LumoAuditOutcome  *outcome);

#define LUMO_TYPE_AUDIT_DECISION    (lumo_audit_decision_get_type ())
#define LUMO_TYPE_AUDIT_RESULT      (lumo_audit_result_get_type ())
#define LUMO_TYPE_AUDIT_CALLER_KIND (lumo_audit_caller_kind_get_type ())
GType        lumo_audit_decision_get_type     (void) G_GNUC_CONST;
GType        lumo_audit_result_get_type       (void) G_GNUC_CONST;
GType        lumo_audit_caller_kind_get_type  (void) G_GNUC_CONST;

const char  *lumo_audit_decision_to_string    (LumoAuditDecision  decision);
/* Accepts exactly the stored spellings; FALSE for anything else. */
gboolean     lumo_audit_decision_from_string  (const char        *s,
                                               LumoAuditDecision *decision);
/* NULL for LUMO_AUDIT_RESULT_NONE. */
const char  *lumo_audit_result_to_string      (LumoAuditResult    result);
/* NULL for a value that is not a kind. */
const char  *lumo_audit_caller_kind_to_string (LumoAuditCallerKind kind);
/* Accepts exactly "extension" and "agent"; FALSE for anything else. */
gboolean     lumo_audit_caller_kind_from_string (const char          *s,
                                                 LumoAuditCallerKind *kind);

#define LUMO_TYPE_AUDIT_ROW (lumo_audit_row_get_type ())
G_DECLARE_FINAL_TYPE (LumoAuditRow, lumo_audit_row, LUMO, AUDIT_ROW, GObject)

gint64             lumo_audit_row_get_id              (LumoAuditRow *self);
/* Wall clock, microseconds since the Unix epoch (UTC). */
gint64             lumo_audit_row_get_time_us         (LumoAuditRow *self);
const char        *lumo_audit_row_get_provider_id     (LumoAuditRow *self);
const char        *lumo_audit_row_get_caller_id       (LumoAuditRow *self);
/* The caller's display name when the row was written ("" if none). */
const char        *lumo_audit_row_get_caller_name     (LumoAuditRow *self);
const char        *lumo_audit_row_get_tool            (LumoAuditRow *self);
gboolean           lumo_audit_row_get_write           (LumoAuditRow *self);
/* A lowercase UUID, or "" when the call had no target. */
const char        *lumo_audit_row_get_target          (LumoAuditRow *self);
/* HMAC-SHA256 of the provider's params SHA-256 under the install secret,
 * 64 lowercase hex digits (see lumo_audit_store_key_params_hash()). */
const char        *lumo_audit_row_get_params_hmac     (LumoAuditRow *self);
LumoAuditDecision  lumo_audit_row_get_decision        (LumoAuditRow *self);
/* A reason code such as "rate_limited", or "" for none. */
const char        *lumo_audit_row_get_reason          (LumoAuditRow *self);
LumoAuditResult    lumo_audit_row_get_result          (LumoAuditRow *self);
/* The (possibly truncated) error text; NULL unless the result is an error
 * that came with a text. */
const char        *lumo_audit_row_get_result_text     (LumoAuditRow *self);
/* When the result was recorded, 0 while there is none. */
gint64             lumo_audit_row_get_result_time_us  (LumoAuditRow *self);
/* The row's chain hash, 64 lowercase hex digits. */
const char        *lumo_audit_row_get_hash            (LumoAuditRow *self);
/* The result's MAC (see lumo-audit-chain.h), 64 lowercase hex digits, or
 * NULL while there is no result. Exports carry it so that a copy can be
 * verified with the key file. */
const char        *lumo_audit_row_get_result_mac      (LumoAuditRow *self);
LumoAuditCallerKind lumo_audit_row_get_caller_kind    (LumoAuditRow *self);
/* From the decision and the result (which may still change from pending). */
LumoAuditOutcome   lumo_audit_row_get_outcome         (LumoAuditRow *self);
/* TRUE when the write skipped review because the person had granted this
 * caller this tool (issue "review grants"): decision allow, reason "". */
gboolean           lumo_audit_row_get_by_grant        (LumoAuditRow *self);

G_END_DECLS
