/* lumo-audit-row-view.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-audit-row-view"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "lumo-audit-row-view.h"
#include "lumo-ui-util.h"

/* ---- the row ------------------------------------------------------------ */

/* The room a cell leaves at each side of its text, as the column view's
 * cells did. */
#define CELL_PADDING 6
#define TAG_SPACING 6
/* Above and below the line: what the column view's cells had (their own
 * padding and 0.15 em of room for taller glyphs of a fallback font). */
#define ROW_PADDING(line) ((int) ((line) * 0.25 + 0.5))

struct _LumoAuditRowView
{
  GtkWidget      parent_instance;

  LumoAuditColumns *columns;                   /* owned: the page's */
  LumoAuditSpan  spans[LUMO_AUDIT_N_COLUMNS];  /* where the cells are, as last allocated */
  LumoAuditItem *item;                         /* owned */
  PangoLayout   *layouts[LUMO_AUDIT_N_COLUMNS]; /* made when first drawn */
  guint          context_serial;               /* of the layouts' Pango context */
  GtkWidget     *tag;                          /* the agent tag, once a desktop agent was shown */
};

G_DEFINE_FINAL_TYPE (LumoAuditRowView, lumo_audit_row_view, GTK_TYPE_WIDGET)

/* What the item says the cell holds (what a layout is given). */
static const char *
item_text (LumoAuditRowView *self,
           LumoAuditColumn   column)
{
  return self->item != NULL ? lumo_audit_item_get_text (self->item, column) : "";
}

/* The columns in monospace (what the "monospace" style class gives a
 * label) and the time in figures of one width ("numeric"). */
static PangoLayout *
ensure_layout (LumoAuditRowView *self,
               LumoAuditColumn   column)
{
  PangoLayout *layout = self->layouts[column];
  PangoAttrList *attrs;

  if (layout != NULL)
    return layout;

  layout = gtk_widget_create_pango_layout (GTK_WIDGET (self), item_text (self, column));
  pango_layout_set_single_paragraph_mode (layout, TRUE);
  pango_layout_set_ellipsize (layout, column == LUMO_AUDIT_COLUMN_TARGET ? PANGO_ELLIPSIZE_MIDDLE : PANGO_ELLIPSIZE_END);
  attrs = pango_attr_list_new ();
  switch (column)
    {
    case LUMO_AUDIT_COLUMN_TOOL:
    case LUMO_AUDIT_COLUMN_TARGET:
    case LUMO_AUDIT_COLUMN_HASH:
      pango_attr_list_insert (attrs, pango_attr_family_new ("monospace"));
      break;
    case LUMO_AUDIT_COLUMN_TIME:
      pango_attr_list_insert (attrs, pango_attr_font_features_new ("tnum=1"));
      break;
    case LUMO_AUDIT_COLUMN_CALLER:
    case LUMO_AUDIT_COLUMN_PROVIDER:
    case LUMO_AUDIT_COLUMN_OUTCOME:
    case LUMO_AUDIT_N_COLUMNS:
    default:
      break;
    }
  pango_layout_set_attributes (layout, attrs);
  pango_attr_list_unref (attrs);

  self->layouts[column] = layout;
  return layout;
}

/* A font or scale change (the style, the text scaling setting) changes
 * the widget's Pango context; the layouts made from it must follow. */
static void
check_context (LumoAuditRowView *self)
{
  guint serial = pango_context_get_serial (gtk_widget_get_pango_context (GTK_WIDGET (self)));

  if (serial == self->context_serial)
    return;
  self->context_serial = serial;
  for (guint c = 0; c < LUMO_AUDIT_N_COLUMNS; c++)
    if (self->layouts[c] != NULL)
      pango_layout_context_changed (self->layouts[c]);
}

static void
update_label (LumoAuditRowView *self)
{
  g_autofree char *label = lumo_audit_row_view_dup_label (self);

  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
}

