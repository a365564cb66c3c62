/* lumo-audit-summary.h — writes allowed, denied and failed, per agent
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoAuditSummary owns the small summary above the Audit page's list:
 * for the rows of the current search, how many writes were allowed,
 * denied and failed, in all and for the agents with the most writes. The
 * numbers are lumo_audit_store_stats() by caller, run on the store's
 * reader pool (never on the main thread), again when the search changes
 * and when rows arrive (::row-added, ::result-set, ::changed). A summary
 * of a big log takes a while, so news that comes while one runs makes one
 * more run after it, no sooner than a few times its duration later; with
 * no news nothing runs, and while the summary is not on screen nothing
 * runs either (it catches up when shown).
 */
#pragma once

#include <adwaita.h>

#include "lumo-audit-store.h"

G_BEGIN_DECLS

/* Agents named one by one; the rest are "and N more". */
#define LUMO_AUDIT_SUMMARY_MAX_AGENTS 4

#define LUMO_TYPE_AUDIT_SUMMARY (lumo_audit_summary_get_type ())
G_DECLARE_FINAL_TYPE (LumoAuditSummary, lumo_audit_summary, LUMO, AUDIT_SUMMARY, AdwBin)

/* @store NULL: nothing to summarize. */
void      lumo_audit_summary_set_store (LumoAuditSummary *self,
                                        LumoAuditStore   *store);
/* NULL: every row. Summarizes it at once (when shown). */
void      lumo_audit_summary_set_query (LumoAuditSummary *self,
                                        LumoAuditQuery   *query);
/* TRUE: news and a new search wait (and :busy stays TRUE) until it is
 * FALSE again; the page holds the summary while its list reads its first
 * rows, so the scan of a big log does not compete with them. */
void      lumo_audit_summary_set_held  (LumoAuditSummary *self,
                                        gboolean          held);
/* TRUE while a summary runs or news waits for one (:busy). */
gboolean  lumo_audit_summary_get_busy  (LumoAuditSummary *self);
/* The lines as shown: the total first, then one per agent. */
GPtrArray *lumo_audit_summary_get_lines (LumoAuditSummary *self);

G_END_DECLS
