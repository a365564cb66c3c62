/* test-policy-agents.c — desktop agents in policy.db: identity and tokens
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The migration from the schema without agents, the token's round trip,
 * every wrong token, removal and denial, the kind of a caller, the key file
 * and that the token is stored nowhere. This test is linked with
 * -Wl,--wrap=lumo_secret_equal (tests/core/meson.build), so it can count
 * that the token's MAC goes through the constant-time comparison.
 */
#include "config.h"

#include <string.h>
#include <sys/stat.h>

#include <glib/gstdio.h>

#include "lumo-db.h"
#include "lumo-error.h"
#include "lumo-policy-private.h"
#include "lumo-protocol.h"
#include "lumo-secret.h"
#include "lumo-test-policy.h"

/* ---- the constant-time comparison, counted ------------------------------- */

gboolean __real_lumo_secret_equal (const guint8 *a, const guint8 *b, gsize len);
gboolean __wrap_lumo_secret_equal (const guint8 *a, const guint8 *b, gsize len);

static guint n_secret_compares;

gboolean
__wrap_lumo_secret_equal (const guint8 *a,
                          const guint8 *b,
                          gsize         len)
{
  n_secret_compares++;
  return __real_lumo_secret_equal (a, b, len);
}

/* ---- helpers -------------------------------------------------------------- */

static void
add_agent (LumoTestPolicy      *f,
           const char          *name,
           const char * const  *providers,
           char               **id,
           char               **token)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (lumo_policy_add_agent (f->policy, name, providers, LUMO_POLICY_ORIGIN_CLI,
                                        id, token, &error));
  g_assert_no_error (error);
}

static gboolean
has_event (LumoTestPolicy *f,
           const char     *event)
{
  for (guint i = 0; i < f->events->len; i++)
    if (g_str_equal (g_ptr_array_index (f->events, i), event))
      return TRUE;
  return FALSE;
}

static void
assert_token_refused (LumoTestPolicy *f,
                      const char     *token,
                      int             code)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *id = lumo_policy_authenticate_agent (f->policy, token, &error);

  g_assert_null (id);
  g_assert_error (error, LUMO_ERROR, code);
  /* The message never quotes what was sent. */
  if (token != NULL && strlen (token) > 8)
    g_assert_null (strstr (error->message, token + strlen (token) - 8));
}

static guint
count_rows (LumoTestPolicy *f,
            const char     *sql)
{
  g_autoptr(sqlite3_stmt) stmt = lumo_db_prepare (f->policy->db, sql, NULL);

  g_assert_nonnull (stmt);
  g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_ROW);
  return (guint) sqlite3_column_int (stmt, 0);
}

/* ---- the migration -------------------------------------------------------- */

