/* test-review-queue.c — pending reviews: decisions, timeouts, cancellation
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "lumo-error.h"
#include "lumo-review-queue.h"
#include "lumo-test.h"

#define S(x) ((gint64) (x) * G_USEC_PER_SEC)
#define PREVIEW "{ \"uuid\": \"0b7c\", \"name\": \"Hello\", \"bytes\": 120, \"added\": 3 }"

typedef struct
{
  gint64           now;
  LumoReviewQueue *queue;
  GPtrArray       *mirror;       /* rebuilt from ::items-changed alone */
  guint            n_decided;
  guint            n_items_notifies;
} Fixture;

typedef struct
{
  gboolean          done;
  LumoReviewOutcome outcome;
  GError           *error;
  char             *request_id;
} Submitted;

static gint64
fake_clock (gpointer user_data)
{
  return ((Fixture *) user_data)->now;
}

static void
on_items_changed_cb (GListModel *model,
                     guint       position,
                     guint       removed,
                     guint       added,
                     Fixture    *f)
{
  g_ptr_array_remove_range (f->mirror, position, removed);
  for (guint i = 0; i < added; i++)
    g_ptr_array_insert (f->mirror, position + i, g_list_model_get_item (model, position + i));
}

static void
on_decided_cb (LumoReviewQueue   *queue,
               LumoReviewRequest *request,
               LumoReviewOutcome  outcome,
               Fixture           *f)
{
  /* Out of the model before anyone hears of it. */
  g_assert_null (lumo_review_queue_lookup (queue, lumo_review_request_get_id (request)));
  f->n_decided++;
}

static void
on_notify_n_items_cb (GObject    *object,
                      GParamSpec *pspec,
                      Fixture    *f)
{
  f->n_items_notifies++;
}

/* The model and what a view rebuilt from ::items-changed agree. */
static void
assert_mirror (Fixture *f)
{
  GListModel *model = G_LIST_MODEL (f->queue);
  guint n;

  g_assert_cmpuint (g_list_model_get_n_items (model), ==, f->mirror->len);
  for (guint i = 0; i < f->mirror->len; i++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (model, i);
      g_assert_true (item == g_ptr_array_index (f->mirror, i));
    }
  g_assert_null (g_list_model_get_item (model, f->mirror->len));
  g_object_get (f->queue, "n-items", &n, NULL);
  g_assert_cmpuint (n, ==, f->mirror->len);
}

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  f->now = S (5000);
  f->queue = lumo_review_queue_new ();
  f->mirror = g_ptr_array_new_with_free_func (g_object_unref);
  lumo_review_queue_set_clock (f->queue, fake_clock, f);
  g_signal_connect (f->queue, "items-changed", G_CALLBACK (on_items_changed_cb), f);
  g_signal_connect (f->queue, "decided", G_CALLBACK (on_decided_cb), f);
  g_signal_connect (f->queue, "notify::n-items", G_CALLBACK (on_notify_n_items_cb), f);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (f->queue)), ==, 0);
  /* Pending idles (deferred cancellations) hold references. */
  lumo_test_drain ();
  g_assert_finalize_object (f->queue);
  g_ptr_array_unref (f->mirror);
}

static void
on_submitted_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  Submitted *s = user_data;
  LumoReviewQueue *queue = LUMO_REVIEW_QUEUE (source);

  s->outcome = lumo_review_queue_submit_finish (queue, result, &s->error);
  s->request_id = g_strdup (lumo_review_queue_submit_get_request_id (queue, result));
  s->done = TRUE;
}

static void
submitted_clear (Submitted *s)
{
  g_clear_error (&s->error);
  g_clear_pointer (&s->request_id, g_free);
}

static LumoReviewRequest *
submit (Fixture      *f,
        const char   *provider,
        const char   *caller,
        GCancellable *cancellable,
        Submitted    *s)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (f->queue));
  g_autoptr(LumoReviewRequest) request = NULL;

  memset (s, 0, sizeof *s);
  lumo_review_queue_submit_async (f->queue, provider, caller, "Agent",
                                  "userscripts.save", "0b7c", PREVIEW,
                                  cancellable, on_submitted_cb, s);
  g_assert_false (s->done);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (f->queue)), ==, n + 1);
  assert_mirror (f);

  request = g_list_model_get_item (G_LIST_MODEL (f->queue), n);
  return request;   /* the model still holds it */
}

static void
wait_done (Submitted *s)
{
  lumo_test_wait_until (lumo_test_is_true, &s->done, "the review's outcome");
}

