/* lumo-caller-model.h — the callers of the policy as a live list model
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoCallerModel owns a GListModel of LumoCallerItem: the callers of one
 * provider (or of all) in one state, newest first, kept in step with the
 * LumoPolicy signals. A change in core moves the model synchronously inside
 * the signal handler, so a widget bound to it shows the change in the same
 * main-loop iteration. LumoCallerItem is a snapshot of one LumoCallerInfo
 * with notifying properties.
 */
#pragma once

#include <gio/gio.h>

#include "lumo-policy.h"

G_BEGIN_DECLS

#define LUMO_TYPE_CALLER_ITEM (lumo_caller_item_get_type ())
G_DECLARE_FINAL_TYPE (LumoCallerItem, lumo_caller_item, LUMO, CALLER_ITEM, GObject)

const LumoCallerInfo *lumo_caller_item_get_info        (LumoCallerItem *self);
const char           *lumo_caller_item_get_provider_id (LumoCallerItem *self);
const char           *lumo_caller_item_get_caller_id   (LumoCallerItem *self);
/* The display name, or the ID when the caller gave none. */
const char           *lumo_caller_item_get_title       (LumoCallerItem *self);

#define LUMO_TYPE_CALLER_MODEL (lumo_caller_model_get_type ())
G_DECLARE_FINAL_TYPE (LumoCallerModel, lumo_caller_model, LUMO, CALLER_MODEL, GObject)

/* @provider_id NULL: every provider; "": none (an empty list). @state
 * LUMO_CALLER_STATE_ANY: every state. */
LumoCallerModel *lumo_caller_model_new             (LumoPolicy      *policy,
                                                    const char      *provider_id,
                                                    LumoCallerState  state);
LumoPolicy      *lumo_caller_model_get_policy      (LumoCallerModel *self);
const char      *lumo_caller_model_get_provider_id (LumoCallerModel *self);
/* Reloads the list for another provider (NULL: every provider, "": none). */
void             lumo_caller_model_set_provider_id (LumoCallerModel *self,
                                                    const char      *provider_id);
/* The item of that caller, or NULL (borrowed). */
LumoCallerItem  *lumo_caller_model_find            (LumoCallerModel *self,
                                                    const char      *provider_id,
                                                    const char      *caller_id);

G_END_DECLS
