/* test-managed.c — the window under the organization's managed policy: the
 * rows a file sets are insensitive and say so, and a wrong file is a banner
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The fixture's policy reads its own policy.d (f->managed_dir). Most tests
 * read it at once (lumo_policy_reload_managed()); the live one waits for
 * the policy's file monitor, as the running app does.
 */
#include "config.h"

#include <string.h>

#include "app-test-util.h"
#include "lumo-agents-group.h"
#include "lumo-error.h"
#include "lumo-grants-group.h"
#include "lumo-review-row.h"
#include "lumo-ui-util.h"

#define ORGANIZATION "Set by your organization"

static void
apply_managed (AppFixture *f,
               const char *contents)
{
  lumo_test_write_in (f->managed_dir, "50-org.json", contents);
  lumo_policy_reload_managed (f->policy);
  app_test_iterate ();
}

static GtkWidget *
switch_row (LumoAccessPage   *page,
            LumoPolicySwitch  sw)
{
  return gtk_widget_get_ancestor (GTK_WIDGET (lumo_access_page_get_switch (page, sw)), ADW_TYPE_ACTION_ROW);
}

/* The row of @caller in the Access page's lists (by its button). */
static GtkWidget *
caller_row (LumoAccessPage *page,
            const char     *action,
            const char     *caller)
{
  GtkWidget *button = app_test_find_action_button (GTK_WIDGET (page), action,
                                                   g_variant_new ("(ss)", TEST_PROVIDER_ID, caller));

  g_assert_nonnull (button);
  return gtk_widget_get_ancestor (button, ADW_TYPE_ACTION_ROW);
}

static void
test_switches (AppFixture    *f,
               gconstpointer  data)
{
  LumoAccessPage *page = _lumo_window_get_access_page (f->window);
  GtkWidget *enabled_row = switch_row (page, LUMO_POLICY_SWITCH_ENABLED);
  GtkWidget *writes_row = switch_row (page, LUMO_POLICY_SWITCH_WRITES);
  GtkWidget *review_row = switch_row (page, LUMO_POLICY_SWITCH_REVIEW);
  g_autofree char *writes_subtitle = NULL;

  app_fixture_add_provider (f, TEST_PROVIDER_ID, "Lumo Userscripts");
  app_test_iterate ();
  writes_subtitle = g_strdup (app_test_row_subtitle (writes_row));
  g_assert_true (gtk_widget_get_sensitive (writes_row));
  g_assert_true (gtk_switch_get_active (lumo_access_page_get_switch (page, LUMO_POLICY_SWITCH_WRITES)));

  apply_managed (f, "{\"writes\": false, \"review\": true}");

  /* The value in force, insensitive, and why. */
  g_assert_false (gtk_switch_get_active (lumo_access_page_get_switch (page, LUMO_POLICY_SWITCH_WRITES)));
  g_assert_false (gtk_widget_get_sensitive (writes_row));
  g_assert_cmpstr (app_test_row_subtitle (writes_row), ==, ORGANIZATION);
  g_assert_false (gtk_widget_get_sensitive (review_row));
  g_assert_cmpstr (app_test_row_subtitle (review_row), ==, ORGANIZATION);
  /* What no file sets stays the person's. */
  g_assert_true (gtk_widget_get_sensitive (enabled_row));
  g_assert_cmpstr (app_test_row_subtitle (enabled_row), !=, ORGANIZATION);

  /* The file goes: the person's switch and its explanation are back. */
  apply_managed (f, "{}");
  g_assert_true (gtk_switch_get_active (lumo_access_page_get_switch (page, LUMO_POLICY_SWITCH_WRITES)));
  g_assert_true (gtk_widget_get_sensitive (writes_row));
  g_assert_cmpstr (app_test_row_subtitle (writes_row), ==, writes_subtitle);
}

