/* test-dbus-service.c — AttachAgent and ApproveReview on the app's D-Bus
 * object
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The app's LumoDBusService exported on the session bus, over temporary
 * stores with a desktop agent, called by this program over a connection
 * of its own: another app's sandbox (a fake /proc says this program is
 * one) is refused before the app touches the pipes, even with the right
 * token; seen as it is, the same call gets its session, served on the
 * pipes until the client closes its end. ApproveReview is under the same
 * rule: a sandbox cannot approve a write, let alone grant the next ones.
 */
#include "config.h"

#include <gio/gunixfdlist.h>
#include <string.h>
#include <unistd.h>

#include "app-test-util.h"
#include "lumo-dbus-service.h"
#include "lumo-error.h"
#include "lumo-gateway.h"

#define OBJECT_PATH "/dev/lumo/Access/Test"
#define INITIALIZE \
  "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\"," \
  "\"capabilities\":{},\"clientInfo\":{\"name\":\"claude-desktop\",\"version\":\"1\"}}}\n"

typedef struct
{
  AppFixture       base;
  LumoGateway     *gateway;
  LumoDBusService *service;
  GDBusConnection *service_conn;
  GDBusConnection *caller_conn;
  char            *token;
  char            *proc_root;
} ServiceFixture;

static LumoBackend *
get_backend_cb (gpointer   user_data,
                GError   **error)
{
  ServiceFixture *f = user_data;

  return f->base.backend;
}

static GDBusConnection *
new_connection (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *address = g_dbus_address_get_for_bus_sync (G_BUS_TYPE_SESSION, NULL, &error);
  GDBusConnection *connection;

  g_assert_no_error (error);
  connection = g_dbus_connection_new_for_address_sync (address,
                                                       G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
                                                       G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
                                                       NULL, NULL, &error);
  g_assert_no_error (error);
  return connection;
}

static void
service_setup (ServiceFixture *f,
               gconstpointer   data)
{
  const char *providers[] = { TEST_PROVIDER_ID, NULL };
  g_autofree char *agent_id = NULL;
  g_autoptr(GError) error = NULL;

  app_fixture_setup_stores (&f->base);
  app_fixture_add_provider (&f->base, TEST_PROVIDER_ID, "Lumo Userscripts");
  g_assert_true (lumo_policy_add_agent (f->base.policy, "Claude Desktop", providers, LUMO_POLICY_ORIGIN_UI,
                                        &agent_id, &f->token, &error));
  g_assert_no_error (error);

  f->gateway = lumo_gateway_new (f->base.backend);
  lumo_gateway_set_enabled (f->gateway, TRUE);
  f->service = lumo_dbus_service_new (get_backend_cb, f);
  lumo_dbus_service_set_gateway (f->service, f->gateway);
  f->service_conn = new_connection ();
  f->caller_conn = new_connection ();
  g_assert_true (lumo_dbus_service_export (f->service, f->service_conn, OBJECT_PATH, &error));
  g_assert_no_error (error);
}

static void
service_teardown (ServiceFixture *f,
                  gconstpointer   data)
{
  lumo_dbus_service_unexport (f->service);
  g_clear_object (&f->service);
  g_clear_object (&f->gateway);
  g_clear_object (&f->caller_conn);
  g_clear_object (&f->service_conn);
  app_test_iterate ();

  g_clear_object (&f->base.backend);
  g_clear_object (&f->base.queue);
  g_clear_object (&f->base.audit);
  g_clear_object (&f->base.policy);
  app_test_iterate ();
  lumo_test_dir_remove (f->base.dir);
  g_clear_pointer (&f->base.dir, g_free);
  if (f->proc_root != NULL)
    lumo_test_dir_remove (f->proc_root);
  g_clear_pointer (&f->proc_root, g_free);
  g_free (f->token);
}

typedef struct
{
  GVariant *reply;
  GError   *error;
  gboolean  done;
} CallResult;

static void
on_call_done_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  CallResult *r = user_data;

  r->reply = g_dbus_connection_call_with_unix_fd_list_finish (G_DBUS_CONNECTION (source), NULL,
                                                              result, &r->error);
  r->done = TRUE;
}

/* AttachAgent with the two ends of @in_pipe (the app reads) and @out_pipe
 * (the app writes), answered into @r. */
