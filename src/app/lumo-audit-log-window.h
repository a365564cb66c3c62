/* lumo-audit-log-window.h — a collected audit log in a window of its own
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoAuditLogWindow opens another machine's audit.db (copied) or a JSON
 * Lines export with lumo_audit_store_open_file_async() — read-only: the
 * file is never written, nor anything beside it — and shows it in a
 * LumoAuditPage of its own (search, filters, sort, summary, export,
 * Verify, with the other machine's key file if there is one). The window
 * is titled with the file's name. Opening a big log takes a while (its
 * integrity check); until then the window says so, and a file that cannot
 * be opened (damaged, not an audit log, too new) gets the store's error
 * in an AdwStatusPage instead of the log.
 */
#pragma once

#include <adwaita.h>

#include "lumo-audit-page.h"

G_BEGIN_DECLS

#define LUMO_TYPE_AUDIT_LOG_WINDOW (lumo_audit_log_window_get_type ())
G_DECLARE_FINAL_TYPE (LumoAuditLogWindow, lumo_audit_log_window, LUMO, AUDIT_LOG_WINDOW, AdwWindow)

/* Starts opening @file (and @key_file, NULL: none) at once. */
LumoAuditLogWindow *lumo_audit_log_window_new       (GtkApplication     *application,
                                                     GFile              *file,
                                                     GFile              *key_file);
GFile              *lumo_audit_log_window_get_file  (LumoAuditLogWindow *self);
/* TRUE until the log is open or failed to open (:loading). */
gboolean            lumo_audit_log_window_get_loading (LumoAuditLogWindow *self);
/* Why the log could not be opened, or NULL. */
const GError       *lumo_audit_log_window_get_error (LumoAuditLogWindow *self);
/* The page showing the log (it has no store while loading or failed). */
LumoAuditPage      *lumo_audit_log_window_get_page  (LumoAuditLogWindow *self);

G_END_DECLS
