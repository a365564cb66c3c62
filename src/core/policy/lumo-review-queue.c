/* lumo-review-queue.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-review-queue"

#include "config.h"

#include <string.h>

#include "lumo-error.h"
#include "lumo-review-request-private.h"

G_DEFINE_ENUM_TYPE (LumoReviewOutcome, lumo_review_outcome,
  G_DEFINE_ENUM_VALUE (LUMO_REVIEW_OUTCOME_APPROVED, "approved"),
  G_DEFINE_ENUM_VALUE (LUMO_REVIEW_OUTCOME_REJECTED, "rejected"),
  G_DEFINE_ENUM_VALUE (LUMO_REVIEW_OUTCOME_TIMEOUT, "timeout"),
  G_DEFINE_ENUM_VALUE (LUMO_REVIEW_OUTCOME_CANCELLED, "cancelled"),
  G_DEFINE_ENUM_VALUE (LUMO_REVIEW_OUTCOME_GRANTED, "granted"))

const char *
lumo_review_outcome_to_string (LumoReviewOutcome outcome)
{
  switch (outcome)
    {
    case LUMO_REVIEW_OUTCOME_APPROVED:  return "approved";
    case LUMO_REVIEW_OUTCOME_REJECTED:  return "rejected";
    case LUMO_REVIEW_OUTCOME_TIMEOUT:   return "timeout";
    case LUMO_REVIEW_OUTCOME_CANCELLED: return "cancelled";
    case LUMO_REVIEW_OUTCOME_GRANTED:   return "granted";
    default:                            return NULL;
    }
}

/* ---- LumoReviewQueue ---------------------------------------------------- */

struct _LumoReviewQueue
{
  GObject        parent_instance;

  GPtrArray     *items;       /* LumoReviewRequest, in submission order */
  GHashTable    *by_id;       /* id → LumoReviewRequest (borrowed from items) */
  guint          timeout_s;

  LumoClockFunc  clock;
  gpointer       clock_data;

  GMainContext  *context;
  GSource       *deadline_source;   /* exists only while items is not empty */
};

static void lumo_review_queue_list_model_init (GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (LumoReviewQueue, lumo_review_queue, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL,
                                                      lumo_review_queue_list_model_init))

enum {
  PROP_0,
  PROP_TIMEOUT,
  PROP_N_ITEMS,
  N_PROPS
};

