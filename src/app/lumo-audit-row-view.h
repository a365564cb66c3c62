/* lumo-audit-row-view.h — one drawn row of the Audit page's list
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoAuditRowView is the whole row of one LumoAuditItem: it lays out and
 * draws the seven cells itself (a Pango layout per cell, made when the
 * row is first drawn), at the column positions lumo_audit_columns_layout()
 * gives for its width with the page's LumoAuditColumns, which the page's
 * header (LumoAuditHeader) uses as well; when a person resizes a column
 * ("changed") the row only lays out and draws again. Only a desktop agent's row has a child: the app's agent tag
 * (lumo_ui_agent_tag_new()) after the caller's name. The row's accessible
 * label is its cells' texts in column order. It follows its item's row:
 * a placeholder fills in when its page arrives, a new search refills it.
 */
#pragma once

#include <gtk/gtk.h>

#include "lumo-audit-columns.h"
#include "lumo-audit-item.h"

G_BEGIN_DECLS

#define LUMO_TYPE_AUDIT_ROW_VIEW (lumo_audit_row_view_get_type ())
G_DECLARE_FINAL_TYPE (LumoAuditRowView, lumo_audit_row_view, LUMO, AUDIT_ROW_VIEW, GtkWidget)

/* The row lays out its cells with @columns (the page's, shared with its
 * header) and follows their "changed". */
GtkWidget     *lumo_audit_row_view_new      (LumoAuditColumns *columns);
/* @item may be NULL (the row is unbound). */
void           lumo_audit_row_view_set_item (LumoAuditRowView *self,
                                             LumoAuditItem    *item);
LumoAuditItem *lumo_audit_row_view_get_item (LumoAuditRowView *self);
/* The text the row draws in @column ("" for a placeholder), for tests. */
const char    *lumo_audit_row_view_get_text (LumoAuditRowView *self,
                                             LumoAuditColumn   column);
/* Where the row drew @column's cell at its last allocation, in the row's
 * own coordinates (mirrored right to left), for tests. */
void           lumo_audit_row_view_get_cell (LumoAuditRowView *self,
                                             LumoAuditColumn   column,
                                             LumoAuditSpan    *cell);
/* The accessible label the row gives its item, newly allocated. */
char          *lumo_audit_row_view_dup_label (LumoAuditRowView *self);

G_END_DECLS
