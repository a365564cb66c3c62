/* test-grants.c — the Access page's Grants group lists the review grants
 * of the provider shown, follows the policy, and revokes one; the Audit
 * page's detail says when a grant, not a person, let a write through
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "app-test-util.h"
#include "lumo-audit-detail.h"
#include "lumo-audit-page-private.h"
#include "lumo-grants-group.h"

#define SAVE   "userscripts.save_script"
#define REMOVE "userscripts.remove_script"

typedef struct
{
  AppFixture base;
  gint64     wall;
} GrantsFixture;

static gint64
wall_clock (gpointer user_data)
{
  return ((GrantsFixture *) user_data)->wall;
}

static void
setup (GrantsFixture *f,
       gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  app_fixture_setup (&f->base, GINT_TO_POINTER (TRUE));
  f->wall = g_get_real_time ();
  lumo_policy_set_wall_clock (f->base.policy, wall_clock, f);

  app_fixture_add_provider (&f->base, TEST_PROVIDER_ID, "Lumo Userscripts");
  app_fixture_add_provider (&f->base, TEST_PROVIDER2_ID, "Other Provider");
  g_assert_true (lumo_policy_add_caller (f->base.policy, TEST_PROVIDER_ID, TEST_CALLER_ID, "Helpful Agent",
                                         LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_no_error (error);
  g_assert_true (lumo_policy_add_caller (f->base.policy, TEST_PROVIDER2_ID, TEST_CALLER_ID, "Helpful Agent",
                                         LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_no_error (error);
  app_test_iterate ();
  g_assert_true (lumo_access_page_set_provider (_lumo_window_get_access_page (f->base.window), TEST_PROVIDER_ID));
}

static void
teardown (GrantsFixture *f,
          gconstpointer  data)
{
  app_fixture_teardown (&f->base, data);
}

static LumoGrantsGroup *
group (GrantsFixture *f)
{
  GtkWidget *widget = app_test_find_widget (GTK_WIDGET (_lumo_window_get_access_page (f->base.window)),
                                            LUMO_TYPE_GRANTS_GROUP, 0);

  g_assert_nonnull (widget);
  return LUMO_GRANTS_GROUP (widget);
}

static guint
n_rows (GrantsFixture *f)
{
  return app_test_count_widgets (GTK_WIDGET (lumo_grants_group_get_list (group (f))), ADW_TYPE_ACTION_ROW);
}

static void
grant (GrantsFixture  *f,
       const char     *provider,
       const char     *tool,
       LumoGrantScope  scope)
{
  g_autoptr(GError) error = NULL;

  /* As the Requests page, a notification or the CLI over D-Bus would. */
  g_assert_true (lumo_policy_add_grant (f->base.policy, provider, TEST_CALLER_ID, tool, scope,
                                        LUMO_POLICY_ORIGIN_CLI, &error));
  g_assert_no_error (error);
}

static guint
n_grants (GrantsFixture *f)
{
  g_autoptr(GPtrArray) grants = lumo_policy_list_grants (f->base.policy, TEST_PROVIDER_ID, NULL);

  return grants->len;
}

static void
test_list_and_revoke (GrantsFixture *f,
                      gconstpointer  data)
{
  GtkWidget *widget = GTK_WIDGET (group (f));
  g_autoptr(GPtrArray) history = NULL;
  GtkWidget *revoke;

  g_assert_cmpuint (n_rows (f), ==, 0);
  g_assert_true (app_test_any_text_contains (widget, "No grants"));
  g_assert_true (app_test_any_text_contains (widget, "Grants"));

  grant (f, TEST_PROVIDER_ID, SAVE, LUMO_GRANT_SCOPE_ALWAYS);
  grant (f, TEST_PROVIDER_ID, REMOVE, LUMO_GRANT_SCOPE_TEN_MINUTES);
  /* Another provider's grant is that provider's page's. */
  grant (f, TEST_PROVIDER2_ID, "userscripts.other_tool", LUMO_GRANT_SCOPE_ALWAYS);

  g_assert_cmpuint (n_rows (f), ==, 2);
  g_assert_true (app_test_any_text_contains (widget, SAVE));
  g_assert_true (app_test_any_text_contains (widget, REMOVE));
  g_assert_false (app_test_any_text_contains (widget, "userscripts.other_tool"));
  /* Who, and until when. */
  g_assert_true (app_test_any_text_contains (widget, "Helpful Agent · Always, until you revoke it"));
  g_assert_true (app_test_any_text_contains (widget, "Helpful Agent · For 10 minutes, until "));

  revoke = app_test_find_action_button (widget, "grants.revoke",
                                        g_variant_new ("(sss)", TEST_PROVIDER_ID, TEST_CALLER_ID, SAVE));
  g_assert_nonnull (revoke);
  app_test_click (revoke);
  g_assert_cmpuint (n_grants (f), ==, 1);
  g_assert_cmpuint (n_rows (f), ==, 1);
  g_assert_false (app_test_any_text_contains (widget, SAVE));
  history = lumo_policy_list_history (f->base.policy, 1, NULL);
  g_assert_cmpstr (((LumoHistoryEntry *) g_ptr_array_index (history, 0))->field, ==, "grant");
  g_assert_cmpint (((LumoHistoryEntry *) g_ptr_array_index (history, 0))->origin, ==, LUMO_POLICY_ORIGIN_UI);
  g_assert_null (((LumoHistoryEntry *) g_ptr_array_index (history, 0))->new_value);

  /* The page's undo brings it back, and the row with it. */
  gtk_widget_activate_action (widget, "access.undo", NULL);
  g_assert_cmpuint (n_grants (f), ==, 2);
  g_assert_cmpuint (n_rows (f), ==, 2);
}

