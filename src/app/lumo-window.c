/* lumo-window.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-window"

#include "config.h"

#include <glib/gi18n-lib.h>
#include <stdio.h>

#include "lumo-application.h"
#include "lumo-backend.h"
#include "lumo-resources.h"
#include "lumo-ui-util.h"
#include "lumo-window-private.h"

/* The window works without its GSettings schema (a build run uninstalled
 * without GSETTINGS_SCHEMA_DIR has none); it then forgets its size. The
 * schema's ranges are the window's minimum size. */
#define MIN_WIDTH  360
#define MIN_HEIGHT 294

struct _LumoWindow
{
  AdwApplicationWindow  parent_instance;

  /* Template widgets */
  GtkStack             *main_stack;
  AdwViewStack         *stack;
  AdwViewStackPage     *requests_stack_page;
  AdwStatusPage        *error_page;
  AdwToastOverlay      *toast_overlay;
  LumoRequestsPage     *requests_page;
  LumoAccessPage       *access_page;
  LumoActivityPage     *activity_page;
  LumoProvidersPage    *providers_page;
  LumoAuditPage        *audit_page;
  LumoManagedBanner    *managed_banner;

  /* Owned */
  LumoBackend          *backend;
  GSettings            *settings;
  gulong                first_frame_id;
};

G_DEFINE_FINAL_TYPE (LumoWindow, lumo_window, ADW_TYPE_APPLICATION_WINDOW)

static const char * const page_names[] = { "requests", "access", "activity", "providers", "audit" };

static gboolean
is_page_name (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (page_names); i++)
    if (g_strcmp0 (name, page_names[i]) == 0)
      return TRUE;
  return FALSE;
}

/* ---- actions ------------------------------------------------------------ */

static void
page_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *param)
{
  lumo_window_set_page (LUMO_WINDOW (widget), g_variant_get_string (param, NULL));
}

static void
search_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *param)
{
  LumoWindow *self = LUMO_WINDOW (widget);

  if (self->backend == NULL)
    return;
  lumo_window_set_page (self, "audit");
  lumo_audit_page_focus_search (self->audit_page);
}

static void
about_action (GtkWidget  *widget,
              const char *action_name,
              GVariant   *param)
{
  static const char * const developers[] = { "The Lumo Access developers", NULL };
  GtkWidget *about;

  about = g_object_new (ADW_TYPE_ABOUT_WINDOW,
                        "transient-for", widget,
                        "modal", TRUE,
                        "application-name", _("Lumo Access"),
                        "application-icon", APP_ID,
                        "version", PACKAGE_VERSION,
                        "developer-name", _("The Lumo Access developers"),
                        "developers", developers,
                        "comments", _("Decide which AI agents may use the tools of your browser extensions, and review what they did."),
                        "license-type", GTK_LICENSE_GPL_3_0,
                        "translator-credits", _("translator-credits"),
                        NULL);
  gtk_window_present (GTK_WINDOW (about));
}

static void
quit_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *param)
{
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (widget));

  if (app != NULL)
    g_application_quit (G_APPLICATION (app));
  else
    gtk_window_destroy (GTK_WINDOW (widget));
}

static void
close_action (GtkWidget  *widget,
              const char *action_name,
              GVariant   *param)
{
  gtk_window_close (GTK_WINDOW (widget));
}

/* ---- window state ------------------------------------------------------- */

static void
restore_size (LumoWindow *self)
{
  int width, height;

  if (self->settings == NULL)
    return;

  width = g_settings_get_int (self->settings, "window-width");
  height = g_settings_get_int (self->settings, "window-height");
  if (width > 0 && height > 0)
    gtk_window_set_default_size (GTK_WINDOW (self), MAX (width, MIN_WIDTH), MAX (height, MIN_HEIGHT));
  if (g_settings_get_boolean (self->settings, "window-maximized"))
    gtk_window_maximize (GTK_WINDOW (self));
}

