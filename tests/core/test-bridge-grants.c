/* test-bridge-grants.c — review grants through a real bridge session: a
 * person's decision that makes one, the writes it lets through, and what
 * their audit rows say
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "lumo-audit-store.h"
#include "lumo-backend.h"
#include "lumo-error.h"
#include "lumo-review-queue.h"

#include "bridge-test-peer.h"

#define HASH "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
#define TOOL "userscripts.save_script"

#define HELLO \
  "{\"type\":\"hello\",\"id\":1,\"bridge\":1," \
  "\"service\":{\"namespace\":\"userscripts\",\"name\":\"Lumo Userscripts\",\"version\":\"1.0.1\"}," \
  "\"tools\":[{\"name\":\"list_scripts\",\"write\":false},{\"name\":\"save_script\",\"write\":true}," \
  "{\"name\":\"remove_script\",\"write\":true}]}"

typedef struct
{
  BridgeTestEnv *env;
  Peer          *peer;
  gint64         wall;
} Fixture;

static gint64
wall_clock (gpointer user_data)
{
  return ((Fixture *) user_data)->wall;
}

static void
setup (Fixture       *f,
       gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  f->env = bridge_test_env_new ();
  f->wall = G_GINT64_CONSTANT (1704067200) * G_USEC_PER_SEC;
  lumo_policy_set_wall_clock (f->env->policy, wall_clock, f);

  lumo_policy_add_provider (f->env->policy, TEST_PROVIDER_ID, LUMO_POLICY_ORIGIN_UI, &error);
  g_assert_no_error (error);
  lumo_policy_allow_caller (f->env->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, LUMO_POLICY_ORIGIN_UI, &error);
  g_assert_no_error (error);
  lumo_policy_allow_caller (f->env->policy, TEST_PROVIDER_ID, TEST_CALLER2_ID, LUMO_POLICY_ORIGIN_UI, &error);
  g_assert_no_error (error);

  f->peer = peer_new (f->env, TEST_PROVIDER_ORIGIN);
  peer_send (f->peer, HELLO);
  peer_expect (f->peer, "{\"type\":\"hello.result\",\"re\":1}");
}

static void
teardown (Fixture       *f,
          gconstpointer  data)
{
  peer_free (f->peer);
  bridge_test_env_free (f->env);
}

static char *
write_request (guint       id,
               const char *caller,
               const char *tool)
{
  return g_strdup_printf ("{\"type\":\"authorize\",\"id\":%u,\"caller\":{\"id\":\"%s\",\"name\":\"Lumo\"},"
                          "\"tool\":\"%s\",\"write\":true,"
                          "\"target\":\"0f8fad5b-d9cb-469f-a165-70867728950e\",\"paramsHash\":\"" HASH "\","
                          "\"preview\":{\"name\":\"Dark mode\",\"bytes\":812}}",
                          id, caller, tool);
}

static void
send_write (Fixture    *f,
            guint       id,
            const char *caller)
{
  g_autofree char *request = write_request (id, caller, "save_script");

  peer_send (f->peer, request);
}

static LumoReviewQueue *
queue (Fixture *f)
{
  return lumo_backend_get_review_queue (f->env->backend);
}

typedef struct
{
  Fixture *f;
  guint    n;
} QueueWait;

static gboolean
queue_has (gpointer data)
{
  QueueWait *wait = data;

  return g_list_model_get_n_items (G_LIST_MODEL (queue (wait->f))) == wait->n;
}

static void
wait_for_reviews (Fixture *f,
                  guint    n)
{
  QueueWait wait = { f, n };

  lumo_test_wait_until (queue_has, &wait, "the reviews to wait");
}

/* The id of the review waiting at @position. */
static char *
review_id (Fixture *f,
           guint    position)
{
  g_autoptr(LumoReviewRequest) request = g_list_model_get_item (G_LIST_MODEL (queue (f)), position);

  g_assert_nonnull (request);
  return g_strdup (lumo_review_request_get_id (request));
}