static void
test_follows_the_policy (GrantsFixture *f,
                         gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  grant (f, TEST_PROVIDER_ID, SAVE, LUMO_GRANT_SCOPE_ALWAYS);
  grant (f, TEST_PROVIDER_ID, REMOVE, LUMO_GRANT_SCOPE_TEN_MINUTES);
  g_assert_cmpuint (n_rows (f), ==, 2);

  /* Ten minutes later the timed one has run out. */
  f->wall += LUMO_GRANT_TIMED_US;
  g_assert_true (lumo_policy_refresh (f->base.policy, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (n_rows (f), ==, 1);
  g_assert_false (app_test_any_text_contains (GTK_WIDGET (group (f)), REMOVE));

  /* Another provider chosen: its grants. */
  g_assert_true (lumo_access_page_set_provider (_lumo_window_get_access_page (f->base.window),
                                                TEST_PROVIDER2_ID));
  g_assert_cmpuint (n_rows (f), ==, 0);
  g_assert_true (lumo_access_page_set_provider (_lumo_window_get_access_page (f->base.window),
                                                TEST_PROVIDER_ID));
  g_assert_cmpuint (n_rows (f), ==, 1);

  /* Denied, the agent's grants go. */
  g_assert_true (lumo_policy_deny_caller (f->base.policy, TEST_PROVIDER_ID, TEST_CALLER_ID,
                                          LUMO_POLICY_ORIGIN_CLI, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (n_rows (f), ==, 0);
}

static gint64
append_write (GrantsFixture *f,
              gboolean       by_grant)
{
  LumoAuditRecord record = {
    .provider_id = TEST_PROVIDER_ID,
    .caller_id = TEST_CALLER_ID,
    .caller_name = "Helpful Agent",
    .tool = SAVE,
    .write = TRUE,
    .target = "0b7f2a52-4a53-4e0e-9d3e-6f1f5c3a9e11",
    .params_sha256 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    .decision = LUMO_AUDIT_DECISION_ALLOW,
    .by_grant = by_grant,
  };
  g_autoptr(GError) error = NULL;
  gint64 id = lumo_audit_store_append (f->base.audit, &record, &error);

  g_assert_no_error (error);
  g_assert_cmpint (id, >, 0);
  return id;
}

static gboolean
audit_has_two_rows (gpointer data)
{
  GrantsFixture *f = data;
  LumoAuditModel *model = lumo_audit_page_get_model (_lumo_window_get_audit_page (f->base.window));

  return lumo_audit_model_get_counted (model) && g_list_model_get_n_items (G_LIST_MODEL (model)) == 2;
}

/* The detail pane of the Audit page's @position-th row (newest first). */
static GtkWidget *
audit_detail_of (GrantsFixture *f,
                 guint          position)
{
  GtkWidget *page = GTK_WIDGET (_lumo_window_get_audit_page (f->base.window));
  GtkWidget *detail;

  gtk_single_selection_set_selected (_lumo_audit_page_get_selection (LUMO_AUDIT_PAGE (page)), position);
  app_test_iterate ();
  detail = app_test_find_widget (page, LUMO_TYPE_AUDIT_DETAIL, 0);
  g_assert_nonnull (lumo_audit_detail_get_row (LUMO_AUDIT_DETAIL (detail)));

  return detail;
}

static void
test_audit_detail_says_grant (GrantsFixture *f,
                              gconstpointer  data)
{
  gint64 asked = append_write (f, FALSE);
  gint64 granted = append_write (f, TRUE);
  GtkWidget *detail;

  lumo_window_set_page (f->base.window, "audit");
  lumo_test_wait_until (audit_has_two_rows, f, "the audit rows");

  /* Newest first: the write a grant let through … */
  detail = audit_detail_of (f, 0);
  g_assert_cmpint (lumo_audit_row_get_id (lumo_audit_detail_get_row (LUMO_AUDIT_DETAIL (detail))), ==, granted);
  g_assert_true (app_test_any_text_contains (detail, "Allowed by a review grant"));

  /* … and the one a person approved, which says nothing of a grant. */
  detail = audit_detail_of (f, 1);
  g_assert_cmpint (lumo_audit_row_get_id (lumo_audit_detail_get_row (LUMO_AUDIT_DETAIL (detail))), ==, asked);
  g_assert_true (app_test_any_text_contains (detail, "Allowed"));
  g_assert_false (app_test_any_text_contains (detail, "review grant"));
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);
  app_test_init_application ();

#define ADD(path, func) \
  g_test_add ("/grants-group/" path, GrantsFixture, NULL, setup, func, teardown)
  ADD ("list-and-revoke", test_list_and_revoke);
  ADD ("follows-the-policy", test_follows_the_policy);
#undef ADD
  g_test_add ("/audit-detail/says-grant", GrantsFixture, NULL, setup, test_audit_detail_says_grant, teardown);

  return g_test_run ();
}
