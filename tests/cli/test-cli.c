/* test-cli.c — lumo-access-ctl as an admin runs it: every subcommand's
 * happy path, the exit statuses, and bad IDs that change nothing
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs the built binary ($LUMO_ACCESS_CTL) against a temporary --data-dir.
 * The test opens the same files with LumoPolicy / LumoAuditStore to set the
 * scene and to check what the CLI did, as the running app would see it.
 */
#define G_LOG_DOMAIN "test-cli"

#include "config.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <sqlite3.h>

#include "lumo-audit-store.h"
#include "lumo-canonical-json.h"
#include "lumo-error.h"
#include "lumo-policy.h"
#include "lumo-test.h"

#include "cli-test-util.h"


static void
probe (Fixture    *f,
       const char *caller)
{
  g_autoptr(GError) error = NULL;
  LumoPolicyStatus status;

  g_assert_true (lumo_policy_probe (policy (f), TEST_PROVIDER_ID, caller, "Lumo", &status, &error));
  g_assert_no_error (error);
}

static LumoCallerState
caller_state (Fixture    *f,
              const char *provider,
              const char *caller)
{
  g_autoptr(LumoCallerInfo) info = lumo_policy_get_caller (policy (f), provider, caller, NULL);

  return info != NULL ? info->state : LUMO_CALLER_STATE_ANY;
}

static guint
history_count (Fixture *f)
{
  g_autoptr(GPtrArray) history = lumo_policy_list_history (policy (f), 0, NULL);

  return history->len;
}

/* ---- policy subcommands --------------------------------------------------- */

static void
test_providers (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(JsonNode) root = NULL;
  JsonObject *p;

  g_assert_cmpint (run_ctl (f, "providers"), ==, 0);
  g_assert_nonnull (strstr (f->out, "No providers"));

  register_provider (f, TEST_PROVIDER_ID, "Lumo Userscripts");
  g_assert_cmpint (run_ctl (f, "providers"), ==, 0);
  g_assert_nonnull (strstr (f->out, TEST_PROVIDER_ID));
  g_assert_nonnull (strstr (f->out, "Lumo Userscripts"));

  g_assert_cmpint (run_ctl (f, "providers", "--json"), ==, 0);
  root = lumo_test_parse_json (f->out);
  g_assert_cmpuint (json_array_get_length (json_node_get_array (root)), ==, 1);
  p = json_array_get_object_element (json_node_get_array (root), 0);
  g_assert_cmpstr (json_object_get_string_member (p, "id"), ==, TEST_PROVIDER_ID);
  g_assert_true (json_object_get_boolean_member (p, "enabled"));
  g_assert_true (json_object_get_boolean_member (p, "writes"));
  g_assert_true (json_object_get_boolean_member (p, "review"));

  /* watch / unwatch */
  g_assert_cmpint (run_ctl (f, "watch", TEST_PROVIDER2_ID), ==, 0);
  g_assert_cmpint (run_ctl (f, "providers", "--json"), ==, 0);
  g_assert_cmpuint (json_array_length_of_out (f), ==, 2);
  g_assert_cmpint (run_ctl (f, "watch", TEST_PROVIDER2_ID), ==, 1);     /* already there */
  g_assert_cmpint (run_ctl (f, "unwatch", TEST_PROVIDER2_ID), ==, 0);
  g_assert_cmpint (run_ctl (f, "unwatch", TEST_PROVIDER2_ID), ==, 1);   /* not there */
}

static void
test_callers (Fixture       *f,
              gconstpointer  data)
{
  g_autoptr(JsonNode) root = NULL;
  JsonObject *c;

  register_provider (f, TEST_PROVIDER_ID, "Lumo Userscripts");
  probe (f, TEST_CALLER_ID);

  g_assert_cmpint (run_ctl (f, "callers"), ==, 0);
  g_assert_nonnull (strstr (f->out, TEST_CALLER_ID));
  g_assert_nonnull (strstr (f->out, "pending"));

  g_assert_cmpint (run_ctl (f, "callers", "--provider", TEST_PROVIDER_ID, "--state", "pending",
                            "--json"), ==, 0);
  root = lumo_test_parse_json (f->out);
  g_assert_cmpuint (json_array_get_length (json_node_get_array (root)), ==, 1);
  c = json_array_get_object_element (json_node_get_array (root), 0);
  g_assert_cmpstr (json_object_get_string_member (c, "id"), ==, TEST_CALLER_ID);
  g_assert_cmpstr (json_object_get_string_member (c, "state"), ==, "pending");
  g_assert_cmpint (json_object_get_int_member (c, "probes"), ==, 1);

  g_assert_cmpint (run_ctl (f, "callers", "--state", "allowed", "--json"), ==, 0);
  g_assert_cmpuint (json_array_length_of_out (f), ==, 0);
  g_assert_cmpint (run_ctl (f, "callers", "--state", "maybe"), ==, 2);
}

