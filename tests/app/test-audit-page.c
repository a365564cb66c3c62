/* test-audit-page.c — what the Audit page says about the rows it shows
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A write a review grant let through says so in the list and in the
 * detail pane; a desktop agent's rows carry the "Desktop agent" tag beside
 * its name and say so in the detail. The summary above the list counts the
 * writes of the current search per agent — allowed, denied, failed — and
 * its numbers are those of the rows this test wrote, counted here; it
 * follows a new search and new rows. A log whose integrity check failed
 * says so above the list.
 */
#include "config.h"

#include <string.h>

#include "app-test-util.h"
#include "lumo-audit-detail.h"
#include "lumo-audit-page-private.h"
#include "lumo-audit-row-view.h"
#include "lumo-error.h"

static const char hash[] = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

static gboolean
settled (gpointer data)
{
  return lumo_audit_model_get_counted (data) && !lumo_audit_model_get_loading (data);
}

static gboolean
item_loaded (gpointer data)
{
  return lumo_audit_item_get_row (data) != NULL;
}

static LumoAuditPage *
show_audit_page (AppFixture *f)
{
  LumoAuditPage *page = _lumo_window_get_audit_page (f->window);

  gtk_window_set_default_size (GTK_WINDOW (f->window), 1200, 800);
  lumo_window_set_page (f->window, "audit");
  lumo_test_wait_until (settled, lumo_audit_page_get_model (page), "the log");
  return page;
}

static gint64
append (AppFixture          *f,
        const char          *caller_id,
        const char          *name,
        const char          *tool,
        LumoAuditDecision    decision,
        LumoAuditCallerKind  kind,
        gboolean             by_grant)
{
  LumoAuditRecord record = {
    .provider_id = TEST_PROVIDER_ID,
    .caller_id = caller_id,
    .caller_name = name,
    .tool = tool,
    .write = TRUE,
    .params_sha256 = hash,
    .decision = decision,
    .reason = decision == LUMO_AUDIT_DECISION_DENY ? LUMO_AUDIT_REASON_RATE_LIMITED : NULL,
    .caller_kind = kind,
    .by_grant = by_grant,
  };
  g_autoptr(GError) error = NULL;
  gint64 id = lumo_audit_store_append (f->audit, &record, &error);

  g_assert_no_error (error);
  return id;
}

/* The mapped cells (and tags) of the Audit page's rows with exactly this
 * text. A row that shows it gives a screen reader all its cells. */
static guint
count_shown (GtkWidget  *root,
             const char *text)
{
  guint n = 0;

  for (guint i = 0;; i++)
    {
      GtkWidget *row = app_test_find_widget (root, LUMO_TYPE_AUDIT_ROW_VIEW, i);
      LumoAuditItem *item;
      gboolean shows = FALSE;

      if (row == NULL)
        break;
      item = lumo_audit_row_view_get_item (LUMO_AUDIT_ROW_VIEW (row));
      if (!gtk_widget_get_mapped (row) || item == NULL)
        continue;
      for (guint c = 0; c < LUMO_AUDIT_N_COLUMNS; c++)
        if (g_strcmp0 (lumo_audit_row_view_get_text (LUMO_AUDIT_ROW_VIEW (row), c), text) == 0)
          {
            shows = TRUE;
            n++;
          }
      if (shows)
        {
          g_autofree char *label = app_test_audit_row_label (item);
          g_autofree char *wrong = gtk_test_accessible_check_property (GTK_ACCESSIBLE (row),
                                                                       GTK_ACCESSIBLE_PROPERTY_LABEL, label);

          g_assert_cmpint (gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (row)), ==, GTK_ACCESSIBLE_ROLE_ROW);
          if (wrong != NULL)
            g_error ("the row showing “%s” reads “%s”, not “%s”", text, wrong, label);
        }
    }
  for (guint i = 0;; i++)
    {
      GtkWidget *label = app_test_find_widget (root, GTK_TYPE_LABEL, i);

      if (label == NULL)
        return n;
      if (gtk_widget_get_mapped (label) && g_strcmp0 (gtk_label_get_text (GTK_LABEL (label)), text) == 0)
        n++;
    }
}

typedef struct
{
  GtkWidget  *root;
  const char *text;
  guint       n;
} ShownWait;

static gboolean
shown_n_times (gpointer data)
{
  ShownWait *wait = data;

  return count_shown (wait->root, wait->text) == wait->n;
}

