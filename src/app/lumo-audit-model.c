/* lumo-audit-model.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Positions: [0, head->len) are rows that arrived live after the query
 * started (newest first; only in that order); the rest is the "paged
 * region", page k holding positions head->len + k * LUMO_AUDIT_MODEL_PAGE_SIZE
 * onwards.
 *
 * The order is the store's (lumo_audit_store_fetch_sorted(): by id, time,
 * caller, tool or outcome, either way); the model never sorts. Keyset
 * paging needs, for page k, where it starts (its anchor): the last row of
 * page k - 1. Page 0 starts at the top. For the unfiltered log newest
 * first the anchors are arithmetic: the audit chain allows no gaps in ids
 * (a gap is reported as a deleted row, and retention only cuts the oldest
 * end), so row p of the paged region has id top_id - p. A page that
 * disagrees switches the model to the general case, that of every other
 * order and every search: a page whose anchor is unknown is reached by one
 * "walk" fetch of up to LUMO_AUDIT_MODEL_WALK_PAGES pages from the nearest
 * known anchor, which learns every anchor on the way.
 *
 * News of rows. Newest first, new rows go on top (lumo-audit-model-live.c).
 * In any other order a new row belongs somewhere in the middle: the model
 * reads the pages it has handed out again, keeping every position and item
 * (a refresh), then counts. Results filled in later (::result-set) re-read
 * just their row, in any order.
 */
#define G_LOG_DOMAIN "lumo-audit-model"

#include "config.h"

#include "lumo-audit-model-private.h"

/* ---- LumoAuditModel ----------------------------------------------------- */

static void
unref_if_set (gpointer object)
{
  if (object != NULL)
    g_object_unref (object);
}

static void list_model_iface_init (GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (LumoAuditModel, lumo_audit_model, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, list_model_iface_init))

enum {
  PROP_0,
  PROP_COUNTED,
  PROP_LOADING,
  PROP_ROWS_FETCHED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];


LumoAuditFetchData *
_lumo_audit_fetch_data_new (LumoAuditModel *self)
{
  LumoAuditFetchData *data = g_new0 (LumoAuditFetchData, 1);

  data->self = g_object_ref (self);
  data->generation = self->generation;
  return data;
}

void
_lumo_audit_fetch_data_free (LumoAuditFetchData *data)
{
  g_object_unref (data->self);
  g_free (data);
}

static guint
n_items (LumoAuditModel *self)
{
  return self->head->len + self->n_paged;
}

void
_lumo_audit_model_set_error (LumoAuditModel *self,
            const GError   *error)
{
  g_clear_error (&self->error);
  if (error != NULL)
    self->error = g_error_copy (error);
}

/* Resizes the paged region, telling the view. */
void
_lumo_audit_model_set_n_paged (LumoAuditModel *self,
              guint           n_paged)
{
  guint old = self->n_paged;

  if (old == n_paged)
    return;

  self->n_paged = n_paged;
  if (n_paged > old)
    g_list_model_items_changed (G_LIST_MODEL (self), self->head->len + old, 0, n_paged - old);
  else
    {
      _lumo_audit_model_drop_pages_past_end (self);
      g_list_model_items_changed (G_LIST_MODEL (self), self->head->len + n_paged, old - n_paged, 0);
    }
}

static void
on_count_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(LumoAuditFetchData) data = user_data;
  g_autoptr(GError) error = NULL;
  LumoAuditModel *self = data->self;
  gint64 count;

  count = lumo_audit_store_count_finish (LUMO_AUDIT_STORE (object), result, &error);
  if (data->generation != self->generation)
    return;

  if (count < 0)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          g_warning ("Cannot count the audit rows: %s", error->message);
          _lumo_audit_model_set_error (self, error);
        }
      return;
    }

  /* Rows were announced while it counted: it may or may not have counted
   * them, and the head will show them; count again once they are read. */
  if (self->live_max_id != self->count_live_max)
    {
      _lumo_audit_model_count_when_settled (self);
      return;
    }

  /* The count started with every announced row in the head: the rows
   * newer than the first page that it counted are those. A row committed
   * just before the count but announced just after it is counted twice;
   * in the unfiltered log the last page shows it (it comes up short and
   * trims the list), so the count is confirmed by reading that page. */
  count = MAX (count - (gint64) self->head->len, 0);
  _lumo_audit_model_set_n_paged (self, (guint) MIN (count, (gint64) G_MAXUINT - self->head->len));

  if (self->n_paged > 0)
    {
      guint last = (self->n_paged - 1) / LUMO_AUDIT_MODEL_PAGE_SIZE;
      LumoAuditModelPage *page = _lumo_audit_model_lookup_page (self, last, FALSE);

      if ((page == NULL || page->rows == NULL) && self->contiguous && last > 0)
        {
          /* Not counted until then, also when an earlier count was: this
           * one may be longer than the log (rows of another process that
           * have not reached the head), and a list "counted" that long
           * would show placeholders past the log's end as its rows. */
          self->confirming = TRUE;
          if (self->counted)
            {
              self->counted = FALSE;
              g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_COUNTED]);
            }
          _lumo_audit_model_request_page (self, last);
          return;
        }

      /* Read already (page 0 always is): it says where the rows end. A
       * count that saw rows committed but not yet announced, or rows of
       * another process before ::changed brought them to the head, would
       * leave placeholders nothing fills, and count those rows twice once
       * they reach the head (a page opened while rows are written). */
      if (page != NULL && page->rows != NULL &&
          self->n_paged > last * LUMO_AUDIT_MODEL_PAGE_SIZE + page->rows->len)
        _lumo_audit_model_set_n_paged (self, last * LUMO_AUDIT_MODEL_PAGE_SIZE + page->rows->len);
    }

  self->counted = TRUE;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_COUNTED]);
}

