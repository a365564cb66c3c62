/* lumo-policy.h — who may use which provider's tools, and how that changed
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoPolicy owns policy.db (SQLite, WAL): the providers with their three
 * switches, the callers of each provider with their approval state, and the
 * policy history from which any human change can be undone. It also owns the
 * per-caller write rate limiter. Every decision of the backend (an L0 probe
 * answer, the authorization at the start of every tool call) is made here.
 *
 * Defaults for a new provider — secure but usable:
 *   enabled = on    agents may use the provider at all
 *   writes  = on    write tools may be called …
 *   review  = on    … but each write waits for a person's approval
 * and every caller starts as `pending`: nothing is allowed until a person
 * approves the caller (or adds it by ID).
 *
 * authorize() checks, in this order, and the first failing check wins:
 *   provider unknown or disabled → DISABLED
 *   caller pending               → PENDING
 *   caller not allowed           → NOT_AUTHORIZED (unknown, or denied)
 *   read tool                    → allow
 *   writes off                   → WRITES_OFF
 *   rate limit (30 / 60 s)       → RATE_LIMITED with retry-after
 *   review on, a live grant      → allow, by_grant
 *   review on                    → REVIEW_REQUIRED
 *   otherwise                    → allow
 * A rate-limit slot is consumed only when every check before it passed.
 * A grant (lumo_policy_add_grant(), made from a person's review decision)
 * stands for review only: it never skips the writes switch or the limit.
 *
 * Every change (switch, caller state, provider added/removed, a new
 * pending caller) is one transaction together with its history row; a
 * failed change changes nothing.
 *
 * Decisions (probe, authorize) answer from an in-memory snapshot of the
 * providers and callers, checked against one `PRAGMA data_version` per
 * decision: when another process (lumo-access-ctl while the app runs) has
 * committed, the snapshot is reloaded first, so its change counts at the
 * very next decision. A GFileMonitor on the WAL file also makes this
 * instance diff the snapshot against the file and emit the same signals a
 * local change would (lumo_policy_refresh() forces that check).
 *
 * Bookkeeping — probe and write counts, last_seen, a caller's refreshed
 * display name — is not a policy change: it is kept in memory and written
 * in one transaction at most LUMO_POLICY_FLUSH_DELAY_SECONDS (+1) later,
 * by a one-shot timeout on the creator's thread-default main context that
 * exists only while something is waiting. lumo_policy_flush(),
 * lumo_policy_refresh(), every change of this instance and dispose write
 * it at once. This instance's own reads (get/list callers) include what is
 * waiting; other processes, and ::caller-changed for the new counts, see it
 * only after the write — the UI's counts may be that late.
 *
 * Signals (emitted in the thread that created the policy, after the change
 * is committed):
 *   ::provider-changed (provider_id)          added, removed or any field
 *   ::caller-changed   (provider_id, caller_id) added, removed or any field
 *                      (counts and last_seen: when they are written)
 *   ::caller-pending   (provider_id, caller_id) a new caller waits for approval
 *   ::revoked          (provider_id, caller_id) the caller could use L1 (allowed
 *                      on an enabled provider) and no longer can: denied,
 *                      forgotten, provider disabled or removed, a desktop
 *                      agent removed. Close its ports (and agent sessions).
 *   ::agent-changed    (agent_id)               a desktop agent added or removed
 *   ::grant-changed    (provider_id, caller_id, tool) a review grant added,
 *                      replaced, revoked, cleared with its caller, or run out
 *   ::history-changed  ()                       new history rows
 *   ::managed-changed  ()                       the managed policy in force changed
 *                      (after the signals of the values it changed)
 *
 * Managed policy (docs/admin.md): the files of lumo_policy_get_managed_dir()
 * can make any value stricter than the person set it, never looser. Every
 * read here (get/list providers and callers), every decision and every
 * signal is of the values in force; LumoProviderInfo.user_* and
 * LumoCallerInfo.user_state keep what the person chose. A change a file
 * binds is refused with LUMO_ERROR_MANAGED naming the file. The directory
 * is followed by a file monitor; a change counts without a restart.
 *
 * Not thread-safe: use one LumoPolicy from one thread.
 */
#pragma once

#include <glib-object.h>

#include "lumo-types.h"
#include "lumo-rate-limiter.h"