static void
assert_shown (GtkWidget  *root,
              const char *text,
              guint       n)
{
  ShownWait wait = { root, text, n };
  g_autofree char *what = g_strdup_printf ("“%s” on screen %u times", text, n);

  lumo_test_wait_until (shown_n_times, &wait, what);
}

/* Selects the row at @position and returns the detail pane showing it. */
static GtkWidget *
select_row (LumoAuditPage *page,
            guint          position)
{
  GtkSelectionModel *selection = GTK_SELECTION_MODEL (_lumo_audit_page_get_selection (page));
  GtkWidget *detail = app_test_find_widget (GTK_WIDGET (page), LUMO_TYPE_AUDIT_DETAIL, 0);
  g_autoptr(LumoAuditItem) item = g_list_model_get_item (G_LIST_MODEL (selection), position);

  lumo_test_wait_until (item_loaded, item, "the row to select");
  gtk_selection_model_select_item (selection, position, TRUE);
  g_assert_true (lumo_audit_detail_get_row (LUMO_AUDIT_DETAIL (detail)) == lumo_audit_item_get_row (item));
  return detail;
}

static void
test_grant_and_agent_labels (AppFixture    *f,
                             gconstpointer  data)
{
  LumoAuditPage *page;
  GtkWidget *view;
  GtkWidget *detail;
  gint64 granted, agent, both;
  g_autoptr(GError) error = NULL;

  append (f, TEST_CALLER_ID, "Mail Helper", "userscripts.install_script",
          LUMO_AUDIT_DECISION_ALLOW, LUMO_AUDIT_CALLER_KIND_EXTENSION, FALSE);
  granted = append (f, TEST_CALLER_ID, "Mail Helper", "userscripts.update_script",
                    LUMO_AUDIT_DECISION_ALLOW, LUMO_AUDIT_CALLER_KIND_EXTENSION, TRUE);
  agent = append (f, TEST_CALLER2_ID, "Claude Desktop", "userscripts.install_script",
                  LUMO_AUDIT_DECISION_DENY, LUMO_AUDIT_CALLER_KIND_AGENT, FALSE);
  both = append (f, TEST_CALLER2_ID, "Claude Desktop", "userscripts.update_script",
                 LUMO_AUDIT_DECISION_ALLOW, LUMO_AUDIT_CALLER_KIND_AGENT, TRUE);
  g_assert_true (lumo_audit_store_set_result (f->audit, granted, TRUE, NULL, &error));
  g_assert_no_error (error);

  page = show_audit_page (f);
  view = GTK_WIDGET (page->list_view);

  /* The list: two writes by grant, one finished; two rows of the agent. */
  assert_shown (view, "Allowed by grant · succeeded", 1);
  assert_shown (view, "Allowed by grant", 1);
  assert_shown (view, "Allowed", 1);
  assert_shown (view, "Desktop agent", 2);
  assert_shown (view, "Claude Desktop", 2);

  /* The detail pane, newest first: both, agent, granted, plain. */
  detail = select_row (page, 0);
  g_assert_cmpint (lumo_audit_row_get_id (lumo_audit_detail_get_row (LUMO_AUDIT_DETAIL (detail))), ==, both);
  g_assert_true (app_test_any_text_contains (detail, "Desktop agent"));
  g_assert_true (app_test_any_text_contains (detail, "so no one was asked"));

  detail = select_row (page, 1);
  g_assert_cmpint (lumo_audit_row_get_id (lumo_audit_detail_get_row (LUMO_AUDIT_DETAIL (detail))), ==, agent);
  g_assert_true (app_test_any_text_contains (detail, "Desktop agent"));
  g_assert_false (app_test_any_text_contains (detail, "grant"));

  detail = select_row (page, 2);
  g_assert_cmpint (lumo_audit_row_get_id (lumo_audit_detail_get_row (LUMO_AUDIT_DETAIL (detail))), ==, granted);
  g_assert_false (app_test_any_text_contains (detail, "Desktop agent"));
  g_assert_true (app_test_any_text_contains (detail, "Allowed by grant · succeeded"));
  g_assert_true (app_test_any_text_contains (detail, "so no one was asked"));

  detail = select_row (page, 3);
  g_assert_false (app_test_any_text_contains (detail, "grant"));
  g_assert_false (app_test_any_text_contains (detail, "Desktop agent"));

  /* The search language finds them the same way. */
  gtk_editable_set_text (lumo_audit_page_get_search_entry (page), "grant:yes");
  g_assert_true (lumo_audit_page_search_now (page));
  lumo_test_wait_until (settled, lumo_audit_page_get_model (page), "the search");
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (lumo_audit_page_get_model (page))), ==, 2);
  assert_shown (view, "Allowed", 0);
}

