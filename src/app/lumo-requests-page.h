/* lumo-requests-page.h — the Requests page: callers and writes that wait
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoRequestsPage owns the approval queue as a person sees it: every
 * pending caller of every provider (a LumoCallerModel of the policy) with
 * Approve / Deny, alone or several at once, and below it the writes that
 * wait for review (the backend's LumoReviewQueue, bound directly) with a
 * countdown to their timeout. Nothing is modal: requests arrive while the
 * person works elsewhere in the window. An empty queue says what will
 * appear here — or, until a provider has connected once
 * (lumo_policy_has_seen_provider()), the first-run set-up (LumoFirstRun),
 * which gives way by itself at the first hello.
 */
#pragma once

#include <adwaita.h>

#include "lumo-caller-model.h"
#include "lumo-first-run.h"
#include "lumo-types.h"

G_BEGIN_DECLS

#define LUMO_TYPE_REQUESTS_PAGE (lumo_requests_page_get_type ())
G_DECLARE_FINAL_TYPE (LumoRequestsPage, lumo_requests_page, LUMO, REQUESTS_PAGE, AdwBin)

/* @pending: the policy's pending callers (every provider), which the
 * window also counts for the page's badge. */
void             lumo_requests_page_set_backend   (LumoRequestsPage *self,
                                                   LumoBackend      *backend,
                                                   LumoCallerModel  *pending);
LumoCallerModel *lumo_requests_page_get_pending   (LumoRequestsPage *self);
/* TRUE once a provider has connected: the set-up is no longer shown. */
gboolean         lumo_requests_page_get_set_up    (LumoRequestsPage *self);
/* The set-up; it looks for browsers only while it is needed. */
LumoFirstRun    *lumo_requests_page_get_first_run (LumoRequestsPage *self);

G_END_DECLS
