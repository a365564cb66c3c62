/* lumo-review-row.h — one write waiting for a person's review
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoReviewRow shows one LumoReviewRequest: the tool, the caller, the
 * target, the redacted preview (through lumo_preview_format(), which
 * keeps any source off the screen) and a countdown to the timeout, with
 * Reject and the three approvals: once, for 10 minutes, always — the last
 * two make a review grant for the caller and tool ("requests.reject-review",
 * "requests.approve-review", "requests.approve-review-timed",
 * "requests.approve-review-always", each with the request's id).
 * The page calls lumo_review_row_update() once a second.
 */
#pragma once

#include <gtk/gtk.h>

#include "lumo-review-queue.h"

G_BEGIN_DECLS

#define LUMO_TYPE_REVIEW_ROW (lumo_review_row_get_type ())
G_DECLARE_FINAL_TYPE (LumoReviewRow, lumo_review_row, LUMO, REVIEW_ROW, GtkListBoxRow)

GtkWidget         *lumo_review_row_new         (LumoReviewRequest *request,
                                                LumoReviewQueue   *queue);
LumoReviewRequest *lumo_review_row_get_request (LumoReviewRow     *self);
/* Refreshes the countdown from the queue's clock. */
void               lumo_review_row_update      (LumoReviewRow     *self);
/* The caller is a desktop agent: the row says so under its name. */
void               lumo_review_row_set_desktop_agent (LumoReviewRow *self);

/* A managed policy file forces review on the request's provider
 * (lumo_policy_are_grants_managed()): For 10 Minutes and Always cannot be
 * used and say "Set by your organization"; Once still approves. */
void               lumo_review_row_set_grants_managed (LumoReviewRow *self,
                                                       gboolean       managed);

G_END_DECLS
