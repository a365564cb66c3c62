/* lumo-browsers-group.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-browsers-group"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "lumo-browser-integration.h"
#include "lumo-browser-setup.h"
#include "lumo-browsers-group.h"
#include "lumo-error.h"
#include "lumo-ui-util.h"

struct _LumoBrowsersGroup
{
  AdwPreferencesGroup parent_instance;

  GtkListBox   *list;
  GtkWidget    *setup_all_button;

  LumoBackend  *backend;
  char         *home_dir;
  char         *system_root;
  char        **search_path;   /* NULL: the integration's default ($PATH) */
  GPtrArray    *browsers;      /* of LumoBrowser, as the last job left them */
  guint         n_found;       /* of them: installed, so listed */
  guint         n_set_up;      /* of them: status OK */
  GCancellable *cancellable;
  guint         busy : 1;
  guint         rescan_wanted : 1;
};

G_DEFINE_FINAL_TYPE (LumoBrowsersGroup, lumo_browsers_group, ADW_TYPE_PREFERENCES_GROUP)

enum {
  PROP_0,
  PROP_BUSY,
  PROP_N_FOUND,
  PROP_N_SET_UP,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* ---- jobs ----------------------------------------------------------------- */

typedef enum
{
  JOB_SCAN,
  JOB_INSTALL_ONE,
  JOB_INSTALL_ALL,
  JOB_REMOVE_ONE,
} JobKind;

typedef struct
{
  JobKind                 kind;
  LumoBrowserIntegration *integration;
  char                   *browser_id;
  char                   *browser_name;
  guint                   n_written;
  GError                 *error;      /* of the write; the scan cannot fail */
  GPtrArray              *browsers;
} Job;

static void
job_free (Job *job)
{
  g_clear_object (&job->integration);
  g_free (job->browser_id);
  g_free (job->browser_name);
  g_clear_error (&job->error);
  g_clear_pointer (&job->browsers, g_ptr_array_unref);
  g_free (job);
}

/* A manifest must not send the browser to a helper that is not there: the
 * extension would then fail with a message that does not say why. The
 * rule is core's; the sentence is the page's. */
static gboolean
check_host_exists (LumoBrowserIntegration  *integration,
                   GError                 **error)
{
  if (lumo_browser_integration_check_host (integration, NULL))
    return TRUE;

  g_set_error (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND,
               _("the helper %s does not exist, so the browser could not start it. Install Lumo Access, or set LUMO_ACCESS_HOST_PATH to the helper."),
               lumo_browser_integration_get_host_path (integration));
  return FALSE;
}

static void
job_thread (GTask        *task,
            gpointer      source_object,
            gpointer      task_data,
            GCancellable *cancellable)
{
  Job *job = task_data;

  if (job->kind == JOB_INSTALL_ONE && check_host_exists (job->integration, &job->error))
    {
      g_autoptr(LumoBrowser) browser =
        lumo_browser_integration_lookup (job->integration, LUMO_BROWSER_SCOPE_USER,
                                         job->browser_id, &job->error);

      if (browser != NULL &&
          lumo_browser_integration_install (job->integration, browser, &job->error))
        job->n_written = 1;
    }
  else if (job->kind == JOB_INSTALL_ALL && check_host_exists (job->integration, &job->error))
    {
      job->n_written = lumo_browser_integration_install_detected (job->integration,
                                                                  LUMO_BROWSER_SCOPE_USER,
                                                                  &job->error);
    }
  else if (job->kind == JOB_REMOVE_ONE)
    {
      g_autoptr(LumoBrowser) browser =
        lumo_browser_integration_lookup (job->integration, LUMO_BROWSER_SCOPE_USER,
                                         job->browser_id, &job->error);

      if (browser != NULL &&
          lumo_browser_integration_remove (job->integration, browser, &job->error))
        job->n_written = 1;
    }

  job->browsers = lumo_browser_integration_scan (job->integration, LUMO_BROWSER_SCOPE_USER);
  g_task_return_boolean (task, TRUE);
}

static void rebuild_rows (LumoBrowsersGroup *self);
static void start_job    (LumoBrowsersGroup *self,
                          JobKind            kind,
                          const char        *browser_id);

static void
set_busy (LumoBrowsersGroup *self,
          gboolean           busy)
{
  if (self->busy == !!busy)
    return;
  self->busy = !!busy;
  gtk_widget_set_sensitive (self->setup_all_button, !busy);
  gtk_widget_set_sensitive (GTK_WIDGET (self->list), !busy);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

static void
report_write (LumoBrowsersGroup *self,
              Job               *job)
{
  g_autofree char *text = NULL;

  if (job->error != NULL)
    {
      if (job->kind == JOB_REMOVE_ONE)
        {
          /* Translators: %s is a browser's name. */
          g_autofree char *what = g_strdup_printf (_("Could not remove the set-up from %s"),
                                                   job->browser_name);

          lumo_ui_show_error (GTK_WIDGET (self), what, job->error);
        }
      else if (job->kind == JOB_INSTALL_ONE)
        {
          /* Translators: %s is a browser's name. */
          g_autofree char *what = g_strdup_printf (_("Could not set up %s"), job->browser_name);

          lumo_ui_show_error (GTK_WIDGET (self), what, job->error);
        }
      else
        {
          lumo_ui_show_error (GTK_WIDGET (self), _("Could not set up every browser"), job->error);
        }
      return;
    }

  if (job->kind == JOB_REMOVE_ONE)
    /* Translators: %s is a browser's name. */
    text = g_strdup_printf (_("%s can no longer start Lumo Access"), job->browser_name);
  else if (job->kind == JOB_INSTALL_ONE)
    /* Translators: %s is a browser's name. */
    text = g_strdup_printf (_("%s can now start Lumo Access"), job->browser_name);
  else if (job->n_written == 0)
    text = g_strdup (_("No browser to set up was found"));
  else
    text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                         "Set up %u browser",
                                         "Set up %u browsers", job->n_written),
                            job->n_written);

