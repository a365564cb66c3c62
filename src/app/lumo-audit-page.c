/* lumo-audit-page.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-audit-page"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "lumo-audit-header.h"
#include "lumo-audit-page-private.h"
#include "lumo-audit-row-view.h"
#include "lumo-backend.h"
#include "lumo-format.h"
#include "lumo-policy.h"
#include "lumo-ui-util.h"

/* Searching as you type starts at this many characters (the trigram index
 * needs three); Enter searches any text. */
#define SEARCH_MIN_CHARS 3

G_DEFINE_FINAL_TYPE (LumoAuditPage, lumo_audit_page, ADW_TYPE_BIN)

/* The terms the result filter adds to the search text, in the order of the
 * drop-down's items. */
static const char * const filter_terms[] = { NULL, "result:ok", "result:error", "result:denied", "result:pending" };

static void
update_status (LumoAuditPage *self)
{
  g_autofree char *text = NULL;
  LumoAuditQuery *query;
  guint n;

  if (self->model == NULL)
    return;

  n = g_list_model_get_n_items (G_LIST_MODEL (self->model));
  query = lumo_audit_model_get_query (self->model);

  if (self->query_error != NULL)
    text = g_strdup (self->query_error);
  else if (lumo_audit_model_get_error (self->model) != NULL)
    /* Translators: %s says why the log could not be read. */
    text = g_strdup_printf (_("The log cannot be read: %s"), lumo_audit_model_get_error (self->model)->message);
  else if (lumo_audit_model_get_loading (self->model))
    text = g_strdup (_("Loading…"));
  else if (!lumo_audit_model_get_counted (self->model))
    text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%'u entry so far, counting…",
                                         "%'u entries so far, counting…", n), n);
  else
    text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%'u entry", "%'u entries", n), n);

  if (self->short_text && self->query_error == NULL)
    {
      g_autofree char *base = g_steal_pointer (&text);

      /* Translators: shown after the row count while fewer than three characters are typed. */
      text = g_strdup_printf (_("%s · Type at least 3 characters to search, or press Enter"), base);
    }
  else if (query != NULL && lumo_audit_query_uses_scan (query) && self->query_error == NULL)
    {
      g_autofree char *base = g_steal_pointer (&text);

      text = g_strdup_printf (_("%s · Words shorter than 3 characters read every entry, which is slower"), base);
    }

  gtk_label_set_text (self->status_label, text);

  if (self->query_error != NULL)
    gtk_widget_add_css_class (GTK_WIDGET (self->status_label), "error");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->status_label), "error");

  if (!lumo_audit_model_get_loading (self->model) && n == 0)
    {
      gboolean filtered = query != NULL && !lumo_audit_query_is_empty (query);

      adw_status_page_set_title (self->empty_page, filtered ? _("No Results") : _("No Entries"));
      adw_status_page_set_description (self->empty_page,
                                       filtered ? _("No entry matches the search. Filters combine: every one must match.")
                                                : _("Every write an agent attempts is recorded here, allowed or not, with a hash that chains it to the entry before."));
      gtk_stack_set_visible_child_name (self->results_stack, "empty");
    }
  else
    gtk_stack_set_visible_child_name (self->results_stack, "rows");
}

static char *
search_text (LumoAuditPage *self)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->search_entry));
  guint filter = gtk_drop_down_get_selected (self->filter_dropdown);

  if (filter < G_N_ELEMENTS (filter_terms) && filter_terms[filter] != NULL)
    return g_strdup_printf ("%s %s", text, filter_terms[filter]);
  return g_strdup (text);
}

