/* lumo-managed-policy.h — the organization's policy, read from policy.d
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoManagedPolicy is what the files of the managed policy directory
 * (LUMO_PATHS_MANAGED_POLICY_DIR/\*.json, docs/admin.md) say together: an
 * immutable, reference-counted value, read in one go by
 * lumo_managed_policy_load() and swapped whole when a file changes.
 *
 * It can only make things stricter than what a person chose. Each key
 * binds in its strict direction only (enabled and writes off, review on,
 * a caller denied, only listed callers, desktop agents forbidden, a
 * longer audit retention, narrower review timeout bounds, the journal
 * on); its loose value leaves the person's choice in force. Files are
 * read in lexical order and merged key by key, the stricter value
 * winning, so the source of a value is the first file that made it that
 * strict.
 *
 * A file that cannot be read or parsed counts as its strictest reading
 * (every key at its strictest, for every provider: fail closed), and a
 * value of the wrong type as the strictest reading of that key in its
 * scope; each is kept as a LumoManagedProblem with the file, line and
 * field, for the window's banner and the CLI. docs/admin.md lists every
 * key, its strict direction, and what a bad value counts as.
 */
#pragma once

#include <json-glib/json-glib.h>

#include "lumo-policy.h"

G_BEGIN_DECLS

/* The longest minimum retention a file may ask for, in days; 0 in a file
 * (and LUMO_MANAGED_RETENTION_FOREVER here) means "keep forever", as the
 * audit-retention-days setting does. */
#define LUMO_MANAGED_MAX_RETENTION_DAYS  36500
#define LUMO_MANAGED_RETENTION_FOREVER   0
/* A file larger than this is not read (a problem, its strictest reading). */
#define LUMO_MANAGED_MAX_FILE_SIZE       (1024 * 1024)
/* The symbolic links of a file followed to be watched (Linux follows 40). */
#define LUMO_MANAGED_MAX_LINK_HOPS       8

/* One thing wrong with a file. The field is the path of the key as a
 * person reads it: "writes", "providers.ID.callers.deny[2]"; NULL (and
 * line 0) for the file as a whole. */
typedef struct
{
  char  *file;
  guint  line;
  guint  column;
  char  *field;
  char  *message;   /* what is wrong, and what counts instead */
} LumoManagedProblem;

/* Where a managed value comes from: @file is NULL when no file sets it.
 * The string belongs to the LumoManagedPolicy it came from. */
typedef struct
{
  const char *file;
  guint       line;
} LumoManagedSource;

/* What the organization says of one caller of one provider. */
typedef enum
{
  LUMO_MANAGED_CALLER_NONE = 0,   /* nothing: the person decides */
  LUMO_MANAGED_CALLER_ALLOWED,    /* listed as allowed (a person's deny still wins) */
  LUMO_MANAGED_CALLER_DENIED,     /* denied: listed, not listed under onlyListedCallers,
                                   * or a desktop agent where agents are forbidden */
} LumoManagedCaller;

#define LUMO_TYPE_MANAGED_POLICY   (lumo_managed_policy_get_type ())
#define LUMO_TYPE_MANAGED_PROBLEM  (lumo_managed_problem_get_type ())

GType               lumo_managed_policy_get_type   (void) G_GNUC_CONST;
GType               lumo_managed_problem_get_type  (void) G_GNUC_CONST;
LumoManagedProblem *lumo_managed_problem_copy      (const LumoManagedProblem *problem);
void                lumo_managed_problem_free      (LumoManagedProblem       *problem);
/* "FILE:LINE: FIELD: MESSAGE" (the parts there are), for logs and the CLI. */
char               *lumo_managed_problem_to_string (const LumoManagedProblem *problem);

/* A policy that says nothing. */
LumoManagedPolicy  *lumo_managed_policy_new_empty  (void);
/* Reads every "*.json" of @dir that does not start with a dot, in
 * lexical (byte) order. Never fails: a missing directory says nothing; a
 * directory or file that cannot be read, a file that does not parse and
 * a value of the wrong type are problems, read as their strictest. Blocking
 * (small local files): the policy runs it in a thread after a change. */
