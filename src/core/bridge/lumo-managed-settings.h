/* lumo-managed-settings.h — the app's settings under the managed policy
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoManagedSettings owns the person's value of the settings the managed
 * policy bounds outside policy.db — the review timeout and the audit
 * retention (GSettings in the app, a variable in tests) — and keeps what
 * is in force in the review queue and the audit store: the person's value
 * made stricter by the files (lumo_managed_policy_apply_review_timeout(),
 * _apply_retention()), again whenever the policy says ::managed-changed.
 * The backend owns one (lumo_backend_get_managed_settings()).
 */
#pragma once

#include <gio/gio.h>

#include "lumo-types.h"

G_BEGIN_DECLS

#define LUMO_TYPE_MANAGED_SETTINGS (lumo_managed_settings_get_type ())
G_DECLARE_FINAL_TYPE (LumoManagedSettings, lumo_managed_settings, LUMO, MANAGED_SETTINGS, GObject)

LumoManagedSettings *lumo_managed_settings_new                (LumoPolicy          *policy,
                                                               LumoReviewQueue     *review_queue,
                                                               LumoAuditStore      *audit_store);

/* The person's review timeout (1 … LUMO_REVIEW_MAX_TIMEOUT_S seconds); the
 * queue gets it within the files' bounds. Until set, the queue's own. */
void                 lumo_managed_settings_set_review_timeout (LumoManagedSettings *self,
                                                               guint                seconds);
/* The person's audit retention in days (0: forever, the default until
 * set). Only what is in force is ever applied. */
void                 lumo_managed_settings_set_audit_retention (LumoManagedSettings *self,
                                                                guint                days);
/* In days, 0 for forever: the longer of the person's and the files'. */
guint                lumo_managed_settings_get_audit_retention (LumoManagedSettings *self);
/* Removes the audit rows older than the retention in force, in a thread
 * (nothing when it is forever). Returns how many, -1 with @error. */
void                 lumo_managed_settings_apply_retention_async  (LumoManagedSettings *self,
                                                                   GCancellable        *cancellable,
                                                                   GAsyncReadyCallback  callback,
                                                                   gpointer             user_data);
gint64               lumo_managed_settings_apply_retention_finish (LumoManagedSettings *self,
                                                                   GAsyncResult        *result,
                                                                   GError             **error);

G_END_DECLS
