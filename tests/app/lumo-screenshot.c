/* lumo-screenshot.c — renders each page of the window over realistic data
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The program behind tools/screenshots.sh. It builds a backend over new
 * stores in a temporary directory and feeds it the way the browser does:
 * a provider session over a socket pair says hello with its tools, agents
 * probe it (two stay pending, three are approved or denied), open MCP
 * ports, and make writes (one waits for review, some fill a rate meter,
 * two were approved for 10 minutes or always and their next writes went
 * through by the grant); the audit log gets a few thousand older rows
 * besides. Then it shows the window at a fixed size and renders each page
 * to PNG.
 *
 * The machine is a fake one, so that no screenshot shows this computer's
 * browsers: HOME is a fake home in which Google Chrome has run and is set
 * up, Chromium is installed but never started (its launcher on a fake
 * PATH), and the provider extension is installed in
 * ~/.local/share/lumo-access/extension. The page "first-run" is that
 * machine before its first connection (no provider has said hello): the
 * Requests page with its three set-up steps. The page "grants" is the
 * Access page scrolled to its review grants.
 *
 * The pages "agents" (the Access page's Desktop Agents group) and
 * "agent-added" (the Add Agent dialog once it shows the token and the
 * set-ups) need the desktop agents' endpoint, so they run a real
 * LumoApplication over the temporary stores (app_fixture_setup_app()),
 * with desktop agents on.
 *
 * usage: lumo-screenshot OUTDIR WIDTH HEIGHT SUFFIX PAGE...
 *        (SUFFIX is added to each file name: "" gives requests.png;
 *        "first-run" is a page of its own invocation, and so are
 *        "agents" and "agent-added" together)
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <locale.h>
#include <string.h>

#include "app-test-provider.h"
#include "app-test-util.h"
#include "lumo-audit-page-private.h"
#include "lumo-browser-setup.h"
#include "lumo-first-run.h"
#include "lumo-grants-group.h"
#include "lumo-ui-util.h"
#include "lumo-rate-limiter.h"
#include "lumo-gateway-snippets.h"
#include "lumo-tool-registry.h"

#define LUMO_ID    TEST_CALLER_ID
#define RESEARCH   TEST_CALLER2_ID
#define MAIL       TEST_CALLER3_ID
#define NEW_AGENT  "ghijklmnopabcdefghijklmnopabcdef"
#define DEMO_AGENT "hijklmnopabcdefghijklmnopabcdefg"
#define BAD_AGENT  "ijklmnopabcdefghijklmnopabcdefgh"

/* The rate limiter's clock runs this far behind while the writes are
 * seeded, and catches up with each one, so the meters show writes spread
 * over the last minute rather than in one burst. */
static gint64 clock_lag_us;

static gint64
lagging_clock (gpointer user_data)
{
  return g_get_monotonic_time () - clock_lag_us;
}

static AppTestProvider *provider;

static void
request (const char *format,
         ...) G_GNUC_PRINTF (1, 2);

static void
request (const char *format,
         ...)
{
  g_autofree char *body = NULL;
  va_list args;

  va_start (args, format);
  body = g_strdup_vprintf (format, args);
  va_end (args);

  json_object_unref (app_test_provider_request (provider, "%s", body));
}

/* Sends a write's authorize; returns the id its answer will carry. */
static gint64
send_write (const char *caller,
            const char *name,
            const char *tool)
{
  static const char hash[] = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
  g_autofree char *json = NULL;
  gint64 id = app_test_provider_take_id (provider);

  json = g_strdup_printf ("{\"type\":\"authorize\",\"id\":%" G_GINT64_FORMAT ",\"caller\":{\"id\":\"%s\",\"name\":\"%s\"},"
                          "\"tool\":\"%s\",\"write\":true,\"target\":\"0f8fad5b-d9cb-469f-a165-70867728950e\","
                          "\"paramsHash\":\"%s\",\"preview\":{\"action\":\"update\","
                          "\"uuid\":\"0f8fad5b-d9cb-469f-a165-70867728950e\",\"name\":\"Dark mode for example.org\","
                          "\"bytes\":812,\"sourceSha256\":\"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\","
                          "\"added\":3,\"removed\":1}}",
                          id, caller, name, tool, hash);
  app_test_provider_send (provider, json);

  return id;
}

