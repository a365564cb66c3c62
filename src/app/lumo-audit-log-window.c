/* lumo-audit-log-window.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-audit-log-window"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "lumo-audit-log-window.h"
#include "lumo-audit-page-private.h"
#include "lumo-format.h"
#include "lumo-ui-util.h"

struct _LumoAuditLogWindow
{
  AdwWindow       parent_instance;

  /* Template widgets */
  AdwWindowTitle *window_title;
  GtkStack       *stack;
  AdwStatusPage  *error_page;
  LumoAuditPage  *page;

  /* Owned */
  GFile          *file;
  GCancellable   *cancellable;
  GError         *error;
  gboolean        loading;
};

G_DEFINE_FINAL_TYPE (LumoAuditLogWindow, lumo_audit_log_window, ADW_TYPE_WINDOW)

enum {
  PROP_0,
  PROP_LOADING,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
on_opened_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(LumoAuditLogWindow) self = user_data;
  g_autoptr(LumoAuditStore) store = NULL;
  g_autoptr(GError) error = NULL;

  store = lumo_audit_store_open_file_finish (result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;   /* the window was closed */

  self->loading = FALSE;
  if (store == NULL)
    {
      g_autofree char *escaped = g_markup_escape_text (error->message, -1);

      g_message ("Cannot open “%s”: %s", g_file_peek_path (self->file), error->message);
      /* The description is markup; the message names a file. */
      adw_status_page_set_description (self->error_page, escaped);
      gtk_stack_set_visible_child_name (self->stack, "error");
      self->error = g_steal_pointer (&error);
    }
  else
    {
      lumo_audit_page_set_store (self->page, store);
      gtk_stack_set_visible_child_name (self->stack, "log");
    }
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LOADING]);
}

static void
lumo_audit_log_window_dispose (GObject *object)
{
  LumoAuditLogWindow *self = (LumoAuditLogWindow *)object;

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  gtk_widget_dispose_template (GTK_WIDGET (self), LUMO_TYPE_AUDIT_LOG_WINDOW);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->file);

  G_OBJECT_CLASS (lumo_audit_log_window_parent_class)->dispose (object);
}

static void
lumo_audit_log_window_finalize (GObject *object)
{
  LumoAuditLogWindow *self = (LumoAuditLogWindow *)object;

  g_clear_error (&self->error);

  G_OBJECT_CLASS (lumo_audit_log_window_parent_class)->finalize (object);
}

