/* bench-floor.c — the floor of the app's memory: a bare libadwaita window
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What any libadwaita app of the same shape costs before it does anything:
 * an AdwApplicationWindow with a header bar, an AdwViewSwitcherTitle, an
 * AdwViewStack of five pages that are each an AdwStatusPage (an icon, a
 * title, a description), and the AdwViewSwitcherBar. No store, no D-Bus
 * service of its own, no list. bench-app starts it the way it starts
 * lumo-access, under the same renderer, and compares their RSS
 * (docs/PERFORMANCE.md, "App"). Like lumo-access, it prints the monotonic
 * time of its first painted frame when LUMO_ACCESS_REPORT_FIRST_FRAME is
 * set.
 *
 * usage: lumo-bench-floor   (needs a display)
 */
#include "config.h"

#include <adwaita.h>
#include <stdio.h>

static const struct
{
  const char *name;
  const char *title;
  const char *icon;
} pages[] = {
  { "requests", "Requests", "mail-unread-symbolic" },
  { "access", "Access", "system-users-symbolic" },
  { "activity", "Activity", "power-profile-performance-symbolic" },
  { "providers", "Providers", "application-x-addon-symbolic" },
  { "audit", "Audit", "view-list-symbolic" },
};

static void
on_after_paint_cb (GdkFrameClock *clock,
                   gpointer       user_data)
{
  g_signal_handlers_disconnect_by_func (clock, on_after_paint_cb, user_data);
  printf ("lumo-access: first-frame %" G_GINT64_FORMAT "\n", g_get_monotonic_time ());
  fflush (stdout);
}

static void
on_window_map_cb (GtkWidget *window)
{
  GdkFrameClock *clock = gtk_widget_get_frame_clock (window);

  if (clock != NULL && g_getenv ("LUMO_ACCESS_REPORT_FIRST_FRAME") != NULL)
    g_signal_connect (clock, "after-paint", G_CALLBACK (on_after_paint_cb), NULL);
}

static void
on_activate_cb (GtkApplication *app)
{
  GtkWidget *window = adw_application_window_new (app);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *header = adw_header_bar_new ();
  GtkWidget *title = adw_view_switcher_title_new ();
  AdwViewStack *stack = ADW_VIEW_STACK (adw_view_stack_new ());
  GtkWidget *bar = adw_view_switcher_bar_new ();
  const char *page = g_getenv ("LUMO_ACCESS_PAGE");

  for (guint i = 0; i < G_N_ELEMENTS (pages); i++)
    {
      GtkWidget *status = adw_status_page_new ();

      adw_status_page_set_icon_name (ADW_STATUS_PAGE (status), pages[i].icon);
      adw_status_page_set_title (ADW_STATUS_PAGE (status), pages[i].title);
      adw_status_page_set_description (ADW_STATUS_PAGE (status),
                                       "A page of the floor window: nothing but this text.");
      adw_view_stack_add_titled_with_icon (stack, status, pages[i].name, pages[i].title, pages[i].icon);
    }
  if (page != NULL && adw_view_stack_get_child_by_name (stack, page) != NULL)
    adw_view_stack_set_visible_child_name (stack, page);

  adw_view_switcher_title_set_stack (ADW_VIEW_SWITCHER_TITLE (title), stack);
  adw_view_switcher_title_set_title (ADW_VIEW_SWITCHER_TITLE (title), "Floor");
  adw_header_bar_set_title_widget (ADW_HEADER_BAR (header), title);
  adw_view_switcher_bar_set_stack (ADW_VIEW_SWITCHER_BAR (bar), stack);
  g_object_bind_property (title, "title-visible", bar, "reveal", G_BINDING_SYNC_CREATE);
  gtk_widget_set_vexpand (GTK_WIDGET (stack), TRUE);

  gtk_box_append (GTK_BOX (box), header);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (stack));
  gtk_box_append (GTK_BOX (box), bar);
  adw_application_window_set_content (ADW_APPLICATION_WINDOW (window), box);
  gtk_window_set_default_size (GTK_WINDOW (window), 960, 680);

  g_signal_connect (window, "map", G_CALLBACK (on_window_map_cb), NULL);
  gtk_window_present (GTK_WINDOW (window));
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(AdwApplication) app = adw_application_new ("dev.lumo.Access.BenchFloor", G_APPLICATION_NON_UNIQUE);

  g_signal_connect (app, "activate", G_CALLBACK (on_activate_cb), NULL);
  return g_application_run (G_APPLICATION (app), argc, argv);
}