static void
test_callers (AppFixture    *f,
              gconstpointer  data)
{
  LumoAccessPage *page = _lumo_window_get_access_page (f->window);
  g_autoptr(GError) error = NULL;
  LumoPolicyStatus status;
  GtkWidget *row;

  app_fixture_add_provider (f, TEST_PROVIDER_ID, "Lumo Userscripts");
  lumo_policy_allow_caller (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, LUMO_POLICY_ORIGIN_CLI, &error);
  lumo_policy_allow_caller (f->policy, TEST_PROVIDER_ID, TEST_CALLER2_ID, LUMO_POLICY_ORIGIN_CLI, &error);
  g_assert_no_error (error);
  app_test_iterate ();

  apply_managed (f, "{\"callers\": {\"deny\": [\"" TEST_CALLER_ID "\"], \"allow\": [\"" TEST_CALLER3_ID "\"]}}");
  /* The organization's new caller asks once, and is let in. */
  g_assert_true (lumo_policy_probe (f->policy, TEST_PROVIDER_ID, TEST_CALLER3_ID, "Fleet agent", &status, &error));
  g_assert_true (status.authorized);
  app_test_iterate ();

  /* Denied by the file: on the deny-list, insensitive, and says why. */
  g_assert_nonnull (lumo_caller_model_find (lumo_access_page_get_denied (page), TEST_PROVIDER_ID, TEST_CALLER_ID));
  row = caller_row (page, "access.allow-caller", TEST_CALLER_ID);
  g_assert_false (gtk_widget_get_sensitive (row));
  g_assert_nonnull (strstr (app_test_row_subtitle (row), ORGANIZATION));

  /* Allowed by the file: insensitive too. */
  row = caller_row (page, "access.forget-caller", TEST_CALLER3_ID);
  g_assert_false (gtk_widget_get_sensitive (row));
  g_assert_nonnull (strstr (app_test_row_subtitle (row), ORGANIZATION));

  /* The person's own allowance: as before. */
  row = caller_row (page, "access.forget-caller", TEST_CALLER2_ID);
  g_assert_true (gtk_widget_get_sensitive (row));
  g_assert_null (strstr (app_test_row_subtitle (row), ORGANIZATION));

  /* The file goes: back on the allow-list, and the person's to change. */
  apply_managed (f, "{}");
  g_assert_nonnull (lumo_caller_model_find (lumo_access_page_get_allowed (page), TEST_PROVIDER_ID, TEST_CALLER_ID));
  row = caller_row (page, "access.forget-caller", TEST_CALLER_ID);
  g_assert_true (gtk_widget_get_sensitive (row));
  g_assert_null (strstr (app_test_row_subtitle (row), ORGANIZATION));
}

typedef struct
{
  gboolean          done;
  LumoReviewOutcome outcome;
} ReviewResult;

static void
on_review_done_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  ReviewResult *r = user_data;

  r->outcome = lumo_review_queue_submit_finish (LUMO_REVIEW_QUEUE (object), result, NULL);
  r->done = TRUE;
}

static gboolean
review_done (gpointer data)
{
  return ((ReviewResult *) data)->done;
}

/* The grant buttons of the only review row: For 10 Minutes, Always, and
 * Once, which a forced review leaves alone. */
static GtkWidget *
review_button (AppFixture *f,
               const char *label)
{
  GtkWidget *row = app_test_find_widget (GTK_WIDGET (_lumo_window_get_requests_page (f->window)),
                                         LUMO_TYPE_REVIEW_ROW, 0);
  GtkWidget *button;

  g_assert_nonnull (row);
  button = app_test_find_button_with_label (row, label);
  g_assert_nonnull (button);
  return button;
}

static void
assert_grant_buttons (AppFixture *f,
                      gboolean    managed)
{
  const char *labels[] = { "For _10 Minutes", "_Always" };

  for (guint i = 0; i < G_N_ELEMENTS (labels); i++)
    {
      GtkWidget *button = review_button (f, labels[i]);

      g_assert_cmpint (gtk_widget_is_sensitive (button), ==, !managed);
      if (managed)
        g_assert_cmpstr (gtk_widget_get_tooltip_text (button), ==, ORGANIZATION);
      else
        g_assert_true (g_str_has_prefix (gtk_widget_get_tooltip_text (button), "Approve this write, and let"));
    }
  g_assert_true (gtk_widget_is_sensitive (review_button (f, "Approve _Once")));
}

/* A file forcing review: a person's grants no longer let writes through,
 * and the Grants group says whose rule that is; a waiting write's For 10
 * Minutes and Always cannot be used (they would be refused), Once can.
 * Both follow the file as it comes and goes. */
