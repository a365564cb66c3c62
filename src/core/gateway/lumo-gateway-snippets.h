/* lumo-gateway-snippets.h — what a person pastes into an MCP client
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The one home of the set-ups shown when an agent is added (the Add Agent
 * dialog, `lumo-access-ctl agents add --json`): the endpoint's URL, a
 * Claude Code command line, VS Code's and Cursor's mcp.json, and Claude
 * Desktop's stdio entry that runs the launcher — in a Flatpak, through
 * `flatpak run`, the only way in from outside the sandbox. Every name and
 * value is quoted for its shell or JSON, never pasted raw, and written as
 * a recommended server's set-up is (lumo-client-setup.h).
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* The endpoint's port unless GSettings desktop-agents-port says another. */
#define LUMO_GATEWAY_DEFAULT_PORT     8137
/* The launcher, installed beside the native-messaging helper. */
#define LUMO_GATEWAY_LAUNCHER_NAME    "lumo-access-mcp"
/* What the launcher reads the token from. */
#define LUMO_GATEWAY_TOKEN_ENV        "LUMO_ACCESS_TOKEN"

/* "http://127.0.0.1:PORT/mcp/NAMESPACE". */
char       *lumo_gateway_endpoint_url     (const char *namespace_,
                                           guint       port);
/* The name the clients list the server under: "lumo-NAMESPACE". */
char       *lumo_gateway_server_name      (const char *namespace_);

/* A new object of strings, each ready to paste:
 *   url            lumo_gateway_endpoint_url()
 *   claudeCode     claude mcp add --transport http NAME URL
 *                    --header 'Authorization: Bearer TOKEN'
 *   vscode         .vscode/mcp.json: {"servers": {NAME: {"type": "http",
 *                    "url": URL, "headers": {"Authorization": …}}}}
 *   cursor         .cursor/mcp.json: the same under "mcpServers"
 *   claudeDesktop  claude_desktop_config.json: {"mcpServers": {NAME:
 *                    {"command": LAUNCHER, "args": [NAMESPACE],
 *                     "env": {"LUMO_ACCESS_TOKEN": TOKEN}}}}
 * @namespace_ must pass lumo_validate_namespace(). @flatpak_app_id (NULL
 * outside a Flatpak, lumo_paths_dup_flatpak_app_id()) makes the launcher
 * `flatpak run --command=lumo-access-mcp APP_ID NAMESPACE`; otherwise it
 * is the installed launcher's absolute path. */
JsonObject *lumo_gateway_build_snippets   (const char *namespace_,
                                           const char *token,
                                           guint       port,
                                           const char *flatpak_app_id);

G_END_DECLS