/* The poll timeout the main context would use now: -1 means no timer. */
static int
context_timeout (void)
{
  GMainContext *context = g_main_context_default ();
  GPollFD fds[16];
  int priority, timeout = -2;

  g_assert_true (g_main_context_acquire (context));
  g_main_context_prepare (context, &priority);
  g_main_context_query (context, priority, &timeout, fds, G_N_ELEMENTS (fds));
  g_main_context_check (context, priority, fds, 0);
  g_main_context_release (context);

  return timeout;
}

static void
test_request_properties (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  LumoReviewRequest *request;
  g_autofree char *tool = NULL;
  gint64 deadline = 0;
  Submitted s;

  g_assert_cmpuint (lumo_review_queue_get_timeout (f->queue), ==, 60);
  g_assert_true (g_list_model_get_item_type (G_LIST_MODEL (f->queue)) == LUMO_TYPE_REVIEW_REQUEST);

  request = submit (f, TEST_PROVIDER_ID, TEST_CALLER_ID, NULL, &s);
  g_assert_cmpstr (lumo_review_request_get_provider_id (request), ==, TEST_PROVIDER_ID);
  g_assert_cmpstr (lumo_review_request_get_caller_id (request), ==, TEST_CALLER_ID);
  g_assert_cmpstr (lumo_review_request_get_caller_name (request), ==, "Agent");
  g_assert_cmpstr (lumo_review_request_get_tool (request), ==, "userscripts.save");
  g_assert_cmpstr (lumo_review_request_get_target (request), ==, "0b7c");
  /* Stored compact and canonical. */
  g_assert_cmpstr (lumo_review_request_get_preview (request), ==,
                   "{\"added\":3,\"bytes\":120,\"name\":\"Hello\",\"uuid\":\"0b7c\"}");
  g_assert_cmpint (lumo_review_request_get_submitted (request), ==, S (5000));
  g_assert_cmpint (lumo_review_request_get_deadline (request), ==, S (5060));
  g_assert_true (g_uuid_string_is_valid (lumo_review_request_get_id (request)));
  g_assert_true (lumo_review_queue_lookup (f->queue, lumo_review_request_get_id (request)) == request);

  g_object_get (request, "tool", &tool, "deadline", &deadline, NULL);
  g_assert_cmpstr (tool, ==, "userscripts.save");
  g_assert_cmpint (deadline, ==, S (5060));

  g_assert_true (lumo_review_queue_decide (f->queue, lumo_review_request_get_id (request), TRUE, &error));
  g_assert_no_error (error);
  wait_done (&s);
  g_assert_no_error (s.error);
  submitted_clear (&s);
}

