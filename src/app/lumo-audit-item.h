/* lumo-audit-item.h — one position of the audit list
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoAuditItem owns one position of LumoAuditModel: the LumoAuditRow once
 * its page has arrived (NULL before), and the texts of the Audit page's
 * columns, formatted once when the row arrives so that binding a cell only
 * reads a string.
 */
#pragma once

#include <glib-object.h>

#include "lumo-audit-row.h"

G_BEGIN_DECLS

/* The columns of the Audit page. */
typedef enum
{
  LUMO_AUDIT_COLUMN_TIME,
  LUMO_AUDIT_COLUMN_CALLER,
  LUMO_AUDIT_COLUMN_PROVIDER,
  LUMO_AUDIT_COLUMN_TOOL,
  LUMO_AUDIT_COLUMN_TARGET,
  LUMO_AUDIT_COLUMN_OUTCOME,
  LUMO_AUDIT_COLUMN_HASH,
  LUMO_AUDIT_N_COLUMNS
} LumoAuditColumn;

#define LUMO_TYPE_AUDIT_ITEM (lumo_audit_item_get_type ())
G_DECLARE_FINAL_TYPE (LumoAuditItem, lumo_audit_item, LUMO, AUDIT_ITEM, GObject)

/* NULL while the item's page is being fetched. */
LumoAuditRow *lumo_audit_item_get_row     (LumoAuditItem   *self);
/* The text of one column ("" while loading); no formatting happens here. */
const char   *lumo_audit_item_get_text    (LumoAuditItem   *self,
                                           LumoAuditColumn  column);
/* TRUE for a denied call (its outcome is shown as an error). */
gboolean      lumo_audit_item_get_denied  (LumoAuditItem   *self);
/* The tag beside the caller ("desktop agent"), NULL for an extension and
 * while loading. */
const char   *lumo_audit_item_get_caller_tag (LumoAuditItem *self);

G_END_DECLS
