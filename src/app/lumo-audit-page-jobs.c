/* lumo-audit-page-jobs.c — export and verification on the Audit page
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Both walk the whole log (a million rows take a while), so each runs in a
 * GTask thread with the store's own blocking call. The worker only stores
 * its progress in two atomic integers; a timer on the main thread shows
 * them, so the main loop never waits and is never flooded. One job at a
 * time; the Cancel button cancels it. An export writes to "NAME.partial"
 * and renames it over NAME only when complete, so a cancelled or failed
 * export leaves any earlier file as it was.
 */
#define G_LOG_DOMAIN "lumo-audit-page"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "lumo-audit-page-private.h"
#include "lumo-backend.h"
#include "lumo-error.h"
#include "lumo-ui-util.h"

#define PROGRESS_INTERVAL_MS 100

typedef struct
{
  LumoAuditPage         *self;      /* the job counters live here */
  LumoAuditStore        *store;
  LumoAuditQuery        *query;
  GFile                 *file;
  LumoAuditExportFormat  format;
  char                  *key_path;  /* verify a collected log with its key */
  LumoAuditVerifyReport  report;
} JobData;

static void
job_data_free (JobData *data)
{
  g_clear_object (&data->self);
  g_clear_object (&data->store);
  g_clear_pointer (&data->query, lumo_audit_query_unref);
  g_clear_object (&data->file);
  g_free (data->key_path);
  g_free (data);
}

/* Called on the worker thread. */
static void
job_progress_cb (gint64   done,
                 gint64   total,
                 gpointer user_data)
{
  JobData *data = user_data;

  g_atomic_int_set (&data->self->job_done, (gint) MIN (done, G_MAXINT));
  if (total > 0)
    g_atomic_int_set (&data->self->job_total, (gint) MIN (total, G_MAXINT));
}

static gboolean
on_job_timer_cb (gpointer user_data)
{
  LumoAuditPage *self = user_data;
  gint done = g_atomic_int_get (&self->job_done);
  gint total = g_atomic_int_get (&self->job_total);

  if (total > 0)
    gtk_progress_bar_set_fraction (self->job_progress, CLAMP ((double) done / total, 0.0, 1.0));
  else
    gtk_progress_bar_pulse (self->job_progress);

  return G_SOURCE_CONTINUE;
}

static gboolean
job_start (LumoAuditPage *self,
           const char    *label,
           gint64         total,
           GCancellable  *cancellable)
{
  if (self->job_cancellable != NULL)
    return FALSE;

  self->job_cancellable = cancellable != NULL ? g_object_ref (cancellable) : g_cancellable_new ();
  g_atomic_int_set (&self->job_done, 0);
  g_atomic_int_set (&self->job_total, (gint) MIN (total, G_MAXINT));
  gtk_label_set_text (self->job_label, label);
  gtk_progress_bar_set_fraction (self->job_progress, 0);
  gtk_revealer_set_reveal_child (self->job_revealer, TRUE);
  self->job_timer = g_timeout_add (PROGRESS_INTERVAL_MS, on_job_timer_cb, self);
  g_source_set_name_by_id (self->job_timer, "[lumo] audit job progress");

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "audit.export", FALSE);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "audit.verify", FALSE);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "audit.verify-with-key", FALSE);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "audit.cancel-job", TRUE);
  return TRUE;
}

static void
job_end (LumoAuditPage *self)
{
  g_clear_object (&self->job_cancellable);
  g_clear_handle_id (&self->job_timer, g_source_remove);
  gtk_revealer_set_reveal_child (self->job_revealer, FALSE);

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "audit.export", TRUE);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "audit.verify", TRUE);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "audit.verify-with-key",
                                 self->store != NULL && lumo_audit_store_is_read_only (self->store));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "audit.cancel-job", FALSE);
}

void
_lumo_audit_page_cancel_job (GtkWidget  *widget,
                             const char *action_name,
                             GVariant   *param)
{
  LumoAuditPage *self = LUMO_AUDIT_PAGE (widget);

  if (self->job_cancellable != NULL)
    g_cancellable_cancel (self->job_cancellable);
}