gboolean
lumo_audit_page_search_now (LumoAuditPage *self)
{
  g_autofree char *text = NULL;
  g_autoptr(LumoAuditQuery) query = NULL;
  g_autoptr(GError) error = NULL;

  g_return_val_if_fail (LUMO_IS_AUDIT_PAGE (self), FALSE);

  if (self->model == NULL)
    return FALSE;

  text = search_text (self);
  self->short_text = FALSE;
  g_clear_pointer (&self->query_error, g_free);

  if (!(query = lumo_audit_query_parse (text, 0, &error)))
    {
      /* The rows of the last good search stay. */
      self->query_error = g_strdup (error->message);
      gtk_widget_add_css_class (GTK_WIDGET (self->search_entry), "error");
      update_status (self);
      return FALSE;
    }

  gtk_widget_remove_css_class (GTK_WIDGET (self->search_entry), "error");

  /* The same search again (Enter, a widget re-announcing its state) keeps
   * the rows, the scroll position and the count. */
  if (g_strcmp0 (g_strstrip (text), self->applied_text) != 0)
    {
      g_free (self->applied_text);
      self->applied_text = g_strdup (text);
      /* The selected position would show another row of the new result. */
      gtk_single_selection_set_selected (self->selection, GTK_INVALID_LIST_POSITION);
      lumo_audit_model_set_query (self->model, lumo_audit_query_is_empty (query) ? NULL : query);
      lumo_audit_summary_set_query (self->summary, lumo_audit_query_is_empty (query) ? NULL : query);
    }
  update_status (self);
  return TRUE;
}

static void
on_search_changed_cb (LumoAuditPage *self)
{
  g_autofree char *text = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->search_entry))));
  glong len = g_utf8_strlen (text, -1);

  if (len > 0 && len < SEARCH_MIN_CHARS)
    {
      self->short_text = TRUE;
      update_status (self);
      return;
    }

  lumo_audit_page_search_now (self);
}

static void
on_search_activate_cb (LumoAuditPage *self)
{
  lumo_audit_page_search_now (self);
}

static void
on_filter_selected_cb (GtkDropDown   *dropdown,
                       GParamSpec    *pspec,
                       LumoAuditPage *self)
{
  lumo_audit_page_search_now (self);
}

/* ---- rows --------------------------------------------------------------- */

/* One widget per row (LumoAuditRowView draws its seven cells): GTK 4.8's
 * list view keeps 200 rows however few fit on screen, and a column view
 * makes each of them a list item widget of seven more, each with a cell
 * widget: 1,600 list item widgets and 60–70 ms for the first page
 * (docs/PERFORMANCE.md). A row reads the texts its item formatted once,
 * when the row arrived, and follows the item's row (a placeholder
 * filling in, or a new search refilling it). */
static void
on_row_setup_cb (GtkSignalListItemFactory *factory,
                 GtkListItem              *list_item,
                 LumoAuditPage            *self)
{
  gtk_list_item_set_child (list_item, lumo_audit_row_view_new (self->columns));
}

static void
on_row_bind_cb (GtkSignalListItemFactory *factory,
                GtkListItem              *list_item,
                gpointer                  user_data)
{
  lumo_audit_row_view_set_item (LUMO_AUDIT_ROW_VIEW (gtk_list_item_get_child (list_item)),
                                gtk_list_item_get_item (list_item));
}

static void
on_row_unbind_cb (GtkSignalListItemFactory *factory,
                  GtkListItem              *list_item,
                  gpointer                  user_data)
{
  lumo_audit_row_view_set_item (LUMO_AUDIT_ROW_VIEW (gtk_list_item_get_child (list_item)), NULL);
}

static void
setup_rows (LumoAuditPage *self)
{
  g_autoptr(GtkListItemFactory) factory = gtk_signal_list_item_factory_new ();

  /* The rows and the header lay out with one LumoAuditColumns: a border
   * dragged in the header moves the rows' cells at once. */
  self->columns = lumo_audit_columns_new ();
  lumo_audit_header_set_columns (self->header, self->columns);
  g_signal_connect (factory, "setup", G_CALLBACK (on_row_setup_cb), self);
  g_signal_connect (factory, "bind", G_CALLBACK (on_row_bind_cb), NULL);
  g_signal_connect (factory, "unbind", G_CALLBACK (on_row_unbind_cb), NULL);
  gtk_list_view_set_factory (self->list_view, factory);
}

/* ---- sorting ------------------------------------------------------------ */

/* The columns sort in SQL (keyset paging in the store): the header's
 * buttons name a column, and lumo_audit_column_get_sort_key() (the one
 * table of the columns) gives the model's key. */

/* The column the model is sorted by, LUMO_AUDIT_N_COLUMNS for the log's
 * own order. */
