/* lumo-tool-registry.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-tool-registry"

#include "config.h"

#include <string.h>

#include "lumo-error.h"
#include "lumo-tool-registry.h"

typedef struct
{
  char         *provider_id;
  LumoToolInfo *info;
} Entry;

struct _LumoToolRegistry
{
  GObject     parent_instance;

  GHashTable *entries;     /* qualified name → Entry */
  GHashTable *counts;      /* provider ID → GUINT_TO_POINTER (n) */
};

G_DEFINE_FINAL_TYPE (LumoToolRegistry, lumo_tool_registry, G_TYPE_OBJECT)

enum {
  CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
entry_free (gpointer data)
{
  Entry *entry = data;

  g_free (entry->provider_id);
  lumo_tool_info_free (entry->info);
  g_free (entry);
}

static void
lumo_tool_registry_finalize (GObject *object)
{
  LumoToolRegistry *self = (LumoToolRegistry *) object;

  g_clear_pointer (&self->entries, g_hash_table_unref);
  g_clear_pointer (&self->counts, g_hash_table_unref);

  G_OBJECT_CLASS (lumo_tool_registry_parent_class)->finalize (object);
}

static void
lumo_tool_registry_class_init (LumoToolRegistryClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = lumo_tool_registry_finalize;

  /**
   * LumoToolRegistry::changed:
   * @provider_id: whose tools changed
   */
  signals[CHANGED] =
    g_signal_new ("changed",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING | G_SIGNAL_TYPE_STATIC_SCOPE);
}

static void
lumo_tool_registry_init (LumoToolRegistry *self)
{
  self->entries = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, entry_free);
  self->counts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}

LumoToolRegistry *
lumo_tool_registry_new (void)
{
  return g_object_new (LUMO_TYPE_TOOL_REGISTRY, NULL);
}

guint
lumo_tool_registry_count (LumoToolRegistry *self,
                          const char       *provider_id)
{
  g_return_val_if_fail (LUMO_IS_TOOL_REGISTRY (self), 0);
  g_return_val_if_fail (provider_id != NULL, 0);

  return GPOINTER_TO_UINT (g_hash_table_lookup (self->counts, provider_id));
}

static void
set_count (LumoToolRegistry *self,
           const char       *provider_id,
           guint             n)
{
  if (n == 0)
    g_hash_table_remove (self->counts, provider_id);
  else
    g_hash_table_insert (self->counts, g_strdup (provider_id), GUINT_TO_POINTER (n));
}

/* Adds without emitting ::changed. */
static gboolean
add_tool (LumoToolRegistry    *self,
          const char          *provider_id,
          const LumoToolInfo  *tool,
          GError             **error)
{
  Entry *existing;
  Entry *entry;
  guint count;

  existing = g_hash_table_lookup (self->entries, tool->qualified_name);
  if (existing != NULL && !g_str_equal (existing->provider_id, provider_id))
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_DUPLICATE,
                   "The tool name “%s” is already used by the provider %s, "
                   "which registered it first",
                   tool->qualified_name, existing->provider_id);
      return FALSE;
    }

  count = lumo_tool_registry_count (self, provider_id);
  if (existing == NULL && count >= LUMO_MAX_TOOLS)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_LIMIT_EXCEEDED,
                   "The provider %s already offers %d tools, the most allowed; "
                   "“%s” was not added",
                   provider_id, LUMO_MAX_TOOLS, tool->qualified_name);
      return FALSE;
    }

  entry = g_new0 (Entry, 1);
  entry->provider_id = g_strdup (provider_id);
  entry->info = lumo_tool_info_copy (tool);
  /* The key lives in the entry, so replace both together. */
  g_hash_table_replace (self->entries, entry->info->qualified_name, entry);

  if (existing == NULL)
    set_count (self, provider_id, count + 1);

  return TRUE;
}

static gboolean
check_tool (const char          *provider_id,
            const LumoToolInfo  *tool,
            GError             **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree char *qualified = NULL;
  g_auto(GStrv) parts = NULL;

  if (!lumo_validate_extension_id (provider_id, "provider ID", error))
    return FALSE;

  /* The info may have been built by hand: its qualified name must be one
   * that the protocol's rules produce. */
  if (tool->qualified_name != NULL)
    parts = g_strsplit (tool->qualified_name, LUMO_TOOL_NAME_SEPARATOR, 2);
  if (parts == NULL || parts[0] == NULL || parts[1] == NULL ||
      g_strcmp0 (parts[1], tool->name) != 0)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_NAME,
                   "The tool “%s” has no qualified name of the form namespace.name",
                   tool->name ? tool->name : "(unnamed)");
      return FALSE;
    }

  if (!(qualified = lumo_qualified_tool_name (parts[0], parts[1], error)))
    return FALSE;

  return TRUE;
}

