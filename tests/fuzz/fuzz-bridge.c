/* fuzz-bridge.c — libFuzzer target: bytes → frames → bridge dispatch → decisions
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One input is one provider connection. Byte 0 sets the scene (bits below);
 * the rest is the byte stream Chrome would write: frames are cut with
 * lumo_frame_decode(), exactly as LumoFrameReader does, and each goes to
 * _lumo_bridge_session_dispatch() on a detached session of a backend whose
 * policy and audit databases live in a temporary directory made once per
 * process. No pipes, no real I/O besides SQLite. The corpus speaks for
 * TEST_PROVIDER_ID; TEST_CALLER_ID is allowed, TEST_CALLER2_ID denied.
 * With SCENE_AGENT, once the provider said hello the app opens a virtual
 * port "a1" for TEST_AGENT_ID (allowed too) and a desktop agent's session
 * of the gateway sends initialize, which opens "a2": the provider's
 * agentMessage and agentClose then reach both.
 *
 * Oracles beyond the sanitizers: everything the app sends must pass
 * lumo_bridge_validate_app_message(), the in-flight count never passes its
 * cap, and every request is answered once the reviews are decided. Names
 * are display text wherever they land (a new pending caller, a review
 * waiting), every preview a reviewer would see formats to display text,
 * and no input makes more than LUMO_POLICY_MAX_NEW_PENDING new callers
 * pending within the window. What a virtual port delivers and what an
 * agent's session tells the agent is a JSON-RPC object, and the agent's
 * initialize gets exactly one answer by the time the provider's session
 * is gone.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "lumo-backend.h"
#include "lumo-bridge-message.h"
#include "lumo-bridge-session-private.h"
#include "lumo-gateway.h"
#include "lumo-frame.h"
#include "lumo-policy.h"
#include "lumo-preview.h"
#include "lumo-review-queue.h"
#include "lumo-test.h"

enum {
  SCENE_DISABLED     = 1 << 0,
  SCENE_WRITES_OFF   = 1 << 1,
  SCENE_REVIEW       = 1 << 2,
  SCENE_APPROVE      = 1 << 3,   /* decide reviews: approve, else reject */
  SCENE_PROBE_TARGET = 1 << 4,   /* the app sends probeTarget after hello */
  SCENE_TIME_OUT     = 1 << 5,   /* let reviews time out instead */
  SCENE_AGENT        = 1 << 6,   /* virtual ports after hello (above) */
};

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static char *data_dir;
static guint new_pending;   /* ::caller-pending of this input */
static LumoBackend *backend;
static LumoGateway *gateway;
static char *agent_id;
static gint64 fake_now = 1000 * G_USEC_PER_SEC;

static gint64
fake_clock (gpointer user_data)
{
  return fake_now;
}

static void
remove_data_dir (void)
{
  if (data_dir != NULL)
    lumo_test_dir_remove (data_dir);
}

/* Text a row or a notification may show: UTF-8 with no control, line or
 * paragraph separator or bidi control; @lines allows '\n' between rows. */
static void
assert_display_text (const char *what,
                     const char *text,
                     gboolean    lines)
{
  if (text == NULL)
    return;
  if (!g_utf8_validate (text, -1, NULL))
    g_error ("%s is not UTF-8", what);

  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (lines && c == '\n')
        continue;
      if (g_unichar_iscntrl (c) || c == 0x061c || c == 0x200e || c == 0x200f ||
          (c >= 0x2028 && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069))
        g_error ("%s holds U+%04X: %s", what, c, text);
    }
}

static void
on_caller_pending_cb (LumoPolicy *policy,
                      const char *provider_id,
                      const char *caller_id,
                      gpointer    user_data)
{
  g_autoptr(LumoCallerInfo) info = lumo_policy_get_caller (policy, provider_id, caller_id, NULL);

  new_pending++;
  g_assert_true (lumo_is_extension_id (caller_id));
  if (info != NULL)
    assert_display_text ("A pending caller's name", info->display_name, FALSE);
}