/* ---- the columns --------------------------------------------------------- */

static gboolean
row_drawn (gpointer data)
{
  GtkWidget *row = app_test_find_widget (data, LUMO_TYPE_AUDIT_ROW_VIEW, 0);

  return row != NULL && gtk_widget_get_mapped (row) && gtk_widget_get_width (row) > 0 &&
         *lumo_audit_row_view_get_text (LUMO_AUDIT_ROW_VIEW (row), LUMO_AUDIT_COLUMN_TIME) != '\0';
}

/* The header's titles sit over the rows' cells, at every width: the
 * columns fill the row, the time is never cut, the time, agent and
 * outcome never leave, and a column that leaves a narrow row leaves it
 * for every narrower one. */
static void
test_columns_line_up (AppFixture    *f,
                      gconstpointer  data)
{
  static const int widths[] = { 2000, 1280, 965, 800, 600, 480, 360, 300 };
  gboolean shown_before[LUMO_AUDIT_N_COLUMNS];
  LumoAuditPage *page;
  GtkWidget *row, *header;
  LumoAuditSpan spans[LUMO_AUDIT_N_COLUMNS];
  PangoLayout *time;
  int time_width;

  append (f, TEST_CALLER_ID, "Mail Helper", "userscripts.install_script",
          LUMO_AUDIT_DECISION_ALLOW, LUMO_AUDIT_CALLER_KIND_EXTENSION, FALSE);
  page = show_audit_page (f);
  lumo_test_wait_until (row_drawn, page->list_view, "a drawn row");
  row = app_test_find_widget (GTK_WIDGET (page->list_view), LUMO_TYPE_AUDIT_ROW_VIEW, 0);
  header = GTK_WIDGET (page->header);

  time = gtk_widget_create_pango_layout (row, lumo_audit_row_view_get_text (LUMO_AUDIT_ROW_VIEW (row),
                                                                            LUMO_AUDIT_COLUMN_TIME));
  pango_layout_get_pixel_size (time, &time_width, NULL);
  g_object_unref (time);

  for (guint c = 0; c < LUMO_AUDIT_N_COLUMNS; c++)
    shown_before[c] = TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (widths); i++)
    {
      int x = 0;

      lumo_audit_columns_layout (page->columns, widths[i], spans);
      for (guint c = 0; c < LUMO_AUDIT_N_COLUMNS; c++)
        {
          gboolean shown = spans[c].width > 0;

          g_test_message ("width %d: column %u at %d, %d wide", widths[i], c, spans[c].x, spans[c].width);
          if (shown)
            {
              g_assert_cmpint (spans[c].x, ==, x);
              x += spans[c].width;
            }
          g_assert_true (shown || !shown_before[c] || widths[i] < 1280);
          g_assert_true (!shown || shown_before[c]);
          shown_before[c] = shown;
        }
      g_assert_cmpint (x, ==, widths[i]);
      g_assert_cmpint (spans[LUMO_AUDIT_COLUMN_CALLER].width, >, 0);
      g_assert_cmpint (spans[LUMO_AUDIT_COLUMN_OUTCOME].width, >, 0);
      if (widths[i] >= 360)
        g_assert_cmpint (spans[LUMO_AUDIT_COLUMN_TIME].width, >=, time_width + 12);
    }

  /* On screen: the header is as wide as a row, each title at its cell. */
  g_assert_cmpint (gtk_widget_get_width (header), ==, gtk_widget_get_width (row));
  lumo_audit_columns_layout (page->columns, gtk_widget_get_width (row), spans);
  for (guint c = 0; c < LUMO_AUDIT_N_COLUMNS; c++)
    {
      GtkWidget *button = lumo_audit_header_get_button (page->header, c);
      graphene_rect_t bounds;

      if (button == NULL)
        continue;
      g_assert_true (gtk_widget_compute_bounds (button, header, &bounds));
      g_assert_cmpfloat (bounds.origin.x, ==, spans[c].x);
      g_assert_cmpfloat (bounds.size.width, ==, spans[c].width);
    }
}

