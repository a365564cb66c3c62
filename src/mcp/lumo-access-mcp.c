/* lumo-access-mcp.c — the stdio launcher for desktop agents
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * An MCP client that only starts processes (Claude Desktop, a stdio entry
 * in any client) runs
 *
 *   LUMO_ACCESS_TOKEN=lumo_… lumo-access-mcp userscripts
 *
 * and speaks MCP's stdio transport to it. This program owns nothing but
 * the hand-over, like lumo-access-host: it reads the agent's token, passes
 * its own stdin and stdout with the token and the provider namespace to
 * the running Lumo Access over the session bus (AttachAgent; the bus
 * starts the app if needed), and waits, without a timeout, until the app
 * says the session ended. The app reads and writes the descriptors itself
 * and decides everything.
 *
 * It writes to stdout only when the app never took the session: no token,
 * a refused token or provider, an app that cannot be reached. Then it
 * prints one JSON-RPC error line, answering the client's first request if
 * one comes within a moment (so the client shows the reason instead of a
 * closed connection), and exits 1. The token is never printed or logged.
 *
 * Exit status: 0 when the client ended the session, 1 otherwise.
 */
#define G_LOG_DOMAIN "lumo-access-mcp"

#include "config.h"

#include <errno.h>
#include <gio/gio.h>
#include <gio/gunixfdlist.h>
#include <gio/gunixoutputstream.h>
#include <glib/gi18n-lib.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "lumo-dbus.h"
#include "lumo-frame.h"
#include "lumo-mcp.h"

/* How long a refusal waits for the client's first request, whose id the
 * error then answers. Clients write initialize as soon as they start. */
#define FIRST_REQUEST_WAIT_MS 2000
/* Enough for any initialize; a longer first line is answered with id null. */
#define FIRST_LINE_MAX (64 * 1024)
/* A token file holds one token and maybe a newline. */
#define TOKEN_FILE_MAX 4096

/* The id of the client's first message, if it is a request that arrives
 * in time; NULL otherwise. Reads only the first line: nobody else will
 * read stdin after us. */
static JsonNode *
read_first_request_id (void)
{
  g_autoptr(GByteArray) buf = g_byte_array_new ();
  gint64 deadline = g_get_monotonic_time () + FIRST_REQUEST_WAIT_MS * G_TIME_SPAN_MILLISECOND;
  gboolean at_end = FALSE;

  while (buf->len < FIRST_LINE_MAX && memchr (buf->data, '\n', buf->len) == NULL && !at_end)
    {
      struct pollfd pfd = { STDIN_FILENO, POLLIN, 0 };
      gint64 left = (deadline - g_get_monotonic_time ()) / G_TIME_SPAN_MILLISECOND;
      guint8 chunk[4096];
      gssize n;

      if (left <= 0 || poll (&pfd, 1, (int) left) <= 0)
        break;
      n = read (STDIN_FILENO, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        at_end = TRUE;
      else
        g_byte_array_append (buf, chunk, n);
    }

  for (gsize pos = 0; pos < buf->len;)
    {
      g_autoptr(JsonNode) node = NULL;
      gsize consumed = 0;
      JsonObject *message;

      if (!lumo_line_decode (buf->data + pos, buf->len - pos, TRUE, &consumed, &node, NULL))
        return NULL;
      pos += consumed;
      if (!JSON_NODE_HOLDS_OBJECT (node))
        return NULL;

      message = json_node_get_object (node);
      if (lumo_mcp_classify (message, NULL) != LUMO_MCP_REQUEST)
        return NULL;
      return json_node_copy (json_object_get_member (message, "id"));
    }

  return NULL;
}

/* The one line this program ever writes, then exit 1. */
static int
refuse (const char *message)
{
  g_autoptr(JsonNode) id = NULL;
  g_autoptr(JsonObject) error = NULL;
  g_autoptr(GBytes) line = NULL;

  g_printerr ("lumo-access-mcp: %s\n", message);

  id = read_first_request_id ();
  error = lumo_mcp_new_error (id, LUMO_MCP_SERVER_ERROR, message);
  if ((line = lumo_line_encode (error, NULL)) != NULL)
    {
      g_autoptr(GOutputStream) out = g_unix_output_stream_new (STDOUT_FILENO, FALSE);

      /* A client gone by now gets nothing: EPIPE, not SIGPIPE. */
      g_output_stream_write_all (out, g_bytes_get_data (line, NULL), g_bytes_get_size (line),
                                 NULL, NULL, NULL);
    }

  return 1;
}

/* The token from --token-file (its only line) or LUMO_ACCESS_TOKEN. */
static char *
read_token (const char  *token_file,
            GError     **error)
{
  g_autofree char *contents = NULL;
  gsize len = 0;
  const char *env;

  if (token_file != NULL)
    {
      g_autoptr(GError) local_error = NULL;

      if (!g_file_get_contents (token_file, &contents, &len, &local_error))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                       _("Cannot read the token file: %s"), local_error->message);
          return NULL;
        }
      if (len > TOKEN_FILE_MAX || memchr (contents, '\0', len) != NULL)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       _("The token file %s does not hold a token"), token_file);
          return NULL;
        }
      g_strstrip (contents);
      if (*contents == '\0')
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       _("The token file %s is empty"), token_file);
          return NULL;
        }
      return g_steal_pointer (&contents);
    }

  env = g_getenv ("LUMO_ACCESS_TOKEN");
  if (env == NULL || *env == '\0')
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                           _("No token: set LUMO_ACCESS_TOKEN to the token Lumo Access "
                             "showed when the agent was added, or pass --token-file FILE"));
      return NULL;
    }

  return g_strstrip (g_strdup (env));
}