/* Waits for the answer to @id; an allowed write reports its result. */
static gint64
complete_write (gint64 id)
{
  g_autoptr(JsonObject) answer = app_test_provider_wait_answer (provider, id);

  if (json_object_get_boolean_member_with_default (answer, "allow", FALSE))
    {
      gint64 audit_id = json_object_get_int_member_with_default (answer, "auditId", 0);

      request ("\"type\":\"result\",\"auditId\":%" G_GINT64_FORMAT ",\"ok\":true", audit_id);
      return audit_id;
    }
  return 0;
}

static gint64
authorize_write (const char *caller,
                 const char *name,
                 const char *tool,
                 gboolean    wait)
{
  gint64 id = send_write (caller, name, tool);

  return wait ? complete_write (id) : 0;
}

typedef struct
{
  LumoReviewQueue *queue;
  const char      *caller_id;
  char            *request_id;
} WaitingReview;

static gboolean
review_waits_cb (gpointer data)
{
  WaitingReview *w = data;

  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (w->queue)); i++)
    {
      g_autoptr(LumoReviewRequest) request = g_list_model_get_item (G_LIST_MODEL (w->queue), i);

      if (g_str_equal (lumo_review_request_get_caller_id (request), w->caller_id))
        {
          w->request_id = g_strdup (lumo_review_request_get_id (request));
          return TRUE;
        }
    }
  return FALSE;
}

/* A write waits for review and a person approves it for 10 minutes or
 * always, as the Requests page's buttons do; the caller's next write of
 * the tool goes through by the grant. */
static void
approve_with_grant (AppFixture     *f,
                    const char     *caller,
                    const char     *name,
                    const char     *tool,
                    LumoGrantScope  scope)
{
  g_autoptr(GError) error = NULL;
  WaitingReview w = { f->queue, caller, NULL };
  gint64 id = send_write (caller, name, tool);

  lumo_test_wait_until (review_waits_cb, &w, "the review");
  lumo_backend_decide_review (f->backend, w.request_id, TRUE, scope, LUMO_POLICY_ORIGIN_UI, &error);
  g_assert_no_error (error);
  g_free (w.request_id);
  g_assert_cmpint (complete_write (id), >, 0);

  g_assert_cmpint (authorize_write (caller, name, tool, TRUE), >, 0);
}