static gint64
expect_answer (Fixture    *f,
               guint       re,
               const char *rest)
{
  g_autoptr(JsonObject) answer = peer_recv (f->peer);
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  g_autofree char *want_text = g_strdup_printf ("{\"type\":\"authorize.result\",\"re\":%u,%s}", re, rest);
  g_autoptr(JsonNode) want = json_from_string (want_text, NULL);
  g_autofree char *where = NULL;

  g_assert_nonnull (answer);
  json_node_set_object (node, answer);
  if (!bridge_json_matches (node, want, &where))
    g_error ("At %s the app sent\n  %s\ninstead of\n  %s", where, bridge_json_to_string (node), want_text);

  return json_object_get_int_member_with_default (answer, "auditId", 0);
}

static LumoAuditRow *
audit_row (Fixture *f,
           gint64   id)
{
  g_autoptr(GError) error = NULL;
  LumoAuditRow *row = lumo_audit_store_get_row (lumo_backend_get_audit_store (f->env->backend), id, &error);

  g_assert_no_error (error);
  g_assert_nonnull (row);
  return row;
}

static gboolean
row_by_grant (Fixture *f,
              gint64   id)
{
  g_autoptr(LumoAuditRow) row = audit_row (f, id);

  return lumo_audit_row_get_by_grant (row);
}

static void
decide (Fixture        *f,
        const char     *id,
        gboolean        approve,
        LumoGrantScope  grant)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (lumo_backend_decide_review (f->env->backend, id, approve, grant, LUMO_POLICY_ORIGIN_UI,
                                             &error));
  g_assert_no_error (error);
}

/* ---- tests ----------------------------------------------------------------- */

static void
test_always (Fixture       *f,
             gconstpointer  data)
{
  g_autofree char *id = NULL;
  g_autofree char *other_tool = write_request (13, TEST_CALLER_ID, "remove_script");
  g_autoptr(GPtrArray) grants = NULL;
  gint64 first, second, third;

  /* Asked once, approved always: the person approved this one. */
  send_write (f, 10, TEST_CALLER_ID);
  wait_for_reviews (f, 1);
  id = review_id (f, 0);
  decide (f, id, TRUE, LUMO_GRANT_SCOPE_ALWAYS);
  first = expect_answer (f, 10, "\"allow\":true");
  g_assert_false (row_by_grant (f, first));

  grants = lumo_policy_list_grants (f->env->policy, TEST_PROVIDER_ID, NULL);
  g_assert_cmpuint (grants->len, ==, 1);
  g_assert_cmpstr (((LumoGrantInfo *) g_ptr_array_index (grants, 0))->tool, ==, TOOL);

  /* The next one is let through at once, and its row says by whom. */
  send_write (f, 11, TEST_CALLER_ID);
  second = expect_answer (f, 11, "\"allow\":true");
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (queue (f))), ==, 0);
  g_assert_true (row_by_grant (f, second));
  {
    g_autoptr(LumoAuditRow) row = audit_row (f, second);

    g_assert_cmpint (lumo_audit_row_get_decision (row), ==, LUMO_AUDIT_DECISION_ALLOW);
    g_assert_cmpstr (lumo_audit_row_get_tool (row), ==, TOOL);
  }

  /* Another caller, and another tool of the same caller, still ask. */
  send_write (f, 12, TEST_CALLER2_ID);
  peer_send (f->peer, other_tool);
  wait_for_reviews (f, 2);
  g_clear_pointer (&id, g_free);
  id = review_id (f, 0);
  decide (f, id, FALSE, LUMO_GRANT_SCOPE_ALWAYS);   /* the scope means nothing to a rejection */
  third = expect_answer (f, 12, "\"allow\":false,\"reason\":\"review_rejected\"");
  g_assert_false (row_by_grant (f, third));
  g_clear_pointer (&id, g_free);
  id = review_id (f, 0);
  decide (f, id, TRUE, LUMO_GRANT_SCOPE_ONCE);
  third = expect_answer (f, 13, "\"allow\":true");
  g_assert_false (row_by_grant (f, third));

  /* Neither made a grant. */
  g_clear_pointer (&grants, g_ptr_array_unref);
  grants = lumo_policy_list_grants (f->env->policy, TEST_PROVIDER_ID, NULL);
  g_assert_cmpuint (grants->len, ==, 1);
}

