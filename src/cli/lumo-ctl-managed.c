/* lumo-ctl-managed.c — `lumo-access-ctl policy`: the organization's
 * managed policy, and with --effective every value in force and where it
 * comes from
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Read through the same core the app uses (LumoPolicy lays the managed
 * policy over policy.db; LumoManagedPolicy says which file binds what), so
 * the CLI and the window cannot disagree. The settings the app keeps in
 * GSettings (review timeout, audit retention, audit journal) are read from
 * its schema when it is installed, else as the app would do without one.
 * A problem in a file is printed on stderr with its file, line and field,
 * and makes the exit status 1: what is shown is then its strictest reading.
 */
#define G_LOG_DOMAIN "lumo-access-ctl"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "lumo-ctl.h"
#include "lumo-error.h"
#include "lumo-managed-policy.h"
#include "lumo-policy.h"
#include "lumo-review-queue.h"

/* What the person set in the app, or @fallback (what the app uses without
 * its schema) when the schema or the key is not there. */
static GVariant *
app_setting (const char *key)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr(GSettingsSchema) schema = NULL;
  g_autoptr(GSettings) settings = NULL;

  if (source == NULL ||
      !(schema = g_settings_schema_source_lookup (source, APP_ID, TRUE)) ||
      !g_settings_schema_has_key (schema, key))
    return NULL;

  settings = g_settings_new_full (schema, NULL, NULL);
  return g_settings_get_value (settings, key);
}

static guint
app_uint (const char *key,
          guint       fallback)
{
  g_autoptr(GVariant) value = app_setting (key);

  return value != NULL && g_variant_is_of_type (value, G_VARIANT_TYPE_UINT32)
         ? g_variant_get_uint32 (value) : fallback;
}

static gboolean
app_boolean (const char *key)
{
  g_autoptr(GVariant) value = app_setting (key);

  return value != NULL && g_variant_is_of_type (value, G_VARIANT_TYPE_BOOLEAN) && g_variant_get_boolean (value);
}

/* "FILE:LINE", "FILE" for the file as a whole; else "you" for what a
 * person sets, "—" for what only a file can set. */
static char *
source_text (const LumoManagedSource *source,
             gboolean                 person_sets_it)
{
  if (source->file == NULL)
    return g_strdup (person_sets_it ? _("you") : "—");
  if (source->line == 0)
    return g_strdup (source->file);

  return g_strdup_printf ("%s:%u", source->file, source->line);
}

/* "source": "managed" (with the file), "user" (the person's value is in
 * force) or "none" (only a file can set it, and none does). */
static void
add_source_members (JsonBuilder             *b,
                    const LumoManagedSource *source,
                    gboolean                 person_sets_it)
{
  json_builder_set_member_name (b, "source");
  json_builder_add_string_value (b, source->file != NULL ? "managed" : person_sets_it ? "user" : "none");
  lumo_ctl_json_member (b, "file", source->file);
  json_builder_set_member_name (b, "line");
  if (source->file != NULL && source->line > 0)
    json_builder_add_int_value (b, source->line);
  else
    json_builder_add_null_value (b);
}

static void
add_boolean_value (JsonBuilder             *b,
                   const char              *name,
                   gboolean                 value,
                   const gboolean          *user,
                   const LumoManagedSource *source)
{
  json_builder_set_member_name (b, name);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "value");
  json_builder_add_boolean_value (b, value);
  if (user != NULL)
    {
      json_builder_set_member_name (b, "user");
      json_builder_add_boolean_value (b, *user);
    }
  add_source_members (b, source, user != NULL);
  json_builder_end_object (b);
}

static void
add_uint_value (JsonBuilder             *b,
                const char              *name,
                guint                    value,
                guint                    user,
                const LumoManagedSource *source)
{
  json_builder_set_member_name (b, name);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "value");
  json_builder_add_int_value (b, value);
  json_builder_set_member_name (b, "user");
  json_builder_add_int_value (b, user);
  add_source_members (b, source, TRUE);
  json_builder_end_object (b);
}

static const char *
on_off (gboolean on)
{
  return on ? _("on") : _("off");
}

/* ---- the problems -------------------------------------------------------------- */

