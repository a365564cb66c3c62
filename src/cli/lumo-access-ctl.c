/* lumo-access-ctl.c — the admin command line of Lumo Access
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * This file owns the command table, the global options, dispatch, and the
 * output helpers every subcommand shares. The subcommands themselves live
 * in lumo-ctl-policy.c, lumo-ctl-agents.c, lumo-ctl-grants.c, lumo-ctl-audit.c, lumo-ctl-probe.c,
 * lumo-ctl-review.c, lumo-ctl-recommended.c and lumo-ctl-browsers.c; review
 * and recommended ask the running app through lumo-ctl-app.c.
 */
#define G_LOG_DOMAIN "lumo-access-ctl"

#include "config.h"

#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "lumo-ctl.h"
#include "lumo-error.h"
#include "lumo-paths.h"
#include "lumo-protocol.h"

#define PROGRAM "lumo-access-ctl"

static const LumoCtlCommand commands[] = {
  { "providers", "",
    N_("List the providers with their switches"), lumo_ctl_providers },
  { "callers", "",
    N_("List the callers (all providers, or one with --provider)"), lumo_ctl_callers },
  { "allow", "ID",
    N_("Allow a caller to use a provider’s tools"), lumo_ctl_allow },
  { "deny", "ID",
    N_("Deny a caller; its open sessions are closed"), lumo_ctl_deny },
  { "forget", "ID",
    N_("Forget a caller; its next probe asks for approval again"), lumo_ctl_forget },
  { "set", "enabled|writes|review on|off",
    N_("Turn a provider’s switch on or off"), lumo_ctl_set },
  { "watch", "ID",
    N_("Add a provider by hand, before it connects"), lumo_ctl_watch },
  { "unwatch", "ID",
    N_("Remove a provider and its callers"), lumo_ctl_unwatch },
  { "agents", "",
    N_("List the desktop agents (MCP clients outside the browser)"), lumo_ctl_agents },
  { "agents add", "NAME",
    N_("Add a desktop agent and print its token, once (--provider ID…, --json for set-ups)"),
    lumo_ctl_agents_add },
  { "agents remove", "ID",
    N_("Remove a desktop agent: its token stops working, its sessions end"), lumo_ctl_agents_remove },
  { "grants", "",
    N_("List the review grants in force: writes a caller may make without asking"), lumo_ctl_grants },
  { "revoke-grant", "PROVIDER CALLER TOOL",
    N_("End a review grant; the caller’s next write of the tool waits for review"), lumo_ctl_revoke_grant },
  { "history", "",
    N_("Show the policy history, newest first"), lumo_ctl_history },
  { "undo", "",
    N_("Undo the newest change a person made"), lumo_ctl_undo },
  { "audit search", "QUERY… [--file FILE [--key KEYFILE]]",
    N_("Search the audit log (caller:, tool:, provider:, decision:, result:, kind:, grant:, since:, until:)"),
    lumo_ctl_audit_search },
  { "audit export", "[QUERY…] [--file FILE [--key KEYFILE]]",
    N_("Export audit rows as CSV or JSON Lines"), lumo_ctl_audit_export },
  { "audit verify", "[--file FILE [--key KEYFILE]]",
    N_("Check the audit log’s hash chain and checkpoint"), lumo_ctl_audit_verify },
  { "audit stats", "[QUERY…] [--by caller|tool|day] [--file FILE [--key KEYFILE]]",
    N_("Count the writes allowed, denied and failed, in all or per caller, tool or day"),
    lumo_ctl_audit_stats },
  { "audit check-params", "JSON|-",
    N_("Find the audit rows whose parameters were exactly this JSON"),
    lumo_ctl_audit_check_params },
  { "probe-state", "",
    N_("Map a probe answer (JSON on stdin) to the state a person sees"),
    lumo_ctl_probe_state },
  { "review list", "",
    N_("List the writes waiting for review in the running app"), lumo_ctl_review_list },
  { "review approve", "ID [--for 10m|--always]",
    N_("Approve a waiting write (and, with a grant, the caller’s next writes of that tool)"),
    lumo_ctl_review_approve },
  { "review reject", "ID",
    N_("Reject a waiting write; the provider is told review_rejected"), lumo_ctl_review_reject },
  { "recommended", "",
    N_("List the MCP servers the connected providers recommend, with their set-up for a desktop MCP client"),
    lumo_ctl_recommended },
  { "browsers", "",
    N_("List the browsers and the state of their native-messaging manifest"), lumo_ctl_browsers },
  { "install-manifest", "",
    N_("Write the manifest that lets the providers reach Lumo Access (every detected browser, or --browser)"),
    lumo_ctl_install_manifest },
  { "remove-manifest", "",
    N_("Remove the manifest (from every browser, or --browser)"), lumo_ctl_remove_manifest },
};