/* Starts @thread_func as the page's job; NULL (and @callback told why) if
 * another job runs or the page has no log. */
static GTask *
job_task_new (LumoAuditPage       *self,
              gpointer             source_tag,
              const char          *label,
              gint64               total,
              GCancellable        *cancellable,
              GAsyncReadyCallback  callback,
              gpointer             user_data)
{
  GTask *task;
  JobData *data;
  LumoAuditQuery *query;

  if (self->model == NULL)
    {
      g_task_report_new_error (self, callback, user_data, source_tag,
                               LUMO_ERROR, LUMO_ERROR_UNAVAILABLE, _("The audit log is not open"));
      return NULL;
    }

  if (!job_start (self, label, total, cancellable))
    {
      g_task_report_new_error (self, callback, user_data, source_tag, G_IO_ERROR, G_IO_ERROR_BUSY,
                               _("An export or a verification is running already"));
      return NULL;
    }

  task = g_task_new (self, self->job_cancellable, callback, user_data);
  g_task_set_source_tag (task, source_tag);
  /* Report the real outcome (the partial file is gone) even if cancelled. */
  g_task_set_check_cancellable (task, FALSE);

  data = g_new0 (JobData, 1);
  data->self = g_object_ref (self);
  data->store = g_object_ref (lumo_audit_model_get_store (self->model));
  if ((query = lumo_audit_model_get_query (self->model)) != NULL)
    data->query = lumo_audit_query_ref (query);
  g_task_set_task_data (task, data, (GDestroyNotify) job_data_free);

  return task;
}

static gboolean
job_finish (LumoAuditPage *self,
            GAsyncResult  *result,
            gpointer       source_tag)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == source_tag, FALSE);

  /* Reported errors (busy, no log) never started a job. */
  if (g_task_get_task_data (G_TASK (result)) != NULL)
    job_end (self);
  return TRUE;
}

/* ---- export ------------------------------------------------------------- */

static GFile *
partial_file (GFile *file)
{
  g_autofree char *partial = g_strconcat (g_file_peek_path (file), ".partial", NULL);

  return g_file_new_for_path (partial);
}

static void
export_thread (GTask        *task,
               gpointer      source_object,
               gpointer      task_data,
               GCancellable *cancellable)
{
  JobData *data = task_data;
  g_autoptr(GFile) partial = partial_file (data->file);
  g_autoptr(GFileOutputStream) stream = NULL;
  g_autoptr(GError) error = NULL;
  gboolean ok;

  if (!(stream = g_file_replace (partial, NULL, FALSE, G_FILE_CREATE_PRIVATE, cancellable, &error)))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  ok = lumo_audit_store_export (data->store, data->query, data->format, G_OUTPUT_STREAM (stream),
                                cancellable, job_progress_cb, data, &error);
  /* Closed without the cancellable, which may be cancelled by now; the
   * partial file goes below if anything failed. */
  if (!g_output_stream_close (G_OUTPUT_STREAM (stream), NULL, ok ? &error : NULL))
    ok = FALSE;
  if (ok)
    ok = g_file_move (partial, data->file, G_FILE_COPY_OVERWRITE, NULL, NULL, NULL, &error);

  if (!ok)
    {
      g_file_delete (partial, NULL, NULL);
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  g_task_return_boolean (task, TRUE);
}

void
lumo_audit_page_export_async (LumoAuditPage         *self,
                              GFile                 *file,
                              LumoAuditExportFormat  format,
                              GCancellable          *cancellable,
                              GAsyncReadyCallback    callback,
                              gpointer               user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autofree char *basename = NULL;
  g_autofree char *label = NULL;
  JobData *data;
  gint64 total = 0;

  g_return_if_fail (LUMO_IS_AUDIT_PAGE (self));
  g_return_if_fail (G_IS_FILE (file));

  if (g_file_peek_path (file) == NULL)
    {
      g_task_report_new_error (self, callback, user_data, lumo_audit_page_export_async,
                               LUMO_ERROR, LUMO_ERROR_IO,
                               _("The log can be exported to a local file only"));
      return;
    }

  if (self->model != NULL && lumo_audit_model_get_counted (self->model))
    total = g_list_model_get_n_items (G_LIST_MODEL (self->model));

  basename = g_file_get_basename (file);
  /* Translators: %s is a file name. */
  label = g_strdup_printf (_("Exporting to %s…"), basename);

  if (!(task = job_task_new (self, lumo_audit_page_export_async, label, total, cancellable,
                             callback, user_data)))
    return;

  data = g_task_get_task_data (task);
  data->file = g_object_ref (file);
  data->format = format;
  g_task_run_in_thread (task, export_thread);
}

gboolean
lumo_audit_page_export_finish (LumoAuditPage  *self,
                               GAsyncResult   *result,
                               GError        **error)
{
  g_return_val_if_fail (LUMO_IS_AUDIT_PAGE (self), FALSE);

  if (!job_finish (self, result, lumo_audit_page_export_async))
    return FALSE;
  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
on_export_done_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  LumoAuditPage *self = LUMO_AUDIT_PAGE (object);
  g_autoptr(GFile) file = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *basename = g_file_get_basename (file);
  g_autofree char *text = NULL;

  if (!lumo_audit_page_export_finish (self, result, &error))
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        lumo_ui_show_toast (GTK_WIDGET (self), lumo_ui_toast_new (_("Export cancelled")));
      else
        lumo_ui_show_error (GTK_WIDGET (self), _("The export failed"), error);
      return;
    }

  /* Translators: %s is a file name. */
  text = g_strdup_printf (_("Exported to %s"), basename);
  lumo_ui_show_toast (GTK_WIDGET (self), lumo_ui_toast_new (text));
}

