/* lumo-audit-page-private.h — what the Audit page's files share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "lumo-audit-detail.h"
#include "lumo-audit-header.h"
#include "lumo-audit-page.h"
#include "lumo-audit-summary.h"

G_BEGIN_DECLS

struct _LumoAuditPage
{
  AdwBin                 parent_instance;

  /* Template widgets */
  GtkSearchEntry        *search_entry;
  GtkDropDown           *filter_dropdown;
  GtkLabel              *status_label;
  LumoAuditSummary      *summary;
  GtkRevealer           *integrity_revealer;
  GtkLabel              *integrity_label;
  GtkRevealer           *job_revealer;
  GtkLabel              *job_label;
  GtkProgressBar        *job_progress;
  AdwFlap               *flap;
  GtkStack              *results_stack;
  LumoAuditHeader       *header;
  GtkListView           *list_view;        /* of LumoAuditRowViews */
  AdwStatusPage         *empty_page;
  LumoAuditDetail       *detail;

  /* Owned */
  LumoBackend           *backend;          /* NULL for a collected log */
  LumoAuditStore        *store;
  LumoAuditColumns      *columns;          /* the widths of the header and the rows */
  LumoAuditModel        *model;
  GtkSingleSelection    *selection;
  GHashTable            *provider_names;   /* provider ID → display name */
  char                  *query_error;
  char                  *applied_text;     /* the search the model shows */
  gboolean               short_text;       /* fewer than 3 characters typed */
  guint                  scroll_to_top_id; /* tick callback keeping the top in view */
  guint                  scroll_to_top_frames;
  GdkFrameClock         *summary_clock;    /* painting the first rows; the summary waits */
  gboolean               trim_wanted;      /* painted: give freed heap back once settled */

  /* The running export or verification, if any */
  GCancellable          *job_cancellable;
  guint                  job_timer;
  gint                   job_done;         /* atomic: set by the worker */
  gint                   job_total;        /* atomic; 0 = not known */

  /* The latest verification */
  gboolean               verified;
  gboolean               verify_ok;
  LumoAuditVerifyReport  verify_report;
};

/* lumo-audit-page-jobs.c */
void _lumo_audit_page_export_action (GtkWidget  *widget,
                                     const char *action_name,
                                     GVariant   *param);
void _lumo_audit_page_verify_action (GtkWidget  *widget,
                                     const char *action_name,
                                     GVariant   *param);
void _lumo_audit_page_cancel_job    (GtkWidget  *widget,
                                     const char *action_name,
                                     GVariant   *param);
void _lumo_audit_page_verify_with_key_action (GtkWidget  *widget,
                                              const char *action_name,
                                              GVariant   *param);
/* lumo-audit-page.c */
void _lumo_audit_page_show_row      (LumoAuditPage *self,
                                     LumoAuditRow  *row);
/* What a click on a column's title asks for: @column one whose title
 * sorts, or LUMO_AUDIT_N_COLUMNS for the log's own order (newest first,
 * @order ignored). The title shows the order. */
void _lumo_audit_page_sort_by       (LumoAuditPage      *self,
                                     LumoAuditColumn     column,
                                     LumoAuditSortOrder  order);
/* The selection of the rows (selecting one opens its detail). */
GtkSingleSelection *_lumo_audit_page_get_selection (LumoAuditPage *self);
/* lumo-audit-log-window.c: Open Audit Log… (the file chooser, and what
 * it does with the file it chose) */
void _lumo_audit_page_open_log_action (GtkWidget  *widget,
                                       const char *action_name,
                                       GVariant   *param);
void _lumo_audit_page_open_log        (LumoAuditPage *page,
                                       GFile         *file);

G_END_DECLS