/* What the Requests page and the notification would show of each review. */
static void
check_reviews (void)
{
  LumoReviewQueue *queue = lumo_backend_get_review_queue (backend);

  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (queue)); i++)
    {
      g_autoptr(LumoReviewRequest) request = g_list_model_get_item (G_LIST_MODEL (queue), i);
      g_autoptr(GPtrArray) fields = lumo_preview_format (lumo_review_request_get_preview (request), NULL);
      g_autofree char *text = lumo_preview_to_text (lumo_review_request_get_preview (request));

      assert_display_text ("A review's caller name", lumo_review_request_get_caller_name (request), FALSE);
      for (guint j = 0; j < fields->len; j++)
        {
          const LumoPreviewField *field = g_ptr_array_index (fields, j);

          assert_display_text ("A preview label", field->label, FALSE);
          assert_display_text ("A preview value", field->value, FALSE);
        }
      assert_display_text ("A preview's text", text, TRUE);
    }
}

static void
setup_once (void)
{
  g_autoptr(GError) error = NULL;
  LumoPolicy *policy;

  if (backend != NULL)
    return;

  /* The fuzzer logs nothing but crashes. */
  g_log_set_writer_func (g_log_writer_default, NULL, NULL);
  g_setenv ("G_MESSAGES_DEBUG", "", TRUE);

  data_dir = lumo_test_dir_new ("fuzz");
  atexit (remove_data_dir);

  backend = lumo_backend_new_for_data_dir (data_dir, LUMO_AUDIT_STORE_FLAGS_NONE, &error);
  g_assert_no_error (error);
  lumo_backend_set_clock (backend, fake_clock, NULL);

  policy = lumo_backend_get_policy (backend);
  g_signal_connect (policy, "caller-pending", G_CALLBACK (on_caller_pending_cb), NULL);
  lumo_policy_add_provider (policy, TEST_PROVIDER_ID, LUMO_POLICY_ORIGIN_UI, &error);
  g_assert_no_error (error);
  lumo_policy_allow_caller (policy, TEST_PROVIDER_ID, TEST_CALLER_ID, LUMO_POLICY_ORIGIN_UI,
                            &error);
  g_assert_no_error (error);
  lumo_policy_deny_caller (policy, TEST_PROVIDER_ID, TEST_CALLER2_ID, LUMO_POLICY_ORIGIN_UI,
                           &error);
  g_assert_no_error (error);
  lumo_policy_allow_caller (policy, TEST_PROVIDER_ID, TEST_AGENT_ID, LUMO_POLICY_ORIGIN_UI,
                            &error);
  g_assert_no_error (error);

  {
    const char *providers[] = { TEST_PROVIDER_ID, NULL };
    g_autofree char *token = NULL;

    lumo_policy_register_provider (policy, TEST_PROVIDER_ID, "userscripts", "Lumo Userscripts", "1",
                                   &error);
    g_assert_no_error (error);
    lumo_policy_add_agent (policy, "Fuzzy Agent", providers, LUMO_POLICY_ORIGIN_UI, &agent_id, &token,
                           &error);
    g_assert_no_error (error);
  }
  gateway = lumo_gateway_new (backend);
  lumo_gateway_set_enabled (gateway, TRUE);
}

/* ---- desktop agents ------------------------------------------------------ */

typedef struct
{
  LumoAgentPort    *port;       /* "a1", for TEST_AGENT_ID */
  LumoAgentSession *session;    /* the gateway's, on "a2" */
  guint             answers;    /* to the agent's initialize */
} Agents;

static void
on_port_message_cb (LumoAgentPort *port,
                    JsonObject    *message,
                    gpointer       user_data)
{
  g_assert_true (lumo_bridge_is_jsonrpc_message (message));
}