static void
test_approve_reject (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *id1 = NULL;
  g_autofree char *id2 = NULL;
  Submitted s1, s2;

  id1 = g_strdup (lumo_review_request_get_id (submit (f, TEST_PROVIDER_ID, TEST_CALLER_ID, NULL, &s1)));
  id2 = g_strdup (lumo_review_request_get_id (submit (f, TEST_PROVIDER_ID, TEST_CALLER2_ID, NULL, &s2)));
  g_assert_cmpstr (id1, !=, id2);
  g_assert_cmpuint (f->n_items_notifies, ==, 2);

  /* Deciding the second leaves the first in place. */
  g_assert_true (lumo_review_queue_decide (f->queue, id2, FALSE, &error));
  g_assert_no_error (error);
  assert_mirror (f);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (f->queue)), ==, 1);
  wait_done (&s2);
  g_assert_no_error (s2.error);
  g_assert_cmpint (s2.outcome, ==, LUMO_REVIEW_OUTCOME_REJECTED);
  g_assert_cmpstr (s2.request_id, ==, id2);

  g_assert_true (lumo_review_queue_decide (f->queue, id1, TRUE, &error));
  wait_done (&s1);
  g_assert_cmpint (s1.outcome, ==, LUMO_REVIEW_OUTCOME_APPROVED);
  g_assert_cmpstr (s1.request_id, ==, id1);
  assert_mirror (f);
  g_assert_cmpuint (f->n_decided, ==, 2);

  /* Twice, or an unknown id: NOT_FOUND, and nothing else happens. */
  g_assert_false (lumo_review_queue_decide (f->queue, id1, FALSE, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, id1));
  g_clear_error (&error);
  g_assert_false (lumo_review_queue_decide (f->queue, "nope", TRUE, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND);
  g_clear_error (&error);
  g_assert_false (lumo_review_queue_decide (f->queue, NULL, TRUE, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND);
  g_assert_cmpuint (f->n_decided, ==, 2);

  submitted_clear (&s1);
  submitted_clear (&s2);
}

static void
test_timeout (Fixture       *f,
              gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *id = NULL;
  Submitted s;

  /* No timer while the queue is empty… */
  g_assert_cmpint (context_timeout (), ==, -1);

  id = g_strdup (lumo_review_request_get_id (submit (f, TEST_PROVIDER_ID, TEST_CALLER_ID, NULL, &s)));
  /* …one while a review waits… */
  g_assert_cmpint (context_timeout (), ==, 60 * 1000);

  f->now += S (60) - 1;
  lumo_test_drain ();
  g_assert_false (s.done);
  g_assert_cmpint (context_timeout (), ==, 1);

  f->now += 1;
  wait_done (&s);
  g_assert_no_error (s.error);
  g_assert_cmpint (s.outcome, ==, LUMO_REVIEW_OUTCOME_TIMEOUT);
  assert_mirror (f);
  g_assert_cmpuint (f->n_decided, ==, 1);

  /* …and none after. A decision after the timeout is too late. */
  g_assert_cmpint (context_timeout (), ==, -1);
  g_assert_false (lumo_review_queue_decide (f->queue, id, TRUE, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND);

  submitted_clear (&s);
}

static void
test_timeout_changes (Fixture       *f,
                      gconstpointer  data)
{
  Submitted slow, fast;

  lumo_review_queue_set_timeout (f->queue, 10);
  submit (f, TEST_PROVIDER_ID, TEST_CALLER_ID, NULL, &slow);
  /* The app changes the setting: later reviews get the new timeout, and
   * an earlier deadline behind a later one is still honoured. */
  g_object_set (f->queue, "timeout", 5, NULL);
  submit (f, TEST_PROVIDER_ID, TEST_CALLER2_ID, NULL, &fast);

  f->now += S (5);
  wait_done (&fast);
  g_assert_cmpint (fast.outcome, ==, LUMO_REVIEW_OUTCOME_TIMEOUT);
  g_assert_false (slow.done);
  assert_mirror (f);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (f->queue)), ==, 1);

  f->now += S (5);
  wait_done (&slow);
  g_assert_cmpint (slow.outcome, ==, LUMO_REVIEW_OUTCOME_TIMEOUT);
  assert_mirror (f);

  submitted_clear (&slow);
  submitted_clear (&fast);
}

static void
test_cancel (Fixture       *f,
             gconstpointer  data)
{
  g_autoptr(GCancellable) session = g_cancellable_new ();
  g_autoptr(GCancellable) other = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *id = NULL;
  g_autofree char *id2 = NULL;
  Submitted s1, s2, s3;

  /* A closed session cancels its pending reviews, and only those. */
  id = g_strdup (lumo_review_request_get_id (submit (f, TEST_PROVIDER_ID, TEST_CALLER_ID, session, &s1)));
  id2 = g_strdup (lumo_review_request_get_id (submit (f, TEST_PROVIDER_ID, TEST_CALLER_ID, other, &s2)));
  submit (f, TEST_PROVIDER_ID, TEST_CALLER_ID, session, &s3);

  g_cancellable_cancel (session);
  wait_done (&s1);
  wait_done (&s3);
  g_assert_no_error (s1.error);
  g_assert_no_error (s3.error);
  g_assert_cmpint (s1.outcome, ==, LUMO_REVIEW_OUTCOME_CANCELLED);
  g_assert_cmpint (s3.outcome, ==, LUMO_REVIEW_OUTCOME_CANCELLED);
  g_assert_false (s2.done);
  assert_mirror (f);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (f->queue)), ==, 1);

  g_assert_false (lumo_review_queue_decide (f->queue, id, TRUE, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND);

  /* Decided first, cancelled later: the decision stands. */
  g_assert_true (lumo_review_queue_decide (f->queue, id2, TRUE, NULL));
  g_cancellable_cancel (other);
  wait_done (&s2);
  g_assert_cmpint (s2.outcome, ==, LUMO_REVIEW_OUTCOME_APPROVED);
  assert_mirror (f);

  submitted_clear (&s1);
  submitted_clear (&s2);
  submitted_clear (&s3);
}

