/* lumo-policy.c — decisions, changes and change notification of the policy
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoPolicy keeps one connection to policy.db, the rate limiter, and a
 * snapshot of the providers and callers. The snapshot tells what changed,
 * so that every change — ours, or another process's seen through the file
 * monitor — ends in the same precise signals; and decisions answer from it,
 * after one PRAGMA data_version has shown that no other connection
 * committed since it was read (else it is reloaded first), so a change by
 * another process still counts at the very next decision.
 */
#define G_LOG_DOMAIN "lumo-policy"

#include "config.h"

#include <gio/gio.h>

#include "lumo-error.h"
#include "lumo-paths.h"
#include "lumo-policy-private.h"
#include "lumo-protocol.h"


static void lumo_policy_initable_iface_init (GInitableIface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (LumoPolicy, lumo_policy, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_INITABLE,
                                                      lumo_policy_initable_iface_init))

enum {
  PROP_0,
  PROP_PATH,
  PROP_RATE_LIMITER,
  N_PROPS
};

enum {
  PROVIDER_CHANGED,
  CALLER_CHANGED,
  CALLER_PENDING,
  REVOKED,
  HISTORY_CHANGED,
  AGENT_CHANGED,
  GRANT_CHANGED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

/* ---- change notification --------------------------------------------------- */

typedef struct
{
  guint  signal;
  char  *provider_id;
  char  *caller_id;
  char  *tool;
} Emission;

static void
emission_clear (gpointer data)
{
  Emission *e = data;

  g_free (e->provider_id);
  g_free (e->caller_id);
  g_free (e->tool);
}

static void
queue (GArray     *emissions,
       guint       signal,
       const char *provider_id,
       const char *caller_id)
{
  Emission e = { signal, g_strdup (provider_id), g_strdup (caller_id), NULL };

  g_array_append_val (emissions, e);
}

static void
queue_grant (GArray              *emissions,
             const LumoGrantInfo *grant)
{
  Emission e = { signals[GRANT_CHANGED], g_strdup (grant->provider_id), g_strdup (grant->caller_id),
                 g_strdup (grant->tool) };

  g_array_append_val (emissions, e);
}

static gboolean
provider_equal (const LumoProviderInfo *a,
                const LumoProviderInfo *b)
{
  return g_strcmp0 (a->namespace_, b->namespace_) == 0 &&
         g_strcmp0 (a->display_name, b->display_name) == 0 &&
         g_strcmp0 (a->version, b->version) == 0 &&
         a->enabled == b->enabled && a->writes == b->writes && a->review == b->review &&
         a->watched == b->watched && a->created == b->created &&
         a->first_seen == b->first_seen && a->last_seen == b->last_seen;
}

static gboolean
caller_equal (const LumoCallerInfo *a,
              const LumoCallerInfo *b)
{
  return g_strcmp0 (a->display_name, b->display_name) == 0 &&
         a->state == b->state &&
         a->first_seen == b->first_seen && a->last_seen == b->last_seen &&
         a->probe_count == b->probe_count && a->write_count == b->write_count &&
         a->kind == b->kind;
}

static gboolean
agent_equal (const LumoAgentInfo *a,
             const LumoAgentInfo *b)
{
  return g_strcmp0 (a->name, b->name) == 0 && a->created == b->created;
}

static gboolean
grant_equal (const LumoGrantInfo *a,
             const LumoGrantInfo *b)
{
  return a->created == b->created && a->expires == b->expires;
}

/* What L1 needs: an allowed caller of an enabled provider. */
static gboolean
can_use_l1 (GHashTable           *providers,
            const LumoCallerInfo *caller)
{
  const LumoProviderInfo *provider;

  if (caller == NULL || caller->state != LUMO_CALLER_STATE_ALLOWED)
    return FALSE;
  provider = g_hash_table_lookup (providers, caller->provider_id);

  return provider != NULL && provider->enabled;
}

static GList *
sorted_union_keys (GHashTable *a,
                   GHashTable *b)
{
  g_autoptr(GHashTable) all = g_hash_table_new (g_str_hash, g_str_equal);
  GHashTableIter iter;
  gpointer key;

  g_hash_table_iter_init (&iter, a);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_hash_table_add (all, key);
  g_hash_table_iter_init (&iter, b);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_hash_table_add (all, key);

  /* Sorted so that signals come in the same order every time. */
  return g_list_sort (g_hash_table_get_keys (all), (GCompareFunc) strcmp);
}

static void
diff_state (LumoPolicy *self,
            GHashTable *providers,
            GHashTable *callers,
            GHashTable *agents,
            GHashTable *grants,
            gint64      last_history_id,
            GArray     *emissions)
{
  g_autoptr(GList) provider_keys = sorted_union_keys (self->providers, providers);
  g_autoptr(GList) caller_keys = sorted_union_keys (self->callers, callers);
  g_autoptr(GList) agent_keys = sorted_union_keys (self->agents, agents);
  g_autoptr(GList) grant_keys = sorted_union_keys (self->grants, grants);

  for (const GList *l = provider_keys; l != NULL; l = l->next)
    {
      const LumoProviderInfo *before = g_hash_table_lookup (self->providers, l->data);
      const LumoProviderInfo *after = g_hash_table_lookup (providers, l->data);

      if (before == NULL || after == NULL || !provider_equal (before, after))
        queue (emissions, signals[PROVIDER_CHANGED], l->data, NULL);
    }

  for (const GList *l = caller_keys; l != NULL; l = l->next)
    {
      const LumoCallerInfo *before = g_hash_table_lookup (self->callers, l->data);
      const LumoCallerInfo *after = g_hash_table_lookup (callers, l->data);
      const LumoCallerInfo *any = after != NULL ? after : before;

      if (before == NULL || after == NULL || !caller_equal (before, after))
        queue (emissions, signals[CALLER_CHANGED], any->provider_id, any->id);
      if (after != NULL && after->state == LUMO_CALLER_STATE_PENDING &&
          (before == NULL || before->state != LUMO_CALLER_STATE_PENDING))
        queue (emissions, signals[CALLER_PENDING], any->provider_id, any->id);
    }

  /* Revocation also covers callers of a provider that was disabled or
   * removed, so a session only has to listen to ::revoked. */
  for (const GList *l = caller_keys; l != NULL; l = l->next)
    {
      const LumoCallerInfo *before = g_hash_table_lookup (self->callers, l->data);
      const LumoCallerInfo *after = g_hash_table_lookup (callers, l->data);

      if (can_use_l1 (self->providers, before) && !can_use_l1 (providers, after))
        queue (emissions, signals[REVOKED], before->provider_id, before->id);
    }

  for (const GList *l = grant_keys; l != NULL; l = l->next)
    {
      const LumoGrantInfo *before = g_hash_table_lookup (self->grants, l->data);
      const LumoGrantInfo *after = g_hash_table_lookup (grants, l->data);

      if (before == NULL || after == NULL || !grant_equal (before, after))
        queue_grant (emissions, after != NULL ? after : before);
    }

  /* After ::revoked: a gateway that ends an agent's sessions on either
   * sees the caller rows gone first. */
  for (const GList *l = agent_keys; l != NULL; l = l->next)
    {
      const LumoAgentInfo *before = g_hash_table_lookup (self->agents, l->data);
      const LumoAgentInfo *after = g_hash_table_lookup (agents, l->data);

      if (before == NULL || after == NULL || !agent_equal (before, after))
        queue (emissions, signals[AGENT_CHANGED], l->data, NULL);
    }

  if (last_history_id != self->last_history_id)
    queue (emissions, signals[HISTORY_CHANGED], NULL, NULL);
}

/* A statement kept prepared: this runs before every decision. */
static gint64
read_data_version (LumoPolicy  *self,
                   GError     **error)
{
  gint64 version = -1;
  int rc;

  rc = sqlite3_step (self->data_version_stmt);
  if (rc == SQLITE_ROW)
    version = sqlite3_column_int64 (self->data_version_stmt, 0);
  else
    lumo_db_set_error (error, self->db, rc, "Cannot read the data version of the policy");
  sqlite3_reset (self->data_version_stmt);

  return version;
}

/* Reads everything the signals describe. The tables are small (a handful of
 * providers, tens of callers), so a full read per change is cheaper to get
 * right than tracking each statement's effect. */
static gboolean
load_state (LumoPolicy  *self,
            GHashTable **providers_out,
            GHashTable **callers_out,
            GHashTable **agents_out,
            GHashTable **grants_out,
            gint64      *last_history_id,
            gint64      *data_version,
            GError     **error)
{
  g_autoptr(GHashTable) providers = NULL;
  g_autoptr(GHashTable) callers = NULL;
  g_autoptr(GHashTable) agents = NULL;
  g_autoptr(GHashTable) grants = NULL;
  g_autoptr(GPtrArray) provider_list = NULL;
  g_autoptr(GPtrArray) caller_list = NULL;
  g_autoptr(GPtrArray) agent_list = NULL;

  /* Read the version first: a commit racing with the reads below is then
   * seen again by the next refresh rather than missed. */
  if ((*data_version = read_data_version (self, error)) < 0)
    return FALSE;

  if (!lumo_db_exec (self->db, "BEGIN", error))
    return FALSE;
  provider_list = _lumo_policy_store_list_providers (self->db, error);
  if (provider_list != NULL)
    caller_list = _lumo_policy_store_list_callers (self->db, NULL, LUMO_CALLER_STATE_ANY, error);
  if (caller_list != NULL)
    agent_list = _lumo_policy_store_list_agents (self->db, error);
  if (agent_list != NULL)
    grants = _lumo_policy_store_load_grants (self->db, _lumo_policy_wall_now (self), error);
  *last_history_id = grants ? _lumo_policy_store_last_history_id (self->db, error) : -1;
  if (*last_history_id < 0 || !lumo_db_commit (self->db, error))
    {
      lumo_db_rollback (self->db);
      return FALSE;
    }

  providers = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                     (GDestroyNotify) lumo_provider_info_free);
  for (guint i = 0; i < provider_list->len; i++)
    {
      LumoProviderInfo *info = g_ptr_array_index (provider_list, i);

      g_hash_table_insert (providers, info->id, info);
    }
  g_ptr_array_set_free_func (provider_list, NULL);

