/* lumo-first-run.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-first-run"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "lumo-backend.h"
#include "lumo-browser-extension.h"
#include "lumo-browser-setup.h"
#include "lumo-error.h"
#include "lumo-first-run.h"
#include "lumo-format.h"
#include "lumo-ui-util.h"

struct _LumoFirstRun
{
  AdwBin             parent_instance;

  /* Template widgets */
  GtkImage          *step1_icon;
  GtkLabel          *step1_state;
  LumoBrowsersGroup *browsers;
  GtkImage          *step2_icon;
  GtkLabel          *step2_state;
  AdwActionRow      *folder_row;
  GtkLabel          *policy_example;
  GtkLabel          *step3_state;

  /* Owned */
  LumoBackend       *backend;
  char              *extension_dir;   /* as given; NULL: the installation's */
  char              *local_dir;       /* what this process opens */
  char              *host_dir;        /* what the browser is told; NULL unless installed */
  GCancellable      *cancellable;     /* of the extension read */

  /* Borrowed */
  GtkWidget         *active_root;     /* whose notify::is-active we follow while mapped */

  guint              scanned : 1;     /* the browsers were looked for once */
};

G_DEFINE_FINAL_TYPE (LumoFirstRun, lumo_first_run, ADW_TYPE_BIN)

enum {
  PROP_0,
  PROP_BUSY,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

typedef enum
{
  STEP_TO_DO,
  STEP_DONE,
  STEP_PROBLEM,
} StepState;

static void
set_step (GtkImage  *icon,
          GtkLabel  *label,
          StepState  state,
          const char *text)
{
  static const char * const icons[] = { "radio-symbolic", "emblem-ok-symbolic", "dialog-warning-symbolic" };
  static const char * const classes[] = { "dim-label", "success", "warning" };

  for (guint i = 0; i < G_N_ELEMENTS (classes); i++)
    gtk_widget_remove_css_class (GTK_WIDGET (icon), classes[i]);
  gtk_image_set_from_icon_name (icon, icons[state]);
  gtk_widget_add_css_class (GTK_WIDGET (icon), classes[state]);
  gtk_label_set_text (label, text);
}

/* ---- step 1 ------------------------------------------------------------- */

static void
update_browsers_step (LumoFirstRun *self)
{
  guint n_found = lumo_browsers_group_get_n_found (self->browsers);
  guint n_set_up = lumo_browsers_group_get_n_set_up (self->browsers);
  g_autofree char *text = NULL;

  if (n_found == 0)
    set_step (self->step1_icon, self->step1_state, STEP_PROBLEM,
              _("No supported browser was found. Install Chrome, Chromium, Brave, Edge or Vivaldi; it appears here even before its first start."));
  else if (n_set_up == 0)
    set_step (self->step1_icon, self->step1_state, STEP_TO_DO,
              _("Set up the browsers you use: each gets a small file in its settings folder that lets it start Lumo Access."));
  else
    {
      /* Translators: "1 of 2 browsers is set up"; the plural follows the
       * second number. */
      text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                           "%u of %u browser is set up.",
                                           "%u of %u browsers are set up.", n_found),
                              n_set_up, n_found);
      set_step (self->step1_icon, self->step1_state, STEP_DONE, text);
    }
}

