/* lumo-ctl-policy.c — the policy subcommands of lumo-access-ctl
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * providers, callers, allow, deny, forget, set, watch, unwatch, history and
 * undo: each validates its IDs before policy.db is opened (so a bad ID
 * changes nothing, not even by creating the file), then makes one change
 * through LumoPolicy with origin "cli". A running app sees the change
 * through its file monitor.
 */
#define G_LOG_DOMAIN "lumo-access-ctl"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "lumo-ctl.h"
#include "lumo-error.h"
#include "lumo-policy.h"

static const char *
on_off (gboolean on)
{
  return on ? "on" : "off";
}

/* --provider, or the only provider there is. */
static char *
resolve_provider (LumoPolicy *policy,
                  const char *option,
                  int        *exit_code)
{
  g_autoptr(GPtrArray) providers = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) list = NULL;

  if (option != NULL)
    return g_strdup (option);

  if (!(providers = lumo_policy_list_providers (policy, &error)))
    {
      *exit_code = lumo_ctl_fail (error);
      return NULL;
    }

  if (providers->len == 1)
    return g_strdup (((LumoProviderInfo *) g_ptr_array_index (providers, 0))->id);

  if (providers->len == 0)
    {
      g_printerr ("lumo-access-ctl: %s\n",
                  _("No provider is known yet. A provider appears when it first connects, "
                    "or add one with “lumo-access-ctl watch ID”."));
      *exit_code = LUMO_CTL_EXIT_FAIL;
      return NULL;
    }

  list = g_string_new (NULL);
  for (guint i = 0; i < providers->len; i++)
    {
      LumoProviderInfo *p = g_ptr_array_index (providers, i);

      g_string_append_printf (list, "  %s  %s\n", p->id, p->display_name ? p->display_name : "");
    }
  g_printerr ("lumo-access-ctl: %s\n%s",
              _("There are several providers; choose one with --provider ID:"), list->str);
  *exit_code = LUMO_CTL_EXIT_USAGE;

  return NULL;
}

/* ---- providers ------------------------------------------------------------- */

static JsonNode *
provider_to_json (const LumoProviderInfo *p)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autofree char *first = lumo_ctl_format_iso (p->first_seen);
  g_autofree char *last = lumo_ctl_format_iso (p->last_seen);

  json_builder_begin_object (b);
  lumo_ctl_json_member (b, "id", p->id);
  lumo_ctl_json_member (b, "namespace", p->namespace_);
  lumo_ctl_json_member (b, "name", p->display_name);
  lumo_ctl_json_member (b, "version", p->version);
  json_builder_set_member_name (b, "enabled");
  json_builder_add_boolean_value (b, p->enabled);
  json_builder_set_member_name (b, "writes");
  json_builder_add_boolean_value (b, p->writes);
  json_builder_set_member_name (b, "review");
  json_builder_add_boolean_value (b, p->review);
  json_builder_set_member_name (b, "watched");
  json_builder_add_boolean_value (b, p->watched);
  lumo_ctl_json_member (b, "firstSeen", first);
  lumo_ctl_json_member (b, "lastSeen", last);
  json_builder_end_object (b);

  return json_builder_get_root (b);
}