G_BEGIN_DECLS

/* Where a change came from; recorded in the history. */
typedef enum
{
  LUMO_POLICY_ORIGIN_UI = 1,
  LUMO_POLICY_ORIGIN_CLI,
  LUMO_POLICY_ORIGIN_IMPORT,
  LUMO_POLICY_ORIGIN_BRIDGE,   /* automatic: hello, a probe by a new caller */
} LumoPolicyOrigin;

typedef enum
{
  LUMO_CALLER_STATE_ANY = 0,   /* only as a filter of lumo_policy_list_callers() */
  LUMO_CALLER_STATE_PENDING,
  LUMO_CALLER_STATE_ALLOWED,
  LUMO_CALLER_STATE_DENIED,
} LumoCallerState;

/* Who a caller is: an extension (its ID is Chrome's sender.id) or a
 * desktop agent the app made (lumo_policy_add_agent()). Stored with the
 * caller ("extension", "agent"), so every place that shows a caller can
 * say "desktop agent" from the policy alone. */
typedef enum
{
  LUMO_CALLER_KIND_EXTENSION = 1,
  LUMO_CALLER_KIND_AGENT,
} LumoCallerKind;

typedef enum
{
  LUMO_POLICY_SWITCH_ENABLED = 1,
  LUMO_POLICY_SWITCH_WRITES,
  LUMO_POLICY_SWITCH_REVIEW,
} LumoPolicySwitch;

/* The wire names (lumo_deny_reason_to_string()) are part of the bridge
 * protocol: disabled, not_authorized, pending, writes_off, rate_limited,
 * review_required, review_rejected, review_timeout, audit_failed. The
 * policy itself returns only the first six; the backend adds the rest.
 * NONE is "allow". */
typedef enum
{
  LUMO_DENY_REASON_NONE = 0,   /* allowed */
  LUMO_DENY_REASON_DISABLED,
  LUMO_DENY_REASON_NOT_AUTHORIZED,
  LUMO_DENY_REASON_PENDING,
  LUMO_DENY_REASON_WRITES_OFF,
  LUMO_DENY_REASON_RATE_LIMITED,
  LUMO_DENY_REASON_REVIEW_REQUIRED,
  LUMO_DENY_REASON_REVIEW_REJECTED,
  LUMO_DENY_REASON_REVIEW_TIMEOUT,
  LUMO_DENY_REASON_AUDIT_FAILED,
} LumoDenyReason;

/* The answer of lumo_policy_authorize(). REVIEW_REQUIRED means the write
 * passed every other check (and consumed a rate-limit slot); the backend
 * asks a person and then allows, or answers review_rejected/_timeout. */
typedef struct
{
  gboolean        allowed;
  LumoDenyReason  reason;           /* NONE when allowed */
  gint64          retry_after_us;   /* RATE_LIMITED only, else 0 */
  /* TRUE when review was on and a grant let the write through without
   * asking (its audit row says so); FALSE for every other answer. */
  gboolean        by_grant;
} LumoPolicyDecision;

/* The `status` of an L0 probe answer. `ready` is TRUE for every known
 * provider: readiness is a capability (the backend ANDs in its own, e.g. a
 * connected session), never a permission. */
typedef struct
{
  gboolean enabled;
  gboolean authorized;
  gboolean ready;
  gboolean pending_approval;
} LumoPolicyStatus;

/* Times are wall-clock microseconds since the Unix epoch; 0 = never. */
typedef struct
{
  char     *id;
  char     *namespace_;      /* from hello; NULL until the provider said hello */
  char     *display_name;    /* from hello; display only */
  char     *version;
  gboolean  enabled;         /* in force: the person's switch, or stricter if */
  gboolean  writes;          /* the managed policy binds it (docs/admin.md)   */
  gboolean  review;
  gboolean  watched;         /* added by hand (UI/CLI), not by a hello */
  gint64    created;
  gint64    first_seen;      /* first hello, 0 if none yet */
  gint64    last_seen;       /* latest hello */
  gboolean  user_enabled;    /* the switches as the person set them */
  gboolean  user_writes;
  gboolean  user_review;
  guint     managed;         /* bit 1 << LumoPolicySwitch: a managed file binds it */
} LumoProviderInfo;