static void
start_count (LumoAuditModel *self)
{
  LumoAuditFetchData *data = _lumo_audit_fetch_data_new (self);

  self->count_wanted = FALSE;
  self->count_live_max = self->live_max_id;
  lumo_audit_store_count_async (self->store, self->query, self->cancellable, on_count_cb, data);
}

void
_lumo_audit_model_count_when_settled (LumoAuditModel *self)
{
  g_assert (LUMO_IS_AUDIT_MODEL (self));

  if (_lumo_audit_model_live_settled (self))
    start_count (self);
  else
    self->count_wanted = TRUE;
}

void
_lumo_audit_model_notify_loading (LumoAuditModel *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LOADING]);
}

void
_lumo_audit_model_notify_counted (LumoAuditModel *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_COUNTED]);
}

void
_lumo_audit_model_notify_rows_fetched (LumoAuditModel *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ROWS_FETCHED]);
}

/* ---- GListModel --------------------------------------------------------- */

static GType
lumo_audit_model_get_item_type (GListModel *model)
{
  return LUMO_TYPE_AUDIT_ITEM;
}

static guint
lumo_audit_model_get_n_items (GListModel *model)
{
  return n_items (LUMO_AUDIT_MODEL (model));
}

static gpointer
lumo_audit_model_get_item (GListModel *model,
                           guint       position)
{
  LumoAuditModel *self = LUMO_AUDIT_MODEL (model);
  guint p, index, offset;
  LumoAuditModelPage *page;

  if (position >= n_items (self))
    return NULL;

  if (position < self->head->len)
    return g_object_ref (g_ptr_array_index (self->head, position));

  p = position - self->head->len;
  index = p / LUMO_AUDIT_MODEL_PAGE_SIZE;
  offset = p % LUMO_AUDIT_MODEL_PAGE_SIZE;
  page = _lumo_audit_model_lookup_page (self, index, TRUE);

  if (page->items[offset] == NULL)
    {
      page->items[offset] = g_object_new (LUMO_TYPE_AUDIT_ITEM, NULL);
      if (page->rows != NULL && offset < page->rows->len)
        _lumo_audit_item_set_row (page->items[offset], g_ptr_array_index (page->rows, offset),
                                  self->provider_names);
    }

  if (page->rows == NULL)
    _lumo_audit_model_request_page (self, index);

  /* While the count is unknown, reading near the end fetches the next
   * page, so that scrolling grows the list. */
  if (!self->counted && page->rows != NULL && page->rows->len == LUMO_AUDIT_MODEL_PAGE_SIZE &&
      p + LUMO_AUDIT_MODEL_PREFETCH_MARGIN >= self->n_paged)
    _lumo_audit_model_request_page (self, index + 1);

  return g_object_ref (page->items[offset]);
}

static void
list_model_iface_init (GListModelInterface *iface)
{
  iface->get_item_type = lumo_audit_model_get_item_type;
  iface->get_n_items = lumo_audit_model_get_n_items;
  iface->get_item = lumo_audit_model_get_item;
}

/* ---- queries ------------------------------------------------------------ */

/* The item object shown at @position now, if one was handed out. */
static LumoAuditItem *
peek_item (LumoAuditModel *self,
           guint           position)
{
  LumoAuditModelPage *page;
  guint p;

  if (position < self->head->len)
    return g_ptr_array_index (self->head, position);

  p = position - self->head->len;
  page = g_hash_table_lookup (self->pages, GUINT_TO_POINTER (p / LUMO_AUDIT_MODEL_PAGE_SIZE));
  return page != NULL ? page->items[p % LUMO_AUDIT_MODEL_PAGE_SIZE] : NULL;
}