  lumo_ui_show_toast (GTK_WIDGET (self), lumo_ui_toast_new (text));
}

static void
on_job_done_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  LumoBrowsersGroup *self = LUMO_BROWSERS_GROUP (object);
  Job *job = g_task_get_task_data (G_TASK (result));

  /* Disposed meanwhile: the rows are gone. */
  if (!g_task_propagate_boolean (G_TASK (result), NULL) || self->cancellable == NULL)
    return;

  g_clear_pointer (&self->browsers, g_ptr_array_unref);
  self->browsers = g_steal_pointer (&job->browsers);

  if (job->kind != JOB_SCAN)
    report_write (self, job);

  set_busy (self, FALSE);
  rebuild_rows (self);

  if (self->rescan_wanted)
    {
      self->rescan_wanted = FALSE;
      start_job (self, JOB_SCAN, NULL);
    }
}

static const char *
browser_name (LumoBrowsersGroup *self,
              const char        *browser_id)
{
  for (guint i = 0; self->browsers != NULL && i < self->browsers->len; i++)
    if (g_str_equal (lumo_browser_get_id (self->browsers->pdata[i]), browser_id))
      return lumo_browser_get_name (self->browsers->pdata[i]);
  return browser_id;
}

static void
start_job (LumoBrowsersGroup *self,
           JobKind            kind,
           const char        *browser_id)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  LumoBrowserIntegration *integration;
  Job *job;

  if (self->backend == NULL)
    return;
  if (self->busy)
    {
      /* A write waits for the person to click again once the list is
       * current; a scan just runs after the job. */
      self->rescan_wanted = TRUE;
      return;
    }

  /* Made per job, on this thread: it reads the providers from the policy,
   * which belongs to the main thread; the worker then owns it alone. */
  integration = lumo_browser_setup_new_integration (lumo_backend_get_policy (self->backend),
                                                    self->home_dir, self->system_root, &error);
  if (integration == NULL)
    {
      lumo_ui_show_error (GTK_WIDGET (self), _("Could not check the browsers"), error);
      return;
    }
  if (self->search_path != NULL)
    lumo_browser_integration_set_search_path (integration,
                                              (const char * const *) self->search_path);

  job = g_new0 (Job, 1);
  job->kind = kind;
  job->integration = integration;
  job->browser_id = g_strdup (browser_id);
  if (browser_id != NULL)
    job->browser_name = g_strdup (browser_name (self, browser_id));

  set_busy (self, TRUE);
  task = g_task_new (self, self->cancellable, on_job_done_cb, NULL);
  g_task_set_source_tag (task, start_job);
  g_task_set_task_data (task, job, (GDestroyNotify) job_free);
  g_task_run_in_thread (task, job_thread);
}

