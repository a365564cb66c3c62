/* lumo-tool-registry.h — who holds which qualified tool name
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoToolRegistry owns the map from qualified names ("namespace.tool")
 * to the provider that registered them, across all providers. The first
 * comer keeps a name: a later provider's tool with the same qualified name
 * is refused (LUMO_ERROR_DUPLICATE, naming the holder) and never overwrites
 * it. A provider holds at most LUMO_MAX_TOOLS tools.
 */
#pragma once

#include <glib-object.h>

#include "lumo-protocol.h"
#include "lumo-types.h"

G_BEGIN_DECLS

#define LUMO_TYPE_TOOL_REGISTRY (lumo_tool_registry_get_type ())
G_DECLARE_FINAL_TYPE (LumoToolRegistry, lumo_tool_registry, LUMO, TOOL_REGISTRY, GObject)

LumoToolRegistry   *lumo_tool_registry_new             (void);
/* Registers one tool of @provider_id (an extension ID). The info is
 * copied. A tool that @provider_id already holds under the same name is
 * replaced (a provider may update its own tools). */
gboolean            lumo_tool_registry_add             (LumoToolRegistry    *self,
                                                        const char          *provider_id,
                                                        const LumoToolInfo  *tool,
                                                        GError             **error);
/* Replaces all tools of @provider_id with those of @catalogue. Tools that
 * are refused (a name held by another provider) are appended to
 * @refusals (LumoToolRefusal, may be NULL). Returns how many were
 * registered. */
guint               lumo_tool_registry_set_catalogue   (LumoToolRegistry    *self,
                                                        const char          *provider_id,
                                                        const LumoCatalogue *catalogue,
                                                        GPtrArray           *refusals);
/* Returns how many tools were removed. */
guint               lumo_tool_registry_remove_provider (LumoToolRegistry    *self,
                                                        const char          *provider_id);
/* Returns the holder's provider ID (and the tool), or NULL. */
const char         *lumo_tool_registry_lookup          (LumoToolRegistry    *self,
                                                        const char          *qualified_name,
                                                        const LumoToolInfo **tool);
guint               lumo_tool_registry_count           (LumoToolRegistry    *self,
                                                        const char          *provider_id);
guint               lumo_tool_registry_get_n_tools     (LumoToolRegistry    *self);
/* The qualified names @provider_id holds, sorted (free with g_strfreev). */
char              **lumo_tool_registry_list            (LumoToolRegistry    *self,
                                                        const char          *provider_id);

/* Signals: ::changed (const char *provider_id) after any change of that
 * provider's tools. */

G_END_DECLS
