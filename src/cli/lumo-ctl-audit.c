/* lumo-ctl-audit.c — the audit subcommands of lumo-access-ctl
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * search, export, verify and check-params over LumoAuditStore (stats is in
 * lumo-ctl-audit-stats.c). Queries and JSON are parsed before audit.db is
 * opened, so a bad argument is exit status 2 and touches nothing. With
 * --file they work on a collected log opened read-only instead; a file
 * that cannot be used (damaged, not an audit log, a bad key file) is exit
 * status 1. None of these commands prints tool arguments: check-params
 * prints only hashes of what it was given.
 */
#define G_LOG_DOMAIN "lumo-access-ctl"

#include "config.h"

#include <string.h>
#include <unistd.h>
#include <gio/gunixoutputstream.h>
#include <glib/gi18n-lib.h>

#include "lumo-audit-store.h"
#include "lumo-canonical-json.h"
#include "lumo-ctl.h"
#include "lumo-error.h"
#include "lumo-json.h"

#define DEFAULT_LIMIT 100
#define MAX_LIMIT     10000

LumoAuditStore *
lumo_ctl_audit_open_store (const char *file,
                           const char *key,
                           int        *exit_code)
{
  g_autoptr(GError) error = NULL;
  LumoAuditStore *store;

  if (file != NULL)
    {
      /* Whatever is wrong with the file, the command line was right. */
      if (!(store = lumo_audit_store_open_file (file, key, &error)))
        {
          lumo_ctl_fail (error);
          *exit_code = LUMO_CTL_EXIT_FAIL;
        }
      return store;
    }

  if (!(store = lumo_audit_store_new (NULL, &error)))
    *exit_code = lumo_ctl_fail (error);

  return store;
}

gboolean
lumo_ctl_audit_check_file_options (const LumoCtlCommand *command,
                                   const char           *file,
                                   const char           *key,
                                   int                  *exit_code)
{
  /* --key means nothing without --file. */
  if (key != NULL && file == NULL)
    {
      *exit_code = lumo_ctl_usage_error (command, _("--key needs --file: it is the key of a collected log"));
      return FALSE;
    }

  return TRUE;
}

/* The shell already split the words; a word that still holds blanks was
 * quoted on purpose, so quote it again for the query language. */
static void
append_term (GString    *text,
             const char *word)
{
  const char *colon = strchr (word, ':');

  if (text->len > 0)
    g_string_append_c (text, ' ');

  if (strpbrk (word, " \t") == NULL || strchr (word, '"') != NULL)
    g_string_append (text, word);
  else if (colon != NULL && strpbrk (word, " \t") > colon)
    g_string_append_printf (text, "%.*s\"%s\"", (int) (colon - word + 1), word, colon + 1);
  else
    g_string_append_printf (text, "\"%s\"", word);
}

LumoAuditQuery *
lumo_ctl_audit_parse_query (char       **words,
                            const char  *since,
                            int         *exit_code)
{
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  LumoAuditQuery *query;

  for (guint i = 0; words != NULL && words[i] != NULL; i++)
    append_term (text, words[i]);
  if (since != NULL)
    {
      g_autofree char *term = g_strconcat ("since:", since, NULL);

      append_term (text, term);
    }

  if (!(query = lumo_audit_query_parse (text->str, 0, &error)))
    *exit_code = lumo_ctl_fail (error);

  return query;
}