static void
on_file_chooser_response_cb (GtkNativeDialog *dialog,
                             int              response,
                             LumoAuditPage   *self)
{
  g_autoptr(GFile) file = NULL;
  const char *format = g_object_get_data (G_OBJECT (dialog), "lumo-format");

  if (response == GTK_RESPONSE_ACCEPT &&
      (file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog))) != NULL)
    lumo_audit_page_export_async (self, file,
                                  g_strcmp0 (format, "jsonl") == 0 ? LUMO_AUDIT_EXPORT_JSONL
                                                                   : LUMO_AUDIT_EXPORT_CSV,
                                  NULL, on_export_done_cb, g_object_ref (file));

  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
}

void
_lumo_audit_page_export_action (GtkWidget  *widget,
                                const char *action_name,
                                GVariant   *param)
{
  LumoAuditPage *self = LUMO_AUDIT_PAGE (widget);
  const char *format = g_variant_get_string (param, NULL);
  gboolean jsonl = g_str_equal (format, "jsonl");
  g_autoptr(GtkFileFilter) filter = gtk_file_filter_new ();
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *stamp = g_date_time_format (now, "%Y-%m-%d");
  g_autofree char *name = NULL;
  GtkFileChooserNative *dialog;

  dialog = gtk_file_chooser_native_new (jsonl ? _("Export as JSON Lines") : _("Export as CSV"),
                                        GTK_WINDOW (gtk_widget_get_root (widget)),
                                        GTK_FILE_CHOOSER_ACTION_SAVE,
                                        _("_Export"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (dialog), TRUE);

  gtk_file_filter_set_name (filter, jsonl ? _("JSON Lines") : _("CSV"));
  gtk_file_filter_add_pattern (filter, jsonl ? "*.jsonl" : "*.csv");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), filter);

  /* Translators: the suggested file name of an export; %s is today's date. */
  name = g_strdup_printf (_("lumo-audit-%s"), stamp);
  {
    g_autofree char *file_name = g_strconcat (name, jsonl ? ".jsonl" : ".csv", NULL);

    gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (dialog), file_name);
  }

  g_object_set_data_full (G_OBJECT (dialog), "lumo-format", g_strdup (format), g_free);
  g_signal_connect_object (dialog, "response", G_CALLBACK (on_file_chooser_response_cb), self, 0);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

/* ---- verification ------------------------------------------------------- */