/* ---- rows ----------------------------------------------------------------- */

static char *
status_text (LumoBrowser *browser)
{
  LumoBrowserStaleFlags flags = lumo_browser_get_stale_flags (browser);

  switch (lumo_browser_get_status (browser))
    {
    case LUMO_BROWSER_STATUS_NOT_INSTALLED:
      return g_strdup (_("Not installed"));
    case LUMO_BROWSER_STATUS_MANIFEST_MISSING:
      return g_strdup (_("Not set up: the browser cannot start Lumo Access"));
    case LUMO_BROWSER_STATUS_OK:
      return g_strdup (_("Set up"));
    case LUMO_BROWSER_STATUS_MANIFEST_STALE:
    default:
      if (flags & LUMO_BROWSER_STALE_INVALID)
        return g_strdup (_("Out of date: the manifest is damaged"));
      if (flags & LUMO_BROWSER_STALE_PATH)
        return g_strdup (_("Out of date: the manifest starts another helper"));
      if (flags & LUMO_BROWSER_STALE_ORIGINS)
        return g_strdup (_("Out of date: the manifest does not list your providers"));
      return g_strdup (_("Out of date: the helper’s launcher is missing or differs"));
    }
}

static void
on_copy_clicked_cb (GtkButton         *button,
                    LumoBrowsersGroup *self)
{
  const char *command = g_object_get_data (G_OBJECT (button), "lumo-fix-command");

  gdk_clipboard_set_text (gtk_widget_get_clipboard (GTK_WIDGET (button)), command);
  lumo_ui_show_toast (GTK_WIDGET (self), lumo_ui_toast_new (_("Command copied")));
}

static void
on_install_clicked_cb (GtkButton         *button,
                       LumoBrowsersGroup *self)
{
  start_job (self, JOB_INSTALL_ONE, g_object_get_data (G_OBJECT (button), "lumo-browser-id"));
}

static void
on_remove_clicked_cb (GtkButton         *button,
                      LumoBrowsersGroup *self)
{
  start_job (self, JOB_REMOVE_ONE, g_object_get_data (G_OBJECT (button), "lumo-browser-id"));
}

static GtkWidget *
row_button (LumoBrowsersGroup *self,
            LumoBrowser       *browser,
            const char        *label,
            GCallback          callback)
{
  GtkWidget *button = gtk_button_new_with_mnemonic (label);

  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  g_object_set_data_full (G_OBJECT (button), "lumo-browser-id",
                          g_strdup (lumo_browser_get_id (browser)), g_free);
  g_signal_connect_object (button, "clicked", callback, self, 0);
  return button;
}

/* Install or Update while the manifest is missing or out of date, a check
 * mark once it is right; Remove whenever there is a manifest of ours. */
