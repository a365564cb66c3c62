/* lumo-window-private.h — the pages of a LumoWindow, for tests and tools
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "lumo-access-page.h"
#include "lumo-activity-page.h"
#include "lumo-audit-page.h"
#include "lumo-managed-banner.h"
#include "lumo-providers-page.h"
#include "lumo-requests-page.h"
#include "lumo-window.h"

G_BEGIN_DECLS

/* Each builds its page if it was not shown yet (hidden, with its backend). */
LumoRequestsPage  *_lumo_window_get_requests_page  (LumoWindow *self);
LumoAccessPage    *_lumo_window_get_access_page    (LumoWindow *self);
LumoActivityPage  *_lumo_window_get_activity_page  (LumoWindow *self);
LumoProvidersPage *_lumo_window_get_providers_page (LumoWindow *self);
LumoAuditPage     *_lumo_window_get_audit_page     (LumoWindow *self);
LumoManagedBanner *_lumo_window_get_managed_banner (LumoWindow *self);
/* Points both browser lists (the first-run set-up's and the Providers
 * page's) at another home, system root and search path; see
 * lumo_browsers_group_set_locations(). For tests and screenshots. */
void               _lumo_window_set_browser_locations (LumoWindow         *self,
                                                       const char         *home_dir,
                                                       const char         *system_root,
                                                       const char * const *search_path);

G_END_DECLS
