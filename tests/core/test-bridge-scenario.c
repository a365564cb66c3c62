/* test-bridge-scenario.c — plays the scenario fixtures against a backend
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of test-bridge-fixtures. Each scenario-*.json runs on a fresh backend
 * (temporary policy and audit databases, fake clock) through a detached
 * session: the same dispatch as a real connection, without pipes, so the
 * exchange is exactly the fixture's. Also the frames of frames.json, through
 * lumo_frame_decode() as the reader uses it.
 */
#include "config.h"

#include <string.h>

#include "lumo-audit-store.h"
#include "lumo-bridge-session-private.h"
#include "lumo-error.h"
#include "lumo-frame.h"
#include "lumo-protocol.h"
#include "lumo-review-queue.h"

#include "bridge-test-util.h"

typedef struct
{
  BridgeTestEnv     *env;
  LumoBridgeSession *session;
  const char        *provider_id;
  GHashTable        *audit_ids;      /* request id as JSON → auditId */
  char              *app_request_id; /* the last probeTarget id the app sent */
  guint              probe_targets_started;
  guint              probe_targets_done;
} Play;

static char *
node_key (JsonNode *node)
{
  g_autofree char *json = bridge_json_to_string (node);

  return g_steal_pointer (&json);
}

/* "<re>" and "<audit:N>" in a message the provider sends. */
static void
substitute (Play     *play,
            JsonNode *node)
{
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *object = json_node_get_object (node);
      g_autoptr(GList) members = json_object_get_members (object);

      for (GList *l = members; l != NULL; l = l->next)
        {
          JsonNode *member = json_object_get_member (object, l->data);

          if (JSON_NODE_HOLDS_VALUE (member) && json_node_get_value_type (member) == G_TYPE_STRING)
            {
              const char *s = json_node_get_string (member);

              if (g_str_equal (s, "<re>"))
                {
                  g_assert_nonnull (play->app_request_id);
                  json_object_set_string_member (object, l->data, play->app_request_id);
                }
              else if (g_str_has_prefix (s, "<audit:"))
                {
                  g_autofree char *key = g_strndup (s + 7, strlen (s) - 8);
                  gpointer id = g_hash_table_lookup (play->audit_ids, key);

                  g_assert_nonnull (id);
                  json_object_set_int_member (object, l->data, GPOINTER_TO_SIZE (id));
                }
            }
          else
            substitute (play, member);
        }
    }
}

static gboolean
has_outgoing (gpointer data)
{
  Play *play = data;

  return play->session->outgoing.length > 0;
}

static void
expect (Play     *play,
        JsonNode *expected)
{
  g_autoptr(JsonObject) actual = NULL;
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  g_autofree char *where = NULL;
  g_autofree char *field = NULL;
  g_autoptr(GError) error = NULL;

  lumo_test_wait_until (has_outgoing, play, "a frame from the session");
  actual = _lumo_bridge_session_pop_outgoing (play->session);
  json_node_set_object (node, actual);

  /* Whatever the app sends is a message the provider accepts. */
  if (!lumo_bridge_validate_app_message (actual, &field, &error))
    g_error ("The app sent an invalid message (%s): %s", error->message, bridge_json_to_string (node));

  if (!bridge_json_matches (node, expected, &where))
    g_error ("At %s the app sent\n  %s\ninstead of\n  %s", where,
             bridge_json_to_string (node), bridge_json_to_string (expected));

  if (json_object_has_member (actual, "auditId") && json_object_has_member (actual, "re"))
    g_hash_table_insert (play->audit_ids, node_key (json_object_get_member (actual, "re")),
                         GSIZE_TO_POINTER (json_object_get_int_member (actual, "auditId")));

  if (g_str_equal (json_object_get_string_member (actual, "type"), "probeTarget"))
    {
      g_free (play->app_request_id);
      play->app_request_id = g_strdup (json_object_get_string_member (actual, "id"));
    }
}

static gboolean
review_waiting (gpointer data)
{
  Play *play = data;

  return g_list_model_get_n_items (G_LIST_MODEL (lumo_backend_get_review_queue (play->env->backend))) > 0;
}

static void
on_probe_target_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  Play *play = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(LumoProbeOutcome) outcome = NULL;

  outcome = lumo_backend_probe_target_finish (LUMO_BACKEND (object), result, &error);
  g_assert_no_error (error);
  g_assert_cmpint (outcome->kind, ==, LUMO_PROBE_OUTCOME_ANSWER);
  g_assert_cmpint (lumo_probe_status_map (outcome, NULL, NULL), ==, LUMO_PROBE_ROW_CONNECTED);
  play->probe_targets_done++;
}

