/* lumo-managed-settings.c — the review timeout and the audit retention in
 * force
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-backend"

#include "config.h"

#include "lumo-audit-store.h"
#include "lumo-managed-policy.h"
#include "lumo-managed-settings.h"
#include "lumo-policy.h"
#include "lumo-review-queue.h"

struct _LumoManagedSettings
{
  GObject          parent_instance;

  /* owned */
  LumoPolicy      *policy;
  LumoReviewQueue *review_queue;
  LumoAuditStore  *audit_store;

  /* What the person chose. */
  guint            review_timeout_s;   /* 0: not set, the queue's own */
  guint            retention_days;     /* 0: forever */
};

G_DEFINE_FINAL_TYPE (LumoManagedSettings, lumo_managed_settings, G_TYPE_OBJECT)

static void
apply_review_timeout (LumoManagedSettings *self)
{
  LumoManagedPolicy *managed = lumo_policy_get_managed (self->policy);
  guint user = self->review_timeout_s != 0 ? self->review_timeout_s : LUMO_REVIEW_DEFAULT_TIMEOUT_S;

  lumo_review_queue_set_timeout (self->review_queue,
                                 lumo_managed_policy_apply_review_timeout (managed, user, NULL));
}

static void
on_policy_managed_changed_cb (LumoPolicy          *policy,
                              LumoManagedSettings *self)
{
  apply_review_timeout (self);
}

static void
lumo_managed_settings_dispose (GObject *object)
{
  LumoManagedSettings *self = LUMO_MANAGED_SETTINGS (object);

  if (self->policy != NULL)
    g_signal_handlers_disconnect_by_data (self->policy, self);
  g_clear_object (&self->policy);
  g_clear_object (&self->review_queue);
  g_clear_object (&self->audit_store);

  G_OBJECT_CLASS (lumo_managed_settings_parent_class)->dispose (object);
}

static void
lumo_managed_settings_class_init (LumoManagedSettingsClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = lumo_managed_settings_dispose;
}

static void
lumo_managed_settings_init (LumoManagedSettings *self)
{
}

LumoManagedSettings *
lumo_managed_settings_new (LumoPolicy      *policy,
                           LumoReviewQueue *review_queue,
                           LumoAuditStore  *audit_store)
{
  LumoManagedSettings *self;

  g_return_val_if_fail (LUMO_IS_POLICY (policy), NULL);
  g_return_val_if_fail (LUMO_IS_REVIEW_QUEUE (review_queue), NULL);
  g_return_val_if_fail (LUMO_IS_AUDIT_STORE (audit_store), NULL);

  self = g_object_new (LUMO_TYPE_MANAGED_SETTINGS, NULL);
  self->policy = g_object_ref (policy);
  self->review_queue = g_object_ref (review_queue);
  self->audit_store = g_object_ref (audit_store);

  g_signal_connect (policy, "managed-changed", G_CALLBACK (on_policy_managed_changed_cb), self);
  /* The queue's own timeout, made to fit the files from the start. */
  self->review_timeout_s = lumo_review_queue_get_timeout (review_queue);
  apply_review_timeout (self);

  return self;
}

void
lumo_managed_settings_set_review_timeout (LumoManagedSettings *self,
                                          guint                seconds)
{
  g_return_if_fail (LUMO_IS_MANAGED_SETTINGS (self));
  g_return_if_fail (seconds >= 1 && seconds <= LUMO_REVIEW_MAX_TIMEOUT_S);

  self->review_timeout_s = seconds;
  apply_review_timeout (self);
}

void
lumo_managed_settings_set_audit_retention (LumoManagedSettings *self,
                                           guint                days)
{
  g_return_if_fail (LUMO_IS_MANAGED_SETTINGS (self));
  g_return_if_fail (days <= LUMO_MANAGED_MAX_RETENTION_DAYS);

  self->retention_days = days;
}

guint
lumo_managed_settings_get_audit_retention (LumoManagedSettings *self)
{
  g_return_val_if_fail (LUMO_IS_MANAGED_SETTINGS (self), LUMO_MANAGED_RETENTION_FOREVER);

  return lumo_managed_policy_apply_retention (lumo_policy_get_managed (self->policy),
                                              self->retention_days, NULL);
}

static void
retention_in_thread (GTask        *task,
                     gpointer      source_object,
                     gpointer      task_data,
                     GCancellable *cancellable)
{
  LumoAuditStore *store = task_data;
  guint days = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (task), "days"));
  GError *error = NULL;
  gint64 n;

  if ((n = lumo_audit_store_apply_retention (store, days, &error)) < 0)
    g_task_return_error (task, error);
  else
    g_task_return_int (task, n);
}

void
lumo_managed_settings_apply_retention_async (LumoManagedSettings *self,
                                             GCancellable        *cancellable,
                                             GAsyncReadyCallback  callback,
                                             gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  guint days;

  g_return_if_fail (LUMO_IS_MANAGED_SETTINGS (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, lumo_managed_settings_apply_retention_async);

  /* Decided here, on the policy's thread; the thread only deletes. */
  if ((days = lumo_managed_settings_get_audit_retention (self)) == LUMO_MANAGED_RETENTION_FOREVER)
    {
      g_task_return_int (task, 0);
      return;
    }

  g_task_set_task_data (task, g_object_ref (self->audit_store), g_object_unref);
  g_object_set_data (G_OBJECT (task), "days", GUINT_TO_POINTER (days));
  g_task_run_in_thread (task, retention_in_thread);
}

gint64
lumo_managed_settings_apply_retention_finish (LumoManagedSettings  *self,
                                              GAsyncResult         *result,
                                              GError              **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), -1);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == lumo_managed_settings_apply_retention_async, -1);

  return g_task_propagate_int (G_TASK (result), error);
}