static LumoAuditColumn
sorted_column (LumoAuditPage *self)
{
  return lumo_audit_column_for_sort_key (self->model != NULL ? lumo_audit_model_get_sort_key (self->model)
                                                             : LUMO_AUDIT_SORT_ID);
}

void
_lumo_audit_page_sort_by (LumoAuditPage      *self,
                          LumoAuditColumn     column,
                          LumoAuditSortOrder  order)
{
  LumoAuditSortKey key = LUMO_AUDIT_SORT_ID;

  g_return_if_fail (LUMO_IS_AUDIT_PAGE (self));
  g_return_if_fail (column <= LUMO_AUDIT_N_COLUMNS);
  if (column < LUMO_AUDIT_N_COLUMNS)
    {
      key = lumo_audit_column_get_sort_key (column);
      g_return_if_fail (key != LUMO_AUDIT_SORT_ID);
    }
  else
    order = LUMO_AUDIT_SORT_DESCENDING;

  lumo_audit_header_set_sort (self->header, column,
                              order == LUMO_AUDIT_SORT_ASCENDING ? GTK_SORT_ASCENDING : GTK_SORT_DESCENDING);
  if (self->model == NULL ||
      (key == lumo_audit_model_get_sort_key (self->model) &&
       order == lumo_audit_model_get_sort_order (self->model)))
    return;

  /* The selected position would show another row in the new order. */
  gtk_single_selection_set_selected (self->selection, GTK_INVALID_LIST_POSITION);
  lumo_audit_model_set_sort (self->model, key, order);
  update_status (self);
}

/* A title's button: the first click sorts by its column ascending, the
 * next ones turn the order round (as GTK's column view did). */
static void
sort_column_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *param)
{
  LumoAuditPage *self = LUMO_AUDIT_PAGE (widget);
  guint32 column = g_variant_get_uint32 (param);
  LumoAuditSortOrder order = LUMO_AUDIT_SORT_ASCENDING;

  if (column >= LUMO_AUDIT_N_COLUMNS || lumo_audit_column_get_sort_key (column) == LUMO_AUDIT_SORT_ID)
    {
      g_warning ("Column %u does not sort", column);
      return;
    }
  if (self->model != NULL && sorted_column (self) == column &&
      lumo_audit_model_get_sort_order (self->model) == LUMO_AUDIT_SORT_ASCENDING)
    order = LUMO_AUDIT_SORT_DESCENDING;
  _lumo_audit_page_sort_by (self, column, order);
}

/* ---- detail ------------------------------------------------------------- */

void
_lumo_audit_page_show_row (LumoAuditPage *self,
                           LumoAuditRow  *row)
{
  const char *title = NULL;

  if (row != NULL)
    title = g_hash_table_lookup (self->provider_names, lumo_audit_row_get_provider_id (row));

  lumo_audit_detail_set_row (self->detail, row, title,
                             self->verified ? &self->verify_report : NULL, self->verify_ok);
}

static void
on_selected_row_notify_cb (LumoAuditItem *item,
                           GParamSpec    *pspec,
                           LumoAuditPage *self)
{
  if (gtk_single_selection_get_selected_item (self->selection) == (gpointer) item)
    _lumo_audit_page_show_row (self, lumo_audit_item_get_row (item));
}

static void
on_selection_changed_cb (GtkSingleSelection *selection,
                         GParamSpec         *pspec,
                         LumoAuditPage      *self)
{
  LumoAuditItem *item = gtk_single_selection_get_selected_item (selection);

  if (item == NULL)
    {
      _lumo_audit_page_show_row (self, NULL);
      return;
    }

  /* A placeholder fills in when its page arrives (once per item: selecting
   * it again must not add another handler). */
  if (g_signal_handler_find (item, G_SIGNAL_MATCH_FUNC | G_SIGNAL_MATCH_DATA, 0, 0, NULL,
                             on_selected_row_notify_cb, self) == 0)
    g_signal_connect_object (item, "notify::row", G_CALLBACK (on_selected_row_notify_cb), self, 0);
  _lumo_audit_page_show_row (self, lumo_audit_item_get_row (item));
  if (!adw_flap_get_folded (self->flap))
    adw_flap_set_reveal_flap (self->flap, TRUE);
}

