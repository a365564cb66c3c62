/* test-audit-columns.c — resizing the Audit page's columns
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A drag on the border after a title (driven through the header's drag
 * gesture, as a pointer would) gives that column a new width: the title
 * and the cell of every row shown move at once; the columns without a
 * width of their own keep theirs, or the expanding ones share what is
 * left; no column goes below its minimum, nor so wide that the others
 * would; a double click on the border gives the default back; a drag
 * does not sort, and clicking a title still does. Right to left, the
 * border is the title's left edge and dragging left widens. Another page
 * (a collected log's window) has widths of its own.
 */
#include "config.h"

#include "app-test-util.h"
#include "lumo-audit-page-private.h"
#include "lumo-audit-row-view.h"

static gboolean
settled (gpointer data)
{
  return lumo_audit_model_get_counted (data) && !lumo_audit_model_get_loading (data);
}

static gboolean
rows_shown (gpointer data)
{
  g_autoptr(GPtrArray) rows = app_test_audit_shown_rows (data);

  gtk_widget_queue_draw (data);
  return rows->len >= 5;
}

static gboolean
laid_out (gpointer data)
{
  LumoAuditPage *page = data;

  gtk_widget_queue_draw (GTK_WIDGET (page->list_view));
  return gtk_widget_get_width (GTK_WIDGET (page->header)) > 0 &&
         gtk_widget_get_width (GTK_WIDGET (page->header)) == gtk_widget_get_width (GTK_WIDGET (page->list_view));
}

static LumoAuditPage *
show_audit_page (AppFixture *f)
{
  LumoAuditPage *page;

  app_test_fill_audit (f->audit, 40, 0);
  page = _lumo_window_get_audit_page (f->window);
  gtk_window_set_default_size (GTK_WINDOW (f->window), 1200, 800);
  lumo_window_set_page (f->window, "audit");
  lumo_test_wait_until (settled, lumo_audit_page_get_model (page), "the log");
  lumo_test_wait_until (rows_shown, page->list_view, "the rows drawn");
  lumo_test_wait_until (laid_out, page, "the header");
  return page;
}

/* Where the header shows @column's title, in the header's coordinates. */
static LumoAuditSpan
title_span (LumoAuditPage   *page,
            LumoAuditColumn  column)
{
  GtkWidget *title = lumo_audit_header_get_title (page->header, column);
  graphene_rect_t bounds;

  if (!gtk_widget_get_child_visible (title))
    return (LumoAuditSpan) { 0, 0 };
  g_assert_true (gtk_widget_compute_bounds (title, GTK_WIDGET (page->header), &bounds));
  return (LumoAuditSpan) { (int) bounds.origin.x, (int) bounds.size.width };
}

typedef struct
{
  LumoAuditPage   *page;
  LumoAuditColumn  column;
  int              width;
  guint            n_rows;       /* out: the rows checked */
} Follow;

/* The title of the column is @width wide, and every row shown has each
 * cell where the header has its title. */
static gboolean
rows_follow (gpointer data)
{
  Follow *follow = data;
  GtkWidget *list = GTK_WIDGET (follow->page->list_view);
  g_autoptr(GPtrArray) rows = app_test_audit_shown_rows (list);

  gtk_widget_queue_draw (list);
  if (title_span (follow->page, follow->column).width != follow->width || rows->len == 0)
    return FALSE;
  for (guint i = 0; i < rows->len; i++)
    for (guint c = 0; c < LUMO_AUDIT_N_COLUMNS; c++)
      {
        LumoAuditSpan cell, title = title_span (follow->page, c);

        lumo_audit_row_view_get_cell (g_ptr_array_index (rows, i), c, &cell);
        if (cell.x != title.x || cell.width != title.width)
          return FALSE;
      }
  follow->n_rows = rows->len;
  return TRUE;
}

static gboolean
tool_near_default (gpointer data)
{
  Follow *follow = data;

  gtk_widget_queue_draw (GTK_WIDGET (follow->page->list_view));
  return ABS (title_span (follow->page, follow->column).width - follow->width) <= 1;
}

static void
wait_for_width (LumoAuditPage   *page,
                LumoAuditColumn  column,
                int              width)
{
  Follow follow = { page, column, width, 0 };
  g_autofree char *what = g_strdup_printf ("column %u %d wide in the header and every row", column, width);

  lumo_test_wait_until (rows_follow, &follow, what);
  g_assert_cmpuint (follow.n_rows, >=, 5);
}

static GtkGesture *
header_gesture (LumoAuditPage *page,
                GType          type)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (GTK_WIDGET (page->header));

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GObject) controller = g_list_model_get_item (controllers, i);

      if (G_TYPE_CHECK_INSTANCE_TYPE (controller, type))
        return GTK_GESTURE (controller);
    }
  g_error ("the header has no %s", g_type_name (type));
}

/* The border after @column as a pointer finds it: its title's end edge. */
static double
border_x (LumoAuditPage   *page,
          LumoAuditColumn  column)
{
  LumoAuditSpan title = title_span (page, column);

  if (gtk_widget_get_direction (GTK_WIDGET (page->header)) == GTK_TEXT_DIR_RTL)
    return title.x;
  return title.x + title.width;
}

