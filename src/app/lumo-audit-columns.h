/* lumo-audit-columns.h — the widths of the Audit page's columns
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoAuditColumns is where the Audit page's header (LumoAuditHeader) and
 * its rows (LumoAuditRowView) find their columns: one object per page,
 * which the page gives to the header and to each row, so the titles and
 * the cells line up by construction (lumo_audit_columns_layout(), the
 * same widths for all). Each column has a default width, a minimum, and
 * whether it shares what a wide row leaves; a narrow row drops columns in
 * a fixed order (the time, the agent and the outcome never leave).
 *
 * A person can give a column a width of their own by dragging the border
 * after its title (lumo_audit_columns_resize()): it keeps that width while
 * the window changes, as long as the others fit at their minimums, and the
 * expanding columns without a width of their own take what is left. The
 * columns before it keep where they were (a resize fixes their widths
 * too); a double click on a border gives a column its default back. The
 * widths live as long as the page (they are not kept across launches).
 * "changed" tells the header and the rows to lay out again.
 */
#pragma once

#include <glib-object.h>

#include "lumo-audit-item.h"
#include "lumo-audit-query.h"

G_BEGIN_DECLS

/* Where a column is in a row (or the header) of a given width, in pixels
 * from its start edge; a @width of 0 means the column is left out (a
 * narrow window keeps the time, the agent and the outcome). */
typedef struct
{
  int x;
  int width;
} LumoAuditSpan;

#define LUMO_TYPE_AUDIT_COLUMNS (lumo_audit_columns_get_type ())
G_DECLARE_FINAL_TYPE (LumoAuditColumns, lumo_audit_columns, LUMO, AUDIT_COLUMNS, GObject)

LumoAuditColumns *lumo_audit_columns_new         (void);
/* The columns of a row @width wide: they fill it, one after the other. */
void              lumo_audit_columns_layout      (LumoAuditColumns *self,
                                                  int               width,
                                                  LumoAuditSpan     spans[LUMO_AUDIT_N_COLUMNS]);
/* The sum of the columns' default widths (a row's natural width). */
int               lumo_audit_columns_get_natural (void);
/* The least width a column is given while the row has room for it. */
int               lumo_audit_columns_get_minimum (LumoAuditColumn   column);
/* The width a person gave @column, 0 for its default. */
int               lumo_audit_columns_get_width   (LumoAuditColumns *self,
                                                  LumoAuditColumn   column);
/* Gives @column @width in rows @total wide, no less than its minimum and
 * no more than leaves the other columns shown their minimums (or their own
 * widths). The columns before it keep the widths they have (as their
 * own), so that a dragged border follows the pointer. Emits "changed"
 * when a width changes. */
void              lumo_audit_columns_resize      (LumoAuditColumns *self,
                                                  LumoAuditColumn   column,
                                                  int               width,
                                                  int               total);
/* Back to @column's default width (it shares extra room again). */
void              lumo_audit_columns_reset       (LumoAuditColumns *self,
                                                  LumoAuditColumn   column);

/* The store's order @column's title sorts by; LUMO_AUDIT_SORT_ID when it
 * does not sort (the provider, the target, the hash). */
LumoAuditSortKey  lumo_audit_column_get_sort_key (LumoAuditColumn   column);
/* The column whose title sorts by @key; LUMO_AUDIT_N_COLUMNS for the
 * log's own order. */
LumoAuditColumn   lumo_audit_column_for_sort_key (LumoAuditSortKey  key);

G_END_DECLS