static void
verify_thread (GTask        *task,
               gpointer      source_object,
               gpointer      task_data,
               GCancellable *cancellable)
{
  JobData *data = task_data;
  g_autoptr(LumoAuditStore) keyed = NULL;
  GError *error = NULL;

  /* The same file again, with the other machine's key: its result MACs,
   * retention anchor and checkpoint can be checked too. */
  if (data->key_path != NULL &&
      !(keyed = lumo_audit_store_open_file (lumo_audit_store_get_path (data->store), data->key_path, &error)))
    {
      g_task_return_error (task, error);
      return;
    }

  if (!lumo_audit_store_verify (keyed != NULL ? keyed : data->store, job_progress_cb, data, cancellable,
                                &data->report, &error))
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

static void
verify_start (LumoAuditPage       *self,
              GFile               *key_file,
              GCancellable        *cancellable,
              GAsyncReadyCallback  callback,
              gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  gint64 total = 0;

  if (self->model != NULL && lumo_audit_model_get_counted (self->model) &&
      lumo_audit_model_get_query (self->model) == NULL)
    total = g_list_model_get_n_items (G_LIST_MODEL (self->model));

  if (!(task = job_task_new (self, lumo_audit_page_verify_async, _("Verifying the log…"), total,
                             cancellable, callback, user_data)))
    return;

  if (key_file != NULL)
    ((JobData *) g_task_get_task_data (task))->key_path = g_file_get_path (key_file);
  g_task_run_in_thread (task, verify_thread);
}

void
lumo_audit_page_verify_async (LumoAuditPage       *self,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  g_return_if_fail (LUMO_IS_AUDIT_PAGE (self));

  verify_start (self, NULL, cancellable, callback, user_data);
}

void
lumo_audit_page_verify_with_key_async (LumoAuditPage       *self,
                                       GFile               *key_file,
                                       GCancellable        *cancellable,
                                       GAsyncReadyCallback  callback,
                                       gpointer             user_data)
{
  g_return_if_fail (LUMO_IS_AUDIT_PAGE (self));
  g_return_if_fail (G_IS_FILE (key_file));

  if (self->store == NULL || !lumo_audit_store_is_read_only (self->store) || g_file_peek_path (key_file) == NULL)
    {
      g_task_report_new_error (self, callback, user_data, lumo_audit_page_verify_async,
                               LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                               _("Only a collected log is verified with a key file, and only with a local one"));
      return;
    }

  verify_start (self, key_file, cancellable, callback, user_data);
}

gboolean
lumo_audit_page_verify_finish (LumoAuditPage          *self,
                               GAsyncResult           *result,
                               LumoAuditVerifyReport  *report,
                               GError                **error)
{
  JobData *data;
  g_autoptr(GError) local_error = NULL;
  gboolean ok;

  g_return_val_if_fail (LUMO_IS_AUDIT_PAGE (self), FALSE);

  if (!job_finish (self, result, lumo_audit_page_verify_async))
    return FALSE;

  data = g_task_get_task_data (G_TASK (result));
  ok = g_task_propagate_boolean (G_TASK (result), &local_error);

  if (data != NULL && !g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      self->verified = TRUE;
      self->verify_ok = ok;
      self->verify_report = data->report;
      if (report != NULL)
        *report = data->report;
      /* The detail pane's "Hash chain" line follows the new result. */
      _lumo_audit_page_show_row (self, lumo_audit_detail_get_row (self->detail));
    }

  if (!ok)
    g_propagate_error (error, g_steal_pointer (&local_error));
  return ok;
}

static void
on_bad_row_fetched_cb (GObject      *object,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  g_autoptr(LumoAuditPage) self = user_data;
  g_autoptr(GPtrArray) rows = NULL;
  g_autoptr(GError) error = NULL;

  if (!(rows = lumo_audit_store_fetch_page_finish (LUMO_AUDIT_STORE (object), result, &error)))
    {
      lumo_ui_show_error (GTK_WIDGET (self), _("The entry could not be read"), error);
      return;
    }

  /* The row itself, or the one before it if the row was deleted. */
  if (rows->len == 0)
    return;
  gtk_single_selection_set_selected (self->selection, GTK_INVALID_LIST_POSITION);
  _lumo_audit_page_show_row (self, g_ptr_array_index (rows, 0));
  adw_flap_set_reveal_flap (self->flap, TRUE);
}

static void
on_show_bad_row_cb (AdwMessageDialog *dialog,
                    const char       *response,
                    LumoAuditPage    *self)
{
  if (!g_str_equal (response, "show") || self->store == NULL)
    return;

  lumo_audit_store_fetch_page_async (self->store, NULL, self->verify_report.bad_id + 1, 1, NULL,
                                     on_bad_row_fetched_cb, g_object_ref (self));
}

static void
on_verify_done_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  LumoAuditPage *self = LUMO_AUDIT_PAGE (object);
  g_autoptr(GError) error = NULL;
  LumoAuditVerifyReport report = { 0 };
  GtkWidget *dialog;
  g_autofree char *body = NULL;

  if (lumo_audit_page_verify_finish (self, result, &report, &error))
    {
      g_autofree char *rows = g_strdup_printf ("%" G_GINT64_FORMAT, report.rows_checked);

      if (self->store != NULL && lumo_audit_store_is_read_only (self->store) && !report.keyed)
        /* Translators: %s is a number of entries. */
        body = g_strdup_printf (_("%s entries checked. Every entry chains to the one before. Without the key file of the machine that wrote the log, the results and the checkpoint were not checked: use “Verify with Key File…”."),
                                rows);
      else
        /* Translators: %s is a number of entries. */
        body = g_strdup_printf (_("%s entries checked. Every entry chains to the one before, and the chain reaches the last recorded checkpoint."),
                                rows);
      dialog = adw_message_dialog_new (GTK_WINDOW (gtk_widget_get_root (GTK_WIDGET (self))),
                                       _("The Log Is Intact"), body);
      adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _("_Close"));
    }
  else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      lumo_ui_show_toast (GTK_WIDGET (self), lumo_ui_toast_new (_("Verification cancelled")));
      return;
    }
  else if (g_error_matches (error, LUMO_ERROR, LUMO_ERROR_CHAIN_BROKEN))
    {
      dialog = adw_message_dialog_new (GTK_WINDOW (gtk_widget_get_root (GTK_WIDGET (self))),
                                       _("The Log Was Changed"), error->message);
      adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _("_Close"));
      if (report.bad_id > 0)
        {
          adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "show", _("_Show Entry"));
          adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "show");
          g_signal_connect_object (dialog, "response", G_CALLBACK (on_show_bad_row_cb), self, 0);
        }
    }
  else
    {
      lumo_ui_show_error (GTK_WIDGET (self), _("The log could not be verified"), error);
      return;
    }

  gtk_window_present (GTK_WINDOW (dialog));
}

