/* lumo-audit-model-live.c — rows that arrive while the audit list is open
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Newest first, the store announces each row it appended (::row-added, an
 * id). The model reads the new rows that match its query in one keyset
 * fetch from the newest announced id down, and puts them in the head (the
 * top of the list). Rows of another process come as ::changed, without
 * ids: the model reads the newest rows of its query and takes those newer
 * than anything shown, then counts again (retention may have removed old
 * rows). In any other order both read the shown pages again in place
 * (_lumo_audit_model_refresh()).
 *
 * Results are filled in after the row: ::result-set names the row, and
 * the model reads just that row again if it has handed it out or holds it.
 * Nothing polls: with no news the model runs nothing.
 */
#define G_LOG_DOMAIN "lumo-audit-model"

#include "config.h"

#include "lumo-audit-model-private.h"

static void fetch_live (LumoAuditModel *self);
static void fetch_results (LumoAuditModel *self);

/* Shows @row (a newer read of a row the model holds) wherever it is. */
static void
replace_row (LumoAuditModel *self,
             LumoAuditRow   *row)
{
  LumoAuditModelPage *page;
  LumoAuditItem *item;
  guint offset;

  item = _lumo_audit_model_find_item (self, lumo_audit_row_get_id (row), &page, &offset);
  if (page != NULL)
    {
      LumoAuditRow **slot = (LumoAuditRow **) &g_ptr_array_index (page->rows, offset);

      g_set_object (slot, row);
    }
  if (item != NULL)
    _lumo_audit_item_set_row (item, row, self->provider_names);
}

static void
on_live_fetched_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(LumoAuditFetchData) data = user_data;
  g_autoptr(GPtrArray) rows = NULL;
  g_autoptr(GError) error = NULL;
  LumoAuditModel *self = data->self;
  guint n_new = 0;

  rows = lumo_audit_store_fetch_page_finish (LUMO_AUDIT_STORE (object), result, &error);
  if (data->generation != self->generation)
    return;

  self->live_in_flight = FALSE;

  if (rows == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_warning ("Cannot read new audit rows: %s", error->message);
      return;
    }

  self->rows_fetched += rows->len;

  /* Every row of a ::changed read newer than what is shown: more of them
   * than it read may have come. Reading the log again is simpler than
   * growing the head by thousands. */
  if (data->changed && rows->len == LUMO_AUDIT_MODEL_CHANGED_ROWS + 1 &&
      lumo_audit_row_get_id (g_ptr_array_index (rows, rows->len - 1)) > self->newest_id)
    {
      _lumo_audit_model_restart (self);
      return;
    }

  /* Rows come newest first. Those newer than anything shown are new; the
   * others may show a result another process filled in since. */
  for (guint i = 0; i < rows->len; i++)
    {
      LumoAuditRow *row = g_ptr_array_index (rows, i);
      gint64 id = lumo_audit_row_get_id (row);

      if (id > self->newest_id)
        {
          LumoAuditItem *item = g_object_new (LUMO_TYPE_AUDIT_ITEM, NULL);

          _lumo_audit_item_set_row (item, row, self->provider_names);
          g_ptr_array_insert (self->head, n_new++, item);
        }
      else if (data->changed)
        {
          LumoAuditModelPage *page;
          guint offset;
          LumoAuditItem *shown = _lumo_audit_model_find_item (self, id, &page, &offset);

          if (shown != NULL && lumo_audit_item_get_row (shown) != NULL &&
              lumo_audit_row_get_result (lumo_audit_item_get_row (shown)) != lumo_audit_row_get_result (row))
            replace_row (self, row);
        }
    }

  if (data->before_id > 0)
    self->live_done_id = MAX (self->live_done_id, data->before_id - 1);

  if (n_new > 0)
    {
      self->newest_id = lumo_audit_row_get_id (lumo_audit_item_get_row (g_ptr_array_index (self->head, 0)));
      self->live_done_id = MAX (self->live_done_id, self->newest_id);
      g_list_model_items_changed (G_LIST_MODEL (self), 0, 0, n_new);
    }

  /* More arrived while this fetch ran. */
  if (self->changed_wanted || self->live_max_id > MAX (self->live_done_id, self->newest_id))
    fetch_live (self);
  else if (data->changed || self->count_wanted)
    _lumo_audit_model_count_when_settled (self);
}