  callers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                   (GDestroyNotify) lumo_caller_info_free);
  for (guint i = 0; i < caller_list->len; i++)
    {
      LumoCallerInfo *info = g_ptr_array_index (caller_list, i);

      g_hash_table_insert (callers, lumo_caller_key_new (info->provider_id, info->id), info);
    }
  g_ptr_array_set_free_func (caller_list, NULL);

  agents = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                  (GDestroyNotify) lumo_agent_info_free);
  for (guint i = 0; i < agent_list->len; i++)
    {
      LumoAgentInfo *info = g_ptr_array_index (agent_list, i);

      g_hash_table_insert (agents, info->id, info);
    }
  g_ptr_array_set_free_func (agent_list, NULL);

  *providers_out = g_steal_pointer (&providers);
  *callers_out = g_steal_pointer (&callers);
  *agents_out = g_steal_pointer (&agents);
  *grants_out = g_steal_pointer (&grants);

  return TRUE;
}

static gboolean
sync_state (LumoPolicy  *self,
            GError     **error)
{
  g_autoptr(GHashTable) providers = NULL;
  g_autoptr(GHashTable) callers = NULL;
  g_autoptr(GHashTable) agents = NULL;
  g_autoptr(GHashTable) grants = NULL;
  g_autoptr(GArray) emissions = NULL;
  g_autoptr(LumoPolicy) hold = NULL;
  gint64 last_history_id;
  gint64 data_version;

  if (!load_state (self, &providers, &callers, &agents, &grants, &last_history_id, &data_version, error))
    {
      /* The snapshot may be behind the file: never decide from it. */
      self->data_version = -1;
      return FALSE;
    }

  emissions = g_array_new (FALSE, FALSE, sizeof (Emission));
  g_array_set_clear_func (emissions, emission_clear);
  diff_state (self, providers, callers, agents, grants, last_history_id, emissions);

  /* Swap before emitting: a handler that reads or changes the policy sees
   * the new state, and a nested change diffs against it. */
  g_clear_pointer (&self->providers, g_hash_table_unref);
  g_clear_pointer (&self->callers, g_hash_table_unref);
  g_clear_pointer (&self->agents, g_hash_table_unref);
  g_clear_pointer (&self->grants, g_hash_table_unref);
  self->providers = g_steal_pointer (&providers);
  self->callers = g_steal_pointer (&callers);
  self->agents = g_steal_pointer (&agents);
  self->grants = g_steal_pointer (&grants);
  self->last_history_id = last_history_id;
  self->data_version = data_version;
  _lumo_policy_grants_arm (self);

  hold = g_object_ref (self);
  for (guint i = 0; i < emissions->len; i++)
    {
      const Emission *e = &g_array_index (emissions, Emission, i);

      if (e->signal == signals[HISTORY_CHANGED])
        g_signal_emit (self, e->signal, 0);
      else if (e->signal == signals[PROVIDER_CHANGED] || e->signal == signals[AGENT_CHANGED])
        g_signal_emit (self, e->signal, 0, e->provider_id);
      else if (e->signal == signals[GRANT_CHANGED])
        g_signal_emit (self, e->signal, 0, e->provider_id, e->caller_id, e->tool);
      else
        g_signal_emit (self, e->signal, 0, e->provider_id, e->caller_id);
    }

  return TRUE;
}

