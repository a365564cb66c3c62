/* lumo-audit-header.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-audit-header"

#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "lumo-audit-header.h"

/* How far from a border between two titles (either side) a press drags
 * it rather than clicks the title. */
#define BORDER_REACH 4

struct _LumoAuditHeader
{
  GtkWidget         parent_instance;

  LumoAuditColumns *columns;                       /* owned: the page's */
  LumoAuditSpan     spans[LUMO_AUDIT_N_COLUMNS];   /* as last allocated */
  GtkWidget        *titles[LUMO_AUDIT_N_COLUMNS];  /* a button, or a label */
  GtkWidget        *arrows[LUMO_AUDIT_N_COLUMNS];  /* NULL for a column that does not sort */

  /* Dragging a border */
  LumoAuditColumn   resizing;                      /* LUMO_AUDIT_N_COLUMNS: not */
  int               resize_start;                  /* the column's width when the drag began */
  guint32           reset_time;                    /* of the double press that reset a column */
  gboolean          cursor_set;
};

G_DEFINE_FINAL_TYPE (LumoAuditHeader, lumo_audit_header, GTK_TYPE_WIDGET)

static const char *
column_title (LumoAuditColumn column)
{
  switch (column)
    {
    case LUMO_AUDIT_COLUMN_TIME:
      return _("Time");
    case LUMO_AUDIT_COLUMN_CALLER:
      return _("Agent");
    case LUMO_AUDIT_COLUMN_PROVIDER:
      return _("Provider");
    case LUMO_AUDIT_COLUMN_TOOL:
      return _("Tool");
    case LUMO_AUDIT_COLUMN_TARGET:
      return _("Target");
    case LUMO_AUDIT_COLUMN_OUTCOME:
      return _("Outcome");
    case LUMO_AUDIT_COLUMN_HASH:
      return _("Hash");
    case LUMO_AUDIT_N_COLUMNS:
    default:
      g_return_val_if_reached ("");
    }
}

static void
lumo_audit_header_measure (GtkWidget      *widget,
                           GtkOrientation  orientation,
                           int             for_size,
                           int            *minimum,
                           int            *natural,
                           int            *minimum_baseline,
                           int            *natural_baseline)
{
  LumoAuditHeader *self = LUMO_AUDIT_HEADER (widget);

  *minimum = *natural = 0;
  for (guint c = 0; c < LUMO_AUDIT_N_COLUMNS; c++)
    {
      int child_min, child_nat;

      gtk_widget_measure (self->titles[c], orientation, -1, &child_min, &child_nat, NULL, NULL);
      if (orientation == GTK_ORIENTATION_VERTICAL)
        {
          *minimum = MAX (*minimum, child_min);
          *natural = MAX (*natural, child_nat);
        }
      else
        /* As narrow as the list: the titles ellipsize, or leave with
         * their columns. */
        *natural += child_nat;
    }
}

static void
lumo_audit_header_size_allocate (GtkWidget *widget,
                                 int        width,
                                 int        height,
                                 int        baseline)
{
  LumoAuditHeader *self = LUMO_AUDIT_HEADER (widget);
  LumoAuditSpan spans[LUMO_AUDIT_N_COLUMNS];
  gboolean rtl = gtk_widget_get_direction (widget) == GTK_TEXT_DIR_RTL;

  lumo_audit_columns_layout (self->columns, width, spans);
  memcpy (self->spans, spans, sizeof spans);
  for (guint c = 0; c < LUMO_AUDIT_N_COLUMNS; c++)
    {
      int child_min, x, w;

      gtk_widget_set_child_visible (self->titles[c], spans[c].width > 0);
      if (spans[c].width == 0)
        continue;
      gtk_widget_measure (self->titles[c], GTK_ORIENTATION_HORIZONTAL, -1, &child_min, NULL, NULL, NULL);
      w = MAX (spans[c].width, child_min);
      x = rtl ? width - spans[c].x - w : spans[c].x;
      gtk_widget_size_allocate (self->titles[c], &(GtkAllocation) { x, 0, w, height }, -1);
    }
}