typedef struct
{
  char            *provider_id;
  char            *id;
  char            *display_name;  /* the client name it gave; display only */
  LumoCallerState  state;         /* in force (after the managed policy) */
  gint64           first_seen;
  gint64           last_seen;     /* latest probe or admitted write */
  guint64          probe_count;
  guint64          write_count;   /* writes that passed the policy (allowed or sent to review) */
  LumoCallerKind   kind;
  LumoCallerState  user_state;    /* as the person (or the first probe) left it */
  gboolean         managed;       /* the state in force is the organization's decision */
} LumoCallerInfo;

/* One history row. @field is "provider" (values "watched"/"registered"),
 * "enabled", "writes", "review" (values "on"/"off"), "caller" (values
 * "pending"/"allowed"/"denied"), "agent" (the value is the agent's name;
 * provider_id is NULL and caller_id the agent's ID) or "grant" (values
 * "10m"/"always", lumo_grant_scope_to_string(); @tool is the tool); NULL
 * old_value means the thing did not exist, NULL new_value means it was
 * removed. */
typedef struct
{
  gint64            id;
  gint64            time;
  LumoPolicyOrigin  origin;
  char             *provider_id;   /* NULL when field is "agent" */
  char             *caller_id;     /* NULL unless field is "caller", "agent" or "grant" */
  char             *field;
  char             *old_value;
  char             *new_value;
  gint64            undoes;        /* the entry this one undid, 0 if none */
  gint64            undone_by;     /* the undo entry that reverted this one, 0 if none */
  char             *tool;          /* the qualified tool of a "grant" entry, else NULL */
} LumoHistoryEntry;

#define LUMO_TYPE_PROVIDER_INFO  (lumo_provider_info_get_type ())
#define LUMO_TYPE_CALLER_INFO    (lumo_caller_info_get_type ())
#define LUMO_TYPE_HISTORY_ENTRY  (lumo_history_entry_get_type ())

GType              lumo_provider_info_get_type  (void) G_GNUC_CONST;
LumoProviderInfo  *lumo_provider_info_copy      (const LumoProviderInfo *info);
void               lumo_provider_info_free      (LumoProviderInfo       *info);
GType              lumo_caller_info_get_type    (void) G_GNUC_CONST;
LumoCallerInfo    *lumo_caller_info_copy        (const LumoCallerInfo   *info);
void               lumo_caller_info_free        (LumoCallerInfo         *info);
GType              lumo_history_entry_get_type  (void) G_GNUC_CONST;
LumoHistoryEntry  *lumo_history_entry_copy      (const LumoHistoryEntry *entry);
void               lumo_history_entry_free      (LumoHistoryEntry       *entry);

/* A desktop agent (docs/policy.md, "Desktop agents"). Its token is never
 * here: the policy keeps only its keyed hash. */
typedef struct
{
  char   *id;           /* 32 letters a–p, random, made by the app */
  char   *name;         /* cleaned display text, ≤ LUMO_AGENT_MAX_NAME_LEN bytes */
  gint64  created;
} LumoAgentInfo;

#define LUMO_TYPE_AGENT_INFO     (lumo_agent_info_get_type ())
GType              lumo_agent_info_get_type     (void) G_GNUC_CONST;
LumoAgentInfo     *lumo_agent_info_copy         (const LumoAgentInfo    *info);
void               lumo_agent_info_free         (LumoAgentInfo          *info);

/* How long a person's approval of one write stands for the next writes of
 * the same caller and tool (docs/policy.md, "Review grants"). ONCE is no
 * grant at all: the approval of that write alone. */
typedef enum
{
  LUMO_GRANT_SCOPE_ONCE = 0,
  LUMO_GRANT_SCOPE_TEN_MINUTES,
  LUMO_GRANT_SCOPE_ALWAYS,
} LumoGrantScope;

/* The life of a TEN_MINUTES grant. */
#define LUMO_GRANT_TIMED_US  (10 * 60 * G_USEC_PER_SEC)

/* A standing approval of review: the writes of @tool by @caller_id on
 * @provider_id skip review (never the writes switch or the rate limit)
 * until @expires. Times are the policy's wall clock (µs since the epoch). */