void
_lumo_policy_announce (LumoPolicy *self)
{
  g_autoptr(GError) error = NULL;

  if (!sync_state (self, &error))
    g_warning ("Cannot reload the policy after a change: %s", error->message);
}

gboolean
_lumo_policy_ensure_current (LumoPolicy  *self,
                             GError     **error)
{
  gint64 version;

  if ((version = read_data_version (self, error)) < 0)
    return FALSE;

  /* data_version moves only for commits of other connections. */
  if (version == self->data_version)
    return TRUE;

  return sync_state (self, error);
}

gboolean
lumo_policy_refresh (LumoPolicy  *self,
                     GError     **error)
{
  g_return_val_if_fail (LUMO_IS_POLICY (self), FALSE);

  if (!lumo_policy_flush (self, error) ||
      !_lumo_policy_ensure_current (self, error))
    return FALSE;

  /* What the wall clock ended meanwhile (the timeout may not have fired
   * yet, or the clock is a test's). */
  _lumo_policy_grants_expire (self);

  return TRUE;
}

void
_lumo_policy_emit_grant_changed (LumoPolicy *self,
                                 const char *provider_id,
                                 const char *caller_id,
                                 const char *tool)
{
  g_signal_emit (self, signals[GRANT_CHANGED], 0, provider_id, caller_id, tool);
}