static void
on_browsers_changed_cb (LumoFirstRun *self)
{
  /* Until the first scan is done, "none found" would not be true. */
  if (lumo_browsers_group_get_busy (self->browsers) && !self->scanned)
    return;
  self->scanned = TRUE;
  update_browsers_step (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

/* ---- step 2 ------------------------------------------------------------- */

static void
set_extension_path (LumoFirstRun *self,
                    char         *host_dir)
{
  g_autofree char *shown = NULL;

  g_free (self->host_dir);
  self->host_dir = host_dir;

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "first-run.open-folder", host_dir != NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "first-run.copy-path", host_dir != NULL);

  shown = lumo_format_path (host_dir != NULL ? host_dir : self->local_dir != NULL ? self->local_dir : "");
  adw_action_row_set_subtitle (self->folder_row, shown);
}

static void
on_extension_read_cb (GObject      *object,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  LumoFirstRun *self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *name = NULL;
  g_autofree char *version = NULL;
  g_autofree char *text = NULL;
  g_autofree char *shown = NULL;

  if (!lumo_browser_extension_read_finish (result, &name, &version, &error))
    {
      /* Disposed meanwhile, or read again. */
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        return;

      g_clear_object (&self->cancellable);
      shown = lumo_format_path (self->local_dir);
      set_extension_path (self, NULL);
      if (g_error_matches (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND))
        /* Translators: %s is a folder. */
        text = g_strdup_printf (_("The provider extension is not installed in %s: Lumo Access was installed without it. Build it in the source tree with “npm ci && npm run build” in extension/, then run “meson install” again, or load extension/dist itself."),
                                shown);
      else
        /* Translators: %s says what is wrong with the folder's manifest.json. */
        text = g_strdup_printf (_("The folder of the provider extension cannot be used: %s"),
                                error->message);
      set_step (self->step2_icon, self->step2_state, STEP_PROBLEM, text);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
      return;
    }

  g_clear_object (&self->cancellable);
  set_extension_path (self, lumo_browser_extension_dup_host_dir (self->local_dir));
  /* Translators: "Lumo Userscripts 0.1.0 is in this folder. Load it …" */
  text = g_strdup_printf (_("%s %s is in this folder. Load it into each browser you set up."),
                          name, version);
  set_step (self->step2_icon, self->step2_state, STEP_TO_DO, text);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

static void
read_extension (LumoFirstRun *self)
{
  g_autoptr(GError) error = NULL;

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->local_dir, g_free);

  self->local_dir = self->extension_dir != NULL ? g_strdup (self->extension_dir)
                                                : lumo_browser_extension_dup_dir (&error);
  if (self->local_dir == NULL)
    {
      g_autofree char *text = g_strdup_printf (_("The folder of the provider extension cannot be used: %s"),
                                               error->message);

      set_extension_path (self, NULL);
      set_step (self->step2_icon, self->step2_state, STEP_PROBLEM, text);
      return;
    }

  self->cancellable = g_cancellable_new ();
  lumo_browser_extension_read_async (self->local_dir, self->cancellable, on_extension_read_cb, self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

static void
on_open_folder_done_cb (GObject      *object,
                        GAsyncResult *result,
                        gpointer      user_data)
{
  g_autoptr(LumoFirstRun) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!gtk_show_uri_full_finish (GTK_WINDOW (object), result, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    lumo_ui_show_error (GTK_WIDGET (self), _("Could not open the folder"), error);
}

static void
open_folder_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *param)
{
  LumoFirstRun *self = LUMO_FIRST_RUN (widget);
  GtkRoot *root = gtk_widget_get_root (widget);
  g_autoptr(GFile) file = NULL;
  g_autofree char *uri = NULL;

  if (self->host_dir == NULL || !GTK_IS_WINDOW (root))
    return;

  /* The folder as this process sees it: inside the Flatpak sandbox the
   * portal opens it for us. */
  file = g_file_new_for_path (self->local_dir);
  uri = g_file_get_uri (file);
  gtk_show_uri_full (GTK_WINDOW (root), uri, GDK_CURRENT_TIME, NULL,
                     on_open_folder_done_cb, g_object_ref (self));
}

static void
copy_path_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *param)
{
  LumoFirstRun *self = LUMO_FIRST_RUN (widget);

  if (self->host_dir == NULL)
    return;

  /* The path the browser's file chooser takes, never the "~" form. */
  gdk_clipboard_set_text (gtk_widget_get_clipboard (widget), self->host_dir);
  lumo_ui_show_toast (widget, lumo_ui_toast_new (_("Path copied")));
}

/* ---- GObject ------------------------------------------------------------ */

/* Back from the browser (or from installing one): look again. */
static void
on_root_active_cb (GtkWindow    *window,
                   GParamSpec   *pspec,
                   LumoFirstRun *self)
{
  if (gtk_window_is_active (window))
    lumo_first_run_refresh (self);
}

static void
on_map_cb (LumoFirstRun *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));

  /* The browsers group looks again by itself when it is mapped. */
  if (self->backend != NULL)
    read_extension (self);

  if (GTK_IS_WINDOW (root) && self->active_root == NULL)
    {
      self->active_root = GTK_WIDGET (root);
      g_signal_connect_object (root, "notify::is-active", G_CALLBACK (on_root_active_cb), self, 0);
    }
}

static void
on_unmap_cb (LumoFirstRun *self)
{
  if (self->active_root != NULL)
    g_signal_handlers_disconnect_by_func (self->active_root, on_root_active_cb, self);
  self->active_root = NULL;
}

static void
lumo_first_run_dispose (GObject *object)
{
  LumoFirstRun *self = (LumoFirstRun *)object;

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->backend);
  on_unmap_cb (self);

  gtk_widget_dispose_template (GTK_WIDGET (self), LUMO_TYPE_FIRST_RUN);

  G_OBJECT_CLASS (lumo_first_run_parent_class)->dispose (object);
}

static void
lumo_first_run_finalize (GObject *object)
{
  LumoFirstRun *self = (LumoFirstRun *)object;

  g_free (self->extension_dir);
  g_free (self->local_dir);
  g_free (self->host_dir);

  G_OBJECT_CLASS (lumo_first_run_parent_class)->finalize (object);
}