int
lumo_ctl_providers (const LumoCtlCommand   *command,
                    char                 ***args)
{
  g_autoptr(LumoPolicy) policy = NULL;
  g_autoptr(GPtrArray) providers = NULL;
  g_autoptr(GError) error = NULL;
  gboolean json = FALSE;
  int exit_code = 0;
  const GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print JSON"), NULL },
    G_OPTION_ENTRY_NULL
  };

  if (!lumo_ctl_parse (command, entries, args, 0, 0, &exit_code) ||
      !(policy = lumo_ctl_open_policy (&exit_code)))
    return exit_code;

  if (!(providers = lumo_policy_list_providers (policy, &error)))
    return lumo_ctl_fail (error);

  if (json)
    {
      g_autoptr(JsonArray) array = json_array_new ();
      g_autoptr(JsonNode) root = json_node_new (JSON_NODE_ARRAY);

      for (guint i = 0; i < providers->len; i++)
        json_array_add_element (array, provider_to_json (g_ptr_array_index (providers, i)));
      json_node_set_array (root, array);
      lumo_ctl_print_json (root);
    }
  else if (providers->len == 0)
    {
      g_print ("%s\n", _("No providers yet."));
    }
  else
    {
      g_autoptr(LumoCtlTable) table =
        lumo_ctl_table_new (_("ID"), _("NAME"), _("NAMESPACE"), _("VERSION"),
                            _("ENABLED"), _("WRITES"), _("REVIEW"), _("LAST SEEN"), NULL);

      for (guint i = 0; i < providers->len; i++)
        {
          LumoProviderInfo *p = g_ptr_array_index (providers, i);
          g_autofree char *last = lumo_ctl_format_time (p->last_seen);

          lumo_ctl_table_add (table, p->id,
                              p->display_name ? p->display_name : "—",
                              p->namespace_ ? p->namespace_ : "—",
                              p->version ? p->version : "—",
                              on_off (p->enabled), on_off (p->writes), on_off (p->review),
                              p->watched && p->last_seen == 0 ? _("watched, not seen yet") : last,
                              NULL);
        }
      lumo_ctl_table_print (table);
    }

  return LUMO_CTL_EXIT_OK;
}

static int
change_provider (const LumoCtlCommand   *command,
                 char                 ***args,
                 gboolean                add)
{
  g_autoptr(LumoPolicy) policy = NULL;
  g_autoptr(GError) error = NULL;
  const char *id;
  int exit_code = 0;

  if (!lumo_ctl_parse (command, NULL, args, 1, 1, &exit_code))
    return exit_code;

  id = (*args)[1];
  if (!lumo_ctl_check_id (id, "provider ID"))
    return LUMO_CTL_EXIT_USAGE;
  if (!(policy = lumo_ctl_open_policy (&exit_code)))
    return exit_code;

  if (add ? !lumo_policy_add_provider (policy, id, LUMO_POLICY_ORIGIN_CLI, &error)
          : !lumo_policy_remove_provider (policy, id, LUMO_POLICY_ORIGIN_CLI, &error))
    return lumo_ctl_fail (error);

  g_print (add ? _("Watching the provider %s (access on, writes on, each write reviewed).\n")
               : _("Removed the provider %s and its callers (“undo” brings them back).\n"),
           id);

  return LUMO_CTL_EXIT_OK;
}

int
lumo_ctl_watch (const LumoCtlCommand   *command,
                char                 ***args)
{
  return change_provider (command, args, TRUE);
}

int
lumo_ctl_unwatch (const LumoCtlCommand   *command,
                  char                 ***args)
{
  return change_provider (command, args, FALSE);
}