static void
on_list_view_activate_cb (LumoAuditPage *self,
                            guint          position)
{
  gtk_single_selection_set_selected (self->selection, position);
  adw_flap_set_reveal_flap (self->flap, TRUE);
}

static void
close_detail_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *param)
{
  LumoAuditPage *self = LUMO_AUDIT_PAGE (widget);

  adw_flap_set_reveal_flap (self->flap, FALSE);
}

/* ---- providers' names --------------------------------------------------- */

static void
reload_provider_names (LumoAuditPage *self)
{
  g_autoptr(GPtrArray) providers = lumo_policy_list_providers (lumo_backend_get_policy (self->backend), NULL);

  g_hash_table_remove_all (self->provider_names);
  for (guint i = 0; providers != NULL && i < providers->len; i++)
    {
      const LumoProviderInfo *info = g_ptr_array_index (providers, i);

      g_hash_table_insert (self->provider_names, g_strdup (info->id),
                           g_strdup (lumo_format_provider_title (info, info->id)));
    }
}

static void
on_provider_changed_cb (LumoPolicy    *policy,
                        const char    *provider_id,
                        LumoAuditPage *self)
{
  reload_provider_names (self);
}

/* ---- new rows at the top ------------------------------------------------ */

/* A list view keeps the row it shows first in place when rows are inserted
 * above it, so new audit rows would slide in out of sight. While the view
 * is at the top, it stays there: new rows appear, the rest moves down.
 *
 * The view moves when it lays the change out: a frame or two later, or
 * only when the page is next shown (a hidden page is not laid out, and the
 * tick callbacks of an unmapped widget wait until it is mapped). So the
 * view is held at the top for a few frames after the last insertion, and
 * an insertion while it is held counts as one at the top and holds it
 * longer: a burst that arrives in several parts, or while another page is
 * shown, must not leave the view scrolled down by the rows of the first
 * part (it did, by five rows, until a scroll).
 *
 * Any change holds it, not only rows at the top. While the list is
 * shorter than the view, the scroll value is 0 whichever row the view
 * keeps in place, and after rows arrive at the top that is the old first
 * row, now further down: the view looks held at the top but is not. It
 * moves only when rows below make the list taller than the view (the
 * count, the next page, the log read again after an import), down by the
 * rows that came above that row (19 in a 20-row list that got 1000 rows
 * below; measured). Setting the value back to 0 then makes the view keep
 * the first row instead. */
#define KEEP_TOP_FRAMES 3

static gboolean
on_scroll_to_top_cb (GtkWidget     *widget,
                     GdkFrameClock *clock,
                     gpointer       user_data)
{
  LumoAuditPage *self = LUMO_AUDIT_PAGE (widget);
  GtkAdjustment *vadjustment = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (self->list_view));

  if (vadjustment != NULL && gtk_adjustment_get_value (vadjustment) > gtk_adjustment_get_lower (vadjustment))
    gtk_adjustment_set_value (vadjustment, gtk_adjustment_get_lower (vadjustment));

  if (++self->scroll_to_top_frames < KEEP_TOP_FRAMES)
    return G_SOURCE_CONTINUE;

  self->scroll_to_top_id = 0;
  return G_SOURCE_REMOVE;
}

static void
on_model_items_changed_cb (GListModel    *model,
                           guint          position,
                           guint          removed,
                           guint          added,
                           LumoAuditPage *self)
{
  GtkAdjustment *vadjustment = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (self->list_view));

  /* Still the old position: the view lays out the change later. */
  if ((added > 0 || removed > 0) && vadjustment != NULL &&
      (self->scroll_to_top_id != 0 ||
       gtk_adjustment_get_value (vadjustment) <= gtk_adjustment_get_lower (vadjustment) + 1))
    {
      self->scroll_to_top_frames = 0;
      if (self->scroll_to_top_id == 0)
        self->scroll_to_top_id = gtk_widget_add_tick_callback (GTK_WIDGET (self), on_scroll_to_top_cb, NULL, NULL);
    }

  update_status (self);
}

/* ---- GObject ------------------------------------------------------------ */

static void trim_when_settled (LumoAuditPage *self);

