/* lumo-managed-policy.c — the merge rules of the managed policy, and what
 * is in force once a person's choice meets them
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every rule of "the stricter wins" lives here, once: the binds that merge
 * one file into what earlier files said, and the apply functions that
 * combine the result with a person's value. docs/admin.md states the same
 * rules key by key; keep them together.
 */
#define G_LOG_DOMAIN "lumo-managed-policy"

#include "config.h"

#include <string.h>

#include "lumo-managed-policy-private.h"
#include "lumo-review-queue.h"

G_DEFINE_BOXED_TYPE (LumoManagedPolicy, lumo_managed_policy,
                     lumo_managed_policy_ref, lumo_managed_policy_unref)
G_DEFINE_BOXED_TYPE (LumoManagedProblem, lumo_managed_problem,
                     lumo_managed_problem_copy, lumo_managed_problem_free)

/* ---- problems -------------------------------------------------------------- */

LumoManagedProblem *
lumo_managed_problem_copy (const LumoManagedProblem *problem)
{
  LumoManagedProblem *copy;

  g_return_val_if_fail (problem != NULL, NULL);

  copy = g_memdup2 (problem, sizeof *problem);
  copy->file = g_strdup (problem->file);
  copy->field = g_strdup (problem->field);
  copy->message = g_strdup (problem->message);

  return copy;
}

void
lumo_managed_problem_free (LumoManagedProblem *problem)
{
  if (problem == NULL)
    return;

  g_free (problem->file);
  g_free (problem->field);
  g_free (problem->message);
  g_free (problem);
}

char *
lumo_managed_problem_to_string (const LumoManagedProblem *problem)
{
  GString *s;

  g_return_val_if_fail (problem != NULL, NULL);

  s = g_string_new (problem->file);
  if (problem->line > 0)
    g_string_append_printf (s, ":%u:%u", problem->line, problem->column);
  if (problem->field != NULL)
    g_string_append_printf (s, ": %s", problem->field);
  g_string_append_printf (s, ": %s", problem->message);

  return g_string_free (s, FALSE);
}

void
_lumo_managed_policy_add_problem (LumoManagedPolicy *self,
                                  const char        *file,
                                  guint              line,
                                  guint              column,
                                  const char        *field,
                                  const char        *message)
{
  LumoManagedProblem *problem = g_new0 (LumoManagedProblem, 1);

  problem->file = g_strdup (file);
  problem->line = line;
  problem->column = column;
  problem->field = g_strdup (field);
  problem->message = g_strdup (message);
  g_ptr_array_add (self->problems, problem);
}

/* ---- the type -------------------------------------------------------------- */

static void
scope_init (LumoManagedScope *scope)
{
  memset (scope, 0, sizeof *scope);
  scope->allow = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  scope->deny = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

static void
scope_clear (LumoManagedScope *scope)
{
  g_clear_pointer (&scope->allow, g_hash_table_unref);
  g_clear_pointer (&scope->deny, g_hash_table_unref);
}

static void
scope_free (LumoManagedScope *scope)
{
  scope_clear (scope);
  g_free (scope);
}

LumoManagedPolicy *
_lumo_managed_policy_new (const char *dir)
{
  LumoManagedPolicy *self = g_new0 (LumoManagedPolicy, 1);

  g_atomic_ref_count_init (&self->ref_count);
  self->dir = g_strdup (dir);
  self->files = g_ptr_array_new_with_free_func (g_free);
  self->problems = g_ptr_array_new_with_free_func ((GDestroyNotify) lumo_managed_problem_free);
  self->linked = g_ptr_array_new_with_free_func (g_free);
  scope_init (&self->all);
  self->providers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                           (GDestroyNotify) scope_free);

  return self;
}

LumoManagedPolicy *
lumo_managed_policy_new_empty (void)
{
  return _lumo_managed_policy_new (NULL);
}

