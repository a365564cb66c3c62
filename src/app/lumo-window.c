/* lumo-window.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-window"

#include "config.h"

#include <glib/gi18n-lib.h>
#include <stdio.h>
#include <string.h>

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

/* The pages, in the order of the switcher and of Ctrl+1 … Ctrl+5. */
typedef enum
{
  PAGE_REQUESTS,
  PAGE_ACCESS,
  PAGE_ACTIVITY,
  PAGE_PROVIDERS,
  PAGE_AUDIT,
  N_PAGES
} PageIndex;

static const char * const page_names[N_PAGES] = { "requests", "access", "activity", "providers", "audit" };

struct _LumoWindow
{
  AdwApplicationWindow  parent_instance;

  /* Template widgets */
  GtkStack             *main_stack;
  AdwViewStack         *stack;
  AdwViewStackPage     *requests_stack_page;
  AdwStatusPage        *error_page;
  AdwToastOverlay      *toast_overlay;
  AdwBin               *bins[N_PAGES];     /* the stack's children; each holds its page once built */
  LumoManagedBanner    *managed_banner;
  GtkMenuButton        *menu_button;
  GMenuModel           *primary_menu;

  /* Borrowed (each page is its bin's child); NULL until first shown */
  GtkWidget            *pages[N_PAGES];

  /* Owned */
  LumoBackend          *backend;
  LumoCallerModel      *pending;           /* the badge's callers, and the Requests page's */
  GSettings            *settings;
  gulong                first_frame_id;
  gboolean              painted;        /* its first frame was drawn */
  gboolean              ready;             /* the backend is given: shown pages are built */
};

G_DEFINE_FINAL_TYPE (LumoWindow, lumo_window, ADW_TYPE_APPLICATION_WINDOW)

static int
page_index (const char *name)
{
  for (guint i = 0; i < N_PAGES; i++)
    if (g_strcmp0 (name, page_names[i]) == 0)
      return i;
  return -1;
}

static GtkWidget *ensure_page (LumoWindow *self,
                               PageIndex   index);

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
  lumo_audit_page_focus_search (LUMO_AUDIT_PAGE (ensure_page (self, PAGE_AUDIT)));
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

/* The shortcuts window is built the first time it is asked for (the menu,
 * Ctrl+?, Ctrl+F1), not with every window as GtkApplication would from
 * gtk/help-overlay.ui: most windows never show it. Once built, it is the
 * window's help overlay, closed by hiding and kept for the next time. */
static void
shortcuts_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *param)
{
  GtkApplicationWindow *window = GTK_APPLICATION_WINDOW (widget);
  GtkShortcutsWindow *overlay = gtk_application_window_get_help_overlay (window);

  if (overlay == NULL)
    {
      g_autoptr(GtkBuilder) builder = gtk_builder_new_from_resource ("/dev/lumo/Access/lumo-shortcuts-window.ui");

      overlay = GTK_SHORTCUTS_WINDOW (gtk_builder_get_object (builder, "help_overlay"));
      gtk_application_window_set_help_overlay (window, overlay);
    }
  gtk_window_present (GTK_WINDOW (overlay));
}

/* The main menu's popover is made the first time it opens (a click, F10),
 * not with the window: most launches never open it. GTK asks each time
 * the button is toggled on; the popover made the first time stays. */
static void
create_menu_popup_cb (GtkMenuButton *button,
                      gpointer       user_data)
{
  LumoWindow *self = user_data;

  if (gtk_menu_button_get_menu_model (button) == NULL)
    gtk_menu_button_set_menu_model (button, self->primary_menu);
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
  LumoWindow *self = LUMO_WINDOW (widget);
  GdkFrameClock *clock = gtk_widget_get_frame_clock (widget);

  save_size (self);
  /* The clock goes with the surface; the next map connects again. A
   * window gone before its first frame holds the check no longer. */
  if (self->first_frame_id != 0 && clock != NULL)
    g_clear_signal_handler (&self->first_frame_id, clock);
  if (!self->painted && self->backend != NULL)
    lumo_audit_store_release_check (lumo_backend_get_audit_store (self->backend));

  GTK_WIDGET_CLASS (lumo_window_parent_class)->unrealize (widget);
}

