/* lumo-managed-policy-private.h — what the managed policy's two files share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * lumo-managed-policy-parse.c reads the files into a LumoManagedPolicy
 * under construction; lumo-managed-policy.c owns the type, the merge
 * rules it binds through, and the questions asked of the result;
 * lumo-managed-policy-json.c writes it out as JSON.
 */
#pragma once

#if !defined (LUMO_CORE_COMPILATION)
# error "This header is private to src/core (and its tests)."
#endif

#include "lumo-managed-policy.h"

G_BEGIN_DECLS

/* One scope: every provider (the top level of a file) or one provider
 * ("providers": {"ID": {…}}). Each source is set by the first file that
 * binds the key in its strict direction; the lists are unions. */
typedef struct
{
  LumoManagedSource  enabled_off;
  LumoManagedSource  writes_off;
  LumoManagedSource  review_on;
  LumoManagedSource  only_listed;
  LumoManagedSource  agents_forbidden;
  /* A deny list that could not be read: it could have named anyone. */
  LumoManagedSource  deny_all;
  GHashTable        *allow;     /* caller ID → LumoManagedSource * */
  GHashTable        *deny;      /* caller ID → LumoManagedSource * */
} LumoManagedScope;

struct _LumoManagedPolicy
{
  gatomicrefcount    ref_count;

  char              *dir;
  GPtrArray         *files;      /* char *, in merge order; sources point into them */
  GPtrArray         *problems;   /* LumoManagedProblem */
  GPtrArray         *linked;     /* char *: where the files' symbolic links lead, outside dir */

  LumoManagedScope   all;        /* every provider */
  GHashTable        *providers;  /* provider ID → LumoManagedScope * */

  /* Only at the top level: they are not per provider. */
  LumoManagedSource  retention;       /* the longest minimum */
  guint              retention_days;  /* 0: forever */
  LumoManagedSource  timeout_min;     /* the highest minimum */
  guint              timeout_min_s;
  LumoManagedSource  timeout_max;     /* the lowest maximum */
  guint              timeout_max_s;
  LumoManagedSource  journal_on;
};

LumoManagedPolicy *_lumo_managed_policy_new            (const char        *dir);
/* The scope of @provider_id, made on first use. */
LumoManagedScope  *_lumo_managed_policy_provider_scope (LumoManagedPolicy *self,
                                                        const char        *provider_id);
/* Sets @slot from @file:@line unless an earlier file set it. */
void               _lumo_managed_bind                  (LumoManagedSource *slot,
                                                        const char        *file,
                                                        guint              line);
void               _lumo_managed_bind_id               (GHashTable        *list,
                                                        const char        *caller_id,
                                                        const char        *file,
                                                        guint              line);
/* A file's minimum retention (0: forever) and timeout bounds, merged. */
void               _lumo_managed_bind_retention        (LumoManagedPolicy *self,
                                                        guint              days,
                                                        const char        *file,
                                                        guint              line);
void               _lumo_managed_bind_timeout          (LumoManagedPolicy *self,
                                                        guint              min_s,
                                                        guint              max_s,
                                                        const char        *file,
                                                        guint              line);
/* Every key of @scope at its strictest. */
void               _lumo_managed_scope_strictest       (LumoManagedScope  *scope,
                                                        const char        *file,
                                                        guint              line);

/* lumo-managed-policy-parse.c: reads one file's bytes into @self (@file is
 * the path as kept in self->files). */
void               _lumo_managed_policy_read_file      (LumoManagedPolicy *self,
                                                        const char        *file,
                                                        const char        *data,
                                                        gsize              len);
void               _lumo_managed_policy_add_problem    (LumoManagedPolicy *self,
                                                        const char        *file,
                                                        guint              line,
                                                        guint              column,
                                                        const char        *field,
                                                        const char        *message);
/* The whole file at its strictest: every scope key for every provider,
 * retention forever, the timeout pinned at the default, the journal on. */
void               _lumo_managed_policy_file_strictest (LumoManagedPolicy *self,
                                                        const char        *file);

G_END_DECLS
