/* bench-policy.c — what one policy decision costs, beside a change
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The bridge's target is a probe or a read authorize through the whole
 * helper → app path within 3× of a raw pipe round trip, so the decision
 * itself must cost a few microseconds. This measures LumoPolicy alone, on
 * a real policy.db in a temporary directory: the probe of a known caller,
 * a read and a write authorize, and for scale a switch change (immediate
 * and transactional) and the coalesced bookkeeping write (built only
 * where LumoPolicy has lumo_policy_flush(), so the same program measures
 * the code before it).
 *
 * Run: <build>/tests/bench/bench-policy [ITERATIONS]
 * Figures are in docs/PERFORMANCE.md ("Policy decisions"). A command, not
 * a test: nothing here passes or fails on time.
 */
#define G_LOG_DOMAIN "bench-policy"

#include "config.h"

#include <stdlib.h>

#include "lumo-paths.h"
#include "lumo-policy.h"
#include "lumo-rate-limiter.h"
#include "lumo-test.h"

#define N_BATCHES 7

typedef struct
{
  LumoPolicy *policy;
  gint64      clock;   /* the rate limiter's, advanced so no write is limited */
  guint       i;
} Bench;

typedef void (*BenchFunc) (Bench *b);

static gint64
bench_clock (gpointer user_data)
{
  return ((Bench *) user_data)->clock;
}

static void
check (gboolean  ok,
       GError   *error)
{
  if (!ok)
    g_error ("%s", error != NULL ? error->message : "failed");
}

static void
op_probe (Bench *b)
{
  g_autoptr(GError) error = NULL;
  LumoPolicyStatus status;

  check (lumo_policy_probe (b->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, "Bench agent", &status,
                            &error), error);
  g_assert (status.authorized);
}

static void
op_authorize_read (Bench *b)
{
  g_autoptr(GError) error = NULL;
  LumoPolicyDecision decision;

  check (lumo_policy_authorize (b->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, "userscripts.list",
                                FALSE, NULL, NULL, &decision, &error), error);
  g_assert (decision.allowed);
}

static void
op_authorize_write (Bench *b)
{
  g_autoptr(GError) error = NULL;
  LumoPolicyDecision decision;

  /* 30 writes per 60 s: one every 2 s never fills the window. */
  b->clock += 2 * G_USEC_PER_SEC;
  check (lumo_policy_authorize (b->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, "userscripts.save",
                                TRUE, NULL, NULL, &decision, &error), error);
  g_assert (decision.allowed);
}

static void
op_authorize_unknown_provider (Bench *b)
{
  g_autoptr(GError) error = NULL;
  LumoPolicyDecision decision;

  check (lumo_policy_authorize (b->policy, TEST_UNKNOWN_ID, TEST_CALLER_ID,
                                "userscripts.list", FALSE, NULL, NULL, &decision, &error), error);
  g_assert (!decision.allowed);
}

static void
op_set_switch (Bench *b)
{
  g_autoptr(GError) error = NULL;

  check (lumo_policy_set_switch (b->policy, TEST_PROVIDER_ID, LUMO_POLICY_SWITCH_REVIEW,
                                 b->i++ % 2 == 0, LUMO_POLICY_ORIGIN_CLI, &error), error);
}

#ifdef LUMO_POLICY_FLUSH_DELAY_SECONDS
/* What the coalesced write costs when it runs: the counts of one caller. */
static void
op_probe_flush (Bench *b)
{
  g_autoptr(GError) error = NULL;

  op_probe (b);
  check (lumo_policy_flush (b->policy, &error), error);
}
#endif

static int
compare_double (gconstpointer a,
                gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

/* The median of N_BATCHES batch means: one slow batch (another process on
 * the machine) does not move it. */
static void
run (Bench      *b,
     const char *name,
     BenchFunc   func,
     guint       iterations)
{
  double means[N_BATCHES];

  for (guint i = 0; i < iterations / 10 + 1; i++)
    func (b);

  for (guint batch = 0; batch < N_BATCHES; batch++)
    {
      gint64 start = g_get_monotonic_time ();

      for (guint i = 0; i < iterations; i++)
        func (b);
      means[batch] = (double) (g_get_monotonic_time () - start) / iterations;
    }

  qsort (means, N_BATCHES, sizeof (double), compare_double);
  g_print ("%-34s %10.2f us   (batches %.2f .. %.2f, %u ops each)\n",
           name, means[N_BATCHES / 2], means[0], means[N_BATCHES - 1], iterations);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;
  Bench b = { 0 };
  guint iterations = argc > 1 ? (guint) g_ascii_strtoull (argv[1], NULL, 10) : 2000;

  if (iterations == 0)
    {
      g_printerr ("Usage: %s [ITERATIONS]\n", argv[0]);
      return 2;
    }

  dir = lumo_test_dir_new ("bench-policy");
  path = g_build_filename (dir, "policy.db", NULL);
  lumo_paths_set_data_dir (dir);

  b.policy = lumo_policy_new (path, &error);
  check (b.policy != NULL, error);
  b.clock = 1000 * G_USEC_PER_SEC;
  lumo_rate_limiter_set_clock (lumo_policy_get_rate_limiter (b.policy), bench_clock, &b);

  check (lumo_policy_register_provider (b.policy, TEST_PROVIDER_ID, "userscripts",
                                        "Lumo Userscripts", "1.0", &error), error);
  check (lumo_policy_add_caller (b.policy, TEST_PROVIDER_ID, TEST_CALLER_ID, "Bench agent",
                                 LUMO_POLICY_ORIGIN_CLI, &error), error);
  check (lumo_policy_set_switch (b.policy, TEST_PROVIDER_ID, LUMO_POLICY_SWITCH_REVIEW, FALSE,
                                 LUMO_POLICY_ORIGIN_CLI, &error), error);

  g_print ("LumoPolicy on %s, median of %u batches\n", "a temporary policy.db", N_BATCHES);
  run (&b, "probe (known, allowed caller)", op_probe, iterations);
  run (&b, "authorize read", op_authorize_read, iterations);
  run (&b, "authorize write (review off)", op_authorize_write, iterations);
  run (&b, "authorize, unknown provider", op_authorize_unknown_provider, iterations);
  run (&b, "set_switch (a change + history)", op_set_switch, iterations / 10 + 1);
#ifdef LUMO_POLICY_FLUSH_DELAY_SECONDS
  run (&b, "probe + flush (counts of 1 caller)", op_probe_flush, iterations / 10 + 1);
#endif

  g_clear_object (&b.policy);
  lumo_test_dir_remove (dir);

  return 0;
}