/* After the first frame: LUMO_ACCESS_REPORT_FIRST_FRAME=1 prints its
 * monotonic time, so the benchmark can time a cold start of the real
 * binary; and the heap start-up freed goes back and the audit log's
 * integrity check may start (LUMO_AUDIT_STORE_HOLD_CHECK), unless the
 * Audit page is shown, which does both once its first rows are painted. */
static void
on_after_paint_cb (GdkFrameClock *clock,
                   LumoWindow    *self)
{
  static gboolean first_frame_seen;
  gboolean on_audit = g_strcmp0 (lumo_window_get_page (self), "audit") == 0;

  g_clear_signal_handler (&self->first_frame_id, clock);
  self->painted = TRUE;
  if (self->backend != NULL && !on_audit)
    lumo_audit_store_release_check (lumo_backend_get_audit_store (self->backend));

  /* The rest once per process: its first window's first frame. */
  if (first_frame_seen)
    return;
  first_frame_seen = TRUE;
  if (g_getenv ("LUMO_ACCESS_REPORT_FIRST_FRAME") != NULL)
    {
      printf ("lumo-access: first-frame %" G_GINT64_FORMAT "\n", g_get_monotonic_time ());
      fflush (stdout);
    }
  if (self->backend != NULL && !on_audit)
    lumo_ui_trim_heap_once ();
}

static void
lumo_window_map (GtkWidget *widget)
{
  LumoWindow *self = LUMO_WINDOW (widget);
  GdkFrameClock *clock;

  GTK_WIDGET_CLASS (lumo_window_parent_class)->map (widget);

  clock = gtk_widget_get_frame_clock (widget);
  if (!self->painted && self->first_frame_id == 0 && clock != NULL)
    self->first_frame_id = g_signal_connect (clock, "after-paint", G_CALLBACK (on_after_paint_cb), self);
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

  /* The bins take their pages along. */
  memset (self->pages, 0, sizeof self->pages);
  gtk_widget_dispose_template (GTK_WIDGET (self), LUMO_TYPE_WINDOW);
  g_clear_object (&self->pending);
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
  for (guint i = 0; i < N_PAGES; i++)
    {
      g_autofree char *id = g_strdup_printf ("%s_bin", page_names[i]);

      gtk_widget_class_bind_template_child_full (widget_class, id, FALSE,
                                                 G_STRUCT_OFFSET (LumoWindow, bins[i]));
    }
  gtk_widget_class_bind_template_child (widget_class, LumoWindow, managed_banner);
  gtk_widget_class_bind_template_child (widget_class, LumoWindow, menu_button);
  gtk_widget_class_bind_template_child (widget_class, LumoWindow, primary_menu);

  gtk_widget_class_install_action (widget_class, "win.page", "s", page_action);
  gtk_widget_class_install_action (widget_class, "win.search", NULL, search_action);
  gtk_widget_class_install_action (widget_class, "win.about", NULL, about_action);
  gtk_widget_class_install_action (widget_class, "win.show-help-overlay", NULL, shortcuts_action);
  gtk_widget_class_install_action (widget_class, "win.quit", NULL, quit_action);
  gtk_widget_class_install_action (widget_class, "win.close", NULL, close_action);

  for (guint i = 0; i < N_PAGES; i++)
    {
      gtk_widget_class_add_binding_action (widget_class, GDK_KEY_1 + i, GDK_CONTROL_MASK,
                                           "win.page", "s", page_names[i]);
      gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_1 + i, GDK_CONTROL_MASK,
                                           "win.page", "s", page_names[i]);
    }
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_f, GDK_CONTROL_MASK, "win.search", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_question, GDK_CONTROL_MASK, "win.show-help-overlay", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_F1, GDK_CONTROL_MASK, "win.show-help-overlay", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_q, GDK_CONTROL_MASK, "win.quit", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_w, GDK_CONTROL_MASK, "win.close", NULL);
}

