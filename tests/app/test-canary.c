/* test-canary.c — no code path of the window shows script source
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A provider is trusted to send a redacted preview, but the window must not
 * rely on it: here a preview carries a "source" canary in every shape a
 * buggy provider could send it (a source field, code under another name, a
 * nested object, a long or multi-line value). The test then fills every
 * page (a pending agent, the review, audit rows with their detail pane, a
 * probe result) and walks the whole widget tree: the canary is in no label,
 * title, subtitle, tooltip or entry.
 */
#include "config.h"

#include "app-test-util.h"
#include "lumo-audit-detail.h"
#include "lumo-audit-page-private.h"
#include "lumo-review-row.h"

#define CANARY "CANARY_SOURCE_7f3a"
#define CANARY_SOURCE "// ==UserScript==\\n// @name x\\n// ==/UserScript==\\ndocument.body.dataset.x = '" CANARY "';"

static const char *previews[] = {
  "{\"action\":\"create\",\"uuid\":\"0b7f2a52-4a53-4e0e-9d3e-6f1f5c3a9e11\",\"name\":\"Shown name\",\"source\":\"" CANARY_SOURCE "\"}",
  "{\"name\":\"Shown name\",\"code\":\"" CANARY "\"}",
  "{\"name\":\"Shown name\",\"scriptText\":\"" CANARY "\"}",
  "{\"name\":\"Shown name\",\"nested\":{\"source\":\"" CANARY "\"}}",
  "{\"name\":\"Shown name\",\"list\":[\"" CANARY "\"]}",
  "{\"name\":\"Shown name\",\"note\":\"line one\\n" CANARY "\"}",
  "{\"name\":\"Shown name\",\"note\":\"" CANARY "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}",
  "{\"name\":\"Shown name\",\"sourceSha256\":\"" CANARY "\"}",
  "{\"name\":\"Shown name\",\"" CANARY "\":1}",
};

static void
on_review_done_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  lumo_review_queue_submit_finish (LUMO_REVIEW_QUEUE (object), result, NULL);
}

static void
append_rows (AppFixture *f)
{
  static const char hash[] = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < 5; i++)
    {
      LumoAuditRecord record = {
        .provider_id = TEST_PROVIDER_ID,
        .caller_id = TEST_CALLER_ID,
        .caller_name = "Helpful Agent",
        .tool = "userscripts.install_script",
        .write = TRUE,
        .target = "0b7f2a52-4a53-4e0e-9d3e-6f1f5c3a9e11",
        .params_sha256 = hash,
        .decision = i % 2 ? LUMO_AUDIT_DECISION_DENY : LUMO_AUDIT_DECISION_ALLOW,
        .reason = i % 2 ? LUMO_AUDIT_REASON_RATE_LIMITED : NULL,
      };
      gint64 id = lumo_audit_store_append (f->audit, &record, &error);

      g_assert_no_error (error);
      g_assert_cmpint (id, >, 0);
    }
}

static gboolean
audit_loaded (gpointer data)
{
  AppFixture *f = data;
  LumoAuditModel *model = lumo_audit_page_get_model (_lumo_window_get_audit_page (f->window));

  return lumo_audit_model_get_counted (model) && g_list_model_get_n_items (G_LIST_MODEL (model)) == 5;
}

static gboolean
detail_has_row (gpointer data)
{
  return lumo_audit_detail_get_row (data) != NULL;
}

static void
test_canary_never_shown (AppFixture    *f,
                         gconstpointer  data)
{
  LumoAuditPage *audit_page = _lumo_window_get_audit_page (f->window);
  GtkWidget *requests = GTK_WIDGET (_lumo_window_get_requests_page (f->window));
  g_autoptr(GError) error = NULL;
  g_autoptr(LumoAuditRow) row = NULL;
  LumoPolicyStatus status;
  GtkWidget *detail;

  app_fixture_add_provider (f, TEST_PROVIDER_ID, "Lumo Userscripts");
  lumo_policy_probe (f->policy, TEST_PROVIDER_ID, TEST_CALLER2_ID, "Another Agent", &status, &error);
  g_assert_no_error (error);

  for (guint i = 0; i < G_N_ELEMENTS (previews); i++)
    lumo_review_queue_submit_async (f->queue, TEST_PROVIDER_ID, TEST_CALLER_ID, "Helpful Agent",
                                    "userscripts.install_script", "0b7f2a52-4a53-4e0e-9d3e-6f1f5c3a9e11",
                                    previews[i], NULL, on_review_done_cb, NULL);
  append_rows (f);
  lumo_test_wait_until (audit_loaded, f, "the audit rows");

  /* Every review row is there, with what may be shown … */
  g_assert_cmpuint (app_test_count_widgets (requests, LUMO_TYPE_REVIEW_ROW), ==, G_N_ELEMENTS (previews));
  g_assert_true (app_test_any_text_contains (requests, "Shown name"));
  g_assert_true (app_test_any_text_contains (requests, "not shown: it could hold content"));

  /* … the detail pane of an audit row is filled … */
  row = lumo_audit_store_get_row (f->audit, 1, &error);
  g_assert_no_error (error);
  gtk_single_selection_set_selected (_lumo_audit_page_get_selection (audit_page), 0);
  detail = app_test_find_widget (GTK_WIDGET (audit_page), LUMO_TYPE_AUDIT_DETAIL, 0);
  /* Its row may still be on its way from the reader. */
  lumo_test_wait_until (detail_has_row, detail, "the selected row in the detail");
  g_assert_true (app_test_any_text_contains (detail, lumo_audit_row_get_params_hmac (row)));

  /* … and the canary is nowhere, on any page. */
  for (guint i = 0; i < 5; i++)
    {
      static const char *pages[] = { "requests", "access", "activity", "providers", "audit" };

      lumo_window_set_page (f->window, pages[i]);
      app_test_iterate ();
      g_assert_false (app_test_any_text_contains (GTK_WIDGET (f->window), CANARY));
    }
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);
  app_test_init_application ();

  g_test_add ("/canary/never-shown", AppFixture, GINT_TO_POINTER (TRUE),
              app_fixture_setup, test_canary_never_shown, app_fixture_teardown);

  return g_test_run ();
}
