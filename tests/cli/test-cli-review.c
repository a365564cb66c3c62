/* test-cli-review.c — lumo-access-ctl review and recommended against a
 * stand-in app on a private session bus
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The real path (helper → app → review → CLI decision → provider, and a
 * provider's recommended servers → CLI) is covered by
 * tests/integration/test-bridge.c with the GTK app. This test needs no
 * display: a small object implementing ListReviews, DecideReview,
 * ApproveReview and ListRecommended of dev.lumo.Access.Bridge, as src/dbus/dev.lumo.Access.xml
 * declares them, owns the app's name on a GTestDBus bus, and the built
 * CLI is run against it. What it pins down is the CLI's side: what a
 * person sees, the JSON scripts read, the exit statuses, that the app is
 * never started, and that the app's own error message comes through.
 */
#define G_LOG_DOMAIN "test-cli"

#include "config.h"

#include <gio/gio.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "lumo-recommended-server.h"
#include "lumo-test.h"

#define REVIEW_1  "0b9c1a52-6e1d-4d0b-9f6c-2f1f3c6a8e21"
#define REVIEW_2  "7d4e2f10-3b5a-4c8e-a1d2-9e8f7a6b5c43"
#define UNKNOWN   "11111111-2222-4333-8444-555555555555"
#define SUBMITTED ((gint64) 1735689600 * G_USEC_PER_SEC)   /* 2025-01-01T00:00:00Z */

static const char bridge_xml[] =
  "<node>"
  "  <interface name='dev.lumo.Access.Bridge'>"
  "    <method name='ListReviews'>"
  "      <arg type='a(sssssssxx)' name='reviews' direction='out'/>"
  "    </method>"
  "    <method name='DecideReview'>"
  "      <arg type='s' name='id' direction='in'/>"
  "      <arg type='b' name='approve' direction='in'/>"
  "    </method>"
  "    <method name='ApproveReview'>"
  "      <arg type='s' name='id' direction='in'/>"
  "      <arg type='s' name='grant' direction='in'/>"
  "    </method>"
  "    <method name='ListRecommended'>"
  "      <arg type='a(ssssss)' name='servers' direction='out'/>"
  "    </method>"
  "  </interface>"
  "</node>";

typedef struct
{
  GTestDBus       *bus;
  GDBusConnection *app;         /* the stand-in app's connection; NULL: not running */
  guint            object_id;
  GPtrArray       *waiting;     /* review IDs the stand-in still holds */
  GPtrArray       *decisions;   /* "ID:approve" / "ID:reject" / "ID:approve:GRANT", as the app received them */
  gboolean         recommends;  /* whether ListRecommended has servers */
  guint            n_listed;    /* ListRecommended calls */
  char            *out;
  char            *err;
} Fixture;

/* ---- the stand-in app ------------------------------------------------------ */

