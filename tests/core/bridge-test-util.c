/* bridge-test-util.c — helpers shared by the bridge tests and the fuzz replay
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "bridge-test-util.h"
#include "lumo-bridge-session-private.h"

char *
bridge_fixture_dir (void)
{
  const char *srcdir = g_getenv ("G_TEST_SRCDIR");

  /* G_TEST_SRCDIR is tests/ under meson test; fall back to the layout of a
   * build directory beside the sources. */
  if (srcdir != NULL)
    return g_build_filename (srcdir, "fixtures", "bridge", NULL);

  return g_build_filename ("..", "tests", "fixtures", "bridge", NULL);
}

static gint
compare_paths (gconstpointer a,
               gconstpointer b)
{
  return g_strcmp0 (*(const char * const *) a, *(const char * const *) b);
}

GPtrArray *
bridge_fixture_files (const char *prefix)
{
  g_autofree char *dir_path = bridge_fixture_dir ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GDir) dir = g_dir_open (dir_path, 0, &error);
  GPtrArray *files = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  g_assert_no_error (error);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      if (g_str_has_prefix (name, prefix) && g_str_has_suffix (name, ".json"))
        g_ptr_array_add (files, g_build_filename (dir_path, name, NULL));
    }
  g_ptr_array_sort (files, compare_paths);
  g_assert_cmpuint (files->len, >, 0);
  return files;
}

JsonNode *
bridge_load_json (const char *path)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;

  json_parser_load_from_file (parser, path, &error);
  g_assert_no_error (error);
  return json_node_copy (json_parser_get_root (parser));
}

char *
bridge_json_to_string (JsonNode *node)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();

  json_generator_set_root (generator, node);
  return json_generator_to_data (generator, NULL);
}

static gboolean
mismatch (char       **where,
          const char  *path)
{
  if (where != NULL && *where == NULL)
    *where = g_strdup (*path ? path : "(root)");
  return FALSE;
}

static gboolean
matches (JsonNode    *actual,
         JsonNode    *expect,
         const char  *path,
         char       **where)
{
  if (JSON_NODE_HOLDS_VALUE (expect) && json_node_get_value_type (expect) == G_TYPE_STRING &&
      g_str_equal (json_node_get_string (expect), "<any>"))
    return actual != NULL || mismatch (where, path);

  if (actual == NULL || JSON_NODE_TYPE (actual) != JSON_NODE_TYPE (expect))
    return mismatch (where, path);

  switch (JSON_NODE_TYPE (expect))
    {
    case JSON_NODE_OBJECT:
      {
        JsonObject *a = json_node_get_object (actual);
        JsonObject *e = json_node_get_object (expect);
        g_autoptr(GList) members = json_object_get_members (e);

        for (GList *l = members; l != NULL; l = l->next)
          {
            g_autofree char *sub = g_strdup_printf ("%s.%s", path, (const char *) l->data);

            if (!matches (json_object_get_member (a, l->data), json_object_get_member (e, l->data), sub, where))
              return FALSE;
          }
        return TRUE;
      }

    case JSON_NODE_ARRAY:
      {
        JsonArray *a = json_node_get_array (actual);
        JsonArray *e = json_node_get_array (expect);

        if (json_array_get_length (a) != json_array_get_length (e))
          return mismatch (where, path);
        for (guint i = 0; i < json_array_get_length (e); i++)
          {
            g_autofree char *sub = g_strdup_printf ("%s[%u]", path, i);

            if (!matches (json_array_get_element (a, i), json_array_get_element (e, i), sub, where))
              return FALSE;
          }
        return TRUE;
      }

    case JSON_NODE_NULL:
      return TRUE;

    case JSON_NODE_VALUE:
    default:
      return json_node_equal (actual, expect) || mismatch (where, path);
    }
}

gboolean
bridge_json_matches (JsonNode  *actual,
                     JsonNode  *expect,
                     char     **where)
{
  g_return_val_if_fail (expect != NULL, FALSE);

  return matches (actual, expect, "", where);
}

/* The bytes on the wire for one entry of frames.json. */
GBytes *
bridge_frame_bytes (JsonObject *frame)
{
  GByteArray *bytes = g_byte_array_new ();
  const char *hex = json_object_get_string_member_with_default (frame, "payload_hex", "");
  gsize hex_len = strlen (hex);

  if (json_object_has_member (frame, "raw_hex"))
    {
      hex = json_object_get_string_member (frame, "raw_hex");
      hex_len = strlen (hex);
    }
  else
    {
      guint32 length = json_object_has_member (frame, "length")
                       ? (guint32) json_object_get_int_member (frame, "length")
                       : (guint32) (hex_len / 2);

      g_byte_array_append (bytes, (const guint8 *) &length, 4);
      if (json_object_has_member (frame, "payload_fill"))
        {
          guint8 fill = json_object_get_string_member (frame, "payload_fill")[0];

          for (guint32 i = 0; i < length; i++)
            g_byte_array_append (bytes, &fill, 1);
          hex_len = 0;
        }
    }

  for (gsize i = 0; i + 1 < hex_len; i += 2)
    {
      guint8 b = (g_ascii_xdigit_value (hex[i]) << 4) | g_ascii_xdigit_value (hex[i + 1]);

      g_byte_array_append (bytes, &b, 1);
    }

  return g_byte_array_free_to_bytes (bytes);
}

/* ---- a backend on a temporary data directory ---------------------------- */

#include "lumo-audit-store.h"
#include "lumo-review-queue.h"

static gint64
fake_clock (gpointer user_data)
{
  return ((BridgeTestEnv *) user_data)->now;
}

