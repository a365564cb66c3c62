/* lumo-ctl.h — what the subcommands of lumo-access-ctl share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * lumo-access-ctl is a thin shell over src/core: it parses the command line,
 * validates every ID before anything is opened, calls the same core API the
 * app calls (origin "cli"), and prints tables for people or JSON for
 * scripts. Only "review" and "recommended" talk to the running app, over the
 * session bus. Exit status: 0 done, 1 the work failed (database, verification,
 * not found), 2 the command line was wrong (unknown command or option, a bad
 * ID or value) — and a status of 2 means nothing was changed.
 */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "lumo-audit-query.h"
#include "lumo-policy.h"
#include "lumo-types.h"

G_BEGIN_DECLS

typedef enum
{
  LUMO_CTL_EXIT_OK    = 0,
  LUMO_CTL_EXIT_FAIL  = 1,
  LUMO_CTL_EXIT_USAGE = 2,
} LumoCtlExit;

typedef struct _LumoCtlCommand
{
  const char *name;       /* "allow", or "audit search" */
  const char *params;     /* "ID [--provider ID]" for the usage line */
  const char *summary;    /* translatable, untranslated here */
  /* @args: a NULL-terminated copy of the command line, the program name
   * first and the command word(s) removed; the command may rewrite it. */
  int       (*run)        (const struct _LumoCtlCommand *command,
                           char                       ***args);
} LumoCtlCommand;

/* Parses the options of one subcommand. Handles --help (prints the help to
 * stdout: *exit_code = 0) and --data-dir; on a bad option prints the error
 * and usage to stderr (*exit_code = 2). Returns TRUE to go on; @args then
 * holds the program name and the positional arguments. When
 * @n_positional_min/max are given (max -1 = any), a wrong count is a usage
 * error too. */
gboolean  lumo_ctl_parse          (const LumoCtlCommand  *command,
                                   const GOptionEntry    *entries,
                                   char                ***args,
                                   int                    n_positional_min,
                                   int                    n_positional_max,
                                   int                   *exit_code);
/* Prints "lumo-access-ctl: MESSAGE" to stderr; returns 2 for bad input
 * (LUMO_ERROR_INVALID_ID, _INVALID_ARGUMENT), else 1. */
int       lumo_ctl_fail           (const GError          *error);
/* A usage error: message and the command's usage line to stderr; returns 2. */
int       lumo_ctl_usage_error    (const LumoCtlCommand  *command,
                                   const char            *format,
                                   ...) G_GNUC_PRINTF (2, 3);
/* lumo_validate_extension_id() before anything is opened: prints and
 * returns FALSE for a bad ID. */
gboolean  lumo_ctl_check_id       (const char            *id,
                                   const char            *what);

/* policy.db of the data directory; NULL (the error printed, *exit_code
 * set) when it cannot be opened. */
LumoPolicy *lumo_ctl_open_policy  (int                   *exit_code);

/* Local time "2025-01-31 10:00:00", or "—" for 0. */
char     *lumo_ctl_format_time    (gint64                 time_us);
/* ISO 8601 UTC, or NULL for 0 (JSON null). */
char     *lumo_ctl_format_iso     (gint64                 time_us);

/* A plain-text table: columns padded to their widest cell. */
typedef struct _LumoCtlTable LumoCtlTable;
LumoCtlTable *lumo_ctl_table_new  (const char            *first_header,
                                   ...) G_GNUC_NULL_TERMINATED;
void      lumo_ctl_table_add      (LumoCtlTable          *table,
                                   const char            *first_cell,
                                   ...) G_GNUC_NULL_TERMINATED;
void      lumo_ctl_table_print    (LumoCtlTable          *table);
void      lumo_ctl_table_free     (LumoCtlTable          *table);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (LumoCtlTable, lumo_ctl_table_free)

/* All of stdin (at most 16 MiB, UTF-8), for commands that take "-". */
char     *lumo_ctl_read_stdin     (GError               **error);
/* Calls @method of the running app (lumo-ctl-app.c), never starting it.
 * On failure prints why (@not_running, a full sentence, when it is not
 * running) and returns NULL with *exit_code 1. */
