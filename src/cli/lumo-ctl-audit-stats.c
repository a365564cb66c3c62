/* lumo-ctl-audit-stats.c — lumo-access-ctl audit stats
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The writes allowed, denied and failed of the rows a query matches, in
 * all or per caller, tool or day: lumo_audit_store_stats(), the numbers
 * the Audit page shows above its list.
 */
#define G_LOG_DOMAIN "lumo-access-ctl"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "lumo-audit-store.h"
#include "lumo-ctl.h"

static void
add_counts (JsonBuilder          *b,
            const LumoAuditStats *s)
{
  json_builder_set_member_name (b, "total");
  json_builder_add_int_value (b, s->total);
  json_builder_set_member_name (b, "allowed");
  json_builder_add_int_value (b, s->allowed);
  json_builder_set_member_name (b, "denied");
  json_builder_add_int_value (b, s->denied);
  json_builder_set_member_name (b, "failed");
  json_builder_add_int_value (b, s->failed);
}

static void
print_json (GPtrArray            *stats,
            const char           *by,
            const LumoAuditStats *total)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;

  json_builder_begin_object (b);
  lumo_ctl_json_member (b, "by", by);
  json_builder_set_member_name (b, "groups");
  json_builder_begin_array (b);
  for (guint i = 0; by != NULL && i < stats->len; i++)
    {
      LumoAuditStats *s = g_ptr_array_index (stats, i);

      json_builder_begin_object (b);
      lumo_ctl_json_member (b, "key", s->key);
      if (s->name != NULL)
        lumo_ctl_json_member (b, "name", s->name);
      add_counts (b, s);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_set_member_name (b, "all");
  json_builder_begin_object (b);
  add_counts (b, total);
  json_builder_end_object (b);
  json_builder_end_object (b);

  root = json_builder_get_root (b);
  lumo_ctl_print_json (root);
}

static char *
num (gint64 n)
{
  return g_strdup_printf ("%" G_GINT64_FORMAT, n);
}

static void
print_table (GPtrArray            *stats,
             LumoAuditGroup        group,
             const LumoAuditStats *total)
{
  g_autofree char *all = num (total->total);
  g_autofree char *allowed = num (total->allowed);
  g_autofree char *denied = num (total->denied);
  g_autofree char *failed = num (total->failed);

  if (group != LUMO_AUDIT_GROUP_NONE && stats->len > 0)
    {
      g_autoptr(LumoCtlTable) table = NULL;

      if (group == LUMO_AUDIT_GROUP_CALLER)
        table = lumo_ctl_table_new (_("CALLER"), _("NAME"), _("ALLOWED"), _("DENIED"), _("FAILED"),
                                    _("TOTAL"), NULL);
      else
        table = lumo_ctl_table_new (group == LUMO_AUDIT_GROUP_TOOL ? _("TOOL") : _("DAY"),
                                    _("ALLOWED"), _("DENIED"), _("FAILED"), _("TOTAL"), NULL);

      for (guint i = 0; i < stats->len; i++)
        {
          LumoAuditStats *s = g_ptr_array_index (stats, i);
          g_autofree char *a = num (s->allowed);
          g_autofree char *d = num (s->denied);
          g_autofree char *f = num (s->failed);
          g_autofree char *t = num (s->total);

          if (group == LUMO_AUDIT_GROUP_CALLER)
            lumo_ctl_table_add (table, s->key, s->name != NULL && *s->name != '\0' ? s->name : "—",
                                a, d, f, t, NULL);
          else
            lumo_ctl_table_add (table, s->key, a, d, f, t, NULL);
        }
      lumo_ctl_table_print (table);
      g_print ("\n");
    }

  /* TRANSLATORS: the numbers of writes: allowed, denied, failed (of the
   * allowed ones), and all of them. */
  g_print (_("Writes: %s allowed (%s of them failed), %s denied; %s in all.\n"),
           allowed, failed, denied, all);
}

int
lumo_ctl_audit_stats (const LumoCtlCommand   *command,
                      char                 ***args)
{
  g_autoptr(LumoAuditQuery) query = NULL;
  g_autoptr(LumoAuditStore) store = NULL;
  g_autoptr(GPtrArray) stats = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *since = NULL;
  g_autofree char *by = NULL;
  g_autofree char *file = NULL;
  g_autofree char *key = NULL;
  LumoAuditStats total = { 0, };
  LumoAuditGroup group = LUMO_AUDIT_GROUP_NONE;
  gboolean json = FALSE;
  int exit_code = 0;
  const GOptionEntry entries[] = {
    { "since", 0, 0, G_OPTION_ARG_STRING, &since,
      N_("Only rows since T (2025-01-31, 2025-01-31T10:00, or 7d, 12h, …)"), N_("T") },
    { "by", 0, 0, G_OPTION_ARG_STRING, &by, N_("Per caller, tool or day"), N_("GROUP") },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print JSON"), NULL },
    LUMO_CTL_AUDIT_FILE_OPTIONS (file, key),
    G_OPTION_ENTRY_NULL
  };

  if (!lumo_ctl_parse (command, entries, args, 0, -1, &exit_code) ||
      !lumo_ctl_audit_check_file_options (command, file, key, &exit_code))
    return exit_code;

  if (by == NULL)
    group = LUMO_AUDIT_GROUP_NONE;
  else if (g_str_equal (by, "caller"))
    group = LUMO_AUDIT_GROUP_CALLER;
  else if (g_str_equal (by, "tool"))
    group = LUMO_AUDIT_GROUP_TOOL;
  else if (g_str_equal (by, "day"))
    group = LUMO_AUDIT_GROUP_DAY;
  else
    return lumo_ctl_usage_error (command, _("--by takes caller, tool or day, not “%s”"), by);

  if (!(query = lumo_ctl_audit_parse_query (*args + 1, since, &exit_code)) ||
      !(store = lumo_ctl_audit_open_store (file, key, &exit_code)))
    return exit_code;

  if (!(stats = lumo_audit_store_stats (store, query, group, NULL, &error)))
    return lumo_ctl_fail (error);

  for (guint i = 0; i < stats->len; i++)
    {
      LumoAuditStats *s = g_ptr_array_index (stats, i);

      total.total += s->total;
      total.allowed += s->allowed;
      total.denied += s->denied;
      total.failed += s->failed;
    }

  if (json)
    print_json (stats, by, &total);
  else
    print_table (stats, group, &total);

  return LUMO_CTL_EXIT_OK;
}