/* Writes of the same caller and tool that were already waiting are what
 * the person just granted: they go through with it. */
static void
test_waiting_writes_covered (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *id = NULL;
  gint64 a, b, c;

  send_write (f, 20, TEST_CALLER_ID);
  send_write (f, 21, TEST_CALLER2_ID);
  send_write (f, 22, TEST_CALLER_ID);
  wait_for_reviews (f, 3);

  id = review_id (f, 0);
  decide (f, id, TRUE, LUMO_GRANT_SCOPE_TEN_MINUTES);
  a = expect_answer (f, 20, "\"allow\":true");
  b = expect_answer (f, 22, "\"allow\":true");
  g_assert_false (row_by_grant (f, a));
  g_assert_true (row_by_grant (f, b));

  /* The other caller's write still waits for its own decision. */
  wait_for_reviews (f, 1);
  g_clear_pointer (&id, g_free);
  id = review_id (f, 0);
  decide (f, id, FALSE, LUMO_GRANT_SCOPE_ONCE);
  c = expect_answer (f, 21, "\"allow\":false,\"reason\":\"review_rejected\"");
  g_assert_false (row_by_grant (f, c));
}

static void
test_ten_minutes_then_asks_again (Fixture       *f,
                                  gconstpointer  data)
{
  g_autofree char *id = NULL;
  gint64 granted;

  send_write (f, 30, TEST_CALLER_ID);
  wait_for_reviews (f, 1);
  id = review_id (f, 0);
  decide (f, id, TRUE, LUMO_GRANT_SCOPE_TEN_MINUTES);
  expect_answer (f, 30, "\"allow\":true");

  f->wall += LUMO_GRANT_TIMED_US - 1;
  send_write (f, 31, TEST_CALLER_ID);
  granted = expect_answer (f, 31, "\"allow\":true");
  g_assert_true (row_by_grant (f, granted));

  /* Run out: the next write waits for a person again. */
  f->wall += 1;
  send_write (f, 32, TEST_CALLER_ID);
  wait_for_reviews (f, 1);
  g_clear_pointer (&id, g_free);
  id = review_id (f, 0);
  decide (f, id, FALSE, LUMO_GRANT_SCOPE_ONCE);
  expect_answer (f, 32, "\"allow\":false,\"reason\":\"review_rejected\"");
}

