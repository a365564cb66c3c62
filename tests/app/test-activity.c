/* test-activity.c — the write meters and the open sessions
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "app-test-util.h"
#include "lumo-format.h"
#include "lumo-meter-row.h"
#include "lumo-protocol.h"
#include "lumo-rate-limiter.h"

static gint64 fake_now;

static gint64
fake_clock (gpointer user_data)
{
  return fake_now;
}

static void
allow_writes_without_review (AppFixture *f)
{
  g_autoptr(GError) error = NULL;

  app_fixture_add_provider (f, TEST_PROVIDER_ID, "Lumo Userscripts");
  lumo_policy_allow_caller (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, LUMO_POLICY_ORIGIN_UI, &error);
  g_assert_no_error (error);
  lumo_policy_set_switch (f->policy, TEST_PROVIDER_ID, LUMO_POLICY_SWITCH_REVIEW, FALSE,
                          LUMO_POLICY_ORIGIN_UI, &error);
  g_assert_no_error (error);
}

static LumoMeterRow *
meter_row (AppFixture *f)
{
  GtkWidget *page = GTK_WIDGET (_lumo_window_get_activity_page (f->window));

  return LUMO_METER_ROW (app_test_find_widget (page, LUMO_TYPE_METER_ROW, 0));
}

static void
test_meter_fills_and_drains (AppFixture    *f,
                             gconstpointer  data)
{
  LumoMeterModel *meters = lumo_activity_page_get_meters (_lumo_window_get_activity_page (f->window));
  LumoRateLimiter *limiter = lumo_policy_get_rate_limiter (f->policy);
  g_autoptr(GError) error = NULL;
  g_autofree char *wait = NULL;
  LumoPolicyDecision decision;
  LumoMeterItem *item;
  const guint *history;
  guint sum = 0;

  /* Ahead of the real clock: the limiter never goes back in time. */
  fake_now = g_get_monotonic_time () + (gint64) 1000 * G_USEC_PER_SEC;
  lumo_rate_limiter_set_clock (limiter, fake_clock, NULL);
  allow_writes_without_review (f);
  app_test_iterate ();

  /* An allowed agent has a meter at zero, and nothing ticks while idle. */
  item = lumo_meter_model_find (meters, TEST_PROVIDER_ID, TEST_CALLER_ID);
  g_assert_nonnull (item);
  g_assert_cmpuint (lumo_meter_item_get_used (item), ==, 0);
  g_assert_cmpuint (lumo_meter_item_get_limit (item), ==, LUMO_RATE_LIMIT_WRITES);
  g_assert_false (lumo_meter_model_get_ticking (meters));
  g_assert_nonnull (meter_row (f));
  g_assert_cmpstr (lumo_meter_row_get_status (meter_row (f)), ==, "No writes in the last minute");

  /* 30 writes, one a second, through the policy as the bridge makes them. */
  for (guint i = 0; i < LUMO_RATE_LIMIT_WRITES; i++)
    {
      lumo_policy_authorize (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, "userscripts.install",
                             TRUE, NULL, NULL, &decision, &error);
      g_assert_no_error (error);
      g_assert_true (decision.allowed);
      g_assert_cmpuint (lumo_meter_item_get_used (item), ==, i + 1);
      fake_now += G_USEC_PER_SEC;
    }
  /* Moving: the timer runs while anything is above zero. */
  g_assert_true (lumo_meter_model_get_ticking (meters));
  g_assert_true (lumo_meter_item_get_full (item));

  /* The 31st is refused, and the meter says when the next one may go. */
  lumo_policy_authorize (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, "userscripts.install",
                         TRUE, NULL, NULL, &decision, &error);
  g_assert_no_error (error);
  g_assert_false (decision.allowed);
  g_assert_cmpint (decision.reason, ==, LUMO_DENY_REASON_RATE_LIMITED);
  lumo_meter_model_tick (meters);
  g_assert_cmpuint (lumo_meter_item_get_used (item), ==, 30);
  g_assert_true (lumo_meter_item_get_full (item));
  g_assert_cmpint (lumo_meter_item_get_next_free_us (item), ==, decision.retry_after_us);
  /* The first write was 30 s ago: it leaves the window in 30 s. */
  g_assert_cmpint (decision.retry_after_us, ==, 30 * G_USEC_PER_SEC);
  wait = lumo_format_duration (decision.retry_after_us);
  g_assert_nonnull (strstr (lumo_meter_row_get_status (meter_row (f)), wait));
  g_assert_nonnull (strstr (lumo_meter_row_get_status (meter_row (f)), "Limit reached"));

  /* The sparkline holds the 30 writes. */
  history = lumo_meter_item_get_history (item);
  for (guint i = 0; i < LUMO_METER_N_BUCKETS; i++)
    sum += history[i];
  g_assert_cmpuint (sum, ==, 30);

  /* Half a minute on: the first half has drained. */
  fake_now += 30 * G_USEC_PER_SEC;
  lumo_meter_model_tick (meters);
  g_assert_cmpuint (lumo_meter_item_get_used (item), ==, 29);
  g_assert_false (lumo_meter_item_get_full (item));
  g_assert_true (lumo_meter_model_get_ticking (meters));

  /* A minute after the last write: empty, and the timer is gone. */
  fake_now += 60 * G_USEC_PER_SEC;
  lumo_meter_model_tick (meters);
  g_assert_cmpuint (lumo_meter_item_get_used (item), ==, 0);
  g_assert_cmpint (lumo_meter_item_get_next_free_us (item), ==, 0);
  g_assert_false (lumo_meter_model_get_ticking (meters));
  g_assert_cmpstr (lumo_meter_row_get_status (meter_row (f)), ==, "No writes in the last minute");

  lumo_rate_limiter_set_clock (limiter, NULL, NULL);
}

