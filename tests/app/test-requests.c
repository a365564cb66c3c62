/* test-requests.c — the Requests page: pending agents and writes in review
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "app-test-util.h"
#include "lumo-caller-row.h"
#include "lumo-review-row.h"

static gboolean
is_row_of (GtkWidget     *row,
           gconstpointer  caller_id)
{
  return g_str_equal (lumo_caller_item_get_caller_id (lumo_caller_row_get_item (LUMO_CALLER_ROW (row))),
                      caller_id);
}

static LumoCallerRow *
find_caller_row (AppFixture *f,
                 const char *caller_id)
{
  GtkWidget *page = GTK_WIDGET (_lumo_window_get_requests_page (f->window));

  return LUMO_CALLER_ROW (app_test_find_widget_where (page, LUMO_TYPE_CALLER_ROW, is_row_of, caller_id));
}

static void
probe (AppFixture       *f,
       const char       *caller_id,
       const char       *name,
       LumoPolicyStatus *status)
{
  g_autoptr(GError) error = NULL;

  lumo_policy_probe (f->policy, TEST_PROVIDER_ID, caller_id, name, status, &error);
  g_assert_no_error (error);
}

static const char *
visible_stack_child (GtkWidget *page)
{
  GtkWidget *stack = app_test_find_widget (page, GTK_TYPE_STACK, 0);

  return gtk_stack_get_visible_child_name (GTK_STACK (stack));
}

static void
test_empty_queue_says_what_appears (AppFixture    *f,
                                    gconstpointer  data)
{
  GtkWidget *page = GTK_WIDGET (_lumo_window_get_requests_page (f->window));

  /* Past the first-run set-up (tests/app/test-first-run.c). */
  app_fixture_add_provider (f, TEST_PROVIDER_ID, "Lumo Userscripts");
  app_test_iterate ();
  g_assert_cmpstr (visible_stack_child (page), ==, "empty");
  g_assert_true (app_test_any_text_contains (page, "waits here until you approve or deny it"));
}

static void
test_pending_caller_appears_and_approve_allows (AppFixture    *f,
                                                gconstpointer  data)
{
  LumoRequestsPage *page = _lumo_window_get_requests_page (f->window);
  LumoPolicyStatus status;
  LumoCallerRow *row;
  GtkWidget *approve;

  app_fixture_add_provider (f, TEST_PROVIDER_ID, "Lumo Userscripts");
  probe (f, TEST_CALLER_ID, "Helpful <b>Agent</b>", &status);
  g_assert_false (status.authorized);
  g_assert_true (status.pending_approval);

  /* The core signal is handled in the same iteration: one is enough. */
  g_main_context_iteration (NULL, FALSE);

  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (lumo_requests_page_get_pending (page))), ==, 1);
  g_assert_cmpuint (app_test_requests_badge (f->window, NULL), ==, 1);
  row = find_caller_row (f, TEST_CALLER_ID);
  g_assert_nonnull (row);
  g_assert_cmpstr (visible_stack_child (GTK_WIDGET (page)), ==, "list");

  /* The name as given (plain text, not markup), the ID, the provider. */
  g_assert_true (app_test_any_text_contains (GTK_WIDGET (row), "Helpful <b>Agent</b>"));
  g_assert_true (app_test_any_text_contains (GTK_WIDGET (row), TEST_CALLER_ID));
  g_assert_true (app_test_any_text_contains (GTK_WIDGET (row), "Wants Lumo Userscripts"));
  g_assert_true (app_test_any_text_contains (GTK_WIDGET (row), "1 probe"));

  approve = app_test_find_action_button (GTK_WIDGET (row), "requests.approve-caller",
                                         g_variant_new ("(ss)", TEST_PROVIDER_ID, TEST_CALLER_ID));
  g_assert_nonnull (approve);
  app_test_click (approve);
  app_test_iterate ();

  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (lumo_requests_page_get_pending (page))), ==, 0);
  g_assert_cmpstr (visible_stack_child (GTK_WIDGET (page)), ==, "empty");

  /* It is on the Access page's allow-list … */
  g_assert_nonnull (lumo_caller_model_find (lumo_access_page_get_allowed (_lumo_window_get_access_page (f->window)),
                                            TEST_PROVIDER_ID, TEST_CALLER_ID));
  /* … and the next probe says authorized. */
  probe (f, TEST_CALLER_ID, "Helpful Agent", &status);
  g_assert_true (status.authorized);
  g_assert_false (status.pending_approval);
}

