/* lumo-types.h — forward declarations shared by src/core and its users
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

typedef struct _LumoPolicy        LumoPolicy;
typedef struct _LumoRateLimiter   LumoRateLimiter;
typedef struct _LumoReviewQueue   LumoReviewQueue;
typedef struct _LumoReviewRequest LumoReviewRequest;
typedef struct _LumoAuditStore    LumoAuditStore;
typedef struct _LumoToolRegistry  LumoToolRegistry;
typedef struct _LumoFrameReader   LumoFrameReader;
typedef struct _LumoFrameWriter   LumoFrameWriter;
typedef struct _LumoBridgeSession LumoBridgeSession;
typedef struct _LumoBackend       LumoBackend;
typedef struct _LumoAgentPort     LumoAgentPort;
typedef struct _LumoGateway       LumoGateway;
typedef struct _LumoAgentSession  LumoAgentSession;

/* A monotonic clock in microseconds, injectable so that tests can step time
 * (forwards, and backwards to prove nothing reopens). NULL means
 * g_get_monotonic_time(). */
typedef gint64 (*LumoClockFunc) (gpointer user_data);

G_END_DECLS