/* ---- resizing ------------------------------------------------------------ */

LumoAuditColumn
lumo_audit_header_border_at (LumoAuditHeader *self,
                             double           x)
{
  int width = gtk_widget_get_width (GTK_WIDGET (self));
  gboolean rtl = gtk_widget_get_direction (GTK_WIDGET (self)) == GTK_TEXT_DIR_RTL;
  LumoAuditColumn nearest = LUMO_AUDIT_N_COLUMNS;
  double distance = BORDER_REACH + 1;

  g_return_val_if_fail (LUMO_IS_AUDIT_HEADER (self), LUMO_AUDIT_N_COLUMNS);

  /* A column's border is its end edge: the right one, the left one right
   * to left. */
  for (guint c = 0; c < LUMO_AUDIT_N_COLUMNS; c++)
    {
      int end = self->spans[c].x + self->spans[c].width;

      if (self->spans[c].width == 0)
        continue;
      if (rtl)
        end = width - end;
      if (ABS (x - end) < distance)
        {
          distance = ABS (x - end);
          nearest = c;
        }
    }
  return distance <= BORDER_REACH ? nearest : LUMO_AUDIT_N_COLUMNS;
}

static void
set_resize_cursor (LumoAuditHeader *self,
                   gboolean         on)
{
  if (on == self->cursor_set)
    return;
  self->cursor_set = on;
  gtk_widget_set_cursor_from_name (GTK_WIDGET (self), on ? "col-resize" : NULL);
}

static void
on_motion_cb (GtkEventControllerMotion *motion,
              double                    x,
              double                    y,
              LumoAuditHeader          *self)
{
  set_resize_cursor (self, self->resizing != LUMO_AUDIT_N_COLUMNS ||
                             lumo_audit_header_border_at (self, x) != LUMO_AUDIT_N_COLUMNS);
}

static void
on_motion_leave_cb (GtkEventControllerMotion *motion,
                    LumoAuditHeader          *self)
{
  if (self->resizing == LUMO_AUDIT_N_COLUMNS)
    set_resize_cursor (self, FALSE);
}

/* The drag runs in the capture phase: a press on a border is claimed
 * before the title's button sees it, so a drag never sorts; any other
 * press is left to the buttons. */
static void
on_drag_begin_cb (GtkGestureDrag  *drag,
                  double           x,
                  double           y,
                  LumoAuditHeader *self)
{
  LumoAuditColumn column = lumo_audit_header_border_at (self, x);
  guint32 time = gtk_event_controller_get_current_event_time (GTK_EVENT_CONTROLLER (drag));

  if (column == LUMO_AUDIT_N_COLUMNS)
    {
      gtk_gesture_set_state (GTK_GESTURE (drag), GTK_EVENT_SEQUENCE_DENIED);
      return;
    }
  gtk_gesture_set_state (GTK_GESTURE (drag), GTK_EVENT_SEQUENCE_CLAIMED);
  /* The second press of a double click on the border reset the column. */
  if (time != 0 && time == self->reset_time)
    return;
  self->resizing = column;
  self->resize_start = self->spans[column].width;
  set_resize_cursor (self, TRUE);
}

static void
on_drag_update_cb (GtkGestureDrag  *drag,
                   double           offset_x,
                   double           offset_y,
                   LumoAuditHeader *self)
{
  int delta = (int) (gtk_widget_get_direction (GTK_WIDGET (self)) == GTK_TEXT_DIR_RTL ? -offset_x : offset_x);

  if (self->resizing == LUMO_AUDIT_N_COLUMNS)
    return;
  lumo_audit_columns_resize (self->columns, self->resizing, self->resize_start + delta,
                             gtk_widget_get_width (GTK_WIDGET (self)));
}

static void
on_drag_end_cb (GtkGestureDrag  *drag,
                double           offset_x,
                double           offset_y,
                LumoAuditHeader *self)
{
  self->resizing = LUMO_AUDIT_N_COLUMNS;
}