BridgeTestEnv *
bridge_test_env_new (void)
{
  BridgeTestEnv *env = g_new0 (BridgeTestEnv, 1);
  g_autoptr(GError) error = NULL;

  g_autofree char *saved = g_strdup (g_getenv ("LUMO_ACCESS_POLICY_DIR"));

  env->dir = lumo_test_dir_new ("bridge");
  env->managed_dir = g_build_filename (env->dir, "policy.d", NULL);
  /* The policy takes its managed policy directory when it opens. */
  g_setenv ("LUMO_ACCESS_POLICY_DIR", env->managed_dir, TRUE);
  env->backend = lumo_backend_new_for_data_dir (env->dir, LUMO_AUDIT_STORE_FLAGS_NONE, &error);
  if (saved != NULL)
    g_setenv ("LUMO_ACCESS_POLICY_DIR", saved, TRUE);
  else
    g_unsetenv ("LUMO_ACCESS_POLICY_DIR");
  g_assert_no_error (error);
  env->policy = lumo_backend_get_policy (env->backend);
  env->now = 1000 * G_USEC_PER_SEC;
  lumo_backend_set_clock (env->backend, fake_clock, env);
  lumo_backend_set_app_version (env->backend, "0.1.0-test");
  return env;
}

static gboolean
store_is_ours_alone (gpointer store)
{
  return g_atomic_int_get (&G_OBJECT (store)->ref_count) == 1;
}

void
bridge_test_env_free (BridgeTestEnv *env)
{
  if (env == NULL)
    return;

  LumoAuditStore *store = g_object_ref (lumo_backend_get_audit_store (env->backend));
  GListModel *sessions = lumo_backend_get_sessions (env->backend);

  /* A detached session leaves the backend's list only when it is removed;
   * the backend's own close would wait for it forever. */
  for (guint i = g_list_model_get_n_items (sessions); i > 0; i--)
    {
      g_autoptr(LumoBridgeSession) session = g_list_model_get_item (sessions, i - 1);

      if (session->reader == NULL)
        _lumo_backend_remove_detached_session (env->backend, session);
    }

  /* Sessions and audit writes finish before the files go. */
  g_object_run_dispose (G_OBJECT (env->backend));
  lumo_test_drain ();
  g_clear_object (&env->backend);
  lumo_test_drain ();

  /* The audit writer thread drops its reference to a completed append's
   * task (and so to the store) a moment after the answer arrived; the last
   * reference must not be that one, or the thread would join itself. */
  lumo_test_wait_until (store_is_ours_alone, store, "the audit writer to let go of the store");
  g_object_unref (store);
  lumo_test_dir_remove (env->dir);
  g_free (env->dir);
  g_free (env->managed_dir);
  g_free (env);
}

void
bridge_test_env_advance (BridgeTestEnv *env,
                         gint64         us)
{
  env->now += us;
  g_main_context_wakeup (NULL);
}

/* ---- a detached session -------------------------------------------------- */

static JsonObject *
parse_object (const char *json)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;

  json_parser_load_from_data (parser, json, -1, &error);
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)));
  return json_object_ref (json_node_get_object (json_parser_get_root (parser)));
}

void
bridge_detached_send (LumoBridgeSession *session,
                      const char        *json)
{
  g_autoptr(JsonObject) object = parse_object (json);

  _lumo_bridge_session_dispatch (session, object);
}

JsonObject *
bridge_detached_recv (LumoBridgeSession *session)
{
  JsonObject *object;

  /* What the session sends from an idle (the policy push) goes out now. */
  lumo_test_drain ();
  object = _lumo_bridge_session_pop_outgoing (session);
  if (object != NULL)
    {
      g_autofree char *field = NULL;
      g_autoptr(GError) error = NULL;

      /* Whatever the app sends, the provider must accept. */
      if (!lumo_bridge_validate_app_message (object, &field, &error))
        g_error ("The app sent an invalid message (%s): %s", field, error->message);
    }
  return object;
}

void
bridge_detached_expect (LumoBridgeSession *session,
                        const char        *expected_json)
{
  g_autoptr(JsonObject) actual = bridge_detached_recv (session);
  g_autoptr(JsonObject) expected = parse_object (expected_json);
  g_autoptr(JsonNode) a = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(JsonNode) e = json_node_new (JSON_NODE_OBJECT);
  g_autofree char *where = NULL;

  if (actual == NULL)
    g_error ("The app sent nothing; expected %s", expected_json);
  json_node_set_object (a, actual);
  json_node_set_object (e, expected);
  if (!bridge_json_matches (a, e, &where))
    {
      g_autofree char *text = bridge_json_to_string (a);

      g_error ("The app sent %s; expected %s (at %s)", text, expected_json, where);
    }
}

void
bridge_detached_expect_nothing (LumoBridgeSession *session)
{
  g_autoptr(JsonObject) actual = bridge_detached_recv (session);

  if (actual != NULL)
    {
      g_autoptr(JsonNode) a = json_node_new (JSON_NODE_OBJECT);
      g_autofree char *text = NULL;

      json_node_set_object (a, actual);
      text = bridge_json_to_string (a);
      g_error ("The app sent %s; expected nothing", text);
    }
}

LumoBridgeSession *
bridge_detached_hello (BridgeTestEnv *env)
{
  LumoBridgeSession *session = _lumo_backend_add_detached_session (env->backend, TEST_PROVIDER_ID);

  bridge_detached_send (session, BRIDGE_TEST_HELLO);
  bridge_detached_expect (session, "{\"type\":\"hello.result\",\"re\":1}");
  return session;
}