/* Drops every row and starts the current query from its first page.
 *
 * The item objects of the first page's positions are kept, emptied, as the
 * placeholders of the new query, so a view that shows the top of the list
 * keeps its row widgets and just refills them (GtkListView keeps up to 200
 * rows of widgets; destroying and creating them cost 100–200 ms per search
 * on this machine). Only the positions beyond them are removed. */
static void
reset (LumoAuditModel *self)
{
  guint old_n = n_items (self);
  guint kept = MIN (old_n, LUMO_AUDIT_MODEL_PAGE_SIZE);
  gboolean contiguous = self->contiguous;
  LumoAuditItem *reuse[LUMO_AUDIT_MODEL_PAGE_SIZE] = { NULL };
  LumoAuditModelPage *first;

  for (guint i = 0; i < kept; i++)
    if ((reuse[i] = peek_item (self, i)) != NULL)
      g_object_ref (reuse[i]);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
  self->generation++;

  /* The links live inside the pages: forget them, never free them. */
  g_queue_init (&self->lru);
  g_hash_table_remove_all (self->pages);
  _lumo_audit_model_forget_anchors (self);
  _lumo_audit_model_live_reset (self);
  g_clear_error (&self->error);

  self->top_id = 0;
  self->first_page_done = FALSE;
  self->contiguous = contiguous && _lumo_audit_model_is_live_head (self) &&
                     (self->query == NULL || lumo_audit_query_is_empty (self->query));
  self->counted = FALSE;
  self->refreshing = FALSE;
  self->refresh_wanted = FALSE;
  self->confirming = FALSE;
  self->count_wanted = FALSE;
  self->walking = FALSE;
  self->n_paged = kept;

  first = _lumo_audit_model_lookup_page (self, 0, TRUE);
  for (guint i = 0; i < kept; i++)
    if ((first->items[i] = reuse[i]) != NULL)
      _lumo_audit_item_set_row (reuse[i], NULL, NULL);

  if (old_n > kept)
    g_list_model_items_changed (G_LIST_MODEL (self), kept, old_n - kept, 0);

  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_COUNTED]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LOADING]);

  _lumo_audit_model_request_page (self, 0);
}

static void
on_store_row_added_cb (LumoAuditStore *store,
                       gint64          id,
                       LumoAuditModel *self)
{
  _lumo_audit_model_live_row_added (self, id);
}

static void
on_store_changed_cb (LumoAuditStore *store,
                     LumoAuditModel *self)
{
  _lumo_audit_model_live_changed (self);
}

static void
on_store_result_set_cb (LumoAuditStore *store,
                        gint64          id,
                        LumoAuditModel *self)
{
  _lumo_audit_model_live_result_set (self, id);
}

/* Reads the pages handed out again, for the same query in the same order:
 * every position and item stays (the view keeps its rows and its scroll
 * position) and shows its old row until the new one arrives; the count
 * follows. News that arrives meanwhile refreshes once more afterwards. */
void
_lumo_audit_model_refresh (LumoAuditModel *self)
{
  g_autoptr(GArray) shown = g_array_new (FALSE, FALSE, sizeof (guint));
  GHashTableIter iter;
  gpointer value;

  g_assert (LUMO_IS_AUDIT_MODEL (self));

  if (!self->first_page_done || self->refreshing)
    {
      self->refresh_wanted = TRUE;
      return;
    }

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
  self->generation++;

  self->refreshing = TRUE;
  self->refresh_wanted = FALSE;
  self->counted = FALSE;
  self->confirming = FALSE;
  self->count_wanted = FALSE;
  self->walking = FALSE;
  self->contiguous = FALSE;
  _lumo_audit_model_forget_anchors (self);

  /* Pages keep their items; those without any go, and the rest are read
   * again (page 0 first: it ends the refresh). */
  g_hash_table_iter_init (&iter, self->pages);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      LumoAuditModelPage *page = value;
      gboolean has_items = FALSE;

      page->in_flight = FALSE;
      g_clear_pointer (&page->rows, g_ptr_array_unref);
      for (guint i = 0; i < LUMO_AUDIT_MODEL_PAGE_SIZE && !has_items; i++)
        has_items = page->items[i] != NULL;
      if (has_items || page->index == 0)
        g_array_append_val (shown, page->index);
      else
        {
          g_queue_unlink (&self->lru, &page->lru_link);
          g_hash_table_iter_remove (&iter);
        }
    }

  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_COUNTED]);
  _lumo_audit_model_request_page (self, 0);
  for (guint i = 0; i < shown->len; i++)
    _lumo_audit_model_request_page (self, g_array_index (shown, guint, i));
}