static void
test_deny_and_decide_several (AppFixture    *f,
                              gconstpointer  data)
{
  LumoRequestsPage *page = _lumo_window_get_requests_page (f->window);
  GListModel *pending = G_LIST_MODEL (lumo_requests_page_get_pending (page));
  LumoPolicyStatus status;
  g_autoptr(LumoCallerInfo) info = NULL;
  GtkWidget *deny;

  app_fixture_add_provider (f, TEST_PROVIDER_ID, "Lumo Userscripts");
  probe (f, TEST_CALLER_ID, "One", &status);
  probe (f, TEST_CALLER2_ID, "Two", &status);
  probe (f, TEST_CALLER3_ID, "Three", &status);
  app_test_iterate ();
  g_assert_cmpuint (g_list_model_get_n_items (pending), ==, 3);

  /* Nothing selected: the bulk buttons are off. */
  g_assert_false (gtk_widget_is_sensitive (app_test_find_action_button (GTK_WIDGET (page), "requests.approve-selected", NULL)));

  deny = app_test_find_action_button (GTK_WIDGET (find_caller_row (f, TEST_CALLER_ID)), "requests.deny-caller",
                                      g_variant_new ("(ss)", TEST_PROVIDER_ID, TEST_CALLER_ID));
  app_test_click (deny);
  app_test_iterate ();
  info = lumo_policy_get_caller (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, NULL);
  g_assert_cmpint (info->state, ==, LUMO_CALLER_STATE_DENIED);
  g_assert_cmpuint (g_list_model_get_n_items (pending), ==, 2);

  lumo_caller_row_set_checked (find_caller_row (f, TEST_CALLER2_ID), TRUE);
  lumo_caller_row_set_checked (find_caller_row (f, TEST_CALLER3_ID), TRUE);
  app_test_click (app_test_find_action_button (GTK_WIDGET (page), "requests.approve-selected", NULL));
  app_test_iterate ();

  g_assert_cmpuint (g_list_model_get_n_items (pending), ==, 0);
  probe (f, TEST_CALLER2_ID, "Two", &status);
  g_assert_true (status.authorized);
  probe (f, TEST_CALLER3_ID, "Three", &status);
  g_assert_true (status.authorized);
  /* The denied one stays denied. */
  probe (f, TEST_CALLER_ID, "One", &status);
  g_assert_false (status.authorized);
  g_assert_false (status.pending_approval);
}

typedef struct
{
  gboolean          done;
  LumoReviewOutcome outcome;
} ReviewResult;

static void
on_review_done_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  ReviewResult *r = user_data;
  g_autoptr(GError) error = NULL;

  r->outcome = lumo_review_queue_submit_finish (LUMO_REVIEW_QUEUE (object), result, &error);
  g_assert_no_error (error);
  r->done = TRUE;
}

static gboolean
review_done (gpointer data)
{
  return ((ReviewResult *) data)->done;
}

#define PREVIEW "{\"action\":\"update\",\"uuid\":\"0b7f2a52-4a53-4e0e-9d3e-6f1f5c3a9e11\",\"name\":\"Dark mode\"," \
                "\"bytes\":2048,\"sourceSha256\":\"" \
                "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\",\"added\":12,\"removed\":3}"