static void
on_model_changed_cb (LumoAuditPage *self)
{
  update_status (self);
  trim_when_settled (self);
}

/* The log's first rows first, the summary's scan of it and the store's
 * held integrity check after them: on a big log they would share the
 * cores and the disk at the moment the page first shows. Later searches
 * are not held. */
static void on_summary_clock_after_paint_cb (LumoAuditPage *self);

static void
release_summary (LumoAuditPage *self)
{
  if (self->summary_clock != NULL)
    {
      g_signal_handlers_disconnect_by_func (self->summary_clock, on_summary_clock_after_paint_cb, self);
      g_clear_object (&self->summary_clock);
    }
  g_signal_handlers_disconnect_by_func (self, release_summary, self);
  lumo_audit_summary_set_held (self->summary, FALSE);
  /* The first screen is drawn (or not shown): the check may have the
   * core (LUMO_AUDIT_STORE_HOLD_CHECK). */
  if (self->store != NULL)
    lumo_audit_store_release_check (self->store);
}

/* Once the first screen is complete (its rows painted, counted, the
 * summary done), the heap that building it freed goes back, once. */
static void
trim_when_settled (LumoAuditPage *self)
{
  if (!self->trim_wanted || lumo_audit_summary_get_busy (self->summary) ||
      !lumo_audit_model_get_counted (self->model))
    return;
  self->trim_wanted = FALSE;
  g_signal_handlers_disconnect_by_func (self->summary, trim_when_settled, self);
  lumo_ui_trim_heap_once ();
}

static void
on_summary_clock_after_paint_cb (LumoAuditPage *self)
{
  release_summary (self);

  self->trim_wanted = TRUE;
  g_signal_connect_swapped (self->summary, "notify::busy", G_CALLBACK (trim_when_settled), self);
  trim_when_settled (self);
}

static void
on_model_first_page_cb (LumoAuditPage *self)
{
  GdkFrameClock *clock;

  if (lumo_audit_model_get_loading (self->model))
    return;
  g_signal_handlers_disconnect_by_func (self->model, on_model_first_page_cb, self);

  /* … and until they are painted: the scan took a core from the window's
   * first frame (measured, docs/PERFORMANCE.md). A page not on screen
   * paints nothing, and is let go at once, or when it leaves the screen. */
  clock = gtk_widget_get_mapped (GTK_WIDGET (self)) ? gtk_widget_get_frame_clock (GTK_WIDGET (self)) : NULL;
  if (clock == NULL)
    {
      release_summary (self);
      return;
    }
  self->summary_clock = g_object_ref (clock);
  g_signal_connect_swapped (clock, "after-paint", G_CALLBACK (on_summary_clock_after_paint_cb), self);
  g_signal_connect (self, "unmap", G_CALLBACK (release_summary), self);
}

static void
lumo_audit_page_dispose (GObject *object)
{
  LumoAuditPage *self = (LumoAuditPage *)object;

  if (self->job_cancellable != NULL)
    g_cancellable_cancel (self->job_cancellable);
  g_clear_handle_id (&self->job_timer, g_source_remove);
  if (self->summary_clock != NULL)
    {
      g_signal_handlers_disconnect_by_func (self->summary_clock, on_summary_clock_after_paint_cb, self);
      g_clear_object (&self->summary_clock);
    }
  if (self->trim_wanted)
    {
      g_signal_handlers_disconnect_by_func (self->summary, trim_when_settled, self);
      self->trim_wanted = FALSE;
    }
  if (self->scroll_to_top_id != 0)
    {
      gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->scroll_to_top_id);
      self->scroll_to_top_id = 0;
    }
  if (self->list_view != NULL)
    gtk_list_view_set_model (self->list_view, NULL);
  g_clear_object (&self->selection);
  g_clear_object (&self->model);
  g_clear_object (&self->backend);
  g_clear_object (&self->store);
  g_clear_object (&self->job_cancellable);

  G_OBJECT_CLASS (lumo_audit_page_parent_class)->dispose (object);
}