static void
on_method_call_cb (GDBusConnection       *connection,
                   const char            *sender,
                   const char            *object_path,
                   const char            *interface_name,
                   const char            *method_name,
                   GVariant              *parameters,
                   GDBusMethodInvocation *invocation,
                   gpointer               user_data)
{
  Fixture *f = user_data;

  if (g_str_equal (method_name, "ListRecommended"))
    {
      GVariantBuilder builder;

      f->n_listed++;
      g_variant_builder_init (&builder, G_VARIANT_TYPE ("a(ssssss)"));
      if (f->recommends)
        {
          g_variant_builder_add (&builder, "(ssssss)", TEST_PROVIDER_ID, "ppt-mcp", "PPT文档MCP服务器",
                                 "可以创建、编辑、保存PPT文档", "https://your-mcp-server-url.com/servers/ppt-mcp/sse", "sse");
          g_variant_builder_add (&builder, "(ssssss)", TEST_PROVIDER_ID, "docs", "Docs", "",
                                 "https://mcp.example.test/mcp?key=a&b=c", "");
          g_variant_builder_add (&builder, "(ssssss)", TEST_PROVIDER2_ID, "slides", "Slides", "",
                                 "https://mcp.example.test/slides", "streamableHttp");
        }
      g_dbus_method_invocation_return_value (invocation, g_variant_new ("(a(ssssss))", &builder));
    }
  else if (g_str_equal (method_name, "ListReviews"))
    {
      GVariantBuilder builder;

      g_variant_builder_init (&builder, G_VARIANT_TYPE ("a(sssssssxx)"));
      if (g_ptr_array_find_with_equal_func (f->waiting, REVIEW_1, g_str_equal, NULL))
        g_variant_builder_add (&builder, "(sssssssxx)", REVIEW_1, TEST_PROVIDER_ID, TEST_CALLER_ID, "Lumo Agent",
                               "userscripts.save_script", "0f8e3b7c-4d2a-4c1e-9b5f-2a6d8c9e1f03",
                               "{\"action\":\"update\",\"name\":\"dark.user.js\",\"bytes\":1204,\"linesAdded\":3,"
                               "\"matches\":{\"old\":[\"https://a.test/*\"],\"new\":[\"<all_urls>\"]},"
                               "\"sitePack\":{\"domain\":\"a.test\",\"type\":\"pageMcpServer\","
                               "\"tools\":[{\"name\":\"a_put\",\"write\":true}]},"
                               "\"code\":\"document.cookie\"}",
                               SUBMITTED, SUBMITTED + 300 * G_USEC_PER_SEC);
      if (g_ptr_array_find_with_equal_func (f->waiting, REVIEW_2, g_str_equal, NULL))
        g_variant_builder_add (&builder, "(sssssssxx)", REVIEW_2, TEST_PROVIDER_ID, TEST_CALLER_ID, "",
                               "userscripts.delete_script", "", "", SUBMITTED, (gint64) 0);
      g_dbus_method_invocation_return_value (invocation,
                                             g_variant_new ("(a(sssssssxx))", &builder));
    }
  else
    {
      const char *id;
      const char *grant = NULL;
      gboolean approve = TRUE;
      guint index;

      if (g_str_equal (method_name, "ApproveReview"))
        g_variant_get (parameters, "(&s&s)", &id, &grant);
      else
        g_variant_get (parameters, "(&sb)", &id, &approve);
      /* What lumo-dbus-service.c answers for an unknown ID. */
      if (!g_ptr_array_find_with_equal_func (f->waiting, id, g_str_equal, &index))
        {
          g_autofree char *message =
            g_strdup_printf ("No review “%s” is waiting; it was already decided, timed out "
                             "or its session ended", id);

          g_dbus_method_invocation_return_dbus_error (invocation, "dev.lumo.Access.Error.NotFound",
                                                      message);
          return;
        }
      g_ptr_array_remove_index (f->waiting, index);
      g_ptr_array_add (f->decisions, g_strdup_printf ("%s:%s%s%s", id, approve ? "approve" : "reject",
                                                      grant != NULL ? ":" : "", grant != NULL ? grant : ""));
      g_dbus_method_invocation_return_value (invocation, NULL);
    }
}

static void
start_app (Fixture *f)
{
  g_autoptr(GDBusNodeInfo) node = g_dbus_node_info_new_for_xml (bridge_xml, NULL);
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_strconcat ("/", APP_ID, NULL);
  static const GDBusInterfaceVTable vtable = { on_method_call_cb, NULL, NULL, { 0 } };
  guint32 result = 0;

  g_strdelimit (path, ".", '/');
  f->app = g_dbus_connection_new_for_address_sync (g_test_dbus_get_bus_address (f->bus),
                                                   G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
                                                   G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
                                                   NULL, NULL, &error);
  g_assert_no_error (error);
  f->object_id = g_dbus_connection_register_object (f->app, path, node->interfaces[0], &vtable,
                                                    f, NULL, &error);
  g_assert_no_error (error);

  reply = g_dbus_connection_call_sync (f->app, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                       "org.freedesktop.DBus", "RequestName",
                                       g_variant_new ("(su)", APP_ID, 4 /* DO_NOT_QUEUE */),
                                       G_VARIANT_TYPE ("(u)"), G_DBUS_CALL_FLAGS_NONE, -1, NULL, &error);
  g_assert_no_error (error);
  g_variant_get (reply, "(u)", &result);
  g_assert_cmpuint (result, ==, 1 /* PRIMARY_OWNER */);
}

