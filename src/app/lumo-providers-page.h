/* lumo-providers-page.h — the Providers page: known providers and probes
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoProvidersPage lists every provider the policy knows (connected ones
 * appear by themselves; a person can add another extension ID to watch),
 * and runs "Probe now": a connected provider sends the L0 probe to the
 * extension (the backend's probeTarget) and reports the raw outcome, which
 * the core maps through the state table to the message shown.
 */
#pragma once

#include <adwaita.h>

#include "lumo-browsers-group.h"
#include "lumo-probe-status.h"
#include "lumo-provider-model.h"

G_BEGIN_DECLS

#define LUMO_TYPE_PROVIDERS_PAGE (lumo_providers_page_get_type ())
G_DECLARE_FINAL_TYPE (LumoProvidersPage, lumo_providers_page, LUMO, PROVIDERS_PAGE, AdwBin)

void               lumo_providers_page_set_backend   (LumoProvidersPage      *self,
                                                      LumoBackend            *backend);
LumoProviderModel *lumo_providers_page_get_providers (LumoProvidersPage      *self);
/* The Browsers group (one-click browser integration) below the providers. */
LumoBrowsersGroup *lumo_providers_page_get_browsers  (LumoProvidersPage      *self);
/* What a finished probe does: maps @outcome and shows it on the provider's
 * row. FALSE if the provider is not listed. */
gboolean           lumo_providers_page_show_outcome  (LumoProvidersPage      *self,
                                                      const char             *provider_id,
                                                      const LumoProbeOutcome *outcome);

G_END_DECLS