static void
seed (AppFixture *f)
{
  g_autoptr(GError) error = NULL;
  LumoPolicyStatus status;

  /* Older history of the log: a few thousand rows of the last hours. */
  app_test_fill_audit (f->audit, 4000, 97);

  /* The provider extension's session, as lumo-access-host hands it over. */
  provider = app_test_provider_connect (f->backend, TEST_PROVIDER_ID);
  app_test_provider_hello (provider);

  /* A second provider, watched by hand before it ever connected. */
  lumo_policy_add_provider (f->policy, TEST_PROVIDER2_ID, LUMO_POLICY_ORIGIN_UI, &error);
  g_assert_no_error (error);

  /* Agents probe: the first ones were approved long ago. */
  request ("\"type\":\"probe\",\"caller\":{\"id\":\"%s\",\"name\":\"Lumo\",\"version\":\"1.0.19\"}", LUMO_ID);
  request ("\"type\":\"probe\",\"caller\":{\"id\":\"%s\",\"name\":\"Research Assistant\"}", RESEARCH);
  request ("\"type\":\"probe\",\"caller\":{\"id\":\"%s\",\"name\":\"Mail Helper\"}", MAIL);
  request ("\"type\":\"probe\",\"caller\":{\"id\":\"%s\",\"name\":\"Coupon Finder\"}", BAD_AGENT);
  lumo_policy_allow_caller (f->policy, TEST_PROVIDER_ID, LUMO_ID, LUMO_POLICY_ORIGIN_UI, &error);
  lumo_policy_allow_caller (f->policy, TEST_PROVIDER_ID, RESEARCH, LUMO_POLICY_ORIGIN_UI, &error);
  lumo_policy_allow_caller (f->policy, TEST_PROVIDER_ID, MAIL, LUMO_POLICY_ORIGIN_CLI, &error);
  lumo_policy_deny_caller (f->policy, TEST_PROVIDER_ID, BAD_AGENT, LUMO_POLICY_ORIGIN_UI, &error);
  g_assert_no_error (error);

  /* MCP sessions are open. */
  request ("\"type\":\"port\",\"caller\":{\"id\":\"%s\"},\"port\":\"p1\",\"state\":\"open\"", LUMO_ID);
  request ("\"type\":\"port\",\"caller\":{\"id\":\"%s\"},\"port\":\"p2\",\"state\":\"open\"", RESEARCH);

  /* Writes without review fill the meters; one agent hits the limit. */
  lumo_policy_set_switch (f->policy, TEST_PROVIDER_ID, LUMO_POLICY_SWITCH_REVIEW, FALSE,
                          LUMO_POLICY_ORIGIN_UI, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < 43; i++)
    {
      clock_lag_us = (gint64) (43 - i) * G_USEC_PER_SEC;
      if (i % 3 == 1 && i < 36)
        authorize_write (RESEARCH, "Research Assistant", i % 2 ? "save_script" : "set_enabled", TRUE);
      else
        authorize_write (LUMO_ID, "Lumo", "save_script", TRUE);
    }
  clock_lag_us = 0;

  /* With review on again, the next write waits for a person. */
  lumo_policy_set_switch (f->policy, TEST_PROVIDER_ID, LUMO_POLICY_SWITCH_REVIEW, TRUE,
                          LUMO_POLICY_ORIGIN_UI, &error);
  g_assert_no_error (error);
  /* Two writes were approved beyond themselves: the grants. */
  approve_with_grant (f, MAIL, "Mail Helper", "save_script", LUMO_GRANT_SCOPE_ALWAYS);
  approve_with_grant (f, RESEARCH, "Research Assistant", "set_enabled", LUMO_GRANT_SCOPE_TEN_MINUTES);
  authorize_write (RESEARCH, "Research Assistant", "save_script", FALSE);

  /* New agents wait for approval. */
  request ("\"type\":\"probe\",\"caller\":{\"id\":\"%s\",\"name\":\"Travel Planner\"}", NEW_AGENT);
  request ("\"type\":\"probe\",\"caller\":{\"id\":\"%s\",\"name\":\"Shopping Agent\"}", DEMO_AGENT);
  request ("\"type\":\"probe\",\"caller\":{\"id\":\"%s\",\"name\":\"Shopping Agent\"}", DEMO_AGENT);

  lumo_policy_probe (f->policy, TEST_PROVIDER_ID, NEW_AGENT, "Travel Planner", &status, &error);
  g_assert_no_error (error);
  /* Let the backend answer the last requests. */
  app_test_provider_drain (provider);
}

static void
show_probes (AppFixture *f)
{
  LumoProvidersPage *page = _lumo_window_get_providers_page (f->window);
  g_autoptr(JsonNode) ok = json_from_string ("{\"kind\":\"answer\",\"answer\":{\"ok\":true,"
                                             "\"service\":{\"namespace\":\"userscripts\",\"name\":\"Lumo Userscripts\",\"version\":\"1.0.1\"},"
                                             "\"status\":{\"enabled\":true,\"authorized\":true,\"ready\":true}}}", NULL);
  g_autoptr(JsonNode) missing = json_from_string ("{\"kind\":\"rejected\",\"error\":\"Could not establish connection. "
                                                  "Receiving end does not exist.\"}", NULL);
  g_autoptr(LumoProbeOutcome) connected = lumo_probe_outcome_from_json (ok, NULL);
  g_autoptr(LumoProbeOutcome) rejected = lumo_probe_outcome_from_json (missing, NULL);

  lumo_providers_page_show_outcome (page, TEST_PROVIDER_ID, connected);
  lumo_providers_page_show_outcome (page, TEST_PROVIDER2_ID, rejected);
}

/* ---- desktop agents ----------------------------------------------------------- */

static gboolean
listening_cb (gpointer data)
{
  return lumo_application_get_desktop_agents_state (data) == LUMO_GATEWAY_LISTENER_LISTENING;
}