/* ---- pages -------------------------------------------------------------- */

/* What waits for a person: pending callers and writes waiting for review.
 * The window counts them itself, so the badge is right while the Requests
 * page was never shown (and so never built). */
static void
update_badge (LumoWindow *self)
{
  guint n = 0;

  if (self->backend != NULL)
    n = g_list_model_get_n_items (G_LIST_MODEL (self->pending)) +
        g_list_model_get_n_items (G_LIST_MODEL (lumo_backend_get_review_queue (self->backend)));

  adw_view_stack_page_set_badge_number (self->requests_stack_page, n);
  adw_view_stack_page_set_needs_attention (self->requests_stack_page, n > 0);
}

/* A page is built the first time it is shown, or asked for: building all
 * five took 28–92 ms of the window's start and ~10 MB, for four pages
 * nobody had looked at yet (docs/PERFORMANCE.md). What a window must do
 * whether or not a page was ever shown is the window's (the badge), the
 * application's (notifications) or core's. */
static GtkWidget *
ensure_page (LumoWindow *self,
             PageIndex   index)
{
  static GType (* const get_types[N_PAGES]) (void) = {
    lumo_requests_page_get_type, lumo_access_page_get_type, lumo_activity_page_get_type,
    lumo_providers_page_get_type, lumo_audit_page_get_type,
  };
  GtkApplication *application;
  GtkWidget *page;

  if (self->pages[index] != NULL)
    return self->pages[index];

  page = g_object_new (get_types[index] (), NULL);
  /* Only the page on screen is visible (on_stack_visible_child_cb()). */
  gtk_widget_set_visible (page, adw_view_stack_get_visible_child (self->stack) == GTK_WIDGET (self->bins[index]));
  adw_bin_set_child (self->bins[index], page);
  self->pages[index] = page;

  if (self->backend == NULL)
    return page;

  application = gtk_window_get_application (GTK_WINDOW (self));
  switch (index)
    {
    case PAGE_REQUESTS:
      lumo_requests_page_set_backend (LUMO_REQUESTS_PAGE (page), self->backend, self->pending);
      break;
    case PAGE_ACCESS:
      lumo_access_page_set_backend (LUMO_ACCESS_PAGE (page), self->backend);
      /* The desktop agents' endpoint and sessions are the application's. */
      if (LUMO_IS_APPLICATION (application))
        lumo_agents_group_set_application (lumo_access_page_get_agents_group (LUMO_ACCESS_PAGE (page)),
                                           LUMO_APPLICATION (application));
      break;
    case PAGE_ACTIVITY:
      lumo_activity_page_set_backend (LUMO_ACTIVITY_PAGE (page), self->backend);
      if (LUMO_IS_APPLICATION (application) && lumo_application_get_gateway (LUMO_APPLICATION (application)) != NULL)
        lumo_activity_page_set_gateway (LUMO_ACTIVITY_PAGE (page),
                                        lumo_application_get_gateway (LUMO_APPLICATION (application)));
      break;
    case PAGE_PROVIDERS:
      lumo_providers_page_set_backend (LUMO_PROVIDERS_PAGE (page), self->backend);
      break;
    case PAGE_AUDIT:
      lumo_audit_page_set_backend (LUMO_AUDIT_PAGE (page), self->backend);
      break;
    case N_PAGES:
    default:
      g_assert_not_reached ();
    }

  return page;
}

/* Only the page on screen is visible: AdwViewStack measures every
 * visible page, so with all five the window's first layout measured the
 * text of four pages nobody sees before the first frame (about 180 ms
 * on the test machine, docs/PERFORMANCE.md). Each page sits in a bin,
 * the stack's child, so the switcher still lists every page; the page
 * shown is built here the first time. */