static void
lumo_audit_log_window_get_property (GObject    *object,
                                    guint       prop_id,
                                    GValue     *value,
                                    GParamSpec *pspec)
{
  LumoAuditLogWindow *self = LUMO_AUDIT_LOG_WINDOW (object);

  switch (prop_id)
    {
    case PROP_LOADING:
      g_value_set_boolean (value, self->loading);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
search_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *param)
{
  LumoAuditLogWindow *self = LUMO_AUDIT_LOG_WINDOW (widget);

  if (lumo_audit_page_get_store (self->page) != NULL)
    lumo_audit_page_focus_search (self->page);
}

static void
close_action (GtkWidget  *widget,
              const char *action_name,
              GVariant   *param)
{
  gtk_window_close (GTK_WINDOW (widget));
}

static void
lumo_audit_log_window_class_init (LumoAuditLogWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = lumo_audit_log_window_dispose;
  object_class->finalize = lumo_audit_log_window_finalize;
  object_class->get_property = lumo_audit_log_window_get_property;

  properties[PROP_LOADING] =
    g_param_spec_boolean ("loading", NULL, NULL, TRUE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (LUMO_TYPE_AUDIT_PAGE);

  gtk_widget_class_set_template_from_resource (widget_class, "/dev/lumo/Access/lumo-audit-log-window.ui");
  gtk_widget_class_bind_template_child (widget_class, LumoAuditLogWindow, window_title);
  gtk_widget_class_bind_template_child (widget_class, LumoAuditLogWindow, stack);
  gtk_widget_class_bind_template_child (widget_class, LumoAuditLogWindow, error_page);
  gtk_widget_class_bind_template_child (widget_class, LumoAuditLogWindow, page);

  gtk_widget_class_install_action (widget_class, "win.search", NULL, search_action);
  gtk_widget_class_install_action (widget_class, "win.close", NULL, close_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_f, GDK_CONTROL_MASK, "win.search", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_w, GDK_CONTROL_MASK, "win.close", NULL);
}

static void
lumo_audit_log_window_init (LumoAuditLogWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->cancellable = g_cancellable_new ();
  self->loading = TRUE;
}

LumoAuditLogWindow *
lumo_audit_log_window_new (GtkApplication *application,
                           GFile          *file,
                           GFile          *key_file)
{
  LumoAuditLogWindow *self;
  g_autofree char *name = NULL;
  g_autofree char *folder = NULL;
  g_autoptr(GFile) parent = NULL;
  g_autofree char *shown_folder = NULL;

  g_return_val_if_fail (GTK_IS_APPLICATION (application), NULL);
  g_return_val_if_fail (G_IS_FILE (file), NULL);
  g_return_val_if_fail (key_file == NULL || G_IS_FILE (key_file), NULL);

  self = g_object_new (LUMO_TYPE_AUDIT_LOG_WINDOW, "application", application, NULL);
  self->file = g_object_ref (file);

  name = g_file_get_basename (file);
  parent = g_file_get_parent (file);
  folder = parent != NULL ? g_file_get_path (parent) : NULL;
  shown_folder = folder != NULL ? lumo_format_path (folder) : NULL;
  gtk_window_set_title (GTK_WINDOW (self), name);
  adw_window_title_set_title (self->window_title, name);
  if (shown_folder != NULL)
    adw_window_title_set_subtitle (self->window_title, shown_folder);

  if (g_file_peek_path (file) == NULL)
    {
      g_autoptr(GError) error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                                                     _("Only a local file can be opened as an audit log"));

      self->loading = FALSE;
      adw_status_page_set_description (self->error_page, error->message);
      gtk_stack_set_visible_child_name (self->stack, "error");
      self->error = g_steal_pointer (&error);
      return self;
    }

  lumo_audit_store_open_file_async (g_file_peek_path (file), key_file != NULL ? g_file_peek_path (key_file) : NULL,
                                    self->cancellable, on_opened_cb, g_object_ref (self));
  return self;
}

GFile *
lumo_audit_log_window_get_file (LumoAuditLogWindow *self)
{
  g_return_val_if_fail (LUMO_IS_AUDIT_LOG_WINDOW (self), NULL);

  return self->file;
}

gboolean
lumo_audit_log_window_get_loading (LumoAuditLogWindow *self)
{
  g_return_val_if_fail (LUMO_IS_AUDIT_LOG_WINDOW (self), FALSE);

  return self->loading;
}

const GError *
lumo_audit_log_window_get_error (LumoAuditLogWindow *self)
{
  g_return_val_if_fail (LUMO_IS_AUDIT_LOG_WINDOW (self), NULL);

  return self->error;
}

LumoAuditPage *
lumo_audit_log_window_get_page (LumoAuditLogWindow *self)
{
  g_return_val_if_fail (LUMO_IS_AUDIT_LOG_WINDOW (self), NULL);

  return self->page;
}

/* ---- Open Audit Log… ---------------------------------------------------- */

void
_lumo_audit_page_open_log (LumoAuditPage *page,
                           GFile         *file)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (page));
  GtkApplication *application = GTK_IS_WINDOW (root) ? gtk_window_get_application (GTK_WINDOW (root)) : NULL;

  if (application == NULL)
    {
      g_warning ("Cannot open an audit log: the page is not in an application's window");
      return;
    }
  gtk_window_present (GTK_WINDOW (lumo_audit_log_window_new (application, file, NULL)));
}

static void
on_open_chooser_response_cb (GtkNativeDialog *dialog,
                             int              response,
                             LumoAuditPage   *page)
{
  g_autoptr(GFile) file = NULL;

  if (response == GTK_RESPONSE_ACCEPT &&
      (file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog))) != NULL)
    _lumo_audit_page_open_log (page, file);

  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
}

void
_lumo_audit_page_open_log_action (GtkWidget  *widget,
                                  const char *action_name,
                                  GVariant   *param)
{
  g_autoptr(GtkFileFilter) logs = gtk_file_filter_new ();
  g_autoptr(GtkFileFilter) all = gtk_file_filter_new ();
  GtkFileChooserNative *dialog;

  dialog = gtk_file_chooser_native_new (_("Open Audit Log"), GTK_WINDOW (gtk_widget_get_root (widget)),
                                        GTK_FILE_CHOOSER_ACTION_OPEN, _("_Open"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (dialog), TRUE);

  /* Translators: a file filter: another machine's audit.db, or an export. */
  gtk_file_filter_set_name (logs, _("Audit logs (audit.db, JSON Lines)"));
  gtk_file_filter_add_pattern (logs, "*.db");
  gtk_file_filter_add_pattern (logs, "*.jsonl");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), logs);
  gtk_file_filter_set_name (all, _("All files"));
  gtk_file_filter_add_pattern (all, "*");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), all);

  g_signal_connect_object (dialog, "response", G_CALLBACK (on_open_chooser_response_cb), widget, 0);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}
