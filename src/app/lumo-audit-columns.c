/* lumo-audit-columns.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-audit-columns"

#include "config.h"

#include "lumo-audit-columns.h"

/* A column's natural width, the least it shrinks to, whether it takes a
 * share of extra width, when it leaves a narrow row (1 first; 0 never),
 * and the store's order its title sorts by (LUMO_AUDIT_SORT_ID: its title
 * does not sort). The natural widths are those the column view had; the
 * sum of the least widths of the columns left is what a row needs before
 * the next one leaves. */
typedef struct
{
  int              natural;
  int              minimum;
  gboolean         expand;
  guint            drop;
  LumoAuditSortKey sort_key;
} ColumnSpec;

static const ColumnSpec column_specs[LUMO_AUDIT_N_COLUMNS] = {
  [LUMO_AUDIT_COLUMN_TIME] = { 150, 150, FALSE, 0, LUMO_AUDIT_SORT_TIME },
  [LUMO_AUDIT_COLUMN_CALLER] = { 155, 80, TRUE, 0, LUMO_AUDIT_SORT_CALLER },
  [LUMO_AUDIT_COLUMN_PROVIDER] = { 115, 70, FALSE, 3, LUMO_AUDIT_SORT_ID },
  [LUMO_AUDIT_COLUMN_TOOL] = { 200, 90, TRUE, 4, LUMO_AUDIT_SORT_TOOL },
  [LUMO_AUDIT_COLUMN_TARGET] = { 100, 60, FALSE, 2, LUMO_AUDIT_SORT_ID },
  [LUMO_AUDIT_COLUMN_OUTCOME] = { 150, 100, TRUE, 0, LUMO_AUDIT_SORT_OUTCOME },
  [LUMO_AUDIT_COLUMN_HASH] = { 90, 60, FALSE, 1, LUMO_AUDIT_SORT_ID },
};

#define N_DROPPABLE 4

struct _LumoAuditColumns
{
  GObject parent_instance;

  int     widths[LUMO_AUDIT_N_COLUMNS]; /* a person's, 0 for the default */
};

G_DEFINE_FINAL_TYPE (LumoAuditColumns, lumo_audit_columns, G_TYPE_OBJECT)