static void
fill (LumoAuditRowView *self)
{
  gboolean tagged = self->item != NULL && lumo_audit_item_get_caller_tag (self->item) != NULL;

  for (guint c = 0; c < LUMO_AUDIT_N_COLUMNS; c++)
    if (self->layouts[c] != NULL)
      pango_layout_set_text (self->layouts[c], item_text (self, c), -1);

  /* Most rows are of extensions: the tag and its tooltip are made for the
   * first desktop agent a row shows, and kept hidden after. */
  if (tagged && self->tag == NULL)
    {
      self->tag = lumo_ui_agent_tag_new ();
      gtk_widget_set_parent (self->tag, GTK_WIDGET (self));
    }
  if (self->tag != NULL)
    gtk_widget_set_visible (self->tag, tagged);

  update_label (self);
  gtk_widget_queue_allocate (GTK_WIDGET (self));
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
on_item_row_cb (LumoAuditItem    *item,
                GParamSpec       *pspec,
                LumoAuditRowView *self)
{
  fill (self);
}

/* The width of the caller's name as drawn beside a tag: its own, up to
 * what the column leaves the tag. */
static int
caller_text_width (LumoAuditRowView    *self,
                   const LumoAuditSpan *span,
                   int                  tag_width)
{
  PangoLayout *layout = ensure_layout (self, LUMO_AUDIT_COLUMN_CALLER);
  int natural;

  pango_layout_set_width (layout, -1);
  pango_layout_get_pixel_size (layout, &natural, NULL);
  return CLAMP (natural, 0, MAX (span->width - 2 * CELL_PADDING - TAG_SPACING - tag_width, 0));
}

static void
lumo_audit_row_view_measure (GtkWidget      *widget,
                             GtkOrientation  orientation,
                             int             for_size,
                             int            *minimum,
                             int            *natural,
                             int            *minimum_baseline,
                             int            *natural_baseline)
{
  LumoAuditRowView *self = LUMO_AUDIT_ROW_VIEW (widget);

  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      /* The row is as wide as the list; the columns fit what it is. */
      *minimum = 0;
      *natural = lumo_audit_columns_get_natural ();
      return;
    }

  /* One line of the font, whatever the texts (a row's height must not
   * change when a placeholder fills in), with room for the taller glyphs
   * of a fallback font (Chinese), as the column view's cells had. */
  {
    PangoFontMetrics *metrics = pango_context_get_metrics (gtk_widget_get_pango_context (widget), NULL, NULL);
    int line = PANGO_PIXELS_CEIL (pango_font_metrics_get_height (metrics));

    pango_font_metrics_unref (metrics);

    *minimum = *natural = line + 2 * ROW_PADDING (line);
    if (self->tag != NULL && gtk_widget_get_visible (self->tag))
      {
        int tag_height;

        gtk_widget_measure (self->tag, GTK_ORIENTATION_VERTICAL, -1, &tag_height, NULL, NULL, NULL);
        *minimum = *natural = MAX (*natural, tag_height);
      }
  }
}

static void
lumo_audit_row_view_size_allocate (GtkWidget *widget,
                                   int        width,
                                   int        height,
                                   int        baseline)
{
  LumoAuditRowView *self = LUMO_AUDIT_ROW_VIEW (widget);
  const LumoAuditSpan *span = &self->spans[LUMO_AUDIT_COLUMN_CALLER];
  int tag_width, tag_height, text_width, x;

  /* The columns are laid out here, once for a width (or for new widths
   * of the columns, on "changed"), and drawn where they were. */
  lumo_audit_columns_layout (self->columns, width, self->spans);
  if (self->tag == NULL || !gtk_widget_get_visible (self->tag))
    return;

  check_context (self);
  gtk_widget_measure (self->tag, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &tag_width, NULL, NULL);
  gtk_widget_measure (self->tag, GTK_ORIENTATION_VERTICAL, -1, &tag_height, NULL, NULL, NULL);
  text_width = caller_text_width (self, span, tag_width);
  tag_width = MIN (tag_width, MAX (span->width - 2 * CELL_PADDING - TAG_SPACING - text_width, 0));
  x = span->x + CELL_PADDING + text_width + TAG_SPACING;
  if (gtk_widget_get_direction (widget) == GTK_TEXT_DIR_RTL)
    x = width - x - tag_width;
  gtk_widget_size_allocate (self->tag,
                            &(GtkAllocation) { x, (height - tag_height) / 2, tag_width, tag_height },
                            -1);
}

