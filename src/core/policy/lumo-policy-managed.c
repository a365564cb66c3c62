/* lumo-policy-managed.c — the organization's policy inside LumoPolicy:
 * reading policy.d, following its changes, and what is in force
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The policy's snapshot (what decisions answer from and the signals are
 * diffed against) holds the values in force: each provider's switches and
 * each caller's state after the managed policy (lumo-managed-policy.h),
 * with what the person chose kept beside them (user_*). So a change of a
 * policy.d file ends in the very signals a person's change would — a
 * provider turned off is ::provider-changed and ::revoked for its callers,
 * which close their ports and agent sessions — and the next decision
 * counts it.
 *
 * The directory is read once, synchronously, when the policy opens (so the
 * first decision already counts it), then again in a thread after every
 * change a GFileMonitor reports. A directory that does not exist is
 * watched through its nearest existing parent rather than by GLib's
 * polling of missing paths, so an idle app has no timer.
 */
#define G_LOG_DOMAIN "lumo-policy"

#include "config.h"

#include <string.h>

#include "lumo-error.h"
#include "lumo-managed-policy.h"
#include "lumo-paths.h"
#include "lumo-policy-private.h"
#include "lumo-protocol.h"

static void watch_managed_dir (LumoPolicy *self);
static void watch_links       (LumoPolicy        *self,
                               LumoManagedPolicy *managed);

/* ---- what is in force ---------------------------------------------------- */

static gboolean
overlay_switch (LumoPolicy       *self,
                LumoProviderInfo *info,
                LumoPolicySwitch  sw,
                gboolean          user)
{
  LumoManagedSource source;
  gboolean in_force = lumo_managed_policy_apply_switch (self->managed, info->id, sw, user, &source);

  if (source.file != NULL)
    info->managed |= 1u << sw;
  return in_force;
}

void
_lumo_policy_managed_overlay_provider (LumoPolicy       *self,
                                       LumoProviderInfo *info)
{
  info->managed = 0;
  info->enabled = overlay_switch (self, info, LUMO_POLICY_SWITCH_ENABLED, info->user_enabled);
  info->writes = overlay_switch (self, info, LUMO_POLICY_SWITCH_WRITES, info->user_writes);
  info->review = overlay_switch (self, info, LUMO_POLICY_SWITCH_REVIEW, info->user_review);
}

void
_lumo_policy_managed_overlay_caller (LumoPolicy     *self,
                                     LumoCallerInfo *info)
{
  LumoManagedSource source;

  info->state = lumo_managed_policy_apply_caller (self->managed, info->provider_id, info->id, info->kind,
                                                  info->user_state, &source);
  info->managed = source.file != NULL;
}

LumoCallerKind
_lumo_policy_kind_of (LumoPolicy *self,
                      const char *caller_id)
{
  return g_hash_table_contains (self->agents, caller_id) ? LUMO_CALLER_KIND_AGENT
                                                         : LUMO_CALLER_KIND_EXTENSION;
}

static void
set_managed_error (GError                  **error,
                   const LumoManagedSource  *source,
                   const char               *what)
{
  if (source->line > 0)
    g_set_error (error, LUMO_ERROR, LUMO_ERROR_MANAGED,
                 "%s is set by your organization in %s (line %u)", what, source->file, source->line);
  else
    g_set_error (error, LUMO_ERROR, LUMO_ERROR_MANAGED,
                 "%s is set by your organization in %s", what, source->file);
}

gboolean
_lumo_policy_managed_check_switch (LumoPolicy        *self,
                                   const char        *provider_id,
                                   LumoPolicySwitch   sw,
                                   GError           **error)
{
  LumoManagedSource source;
  g_autofree char *what = NULL;

  lumo_managed_policy_apply_switch (self->managed, provider_id, sw, FALSE, &source);
  if (source.file == NULL)
    return TRUE;

  what = g_strdup_printf ("“%s” of the provider “%s”", lumo_policy_switch_to_string (sw), provider_id);
  set_managed_error (error, &source, what);
  return FALSE;
}

gboolean
_lumo_policy_managed_check_caller (LumoPolicy      *self,
                                   const char      *provider_id,
                                   const char      *caller_id,
                                   LumoCallerKind   kind,
                                   GError         **error)
{
  LumoManagedSource source;
  g_autofree char *what = NULL;

  /* Only a denial binds a person: an allowance leaves them free to deny. */
  if (lumo_managed_policy_get_caller (self->managed, provider_id, caller_id, kind, &source) !=
      LUMO_MANAGED_CALLER_DENIED)
    return TRUE;

  what = g_strdup_printf ("Whether “%s” may use the provider “%s”", caller_id, provider_id);
  set_managed_error (error, &source, what);
  return FALSE;
}