/* A double click on a border gives the column its default width back. */
static void
on_click_pressed_cb (GtkGestureClick *click,
                     int              n_press,
                     double           x,
                     double           y,
                     LumoAuditHeader *self)
{
  LumoAuditColumn column;

  if (n_press != 2 || (column = lumo_audit_header_border_at (self, x)) == LUMO_AUDIT_N_COLUMNS)
    return;
  gtk_gesture_set_state (GTK_GESTURE (click), GTK_EVENT_SEQUENCE_CLAIMED);
  self->reset_time = gtk_event_controller_get_current_event_time (GTK_EVENT_CONTROLLER (click));
  self->resizing = LUMO_AUDIT_N_COLUMNS;
  lumo_audit_columns_reset (self->columns, column);
}

static void
on_columns_changed_cb (LumoAuditColumns *columns,
                       LumoAuditHeader  *self)
{
  gtk_widget_queue_allocate (GTK_WIDGET (self));
}

static void
lumo_audit_header_dispose (GObject *object)
{
  LumoAuditHeader *self = LUMO_AUDIT_HEADER (object);

  if (self->columns != NULL)
    g_signal_handlers_disconnect_by_func (self->columns, on_columns_changed_cb, self);
  g_clear_object (&self->columns);

  for (guint c = 0; c < LUMO_AUDIT_N_COLUMNS; c++)
    {
      g_clear_pointer (&self->titles[c], gtk_widget_unparent);
      self->arrows[c] = NULL;
    }

  G_OBJECT_CLASS (lumo_audit_header_parent_class)->dispose (object);
}

static void
lumo_audit_header_class_init (LumoAuditHeaderClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = lumo_audit_header_dispose;
  widget_class->measure = lumo_audit_header_measure;
  widget_class->size_allocate = lumo_audit_header_size_allocate;

  gtk_widget_class_set_css_name (widget_class, "auditheader");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_ROW);
}

static void
lumo_audit_header_init (LumoAuditHeader *self)
{
  GtkGesture *drag = gtk_gesture_drag_new ();
  GtkGesture *click = gtk_gesture_click_new ();
  GtkEventController *motion = gtk_event_controller_motion_new ();

  gtk_widget_set_overflow (GTK_WIDGET (self), GTK_OVERFLOW_HIDDEN);

  /* Its own widths until the page gives it the ones its rows use. */
  self->columns = lumo_audit_columns_new ();
  g_signal_connect (self->columns, "changed", G_CALLBACK (on_columns_changed_cb), self);
  self->resizing = LUMO_AUDIT_N_COLUMNS;

  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (drag), GDK_BUTTON_PRIMARY);
  gtk_event_controller_set_propagation_phase (GTK_EVENT_CONTROLLER (drag), GTK_PHASE_CAPTURE);
  g_signal_connect (drag, "drag-begin", G_CALLBACK (on_drag_begin_cb), self);
  g_signal_connect (drag, "drag-update", G_CALLBACK (on_drag_update_cb), self);
  g_signal_connect (drag, "drag-end", G_CALLBACK (on_drag_end_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drag));

  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (click), GDK_BUTTON_PRIMARY);
  gtk_event_controller_set_propagation_phase (GTK_EVENT_CONTROLLER (click), GTK_PHASE_CAPTURE);
  g_signal_connect (click, "pressed", G_CALLBACK (on_click_pressed_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (click));
  gtk_gesture_group (click, drag);

  g_signal_connect (motion, "motion", G_CALLBACK (on_motion_cb), self);
  g_signal_connect (motion, "leave", G_CALLBACK (on_motion_leave_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), motion);

  for (guint c = 0; c < LUMO_AUDIT_N_COLUMNS; c++)
    {
      const char *title = column_title (c);
      GtkWidget *label = gtk_label_new (title);

      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
      gtk_widget_set_hexpand (label, TRUE);

      if (lumo_audit_column_get_sort_key (c) == LUMO_AUDIT_SORT_ID)
        {
          gtk_widget_add_css_class (label, "title");
          self->titles[c] = label;
        }
      else
        {
          GtkWidget *button = gtk_button_new ();
          GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 4);

          self->arrows[c] = gtk_image_new ();
          gtk_widget_set_visible (self->arrows[c], FALSE);
          gtk_box_append (GTK_BOX (box), label);
          gtk_box_append (GTK_BOX (box), self->arrows[c]);
          gtk_button_set_child (GTK_BUTTON (button), box);
          gtk_widget_add_css_class (button, "flat");
          gtk_widget_add_css_class (button, "title");
          gtk_actionable_set_action_target (GTK_ACTIONABLE (button), "u", (guint32) c);
          gtk_actionable_set_action_name (GTK_ACTIONABLE (button), "audit.sort-column");
          {
            /* Translators: the tooltip of a column's title in the audit list, e.g. "Sort by Tool". */
            g_autofree char *tooltip = g_strdup_printf (_("Sort by %s"), title);

            gtk_widget_set_tooltip_text (button, tooltip);
          }
          gtk_accessible_update_property (GTK_ACCESSIBLE (button),
                                          GTK_ACCESSIBLE_PROPERTY_LABEL, title,
                                          GTK_ACCESSIBLE_PROPERTY_SORT, GTK_ACCESSIBLE_SORT_NONE,
                                          -1);
          self->titles[c] = button;
        }
      gtk_widget_set_parent (self->titles[c], GTK_WIDGET (self));
    }
}

