/* lumo-rate-meter.h — a bar of writes used of the limit, and a sparkline
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoRateMeter owns nothing but what it draws: used of limit as a bar
 * (accent colour, warning from 80 %, error when full) and, beside it, the
 * writes of the sliding window in LUMO_METER_N_BUCKETS small bars. It is
 * told its values (lumo_rate_meter_set_item() follows a LumoMeterItem) and
 * draws them in snapshot; it keeps no timer.
 */
#pragma once

#include <gtk/gtk.h>

#include "lumo-meter-model.h"

G_BEGIN_DECLS

#define LUMO_TYPE_RATE_METER (lumo_rate_meter_get_type ())
G_DECLARE_FINAL_TYPE (LumoRateMeter, lumo_rate_meter, LUMO, RATE_METER, GtkWidget)

GtkWidget     *lumo_rate_meter_new      (void);
/* Follows @item (NULL: shows an empty meter). */
void           lumo_rate_meter_set_item (LumoRateMeter *self,
                                         LumoMeterItem *item);
LumoMeterItem *lumo_rate_meter_get_item (LumoRateMeter *self);

G_END_DECLS