typedef struct
{
  char            *provider_id;
  char            *caller_id;
  char            *tool;          /* qualified, "namespace.name" */
  LumoGrantScope   scope;         /* TEN_MINUTES or ALWAYS */
  gint64           created;
  gint64           expires;       /* 0 for ALWAYS */
} LumoGrantInfo;

#define LUMO_TYPE_GRANT_INFO     (lumo_grant_info_get_type ())
GType              lumo_grant_info_get_type     (void) G_GNUC_CONST;
LumoGrantInfo     *lumo_grant_info_copy         (const LumoGrantInfo    *info);
void               lumo_grant_info_free         (LumoGrantInfo          *info);

/* "once", "10m", "always": the CLI's words, D-Bus ApproveReview's and the
 * history's values. from_string is FALSE for anything else. */
const char *lumo_grant_scope_to_string     (LumoGrantScope    scope);
gboolean    lumo_grant_scope_from_string   (const char       *str,
                                            LumoGrantScope   *scope);

const char *lumo_deny_reason_to_string     (LumoDenyReason    reason);
const char *lumo_policy_origin_to_string   (LumoPolicyOrigin  origin);
const char *lumo_caller_state_to_string    (LumoCallerState   state);
/* "extension", "agent" (stored, and in the CLI's JSON). */
const char *lumo_caller_kind_to_string     (LumoCallerKind    kind);
/* FALSE for anything but "pending", "allowed", "denied". */
gboolean    lumo_caller_state_from_string  (const char       *str,
                                            LumoCallerState  *state);
/* "enabled", "writes", "review". */
const char *lumo_policy_switch_to_string   (LumoPolicySwitch  sw);
gboolean    lumo_policy_switch_from_string (const char       *str,
                                            LumoPolicySwitch *sw);

#define LUMO_TYPE_POLICY (lumo_policy_get_type ())
G_DECLARE_FINAL_TYPE (LumoPolicy, lumo_policy, LUMO, POLICY, GObject)

/* @path NULL: lumo_paths_build("policy.db"), creating the data directory.
 * LUMO_ERROR_DB_TOO_NEW / _DB_CORRUPT leave the file untouched. */
LumoPolicy        *lumo_policy_new               (const char        *path,
                                                  GError           **error);
/* @managed_dir NULL: lumo_paths_get_managed_policy_dir(). */
LumoPolicy        *lumo_policy_new_full          (const char        *path,
                                                  const char        *managed_dir,
                                                  GError           **error);
const char        *lumo_policy_get_path          (LumoPolicy        *self);
/* The limiter behind RATE_LIMITED (owned by the policy): for the live
 * meters, and for tests to inject a clock. */
LumoRateLimiter   *lumo_policy_get_rate_limiter  (LumoPolicy        *self);
/* The monotonic clock of the write limiter and of the bound on new
 * pending callers (tests). */
void               lumo_policy_set_clock         (LumoPolicy        *self,
                                                  LumoClockFunc      clock,
                                                  gpointer           user_data);
/* The wall clock (µs since the epoch) that review grants are made and run
 * out by: stored, so it must mean the same after a restart and in another
 * process (tests inject one). NULL: g_get_real_time(). */
void               lumo_policy_set_wall_clock    (LumoPolicy        *self,
                                                  LumoClockFunc      clock,
                                                  gpointer           user_data);

/* ---- decisions ---------------------------------------------------------- */

/* At most this many callers a provider has never seen become pending per
 * window (sliding), so a flood of fresh extension IDs cannot flood the
 * Requests page, the notifications or policy.db. */
#define LUMO_POLICY_MAX_NEW_PENDING        10
#define LUMO_POLICY_NEW_PENDING_WINDOW_US  (60 * G_USEC_PER_SEC)

/* The L0 status for @caller_id. An unknown (valid) caller of a known
 * provider becomes `pending` (::caller-pending); every probe counts and
 * refreshes the display name. An unknown provider answers all-FALSE and
 * records nothing. Past LUMO_POLICY_MAX_NEW_PENDING new callers of one
 * provider in the window, a new caller is refused with
 * LUMO_ERROR_LIMIT_EXCEEDED and nothing is recorded. */
gboolean  lumo_policy_probe      (LumoPolicy          *self,
                                  const char          *provider_id,
                                  const char          *caller_id,
                                  const char          *display_name,
                                  LumoPolicyStatus    *status,
                                  GError             **error);
