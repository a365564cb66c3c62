/* lumo-backend.c — the provider backend hosted in the app
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A placeholder that keeps the tree linking while the real backend is
 * written: every session is refused as unavailable.
 */
#define G_LOG_DOMAIN "lumo-backend"

#include "config.h"

#include "lumo-backend.h"
#include "lumo-error.h"

struct _LumoBackend
{
  GObject          parent_instance;
  LumoReviewQueue *review_queue;
};

G_DEFINE_FINAL_TYPE (LumoBackend, lumo_backend, G_TYPE_OBJECT)

static void
lumo_backend_class_init (LumoBackendClass *klass)
{
}

static void
lumo_backend_init (LumoBackend *self)
{
}

LumoBackend *
lumo_backend_new_for_data_dir (const char  *data_dir,
                               GError     **error)
{
  g_set_error_literal (error, LUMO_ERROR, LUMO_ERROR_UNAVAILABLE,
                       "The bridge backend is not implemented yet");
  return NULL;
}

LumoReviewQueue *
lumo_backend_get_review_queue (LumoBackend *self)
{
  g_return_val_if_fail (LUMO_IS_BACKEND (self), NULL);

  return self->review_queue;
}

void
lumo_backend_attach_async (LumoBackend         *self,
                           const char          *origin,
                           GInputStream        *input,
                           GOutputStream       *output,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  g_task_report_new_error (self, callback, user_data, lumo_backend_attach_async,
                           LUMO_ERROR, LUMO_ERROR_UNAVAILABLE,
                           "The bridge backend is not implemented yet");
}

char *
lumo_backend_attach_finish (LumoBackend   *self,
                            GAsyncResult  *result,
                            GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}
