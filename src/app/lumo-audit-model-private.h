/* lumo-audit-model-private.h — the state LumoAuditModel shares between its files
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "lumo-audit-item.h"
#include "lumo-audit-model.h"

G_BEGIN_DECLS

/* The page size itself is public: LUMO_AUDIT_MODEL_PAGE_SIZE. */
#define LUMO_AUDIT_MODEL_WALK_PAGES            50
/* While the count is unknown, reading this close to the end of what is
 * loaded fetches the next page. */
#define LUMO_AUDIT_MODEL_PREFETCH_MARGIN       50
/* News of another process (::changed) reads this many of the newest rows
 * to find the new ones; more new rows than that read the query again. */
#define LUMO_AUDIT_MODEL_CHANGED_ROWS          LUMO_AUDIT_MODEL_PAGE_SIZE

typedef struct
{
  guint           index;
  GPtrArray      *rows;                 /* LumoAuditRow; NULL until fetched */
  LumoAuditItem  *items[LUMO_AUDIT_MODEL_PAGE_SIZE];  /* handed out so far, else NULL */
  gboolean        in_flight;
  GList           lru_link;             /* in LumoAuditModel.lru, data = page */
} LumoAuditModelPage;

struct _LumoAuditModel
{
  GObject          parent_instance;

  LumoAuditStore  *store;
  LumoAuditQuery  *query;
  LumoAuditSortKey   sort_key;
  LumoAuditSortOrder sort_order;
  GHashTable      *provider_names;
  GCancellable    *cancellable;      /* of the current query's fetches */
  guint            generation;
  GError          *error;

  gint64           top_id;           /* newest row of the paged region; 0 = none yet */
  gboolean         first_page_done;
  gboolean         contiguous;       /* arithmetic anchors (unfiltered log, newest first) */
  gboolean         counted;
  gboolean         confirming;       /* counted, reading the last page to be sure */
  guint            n_paged;
  GPtrArray       *anchors;          /* per page, the last row of the page before; NULL = unknown */
  GHashTable      *pages;            /* index → LumoAuditModelPage */
  GQueue           lru;              /* most recently used first */
  gboolean         walking;

  /* Newest first (LUMO_AUDIT_SORT_ID, descending) only: new rows go on
   * top. In any other order news of rows reads the shown pages again. */
  GPtrArray       *head;             /* LumoAuditItem, newest first */
  gint64           newest_id;        /* newest id shown at all */
  gint64           live_max_id;      /* newest id announced by ::row-added */
  gint64           live_done_id;     /* announced rows up to here are read */
  gboolean         live_in_flight;
  gboolean         changed_wanted;   /* ::changed: read the newest rows */
  gboolean         count_wanted;     /* count once the live rows settle */
  gint64           count_live_max;   /* live_max_id when the count started */

  /* Any other order: a refresh in place is running, another is wanted. */
  gboolean         refreshing;
  gboolean         refresh_wanted;

  /* ::result-set: rows to read again, and the read running. */
  GArray          *result_ids;       /* gint64 */
  gboolean         result_in_flight;

  guint64          rows_fetched;
  guint            pages_fetched;
};

typedef struct
{
  LumoAuditModel *self;
  guint           generation;
  guint           first_page;
  guint           n_pages;
  gint64          before_id;        /* a fetch by id (lumo_audit_store_fetch_page) */
  gboolean        sorted;           /* … or in the model's order (fetch_sorted) */
  gboolean        changed;          /* a live read for ::changed */
} LumoAuditFetchData;

void _lumo_audit_fetch_data_free (LumoAuditFetchData *data);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (LumoAuditFetchData, _lumo_audit_fetch_data_free)

LumoAuditFetchData *_lumo_audit_fetch_data_new (LumoAuditModel *self);

/* lumo-audit-item.c */
void _lumo_audit_item_set_row             (LumoAuditItem  *self,
                                           LumoAuditRow   *row,
                                           GHashTable     *provider_names);
/* lumo-audit-model-pages.c */
void  _lumo_audit_model_page_free         (gpointer        data);
LumoAuditModelPage *_lumo_audit_model_lookup_page       (LumoAuditModel *self,
                                                         guint           index,
                                                         gboolean        create);
void  _lumo_audit_model_request_page      (LumoAuditModel *self,
                                           guint           index);
void  _lumo_audit_model_forget_anchors    (LumoAuditModel *self);
void  _lumo_audit_model_drop_pages_past_end (LumoAuditModel *self);
/* lumo-audit-model.c */
void  _lumo_audit_model_set_n_paged       (LumoAuditModel *self,
                                           guint           n_paged);
void  _lumo_audit_model_set_error         (LumoAuditModel *self,
                                           const GError   *error);
void  _lumo_audit_model_notify_loading      (LumoAuditModel *self);
void  _lumo_audit_model_notify_counted      (LumoAuditModel *self);
void  _lumo_audit_model_notify_rows_fetched (LumoAuditModel *self);
/* lumo-audit-model.c: drops every row and starts the query again */
void _lumo_audit_model_restart            (LumoAuditModel *self);
/* lumo-audit-model.c: reads the shown pages of the same query again,
 * keeping every position and item (any order but newest first) */
void _lumo_audit_model_refresh            (LumoAuditModel *self);
/* lumo-audit-model.c: the item handed out for row @id, if any */
LumoAuditItem *_lumo_audit_model_find_item (LumoAuditModel *self,
                                            gint64          id,
                                            LumoAuditModelPage **page,
                                            guint          *offset);
/* lumo-audit-model.c, for the tests: TRUE while page anchors are
 * reckoned from the top id (a far page is one read away) */
gboolean _lumo_audit_model_is_contiguous  (LumoAuditModel *self);
/* lumo-audit-model-pages.c, for the tests: TRUE if a cached page lies
 * wholly past the end of the list (nothing is there to fill it) */
gboolean _lumo_audit_model_has_pages_past_end (LumoAuditModel *self);
/* TRUE in the newest-first order, where new rows go on top */
gboolean _lumo_audit_model_is_live_head   (LumoAuditModel *self);
/* lumo-audit-model.c: counts now if no announced row waits to be read,
 * else as soon as none does */
void _lumo_audit_model_count_when_settled (LumoAuditModel *self);
/* lumo-audit-model-live.c: rows appended while the model is alive */
void _lumo_audit_model_live_row_added     (LumoAuditModel *self,
                                           gint64          id);
void _lumo_audit_model_live_changed       (LumoAuditModel *self);
void _lumo_audit_model_live_result_set    (LumoAuditModel *self,
                                           gint64          id);
void _lumo_audit_model_live_reset         (LumoAuditModel *self);
gboolean _lumo_audit_model_live_settled   (LumoAuditModel *self);

G_END_DECLS
