/* test-agents.c — the real path of a desktop agent over stdio:
 * MCP client → lumo-access-mcp → D-Bus AttachAgent → app
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each test starts a private bus on which the app is activatable, with
 * desktop agents turned on in its settings (the keyfile backend, so the
 * app reads them as it reads the user's). The provider says hello through
 * a helper, as Chrome starts it, so its namespace is known, then goes
 * away; the agent is added with lumo-access-ctl, as a person would. The
 * launcher runs as an MCP client starts it, its stdin holding what the
 * client sends.
 */
#include "config.h"

#include <gio/gunixfdlist.h>
#include <string.h>
#include <unistd.h>

#include "lumo-test-session.h"

#define INITIALIZE \
  "{\"jsonrpc\":\"2.0\",\"id\":\"init-1\",\"method\":\"initialize\",\"params\":{\"protocolVersion\":" \
  "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"claude-desktop\",\"version\":\"1\"}}}\n"

typedef struct
{
  LumoTestSession *s;
  LumoTestBus     *bus;       /* s's */
  char            *token;
  char            *agent_id;
  char            *data_dir;
  guint            port;      /* the endpoint's, in the app's settings */
} Agents;

static const char *
launcher_path (void)
{
  const char *path = g_getenv ("LUMO_TEST_MCP");

  g_assert_nonnull (path);
  return path;
}

/* A port nothing listens on now, for the app's endpoint: the default one
 * may be taken by another program on this machine. */
static guint
free_port (void)
{
  g_autoptr(GSocket) socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
                                            G_SOCKET_PROTOCOL_TCP, NULL);
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new (loopback, 0);
  g_autoptr(GSocketAddress) bound = NULL;

  g_assert_true (g_socket_bind (socket, address, FALSE, NULL));
  bound = g_socket_get_local_address (socket, NULL);
  return g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
}

static Agents *
agents_new (void)
{
  g_autofree char *schema_env = NULL;
  g_autofree char *keyfile = NULL;
  g_autofree char *config_home = NULL;
  g_autofree char *out = NULL;
  g_autoptr(JsonNode) added = NULL;
  const char *env[3];
  LumoTestSession *s;
  Agents *a;

  schema_env = g_strconcat ("GSETTINGS_SCHEMA_DIR=", g_getenv ("LUMO_TEST_SCHEMA_DIR"), NULL);
  env[0] = "GSETTINGS_BACKEND=keyfile";
  env[1] = schema_env;
  env[2] = NULL;
  if (!(s = lumo_test_session_new (NULL, env)))
    return NULL;

  a = g_new0 (Agents, 1);
  a->s = s;
  a->bus = s->bus;
  a->data_dir = g_build_filename (lumo_test_bus_get_data_home (a->bus), "lumo-access", NULL);

  /* The user turned desktop agents on, before the app started. */
  config_home = g_build_filename (lumo_test_bus_get_dir (a->bus), "config", NULL);
  a->port = free_port ();
  keyfile = g_strdup_printf ("[%s]\ndesktop-agents=true\ndesktop-agents-port=%u\n",
                             "dev/lumo/Access", a->port);
  lumo_test_write_in (config_home, "glib-2.0/settings/keyfile", keyfile);

  /* The provider said hello once (its namespace is known) and went. */
  lumo_test_session_connect (s, NULL);
  lumo_test_peer_end (s->peer);

  /* The CLI shares the app's settings and data. */
  g_assert_cmpint (lumo_test_bus_run_ctl (a->bus, &out, "agents", "add", "Claude Desktop",
                                          "--provider", TEST_PROVIDER_ID, "--json", NULL), ==, 0);
  added = lumo_test_parse_json (out);
  a->agent_id = g_strdup (json_object_get_string_member (json_node_get_object (added), "id"));
  a->token = g_strdup (json_object_get_string_member (json_node_get_object (added), "token"));
  g_assert_nonnull (a->token);

  return a;
}

static void
agents_free (Agents *a)
{
  lumo_test_session_free (a->s);
  g_free (a->token);
  g_free (a->agent_id);
  g_free (a->data_dir);
  g_free (a);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Agents, agents_free)

/* The launcher with @token in LUMO_ACCESS_TOKEN (NULL: none), @input on
 * its stdin; its exit status, its stdout in @out. */