static void
fetch_live (LumoAuditModel *self)
{
  LumoAuditFetchData *data;
  guint limit;

  if (self->live_in_flight || !self->first_page_done)
    return;

  data = _lumo_audit_fetch_data_new (self);
  if (self->changed_wanted)
    {
      /* Another process wrote: the newest rows of the query, one more than
       * are taken, to tell "that many" from "more". */
      self->changed_wanted = FALSE;
      data->changed = TRUE;
      data->before_id = 0;
      limit = LUMO_AUDIT_MODEL_CHANGED_ROWS + 1;
    }
  else
    {
      gint64 done = MAX (self->live_done_id, self->newest_id);

      if (self->live_max_id <= done)
        {
          _lumo_audit_fetch_data_free (data);
          return;
        }
      data->before_id = self->live_max_id + 1;
      limit = (guint) MIN (self->live_max_id - done, 1000);
    }

  self->live_in_flight = TRUE;
  lumo_audit_store_fetch_page_async (self->store, self->query, data->before_id, limit,
                                     self->cancellable, on_live_fetched_cb, data);
}

void
_lumo_audit_model_live_row_added (LumoAuditModel *self,
                                  gint64          id)
{
  if (!_lumo_audit_model_is_live_head (self))
    {
      _lumo_audit_model_refresh (self);
      return;
    }

  self->live_max_id = MAX (self->live_max_id, id);

  if (!self->first_page_done)
    return;   /* the first page includes it, or runs this again */

  /* Many more rows than announced one by one (an import, another process,
   * a log that was empty when the query started): reading them again is
   * both simpler and cheaper than growing the head by thousands. */
  if (self->live_max_id - MAX (self->newest_id, self->live_done_id) > LUMO_AUDIT_MODEL_PAGE_SIZE)
    {
      _lumo_audit_model_restart (self);
      return;
    }

  fetch_live (self);
}

void
_lumo_audit_model_live_changed (LumoAuditModel *self)
{
  if (!_lumo_audit_model_is_live_head (self))
    {
      _lumo_audit_model_refresh (self);
      return;
    }

  /* While the first page is read it may or may not hold the rows: read the
   * newest ones once it is there. */
  self->changed_wanted = TRUE;
  fetch_live (self);
}

/* ---- results ------------------------------------------------------------ */

static void
on_result_fetched_cb (GObject      *object,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  g_autoptr(LumoAuditFetchData) data = user_data;
  g_autoptr(GPtrArray) rows = NULL;
  g_autoptr(GError) error = NULL;
  LumoAuditModel *self = data->self;

  rows = lumo_audit_store_fetch_page_finish (LUMO_AUDIT_STORE (object), result, &error);
  self->result_in_flight = FALSE;

  if (rows == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_warning ("Cannot read the result of audit row %" G_GINT64_FORMAT ": %s",
                   data->before_id - 1, error->message);
    }
  else if (rows->len == 1 && lumo_audit_row_get_id (g_ptr_array_index (rows, 0)) == data->before_id - 1)
    {
      self->rows_fetched++;
      replace_row (self, g_ptr_array_index (rows, 0));
    }

  fetch_results (self);
}

/* One row at a time, by id and without the query: the row is shown, and
 * stays shown whatever its new result (until the next search). */
static void
fetch_results (LumoAuditModel *self)
{
  LumoAuditFetchData *data;
  LumoAuditModelPage *page;
  guint offset;
  gint64 id = 0;

  if (self->result_in_flight)
    return;

  while (self->result_ids->len > 0 && id == 0)
    {
      id = g_array_index (self->result_ids, gint64, 0);
      g_array_remove_index (self->result_ids, 0);
      /* Scrolled away or searched since: nothing to update. */
      if (_lumo_audit_model_find_item (self, id, &page, &offset) == NULL && page == NULL)
        id = 0;
    }
  if (id == 0)
    return;

  data = _lumo_audit_fetch_data_new (self);
  data->before_id = id + 1;
  self->result_in_flight = TRUE;
  /* Not the query's cancellable: a new search keeps reading the rows it
   * still shows. */
  lumo_audit_store_fetch_page_async (self->store, NULL, data->before_id, 1, NULL,
                                     on_result_fetched_cb, data);
}

void
_lumo_audit_model_live_result_set (LumoAuditModel *self,
                                   gint64          id)
{
  LumoAuditModelPage *page;
  guint offset;

  if (_lumo_audit_model_find_item (self, id, &page, &offset) == NULL && page == NULL)
    return;

  for (guint i = 0; i < self->result_ids->len; i++)
    if (g_array_index (self->result_ids, gint64, i) == id)
      return;
  g_array_append_val (self->result_ids, id);
  fetch_results (self);
}

void
_lumo_audit_model_live_reset (LumoAuditModel *self)
{
  g_ptr_array_set_size (self->head, 0);
  self->live_in_flight = FALSE;
  self->changed_wanted = FALSE;
  self->newest_id = 0;
  self->live_done_id = 0;
}

/* No announced row waits to be read into the head. */
gboolean
_lumo_audit_model_live_settled (LumoAuditModel *self)
{
  return !self->live_in_flight && !self->changed_wanted &&
         self->live_max_id <= MAX (self->live_done_id, self->newest_id);
}