/* The tools the rows show, top to bottom, joined by spaces. */
static char *
shown_tools (LumoAuditPage *page)
{
  g_autoptr(GPtrArray) texts = app_test_audit_shown_texts (GTK_WIDGET (page->list_view), LUMO_AUDIT_COLUMN_TOOL);

  g_ptr_array_add (texts, NULL);
  return g_strjoinv (" ", (char **) texts->pdata);
}

typedef struct
{
  LumoAuditPage *page;
  const char    *tools;
} ToolsWait;

static gboolean
tools_shown (gpointer data)
{
  ToolsWait *wait = data;
  g_autofree char *tools = shown_tools (wait->page);

  /* Xvfb's frame clock lays out (and drops the rows of removed items)
   * when something is queued. */
  gtk_widget_queue_draw (GTK_WIDGET (wait->page->list_view));
  return g_strcmp0 (tools, wait->tools) == 0;
}

typedef struct
{
  GtkWidget *widget;
  guint      n_paints;
} PaintWait;

static void
on_after_paint_cb (GdkFrameClock *clock,
                   PaintWait     *wait)
{
  wait->n_paints++;
}

static gboolean
painted_twice (gpointer data)
{
  PaintWait *wait = data;

  /* Xvfb's frame clock paints what is queued. */
  gtk_widget_queue_draw (wait->widget);
  return wait->n_paints >= 2;
}

/* Until @widget's rows are drawn (they lay out their cells when first
 * drawn): two paints of its window from now. */
static void
wait_drawn (GtkWidget *widget)
{
  GdkFrameClock *clock = gtk_widget_get_frame_clock (widget);
  PaintWait wait = { widget, 0 };
  gulong id;

  g_assert_nonnull (clock);
  id = g_signal_connect (clock, "after-paint", G_CALLBACK (on_after_paint_cb), &wait);
  lumo_test_wait_until (painted_twice, &wait, "the rows drawn");
  g_signal_handler_disconnect (clock, id);
}

/* A new search refills the items of the rows on screen in place (no row
 * is bound again): each row follows its item, what it draws and what it
 * gives a screen reader. */
static void
test_rows_follow_their_items (AppFixture    *f,
                              gconstpointer  data)
{
  LumoAuditPage *page;
  ToolsWait wait;
  g_autoptr(LumoAuditItem) item = NULL;
  GtkWidget *row;
  g_autofree char *label = NULL;
  g_autofree char *wrong = NULL;

  append (f, TEST_CALLER_ID, "Mail Helper", "userscripts.install_script",
          LUMO_AUDIT_DECISION_ALLOW, LUMO_AUDIT_CALLER_KIND_EXTENSION, FALSE);
  append (f, TEST_CALLER_ID, "Mail Helper", "userscripts.update_script",
          LUMO_AUDIT_DECISION_ALLOW, LUMO_AUDIT_CALLER_KIND_EXTENSION, FALSE);
  append (f, TEST_CALLER2_ID, "Claude Desktop", "userscripts.delete_script",
          LUMO_AUDIT_DECISION_DENY, LUMO_AUDIT_CALLER_KIND_AGENT, FALSE);
  page = show_audit_page (f);

  wait = (ToolsWait) { page, "userscripts.delete_script userscripts.update_script userscripts.install_script" };
  lumo_test_wait_until (tools_shown, &wait, "the three rows");
  wait_drawn (GTK_WIDGET (page->list_view));
  item = g_list_model_get_item (G_LIST_MODEL (lumo_audit_page_get_model (page)), 0);

  gtk_editable_set_text (lumo_audit_page_get_search_entry (page), "tool:update_script");
  g_assert_true (lumo_audit_page_search_now (page));
  wait = (ToolsWait) { page, "userscripts.update_script" };
  lumo_test_wait_until (tools_shown, &wait, "the searched row");

  /* The first row's item is the one it had, refilled. */
  row = app_test_find_widget (GTK_WIDGET (page->list_view), LUMO_TYPE_AUDIT_ROW_VIEW, 0);
  for (guint i = 1; row != NULL && lumo_audit_row_view_get_item (LUMO_AUDIT_ROW_VIEW (row)) != item; i++)
    row = app_test_find_widget (GTK_WIDGET (page->list_view), LUMO_TYPE_AUDIT_ROW_VIEW, i);
  g_assert_nonnull (row);
  label = app_test_audit_row_label (item);
  g_assert_nonnull (strstr (label, "userscripts.update_script"));
  wrong = gtk_test_accessible_check_property (GTK_ACCESSIBLE (row), GTK_ACCESSIBLE_PROPERTY_LABEL, label);
  if (wrong != NULL)
    g_error ("the refilled row reads “%s”, not “%s”", wrong, label);
}