static GtkWidget *
row_actions (LumoBrowsersGroup *self,
             LumoBrowser       *browser)
{
  LumoBrowserStatus status = lumo_browser_get_status (browser);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);

  gtk_widget_set_valign (box, GTK_ALIGN_CENTER);

  if (status == LUMO_BROWSER_STATUS_OK || status == LUMO_BROWSER_STATUS_MANIFEST_STALE)
    {
      GtkWidget *remove = row_button (self, browser, _("_Remove"), G_CALLBACK (on_remove_clicked_cb));

      /* Translators: %s is a browser's name. */
      g_autofree char *tooltip = g_strdup_printf (_("Remove the file that lets %s start Lumo Access"),
                                                  lumo_browser_get_name (browser));

      gtk_widget_set_tooltip_text (remove, tooltip);
      gtk_box_append (GTK_BOX (box), remove);
    }

  if (status == LUMO_BROWSER_STATUS_OK)
    {
      GtkWidget *icon = gtk_image_new_from_icon_name ("emblem-ok-symbolic");

      gtk_widget_add_css_class (icon, "success");
      lumo_ui_set_accessible_label (icon, _("Set up"));
      gtk_box_append (GTK_BOX (box), icon);
    }
  else
    {
      GtkWidget *install = row_button (self, browser,
                                       status == LUMO_BROWSER_STATUS_MANIFEST_STALE
                                       ? _("_Update") : _("_Install"),
                                       G_CALLBACK (on_install_clicked_cb));

      gtk_widget_add_css_class (install, "suggested-action");
      gtk_box_append (GTK_BOX (box), install);
    }

  return box;
}

static GtkWidget *
advice_row (LumoBrowsersGroup *self,
            LumoBrowser       *browser)
{
  const char *advice = lumo_browser_get_advice (browser);
  const char *command = lumo_browser_get_fix_command (browser);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *row = gtk_list_box_row_new ();

  gtk_widget_set_margin_top (box, 12);
  gtk_widget_set_margin_bottom (box, 12);
  gtk_widget_set_margin_start (box, 12);
  gtk_widget_set_margin_end (box, 12);
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), FALSE);
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), box);

  if (advice != NULL)
    {
      GtkWidget *label = gtk_label_new (advice);

      gtk_label_set_wrap (GTK_LABEL (label), TRUE);
      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_box_append (GTK_BOX (box), label);
    }

  if (command != NULL)
    {
      GtkWidget *line = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
      GtkWidget *label = gtk_label_new (command);
      GtkWidget *copy = gtk_button_new_from_icon_name ("edit-copy-symbolic");

      gtk_label_set_wrap (GTK_LABEL (label), TRUE);
      gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_CHAR);
      gtk_label_set_selectable (GTK_LABEL (label), TRUE);
      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_widget_set_hexpand (label, TRUE);
      gtk_widget_add_css_class (label, "monospace");
      gtk_widget_set_valign (copy, GTK_ALIGN_CENTER);
      gtk_widget_add_css_class (copy, "flat");
      gtk_widget_set_tooltip_text (copy, _("Copy the command"));
      lumo_ui_set_accessible_label (copy, _("Copy the command"));
      g_object_set_data_full (G_OBJECT (copy), "lumo-fix-command", g_strdup (command), g_free);
      g_signal_connect_object (copy, "clicked", G_CALLBACK (on_copy_clicked_cb), self, 0);
      gtk_box_append (GTK_BOX (line), label);
      gtk_box_append (GTK_BOX (line), copy);
      gtk_box_append (GTK_BOX (box), line);
    }

  return row;
}

static GtkWidget *
browser_row (LumoBrowsersGroup *self,
             LumoBrowser       *browser)
{
  g_autofree char *status = status_text (browser);
  GtkWidget *row;

  /* Advice says what does and does not work (Flatpak browsers, or why a
   * manifest is out of date): it needs room, so such a row expands. */
  if (lumo_browser_get_advice (browser) != NULL || lumo_browser_get_fix_command (browser) != NULL)
    {
      row = adw_expander_row_new ();
      adw_expander_row_add_action (ADW_EXPANDER_ROW (row), row_actions (self, browser));
      adw_expander_row_add_row (ADW_EXPANDER_ROW (row), advice_row (self, browser));
      adw_expander_row_set_subtitle (ADW_EXPANDER_ROW (row), status);
    }
  else
    {
      row = adw_action_row_new ();
      adw_action_row_add_suffix (ADW_ACTION_ROW (row), row_actions (self, browser));
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), status);
    }

  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), lumo_browser_get_name (browser));
  gtk_widget_set_tooltip_text (row, lumo_browser_get_manifest_path (browser));
  g_object_set_data_full (G_OBJECT (row), "lumo-browser-id",
                          g_strdup (lumo_browser_get_id (browser)), g_free);
  return row;
}