int
lumo_ctl_set (const LumoCtlCommand   *command,
              char                 ***args)
{
  g_autoptr(LumoPolicy) policy = NULL;
  g_autoptr(LumoProviderInfo) before = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *provider_opt = NULL;
  g_autofree char *provider = NULL;
  LumoPolicySwitch sw;
  char **words;
  gboolean on, was;
  int exit_code = 0;
  const GOptionEntry entries[] = {
    { "provider", 'p', 0, G_OPTION_ARG_STRING, &provider_opt,
      N_("The provider (default: the only one)"), N_("ID") },
    G_OPTION_ENTRY_NULL
  };

  if (!lumo_ctl_parse (command, entries, args, 2, 3, &exit_code))
    return exit_code;

  /* Also accepted: "set PROVIDER SWITCH on|off". */
  words = *args + 1;
  if (words[2] != NULL)
    {
      if (provider_opt != NULL)
        return lumo_ctl_usage_error (command, _("Name the provider either with --provider or as "
                                                "the first argument, not both"));
      provider_opt = g_strdup (words[0]);
      words++;
    }

  if (!lumo_policy_switch_from_string (words[0], &sw))
    return lumo_ctl_usage_error (command, _("“%s” is not a switch: use enabled, writes or review"),
                                 words[0]);
  if (g_str_equal (words[1], "on"))
    on = TRUE;
  else if (g_str_equal (words[1], "off"))
    on = FALSE;
  else
    return lumo_ctl_usage_error (command, _("“%s” is not a switch value: use on or off"), words[1]);

  if (provider_opt != NULL && !lumo_ctl_check_id (provider_opt, "provider ID"))
    return LUMO_CTL_EXIT_USAGE;
  if (!(policy = lumo_ctl_open_policy (&exit_code)) ||
      !(provider = resolve_provider (policy, provider_opt, &exit_code)))
    return exit_code;

  if (!(before = lumo_policy_get_provider (policy, provider, &error)))
    return lumo_ctl_fail (error);
  was = sw == LUMO_POLICY_SWITCH_ENABLED ? before->enabled
      : sw == LUMO_POLICY_SWITCH_WRITES ? before->writes : before->review;

  if (!lumo_policy_set_switch (policy, provider, sw, on, LUMO_POLICY_ORIGIN_CLI, &error))
    return lumo_ctl_fail (error);

  if (was == on)
    g_print (_("%s is already %s for %s.\n"), lumo_policy_switch_to_string (sw), on_off (on), provider);
  else
    g_print (_("%s is now %s for %s.\n"), lumo_policy_switch_to_string (sw), on_off (on), provider);

  return LUMO_CTL_EXIT_OK;
}

/* ---- callers --------------------------------------------------------------- */

static JsonNode *
caller_to_json (const LumoCallerInfo *c)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autofree char *first = lumo_ctl_format_iso (c->first_seen);
  g_autofree char *last = lumo_ctl_format_iso (c->last_seen);

  json_builder_begin_object (b);
  lumo_ctl_json_member (b, "provider", c->provider_id);
  lumo_ctl_json_member (b, "id", c->id);
  lumo_ctl_json_member (b, "name", c->display_name);
  lumo_ctl_json_member (b, "state", lumo_caller_state_to_string (c->state));
  lumo_ctl_json_member (b, "kind", lumo_caller_kind_to_string (c->kind));
  lumo_ctl_json_member (b, "firstSeen", first);
  lumo_ctl_json_member (b, "lastSeen", last);
  json_builder_set_member_name (b, "probes");
  json_builder_add_int_value (b, (gint64) c->probe_count);
  json_builder_set_member_name (b, "writes");
  json_builder_add_int_value (b, (gint64) c->write_count);
  json_builder_end_object (b);

  return json_builder_get_root (b);
}