enum
{
  CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
lumo_audit_columns_class_init (LumoAuditColumnsClass *klass)
{
  /* A width changed: lay out again (no arguments; ask the layout). */
  signals[CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                   0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
lumo_audit_columns_init (LumoAuditColumns *self)
{
}

LumoAuditColumns *
lumo_audit_columns_new (void)
{
  return g_object_new (LUMO_TYPE_AUDIT_COLUMNS, NULL);
}

/* The columns a row @width wide shows: the droppable ones leave in their
 * order while the minimums of those left do not fit. A person's widths
 * do not change which: a window shows the same columns whatever they
 * dragged. */
static void
shown_columns (int      width,
               gboolean shown[LUMO_AUDIT_N_COLUMNS])
{
  for (guint c = 0; c < LUMO_AUDIT_N_COLUMNS; c++)
    shown[c] = TRUE;

  for (guint dropped = 0;; )
    {
      int minimum = 0;

      for (guint c = 0; c < LUMO_AUDIT_N_COLUMNS; c++)
        if (shown[c])
          minimum += column_specs[c].minimum;
      if (width >= minimum || dropped == N_DROPPABLE)
        return;
      dropped++;
      for (guint c = 0; c < LUMO_AUDIT_N_COLUMNS; c++)
        if (column_specs[c].drop == dropped)
          shown[c] = FALSE;
    }
}

static int
preferred_width (LumoAuditColumns *self,
                 LumoAuditColumn   column)
{
  return self->widths[column] > 0 ? MAX (self->widths[column], column_specs[column].minimum)
                                   : column_specs[column].natural;
}

/* The columns of @group share @room: each from its minimum towards its
 * preferred width, in proportion; what the integer shares leave goes to
 * the last of them. */
static void
shrink (const gboolean group[LUMO_AUDIT_N_COLUMNS],
        const int      preferred[LUMO_AUDIT_N_COLUMNS],
        int            room,
        int            widths[LUMO_AUDIT_N_COLUMNS])
{
  int minimum = 0, natural = 0, given = 0, last = -1;

  for (guint c = 0; c < LUMO_AUDIT_N_COLUMNS; c++)
    if (group[c])
      {
        minimum += column_specs[c].minimum;
        natural += preferred[c];
      }
  for (guint c = 0; c < LUMO_AUDIT_N_COLUMNS; c++)
    if (group[c])
      {
        const ColumnSpec *spec = &column_specs[c];

        if (room >= minimum)
          widths[c] = spec->minimum + (int) ((gint64) (preferred[c] - spec->minimum) * (room - minimum) /
                                             MAX (natural - minimum, 1));
        else
          widths[c] = (int) ((gint64) spec->minimum * room / MAX (minimum, 1));
        given += widths[c];
        last = c;
      }
  if (last >= 0)
    widths[last] += MAX (room - given, 0);
}

/* One function for the rows and the header, so that they line up by
 * construction: both are as wide as the list. */
void
lumo_audit_columns_layout (LumoAuditColumns *self,
                           int               width,
                           LumoAuditSpan     spans[LUMO_AUDIT_N_COLUMNS])
{
  gboolean shown[LUMO_AUDIT_N_COLUMNS], flexible[LUMO_AUDIT_N_COLUMNS], fixed[LUMO_AUDIT_N_COLUMNS];
  int preferred[LUMO_AUDIT_N_COLUMNS], widths[LUMO_AUDIT_N_COLUMNS] = { 0 };
  int flexible_natural = 0, flexible_minimum = 0, fixed_natural = 0, fixed_minimum = 0, x = 0;

  g_return_if_fail (LUMO_IS_AUDIT_COLUMNS (self));

  width = MAX (width, 0);
  shown_columns (width, shown);
  for (guint c = 0; c < LUMO_AUDIT_N_COLUMNS; c++)
    {
      preferred[c] = preferred_width (self, c);
      fixed[c] = shown[c] && self->widths[c] > 0;
      flexible[c] = shown[c] && !fixed[c];
      if (fixed[c])
        {
          fixed_natural += preferred[c];
          fixed_minimum += column_specs[c].minimum;
        }
      else if (flexible[c])
        {
          flexible_natural += preferred[c];
          flexible_minimum += column_specs[c].minimum;
        }
    }

  if (width >= fixed_natural + flexible_natural)
    {
      /* Room to spare: the expanding columns without a width of their
       * own share it (or, if a person sized them all, the other columns
       * without one; if every column shown has one, it stays empty at
       * the end). */
      gboolean share[LUMO_AUDIT_N_COLUMNS];
      int extra = width - fixed_natural - flexible_natural, n_share = 0, last = -1;

      for (guint c = 0; c < LUMO_AUDIT_N_COLUMNS; c++)
        n_share += (share[c] = flexible[c] && column_specs[c].expand);
      if (n_share == 0)
        for (guint c = 0; c < LUMO_AUDIT_N_COLUMNS; c++)
          n_share += (share[c] = flexible[c]);
      for (guint c = 0; c < LUMO_AUDIT_N_COLUMNS; c++)
        if (shown[c])
          {
            widths[c] = preferred[c] + (share[c] ? extra / n_share : 0);
            if (share[c])
              last = c;
          }
      if (last >= 0)
        widths[last] += extra % n_share;
    }
  else if (width - fixed_natural >= flexible_minimum)
    {
      /* The widths a person gave are kept; the others shrink. */
      for (guint c = 0; c < LUMO_AUDIT_N_COLUMNS; c++)
        if (fixed[c])
          widths[c] = preferred[c];
      shrink (flexible, preferred, width - fixed_natural, widths);
    }
  else if (width - flexible_minimum >= fixed_minimum)
    {
      /* The others are at their minimums: the sized ones shrink too. */
      for (guint c = 0; c < LUMO_AUDIT_N_COLUMNS; c++)
        if (flexible[c])
          widths[c] = column_specs[c].minimum;
      shrink (fixed, preferred, width - flexible_minimum, widths);
    }
  else
    /* Narrower than the minimums of the columns that never leave. */
    shrink (shown, preferred, width, widths);

  for (guint c = 0; c < LUMO_AUDIT_N_COLUMNS; c++)
    {
      spans[c].x = x;
      spans[c].width = widths[c];
      x += widths[c];
    }
}

int
lumo_audit_columns_get_natural (void)
{
  int natural = 0;

  for (guint c = 0; c < LUMO_AUDIT_N_COLUMNS; c++)
    natural += column_specs[c].natural;
  return natural;
}

int
lumo_audit_columns_get_minimum (LumoAuditColumn column)
{
  g_return_val_if_fail (column < LUMO_AUDIT_N_COLUMNS, 0);

  return column_specs[column].minimum;
}

int
lumo_audit_columns_get_width (LumoAuditColumns *self,
                              LumoAuditColumn   column)
{
  g_return_val_if_fail (LUMO_IS_AUDIT_COLUMNS (self), 0);
  g_return_val_if_fail (column < LUMO_AUDIT_N_COLUMNS, 0);

  return self->widths[column];
}

static void
set_width (LumoAuditColumns *self,
           LumoAuditColumn   column,
           int               width)
{
  if (self->widths[column] == width)
    return;
  self->widths[column] = width;
  g_signal_emit (self, signals[CHANGED], 0);
}

void
lumo_audit_columns_resize (LumoAuditColumns *self,
                           LumoAuditColumn   column,
                           int               width,
                           int               total)
{
  LumoAuditSpan spans[LUMO_AUDIT_N_COLUMNS];
  gboolean changed = FALSE;
  int maximum = MAX (total, 0);

  g_return_if_fail (LUMO_IS_AUDIT_COLUMNS (self));
  g_return_if_fail (column < LUMO_AUDIT_N_COLUMNS);

  /* The border follows the pointer: the columns before it stay where they
   * are (they keep the widths they have now as their own), the ones after
   * it give or take. */
  lumo_audit_columns_layout (self, total, spans);
  for (guint c = 0; c < column; c++)
    if (spans[c].width > 0 && self->widths[c] == 0)
      {
        self->widths[c] = spans[c].width;
        changed = TRUE;
      }

  /* The others keep their own widths, or at least their minimums. */
  for (guint c = 0; c < LUMO_AUDIT_N_COLUMNS; c++)
    if (spans[c].width > 0 && c != column)
      maximum -= self->widths[c] > 0 ? preferred_width (self, c) : column_specs[c].minimum;

  width = CLAMP (width, column_specs[column].minimum, MAX (maximum, column_specs[column].minimum));
  if (self->widths[column] != width)
    {
      self->widths[column] = width;
      changed = TRUE;
    }
  if (changed)
    g_signal_emit (self, signals[CHANGED], 0);
}

void
lumo_audit_columns_reset (LumoAuditColumns *self,
                          LumoAuditColumn   column)
{
  g_return_if_fail (LUMO_IS_AUDIT_COLUMNS (self));
  g_return_if_fail (column < LUMO_AUDIT_N_COLUMNS);

  set_width (self, column, 0);
}

LumoAuditSortKey
lumo_audit_column_get_sort_key (LumoAuditColumn column)
{
  g_return_val_if_fail (column < LUMO_AUDIT_N_COLUMNS, LUMO_AUDIT_SORT_ID);

  return column_specs[column].sort_key;
}

LumoAuditColumn
lumo_audit_column_for_sort_key (LumoAuditSortKey key)
{
  for (guint c = 0; c < LUMO_AUDIT_N_COLUMNS; c++)
    if (key != LUMO_AUDIT_SORT_ID && column_specs[c].sort_key == key)
      return c;
  return LUMO_AUDIT_N_COLUMNS;
}