/* ---- the summary -------------------------------------------------------- */

typedef struct
{
  const char *name;
  gint64      allowed;
  gint64      denied;
  gint64      failed;
} Counted;

static gboolean
summary_idle (gpointer data)
{
  return !lumo_audit_summary_get_busy (data);
}

static char *
line_of (const Counted *c)
{
  return g_strdup_printf ("%s: %" G_GINT64_FORMAT " allowed · %" G_GINT64_FORMAT " denied · %"
                          G_GINT64_FORMAT " failed", c->name, c->allowed, c->denied, c->failed);
}

/* What the summary shows is the total, then these agents, in this order. */
static void
assert_summary (LumoAuditPage *page,
                const Counted *agents,
                guint          n_agents)
{
  LumoAuditSummary *summary = lumo_audit_page_get_summary (page);
  Counted all = { "All agents", 0, 0, 0 };
  GPtrArray *lines;

  lumo_test_wait_until (summary_idle, summary, "the summary");
  lines = lumo_audit_summary_get_lines (summary);

  for (guint i = 0; i < n_agents; i++)
    {
      all.allowed += agents[i].allowed;
      all.denied += agents[i].denied;
      all.failed += agents[i].failed;
    }

  for (guint i = 0; i < lines->len; i++)
    g_test_message ("summary: %s", (char *) g_ptr_array_index (lines, i));
  g_assert_cmpuint (lines->len, ==, n_agents + 1);
  {
    g_autofree char *expected = line_of (&all);

    g_assert_cmpstr (g_ptr_array_index (lines, 0), ==, expected);
    /* On screen, not only in the widget's memory. */
    assert_shown (GTK_WIDGET (summary), expected, 1);
  }
  for (guint i = 0; i < n_agents; i++)
    {
      g_autofree char *expected = line_of (&agents[i]);

      g_assert_cmpstr (g_ptr_array_index (lines, i + 1), ==, expected);
      assert_shown (GTK_WIDGET (summary), expected, 1);
    }
}

