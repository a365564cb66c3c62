/* lumo-test-session.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-test-session"

#include "config.h"

#include <string.h>

#include "lumo-test-session.h"

LumoTestSession *
lumo_test_session_new (const char         *exec_override,
                       const char * const *app_env)
{
  g_autofree char *reason = NULL;
  LumoTestSession *s;

  if (!lumo_test_can_run (&reason))
    {
      g_test_skip (reason);
      return NULL;
    }

  s = g_new0 (LumoTestSession, 1);
  s->bus = lumo_test_bus_new (exec_override, app_env);
  s->env = lumo_test_bus_get_env (s->bus);
  s->peers = g_ptr_array_new_with_free_func ((GDestroyNotify) lumo_test_peer_free);

  return s;
}

LumoTestSession *
lumo_test_session_start (void)
{
  LumoTestSession *s = lumo_test_session_new (NULL, NULL);

  if (s != NULL)
    lumo_test_session_connect (s, NULL);

  return s;
}

void
lumo_test_session_free (LumoTestSession *s)
{
  if (s == NULL)
    return;

  /* Helpers before the app: a helper still running when the bus goes
   * would see its session end for the wrong reason. */
  g_clear_pointer (&s->peers, g_ptr_array_unref);
  g_clear_pointer (&s->bus, lumo_test_bus_free);
  g_strfreev (s->env);
  g_free (s);
}

LumoTestPeer *
lumo_test_session_spawn (LumoTestSession *s,
                         const char      *origin,
                         const char      *extra_arg)
{
  LumoTestPeer *peer = lumo_test_peer_spawn (s->env, origin, extra_arg);

  g_ptr_array_add (s->peers, peer);
  return peer;
}

LumoTestPeer *
lumo_test_session_connect (LumoTestSession *s,
                           const char      *extra_arg)
{
  LumoTestPeer *peer = lumo_test_session_spawn (s, TEST_PROVIDER_ORIGIN, extra_arg);

  lumo_test_peer_hello (peer, 1);
  if (s->peer == NULL)
    s->peer = peer;

  return peer;
}

JsonObject *
lumo_test_probe (LumoTestPeer *peer,
                 gint64        id,
                 const char   *caller_id)
{
  g_autoptr(JsonObject) answer = NULL;

  lumo_test_peer_send_printf (peer,
                              "{\"type\":\"probe\",\"id\":%" G_GINT64_FORMAT ","
                              "\"caller\":{\"id\":\"%s\",\"name\":\"Lumo\",\"version\":\"1.0.19\"}}",
                              id, caller_id);
  answer = lumo_test_peer_expect_answer (peer, id);
  g_assert_cmpstr (json_object_get_string_member (answer, "type"), ==, "probe.result");
  g_assert_true (json_object_has_member (answer, "status"));

  return json_object_ref (json_object_get_object_member (answer, "status"));
}

void
lumo_test_send_authorize_write (LumoTestPeer *peer,
                                gint64        id,
                                const char   *caller_id)
{
  lumo_test_peer_send_printf (peer,
                              "{\"type\":\"authorize\",\"id\":%" G_GINT64_FORMAT ","
                              "\"caller\":{\"id\":\"%s\",\"name\":\"Lumo\"},"
                              "\"tool\":\"save_script\",\"write\":true,"
                              "\"target\":\"0f8fad5b-d9cb-469f-a165-70867728950e\","
                              "\"paramsHash\":\"" TEST_PARAMS_HASH "\","
                              "\"preview\":{\"uuid\":\"0f8fad5b-d9cb-469f-a165-70867728950e\","
                              "\"name\":\"Dark mode\",\"bytes\":812,\"added\":3,\"removed\":1}}",
                              id, caller_id);
}

JsonObject *
lumo_test_authorize_write (LumoTestPeer *peer,
                           gint64        id,
                           const char   *caller_id)
{
  JsonObject *answer;

  lumo_test_send_authorize_write (peer, id, caller_id);
  answer = lumo_test_peer_expect_answer (peer, id);
  g_assert_cmpstr (json_object_get_string_member (answer, "type"), ==, "authorize.result");

  return answer;
}

JsonObject *
lumo_test_authorize_read (LumoTestPeer *peer,
                          gint64        id,
                          const char   *caller_id)
{
  JsonObject *answer;

  lumo_test_peer_send_printf (peer,
                              "{\"type\":\"authorize\",\"id\":%" G_GINT64_FORMAT ","
                              "\"caller\":{\"id\":\"%s\"},\"tool\":\"list_scripts\",\"write\":false}",
                              id, caller_id);
  answer = lumo_test_peer_expect_answer (peer, id);
  g_assert_cmpstr (json_object_get_string_member (answer, "type"), ==, "authorize.result");

  return answer;
}

void
lumo_test_send_result (LumoTestPeer *peer,
                       gint64        id,
                       gint64        audit_id)
{
  g_autoptr(JsonObject) answer = NULL;

  lumo_test_peer_send_printf (peer,
                              "{\"type\":\"result\",\"id\":%" G_GINT64_FORMAT ","
                              "\"auditId\":%" G_GINT64_FORMAT ",\"ok\":true}",
                              id, audit_id);
  answer = lumo_test_peer_expect_answer (peer, id);
  g_assert_cmpstr (json_object_get_string_member (answer, "type"), ==, "result.result");
}