static void
save_size (LumoWindow *self)
{
  int width, height;

  if (self->settings == NULL)
    return;

  /* The size before maximizing, so that unmaximizing after a restart
   * returns to it. */
  gtk_window_get_default_size (GTK_WINDOW (self), &width, &height);
  g_settings_delay (self->settings);
  g_settings_set_int (self->settings, "window-width", CLAMP (width, MIN_WIDTH, G_MAXSHORT));
  g_settings_set_int (self->settings, "window-height", CLAMP (height, MIN_HEIGHT, G_MAXSHORT));
  g_settings_set_boolean (self->settings, "window-maximized", gtk_window_is_maximized (GTK_WINDOW (self)));
  g_settings_apply (self->settings);
}

/* On unrealize, not on close-request: quitting (Ctrl+Q, logout) destroys
 * the window without asking it to close. */
static void
lumo_window_unrealize (GtkWidget *widget)
{
  save_size (LUMO_WINDOW (widget));

  GTK_WIDGET_CLASS (lumo_window_parent_class)->unrealize (widget);
}

/* LUMO_ACCESS_REPORT_FIRST_FRAME=1 prints the monotonic time of the first
 * frame, so the benchmark can time a cold start of the real binary. */
static void
on_after_paint_cb (GdkFrameClock *clock,
                   LumoWindow    *self)
{
  g_clear_signal_handler (&self->first_frame_id, clock);
  printf ("lumo-access: first-frame %" G_GINT64_FORMAT "\n", g_get_monotonic_time ());
  fflush (stdout);
}

static void
lumo_window_map (GtkWidget *widget)
{
  LumoWindow *self = LUMO_WINDOW (widget);

  GTK_WIDGET_CLASS (lumo_window_parent_class)->map (widget);

  if (self->first_frame_id == 0 && g_getenv ("LUMO_ACCESS_REPORT_FIRST_FRAME") != NULL)
    {
      GdkFrameClock *clock = gtk_widget_get_frame_clock (widget);

      if (clock != NULL)
        self->first_frame_id = g_signal_connect (clock, "after-paint", G_CALLBACK (on_after_paint_cb), self);
    }
}

/* ---- GObject ------------------------------------------------------------ */

static void
lumo_window_dispose (GObject *object)
{
  LumoWindow *self = (LumoWindow *)object;

  if (self->first_frame_id != 0)
    {
      GdkFrameClock *clock = gtk_widget_get_frame_clock (GTK_WIDGET (self));

      if (clock != NULL)
        g_clear_signal_handler (&self->first_frame_id, clock);
      self->first_frame_id = 0;
    }

  gtk_widget_dispose_template (GTK_WIDGET (self), LUMO_TYPE_WINDOW);
  g_clear_object (&self->settings);
  g_clear_object (&self->backend);

  G_OBJECT_CLASS (lumo_window_parent_class)->dispose (object);
}