gboolean
lumo_tool_registry_add (LumoToolRegistry    *self,
                        const char          *provider_id,
                        const LumoToolInfo  *tool,
                        GError             **error)
{
  g_return_val_if_fail (LUMO_IS_TOOL_REGISTRY (self), FALSE);
  g_return_val_if_fail (tool != NULL, FALSE);

  if (!check_tool (provider_id, tool, error) ||
      !add_tool (self, provider_id, tool, error))
    return FALSE;

  g_signal_emit (self, signals[CHANGED], 0, provider_id);
  return TRUE;
}

static guint
remove_provider (LumoToolRegistry *self,
                 const char       *provider_id)
{
  GHashTableIter iter;
  Entry *entry;
  guint n = 0;

  g_hash_table_iter_init (&iter, self->entries);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &entry))
    {
      if (g_str_equal (entry->provider_id, provider_id))
        {
          g_hash_table_iter_remove (&iter);
          n++;
        }
    }

  set_count (self, provider_id, 0);
  return n;
}

guint
lumo_tool_registry_set_catalogue (LumoToolRegistry    *self,
                                  const char          *provider_id,
                                  const LumoCatalogue *catalogue,
                                  GPtrArray           *refusals)
{
  guint added = 0;

  g_return_val_if_fail (LUMO_IS_TOOL_REGISTRY (self), 0);
  g_return_val_if_fail (lumo_is_extension_id (provider_id), 0);
  g_return_val_if_fail (catalogue != NULL, 0);

  /* A provider's new catalogue replaces its old one whole; names it
   * gives up become free for others. */
  remove_provider (self, provider_id);

  for (guint i = 0; i < catalogue->tools->len; i++)
    {
      const LumoToolInfo *tool = g_ptr_array_index (catalogue->tools, i);
      g_autoptr(GError) error = NULL;

      if (check_tool (provider_id, tool, &error) && add_tool (self, provider_id, tool, &error))
        {
          added++;
          continue;
        }

      if (refusals != NULL)
        {
          LumoToolRefusal *refusal = g_new0 (LumoToolRefusal, 1);

          refusal->index = i;
          refusal->name = g_strdup (tool->name);
          refusal->code = error->code;
          refusal->reason = g_strdup (error->message);
          g_ptr_array_add (refusals, refusal);
        }
    }

  g_signal_emit (self, signals[CHANGED], 0, provider_id);
  return added;
}

guint
lumo_tool_registry_remove_provider (LumoToolRegistry *self,
                                    const char       *provider_id)
{
  guint n;

  g_return_val_if_fail (LUMO_IS_TOOL_REGISTRY (self), 0);
  g_return_val_if_fail (provider_id != NULL, 0);

  if ((n = remove_provider (self, provider_id)) > 0)
    g_signal_emit (self, signals[CHANGED], 0, provider_id);

  return n;
}

const char *
lumo_tool_registry_lookup (LumoToolRegistry    *self,
                           const char          *qualified_name,
                           const LumoToolInfo **tool)
{
  Entry *entry;

  g_return_val_if_fail (LUMO_IS_TOOL_REGISTRY (self), NULL);
  g_return_val_if_fail (qualified_name != NULL, NULL);

  entry = g_hash_table_lookup (self->entries, qualified_name);
  if (tool != NULL)
    *tool = entry ? entry->info : NULL;

  return entry ? entry->provider_id : NULL;
}

guint
lumo_tool_registry_get_n_tools (LumoToolRegistry *self)
{
  g_return_val_if_fail (LUMO_IS_TOOL_REGISTRY (self), 0);

  return g_hash_table_size (self->entries);
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

char **
lumo_tool_registry_list (LumoToolRegistry *self,
                         const char       *provider_id)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new ();
  GHashTableIter iter;
  Entry *entry;

  g_return_val_if_fail (LUMO_IS_TOOL_REGISTRY (self), NULL);
  g_return_val_if_fail (provider_id != NULL, NULL);

  g_hash_table_iter_init (&iter, self->entries);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &entry))
    if (g_str_equal (entry->provider_id, provider_id))
      g_ptr_array_add (names, g_strdup (entry->info->qualified_name));

  g_ptr_array_sort (names, compare_strings);
  g_ptr_array_add (names, NULL);

  return (char **) g_ptr_array_free (g_steal_pointer (&names), FALSE);
}
