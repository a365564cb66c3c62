/* lumo-grants-group.h — the review grants of one provider, with Revoke
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoGrantsGroup is the Access page's "Grants" group: the review grants
 * in force for the provider shown (lumo_policy_list_grants()), one row
 * each — the tool, who may write it without asking, and until when — with
 * a Revoke button ("grants.revoke", (provider, caller, tool)). It follows
 * the policy: a grant made on the Requests page, by a notification or the
 * CLI, revoked anywhere, cleared with its caller, or run out, moves the
 * list. It keeps no grant state of its own.
 */
#pragma once

#include <adwaita.h>

#include "lumo-policy.h"

G_BEGIN_DECLS

#define LUMO_TYPE_GRANTS_GROUP (lumo_grants_group_get_type ())
G_DECLARE_FINAL_TYPE (LumoGrantsGroup, lumo_grants_group, LUMO, GRANTS_GROUP, AdwPreferencesGroup)

/* Once, before a provider is shown. */
void        lumo_grants_group_set_policy      (LumoGrantsGroup *self,
                                               LumoPolicy      *policy);
/* The provider whose grants are listed; NULL: none. */
void        lumo_grants_group_set_provider_id (LumoGrantsGroup *self,
                                               const char      *provider_id);
/* The list of rows (one AdwActionRow per grant), for tests. */
GtkListBox *lumo_grants_group_get_list        (LumoGrantsGroup *self);

G_END_DECLS