static void
on_file_monitor_changed_cb (GFileMonitor      *monitor,
                            GFile             *file,
                            GFile             *other_file,
                            GFileMonitorEvent  event,
                            gpointer           user_data)
{
  LumoPolicy *self = user_data;
  g_autoptr(GError) error = NULL;

  /* Not lumo_policy_refresh(): our own bookkeeping write changes the WAL
   * too, and flushing on its echo would defeat the coalescing. */
  if (!_lumo_policy_ensure_current (self, &error))
    g_warning ("Cannot apply a policy change made by another process: %s", error->message);
}

static GFileMonitor *
watch_file (LumoPolicy *self,
            const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  GFileMonitor *monitor;

  /* Every commit of another process writes the -wal file; the main file
   * changes on checkpoints. Without a monitor, decisions stay correct and
   * only the signals wait for the next local change or refresh. */
  if (!(monitor = g_file_monitor_file (file, G_FILE_MONITOR_NONE, NULL, &error)))
    {
      g_warning ("Cannot watch “%s” for changes by other processes: %s", path, error->message);
      return NULL;
    }

  g_file_monitor_set_rate_limit (monitor, 100);
  g_signal_connect (monitor, "changed", G_CALLBACK (on_file_monitor_changed_cb), self);

  return monitor;
}

/* ---- object ---------------------------------------------------------------- */

static gboolean
lumo_policy_initable_init (GInitable     *initable,
                           GCancellable  *cancellable,
                           GError       **error)
{
  LumoPolicy *self = LUMO_POLICY (initable);
  g_autofree char *wal_path = NULL;

  if (self->path == NULL)
    {
      if (!lumo_paths_ensure_data_dir (error))
        return FALSE;
      self->path = lumo_paths_build ("policy.db");
    }

  if (!(self->db = lumo_db_open (self->path, LUMO_DB_FLAGS_NONE,
                                 lumo_policy_migrations, lumo_policy_n_migrations,
                                 error)))
    return FALSE;

  if (!(self->data_version_stmt = lumo_db_prepare (self->db, "PRAGMA data_version", error)))
    return FALSE;

  if (!sync_state (self, error))
    return FALSE;

  wal_path = g_strconcat (self->path, "-wal", NULL);
  self->wal_monitor = watch_file (self, wal_path);
  self->db_monitor = watch_file (self, self->path);

  return TRUE;
}

static void
lumo_policy_initable_iface_init (GInitableIface *iface)
{
  iface->init = lumo_policy_initable_init;
}

static void
stop_monitor (LumoPolicy    *self,
              GFileMonitor **monitor)
{
  if (*monitor == NULL)
    return;

  g_signal_handlers_disconnect_by_func (*monitor, on_file_monitor_changed_cb, self);
  g_file_monitor_cancel (*monitor);
  g_clear_object (monitor);
}

static void
lumo_policy_dispose (GObject *object)
{
  LumoPolicy *self = LUMO_POLICY (object);

  _lumo_policy_bookkeeping_dispose (self);
  if (self->grant_source != NULL)
    {
      g_source_destroy (self->grant_source);
      g_clear_pointer (&self->grant_source, g_source_unref);
    }
  stop_monitor (self, &self->wal_monitor);
  stop_monitor (self, &self->db_monitor);
  g_clear_object (&self->limiter);
  g_clear_object (&self->pending_limiter);

  G_OBJECT_CLASS (lumo_policy_parent_class)->dispose (object);
}