static void
test_summary_counts_the_search (AppFixture    *f,
                                gconstpointer  data)
{
  static const char *callers[] = { TEST_CALLER_ID, TEST_CALLER2_ID, TEST_CALLER3_ID };
  static const char *names[] = { "Mail Helper", "Research Assistant", "Lumo" };
  static const char *tools[] = { "userscripts.install_script", "userscripts.update_script" };
  g_autofree LumoAuditImportRecord *rows = g_new0 (LumoAuditImportRecord, 500);
  Counted all[3] = { { names[0] }, { names[1] }, { names[2] } };
  Counted installs[3] = { { names[0] }, { names[1] }, { names[2] } };
  g_autoptr(GError) error = NULL;
  LumoAuditPage *page;

  /* Caller 0 writes most, then 1, then 2; every 5th is denied, every 3rd
   * allowed write failed, every 8th is still running. */
  for (guint i = 0; i < 500; i++)
    {
      LumoAuditImportRecord *r = &rows[i];
      guint c = i % 6 < 3 ? 0 : i % 6 < 5 ? 1 : 2;
      gboolean install = i % 4 == 0;
      Counted *counts[2] = { &all[c], install ? &installs[c] : NULL };

      r->record.provider_id = TEST_PROVIDER_ID;
      r->record.caller_id = callers[c];
      r->record.caller_name = names[c];
      r->record.tool = tools[install ? 0 : 1];
      r->record.write = TRUE;
      r->record.params_sha256 = hash;
      for (guint k = 0; k < 2; k++)
        {
          if (counts[k] == NULL)
            continue;
          if (i % 5 == 0)
            counts[k]->denied++;
          else
            {
              counts[k]->allowed++;
              if (i % 3 == 0 && i % 8 != 0)
                counts[k]->failed++;
            }
        }
      if (i % 5 == 0)
        {
          r->record.decision = LUMO_AUDIT_DECISION_DENY;
          r->record.reason = LUMO_AUDIT_REASON_WRITES_OFF;
        }
      else
        {
          r->record.decision = LUMO_AUDIT_DECISION_ALLOW;
          r->result = i % 8 == 0 ? LUMO_AUDIT_RESULT_NONE
                      : i % 3 == 0 ? LUMO_AUDIT_RESULT_ERROR : LUMO_AUDIT_RESULT_OK;
        }
    }
  g_assert_true (lumo_audit_store_import (f->audit, rows, 500, &error));
  g_assert_no_error (error);

  page = show_audit_page (f);
  assert_summary (page, all, 3);

  /* A search: the summary is of its rows (Lumo installed nothing). */
  gtk_editable_set_text (lumo_audit_page_get_search_entry (page), "install_script");
  g_assert_true (lumo_audit_page_search_now (page));
  g_assert_cmpint (installs[2].allowed + installs[2].denied, ==, 0);
  assert_summary (page, installs, 2);

  /* A new row of the search arrives: the summary follows. A grant's
   * write is an allowed one. */
  append (f, TEST_CALLER3_ID, "Lumo", "userscripts.install_script", LUMO_AUDIT_DECISION_ALLOW,
          LUMO_AUDIT_CALLER_KIND_AGENT, TRUE);
  installs[2].allowed++;
  {
    LumoAuditSummary *summary = lumo_audit_page_get_summary (page);
    g_autofree char *expected = line_of (&installs[2]);

    assert_shown (GTK_WIDGET (summary), expected, 1);
  }
  assert_summary (page, installs, 3);

  /* Nothing matches: no numbers, the list says why. */
  gtk_editable_set_text (lumo_audit_page_get_search_entry (page), "tool:nothing_like_this");
  g_assert_true (lumo_audit_page_search_now (page));
  lumo_test_wait_until (summary_idle, lumo_audit_page_get_summary (page), "the summary");
  g_assert_cmpuint (lumo_audit_summary_get_lines (lumo_audit_page_get_summary (page))->len, ==, 0);
}

/* More agents than the summary names: the busiest, then how many more. */
static void
test_summary_of_many_agents (AppFixture    *f,
                             gconstpointer  data)
{
  const char *ids[] = { TEST_CALLER_ID, TEST_CALLER2_ID, TEST_CALLER3_ID, TEST_PROVIDER2_ID, TEST_UNKNOWN_ID, TEST_PROVIDER_ID };
  LumoAuditSummary *summary;
  GPtrArray *lines;

  G_STATIC_ASSERT (G_N_ELEMENTS (ids) > LUMO_AUDIT_SUMMARY_MAX_AGENTS);
  for (guint c = 0; c < G_N_ELEMENTS (ids); c++)
    for (guint i = 0; i <= c; i++)
      append (f, ids[c], NULL, "userscripts.install_script", LUMO_AUDIT_DECISION_ALLOW,
              LUMO_AUDIT_CALLER_KIND_EXTENSION, FALSE);

  summary = lumo_audit_page_get_summary (show_audit_page (f));
  lumo_test_wait_until (summary_idle, summary, "the summary");
  lines = lumo_audit_summary_get_lines (summary);
  g_assert_cmpuint (lines->len, ==, 1 + LUMO_AUDIT_SUMMARY_MAX_AGENTS + 1);
  /* No name: the id. The busiest first. */
  {
    g_autofree char *busiest = g_strdup_printf ("%s: 6 allowed · 0 denied · 0 failed", ids[5]);

    g_assert_cmpstr (g_ptr_array_index (lines, 1), ==, busiest);
  }
  g_assert_cmpstr (g_ptr_array_index (lines, lines->len - 1), ==, "and 2 more agents");
}

/* ---- integrity ---------------------------------------------------------- */

static gboolean
integrity_known (gpointer data)
{
  return lumo_audit_store_get_integrity (data) != LUMO_AUDIT_INTEGRITY_CHECKING;
}