static void
call_attach_agent (ServiceFixture *f,
                   const int       in_pipe[2],
                   const int       out_pipe[2],
                   CallResult     *r)
{
  g_autoptr(GUnixFDList) fds = g_unix_fd_list_new ();

  g_assert_cmpint (g_unix_fd_list_append (fds, in_pipe[0], NULL), ==, 0);
  g_assert_cmpint (g_unix_fd_list_append (fds, out_pipe[1], NULL), ==, 1);
  g_dbus_connection_call_with_unix_fd_list (f->caller_conn,
                                            g_dbus_connection_get_unique_name (f->service_conn),
                                            OBJECT_PATH, "dev.lumo.Access.Bridge", "AttachAgent",
                                            g_variant_new ("(hhss)", 0, 1, f->token, "userscripts"),
                                            G_VARIANT_TYPE ("(s)"), G_DBUS_CALL_FLAGS_NONE, G_MAXINT,
                                            fds, NULL, on_call_done_cb, r);
}

/* This program seen as another app's Flatpak: AttachAgent is refused with
 * AccessDenied before the app reads a byte or opens a session, the right
 * token notwithstanding. Seen as it is, the same call gets its session:
 * initialize is answered on the pipe, and closing the input ends it. */
static void
test_sandboxed_caller_refused (ServiceFixture *f,
                               gconstpointer   data)
{
  g_autofree char *pid_dir = NULL;
  g_autofree char *info = NULL;
  CallResult refused = { 0 };
  CallResult served = { 0 };
  int in_pipe[2];
  int out_pipe[2];
  char buf[4096];
  gssize n;
  const char *reason = NULL;

  f->proc_root = lumo_test_dir_new ("proc");
  pid_dir = g_strdup_printf ("%s/%d/root", f->proc_root, (int) getpid ());
  g_assert_cmpint (g_mkdir_with_parents (pid_dir, 0700), ==, 0);
  info = g_build_filename (pid_dir, ".flatpak-info", NULL);
  g_assert_true (g_file_set_contents (info, "[Application]\nname=org.example.Evil\n", -1, NULL));
  lumo_dbus_service_set_proc_root (f->service, f->proc_root);

  g_assert_cmpint (pipe (in_pipe), ==, 0);
  g_assert_cmpint (pipe (out_pipe), ==, 0);
  g_assert_cmpint (write (in_pipe[1], INITIALIZE, strlen (INITIALIZE)), ==, (gssize) strlen (INITIALIZE));

  call_attach_agent (f, in_pipe, out_pipe, &refused);
  lumo_test_wait_until (lumo_test_is_true, &refused.done, "AttachAgent to be answered");
  g_assert_error (refused.error, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED);
  g_assert_nonnull (strstr (refused.error->message, "org.example.Evil"));
  g_test_message ("%s", refused.error->message);
  g_clear_error (&refused.error);
  g_assert_cmpuint (g_list_model_get_n_items (lumo_gateway_get_sessions (f->gateway)), ==, 0);
  g_assert_cmpuint (lumo_dbus_service_get_n_sessions (f->service), ==, 0);

  /* Seen as it is (not sandboxed): served. The initialize written before
   * is still in the pipe, unread. */
  lumo_dbus_service_set_proc_root (f->service, NULL);
  call_attach_agent (f, in_pipe, out_pipe, &served);
  close (out_pipe[1]);
  /* The answer, then the end: reading blocks, so wait for the session. */
  lumo_test_wait_until ((LumoTestCondition) lumo_dbus_service_get_n_sessions, f->service,
                        "the stdio session to start");
  close (in_pipe[1]);
  lumo_test_wait_until (lumo_test_is_true, &served.done, "the session to end");
  g_assert_no_error (served.error);
  g_variant_get (served.reply, "(&s)", &reason);
  g_assert_cmpstr (reason, ==, "closed");
  n = read (out_pipe[0], buf, sizeof buf - 1);
  g_assert_cmpint (n, >, 0);
  buf[n] = '\0';
  g_assert_nonnull (strstr (buf, "\"protocolVersion\":\"2025-06-18\""));
  g_assert_true (g_str_has_suffix (buf, "\n"));

  g_variant_unref (served.reply);
  close (in_pipe[0]);
  close (out_pipe[0]);
}

static void
on_plain_call_done_cb (GObject      *source,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  CallResult *r = user_data;

  r->reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &r->error);
  r->done = TRUE;
}

static void
call_approve_review (ServiceFixture *f,
                     const char     *id,
                     const char     *grant,
                     CallResult     *r)
{
  memset (r, 0, sizeof *r);
  g_dbus_connection_call (f->caller_conn, g_dbus_connection_get_unique_name (f->service_conn),
                          OBJECT_PATH, "dev.lumo.Access.Bridge", "ApproveReview",
                          g_variant_new ("(ss)", id, grant), G_VARIANT_TYPE_UNIT,
                          G_DBUS_CALL_FLAGS_NONE, -1, NULL, on_plain_call_done_cb, r);
  lumo_test_wait_until (lumo_test_is_true, &r->done, "ApproveReview to be answered");
}

