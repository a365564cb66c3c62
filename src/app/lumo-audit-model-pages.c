/* lumo-audit-model-pages.c — the pages of the audit list and their anchors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Fetching, caching (a bounded LRU) and filling the pages of the paged
 * region, and the keyset anchors that say where each page starts (see the
 * comment at the top of lumo-audit-model.c).
 */
#define G_LOG_DOMAIN "lumo-audit-model"

#include "config.h"

#include "lumo-audit-model-private.h"

void
_lumo_audit_model_page_free (gpointer data)
{
  LumoAuditModelPage *page = data;

  g_clear_pointer (&page->rows, g_ptr_array_unref);
  for (guint i = 0; i < LUMO_AUDIT_MODEL_PAGE_SIZE; i++)
    g_clear_object (&page->items[i]);
  g_free (page);
}

/* Contiguous ids only: the id page @index starts before, 0 if unknown. */
static gint64
contiguous_before (LumoAuditModel *self,
                   guint           index)
{
  gint64 anchor;

  if (self->top_id == 0)
    return 0;
  anchor = self->top_id + 1 - (gint64) index * LUMO_AUDIT_MODEL_PAGE_SIZE;
  return anchor > 1 ? anchor : 0;
}

/* The last row of the page before @index; NULL for page 0 and when not
 * known. */
static LumoAuditRow *
anchor_row (LumoAuditModel *self,
            guint           index)
{
  return index > 0 && index < self->anchors->len ? g_ptr_array_index (self->anchors, index) : NULL;
}

static gboolean
anchor_known (LumoAuditModel *self,
              guint           index)
{
  if (index == 0)
    return TRUE;
  if (self->contiguous)
    return contiguous_before (self, index) != 0;
  return anchor_row (self, index) != NULL;
}

static void
learn_anchor (LumoAuditModel *self,
              guint           index,
              LumoAuditRow   *row)
{
  if (index >= self->anchors->len)
    g_ptr_array_set_size (self->anchors, index + 1);
  g_set_object ((LumoAuditRow **) &g_ptr_array_index (self->anchors, index), row);
}

/* TRUE when something outside the model (the view's rows) holds one of
 * the page's items: evicting it would leave those items as they are, never
 * filled nor refilled again. */
static gboolean
page_is_shown (LumoAuditModelPage *page)
{
  for (guint i = 0; i < LUMO_AUDIT_MODEL_PAGE_SIZE; i++)
    if (page->items[i] != NULL && G_OBJECT (page->items[i])->ref_count > 1)
      return TRUE;
  return FALSE;
}

/* Page 0 stays: it is where a new query refills the view's rows in place,
 * and in the newest-first order where new rows join the head. */
static void
evict_pages (LumoAuditModel *self)
{
  GList *link = self->lru.tail;

  while (self->lru.length > LUMO_AUDIT_MODEL_MAX_PAGES && link != NULL)
    {
      GList *prev = link->prev;
      LumoAuditModelPage *page = link->data;

      if (!page->in_flight && page->index != 0 && !page_is_shown (page))
        {
          g_queue_unlink (&self->lru, link);
          g_hash_table_remove (self->pages, GUINT_TO_POINTER (page->index));
        }
      link = prev;
    }
}

LumoAuditModelPage *
_lumo_audit_model_lookup_page (LumoAuditModel *self,
                               guint           index,
                               gboolean        create)
{
  LumoAuditModelPage *page = g_hash_table_lookup (self->pages, GUINT_TO_POINTER (index));

  if (page != NULL)
    {
      g_queue_unlink (&self->lru, &page->lru_link);
      g_queue_push_head_link (&self->lru, &page->lru_link);
      return page;
    }

  if (!create)
    return NULL;

  page = g_new0 (LumoAuditModelPage, 1);
  page->index = index;
  page->lru_link.data = page;
  g_hash_table_insert (self->pages, GUINT_TO_POINTER (index), page);
  g_queue_push_head_link (&self->lru, &page->lru_link);
  evict_pages (self);

  return page;
}

/* Stores @rows as page @index and fills in the items handed out already. */
static void
fill_page (LumoAuditModel     *self,
           LumoAuditModelPage *page,
           GPtrArray          *rows)
{
  g_clear_pointer (&page->rows, g_ptr_array_unref);
  page->rows = g_ptr_array_ref (rows);

  for (guint i = 0; i < LUMO_AUDIT_MODEL_PAGE_SIZE; i++)
    if (page->items[i] != NULL)
      _lumo_audit_item_set_row (page->items[i], i < rows->len ? g_ptr_array_index (rows, i) : NULL,
                                self->provider_names);
}

/* Pages that were asked for but could not be fetched yet (their anchor was
 * unknown) are asked for again. */
