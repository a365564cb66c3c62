/* lumo-audit-header.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-audit-header"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "lumo-audit-header.h"
#include "lumo-audit-row-view.h"

struct _LumoAuditHeader
{
  GtkWidget  parent_instance;

  GtkWidget *titles[LUMO_AUDIT_N_COLUMNS]; /* a button, or a label */
  GtkWidget *arrows[LUMO_AUDIT_N_COLUMNS]; /* NULL for a column that does not sort */
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

gboolean
lumo_audit_header_column_sorts (LumoAuditColumn column)
{
  return column == LUMO_AUDIT_COLUMN_TIME || column == LUMO_AUDIT_COLUMN_CALLER ||
         column == LUMO_AUDIT_COLUMN_TOOL || column == LUMO_AUDIT_COLUMN_OUTCOME;
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

  lumo_audit_columns_layout (width, spans);
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

static void
lumo_audit_header_dispose (GObject *object)
{
  LumoAuditHeader *self = LUMO_AUDIT_HEADER (object);

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
  gtk_widget_set_overflow (GTK_WIDGET (self), GTK_OVERFLOW_HIDDEN);

  for (guint c = 0; c < LUMO_AUDIT_N_COLUMNS; c++)
    {
      const char *title = column_title (c);
      GtkWidget *label = gtk_label_new (title);

      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
      gtk_widget_set_hexpand (label, TRUE);

      if (!lumo_audit_header_column_sorts (c))
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

GtkWidget *
lumo_audit_header_get_button (LumoAuditHeader *self,
                              LumoAuditColumn  column)
{
  g_return_val_if_fail (LUMO_IS_AUDIT_HEADER (self), NULL);
  g_return_val_if_fail (column < LUMO_AUDIT_N_COLUMNS, NULL);

  return self->arrows[column] != NULL ? self->titles[column] : NULL;
}