static void
run_review (AppFixture *f,
            gboolean    approve)
{
  LumoRequestsPage *page = _lumo_window_get_requests_page (f->window);
  ReviewResult result = { 0 };
  LumoReviewRequest *request;
  GtkWidget *row;
  GtkWidget *button;

  lumo_review_queue_submit_async (f->queue, TEST_PROVIDER_ID, TEST_CALLER_ID, "Helpful Agent",
                                  "userscripts.update_script", "0b7f2a52-4a53-4e0e-9d3e-6f1f5c3a9e11",
                                  PREVIEW, NULL, on_review_done_cb, &result);
  app_test_iterate ();

  g_assert_cmpuint (app_test_requests_badge (f->window, NULL), ==, 1);
  row = app_test_find_widget (GTK_WIDGET (page), LUMO_TYPE_REVIEW_ROW, 0);
  g_assert_nonnull (row);
  request = lumo_review_row_get_request (LUMO_REVIEW_ROW (row));

  g_assert_true (app_test_any_text_contains (row, "userscripts.update_script"));
  g_assert_true (app_test_any_text_contains (row, "Helpful Agent"));
  g_assert_true (app_test_any_text_contains (row, "Target: 0b7f2a52-4a53-4e0e-9d3e-6f1f5c3a9e11"));
  g_assert_true (app_test_any_text_contains (row, "Dark mode"));
  g_assert_true (app_test_any_text_contains (row, "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"));
  /* A visible countdown to the default timeout. */
  g_assert_true (app_test_any_text_contains (row, "Rejected in 1 min"));

  button = app_test_find_action_button (row, approve ? "requests.approve-review" : "requests.reject-review",
                                        g_variant_new_string (lumo_review_request_get_id (request)));
  g_assert_nonnull (button);
  app_test_click (button);
  lumo_test_wait_until (review_done, &result, "the review's outcome");

  g_assert_cmpint (result.outcome, ==, approve ? LUMO_REVIEW_OUTCOME_APPROVED : LUMO_REVIEW_OUTCOME_REJECTED);
  app_test_iterate ();
  g_assert_cmpuint (app_test_requests_badge (f->window, NULL), ==, 0);
}

static void
test_review_approve (AppFixture    *f,
                     gconstpointer  data)
{
  run_review (f, TRUE);
}

static void
test_review_reject (AppFixture    *f,
                    gconstpointer  data)
{
  run_review (f, FALSE);
}

static LumoGrantInfo *
only_grant (AppFixture *f)
{
  g_autoptr(GPtrArray) grants = lumo_policy_list_grants (f->policy, TEST_PROVIDER_ID, NULL);

  g_assert_nonnull (grants);
  g_assert_cmpuint (grants->len, ==, 1);
  return lumo_grant_info_copy (g_ptr_array_index (grants, 0));
}

static GtkWidget *
review_row_of (AppFixture *f,
               guint       nth)
{
  GtkWidget *row = app_test_find_widget (GTK_WIDGET (_lumo_window_get_requests_page (f->window)),
                                         LUMO_TYPE_REVIEW_ROW, nth);

  g_assert_nonnull (row);
  return row;
}

/* The approval is Once, For 10 Minutes or Always; the last two make a
 * grant for the caller and tool, which also lets through the write of
 * that caller and tool that waited below it — and no other. */