static JsonNode *
row_to_json (LumoAuditRow *row)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autofree char *time = lumo_ctl_format_iso (lumo_audit_row_get_time_us (row));
  g_autofree char *result_time = lumo_ctl_format_iso (lumo_audit_row_get_result_time_us (row));

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "id");
  json_builder_add_int_value (b, lumo_audit_row_get_id (row));
  lumo_ctl_json_member (b, "time", time);
  lumo_ctl_json_member (b, "provider", lumo_audit_row_get_provider_id (row));
  lumo_ctl_json_member (b, "caller", lumo_audit_row_get_caller_id (row));
  lumo_ctl_json_member (b, "callerName", lumo_audit_row_get_caller_name (row));
  lumo_ctl_json_member (b, "tool", lumo_audit_row_get_tool (row));
  json_builder_set_member_name (b, "write");
  json_builder_add_boolean_value (b, lumo_audit_row_get_write (row));
  lumo_ctl_json_member (b, "target", lumo_audit_row_get_target (row));
  lumo_ctl_json_member (b, "paramsHmac", lumo_audit_row_get_params_hmac (row));
  lumo_ctl_json_member (b, "decision", lumo_audit_decision_to_string (lumo_audit_row_get_decision (row)));
  lumo_ctl_json_member (b, "reason", lumo_audit_row_get_reason (row));
  lumo_ctl_json_member (b, "result", lumo_audit_result_to_string (lumo_audit_row_get_result (row)));
  lumo_ctl_json_member (b, "resultText", lumo_audit_row_get_result_text (row));
  lumo_ctl_json_member (b, "resultTime", result_time);
  lumo_ctl_json_member (b, "hash", lumo_audit_row_get_hash (row));
  lumo_ctl_json_member (b, "callerKind", lumo_audit_caller_kind_to_string (lumo_audit_row_get_caller_kind (row)));
  lumo_ctl_json_member (b, "resultMac", lumo_audit_row_get_result_mac (row));
  json_builder_set_member_name (b, "byGrant");
  json_builder_add_boolean_value (b, lumo_audit_row_get_by_grant (row));
  json_builder_end_object (b);

  return json_builder_get_root (b);
}

static void
print_rows (GPtrArray *rows,
            gboolean   json)
{
  if (json)
    {
      g_autoptr(JsonArray) array = json_array_new ();
      g_autoptr(JsonNode) root = json_node_new (JSON_NODE_ARRAY);

      for (guint i = 0; i < rows->len; i++)
        json_array_add_element (array, row_to_json (g_ptr_array_index (rows, i)));
      json_node_set_array (root, array);
      lumo_ctl_print_json (root);
    }
  else if (rows->len == 0)
    {
      g_print ("%s\n", _("No matching audit rows."));
    }
  else
    {
      g_autoptr(LumoCtlTable) table =
        lumo_ctl_table_new ("#", _("TIME"), _("CALLER"), _("TOOL"), _("WRITE"),
                            _("DECISION"), _("REASON"), _("RESULT"), NULL);

      for (guint i = 0; i < rows->len; i++)
        {
          LumoAuditRow *row = g_ptr_array_index (rows, i);
          g_autofree char *id = g_strdup_printf ("%" G_GINT64_FORMAT, lumo_audit_row_get_id (row));
          g_autofree char *time = lumo_ctl_format_time (lumo_audit_row_get_time_us (row));
          const char *name = lumo_audit_row_get_caller_name (row);
          const char *reason = lumo_audit_row_get_reason (row);
          const char *result = lumo_audit_result_to_string (lumo_audit_row_get_result (row));

          /* An allowed write has no reason code; one a review grant let
           * through, with nobody asked, says so there (the table stays as
           * wide as it was). */
          if (lumo_audit_row_get_by_grant (row))
            /* Translators: in the REASON column of `audit search`: a write
             * allowed by a review grant, not by a person's approval. */
            reason = _("by grant");

          lumo_ctl_table_add (table, id, time,
                              name != NULL && *name != '\0' ? name : lumo_audit_row_get_caller_id (row),
                              lumo_audit_row_get_tool (row),
                              lumo_audit_row_get_write (row) ? _("yes") : _("no"),
                              lumo_audit_decision_to_string (lumo_audit_row_get_decision (row)),
                              reason != NULL && *reason != '\0' ? reason : "—",
                              result != NULL ? result : "—",
                              NULL);
        }
      lumo_ctl_table_print (table);
    }
}

