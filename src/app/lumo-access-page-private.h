/* lumo-access-page-private.h — what the Access page's files share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "lumo-access-page.h"
#include "lumo-grants-group.h"
#include "lumo-agents-group.h"
#include "lumo-id-entry.h"
#include "lumo-provider-model.h"

G_BEGIN_DECLS

struct _LumoAccessPage
{
  AdwBin             parent_instance;

  /* Template widgets */
  GtkStack          *stack;
  AdwPreferencesGroup *provider_group;
  AdwComboRow       *provider_row;
  AdwActionRow      *enabled_row;
  AdwActionRow      *writes_row;
  AdwActionRow      *review_row;
  GtkSwitch         *enabled_switch;
  GtkSwitch         *writes_switch;
  GtkSwitch         *review_switch;
  GtkListBox        *allowed_list;
  LumoGrantsGroup   *grants_group;
  GtkListBox        *denied_list;
  LumoIdEntry       *add_entry;
  LumoAgentsGroup   *agents_group;
  GtkListBox        *history_list;

  /* Owned */
  LumoBackend       *backend;
  LumoProviderModel *providers;
  LumoCallerModel   *allowed;
  LumoCallerModel   *denied;
  char              *provider_id;
  gboolean           syncing;     /* switches are being set from the policy */
};

/* lumo-access-history.c */
void _lumo_access_page_reload_history (LumoAccessPage *self);
void _lumo_access_page_undo_action    (GtkWidget      *widget,
                                       const char     *action_name,
                                       GVariant       *param);

G_END_DECLS
