/* lumo-test-policy.h — a LumoPolicy on a fresh file, for the policy tests
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoTestPolicy owns a temporary directory (also the data dir), the
 * policy.db in it, the LumoPolicy open on it, a record of every signal the
 * policy emits, and the rate limiter's clock. It is a GTest fixture:
 * lumo_test_policy_add ("/policy/x", test_x) runs test_x on a fresh one.
 *
 * The helpers below act as TEST_PROVIDER_ID's owner would and assert that
 * each step succeeded, so a test states only what it checks.
 */
#pragma once

#include "lumo-policy.h"
#include "lumo-test.h"

G_BEGIN_DECLS

typedef struct
{
  char       *dir;
  char       *path;     /* dir/policy.db */
  LumoPolicy *policy;
  /* Every signal of @policy in order, as "provider-changed:PROVIDER",
   * "caller-changed:PROVIDER/CALLER" (and caller-pending, revoked),
   * "agent-changed:AGENT", "grant-changed:PROVIDER/CALLER/TOOL" or
   * "history-changed". A test may empty it (g_ptr_array_set_size). */
  GPtrArray  *events;
  gint64      now;      /* the policy's clock (its limiters), µs; starts at 1000 s */
  gint64      wall;     /* its wall clock (review grants), µs; starts at 2024-01-01 */
} LumoTestPolicy;

typedef void (*LumoTestPolicyFunc) (LumoTestPolicy *f,
                                    gconstpointer   data);

/* g_test_add() of @func as @path, with set-up and tear-down below. */
void            lumo_test_policy_add             (const char        *path,
                                                  LumoTestPolicyFunc func);
void            lumo_test_policy_set_up          (LumoTestPolicy   *f,
                                                  gconstpointer     data);
void            lumo_test_policy_tear_down       (LumoTestPolicy   *f,
                                                  gconstpointer     data);

/* How many times @signal_name ("provider-changed", "caller-changed",
 * "caller-pending", "revoked") was emitted for TEST_PROVIDER_ID and, for
 * the caller signals, @caller; "history-changed" takes no caller; for
 * "grant-changed", @caller is "CALLER/TOOL". */
guint           lumo_test_policy_count_events    (LumoTestPolicy   *f,
                                                  const char       *signal_name,
                                                  const char       *caller);
/* Iterates the main context until that signal came (from the file
 * monitor, a flush timeout); fails the test past the wait deadline. */
void            lumo_test_policy_wait_for_event  (LumoTestPolicy   *f,
                                                  const char       *signal_name,
                                                  const char       *caller);

/* TEST_PROVIDER_ID says hello: namespace "userscripts", "Lumo
 * Userscripts", version 1.0.1. */
void            lumo_test_policy_register        (LumoTestPolicy   *f);
/* A person allows @caller for TEST_PROVIDER_ID (origin UI). */
void            lumo_test_policy_allow           (LumoTestPolicy   *f,
                                                  const char       *caller);
/* lumo-access-ctl sets TEST_PROVIDER_ID's switch @sw (origin CLI). */
void            lumo_test_policy_set_switch      (LumoTestPolicy   *f,
                                                  LumoPolicySwitch  sw,
                                                  gboolean          on);
/* Asks whether @caller may call "userscripts.save" of @provider now;
 * checks that `allowed`, the reason and the retry delay agree, and
 * returns the reason (and the delay in @retry_after, optional). */
LumoDenyReason  lumo_test_policy_authorize       (LumoTestPolicy   *f,
                                                  const char       *provider,
                                                  const char       *caller,
                                                  gboolean          is_write,
                                                  gint64           *retry_after);
/* The same for TEST_PROVIDER_ID: a read, a write. */
LumoDenyReason  lumo_test_policy_read            (LumoTestPolicy   *f,
                                                  const char       *caller);
LumoDenyReason  lumo_test_policy_write           (LumoTestPolicy   *f,
                                                  const char       *caller,
                                                  gint64           *retry_after);

G_END_DECLS