/* On stderr, one a line; returns how many. */
static guint
print_problems (LumoManagedPolicy *managed)
{
  GPtrArray *problems = lumo_managed_policy_get_problems (managed);

  for (guint i = 0; i < problems->len; i++)
    {
      g_autofree char *text = lumo_managed_problem_to_string (g_ptr_array_index (problems, i));

      g_printerr ("lumo-access-ctl: %s\n", text);
    }

  return problems->len;
}

/* ---- per provider ---------------------------------------------------------------- */

/* In the order of LumoProviderInfo's user_enabled, user_writes, user_review. */
static const LumoPolicySwitch switches[] = {
  LUMO_POLICY_SWITCH_ENABLED, LUMO_POLICY_SWITCH_WRITES, LUMO_POLICY_SWITCH_REVIEW,
};

static void
provider_to_json (JsonBuilder            *b,
                  LumoPolicy             *policy,
                  const LumoProviderInfo *p,
                  GPtrArray              *callers)
{
  LumoManagedPolicy *managed = lumo_policy_get_managed (policy);
  const gboolean user[] = { p->user_enabled, p->user_writes, p->user_review };
  LumoManagedSource source;
  gboolean value;

  json_builder_begin_object (b);
  lumo_ctl_json_member (b, "id", p->id);
  lumo_ctl_json_member (b, "name", p->display_name);
  for (guint i = 0; i < G_N_ELEMENTS (switches); i++)
    {
      value = lumo_managed_policy_apply_switch (managed, p->id, switches[i], user[i], &source);
      add_boolean_value (b, lumo_policy_switch_to_string (switches[i]), value, &user[i], &source);
    }
  value = lumo_managed_policy_get_only_listed (managed, p->id, &source);
  add_boolean_value (b, "onlyListedCallers", value, NULL, &source);
  value = !lumo_managed_policy_get_agents_forbidden (managed, p->id, &source);
  add_boolean_value (b, "desktopAgents", value, NULL, &source);

  json_builder_set_member_name (b, "callers");
  json_builder_begin_array (b);
  for (guint i = 0; i < callers->len; i++)
    {
      const LumoCallerInfo *c = g_ptr_array_index (callers, i);
      LumoCallerState state;

      if (!g_str_equal (c->provider_id, p->id))
        continue;
      state = lumo_managed_policy_apply_caller (managed, p->id, c->id, c->kind, c->user_state, &source);
      json_builder_begin_object (b);
      lumo_ctl_json_member (b, "id", c->id);
      lumo_ctl_json_member (b, "name", c->display_name);
      lumo_ctl_json_member (b, "kind", lumo_caller_kind_to_string (c->kind));
      lumo_ctl_json_member (b, "state", lumo_caller_state_to_string (state));
      lumo_ctl_json_member (b, "user", lumo_caller_state_to_string (c->user_state));
      add_source_members (b, &source, TRUE);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
}

static void
print_provider (LumoPolicy             *policy,
                const LumoProviderInfo *p,
                GPtrArray              *callers)
{
  LumoManagedPolicy *managed = lumo_policy_get_managed (policy);
  const gboolean user[] = { p->user_enabled, p->user_writes, p->user_review };
  g_autoptr(LumoCtlTable) settings = NULL;
  g_autoptr(LumoCtlTable) rows = NULL;
  LumoManagedSource source;
  gboolean value;

  if (p->display_name != NULL)
    g_print ("%s (%s)\n", p->display_name, p->id);
  else
    g_print ("%s\n", p->id);

  settings = lumo_ctl_table_new (_("SETTING"), _("IN FORCE"), _("YOURS"), _("SET BY"), NULL);
  for (guint i = 0; i < G_N_ELEMENTS (switches); i++)
    {
      g_autofree char *by = NULL;

      value = lumo_managed_policy_apply_switch (managed, p->id, switches[i], user[i], &source);
      by = source_text (&source, TRUE);
      lumo_ctl_table_add (settings, lumo_policy_switch_to_string (switches[i]), on_off (value),
                          on_off (user[i]), by, NULL);
    }
  {
    g_autofree char *by = NULL;

    value = lumo_managed_policy_get_only_listed (managed, p->id, &source);
    by = source_text (&source, FALSE);
    lumo_ctl_table_add (settings, _("only listed callers"), on_off (value), "—", by, NULL);
  }
  {
    g_autofree char *by = NULL;

    value = lumo_managed_policy_get_agents_forbidden (managed, p->id, &source);
    by = source_text (&source, FALSE);
    lumo_ctl_table_add (settings, _("desktop agents"), value ? _("forbidden") : _("allowed"), "—", by, NULL);
  }
  lumo_ctl_table_print (settings);

  rows = lumo_ctl_table_new (_("CALLER"), _("KIND"), _("IN FORCE"), _("YOURS"), _("SET BY"), NULL);
  for (guint i = 0; i < callers->len; i++)
    {
      const LumoCallerInfo *c = g_ptr_array_index (callers, i);
      g_autofree char *by = NULL;
      LumoCallerState state;

      if (!g_str_equal (c->provider_id, p->id))
        continue;
      state = lumo_managed_policy_apply_caller (managed, p->id, c->id, c->kind, c->user_state, &source);
      by = source_text (&source, TRUE);
      lumo_ctl_table_add (rows, c->id, lumo_caller_kind_to_string (c->kind), lumo_caller_state_to_string (state),
                          lumo_caller_state_to_string (c->user_state), by, NULL);
    }
  g_print ("\n");
  lumo_ctl_table_print (rows);
  g_print ("\n");
}

/* ---- the command ------------------------------------------------------------------- */

typedef struct
{
  guint    timeout, user_timeout;
  guint    retention, user_retention;
  gboolean journal, user_journal;
  gboolean agents;
  LumoManagedSource timeout_source, retention_source, journal_source, agents_source;
} Globals;

static void
read_globals (LumoManagedPolicy *managed,
              Globals           *g)
{
  /* As the app reads them (lumo-application.c), with its fallbacks. */
  g->user_timeout = app_uint ("review-timeout-seconds", LUMO_REVIEW_DEFAULT_TIMEOUT_S);
  g->user_retention = app_uint ("audit-retention-days", 0);
  g->user_journal = app_boolean ("audit-journal");

  g->timeout = lumo_managed_policy_apply_review_timeout (managed, g->user_timeout, &g->timeout_source);
  g->retention = lumo_managed_policy_apply_retention (managed, g->user_retention, &g->retention_source);
  g->journal = lumo_managed_policy_apply_audit_journal (managed, g->user_journal, &g->journal_source);
  g->agents = !lumo_managed_policy_get_agents_forbidden (managed, NULL, &g->agents_source);
}

static char *
days_text (guint days)
{
  if (days == LUMO_MANAGED_RETENTION_FOREVER)
    return g_strdup (_("forever"));

  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u day", "%u days", days), days);
}

static void
print_globals (const Globals *g)
{
  g_autoptr(LumoCtlTable) table = lumo_ctl_table_new (_("SETTING"), _("IN FORCE"), _("YOURS"), _("SET BY"), NULL);
  g_autofree char *retention = days_text (g->retention);
  g_autofree char *user_retention = days_text (g->user_retention);
  g_autofree char *timeout = g_strdup_printf ("%u s", g->timeout);
  g_autofree char *user_timeout = g_strdup_printf ("%u s", g->user_timeout);
  g_autofree char *by_retention = source_text (&g->retention_source, TRUE);
  g_autofree char *by_timeout = source_text (&g->timeout_source, TRUE);
  g_autofree char *by_journal = source_text (&g->journal_source, TRUE);
  g_autofree char *by_agents = source_text (&g->agents_source, FALSE);

  g_print ("%s\n", _("All providers"));
  lumo_ctl_table_add (table, _("audit retention"), retention, user_retention, by_retention, NULL);
  lumo_ctl_table_add (table, _("review timeout"), timeout, user_timeout, by_timeout, NULL);
  lumo_ctl_table_add (table, _("audit journal"), on_off (g->journal), on_off (g->user_journal), by_journal, NULL);
  lumo_ctl_table_add (table, _("desktop agents"), g->agents ? _("allowed") : _("forbidden"), "—", by_agents, NULL);
  lumo_ctl_table_print (table);
}

static JsonNode *
effective_to_json (LumoPolicy    *policy,
                   GPtrArray     *providers,
                   GPtrArray     *callers,
                   const Globals *g)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonNode) managed = lumo_managed_policy_to_json (lumo_policy_get_managed (policy));
  JsonObject *m = json_node_get_object (managed);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "dir");
  json_builder_add_value (b, json_node_copy (json_object_get_member (m, "dir")));
  json_builder_set_member_name (b, "files");
  json_builder_add_value (b, json_node_copy (json_object_get_member (m, "files")));
  json_builder_set_member_name (b, "problems");
  json_builder_add_value (b, json_node_copy (json_object_get_member (m, "problems")));

  json_builder_set_member_name (b, "providers");
  json_builder_begin_array (b);
  for (guint i = 0; i < providers->len; i++)
    provider_to_json (b, policy, g_ptr_array_index (providers, i), callers);
  json_builder_end_array (b);

  add_uint_value (b, "auditRetentionDays", g->retention, g->user_retention, &g->retention_source);
  add_uint_value (b, "reviewTimeoutSeconds", g->timeout, g->user_timeout, &g->timeout_source);
  add_boolean_value (b, "auditJournal", g->journal, &g->user_journal, &g->journal_source);
  add_boolean_value (b, "desktopAgents", g->agents, NULL, &g->agents_source);
  json_builder_end_object (b);

  return json_builder_get_root (b);
}

