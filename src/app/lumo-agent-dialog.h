/* lumo-agent-dialog.h — adding a desktop agent, and its one showing of the token
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoAgentDialog asks a name and the providers the new desktop agent may
 * use (every known provider, ticked), adds it (lumo_policy_add_agent(),
 * which cleans the name and refuses one with nothing visible), then shows
 * — once — its token and, for each of its providers that has said hello,
 * the set-ups core makes for MCP clients (lumo_gateway_build_snippets():
 * the URL, Claude Code's command, VS Code's and Cursor's mcp.json, Claude
 * Desktop's stdio entry, in their Flatpak form when the app runs in one),
 * each with a Copy button.
 *
 * The token exists in the dialog's labels only: every string it was built
 * from is cleared as soon as the labels have it, the labels are emptied
 * when the dialog closes, and the dialog is destroyed, never hidden — no
 * part of the UI can show it again.
 */
#pragma once

#include <adwaita.h>

#include "lumo-policy.h"

G_BEGIN_DECLS

#define LUMO_TYPE_AGENT_DIALOG (lumo_agent_dialog_get_type ())
G_DECLARE_FINAL_TYPE (LumoAgentDialog, lumo_agent_dialog, LUMO, AGENT_DIALOG, AdwWindow)

/* @port is the endpoint's port the set-ups name (GSettings
 * desktop-agents-port); @flatpak_app_id the app's Flatpak ID when it runs
 * in one (lumo_paths_dup_flatpak_app_id()), else NULL: the stdio set-up
 * then runs `flatpak run --command=lumo-access-mcp ID`. */
LumoAgentDialog *lumo_agent_dialog_new             (GtkWindow       *parent,
                                                    LumoPolicy      *policy,
                                                    guint            port,
                                                    const char      *flatpak_app_id);
/* The agent's ID once it is added, else NULL. */
const char      *lumo_agent_dialog_get_agent_id    (LumoAgentDialog *self);

/* The widgets a person uses, for tests that act through them. */
AdwEntryRow     *lumo_agent_dialog_get_name_row    (LumoAgentDialog *self);
GtkLabel        *lumo_agent_dialog_get_error_label (LumoAgentDialog *self);
GtkWidget       *lumo_agent_dialog_get_add_button  (LumoAgentDialog *self);
/* The tick of @provider_id in the form, or NULL. */
GtkCheckButton  *lumo_agent_dialog_get_provider_check (LumoAgentDialog *self,
                                                       const char      *provider_id);
/* After adding: the label that shows @key ("token" with @provider_id
 * NULL, else a member of lumo_gateway_build_snippets(): "url",
 * "claudeCode", "vscode", "cursor", "claudeDesktop") and its Copy button.
 * FALSE when there is none. */
gboolean         lumo_agent_dialog_get_secret      (LumoAgentDialog *self,
                                                    const char      *provider_id,
                                                    const char      *key,
                                                    GtkLabel       **label,
                                                    GtkWidget      **copy_button);

G_END_DECLS
