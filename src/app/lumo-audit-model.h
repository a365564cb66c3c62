/* lumo-audit-model.h — the audit log as a lazily paged list model
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoAuditModel owns a GListModel of LumoAuditItem over the rows of a
 * LumoAuditStore that match one LumoAuditQuery, in one of the store's
 * orders (newest first unless set otherwise). It never
 * loads the log: n_items comes from a count run in the background after
 * the first page shows (until then it grows as pages arrive), and rows are
 * fetched on demand by keyset pages of LUMO_AUDIT_MODEL_PAGE_SIZE when
 * get_item() asks beyond what is loaded — one query per page, never one per
 * item — and kept in a small LRU of pages. An item that is asked for before
 * its page arrived is a placeholder that fills in (notifies) when it does.
 *
 * Rows that the store appends while the model is alive (::row-added), or
 * that another process writes (::changed), and that match the query
 * appear: newest first at the top (items-changed at position 0), in any
 * other order by reading the shown pages again in place. A result filled
 * in later (::result-set) updates its row. Setting another query or order
 * replaces the rows and counts again; the items of the first page are
 * kept and refilled, so a view keeps its row widgets.
 */
#pragma once

#include <gio/gio.h>

#include "lumo-audit-item.h"
#include "lumo-audit-store.h"

G_BEGIN_DECLS

#define LUMO_AUDIT_MODEL_PAGE_SIZE  200
/* Pages kept in memory at most (plus those being fetched). */
#define LUMO_AUDIT_MODEL_MAX_PAGES  48

#define LUMO_TYPE_AUDIT_MODEL (lumo_audit_model_get_type ())
G_DECLARE_FINAL_TYPE (LumoAuditModel, lumo_audit_model, LUMO, AUDIT_MODEL, GObject)

LumoAuditModel  *lumo_audit_model_new               (LumoAuditStore *store);
LumoAuditStore  *lumo_audit_model_get_store         (LumoAuditModel *self);
/* NULL: every row. The model takes a reference. */
void             lumo_audit_model_set_query         (LumoAuditModel *self,
                                                     LumoAuditQuery *query);
LumoAuditQuery  *lumo_audit_model_get_query         (LumoAuditModel *self);
/* The order of the rows, done by the store (keyset pages in that order):
 * LUMO_AUDIT_SORT_ID descending (newest first) by default. */
void             lumo_audit_model_set_sort          (LumoAuditModel    *self,
                                                     LumoAuditSortKey   key,
                                                     LumoAuditSortOrder order);
LumoAuditSortKey lumo_audit_model_get_sort_key      (LumoAuditModel *self);
LumoAuditSortOrder lumo_audit_model_get_sort_order  (LumoAuditModel *self);
/* TRUE once the count of the current query is known (n_items is then
 * exact, give or take rows added since). */
gboolean         lumo_audit_model_get_counted       (LumoAuditModel *self);
/* TRUE while the first page of the current query is being fetched. */
gboolean         lumo_audit_model_get_loading       (LumoAuditModel *self);
/* The last fetch or count error of the current query, or NULL. */
const GError    *lumo_audit_model_get_error         (LumoAuditModel *self);
/* Provider ID → display name, used for the "provider" text of rows that
 * arrive from now on (the table is referenced; NULL: show IDs). */
void             lumo_audit_model_set_provider_names (LumoAuditModel *self,
                                                      GHashTable     *names);

/* For tests and benchmarks: rows and pages fetched from the store so far
 * (over every query), and the pages in memory now. */
guint64          lumo_audit_model_get_rows_fetched  (LumoAuditModel *self);
guint            lumo_audit_model_get_pages_fetched (LumoAuditModel *self);
guint            lumo_audit_model_get_pages_cached  (LumoAuditModel *self);

G_END_DECLS