LumoAuditItem *
_lumo_audit_model_find_item (LumoAuditModel      *self,
                             gint64               id,
                             LumoAuditModelPage **page_out,
                             guint               *offset_out)
{
  GHashTableIter iter;
  gpointer value;

  *page_out = NULL;
  *offset_out = 0;

  for (guint i = 0; i < self->head->len; i++)
    {
      LumoAuditItem *item = g_ptr_array_index (self->head, i);
      LumoAuditRow *row = lumo_audit_item_get_row (item);

      if (row != NULL && lumo_audit_row_get_id (row) == id)
        return item;
    }

  /* At most LUMO_AUDIT_MODEL_MAX_PAGES pages and those on screen. */
  g_hash_table_iter_init (&iter, self->pages);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      LumoAuditModelPage *page = value;

      for (guint i = 0; page->rows != NULL && i < page->rows->len; i++)
        if (lumo_audit_row_get_id (g_ptr_array_index (page->rows, i)) == id)
          {
            *page_out = page;
            *offset_out = i;
            return page->items[i];
          }
    }
  return NULL;
}

gboolean
_lumo_audit_model_is_contiguous (LumoAuditModel *self)
{
  g_return_val_if_fail (LUMO_IS_AUDIT_MODEL (self), FALSE);

  return self->contiguous;
}

gboolean
_lumo_audit_model_is_live_head (LumoAuditModel *self)
{
  return self->sort_key == LUMO_AUDIT_SORT_ID && self->sort_order == LUMO_AUDIT_SORT_DESCENDING;
}

void
_lumo_audit_model_restart (LumoAuditModel *self)
{
  g_assert (LUMO_IS_AUDIT_MODEL (self));

  reset (self);
}

static void
lumo_audit_model_dispose (GObject *object)
{
  LumoAuditModel *self = (LumoAuditModel *)object;

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  if (self->store != NULL)
    g_signal_handlers_disconnect_by_data (self->store, self);

  /* The links live inside the pages: forget them, never free them. */
  g_queue_init (&self->lru);
  if (self->pages != NULL)
    g_hash_table_remove_all (self->pages);
  if (self->head != NULL)
    g_ptr_array_set_size (self->head, 0);

  g_clear_object (&self->store);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->query, lumo_audit_query_unref);
  g_clear_pointer (&self->provider_names, g_hash_table_unref);

  G_OBJECT_CLASS (lumo_audit_model_parent_class)->dispose (object);
}

static void
lumo_audit_model_finalize (GObject *object)
{
  LumoAuditModel *self = (LumoAuditModel *)object;

  g_clear_pointer (&self->pages, g_hash_table_unref);
  g_clear_pointer (&self->anchors, g_ptr_array_unref);
  g_clear_pointer (&self->result_ids, g_array_unref);
  g_clear_pointer (&self->head, g_ptr_array_unref);
  g_clear_error (&self->error);

  G_OBJECT_CLASS (lumo_audit_model_parent_class)->finalize (object);
}