static void
lumo_audit_page_finalize (GObject *object)
{
  LumoAuditPage *self = (LumoAuditPage *)object;

  g_clear_object (&self->columns);
  g_clear_pointer (&self->provider_names, g_hash_table_unref);
  g_clear_pointer (&self->query_error, g_free);
  g_clear_pointer (&self->applied_text, g_free);

  G_OBJECT_CLASS (lumo_audit_page_parent_class)->finalize (object);
}

static void
lumo_audit_page_class_init (LumoAuditPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = lumo_audit_page_dispose;
  object_class->finalize = lumo_audit_page_finalize;

  g_type_ensure (LUMO_TYPE_AUDIT_DETAIL);
  g_type_ensure (LUMO_TYPE_AUDIT_HEADER);
  g_type_ensure (LUMO_TYPE_AUDIT_SUMMARY);

  gtk_widget_class_set_template_from_resource (widget_class, "/dev/lumo/Access/lumo-audit-page.ui");
  gtk_widget_class_bind_template_child (widget_class, LumoAuditPage, search_entry);
  gtk_widget_class_bind_template_child (widget_class, LumoAuditPage, filter_dropdown);
  gtk_widget_class_bind_template_child (widget_class, LumoAuditPage, status_label);
  gtk_widget_class_bind_template_child (widget_class, LumoAuditPage, summary);
  gtk_widget_class_bind_template_child (widget_class, LumoAuditPage, integrity_revealer);
  gtk_widget_class_bind_template_child (widget_class, LumoAuditPage, integrity_label);
  gtk_widget_class_bind_template_child (widget_class, LumoAuditPage, job_revealer);
  gtk_widget_class_bind_template_child (widget_class, LumoAuditPage, job_label);
  gtk_widget_class_bind_template_child (widget_class, LumoAuditPage, job_progress);
  gtk_widget_class_bind_template_child (widget_class, LumoAuditPage, flap);
  gtk_widget_class_bind_template_child (widget_class, LumoAuditPage, results_stack);
  gtk_widget_class_bind_template_child (widget_class, LumoAuditPage, header);
  gtk_widget_class_bind_template_child (widget_class, LumoAuditPage, list_view);
  gtk_widget_class_bind_template_child (widget_class, LumoAuditPage, empty_page);
  gtk_widget_class_bind_template_child (widget_class, LumoAuditPage, detail);
  gtk_widget_class_bind_template_callback (widget_class, on_search_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_search_activate_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_list_view_activate_cb);

  gtk_widget_class_install_action (widget_class, "audit.export", "s", _lumo_audit_page_export_action);
  gtk_widget_class_install_action (widget_class, "audit.verify", NULL, _lumo_audit_page_verify_action);
  gtk_widget_class_install_action (widget_class, "audit.verify-with-key", NULL,
                                   _lumo_audit_page_verify_with_key_action);
  gtk_widget_class_install_action (widget_class, "audit.open-log", NULL, _lumo_audit_page_open_log_action);
  gtk_widget_class_install_action (widget_class, "audit.cancel-job", NULL, _lumo_audit_page_cancel_job);
  gtk_widget_class_install_action (widget_class, "audit.close-detail", NULL, close_detail_action);
  gtk_widget_class_install_action (widget_class, "audit.sort-column", "u", sort_column_action);
}

static void
lumo_audit_page_init (LumoAuditPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  setup_rows (self);

  self->provider_names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->applied_text = g_strdup ("");
  g_signal_connect (self->filter_dropdown, "notify::selected", G_CALLBACK (on_filter_selected_cb), self);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "audit.cancel-job", FALSE);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "audit.verify-with-key", FALSE);
}

/* ---- the log ------------------------------------------------------------ */

static void
update_integrity (LumoAuditPage *self)
{
  g_autofree char *text = NULL;

  if (lumo_audit_store_get_integrity (self->store) != LUMO_AUDIT_INTEGRITY_FAILED)
    {
      gtk_revealer_set_reveal_child (self->integrity_revealer, FALSE);
      return;
    }

  /* Translators: %s says what the integrity check found. */
  text = g_strdup_printf (_("The integrity check of this log failed: %s. New writes are refused."),
                          lumo_audit_store_get_integrity_message (self->store));
  gtk_label_set_text (self->integrity_label, text);
  gtk_revealer_set_reveal_child (self->integrity_revealer, TRUE);
}