GVariant *lumo_ctl_call_app       (const char            *method,
                                   GVariant              *parameters,
                                   const GVariantType    *reply_type,
                                   const char            *not_running,
                                   int                   *exit_code);

/* A string member, or null when @value is NULL. */
void      lumo_ctl_json_member    (JsonBuilder           *builder,
                                   const char            *name,
                                   const char            *value);
/* Pretty JSON and a newline to stdout. */
void      lumo_ctl_print_json     (JsonNode              *node);

/* lumo-ctl-audit.c, for the audit subcommands: the query of the remaining
 * words (and --since), and the store — the data directory's audit.db, or
 * with @file a collected log opened read-only (@key: its audit.key). On
 * failure they print the error and set *exit_code. */
LumoAuditQuery *lumo_ctl_audit_parse_query (char                 **words,
                                            const char            *since,
                                            int                   *exit_code);
LumoAuditStore *lumo_ctl_audit_open_store  (const char            *file,
                                            const char            *key,
                                            int                   *exit_code);
/* --key without --file is a usage error (exit 2). */
gboolean        lumo_ctl_audit_check_file_options (const LumoCtlCommand *command,
                                                   const char           *file,
                                                   const char           *key,
                                                   int                  *exit_code);
/* The --file FILE and --key KEYFILE options of the audit subcommands. */
#define LUMO_CTL_AUDIT_FILE_OPTIONS(file, key) \
  { "file", 0, 0, G_OPTION_ARG_FILENAME, &file, \
    N_("Read a collected log (an audit.db copied from another machine, or a JSON Lines export), read-only"), \
    N_("FILE") }, \
  { "key", 0, 0, G_OPTION_ARG_FILENAME, &key, \
    N_("With --file: that log’s key file (audit.key), to check its keyed MACs too"), N_("KEYFILE") }

/* Subcommands (lumo-ctl-policy.c, lumo-ctl-agents.c, lumo-ctl-grants.c, lumo-ctl-audit.c,
 * lumo-ctl-probe.c, lumo-ctl-review.c, lumo-ctl-recommended.c,
 * lumo-ctl-browsers.c). */
#define LUMO_CTL_DECLARE(fn) int fn (const LumoCtlCommand *command, char ***args)
LUMO_CTL_DECLARE (lumo_ctl_providers);
LUMO_CTL_DECLARE (lumo_ctl_watch);
LUMO_CTL_DECLARE (lumo_ctl_unwatch);
LUMO_CTL_DECLARE (lumo_ctl_callers);
LUMO_CTL_DECLARE (lumo_ctl_allow);
LUMO_CTL_DECLARE (lumo_ctl_deny);
LUMO_CTL_DECLARE (lumo_ctl_forget);
LUMO_CTL_DECLARE (lumo_ctl_set);
LUMO_CTL_DECLARE (lumo_ctl_history);
LUMO_CTL_DECLARE (lumo_ctl_undo);
LUMO_CTL_DECLARE (lumo_ctl_audit_search);
LUMO_CTL_DECLARE (lumo_ctl_audit_export);
LUMO_CTL_DECLARE (lumo_ctl_audit_verify);
LUMO_CTL_DECLARE (lumo_ctl_audit_check_params);
LUMO_CTL_DECLARE (lumo_ctl_audit_stats);
LUMO_CTL_DECLARE (lumo_ctl_probe_state);
LUMO_CTL_DECLARE (lumo_ctl_review_list);
LUMO_CTL_DECLARE (lumo_ctl_review_approve);
LUMO_CTL_DECLARE (lumo_ctl_review_reject);
LUMO_CTL_DECLARE (lumo_ctl_recommended);
LUMO_CTL_DECLARE (lumo_ctl_browsers);
LUMO_CTL_DECLARE (lumo_ctl_install_manifest);
LUMO_CTL_DECLARE (lumo_ctl_remove_manifest);
LUMO_CTL_DECLARE (lumo_ctl_agents);
LUMO_CTL_DECLARE (lumo_ctl_agents_add);
LUMO_CTL_DECLARE (lumo_ctl_agents_remove);
LUMO_CTL_DECLARE (lumo_ctl_grants);
LUMO_CTL_DECLARE (lumo_ctl_revoke_grant);

G_END_DECLS