static int
run_launcher (Agents      *a,
              const char  *token,
              const char  *input,
              char       **out)
{
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);
  g_auto(GStrv) env = g_strdupv (lumo_test_bus_get_env (a->bus));
  const char *argv[] = { launcher_path (), "userscripts", NULL };

  env = g_environ_unsetenv (env, "LUMO_ACCESS_TOKEN");
  if (token != NULL)
    env = g_environ_setenv (env, "LUMO_ACCESS_TOKEN", token, TRUE);
  g_subprocess_launcher_set_environ (launcher, env);

  return lumo_test_run (launcher, argv, input, out, NULL);
}

/* The one line of a refusal: a JSON-RPC error answering the client's
 * initialize. */
static void
assert_refusal_line (const char *out)
{
  g_auto(GStrv) lines = g_strsplit (out, "\n", -1);
  g_autoptr(JsonNode) node = NULL;
  JsonObject *error;

  g_assert_cmpuint (g_strv_length (lines), ==, 2);
  g_assert_cmpstr (lines[1], ==, "");
  node = lumo_test_parse_json (lines[0]);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (node), "jsonrpc"), ==, "2.0");
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (node), "id"), ==, "init-1");
  error = json_object_get_object_member (json_node_get_object (node), "error");
  g_assert_nonnull (error);
  g_test_message ("%s", json_object_get_string_member (error, "message"));
}

/* A wrong token: the app refuses it at once, the launcher prints one
 * JSON-RPC error line and exits 1. No token: the same, before anything
 * goes on the bus. */
static void
test_refused (void)
{
  g_autoptr(Agents) a = agents_new ();
  g_autofree char *wrong = NULL;
  g_autofree char *out = NULL;

  if (a == NULL)
    return;

  g_assert_cmpint (run_launcher (a, NULL, INITIALIZE, &out), ==, 1);
  assert_refusal_line (out);

  wrong = g_strdup (a->token);
  wrong[strlen (wrong) - 1] = wrong[strlen (wrong) - 1] == 'A' ? 'B' : 'A';
  g_clear_pointer (&out, g_free);
  g_assert_cmpint (run_launcher (a, wrong, INITIALIZE, &out), ==, 1);
  assert_refusal_line (out);
  g_assert_nonnull (strstr (out, "token"));
  g_assert_null (strstr (out, wrong + strlen (wrong) - 43));
}

/* One HTTP request to the app's endpoint (another process: a blocking
 * client is fine); everything it answered until it closed. */
static char *
http_post (Agents     *a,
           const char *body)
{
  g_autoptr(GSocketClient) client = g_socket_client_new ();
  g_autoptr(GSocketConnection) connection = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GByteArray) answer = g_byte_array_new ();
  g_autofree char *request = NULL;
  GInputStream *in;
  guint8 buf[4096];
  gssize n;

  connection = g_socket_client_connect_to_host (client, "127.0.0.1", a->port, NULL, &error);
  g_assert_no_error (error);
  request = g_strdup_printf ("POST /mcp/userscripts HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
                             "Authorization: Bearer %s\r\nAccept: application/json, text/event-stream\r\n"
                             "Content-Type: application/json\r\nContent-Length: %" G_GSIZE_FORMAT "\r\n"
                             "Connection: close\r\n\r\n%s",
                             a->port, a->token, strlen (body), body);
  g_assert_true (g_output_stream_write_all (g_io_stream_get_output_stream (G_IO_STREAM (connection)),
                                            request, strlen (request), NULL, NULL, &error));
  in = g_io_stream_get_input_stream (G_IO_STREAM (connection));
  while ((n = g_input_stream_read (in, buf, sizeof buf, NULL, &error)) > 0)
    g_byte_array_append (answer, buf, n);
  g_assert_no_error (error);
  g_byte_array_append (answer, (const guint8 *) "", 1);

  return g_strdup ((const char *) answer->data);
}

/* The app's endpoint listens where its settings say, and answers an
 * agent's initialize as the launcher's session does. */
static void
test_http (void)
{
  g_autoptr(Agents) a = agents_new ();
  g_autofree char *answer = NULL;
  g_autofree char *out = NULL;

  if (a == NULL)
    return;

  /* The app runs once the launcher has been served. */
  g_assert_cmpint (run_launcher (a, a->token, INITIALIZE, &out), ==, 0);
  answer = http_post (a, INITIALIZE);
  g_assert_true (g_str_has_prefix (answer, "HTTP/1.1 200 OK\r\n"));
  g_assert_nonnull (strstr (answer, "Mcp-Session-Id: "));
  g_assert_nonnull (strstr (answer, "\"id\":\"init-1\""));
  g_assert_nonnull (strstr (answer, "\"protocolVersion\":\"2025-06-18\""));
}