/* Decides one tool call (see the order above). FALSE only on bad input
 * (LUMO_ERROR_INVALID_ID / _INVALID_ARGUMENT) or a database error; a denial
 * is TRUE with decision->allowed FALSE. @target and @params_hash may be
 * NULL; they are not part of the decision today. */
gboolean  lumo_policy_authorize  (LumoPolicy          *self,
                                  const char          *provider_id,
                                  const char          *caller_id,
                                  const char          *tool,
                                  gboolean             is_write,
                                  const char          *target,
                                  const char          *params_hash,
                                  LumoPolicyDecision  *decision,
                                  GError             **error);

/* ---- providers ---------------------------------------------------------- */

/* A hello: creates the provider with the defaults if it is new (history:
 * origin bridge), else refreshes namespace, name, version and last_seen.
 * Switches are never touched. */
gboolean  lumo_policy_register_provider  (LumoPolicy        *self,
                                          const char        *provider_id,
                                          const char        *namespace_,
                                          const char        *display_name,
                                          const char        *version,
                                          GError           **error);
/* Watch a provider by hand before it said hello; LUMO_ERROR_DUPLICATE if
 * it is already known. */
gboolean  lumo_policy_add_provider       (LumoPolicy        *self,
                                          const char        *provider_id,
                                          LumoPolicyOrigin   origin,
                                          GError           **error);
/* Removes the provider and its callers (undo restores both). */
gboolean  lumo_policy_remove_provider    (LumoPolicy        *self,
                                          const char        *provider_id,
                                          LumoPolicyOrigin   origin,
                                          GError           **error);
/* Setting a switch to its current value succeeds and records nothing. */
gboolean  lumo_policy_set_switch         (LumoPolicy        *self,
                                          const char        *provider_id,
                                          LumoPolicySwitch   sw,
                                          gboolean           on,
                                          LumoPolicyOrigin   origin,
                                          GError           **error);
/* LUMO_ERROR_NOT_FOUND for an unknown (valid) provider. */
LumoProviderInfo *lumo_policy_get_provider   (LumoPolicy  *self,
                                              const char  *provider_id,
                                              GError     **error);
/* LumoProviderInfo, ordered by display name then ID. */
GPtrArray        *lumo_policy_list_providers (LumoPolicy  *self,
                                              GError     **error);

/* TRUE once any provider has said hello to this store — also when it has
 * been removed since (the history keeps its registration): the app's
 * first-run set-up is over. A provider watched by hand that never said
 * hello does not count. FALSE with @error on a database error. */
gboolean          lumo_policy_has_seen_provider (LumoPolicy  *self,
                                                 GError     **error);

/* ---- callers ------------------------------------------------------------ */

/* Allow or deny; a caller that was never seen is created in that state
 * (so a person can pre-approve or block an ID). Same state: no-op. */
gboolean  lumo_policy_set_caller_state   (LumoPolicy        *self,
                                          const char        *provider_id,
                                          const char        *caller_id,
                                          LumoCallerState    state,
                                          LumoPolicyOrigin   origin,
                                          GError           **error);
gboolean  lumo_policy_allow_caller       (LumoPolicy        *self,
                                          const char        *provider_id,
                                          const char        *caller_id,
                                          LumoPolicyOrigin   origin,
                                          GError           **error);
gboolean  lumo_policy_deny_caller        (LumoPolicy        *self,
                                          const char        *provider_id,
                                          const char        *caller_id,
                                          LumoPolicyOrigin   origin,
                                          GError           **error);
/* "Add caller by ID" of the UI: allowed, with an optional display name.
 * LUMO_ERROR_DUPLICATE if the caller is already allowed. */
gboolean  lumo_policy_add_caller         (LumoPolicy        *self,
                                          const char        *provider_id,
                                          const char        *caller_id,
                                          const char        *display_name,
                                          LumoPolicyOrigin   origin,
                                          GError           **error);
/* Removes the caller; its next probe makes it pending again.
 * LUMO_ERROR_NOT_FOUND if it is not known. */
gboolean  lumo_policy_forget_caller      (LumoPolicy        *self,
                                          const char        *provider_id,
                                          const char        *caller_id,
                                          LumoPolicyOrigin   origin,
                                          GError           **error);
