/* test-wrap-box.c — LumoWrapBox: one line at the end when there is room,
 * more lines, each at the end, when there is not, and never wider than
 * its widest child asks (the review row's four buttons in 360 px)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <gtk/gtk.h>

#include "lumo-wrap-box.h"

#define SPACING 6

typedef struct
{
  GtkWidget *window;
  GtkWidget *box;
  GtkWidget *buttons[4];
} Fixture;

static void
setup (Fixture       *f,
       gconstpointer  data)
{
  static const char *labels[] = { "Reject", "Approve Once", "For 10 Minutes", "Always" };

  f->window = gtk_window_new ();
  f->box = lumo_wrap_box_new ();
  for (guint i = 0; i < G_N_ELEMENTS (labels); i++)
    {
      f->buttons[i] = gtk_button_new_with_label (labels[i]);
      lumo_wrap_box_append (LUMO_WRAP_BOX (f->box), f->buttons[i]);
    }
  gtk_window_set_child (GTK_WINDOW (f->window), f->box);
}

static void
teardown (Fixture       *f,
          gconstpointer  data)
{
  gtk_window_destroy (GTK_WINDOW (f->window));
}

static int
natural_width (GtkWidget *widget)
{
  int nat;

  gtk_widget_measure (widget, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &nat, NULL, NULL);
  return nat;
}

static graphene_rect_t
bounds_of (Fixture *f,
           guint    i)
{
  graphene_rect_t bounds;

  g_assert_true (gtk_widget_compute_bounds (f->buttons[i], f->box, &bounds));
  return bounds;
}

/* Lays the box out @width wide (as tall as it asks for that width). */
static int
allocate (Fixture *f,
          int      width)
{
  int height;

  gtk_widget_measure (f->box, GTK_ORIENTATION_VERTICAL, width, &height, NULL, NULL, NULL);
  gtk_widget_size_allocate (f->box, &(GtkAllocation) { 0, 0, width, height }, -1);
  return height;
}

static void
test_measure (Fixture       *f,
              gconstpointer  data)
{
  int min, nat, widest = 0, sum = 0, one_line, narrow;

  for (guint i = 0; i < 4; i++)
    {
      int child_min;

      gtk_widget_measure (f->buttons[i], GTK_ORIENTATION_HORIZONTAL, -1, &child_min, NULL, NULL, NULL);
      widest = MAX (widest, child_min);
      sum += natural_width (f->buttons[i]) + (i > 0 ? SPACING : 0);
    }

  gtk_widget_measure (f->box, GTK_ORIENTATION_HORIZONTAL, -1, &min, &nat, NULL, NULL);
  g_assert_cmpint (min, ==, widest);
  g_assert_cmpint (nat, ==, sum);

  /* Narrower than one line takes more lines, so more height. */
  gtk_widget_measure (f->box, GTK_ORIENTATION_VERTICAL, nat, &one_line, NULL, NULL, NULL);
  gtk_widget_measure (f->box, GTK_ORIENTATION_VERTICAL, widest, &narrow, NULL, NULL, NULL);
  g_assert_cmpint (narrow, >, one_line);
}

static void
test_one_line_at_the_end (Fixture       *f,
                          gconstpointer  data)
{
  int width = natural_width (f->box) + 200;
  graphene_rect_t last;

  allocate (f, width);
  last = bounds_of (f, 3);
  /* The last one at the very end, the others before it in order, all on
   * the same line. */
  g_assert_cmpfloat (last.origin.x + last.size.width, ==, width);
  for (guint i = 0; i < 3; i++)
    {
      graphene_rect_t a = bounds_of (f, i);
      graphene_rect_t b = bounds_of (f, i + 1);

      g_assert_cmpfloat (a.origin.y, ==, 0);
      g_assert_cmpfloat (b.origin.y, ==, 0);
      g_assert_cmpfloat (a.origin.x + a.size.width + SPACING, ==, b.origin.x);
    }
}

static void
test_wraps_at_the_end (Fixture       *f,
                       gconstpointer  data)
{
  /* Room for two of them on a line, not for three. */
  int width = natural_width (f->buttons[0]) + SPACING + natural_width (f->buttons[1]) + 2;
  graphene_rect_t r[4];

  allocate (f, width);
  for (guint i = 0; i < 4; i++)
    {
      r[i] = bounds_of (f, i);
      g_assert_cmpfloat (r[i].origin.x, >=, 0);
      g_assert_cmpfloat (r[i].origin.x + r[i].size.width, <=, width);
    }

  /* Two lines, each ending at the end. */
  g_assert_cmpfloat (r[0].origin.y, ==, r[1].origin.y);
  g_assert_cmpfloat (r[2].origin.y, >, r[1].origin.y);
  g_assert_cmpfloat (r[1].origin.x + r[1].size.width, ==, width);
  g_assert_cmpfloat (r[3].origin.x + r[3].size.width, ==, width);
}

static void
test_right_to_left (Fixture       *f,
                    gconstpointer  data)
{
  int width = natural_width (f->box) + 200;
  graphene_rect_t first, last;

  gtk_widget_set_direction (f->box, GTK_TEXT_DIR_RTL);
  allocate (f, width);
  first = bounds_of (f, 0);
  last = bounds_of (f, 3);
  /* The end is the left: the first child rightmost of the line, the last
   * one at the very left. */
  g_assert_cmpfloat (last.origin.x, ==, 0);
  g_assert_cmpfloat (first.origin.x, >, last.origin.x);
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);

#define ADD(path, func) g_test_add ("/wrap-box/" path, Fixture, NULL, setup, func, teardown)
  ADD ("measure", test_measure);
  ADD ("one-line-at-the-end", test_one_line_at_the_end);
  ADD ("wraps-at-the-end", test_wraps_at_the_end);
  ADD ("right-to-left", test_right_to_left);
#undef ADD

  return g_test_run ();
}