static void
test_damaged_log_says_so (void)
{
  g_autofree char *dir = lumo_test_dir_new ("app-damaged");
  g_autofree char *path = g_build_filename (dir, "audit.db", NULL);
  g_autoptr(LumoAuditStore) store = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  gsize len;
  AppFixture f = { 0 };
  LumoAuditPage *page;

  /* A log of a few pages, with one page in its middle overwritten. */
  store = lumo_audit_store_new (path, &error);
  g_assert_no_error (error);
  app_test_fill_audit (store, 3000, 0);
  g_clear_object (&store);
  g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
  g_assert_cmpuint (len, >, 64 * 4096);
  memset (contents + 40 * 4096, 0x5a, 4096);
  g_assert_true (g_file_set_contents (path, contents, len, NULL));

  store = lumo_audit_store_new (path, &error);
  if (store == NULL)
    {
      /* Damaged where the open itself reads: refused there, as it should. */
      g_test_message ("refused at open: %s", error->message);
      g_assert_error (error, LUMO_ERROR, LUMO_ERROR_DB_CORRUPT);
      lumo_test_dir_remove (dir);
      return;
    }

  f.dir = g_steal_pointer (&dir);
  {
    g_autofree char *policy_path = g_build_filename (f.dir, "policy.db", NULL);

    f.policy = lumo_policy_new (policy_path, &error);
    g_assert_no_error (error);
  }
  f.audit = g_object_ref (store);
  f.queue = lumo_review_queue_new ();
  f.backend = lumo_backend_new (f.policy, f.audit, f.queue);
  app_fixture_setup_window (&f, TRUE);
  page = _lumo_window_get_audit_page (f.window);
  lumo_window_set_page (f.window, "audit");

  lumo_test_wait_until (integrity_known, store, "the integrity check");
  g_assert_cmpint (lumo_audit_store_get_integrity (store), ==, LUMO_AUDIT_INTEGRITY_FAILED);
  g_assert_true (app_test_any_text_contains (GTK_WIDGET (page), "The integrity check of this log failed"));
  g_assert_true (app_test_any_text_contains (GTK_WIDGET (page), lumo_audit_store_get_integrity_message (store)));

  app_fixture_teardown (&f, NULL);
}

/* A window that opens on the Audit page: the summary is held until the
 * first rows are painted, and then comes. */
static void
setup_on_audit_page (AppFixture    *f,
                     gconstpointer  data)
{
  g_setenv ("LUMO_ACCESS_PAGE", "audit", TRUE);
  app_fixture_setup (f, data);
  g_unsetenv ("LUMO_ACCESS_PAGE");
}

static void
test_summary_after_first_paint (AppFixture    *f,
                                gconstpointer  data)
{
  LumoAuditPage *page = _lumo_window_get_audit_page (f->window);

  g_assert_cmpstr (lumo_window_get_page (f->window), ==, "audit");
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (page)));
  lumo_test_wait_until (summary_idle, lumo_audit_page_get_summary (page), "the summary after the first paint");
  g_assert_false (lumo_audit_model_get_loading (lumo_audit_page_get_model (page)));
}

int
main (int   argc,
      char *argv[])
{
  /* The rows' and titles' accessible properties are asserted: GTK's test
   * backend keeps them (the suite's GTK_A11Y=none keeps none). */
  g_setenv ("GTK_A11Y", "test", TRUE);
  gtk_test_init (&argc, &argv, NULL);
  app_test_init_application ();

  g_test_add ("/audit-page/grant-and-agent", AppFixture, GINT_TO_POINTER (TRUE),
              app_fixture_setup, test_grant_and_agent_labels, app_fixture_teardown);
  g_test_add ("/audit-page/rows-follow-items", AppFixture, GINT_TO_POINTER (TRUE),
              app_fixture_setup, test_rows_follow_their_items, app_fixture_teardown);
  g_test_add ("/audit-page/columns", AppFixture, GINT_TO_POINTER (TRUE),
              app_fixture_setup, test_columns_line_up, app_fixture_teardown);
  g_test_add ("/audit-page/summary", AppFixture, GINT_TO_POINTER (TRUE),
              app_fixture_setup, test_summary_counts_the_search, app_fixture_teardown);
  g_test_add ("/audit-page/summary-many-agents", AppFixture, GINT_TO_POINTER (TRUE),
              app_fixture_setup, test_summary_of_many_agents, app_fixture_teardown);
  g_test_add ("/audit-page/summary-after-first-paint", AppFixture, GINT_TO_POINTER (TRUE),
              setup_on_audit_page, test_summary_after_first_paint, app_fixture_teardown);
  g_test_add_func ("/audit-page/damaged", test_damaged_log_says_so);

  return g_test_run ();
}
