/* lumo-review-queue.h — writes that wait for a person's decision
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoReviewQueue owns the waiting reviews: each write that needs review
 * waits, with its redacted preview (a JSON object as a string, never script
 * source), until it is approved, rejected, times out, or its session goes
 * away (its GCancellable is cancelled). The queue is a GListModel of
 * LumoReviewRequest in submission order, so the UI binds it directly; a
 * decided request leaves the model at once.
 *
 * Time comes from an injectable monotonic clock. One GSource per queue
 * serves all deadlines and exists only while the queue is not empty.
 */
#pragma once

#include <gio/gio.h>

#include "lumo-types.h"

G_BEGIN_DECLS

#define LUMO_REVIEW_DEFAULT_TIMEOUT_S  60
#define LUMO_REVIEW_MAX_TIMEOUT_S      3600

typedef enum
{
  LUMO_REVIEW_OUTCOME_APPROVED,
  LUMO_REVIEW_OUTCOME_REJECTED,
  LUMO_REVIEW_OUTCOME_TIMEOUT,
  LUMO_REVIEW_OUTCOME_CANCELLED,
  /* Let through by a review grant the person made while it waited (an
   * approval of another write of the same caller and tool for ten
   * minutes or always), not by a person looking at this one. */
  LUMO_REVIEW_OUTCOME_GRANTED,
} LumoReviewOutcome;

GType lumo_review_outcome_get_type (void) G_GNUC_CONST;
#define LUMO_TYPE_REVIEW_OUTCOME (lumo_review_outcome_get_type ())

const char *lumo_review_outcome_to_string (LumoReviewOutcome outcome);

/* ---- LumoReviewRequest: one write held for review, read-only to its users */

#define LUMO_TYPE_REVIEW_REQUEST (lumo_review_request_get_type ())
G_DECLARE_FINAL_TYPE (LumoReviewRequest, lumo_review_request, LUMO, REVIEW_REQUEST, GObject)

const char *lumo_review_request_get_id          (LumoReviewRequest *self);
const char *lumo_review_request_get_provider_id (LumoReviewRequest *self);
const char *lumo_review_request_get_caller_id   (LumoReviewRequest *self);
const char *lumo_review_request_get_caller_name (LumoReviewRequest *self);
const char *lumo_review_request_get_tool        (LumoReviewRequest *self);
const char *lumo_review_request_get_target      (LumoReviewRequest *self);
/* The redacted preview, a JSON object serialised as a string. */
const char *lumo_review_request_get_preview     (LumoReviewRequest *self);
/* Monotonic µs, in the queue's clock. */
gint64      lumo_review_request_get_submitted   (LumoReviewRequest *self);
gint64      lumo_review_request_get_deadline    (LumoReviewRequest *self);

/* ---- LumoReviewQueue ---------------------------------------------------- */

#define LUMO_TYPE_REVIEW_QUEUE (lumo_review_queue_get_type ())
G_DECLARE_FINAL_TYPE (LumoReviewQueue, lumo_review_queue, LUMO, REVIEW_QUEUE, GObject)

LumoReviewQueue   *lumo_review_queue_new           (void);
void               lumo_review_queue_set_clock     (LumoReviewQueue      *self,
                                                    LumoClockFunc         clock,
                                                    gpointer              user_data);
gint64             lumo_review_queue_now           (LumoReviewQueue      *self);
/* Seconds, 1 … LUMO_REVIEW_MAX_TIMEOUT_S; applies to later submissions. */
guint              lumo_review_queue_get_timeout   (LumoReviewQueue      *self);
void               lumo_review_queue_set_timeout   (LumoReviewQueue      *self,
                                                    guint                 seconds);

/* Queues a review. @preview_json must be a JSON object (it is re-serialised
 * compactly); @caller_name and @target may be NULL. Cancelling @cancellable
 * removes the request and completes it as CANCELLED. */
void               lumo_review_queue_submit_async  (LumoReviewQueue      *self,
                                                    const char           *provider_id,
                                                    const char           *caller_id,
                                                    const char           *caller_name,
                                                    const char           *tool,
                                                    const char           *target,
                                                    const char           *preview_json,
                                                    GCancellable         *cancellable,
                                                    GAsyncReadyCallback   callback,
                                                    gpointer              user_data);
/* A cancelled review is an outcome (CANCELLED), not an error. On bad input
 * (LUMO_ERROR_INVALID_ARGUMENT) the review never entered the queue and the
 * result is REJECTED: it fails closed. */
LumoReviewOutcome  lumo_review_queue_submit_finish (LumoReviewQueue      *self,
                                                    GAsyncResult         *result,
                                                    GError              **error);
/* The id of the request that @result completed (for the audit row). */
const char        *lumo_review_queue_submit_get_request_id (LumoReviewQueue *self,
                                                            GAsyncResult    *result);

/* LUMO_ERROR_NOT_FOUND for an unknown or already decided id. */
gboolean           lumo_review_queue_decide        (LumoReviewQueue      *self,
                                                    const char           *request_id,
                                                    gboolean              approve,
                                                    GError              **error);
LumoReviewRequest *lumo_review_queue_lookup        (LumoReviewQueue      *self,
                                                    const char           *request_id);
/* Every waiting request of @caller_id's writes of @tool on @provider_id
 * is completed as GRANTED: a grant now covers them. Returns how many. */
guint              lumo_review_queue_grant_matching (LumoReviewQueue    *self,
                                                     const char         *provider_id,
                                                     const char         *caller_id,
                                                     const char         *tool);
/* Every waiting request of @provider_id (and @caller_id, if not NULL) is
 * completed as CANCELLED, e.g. when a caller is revoked. Returns how many. */
guint              lumo_review_queue_cancel_matching (LumoReviewQueue    *self,
                                                      const char         *provider_id,
                                                      const char         *caller_id);

/* Properties: "timeout" (guint seconds, read-write), "n-items" (guint, for
 * a badge). Signals: ::decided (LumoReviewRequest *request,
 * LumoReviewOutcome outcome) — emitted for every way a request leaves the
 * queue, after it left the model and before its submitter hears of it. */

G_END_DECLS
