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
  g_assert_cmpuint (lumo_requests_page_get_n_waiting (page), ==, 1);
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

  g_assert_cmpuint (lumo_requests_page_get_n_waiting (page), ==, 1);
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
  g_assert_cmpuint (lumo_requests_page_get_n_waiting (page), ==, 0);
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
#undef ADD

  return g_test_run ();
}