static void
test_migration (void)
{
  g_autofree char *dir = lumo_test_dir_new ("policy-migrate");
  g_autofree char *path = g_build_filename (dir, "policy.db", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(LumoPolicy) policy = NULL;
  g_autoptr(LumoCallerInfo) caller = NULL;
  g_autoptr(GPtrArray) history = NULL;
  g_autoptr(LumoHistoryEntry) undone = NULL;
  g_autofree char *agent = NULL;
  g_autofree char *token = NULL;
  const char *providers[] = { TEST_PROVIDER_ID, NULL };
  sqlite3 *db;

  /* A policy.db as the version before desktop agents wrote it: schema 1,
   * a provider, an allowed caller and the history of allowing it. */
  db = lumo_db_open (path, LUMO_DB_FLAGS_NONE, lumo_policy_migrations, 1, &error);
  g_assert_no_error (error);
  g_assert_true (lumo_db_exec (db,
    "INSERT INTO providers (id, created) VALUES ('" TEST_PROVIDER_ID "', 1);"
    "INSERT INTO callers (provider_id, id, state, display_name, first_seen, last_seen, probe_count) "
    "  VALUES ('" TEST_PROVIDER_ID "', '" TEST_CALLER_ID "', 'allowed', 'Lumo', 2, 3, 4);"
    "INSERT INTO history (time, origin, provider_id, caller_id, field, old_value, new_value) "
    "  VALUES (5, 'ui', '" TEST_PROVIDER_ID "', '" TEST_CALLER_ID "', 'caller', NULL, 'allowed');",
    &error));
  g_assert_no_error (error);
  lumo_db_close (db);

  policy = lumo_policy_new (path, &error);
  g_assert_no_error (error);

  /* The caller is still there, allowed, and an extension. */
  caller = lumo_policy_get_caller (policy, TEST_PROVIDER_ID, TEST_CALLER_ID, &error);
  g_assert_no_error (error);
  g_assert_cmpint (caller->state, ==, LUMO_CALLER_STATE_ALLOWED);
  g_assert_cmpint (caller->kind, ==, LUMO_CALLER_KIND_EXTENSION);
  g_assert_cmpstr (caller->display_name, ==, "Lumo");
  g_assert_cmpuint (caller->probe_count, ==, 4);
  g_assert_false (lumo_policy_is_agent (policy, TEST_CALLER_ID));

  /* The history kept its entry, and it can still be undone. */
  history = lumo_policy_list_history (policy, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (history->len, ==, 1);
  g_assert_cmpint (((LumoHistoryEntry *) g_ptr_array_index (history, 0))->id, ==, 1);

  /* An agent lands in the rebuilt history, after the old entry. */
  g_assert_true (lumo_policy_add_agent (policy, "Claude Code", providers, LUMO_POLICY_ORIGIN_CLI,
                                        &agent, &token, &error));
  g_assert_no_error (error);
  g_clear_pointer (&history, g_ptr_array_unref);
  history = lumo_policy_list_history (policy, 0, &error);
  g_assert_cmpuint (history->len, ==, 2);
  g_assert_cmpint (((LumoHistoryEntry *) g_ptr_array_index (history, 0))->id, ==, 2);
  g_assert_cmpstr (((LumoHistoryEntry *) g_ptr_array_index (history, 0))->field, ==, "agent");
  g_assert_null (((LumoHistoryEntry *) g_ptr_array_index (history, 0))->provider_id);

  /* Undo walks back through both: the agent, then the old allow. */
  g_assert_true (lumo_policy_undo_last (policy, LUMO_POLICY_ORIGIN_CLI, &undone, &error));
  g_assert_cmpstr (undone->field, ==, "agent");
  g_clear_pointer (&undone, lumo_history_entry_free);
  g_assert_true (lumo_policy_undo_last (policy, LUMO_POLICY_ORIGIN_CLI, &undone, &error));
  g_assert_no_error (error);
  g_assert_cmpint (undone->id, ==, 1);
  g_assert_null (lumo_policy_get_caller (policy, TEST_PROVIDER_ID, TEST_CALLER_ID, NULL));

  g_clear_object (&policy);
  lumo_test_dir_remove (dir);
}

/* ---- tokens ---------------------------------------------------------------- */

static void
test_token_round_trip (LumoTestPolicy *f,
                       gconstpointer   data)
{
  const char *providers[] = { TEST_PROVIDER_ID, NULL };
  g_autofree char *id = NULL;
  g_autofree char *token = NULL;
  g_autofree char *found = NULL;
  g_autofree char *agent_event = NULL;
  g_autoptr(LumoCallerInfo) caller = NULL;
  g_autoptr(LumoAgentInfo) info = NULL;
  g_autoptr(GPtrArray) agents = NULL;
  g_autoptr(GError) error = NULL;
  guint compares;

  lumo_test_policy_register (f);
  g_ptr_array_set_size (f->events, 0);
  add_agent (f, "Claude\nCode\u202e", providers, &id, &token);

  g_assert_true (lumo_is_extension_id (id));
  g_assert_cmpuint (strlen (token), ==, LUMO_AGENT_TOKEN_LEN);
  g_assert_true (g_str_has_prefix (token, LUMO_AGENT_TOKEN_PREFIX));
  g_assert_true (strncmp (token + 5, id, 32) == 0);
  g_assert_cmpint (token[37], ==, '_');

  compares = n_secret_compares;
  found = lumo_policy_authenticate_agent (f->policy, token, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (found, ==, id);
  /* The stored MAC was compared in constant time, once. */
  g_assert_cmpuint (n_secret_compares, ==, compares + 1);

  /* A caller of the provider like any other, of kind agent, with the
   * cleaned name. */
  caller = lumo_policy_get_caller (f->policy, TEST_PROVIDER_ID, id, &error);
  g_assert_no_error (error);
  g_assert_cmpint (caller->state, ==, LUMO_CALLER_STATE_ALLOWED);
  g_assert_cmpint (caller->kind, ==, LUMO_CALLER_KIND_AGENT);
  info = lumo_policy_get_agent (f->policy, id, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (info->name, ==, "Claude Code");
  agents = lumo_policy_list_agents (f->policy, &error);
  g_assert_cmpuint (agents->len, ==, 1);
  g_assert_true (lumo_policy_is_agent (f->policy, id));
  g_assert_false (lumo_policy_is_agent (f->policy, TEST_CALLER_ID));

  agent_event = g_strdup_printf ("agent-changed:%s", id);
  g_assert_true (has_event (f, agent_event));

  /* A second agent has another ID and another token. */
  {
    g_autofree char *id2 = NULL;
    g_autofree char *token2 = NULL;
    g_autofree char *found2 = NULL;

    add_agent (f, "VS Code", NULL, &id2, &token2);
    g_assert_cmpstr (id2, !=, id);
    g_assert_cmpstr (token2 + 38, !=, token + 38);
    found2 = lumo_policy_authenticate_agent (f->policy, token2, &error);
    g_assert_cmpstr (found2, ==, id2);
    /* Allowed nowhere: it has no caller rows. */
    g_assert_null (lumo_policy_get_caller (f->policy, TEST_PROVIDER_ID, id2, NULL));
  }
}

static void
test_wrong_tokens (LumoTestPolicy *f,
                   gconstpointer   data)
{
  g_autofree char *id = NULL;
  g_autofree char *token = NULL;
  g_autofree char *id2 = NULL;
  g_autofree char *token2 = NULL;
  g_autofree char *flipped = NULL;
  g_autofree char *swapped = NULL;
  g_autofree char *unknown = NULL;
  g_autofree char *short_token = NULL;
  g_autofree char *long_token = NULL;
  g_autofree char *upper = NULL;
  g_autofree char *bad_char = NULL;
  g_autofree char *bad_sep = NULL;
  guint compares;

  add_agent (f, "Claude Code", NULL, &id, &token);
  add_agent (f, "Cursor", NULL, &id2, &token2);

  /* None, or not of the token's form: refused before anything is read. */
  assert_token_refused (f, NULL, LUMO_ERROR_INVALID_ARGUMENT);
  assert_token_refused (f, "", LUMO_ERROR_INVALID_ARGUMENT);
  assert_token_refused (f, "Bearer", LUMO_ERROR_INVALID_ARGUMENT);
  short_token = g_strndup (token, strlen (token) - 1);
  assert_token_refused (f, short_token, LUMO_ERROR_INVALID_ARGUMENT);
  long_token = g_strconcat (token, "A", NULL);
  assert_token_refused (f, long_token, LUMO_ERROR_INVALID_ARGUMENT);
  upper = g_strdup (token);
  upper[5] = g_ascii_toupper (upper[5]);
  assert_token_refused (f, upper, LUMO_ERROR_INVALID_ARGUMENT);
  bad_char = g_strdup (token);
  bad_char[50] = '+';
  assert_token_refused (f, bad_char, LUMO_ERROR_INVALID_ARGUMENT);
  bad_sep = g_strdup (token);
  bad_sep[37] = '.';
  assert_token_refused (f, bad_sep, LUMO_ERROR_INVALID_ARGUMENT);
  {
    g_autofree char *other_prefix = g_strdup (token);

    other_prefix[0] = 'L';
    assert_token_refused (f, other_prefix, LUMO_ERROR_INVALID_ARGUMENT);
  }

  /* Well-formed but wrong: one character of the secret changed, one
   * agent's ID with the other's secret, an ID no agent has. Each is
   * compared, in constant time, and refused alike. */
  compares = n_secret_compares;
  flipped = g_strdup (token);
  flipped[80] = flipped[80] == 'A' ? 'B' : 'A';
  assert_token_refused (f, flipped, LUMO_ERROR_NOT_FOUND);
  swapped = g_strdup (token);
  memcpy (swapped + 5, id2, 32);
  assert_token_refused (f, swapped, LUMO_ERROR_NOT_FOUND);
  unknown = g_strdup (token);
  memcpy (unknown + 5, TEST_UNKNOWN_ID, 32);
  assert_token_refused (f, unknown, LUMO_ERROR_NOT_FOUND);
  g_assert_cmpuint (n_secret_compares, ==, compares + 3);
}

static void
test_removed (LumoTestPolicy *f,
              gconstpointer   data)
{
  const char *providers[] = { TEST_PROVIDER_ID, NULL };
  g_autofree char *id = NULL;
  g_autofree char *token = NULL;
  g_autofree char *revoked = NULL;
  g_autofree char *found = NULL;
  g_autoptr(GPtrArray) history = NULL;
  g_autoptr(LumoHistoryEntry) undone = NULL;
  g_autoptr(GError) error = NULL;
  LumoHistoryEntry *entry;

  lumo_test_policy_register (f);
  add_agent (f, "Claude Code", providers, &id, &token);
  g_ptr_array_set_size (f->events, 0);

  g_assert_true (lumo_policy_remove_agent (f->policy, id, LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_no_error (error);

  /* Its token stops working and its sessions are told to end. */
  assert_token_refused (f, token, LUMO_ERROR_NOT_FOUND);
  revoked = g_strdup_printf ("revoked:%s/%s", TEST_PROVIDER_ID, id);
  g_assert_true (has_event (f, revoked));
  g_assert_false (lumo_policy_is_agent (f->policy, id));
  g_assert_null (lumo_policy_get_caller (f->policy, TEST_PROVIDER_ID, id, NULL));
  g_assert_null (lumo_policy_get_agent (f->policy, id, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND);
  g_clear_error (&error);

  /* A second removal finds nothing. */
  g_assert_false (lumo_policy_remove_agent (f->policy, id, LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND);
  g_clear_error (&error);

  /* The history says who and what, never the token. */
  history = lumo_policy_list_history (f->policy, 2, &error);
  entry = g_ptr_array_index (history, 0);
  g_assert_cmpstr (entry->field, ==, "agent");
  g_assert_cmpstr (entry->caller_id, ==, id);
  g_assert_null (entry->provider_id);
  g_assert_cmpstr (entry->old_value, ==, "Claude Code");
  g_assert_null (entry->new_value);
  entry = g_ptr_array_index (history, 1);
  g_assert_null (entry->old_value);
  g_assert_cmpstr (entry->new_value, ==, "Claude Code");
  g_assert_cmpuint (count_rows (f, "SELECT count(*) FROM history WHERE instr (coalesce (snapshot, '') || "
                                   "coalesce (old_value, '') || coalesce (new_value, ''), 'lumo_') > 0"), ==, 0);

  /* Undo brings the agent back, on its provider, with the same token. */
  g_assert_true (lumo_policy_undo_last (f->policy, LUMO_POLICY_ORIGIN_UI, &undone, &error));
  g_assert_no_error (error);
  found = lumo_policy_authenticate_agent (f->policy, token, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (found, ==, id);
  {
    g_autoptr(LumoCallerInfo) caller = lumo_policy_get_caller (f->policy, TEST_PROVIDER_ID, id, &error);

    g_assert_no_error (error);
    g_assert_cmpint (caller->kind, ==, LUMO_CALLER_KIND_AGENT);
    g_assert_cmpint (caller->state, ==, LUMO_CALLER_STATE_ALLOWED);
  }
}

static void
test_denied (LumoTestPolicy *f,
             gconstpointer   data)
{
  const char *providers[] = { TEST_PROVIDER_ID, NULL };
  g_autofree char *id = NULL;
  g_autofree char *token = NULL;
  g_autofree char *revoked = NULL;
  g_autofree char *found = NULL;
  g_autoptr(LumoCallerInfo) caller = NULL;
  g_autoptr(GError) error = NULL;
  LumoPolicyStatus status;

  lumo_test_policy_register (f);
  add_agent (f, "Claude Code", providers, &id, &token);
  g_ptr_array_set_size (f->events, 0);

  /* Denied the way any caller is: revoked at once, its state denied. */
  g_assert_true (lumo_policy_deny_caller (f->policy, TEST_PROVIDER_ID, id, LUMO_POLICY_ORIGIN_UI, &error));
  revoked = g_strdup_printf ("revoked:%s/%s", TEST_PROVIDER_ID, id);
  g_assert_true (has_event (f, revoked));

  /* The token still says who it is; the caller row says it may not. */
  found = lumo_policy_authenticate_agent (f->policy, token, &error);
  g_assert_cmpstr (found, ==, id);
  g_assert_true (lumo_policy_probe (f->policy, TEST_PROVIDER_ID, id, "Claude Code", &status, &error));
  g_assert_false (status.authorized);
  g_assert_false (status.pending_approval);
  g_assert_cmpint (lumo_test_policy_read (f, id), ==, LUMO_DENY_REASON_NOT_AUTHORIZED);
  caller = lumo_policy_get_caller (f->policy, TEST_PROVIDER_ID, id, &error);
  g_assert_cmpint (caller->kind, ==, LUMO_CALLER_KIND_AGENT);
}

/* An agent ID gets caller rows of kind agent however they are made: a
 * person allows it by ID, or it asks for access where it has none. */
static void
test_kind (LumoTestPolicy *f,
           gconstpointer   data)
{
  g_autofree char *id = NULL;
  g_autofree char *token = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(LumoCallerInfo) allowed = NULL;
  g_autoptr(LumoCallerInfo) pending = NULL;
  g_autoptr(LumoCallerInfo) extension = NULL;
  LumoPolicyStatus status;

  lumo_test_policy_register (f);
  g_assert_true (lumo_policy_add_provider (f->policy, TEST_PROVIDER2_ID, LUMO_POLICY_ORIGIN_UI, &error));
  add_agent (f, "Codex", NULL, &id, &token);

  lumo_test_policy_allow (f, id);
  allowed = lumo_policy_get_caller (f->policy, TEST_PROVIDER_ID, id, &error);
  g_assert_cmpint (allowed->kind, ==, LUMO_CALLER_KIND_AGENT);

  g_assert_true (lumo_policy_probe (f->policy, TEST_PROVIDER2_ID, id, "Codex", &status, &error));
  g_assert_true (status.pending_approval);
  pending = lumo_policy_get_caller (f->policy, TEST_PROVIDER2_ID, id, &error);
  g_assert_cmpint (pending->kind, ==, LUMO_CALLER_KIND_AGENT);

  lumo_test_policy_allow (f, TEST_CALLER_ID);
  extension = lumo_policy_get_caller (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, &error);
  g_assert_cmpint (extension->kind, ==, LUMO_CALLER_KIND_EXTENSION);
  g_assert_cmpstr (lumo_caller_kind_to_string (extension->kind), ==, "extension");
  g_assert_cmpstr (lumo_caller_kind_to_string (allowed->kind), ==, "agent");
}

static void
test_bad_input (LumoTestPolicy *f,
                gconstpointer   data)
{
  const char *unknown[] = { TEST_PROVIDER_ID, TEST_UNKNOWN_ID, NULL };
  const char *bad[] = { TEST_BAD_ID_UPPER, NULL };
  const char *names[] = { NULL, "", "   ", "\a\u202e\n", "\u200e" };
  g_autoptr(GError) error = NULL;

  lumo_test_policy_register (f);
  g_ptr_array_set_size (f->events, 0);

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *id = NULL;
      g_autofree char *token = NULL;

      g_assert_false (lumo_policy_add_agent (f->policy, names[i], NULL, LUMO_POLICY_ORIGIN_CLI,
                                             &id, &token, &error));
      g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT);
      g_clear_error (&error);
      g_assert_null (id);
      g_assert_null (token);
    }

  {
    g_autofree char *id = NULL;
    g_autofree char *token = NULL;

    g_assert_false (lumo_policy_add_agent (f->policy, "Claude", bad, LUMO_POLICY_ORIGIN_CLI,
                                           &id, &token, &error));
    g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ID);
    g_clear_error (&error);

    /* One unknown provider and nothing is made, not even on the known one. */
    g_assert_false (lumo_policy_add_agent (f->policy, "Claude", unknown, LUMO_POLICY_ORIGIN_CLI,
                                           &id, &token, &error));
    g_assert_error (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND);
    g_clear_error (&error);
    g_assert_null (token);
  }

  g_assert_cmpuint (count_rows (f, "SELECT count(*) FROM agents"), ==, 0);
  g_assert_cmpuint (count_rows (f, "SELECT count(*) FROM callers"), ==, 0);
  g_assert_cmpuint (count_rows (f, "SELECT count(*) FROM history WHERE field = 'agent'"), ==, 0);
  g_assert_cmpuint (f->events->len, ==, 0);

  g_assert_false (lumo_policy_remove_agent (f->policy, TEST_BAD_ID_SHORT, LUMO_POLICY_ORIGIN_CLI, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ID);
  g_clear_error (&error);

  /* A long name is cut on a character boundary within the bound. */
  {
    g_autoptr(GString) name = g_string_new (NULL);
    g_autofree char *id = NULL;
    g_autofree char *token = NULL;
    g_autoptr(LumoAgentInfo) info = NULL;

    for (guint i = 0; i < 100; i++)
      g_string_append (name, "é");
    add_agent (f, name->str, NULL, &id, &token);
    info = lumo_policy_get_agent (f->policy, id, &error);
    g_assert_cmpuint (strlen (info->name), <=, LUMO_AGENT_MAX_NAME_LEN);
    g_assert_cmpuint (strlen (info->name), >=, LUMO_AGENT_MAX_NAME_LEN - 1);
    g_assert_true (g_utf8_validate (info->name, -1, NULL));
  }
}

/* ---- the key file, and where the token is not ----------------------------- */

static void
test_key_file (LumoTestPolicy *f,
               gconstpointer   data)
{
  const char *providers[] = { TEST_PROVIDER_ID, NULL };
  g_autofree char *key_path = g_build_filename (f->dir, "agents.key", NULL);
  g_autofree char *id = NULL;
  g_autofree char *token = NULL;
  g_autoptr(GDir) dir = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(LumoPolicy) other = NULL;
  const char *name;
  struct stat st;

  lumo_test_policy_register (f);
  add_agent (f, "Claude Code", providers, &id, &token);
  g_assert_true (lumo_policy_flush (f->policy, &error));

  g_assert_cmpint (g_stat (key_path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 07777, ==, 0600);
  g_assert_cmpint (st.st_size, ==, LUMO_SECRET_SIZE);

  /* Neither the token nor its secret half is in any file of the data
   * directory (the database, its WAL, the key). Reading them drops this
   * process's SQLite locks, so only a new connection is used after. */
  dir = g_dir_open (f->dir, 0, &error);
  g_assert_no_error (error);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (f->dir, name, NULL);

      g_assert_false (lumo_test_file_contains (path, token));
      g_assert_false (lumo_test_file_contains (path, token + 38));
    }

  /* A key others can read keys nothing: refused, not used. */
  g_assert_cmpint (g_chmod (key_path, 0644), ==, 0);
  other = lumo_policy_new (f->path, &error);
  g_assert_no_error (error);
  g_assert_null (lumo_policy_authenticate_agent (other, token, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_SECRET);
  g_clear_error (&error);
  {
    g_autofree char *id2 = NULL;
    g_autofree char *token2 = NULL;

    g_assert_false (lumo_policy_add_agent (other, "Cursor", NULL, LUMO_POLICY_ORIGIN_CLI,
                                           &id2, &token2, &error));
    g_assert_error (error, LUMO_ERROR, LUMO_ERROR_SECRET);
    g_clear_error (&error);
  }
  g_assert_cmpint (g_chmod (key_path, 0600), ==, 0);
}

/* Another process (the CLI while the app runs) adds and removes agents:
 * this instance sees both at the next refresh, with its signals. */
static void
test_other_process (LumoTestPolicy *f,
                    gconstpointer   data)
{
  g_autoptr(LumoPolicy) cli = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *id = NULL;
  g_autofree char *token = NULL;
  g_autofree char *found = NULL;
  g_autofree char *event = NULL;

  cli = lumo_policy_new (f->path, &error);
  g_assert_no_error (error);
  g_assert_true (lumo_policy_add_agent (cli, "Claude Code", NULL, LUMO_POLICY_ORIGIN_CLI,
                                        &id, &token, &error));

  found = lumo_policy_authenticate_agent (f->policy, token, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (found, ==, id);
  g_assert_true (lumo_policy_is_agent (f->policy, id));

  g_ptr_array_set_size (f->events, 0);
  g_assert_true (lumo_policy_remove_agent (cli, id, LUMO_POLICY_ORIGIN_CLI, &error));
  g_assert_true (lumo_policy_refresh (f->policy, &error));
  event = g_strdup_printf ("agent-changed:%s", id);
  g_assert_true (has_event (f, event));
  g_assert_false (lumo_policy_is_agent (f->policy, id));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/policy-agents/migration", test_migration);
  lumo_test_policy_add ("/policy-agents/token-round-trip", test_token_round_trip);
  lumo_test_policy_add ("/policy-agents/wrong-tokens", test_wrong_tokens);
  lumo_test_policy_add ("/policy-agents/removed", test_removed);
  lumo_test_policy_add ("/policy-agents/denied", test_denied);
  lumo_test_policy_add ("/policy-agents/kind", test_kind);
  lumo_test_policy_add ("/policy-agents/bad-input", test_bad_input);
  lumo_test_policy_add ("/policy-agents/key-file", test_key_file);
  lumo_test_policy_add ("/policy-agents/other-process", test_other_process);

  return g_test_run ();
}