static void
print_managed (LumoManagedPolicy *managed)
{
  GPtrArray *files = lumo_managed_policy_get_files (managed);

  g_print (g_dngettext (GETTEXT_PACKAGE, "Managed policy: %s (%u file)\n", "Managed policy: %s (%u files)\n",
                        files->len),
           lumo_managed_policy_get_dir (managed), files->len);
  for (guint i = 0; i < files->len; i++)
    g_print ("  %s\n", (const char *) g_ptr_array_index (files, i));
}

int
lumo_ctl_policy (const LumoCtlCommand   *command,
                 char                 ***args)
{
  g_autoptr(LumoPolicy) policy = NULL;
  g_autoptr(GPtrArray) providers = NULL;
  g_autoptr(GPtrArray) callers = NULL;
  g_autoptr(GError) error = NULL;
  LumoManagedPolicy *managed;
  gboolean effective = FALSE;
  gboolean json = FALSE;
  int exit_code = 0;
  guint n_problems;
  Globals g;
  const GOptionEntry entries[] = {
    { "effective", 0, 0, G_OPTION_ARG_NONE, &effective,
      N_("Show every value in force and where it comes from"), NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print JSON"), NULL },
    G_OPTION_ENTRY_NULL
  };

  if (!lumo_ctl_parse (command, entries, args, 0, 0, &exit_code) ||
      !(policy = lumo_ctl_open_policy (&exit_code)))
    return exit_code;

  managed = lumo_policy_get_managed (policy);
  n_problems = print_problems (managed);

  if (!effective)
    {
      g_autoptr(JsonNode) node = NULL;

      if (json)
        {
          node = lumo_managed_policy_to_json (managed);
          lumo_ctl_print_json (node);
        }
      else
        print_managed (managed);
      return n_problems > 0 ? LUMO_CTL_EXIT_FAIL : LUMO_CTL_EXIT_OK;
    }

  if (!(providers = lumo_policy_list_providers (policy, &error)) ||
      !(callers = lumo_policy_list_callers (policy, NULL, LUMO_CALLER_STATE_ANY, &error)))
    return lumo_ctl_fail (error);
  read_globals (managed, &g);

  if (json)
    {
      g_autoptr(JsonNode) node = effective_to_json (policy, providers, callers, &g);

      lumo_ctl_print_json (node);
    }
  else
    {
      print_managed (managed);
      g_print ("\n");
      for (guint i = 0; i < providers->len; i++)
        print_provider (policy, g_ptr_array_index (providers, i), callers);
      print_globals (&g);
    }

  return n_problems > 0 ? LUMO_CTL_EXIT_FAIL : LUMO_CTL_EXIT_OK;
}