int
lumo_ctl_audit_search (const LumoCtlCommand   *command,
                       char                 ***args)
{
  g_autoptr(LumoAuditQuery) query = NULL;
  g_autoptr(LumoAuditStore) store = NULL;
  g_autoptr(GPtrArray) rows = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *file = NULL;
  g_autofree char *key = NULL;
  gboolean json = FALSE;
  int limit = DEFAULT_LIMIT;
  int exit_code = 0;
  const GOptionEntry entries[] = {
    { "limit", 'n', 0, G_OPTION_ARG_INT, &limit, N_("Show at most N rows (default 100)"), N_("N") },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print JSON"), NULL },
    LUMO_CTL_AUDIT_FILE_OPTIONS (file, key),
    G_OPTION_ENTRY_NULL
  };

  if (!lumo_ctl_parse (command, entries, args, 0, -1, &exit_code) ||
      !lumo_ctl_audit_check_file_options (command, file, key, &exit_code))
    return exit_code;
  if (limit < 1 || limit > MAX_LIMIT)
    return lumo_ctl_usage_error (command, _("--limit must be between 1 and %d, not %d"), MAX_LIMIT, limit);
  if (!(query = lumo_ctl_audit_parse_query (*args + 1, NULL, &exit_code)) ||
      !(store = lumo_ctl_audit_open_store (file, key, &exit_code)))
    return exit_code;

  if (!(rows = lumo_audit_store_fetch_page (store, query, 0, (guint) limit, NULL, &error)))
    return lumo_ctl_fail (error);

  if (!json && lumo_audit_query_uses_scan (query))
    g_printerr ("%s\n", _("Note: terms shorter than three characters scan every row."));
  print_rows (rows, json);

  return LUMO_CTL_EXIT_OK;
}

static void
on_export_progress_cb (gint64   done,
                       gint64   total,
                       gpointer user_data)
{
  *(gint64 *) user_data = done;
}

int
lumo_ctl_audit_export (const LumoCtlCommand   *command,
                       char                 ***args)
{
  g_autoptr(LumoAuditQuery) query = NULL;
  g_autoptr(LumoAuditStore) store = NULL;
  g_autoptr(GOutputStream) out = NULL;
  g_autoptr(GFile) out_file = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *format_opt = NULL;
  g_autofree char *since = NULL;
  g_autofree char *output = NULL;
  g_autofree char *file = NULL;
  g_autofree char *key = NULL;
  LumoAuditExportFormat format;
  gint64 done = 0;
  int exit_code = 0;
  const GOptionEntry entries[] = {
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format_opt, N_("csv or jsonl (required)"), N_("FORMAT") },
    { "since", 0, 0, G_OPTION_ARG_STRING, &since,
      N_("Only rows since T (2025-01-31, 2025-01-31T10:00, or 7d, 12h, …)"), N_("T") },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      N_("Write to FILE (mode 0600, replaced only when complete) instead of stdout"), N_("FILE") },
    LUMO_CTL_AUDIT_FILE_OPTIONS (file, key),
    G_OPTION_ENTRY_NULL
  };

  if (!lumo_ctl_parse (command, entries, args, 0, -1, &exit_code) ||
      !lumo_ctl_audit_check_file_options (command, file, key, &exit_code))
    return exit_code;

  if (format_opt == NULL)
    return lumo_ctl_usage_error (command, _("--format is required: csv or jsonl"));
  if (g_str_equal (format_opt, "csv"))
    format = LUMO_AUDIT_EXPORT_CSV;
  else if (g_str_equal (format_opt, "jsonl"))
    format = LUMO_AUDIT_EXPORT_JSONL;
  else
    return lumo_ctl_usage_error (command, _("“%s” is not an export format: use csv or jsonl"), format_opt);

  if (!(query = lumo_ctl_audit_parse_query (*args + 1, since, &exit_code)) ||
      !(store = lumo_ctl_audit_open_store (file, key, &exit_code)))
    return exit_code;

  if (output != NULL)
    {
      out_file = g_file_new_for_commandline_arg (output);
      /* An export holds who did what: private, and never a half file in
       * place of a good one. */
      out = G_OUTPUT_STREAM (g_file_replace (out_file, NULL, FALSE,
                                             G_FILE_CREATE_PRIVATE | G_FILE_CREATE_REPLACE_DESTINATION,
                                             NULL, &error));
      if (out == NULL)
        return lumo_ctl_fail (error);
    }
  else
    {
      out = g_unix_output_stream_new (STDOUT_FILENO, FALSE);
    }

  if (!lumo_audit_store_export (store, query, format, out, NULL,
                                on_export_progress_cb, &done, &error))
    {
      g_autoptr(GCancellable) abandon = g_cancellable_new ();

      /* Closing a replace stream with a cancelled cancellable keeps the
       * old file. */
      g_cancellable_cancel (abandon);
      g_output_stream_close (out, abandon, NULL);
      return lumo_ctl_fail (error);
    }

  if (!g_output_stream_close (out, NULL, &error))
    return lumo_ctl_fail (error);

  if (output != NULL)
    g_printerr (_("Exported the audit rows to %s.\n"), output);

  return LUMO_CTL_EXIT_OK;
}