/* printf's %-*s counts bytes; “…” and translations need characters. */
static void
print_row (FILE       *out,
           const char *left,
           const char *right)
{
  glong width = g_utf8_strlen (left, -1);

  fprintf (out, "  %s", left);
  for (glong i = width; i < 36; i++)
    fputc (' ', out);
  fprintf (out, " %s\n", right);
}

static void
print_usage (FILE *out)
{
  fprintf (out, _("Usage: %s [--data-dir DIR] COMMAND [OPTION…]\n"), PROGRAM);
  fprintf (out, "\n%s\n\n", _("Administer Lumo Access: who may use which provider, and what they did."));
  fprintf (out, "%s\n", _("Commands:"));
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      g_autofree char *left = g_strdup_printf ("%s %s", commands[i].name, commands[i].params);

      print_row (out, g_strstrip (left), _(commands[i].summary));
    }
  fprintf (out, "\n%s\n", _("Global options:"));
  print_row (out, "--data-dir DIR", _("Use the data in DIR instead of the default"));
  print_row (out, "--version", _("Show the version"));
  fprintf (out, "\n");
  fprintf (out, _("Run “%s COMMAND --help” for the options of a command.\n"), PROGRAM);
  fprintf (out, "%s\n", _("Exit status: 0 done, 1 failed, 2 wrong command line (nothing changed)."));
}

static const LumoCtlCommand *
find_command (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    if (g_str_equal (commands[i].name, name))
      return &commands[i];

  return NULL;
}

static char *
command_usage (const LumoCtlCommand *command)
{
  g_autofree char *line = g_strdup_printf ("%s %s%s%s [OPTION…]", PROGRAM, command->name,
                                           *command->params != '\0' ? " " : "", command->params);

  return g_strdup_printf (_("Usage: %s"), line);
}

gboolean
lumo_ctl_parse (const LumoCtlCommand   *command,
                const GOptionEntry     *entries,
                char                 ***args,
                int                     n_positional_min,
                int                     n_positional_max,
                int                    *exit_code)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *params = NULL;
  g_autofree char *data_dir = NULL;
  gboolean help = FALSE;
  int n_positional;
  const GOptionEntry common[] = {
    { "data-dir", 0, 0, G_OPTION_ARG_FILENAME, &data_dir,
      N_("Use the data in DIR instead of the default"), N_("DIR") },
    { "help", 'h', 0, G_OPTION_ARG_NONE, &help, N_("Show this help"), NULL },
    G_OPTION_ENTRY_NULL
  };

  params = g_strdup_printf ("%s %s", command->name, command->params);
  context = g_option_context_new (params);
  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  /* Our own --help, so that help goes to stdout and returns instead of
   * calling exit() in the middle of the program. */
  g_option_context_set_help_enabled (context, FALSE);
  g_option_context_set_summary (context, _(command->summary));
  if (entries != NULL)
    g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_add_main_entries (context, common, GETTEXT_PACKAGE);

  if (!g_option_context_parse_strv (context, args, &error))
    {
      g_autofree char *usage = g_option_context_get_help (context, TRUE, NULL);

      g_printerr ("%s: %s\n\n%s", PROGRAM, error->message, usage);
      *exit_code = LUMO_CTL_EXIT_USAGE;
      return FALSE;
    }

  if (help)
    {
      g_autofree char *usage = g_option_context_get_help (context, TRUE, NULL);

      g_print ("%s", usage);
      *exit_code = LUMO_CTL_EXIT_OK;
      return FALSE;
    }

  n_positional = (int) g_strv_length (*args) - 1;
  if (n_positional < n_positional_min)
    {
      *exit_code = lumo_ctl_usage_error (command, _("“%s” needs %s"), command->name, command->params);
      return FALSE;
    }
  if (n_positional_max >= 0 && n_positional > n_positional_max)
    {
      *exit_code = lumo_ctl_usage_error (command, _("Unexpected argument “%s”"),
                                         (*args)[n_positional_max + 1]);
      return FALSE;
    }

  if (data_dir != NULL)
    lumo_paths_set_data_dir (data_dir);

  return TRUE;
}

int
lumo_ctl_fail (const GError *error)
{
  g_printerr ("%s: %s\n", PROGRAM, error->message);

  if (error->domain == LUMO_ERROR &&
      (error->code == LUMO_ERROR_INVALID_ID || error->code == LUMO_ERROR_INVALID_ARGUMENT))
    return LUMO_CTL_EXIT_USAGE;

  return LUMO_CTL_EXIT_FAIL;
}