static void
on_session_message_cb (LumoAgentSession *session,
                       JsonObject       *message,
                       JsonNode         *related,
                       Agents           *agents)
{
  JsonNode *id = json_object_get_member (message, "id");

  g_assert_true (lumo_bridge_is_jsonrpc_message (message));
  if (id != NULL && JSON_NODE_HOLDS_VALUE (id) && json_node_get_value_type (id) == G_TYPE_STRING &&
      g_str_equal (json_node_get_string (id), "fuzz-init") && !json_object_has_member (message, "method"))
    agents->answers++;
}

static void
open_agents (Agents *agents,
             guint8  scene)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  LumoGatewayVerdict verdict;

  agents->port = lumo_backend_open_agent_port (backend, TEST_PROVIDER_ID, TEST_AGENT_ID, "Fuzzy Agent", &error);
  g_assert_no_error (error);
  g_signal_connect (agents->port, "message", G_CALLBACK (on_port_message_cb), NULL);

  /* The policy's word, as for any caller: no session on a provider that
   * is turned off. */
  agents->session = lumo_gateway_open_session (gateway, agent_id, TEST_PROVIDER_ID, "stdio", &verdict);
  if (scene & SCENE_DISABLED)
    {
      g_assert_null (agents->session);
      g_assert_cmpint (verdict, ==, LUMO_GATEWAY_DISABLED);
      return;
    }
  g_assert_cmpint (verdict, ==, LUMO_GATEWAY_OK);
  g_signal_connect (agents->session, "message", G_CALLBACK (on_session_message_cb), agents);
  g_assert_true (json_parser_load_from_data (parser,
                                             "{\"jsonrpc\":\"2.0\",\"id\":\"fuzz-init\",\"method\":\"initialize\","
                                             "\"params\":{\"protocolVersion\":\"2025-06-18\"}}", -1, NULL));
  g_assert_true (lumo_agent_session_receive (agents->session, json_node_get_object (json_parser_get_root (parser)),
                                             &error));
  g_assert_no_error (error);
}

static void
close_agents (Agents *agents)
{
  if (agents->session != NULL)
    {
      /* The provider is gone: its answer came, or the session's. */
      g_assert_cmpuint (agents->answers, ==, 1);
      lumo_agent_session_close (agents->session, "The fuzz input ended.");
      g_signal_handlers_disconnect_by_data (agents->session, agents);
      g_clear_object (&agents->session);
    }
  if (agents->port != NULL)
    {
      lumo_agent_port_close (agents->port, "The fuzz input ended.");
      g_clear_object (&agents->port);
    }
}

static void
set_scene (guint8 scene)
{
  LumoPolicy *policy = lumo_backend_get_policy (backend);
  g_autoptr(GError) error = NULL;

  lumo_policy_set_switch (policy, TEST_PROVIDER_ID, LUMO_POLICY_SWITCH_ENABLED,
                          !(scene & SCENE_DISABLED),
                          LUMO_POLICY_ORIGIN_UI, &error);
  g_assert_no_error (error);
  lumo_policy_set_switch (policy, TEST_PROVIDER_ID, LUMO_POLICY_SWITCH_WRITES,
                          !(scene & SCENE_WRITES_OFF),
                          LUMO_POLICY_ORIGIN_UI, &error);
  g_assert_no_error (error);
  lumo_policy_set_switch (policy, TEST_PROVIDER_ID, LUMO_POLICY_SWITCH_REVIEW,
                          !!(scene & SCENE_REVIEW),
                          LUMO_POLICY_ORIGIN_UI, &error);
  g_assert_no_error (error);
}

static void
check_outgoing (LumoBridgeSession *session)
{
  JsonObject *object;

  while ((object = _lumo_bridge_session_pop_outgoing (session)) != NULL)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *field = NULL;

      if (!lumo_bridge_validate_app_message (object, &field, &error))
        g_error ("The app sent an invalid message: %s", error->message);
      json_object_unref (object);
    }

  g_assert_cmpuint (lumo_bridge_session_get_n_in_flight (session), <=, LUMO_BRIDGE_MAX_IN_FLIGHT);
}