static JsonNode *
report_to_json (const LumoAuditVerifyReport *report,
                gboolean                     ok,
                const GError                *error)
{
  static const char *faults[] = {
    "none", "row_changed", "row_missing", "result_changed", "tail_cut", "checkpoint", "anchor",
  };
  g_autoptr(JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "ok");
  json_builder_add_boolean_value (b, ok);
  lumo_ctl_json_member (b, "fault", (guint) report->fault < G_N_ELEMENTS (faults)
                                      ? faults[report->fault] : "unknown");
  lumo_ctl_json_member (b, "message", error != NULL ? error->message : NULL);
#define INT_MEMBER(name, value) \
  json_builder_set_member_name (b, name); json_builder_add_int_value (b, value)
  INT_MEMBER ("badId", report->bad_id);
  INT_MEMBER ("rowsChecked", report->rows_checked);
  INT_MEMBER ("firstId", report->first_id);
  INT_MEMBER ("lastId", report->last_id);
  INT_MEMBER ("anchorId", report->anchor_id);
  INT_MEMBER ("checkpointId", report->checkpoint_id);
  INT_MEMBER ("rowsAfterCheckpoint", report->rows_after_checkpoint);
#undef INT_MEMBER
  json_builder_set_member_name (b, "keyed");
  json_builder_add_boolean_value (b, report->keyed);
  json_builder_end_object (b);

  return json_builder_get_root (b);
}

int
lumo_ctl_audit_verify (const LumoCtlCommand   *command,
                       char                 ***args)
{
  g_autoptr(LumoAuditStore) store = NULL;
  g_autoptr(GError) error = NULL;
  LumoAuditVerifyReport report = { 0 };
  g_autofree char *file = NULL;
  g_autofree char *key = NULL;
  gboolean json = FALSE;
  gboolean ok;
  int exit_code = 0;
  const GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print the report as JSON"), NULL },
    LUMO_CTL_AUDIT_FILE_OPTIONS (file, key),
    G_OPTION_ENTRY_NULL
  };

  if (!lumo_ctl_parse (command, entries, args, 0, 0, &exit_code) ||
      !lumo_ctl_audit_check_file_options (command, file, key, &exit_code) ||
      !(store = lumo_ctl_audit_open_store (file, key, &exit_code)))
    return exit_code;

  ok = lumo_audit_store_verify (store, NULL, NULL, NULL, &report, &error);

  if (json)
    {
      g_autoptr(JsonNode) root = report_to_json (&report, ok, error);

      lumo_ctl_print_json (root);
    }

  if (!ok)
    {
      lumo_ctl_fail (error);
      return LUMO_CTL_EXIT_FAIL;
    }

  if (!json)
    {
      g_autofree char *rows = g_strdup_printf ("%" G_GINT64_FORMAT, report.rows_checked);
      g_autofree char *first = g_strdup_printf ("#%" G_GINT64_FORMAT, report.first_id);
      g_autofree char *last = g_strdup_printf ("#%" G_GINT64_FORMAT, report.last_id);

      if (report.rows_checked == 0)
        g_print ("%s\n", _("The audit log is empty and intact."));
      else
        g_print (_("The audit log is intact: %s rows checked (%s–%s).\n"), rows, first, last);
      if (report.anchor_id != 0)
        {
          g_autofree char *anchor = g_strdup_printf ("#%" G_GINT64_FORMAT, report.anchor_id);

          g_print (_("Rows up to %s were removed by retention; the anchor verifies.\n"), anchor);
        }
      if (report.rows_after_checkpoint > 0)
        {
          g_autofree char *n = g_strdup_printf ("%" G_GINT64_FORMAT, report.rows_after_checkpoint);

          g_print (_("%s rows are newer than the checkpoint (normal after a crash).\n"), n);
        }
      if (file != NULL && !report.keyed)
        g_print ("%s\n", _("Only the hash chain was checked: give the log’s key file with --key to "
                           "check the results and the retention anchor too."));
      if (file != NULL)
        g_print ("%s\n", _("A collected log has no head checkpoint here, so rows cut off its end "
                           "cannot be detected."));
    }

  return LUMO_CTL_EXIT_OK;
}

