/* lumo-managed-banner.h — the window's word that a managed policy file is wrong
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoManagedBanner follows one LumoPolicy and, while its managed policy
 * has problems (a file that does not parse, a value of the wrong type),
 * reveals a bar at the top of the window that says so, that the strictest
 * reading is in force, and lists each problem with its file, line and
 * field. libadwaita 1.2 has no AdwBanner: this is a GtkRevealer with a
 * styled box (.managed-banner in style.css).
 */
#pragma once

#include <adwaita.h>

#include "lumo-policy.h"

G_BEGIN_DECLS

#define LUMO_TYPE_MANAGED_BANNER (lumo_managed_banner_get_type ())
G_DECLARE_FINAL_TYPE (LumoManagedBanner, lumo_managed_banner, LUMO, MANAGED_BANNER, AdwBin)

void         lumo_managed_banner_set_policy   (LumoManagedBanner *self,
                                               LumoPolicy        *policy);
/* TRUE while the bar is (being) shown. */
gboolean     lumo_managed_banner_is_revealed  (LumoManagedBanner *self);
/* The lines shown, one a problem (for tests). */
const char  *lumo_managed_banner_get_details  (LumoManagedBanner *self);

G_END_DECLS