void
lumo_test_wait_for_policy_push (LumoTestPeer *peer)
{
  g_autoptr(JsonObject) push = lumo_test_peer_recv (peer);

  g_assert_nonnull (push);
  g_assert_cmpstr (json_object_get_string_member (push, "type"), ==, "policy");
  g_assert_false (json_object_has_member (push, "re"));
}

void
lumo_test_ctl_ok (LumoTestBus *bus,
                  const char  *first_arg,
                  ...)
{
  va_list args;
  int status;

  va_start (args, first_arg);
  status = lumo_test_bus_run_ctlv (bus, NULL, first_arg, args);
  va_end (args);

  g_assert_cmpint (status, ==, 0);
}

JsonArray *
lumo_test_audit_search (LumoTestBus *bus,
                        const char  *caller_id)
{
  g_autofree char *out = NULL;
  g_autofree char *query = g_strdup_printf ("caller:%s", caller_id);
  g_autoptr(JsonNode) root = NULL;

  g_assert_cmpint (lumo_test_bus_run_ctl (bus, &out, "audit", "search", "--json", query, NULL), ==, 0);
  root = lumo_test_parse_json (out);
  g_assert_true (JSON_NODE_HOLDS_ARRAY (root));

  return json_array_ref (json_node_get_array (root));
}

void
lumo_test_assert_audit_row (JsonObject *row,
                            const char *reason)
{
  g_assert_cmpstr (json_object_get_string_member (row, "provider"), ==, TEST_PROVIDER_ID);
  g_assert_cmpstr (json_object_get_string_member (row, "caller"), ==, TEST_CALLER_ID);
  /* The audit log names tools by their qualified name. */
  g_assert_cmpstr (json_object_get_string_member (row, "tool"), ==, "userscripts.save_script");
  g_assert_true (json_object_get_boolean_member (row, "write"));
  g_assert_cmpstr (json_object_get_string_member (row, "reason"), ==, reason);
}

void
lumo_test_assert_audit_contains (JsonArray  *rows,
                                 const char *reason,
                                 guint       count)
{
  guint found = 0;

  for (guint i = 0; i < json_array_get_length (rows); i++)
    {
      JsonObject *row = json_array_get_object_element (rows, i);

      if (g_strcmp0 (json_object_get_string_member_with_default (row, "reason", ""), reason) == 0)
        {
          lumo_test_assert_audit_row (row, reason);
          found++;
        }
    }

  g_assert_cmpuint (found, ==, count);
}

typedef struct
{
  LumoTestBus *bus;
  const char  *caller_id;
  char        *review_id;
} ReviewWait;

static gboolean
review_is_waiting (gpointer user_data)
{
  ReviewWait *wait = user_data;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GVariantIter) iter = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_strconcat ("/", APP_ID, NULL);
  const char *id, *provider, *caller, *caller_name, *tool, *target, *preview;
  gint64 created, deadline;

  g_strdelimit (path, ".", '/');
  reply = g_dbus_connection_call_sync (lumo_test_bus_get_connection (wait->bus), APP_ID, path,
                                       "dev.lumo.Access.Bridge", "ListReviews", NULL,
                                       G_VARIANT_TYPE ("(a(sssssssxx))"),
                                       G_DBUS_CALL_FLAGS_NO_AUTO_START, 10000, NULL, &error);
  g_assert_no_error (error);

  g_variant_get (reply, "(a(sssssssxx))", &iter);
  while (g_variant_iter_next (iter, "(&s&s&s&s&s&s&sxx)", &id, &provider, &caller, &caller_name,
                              &tool, &target, &preview, &created, &deadline))
    {
      if (g_strcmp0 (caller, wait->caller_id) != 0)
        continue;

      g_assert_cmpstr (provider, ==, TEST_PROVIDER_ID);
      g_assert_cmpstr (tool, ==, "userscripts.save_script");
      /* The reviewer sees the redacted preview, never source. */
      g_assert_nonnull (strstr (preview, "Dark mode"));
      g_assert_cmpint (created, >, 0);
      wait->review_id = g_strdup (id);
      return TRUE;
    }

  return FALSE;
}

char *
lumo_test_wait_for_review (LumoTestBus *bus,
                           const char  *caller_id)
{
  ReviewWait wait = { bus, caller_id, NULL };

  lumo_test_wait_until (review_is_waiting, &wait, "a review to wait");

  return wait.review_id;
}

void
lumo_test_decide_review (LumoTestBus  *bus,
                         const char   *review_id,
                         gboolean      approve,
                         GError      **error)
{
  g_autoptr(GVariant) reply = NULL;
  g_autofree char *path = g_strconcat ("/", APP_ID, NULL);

  g_strdelimit (path, ".", '/');
  reply = g_dbus_connection_call_sync (lumo_test_bus_get_connection (bus), APP_ID, path,
                                       "dev.lumo.Access.Bridge", "DecideReview",
                                       g_variant_new ("(sb)", review_id, approve),
                                       G_VARIANT_TYPE_UNIT,
                                       G_DBUS_CALL_FLAGS_NO_AUTO_START, 10000, NULL, error);
}