/* The default port when it is free here, else one that is. */
static guint
endpoint_port (void)
{
  g_autoptr(GSocket) socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
                                            G_SOCKET_PROTOCOL_TCP, NULL);
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new (loopback, LUMO_GATEWAY_DEFAULT_PORT);
  g_autoptr(GSocketAddress) bound = NULL;

  if (g_socket_bind (socket, address, TRUE, NULL))
    return LUMO_GATEWAY_DEFAULT_PORT;
  g_clear_object (&address);
  address = g_inet_socket_address_new (loopback, 0);
  g_assert_true (g_socket_bind (socket, address, FALSE, NULL));
  bound = g_socket_get_local_address (socket, NULL);
  return g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
}

static void
seed_agents (AppFixture *f)
{
  g_autoptr(GSettings) settings = lumo_ui_lookup_settings ("desktop-agents", "desktop-agents-port", NULL);
  const char *providers[] = { TEST_PROVIDER_ID, NULL };
  g_autoptr(GError) error = NULL;

  provider = app_test_provider_connect (f->backend, TEST_PROVIDER_ID);
  app_test_provider_hello (provider);
  request ("\"type\":\"probe\",\"caller\":{\"id\":\"%s\",\"name\":\"Lumo\",\"version\":\"1.0.19\"}", LUMO_ID);
  lumo_policy_allow_caller (f->policy, TEST_PROVIDER_ID, LUMO_ID, LUMO_POLICY_ORIGIN_UI, &error);
  g_assert_no_error (error);

  /* Two agents added before; one of them is denied on the provider. */
  for (guint i = 0; i < 2; i++)
    {
      g_autofree char *agent_id = NULL;
      g_autofree char *token = NULL;

      lumo_policy_add_agent (f->policy, i == 0 ? "Cursor" : "Claude Desktop", providers, LUMO_POLICY_ORIGIN_UI,
                             &agent_id, &token, &error);
      g_assert_no_error (error);
      if (i == 1)
        lumo_policy_deny_caller (f->policy, TEST_PROVIDER_ID, agent_id, LUMO_POLICY_ORIGIN_UI, &error);
      g_assert_no_error (error);
    }

  g_settings_set_uint (settings, "desktop-agents-port", endpoint_port ());
  g_settings_set_boolean (settings, "desktop-agents", TRUE);
  lumo_test_wait_until (listening_cb, f->app, "the desktop agents' endpoint");
  app_test_provider_drain (provider);
}

/* Scrolls the Access page so that the Desktop Agents group is at the top. */
static void
show_agents_group (AppFixture *f)
{
  GtkWidget *group = GTK_WIDGET (lumo_access_page_get_agents_group (_lumo_window_get_access_page (f->window)));
  GtkWidget *scrolled = gtk_widget_get_ancestor (group, GTK_TYPE_SCROLLED_WINDOW);
  GtkAdjustment *adjustment = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scrolled));
  graphene_point_t point;

  g_assert_true (gtk_widget_compute_point (group, gtk_scrolled_window_get_child (GTK_SCROLLED_WINDOW (scrolled)),
                                           &GRAPHENE_POINT_INIT (0, 0), &point));
  gtk_adjustment_set_value (adjustment, point.y - 12);

  /* The last agent opened, to show its providers. */
  {
    GtkListBox *list = lumo_agents_group_get_list (LUMO_AGENTS_GROUP (group));
    GtkListBoxRow *last = NULL;

    for (int i = 0; gtk_list_box_get_row_at_index (list, i) != NULL; i++)
      last = gtk_list_box_get_row_at_index (list, i);
    if (last != NULL)
      adw_expander_row_set_expanded (ADW_EXPANDER_ROW (last), TRUE);
  }
}

