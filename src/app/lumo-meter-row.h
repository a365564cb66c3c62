/* lumo-meter-row.h — one caller's write meter on the Activity page
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoMeterRow follows one LumoMeterItem: the caller, "used of limit", the
 * LumoRateMeter drawing, and when the next write is allowed once the
 * window is full.
 */
#pragma once

#include <gtk/gtk.h>

#include "lumo-meter-model.h"

G_BEGIN_DECLS

#define LUMO_TYPE_METER_ROW (lumo_meter_row_get_type ())
G_DECLARE_FINAL_TYPE (LumoMeterRow, lumo_meter_row, LUMO, METER_ROW, GtkListBoxRow)

GtkWidget     *lumo_meter_row_new      (LumoMeterItem *item,
                                        const char    *provider_title);
LumoMeterItem *lumo_meter_row_get_item (LumoMeterRow  *self);
/* The status line as shown ("Full: next write allowed in 14 s"). */
const char    *lumo_meter_row_get_status (LumoMeterRow *self);
/* The caller is a desktop agent: the row says so beside its name. */
void           lumo_meter_row_set_desktop_agent (LumoMeterRow *self);

G_END_DECLS