/* ---- fixture --------------------------------------------------------------- */

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  g_autofree char *daemon = g_find_program_in_path ("dbus-daemon");

  if (daemon == NULL)
    {
      g_test_skip ("dbus-daemon is not installed");
      return;
    }

  f->bus = g_test_dbus_new (G_TEST_DBUS_NONE);
  g_test_dbus_up (f->bus);
  f->waiting = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (f->waiting, g_strdup (REVIEW_1));
  g_ptr_array_add (f->waiting, g_strdup (REVIEW_2));
  f->decisions = g_ptr_array_new_with_free_func (g_free);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  if (f->app != NULL)
    {
      g_dbus_connection_unregister_object (f->app, f->object_id);
      g_dbus_connection_close_sync (f->app, NULL, NULL);
      g_clear_object (&f->app);
    }
  if (f->bus != NULL)
    {
      g_test_dbus_down (f->bus);
      g_clear_object (&f->bus);
    }
  g_clear_pointer (&f->waiting, g_ptr_array_unref);
  g_clear_pointer (&f->decisions, g_ptr_array_unref);
  g_free (f->out);
  g_free (f->err);
}

/* Runs the CLI on the private bus while this thread keeps serving the
 * stand-in app; returns the exit status, output in f->out / f->err. */
static int
run_ctl_argv (Fixture            *f,
              const char * const *argv)
{
  g_autoptr(GPtrArray) args = g_ptr_array_new ();
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);
  const char *ctl = g_getenv ("LUMO_ACCESS_CTL");

  g_assert_nonnull (ctl);
  g_ptr_array_add (args, (char *) ctl);
  for (guint i = 0; argv[i] != NULL; i++)
    g_ptr_array_add (args, (char *) argv[i]);
  g_ptr_array_add (args, NULL);

  g_subprocess_launcher_setenv (launcher, "DBUS_SESSION_BUS_ADDRESS",
                                g_test_dbus_get_bus_address (f->bus), TRUE);
  return lumo_test_run (launcher, (const char * const *) args->pdata, NULL, &f->out, &f->err);
}

#define run_ctl(f, ...) run_ctl_argv ((f), (const char * const[]) { __VA_ARGS__, NULL })

/* ---- tests ----------------------------------------------------------------- */

static void
test_not_running (Fixture       *f,
                  gconstpointer  data)
{
  if (f->bus == NULL)
    return;

  /* A bus, but nobody owns the app's name: the CLI says so and does not
   * ask the bus to start the app (a new app has nothing waiting). */
  g_assert_cmpint (run_ctl (f, "review", "list"), ==, 1);
  g_assert_nonnull (strstr (f->err, "Lumo Access is not running"));
  g_assert_cmpstr (f->out, ==, "");
  g_assert_cmpint (run_ctl (f, "review", "approve", REVIEW_1), ==, 1);
  g_assert_nonnull (strstr (f->err, "Lumo Access is not running"));
  g_assert_cmpint (run_ctl (f, "review", "reject", "--json", REVIEW_1), ==, 1);
  g_assert_cmpstr (f->out, ==, "");
}