/* The Add Agent dialog, filled in and added: its one showing of the token. */
static GtkWidget *
add_agent (AppFixture *f,
           int         width,
           int         height)
{
  LumoAgentsGroup *group = lumo_access_page_get_agents_group (_lumo_window_get_access_page (f->window));
  LumoAgentDialog *dialog;

  app_test_click (lumo_agents_group_get_add_button (group));
  dialog = lumo_agents_group_get_dialog (group);
  g_assert_nonnull (dialog);
  gtk_editable_set_text (GTK_EDITABLE (lumo_agent_dialog_get_name_row (dialog)), "Claude Code");
  app_test_click (lumo_agent_dialog_get_add_button (dialog));
  g_assert_nonnull (lumo_agent_dialog_get_agent_id (dialog));
  gtk_window_set_default_size (GTK_WINDOW (dialog), width, height);
  return GTK_WIDGET (dialog);
}

/* ---- the machine ------------------------------------------------------------ */

static char *machine_dir;
static char *machine_helper;

/* Before GTK and any thread: HOME is read once, and the helper the
 * manifests name comes from the environment. */
static void
prepare_machine (void)
{
  g_autofree char *home = NULL;
  g_autofree char *launcher = NULL;

  machine_dir = lumo_test_dir_new ("screenshot-machine");
  home = g_build_filename (machine_dir, "home", NULL);
  launcher = g_build_filename (machine_dir, "bin", "chromium", NULL);

  machine_helper = app_test_fake_helper_new ("screenshot-helper");
  lumo_test_write_in (machine_dir, "bin/chromium", "#!/bin/sh\n");
  g_assert_cmpint (g_chmod (launcher, 0755), ==, 0);
  lumo_test_mkdir_in (home, ".config/google-chrome");
  lumo_test_mkdir_in (machine_dir, "sysroot");
  lumo_test_write_in (home, ".local/share/lumo-access/extension/manifest.json",
                      "{\"manifest_version\": 3, \"name\": \"Lumo Userscripts\", \"version\": \""
                      PACKAGE_VERSION "\"}");

  g_setenv ("HOME", home, TRUE);
}

static gboolean
first_run_idle_cb (gpointer data)
{
  return !lumo_first_run_get_busy (data);
}

static gboolean
browsers_idle_cb (gpointer data)
{
  return !lumo_browsers_group_get_busy (data);
}

static void
seed_machine (AppFixture *f,
              gboolean    first_run_page)
{
  g_autofree char *home = g_build_filename (machine_dir, "home", NULL);
  g_autofree char *sysroot = g_build_filename (machine_dir, "sysroot", NULL);
  g_autofree char *bin = g_build_filename (machine_dir, "bin", NULL);
  g_autofree char *extension = g_build_filename (home, ".local/share/lumo-access/extension", NULL);
  const char *search_path[] = { bin, NULL };
  g_autoptr(LumoBrowserIntegration) integration = NULL;
  g_autoptr(LumoBrowser) chrome = NULL;
  g_autoptr(GError) error = NULL;
  LumoFirstRun *first_run = lumo_requests_page_get_first_run (_lumo_window_get_requests_page (f->window));

  /* Chrome was set up already; Chromium waits for its click. */
  integration = lumo_browser_setup_new_integration (f->policy, home, sysroot, &error);
  g_assert_no_error (error);
  chrome = lumo_browser_integration_lookup (integration, LUMO_BROWSER_SCOPE_USER, "chrome", &error);
  g_assert_no_error (error);
  lumo_browser_integration_install (integration, chrome, &error);
  g_assert_no_error (error);

  _lumo_window_set_browser_locations (f->window, home, sysroot, search_path);
  lumo_test_wait_until (browsers_idle_cb,
                        lumo_providers_page_get_browsers (_lumo_window_get_providers_page (f->window)),
                        "the browsers");
  if (first_run_page)
    {
      lumo_first_run_set_extension_dir (first_run, extension);
      lumo_test_wait_until (first_run_idle_cb, first_run, "the set-up steps");
    }
}

/* The Access page scrolled so that its Grants group is at the top. */
static void
scroll_to_grants (LumoWindow *window)
{
  GtkWidget *page = GTK_WIDGET (_lumo_window_get_access_page (window));
  GtkWidget *grants = app_test_find_widget (page, LUMO_TYPE_GRANTS_GROUP, 0);
  GtkWidget *scrolled = gtk_widget_get_ancestor (grants, GTK_TYPE_SCROLLED_WINDOW);
  GtkWidget *content = gtk_scrolled_window_get_child (GTK_SCROLLED_WINDOW (scrolled));
  GtkAdjustment *adjustment = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scrolled));
  graphene_rect_t bounds;

  if (!gtk_widget_compute_bounds (grants, content, &bounds))
    g_error ("The Grants group is not laid out");
  gtk_adjustment_set_value (adjustment, bounds.origin.y - 16);
}

