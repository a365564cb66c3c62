/* lumo-audit-detail.h — every field of one audit row
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoAuditDetail shows one LumoAuditRow in full: times, provider, agent,
 * tool, target, whether a review grant let the write through, the keyed
 * parameter hash, decision, reason, result, the row's chain hash and
 * what the last "Verify Log" said about it; a caller the row records as a
 * desktop agent carries the "Desktop agent" tag (lumo_ui_agent_tag_new()).
 * The row holds no arguments and no source, and neither does this pane:
 * it shows hashes only.
 */
#pragma once

#include <gtk/gtk.h>

#include "lumo-audit-store.h"

G_BEGIN_DECLS

#define LUMO_TYPE_AUDIT_DETAIL (lumo_audit_detail_get_type ())
G_DECLARE_FINAL_TYPE (LumoAuditDetail, lumo_audit_detail, LUMO, AUDIT_DETAIL, GtkWidget)

/* @row NULL: nothing selected. @provider_title may be NULL. @report is the
 * latest verification (NULL: none since the window opened) and @verify_ok
 * whether it passed. */
void          lumo_audit_detail_set_row (LumoAuditDetail             *self,
                                         LumoAuditRow                *row,
                                         const char                  *provider_title,
                                         const LumoAuditVerifyReport *report,
                                         gboolean                     verify_ok);
LumoAuditRow *lumo_audit_detail_get_row (LumoAuditDetail             *self);

G_END_DECLS