/* An error of the call that leaves stdout ours: the app refused before it
 * touched the descriptors, or never ran at all. */
static gboolean
is_refusal (const GError *error)
{
  g_autofree char *name = NULL;

  if (lumo_dbus_error_is_unreachable (error))
    return TRUE;
  if (g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS))
    return TRUE;

  name = g_dbus_error_get_remote_error (error);
  return name != NULL && g_str_has_prefix (name, "dev.lumo.Access.Error.");
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GDBusConnection) bus = NULL;
  g_autoptr(GUnixFDList) fd_list = NULL;
  g_autoptr(GVariant) reply = NULL;
  g_autofree char *token_file = NULL;
  g_autofree char *token = NULL;
  const char *reason = NULL;
  int stdin_index;
  int stdout_index;
  GOptionEntry entries[] = {
    { "token-file", 0, 0, G_OPTION_ARG_FILENAME, &token_file,
      N_("Read the agent's token from FILE instead of LUMO_ACCESS_TOKEN"), N_("FILE") },
    { NULL }
  };

  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  /* Only the refusal line writes to stdout; if the client is gone by
   * then, that write must fail quietly. */
  signal (SIGPIPE, SIG_IGN);

  context = g_option_context_new (_("NAMESPACE — serve a provider's tools to an MCP client over stdio"));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_description (context,
                                    _("NAMESPACE is the provider's, e.g. “userscripts”. The token is "
                                      "the one Lumo Access showed when the agent was added."));
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return refuse (error->message);
  if (argc != 2 || *argv[1] == '\0')
    return refuse (_("Usage: lumo-access-mcp [--token-file FILE] NAMESPACE"));

  /* Nothing goes on the bus without a token. */
  if (!(token = read_token (token_file, &error)))
    return refuse (error->message);

  if (!(bus = lumo_dbus_get_session_bus (&error)))
    {
      g_printerr ("lumo-access-mcp: %s\n", error->message);
      return refuse (_("Lumo Access cannot be reached: there is no desktop session bus"));
    }

  fd_list = g_unix_fd_list_new ();
  if ((stdin_index = g_unix_fd_list_append (fd_list, STDIN_FILENO, &error)) < 0 ||
      (stdout_index = g_unix_fd_list_append (fd_list, STDOUT_FILENO, &error)) < 0)
    {
      g_printerr ("lumo-access-mcp: %s\n", error->message);
      return refuse (_("Cannot pass the client's pipes to Lumo Access"));
    }

  /* No timeout: the answer comes when the session ends. Auto-start lets
   * the bus start the app in service mode. */
  reply = g_dbus_connection_call_with_unix_fd_list_sync (bus,
                                                         lumo_dbus_get_name (),
                                                         lumo_dbus_get_object_path (),
                                                         lumo_dbus_get_bridge_interface (),
                                                         "AttachAgent",
                                                         g_variant_new ("(hhss)",
                                                                        stdin_index,
                                                                        stdout_index,
                                                                        token,
                                                                        argv[1]),
                                                         G_VARIANT_TYPE ("(s)"),
                                                         G_DBUS_CALL_FLAGS_NONE,
                                                         G_MAXINT,
                                                         fd_list,
                                                         NULL,
                                                         NULL,
                                                         &error);
  /* Gone from memory before anything else can print. */
  memset (token, 0, strlen (token));

  if (reply == NULL)
    {
      /* Refused as a sandboxed app: the app's sentence says so. */
      if (g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED))
        {
          g_dbus_error_strip_remote_error (error);
          return refuse (error->message);
        }
      if (lumo_dbus_error_is_unreachable (error))
        {
          g_printerr ("lumo-access-mcp: %s\n", error->message);
          return refuse (_("Lumo Access could not be started. Check that it is installed."));
        }
      if (is_refusal (error))
        {
          g_dbus_error_strip_remote_error (error);
          return refuse (error->message);
        }

      /* The app had the pipes (it died mid-session): what it wrote is on
       * stdout already, and a line of ours could land inside one of its. */
      g_printerr ("lumo-access-mcp: the session ended abnormally: %s\n", error->message);
      return 1;
    }

  g_variant_get (reply, "(&s)", &reason);
  if (g_strcmp0 (reason, "closed") != 0)
    {
      g_printerr ("lumo-access-mcp: the session ended: %s\n", reason);
      return 1;
    }

  return 0;
}
