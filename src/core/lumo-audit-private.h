/* lumo-audit-private.h — internal API of the audit store, for src/core and tests
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <sqlite3.h>

#include "lumo-audit-store.h"

G_BEGIN_DECLS

/* The full constructor: explicit key and checkpoint paths (NULL: beside the
 * database) and an SQLite VFS by name (NULL: the default). Tests use a
 * fault-injecting VFS through this. */
LumoAuditStore *lumo_audit_store_new_full   (const char      *path,
                                             const char      *key_path,
                                             const char      *head_path,
                                             const char      *vfs_name,
                                             GError         **error);
GBytes         *lumo_audit_store_get_secret (LumoAuditStore  *self);
const char     *lumo_audit_store_get_head_path (LumoAuditStore *self);

/* Rows are made by the store from a statement whose columns are
 * LUMO_AUDIT_ROW_COLUMNS, in that order. */
#define LUMO_AUDIT_ROW_COLUMNS \
  "a.id, a.time_us, a.provider_id, a.caller_id, a.caller_name, a.tool, a.write, " \
  "a.target, a.params_hmac, a.decision, a.reason, a.result, a.result_text, " \
  "a.result_time_us, a.hash"
LumoAuditRow   *lumo_audit_row_new_from_stmt (sqlite3_stmt  *stmt);

G_END_DECLS