static void
test_cancel_before_submit (Fixture       *f,
                           gconstpointer  data)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  Submitted s = { 0 };

  g_cancellable_cancel (cancellable);
  lumo_review_queue_submit_async (f->queue, TEST_PROVIDER_ID, TEST_CALLER_ID, NULL, "t", NULL, "{}",
                                  cancellable, on_submitted_cb, &s);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (f->queue)), ==, 0);
  wait_done (&s);
  g_assert_no_error (s.error);
  g_assert_cmpint (s.outcome, ==, LUMO_REVIEW_OUTCOME_CANCELLED);
  g_assert_cmpuint (f->n_items_notifies, ==, 0);
  submitted_clear (&s);
}

static void
test_cancel_matching (Fixture       *f,
                      gconstpointer  data)
{
  Submitted s1, s2, s3;

  submit (f, TEST_PROVIDER_ID, TEST_CALLER_ID, NULL, &s1);
  submit (f, TEST_PROVIDER2_ID, TEST_CALLER_ID, NULL, &s2);
  submit (f, TEST_PROVIDER_ID, TEST_CALLER2_ID, NULL, &s3);

  g_assert_cmpuint (lumo_review_queue_cancel_matching (f->queue, TEST_PROVIDER_ID, TEST_CALLER2_ID), ==, 1);
  wait_done (&s3);
  g_assert_cmpint (s3.outcome, ==, LUMO_REVIEW_OUTCOME_CANCELLED);
  assert_mirror (f);

  g_assert_cmpuint (lumo_review_queue_cancel_matching (f->queue, TEST_PROVIDER_ID, NULL), ==, 1);
  wait_done (&s1);
  g_assert_cmpuint (lumo_review_queue_cancel_matching (f->queue, TEST_PROVIDER_ID, NULL), ==, 0);
  g_assert_cmpuint (lumo_review_queue_cancel_matching (f->queue, TEST_PROVIDER2_ID, NULL), ==, 1);
  wait_done (&s2);
  assert_mirror (f);
  g_assert_cmpint (context_timeout (), ==, -1);

  submitted_clear (&s1);
  submitted_clear (&s2);
  submitted_clear (&s3);
}

/* A grant covers what waits of its caller and tool, nothing else. */
static void
test_grant_matching (Fixture       *f,
                     gconstpointer  data)
{
  Submitted s1, s2, s3, s4 = { 0 };

  submit (f, TEST_PROVIDER_ID, TEST_CALLER_ID, NULL, &s1);
  submit (f, TEST_PROVIDER_ID, TEST_CALLER2_ID, NULL, &s2);
  submit (f, TEST_PROVIDER2_ID, TEST_CALLER_ID, NULL, &s3);
  lumo_review_queue_submit_async (f->queue, TEST_PROVIDER_ID, TEST_CALLER_ID, "Agent",
                                  "userscripts.remove", NULL, PREVIEW, NULL, on_submitted_cb, &s4);

  g_assert_cmpuint (lumo_review_queue_grant_matching (f->queue, TEST_PROVIDER_ID, TEST_CALLER_ID,
                                                      "userscripts.save"), ==, 1);
  wait_done (&s1);
  g_assert_cmpint (s1.outcome, ==, LUMO_REVIEW_OUTCOME_GRANTED);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (f->queue)), ==, 3);
  g_assert_false (s2.done || s3.done || s4.done);
  assert_mirror (f);

  g_assert_cmpuint (lumo_review_queue_grant_matching (f->queue, TEST_PROVIDER_ID, TEST_CALLER_ID,
                                                      "userscripts.save"), ==, 0);
  g_assert_cmpuint (lumo_review_queue_cancel_matching (f->queue, TEST_PROVIDER_ID, NULL), ==, 2);
  g_assert_cmpuint (lumo_review_queue_cancel_matching (f->queue, TEST_PROVIDER2_ID, NULL), ==, 1);
  wait_done (&s2);
  wait_done (&s3);
  wait_done (&s4);
  g_assert_cmpint (s4.outcome, ==, LUMO_REVIEW_OUTCOME_CANCELLED);

  submitted_clear (&s1);
  submitted_clear (&s2);
  submitted_clear (&s3);
  submitted_clear (&s4);
}