static void
test_list (Fixture       *f,
           gconstpointer  data)
{
  g_autoptr(JsonNode) root = NULL;
  JsonObject *first, *second;
  JsonArray *array;

  if (f->bus == NULL)
    return;
  start_app (f);

  g_assert_cmpint (run_ctl (f, "review", "list"), ==, 0);
  g_assert_nonnull (strstr (f->out, REVIEW_1));
  g_assert_nonnull (strstr (f->out, REVIEW_2));
  g_assert_nonnull (strstr (f->out, "userscripts.save_script"));
  g_assert_nonnull (strstr (f->out, "Lumo Agent"));
  g_assert_nonnull (strstr (f->out, "review approve ID"));
  /* Below the table, what each write would do, as the window shows it:
   * nested values written out, content never. */
  g_assert_nonnull (strstr (f->out, "Review " REVIEW_1 ":"));
  g_assert_nonnull (strstr (f->out, "  Name: dark.user.js"));
  g_assert_nonnull (strstr (f->out, "  Runs on: https://a.test/* → <all_urls>"));
  g_assert_nonnull (strstr (f->out, "  Site pack: a.test · pageMcpServer"));
  g_assert_nonnull (strstr (f->out, "  Site pack tools: a_put (writes)"));
  g_assert_nonnull (strstr (f->out, "1 field of the preview is not shown"));
  g_assert_null (strstr (f->out, "document.cookie"));

  g_assert_cmpint (run_ctl (f, "review", "list", "--json"), ==, 0);
  root = lumo_test_parse_json (f->out);
  g_assert_true (JSON_NODE_HOLDS_ARRAY (root));
  array = json_node_get_array (root);
  g_assert_cmpuint (json_array_get_length (array), ==, 2);

  first = json_array_get_object_element (array, 0);
  g_assert_cmpstr (json_object_get_string_member (first, "id"), ==, REVIEW_1);
  g_assert_cmpstr (json_object_get_string_member (first, "provider"), ==, TEST_PROVIDER_ID);
  g_assert_cmpstr (json_object_get_string_member (first, "caller"), ==, TEST_CALLER_ID);
  g_assert_cmpstr (json_object_get_string_member (first, "callerName"), ==, "Lumo Agent");
  g_assert_cmpstr (json_object_get_string_member (first, "tool"), ==, "userscripts.save_script");
  g_assert_cmpstr (json_object_get_string_member (first, "target"), ==,
                   "0f8e3b7c-4d2a-4c1e-9b5f-2a6d8c9e1f03");
  /* The preview is an object, not JSON in a string. */
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (first, "preview"),
                                               "bytes"), ==, 1204);
  g_assert_cmpstr (json_object_get_string_member (first, "submitted"), ==, "2025-01-01T00:00:00Z");
  g_assert_cmpstr (json_object_get_string_member (first, "deadline"), ==, "2025-01-01T00:05:00Z");

  /* What the app leaves empty is null, and no deadline is null. */
  second = json_array_get_object_element (array, 1);
  g_assert_true (json_object_get_null_member (second, "callerName"));
  g_assert_true (json_object_get_null_member (second, "target"));
  g_assert_true (json_object_get_null_member (second, "preview"));
  g_assert_true (json_object_get_null_member (second, "deadline"));

  /* Nothing waiting. */
  g_ptr_array_set_size (f->waiting, 0);
  g_assert_cmpint (run_ctl (f, "review", "list"), ==, 0);
  g_assert_nonnull (strstr (f->out, "No write is waiting for review."));
  g_assert_cmpint (run_ctl (f, "review", "list", "--json"), ==, 0);
  g_assert_cmpstr (g_strstrip (f->out), ==, "[]");
}

static void
test_decide (Fixture       *f,
             gconstpointer  data)
{
  g_autoptr(JsonNode) root = NULL;

  if (f->bus == NULL)
    return;
  start_app (f);

  g_assert_cmpint (run_ctl (f, "review", "approve", REVIEW_1), ==, 0);
  g_assert_nonnull (strstr (f->out, REVIEW_1));
  g_assert_cmpint (run_ctl (f, "review", "reject", "--json", REVIEW_2), ==, 0);
  root = lumo_test_parse_json (f->out);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (root), "id"), ==, REVIEW_2);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (root), "decision"), ==, "rejected");

  g_assert_cmpuint (f->decisions->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (f->decisions, 0), ==, REVIEW_1 ":approve");
  g_assert_cmpstr (g_ptr_array_index (f->decisions, 1), ==, REVIEW_2 ":reject");

  /* Decided already, or never there: the app's own words, exit 1. */
  g_assert_cmpint (run_ctl (f, "review", "approve", REVIEW_1), ==, 1);
  g_assert_nonnull (strstr (f->err, "is waiting; it was already decided"));
  g_assert_null (strstr (f->err, "GDBus.Error"));
  g_assert_cmpstr (f->out, ==, "");
  g_assert_cmpint (run_ctl (f, "review", "reject", UNKNOWN), ==, 1);
  g_assert_nonnull (strstr (f->err, "No review “" UNKNOWN "”"));

  /* A malformed ID never reaches the app. */
  g_assert_cmpint (run_ctl (f, "review", "approve", "not-a-review"), ==, 2);
  g_assert_cmpuint (f->decisions->len, ==, 2);
}