static void
lumo_window_class_init (LumoWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = lumo_window_dispose;
  widget_class->map = lumo_window_map;
  widget_class->unrealize = lumo_window_unrealize;

  /* The app is a static library: naming the bundle links its object file,
   * whose constructor registers the templates. */
  g_assert (lumo_get_resource () != NULL);

  g_type_ensure (LUMO_TYPE_REQUESTS_PAGE);
  g_type_ensure (LUMO_TYPE_ACCESS_PAGE);
  g_type_ensure (LUMO_TYPE_ACTIVITY_PAGE);
  g_type_ensure (LUMO_TYPE_PROVIDERS_PAGE);
  g_type_ensure (LUMO_TYPE_AUDIT_PAGE);
  g_type_ensure (LUMO_TYPE_MANAGED_BANNER);

  gtk_widget_class_set_template_from_resource (widget_class, "/dev/lumo/Access/lumo-window.ui");
  gtk_widget_class_bind_template_child (widget_class, LumoWindow, main_stack);
  gtk_widget_class_bind_template_child (widget_class, LumoWindow, stack);
  gtk_widget_class_bind_template_child (widget_class, LumoWindow, requests_stack_page);
  gtk_widget_class_bind_template_child (widget_class, LumoWindow, error_page);
  gtk_widget_class_bind_template_child (widget_class, LumoWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, LumoWindow, requests_page);
  gtk_widget_class_bind_template_child (widget_class, LumoWindow, access_page);
  gtk_widget_class_bind_template_child (widget_class, LumoWindow, activity_page);
  gtk_widget_class_bind_template_child (widget_class, LumoWindow, providers_page);
  gtk_widget_class_bind_template_child (widget_class, LumoWindow, audit_page);
  gtk_widget_class_bind_template_child (widget_class, LumoWindow, managed_banner);

  gtk_widget_class_install_action (widget_class, "win.page", "s", page_action);
  gtk_widget_class_install_action (widget_class, "win.search", NULL, search_action);
  gtk_widget_class_install_action (widget_class, "win.about", NULL, about_action);
  gtk_widget_class_install_action (widget_class, "win.quit", NULL, quit_action);
  gtk_widget_class_install_action (widget_class, "win.close", NULL, close_action);

  for (guint i = 0; i < G_N_ELEMENTS (page_names); i++)
    {
      gtk_widget_class_add_binding_action (widget_class, GDK_KEY_1 + i, GDK_CONTROL_MASK,
                                           "win.page", "s", page_names[i]);
      gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_1 + i, GDK_CONTROL_MASK,
                                           "win.page", "s", page_names[i]);
    }
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_f, GDK_CONTROL_MASK, "win.search", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_q, GDK_CONTROL_MASK, "win.quit", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_w, GDK_CONTROL_MASK, "win.close", NULL);
}

/* Only the page on screen is visible: AdwViewStack measures every
 * visible page, so with all five the window's first layout measured the
 * text of four pages nobody sees before the first frame (about 180 ms
 * on the test machine, docs/PERFORMANCE.md). Each page sits in a bin,
 * the stack's child, so the switcher still lists every page. */
static void
on_stack_visible_child_cb (LumoWindow *self)
{
  GtkWidget *shown = adw_view_stack_get_visible_child (self->stack);
  GtkWidget *pages[] = {
    GTK_WIDGET (self->requests_page), GTK_WIDGET (self->access_page),
    GTK_WIDGET (self->activity_page), GTK_WIDGET (self->providers_page),
    GTK_WIDGET (self->audit_page),
  };

  for (guint i = 0; i < G_N_ELEMENTS (pages); i++)
    gtk_widget_set_visible (pages[i], gtk_widget_get_parent (pages[i]) == shown);
}

static void
lumo_window_init (LumoWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  g_signal_connect_swapped (self->stack, "notify::visible-child",
                            G_CALLBACK (on_stack_visible_child_cb), self);
  on_stack_visible_child_cb (self);

  self->settings = lumo_ui_lookup_settings ("window-width", "window-height",
                                            "window-maximized", NULL);
  restore_size (self);

  /* The badge counts what waits for a person. */
  g_object_bind_property (self->requests_page, "n-waiting",
                          self->requests_stack_page, "badge-number", G_BINDING_SYNC_CREATE);
  g_object_bind_property (self->requests_stack_page, "badge-number",
                          self->requests_stack_page, "needs-attention", G_BINDING_SYNC_CREATE);
}

