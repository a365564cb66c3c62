/* test-cli-managed.c — lumo-access-ctl under the organization's managed
 * policy: the refusals (exit 1, naming the file) and `policy --effective`
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The fixture's policy.d (f->managed_dir) is the CLI's managed policy
 * directory (LUMO_ACCESS_POLICY_DIR); the app's settings are its schema's
 * defaults (GSETTINGS_BACKEND=memory): review timeout 60 s, audit
 * retention 365 days, journal off. A build without the app (-Dapp=false,
 * as the sanitizer build) has no schema: the CLI then reads what the app
 * does without one, 60 s, forever and off.
 */
#define G_LOG_DOMAIN "test-cli"

#include "config.h"

#include <glib/gstdio.h>

#include "lumo-managed-policy.h"
#include "lumo-policy.h"
#include "lumo-test.h"

#include "cli-test-util.h"

static char *
managed_file (Fixture    *f,
              const char *name)
{
  return g_build_filename (f->managed_dir, name, NULL);
}

static void
write_managed (Fixture    *f,
               const char *name,
               const char *contents)
{
  lumo_test_write_in (f->managed_dir, name, contents);
}

/* Whether the app's schema is there, so the person's retention is its
 * default (365 days) rather than forever. */
static gboolean
have_app_schema (void)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr(GSettingsSchema) schema = source != NULL ? g_settings_schema_source_lookup (source, APP_ID, TRUE)
                                                     : NULL;

  return schema != NULL;
}

static guint
history_count (Fixture *f)
{
  g_autoptr(GPtrArray) history = lumo_policy_list_history (policy (f), 0, NULL);

  return history->len;
}

/* Exit 1, the file named on stderr, nothing recorded. */
static void
assert_refused (Fixture    *f,
                int         status,
                const char *name,
                guint       history_before)
{
  g_autofree char *file = managed_file (f, name);

  g_assert_cmpint (status, ==, 1);
  g_assert_nonnull (strstr (f->err, file));
  g_assert_nonnull (strstr (f->err, "organization"));
  g_assert_cmpuint (history_count (f), ==, history_before);
}

/* One value of `policy --effective --json`: @object.@name. */
static JsonObject *
value_of (JsonObject *object,
          const char *name)
{
  g_assert_true (json_object_has_member (object, name));
  return json_object_get_object_member (object, name);
}

static void
assert_value (JsonObject *value,
              const char *source,
              const char *file,
              gint64      line)
{
  g_assert_cmpstr (json_object_get_string_member (value, "source"), ==, source);
  if (file == NULL)
    {
      g_assert_true (json_object_get_null_member (value, "file"));
      g_assert_true (json_object_get_null_member (value, "line"));
      return;
    }

  g_assert_cmpstr (json_object_get_string_member (value, "file"), ==, file);
  if (line == 0)
    g_assert_true (json_object_get_null_member (value, "line"));
  else
    g_assert_cmpint (json_object_get_int_member (value, "line"), ==, line);
}

static JsonObject *
the_provider (JsonNode *root)
{
  JsonArray *providers = json_object_get_array_member (json_node_get_object (root), "providers");

  g_assert_cmpuint (json_array_get_length (providers), ==, 1);
  return json_array_get_object_element (providers, 0);
}

/* The caller @id in the provider's list. */
static JsonObject *
the_caller (JsonObject *provider,
            const char *id)
{
  JsonArray *callers = json_object_get_array_member (provider, "callers");

  for (guint i = 0; i < json_array_get_length (callers); i++)
    {
      JsonObject *c = json_array_get_object_element (callers, i);

      if (g_str_equal (json_object_get_string_member (c, "id"), id))
        return c;
    }

  g_error ("No caller %s in the output", id);
}

/* ---- the refusals ------------------------------------------------------------ */