enum {
  DECIDED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static GType
lumo_review_queue_get_item_type (GListModel *model)
{
  return LUMO_TYPE_REVIEW_REQUEST;
}

static guint
lumo_review_queue_get_n_items (GListModel *model)
{
  return LUMO_REVIEW_QUEUE (model)->items->len;
}

static gpointer
lumo_review_queue_get_item (GListModel *model,
                            guint       position)
{
  LumoReviewQueue *self = LUMO_REVIEW_QUEUE (model);

  if (position >= self->items->len)
    return NULL;

  return g_object_ref (g_ptr_array_index (self->items, position));
}

static void
lumo_review_queue_list_model_init (GListModelInterface *iface)
{
  iface->get_item_type = lumo_review_queue_get_item_type;
  iface->get_n_items = lumo_review_queue_get_n_items;
  iface->get_item = lumo_review_queue_get_item;
}

/* ---- the one deadline source -------------------------------------------- */

typedef struct
{
  GSource          source;
  LumoReviewQueue *queue;   /* unowned: the queue destroys the source */
} DeadlineSource;

static gint64
earliest_deadline (LumoReviewQueue *self)
{
  gint64 earliest = G_MAXINT64;

  /* Deadlines are not in submission order once the timeout changes. */
  for (guint i = 0; i < self->items->len; i++)
    earliest = MIN (earliest, ((LumoReviewRequest *) g_ptr_array_index (self->items, i))->deadline);

  return earliest;
}

static gboolean
deadline_source_prepare (GSource *source,
                         int     *timeout)
{
  LumoReviewQueue *self = ((DeadlineSource *) source)->queue;
  gint64 now = lumo_review_queue_now (self);
  gint64 earliest = earliest_deadline (self);
  gint64 wait_ms;

  if (earliest <= now)
    {
      *timeout = 0;
      return TRUE;
    }

  /* Rounded up: waking a little late is fine, waking early spins. */
  wait_ms = (earliest - now + 999) / 1000;
  *timeout = (int) MIN (wait_ms, G_MAXINT);
  return FALSE;
}

static gboolean
deadline_source_check (GSource *source)
{
  LumoReviewQueue *self = ((DeadlineSource *) source)->queue;

  return earliest_deadline (self) <= lumo_review_queue_now (self);
}

static void complete (LumoReviewQueue *self, LumoReviewRequest *request, LumoReviewOutcome outcome);

static gboolean
deadline_source_dispatch (GSource     *source,
                          GSourceFunc  callback,
                          gpointer     user_data)
{
  LumoReviewQueue *self = ((DeadlineSource *) source)->queue;
  g_autoptr(GPtrArray) expired = g_ptr_array_new_with_free_func (g_object_unref);
  gint64 now = lumo_review_queue_now (self);

  g_object_ref (self);

  for (guint i = 0; i < self->items->len; i++)
    {
      LumoReviewRequest *request = g_ptr_array_index (self->items, i);

      if (request->deadline <= now)
        g_ptr_array_add (expired, g_object_ref (request));
    }

  /* complete() may destroy this source when the queue empties; it is
   * kept alive by the main loop until dispatch returns. */
  for (guint i = 0; i < expired->len; i++)
    complete (self, g_ptr_array_index (expired, i), LUMO_REVIEW_OUTCOME_TIMEOUT);

  g_object_unref (self);

  return G_SOURCE_CONTINUE;
}

static GSourceFuncs deadline_source_funcs = {
  deadline_source_prepare,
  deadline_source_check,
  deadline_source_dispatch,
  NULL, NULL, NULL,
};

static void
update_deadline_source (LumoReviewQueue *self)
{
  if (self->items->len == 0 && self->deadline_source != NULL)
    {
      g_source_destroy (self->deadline_source);
      g_clear_pointer (&self->deadline_source, g_source_unref);
    }
  else if (self->items->len > 0 && self->deadline_source == NULL)
    {
      GSource *source = g_source_new (&deadline_source_funcs, sizeof (DeadlineSource));

      ((DeadlineSource *) source)->queue = self;
      g_source_set_static_name (source, "[lumo] review deadlines");
      g_source_attach (source, self->context);
      self->deadline_source = source;
    }
}

/* ---- completing a request ----------------------------------------------- */

static void
complete (LumoReviewQueue   *self,
          LumoReviewRequest *request,
          LumoReviewOutcome  outcome)
{
  g_autoptr(LumoReviewRequest) owned = NULL;
  g_autoptr(GTask) task = NULL;
  guint position;

  if (!g_ptr_array_find (self->items, request, &position))
    return;

  owned = g_ptr_array_steal_index (self->items, position);
  g_hash_table_remove (self->by_id, request->id);
  task = g_steal_pointer (&request->task);

  if (request->cancelled_id != 0)
    {
      /* Never called from inside the ::cancelled emission (see
       * on_cancelled_cb), where disconnecting would deadlock. */
      g_cancellable_disconnect (request->cancellable, request->cancelled_id);
      request->cancelled_id = 0;
    }

  update_deadline_source (self);

  g_debug ("Review %s for %s: %s", request->id, request->tool,
           lumo_review_outcome_to_string (outcome));

  g_list_model_items_changed (G_LIST_MODEL (self), position, 1, 0);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_ITEMS]);
  g_signal_emit (self, signals[DECIDED], 0, request, outcome);

  g_task_return_int (task, outcome);
}

typedef struct
{
  LumoReviewQueue   *queue;
  LumoReviewRequest *request;
} CancelData;

static void
cancel_data_free (gpointer data)
{
  CancelData *cd = data;

  g_object_unref (cd->queue);
  g_object_unref (cd->request);
  g_free (cd);
}

static gboolean
cancel_in_idle_cb (gpointer data)
{
  CancelData *cd = data;

  complete (cd->queue, cd->request, LUMO_REVIEW_OUTCOME_CANCELLED);
  return G_SOURCE_REMOVE;
}

static void
on_cancelled_cb (GCancellable      *cancellable,
                 LumoReviewRequest *request)
{
  LumoReviewQueue *self = request->queue;
  CancelData *cd = g_new0 (CancelData, 1);
  g_autoptr(GSource) idle = g_idle_source_new ();

  /* Deferred: this runs inside g_cancellable_cancel(), possibly on another
   * thread, where neither the model nor the handler may be touched. */
  cd->queue = g_object_ref (self);
  cd->request = g_object_ref (request);
  g_source_set_priority (idle, G_PRIORITY_DEFAULT);
  g_source_set_callback (idle, cancel_in_idle_cb, cd, cancel_data_free);
  g_source_set_static_name (idle, "[lumo] review cancelled");
  g_source_attach (idle, self->context);
}

/* ---- GObject ------------------------------------------------------------ */

static void
lumo_review_queue_dispose (GObject *object)
{
  LumoReviewQueue *self = (LumoReviewQueue *) object;

  /* A waiting request's task holds a reference, so nothing waits here. */
  g_assert (self->items->len == 0);

  if (self->deadline_source != NULL)
    {
      g_source_destroy (self->deadline_source);
      g_clear_pointer (&self->deadline_source, g_source_unref);
    }

  G_OBJECT_CLASS (lumo_review_queue_parent_class)->dispose (object);
}

