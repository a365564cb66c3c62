/* lumo-audit-model-live.c — rows that arrive while the audit list is open
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The store announces each row it appended (::row-added, an id). The model
 * reads the new rows that match its query in one keyset fetch from the
 * newest announced id down, and puts them in the head (the top of the
 * list). The same fetch refreshes head rows whose result was not known yet:
 * results are filled in after the row, and the store has no signal for
 * that, so while any shown row waits for its result the head is read again
 * every LUMO_AUDIT_MODEL_RESULT_REFRESH_MS.
 */
#define G_LOG_DOMAIN "lumo-audit-model"

#include "config.h"

#include "lumo-audit-model-private.h"

static void fetch_live (LumoAuditModel *self);

static gboolean
head_has_open_results (LumoAuditModel *self)
{
  for (guint i = 0; i < self->head->len; i++)
    {
      LumoAuditItem *item = g_ptr_array_index (self->head, i);

      LumoAuditRow *row = lumo_audit_item_get_row (item);

      if (row != NULL &&
          lumo_audit_row_get_decision (row) != LUMO_AUDIT_DECISION_DENY &&
          lumo_audit_row_get_result (row) == LUMO_AUDIT_RESULT_NONE)
        return TRUE;
    }
  return FALSE;
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

  /* Rows come newest first. Those newer than anything shown are new; the
   * others refresh what the head shows (a result filled in since). */
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
      else
        {
          for (guint j = n_new; j < self->head->len; j++)
            {
              LumoAuditItem *item = g_ptr_array_index (self->head, j);
              LumoAuditRow *shown = lumo_audit_item_get_row (item);

              if (shown != NULL && lumo_audit_row_get_id (shown) == id &&
                  lumo_audit_row_get_result (shown) != lumo_audit_row_get_result (row))
                _lumo_audit_item_set_row (item, row, self->provider_names);
            }
        }
    }

  self->live_done_id = MAX (self->live_done_id, data->before_id - 1);

  if (n_new > 0)
    {
      self->newest_id = lumo_audit_row_get_id (lumo_audit_item_get_row (g_ptr_array_index (self->head, 0)));
      g_list_model_items_changed (G_LIST_MODEL (self), 0, 0, n_new);
    }

  /* More arrived while this fetch ran. */
  if (self->live_max_id > self->live_done_id)
    fetch_live (self);
  else if (self->count_wanted)
    _lumo_audit_model_count_when_settled (self);
}

static void
fetch_live (LumoAuditModel *self)
{
  LumoAuditFetchData *data;
  guint limit;

  if (self->live_in_flight || !self->first_page_done)
    return;

  /* Enough to cover the new rows and the head's rows awaiting a result. */
  limit = (guint) CLAMP (self->live_max_id - self->live_done_id, 0, 1000) + MIN (self->head->len, 1000);
  if (limit == 0)
    return;

  data = _lumo_audit_fetch_data_new (self);
  data->before_id = MAX (self->live_max_id, self->newest_id) + 1;
  self->live_in_flight = TRUE;
  lumo_audit_store_fetch_page_async (self->store, self->query, data->before_id,
                                     MAX (limit, 1), self->cancellable, on_live_fetched_cb, data);
}

static gboolean
on_refresh_timeout_cb (gpointer user_data)
{
  LumoAuditModel *self = user_data;

  if (!head_has_open_results (self) || ++self->refresh_tries > LUMO_AUDIT_MODEL_RESULT_REFRESH_TRIES)
    {
      self->refresh_id = 0;
      return G_SOURCE_REMOVE;
    }

  fetch_live (self);
  return G_SOURCE_CONTINUE;
}

void
_lumo_audit_model_live_row_added (LumoAuditModel *self,
                                  gint64          id)
{
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

  self->refresh_tries = 0;
  if (self->refresh_id == 0)
    {
      self->refresh_id = g_timeout_add (LUMO_AUDIT_MODEL_RESULT_REFRESH_MS, on_refresh_timeout_cb, self);
      g_source_set_name_by_id (self->refresh_id, "[lumo] audit results");
    }
}

void
_lumo_audit_model_live_reset (LumoAuditModel *self)
{
  g_ptr_array_set_size (self->head, 0);
  g_clear_handle_id (&self->refresh_id, g_source_remove);
  self->live_in_flight = FALSE;
  self->newest_id = 0;
  self->live_done_id = 0;
}

/* No announced row waits to be read into the head. */
gboolean
_lumo_audit_model_live_settled (LumoAuditModel *self)
{
  return !self->live_in_flight && self->live_max_id <= MAX (self->live_done_id, self->newest_id);
}