int
lumo_ctl_callers (const LumoCtlCommand   *command,
                  char                 ***args)
{
  g_autoptr(LumoPolicy) policy = NULL;
  g_autoptr(GPtrArray) callers = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *provider = NULL;
  g_autofree char *state_opt = NULL;
  LumoCallerState state = LUMO_CALLER_STATE_ANY;
  gboolean json = FALSE;
  int exit_code = 0;
  const GOptionEntry entries[] = {
    { "provider", 'p', 0, G_OPTION_ARG_STRING, &provider,
      N_("Only the callers of this provider"), N_("ID") },
    { "state", 0, 0, G_OPTION_ARG_STRING, &state_opt,
      N_("Only callers in this state: pending, allowed or denied"), N_("STATE") },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print JSON"), NULL },
    G_OPTION_ENTRY_NULL
  };

  if (!lumo_ctl_parse (command, entries, args, 0, 0, &exit_code))
    return exit_code;

  if (state_opt != NULL && !lumo_caller_state_from_string (state_opt, &state))
    return lumo_ctl_usage_error (command, _("“%s” is not a caller state: use pending, allowed or denied"),
                                 state_opt);
  if (provider != NULL && !lumo_ctl_check_id (provider, "provider ID"))
    return LUMO_CTL_EXIT_USAGE;
  if (!(policy = lumo_ctl_open_policy (&exit_code)))
    return exit_code;

  /* Listing is harmless, so without --provider it shows every provider's
   * callers rather than insisting on a choice. */
  if (!(callers = lumo_policy_list_callers (policy, provider, state, &error)))
    return lumo_ctl_fail (error);

  if (json)
    {
      g_autoptr(JsonArray) array = json_array_new ();
      g_autoptr(JsonNode) root = json_node_new (JSON_NODE_ARRAY);

      for (guint i = 0; i < callers->len; i++)
        json_array_add_element (array, caller_to_json (g_ptr_array_index (callers, i)));
      json_node_set_array (root, array);
      lumo_ctl_print_json (root);
    }
  else if (callers->len == 0)
    {
      g_print ("%s\n", _("No callers."));
    }
  else
    {
      g_autoptr(LumoCtlTable) table =
        lumo_ctl_table_new (_("ID"), _("NAME"), _("KIND"), _("STATE"), _("PROVIDER"),
                            _("PROBES"), _("WRITES"), _("LAST SEEN"), NULL);

      for (guint i = 0; i < callers->len; i++)
        {
          LumoCallerInfo *c = g_ptr_array_index (callers, i);
          g_autofree char *last = lumo_ctl_format_time (c->last_seen);
          g_autofree char *probes = g_strdup_printf ("%" G_GUINT64_FORMAT, c->probe_count);
          g_autofree char *writes = g_strdup_printf ("%" G_GUINT64_FORMAT, c->write_count);

          lumo_ctl_table_add (table, c->id, c->display_name ? c->display_name : "—",
                              c->kind == LUMO_CALLER_KIND_AGENT ? _("desktop agent") : _("extension"),
                              lumo_caller_state_to_string (c->state), c->provider_id,
                              probes, writes, last, NULL);
        }
      lumo_ctl_table_print (table);
    }

  return LUMO_CTL_EXIT_OK;
}

typedef enum { CALLER_ALLOW, CALLER_DENY, CALLER_FORGET } CallerChange;

static int
change_caller (const LumoCtlCommand   *command,
               char                 ***args,
               CallerChange            change)
{
  g_autoptr(LumoPolicy) policy = NULL;
  g_autoptr(LumoCallerInfo) before = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *provider_opt = NULL;
  g_autofree char *provider = NULL;
  const char *caller;
  gboolean ok;
  int exit_code = 0;
  const GOptionEntry entries[] = {
    { "provider", 'p', 0, G_OPTION_ARG_STRING, &provider_opt,
      N_("The provider (default: the only one)"), N_("ID") },
    G_OPTION_ENTRY_NULL
  };

  if (!lumo_ctl_parse (command, entries, args, 1, 2, &exit_code))
    return exit_code;

  /* Also accepted: "allow PROVIDER CALLER", the form scripts that always
   * name the provider find natural. */
  if ((*args)[2] != NULL)
    {
      if (provider_opt != NULL)
        return lumo_ctl_usage_error (command, _("Name the provider either with --provider or as "
                                                "the first argument, not both"));
      provider_opt = g_strdup ((*args)[1]);
      caller = (*args)[2];
    }
  else
    {
      caller = (*args)[1];
    }

  if (!lumo_ctl_check_id (caller, "caller ID") ||
      (provider_opt != NULL && !lumo_ctl_check_id (provider_opt, "provider ID")))
    return LUMO_CTL_EXIT_USAGE;
  if (!(policy = lumo_ctl_open_policy (&exit_code)) ||
      !(provider = resolve_provider (policy, provider_opt, &exit_code)))
    return exit_code;

  before = lumo_policy_get_caller (policy, provider, caller, NULL);

  switch (change)
    {
    case CALLER_ALLOW:
      ok = lumo_policy_allow_caller (policy, provider, caller, LUMO_POLICY_ORIGIN_CLI, &error);
      break;
    case CALLER_DENY:
      ok = lumo_policy_deny_caller (policy, provider, caller, LUMO_POLICY_ORIGIN_CLI, &error);
      break;
    case CALLER_FORGET:
    default:
      ok = lumo_policy_forget_caller (policy, provider, caller, LUMO_POLICY_ORIGIN_CLI, &error);
      break;
    }
  if (!ok)
    return lumo_ctl_fail (error);

  if (change == CALLER_FORGET)
    g_print (_("Forgot the caller %s of %s; its next probe asks for approval again.\n"), caller, provider);
  else if (before != NULL && before->state == (change == CALLER_ALLOW ? LUMO_CALLER_STATE_ALLOWED
                                                                       : LUMO_CALLER_STATE_DENIED))
    g_print (_("The caller %s of %s is already %s.\n"), caller, provider,
             lumo_caller_state_to_string (before->state));
  else if (change == CALLER_ALLOW)
    g_print (_("Allowed the caller %s to use %s.\n"), caller, provider);
  else
    g_print (_("Denied the caller %s the use of %s.\n"), caller, provider);

  return LUMO_CTL_EXIT_OK;
}