/* --for 10m and --always ask the app for a grant with the approval; the
 * plain approve keeps the method every app has. A bad or double grant,
 * or one on a rejection, is a wrong command line and reaches no app. */
static void
test_approve_with_grant (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(JsonNode) root = NULL;
  JsonObject *answer;

  if (f->bus == NULL)
    return;
  start_app (f);

  g_assert_cmpint (run_ctl (f, "review", "approve", REVIEW_1, "--for", "5m"), ==, 2);
  g_assert_nonnull (strstr (f->err, "--for takes 10m"));
  g_assert_cmpint (run_ctl (f, "review", "approve", REVIEW_1, "--for", "10m", "--always"), ==, 2);
  g_assert_cmpint (run_ctl (f, "review", "reject", REVIEW_1, "--always"), ==, 2);
  g_assert_cmpuint (f->decisions->len, ==, 0);

  g_assert_cmpint (run_ctl (f, "review", "approve", REVIEW_1, "--for", "10m"), ==, 0);
  g_assert_nonnull (strstr (f->out, "for the next 10 minutes"));
  g_assert_cmpint (run_ctl (f, "review", "approve", "--always", "--json", REVIEW_2), ==, 0);
  root = lumo_test_parse_json (f->out);
  answer = json_node_get_object (root);
  g_assert_cmpstr (json_object_get_string_member (answer, "decision"), ==, "approved");
  g_assert_cmpstr (json_object_get_string_member (answer, "grant"), ==, "always");

  g_assert_cmpuint (f->decisions->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (f->decisions, 0), ==, REVIEW_1 ":approve:10m");
  g_assert_cmpstr (g_ptr_array_index (f->decisions, 1), ==, REVIEW_2 ":approve:always");

  /* The app's answer for one no longer waiting comes through. */
  g_assert_cmpint (run_ctl (f, "review", "approve", REVIEW_1, "--always"), ==, 1);
  g_assert_nonnull (strstr (f->err, "is waiting; it was already decided"));
}

/* ---- recommended ------------------------------------------------------------ */

/* Core's set-up text for one server, as the app's answer gives it. */
static char *
setup_of (const char           *id,
          const char           *url,
          const char           *transport,
          LumoRecommendedSetup  setup)
{
  LumoRecommendedServer s = { (char *) id, (char *) "", NULL, (char *) url, (char *) transport };

  return lumo_recommended_server_setup (&s, setup);
}

static void
test_recommended_not_running (Fixture       *f,
                              gconstpointer  data)
{
  if (f->bus == NULL)
    return;

  g_assert_cmpint (run_ctl (f, "recommended"), ==, 1);
  g_assert_nonnull (strstr (f->err, "Lumo Access is not running. A provider’s recommended servers are known only while"));
  g_assert_cmpstr (f->out, ==, "");
  g_assert_cmpint (run_ctl (f, "recommended", "--json"), ==, 1);
  g_assert_cmpstr (f->out, ==, "");
}