static void
test_allow_deny_forget (Fixture       *f,
                        gconstpointer  data)
{
  register_provider (f, TEST_PROVIDER_ID, "Lumo Userscripts");
  probe (f, TEST_CALLER_ID);

  /* One provider: --provider may be left out. */
  g_assert_cmpint (run_ctl (f, "allow", TEST_CALLER_ID), ==, 0);
  g_assert_cmpint (caller_state (f, TEST_PROVIDER_ID, TEST_CALLER_ID), ==,
                   LUMO_CALLER_STATE_ALLOWED);
  g_assert_cmpint (run_ctl (f, "allow", TEST_CALLER_ID), ==, 0);
  g_assert_nonnull (strstr (f->out, "already"));

  g_assert_cmpint (run_ctl (f, "deny", TEST_CALLER_ID, "--provider", TEST_PROVIDER_ID), ==, 0);
  g_assert_cmpint (caller_state (f, TEST_PROVIDER_ID, TEST_CALLER_ID), ==,
                   LUMO_CALLER_STATE_DENIED);

  g_assert_cmpint (run_ctl (f, "forget", TEST_CALLER_ID), ==, 0);
  g_assert_cmpint (caller_state (f, TEST_PROVIDER_ID, TEST_CALLER_ID), ==, LUMO_CALLER_STATE_ANY);
  g_assert_cmpint (run_ctl (f, "forget", TEST_CALLER_ID), ==, 1);
  g_assert_nonnull (strstr (f->err, TEST_CALLER_ID));

  /* Two providers: the CLI asks which, and lists them. */
  register_provider (f, TEST_PROVIDER2_ID, "Other");
  g_assert_cmpint (run_ctl (f, "allow", TEST_CALLER2_ID), ==, 2);
  g_assert_nonnull (strstr (f->err, TEST_PROVIDER_ID));
  g_assert_nonnull (strstr (f->err, TEST_PROVIDER2_ID));
  g_assert_cmpint (caller_state (f, TEST_PROVIDER_ID, TEST_CALLER2_ID), ==, LUMO_CALLER_STATE_ANY);
  g_assert_cmpint (run_ctl (f, "allow", "-p", TEST_PROVIDER2_ID, TEST_CALLER2_ID), ==, 0);
  g_assert_cmpint (caller_state (f, TEST_PROVIDER2_ID, TEST_CALLER2_ID), ==,
                   LUMO_CALLER_STATE_ALLOWED);

  /* The provider may also come first. */
  g_assert_cmpint (run_ctl (f, "allow", TEST_PROVIDER_ID, TEST_CALLER2_ID), ==, 0);
  g_assert_cmpint (caller_state (f, TEST_PROVIDER_ID, TEST_CALLER2_ID), ==,
                   LUMO_CALLER_STATE_ALLOWED);
  g_assert_cmpint (run_ctl (f, "deny", TEST_PROVIDER_ID, TEST_CALLER2_ID, "--provider",
                            TEST_PROVIDER_ID), ==, 2);

  /* An unknown provider is a failure, not a usage error. */
  g_assert_cmpint (run_ctl (f, "allow", "--provider", TEST_UNKNOWN_ID, TEST_CALLER_ID), ==, 1);
}

static void
test_set (Fixture       *f,
          gconstpointer  data)
{
  g_autoptr(LumoProviderInfo) info = NULL;

  g_assert_cmpint (run_ctl (f, "set", "writes", "off"), ==, 1);   /* no provider yet */

  register_provider (f, TEST_PROVIDER_ID, "Lumo Userscripts");
  g_assert_cmpint (run_ctl (f, "set", "writes", "off"), ==, 0);
  g_assert_cmpint (run_ctl (f, "set", "review", "off", "--provider", TEST_PROVIDER_ID), ==, 0);
  g_assert_cmpint (run_ctl (f, "set", TEST_PROVIDER_ID, "enabled", "off"), ==, 0);
  info = lumo_policy_get_provider (policy (f), TEST_PROVIDER_ID, NULL);
  g_assert_false (info->writes);
  g_assert_false (info->review);
  g_assert_false (info->enabled);

  g_assert_cmpint (run_ctl (f, "set", "writes", "off"), ==, 0);
  g_assert_nonnull (strstr (f->out, "already"));

  g_assert_cmpint (run_ctl (f, "set", "bogus", "on"), ==, 2);
  g_assert_cmpint (run_ctl (f, "set", "writes", "maybe"), ==, 2);
  g_assert_cmpint (run_ctl (f, "set", "writes"), ==, 2);
}