static void
lumo_first_run_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  LumoFirstRun *self = LUMO_FIRST_RUN (object);

  switch (prop_id)
    {
    case PROP_BUSY:
      g_value_set_boolean (value, lumo_first_run_get_busy (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
lumo_first_run_class_init (LumoFirstRunClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = lumo_first_run_dispose;
  object_class->finalize = lumo_first_run_finalize;
  object_class->get_property = lumo_first_run_get_property;

  properties[PROP_BUSY] =
    g_param_spec_boolean ("busy", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (LUMO_TYPE_BROWSERS_GROUP);
  gtk_widget_class_set_template_from_resource (widget_class, "/dev/lumo/Access/lumo-first-run.ui");
  gtk_widget_class_bind_template_child (widget_class, LumoFirstRun, step1_icon);
  gtk_widget_class_bind_template_child (widget_class, LumoFirstRun, step1_state);
  gtk_widget_class_bind_template_child (widget_class, LumoFirstRun, browsers);
  gtk_widget_class_bind_template_child (widget_class, LumoFirstRun, step2_icon);
  gtk_widget_class_bind_template_child (widget_class, LumoFirstRun, step2_state);
  gtk_widget_class_bind_template_child (widget_class, LumoFirstRun, folder_row);
  gtk_widget_class_bind_template_child (widget_class, LumoFirstRun, policy_example);
  gtk_widget_class_bind_template_child (widget_class, LumoFirstRun, step3_state);

  gtk_widget_class_install_action (widget_class, "first-run.open-folder", NULL, open_folder_action);
  gtk_widget_class_install_action (widget_class, "first-run.copy-path", NULL, copy_path_action);
}

static void
lumo_first_run_init (LumoFirstRun *self)
{
  const char * const *bundled = lumo_browser_setup_get_bundled_ids ();

  gtk_widget_init_template (GTK_WIDGET (self));

  /* The managed route names the bundled extension's ID; the update URL is
   * the admin's own. Not translated: it is to be copied. */
  if (bundled[0] != NULL)
    {
      g_autofree char *example =
        g_strdup_printf ("{ \"ExtensionInstallForcelist\": [ \"%s;https://intranet.example/lumo/updates.xml\" ] }",
                         bundled[0]);

      gtk_label_set_text (self->policy_example, example);
    }
  gtk_widget_set_visible (GTK_WIDGET (self->policy_example), bundled[0] != NULL);

  set_extension_path (self, NULL);
  set_step (self->step1_icon, self->step1_state, STEP_TO_DO, _("Looking for browsers…"));
  set_step (self->step2_icon, self->step2_state, STEP_TO_DO, _("Looking for the provider extension…"));

  g_signal_connect_object (self->browsers, "notify::n-found",
                           G_CALLBACK (on_browsers_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->browsers, "notify::n-set-up",
                           G_CALLBACK (on_browsers_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->browsers, "notify::busy",
                           G_CALLBACK (on_browsers_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect (self, "map", G_CALLBACK (on_map_cb), NULL);
  g_signal_connect (self, "unmap", G_CALLBACK (on_unmap_cb), NULL);
}

void
lumo_first_run_set_backend (LumoFirstRun *self,
                            LumoBackend  *backend)
{
  g_return_if_fail (LUMO_IS_FIRST_RUN (self));
  g_return_if_fail (LUMO_IS_BACKEND (backend));
  g_return_if_fail (self->backend == NULL);

  self->backend = g_object_ref (backend);
  lumo_browsers_group_set_backend (self->browsers, backend);
  read_extension (self);
}

void
lumo_first_run_set_extension_dir (LumoFirstRun *self,
                                  const char   *dir)
{
  g_return_if_fail (LUMO_IS_FIRST_RUN (self));
  g_return_if_fail (dir == NULL || g_path_is_absolute (dir));

  g_free (self->extension_dir);
  self->extension_dir = g_strdup (dir);
  if (self->backend != NULL)
    read_extension (self);
}

void
lumo_first_run_refresh (LumoFirstRun *self)
{
  g_return_if_fail (LUMO_IS_FIRST_RUN (self));

  if (self->backend == NULL)
    return;
  lumo_browsers_group_refresh (self->browsers);
  read_extension (self);
}

LumoBrowsersGroup *
lumo_first_run_get_browsers (LumoFirstRun *self)
{
  g_return_val_if_fail (LUMO_IS_FIRST_RUN (self), NULL);

  return self->browsers;
}

const char *
lumo_first_run_get_extension_path (LumoFirstRun *self)
{
  g_return_val_if_fail (LUMO_IS_FIRST_RUN (self), NULL);

  return self->host_dir;
}

const char *
lumo_first_run_get_step_state (LumoFirstRun *self,
                               guint         step)
{
  GtkLabel *labels[] = { self->step1_state, self->step2_state, self->step3_state };

  g_return_val_if_fail (LUMO_IS_FIRST_RUN (self), NULL);
  g_return_val_if_fail (step >= 1 && step <= G_N_ELEMENTS (labels), NULL);

  return gtk_label_get_text (labels[step - 1]);
}

gboolean
lumo_first_run_get_busy (LumoFirstRun *self)
{
  g_return_val_if_fail (LUMO_IS_FIRST_RUN (self), FALSE);

  return self->cancellable != NULL || lumo_browsers_group_get_busy (self->browsers);
}
