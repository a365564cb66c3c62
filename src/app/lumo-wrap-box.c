/* lumo-wrap-box.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-wrap-box"

#include "config.h"

#include "lumo-wrap-box.h"

/* Between two children on a line, and between two lines. */
#define SPACING 6

struct _LumoWrapBox
{
  GtkWidget parent_instance;
};

static GtkBuildableIface *parent_buildable_iface;

static void lumo_wrap_box_buildable_init (GtkBuildableIface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (LumoWrapBox, lumo_wrap_box, GTK_TYPE_WIDGET,
                               G_IMPLEMENT_INTERFACE (GTK_TYPE_BUILDABLE, lumo_wrap_box_buildable_init))

/* A child's width on a line @width wide: its natural width, less when
 * the line is narrower, never less than its minimum. */
static int
child_width (GtkWidget *child,
             int        width)
{
  int min, nat;

  gtk_widget_measure (child, GTK_ORIENTATION_HORIZONTAL, -1, &min, &nat, NULL, NULL);
  return MAX (min, MIN (nat, width));
}

static int
child_height (GtkWidget *child,
              int        width)
{
  int nat;

  gtk_widget_measure (child, GTK_ORIENTATION_VERTICAL, width, NULL, &nat, NULL, NULL);
  return nat;
}

/* Fills lines of @width greedily, in order; allocates the children when
 * @allocate. Returns the height the lines take. */
static int
flow (GtkWidget *widget,
      int        width,
      gboolean   allocate)
{
  gboolean rtl = gtk_widget_get_direction (widget) == GTK_TEXT_DIR_RTL;
  GtkWidget *child = gtk_widget_get_first_child (widget);
  int y = 0;
  guint n_lines = 0;

  while (child != NULL)
    {
      GtkWidget *first = child;
      GtkWidget *end;
      int line_width = 0;
      int line_height = 0;
      guint n = 0;

      for (end = child; end != NULL; end = gtk_widget_get_next_sibling (end))
        {
          int w;

          if (!gtk_widget_should_layout (end))
            continue;
          w = child_width (end, width);
          if (n > 0 && line_width + SPACING + w > width)
            break;
          line_width += (n > 0 ? SPACING : 0) + w;
          line_height = MAX (line_height, child_height (end, w));
          n++;
        }
      if (n == 0)
        break;

      if (n_lines++ > 0)
        y += SPACING;

      if (allocate)
        {
          /* The line at the end: its free space before it. */
          int x = MAX (0, width - line_width);

          for (GtkWidget *c = first; c != end; c = gtk_widget_get_next_sibling (c))
            {
              int w;

              if (!gtk_widget_should_layout (c))
                continue;
              w = child_width (c, width);
              gtk_widget_size_allocate (c,
                                        &(GtkAllocation) { rtl ? width - x - w : x, y, w, line_height },
                                        -1);
              x += w + SPACING;
            }
        }

      y += line_height;
      child = end;
    }

  return y;
}

static GtkSizeRequestMode
lumo_wrap_box_get_request_mode (GtkWidget *widget)
{
  return GTK_SIZE_REQUEST_HEIGHT_FOR_WIDTH;
}

static void
lumo_wrap_box_measure (GtkWidget      *widget,
                       GtkOrientation  orientation,
                       int             for_size,
                       int            *minimum,
                       int            *natural,
                       int            *minimum_baseline,
                       int            *natural_baseline)
{
  int min = 0, nat = 0;

  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      guint n = 0;

      /* The widest child alone, or all of them on one line. */
      for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL; c = gtk_widget_get_next_sibling (c))
        {
          int child_min, child_nat;

          if (!gtk_widget_should_layout (c))
            continue;
          gtk_widget_measure (c, GTK_ORIENTATION_HORIZONTAL, -1, &child_min, &child_nat, NULL, NULL);
          min = MAX (min, child_min);
          nat += (n++ > 0 ? SPACING : 0) + child_nat;
        }
    }
  else
    {
      /* Without a width, everything on one line. */
      min = nat = flow (widget, for_size >= 0 ? for_size : G_MAXINT / 2, FALSE);
    }

  *minimum = min;
  *natural = MAX (min, nat);
}

static void
lumo_wrap_box_size_allocate (GtkWidget *widget,
                             int        width,
                             int        height,
                             int        baseline)
{
  flow (widget, width, TRUE);
}

static void
lumo_wrap_box_dispose (GObject *object)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (object))) != NULL)
    gtk_widget_unparent (child);

  G_OBJECT_CLASS (lumo_wrap_box_parent_class)->dispose (object);
}

static void
lumo_wrap_box_class_init (LumoWrapBoxClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = lumo_wrap_box_dispose;

  widget_class->get_request_mode = lumo_wrap_box_get_request_mode;
  widget_class->measure = lumo_wrap_box_measure;
  widget_class->size_allocate = lumo_wrap_box_size_allocate;
  gtk_widget_class_set_css_name (widget_class, "wrapbox");
}

static void
lumo_wrap_box_buildable_add_child (GtkBuildable *buildable,
                                   GtkBuilder   *builder,
                                   GObject      *child,
                                   const char   *type)
{
  if (GTK_IS_WIDGET (child) && type == NULL)
    lumo_wrap_box_append (LUMO_WRAP_BOX (buildable), GTK_WIDGET (child));
  else
    parent_buildable_iface->add_child (buildable, builder, child, type);
}

static void
lumo_wrap_box_buildable_init (GtkBuildableIface *iface)
{
  parent_buildable_iface = g_type_interface_peek_parent (iface);
  iface->add_child = lumo_wrap_box_buildable_add_child;
}

static void
lumo_wrap_box_init (LumoWrapBox *self)
{
}

GtkWidget *
lumo_wrap_box_new (void)
{
  return g_object_new (LUMO_TYPE_WRAP_BOX, NULL);
}

void
lumo_wrap_box_append (LumoWrapBox *self,
                      GtkWidget   *child)
{
  g_return_if_fail (LUMO_IS_WRAP_BOX (self));
  g_return_if_fail (GTK_IS_WIDGET (child));
  g_return_if_fail (gtk_widget_get_parent (child) == NULL);

  gtk_widget_insert_before (child, GTK_WIDGET (self), NULL);
}
