/* test-rate-limiter.c — the exact sliding window of 30 writes per 60 s
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "lumo-protocol.h"
#include "lumo-rate-limiter.h"
#include "lumo-test-ids.h"

#define S(x) ((gint64) (x) * G_USEC_PER_SEC)
/* Two callers of one provider, KEY_A sorting first. */
#define KEY_A TEST_PROVIDER_ID "/" TEST_CALLER2_ID
#define KEY_B TEST_PROVIDER_ID "/" TEST_CALLER3_ID

typedef struct
{
  gint64           now;
  LumoRateLimiter *limiter;
  guint            n_changed;
  char            *last_changed;
} Fixture;

static gint64
fake_clock (gpointer user_data)
{
  Fixture *f = user_data;

  return f->now;
}

static void
on_changed_cb (LumoRateLimiter *limiter,
               const char      *key,
               Fixture         *f)
{
  f->n_changed++;
  g_free (f->last_changed);
  f->last_changed = g_strdup (key);
}

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  /* Monotonic clocks start anywhere: a non-zero origin catches code that
   * assumes t=0. */
  f->now = S (1000);
  f->limiter = lumo_rate_limiter_new (LUMO_RATE_LIMIT_WRITES, LUMO_RATE_LIMIT_WINDOW_US);
  lumo_rate_limiter_set_clock (f->limiter, fake_clock, f);
  g_signal_connect (f->limiter, "changed", G_CALLBACK (on_changed_cb), f);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  g_clear_object (&f->limiter);
  g_clear_pointer (&f->last_changed, g_free);
}

static guint
acquire_n (Fixture    *f,
           const char *key,
           guint       n)
{
  guint admitted = 0;

  for (guint i = 0; i < n; i++)
    if (lumo_rate_limiter_try_acquire (f->limiter, key, NULL))
      admitted++;

  return admitted;
}

static void
test_defaults (Fixture       *f,
               gconstpointer  data)
{
  g_assert_cmpuint (lumo_rate_limiter_get_limit (f->limiter), ==, 30);
  g_assert_cmpint (lumo_rate_limiter_get_window (f->limiter), ==, S (60));
}

static void
test_full_window (Fixture       *f,
                  gconstpointer  data)
{
  gint64 t0 = f->now;
  gint64 retry = -1;

  g_assert_cmpuint (acquire_n (f, KEY_A, 30), ==, 30);
  g_assert_cmpuint (f->n_changed, ==, 30);
  g_assert_cmpstr (f->last_changed, ==, KEY_A);

  g_assert_false (lumo_rate_limiter_try_acquire (f->limiter, KEY_A, &retry));
  g_assert_cmpint (retry, ==, S (60));
  g_assert_cmpuint (f->n_changed, ==, 30);   /* a refusal is not a change */

  f->now = t0 + S (60) - 1;
  g_assert_false (lumo_rate_limiter_try_acquire (f->limiter, KEY_A, &retry));
  g_assert_cmpint (retry, ==, 1);

  /* Exactly one window later, all 30 have expired. */
  f->now = t0 + S (60);
  g_assert_true (lumo_rate_limiter_try_acquire (f->limiter, KEY_A, &retry));
  g_assert_cmpint (retry, ==, 0);
  g_assert_cmpuint (acquire_n (f, KEY_A, 30), ==, 29);
}

static void
test_sliding (Fixture       *f,
              gconstpointer  data)
{
  gint64 t0 = f->now;
  gint64 retry = -1;
  guint used = 0;

  g_assert_cmpuint (acquire_n (f, KEY_A, 10), ==, 10);
  f->now = t0 + S (30);
  g_assert_cmpuint (acquire_n (f, KEY_A, 20), ==, 20);
  g_assert_false (lumo_rate_limiter_try_acquire (f->limiter, KEY_A, &retry));
  g_assert_cmpint (retry, ==, S (30));

  /* At t=60 s the first 10 have left; the 20 of t=30 s still count. */
  f->now = t0 + S (60);
  lumo_rate_limiter_usage (f->limiter, KEY_A, &used, NULL, NULL);
  g_assert_cmpuint (used, ==, 20);
  g_assert_cmpuint (acquire_n (f, KEY_A, 11), ==, 10);
  g_assert_false (lumo_rate_limiter_try_acquire (f->limiter, KEY_A, &retry));
  g_assert_cmpint (retry, ==, S (30));

  f->now = t0 + S (90);
  lumo_rate_limiter_usage (f->limiter, KEY_A, &used, NULL, NULL);
  g_assert_cmpuint (used, ==, 10);
}