static void
act (Play       *play,
     JsonObject *step)
{
  const char *what = json_object_get_string_member (step, "act");
  LumoPolicy *policy = play->env->policy;
  g_autoptr(GError) error = NULL;

  if (g_str_equal (what, "allow"))
    lumo_policy_allow_caller (policy, play->provider_id, json_object_get_string_member (step, "caller"),
                              LUMO_POLICY_ORIGIN_UI, &error);
  else if (g_str_equal (what, "deny"))
    lumo_policy_deny_caller (policy, play->provider_id, json_object_get_string_member (step, "caller"),
                             LUMO_POLICY_ORIGIN_UI, &error);
  else if (g_str_equal (what, "set"))
    {
      static const char *names[] = { "enabled", "writes", "review" };
      static const LumoPolicySwitch switches[] = {
        LUMO_POLICY_SWITCH_ENABLED, LUMO_POLICY_SWITCH_WRITES, LUMO_POLICY_SWITCH_REVIEW,
      };

      for (guint i = 0; i < G_N_ELEMENTS (names); i++)
        if (json_object_has_member (step, names[i]))
          lumo_policy_set_switch (policy, play->provider_id, switches[i],
                                  json_object_get_boolean_member (step, names[i]),
                                  LUMO_POLICY_ORIGIN_UI, &error);
    }
  else if (g_str_equal (what, "review"))
    {
      LumoReviewQueue *queue = lumo_backend_get_review_queue (play->env->backend);
      g_autoptr(LumoReviewRequest) request = NULL;

      lumo_test_wait_until (review_waiting, play, "a review to wait");
      request = g_list_model_get_item (G_LIST_MODEL (queue), 0);
      /* The person sees the redacted preview, never arguments. */
      g_assert_nonnull (strstr (lumo_review_request_get_preview (request), "sourceSha256"));
      lumo_review_queue_decide (queue, lumo_review_request_get_id (request),
                                g_str_equal (json_object_get_string_member (step, "decision"), "approve"),
                                &error);
    }
  else if (g_str_equal (what, "advance"))
    {
      /* A review must be queued before its deadline can pass. */
      lumo_test_drain ();
      bridge_test_env_advance (play->env, json_object_get_int_member (step, "ms") * 1000);
    }
  else if (g_str_equal (what, "probeTarget"))
    {
      play->probe_targets_started++;
      lumo_backend_probe_target_async (play->env->backend, play->provider_id,
                                       json_object_get_string_member (step, "target"),
                                       NULL, on_probe_target_cb, play);
    }
  else
    g_error ("unknown act %s", what);

  g_assert_no_error (error);
}

static void
setup_policy (Play       *play,
              JsonObject *setup)
{
  static const char *names[] = { "enabled", "writes", "review" };
  static const LumoPolicySwitch switches[] = {
    LUMO_POLICY_SWITCH_ENABLED, LUMO_POLICY_SWITCH_WRITES, LUMO_POLICY_SWITCH_REVIEW,
  };
  LumoPolicy *policy = play->env->policy;
  g_autoptr(GError) error = NULL;

  lumo_policy_add_provider (policy, play->provider_id, LUMO_POLICY_ORIGIN_UI, &error);
  g_assert_no_error (error);

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      /* Omitted: on, except review. */
      gboolean on = json_object_get_boolean_member_with_default (setup, names[i], i != 2);

      lumo_policy_set_switch (policy, play->provider_id, switches[i], on, LUMO_POLICY_ORIGIN_UI, &error);
      g_assert_no_error (error);
    }

  for (guint k = 0; k < 2; k++)
    {
      const char *member = k == 0 ? "allowed" : "denied";
      JsonArray *ids = json_object_has_member (setup, member) ? json_object_get_array_member (setup, member) : NULL;

      for (guint i = 0; ids != NULL && i < json_array_get_length (ids); i++)
        {
          const char *id = json_array_get_string_element (ids, i);

          if (k == 0)
            lumo_policy_allow_caller (policy, play->provider_id, id, LUMO_POLICY_ORIGIN_UI, &error);
          else
            lumo_policy_deny_caller (policy, play->provider_id, id, LUMO_POLICY_ORIGIN_UI, &error);
          g_assert_no_error (error);
        }
    }
}

static gboolean
idle_session (gpointer data)
{
  return lumo_bridge_session_get_n_in_flight (((Play *) data)->session) == 0;
}

