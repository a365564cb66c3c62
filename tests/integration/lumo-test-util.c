/* lumo-test-util.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-test-util"

#include "config.h"

#include "lumo-test-util.h"

/* Safety net for conditions that another process makes true; never a
 * measurement. */
#define WAIT_TIMEOUT_MS 60000

gboolean
lumo_test_begin (void)
{
  g_autofree char *reason = NULL;

  if (!lumo_test_can_run (&reason))
    {
      g_test_skip (reason);
      return FALSE;
    }

  return TRUE;
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
                              "\"paramsHash\":\"" PARAMS_HASH "\","
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

JsonObject *
lumo_test_wait_for_policy_push (LumoTestPeer *peer)
{
  JsonObject *push = lumo_test_peer_recv (peer);

  g_assert_nonnull (push);
  g_assert_cmpstr (json_object_get_string_member (push, "type"), ==, "policy");
  g_assert_false (json_object_has_member (push, "re"));

  return push;
}

static int
run_ctl_va (LumoTestBus *bus,
            char       **out,
            const char  *first_arg,
            va_list      args)
{
  const char *argv[16];
  guint n = 0;

  argv[n++] = first_arg;
  for (const char *arg = va_arg (args, const char *); arg != NULL; arg = va_arg (args, const char *))
    {
      g_assert_cmpuint (n, <, G_N_ELEMENTS (argv) - 1);
      argv[n++] = arg;
    }
  argv[n] = NULL;

  /* lumo_test_bus_run_ctl() is variadic too; pass the collected list. */
  switch (n)
    {
    case 1: return lumo_test_bus_run_ctl (bus, out, argv[0], NULL);
    case 2: return lumo_test_bus_run_ctl (bus, out, argv[0], argv[1], NULL);
    case 3: return lumo_test_bus_run_ctl (bus, out, argv[0], argv[1], argv[2], NULL);
    case 4: return lumo_test_bus_run_ctl (bus, out, argv[0], argv[1], argv[2], argv[3], NULL);
    case 5: return lumo_test_bus_run_ctl (bus, out, argv[0], argv[1], argv[2], argv[3], argv[4], NULL);
    case 6: return lumo_test_bus_run_ctl (bus, out, argv[0], argv[1], argv[2], argv[3], argv[4],
                                          argv[5], NULL);
    default:
      g_assert_not_reached ();
    }
}

void
lumo_test_ctl_ok (LumoTestBus *bus,
                  const char  *first_arg,
                  ...)
{
  va_list args;
  int status;

  va_start (args, first_arg);
  status = run_ctl_va (bus, NULL, first_arg, args);
  va_end (args);

  g_assert_cmpint (status, ==, 0);
}

JsonArray *
lumo_test_audit_search (LumoTestBus *bus,
                        const char  *caller_id)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;
  g_autofree char *query = g_strdup_printf ("caller:%s", caller_id);
  JsonNode *root;

  g_assert_cmpint (lumo_test_bus_run_ctl (bus, &out, "audit", "search", "--json", query, NULL), ==, 0);
  json_parser_load_from_data (parser, out, -1, &error);
  g_assert_no_error (error);

  root = json_parser_get_root (parser);
  g_assert_true (JSON_NODE_HOLDS_ARRAY (root));

  return json_array_ref (json_node_get_array (root));
}

void
lumo_test_assert_audit_row (JsonObject *row,
                            const char *reason)
{
  g_assert_cmpstr (json_object_get_string_member (row, "provider"), ==, PROVIDER_ID);
  g_assert_cmpstr (json_object_get_string_member (row, "caller"), ==, CALLER_ID);
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

      g_assert_cmpstr (provider, ==, PROVIDER_ID);
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

  g_assert_true (lumo_test_wait_until (review_is_waiting, &wait, WAIT_TIMEOUT_MS));

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

typedef struct
{
  LumoTestBus *bus;
  GPid         pid;
} AppWait;

static gboolean
app_has_exited (gpointer user_data)
{
  AppWait *wait = user_data;
  g_autofree char *path = g_strdup_printf ("/proc/%d/stat", (int) wait->pid);
  g_autofree char *stat = NULL;
  const char *state;

  if (lumo_test_bus_get_app_pid (wait->bus) == wait->pid)
    return FALSE;
  if (!g_file_get_contents (path, &stat, NULL, NULL))
    return TRUE;

  state = strrchr (stat, ')');
  return state != NULL && (state[2] == 'Z' || state[2] == 'X');
}

gboolean
lumo_test_wait_for_app_exit (LumoTestBus *bus,
                             GPid         pid)
{
  AppWait wait = { bus, pid };

  return lumo_test_wait_until (app_has_exited, &wait, WAIT_TIMEOUT_MS);
}