int
lumo_ctl_usage_error (const LumoCtlCommand *command,
                      const char           *format,
                      ...)
{
  g_autofree char *message = NULL;
  g_autofree char *usage = command_usage (command);
  va_list ap;

  va_start (ap, format);
  message = g_strdup_vprintf (format, ap);
  va_end (ap);

  g_printerr ("%s: %s\n%s\n", PROGRAM, message, usage);
  g_printerr (_("Run “%s %s --help” for more.\n"), PROGRAM, command->name);

  return LUMO_CTL_EXIT_USAGE;
}

gboolean
lumo_ctl_check_id (const char *id,
                   const char *what)
{
  g_autoptr(GError) error = NULL;

  if (lumo_validate_extension_id (id, what, &error))
    return TRUE;

  lumo_ctl_fail (error);
  return FALSE;
}

LumoPolicy *
lumo_ctl_open_policy (int *exit_code)
{
  g_autoptr(GError) error = NULL;
  LumoPolicy *policy;

  if (!(policy = lumo_policy_new (NULL, &error)))
    *exit_code = lumo_ctl_fail (error);

  return policy;
}

char *
lumo_ctl_format_time (gint64 time_us)
{
  g_autoptr(GDateTime) dt = NULL;

  if (time_us == 0 || !(dt = g_date_time_new_from_unix_local (time_us / G_USEC_PER_SEC)))
    return g_strdup ("—");

  return g_date_time_format (dt, "%Y-%m-%d %H:%M:%S");
}

char *
lumo_ctl_format_iso (gint64 time_us)
{
  g_autoptr(GDateTime) dt = NULL;

  if (time_us == 0 || !(dt = g_date_time_new_from_unix_utc (time_us / G_USEC_PER_SEC)))
    return NULL;

  return g_date_time_format (dt, "%Y-%m-%dT%H:%M:%SZ");
}

struct _LumoCtlTable
{
  guint      n_columns;
  GPtrArray *rows;   /* GStrv, the header first */
};

static GStrv
collect_cells (const char *first,
               va_list     ap)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  for (const char *cell = first; cell != NULL; cell = va_arg (ap, const char *))
    g_strv_builder_add (builder, cell);

  return g_strv_builder_end (builder);
}

LumoCtlTable *
lumo_ctl_table_new (const char *first_header,
                    ...)
{
  LumoCtlTable *table = g_new0 (LumoCtlTable, 1);
  va_list ap;
  GStrv header;

  va_start (ap, first_header);
  header = collect_cells (first_header, ap);
  va_end (ap);

  table->n_columns = g_strv_length (header);
  table->rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  g_ptr_array_add (table->rows, header);

  return table;
}

void
lumo_ctl_table_add (LumoCtlTable *table,
                    const char   *first_cell,
                    ...)
{
  va_list ap;
  GStrv row;

  va_start (ap, first_cell);
  row = collect_cells (first_cell, ap);
  va_end (ap);

  g_assert (g_strv_length (row) == table->n_columns);
  g_ptr_array_add (table->rows, row);
}

void
lumo_ctl_table_print (LumoCtlTable *table)
{
  g_autofree glong *widths = g_new0 (glong, table->n_columns);
  g_autoptr(GString) line = g_string_new (NULL);

  for (guint r = 0; r < table->rows->len; r++)
    {
      GStrv row = g_ptr_array_index (table->rows, r);

      for (guint c = 0; c < table->n_columns; c++)
        widths[c] = MAX (widths[c], g_utf8_strlen (row[c], -1));
    }

  for (guint r = 0; r < table->rows->len; r++)
    {
      GStrv row = g_ptr_array_index (table->rows, r);

      g_string_truncate (line, 0);
      for (guint c = 0; c < table->n_columns; c++)
        {
          g_string_append (line, row[c]);
          if (c + 1 < table->n_columns)
            for (glong pad = g_utf8_strlen (row[c], -1); pad < widths[c] + 2; pad++)
              g_string_append_c (line, ' ');
        }
      /* Trailing blanks of an empty last cell would only confuse diff. */
      while (line->len > 0 && line->str[line->len - 1] == ' ')
        g_string_truncate (line, line->len - 1);
      g_print ("%s\n", line->str);
    }
}

void
lumo_ctl_table_free (LumoCtlTable *table)
{
  g_ptr_array_unref (table->rows);
  g_free (table);
}

#define MAX_STDIN (16 * 1024 * 1024)