static void
rebuild_rows (LumoBrowsersGroup *self)
{
  guint n_found = 0;
  guint n_set_up = 0;

  lumo_ui_list_box_remove_all (self->list);

  for (guint i = 0; self->browsers != NULL && i < self->browsers->len; i++)
    {
      LumoBrowser *browser = self->browsers->pdata[i];
      LumoBrowserStatus status = lumo_browser_get_status (browser);

      if (status == LUMO_BROWSER_STATUS_NOT_INSTALLED)
        continue;
      gtk_list_box_append (self->list, browser_row (self, browser));
      n_found++;
      n_set_up += status == LUMO_BROWSER_STATUS_OK;
    }

  gtk_widget_set_visible (self->setup_all_button, n_found > 0);
  g_object_freeze_notify (G_OBJECT (self));
  if (self->n_found != n_found)
    {
      self->n_found = n_found;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_FOUND]);
    }
  if (self->n_set_up != n_set_up)
    {
      self->n_set_up = n_set_up;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_SET_UP]);
    }
  g_object_thaw_notify (G_OBJECT (self));
}

static void
on_setup_all_clicked_cb (LumoBrowsersGroup *self)
{
  start_job (self, JOB_INSTALL_ALL, NULL);
}

/* ---- GObject -------------------------------------------------------------- */

static void
lumo_browsers_group_dispose (GObject *object)
{
  LumoBrowsersGroup *self = (LumoBrowsersGroup *)object;

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->backend);
  g_clear_pointer (&self->browsers, g_ptr_array_unref);

  G_OBJECT_CLASS (lumo_browsers_group_parent_class)->dispose (object);
}

static void
lumo_browsers_group_finalize (GObject *object)
{
  LumoBrowsersGroup *self = (LumoBrowsersGroup *)object;

  g_free (self->home_dir);
  g_free (self->system_root);
  g_strfreev (self->search_path);

  G_OBJECT_CLASS (lumo_browsers_group_parent_class)->finalize (object);
}