static void
lumo_audit_model_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  LumoAuditModel *self = LUMO_AUDIT_MODEL (object);

  switch (prop_id)
    {
    case PROP_COUNTED:
      g_value_set_boolean (value, self->counted);
      break;
    case PROP_LOADING:
      g_value_set_boolean (value, lumo_audit_model_get_loading (self));
      break;
    case PROP_ROWS_FETCHED:
      g_value_set_uint64 (value, self->rows_fetched);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
lumo_audit_model_class_init (LumoAuditModelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags flags = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->dispose = lumo_audit_model_dispose;
  object_class->finalize = lumo_audit_model_finalize;
  object_class->get_property = lumo_audit_model_get_property;

  properties[PROP_COUNTED] = g_param_spec_boolean ("counted", NULL, NULL, FALSE, flags);
  properties[PROP_LOADING] = g_param_spec_boolean ("loading", NULL, NULL, FALSE, flags);
  properties[PROP_ROWS_FETCHED] =
    g_param_spec_uint64 ("rows-fetched", NULL, NULL, 0, G_MAXUINT64, 0, flags);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
lumo_audit_model_init (LumoAuditModel *self)
{
  self->pages = g_hash_table_new_full (NULL, NULL, NULL, _lumo_audit_model_page_free);
  self->anchors = g_ptr_array_new_with_free_func (unref_if_set);
  self->result_ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  self->sort_key = LUMO_AUDIT_SORT_ID;
  self->sort_order = LUMO_AUDIT_SORT_DESCENDING;
  self->head = g_ptr_array_new_with_free_func (g_object_unref);
  self->cancellable = g_cancellable_new ();
  self->contiguous = TRUE;
  g_queue_init (&self->lru);
}

LumoAuditModel *
lumo_audit_model_new (LumoAuditStore *store)
{
  LumoAuditModel *self;

  g_return_val_if_fail (LUMO_IS_AUDIT_STORE (store), NULL);

  self = g_object_new (LUMO_TYPE_AUDIT_MODEL, NULL);
  self->store = g_object_ref (store);
  g_signal_connect (store, "row-added", G_CALLBACK (on_store_row_added_cb), self);
  g_signal_connect (store, "result-set", G_CALLBACK (on_store_result_set_cb), self);
  g_signal_connect (store, "changed", G_CALLBACK (on_store_changed_cb), self);

  reset (self);

  return self;
}

LumoAuditStore *
lumo_audit_model_get_store (LumoAuditModel *self)
{
  g_return_val_if_fail (LUMO_IS_AUDIT_MODEL (self), NULL);

  return self->store;
}

void
lumo_audit_model_set_query (LumoAuditModel *self,
                            LumoAuditQuery *query)
{
  g_return_if_fail (LUMO_IS_AUDIT_MODEL (self));

  if (query != NULL)
    lumo_audit_query_ref (query);
  g_clear_pointer (&self->query, lumo_audit_query_unref);
  self->query = query;
  self->contiguous = TRUE;

  reset (self);
}

void
lumo_audit_model_set_sort (LumoAuditModel     *self,
                           LumoAuditSortKey    key,
                           LumoAuditSortOrder  order)
{
  g_return_if_fail (LUMO_IS_AUDIT_MODEL (self));
  g_return_if_fail (key <= LUMO_AUDIT_SORT_OUTCOME);
  g_return_if_fail (order == LUMO_AUDIT_SORT_DESCENDING || order == LUMO_AUDIT_SORT_ASCENDING);

  if (key == self->sort_key && order == self->sort_order)
    return;

  self->sort_key = key;
  self->sort_order = order;
  self->contiguous = TRUE;

  reset (self);
}

LumoAuditSortKey
lumo_audit_model_get_sort_key (LumoAuditModel *self)
{
  g_return_val_if_fail (LUMO_IS_AUDIT_MODEL (self), LUMO_AUDIT_SORT_ID);

  return self->sort_key;
}

LumoAuditSortOrder
lumo_audit_model_get_sort_order (LumoAuditModel *self)
{
  g_return_val_if_fail (LUMO_IS_AUDIT_MODEL (self), LUMO_AUDIT_SORT_DESCENDING);

  return self->sort_order;
}

LumoAuditQuery *
lumo_audit_model_get_query (LumoAuditModel *self)
{
  g_return_val_if_fail (LUMO_IS_AUDIT_MODEL (self), NULL);

  return self->query;
}

gboolean
lumo_audit_model_get_counted (LumoAuditModel *self)
{
  g_return_val_if_fail (LUMO_IS_AUDIT_MODEL (self), FALSE);

  return self->counted;
}

gboolean
lumo_audit_model_get_loading (LumoAuditModel *self)
{
  g_return_val_if_fail (LUMO_IS_AUDIT_MODEL (self), FALSE);

  return !self->first_page_done;
}

const GError *
lumo_audit_model_get_error (LumoAuditModel *self)
{
  g_return_val_if_fail (LUMO_IS_AUDIT_MODEL (self), NULL);

  return self->error;
}

void
lumo_audit_model_set_provider_names (LumoAuditModel *self,
                                     GHashTable     *names)
{
  g_return_if_fail (LUMO_IS_AUDIT_MODEL (self));

  if (names != NULL)
    g_hash_table_ref (names);
  g_clear_pointer (&self->provider_names, g_hash_table_unref);
  self->provider_names = names;
}

guint64
lumo_audit_model_get_rows_fetched (LumoAuditModel *self)
{
  g_return_val_if_fail (LUMO_IS_AUDIT_MODEL (self), 0);

  return self->rows_fetched;
}

guint
lumo_audit_model_get_pages_fetched (LumoAuditModel *self)
{
  g_return_val_if_fail (LUMO_IS_AUDIT_MODEL (self), 0);

  return self->pages_fetched;
}

guint
lumo_audit_model_get_pages_cached (LumoAuditModel *self)
{
  g_return_val_if_fail (LUMO_IS_AUDIT_MODEL (self), 0);

  return g_hash_table_size (self->pages);
}