static void
lumo_audit_row_view_snapshot (GtkWidget   *widget,
                              GtkSnapshot *snapshot)
{
  LumoAuditRowView *self = LUMO_AUDIT_ROW_VIEW (widget);
  GtkStyleContext *style = gtk_widget_get_style_context (widget);
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  gboolean rtl = gtk_widget_get_direction (widget) == GTK_TEXT_DIR_RTL;
  gboolean tagged = self->tag != NULL && gtk_widget_get_visible (self->tag);
  const LumoAuditSpan *spans = self->spans;
  GdkRGBA color, error_color;
  int baseline;

  if (self->item == NULL || lumo_audit_item_get_row (self->item) == NULL)
    return;

  check_context (self);
  gtk_style_context_get_color (style, &color);
  if (!gtk_style_context_lookup_color (style, "error_color", &error_color))
    error_color = color;

  /* Every cell on one baseline, that of the font's line centred in the
   * row: a fallback font's glyphs (Chinese) are taller, and centring each
   * cell would set them lower than the Latin ones beside them. */
  {
    PangoFontMetrics *metrics = pango_context_get_metrics (gtk_widget_get_pango_context (widget), NULL, NULL);
    int line = pango_font_metrics_get_height (metrics);

    baseline = (height * PANGO_SCALE - line) / 2 + pango_font_metrics_get_ascent (metrics);
    pango_font_metrics_unref (metrics);
  }

  for (guint c = 0; c < LUMO_AUDIT_N_COLUMNS; c++)
    {
      PangoLayout *layout;
      int text_width = spans[c].width - 2 * CELL_PADDING;
      int x;

      if (text_width <= 0)
        continue;

      layout = ensure_layout (self, c);
      if (c == LUMO_AUDIT_COLUMN_CALLER && tagged)
        {
          int tag_width;

          gtk_widget_measure (self->tag, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &tag_width, NULL, NULL);
          text_width = caller_text_width (self, &spans[c], tag_width);
          if (text_width <= 0)
            continue;
        }
      pango_layout_set_width (layout, text_width * PANGO_SCALE);

      x = spans[c].x + CELL_PADDING;
      if (rtl)
        x = width - x - text_width;
      gtk_snapshot_save (snapshot);
      gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (x, (float) (baseline - pango_layout_get_baseline (layout)) / PANGO_SCALE));
      gtk_snapshot_append_layout (snapshot, layout,
                                  c == LUMO_AUDIT_COLUMN_OUTCOME && lumo_audit_item_get_denied (self->item)
                                    ? &error_color : &color);
      gtk_snapshot_restore (snapshot);
    }

  if (tagged)
    gtk_widget_snapshot_child (widget, self->tag, snapshot);
}

/* A person resized a column: lay out and draw again, nothing more (the
 * layouts take the new widths when drawn). */
static void
on_columns_changed_cb (LumoAuditColumns *columns,
                       LumoAuditRowView *self)
{
  gtk_widget_queue_allocate (GTK_WIDGET (self));
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
lumo_audit_row_view_dispose (GObject *object)
{
  LumoAuditRowView *self = LUMO_AUDIT_ROW_VIEW (object);

  lumo_audit_row_view_set_item (self, NULL);
  if (self->columns != NULL)
    g_signal_handlers_disconnect_by_func (self->columns, on_columns_changed_cb, self);
  g_clear_object (&self->columns);
  g_clear_pointer (&self->tag, gtk_widget_unparent);
  for (guint c = 0; c < LUMO_AUDIT_N_COLUMNS; c++)
    g_clear_object (&self->layouts[c]);

  G_OBJECT_CLASS (lumo_audit_row_view_parent_class)->dispose (object);
}

static void
lumo_audit_row_view_class_init (LumoAuditRowViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = lumo_audit_row_view_dispose;
  widget_class->measure = lumo_audit_row_view_measure;
  widget_class->size_allocate = lumo_audit_row_view_size_allocate;
  widget_class->snapshot = lumo_audit_row_view_snapshot;

  gtk_widget_class_set_css_name (widget_class, "auditrow");
  /* A row of the list: its label is what a screen reader reads of it. */
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_ROW);
}