LumoWindow *
lumo_window_new (GtkApplication *application,
                 LumoBackend    *backend,
                 const GError   *startup_error)
{
  LumoWindow *self;
  const char *page;

  g_return_val_if_fail (GTK_IS_APPLICATION (application), NULL);
  g_return_val_if_fail (backend == NULL || LUMO_IS_BACKEND (backend), NULL);

  self = g_object_new (LUMO_TYPE_WINDOW, "application", application, NULL);

  if (backend == NULL)
    {
      /* The description is markup; the message names a file. */
      if (startup_error != NULL)
        {
          g_autofree char *escaped = g_markup_escape_text (startup_error->message, -1);

          adw_status_page_set_description (self->error_page, escaped);
        }
      gtk_stack_set_visible_child_name (self->main_stack, "error");
      return self;
    }

  self->backend = g_object_ref (backend);
  lumo_requests_page_set_backend (self->requests_page, backend);
  lumo_access_page_set_backend (self->access_page, backend);
  lumo_activity_page_set_backend (self->activity_page, backend);
  lumo_providers_page_set_backend (self->providers_page, backend);
  lumo_audit_page_set_backend (self->audit_page, backend);
  lumo_managed_banner_set_policy (self->managed_banner, lumo_backend_get_policy (backend));
  /* The desktop agents' endpoint and sessions are the application's. */
  if (LUMO_IS_APPLICATION (application))
    {
      LumoApplication *app = LUMO_APPLICATION (application);

      lumo_agents_group_set_application (lumo_access_page_get_agents_group (self->access_page), app);
      if (lumo_application_get_gateway (app) != NULL)
        lumo_activity_page_set_gateway (self->activity_page, lumo_application_get_gateway (app));
    }

  /* LUMO_ACCESS_PAGE opens another page first (screenshots, the tour in
   * the README). */
  page = g_getenv ("LUMO_ACCESS_PAGE");
  if (page != NULL && is_page_name (page))
    lumo_window_set_page (self, page);

  return self;
}

LumoBackend *
lumo_window_get_backend (LumoWindow *self)
{
  g_return_val_if_fail (LUMO_IS_WINDOW (self), NULL);

  return self->backend;
}

gboolean
lumo_window_set_page (LumoWindow *self,
                      const char *name)
{
  g_return_val_if_fail (LUMO_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);

  if (!is_page_name (name) || self->backend == NULL)
    return FALSE;

  adw_view_stack_set_visible_child_name (self->stack, name);
  return TRUE;
}

const char *
lumo_window_get_page (LumoWindow *self)
{
  g_return_val_if_fail (LUMO_IS_WINDOW (self), NULL);

  return adw_view_stack_get_visible_child_name (self->stack);
}

LumoRequestsPage *
_lumo_window_get_requests_page (LumoWindow *self)
{
  g_return_val_if_fail (LUMO_IS_WINDOW (self), NULL);
  return self->requests_page;
}

LumoAccessPage *
_lumo_window_get_access_page (LumoWindow *self)
{
  g_return_val_if_fail (LUMO_IS_WINDOW (self), NULL);
  return self->access_page;
}

LumoActivityPage *
_lumo_window_get_activity_page (LumoWindow *self)
{
  g_return_val_if_fail (LUMO_IS_WINDOW (self), NULL);
  return self->activity_page;
}

LumoProvidersPage *
_lumo_window_get_providers_page (LumoWindow *self)
{
  g_return_val_if_fail (LUMO_IS_WINDOW (self), NULL);
  return self->providers_page;
}

LumoManagedBanner *
_lumo_window_get_managed_banner (LumoWindow *self)
{
  g_return_val_if_fail (LUMO_IS_WINDOW (self), NULL);
  return self->managed_banner;
}

LumoAuditPage *
_lumo_window_get_audit_page (LumoWindow *self)
{
  g_return_val_if_fail (LUMO_IS_WINDOW (self), NULL);
  return self->audit_page;
}

void
_lumo_window_set_browser_locations (LumoWindow         *self,
                                    const char         *home_dir,
                                    const char         *system_root,
                                    const char * const *search_path)
{
  LumoFirstRun *first_run;

  g_return_if_fail (LUMO_IS_WINDOW (self));

  first_run = lumo_requests_page_get_first_run (self->requests_page);
  lumo_browsers_group_set_locations (lumo_first_run_get_browsers (first_run),
                                     home_dir, system_root, search_path);
  lumo_browsers_group_set_locations (lumo_providers_page_get_browsers (self->providers_page),
                                     home_dir, system_root, search_path);
}
