/* lumo-review-request-private.h — what LumoReviewQueue sees of a request
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#if !defined (LUMO_CORE_COMPILATION)
# error "This header is private to src/core (and its tests): it may speak SQL, which stays out of the app and the CLI."
#endif

#include "lumo-review-queue.h"

G_BEGIN_DECLS

struct _LumoReviewRequest
{
  GObject          parent_instance;

  char            *id;
  char            *provider_id;
  char            *caller_id;
  char            *caller_name;
  char            *tool;
  char            *target;
  char            *preview;
  gint64           submitted;
  gint64           deadline;

  /* Owned by the queue while the request waits. */
  LumoReviewQueue *queue;          /* unowned: @task holds a reference */
  GTask           *task;
  GCancellable    *cancellable;
  gulong           cancelled_id;
};

/* Validates the fields (LUMO_ERROR_INVALID_ARGUMENT, or
 * LUMO_ERROR_LIMIT_EXCEEDED for an oversized preview) and returns a request
 * with a fresh id and the preview re-serialised in canonical form. */
LumoReviewRequest *_lumo_review_request_new (const char  *provider_id,
                                             const char  *caller_id,
                                             const char  *caller_name,
                                             const char  *tool,
                                             const char  *target,
                                             const char  *preview_json,
                                             gint64       submitted,
                                             gint64       deadline,
                                             GError     **error);

G_END_DECLS
