/* lumo-access-page.h — the Access page: who may use one provider, and how
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoAccessPage presents and edits the policy of one provider at a time (a
 * selector appears when there is more than one): the three switches, the
 * allow-list, the review grants (LumoGrantsGroup) and the deny-list,
 * adding an agent by its ID (checked as it is typed with the core's own
 * rule), the Desktop Agents group (the same for every provider,
 * LumoAgentsGroup), and the policy history with undo of the last change.
 * Every edit goes straight to LumoPolicy, and every change in the policy
 * — from this window, the CLI or another process — moves the widgets; the
 * page keeps no policy state of its own.
 */
#pragma once

#include <adwaita.h>

#include "lumo-agents-group.h"
#include "lumo-caller-model.h"
#include "lumo-policy.h"

G_BEGIN_DECLS

#define LUMO_TYPE_ACCESS_PAGE (lumo_access_page_get_type ())
G_DECLARE_FINAL_TYPE (LumoAccessPage, lumo_access_page, LUMO, ACCESS_PAGE, AdwBin)

void             lumo_access_page_set_backend  (LumoAccessPage   *self,
                                                LumoBackend      *backend);
/* The provider shown; FALSE if it is not known. */
gboolean         lumo_access_page_set_provider (LumoAccessPage   *self,
                                                const char       *provider_id);
const char      *lumo_access_page_get_provider (LumoAccessPage   *self);
/* The widgets a person uses, for tests that act through them. */
GtkSwitch       *lumo_access_page_get_switch   (LumoAccessPage   *self,
                                                LumoPolicySwitch  sw);
LumoCallerModel *lumo_access_page_get_allowed  (LumoAccessPage   *self);
LumoCallerModel *lumo_access_page_get_denied   (LumoAccessPage   *self);
AdwEntryRow     *lumo_access_page_get_add_entry (LumoAccessPage  *self);
GtkWidget       *lumo_access_page_get_add_button (LumoAccessPage *self);
GtkLabel        *lumo_access_page_get_add_error (LumoAccessPage  *self);
/* The Desktop Agents group (not per provider). */
LumoAgentsGroup *lumo_access_page_get_agents_group (LumoAccessPage *self);

G_END_DECLS