/* A press @from pixels off the border, a move by @dx, a release. */
static void
drag (LumoAuditPage   *page,
      double           x,
      double           dx)
{
  GtkGesture *gesture = header_gesture (page, GTK_TYPE_GESTURE_DRAG);

  g_signal_emit_by_name (gesture, "drag-begin", x, 10.0);
  g_signal_emit_by_name (gesture, "drag-update", dx / 2, 1.0);
  g_signal_emit_by_name (gesture, "drag-update", dx, 1.0);
  g_signal_emit_by_name (gesture, "drag-end", dx, 1.0);
}

static void
double_click (LumoAuditPage *page,
              double         x)
{
  GtkGesture *gesture = header_gesture (page, GTK_TYPE_GESTURE_CLICK);

  g_signal_emit_by_name (gesture, "pressed", 1, x, 10.0);
  g_signal_emit_by_name (gesture, "pressed", 2, x, 10.0);
}

static void
assert_sort (LumoAuditPage    *page,
             LumoAuditSortKey  key,
             GtkAccessibleSort tool_sort)
{
  GtkWidget *tool = lumo_audit_header_get_button (page->header, LUMO_AUDIT_COLUMN_TOOL);
  g_autofree char *wrong = gtk_test_accessible_check_property (GTK_ACCESSIBLE (tool), GTK_ACCESSIBLE_PROPERTY_SORT,
                                                               tool_sort);

  g_assert_cmpint (lumo_audit_model_get_sort_key (lumo_audit_page_get_model (page)), ==, key);
  g_assert_null (wrong);
}

static void
test_drag_a_border (AppFixture    *f,
                    gconstpointer  data)
{
  LumoAuditPage *page = show_audit_page (f);
  LumoAuditSpan before[LUMO_AUDIT_N_COLUMNS], after[LUMO_AUDIT_N_COLUMNS];
  const LumoAuditColumn tool = LUMO_AUDIT_COLUMN_TOOL;
  int total = gtk_widget_get_width (GTK_WIDGET (page->header));
  int others = 0;

  /* Wide enough that every column shows and the expanding ones share
   * more than the 40 pixels dragged below. */
  g_assert_cmpint (total, >, lumo_audit_columns_get_natural () + 3 * 40);
  for (guint c = 0; c < LUMO_AUDIT_N_COLUMNS; c++)
    {
      before[c] = title_span (page, c);
      g_assert_cmpint (before[c].width, >, 0);
    }
  wait_for_width (page, tool, before[tool].width);
  assert_sort (page, LUMO_AUDIT_SORT_ID, GTK_ACCESSIBLE_SORT_NONE);

  /* A press in the middle of a title is the title's: nothing resizes. */
  drag (page, before[tool].x + before[tool].width / 2.0, 60);
  g_assert_cmpint (lumo_audit_columns_get_width (page->columns, tool), ==, 0);

  /* 40 pixels wider, from 3 pixels inside the border: the tool's title and
   * cells are, and its border moved with the pointer (the columns before
   * it stay); the columns of fixed width keep theirs; the outcome (the
   * other expanding one after it) gives the 40. */
  drag (page, border_x (page, tool) - 3, 40);
  wait_for_width (page, tool, before[tool].width + 40);
  for (guint c = 0; c < LUMO_AUDIT_N_COLUMNS; c++)
    after[c] = title_span (page, c);
  g_assert_cmpint (after[tool].x, ==, before[tool].x);
  for (guint c = 0; c < LUMO_AUDIT_N_COLUMNS; c++)
    if (c != tool && c != LUMO_AUDIT_COLUMN_OUTCOME)
      {
        g_assert_cmpint (after[c].x, ==, before[c].x + (c > tool && c < LUMO_AUDIT_COLUMN_OUTCOME ? 40 : 0));
        g_assert_cmpint (after[c].width, ==, before[c].width);
      }
  g_assert_cmpint (after[LUMO_AUDIT_COLUMN_OUTCOME].width, ==, before[LUMO_AUDIT_COLUMN_OUTCOME].width - 40);
  g_assert_cmpint (after[LUMO_AUDIT_COLUMN_HASH].x + after[LUMO_AUDIT_COLUMN_HASH].width, ==, total);
  g_assert_cmpint (lumo_audit_columns_get_width (page->columns, tool), ==, before[tool].width + 40);
  /* The drag did not sort. */
  assert_sort (page, LUMO_AUDIT_SORT_ID, GTK_ACCESSIBLE_SORT_NONE);

  /* The width is kept while the window narrows, until the others are at
   * their minimums. */
  {
    LumoAuditSpan spans[LUMO_AUDIT_N_COLUMNS];

    lumo_audit_columns_layout (page->columns, total - 150, spans);
    g_assert_cmpint (spans[tool].width, ==, before[tool].width + 40);
    g_assert_cmpint (spans[LUMO_AUDIT_COLUMN_HASH].x + spans[LUMO_AUDIT_COLUMN_HASH].width, ==, total - 150);
  }

  /* Not below the column's minimum, however far. */
  drag (page, border_x (page, tool) + 2, -1000);
  g_assert_cmpint (lumo_audit_columns_get_width (page->columns, tool), ==, lumo_audit_columns_get_minimum (tool));
  wait_for_width (page, tool, lumo_audit_columns_get_minimum (tool));
  g_assert_cmpint (lumo_audit_columns_get_minimum (tool), <, before[tool].width);

  /* Nor so wide that a column after it goes below its own (the ones
   * before it stay). */
  drag (page, border_x (page, tool), 5000);
  others = before[tool].x;
  for (guint c = tool + 1; c < LUMO_AUDIT_N_COLUMNS; c++)
    others += lumo_audit_columns_get_minimum (c);
  wait_for_width (page, tool, total - others);
  for (guint c = tool + 1; c < LUMO_AUDIT_N_COLUMNS; c++)
    g_assert_cmpint (title_span (page, c).width, ==, lumo_audit_columns_get_minimum (c));

  /* A double click on the border: the default again, everywhere (to the
   * pixel a share of the extra width rounds to). */
  double_click (page, border_x (page, tool) - 1);
  g_assert_cmpint (lumo_audit_columns_get_width (page->columns, tool), ==, 0);
  lumo_test_wait_until (tool_near_default, &(Follow) { page, tool, before[tool].width, 0 }, "the tool's default width");
  for (guint c = 0; c < LUMO_AUDIT_N_COLUMNS; c++)
    {
      LumoAuditSpan span = title_span (page, c);

      g_assert_cmpint (ABS (span.x - before[c].x), <=, 1);
      g_assert_cmpint (ABS (span.width - before[c].width), <=, 1);
    }
  wait_for_width (page, tool, title_span (page, tool).width);

  /* Clicking the title still sorts; a drag after leaves the order be. */
  app_test_click (lumo_audit_header_get_button (page->header, tool));
  assert_sort (page, LUMO_AUDIT_SORT_TOOL, GTK_ACCESSIBLE_SORT_ASCENDING);
  {
    int width = title_span (page, tool).width;

    drag (page, border_x (page, tool) - 2, 30);
    wait_for_width (page, tool, width + 30);
  }
  assert_sort (page, LUMO_AUDIT_SORT_TOOL, GTK_ACCESSIBLE_SORT_ASCENDING);

  /* Another page has widths of its own (a collected log's window). */
  {
    LumoAuditPage *other = g_object_ref_sink (g_object_new (LUMO_TYPE_AUDIT_PAGE, NULL));

    g_assert_true (other->columns != page->columns);
    g_assert_cmpint (lumo_audit_columns_get_width (other->columns, tool), ==, 0);
    g_object_unref (other);
  }
}