static void
test_review_forced_grants (AppFixture    *f,
                           gconstpointer  data)
{
  LumoAccessPage *page = _lumo_window_get_access_page (f->window);
  ReviewResult first = { 0 }, second = { 0 };
  g_autoptr(GError) error = NULL;
  GtkWidget *grants;
  GtkWidget *grant_row;

  app_fixture_add_provider (f, TEST_PROVIDER_ID, "Lumo Userscripts");
  g_assert_true (lumo_policy_add_caller (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, "Helpful Agent",
                                         LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_no_error (error);
  g_assert_true (lumo_policy_add_grant (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, "userscripts.save_script",
                                        LUMO_GRANT_SCOPE_ALWAYS, LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_no_error (error);
  app_test_iterate ();
  g_assert_true (lumo_access_page_set_provider (page, TEST_PROVIDER_ID));
  grants = GTK_WIDGET (lumo_grants_group_get_list (LUMO_GRANTS_GROUP (
    app_test_find_widget (GTK_WIDGET (page), LUMO_TYPE_GRANTS_GROUP, 0))));

  grant_row = app_test_find_widget (grants, ADW_TYPE_ACTION_ROW, 0);
  g_assert_nonnull (grant_row);
  g_assert_null (strstr (app_test_row_subtitle (grant_row), ORGANIZATION));

  /* A write waiting when the file comes. */
  lumo_review_queue_submit_async (f->queue, TEST_PROVIDER_ID, TEST_CALLER_ID, "Helpful Agent",
                                  "userscripts.update_script", NULL, "{}", NULL, on_review_done_cb, &first);
  app_test_iterate ();
  assert_grant_buttons (f, FALSE);

  apply_managed (f, "{\"review\": true}");
  assert_grant_buttons (f, TRUE);
  /* The grant is kept, listed, and says why it does not count. */
  grant_row = app_test_find_widget (grants, ADW_TYPE_ACTION_ROW, 0);
  g_assert_nonnull (grant_row);
  g_assert_nonnull (strstr (app_test_row_subtitle (grant_row), "Helpful Agent · Always"));
  g_assert_nonnull (strstr (app_test_row_subtitle (grant_row), ORGANIZATION));

  /* Once still approves, and makes no grant. */
  app_test_click (review_button (f, "Approve _Once"));
  lumo_test_wait_until (review_done, &first, "the review approved once");
  g_assert_cmpint (first.outcome, ==, LUMO_REVIEW_OUTCOME_APPROVED);

  /* A write that comes while the file is there. */
  lumo_review_queue_submit_async (f->queue, TEST_PROVIDER_ID, TEST_CALLER_ID, "Helpful Agent",
                                  "userscripts.update_script", NULL, "{}", NULL, on_review_done_cb, &second);
  app_test_iterate ();
  assert_grant_buttons (f, TRUE);

  /* The file goes: the buttons and the grant are the person's again. */
  apply_managed (f, "{}");
  assert_grant_buttons (f, FALSE);
  grant_row = app_test_find_widget (grants, ADW_TYPE_ACTION_ROW, 0);
  g_assert_null (strstr (app_test_row_subtitle (grant_row), ORGANIZATION));

  app_test_click (review_button (f, "_Reject"));
  lumo_test_wait_until (review_done, &second, "the rejected review");
  {
    g_autoptr(GPtrArray) list = lumo_policy_list_grants (f->policy, TEST_PROVIDER_ID, NULL);

    g_assert_cmpuint (list->len, ==, 1);
  }
}

/* Adding by ID a caller the organization denies: the page says why. */
static void
test_add_refused (AppFixture    *f,
                  gconstpointer  data)
{
  LumoAccessPage *page = _lumo_window_get_access_page (f->window);
  AdwEntryRow *entry = lumo_access_page_get_add_entry (page);
  GtkLabel *error_label = lumo_access_page_get_add_error (page);
  g_autofree char *file = g_build_filename (f->managed_dir, "50-org.json", NULL);

  app_fixture_add_provider (f, TEST_PROVIDER_ID, "Lumo Userscripts");
  apply_managed (f, "{\"onlyListedCallers\": true}");

  gtk_editable_set_text (GTK_EDITABLE (entry), TEST_CALLER_ID);
  app_test_click (lumo_access_page_get_add_button (page));
  app_test_iterate ();
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (error_label)));
  g_assert_nonnull (strstr (gtk_label_get_text (error_label), file));
  g_assert_null (lumo_caller_model_find (lumo_access_page_get_allowed (page), TEST_PROVIDER_ID, TEST_CALLER_ID));
}

/* ---- desktop agents ------------------------------------------------------- */

static gboolean
endpoint_listening (gpointer data)
{
  AppFixture *f = data;

  return lumo_application_get_desktop_agents_state (f->app) == LUMO_GATEWAY_LISTENER_LISTENING;
}

/* Forbidden by a file: the switch is off and the organization's, Add Agent
 * cannot be pressed, an agent's row on a provider says why it cannot be
 * allowed there, and the endpoint closes. Removing the agent stays
 * possible. */
static void
test_agents_forbidden (AppFixture    *f,
                       gconstpointer  data)
{
  LumoAgentsGroup *group = lumo_access_page_get_agents_group (_lumo_window_get_access_page (f->window));
  GtkSwitch *sw = lumo_agents_group_get_switch (group);
  GtkWidget *state_row = GTK_WIDGET (lumo_agents_group_get_state_row (group));
  GtkWidget *add = lumo_agents_group_get_add_button (group);
  g_autoptr(GSettings) keys = lumo_ui_lookup_settings ("desktop-agents", NULL);
  const char *ids[] = { TEST_PROVIDER_ID, NULL };
  g_autofree char *agent_id = NULL;
  g_autofree char *token = NULL;
  g_autoptr(GError) error = NULL;
  GtkWidget *button;

  g_assert_nonnull (keys);
  app_fixture_add_provider (f, TEST_PROVIDER_ID, "Lumo Userscripts");
  g_assert_true (lumo_policy_add_agent (f->policy, "Claude Code", ids, LUMO_POLICY_ORIGIN_CLI,
                                        &agent_id, &token, &error));
  g_assert_no_error (error);
  g_settings_set_uint (keys, "desktop-agents-port", app_test_free_port ());
  g_settings_set_boolean (keys, "desktop-agents", TRUE);
  lumo_test_wait_until (endpoint_listening, f, "the desktop agents' endpoint");
  g_assert_true (gtk_switch_get_active (sw));
  g_assert_true (gtk_widget_get_sensitive (state_row));
  g_assert_true (gtk_widget_get_sensitive (add));

  apply_managed (f, "{\"desktopAgents\": false}");
  g_assert_false (gtk_switch_get_active (sw));
  g_assert_false (gtk_widget_get_sensitive (state_row));
  g_assert_cmpstr (app_test_row_subtitle (state_row), ==, ORGANIZATION);
  g_assert_false (gtk_widget_get_sensitive (add));
  /* What is shown is what is in force: the person's key is kept. */
  g_assert_true (g_settings_get_boolean (keys, "desktop-agents"));
  g_assert_cmpint (lumo_application_get_desktop_agents_state (f->app), ==, LUMO_GATEWAY_LISTENER_OFF);

  button = app_test_find_action_button (GTK_WIDGET (group), "agents.allow",
                                        g_variant_new ("(ss)", TEST_PROVIDER_ID, agent_id));
  g_assert_nonnull (button);
  g_assert_false (gtk_widget_is_sensitive (button));
  g_assert_nonnull (strstr (app_test_row_subtitle (gtk_widget_get_ancestor (button, ADW_TYPE_ACTION_ROW)),
                            ORGANIZATION));
  button = app_test_find_action_button (GTK_WIDGET (group), "agents.remove", g_variant_new_string (agent_id));
  g_assert_nonnull (button);
  g_assert_true (gtk_widget_is_sensitive (button));

  /* The file goes: the person's switch, on as they left it, and theirs. */
  apply_managed (f, "{}");
  lumo_test_wait_until (endpoint_listening, f, "the endpoint again once the file went");
  g_assert_true (gtk_switch_get_active (sw));
  g_assert_true (gtk_widget_get_sensitive (state_row));
  g_assert_cmpstr (app_test_row_subtitle (state_row), !=, ORGANIZATION);
  g_assert_true (gtk_widget_get_sensitive (add));
  gtk_switch_set_active (sw, FALSE);
  g_assert_false (g_settings_get_boolean (keys, "desktop-agents"));
  button = app_test_find_action_button (GTK_WIDGET (group), "agents.deny",
                                        g_variant_new ("(ss)", TEST_PROVIDER_ID, agent_id));
  g_assert_nonnull (button);
  g_assert_true (gtk_widget_is_sensitive (button));
}

/* ---- the audit journal ----------------------------------------------------- */

/* A file's auditJournal turns the journal copy on whatever the person's
 * key says; its false leaves the key's value. */
static void
test_audit_journal (AppFixture    *f,
                    gconstpointer  data)
{
  g_autoptr(GSettings) keys = lumo_ui_lookup_settings ("audit-journal", NULL);

  g_assert_nonnull (keys);
  g_settings_set_boolean (keys, "audit-journal", FALSE);
  app_test_iterate ();
  g_assert_false (lumo_audit_store_get_journal (f->audit));

  apply_managed (f, "{\"auditJournal\": true}");
  g_assert_true (lumo_audit_store_get_journal (f->audit));

  apply_managed (f, "{\"auditJournal\": false}");
  g_assert_false (lumo_audit_store_get_journal (f->audit));
  g_settings_set_boolean (keys, "audit-journal", TRUE);
  app_test_iterate ();
  g_assert_true (lumo_audit_store_get_journal (f->audit));

  g_settings_reset (keys, "audit-journal");
  app_test_iterate ();
}

/* ---- the banner ---------------------------------------------------------- */

static void
test_banner (AppFixture    *f,
             gconstpointer  data)
{
  LumoManagedBanner *banner = _lumo_window_get_managed_banner (f->window);
  g_autofree char *file = g_build_filename (f->managed_dir, "50-org.json", NULL);
  g_autofree char *where = NULL;

  g_assert_false (lumo_managed_banner_is_revealed (banner));
  apply_managed (f, "{\"writes\": false}");
  g_assert_false (lumo_managed_banner_is_revealed (banner));

  /* A file that does not parse: where it went wrong. */
  apply_managed (f, "{\n  \"writes\": true,\n  \"review\": tru\n}\n");
  g_assert_true (lumo_managed_banner_is_revealed (banner));
  where = g_strdup_printf ("%s, line 3:", file);
  g_assert_nonnull (strstr (lumo_managed_banner_get_details (banner), where));
  g_assert_true (app_test_any_text_contains (GTK_WIDGET (f->window), "Your organization’s policy has a problem"));

  /* A value of the wrong type: its line and its field. */
  g_clear_pointer (&where, g_free);
  apply_managed (f, "{\n  \"review\": false,\n  \"writes\": \"off\"\n}\n");
  where = g_strdup_printf ("%s, line 3: writes:", file);
  g_assert_nonnull (strstr (lumo_managed_banner_get_details (banner), where));

  /* Fixed: gone. */
  apply_managed (f, "{\"writes\": false}");
  g_assert_false (lumo_managed_banner_is_revealed (banner));
}

static gboolean
banner_revealed (gpointer data)
{
  return lumo_managed_banner_is_revealed (data);
}

static gboolean
writes_row_insensitive (gpointer data)
{
  LumoAccessPage *page = data;

  return !gtk_widget_get_sensitive (switch_row (page, LUMO_POLICY_SWITCH_WRITES));
}

/* The running app follows policy.d without a restart. */
static void
test_live (AppFixture    *f,
           gconstpointer  data)
{
  LumoAccessPage *page = _lumo_window_get_access_page (f->window);

  app_fixture_add_provider (f, TEST_PROVIDER_ID, "Lumo Userscripts");
  app_test_iterate ();

  lumo_test_write_in (f->managed_dir, "50-org.json", "{\"writes\": false}");
  lumo_test_wait_until (writes_row_insensitive, page, "the writes switch set by a new file");
  lumo_test_write_in (f->managed_dir, "60-typo.json", "{\"writes\": ");
  lumo_test_wait_until (banner_revealed, _lumo_window_get_managed_banner (f->window),
                        "the banner for a broken file");
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);
  app_test_init_application ();

#define ADD(path, func) \
  g_test_add ("/managed/" path, AppFixture, GINT_TO_POINTER (TRUE), app_fixture_setup, func, app_fixture_teardown)
  ADD ("switches", test_switches);
  ADD ("callers", test_callers);
  ADD ("add-refused", test_add_refused);
  ADD ("review-forced-grants", test_review_forced_grants);
  /* The endpoint is the application's: a real one. */
  g_test_add ("/managed/agents-forbidden", AppFixture, GINT_TO_POINTER (TRUE),
              app_fixture_setup_app, test_agents_forbidden, app_fixture_teardown);
  g_test_add ("/managed/audit-journal", AppFixture, GINT_TO_POINTER (TRUE),
              app_fixture_setup_app, test_audit_journal, app_fixture_teardown);
  ADD ("banner", test_banner);
  ADD ("live", test_live);
#undef ADD

  return g_test_run ();
}