int
lumo_ctl_audit_check_params (const LumoCtlCommand   *command,
                             char                 ***args)
{
  g_autoptr(LumoAuditQuery) query = NULL;
  g_autoptr(LumoAuditStore) store = NULL;
  g_autoptr(JsonNode) params = NULL;
  g_autoptr(GPtrArray) rows = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *input = NULL;
  g_autofree char *sha256 = NULL;
  g_autofree char *keyed = NULL;
  g_autofree char *filter = NULL;
  const char *text;
  gboolean json = FALSE;
  int exit_code = 0;
  const GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print JSON"), NULL },
    G_OPTION_ENTRY_NULL
  };

  if (!lumo_ctl_parse (command, entries, args, 1, 1, &exit_code))
    return exit_code;

  text = (*args)[1];
  if (g_str_equal (text, "-"))
    {
      if (!(input = lumo_ctl_read_stdin (&error)))
        return lumo_ctl_fail (error);
      text = input;
    }

  /* The bridge's parser, not json-glib's lenient one: what it would refuse
   * (duplicate names, comments, 2^64…) has no canonical form to look up. */
  if (!(params = lumo_json_parse (text, strlen (text), LUMO_JSON_DEFAULT_MAX_DEPTH, &error)))
    return lumo_ctl_usage_error (command, _("The parameters are not JSON: %s"), error->message);
  if (!(sha256 = lumo_canonical_json_sha256 (params, &error)))
    return lumo_ctl_fail (error);

  if (!(store = lumo_ctl_audit_open_store (NULL, NULL, &exit_code)))
    return exit_code;
  if (!(keyed = lumo_audit_store_key_params_hash (store, sha256, &error)))
    return lumo_ctl_fail (error);

  filter = g_strconcat ("params:", keyed, NULL);
  if (!(query = lumo_audit_query_parse (filter, 0, &error)) ||
      !(rows = lumo_audit_store_fetch_page (store, query, 0, MAX_LIMIT, NULL, &error)))
    return lumo_ctl_fail (error);

  if (json)
    {
      g_autoptr(JsonBuilder) b = json_builder_new ();
      g_autoptr(JsonNode) root = NULL;

      json_builder_begin_object (b);
      lumo_ctl_json_member (b, "sha256", sha256);
      lumo_ctl_json_member (b, "paramsHmac", keyed);
      json_builder_set_member_name (b, "rows");
      json_builder_begin_array (b);
      for (guint i = 0; i < rows->len; i++)
        json_builder_add_value (b, row_to_json (g_ptr_array_index (rows, i)));
      json_builder_end_array (b);
      json_builder_end_object (b);
      root = json_builder_get_root (b);
      lumo_ctl_print_json (root);
      return LUMO_CTL_EXIT_OK;
    }

  g_print (_("SHA-256 of the canonical JSON: %s\n"), sha256);
  g_print (_("Keyed hash, as stored:         %s\n"), keyed);
  if (rows->len == 0)
    g_print ("%s\n", _("No audit row has exactly these parameters."));
  else
    print_rows (rows, FALSE);

  return LUMO_CTL_EXIT_OK;
}