void
_lumo_audit_page_verify_action (GtkWidget  *widget,
                                const char *action_name,
                                GVariant   *param)
{
  lumo_audit_page_verify_async (LUMO_AUDIT_PAGE (widget), NULL, on_verify_done_cb, NULL);
}

static void
on_key_chooser_response_cb (GtkNativeDialog *dialog,
                            int              response,
                            LumoAuditPage   *self)
{
  g_autoptr(GFile) file = NULL;

  if (response == GTK_RESPONSE_ACCEPT &&
      (file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog))) != NULL)
    lumo_audit_page_verify_with_key_async (self, file, NULL, on_verify_done_cb, NULL);

  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
}

void
_lumo_audit_page_verify_with_key_action (GtkWidget  *widget,
                                         const char *action_name,
                                         GVariant   *param)
{
  GtkFileChooserNative *dialog;

  /* Translators: the title of a file chooser for the audit.key of the
   * machine the log comes from. */
  dialog = gtk_file_chooser_native_new (_("Key File of the Log"), GTK_WINDOW (gtk_widget_get_root (widget)),
                                        GTK_FILE_CHOOSER_ACTION_OPEN, _("_Verify"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (dialog), TRUE);
  g_signal_connect_object (dialog, "response", G_CALLBACK (on_key_chooser_response_cb), widget, 0);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}