static void
lumo_audit_row_view_init (LumoAuditRowView *self)
{
}

GtkWidget *
lumo_audit_row_view_new (LumoAuditColumns *columns)
{
  LumoAuditRowView *self;

  g_return_val_if_fail (LUMO_IS_AUDIT_COLUMNS (columns), NULL);

  self = g_object_new (LUMO_TYPE_AUDIT_ROW_VIEW, NULL);
  self->columns = g_object_ref (columns);
  g_signal_connect (columns, "changed", G_CALLBACK (on_columns_changed_cb), self);
  return GTK_WIDGET (self);
}

void
lumo_audit_row_view_set_item (LumoAuditRowView *self,
                              LumoAuditItem    *item)
{
  g_return_if_fail (LUMO_IS_AUDIT_ROW_VIEW (self));
  g_return_if_fail (item == NULL || LUMO_IS_AUDIT_ITEM (item));

  if (item == self->item)
    return;

  if (self->item != NULL)
    g_signal_handlers_disconnect_by_func (self->item, on_item_row_cb, self);
  g_set_object (&self->item, item);
  /* A placeholder fills in when its page arrives; a new search refills
   * the items of the top rows in place. */
  if (item != NULL)
    g_signal_connect_object (item, "notify::row", G_CALLBACK (on_item_row_cb), self, 0);
  fill (self);
}

LumoAuditItem *
lumo_audit_row_view_get_item (LumoAuditRowView *self)
{
  g_return_val_if_fail (LUMO_IS_AUDIT_ROW_VIEW (self), NULL);

  return self->item;
}

void
lumo_audit_row_view_get_cell (LumoAuditRowView *self,
                              LumoAuditColumn   column,
                              LumoAuditSpan    *cell)
{
  int width;

  g_return_if_fail (LUMO_IS_AUDIT_ROW_VIEW (self));
  g_return_if_fail (column < LUMO_AUDIT_N_COLUMNS);
  g_return_if_fail (cell != NULL);

  width = gtk_widget_get_width (GTK_WIDGET (self));
  *cell = self->spans[column];
  if (gtk_widget_get_direction (GTK_WIDGET (self)) == GTK_TEXT_DIR_RTL)
    cell->x = width - cell->x - cell->width;
}

const char *
lumo_audit_row_view_get_text (LumoAuditRowView *self,
                              LumoAuditColumn   column)
{
  g_return_val_if_fail (LUMO_IS_AUDIT_ROW_VIEW (self), NULL);
  g_return_val_if_fail (column < LUMO_AUDIT_N_COLUMNS, NULL);

  if (self->layouts[column] != NULL)
    return pango_layout_get_text (self->layouts[column]);
  return self->item != NULL ? lumo_audit_item_get_text (self->item, column) : "";
}

char *
lumo_audit_row_view_dup_label (LumoAuditRowView *self)
{
  GString *label;
  const char *tag;

  g_return_val_if_fail (LUMO_IS_AUDIT_ROW_VIEW (self), NULL);

  if (self->item == NULL || lumo_audit_item_get_row (self->item) == NULL)
    return g_strdup (_("Loading…"));

  label = g_string_new (NULL);
  tag = lumo_audit_item_get_caller_tag (self->item);
  for (guint c = 0; c < LUMO_AUDIT_N_COLUMNS; c++)
    {
      const char *text = lumo_audit_item_get_text (self->item, c);

      if (*text == '\0')
        continue;
      if (label->len > 0)
        /* Translators: between the cells of an audit row, as a screen reader reads the row. */
        g_string_append (label, _(", "));
      g_string_append (label, text);
      if (c == LUMO_AUDIT_COLUMN_CALLER && tag != NULL)
        g_string_append_printf (label, " (%s)", tag);
    }
  return g_string_free (label, FALSE);
}