static void
test_scenario (gconstpointer data)
{
  const char *path = data;
  g_autoptr(JsonNode) root = bridge_load_json (path);
  JsonObject *file = json_node_get_object (root);
  JsonArray *exchange = json_object_get_array_member (file, "exchange");
  g_autoptr(GError) error = NULL;
  g_autofree char *provider_id = NULL;
  g_autoptr(JsonObject) extra = NULL;
  Play play = { 0 };

  provider_id = lumo_extension_id_from_origin (json_object_get_string_member (file, "origin"), &error);
  g_assert_no_error (error);

  play.env = bridge_test_env_new ();
  play.provider_id = provider_id;
  play.audit_ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  setup_policy (&play, json_object_get_object_member (file, "setup"));
  play.session = _lumo_backend_add_detached_session (play.env->backend, provider_id);

  for (guint i = 0; i < json_array_get_length (exchange); i++)
    {
      JsonObject *step = json_array_get_object_element (exchange, i);

      g_test_message ("step %u", i);
      if (json_object_has_member (step, "send"))
        {
          g_autoptr(JsonNode) message = json_node_copy (json_object_get_member (step, "send"));

          substitute (&play, message);
          _lumo_bridge_session_dispatch (play.session, json_node_get_object (message));
        }
      else if (json_object_has_member (step, "expect"))
        expect (&play, json_object_get_member (step, "expect"));
      else if (json_object_has_member (step, "act"))
        act (&play, step);
      else
        g_error ("step %u is neither send, expect nor act", i);
    }

  /* Then the app has nothing more to say. */
  lumo_test_wait_until (idle_session, &play, "the session to finish its calls");
  lumo_test_drain ();
  extra = _lumo_bridge_session_pop_outgoing (play.session);
  if (extra != NULL)
    {
      g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);

      json_node_set_object (node, extra);
      g_error ("The app sent one more message: %s", bridge_json_to_string (node));
    }
  g_assert_cmpuint (play.probe_targets_done, ==, play.probe_targets_started);

  _lumo_backend_remove_detached_session (play.env->backend, play.session);
  g_clear_object (&play.session);
  g_hash_table_unref (play.audit_ids);
  g_free (play.app_request_id);
  bridge_test_env_free (play.env);
}

void
bridge_add_scenario_tests (void)
{
  g_autoptr(GPtrArray) files = bridge_fixture_files ("scenario-");

  for (guint i = 0; i < files->len; i++)
    {
      g_autofree char *base = g_path_get_basename (g_ptr_array_index (files, i));
      g_autofree char *test_path = g_strdup_printf ("/bridge-fixtures/%s", base);

      g_test_add_data_func_full (test_path, g_strdup (g_ptr_array_index (files, i)), test_scenario, g_free);
    }
}

/* ---- frames.json ----------------------------------------------------------- */

static void
test_frames (void)
{
  g_autofree char *dir = bridge_fixture_dir ();
  g_autofree char *path = g_build_filename (dir, "frames.json", NULL);
  g_autoptr(JsonNode) root = bridge_load_json (path);
  JsonArray *frames = json_object_get_array_member (json_node_get_object (root), "frames");

  for (guint i = 0; i < json_array_get_length (frames); i++)
    {
      JsonObject *frame = json_array_get_object_element (frames, i);
      g_autoptr(GBytes) bytes = bridge_frame_bytes (frame);
      g_autoptr(JsonObject) object = NULL;
      g_autoptr(GError) error = NULL;
      gboolean in_sync = FALSE;
      gsize consumed = 0;
      gboolean ok;
      JsonNode *expect_error = json_object_get_member (frame, "error");
      gboolean close = json_object_get_boolean_member_with_default (frame, "close", FALSE);

      g_test_message ("frame: %s", json_object_get_string_member (frame, "name"));
      ok = lumo_frame_decode (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes),
                              &consumed, &object, &in_sync, &error);

      if (json_object_get_boolean_member (frame, "valid"))
        {
          g_assert_no_error (error);
          g_assert_true (ok);
          g_assert_cmpuint (consumed, ==, g_bytes_get_size (bytes));
          continue;
        }

      g_assert_false (ok);
      if (expect_error == NULL)
        {
          /* The stream ends inside the frame: not decodable, no answer. */
          g_assert_no_error (error);
          g_assert_true (close);
          continue;
        }

      g_assert_nonnull (error);
      g_assert_cmpint (in_sync, ==, !close);
      {
        g_autoptr(LumoBridgeFault) fault = lumo_bridge_fault_new_for_frame_error (error);
        const char *code = json_object_get_string_member (json_node_get_object (expect_error), "code");

        g_assert_cmpstr (lumo_bridge_error_code_to_string (fault->code), ==, code);
        g_assert_null (fault->re);
      }
      if (in_sync)
        g_assert_cmpuint (consumed, ==, g_bytes_get_size (bytes));
    }
}

void
bridge_add_frame_tests (void)
{
  g_test_add_func ("/bridge-fixtures/frames.json", test_frames);
}