LumoCallerInfo *lumo_policy_get_caller   (LumoPolicy        *self,
                                          const char        *provider_id,
                                          const char        *caller_id,
                                          GError           **error);
/* LumoCallerInfo; @provider_id NULL = all providers, @state ANY = all
 * states. Newest first_seen first. */
GPtrArray *lumo_policy_list_callers      (LumoPolicy        *self,
                                          const char        *provider_id,
                                          LumoCallerState    state,
                                          GError           **error);

/* ---- history ------------------------------------------------------------ */

/* LumoHistoryEntry, newest first; @limit 0 = all. */
GPtrArray *lumo_policy_list_history      (LumoPolicy        *self,
                                          guint              limit,
                                          GError           **error);
/* Reverts the newest change that came from a person (origin ui, cli or
 * import; never an automatic bridge entry), is not itself an undo and was
 * not undone yet — so repeated undos walk back through the history. The
 * undo is recorded as an entry of @origin. @undone (optional) receives the
 * entry that was reverted. LUMO_ERROR_NOT_FOUND when there is nothing to
 * undo. */
gboolean   lumo_policy_undo_last         (LumoPolicy        *self,
                                          LumoPolicyOrigin   origin,
                                          LumoHistoryEntry **undone,
                                          GError           **error);

/* ---- desktop agents ----------------------------------------------------- */

/* A token is "lumo_" + the agent's ID + "_" + 256 random bits in base64url
 * (43 characters, no padding): LUMO_AGENT_TOKEN_LEN characters. */
#define LUMO_AGENT_TOKEN_PREFIX   "lumo_"
#define LUMO_AGENT_TOKEN_LEN      81
/* Bytes of an agent's name once cleaned. */
#define LUMO_AGENT_MAX_NAME_LEN   128

/* Creates a desktop agent named @name (cleaned: control and bidi
 * characters out, cut on a character boundary; nothing visible left is
 * LUMO_ERROR_INVALID_ARGUMENT) and makes it an allowed caller of kind
 * agent of each of @provider_ids (NULL or empty: of none; each must be a
 * known provider, else LUMO_ERROR_NOT_FOUND and nothing is created). On
 * success *@agent_id is its new random ID and *@token its bearer token —
 * the only time the token exists outside the agent: the policy keeps
 * HMAC-SHA256 (agents.key, token) and nothing else of it. One history
 * entry (field "agent"), undoable. */
gboolean        lumo_policy_add_agent          (LumoPolicy          *self,
                                                const char          *name,
                                                const char * const  *provider_ids,
                                                LumoPolicyOrigin     origin,
                                                char               **agent_id,
                                                char               **token,
                                                GError             **error);
/* Removes the agent and its caller rows of every provider (::revoked for
 * the ones that could call, ::agent-changed): its token stops working at
 * once. The history keeps the entry (never the token); undo brings the
 * agent back. LUMO_ERROR_NOT_FOUND for an unknown (valid) ID. */
gboolean        lumo_policy_remove_agent       (LumoPolicy          *self,
                                                const char          *agent_id,
                                                LumoPolicyOrigin     origin,
                                                GError             **error);
LumoAgentInfo  *lumo_policy_get_agent          (LumoPolicy          *self,
                                                const char          *agent_id,
                                                GError             **error);
/* LumoAgentInfo, ordered by name then ID. */
GPtrArray      *lumo_policy_list_agents        (LumoPolicy          *self,
                                                GError             **error);
/* TRUE if @id is a desktop agent now (after other processes' commits). */
gboolean        lumo_policy_is_agent           (LumoPolicy          *self,
                                                const char          *id);
/* The agent @token belongs to (a new string), compared in constant time.
 * NULL with LUMO_ERROR_INVALID_ARGUMENT for no token or one not of the
 * token's form, LUMO_ERROR_NOT_FOUND for a well-formed token that is no
 * agent's (unknown, removed, or wrong). The token is never logged, and
 * the messages never quote it. Permission is not checked here: an
 * agent's state per provider is its caller row's. */
char           *lumo_policy_authenticate_agent (LumoPolicy          *self,
                                                const char          *token,
                                                GError             **error);

/* ---- the managed policy ------------------------------------------------- */