static void
test_history_undo (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(LumoProviderInfo) info = NULL;
  JsonObject *newest;

  register_provider (f, TEST_PROVIDER_ID, "Lumo Userscripts");
  g_assert_cmpint (run_ctl (f, "allow", TEST_CALLER_ID), ==, 0);
  g_assert_cmpint (run_ctl (f, "set", "writes", "off"), ==, 0);

  g_assert_cmpint (run_ctl (f, "history"), ==, 0);
  g_assert_nonnull (strstr (f->out, "writes"));
  g_assert_cmpint (run_ctl (f, "history", "--json"), ==, 0);
  root = lumo_test_parse_json (f->out);
  g_assert_cmpuint (json_array_get_length (json_node_get_array (root)), ==, 3);
  newest = json_array_get_object_element (json_node_get_array (root), 0);
  g_assert_cmpstr (json_object_get_string_member (newest, "origin"), ==, "cli");
  g_assert_cmpstr (json_object_get_string_member (newest, "field"), ==, "writes");
  g_assert_cmpstr (json_object_get_string_member (newest, "old"), ==, "on");
  g_assert_cmpstr (json_object_get_string_member (newest, "new"), ==, "off");

  g_assert_cmpint (run_ctl (f, "history", "--limit", "1", "--json"), ==, 0);
  g_assert_cmpuint (json_array_length_of_out (f), ==, 1);

  g_assert_cmpint (run_ctl (f, "undo"), ==, 0);
  info = lumo_policy_get_provider (policy (f), TEST_PROVIDER_ID, NULL);
  g_assert_true (info->writes);
  g_assert_cmpint (run_ctl (f, "undo"), ==, 0);
  g_assert_cmpint (caller_state (f, TEST_PROVIDER_ID, TEST_CALLER_ID), ==, LUMO_CALLER_STATE_ANY);
  /* The provider's hello is not a person's change. */
  g_assert_cmpint (run_ctl (f, "undo"), ==, 1);
  g_assert_nonnull (strstr (f->err, "Nothing to undo"));
}

/* ---- the command line itself --------------------------------------------- */

static char *
read_file_or_empty (const char *path)
{
  char *contents = NULL;

  if (!g_file_get_contents (path, &contents, NULL, NULL))
    return g_strdup ("");
  return contents;
}

static void
test_bad_ids_change_nothing (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *wal_path = NULL;
  g_autofree char *db_before = NULL;
  g_autofree char *wal_before = NULL;
  guint history_before;

  /* Before anything exists, a bad ID does not even create the database. */
  g_assert_cmpint (run_ctl (f, "allow", TEST_BAD_ID_SHORT), ==, 2);
  g_assert_false (g_file_test (f->policy_path, G_FILE_TEST_EXISTS));

  register_provider (f, TEST_PROVIDER_ID, "Lumo Userscripts");
  probe (f, TEST_CALLER_ID);
  history_before = history_count (f);
  wal_path = g_strconcat (f->policy_path, "-wal", NULL);
  db_before = read_file_or_empty (f->policy_path);
  wal_before = read_file_or_empty (wal_path);

  for (guint i = 0; lumo_test_bad_ids[i] != NULL; i++)
    {
      const char *bad = lumo_test_bad_ids[i];

      g_assert_cmpint (run_ctl (f, "allow", bad), ==, 2);
      g_assert_nonnull (strstr (f->err, "not an extension ID"));
      g_assert_cmpint (run_ctl (f, "deny", bad), ==, 2);
      g_assert_cmpint (run_ctl (f, "forget", bad), ==, 2);
      g_assert_cmpint (run_ctl (f, "allow", TEST_CALLER_ID, "--provider", bad), ==, 2);
      g_assert_cmpint (run_ctl (f, "allow", bad, TEST_CALLER_ID), ==, 2);
      g_assert_cmpint (run_ctl (f, "set", "writes", "off", "--provider", bad), ==, 2);
      g_assert_cmpint (run_ctl (f, "watch", bad), ==, 2);
      g_assert_cmpint (run_ctl (f, "unwatch", bad), ==, 2);
      g_assert_cmpint (run_ctl (f, "callers", "--provider", bad), ==, 2);
    }

  g_assert_cmpuint (history_count (f), ==, history_before);
  g_assert_cmpint (caller_state (f, TEST_PROVIDER_ID, TEST_CALLER_ID), ==,
                   LUMO_CALLER_STATE_PENDING);
  {
    g_autofree char *db_after = read_file_or_empty (f->policy_path);
    g_autofree char *wal_after = read_file_or_empty (wal_path);

    g_assert_cmpstr (db_after, ==, db_before);
    g_assert_cmpstr (wal_after, ==, wal_before);
  }
}

static void
test_usage (Fixture       *f,
            gconstpointer  data)
{
  g_assert_cmpint (run_ctl (f, "--help"), ==, 0);
  g_assert_nonnull (strstr (f->out, "Usage"));
  g_assert_nonnull (strstr (f->out, "audit verify"));

  g_assert_cmpint (run_ctl (f, "allow", "--help"), ==, 0);
  g_assert_nonnull (strstr (f->out, "--provider"));
  g_assert_cmpint (run_ctl (f, "audit", "export", "--help"), ==, 0);
  g_assert_nonnull (strstr (f->out, "--format"));

  g_assert_cmpint (run_ctl (f, "frobnicate"), ==, 2);
  g_assert_nonnull (strstr (f->err, "unknown command"));
  g_assert_nonnull (strstr (f->err, "Usage"));
  g_assert_cmpint (run_ctl (f, "audit", "frobnicate"), ==, 2);
  g_assert_cmpint (run_ctl (f, "audit"), ==, 2);
  g_assert_cmpint (run_ctl (f, "providers", "--frobnicate"), ==, 2);
  g_assert_nonnull (strstr (f->err, "--frobnicate"));
  g_assert_cmpint (run_ctl (f, "--frobnicate", "providers"), ==, 2);
  g_assert_cmpint (run_ctl (f, "providers", "extra"), ==, 2);
  g_assert_cmpint (run_ctl (f, "allow"), ==, 2);
  g_assert_cmpint (run_ctl (f, "history", "--limit", "-1"), ==, 2);
  g_assert_cmpint (run_ctl (f, "--version"), ==, 0);
}