static void
test_meter_for_an_agent_that_is_not_listed (AppFixture    *f,
                                            gconstpointer  data)
{
  LumoMeterModel *meters = lumo_activity_page_get_meters (_lumo_window_get_activity_page (f->window));
  LumoRateLimiter *limiter = lumo_policy_get_rate_limiter (f->policy);
  g_autofree char *key = lumo_caller_key_new (TEST_PROVIDER_ID, TEST_CALLER2_ID);
  gint64 retry;

  fake_now = g_get_monotonic_time () + (gint64) 5000 * G_USEC_PER_SEC;
  lumo_rate_limiter_set_clock (limiter, fake_clock, NULL);

  /* Writes of a key that no allowed agent has still get a meter. */
  g_assert_null (lumo_meter_model_find (meters, TEST_PROVIDER_ID, TEST_CALLER2_ID));
  g_assert_true (lumo_rate_limiter_try_acquire (limiter, key, &retry));
  g_assert_nonnull (lumo_meter_model_find (meters, TEST_PROVIDER_ID, TEST_CALLER2_ID));
  g_assert_cmpuint (lumo_meter_item_get_used (lumo_meter_model_find (meters, TEST_PROVIDER_ID, TEST_CALLER2_ID)), ==, 1);

  fake_now += 61 * G_USEC_PER_SEC;
  lumo_meter_model_tick (meters);
  g_assert_false (lumo_meter_model_get_ticking (meters));

  lumo_rate_limiter_set_clock (limiter, NULL, NULL);
}

static void
test_sessions_placeholder (AppFixture    *f,
                           gconstpointer  data)
{
  GtkWidget *page = GTK_WIDGET (_lumo_window_get_activity_page (f->window));

  g_assert_true (app_test_any_text_contains (page, "No open sessions"));
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);
  app_test_init_application ();

#define ADD(path, func) \
  g_test_add ("/activity/" path, AppFixture, GINT_TO_POINTER (TRUE), app_fixture_setup, func, app_fixture_teardown)
  ADD ("meter", test_meter_fills_and_drains);
  ADD ("meter-unlisted", test_meter_for_an_agent_that_is_not_listed);
  ADD ("sessions", test_sessions_placeholder);
#undef ADD

  return g_test_run ();
}