static void
lumo_review_queue_finalize (GObject *object)
{
  LumoReviewQueue *self = (LumoReviewQueue *) object;

  g_clear_pointer (&self->items, g_ptr_array_unref);
  g_clear_pointer (&self->by_id, g_hash_table_unref);
  g_clear_pointer (&self->context, g_main_context_unref);

  G_OBJECT_CLASS (lumo_review_queue_parent_class)->finalize (object);
}

static void
lumo_review_queue_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  LumoReviewQueue *self = LUMO_REVIEW_QUEUE (object);

  switch (prop_id)
    {
    case PROP_TIMEOUT:
      g_value_set_uint (value, self->timeout_s);
      break;

    case PROP_N_ITEMS:
      g_value_set_uint (value, self->items->len);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
lumo_review_queue_set_property (GObject      *object,
                                guint         prop_id,
                                const GValue *value,
                                GParamSpec   *pspec)
{
  LumoReviewQueue *self = LUMO_REVIEW_QUEUE (object);

  switch (prop_id)
    {
    case PROP_TIMEOUT:
      lumo_review_queue_set_timeout (self, g_value_get_uint (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
lumo_review_queue_class_init (LumoReviewQueueClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = lumo_review_queue_dispose;
  object_class->finalize = lumo_review_queue_finalize;
  object_class->get_property = lumo_review_queue_get_property;
  object_class->set_property = lumo_review_queue_set_property;

  properties[PROP_TIMEOUT] =
    g_param_spec_uint ("timeout", NULL, NULL,
                       1, LUMO_REVIEW_MAX_TIMEOUT_S, LUMO_REVIEW_DEFAULT_TIMEOUT_S,
                       (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  properties[PROP_N_ITEMS] =
    g_param_spec_uint ("n-items", NULL, NULL,
                       0, G_MAXUINT, 0,
                       (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * LumoReviewQueue::decided:
   * @request: the request, already out of the model
   * @outcome: a #LumoReviewOutcome
   *
   * Emitted when a request leaves the queue, for whatever reason.
   */
  signals[DECIDED] =
    g_signal_new ("decided",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, LUMO_TYPE_REVIEW_REQUEST, LUMO_TYPE_REVIEW_OUTCOME);
}

static void
lumo_review_queue_init (LumoReviewQueue *self)
{
  self->items = g_ptr_array_new_with_free_func (g_object_unref);
  self->by_id = g_hash_table_new (g_str_hash, g_str_equal);
  self->timeout_s = LUMO_REVIEW_DEFAULT_TIMEOUT_S;
  self->context = g_main_context_ref_thread_default ();
}

LumoReviewQueue *
lumo_review_queue_new (void)
{
  return g_object_new (LUMO_TYPE_REVIEW_QUEUE, NULL);
}

void
lumo_review_queue_set_clock (LumoReviewQueue *self,
                             LumoClockFunc    clock,
                             gpointer         user_data)
{
  g_return_if_fail (LUMO_IS_REVIEW_QUEUE (self));
  g_return_if_fail (self->items->len == 0);

  self->clock = clock;
  self->clock_data = user_data;
}

gint64
lumo_review_queue_now (LumoReviewQueue *self)
{
  g_return_val_if_fail (LUMO_IS_REVIEW_QUEUE (self), 0);

  return self->clock ? self->clock (self->clock_data) : g_get_monotonic_time ();
}

guint
lumo_review_queue_get_timeout (LumoReviewQueue *self)
{
  g_return_val_if_fail (LUMO_IS_REVIEW_QUEUE (self), 0);

  return self->timeout_s;
}

void
lumo_review_queue_set_timeout (LumoReviewQueue *self,
                               guint            seconds)
{
  g_return_if_fail (LUMO_IS_REVIEW_QUEUE (self));
  g_return_if_fail (seconds >= 1 && seconds <= LUMO_REVIEW_MAX_TIMEOUT_S);

  if (self->timeout_s == seconds)
    return;

  self->timeout_s = seconds;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TIMEOUT]);
}

void
lumo_review_queue_submit_async (LumoReviewQueue     *self,
                                const char          *provider_id,
                                const char          *caller_id,
                                const char          *caller_name,
                                const char          *tool,
                                const char          *target,
                                const char          *preview_json,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  g_autoptr(LumoReviewRequest) request = NULL;
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  gint64 now;

  g_return_if_fail (LUMO_IS_REVIEW_QUEUE (self));
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, lumo_review_queue_submit_async);
  /* A cancelled review completes as CANCELLED, not with an error. */
  g_task_set_check_cancellable (task, FALSE);

  now = lumo_review_queue_now (self);
  request = _lumo_review_request_new (provider_id, caller_id, caller_name, tool, target,
                                      preview_json, now,
                                      now + (gint64) self->timeout_s * G_USEC_PER_SEC,
                                      &error);
  if (request == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  g_task_set_task_data (task, g_strdup (request->id), g_free);

  if (g_cancellable_is_cancelled (cancellable))
    {
      g_task_return_int (task, LUMO_REVIEW_OUTCOME_CANCELLED);
      return;
    }

  request->queue = self;
  request->task = g_steal_pointer (&task);
  g_ptr_array_add (self->items, g_object_ref (request));
  g_hash_table_insert (self->by_id, request->id, request);

  if (cancellable != NULL)
    {
      request->cancellable = g_object_ref (cancellable);
      request->cancelled_id = g_cancellable_connect (cancellable, G_CALLBACK (on_cancelled_cb),
                                                     request, NULL);
    }

  update_deadline_source (self);

  g_list_model_items_changed (G_LIST_MODEL (self), self->items->len - 1, 0, 1);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_ITEMS]);
}

LumoReviewOutcome
lumo_review_queue_submit_finish (LumoReviewQueue  *self,
                                 GAsyncResult     *result,
                                 GError          **error)
{
  g_autoptr(GError) local_error = NULL;
  gssize outcome;

  g_return_val_if_fail (LUMO_IS_REVIEW_QUEUE (self), LUMO_REVIEW_OUTCOME_REJECTED);
  g_return_val_if_fail (g_task_is_valid (result, self), LUMO_REVIEW_OUTCOME_REJECTED);

  outcome = g_task_propagate_int (G_TASK (result), &local_error);
  if (local_error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return LUMO_REVIEW_OUTCOME_REJECTED;
    }

  return (LumoReviewOutcome) outcome;
}

const char *
lumo_review_queue_submit_get_request_id (LumoReviewQueue *self,
                                         GAsyncResult    *result)
{
  g_return_val_if_fail (LUMO_IS_REVIEW_QUEUE (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_get_task_data (G_TASK (result));
}

gboolean
lumo_review_queue_decide (LumoReviewQueue  *self,
                          const char       *request_id,
                          gboolean          approve,
                          GError          **error)
{
  LumoReviewRequest *request;

  g_return_val_if_fail (LUMO_IS_REVIEW_QUEUE (self), FALSE);

  if (request_id == NULL || !(request = g_hash_table_lookup (self->by_id, request_id)))
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND,
                   "No review “%s” is waiting; it was already decided, timed out "
                   "or its session ended",
                   request_id && g_utf8_validate (request_id, -1, NULL) ? request_id : "(none)");
      return FALSE;
    }

  complete (self, request, approve ? LUMO_REVIEW_OUTCOME_APPROVED : LUMO_REVIEW_OUTCOME_REJECTED);
  return TRUE;
}

LumoReviewRequest *
lumo_review_queue_lookup (LumoReviewQueue *self,
                          const char      *request_id)
{
  g_return_val_if_fail (LUMO_IS_REVIEW_QUEUE (self), NULL);
  g_return_val_if_fail (request_id != NULL, NULL);

  return g_hash_table_lookup (self->by_id, request_id);
}

/* Completes the waiting requests of @provider_id (@caller_id and @tool:
 * NULL for any) with @outcome, oldest first. */
static guint
complete_matching (LumoReviewQueue   *self,
                   const char        *provider_id,
                   const char        *caller_id,
                   const char        *tool,
                   LumoReviewOutcome  outcome)
{
  g_autoptr(GPtrArray) matching = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < self->items->len; i++)
    {
      LumoReviewRequest *request = g_ptr_array_index (self->items, i);

      if (g_str_equal (request->provider_id, provider_id) &&
          (caller_id == NULL || g_str_equal (request->caller_id, caller_id)) &&
          (tool == NULL || g_str_equal (request->tool, tool)))
        g_ptr_array_add (matching, g_object_ref (request));
    }

  for (guint i = 0; i < matching->len; i++)
    complete (self, g_ptr_array_index (matching, i), outcome);

  return matching->len;
}

guint
lumo_review_queue_grant_matching (LumoReviewQueue *self,
                                  const char      *provider_id,
                                  const char      *caller_id,
                                  const char      *tool)
{
  g_return_val_if_fail (LUMO_IS_REVIEW_QUEUE (self), 0);
  g_return_val_if_fail (provider_id != NULL && caller_id != NULL && tool != NULL, 0);

  return complete_matching (self, provider_id, caller_id, tool, LUMO_REVIEW_OUTCOME_GRANTED);
}

guint
lumo_review_queue_cancel_matching (LumoReviewQueue *self,
                                   const char      *provider_id,
                                   const char      *caller_id)
{
  g_return_val_if_fail (LUMO_IS_REVIEW_QUEUE (self), 0);
  g_return_val_if_fail (provider_id != NULL, 0);

  return complete_matching (self, provider_id, caller_id, NULL, LUMO_REVIEW_OUTCOME_CANCELLED);
}