static void
retry_waiting_pages (LumoAuditModel *self)
{
  g_autoptr(GArray) waiting = g_array_new (FALSE, FALSE, sizeof (guint));

  for (GList *l = self->lru.head; l != NULL; l = l->next)
    {
      LumoAuditModelPage *page = l->data;

      if (page->rows == NULL && !page->in_flight)
        g_array_append_val (waiting, page->index);
    }

  for (guint i = 0; i < waiting->len; i++)
    _lumo_audit_model_request_page (self, g_array_index (waiting, guint, i));
}

static GPtrArray *
fetch_finish (LumoAuditFetchData  *data,
              GObject             *object,
              GAsyncResult        *result,
              GError             **error)
{
  if (data->sorted)
    return lumo_audit_store_fetch_sorted_finish (LUMO_AUDIT_STORE (object), result, error);
  return lumo_audit_store_fetch_page_finish (LUMO_AUDIT_STORE (object), result, error);
}

static void
on_page_fetched_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(LumoAuditFetchData) data = user_data;
  g_autoptr(GPtrArray) rows = NULL;
  g_autoptr(GError) error = NULL;
  LumoAuditModel *self = data->self;
  gboolean was_loading;

  rows = fetch_finish (data, object, result, &error);
  if (data->generation != self->generation)
    return;

  was_loading = !self->first_page_done;
  if (data->n_pages > 1)
    self->walking = FALSE;

  for (guint k = 0; k < data->n_pages; k++)
    {
      LumoAuditModelPage *page = _lumo_audit_model_lookup_page (self, data->first_page + k, FALSE);

      if (page != NULL)
        page->in_flight = FALSE;
    }

  if (rows == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          g_warning ("Cannot read the audit log: %s", error->message);
          _lumo_audit_model_set_error (self, error);
          self->first_page_done = TRUE;
          self->refreshing = FALSE;
          if (was_loading)
            _lumo_audit_model_notify_loading (self);
        }
      return;
    }

  self->pages_fetched++;
  self->rows_fetched += rows->len;
  _lumo_audit_model_notify_rows_fetched (self);

  if (data->first_page == 0 && !self->first_page_done)
    {
      self->first_page_done = TRUE;
      if (rows->len > 0 && _lumo_audit_model_is_live_head (self))
        {
          self->top_id = lumo_audit_row_get_id (g_ptr_array_index (rows, 0));
          self->newest_id = MAX (self->newest_id, self->top_id);
          self->live_done_id = MAX (self->live_done_id, self->top_id);
        }
    }
  else if (self->contiguous && rows->len > 0 && data->before_id == 0)
    {
      /* Read from the top with no top row known: the first page found the
       * log empty, and rows came since that the count saw before their
       * announcement. Not a gap: read the first page again, arithmetic
       * kept (far pages stay one read away). */
      _lumo_audit_model_restart (self);
      return;
    }
  else if (self->contiguous && rows->len > 0 &&
           lumo_audit_row_get_id (g_ptr_array_index (rows, 0)) != data->before_id - 1)
    {
      /* A gap in the ids: the arithmetic is off; start over, anchoring
       * each page on the one before. */
      g_debug ("Audit ids are not contiguous before %" G_GINT64_FORMAT, data->before_id);
      self->contiguous = FALSE;
      _lumo_audit_model_restart (self);
      return;
    }

  for (guint k = 0; k < data->n_pages; k++)
    {
      guint index = data->first_page + k;
      guint start = k * LUMO_AUDIT_MODEL_PAGE_SIZE;
      LumoAuditModelPage *page = _lumo_audit_model_lookup_page (self, index, FALSE);
      g_autoptr(GPtrArray) slice = g_ptr_array_new_with_free_func (g_object_unref);

      for (guint i = start; i < rows->len && i < start + LUMO_AUDIT_MODEL_PAGE_SIZE; i++)
        g_ptr_array_add (slice, g_object_ref (g_ptr_array_index (rows, i)));

      if (slice->len == LUMO_AUDIT_MODEL_PAGE_SIZE && !self->contiguous)
        learn_anchor (self, index + 1, g_ptr_array_index (slice, LUMO_AUDIT_MODEL_PAGE_SIZE - 1));

      if (page != NULL)
        fill_page (self, page, slice);

      if (slice->len < LUMO_AUDIT_MODEL_PAGE_SIZE)
        {
          /* The end of the result: the region ends here, whatever the count
           * said (rows of other processes, a count taken a moment later). */
          guint end = index * LUMO_AUDIT_MODEL_PAGE_SIZE + slice->len;

          if (self->n_paged > end || !self->counted)
            _lumo_audit_model_set_n_paged (self, end);
          break;
        }
      else if (!self->counted && self->n_paged < (index + 1) * LUMO_AUDIT_MODEL_PAGE_SIZE)
        _lumo_audit_model_set_n_paged (self, (index + 1) * LUMO_AUDIT_MODEL_PAGE_SIZE);
    }

  if (self->confirming && data->first_page + data->n_pages > (MAX (self->n_paged, 1) - 1) / LUMO_AUDIT_MODEL_PAGE_SIZE)
    {
      self->confirming = FALSE;
      self->counted = TRUE;
      _lumo_audit_model_notify_counted (self);
    }

  if (was_loading)
    {
      /* Rows announced while the first page was read, and newer than it. */
      if (self->live_max_id > MAX (self->newest_id, self->live_done_id) || self->changed_wanted)
        _lumo_audit_model_live_row_added (self, self->live_max_id);

      _lumo_audit_model_notify_loading (self);
      /* After the first page shows, never before: it must not wait for a
       * count of a million rows. */
      _lumo_audit_model_count_when_settled (self);
    }
  else if (self->refreshing && data->first_page == 0)
    {
      /* The top is read again; news that came meanwhile reads it once more. */
      self->refreshing = FALSE;
      if (self->refresh_wanted)
        _lumo_audit_model_refresh (self);
      else
        _lumo_audit_model_count_when_settled (self);
    }

  retry_waiting_pages (self);
}

