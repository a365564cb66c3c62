/* lumo-managed-policy-json.c — the managed policy as JSON: what
 * `lumo-access-ctl policy --json` prints, and what tells two readings apart
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Only what binds is written: a key at its loose value changes nothing.
 * Every list and map is sorted, so two readings that say the same thing
 * from the same files give the same text (lumo_managed_policy_equal()).
 */
#define G_LOG_DOMAIN "lumo-managed-policy"

#include "config.h"

#include <string.h>

#include "lumo-managed-policy-private.h"

static void
add_source (JsonBuilder             *b,
            const char              *name,
            const LumoManagedSource *source)
{
  json_builder_set_member_name (b, name);
  if (source->file == NULL)
    {
      json_builder_add_null_value (b);
      return;
    }

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "file");
  json_builder_add_string_value (b, source->file);
  json_builder_set_member_name (b, "line");
  json_builder_add_int_value (b, source->line);
  json_builder_end_object (b);
}

static void
add_list (JsonBuilder *b,
          const char  *name,
          GHashTable  *list)
{
  g_autoptr(GList) ids = g_list_sort (g_hash_table_get_keys (list), (GCompareFunc) strcmp);

  json_builder_set_member_name (b, name);
  json_builder_begin_array (b);
  for (const GList *l = ids; l != NULL; l = l->next)
    {
      const LumoManagedSource *source = g_hash_table_lookup (list, l->data);

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "id");
      json_builder_add_string_value (b, l->data);
      json_builder_set_member_name (b, "file");
      json_builder_add_string_value (b, source->file);
      json_builder_set_member_name (b, "line");
      json_builder_add_int_value (b, source->line);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

/* Only what binds: a key at its loose value changes nothing, so it is not
 * there to show. */
static void
add_scope (JsonBuilder            *b,
           const LumoManagedScope *scope)
{
  json_builder_begin_object (b);
  add_source (b, "enabledOff", &scope->enabled_off);
  add_source (b, "writesOff", &scope->writes_off);
  add_source (b, "reviewOn", &scope->review_on);
  add_source (b, "onlyListedCallers", &scope->only_listed);
  add_source (b, "desktopAgentsForbidden", &scope->agents_forbidden);
  add_source (b, "everyoneDenied", &scope->deny_all);
  add_list (b, "allow", scope->allow);
  add_list (b, "deny", scope->deny);
  json_builder_end_object (b);
}

JsonNode *
lumo_managed_policy_to_json (LumoManagedPolicy *self)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(GList) provider_ids = NULL;

  g_return_val_if_fail (self != NULL, NULL);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "dir");
  if (self->dir != NULL)
    json_builder_add_string_value (b, self->dir);
  else
    json_builder_add_null_value (b);

  json_builder_set_member_name (b, "files");
  json_builder_begin_array (b);
  for (guint i = 0; i < self->files->len; i++)
    json_builder_add_string_value (b, g_ptr_array_index (self->files, i));
  json_builder_end_array (b);

  json_builder_set_member_name (b, "problems");
  json_builder_begin_array (b);
  for (guint i = 0; i < self->problems->len; i++)
    {
      const LumoManagedProblem *p = g_ptr_array_index (self->problems, i);

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "file");
      json_builder_add_string_value (b, p->file);
      json_builder_set_member_name (b, "line");
      json_builder_add_int_value (b, p->line);
      json_builder_set_member_name (b, "column");
      json_builder_add_int_value (b, p->column);
      json_builder_set_member_name (b, "field");
      if (p->field != NULL)
        json_builder_add_string_value (b, p->field);
      else
        json_builder_add_null_value (b);
      json_builder_set_member_name (b, "message");
      json_builder_add_string_value (b, p->message);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  json_builder_set_member_name (b, "allProviders");
  add_scope (b, &self->all);

  json_builder_set_member_name (b, "providers");
  json_builder_begin_object (b);
  provider_ids = g_list_sort (g_hash_table_get_keys (self->providers), (GCompareFunc) strcmp);
  for (const GList *l = provider_ids; l != NULL; l = l->next)
    {
      json_builder_set_member_name (b, l->data);
      add_scope (b, g_hash_table_lookup (self->providers, l->data));
    }
  json_builder_end_object (b);

  add_source (b, "minAuditRetention", &self->retention);
  json_builder_set_member_name (b, "minAuditRetentionDays");
  if (self->retention.file != NULL)
    json_builder_add_int_value (b, self->retention_days);
  else
    json_builder_add_null_value (b);

  add_source (b, "reviewTimeoutMin", &self->timeout_min);
  json_builder_set_member_name (b, "reviewTimeoutMinSeconds");
  if (self->timeout_min.file != NULL)
    json_builder_add_int_value (b, self->timeout_min_s);
  else
    json_builder_add_null_value (b);
  add_source (b, "reviewTimeoutMax", &self->timeout_max);
  json_builder_set_member_name (b, "reviewTimeoutMaxSeconds");
  if (self->timeout_max.file != NULL)
    json_builder_add_int_value (b, self->timeout_max_s);
  else
    json_builder_add_null_value (b);

  add_source (b, "auditJournalOn", &self->journal_on);
  json_builder_end_object (b);

  return json_builder_get_root (b);
}

gboolean
lumo_managed_policy_equal (LumoManagedPolicy *a,
                           LumoManagedPolicy *b)
{
  g_autoptr(JsonNode) node_a = NULL;
  g_autoptr(JsonNode) node_b = NULL;
  g_autofree char *text_a = NULL;
  g_autofree char *text_b = NULL;

  g_return_val_if_fail (a != NULL && b != NULL, FALSE);

  if (a == b)
    return TRUE;

  /* The JSON holds every value, source and problem in a fixed order: the
   * policy is small and reloads are rare, so one description serves both. */
  node_a = lumo_managed_policy_to_json (a);
  node_b = lumo_managed_policy_to_json (b);
  text_a = json_to_string (node_a, FALSE);
  text_b = json_to_string (node_b, FALSE);

  return g_str_equal (text_a, text_b);
}
