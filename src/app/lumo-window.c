/* lumo-window.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-window"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "lumo-backend.h"
#include "lumo-window.h"

struct _LumoWindow
{
  AdwApplicationWindow  parent_instance;

  /* Template widgets */
  AdwViewStack         *stack;
  AdwStatusPage        *error_page;
  GtkStack             *main_stack;

  /* Owned */
  LumoBackend          *backend;
};

G_DEFINE_FINAL_TYPE (LumoWindow, lumo_window, ADW_TYPE_APPLICATION_WINDOW)

static const char * const page_names[] = { "requests", "access", "activity", "providers", "audit" };

static void
lumo_window_dispose (GObject *object)
{
  LumoWindow *self = (LumoWindow *)object;

  g_clear_object (&self->backend);

  G_OBJECT_CLASS (lumo_window_parent_class)->dispose (object);
}

static void
lumo_window_class_init (LumoWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = lumo_window_dispose;

  gtk_widget_class_set_template_from_resource (widget_class, "/dev/lumo/Access/lumo-window.ui");
  gtk_widget_class_bind_template_child (widget_class, LumoWindow, stack);
  gtk_widget_class_bind_template_child (widget_class, LumoWindow, error_page);
  gtk_widget_class_bind_template_child (widget_class, LumoWindow, main_stack);
}

static void
lumo_window_init (LumoWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

LumoWindow *
lumo_window_new (GtkApplication *application,
                 LumoBackend    *backend,
                 const GError   *startup_error)
{
  LumoWindow *self;

  g_return_val_if_fail (GTK_IS_APPLICATION (application), NULL);
  g_return_val_if_fail (backend == NULL || LUMO_IS_BACKEND (backend), NULL);

  self = g_object_new (LUMO_TYPE_WINDOW, "application", application, NULL);
  g_set_object (&self->backend, backend);

  if (backend == NULL)
    {
      if (startup_error != NULL)
        adw_status_page_set_description (self->error_page, startup_error->message);
      gtk_stack_set_visible_child_name (self->main_stack, "error");
    }

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

  for (guint i = 0; i < G_N_ELEMENTS (page_names); i++)
    if (g_str_equal (name, page_names[i]))
      {
        adw_view_stack_set_visible_child_name (self->stack, name);
        return TRUE;
      }

  return FALSE;
}

const char *
lumo_window_get_page (LumoWindow *self)
{
  g_return_val_if_fail (LUMO_IS_WINDOW (self), NULL);

  return adw_view_stack_get_visible_child_name (self->stack);
}
