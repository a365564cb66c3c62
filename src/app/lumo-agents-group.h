/* lumo-agents-group.h — the Desktop Agents group of the Access page
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoAgentsGroup presents and edits what the desktop agents are: the
 * Allow desktop agents switch (bound to the desktop-agents key), the port
 * (desktop-agents-port: a typed port is applied only when it is a number
 * the schema's range accepts, else refused with why and nothing changes)
 * with what the endpoint does now (the application's desktop-agents-state:
 * listening, port in use, failed, off), and the agents of policy.db with
 * the providers each may use: Allow or Deny on each, Remove (after asking)
 * for the agent, and Add Agent…, which opens a LumoAgentDialog. It keeps
 * no state of its own: the settings and the policy move it, from this
 * window or any other process.
 */
#pragma once

#include <adwaita.h>

#include "lumo-agent-dialog.h"
#include "lumo-application.h"
#include "lumo-types.h"

G_BEGIN_DECLS

#define LUMO_TYPE_AGENTS_GROUP (lumo_agents_group_get_type ())
G_DECLARE_FINAL_TYPE (LumoAgentsGroup, lumo_agents_group, LUMO, AGENTS_GROUP, AdwPreferencesGroup)

void              lumo_agents_group_set_backend     (LumoAgentsGroup *self,
                                                     LumoBackend     *backend);
/* The application whose endpoint state the group shows; without one
 * (a window of another GtkApplication) the state reads as off. */
void              lumo_agents_group_set_application (LumoAgentsGroup *self,
                                                     LumoApplication *application);

/* The widgets a person uses, for tests that act through them. */
GtkSwitch        *lumo_agents_group_get_switch      (LumoAgentsGroup *self);
/* Its subtitle says what the endpoint does. */
AdwActionRow     *lumo_agents_group_get_state_row   (LumoAgentsGroup *self);
AdwEntryRow      *lumo_agents_group_get_port_row    (LumoAgentsGroup *self);
GtkLabel         *lumo_agents_group_get_port_error  (LumoAgentsGroup *self);
GtkWidget        *lumo_agents_group_get_add_button  (LumoAgentsGroup *self);
GtkListBox       *lumo_agents_group_get_list        (LumoAgentsGroup *self);
/* The row of @agent_id in the list, or NULL. */
AdwExpanderRow   *lumo_agents_group_find_row        (LumoAgentsGroup *self,
                                                     const char      *agent_id);
/* The Add Agent dialog and the Remove question while they are open, or
 * NULL. */
LumoAgentDialog  *lumo_agents_group_get_dialog      (LumoAgentsGroup *self);
AdwMessageDialog *lumo_agents_group_get_question    (LumoAgentsGroup *self);

G_END_DECLS
