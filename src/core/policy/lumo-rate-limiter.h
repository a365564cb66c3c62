/* lumo-rate-limiter.h — the per-caller sliding window for writes
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoRateLimiter owns one timestamp log per key (a key is a
 * provider/caller pair, see lumo_caller_key_new()). It is exact: a write
 * admitted at t is counted until t + window, no fixed buckets. The default is
 * the protocol's 30 writes per 60 s. Time comes from an injectable monotonic
 * clock; a clock that steps backwards is clamped to the latest time seen, so
 * it can never reopen the window.
 *
 * An entry expires when now - t >= window: 30 writes at t=0 fill the window,
 * the 31st is refused, and at exactly t=60 s one is allowed again.
 */
#pragma once

#include <glib-object.h>

#include "lumo-protocol.h"
#include "lumo-types.h"

G_BEGIN_DECLS

#define LUMO_TYPE_RATE_LIMITER (lumo_rate_limiter_get_type ())
G_DECLARE_FINAL_TYPE (LumoRateLimiter, lumo_rate_limiter, LUMO, RATE_LIMITER, GObject)

LumoRateLimiter *lumo_rate_limiter_new          (guint             limit,
                                                 gint64            window_us);
void             lumo_rate_limiter_set_clock    (LumoRateLimiter  *self,
                                                 LumoClockFunc     clock,
                                                 gpointer          user_data);
gint64           lumo_rate_limiter_now          (LumoRateLimiter  *self);
/* Admits one write for @key if a slot is free and records it. When the
 * window is full, returns FALSE and sets @retry_after_us to the time until
 * the oldest entry expires. Emits ::changed on admission. */
gboolean         lumo_rate_limiter_try_acquire  (LumoRateLimiter  *self,
                                                 const char       *key,
                                                 gint64           *retry_after_us);
/* Counts an admission for @key that happened at @at_us (this limiter's
 * clock, at most now): how the window is rebuilt after a restart. One
 * already expired is ignored; past the limit only the newest are kept.
 * Emits ::changed. */
void             lumo_rate_limiter_seed         (LumoRateLimiter  *self,
                                                 const char       *key,
                                                 gint64            at_us);
/* For the live meters: entries in the window now, the limit, and the time
 * until the oldest entry expires (0 when empty). */
void             lumo_rate_limiter_usage        (LumoRateLimiter  *self,
                                                 const char       *key,
                                                 guint            *used,
                                                 guint            *limit,
                                                 gint64           *next_free_us);
/* Keys with at least one entry in the window now (free with g_strfreev). */
char           **lumo_rate_limiter_list_active  (LumoRateLimiter  *self);
guint            lumo_rate_limiter_get_limit    (LumoRateLimiter  *self);
gint64           lumo_rate_limiter_get_window   (LumoRateLimiter  *self);

G_END_DECLS
