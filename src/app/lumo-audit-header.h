/* lumo-audit-header.h — the column titles above the Audit page's rows
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoAuditHeader owns the titles of the seven columns, laid out where
 * lumo_audit_columns_layout() puts the rows' cells, with the page's
 * LumoAuditColumns (it is as wide as the list under it). The titles of
 * the sortable columns (time, agent, tool, outcome) are buttons that
 * activate "audit.sort-column" with the column (a "u"); the page decides
 * the order and shows it back with lumo_audit_header_set_sort() (an
 * arrow, and the sort state a screen reader reads).
 *
 * The border after each title (its end edge, a few pixels either side;
 * the "col-resize" cursor over it) drags: the column takes the width the
 * pointer gives it (lumo_audit_columns_resize(); right to left the border
 * is the title's left edge and a drag to the left widens), the rows follow
 * on the columns' "changed", and a double click gives the default back.
 * The drag gesture runs in the capture phase and claims a press on a
 * border before the title's button sees it, so a drag never sorts.
 */
#pragma once

#include <gtk/gtk.h>

#include "lumo-audit-columns.h"
#include "lumo-audit-item.h"

G_BEGIN_DECLS

#define LUMO_TYPE_AUDIT_HEADER (lumo_audit_header_get_type ())
G_DECLARE_FINAL_TYPE (LumoAuditHeader, lumo_audit_header, LUMO, AUDIT_HEADER, GtkWidget)

/* The widths the header lays its titles out with (and lets a person
 * change): the page's, shared with its rows. */
void       lumo_audit_header_set_columns  (LumoAuditHeader  *self,
                                           LumoAuditColumns *columns);
/* The column whose border (its end edge) is within a few pixels of @x,
 * in the header's coordinates; LUMO_AUDIT_N_COLUMNS for none. A press
 * there drags the border (what the header's drag gesture asks). */
LumoAuditColumn lumo_audit_header_border_at (LumoAuditHeader *self,
                                             double           x);
/* @column LUMO_AUDIT_N_COLUMNS: no column (the log's own order). */
void       lumo_audit_header_set_sort     (LumoAuditHeader *self,
                                           LumoAuditColumn  column,
                                           GtkSortType      order);
/* The title of @column: a button or a label. */
GtkWidget *lumo_audit_header_get_title    (LumoAuditHeader *self,
                                           LumoAuditColumn  column);
/* The button of a sortable column's title, NULL for another column. */
GtkWidget *lumo_audit_header_get_button   (LumoAuditHeader *self,
                                           LumoAuditColumn  column);

G_END_DECLS