static void
test_bad_input (Fixture       *f,
                gconstpointer  data)
{
  g_autofree char *big = NULL;
  struct {
    const char *provider, *caller, *tool, *preview;
    int code;
    const char *needle;
  } cases[] = {
    { NULL, TEST_CALLER_ID, "t", "{}", LUMO_ERROR_INVALID_ARGUMENT, "provider ID" },
    { "", TEST_CALLER_ID, "t", "{}", LUMO_ERROR_INVALID_ARGUMENT, "provider ID" },
    { TEST_PROVIDER_ID, NULL, "t", "{}", LUMO_ERROR_INVALID_ARGUMENT, "caller ID" },
    { TEST_PROVIDER_ID, TEST_CALLER_ID, NULL, "{}", LUMO_ERROR_INVALID_ARGUMENT, "tool" },
    { TEST_PROVIDER_ID, TEST_CALLER_ID, "t", NULL, LUMO_ERROR_INVALID_ARGUMENT, "preview" },
    { TEST_PROVIDER_ID, TEST_CALLER_ID, "t", "{", LUMO_ERROR_INVALID_ARGUMENT, "not valid JSON" },
    { TEST_PROVIDER_ID, TEST_CALLER_ID, "t", "[1]", LUMO_ERROR_INVALID_ARGUMENT, "JSON object" },
    { TEST_PROVIDER_ID, TEST_CALLER_ID, "t", "{\"a\":1,\"a\":2}", LUMO_ERROR_INVALID_ARGUMENT, "twice" },
    { TEST_PROVIDER_ID, TEST_CALLER_ID, "t", "\xff", LUMO_ERROR_INVALID_ARGUMENT, "UTF-8" },
    { TEST_PROVIDER_ID, TEST_CALLER_ID, "t", NULL, LUMO_ERROR_LIMIT_EXCEEDED, "summary" },
  };

  big = g_strnfill (70 * 1024, ' ');
  big[0] = '{';
  big[70 * 1024 - 1] = '}';
  cases[G_N_ELEMENTS (cases) - 1].preview = big;

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      Submitted s = { 0 };

      lumo_review_queue_submit_async (f->queue, cases[i].provider, cases[i].caller, NULL,
                                      cases[i].tool, NULL, cases[i].preview,
                                      NULL, on_submitted_cb, &s);
      g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (f->queue)), ==, 0);
      wait_done (&s);
      g_assert_error (s.error, LUMO_ERROR, cases[i].code);
      if (strstr (s.error->message, cases[i].needle) == NULL)
        g_error ("“%s” does not mention “%s”", s.error->message, cases[i].needle);
      /* Fails closed. */
      g_assert_cmpint (s.outcome, ==, LUMO_REVIEW_OUTCOME_REJECTED);
      submitted_clear (&s);
    }

  g_assert_cmpuint (f->n_items_notifies, ==, 0);
  g_assert_cmpint (context_timeout (), ==, -1);
}

static void
test_outcome_names (void)
{
  GEnumClass *klass = g_type_class_ref (LUMO_TYPE_REVIEW_OUTCOME);

  g_assert_cmpstr (lumo_review_outcome_to_string (LUMO_REVIEW_OUTCOME_APPROVED), ==, "approved");
  g_assert_cmpstr (lumo_review_outcome_to_string (LUMO_REVIEW_OUTCOME_REJECTED), ==, "rejected");
  g_assert_cmpstr (lumo_review_outcome_to_string (LUMO_REVIEW_OUTCOME_TIMEOUT), ==, "timeout");
  g_assert_cmpstr (lumo_review_outcome_to_string (LUMO_REVIEW_OUTCOME_CANCELLED), ==, "cancelled");
  g_assert_cmpstr (lumo_review_outcome_to_string (LUMO_REVIEW_OUTCOME_GRANTED), ==, "granted");
  g_assert_cmpstr (g_enum_get_value (klass, LUMO_REVIEW_OUTCOME_TIMEOUT)->value_nick, ==, "timeout");
  g_type_class_unref (klass);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("/review-queue/request-properties", test_request_properties);
  ADD ("/review-queue/approve-reject", test_approve_reject);
  ADD ("/review-queue/timeout", test_timeout);
  ADD ("/review-queue/timeout-changes", test_timeout_changes);
  ADD ("/review-queue/cancel", test_cancel);
  ADD ("/review-queue/cancel-before-submit", test_cancel_before_submit);
  ADD ("/review-queue/cancel-matching", test_cancel_matching);
  ADD ("/review-queue/grant-matching", test_grant_matching);
  ADD ("/review-queue/bad-input", test_bad_input);
#undef ADD
  g_test_add_func ("/review-queue/outcome-names", test_outcome_names);

  return g_test_run ();
}