static gboolean
time_at_the_right (gpointer data)
{
  LumoAuditPage *page = data;
  LumoAuditSpan time = title_span (page, LUMO_AUDIT_COLUMN_TIME);

  gtk_widget_queue_draw (GTK_WIDGET (page->list_view));
  return time.x + time.width == gtk_widget_get_width (GTK_WIDGET (page->header));
}

/* Right to left: the time's title at the right edge, a column's border is
 * its title's left edge, and a drag to the left widens it. */
static void
test_drag_right_to_left (AppFixture    *f,
                         gconstpointer  data)
{
  LumoAuditPage *page = show_audit_page (f);
  const LumoAuditColumn tool = LUMO_AUDIT_COLUMN_TOOL;
  int tool_width, tool_end;

  /* What a right-to-left locale sets (a widget's own direction does not
   * pass to its children). */
  gtk_widget_set_default_direction (GTK_TEXT_DIR_RTL);
  lumo_test_wait_until (time_at_the_right, page, "the header right to left");
  wait_for_width (page, tool, title_span (page, tool).width);
  tool_width = title_span (page, tool).width;
  tool_end = title_span (page, tool).x + tool_width;

  drag (page, border_x (page, tool) + 2, -60);
  wait_for_width (page, tool, tool_width + 60);
  /* It grew at its border, the left: its right edge stayed. */
  g_assert_cmpint (title_span (page, tool).x + title_span (page, tool).width, ==, tool_end);

  drag (page, border_x (page, tool) - 2, 60);
  wait_for_width (page, tool, tool_width);

  gtk_widget_set_default_direction (GTK_TEXT_DIR_LTR);
}

int
main (int   argc,
      char *argv[])
{
  /* The titles' sort state is asserted: GTK's test backend keeps it. */
  g_setenv ("GTK_A11Y", "test", TRUE);
  gtk_test_init (&argc, &argv, NULL);
  app_test_init_application ();

  g_test_add ("/audit-columns/drag", AppFixture, GINT_TO_POINTER (TRUE),
              app_fixture_setup, test_drag_a_border, app_fixture_teardown);
  g_test_add ("/audit-columns/rtl", AppFixture, GINT_TO_POINTER (TRUE),
              app_fixture_setup, test_drag_right_to_left, app_fixture_teardown);

  return g_test_run ();
}
