/* test-journal-setting.c — the app copies audit rows into the system
 * journal when its audit-journal key says so
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The program, and so the bus and the app it activates, runs in a mount
 * namespace with a socket of the test's where journald's would be
 * (lumo-test-journal.h). The app reads its settings from GLib's keyfile
 * backend in the test's config dir, which the test edits while the app
 * runs, as dconf would change under it.
 */
#include "config.h"

#include <string.h>

#include "lumo-audit-store.h"
#include "lumo-test-journal.h"
#include "lumo-test-session.h"

static char *no_namespace;   /* why the test is skipped, or NULL */

static void
write_setting (LumoTestSession *s,
               gboolean         on)
{
  g_autofree char *group = g_strdelimit (g_strdup (APP_ID), ".", '/');
  g_autofree char *contents = g_strdup_printf ("[%s]\naudit-journal=%s\n", group, on ? "true" : "false");

  lumo_test_write_in (lumo_test_bus_get_dir (s->bus), "config/glib-2.0/settings/keyfile", contents);
}

typedef struct
{
  LumoTestSession *s;
  LumoTestJournal *journal;
  gint64           next_id;
  gint64           first_audit_id;   /* of the writes made since the key went on */
} WriteUntilSent;

/* One more write (allowed, or denied by the rate limit: a row either
 * way), until an entry has reached the journal. */
static gboolean
write_until_sent (gpointer data)
{
  WriteUntilSent *w = data;
  g_autoptr(JsonObject) answer = NULL;
  gint64 audit_id;

  if (!lumo_test_journal_is_empty (w->journal))
    return TRUE;

  answer = lumo_test_authorize_write (w->s->peer, w->next_id++, TEST_CALLER_ID);
  audit_id = json_object_get_int_member (answer, "auditId");
  g_assert_cmpint (audit_id, >, 0);
  if (w->first_audit_id == 0)
    w->first_audit_id = audit_id;
  return FALSE;
}

static void
test_key_turns_journal_on (void)
{
  g_autoptr(LumoTestSession) s = NULL;
  g_autoptr(LumoTestJournal) journal = NULL;
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(GArray) fields = NULL;
  g_autofree char *schema_env = NULL;
  WriteUntilSent w = { NULL, };
  gint64 while_off, entry;

  if (no_namespace != NULL)
    {
      g_test_skip (no_namespace);
      return;
    }

  schema_env = g_strconcat ("GSETTINGS_SCHEMA_DIR=", g_getenv ("LUMO_TEST_SCHEMA_DIR"), NULL);
  journal = lumo_test_journal_new ();
  s = lumo_test_session_new (NULL, (const char *[]) { "GSETTINGS_BACKEND=keyfile", schema_env, NULL });
  if (s == NULL)
    return;
  lumo_test_session_connect (s, NULL);
  lumo_test_ctl_ok (s->bus, "allow", TEST_PROVIDER_ID, TEST_CALLER_ID, NULL);
  lumo_test_wait_for_policy_push (s->peer);
  lumo_test_ctl_ok (s->bus, "set", TEST_PROVIDER_ID, "review", "off", NULL);
  lumo_test_wait_for_policy_push (s->peer);

  /* Off by default. */
  answer = lumo_test_authorize_write (s->peer, 10, TEST_CALLER_ID);
  g_assert_true (json_object_get_boolean_member (answer, "allow"));
  while_off = json_object_get_int_member (answer, "auditId");
  lumo_test_send_result (s->peer, 11, while_off);

  /* On while the app runs: its writes reach the journal from then on. */
  write_setting (s, TRUE);
  w.s = s;
  w.journal = journal;
  w.next_id = 100;
  lumo_test_wait_until (write_until_sent, &w, "an audit entry in the journal after the key went on");

  /* Entries come in commit order: had the write made while the key was
   * off been sent, it would be first. */
  fields = lumo_test_journal_next (journal);
  entry = g_ascii_strtoll (lumo_test_journal_field (fields, "LUMO_ENTRY"), NULL, 10);
  g_assert_cmpint (entry, >, while_off);
  g_assert_cmpint (entry, >=, w.first_audit_id);
  g_assert_cmpstr (lumo_test_journal_field (fields, "MESSAGE_ID"), ==, LUMO_AUDIT_JOURNAL_MESSAGE_ID);
  g_assert_cmpstr (lumo_test_journal_field (fields, "LUMO_TOOL"), ==, "userscripts.save_script");
  g_assert_cmpstr (lumo_test_journal_field (fields, "LUMO_CALLER"), ==, TEST_CALLER_ID);
  g_assert_cmpstr (lumo_test_journal_field (fields, "LUMO_PROVIDER"), ==, TEST_PROVIDER_ID);
  g_assert_cmpstr (lumo_test_journal_field (fields, "LUMO_PARAMS_HMAC"), !=, TEST_PARAMS_HASH);

  lumo_test_peer_end (s->peer);
}

int
main (int   argc,
      char *argv[])
{
  /* Before any thread: the bus and the app inherit the namespace. */
  no_namespace = lumo_test_journal_enter_namespace ();

  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/integration/journal/key-turns-journal-on", test_key_turns_journal_on);

  return g_test_run ();
}