static void
test_refusals (Fixture       *f,
               gconstpointer  data)
{
  guint history;

  register_provider (f, TEST_PROVIDER_ID, "Lumo Userscripts");
  g_assert_cmpint (run_ctl (f, "allow", TEST_CALLER_ID), ==, 0);
  write_managed (f, "50-org.json",
                 "{\n"
                 "  \"writes\": false,\n"
                 "  \"review\": true,\n"
                 "  \"desktopAgents\": false,\n"
                 "  \"callers\": {\"deny\": [\"" TEST_CALLER_ID "\"]}\n"
                 "}\n");
  history = history_count (f);

  assert_refused (f, run_ctl (f, "set", "writes", "on"), "50-org.json", history);
  g_assert_nonnull (strstr (f->err, "line 2"));
  assert_refused (f, run_ctl (f, "set", "writes", "off"), "50-org.json", history);
  assert_refused (f, run_ctl (f, "set", "review", "off"), "50-org.json", history);
  assert_refused (f, run_ctl (f, "allow", TEST_CALLER_ID), "50-org.json", history);
  assert_refused (f, run_ctl (f, "deny", TEST_CALLER_ID), "50-org.json", history);
  assert_refused (f, run_ctl (f, "forget", TEST_CALLER_ID), "50-org.json", history);
  assert_refused (f, run_ctl (f, "agents", "add", "Claude Code"), "50-org.json", history);
  g_assert_null (strstr (f->out, "lumo_"));

  /* What no file sets is the person's. */
  g_assert_cmpint (run_ctl (f, "set", "enabled", "off"), ==, 0);
  g_assert_cmpint (run_ctl (f, "allow", TEST_CALLER2_ID), ==, 0);
  g_assert_cmpuint (history_count (f), ==, history + 2);

  /* The listings are of what is in force. */
  g_assert_cmpint (run_ctl (f, "providers", "--json"), ==, 0);
  {
    g_autoptr(JsonNode) root = lumo_test_parse_json (f->out);
    JsonObject *p = json_array_get_object_element (json_node_get_array (root), 0);

    g_assert_false (json_object_get_boolean_member (p, "writes"));
    g_assert_true (json_object_get_boolean_member (p, "review"));
  }
}

/* ---- policy --effective -------------------------------------------------------- */