static void
on_probe_target_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(LumoProbeOutcome) outcome = NULL;
  g_autoptr(GError) error = NULL;

  outcome = lumo_backend_probe_target_finish (LUMO_BACKEND (object), result, &error);
  if (outcome != NULL)
    lumo_probe_status_map (outcome, NULL, NULL);
}

static void
decide_reviews (guint8 scene)
{
  LumoReviewQueue *queue = lumo_backend_get_review_queue (backend);

  if (scene & SCENE_TIME_OUT)
    {
      fake_now += (gint64) (LUMO_REVIEW_MAX_TIMEOUT_S + 1) * G_USEC_PER_SEC;
      g_main_context_wakeup (NULL);
      return;
    }

  while (g_list_model_get_n_items (G_LIST_MODEL (queue)) > 0)
    {
      g_autoptr(LumoReviewRequest) request = g_list_model_get_item (G_LIST_MODEL (queue), 0);

      lumo_review_queue_decide (queue, lumo_review_request_get_id (request), !!(scene & SCENE_APPROVE), NULL);
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(LumoBridgeSession) session = NULL;
  gboolean probe_target_sent = FALSE;
  Agents agents = { NULL, NULL, 0 };
  guint8 scene;
  gsize offset = 1;

  if (size < 1)
    return 0;

  setup_once ();
  scene = data[0];
  set_scene (scene);
  new_pending = 0;
  session = g_object_ref (_lumo_backend_add_detached_session (backend, TEST_PROVIDER_ID));

  while (offset < size && !lumo_bridge_session_is_closed (session))
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonObject) object = NULL;
      gboolean in_sync = FALSE;
      gsize consumed = 0;

      if (lumo_frame_decode (data + offset, size - offset, &consumed, &object, &in_sync, &error))
        _lumo_bridge_session_dispatch (session, object);
      else if (error != NULL)
        {
          _lumo_bridge_session_frame_error (session, error, in_sync);
          if (!in_sync)
            break;
        }
      else
        break;   /* the stream ends inside a frame */

      g_assert_cmpuint (consumed, >, 0);
      offset += consumed;

      if ((scene & SCENE_AGENT) && agents.port == NULL && lumo_bridge_session_get_hello_done (session) &&
          !lumo_bridge_session_is_closed (session))
        open_agents (&agents, scene);

      if ((scene & SCENE_PROBE_TARGET) && !probe_target_sent && lumo_bridge_session_get_hello_done (session))
        {
          probe_target_sent = TRUE;
          lumo_backend_probe_target_async (backend, TEST_PROVIDER_ID, TEST_CALLER2_ID, NULL,
                                           on_probe_target_cb, NULL);
        }

      lumo_test_drain ();
      check_outgoing (session);
      check_reviews ();
    }

  /* The clock has not moved yet: one window's worth at most. */
  g_assert_cmpuint (new_pending, <=, LUMO_POLICY_MAX_NEW_PENDING);

  /* Every request gets its answer once people (or the clock) decide. */
  decide_reviews (scene);
  while (lumo_bridge_session_get_n_in_flight (session) > 0 && !lumo_bridge_session_is_closed (session))
    {
      g_main_context_iteration (NULL, TRUE);
      decide_reviews (scene);
    }
  lumo_test_drain ();
  check_outgoing (session);

  _lumo_backend_remove_detached_session (backend, session);
  /* A closed session's requests still finish (their audit rows). */
  while (lumo_bridge_session_get_n_in_flight (session) > 0)
    g_main_context_iteration (NULL, TRUE);
  lumo_test_drain ();
  close_agents (&agents);

  /* The next input starts with an empty rate-limit window. */
  fake_now += (gint64) 61 * G_USEC_PER_SEC;
  return 0;
}