static void
setup_store (LumoAuditPage  *self,
             LumoAuditStore *store)
{
  self->store = g_object_ref (store);
  g_signal_connect_object (store, "notify::integrity", G_CALLBACK (update_integrity), self, G_CONNECT_SWAPPED);
  update_integrity (self);

  self->model = lumo_audit_model_new (store);
  lumo_audit_model_set_provider_names (self->model, self->provider_names);
  g_signal_connect_object (self->model, "items-changed", G_CALLBACK (on_model_items_changed_cb), self, 0);
  g_signal_connect_object (self->model, "notify", G_CALLBACK (on_model_changed_cb), self, G_CONNECT_SWAPPED);

  /* No sort model: the order and every filter are SQL. */
  self->selection = gtk_single_selection_new (g_object_ref (G_LIST_MODEL (self->model)));
  gtk_single_selection_set_autoselect (self->selection, FALSE);
  gtk_single_selection_set_can_unselect (self->selection, TRUE);
  g_signal_connect (self->selection, "notify::selected-item", G_CALLBACK (on_selection_changed_cb), self);
  gtk_list_view_set_model (self->list_view, GTK_SELECTION_MODEL (self->selection));

  lumo_audit_summary_set_held (self->summary, TRUE);
  g_signal_connect_object (self->model, "notify::loading", G_CALLBACK (on_model_first_page_cb), self,
                           G_CONNECT_SWAPPED);
  lumo_audit_summary_set_store (self->summary, store);
  on_model_first_page_cb (self);

  /* Only a collected log is verified with a key of its own. */
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "audit.verify-with-key",
                                 lumo_audit_store_is_read_only (store));
  update_status (self);
}

void
lumo_audit_page_set_backend (LumoAuditPage *self,
                             LumoBackend   *backend)
{
  g_return_if_fail (LUMO_IS_AUDIT_PAGE (self));
  g_return_if_fail (LUMO_IS_BACKEND (backend));
  g_return_if_fail (self->store == NULL);

  self->backend = g_object_ref (backend);
  reload_provider_names (self);
  g_signal_connect_object (lumo_backend_get_policy (backend), "provider-changed",
                           G_CALLBACK (on_provider_changed_cb), self, 0);

  setup_store (self, lumo_backend_get_audit_store (backend));
}

void
lumo_audit_page_set_store (LumoAuditPage  *self,
                           LumoAuditStore *store)
{
  g_return_if_fail (LUMO_IS_AUDIT_PAGE (self));
  g_return_if_fail (LUMO_IS_AUDIT_STORE (store));
  g_return_if_fail (self->store == NULL);

  setup_store (self, store);
}

LumoAuditStore *
lumo_audit_page_get_store (LumoAuditPage *self)
{
  g_return_val_if_fail (LUMO_IS_AUDIT_PAGE (self), NULL);

  return self->store;
}

LumoAuditSummary *
lumo_audit_page_get_summary (LumoAuditPage *self)
{
  g_return_val_if_fail (LUMO_IS_AUDIT_PAGE (self), NULL);

  return self->summary;
}

GtkSingleSelection *
_lumo_audit_page_get_selection (LumoAuditPage *self)
{
  g_return_val_if_fail (LUMO_IS_AUDIT_PAGE (self), NULL);

  return self->selection;
}

LumoAuditModel *
lumo_audit_page_get_model (LumoAuditPage *self)
{
  g_return_val_if_fail (LUMO_IS_AUDIT_PAGE (self), NULL);

  return self->model;
}

GtkEditable *
lumo_audit_page_get_search_entry (LumoAuditPage *self)
{
  g_return_val_if_fail (LUMO_IS_AUDIT_PAGE (self), NULL);

  return GTK_EDITABLE (self->search_entry);
}

void
lumo_audit_page_focus_search (LumoAuditPage *self)
{
  g_return_if_fail (LUMO_IS_AUDIT_PAGE (self));

  gtk_widget_grab_focus (GTK_WIDGET (self->search_entry));
}

const char *
lumo_audit_page_get_status (LumoAuditPage *self)
{
  g_return_val_if_fail (LUMO_IS_AUDIT_PAGE (self), NULL);

  return gtk_label_get_text (self->status_label);
}