/* The writes switch wins over a grant; the denial's row is no grant's. */
static void
test_writes_off_wins (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  gint64 denied;

  g_assert_true (lumo_policy_add_grant (f->env->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, TOOL,
                                        LUMO_GRANT_SCOPE_ALWAYS, LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_no_error (error);
  lumo_policy_set_switch (f->env->policy, TEST_PROVIDER_ID, LUMO_POLICY_SWITCH_WRITES, FALSE,
                          LUMO_POLICY_ORIGIN_UI, &error);
  g_assert_no_error (error);
  peer_expect (f->peer, "{\"type\":\"policy\",\"writes\":false}");

  send_write (f, 40, TEST_CALLER_ID);
  denied = expect_answer (f, 40, "\"allow\":false,\"reason\":\"writes_off\"");
  g_assert_false (row_by_grant (f, denied));
}

/* Writes turned off while two writes wait: approving one always still
 * answers both writes_off — denials, whose rows are no grant's (a row
 * that said so would be refused by the store: audit_failed). */
static void
test_writes_off_while_waiting (Fixture       *f,
                               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *id = NULL;
  gint64 a, b;

  send_write (f, 60, TEST_CALLER_ID);
  send_write (f, 61, TEST_CALLER_ID);
  wait_for_reviews (f, 2);
  lumo_policy_set_switch (f->env->policy, TEST_PROVIDER_ID, LUMO_POLICY_SWITCH_WRITES, FALSE,
                          LUMO_POLICY_ORIGIN_UI, &error);
  g_assert_no_error (error);
  peer_expect (f->peer, "{\"type\":\"policy\",\"writes\":false}");

  id = review_id (f, 0);
  decide (f, id, TRUE, LUMO_GRANT_SCOPE_ALWAYS);
  a = expect_answer (f, 60, "\"allow\":false,\"reason\":\"writes_off\"");
  b = expect_answer (f, 61, "\"allow\":false,\"reason\":\"writes_off\"");
  g_assert_false (row_by_grant (f, a));
  g_assert_false (row_by_grant (f, b));
}

/* A grant-allowed write takes its slot like any other: the 31st in the
 * window is refused, and its row is a denial (never audit_failed). */
static void
test_limit_counts (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  gint64 refused;

  g_assert_true (lumo_policy_add_grant (f->env->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, TOOL,
                                        LUMO_GRANT_SCOPE_ALWAYS, LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_no_error (error);

  for (guint i = 0; i < LUMO_RATE_LIMIT_WRITES; i++)
    {
      send_write (f, 100 + i, TEST_CALLER_ID);
      g_assert_true (row_by_grant (f, expect_answer (f, 100 + i, "\"allow\":true")));
    }
  send_write (f, 200, TEST_CALLER_ID);
  refused = expect_answer (f, 200, "\"allow\":false,\"reason\":\"rate_limited\"");
  g_assert_false (row_by_grant (f, refused));
}

/* A grant that cannot be made decides nothing: the write still waits. */
static void
test_failed_grant_decides_nothing (Fixture       *f,
                                   gconstpointer  data)
{
  g_autoptr(LumoPolicy) cli = NULL;
  g_autoptr(GPtrArray) grants = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *id = NULL;
  g_autofree char *path = g_build_filename (f->env->dir, "policy.db", NULL);

  send_write (f, 50, TEST_CALLER_ID);
  wait_for_reviews (f, 1);
  id = review_id (f, 0);

  g_assert_false (lumo_backend_decide_review (f->env->backend, "0b9c1a52-6e1d-4d0b-9f6c-2f1f3c6a8e21",
                                              TRUE, LUMO_GRANT_SCOPE_ALWAYS, LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND);
  g_clear_error (&error);

  /* lumo-access-ctl denies the caller; before the app hears of it, the
   * person clicks Always. */
  cli = lumo_policy_new (path, &error);
  g_assert_no_error (error);
  g_assert_true (lumo_policy_deny_caller (cli, TEST_PROVIDER_ID, TEST_CALLER_ID, LUMO_POLICY_ORIGIN_CLI, &error));
  g_assert_no_error (error);

  g_assert_false (lumo_backend_decide_review (f->env->backend, id, TRUE, LUMO_GRANT_SCOPE_ALWAYS,
                                              LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_NOT_AUTHORIZED);
  g_clear_error (&error);
  g_assert_nonnull (lumo_review_queue_lookup (queue (f), id));
  grants = lumo_policy_list_grants (f->env->policy, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (grants->len, ==, 0);

  /* Then the app hears of the deny: the write is answered as what it is. */
  g_assert_true (lumo_policy_refresh (f->env->policy, &error));
  g_assert_no_error (error);
  peer_expect (f->peer, "{\"type\":\"policy\",\"revoked\":[\"" TEST_CALLER_ID "\"]}");
  expect_answer (f, 50, "\"allow\":false,\"reason\":\"not_authorized\"");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(name, func) g_test_add ("/bridge-grants/" name, Fixture, NULL, setup, func, teardown)
  ADD ("always", test_always);
  ADD ("waiting-writes-covered", test_waiting_writes_covered);
  ADD ("ten-minutes-then-asks-again", test_ten_minutes_then_asks_again);
  ADD ("writes-off-wins", test_writes_off_wins);
  ADD ("writes-off-while-waiting", test_writes_off_while_waiting);
  ADD ("limit-counts", test_limit_counts);
  ADD ("failed-grant-decides-nothing", test_failed_grant_decides_nothing);
#undef ADD

  return g_test_run ();
}