int
lumo_ctl_allow (const LumoCtlCommand   *command,
                char                 ***args)
{
  return change_caller (command, args, CALLER_ALLOW);
}

int
lumo_ctl_deny (const LumoCtlCommand   *command,
               char                 ***args)
{
  return change_caller (command, args, CALLER_DENY);
}

int
lumo_ctl_forget (const LumoCtlCommand   *command,
                 char                 ***args)
{
  return change_caller (command, args, CALLER_FORGET);
}

/* ---- history --------------------------------------------------------------- */

static JsonNode *
history_to_json (const LumoHistoryEntry *h)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autofree char *time = lumo_ctl_format_iso (h->time);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "id");
  json_builder_add_int_value (b, h->id);
  lumo_ctl_json_member (b, "time", time);
  lumo_ctl_json_member (b, "origin", lumo_policy_origin_to_string (h->origin));
  lumo_ctl_json_member (b, "provider", h->provider_id);
  lumo_ctl_json_member (b, "caller", h->caller_id);
  lumo_ctl_json_member (b, "field", h->field);
  /* The tool of a grant entry; null for every other field. */
  lumo_ctl_json_member (b, "tool", h->tool);
  lumo_ctl_json_member (b, "old", h->old_value);
  lumo_ctl_json_member (b, "new", h->new_value);
  json_builder_set_member_name (b, "undoes");
  if (h->undoes != 0)
    json_builder_add_int_value (b, h->undoes);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "undoneBy");
  if (h->undone_by != 0)
    json_builder_add_int_value (b, h->undone_by);
  else
    json_builder_add_null_value (b);
  json_builder_end_object (b);

  return json_builder_get_root (b);
}

static char *
describe_change (const LumoHistoryEntry *h)
{
  return g_strdup_printf ("%s → %s", h->old_value ? h->old_value : _("(none)"),
                          h->new_value ? h->new_value : _("(removed)"));
}

