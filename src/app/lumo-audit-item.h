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

#define LUMO_TYPE_AUDIT_ITEM (lumo_audit_item_get_type ())
G_DECLARE_FINAL_TYPE (LumoAuditItem, lumo_audit_item, LUMO, AUDIT_ITEM, GObject)

/* NULL while the item's page is being fetched. */
LumoAuditRow *lumo_audit_item_get_row (LumoAuditItem *self);

G_END_DECLS