typedef struct
{
  LumoReviewOutcome outcome;
  gboolean          done;
} Reviewed;

static void
on_reviewed_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  Reviewed *r = user_data;

  r->outcome = lumo_review_queue_submit_finish (LUMO_REVIEW_QUEUE (source), result, NULL);
  r->done = TRUE;
}

static guint
n_grants (ServiceFixture *f)
{
  g_autoptr(GPtrArray) grants = lumo_policy_list_grants (f->base.policy, NULL, NULL);

  g_assert_nonnull (grants);
  return grants->len;
}

/* Seen as another app's Flatpak, ApproveReview is refused and decides
 * nothing; seen as it is, a bad grant word is InvalidArgs, "always"
 * approves the write and grants the caller the tool, and a second
 * decision finds nothing waiting. */
static void
test_approve_review (ServiceFixture *f,
                     gconstpointer   data)
{
  LumoReviewQueue *queue = lumo_backend_get_review_queue (f->base.backend);
  g_autoptr(LumoReviewRequest) request = NULL;
  g_autoptr(GPtrArray) history = NULL;
  g_autofree char *pid_dir = NULL;
  g_autofree char *info = NULL;
  g_autoptr(GError) error = NULL;
  Reviewed reviewed = { 0 };
  CallResult r;
  const char *id;

  g_assert_true (lumo_policy_allow_caller (f->base.policy, TEST_PROVIDER_ID, TEST_CALLER_ID,
                                           LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_no_error (error);
  lumo_review_queue_submit_async (queue, TEST_PROVIDER_ID, TEST_CALLER_ID, "Lumo", "userscripts.save_script",
                                  NULL, "{\"name\":\"Dark mode\"}", NULL, on_reviewed_cb, &reviewed);
  request = g_list_model_get_item (G_LIST_MODEL (queue), 0);
  id = lumo_review_request_get_id (request);

  f->proc_root = lumo_test_dir_new ("proc");
  pid_dir = g_strdup_printf ("%s/%d/root", f->proc_root, (int) getpid ());
  g_assert_cmpint (g_mkdir_with_parents (pid_dir, 0700), ==, 0);
  info = g_build_filename (pid_dir, ".flatpak-info", NULL);
  g_assert_true (g_file_set_contents (info, "[Application]\nname=org.example.Evil\n", -1, NULL));
  lumo_dbus_service_set_proc_root (f->service, f->proc_root);

  call_approve_review (f, id, "always", &r);
  g_assert_error (r.error, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED);
  g_clear_error (&r.error);
  g_assert_nonnull (lumo_review_queue_lookup (queue, id));
  g_assert_cmpuint (n_grants (f), ==, 0);

  lumo_dbus_service_set_proc_root (f->service, NULL);
  call_approve_review (f, id, "forever", &r);
  g_assert_error (r.error, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS);
  g_clear_error (&r.error);
  g_assert_nonnull (lumo_review_queue_lookup (queue, id));

  call_approve_review (f, id, "always", &r);
  g_assert_no_error (r.error);
  g_clear_pointer (&r.reply, g_variant_unref);
  lumo_test_wait_until (lumo_test_is_true, &reviewed.done, "the review's outcome");
  g_assert_cmpint (reviewed.outcome, ==, LUMO_REVIEW_OUTCOME_APPROVED);
  g_assert_cmpuint (n_grants (f), ==, 1);
  history = lumo_policy_list_history (f->base.policy, 1, NULL);
  g_assert_cmpstr (((LumoHistoryEntry *) g_ptr_array_index (history, 0))->field, ==, "grant");
  g_assert_cmpint (((LumoHistoryEntry *) g_ptr_array_index (history, 0))->origin, ==, LUMO_POLICY_ORIGIN_CLI);

  call_approve_review (f, id, "10m", &r);
  g_assert_error (r.error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND);
  g_clear_error (&r.error);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/dbus-service/approve-review", ServiceFixture, NULL,
              service_setup, test_approve_review, service_teardown);
  g_test_add ("/dbus-service/attach-agent/sandboxed-caller-refused", ServiceFixture, NULL,
              service_setup, test_sandboxed_caller_refused, service_teardown);

  return g_test_run ();
}