static guint frames;

static void
on_after_paint_cb (GdkFrameClock *clock,
                   gpointer       user_data)
{
  frames++;
}

static void
wait_frames (GtkWidget *window,
             guint      n)
{
  GdkFrameClock *clock = gtk_widget_get_frame_clock (window);
  gulong id = g_signal_connect (clock, "after-paint", G_CALLBACK (on_after_paint_cb), NULL);
  guint target = frames + n;

  gtk_widget_queue_draw (window);
  for (guint spin = 0; frames < target && spin < 20000; spin++)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (500);
      if (spin % 50 == 0)
        gtk_widget_queue_draw (window);
    }
  g_signal_handler_disconnect (clock, id);
}

static void
render (GtkWidget  *window,
        const char *path)
{
  int width = gtk_widget_get_width (window);
  int height = gtk_widget_get_height (window);
  g_autoptr(GdkPaintable) paintable = gtk_widget_paintable_new (window);
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GdkTexture) texture = NULL;

  gdk_paintable_snapshot (paintable, snapshot, width, height);
  node = gtk_snapshot_free_to_node (snapshot);
  texture = gsk_renderer_render_texture (gtk_native_get_renderer (GTK_NATIVE (window)), node,
                                         &GRAPHENE_RECT_INIT (0, 0, width, height));
  if (!gdk_texture_save_to_png (texture, path))
    g_error ("Cannot write %s", path);
  g_print ("%s (%d×%d)\n", path, width, height);
}