static void
lumo_policy_finalize (GObject *object)
{
  LumoPolicy *self = LUMO_POLICY (object);

  g_clear_pointer (&self->data_version_stmt, sqlite3_finalize);
  g_clear_pointer (&self->db, lumo_db_close);
  g_clear_pointer (&self->providers, g_hash_table_unref);
  g_clear_pointer (&self->callers, g_hash_table_unref);
  g_clear_pointer (&self->agents, g_hash_table_unref);
  g_clear_pointer (&self->grants, g_hash_table_unref);
  g_clear_pointer (&self->agent_key, g_bytes_unref);
  g_clear_pointer (&self->bookkeeping, g_hash_table_unref);
  g_clear_pointer (&self->context, g_main_context_unref);
  g_clear_pointer (&self->path, g_free);

  G_OBJECT_CLASS (lumo_policy_parent_class)->finalize (object);
}

static void
lumo_policy_get_property (GObject    *object,
                          guint       prop_id,
                          GValue     *value,
                          GParamSpec *pspec)
{
  LumoPolicy *self = LUMO_POLICY (object);

  switch (prop_id)
    {
    case PROP_PATH:
      g_value_set_string (value, self->path);
      break;
    case PROP_RATE_LIMITER:
      g_value_set_object (value, self->limiter);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
lumo_policy_set_property (GObject      *object,
                          guint         prop_id,
                          const GValue *value,
                          GParamSpec   *pspec)
{
  LumoPolicy *self = LUMO_POLICY (object);

  switch (prop_id)
    {
    case PROP_PATH:
      g_assert (self->path == NULL);
      self->path = g_value_dup_string (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
lumo_policy_class_init (LumoPolicyClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = lumo_policy_dispose;
  object_class->finalize = lumo_policy_finalize;
  object_class->get_property = lumo_policy_get_property;
  object_class->set_property = lumo_policy_set_property;

  properties[PROP_PATH] =
    g_param_spec_string ("path", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  properties[PROP_RATE_LIMITER] =
    g_param_spec_object ("rate-limiter", NULL, NULL, LUMO_TYPE_RATE_LIMITER,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[PROVIDER_CHANGED] =
    g_signal_new ("provider-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  signals[CALLER_CHANGED] =
    g_signal_new ("caller-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);
  signals[CALLER_PENDING] =
    g_signal_new ("caller-pending", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);
  signals[REVOKED] =
    g_signal_new ("revoked", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);
  signals[HISTORY_CHANGED] =
    g_signal_new ("history-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[AGENT_CHANGED] =
    g_signal_new ("agent-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  signals[GRANT_CHANGED] =
    g_signal_new ("grant-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 3, G_TYPE_STRING, G_TYPE_STRING, G_TYPE_STRING);
}

static void
lumo_policy_init (LumoPolicy *self)
{
  self->limiter = lumo_rate_limiter_new (LUMO_RATE_LIMIT_WRITES, LUMO_RATE_LIMIT_WINDOW_US);
  self->pending_limiter = lumo_rate_limiter_new (LUMO_POLICY_MAX_NEW_PENDING,
                                                 LUMO_POLICY_NEW_PENDING_WINDOW_US);
  self->providers = g_hash_table_new (g_str_hash, g_str_equal);
  self->callers = g_hash_table_new (g_str_hash, g_str_equal);
  self->agents = g_hash_table_new (g_str_hash, g_str_equal);
  self->grants = g_hash_table_new (g_str_hash, g_str_equal);
  self->data_version = -1;
  self->bookkeeping = _lumo_policy_bookkeeping_new_table ();
  self->context = g_main_context_ref_thread_default ();
}

LumoPolicy *
lumo_policy_new (const char  *path,
                 GError     **error)
{
  return g_initable_new (LUMO_TYPE_POLICY, NULL, error, "path", path, NULL);
}

const char *
lumo_policy_get_path (LumoPolicy *self)
{
  g_return_val_if_fail (LUMO_IS_POLICY (self), NULL);

  return self->path;
}

LumoRateLimiter *
lumo_policy_get_rate_limiter (LumoPolicy *self)
{
  g_return_val_if_fail (LUMO_IS_POLICY (self), NULL);

  return self->limiter;
}

void
lumo_policy_set_clock (LumoPolicy    *self,
                       LumoClockFunc  clock,
                       gpointer       user_data)
{
  g_return_if_fail (LUMO_IS_POLICY (self));

  lumo_rate_limiter_set_clock (self->limiter, clock, user_data);
  lumo_rate_limiter_set_clock (self->pending_limiter, clock, user_data);
}