/* AttachAgent itself: a refused token is the NotAuthorized error, a
 * namespace no provider has NotFound, both at once (the call does not
 * wait for a session) and with nothing read from the descriptors. */
static void
test_attach_agent_errors (void)
{
  g_autoptr(Agents) a = agents_new ();
  struct { const char *namespace_; gboolean good_token; const char *name; } cases[] = {
    { "userscripts", FALSE, "dev.lumo.Access.Error.NotAuthorized" },
    { "nosuchthing", TRUE, "dev.lumo.Access.Error.NotFound" },
  };

  if (a == NULL)
    return;

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GUnixFDList) fds = g_unix_fd_list_new ();
      g_autoptr(GVariant) reply = NULL;
      g_autoptr(GError) error = NULL;
      g_autofree char *remote = NULL;
      int pipe_fds[2];
      char byte = 'x';

      g_assert_cmpint (pipe (pipe_fds), ==, 0);
      g_assert_cmpint (write (pipe_fds[1], &byte, 1), ==, 1);
      g_assert_cmpint (g_unix_fd_list_append (fds, pipe_fds[0], NULL), ==, 0);
      g_assert_cmpint (g_unix_fd_list_append (fds, pipe_fds[1], NULL), ==, 1);
      reply = g_dbus_connection_call_with_unix_fd_list_sync (lumo_test_bus_get_connection (a->bus),
                                                             APP_ID, "/dev/lumo/Access",
                                                             "dev.lumo.Access.Bridge", "AttachAgent",
                                                             g_variant_new ("(hhss)", 0, 1,
                                                                            cases[i].good_token ? a->token : "lumo_x",
                                                                            cases[i].namespace_),
                                                             G_VARIANT_TYPE ("(s)"), G_DBUS_CALL_FLAGS_NONE,
                                                             -1, fds, NULL, NULL, &error);
      g_assert_null (reply);
      remote = g_dbus_error_get_remote_error (error);
      g_assert_cmpstr (remote, ==, cases[i].name);
      g_test_message ("%s: %s", remote, error->message);
      /* The byte is still in the pipe: the app read nothing. */
      g_assert_cmpint (read (pipe_fds[0], &byte, 1), ==, 1);
      close (pipe_fds[0]);
      close (pipe_fds[1]);
    }
}

/* The right token: the app serves the client's stdin itself; initialize
 * and tools/list are answered (the provider is away, so the app answers),
 * and the end of stdin ends the session: exit 0. The token is in no file
 * of the data directory afterwards. */
static void
test_session (void)
{
  g_autoptr(Agents) a = agents_new ();
  g_autofree char *out = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(JsonNode) init = NULL;
  g_autoptr(JsonNode) list = NULL;
  g_autoptr(GDir) dir = NULL;
  const char *name;
  JsonObject *result;

  if (a == NULL)
    return;

  g_assert_cmpint (run_launcher (a, a->token,
                                 INITIALIZE
                                 "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
                                 "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}\n",
                                 &out), ==, 0);
  lines = g_strsplit (out, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 3);

  init = lumo_test_parse_json (lines[0]);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (init), "id"), ==, "init-1");
  result = json_object_get_object_member (json_node_get_object (init), "result");
  g_assert_cmpstr (json_object_get_string_member (result, "protocolVersion"), ==, "2025-06-18");
  g_assert_nonnull (json_object_get_object_member (json_object_get_object_member (result, "capabilities"),
                                                   "tools"));

  list = lumo_test_parse_json (lines[1]);
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (list), "id"), ==, 2);
  result = json_object_get_object_member (json_node_get_object (list), "result");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (result, "tools")), ==, 0);

  dir = g_dir_open (a->data_dir, 0, NULL);
  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (a->data_dir, name, NULL);

      if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
        g_assert_false (lumo_test_file_contains (path, a->token + strlen (a->token) - 43));
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/agents/launcher/refused", test_refused);
  g_test_add_func ("/agents/launcher/session", test_session);
  g_test_add_func ("/agents/attach-agent/errors", test_attach_agent_errors);
  g_test_add_func ("/agents/http", test_http);

  return g_test_run ();
}