static void
on_stack_visible_child_cb (LumoWindow *self)
{
  GtkWidget *shown = adw_view_stack_get_visible_child (self->stack);

  for (guint i = 0; i < N_PAGES; i++)
    {
      if (self->ready && GTK_WIDGET (self->bins[i]) == shown)
        ensure_page (self, i);
      if (self->pages[i] != NULL)
        gtk_widget_set_visible (self->pages[i], GTK_WIDGET (self->bins[i]) == shown);
    }
}

static void
lumo_window_init (LumoWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_menu_button_set_create_popup_func (self->menu_button, create_menu_popup_cb, self, NULL);
  g_signal_connect_swapped (self->stack, "notify::visible-child",
                            G_CALLBACK (on_stack_visible_child_cb), self);

  self->settings = lumo_ui_lookup_settings ("window-width", "window-height",
                                            "window-maximized", NULL);
  restore_size (self);
}

LumoWindow *
lumo_window_new (GtkApplication *application,
                 LumoBackend    *backend,
                 const GError   *startup_error)
{
  LumoWindow *self;
  int page;

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
  lumo_managed_banner_set_policy (self->managed_banner, lumo_backend_get_policy (backend));

  /* The badge counts what waits for a person. */
  self->pending = lumo_caller_model_new (lumo_backend_get_policy (backend), NULL, LUMO_CALLER_STATE_PENDING);
  g_signal_connect_object (self->pending, "items-changed", G_CALLBACK (update_badge), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (lumo_backend_get_review_queue (backend), "items-changed",
                           G_CALLBACK (update_badge), self, G_CONNECT_SWAPPED);
  update_badge (self);

  /* LUMO_ACCESS_PAGE opens another page first (screenshots, the tour in
   * the README). */
  page = page_index (g_getenv ("LUMO_ACCESS_PAGE"));
  if (page >= 0)
    adw_view_stack_set_visible_child (self->stack, GTK_WIDGET (self->bins[page]));

  /* Only now is the page shown first built: with its backend. */
  self->ready = TRUE;
  on_stack_visible_child_cb (self);

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

  if (page_index (name) < 0 || self->backend == NULL)
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
  return LUMO_REQUESTS_PAGE (ensure_page (self, PAGE_REQUESTS));
}

LumoAccessPage *
_lumo_window_get_access_page (LumoWindow *self)
{
  g_return_val_if_fail (LUMO_IS_WINDOW (self), NULL);
  return LUMO_ACCESS_PAGE (ensure_page (self, PAGE_ACCESS));
}

LumoActivityPage *
_lumo_window_get_activity_page (LumoWindow *self)
{
  g_return_val_if_fail (LUMO_IS_WINDOW (self), NULL);
  return LUMO_ACTIVITY_PAGE (ensure_page (self, PAGE_ACTIVITY));
}

LumoProvidersPage *
_lumo_window_get_providers_page (LumoWindow *self)
{
  g_return_val_if_fail (LUMO_IS_WINDOW (self), NULL);
  return LUMO_PROVIDERS_PAGE (ensure_page (self, PAGE_PROVIDERS));
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
  return LUMO_AUDIT_PAGE (ensure_page (self, PAGE_AUDIT));
}

void
_lumo_window_set_browser_locations (LumoWindow         *self,
                                    const char         *home_dir,
                                    const char         *system_root,
                                    const char * const *search_path)
{
  LumoFirstRun *first_run;

  g_return_if_fail (LUMO_IS_WINDOW (self));

  first_run = lumo_requests_page_get_first_run (_lumo_window_get_requests_page (self));
  lumo_browsers_group_set_locations (lumo_first_run_get_browsers (first_run),
                                     home_dir, system_root, search_path);
  lumo_browsers_group_set_locations (lumo_providers_page_get_browsers (_lumo_window_get_providers_page (self)),
                                     home_dir, system_root, search_path);
}