LumoManagedPolicy  *lumo_managed_policy_load       (const char               *dir);
LumoManagedPolicy  *lumo_managed_policy_ref        (LumoManagedPolicy        *self);
void                lumo_managed_policy_unref      (LumoManagedPolicy        *self);
/* TRUE if both say the same from the same files (problems included). */
gboolean            lumo_managed_policy_equal      (LumoManagedPolicy        *a,
                                                    LumoManagedPolicy        *b);

/* The directory it was read from (NULL for new_empty()). */
const char         *lumo_managed_policy_get_dir      (LumoManagedPolicy *self);
/* The files read, in the order they were merged (may be empty). */
GPtrArray          *lumo_managed_policy_get_files    (LumoManagedPolicy *self);
/* LumoManagedProblem, in file order (borrowed; may be empty). */
GPtrArray          *lumo_managed_policy_get_problems (LumoManagedPolicy *self);
/* Every path a file's symbolic links go through outside the directory,
 * each hop's target to the last (char *, borrowed; may be empty): a
 * change there changes the policy as much as one in the directory. */
GPtrArray          *lumo_managed_policy_get_linked   (LumoManagedPolicy *self);
/* TRUE if no file sets anything (and nothing is wrong). */
gboolean            lumo_managed_policy_is_empty     (LumoManagedPolicy *self);

/* ---- what is in force ---------------------------------------------------- */

/* The value of @sw of @provider_id in force when the person chose @user:
 * the strict value (enabled and writes off, review on) where a file binds
 * it (@source names that file), else @user (@source->file NULL). */
gboolean            lumo_managed_policy_apply_switch (LumoManagedPolicy  *self,
                                                      const char         *provider_id,
                                                      LumoPolicySwitch    sw,
                                                      gboolean            user,
                                                      LumoManagedSource  *source);
/* What the files say of @caller_id (of @kind) on @provider_id. */
LumoManagedCaller   lumo_managed_policy_get_caller   (LumoManagedPolicy  *self,
                                                      const char         *provider_id,
                                                      const char         *caller_id,
                                                      LumoCallerKind      kind,
                                                      LumoManagedSource  *source);
/* The state in force for a caller the person left in @stored (ANY: no row):
 * the files' denial; else the person's denial; else the files' allowance;
 * else @stored. @source names the file when the files decided. */
LumoCallerState     lumo_managed_policy_apply_caller (LumoManagedPolicy  *self,
                                                      const char         *provider_id,
                                                      const char         *caller_id,
                                                      LumoCallerKind      kind,
                                                      LumoCallerState     stored,
                                                      LumoManagedSource  *source);
/* TRUE if only the callers the files list may use @provider_id. */
gboolean            lumo_managed_policy_get_only_listed (LumoManagedPolicy *self,
                                                         const char        *provider_id,
                                                         LumoManagedSource *source);
/* TRUE if desktop agents are forbidden on @provider_id (NULL: on every
 * provider, which also forbids adding agents). */
gboolean            lumo_managed_policy_get_agents_forbidden (LumoManagedPolicy *self,
                                                              const char        *provider_id,
                                                              LumoManagedSource *source);

/* The audit retention in force, in days (0: forever), when the person
 * chose @user_days: forever if either says forever, else the longer. */
guint               lumo_managed_policy_apply_retention (LumoManagedPolicy *self,
                                                         guint              user_days,
                                                         LumoManagedSource *source);
/* The review timeout in force, in seconds, when the person chose
 * @user_seconds: clamped to the files' bounds (where they cross, the lower
 * maximum). */
guint               lumo_managed_policy_apply_review_timeout (LumoManagedPolicy *self,
                                                              guint              user_seconds,
                                                              LumoManagedSource *source);
/* Whether audit rows also go to the system journal when the person chose
 * @user: on if a file says so. */
gboolean            lumo_managed_policy_apply_audit_journal (LumoManagedPolicy *self,
                                                             gboolean           user,
                                                             LumoManagedSource *source);

/* Everything it says, with the source of each value, as the CLI prints it
 * (`lumo-access-ctl policy --json`). */
JsonNode           *lumo_managed_policy_to_json      (LumoManagedPolicy *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (LumoManagedPolicy, lumo_managed_policy_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (LumoManagedProblem, lumo_managed_problem_free)

G_END_DECLS