static void
test_review_grants (AppFixture    *f,
                    gconstpointer  data)
{
  ReviewResult first = { 0 }, same = { 0 }, other = { 0 }, timed = { 0 };
  g_autoptr(LumoGrantInfo) grant = NULL;
  g_autoptr(GPtrArray) history = NULL;
  g_autoptr(GError) error = NULL;
  LumoReviewRequest *request;
  GtkWidget *row;
  gint64 before = g_get_real_time ();

  app_fixture_add_provider (f, TEST_PROVIDER_ID, "Lumo Userscripts");
  g_assert_true (lumo_policy_allow_caller (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_no_error (error);

  lumo_review_queue_submit_async (f->queue, TEST_PROVIDER_ID, TEST_CALLER_ID, "Helpful Agent",
                                  "userscripts.update_script", NULL, PREVIEW, NULL, on_review_done_cb, &first);
  lumo_review_queue_submit_async (f->queue, TEST_PROVIDER_ID, TEST_CALLER2_ID, "Other Agent",
                                  "userscripts.update_script", NULL, PREVIEW, NULL, on_review_done_cb, &other);
  lumo_review_queue_submit_async (f->queue, TEST_PROVIDER_ID, TEST_CALLER_ID, "Helpful Agent",
                                  "userscripts.update_script", NULL, PREVIEW, NULL, on_review_done_cb, &same);
  app_test_iterate ();

  row = review_row_of (f, 0);
  request = lumo_review_row_get_request (LUMO_REVIEW_ROW (row));
  g_assert_nonnull (app_test_find_button_with_label (row, "Approve _Once"));
  g_assert_nonnull (app_test_find_button_with_label (row, "For _10 Minutes"));
  g_assert_nonnull (app_test_find_button_with_label (row, "_Always"));
  g_assert_nonnull (app_test_find_button_with_label (row, "_Reject"));
  /* The grants say in full what they let through. */
  g_assert_true (app_test_any_text_contains (row, "let Helpful Agent’s writes of this tool through without "
                                                  "asking until you revoke it on the Access page"));
  g_assert_true (app_test_any_text_contains (row, "without asking for the next 10 minutes"));

  app_test_click (app_test_find_action_button (row, "requests.approve-review-always",
                                               g_variant_new_string (lumo_review_request_get_id (request))));
  lumo_test_wait_until (review_done, &first, "the review's outcome");
  lumo_test_wait_until (review_done, &same, "the same tool's waiting write");
  g_assert_cmpint (first.outcome, ==, LUMO_REVIEW_OUTCOME_APPROVED);
  g_assert_cmpint (same.outcome, ==, LUMO_REVIEW_OUTCOME_GRANTED);
  g_assert_false (other.done);

  grant = only_grant (f);
  g_assert_cmpstr (grant->caller_id, ==, TEST_CALLER_ID);
  g_assert_cmpstr (grant->tool, ==, "userscripts.update_script");
  g_assert_cmpint (grant->scope, ==, LUMO_GRANT_SCOPE_ALWAYS);
  history = lumo_policy_list_history (f->policy, 1, NULL);
  g_assert_cmpint (((LumoHistoryEntry *) g_ptr_array_index (history, 0))->origin, ==, LUMO_POLICY_ORIGIN_UI);

  /* For 10 Minutes on the other caller's write: its own grant. */
  app_test_iterate ();
  row = review_row_of (f, 0);
  request = lumo_review_row_get_request (LUMO_REVIEW_ROW (row));
  g_assert_cmpstr (lumo_review_request_get_caller_id (request), ==, TEST_CALLER2_ID);
  g_assert_true (lumo_policy_allow_caller (f->policy, TEST_PROVIDER_ID, TEST_CALLER2_ID, LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_no_error (error);
  app_test_click (app_test_find_action_button (row, "requests.approve-review-timed",
                                               g_variant_new_string (lumo_review_request_get_id (request))));
  lumo_test_wait_until (review_done, &other, "the other caller's review");
  g_assert_cmpint (other.outcome, ==, LUMO_REVIEW_OUTCOME_APPROVED);
  {
    g_autoptr(GPtrArray) grants = lumo_policy_list_grants (f->policy, TEST_PROVIDER_ID, NULL);
    const LumoGrantInfo *g = g_ptr_array_index (grants, 0);   /* by caller: aaaa… first */

    g_assert_cmpuint (grants->len, ==, 2);
    g_assert_cmpstr (g->caller_id, ==, TEST_CALLER2_ID);
    g_assert_cmpint (g->scope, ==, LUMO_GRANT_SCOPE_TEN_MINUTES);
    g_assert_cmpint (g->expires - g->created, ==, LUMO_GRANT_TIMED_US);
    g_assert_cmpint (g->created, >=, before);
  }

  /* Approve Once makes none. */
  lumo_review_queue_submit_async (f->queue, TEST_PROVIDER_ID, TEST_CALLER_ID, "Helpful Agent",
                                  "userscripts.remove_script", NULL, PREVIEW, NULL, on_review_done_cb, &timed);
  app_test_iterate ();
  row = review_row_of (f, 0);
  request = lumo_review_row_get_request (LUMO_REVIEW_ROW (row));
  app_test_click (app_test_find_action_button (row, "requests.approve-review",
                                               g_variant_new_string (lumo_review_request_get_id (request))));
  lumo_test_wait_until (review_done, &timed, "the once review");
  g_assert_cmpint (timed.outcome, ==, LUMO_REVIEW_OUTCOME_APPROVED);
  {
    g_autoptr(GPtrArray) grants = lumo_policy_list_grants (f->policy, TEST_PROVIDER_ID, NULL);

    g_assert_cmpuint (grants->len, ==, 2);
  }
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);
  app_test_init_application ();

#define ADD(path, func) \
  g_test_add ("/requests/" path, AppFixture, GINT_TO_POINTER (TRUE), app_fixture_setup, func, app_fixture_teardown)
  ADD ("empty", test_empty_queue_says_what_appears);
  ADD ("pending-approve", test_pending_caller_appears_and_approve_allows);
  ADD ("deny-and-several", test_deny_and_decide_several);
  ADD ("review-approve", test_review_approve);
  ADD ("review-reject", test_review_reject);
  ADD ("review-grants", test_review_grants);
#undef ADD

  return g_test_run ();
}
