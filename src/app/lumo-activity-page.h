/* lumo-activity-page.h — the Activity page: live write meters and sessions
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoActivityPage shows what agents are doing now: a write meter per agent
 * (LumoMeterModel over the policy's rate limiter; the meters move as writes
 * happen and drain as they age out) and the open L1 sessions of each
 * provider, as the backend reports its ports, with the desktop agents'
 * sessions of the LumoGateway (their transport, HTTP or stdio) beside
 * them. A desktop agent's meter carries the "Desktop agent" tag.
 */
#pragma once

#include <adwaita.h>

#include "lumo-meter-model.h"
#include "lumo-types.h"

G_BEGIN_DECLS

#define LUMO_TYPE_ACTIVITY_PAGE (lumo_activity_page_get_type ())
G_DECLARE_FINAL_TYPE (LumoActivityPage, lumo_activity_page, LUMO, ACTIVITY_PAGE, AdwBin)

void            lumo_activity_page_set_backend (LumoActivityPage *self,
                                                LumoBackend      *backend);
/* The desktop agents' sessions to show too (after set_backend). */
void            lumo_activity_page_set_gateway (LumoActivityPage *self,
                                                LumoGateway      *gateway);
LumoMeterModel *lumo_activity_page_get_meters  (LumoActivityPage *self);

G_END_DECLS