/* ---- review ---------------------------------------------------------------- */

#define REVIEW_ID "0b9c1a52-6e1d-4d0b-9f6c-2f1f3c6a8e21"

/* The command line alone; talking to an app is tests/cli/test-cli-review.c. */
static void
test_review_usage (Fixture       *f,
                   gconstpointer  data)
{
  /* None of these can be a review ID (a UUID), so none may reach the bus. */
  static const char *not_ids[] = {
    "1",
    "latest",
    "0b9c1a52-6e1d-4d0b-9f6c-2f1f3c6a8e2",     /* 35 characters */
    "0b9c1a52-6e1d-4d0b-9f6c-2f1f3c6a8e211",   /* 37 */
    "0b9c1a52_6e1d_4d0b_9f6c_2f1f3c6a8e21",    /* wrong separators */
    "0b9c1a52-6e1d-4d0b-9f6c-2f1f3c6a8ezz",    /* not hex */
    TEST_CALLER_ID,                                      /* a caller ID is not a review */
    "",
  };

  g_assert_cmpint (run_ctl (f, "--help"), ==, 0);
  g_assert_nonnull (strstr (f->out, "review approve ID"));
  g_assert_cmpint (run_ctl (f, "review", "reject", "--help"), ==, 0);
  g_assert_nonnull (strstr (f->out, "review_rejected"));
  g_assert_nonnull (strstr (f->out, "--json"));

  g_assert_cmpint (run_ctl (f, "review"), ==, 2);
  g_assert_nonnull (strstr (f->err, "list, approve, reject"));
  g_assert_cmpint (run_ctl (f, "review", "--json"), ==, 2);
  g_assert_cmpint (run_ctl (f, "review", "show", REVIEW_ID), ==, 2);
  g_assert_nonnull (strstr (f->err, "unknown command"));
  g_assert_cmpint (run_ctl (f, "review", "approve"), ==, 2);
  g_assert_nonnull (strstr (f->err, "needs ID"));
  g_assert_cmpint (run_ctl (f, "review", "reject"), ==, 2);
  g_assert_cmpint (run_ctl (f, "review", "approve", REVIEW_ID, REVIEW_ID), ==, 2);
  g_assert_cmpint (run_ctl (f, "review", "list", "extra"), ==, 2);
  g_assert_cmpint (run_ctl (f, "review", "list", "--frobnicate"), ==, 2);
  g_assert_cmpint (run_ctl (f, "review", "approve", REVIEW_ID, "--yes"), ==, 2);

  for (guint i = 0; i < G_N_ELEMENTS (not_ids); i++)
    {
      g_assert_cmpint (run_ctl (f, "review", "approve", not_ids[i]), ==, 2);
      g_assert_nonnull (strstr (f->err, "is not a review ID"));
      g_assert_null (strstr (f->err, "not running"));
      g_assert_cmpint (run_ctl (f, "review", "reject", not_ids[i], "--json"), ==, 2);
      g_assert_nonnull (strstr (f->err, "is not a review ID"));
      g_assert_cmpstr (f->out, ==, "");
    }

  /* A well-formed command with no app to ask fails, and says why. */
  g_assert_cmpint (run_ctl (f, "review", "list"), ==, 1);
  g_assert_nonnull (strstr (f->err, "Lumo Access is not running"));
  g_assert_cmpint (run_ctl (f, "review", "approve", REVIEW_ID), ==, 1);
  g_assert_nonnull (strstr (f->err, "Lumo Access is not running"));
  g_assert_cmpstr (f->out, ==, "");
}

/* ---- audit ---------------------------------------------------------------- */

static gint64
append_row (LumoAuditStore *store,
            const char     *caller,
            const char     *params_json,
            gboolean        allow)
{
  g_autoptr(JsonNode) params = json_from_string (params_json, NULL);
  g_autofree char *sha = lumo_canonical_json_sha256 (params, NULL);
  g_autoptr(GError) error = NULL;
  LumoAuditRecord record = {
    .provider_id = TEST_PROVIDER_ID,
    .caller_id = caller,
    .caller_name = "Lumo",
    .tool = "userscripts.save_script",
    .write = TRUE,
    .target = "0f8e3b7c-4d2a-4c1e-9b5f-2a6d8c9e1f03",
    .params_sha256 = sha,
    .decision = allow ? LUMO_AUDIT_DECISION_ALLOW : LUMO_AUDIT_DECISION_DENY,
    .reason = allow ? NULL : "rate_limited",
  };
  gint64 id;

  g_assert_nonnull (sha);
  id = lumo_audit_store_append (store, &record, &error);
  g_assert_no_error (error);
  g_assert_cmpint (id, >, 0);

  return id;
}