int
main (int   argc,
      char *argv[])
{
  AppFixture f = { 0 };
  const char *outdir;
  const char *suffix;
  gboolean first_run = FALSE;
  gboolean agents = FALSE;
  int width, height;

  setlocale (LC_ALL, "");
  if (g_getenv ("LUMO_LOCALEDIR") != NULL)
    bindtextdomain (GETTEXT_PACKAGE, g_getenv ("LUMO_LOCALEDIR"));
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  if (argc < 6)
    {
      g_printerr ("usage: %s OUTDIR WIDTH HEIGHT SUFFIX PAGE...\n", argv[0]);
      return 2;
    }
  outdir = argv[1];
  width = atoi (argv[2]);
  height = atoi (argv[3]);
  suffix = argv[4];
  for (int i = 5; i < argc; i++)
    {
      first_run |= g_str_equal (argv[i], "first-run");
      agents |= g_str_equal (argv[i], "agents") || g_str_equal (argv[i], "agent-added");
    }
  if (first_run && argc != 6)
    {
      g_printerr ("%s: the page first-run is rendered alone\n", argv[0]);
      return 2;
    }
  for (int i = 5; agents && i < argc; i++)
    if (!g_str_equal (argv[i], "agents") && !g_str_equal (argv[i], "agent-added"))
      {
        g_printerr ("%s: the pages agents and agent-added are rendered without the others\n", argv[0]);
        return 2;
      }
  prepare_machine ();

  gtk_init ();
  app_test_init_application ();

  if (agents)
    {
      /* An expander row caught half-way through opening is no picture. */
      g_object_set (gtk_settings_get_default (), "gtk-enable-animations", FALSE, NULL);
      /* The provider connected long before the window opened. */
      app_fixture_setup_app_stores (&f);
      seed_agents (&f);
      app_fixture_setup_window (&f, FALSE);
      gtk_window_set_default_size (GTK_WINDOW (f.window), width, height);
      gtk_window_present (GTK_WINDOW (f.window));
      lumo_window_set_page (f.window, "access");
      wait_frames (GTK_WIDGET (f.window), 3);

      for (int i = 5; i < argc; i++)
        {
          g_autofree char *name = g_strdup_printf ("%s%s.png", argv[i], suffix);
          g_autofree char *path = g_build_filename (outdir, name, NULL);
          GtkWidget *shown = GTK_WIDGET (f.window);

          if (g_str_equal (argv[i], "agents"))
            show_agents_group (&f);
          else
            shown = add_agent (&f, 640, 780);
          gtk_window_present (GTK_WINDOW (shown));
          wait_frames (shown, 3);
          render (shown, path);
          if (shown != GTK_WIDGET (f.window))
            gtk_window_destroy (GTK_WINDOW (shown));
        }

      app_test_provider_free (provider);
      app_fixture_teardown (&f, NULL);
      lumo_test_dir_remove (machine_dir);
      app_test_fake_helper_remove (machine_helper);
      g_free (machine_dir);
      return 0;
    }

  /* The fixture's stores, with the clock in place before the window (its
   * meters) reads it. */
  clock_lag_us = 60 * G_USEC_PER_SEC;
  app_fixture_setup_stores (&f);
  lumo_rate_limiter_set_clock (lumo_policy_get_rate_limiter (f.policy), lagging_clock, NULL);
  /* The other pages show a machine in use for a while: its provider said
   * hello long before this window, so there is no set-up and no toast. */
  if (!first_run)
    {
      g_autoptr(GError) error = NULL;

      lumo_policy_register_provider (f.policy, TEST_PROVIDER_ID, "userscripts", "Lumo Userscripts",
                                     "1.0.1", &error);
      g_assert_no_error (error);
    }
  app_fixture_setup_window (&f, FALSE);
  seed_machine (&f, first_run);
  if (!first_run)
    seed (&f);

  gtk_window_set_default_size (GTK_WINDOW (f.window), width, height);
  gtk_window_present (GTK_WINDOW (f.window));
  if (!first_run)
    show_probes (&f);
  wait_frames (GTK_WIDGET (f.window), 3);

  for (int i = 5; i < argc; i++)
    {
      g_autofree char *name = g_strdup_printf ("%s%s.png", argv[i], suffix);
      g_autofree char *path = g_build_filename (outdir, name, NULL);

      if (!lumo_window_set_page (f.window, first_run ? "requests"
                                           : g_str_equal (argv[i], "grants") ? "access" : argv[i]))
        g_error ("No page “%s”", argv[i]);
      if (g_str_equal (argv[i], "grants"))
        {
          wait_frames (GTK_WIDGET (f.window), 3);
          scroll_to_grants (f.window);
        }
      if (first_run)
        lumo_test_wait_until (first_run_idle_cb,
                              lumo_requests_page_get_first_run (_lumo_window_get_requests_page (f.window)),
                              "the set-up steps, shown");

      if (g_str_equal (argv[i], "providers"))
        {
          /* Expanded, the first provider shows its tools and limits. */
          GtkWidget *expander = app_test_find_widget (GTK_WIDGET (_lumo_window_get_providers_page (f.window)),
                                                      GTK_TYPE_EXPANDER, 0);
          if (expander != NULL && width >= 700)
            gtk_expander_set_expanded (GTK_EXPANDER (expander), TRUE);
        }
      if (g_str_equal (argv[i], "audit") && width >= 900)
        {
          LumoAuditPage *audit = _lumo_window_get_audit_page (f.window);

          LumoAuditModel *model = lumo_audit_page_get_model (audit);

          /* The rows of the seeded writes arrive live; let them settle. */
          for (guint spin = 0; (lumo_audit_model_get_loading (model) || !lumo_audit_model_get_counted (model)) && spin < 5000; spin++)
            g_main_context_iteration (NULL, TRUE);
          for (guint spin = 0; spin < 400; spin++)
            {
              g_main_context_iteration (NULL, FALSE);
              g_usleep (2000);
            }
          gtk_single_selection_set_selected (_lumo_audit_page_get_selection (audit), 2);
          for (guint spin = 0; spin < 200; spin++)
            g_main_context_iteration (NULL, FALSE);
        }

      wait_frames (GTK_WIDGET (f.window), 3);
      render (GTK_WIDGET (f.window), path);
    }

  app_fixture_teardown (&f, NULL);
  lumo_test_dir_remove (machine_dir);
  app_test_fake_helper_remove (machine_helper);
  g_free (machine_dir);
  return 0;
}