static void
test_backwards_clock (Fixture       *f,
                      gconstpointer  data)
{
  gint64 t0 = f->now;
  gint64 retry = -1;

  g_assert_cmpuint (acquire_n (f, KEY_A, 30), ==, 30);

  /* A clock that jumps back a day must not reopen the window… */
  f->now = t0 - S (86400);
  g_assert_false (lumo_rate_limiter_try_acquire (f->limiter, KEY_A, &retry));
  g_assert_cmpint (retry, ==, S (60));

  /* …and when it comes back, the window is as long as it always was. */
  f->now = t0 + S (59);
  g_assert_false (lumo_rate_limiter_try_acquire (f->limiter, KEY_A, &retry));
  g_assert_cmpint (retry, ==, S (1));
  f->now = t0 + S (60);
  g_assert_true (lumo_rate_limiter_try_acquire (f->limiter, KEY_A, NULL));
}

static void
test_backwards_then_admit (Fixture       *f,
                           gconstpointer  data)
{
  gint64 t0 = f->now;
  guint used = 0;

  /* Writes admitted while the clock is behind are stamped with the latest
   * time seen, so they expire no earlier than a window after it. */
  g_assert_cmpuint (acquire_n (f, KEY_A, 1), ==, 1);
  f->now = t0 - S (30);
  g_assert_cmpuint (acquire_n (f, KEY_A, 1), ==, 1);
  f->now = t0 + S (59);
  lumo_rate_limiter_usage (f->limiter, KEY_A, &used, NULL, NULL);
  g_assert_cmpuint (used, ==, 2);
  f->now = t0 + S (60);
  lumo_rate_limiter_usage (f->limiter, KEY_A, &used, NULL, NULL);
  g_assert_cmpuint (used, ==, 0);
}

static void
test_keys_independent (Fixture       *f,
                       gconstpointer  data)
{
  g_auto(GStrv) active = NULL;
  g_autofree char *key = NULL;

  g_assert_cmpuint (acquire_n (f, KEY_A, 31), ==, 30);
  g_assert_cmpuint (acquire_n (f, KEY_B, 30), ==, 30);
  g_assert_cmpstr (f->last_changed, ==, KEY_B);

  active = lumo_rate_limiter_list_active (f->limiter);
  g_assert_cmpuint (g_strv_length (active), ==, 2);
  g_assert_cmpstr (active[0], ==, KEY_A);
  g_assert_cmpstr (active[1], ==, KEY_B);

  key = lumo_caller_key_new (TEST_PROVIDER_ID, TEST_CALLER2_ID);
  g_assert_cmpstr (key, ==, KEY_A);

  /* After a window nothing is active, and idle keys are forgotten. */
  f->now += S (60);
  g_clear_pointer (&active, g_strfreev);
  active = lumo_rate_limiter_list_active (f->limiter);
  g_assert_cmpuint (g_strv_length (active), ==, 0);
}

static void
test_usage (Fixture       *f,
            gconstpointer  data)
{
  gint64 t0 = f->now;
  guint used = 99, limit = 0;
  gint64 next_free = -1;

  lumo_rate_limiter_usage (f->limiter, KEY_A, &used, &limit, &next_free);
  g_assert_cmpuint (used, ==, 0);
  g_assert_cmpuint (limit, ==, 30);
  g_assert_cmpint (next_free, ==, 0);

  acquire_n (f, KEY_A, 3);
  f->now = t0 + S (10);
  acquire_n (f, KEY_A, 2);
  f->now = t0 + S (15);
  lumo_rate_limiter_usage (f->limiter, KEY_A, &used, &limit, &next_free);
  g_assert_cmpuint (used, ==, 5);
  g_assert_cmpint (next_free, ==, S (45));

  f->now = t0 + S (60);
  lumo_rate_limiter_usage (f->limiter, KEY_A, &used, &limit, &next_free);
  g_assert_cmpuint (used, ==, 2);
  g_assert_cmpint (next_free, ==, S (10));

  /* Reading the meter admits nothing. */
  g_assert_cmpuint (f->n_changed, ==, 5);
}

static void
test_custom_limit (void)
{
  g_autoptr(LumoRateLimiter) limiter = lumo_rate_limiter_new (2, S (1));
  gint64 retry = 0;

  g_assert_true (lumo_rate_limiter_try_acquire (limiter, "k", NULL));
  g_assert_true (lumo_rate_limiter_try_acquire (limiter, "k", NULL));
  g_assert_false (lumo_rate_limiter_try_acquire (limiter, "k", &retry));
  g_assert_cmpint (retry, >, 0);
  g_assert_cmpint (retry, <=, S (1));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("/rate-limiter/defaults", test_defaults);
  ADD ("/rate-limiter/full-window", test_full_window);
  ADD ("/rate-limiter/sliding", test_sliding);
  ADD ("/rate-limiter/backwards-clock", test_backwards_clock);
  ADD ("/rate-limiter/backwards-then-admit", test_backwards_then_admit);
  ADD ("/rate-limiter/keys-independent", test_keys_independent);
  ADD ("/rate-limiter/usage", test_usage);
#undef ADD
  g_test_add_func ("/rate-limiter/custom-limit", test_custom_limit);

  return g_test_run ();
}