static void
fill_audit (Fixture *f)
{
  g_autofree char *path = g_build_filename (f->data_dir, "audit.db", NULL);
  g_autoptr(LumoAuditStore) store = NULL;
  g_autoptr(GError) error = NULL;

  store = lumo_audit_store_new (path, &error);
  g_assert_no_error (error);
  append_row (store, TEST_CALLER_ID, "{\"name\":\"a\",\"size\":1}", TRUE);
  append_row (store, TEST_CALLER_ID, "{\"name\":\"b\"}", FALSE);
  append_row (store, TEST_CALLER2_ID, "[1,2,3]", TRUE);
}

static void
test_audit_search (Fixture       *f,
                   gconstpointer  data)
{
  fill_audit (f);

  g_assert_cmpint (run_ctl (f, "audit", "search", "caller:" TEST_CALLER_ID, "--json"), ==, 0);
  g_assert_cmpuint (json_array_length_of_out (f), ==, 2);
  g_assert_cmpint (run_ctl (f, "audit", "search", "decision:deny"), ==, 0);
  g_assert_nonnull (strstr (f->out, "rate_limited"));
  g_assert_cmpint (run_ctl (f, "audit", "search", "--json"), ==, 0);
  g_assert_cmpuint (json_array_length_of_out (f), ==, 3);
  g_assert_cmpint (run_ctl (f, "audit", "search", "--limit", "1", "--json"), ==, 0);
  g_assert_cmpuint (json_array_length_of_out (f), ==, 1);

  g_assert_cmpint (run_ctl (f, "audit", "search", "decision:bogus"), ==, 2);
  g_assert_cmpint (run_ctl (f, "audit", "search", "--limit", "0"), ==, 2);
}

/* A write a review grant let through says so in the table, not only in
 * --json: the REASON an allowed write otherwise leaves empty. */
static void
test_audit_search_by_grant (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *path = g_build_filename (f->data_dir, "audit.db", NULL);
  g_autoptr(LumoAuditStore) store = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) lines = NULL;
  LumoAuditRecord record = {
    .provider_id = TEST_PROVIDER_ID,
    .caller_id = TEST_CALLER_ID,
    .caller_name = "Lumo",
    .tool = "userscripts.save_script",
    .write = TRUE,
    .params_sha256 = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
    .decision = LUMO_AUDIT_DECISION_ALLOW,
    .by_grant = TRUE,
  };
  guint n_by_grant = 0;

  store = lumo_audit_store_new (path, &error);
  g_assert_no_error (error);
  g_assert_cmpint (lumo_audit_store_append (store, &record, &error), ==, 1);
  g_assert_no_error (error);
  record.by_grant = FALSE;
  record.tool = "userscripts.remove_script";
  g_assert_cmpint (lumo_audit_store_append (store, &record, &error), ==, 2);
  g_assert_no_error (error);
  g_clear_object (&store);

  g_assert_cmpint (run_ctl (f, "audit", "search"), ==, 0);
  lines = g_strsplit (f->out, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      if (strstr (lines[i], "by grant") != NULL)
        {
          g_assert_nonnull (strstr (lines[i], "userscripts.save_script"));
          n_by_grant++;
        }
      else if (strstr (lines[i], "userscripts.remove_script") != NULL)
        g_assert_nonnull (strstr (lines[i], "—"));
    }
  g_assert_cmpuint (n_by_grant, ==, 1);

  /* The filter finds the same row. */
  g_assert_cmpint (run_ctl (f, "audit", "search", "grant:yes"), ==, 0);
  g_assert_nonnull (strstr (f->out, "by grant"));
  g_assert_null (strstr (f->out, "userscripts.remove_script"));
}

