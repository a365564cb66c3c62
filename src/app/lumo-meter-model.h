/* lumo-meter-model.h — live per-caller write meters
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoMeterModel owns a GListModel of LumoMeterItem, one per caller that
 * is allowed or has writes in the sliding window: how many of the limit it
 * used in the window now, when the next slot frees, and when in the window
 * its writes happened (the sparkline). It reads the LumoRateLimiter of the
 * policy and never counts by itself, so the meter shows exactly what the
 * next authorize would decide.
 *
 * While any meter is above zero one timer refreshes every meter once a
 * second, so they drain as writes age out; when all are at zero the timer
 * is removed (no wake-ups while idle).
 */
#pragma once

#include <gio/gio.h>

#include "lumo-policy.h"

G_BEGIN_DECLS

/* The sparkline: the window in this many buckets, oldest first. */
#define LUMO_METER_N_BUCKETS 12

#define LUMO_TYPE_METER_ITEM (lumo_meter_item_get_type ())
G_DECLARE_FINAL_TYPE (LumoMeterItem, lumo_meter_item, LUMO, METER_ITEM, GObject)

const char *lumo_meter_item_get_provider_id  (LumoMeterItem *self);
const char *lumo_meter_item_get_caller_id    (LumoMeterItem *self);
const char *lumo_meter_item_get_title        (LumoMeterItem *self);
guint       lumo_meter_item_get_used         (LumoMeterItem *self);
guint       lumo_meter_item_get_limit        (LumoMeterItem *self);
/* TRUE when the next write would be refused. */
gboolean    lumo_meter_item_get_full         (LumoMeterItem *self);
/* µs until the oldest write leaves the window (0 when empty): when full,
 * the time until a write is allowed again. */
gint64      lumo_meter_item_get_next_free_us (LumoMeterItem *self);
/* Writes seen by this app per bucket of the window, oldest bucket first;
 * LUMO_METER_N_BUCKETS values. */
const guint *lumo_meter_item_get_history     (LumoMeterItem *self);

#define LUMO_TYPE_METER_MODEL (lumo_meter_model_get_type ())
G_DECLARE_FINAL_TYPE (LumoMeterModel, lumo_meter_model, LUMO, METER_MODEL, GObject)

LumoMeterModel *lumo_meter_model_new         (LumoPolicy     *policy);
/* Reads every meter now (the timer calls this). */
void            lumo_meter_model_tick        (LumoMeterModel *self);
/* TRUE while the once-a-second timer exists. */
gboolean        lumo_meter_model_get_ticking (LumoMeterModel *self);
/* Borrowed; NULL if there is no meter for that caller. */
LumoMeterItem  *lumo_meter_model_find        (LumoMeterModel *self,
                                              const char     *provider_id,
                                              const char     *caller_id);

G_END_DECLS