static void
lumo_browsers_group_get_property (GObject    *object,
                                  guint       prop_id,
                                  GValue     *value,
                                  GParamSpec *pspec)
{
  LumoBrowsersGroup *self = LUMO_BROWSERS_GROUP (object);

  switch (prop_id)
    {
    case PROP_BUSY:
      g_value_set_boolean (value, self->busy);
      break;
    case PROP_N_FOUND:
      g_value_set_uint (value, self->n_found);
      break;
    case PROP_N_SET_UP:
      g_value_set_uint (value, self->n_set_up);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
lumo_browsers_group_class_init (LumoBrowsersGroupClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = lumo_browsers_group_dispose;
  object_class->finalize = lumo_browsers_group_finalize;
  object_class->get_property = lumo_browsers_group_get_property;

  properties[PROP_BUSY] =
    g_param_spec_boolean ("busy", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  properties[PROP_N_FOUND] =
    g_param_spec_uint ("n-found", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  properties[PROP_N_SET_UP] =
    g_param_spec_uint ("n-set-up", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
lumo_browsers_group_init (LumoBrowsersGroup *self)
{
  self->cancellable = g_cancellable_new ();

  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (self), _("Browsers"));
  adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (self),
                                         _("A browser starts Lumo Access through a small file in its settings folder. Set it up once per browser; Lumo Access keeps it current."));

  self->setup_all_button = gtk_button_new_with_mnemonic (_("_Set Up All Browsers"));
  gtk_widget_set_valign (self->setup_all_button, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (self->setup_all_button, "suggested-action");
  g_signal_connect_object (self->setup_all_button, "clicked",
                           G_CALLBACK (on_setup_all_clicked_cb), self, G_CONNECT_SWAPPED);
  adw_preferences_group_set_header_suffix (ADW_PREFERENCES_GROUP (self), self->setup_all_button);

  self->list = GTK_LIST_BOX (gtk_list_box_new ());
  gtk_list_box_set_selection_mode (self->list, GTK_SELECTION_NONE);
  gtk_widget_add_css_class (GTK_WIDGET (self->list), "boxed-list");
  lumo_ui_set_accessible_label (GTK_WIDGET (self->list), _("Browsers"));
  gtk_list_box_set_placeholder (self->list,
                                lumo_ui_placeholder_new (_("No supported browser was found for this user: Chrome, Chromium, Brave, Edge or Vivaldi, installed normally or as a Flatpak.")));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (self), GTK_WIDGET (self->list));

  /* A browser installed or a provider added since the last look: the page
   * is current whenever it is shown. */
  g_signal_connect (self, "map", G_CALLBACK (lumo_browsers_group_refresh), NULL);
}

GtkWidget *
lumo_browsers_group_new (void)
{
  return g_object_new (LUMO_TYPE_BROWSERS_GROUP, NULL);
}

void
lumo_browsers_group_set_backend (LumoBrowsersGroup *self,
                                 LumoBackend       *backend)
{
  g_return_if_fail (LUMO_IS_BROWSERS_GROUP (self));
  g_return_if_fail (LUMO_IS_BACKEND (backend));
  g_return_if_fail (self->backend == NULL);

  self->backend = g_object_ref (backend);
  start_job (self, JOB_SCAN, NULL);
}

void
lumo_browsers_group_set_locations (LumoBrowsersGroup  *self,
                                   const char         *home_dir,
                                   const char         *system_root,
                                   const char * const *search_path)
{
  g_return_if_fail (LUMO_IS_BROWSERS_GROUP (self));
  g_return_if_fail (home_dir == NULL || g_path_is_absolute (home_dir));
  g_return_if_fail (system_root == NULL || g_path_is_absolute (system_root));

  g_free (self->home_dir);
  self->home_dir = g_strdup (home_dir);
  g_free (self->system_root);
  self->system_root = g_strdup (system_root);
  g_strfreev (self->search_path);
  self->search_path = g_strdupv ((char **) search_path);
  lumo_browsers_group_refresh (self);
}

void
lumo_browsers_group_refresh (LumoBrowsersGroup *self)
{
  g_return_if_fail (LUMO_IS_BROWSERS_GROUP (self));

  start_job (self, JOB_SCAN, NULL);
}

guint
lumo_browsers_group_get_n_found (LumoBrowsersGroup *self)
{
  g_return_val_if_fail (LUMO_IS_BROWSERS_GROUP (self), 0);

  return self->n_found;
}

guint
lumo_browsers_group_get_n_set_up (LumoBrowsersGroup *self)
{
  g_return_val_if_fail (LUMO_IS_BROWSERS_GROUP (self), 0);

  return self->n_set_up;
}

gboolean
lumo_browsers_group_get_busy (LumoBrowsersGroup *self)
{
  g_return_val_if_fail (LUMO_IS_BROWSERS_GROUP (self), FALSE);

  return self->busy;
}

GtkWidget *
lumo_browsers_group_get_row (LumoBrowsersGroup *self,
                             const char        *browser_id)
{
  g_return_val_if_fail (LUMO_IS_BROWSERS_GROUP (self), NULL);
  g_return_val_if_fail (browser_id != NULL, NULL);

  for (GtkWidget *row = gtk_widget_get_first_child (GTK_WIDGET (self->list));
       row != NULL; row = gtk_widget_get_next_sibling (row))
    if (g_strcmp0 (g_object_get_data (G_OBJECT (row), "lumo-browser-id"), browser_id) == 0)
      return row;

  return NULL;
}