static void
test_audit_export (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *output = g_build_filename (f->dir, "export.jsonl", NULL);
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;
  GStatBuf st;

  fill_audit (f);

  g_assert_cmpint (run_ctl (f, "audit", "export", "--format", "jsonl", "--output", output), ==, 0);
  g_assert_true (g_file_get_contents (output, &contents, NULL, NULL));
  lines = g_strsplit (g_strstrip (contents), "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 3);
  g_assert_cmpint (g_stat (output, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0077, ==, 0);

  g_assert_cmpint (run_ctl (f, "audit", "export", "--format", "csv", "--since", "1d", "decision:deny"), ==, 0);
  g_clear_pointer (&lines, g_strfreev);
  lines = g_strsplit (g_strstrip (f->out), "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 2);   /* header + one row */
  g_assert_true (g_str_has_prefix (lines[0], "id,"));

  g_assert_cmpint (run_ctl (f, "audit", "export"), ==, 2);
  g_assert_cmpint (run_ctl (f, "audit", "export", "--format", "xml"), ==, 2);
  g_assert_cmpint (run_ctl (f, "audit", "export", "--format", "csv", "--since", "yesterday-ish"), ==, 2);
}

static void
test_audit_check_params (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(JsonNode) root = NULL;
  JsonArray *rows;

  fill_audit (f);

  /* Same arguments in another key order and spacing: the canonical form
   * matches. */
  g_assert_cmpint (run_ctl (f, "audit", "check-params", "--json", "{ \"size\": 1, \"name\": \"a\" }"), ==, 0);
  root = lumo_test_parse_json (f->out);
  rows = json_object_get_array_member (json_node_get_object (root), "rows");
  g_assert_cmpuint (json_array_get_length (rows), ==, 1);
  g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (rows, 0), "id"), ==, 1);

  g_assert_cmpint (run_ctl_stdin (f, "[1, 2, 3]", "audit", "check-params", "-"), ==, 0);
  g_assert_nonnull (strstr (f->out, "userscripts.save_script"));
  g_assert_cmpint (run_ctl (f, "audit", "check-params", "{\"name\":\"c\"}"), ==, 0);
  g_assert_nonnull (strstr (f->out, "No audit row"));

  g_assert_cmpint (run_ctl (f, "audit", "check-params", "{not json"), ==, 2);
  /* The bridge's strict parser: what it refuses has no canonical form. */
  g_assert_cmpint (run_ctl (f, "audit", "check-params", "{\"name\":\"a\",\"name\":\"a\"}"), ==, 2);
  g_assert_nonnull (strstr (f->err, "name"));
  g_assert_cmpint (run_ctl (f, "audit", "check-params", "{\"size\": 01}"), ==, 2);
  g_assert_cmpint (run_ctl (f, "audit", "check-params"), ==, 2);
}

/* The numbers against the rows a search lists, counted here. */
static void
test_audit_stats (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(JsonNode) rows_root = NULL;
  g_autoptr(GHashTable) per_caller = g_hash_table_new (g_str_hash, g_str_equal);
  JsonObject *all;
  JsonArray *groups, *rows;

  fill_audit (f);

  g_assert_cmpint (run_ctl (f, "audit", "search", "--json"), ==, 0);
  rows_root = lumo_test_parse_json (f->out);
  rows = json_node_get_array (rows_root);
  for (guint i = 0; i < json_array_get_length (rows); i++)
    {
      const char *caller = json_object_get_string_member (json_array_get_object_element (rows, i), "caller");

      g_hash_table_insert (per_caller, (gpointer) caller,
                           GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (per_caller, caller)) + 1));
    }

  g_assert_cmpint (run_ctl (f, "audit", "stats", "--by", "caller", "--json"), ==, 0);
  root = lumo_test_parse_json (f->out);
  all = json_object_get_object_member (json_node_get_object (root), "all");
  g_assert_cmpint (json_object_get_int_member (all, "total"), ==, json_array_get_length (rows));
  g_assert_cmpint (json_object_get_int_member (all, "allowed"), ==, 2);
  g_assert_cmpint (json_object_get_int_member (all, "denied"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (all, "failed"), ==, 0);
  groups = json_object_get_array_member (json_node_get_object (root), "groups");
  g_assert_cmpuint (json_array_get_length (groups), ==, g_hash_table_size (per_caller));
  for (guint i = 0; i < json_array_get_length (groups); i++)
    {
      JsonObject *g = json_array_get_object_element (groups, i);

      g_assert_cmpint (json_object_get_int_member (g, "total"), ==,
                       GPOINTER_TO_UINT (g_hash_table_lookup (per_caller, json_object_get_string_member (g, "key"))));
      g_assert_cmpstr (json_object_get_string_member (g, "name"), ==, "Lumo");
    }

  /* The same search language as search. */
  g_assert_cmpint (run_ctl (f, "audit", "stats", "decision:deny", "--json"), ==, 0);
  g_clear_pointer (&root, json_node_unref);
  root = lumo_test_parse_json (f->out);
  all = json_object_get_object_member (json_node_get_object (root), "all");
  g_assert_cmpint (json_object_get_int_member (all, "total"), ==, 1);
  g_assert_cmpint (run_ctl (f, "audit", "stats", "--by", "tool"), ==, 0);
  g_assert_nonnull (strstr (f->out, "userscripts.save_script"));
  g_assert_cmpint (run_ctl (f, "audit", "stats", "--by", "day", "--since", "1d"), ==, 0);
  g_assert_nonnull (strstr (f->out, "3"));

  g_assert_cmpint (run_ctl (f, "audit", "stats", "--by", "weekday"), ==, 2);
  g_assert_cmpint (run_ctl (f, "audit", "stats", "--since", "yesterday-ish"), ==, 2);
  g_assert_cmpint (run_ctl (f, "audit", "stats", "result:maybe"), ==, 2);
}

/* Another machine's log: a copied audit.db and a JSON Lines export, read
 * with --file (and its key with --key), never written. */