char *
lumo_ctl_read_stdin (GError **error)
{
  g_autoptr(GString) text = g_string_new (NULL);
  char buffer[8192];
  size_t n;

  while ((n = fread (buffer, 1, sizeof buffer, stdin)) > 0)
    {
      if (text->len + n > MAX_STDIN)
        {
          g_set_error (error, LUMO_ERROR, LUMO_ERROR_LIMIT_EXCEEDED,
                       _("The input on stdin is larger than %d MiB"), MAX_STDIN / (1024 * 1024));
          return NULL;
        }
      g_string_append_len (text, buffer, (gssize) n);
    }
  if (ferror (stdin))
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_IO, _("Cannot read stdin"));
      return NULL;
    }
  if (memchr (text->str, '\0', text->len) != NULL || !g_utf8_validate (text->str, (gssize) text->len, NULL))
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                   _("The input on stdin is not UTF-8 text"));
      return NULL;
    }

  return g_string_free (g_steal_pointer (&text), FALSE);
}

void
lumo_ctl_json_member (JsonBuilder *builder,
                      const char  *name,
                      const char  *value)
{
  json_builder_set_member_name (builder, name);
  if (value != NULL)
    json_builder_add_string_value (builder, value);
  else
    json_builder_add_null_value (builder);
}

void
lumo_ctl_print_json (JsonNode *node)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autofree char *text = NULL;

  json_generator_set_pretty (generator, TRUE);
  json_generator_set_indent (generator, 2);
  json_generator_set_root (generator, node);
  text = json_generator_to_data (generator, NULL);
  g_print ("%s\n", text);
}

static void
set_locale (void)
{
  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GStrvBuilder) builder = NULL;
  g_auto(GStrv) args = NULL;
  g_autofree char *name = NULL;
  const LumoCtlCommand *command;
  int i = 1;

  set_locale ();
  g_set_prgname (PROGRAM);

  /* Global options come before the command. */
  for (; i < argc && argv[i][0] == '-'; i++)
    {
      if (g_str_equal (argv[i], "--help") || g_str_equal (argv[i], "-h"))
        {
          print_usage (stdout);
          return LUMO_CTL_EXIT_OK;
        }
      else if (g_str_equal (argv[i], "--version"))
        {
          g_print ("%s %s\n", PROGRAM, PACKAGE_VERSION);
          return LUMO_CTL_EXIT_OK;
        }
      else if (g_str_equal (argv[i], "--data-dir") && i + 1 < argc)
        {
          lumo_paths_set_data_dir (argv[++i]);
        }
      else if (g_str_has_prefix (argv[i], "--data-dir=") && argv[i][strlen ("--data-dir=")] != '\0')
        {
          lumo_paths_set_data_dir (argv[i] + strlen ("--data-dir="));
        }
      else
        {
          g_printerr (_("%s: unknown option “%s”\n\n"), PROGRAM, argv[i]);
          print_usage (stderr);
          return LUMO_CTL_EXIT_USAGE;
        }
    }

  if (i >= argc)
    {
      g_printerr (_("%s: no command given\n\n"), PROGRAM);
      print_usage (stderr);
      return LUMO_CTL_EXIT_USAGE;
    }

  if (g_str_equal (argv[i], "help"))
    {
      print_usage (stdout);
      return LUMO_CTL_EXIT_OK;
    }

  /* "audit" and "review" take a second word. */
  if (g_str_equal (argv[i], "audit") || g_str_equal (argv[i], "review"))
    {
      if (i + 1 >= argc || argv[i + 1][0] == '-')
        {
          if (g_str_equal (argv[i], "audit"))
            g_printerr (_("%s: “audit” needs one of: search, export, verify, stats, check-params\n\n"), PROGRAM);
          else
            g_printerr (_("%s: “review” needs one of: list, approve, reject\n\n"), PROGRAM);
          print_usage (stderr);
          return LUMO_CTL_EXIT_USAGE;
        }
      name = g_strdup_printf ("%s %s", argv[i], argv[i + 1]);
      i += 2;
    }
  /* "agents" alone lists; "agents add" and "agents remove" change. */
  else if (g_str_equal (argv[i], "agents") && i + 1 < argc &&
           (g_str_equal (argv[i + 1], "add") || g_str_equal (argv[i + 1], "remove")))
    {
      name = g_strdup_printf ("%s %s", argv[i], argv[i + 1]);
      i += 2;
    }
  else
    {
      name = g_strdup (argv[i]);
      i += 1;
    }

  if (!(command = find_command (name)))
    {
      g_printerr (_("%s: unknown command “%s”\n\n"), PROGRAM, name);
      print_usage (stderr);
      return LUMO_CTL_EXIT_USAGE;
    }

  builder = g_strv_builder_new ();
  g_strv_builder_add (builder, PROGRAM);
  for (; i < argc; i++)
    g_strv_builder_add (builder, argv[i]);
  args = g_strv_builder_end (builder);

  return command->run (command, &args);
}