static void
test_effective (Fixture       *f,
                gconstpointer  data)
{
  g_autofree char *first = managed_file (f, "10-base.json");
  g_autofree char *second = managed_file (f, "20-site.json");
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *p;
  JsonObject *object;

  register_provider (f, TEST_PROVIDER_ID, "Lumo Userscripts");
  g_assert_cmpint (run_ctl (f, "allow", TEST_CALLER_ID), ==, 0);
  g_assert_cmpint (run_ctl (f, "allow", TEST_CALLER2_ID), ==, 0);
  g_assert_cmpint (run_ctl (f, "set", "review", "off"), ==, 0);

  write_managed (f, "10-base.json",
                 "{\n"
                 "  \"writes\": false,\n"
                 "  \"minAuditRetentionDays\": 400,\n"
                 "  \"auditJournal\": true\n"
                 "}\n");
  write_managed (f, "20-site.json",
                 "{\n"
                 "  \"writes\": false,\n"
                 "  \"review\": false,\n"
                 "  \"reviewTimeoutSeconds\": {\"max\": 30},\n"
                 "  \"providers\": {\n"
                 "    \"" TEST_PROVIDER_ID "\": {\n"
                 "      \"onlyListedCallers\": true,\n"
                 "      \"callers\": {\"allow\": [\"" TEST_CALLER_ID "\"]}\n"
                 "    }\n"
                 "  }\n"
                 "}\n");

  g_assert_cmpint (run_ctl (f, "policy", "--effective", "--json"), ==, 0);
  root = lumo_test_parse_json (f->out);
  object = json_node_get_object (root);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (object, "files")), ==, 2);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (object, "problems")), ==, 0);

  p = the_provider (root);
  g_assert_cmpstr (json_object_get_string_member (p, "id"), ==, TEST_PROVIDER_ID);
  /* enabled: the person's. writes: off from the first file that said so. */
  g_assert_true (json_object_get_boolean_member (value_of (p, "enabled"), "value"));
  assert_value (value_of (p, "enabled"), "user", NULL, 0);
  g_assert_false (json_object_get_boolean_member (value_of (p, "writes"), "value"));
  g_assert_true (json_object_get_boolean_member (value_of (p, "writes"), "user"));
  assert_value (value_of (p, "writes"), "managed", first, 2);
  /* review false in a file loosens nothing: the person's off stays. */
  g_assert_false (json_object_get_boolean_member (value_of (p, "review"), "value"));
  assert_value (value_of (p, "review"), "user", NULL, 0);
  g_assert_true (json_object_get_boolean_member (value_of (p, "onlyListedCallers"), "value"));
  assert_value (value_of (p, "onlyListedCallers"), "managed", second, 7);
  g_assert_true (json_object_get_boolean_member (value_of (p, "desktopAgents"), "value"));
  assert_value (value_of (p, "desktopAgents"), "none", NULL, 0);

  /* The listed caller is allowed by the file; the other is denied by it. */
  object = the_caller (p, TEST_CALLER_ID);
  g_assert_cmpstr (json_object_get_string_member (object, "state"), ==, "allowed");
  assert_value (object, "managed", second, 8);
  object = the_caller (p, TEST_CALLER2_ID);
  g_assert_cmpstr (json_object_get_string_member (object, "state"), ==, "denied");
  g_assert_cmpstr (json_object_get_string_member (object, "user"), ==, "allowed");
  assert_value (object, "managed", second, 7);

  /* The app's settings: the person's defaults, made stricter. A person
   * who keeps everything forever already keeps more than 400 days. */
  object = value_of (json_node_get_object (root), "auditRetentionDays");
  if (have_app_schema ())
    {
      g_assert_cmpint (json_object_get_int_member (object, "value"), ==, 400);
      g_assert_cmpint (json_object_get_int_member (object, "user"), ==, 365);
      assert_value (object, "managed", first, 3);
    }
  else
    {
      g_assert_cmpint (json_object_get_int_member (object, "value"), ==, LUMO_MANAGED_RETENTION_FOREVER);
      g_assert_cmpint (json_object_get_int_member (object, "user"), ==, LUMO_MANAGED_RETENTION_FOREVER);
      assert_value (object, "user", NULL, 0);
    }
  object = value_of (json_node_get_object (root), "reviewTimeoutSeconds");
  g_assert_cmpint (json_object_get_int_member (object, "value"), ==, 30);
  g_assert_cmpint (json_object_get_int_member (object, "user"), ==, 60);
  assert_value (object, "managed", second, 4);
  object = value_of (json_node_get_object (root), "auditJournal");
  g_assert_true (json_object_get_boolean_member (object, "value"));
  g_assert_false (json_object_get_boolean_member (object, "user"));
  assert_value (object, "managed", first, 4);
  object = value_of (json_node_get_object (root), "desktopAgents");
  g_assert_true (json_object_get_boolean_member (object, "value"));

  /* The same for people: each value with the file and line it comes from. */
  g_assert_cmpint (run_ctl (f, "policy", "--effective"), ==, 0);
  {
    g_autofree char *writes = g_strdup_printf ("%s:2", first);
    g_autofree char *timeout = g_strdup_printf ("%s:4", second);

    g_assert_nonnull (strstr (f->out, writes));
    g_assert_nonnull (strstr (f->out, timeout));
    g_assert_nonnull (strstr (f->out, have_app_schema () ? "400 days" : "forever"));
    g_assert_nonnull (strstr (f->out, TEST_CALLER2_ID));
  }

  /* Without --effective: the directory and its files. */
  g_assert_cmpint (run_ctl (f, "policy"), ==, 0);
  g_assert_nonnull (strstr (f->out, first));
  g_assert_nonnull (strstr (f->out, second));
  g_assert_cmpint (run_ctl (f, "policy", "--json"), ==, 0);
  {
    g_autoptr(JsonNode) managed = lumo_test_parse_json (f->out);

    g_assert_cmpint (json_object_get_int_member (json_node_get_object (managed), "minAuditRetentionDays"), ==, 400);
  }
}

/* The keys test_effective leaves to the person there: a provider turned
 * off, desktop agents forbidden for the whole app, a review timeout raised
 * to its minimum. */