/* A file that forces review on @provider_id asks a person for every write:
 * a standing approval is not one, so no grant is made there. */
gboolean
_lumo_policy_managed_check_grant (LumoPolicy  *self,
                                  const char  *provider_id,
                                  GError     **error)
{
  LumoManagedSource source;
  g_autofree char *what = NULL;

  lumo_managed_policy_apply_switch (self->managed, provider_id, LUMO_POLICY_SWITCH_REVIEW, FALSE, &source);
  if (source.file == NULL)
    return TRUE;

  what = g_strdup_printf ("Review of every write on the provider “%s”, with no grant to skip it,",
                          provider_id);
  set_managed_error (error, &source, what);
  return FALSE;
}

gboolean
_lumo_policy_managed_check_new_agent (LumoPolicy  *self,
                                      GError     **error)
{
  LumoManagedSource source;

  if (!lumo_managed_policy_get_agents_forbidden (self->managed, NULL, &source))
    return TRUE;

  set_managed_error (error, &source, "Whether desktop agents may be added");
  return FALSE;
}

/* ---- applying a new reading ---------------------------------------------- */

/* TRUE if @managed differs from what was in force: then the snapshot is
 * re-read under it (the signals of what changed) and ::managed-changed
 * follows. */
static gboolean
apply_managed (LumoPolicy        *self,
               LumoManagedPolicy *managed)
{
  GPtrArray *problems = lumo_managed_policy_get_problems (managed);
  g_autoptr(GError) error = NULL;

  if (lumo_managed_policy_equal (self->managed, managed))
    return FALSE;

  for (guint i = 0; i < problems->len; i++)
    {
      g_autofree char *text = lumo_managed_problem_to_string (g_ptr_array_index (problems, i));

      /* Not a warning: a person's file, shown in the window and the CLI. */
      g_message ("Managed policy: %s", text);
    }

  g_clear_pointer (&self->managed, lumo_managed_policy_unref);
  self->managed = lumo_managed_policy_ref (managed);

  /* The same diff as a change in policy.db: a value now stricter is
   * ::provider-changed, ::caller-changed and ::revoked. If policy.db cannot
   * be read, the snapshot is marked stale and the next decision reloads
   * it (under the new reading) or fails: never the old values. */
  if (!_lumo_policy_resync (self, &error))
    g_warning ("Cannot re-read the policy under the new managed policy: %s", error->message);

  _lumo_policy_emit_managed_changed (self);
  return TRUE;
}

static void
load_in_thread (GTask        *task,
                gpointer      source_object,
                gpointer      task_data,
                GCancellable *cancellable)
{
  g_task_return_pointer (task, lumo_managed_policy_load (task_data),
                         (GDestroyNotify) lumo_managed_policy_unref);
}

static void start_reload (LumoPolicy *self);

/* A read in a thread: the policy it is for, through a weak reference so
 * that a reload in flight never keeps a closed policy alive, and the count
 * of in-place reads when it began. */
typedef struct
{
  GWeakRef weak;
  guint    reads;
} Reload;

static void
on_managed_loaded_cb (GObject      *source_object,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  Reload *reload = user_data;
  g_autoptr(LumoPolicy) self = g_weak_ref_get (&reload->weak);
  g_autoptr(LumoManagedPolicy) managed = g_task_propagate_pointer (G_TASK (result), NULL);
  guint reads = reload->reads;

  g_weak_ref_clear (&reload->weak);
  g_free (reload);

  if (self == NULL || self->managed_closed)
    return;

  self->managed_loading = FALSE;
  /* lumo_policy_reload_managed() read the files after this thread began:
   * what the thread read may be older, and must not replace it. */
  if (managed != NULL && reads == self->managed_reads)
    {
      apply_managed (self, managed);
      watch_links (self, managed);
    }

  /* Changes during the read: read again, so the last one is never lost. */
  if (self->managed_again)
    start_reload (self);
}

static void
start_reload (LumoPolicy *self)
{
  g_autoptr(GTask) task = NULL;
  Reload *reload;

  if (self->managed_loading)
    {
      self->managed_again = TRUE;
      return;
    }

  self->managed_loading = TRUE;
  self->managed_again = FALSE;
  reload = g_new0 (Reload, 1);
  g_weak_ref_init (&reload->weak, self);
  reload->reads = self->managed_reads;
  task = g_task_new (NULL, NULL, on_managed_loaded_cb, reload);
  g_task_set_source_tag (task, start_reload);
  g_task_set_task_data (task, g_strdup (self->managed_dir), g_free);
  g_task_run_in_thread (task, load_in_thread);
}