static void
test_audit_file (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *db = g_build_filename (f->data_dir, "audit.db", NULL);
  g_autofree char *key = g_build_filename (f->data_dir, "audit.key", NULL);
  g_autofree char *copy = g_build_filename (f->dir, "machine-b.db", NULL);
  g_autofree char *copy_key = g_build_filename (f->dir, "machine-b.key", NULL);
  g_autofree char *jsonl = g_build_filename (f->dir, "machine-b.jsonl", NULL);
  g_autofree char *notes = g_build_filename (f->dir, "notes.txt", NULL);
  g_autofree char *short_key = g_build_filename (f->dir, "short.key", NULL);
  g_autofree char *contents = NULL;
  g_autofree char *own_export = NULL;
  g_autofree char *sum_before = NULL;
  g_autofree char *sum_after = NULL;
  g_autoptr(JsonNode) root = NULL;
  gsize len = 0;

  fill_audit (f);
  g_assert_true (g_file_get_contents (db, &contents, &len, NULL));
  g_assert_true (g_file_set_contents_full (copy, contents, len, G_FILE_SET_CONTENTS_NONE, 0600, NULL));
  g_clear_pointer (&contents, g_free);
  g_assert_true (g_file_get_contents (key, &contents, &len, NULL));
  g_assert_true (g_file_set_contents_full (copy_key, contents, len, G_FILE_SET_CONTENTS_NONE, 0600, NULL));
  g_assert_cmpint (run_ctl (f, "audit", "export", "--format", "jsonl", "--output", jsonl), ==, 0);
  g_assert_cmpint (run_ctl (f, "audit", "export", "--format", "jsonl"), ==, 0);
  own_export = g_steal_pointer (&f->out);
  g_clear_pointer (&contents, g_free);
  g_assert_true (g_file_get_contents (copy, &contents, &len, NULL));
  sum_before = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) contents, len);

  for (guint i = 0; i < 2; i++)
    {
      const char *file = i == 0 ? copy : jsonl;

      g_assert_cmpint (run_ctl (f, "audit", "search", "--file", file, "caller:" TEST_CALLER_ID, "--json"), ==, 0);
      g_assert_cmpuint (json_array_length_of_out (f), ==, 2);
      g_assert_cmpint (run_ctl (f, "audit", "export", "--file", file, "--format", "jsonl"), ==, 0);
      g_assert_cmpstr (f->out, ==, own_export);
      g_assert_cmpint (run_ctl (f, "audit", "stats", "--file", file, "--json"), ==, 0);
      g_clear_pointer (&root, json_node_unref);
      root = lumo_test_parse_json (f->out);
      g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (json_node_get_object (root), "all"),
                                                   "total"), ==, 3);

      g_assert_cmpint (run_ctl (f, "audit", "verify", "--file", file), ==, 0);
      g_assert_nonnull (strstr (f->out, "intact"));
      g_assert_nonnull (strstr (f->out, "--key"));
      g_assert_cmpint (run_ctl (f, "audit", "verify", "--file", file, "--key", copy_key, "--json"), ==, 0);
      g_clear_pointer (&root, json_node_unref);
      root = lumo_test_parse_json (f->out);
      g_assert_true (json_object_get_boolean_member (json_node_get_object (root), "keyed"));
    }

  g_clear_pointer (&contents, g_free);
  g_assert_true (g_file_get_contents (copy, &contents, &len, NULL));
  sum_after = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) contents, len);
  g_assert_cmpstr (sum_before, ==, sum_after);
  {
    g_autofree char *wal = g_strconcat (copy, "-wal", NULL);

    g_assert_false (g_file_test (wal, G_FILE_TEST_EXISTS));
  }

  /* A tampered export names its first broken row. */
  g_clear_pointer (&contents, g_free);
  g_assert_true (g_file_get_contents (jsonl, &contents, NULL, NULL));
  {
    g_autoptr(GString) s = g_string_new (contents);

    g_assert_cmpuint (g_string_replace (s, "\"caller_name\":\"Lumo\"", "\"caller_name\":\"Lumo2\"", 2), ==, 2);
    g_assert_true (g_file_set_contents (jsonl, s->str, s->len, NULL));
  }
  g_assert_cmpint (run_ctl (f, "audit", "verify", "--file", jsonl, "--json"), ==, 1);
  g_clear_pointer (&root, json_node_unref);
  root = lumo_test_parse_json (f->out);
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (root), "badId"), ==, 2);

  /* Bad files and keys: the command line was right, the file is not (1). */
  g_assert_true (g_file_set_contents (notes, "nothing to see\n", -1, NULL));
  g_assert_cmpint (run_ctl (f, "audit", "search", "--file", notes), ==, 1);
  g_assert_nonnull (strstr (f->err, "line 1"));
  g_assert_true (g_file_set_contents_full (short_key, "0123456789", -1, G_FILE_SET_CONTENTS_NONE, 0600, NULL));
  g_assert_cmpint (run_ctl (f, "audit", "verify", "--file", copy, "--key", short_key), ==, 1);
  g_assert_nonnull (strstr (f->err, "10 bytes"));
  g_assert_cmpint (run_ctl (f, "audit", "verify", "--file", copy, "--key", notes), ==, 1);
  g_assert_cmpint (run_ctl (f, "audit", "search", "--key", copy_key), ==, 2);
  g_assert_nonnull (strstr (f->err, "--file"));
}