void
lumo_audit_header_set_sort (LumoAuditHeader *self,
                            LumoAuditColumn  column,
                            GtkSortType      order)
{
  g_return_if_fail (LUMO_IS_AUDIT_HEADER (self));
  g_return_if_fail (column <= LUMO_AUDIT_N_COLUMNS);

  for (guint c = 0; c < LUMO_AUDIT_N_COLUMNS; c++)
    {
      GtkAccessibleSort sort = GTK_ACCESSIBLE_SORT_NONE;

      if (self->arrows[c] == NULL)
        continue;
      if (c == column)
        {
          sort = order == GTK_SORT_ASCENDING ? GTK_ACCESSIBLE_SORT_ASCENDING : GTK_ACCESSIBLE_SORT_DESCENDING;
          gtk_image_set_from_icon_name (GTK_IMAGE (self->arrows[c]),
                                        order == GTK_SORT_ASCENDING ? "pan-up-symbolic" : "pan-down-symbolic");
        }
      gtk_widget_set_visible (self->arrows[c], c == column);
      gtk_accessible_update_property (GTK_ACCESSIBLE (self->titles[c]), GTK_ACCESSIBLE_PROPERTY_SORT, sort, -1);
    }
}

void
lumo_audit_header_set_columns (LumoAuditHeader  *self,
                               LumoAuditColumns *columns)
{
  g_return_if_fail (LUMO_IS_AUDIT_HEADER (self));
  g_return_if_fail (LUMO_IS_AUDIT_COLUMNS (columns));

  if (columns == self->columns)
    return;
  g_signal_handlers_disconnect_by_func (self->columns, on_columns_changed_cb, self);
  g_set_object (&self->columns, columns);
  g_signal_connect (columns, "changed", G_CALLBACK (on_columns_changed_cb), self);
  gtk_widget_queue_allocate (GTK_WIDGET (self));
}

GtkWidget *
lumo_audit_header_get_title (LumoAuditHeader *self,
                             LumoAuditColumn  column)
{
  g_return_val_if_fail (LUMO_IS_AUDIT_HEADER (self), NULL);
  g_return_val_if_fail (column < LUMO_AUDIT_N_COLUMNS, NULL);

  return self->titles[column];
}

GtkWidget *
lumo_audit_header_get_button (LumoAuditHeader *self,
                              LumoAuditColumn  column)
{
  g_return_val_if_fail (LUMO_IS_AUDIT_HEADER (self), NULL);
  g_return_val_if_fail (column < LUMO_AUDIT_N_COLUMNS, NULL);

  return self->arrows[column] != NULL ? self->titles[column] : NULL;
}
