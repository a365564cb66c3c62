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
 *
 * Oracles beyond the sanitizers: everything the app sends must pass
 * lumo_bridge_validate_app_message(), the in-flight count never passes its
 * cap, and every request is answered once the reviews are decided. Names
 * are display text wherever they land (a new pending caller, a review
 * waiting), every preview a reviewer would see formats to display text,
 * and no input makes more than LUMO_POLICY_MAX_NEW_PENDING new callers
 * pending within the window.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "lumo-backend.h"
#include "lumo-bridge-session-private.h"
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
};

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static char *data_dir;
static guint new_pending;   /* ::caller-pending of this input */
static LumoBackend *backend;
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

  backend = lumo_backend_new_for_data_dir (data_dir, &error);
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

  /* The next input starts with an empty rate-limit window. */
  fake_now += (gint64) 61 * G_USEC_PER_SEC;
  return 0;
}
