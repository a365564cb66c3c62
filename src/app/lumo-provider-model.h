/* lumo-provider-model.h — the known providers as a live list model
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoProviderModel owns a GListModel of LumoProviderItem: every provider
 * the policy knows (those that said hello and those watched by hand), in
 * the policy's order, with whether a bridge session of it is connected and
 * how many tools it holds. It follows the policy, the backend's sessions
 * and the tool registry. Each item also carries the outcome of the latest
 * "Probe now" of that provider, which is presentation state of the app.
 */
#pragma once

#include <gio/gio.h>

#include "lumo-policy.h"
#include "lumo-probe-status.h"

G_BEGIN_DECLS

#define LUMO_TYPE_PROVIDER_ITEM (lumo_provider_item_get_type ())
G_DECLARE_FINAL_TYPE (LumoProviderItem, lumo_provider_item, LUMO, PROVIDER_ITEM, GObject)

const LumoProviderInfo *lumo_provider_item_get_info      (LumoProviderItem *self);
const char             *lumo_provider_item_get_id        (LumoProviderItem *self);
/* The display name from hello, else the namespace, else the ID. */
const char             *lumo_provider_item_get_title     (LumoProviderItem *self);
gboolean                lumo_provider_item_get_connected (LumoProviderItem *self);
guint                   lumo_provider_item_get_n_tools   (LumoProviderItem *self);
/* The latest probe: FALSE if there was none yet. @message is the state
 * table's message, translated. @time_us is wall-clock µs. */
gboolean                lumo_provider_item_get_probe     (LumoProviderItem *self,
                                                          LumoProbeRow     *row,
                                                          LumoProbeState   *state,
                                                          const char      **message,
                                                          gint64           *time_us);
void                    lumo_provider_item_set_probe     (LumoProviderItem *self,
                                                          LumoProbeRow      row,
                                                          LumoProbeState    state,
                                                          const char       *message,
                                                          gint64            time_us);
gboolean                lumo_provider_item_get_probing   (LumoProviderItem *self);
void                    lumo_provider_item_set_probing   (LumoProviderItem *self,
                                                          gboolean          probing);

#define LUMO_TYPE_PROVIDER_MODEL (lumo_provider_model_get_type ())
G_DECLARE_FINAL_TYPE (LumoProviderModel, lumo_provider_model, LUMO, PROVIDER_MODEL, GObject)

LumoProviderModel *lumo_provider_model_new  (LumoBackend       *backend);
LumoBackend       *lumo_provider_model_get_backend (LumoProviderModel *self);
/* Borrowed; NULL if the provider is not known. */
LumoProviderItem  *lumo_provider_model_find (LumoProviderModel *self,
                                             const char        *provider_id,
                                             guint             *position);

G_END_DECLS
