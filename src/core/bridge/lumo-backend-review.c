/* lumo-backend-review.c — a person's decision on a waiting write, with
 * the review grant it may make
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The one place where a review decision becomes a grant, so the Requests
 * page, the notifications and D-Bus (the CLI) cannot disagree on what
 * "always" means: the grant first (a failure decides nothing), then the
 * approval, then the writes of the same caller and tool that were
 * already waiting, which the grant now covers.
 */
#define G_LOG_DOMAIN "lumo-backend"

#include "config.h"

#include "lumo-backend.h"
#include "lumo-error.h"
#include "lumo-review-queue.h"

gboolean
lumo_backend_decide_review (LumoBackend       *self,
                            const char        *request_id,
                            gboolean           approve,
                            LumoGrantScope     grant,
                            LumoPolicyOrigin   origin,
                            GError           **error)
{
  LumoReviewQueue *queue;
  LumoReviewRequest *request;
  g_autofree char *provider_id = NULL;
  g_autofree char *caller_id = NULL;
  g_autofree char *tool = NULL;
  guint n_granted;

  g_return_val_if_fail (LUMO_IS_BACKEND (self), FALSE);
  g_return_val_if_fail (grant >= LUMO_GRANT_SCOPE_ONCE && grant <= LUMO_GRANT_SCOPE_ALWAYS, FALSE);

  queue = lumo_backend_get_review_queue (self);
  if (!approve || grant == LUMO_GRANT_SCOPE_ONCE)
    return lumo_review_queue_decide (queue, request_id, approve, error);

  if (request_id == NULL || !(request = lumo_review_queue_lookup (queue, request_id)))
    return lumo_review_queue_decide (queue, request_id, approve, error);  /* its NOT_FOUND */

  /* The request leaves the queue (and may be freed) when it is decided. */
  provider_id = g_strdup (lumo_review_request_get_provider_id (request));
  caller_id = g_strdup (lumo_review_request_get_caller_id (request));
  tool = g_strdup (lumo_review_request_get_tool (request));

  if (!lumo_policy_add_grant (lumo_backend_get_policy (self), provider_id, caller_id, tool, grant,
                              origin, error) ||
      !lumo_review_queue_decide (queue, request_id, TRUE, error))
    return FALSE;

  n_granted = lumo_review_queue_grant_matching (queue, provider_id, caller_id, tool);
  g_debug ("Approved %s with a grant (%s) of %s for %s; %u more waiting let through",
           request_id, lumo_grant_scope_to_string (grant), tool, caller_id, n_granted);

  return TRUE;
}