static void
test_audit_verify (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *path = g_build_filename (f->data_dir, "audit.db", NULL);
  g_autoptr(JsonNode) root = NULL;
  sqlite3 *db = NULL;
  sqlite3_stmt *stmt = NULL;
  g_autoptr(GPtrArray) triggers = g_ptr_array_new_with_free_func (g_free);

  fill_audit (f);

  g_assert_cmpint (run_ctl (f, "audit", "verify"), ==, 0);
  g_assert_nonnull (strstr (f->out, "intact"));
  g_assert_cmpint (run_ctl (f, "audit", "verify", "--json"), ==, 0);
  root = lumo_test_parse_json (f->out);
  g_assert_true (json_object_get_boolean_member (json_node_get_object (root), "ok"));
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (root), "rowsChecked"), ==, 3);

  /* Someone with write access edits a row behind the triggers' back. */
  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_prepare_v2 (db, "SELECT name FROM sqlite_master WHERE type = 'trigger'",
                                       -1, &stmt, NULL), ==, SQLITE_OK);
  while (sqlite3_step (stmt) == SQLITE_ROW)
    g_ptr_array_add (triggers, g_strdup ((const char *) sqlite3_column_text (stmt, 0)));
  sqlite3_finalize (stmt);
  for (guint i = 0; i < triggers->len; i++)
    {
      g_autofree char *sql = g_strdup_printf ("DROP TRIGGER \"%s\"", (char *) g_ptr_array_index (triggers, i));

      g_assert_cmpint (sqlite3_exec (db, sql, NULL, NULL, NULL), ==, SQLITE_OK);
    }
  g_assert_cmpint (sqlite3_exec (db, "UPDATE audit SET tool = 'userscripts.other' WHERE id = 2",
                                 NULL, NULL, NULL), ==, SQLITE_OK);
  sqlite3_close (db);

  g_assert_cmpint (run_ctl (f, "audit", "verify"), ==, 1);
  g_assert_cmpstr (f->err, !=, "");
  g_assert_cmpint (run_ctl (f, "audit", "verify", "--json"), ==, 1);
  g_clear_pointer (&root, json_node_unref);
  root = lumo_test_parse_json (f->out);
  g_assert_false (json_object_get_boolean_member (json_node_get_object (root), "ok"));
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (root), "badId"), ==, 2);
}

/* ---- probe-state ---------------------------------------------------------- */

static void
test_probe_state (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(JsonNode) root = NULL;

  g_assert_cmpint (run_ctl_stdin (f,
                                  "{\"ok\":true,\"service\":{\"namespace\":\"userscripts\",\"name\":\"U\","
                                  "\"version\":\"1\"},\"status\":{\"enabled\":true,\"authorized\":false,"
                                  "\"ready\":true,\"pendingApproval\":true}}",
                                  "probe-state"), ==, 0);
  g_assert_true (g_str_has_prefix (f->out, "error\n"));
  g_assert_nonnull (strstr (f->out, "Waiting for your approval in the provider."));

  g_assert_cmpint (run_ctl_stdin (f,
                                  "{\"ok\":true,\"service\":{\"namespace\":\"userscripts\",\"name\":\"U\","
                                  "\"version\":\"1\"},\"status\":{\"enabled\":true,\"authorized\":true,"
                                  "\"ready\":true,\"pendingApproval\":false}}",
                                  "probe-state", "--tools", "3", "--json"), ==, 0);
  root = lumo_test_parse_json (f->out);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (root), "state"), ==, "connected");
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (root), "row"), ==, "connected");
  g_assert_nonnull (strstr (json_object_get_string_member (json_node_get_object (root), "message"), "3"));

  g_assert_cmpint (run_ctl_stdin (f, "{\"ok\":true}", "probe-state"), ==, 0);
  g_assert_nonnull (strstr (f->out, "The probe response is incomplete."));
  g_assert_cmpint (run_ctl_stdin (f, "{\"kind\":\"rejected\",\"error\":\"No such extension\"}",
                                  "probe-state"), ==, 0);
  g_assert_nonnull (strstr (f->out, "not installed"));

  g_assert_cmpint (run_ctl_stdin (f, "not json", "probe-state"), ==, 2);
  g_assert_cmpint (run_ctl_stdin (f, "", "probe-state"), ==, 2);
  g_assert_cmpint (run_ctl_stdin (f, "{\"kind\":\"sideways\"}", "probe-state"), ==, 2);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(name, func) \
  g_test_add ("/cli/" name, Fixture, NULL, fixture_set_up, func, fixture_tear_down)

  ADD ("providers", test_providers);
  ADD ("callers", test_callers);
  ADD ("allow-deny-forget", test_allow_deny_forget);
  ADD ("set", test_set);
  ADD ("history-undo", test_history_undo);
  ADD ("bad-ids-change-nothing", test_bad_ids_change_nothing);
  ADD ("usage", test_usage);
  ADD ("audit/search", test_audit_search);
  ADD ("audit/search-by-grant", test_audit_search_by_grant);
  ADD ("audit/export", test_audit_export);
  ADD ("audit/check-params", test_audit_check_params);
  ADD ("audit/verify", test_audit_verify);
  ADD ("audit/stats", test_audit_stats);
  ADD ("audit/file", test_audit_file);
  ADD ("probe-state", test_probe_state);
  ADD ("review/usage", test_review_usage);

#undef ADD

  return g_test_run ();
}
