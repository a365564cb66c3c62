/* lumo-provider-row.h — one provider on the Providers page
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoProviderRow follows one LumoProviderItem: name, namespace, version,
 * whether it is connected and how many tools it holds, the message of the
 * latest probe (the state table's wording, as the core maps it) and when it
 * was probed, with "Probe Now" ("providers.probe"). Expanded, it lists the
 * provider's tools against the protocol's limits.
 */
#pragma once

#include <gtk/gtk.h>

#include "lumo-provider-model.h"
#include "lumo-recommended-server.h"
#include "lumo-types.h"

G_BEGIN_DECLS

#define LUMO_TYPE_PROVIDER_ROW (lumo_provider_row_get_type ())
G_DECLARE_FINAL_TYPE (LumoProviderRow, lumo_provider_row, LUMO, PROVIDER_ROW, GtkListBoxRow)

/* @registry may be NULL (no tools listed). */
GtkWidget        *lumo_provider_row_new           (LumoProviderItem *item,
                                                   LumoToolRegistry *registry);
LumoProviderItem *lumo_provider_row_get_item      (LumoProviderRow  *self);
/* The probe line as shown. */
const char       *lumo_provider_row_get_probe_text (LumoProviderRow *self);
/* The MCP servers the provider recommends (LumoRecommendedServer; NULL or
 * empty hides the list): name, description and URL as text, no icon. */
void              lumo_provider_row_set_recommended (LumoProviderRow *self,
                                                     GPtrArray       *servers);

G_END_DECLS