LumoManagedPolicy *
lumo_managed_policy_ref (LumoManagedPolicy *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

void
lumo_managed_policy_unref (LumoManagedPolicy *self)
{
  g_return_if_fail (self != NULL);

  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;

  scope_clear (&self->all);
  g_clear_pointer (&self->providers, g_hash_table_unref);
  g_clear_pointer (&self->problems, g_ptr_array_unref);
  g_clear_pointer (&self->files, g_ptr_array_unref);
  g_clear_pointer (&self->linked, g_ptr_array_unref);
  g_free (self->dir);
  g_free (self);
}

LumoManagedScope *
_lumo_managed_policy_provider_scope (LumoManagedPolicy *self,
                                     const char        *provider_id)
{
  LumoManagedScope *scope = g_hash_table_lookup (self->providers, provider_id);

  if (scope == NULL)
    {
      scope = g_new (LumoManagedScope, 1);
      scope_init (scope);
      g_hash_table_insert (self->providers, g_strdup (provider_id), scope);
    }

  return scope;
}

const char *
lumo_managed_policy_get_dir (LumoManagedPolicy *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->dir;
}

GPtrArray *
lumo_managed_policy_get_files (LumoManagedPolicy *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->files;
}

GPtrArray *
lumo_managed_policy_get_problems (LumoManagedPolicy *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->problems;
}

GPtrArray *
lumo_managed_policy_get_linked (LumoManagedPolicy *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->linked;
}

static gboolean
scope_is_empty (const LumoManagedScope *scope)
{
  return scope->enabled_off.file == NULL && scope->writes_off.file == NULL &&
         scope->review_on.file == NULL && scope->only_listed.file == NULL &&
         scope->agents_forbidden.file == NULL && scope->deny_all.file == NULL &&
         g_hash_table_size (scope->allow) == 0 && g_hash_table_size (scope->deny) == 0;
}

gboolean
lumo_managed_policy_is_empty (LumoManagedPolicy *self)
{
  GHashTableIter iter;
  gpointer scope;

  g_return_val_if_fail (self != NULL, TRUE);

  if (self->problems->len > 0 || !scope_is_empty (&self->all) ||
      self->retention.file != NULL || self->timeout_min.file != NULL ||
      self->timeout_max.file != NULL || self->journal_on.file != NULL)
    return FALSE;

  g_hash_table_iter_init (&iter, self->providers);
  while (g_hash_table_iter_next (&iter, NULL, &scope))
    if (!scope_is_empty (scope))
      return FALSE;

  return TRUE;
}

/* ---- merging: the stricter value wins --------------------------------------- */

/* Files are merged in order, so the first file to bind a key keeps it:
 * a later one can only agree. */
void
_lumo_managed_bind (LumoManagedSource *slot,
                    const char        *file,
                    guint              line)
{
  if (slot->file != NULL)
    return;

  slot->file = file;
  slot->line = line;
}

void
_lumo_managed_bind_id (GHashTable *list,
                       const char *caller_id,
                       const char *file,
                       guint       line)
{
  LumoManagedSource *source;

  if (g_hash_table_contains (list, caller_id))
    return;

  source = g_new (LumoManagedSource, 1);
  source->file = file;
  source->line = line;
  g_hash_table_insert (list, g_strdup (caller_id), source);
}

void
_lumo_managed_bind_retention (LumoManagedPolicy *self,
                              guint              days,
                              const char        *file,
                              guint              line)
{
  gboolean longer;

  /* Forever (0) is longer than any number of days. */
  if (self->retention.file == NULL)
    longer = TRUE;
  else if (self->retention_days == LUMO_MANAGED_RETENTION_FOREVER)
    longer = FALSE;
  else
    longer = days == LUMO_MANAGED_RETENTION_FOREVER || days > self->retention_days;

  if (!longer)
    return;

  self->retention.file = file;
  self->retention.line = line;
  self->retention_days = days;
}

void
_lumo_managed_bind_timeout (LumoManagedPolicy *self,
                            guint              min_s,
                            guint              max_s,
                            const char        *file,
                            guint              line)
{
  /* Narrower wins: the highest minimum and the lowest maximum. 0 is "no
   * bound" from this file. */
  if (min_s > 0 && (self->timeout_min.file == NULL || min_s > self->timeout_min_s))
    {
      self->timeout_min.file = file;
      self->timeout_min.line = line;
      self->timeout_min_s = min_s;
    }
  if (max_s > 0 && (self->timeout_max.file == NULL || max_s < self->timeout_max_s))
    {
      self->timeout_max.file = file;
      self->timeout_max.line = line;
      self->timeout_max_s = max_s;
    }
}

void
_lumo_managed_scope_strictest (LumoManagedScope *scope,
                               const char       *file,
                               guint             line)
{
  _lumo_managed_bind (&scope->enabled_off, file, line);
  _lumo_managed_bind (&scope->writes_off, file, line);
  _lumo_managed_bind (&scope->review_on, file, line);
  _lumo_managed_bind (&scope->only_listed, file, line);
  _lumo_managed_bind (&scope->agents_forbidden, file, line);
  _lumo_managed_bind (&scope->deny_all, file, line);
}

void
_lumo_managed_policy_file_strictest (LumoManagedPolicy *self,
                                     const char        *file)
{
  _lumo_managed_scope_strictest (&self->all, file, 0);
  _lumo_managed_bind_retention (self, LUMO_MANAGED_RETENTION_FOREVER, file, 0);
  _lumo_managed_bind_timeout (self, LUMO_REVIEW_DEFAULT_TIMEOUT_S, LUMO_REVIEW_DEFAULT_TIMEOUT_S, file, 0);
  _lumo_managed_bind (&self->journal_on, file, 0);
}

/* ---- what is in force -------------------------------------------------------- */

static void
set_source (LumoManagedSource       *out,
            const LumoManagedSource *source)
{
  if (out == NULL)
    return;

  if (source != NULL)
    *out = *source;
  else
    *out = (LumoManagedSource) { NULL, 0 };
}

/* Of two bound sources, the one of the earlier file (lexical order is the
 * merge order); NULL when neither is bound. */
static const LumoManagedSource *
earlier (const LumoManagedSource *a,
         const LumoManagedSource *b)
{
  if (a == NULL || a->file == NULL)
    return b != NULL && b->file != NULL ? b : NULL;
  if (b == NULL || b->file == NULL)
    return a;

  return strcmp (a->file, b->file) <= 0 ? a : b;
}

static LumoManagedScope *
scope_of (LumoManagedPolicy *self,
          const char        *provider_id)
{
  return provider_id != NULL ? g_hash_table_lookup (self->providers, provider_id) : NULL;
}

/* @offset: a LumoManagedSource member of LumoManagedScope. */
static const LumoManagedSource *
bound_in_either (LumoManagedPolicy *self,
                 const char        *provider_id,
                 gsize              offset)
{
  LumoManagedScope *scope = scope_of (self, provider_id);

  return earlier ((const LumoManagedSource *) G_STRUCT_MEMBER_P (&self->all, offset),
                  scope != NULL ? (const LumoManagedSource *) G_STRUCT_MEMBER_P (scope, offset) : NULL);
}

static const LumoManagedSource *
listed_in_either (LumoManagedPolicy *self,
                  const char        *provider_id,
                  const char        *caller_id,
                  gboolean           deny)
{
  LumoManagedScope *scope = scope_of (self, provider_id);

  return earlier (g_hash_table_lookup (deny ? self->all.deny : self->all.allow, caller_id),
                  scope != NULL ? g_hash_table_lookup (deny ? scope->deny : scope->allow, caller_id) : NULL);
}

gboolean
lumo_managed_policy_apply_switch (LumoManagedPolicy *self,
                                  const char        *provider_id,
                                  LumoPolicySwitch   sw,
                                  gboolean           user,
                                  LumoManagedSource *source)
{
  const LumoManagedSource *bound;

  g_return_val_if_fail (self != NULL, FALSE);

  switch (sw)
    {
    case LUMO_POLICY_SWITCH_ENABLED:
      bound = bound_in_either (self, provider_id, G_STRUCT_OFFSET (LumoManagedScope, enabled_off));
      break;
    case LUMO_POLICY_SWITCH_WRITES:
      bound = bound_in_either (self, provider_id, G_STRUCT_OFFSET (LumoManagedScope, writes_off));
      break;
    case LUMO_POLICY_SWITCH_REVIEW:
      bound = bound_in_either (self, provider_id, G_STRUCT_OFFSET (LumoManagedScope, review_on));
      break;
    default:
      g_return_val_if_reached (FALSE);
    }

  set_source (source, bound);
  if (bound == NULL)
    return !!user;

  return sw == LUMO_POLICY_SWITCH_REVIEW;
}

gboolean
lumo_managed_policy_get_only_listed (LumoManagedPolicy *self,
                                     const char        *provider_id,
                                     LumoManagedSource *source)
{
  const LumoManagedSource *bound;

  g_return_val_if_fail (self != NULL, FALSE);

  bound = bound_in_either (self, provider_id, G_STRUCT_OFFSET (LumoManagedScope, only_listed));
  set_source (source, bound);
  return bound != NULL;
}

gboolean
lumo_managed_policy_get_agents_forbidden (LumoManagedPolicy *self,
                                          const char        *provider_id,
                                          LumoManagedSource *source)
{
  const LumoManagedSource *bound;

  g_return_val_if_fail (self != NULL, FALSE);

  bound = bound_in_either (self, provider_id, G_STRUCT_OFFSET (LumoManagedScope, agents_forbidden));
  set_source (source, bound);
  return bound != NULL;
}

LumoManagedCaller
lumo_managed_policy_get_caller (LumoManagedPolicy *self,
                                const char        *provider_id,
                                const char        *caller_id,
                                LumoCallerKind     kind,
                                LumoManagedSource *source)
{
  const LumoManagedSource *denied;
  const LumoManagedSource *allowed;

  g_return_val_if_fail (self != NULL, LUMO_MANAGED_CALLER_DENIED);
  g_return_val_if_fail (caller_id != NULL, LUMO_MANAGED_CALLER_DENIED);

  /* Denied wins over allowed, in one file or across files. */
  denied = listed_in_either (self, provider_id, caller_id, TRUE);
  denied = earlier (denied, bound_in_either (self, provider_id, G_STRUCT_OFFSET (LumoManagedScope, deny_all)));
  if (kind == LUMO_CALLER_KIND_AGENT)
    denied = earlier (denied, bound_in_either (self, provider_id,
                                               G_STRUCT_OFFSET (LumoManagedScope, agents_forbidden)));

  allowed = listed_in_either (self, provider_id, caller_id, FALSE);
  if (allowed == NULL)
    denied = earlier (denied, bound_in_either (self, provider_id, G_STRUCT_OFFSET (LumoManagedScope, only_listed)));

  if (denied != NULL)
    {
      set_source (source, denied);
      return LUMO_MANAGED_CALLER_DENIED;
    }

  set_source (source, allowed);
  return allowed != NULL ? LUMO_MANAGED_CALLER_ALLOWED : LUMO_MANAGED_CALLER_NONE;
}

LumoCallerState
lumo_managed_policy_apply_caller (LumoManagedPolicy *self,
                                  const char        *provider_id,
                                  const char        *caller_id,
                                  LumoCallerKind     kind,
                                  LumoCallerState    stored,
                                  LumoManagedSource *source)
{
  LumoManagedSource managed;

  g_return_val_if_fail (self != NULL, LUMO_CALLER_STATE_DENIED);

  switch (lumo_managed_policy_get_caller (self, provider_id, caller_id, kind, &managed))
    {
    case LUMO_MANAGED_CALLER_DENIED:
      set_source (source, &managed);
      return LUMO_CALLER_STATE_DENIED;

    case LUMO_MANAGED_CALLER_ALLOWED:
      /* A person's denial is stricter than the organization's allowance. */
      if (stored == LUMO_CALLER_STATE_DENIED)
        break;
      set_source (source, &managed);
      return LUMO_CALLER_STATE_ALLOWED;

    case LUMO_MANAGED_CALLER_NONE:
    default:
      break;
    }

  set_source (source, NULL);
  return stored;
}

guint
lumo_managed_policy_apply_retention (LumoManagedPolicy *self,
                                     guint              user_days,
                                     LumoManagedSource *source)
{
  g_return_val_if_fail (self != NULL, LUMO_MANAGED_RETENTION_FOREVER);

  set_source (source, NULL);

  /* The person keeping everything is already the longest. */
  if (self->retention.file == NULL || user_days == LUMO_MANAGED_RETENTION_FOREVER)
    return user_days;

  if (self->retention_days == LUMO_MANAGED_RETENTION_FOREVER || user_days < self->retention_days)
    {
      set_source (source, &self->retention);
      return self->retention_days;
    }

  return user_days;
}

guint
lumo_managed_policy_apply_review_timeout (LumoManagedPolicy *self,
                                          guint              user_seconds,
                                          LumoManagedSource *source)
{
  g_return_val_if_fail (self != NULL, user_seconds);

  set_source (source, NULL);

  /* Bounds that cross (one file's minimum above another's maximum) leave
   * no value inside both: the lower maximum, so no write waits longer
   * than any file allows. */
  if (self->timeout_max.file != NULL &&
      (user_seconds > self->timeout_max_s ||
       (self->timeout_min.file != NULL && self->timeout_min_s > self->timeout_max_s)))
    {
      set_source (source, &self->timeout_max);
      return self->timeout_max_s;
    }

  if (self->timeout_min.file != NULL && user_seconds < self->timeout_min_s)
    {
      set_source (source, &self->timeout_min);
      return self->timeout_min_s;
    }

  return user_seconds;
}

gboolean
lumo_managed_policy_apply_audit_journal (LumoManagedPolicy *self,
                                         gboolean           user,
                                         LumoManagedSource *source)
{
  g_return_val_if_fail (self != NULL, TRUE);

  if (self->journal_on.file != NULL)
    {
      set_source (source, &self->journal_on);
      return TRUE;
    }

  set_source (source, NULL);
  return !!user;
}