static void
fetch_pages (LumoAuditModel *self,
             guint           first_page,
             guint           n_pages)
{
  LumoAuditFetchData *data = _lumo_audit_fetch_data_new (self);
  guint limit = n_pages * LUMO_AUDIT_MODEL_PAGE_SIZE;

  data->first_page = first_page;
  data->n_pages = n_pages;

  for (guint k = 0; k < n_pages; k++)
    {
      LumoAuditModelPage *page = _lumo_audit_model_lookup_page (self, first_page + k, FALSE);

      if (page != NULL)
        page->in_flight = TRUE;
    }

  /* By id while the ids are contiguous, and for page 0 in the newest-first
   * order: once the first page is read, page 0 starts at its top row, below
   * the rows that arrived since (the head). */
  if (self->contiguous || (first_page == 0 && _lumo_audit_model_is_live_head (self)))
    {
      data->before_id = self->top_id != 0 ? contiguous_before (self, first_page) : 0;
      g_debug ("Fetching %u page(s) from page %u, before id %" G_GINT64_FORMAT,
               n_pages, first_page, data->before_id);
      lumo_audit_store_fetch_page_async (self->store, self->query, data->before_id, limit,
                                         self->cancellable, on_page_fetched_cb, data);
      return;
    }

  data->sorted = TRUE;
  g_debug ("Fetching %u page(s) from page %u in order %d/%d",
           n_pages, first_page, self->sort_key, self->sort_order);
  lumo_audit_store_fetch_sorted_async (self->store, self->query, self->sort_key, self->sort_order,
                                       anchor_row (self, first_page), limit,
                                       self->cancellable, on_page_fetched_cb, data);
}

void
_lumo_audit_model_request_page (LumoAuditModel *self,
                                guint           index)
{
  LumoAuditModelPage *page = _lumo_audit_model_lookup_page (self, index, TRUE);
  guint from;

  if (page->rows != NULL || page->in_flight)
    return;

  if (anchor_known (self, index))
    {
      fetch_pages (self, index, 1);
      return;
    }

  /* Unknown anchor: walk from the nearest known one. One walk at a time;
   * when it ends, the pages still waiting are asked for again. */
  if (self->walking)
    return;

  for (from = index; from > 0 && !anchor_known (self, from); from--)
    ;
  self->walking = TRUE;
  fetch_pages (self, from, MIN (index - from + 1, LUMO_AUDIT_MODEL_WALK_PAGES));
}

void
_lumo_audit_model_forget_anchors (LumoAuditModel *self)
{
  g_ptr_array_set_size (self->anchors, 0);
}

/* A GHRFunc: @value, a page, lies wholly past the end of the list. Page 0
 * never does (evict_pages()). */
static gboolean
page_past_end (gpointer key,
               gpointer value,
               gpointer user_data)
{
  LumoAuditModelPage *page = value;
  LumoAuditModel *self = user_data;

  return page->index > 0 && page->index * LUMO_AUDIT_MODEL_PAGE_SIZE >= self->n_paged;
}

/* The list got shorter (the last page came up short, a count was
 * corrected): a page wholly past its end has no rows to wait for. Left
 * in the cache it would be asked for again after every read that ends
 * (retry_waiting_pages()), and a page past the end whose anchor is
 * unknown is a walk that comes back short each time: reads without end,
 * whose replies kept the window from laying out new rows. */
void
_lumo_audit_model_drop_pages_past_end (LumoAuditModel *self)
{
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, self->pages);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    if (page_past_end (NULL, value, self))
      {
        LumoAuditModelPage *page = value;

        /* The links live inside the pages: unlink before freeing. */
        g_queue_unlink (&self->lru, &page->lru_link);
        g_hash_table_iter_remove (&iter);
      }
}

gboolean
_lumo_audit_model_has_pages_past_end (LumoAuditModel *self)
{
  return g_hash_table_find (self->pages, page_past_end, self) != NULL;
}