gboolean
lumo_policy_reload_managed (LumoPolicy *self)
{
  g_autoptr(LumoManagedPolicy) managed = NULL;

  g_return_val_if_fail (LUMO_IS_POLICY (self), FALSE);

  managed = lumo_managed_policy_load (self->managed_dir);
  self->managed_reads++;
  watch_links (self, managed);
  return apply_managed (self, managed);
}

/* ---- following the directory -------------------------------------------- */

/* The path component below @parent on the way to @dir ("/etc" and
 * "/etc/lumo-access/policy.d" → "/etc/lumo-access"). */
static char *
next_on_the_way (const char *parent,
                 const char *dir)
{
  gsize n = strlen (parent);
  const char *rest;
  const char *slash;

  if (strncmp (dir, parent, n) != 0)
    return NULL;
  rest = dir + n;
  while (*rest == '/')
    rest++;
  if (*rest == '\0')
    return NULL;
  slash = strchr (rest, '/');

  return g_strndup (dir, slash != NULL ? (gsize) (slash - dir) : strlen (dir));
}

static gboolean
matters (LumoPolicy *self,
         GFile      *file)
{
  g_autofree char *path = file != NULL ? g_file_get_path (file) : NULL;
  g_autofree char *base = NULL;
  g_autofree char *next = NULL;

  if (path == NULL)
    return FALSE;

  /* Watching a parent: only the way down to the directory matters. */
  if (g_strcmp0 (self->managed_watched, self->managed_dir) != 0)
    {
      next = next_on_the_way (self->managed_watched, self->managed_dir);
      return g_strcmp0 (path, next) == 0;
    }

  if (g_str_equal (path, self->managed_dir))
    return TRUE;
  base = g_path_get_basename (path);
  return base[0] != '.' && g_str_has_suffix (base, ".json");
}

static void
on_managed_dir_changed_cb (GFileMonitor      *monitor,
                           GFile             *file,
                           GFile             *other_file,
                           GFileMonitorEvent  event,
                           gpointer           user_data)
{
  LumoPolicy *self = user_data;
  g_autofree char *path = g_file_get_path (file);

  if (!matters (self, file) && !matters (self, other_file))
    return;

  /* The directory came, went, or was replaced: watch what is there now. */
  if (g_strcmp0 (self->managed_watched, self->managed_dir) != 0 ||
      g_strcmp0 (path, self->managed_dir) == 0)
    watch_managed_dir (self);

  start_reload (self);
}

static void
stop_watching (LumoPolicy *self)
{
  if (self->managed_monitor == NULL)
    return;

  g_signal_handlers_disconnect_by_func (self->managed_monitor, on_managed_dir_changed_cb, self);
  g_file_monitor_cancel (self->managed_monitor);
  g_clear_object (&self->managed_monitor);
  g_clear_pointer (&self->managed_watched, g_free);
}

static void
watch_managed_dir (LumoPolicy *self)
{
  g_autofree char *watched = g_strdup (self->managed_dir);
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;

  stop_watching (self);

  /* The nearest directory that exists: the managed one, or the parent it
   * will be made in. */
  while (!g_file_test (watched, G_FILE_TEST_IS_DIR))
    {
      g_autofree char *parent = g_path_get_dirname (watched);

      if (g_str_equal (parent, watched))
        break;
      g_free (watched);
      watched = g_steal_pointer (&parent);
    }

  file = g_file_new_for_path (watched);
  if (!(self->managed_monitor = g_file_monitor_directory (file, G_FILE_MONITOR_WATCH_MOVES, NULL, &error)))
    {
      /* Decisions still count what was read; only a later change waits
       * for the next start. */
      g_warning ("Cannot watch “%s” for changes of the managed policy: %s", watched, error->message);
      return;
    }

  self->managed_watched = g_steal_pointer (&watched);
  g_signal_connect (self->managed_monitor, "changed", G_CALLBACK (on_managed_dir_changed_cb), self);
}

/* A file of the directory may be a symbolic link (configuration tools
 * like to keep the real file elsewhere): the directory's monitor sees the
 * link replaced, never its target rewritten. So each hop's target is
 * watched too, with a monitor of its own, kept in step with every
 * reading. A target whose directory does not exist is not watched (GLib
 * would poll for it); it counts from the next change anywhere else. */
static void
on_link_target_changed_cb (GFileMonitor      *monitor,
                           GFile             *file,
                           GFile             *other_file,
                           GFileMonitorEvent  event,
                           gpointer           user_data)
{
  start_reload (user_data);
}