static void
test_recommended_list (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *ppt_claude = setup_of ("ppt-mcp", "https://your-mcp-server-url.com/servers/ppt-mcp/sse", "sse",
                                          LUMO_RECOMMENDED_SETUP_CLAUDE_MCP_ADD);
  g_autofree char *docs_claude = setup_of ("docs", "https://mcp.example.test/mcp?key=a&b=c", NULL,
                                           LUMO_RECOMMENDED_SETUP_CLAUDE_MCP_ADD);
  g_autofree char *docs_json = setup_of ("docs", "https://mcp.example.test/mcp?key=a&b=c", NULL,
                                         LUMO_RECOMMENDED_SETUP_MCP_JSON);
  g_autoptr(JsonNode) root = NULL;
  JsonObject *first, *second, *setup;
  JsonArray *array;

  if (f->bus == NULL)
    return;
  start_app (f);
  f->recommends = TRUE;

  g_assert_cmpint (run_ctl (f, "recommended"), ==, 0);
  g_assert_nonnull (strstr (f->out, "ppt-mcp  PPT文档MCP服务器\n"));
  g_assert_nonnull (strstr (f->out, "  About: 可以创建、编辑、保存PPT文档\n"));
  g_assert_nonnull (strstr (f->out, "  URL: https://your-mcp-server-url.com/servers/ppt-mcp/sse\n"));
  /* The lines a person copies, exactly as core makes them. */
  g_assert_nonnull (strstr (f->out, ppt_claude));
  g_assert_nonnull (strstr (f->out, docs_claude));
  g_assert_nonnull (strstr (f->out, "'https://mcp.example.test/mcp?key=a&b=c'"));
  g_assert_nonnull (strstr (f->out, "    \"mcpServers\": {\n"));
  g_assert_nonnull (strstr (f->out, "  Provider: " TEST_PROVIDER2_ID "\n"));

  g_assert_cmpint (run_ctl (f, "recommended", "--json"), ==, 0);
  root = lumo_test_parse_json (f->out);
  array = json_node_get_array (root);
  g_assert_cmpuint (json_array_get_length (array), ==, 3);
  first = json_array_get_object_element (array, 0);
  g_assert_cmpstr (json_object_get_string_member (first, "provider"), ==, TEST_PROVIDER_ID);
  g_assert_cmpstr (json_object_get_string_member (first, "id"), ==, "ppt-mcp");
  g_assert_cmpstr (json_object_get_string_member (first, "name"), ==, "PPT文档MCP服务器");
  g_assert_cmpstr (json_object_get_string_member (first, "type"), ==, "sse");
  setup = json_object_get_object_member (first, "setup");
  g_assert_cmpstr (json_object_get_string_member (setup, "claudeMcpAdd"), ==, ppt_claude);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (json_object_get_object_member (
                     json_object_get_object_member (setup, "mcpJson"), "mcpServers"), "ppt-mcp"), "type"), ==, "sse");
  /* What the provider left out is null; the set-up still says http. */
  second = json_array_get_object_element (array, 1);
  g_assert_true (json_object_get_null_member (second, "description"));
  g_assert_true (json_object_get_null_member (second, "type"));
  {
    g_autoptr(JsonNode) want = lumo_test_parse_json (docs_json);
    JsonNode *got = json_object_get_member (json_object_get_object_member (second, "setup"), "mcpJson");

    g_assert_true (json_node_equal (want, got));
  }

  /* One provider's. */
  g_assert_cmpint (run_ctl (f, "recommended", "--json", "--provider", TEST_PROVIDER2_ID), ==, 0);
  g_clear_pointer (&root, json_node_unref);
  root = lumo_test_parse_json (f->out);
  g_assert_cmpuint (json_array_get_length (json_node_get_array (root)), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (json_node_get_array (root), 0), "id"),
                   ==, "slides");

  /* A bad ID is a wrong command line: exit 2, and the app is not asked. */
  f->n_listed = 0;
  g_assert_cmpint (run_ctl (f, "recommended", "--provider", TEST_BAD_ID_PAST_P), ==, 2);
  g_assert_cmpuint (f->n_listed, ==, 0);

  /* None. */
  f->recommends = FALSE;
  g_assert_cmpint (run_ctl (f, "recommended"), ==, 0);
  g_assert_nonnull (strstr (f->out, "No connected provider recommends an MCP server."));
  g_assert_cmpint (run_ctl (f, "recommended", "--json"), ==, 0);
  g_assert_cmpstr (g_strstrip (f->out), ==, "[]");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(name, func) \
  g_test_add ("/cli/review/" name, Fixture, NULL, fixture_set_up, func, fixture_tear_down)

  ADD ("not-running", test_not_running);
  ADD ("list", test_list);
  ADD ("decide", test_decide);
  ADD ("approve-with-grant", test_approve_with_grant);

#undef ADD
#define ADD(name, func) \
  g_test_add ("/cli/recommended/" name, Fixture, NULL, fixture_set_up, func, fixture_tear_down)

  ADD ("not-running", test_recommended_not_running);
  ADD ("list", test_recommended_list);

#undef ADD

  return g_test_run ();
}
