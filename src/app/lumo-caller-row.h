/* lumo-caller-row.h — one caller waiting for approval
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoCallerRow shows one pending LumoCallerItem: the display name as the
 * caller gave it (plain text, never markup), its 32-letter ID in monospace,
 * the provider it wants, when it was first seen and how many probes it
 * sent, with Approve and Deny (the "requests.approve-caller" and
 * "requests.deny-caller" actions) and a check box for acting on several.
 */
#pragma once

#include <gtk/gtk.h>

#include "lumo-caller-model.h"

G_BEGIN_DECLS

#define LUMO_TYPE_CALLER_ROW (lumo_caller_row_get_type ())
G_DECLARE_FINAL_TYPE (LumoCallerRow, lumo_caller_row, LUMO, CALLER_ROW, GtkListBoxRow)

GtkWidget      *lumo_caller_row_new         (LumoCallerItem *item,
                                             const char     *provider_title);
LumoCallerItem *lumo_caller_row_get_item    (LumoCallerRow  *self);
gboolean        lumo_caller_row_get_checked (LumoCallerRow  *self);
void            lumo_caller_row_set_checked (LumoCallerRow  *self,
                                             gboolean        checked);

G_END_DECLS