static void
test_off_and_agents (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *file = managed_file (f, "50-org.json");
  g_autoptr(JsonNode) root = NULL;
  JsonObject *p;
  JsonObject *object;
  guint history;

  register_provider (f, TEST_PROVIDER_ID, "Lumo Userscripts");
  write_managed (f, "50-org.json",
                 "{\n"
                 "  \"enabled\": false,\n"
                 "  \"desktopAgents\": false,\n"
                 "  \"reviewTimeoutSeconds\": {\"min\": 120}\n"
                 "}\n");
  history = history_count (f);

  assert_refused (f, run_ctl (f, "set", "enabled", "on"), "50-org.json", history);
  g_assert_nonnull (strstr (f->err, "line 2"));
  assert_refused (f, run_ctl (f, "agents", "add", "Claude Code"), "50-org.json", history);
  g_assert_nonnull (strstr (f->err, "line 3"));

  g_assert_cmpint (run_ctl (f, "policy", "--effective", "--json"), ==, 0);
  root = lumo_test_parse_json (f->out);
  p = the_provider (root);
  g_assert_false (json_object_get_boolean_member (value_of (p, "enabled"), "value"));
  g_assert_true (json_object_get_boolean_member (value_of (p, "enabled"), "user"));
  assert_value (value_of (p, "enabled"), "managed", file, 2);
  g_assert_false (json_object_get_boolean_member (value_of (p, "desktopAgents"), "value"));
  assert_value (value_of (p, "desktopAgents"), "managed", file, 3);

  object = value_of (json_node_get_object (root), "desktopAgents");
  g_assert_false (json_object_get_boolean_member (object, "value"));
  assert_value (object, "managed", file, 3);
  object = value_of (json_node_get_object (root), "reviewTimeoutSeconds");
  g_assert_cmpint (json_object_get_int_member (object, "value"), ==, 120);
  g_assert_cmpint (json_object_get_int_member (object, "user"), ==, 60);
  assert_value (object, "managed", file, 4);

  /* The file goes: the person's values, and theirs to change. */
  write_managed (f, "50-org.json", "{}");
  g_assert_cmpint (run_ctl (f, "set", "enabled", "off"), ==, 0);
  g_assert_cmpint (run_ctl (f, "agents", "add", "Claude Code"), ==, 0);
}

static void
test_bad_file (Fixture       *f,
               gconstpointer  data)
{
  g_autofree char *file = managed_file (f, "50-broken.json");
  g_autoptr(JsonNode) root = NULL;
  JsonArray *problems;
  JsonObject *problem;
  JsonObject *p;

  register_provider (f, TEST_PROVIDER_ID, "Lumo Userscripts");
  g_assert_cmpint (run_ctl (f, "set", "writes", "off"), ==, 0);

  /* It meant writes on; it does not parse: writes stay off, and its
   * strictest reading turns the provider off too. */
  write_managed (f, "50-broken.json", "{\n  \"writes\": true,\n  \"review\": tru\n}\n");
  g_assert_cmpint (run_ctl (f, "policy", "--effective", "--json"), ==, 1);
  g_assert_nonnull (strstr (f->err, file));
  g_assert_nonnull (strstr (f->err, ":3:"));
  root = lumo_test_parse_json (f->out);
  problems = json_object_get_array_member (json_node_get_object (root), "problems");
  g_assert_cmpuint (json_array_get_length (problems), ==, 1);
  problem = json_array_get_object_element (problems, 0);
  g_assert_cmpstr (json_object_get_string_member (problem, "file"), ==, file);
  g_assert_cmpint (json_object_get_int_member (problem, "line"), ==, 3);
  g_assert_true (json_object_get_null_member (problem, "field"));

  p = the_provider (root);
  g_assert_false (json_object_get_boolean_member (value_of (p, "writes"), "value"));
  g_assert_false (json_object_get_boolean_member (value_of (p, "enabled"), "value"));
  assert_value (value_of (p, "enabled"), "managed", file, 0);
  g_assert_true (json_object_get_boolean_member (value_of (p, "review"), "value"));

  /* A value of the wrong type names its field and line. */
  write_managed (f, "50-broken.json", "{\n  \"review\": \"yes\"\n}\n");
  g_assert_cmpint (run_ctl (f, "policy"), ==, 1);
  g_assert_nonnull (strstr (f->err, ":2:"));
  g_assert_nonnull (strstr (f->err, "review"));
  g_assert_cmpint (run_ctl (f, "set", "review", "off"), ==, 1);
  g_assert_nonnull (strstr (f->err, file));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/cli-managed/refusals", Fixture, NULL, fixture_set_up, test_refusals, fixture_tear_down);
  g_test_add ("/cli-managed/effective", Fixture, NULL, fixture_set_up, test_effective, fixture_tear_down);
  g_test_add ("/cli-managed/off-and-agents", Fixture, NULL, fixture_set_up, test_off_and_agents, fixture_tear_down);
  g_test_add ("/cli-managed/bad-file", Fixture, NULL, fixture_set_up, test_bad_file, fixture_tear_down);

  return g_test_run ();
}
