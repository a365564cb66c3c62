/* lumo-audit-page.h — the Audit page: search, read, export, verify
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoAuditPage owns the audit viewer: a GtkListView over LumoAuditModel
 * (paged from SQLite, so a million rows open at once) whose rows draw
 * their seven cells themselves (LumoAuditRowView: one widget per row, as
 * GTK 4.8 keeps 200 rows however few are on screen), under a header of
 * the columns' titles (LumoAuditHeader; the titles of the time, agent,
 * tool and outcome are buttons that choose the order, the border after a
 * title drags to resize its column, a double click on it restores the
 * default; the header and the rows share the page's LumoAuditColumns, so
 * each page, the collected log's window too, has its own widths, kept
 * while it lives), the search entry
 * with the core's query language (searching as you type from three
 * characters; filtering and order happen in SQL), a result filter, the summary of the search's writes
 * per agent, the detail pane of one row, export of the current result to
 * CSV or JSON Lines, "Verify Log" and "Open Audit Log…". Export and
 * verification run in a thread, show progress and can be cancelled.
 *
 * The same page shows the app's own log (lumo_audit_page_set_backend())
 * and a collected log in its own window (lumo_audit_page_set_store(),
 * lumo-audit-log-window.h), which it only reads.
 */
#pragma once

#include <adwaita.h>

#include "lumo-audit-model.h"
#include "lumo-audit-summary.h"
#include "lumo-types.h"

G_BEGIN_DECLS

#define LUMO_TYPE_AUDIT_PAGE (lumo_audit_page_get_type ())
G_DECLARE_FINAL_TYPE (LumoAuditPage, lumo_audit_page, LUMO, AUDIT_PAGE, AdwBin)

void            lumo_audit_page_set_backend      (LumoAuditPage         *self,
                                                  LumoBackend           *backend);
/* A log without a backend: a collected log (read-only), shown without the
 * names of providers. Set one of the two, once. */
void            lumo_audit_page_set_store        (LumoAuditPage         *self,
                                                  LumoAuditStore        *store);
LumoAuditStore *lumo_audit_page_get_store        (LumoAuditPage         *self);
LumoAuditModel *lumo_audit_page_get_model        (LumoAuditPage         *self);
LumoAuditSummary *lumo_audit_page_get_summary    (LumoAuditPage         *self);
GtkEditable    *lumo_audit_page_get_search_entry (LumoAuditPage         *self);
/* Runs the search in the entry now (what Enter does). FALSE, with the
 * parse error shown under the entry, if it does not parse. */
gboolean        lumo_audit_page_search_now       (LumoAuditPage         *self);
/* Moves the keyboard focus to the search entry. */
void            lumo_audit_page_focus_search     (LumoAuditPage         *self);
/* The status line under the search ("1,024 entries", a parse error, …). */
const char     *lumo_audit_page_get_status       (LumoAuditPage         *self);

/* Writes the rows of the current search to @file (replacing it only once
 * the export is complete), in a thread; progress shows on the page. */
void            lumo_audit_page_export_async     (LumoAuditPage         *self,
                                                  GFile                 *file,
                                                  LumoAuditExportFormat  format,
                                                  GCancellable          *cancellable,
                                                  GAsyncReadyCallback    callback,
                                                  gpointer               user_data);
gboolean        lumo_audit_page_export_finish    (LumoAuditPage         *self,
                                                  GAsyncResult          *result,
                                                  GError               **error);
/* Checks the hash chain of the whole log in a thread. FALSE with
 * LUMO_ERROR_CHAIN_BROKEN (the message names the first broken row) when it
 * does not verify; @report (may be NULL) is filled either way. */
void            lumo_audit_page_verify_async     (LumoAuditPage         *self,
                                                  GCancellable          *cancellable,
                                                  GAsyncReadyCallback    callback,
                                                  gpointer               user_data);
/* A collected log only: verifies the same file opened with @key_file (the
 * other machine's audit.key), so its result MACs, retention anchor and
 * checkpoint are checked too. Finish with lumo_audit_page_verify_finish(). */
void            lumo_audit_page_verify_with_key_async (LumoAuditPage    *self,
                                                  GFile                 *key_file,
                                                  GCancellable          *cancellable,
                                                  GAsyncReadyCallback    callback,
                                                  gpointer               user_data);
gboolean        lumo_audit_page_verify_finish    (LumoAuditPage         *self,
                                                  GAsyncResult          *result,
                                                  LumoAuditVerifyReport *report,
                                                  GError               **error);

G_END_DECLS