static void
drop_link_monitor (gpointer data)
{
  GFileMonitor *monitor = data;

  g_signal_handlers_disconnect_matched (monitor, G_SIGNAL_MATCH_FUNC, 0, 0, NULL,
                                        on_link_target_changed_cb, NULL);
  g_file_monitor_cancel (monitor);
  g_object_unref (monitor);
}

static void
watch_links (LumoPolicy        *self,
             LumoManagedPolicy *managed)
{
  GPtrArray *linked = lumo_managed_policy_get_linked (managed);
  g_autoptr(GHashTable) next = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, drop_link_monitor);

  for (guint i = 0; i < linked->len; i++)
    {
      const char *path = g_ptr_array_index (linked, i);
      g_autofree char *parent = g_path_get_dirname (path);
      g_autoptr(GFileMonitor) monitor = NULL;
      g_autoptr(GFile) file = NULL;
      g_autoptr(GError) error = NULL;
      gpointer key, value;

      if (self->managed_links != NULL &&
          g_hash_table_steal_extended (self->managed_links, path, &key, &value))
        {
          g_hash_table_insert (next, key, value);
          continue;
        }
      if (!g_file_test (parent, G_FILE_TEST_IS_DIR))
        continue;

      file = g_file_new_for_path (path);
      if (!(monitor = g_file_monitor_file (file, G_FILE_MONITOR_WATCH_MOVES, NULL, &error)))
        {
          g_warning ("Cannot watch “%s”, where a file of the managed policy links to: %s",
                     path, error->message);
          continue;
        }
      g_signal_connect (monitor, "changed", G_CALLBACK (on_link_target_changed_cb), self);
      g_hash_table_insert (next, g_strdup (path), g_steal_pointer (&monitor));
    }

  /* What is left of the old set leads nowhere now. */
  g_clear_pointer (&self->managed_links, g_hash_table_unref);
  self->managed_links = g_steal_pointer (&next);
}

/* ---- life cycle ---------------------------------------------------------- */

void
_lumo_policy_managed_init (LumoPolicy *self)
{
  if (self->managed_dir == NULL)
    self->managed_dir = g_strdup (lumo_paths_get_managed_policy_dir ());

  /* Before the first snapshot, so the first decision already counts it. */
  self->managed = lumo_managed_policy_load (self->managed_dir);
  watch_managed_dir (self);
  watch_links (self, self->managed);
}

void
_lumo_policy_managed_dispose (LumoPolicy *self)
{
  /* A read in flight finds no policy to tell. */
  self->managed_closed = TRUE;
  stop_watching (self);
  g_clear_pointer (&self->managed_links, g_hash_table_unref);
}

void
_lumo_policy_managed_finalize (LumoPolicy *self)
{
  g_clear_pointer (&self->managed, lumo_managed_policy_unref);
  g_clear_pointer (&self->managed_dir, g_free);
}

/* ---- API ------------------------------------------------------------------ */

LumoManagedPolicy *
lumo_policy_get_managed (LumoPolicy *self)
{
  g_return_val_if_fail (LUMO_IS_POLICY (self), NULL);

  return self->managed;
}

const char *
lumo_policy_get_managed_dir (LumoPolicy *self)
{
  g_return_val_if_fail (LUMO_IS_POLICY (self), NULL);

  return self->managed_dir;
}

gboolean
lumo_policy_is_switch_managed (LumoPolicy       *self,
                               const char       *provider_id,
                               LumoPolicySwitch  sw)
{
  LumoManagedSource source;

  g_return_val_if_fail (LUMO_IS_POLICY (self), FALSE);
  g_return_val_if_fail (provider_id != NULL, FALSE);

  lumo_managed_policy_apply_switch (self->managed, provider_id, sw, FALSE, &source);
  return source.file != NULL;
}

gboolean
lumo_policy_are_grants_managed (LumoPolicy *self,
                                const char *provider_id)
{
  return lumo_policy_is_switch_managed (self, provider_id, LUMO_POLICY_SWITCH_REVIEW);
}

gboolean
lumo_policy_is_caller_managed (LumoPolicy *self,
                               const char *provider_id,
                               const char *caller_id)
{
  g_autoptr(LumoCallerInfo) info = NULL;

  g_return_val_if_fail (LUMO_IS_POLICY (self), FALSE);

  if (!lumo_is_extension_id (provider_id) || !lumo_is_extension_id (caller_id))
    return FALSE;

  /* A caller without a row: what its first probe would meet. */
  if (!(info = lumo_policy_get_caller (self, provider_id, caller_id, NULL)))
    return lumo_managed_policy_get_caller (self->managed, provider_id, caller_id,
                                           _lumo_policy_kind_of (self, caller_id), NULL) != LUMO_MANAGED_CALLER_NONE;

  return info->managed;
}