int
lumo_ctl_history (const LumoCtlCommand   *command,
                  char                 ***args)
{
  g_autoptr(LumoPolicy) policy = NULL;
  g_autoptr(GPtrArray) history = NULL;
  g_autoptr(GError) error = NULL;
  gboolean json = FALSE;
  int limit = 50;
  int exit_code = 0;
  const GOptionEntry entries[] = {
    { "limit", 'n', 0, G_OPTION_ARG_INT, &limit, N_("Show at most N entries (0: all; default 50)"), N_("N") },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print JSON"), NULL },
    G_OPTION_ENTRY_NULL
  };

  if (!lumo_ctl_parse (command, entries, args, 0, 0, &exit_code))
    return exit_code;
  if (limit < 0)
    return lumo_ctl_usage_error (command, _("--limit must be 0 or more, not %d"), limit);
  if (!(policy = lumo_ctl_open_policy (&exit_code)))
    return exit_code;

  if (!(history = lumo_policy_list_history (policy, (guint) limit, &error)))
    return lumo_ctl_fail (error);

  if (json)
    {
      g_autoptr(JsonArray) array = json_array_new ();
      g_autoptr(JsonNode) root = json_node_new (JSON_NODE_ARRAY);

      for (guint i = 0; i < history->len; i++)
        json_array_add_element (array, history_to_json (g_ptr_array_index (history, i)));
      json_node_set_array (root, array);
      lumo_ctl_print_json (root);
    }
  else if (history->len == 0)
    {
      g_print ("%s\n", _("No changes yet."));
    }
  else
    {
      g_autoptr(LumoCtlTable) table =
        lumo_ctl_table_new ("#", _("TIME"), _("ORIGIN"), _("PROVIDER"), _("CALLER"),
                            _("FIELD"), _("CHANGE"), _("NOTE"), NULL);

      for (guint i = 0; i < history->len; i++)
        {
          LumoHistoryEntry *h = g_ptr_array_index (history, i);
          g_autofree char *id = g_strdup_printf ("%" G_GINT64_FORMAT, h->id);
          g_autofree char *time = lumo_ctl_format_time (h->time);
          g_autofree char *change = describe_change (h);
          g_autofree char *other = g_strdup_printf ("#%" G_GINT64_FORMAT,
                                                    h->undoes != 0 ? h->undoes : h->undone_by);
          g_autofree char *note = h->undoes != 0 ? g_strdup_printf (_("undoes %s"), other)
                                : h->undone_by != 0 ? g_strdup_printf (_("undone by %s"), other)
                                : g_strdup ("");
          /* A grant is of one tool: "grant userscripts.save_script". */
          g_autofree char *field = h->tool != NULL ? g_strdup_printf ("%s %s", h->field, h->tool)
                                                   : g_strdup (h->field);

          /* An agent's entry belongs to no provider. */
          lumo_ctl_table_add (table, id, time, lumo_policy_origin_to_string (h->origin),
                              h->provider_id ? h->provider_id : "—", h->caller_id ? h->caller_id : "—",
                              field, change, note, NULL);
        }
      lumo_ctl_table_print (table);
    }

  return LUMO_CTL_EXIT_OK;
}

int
lumo_ctl_undo (const LumoCtlCommand   *command,
               char                 ***args)
{
  g_autoptr(LumoPolicy) policy = NULL;
  g_autoptr(LumoHistoryEntry) undone = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *change = NULL;
  g_autofree char *id = NULL;
  int exit_code = 0;

  if (!lumo_ctl_parse (command, NULL, args, 0, 0, &exit_code) ||
      !(policy = lumo_ctl_open_policy (&exit_code)))
    return exit_code;

  if (!lumo_policy_undo_last (policy, LUMO_POLICY_ORIGIN_CLI, &undone, &error))
    return lumo_ctl_fail (error);

  change = describe_change (undone);
  id = g_strdup_printf ("#%" G_GINT64_FORMAT, undone->id);
  if (undone->tool != NULL)
    g_print (_("Undid %s (%s, the grant of %s to %s on %s: %s).\n"),
             id, lumo_policy_origin_to_string (undone->origin), undone->tool,
             undone->caller_id, undone->provider_id, change);
  else if (undone->provider_id == NULL)
    g_print (_("Undid %s (%s, desktop agent %s: %s).\n"),
             id, lumo_policy_origin_to_string (undone->origin), undone->caller_id, change);
  else if (undone->caller_id != NULL)
    g_print (_("Undid %s (%s, caller %s of %s: %s).\n"),
             id, lumo_policy_origin_to_string (undone->origin),
             undone->caller_id, undone->provider_id, change);
  else
    g_print (_("Undid %s (%s, %s of %s: %s).\n"),
             id, lumo_policy_origin_to_string (undone->origin),
             undone->field, undone->provider_id, change);

  return LUMO_CTL_EXIT_OK;
}