/* What the files say now (borrowed; replaced whole when they change). */
LumoManagedPolicy *lumo_policy_get_managed       (LumoPolicy        *self);
const char        *lumo_policy_get_managed_dir   (LumoPolicy        *self);
/* Reads the directory now (the monitor does so by itself, in a thread)
 * and applies it: TRUE if what is in force changed (::managed-changed). */
gboolean           lumo_policy_reload_managed    (LumoPolicy        *self);
/* TRUE if a file binds @sw of @provider_id (the person cannot change it). */
gboolean           lumo_policy_is_switch_managed (LumoPolicy        *self,
                                                  const char        *provider_id,
                                                  LumoPolicySwitch   sw);
/* TRUE if a file forces review on @provider_id: then no review grant lets
 * a write skip it and none can be made (lumo_policy_add_grant() is
 * LUMO_ERROR_MANAGED); the person's grants are kept for when it goes. */
gboolean           lumo_policy_are_grants_managed (LumoPolicy       *self,
                                                   const char       *provider_id);
/* TRUE if what is in force for the caller is the organization's decision
 * (a file denies it, or allows it and the person did not deny it). */
gboolean           lumo_policy_is_caller_managed (LumoPolicy        *self,
                                                  const char        *provider_id,
                                                  const char        *caller_id);

/* ---- review grants ------------------------------------------------------ */

/* A person approved a write of @tool (qualified) by @caller_id on
 * @provider_id for ten minutes or always: until it runs out, the next
 * writes of that tool by that caller skip review. It replaces a grant the
 * caller has for the tool (a history entry either way, undoable). The
 * caller must be allowed (LUMO_ERROR_NOT_AUTHORIZED, and for an unknown
 * one LUMO_ERROR_NOT_FOUND); a grant never outlives that: denying,
 * forgetting or removing the caller, its desktop agent or its provider
 * clears it (undo brings it back). @scope ONCE is no grant
 * (LUMO_ERROR_INVALID_ARGUMENT); a tool that is not a qualified name is
 * LUMO_ERROR_INVALID_NAME. */
gboolean        lumo_policy_add_grant          (LumoPolicy          *self,
                                                const char          *provider_id,
                                                const char          *caller_id,
                                                const char          *tool,
                                                LumoGrantScope       scope,
                                                LumoPolicyOrigin     origin,
                                                GError             **error);
/* Ends the grant now (a history entry, undoable). LUMO_ERROR_NOT_FOUND
 * when there is none, or it ran out already. */
gboolean        lumo_policy_revoke_grant       (LumoPolicy          *self,
                                                const char          *provider_id,
                                                const char          *caller_id,
                                                const char          *tool,
                                                LumoPolicyOrigin     origin,
                                                GError             **error);
/* The grants in force now (by the wall clock) of @provider_id (NULL: of
 * every provider): LumoGrantInfo ordered by provider, caller, tool. */
GPtrArray      *lumo_policy_list_grants        (LumoPolicy          *self,
                                                const char          *provider_id,
                                                GError             **error);

/* ---- other processes ---------------------------------------------------- */

/* Writes the waiting bookkeeping, then checks PRAGMA data_version now
 * and, if another connection committed, diffs and emits the signals; and
 * drops the review grants the wall clock ended (::grant-changed). The
 * file monitor and the grants' timeout do this by themselves. */
gboolean   lumo_policy_refresh           (LumoPolicy        *self,
                                          GError           **error);

/* ---- bookkeeping ---------------------------------------------------------- */

/* The delay of the coalesced bookkeeping write, in seconds (a
 * g_timeout_add_seconds(), so it fires within one second more). */
#define LUMO_POLICY_FLUSH_DELAY_SECONDS 1

/* Writes the waiting probe/write counts and last_seen times in one
 * transaction now and announces them (::caller-changed). TRUE with
 * nothing to do. On failure they stay waiting for the next try. */
gboolean   lumo_policy_flush             (LumoPolicy        *self,
                                          GError           **error);
/* TRUE while bookkeeping waits in memory — exactly while the flush
 * timeout exists. */
gboolean   lumo_policy_has_unwritten_bookkeeping (LumoPolicy       *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (LumoProviderInfo, lumo_provider_info_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (LumoCallerInfo, lumo_caller_info_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (LumoHistoryEntry, lumo_history_entry_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (LumoAgentInfo, lumo_agent_info_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (LumoGrantInfo, lumo_grant_info_free)

G_END_DECLS
