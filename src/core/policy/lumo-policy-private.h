/* lumo-policy-private.h — the SQL side of LumoPolicy, shared by its files
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * lumo-policy-store.c owns the schema and every statement on policy.db:
 * reading rows into the boxed types, history rows, the JSON snapshots that
 * make a removal undoable, and applying an undo. It knows nothing of
 * signals or caches; lumo-policy.c wraps each call in a transaction and
 * then diffs the state to emit signals. lumo-policy-bookkeeping.c holds the
 * bookkeeping (counts, last_seen) that decisions leave in memory, and
 * writes it.
 */
#pragma once

#if !defined (LUMO_CORE_COMPILATION)
# error "This header is private to src/core (and its tests): it may speak SQL, which stays out of the app and the CLI."
#endif

#include <gio/gio.h>
#include <json-glib/json-glib.h>
#include <sqlite3.h>

#include "lumo-db.h"
#include "lumo-policy.h"

G_BEGIN_DECLS

/* Shared by lumo-policy.c (object, change notification), -decide.c (probe,
 * authorize) and -changes.c (mutations, reads). */
struct _LumoPolicy
{
  GObject           parent_instance;

  /* owned */
  char             *path;
  sqlite3          *db;
  LumoRateLimiter  *limiter;
  LumoRateLimiter  *pending_limiter;  /* new pending callers, by provider */
  GFileMonitor     *wal_monitor;
  GFileMonitor     *db_monitor;

  sqlite3_stmt     *data_version_stmt;

  /* The state last announced by signals, and what decisions answer from:
   * it is the file's state as long as PRAGMA data_version still reads
   * data_version (-1: unknown, reload before the next decision). */
  GHashTable       *providers;      /* id → LumoProviderInfo */
  GHashTable       *callers;        /* "provider/caller" → LumoCallerInfo */
  GHashTable       *agents;         /* agent id → LumoAgentInfo */
  /* The grants in force when the snapshot was read or last looked at by
   * the wall clock: "provider/caller/tool" → LumoGrantInfo. */
  GHashTable       *grants;
  gint64            last_history_id;
  gint64            data_version;

  /* Bookkeeping not written yet, and the one-shot timeout that writes it:
   * flush_source exists exactly while bookkeeping is not empty. */
  GHashTable       *bookkeeping;    /* "provider/caller" → LumoPolicyBookkeeping */
  GMainContext     *context;        /* the creator's thread-default context */
  GSource          *flush_source;

  /* agents.key beside the database, loaded when an agent first needs it. */
  GBytes           *agent_key;

  /* The organization's policy (lumo-policy-managed.c): what the snapshot
   * above is read under, and the monitor that follows its directory
   * (@managed_watched: that directory, or its nearest existing parent). */
  char              *managed_dir;
  LumoManagedPolicy *managed;
  GFileMonitor      *managed_monitor;
  char              *managed_watched;
  GHashTable        *managed_links;     /* path → GFileMonitor: where the files' links lead */
  gboolean           managed_loading;   /* a read runs in a thread */
  gboolean           managed_again;     /* the directory changed during it */
  gboolean           managed_closed;    /* disposed: a late read is dropped */
  guint              managed_reads;     /* bumped by every read applied in place */
  /* Review grants run out by this clock (NULL: g_get_real_time()); the
   * one-shot timeout of the earliest expiry exists only while a timed
   * grant is in force. */
  LumoClockFunc     wall_clock;
  gpointer          wall_clock_data;
  GSource          *grant_source;
};

/* After our own commit: emits the signals for what changed. The change is
 * made already, so a failure here is only logged; the next change or
 * refresh announces it. */
void _lumo_policy_announce (LumoPolicy *self);
/* Makes the snapshot the file's state: reloads (and announces) if another
 * connection committed since it was read. */
gboolean _lumo_policy_ensure_current (LumoPolicy  *self,
                                      GError     **error);

/* Re-reads policy.db into the snapshot under the managed policy in force
 * and emits what changed (the managed policy changed). */
gboolean _lumo_policy_resync (LumoPolicy  *self,
                              GError     **error);
void     _lumo_policy_emit_managed_changed (LumoPolicy *self);

/* ---- lumo-policy-managed.c ---- */

void     _lumo_policy_managed_init     (LumoPolicy *self);
void     _lumo_policy_managed_dispose  (LumoPolicy *self);
void     _lumo_policy_managed_finalize (LumoPolicy *self);
/* Sets the values in force (enabled, writes, review; state) from the
 * person's (user_*) and the managed policy. */
void     _lumo_policy_managed_overlay_provider (LumoPolicy       *self,
                                                LumoProviderInfo *info);
void     _lumo_policy_managed_overlay_caller   (LumoPolicy       *self,
                                                LumoCallerInfo   *info);
/* The kind of a caller by its ID: an agent if the snapshot knows it as one. */
LumoCallerKind _lumo_policy_kind_of            (LumoPolicy       *self,
                                                const char       *caller_id);
/* LUMO_ERROR_MANAGED, naming the file, when a person may not change this:
 * a switch a file binds; a caller a file denies; any agent where files
 * forbid desktop agents. */
gboolean _lumo_policy_managed_check_switch     (LumoPolicy       *self,
                                                const char       *provider_id,
                                                LumoPolicySwitch  sw,
                                                GError          **error);
gboolean _lumo_policy_managed_check_caller     (LumoPolicy       *self,
                                                const char       *provider_id,
                                                const char       *caller_id,
                                                LumoCallerKind    kind,
                                                GError          **error);
gboolean _lumo_policy_managed_check_grant      (LumoPolicy       *self,
                                                const char       *provider_id,
                                                GError          **error);
gboolean _lumo_policy_managed_check_new_agent  (LumoPolicy       *self,
                                                GError          **error);

/* A change's transaction: BEGIN IMMEDIATE, then the waiting bookkeeping,
 * so that what the change snapshots (a removal's undo data) is complete
 * and one commit writes both. */
gboolean _lumo_policy_begin          (LumoPolicy  *self,
                                      GError     **error);
/* COMMIT; the bookkeeping written by _lumo_policy_begin() is no longer
 * waiting. On failure the transaction is rolled back and it still is. */
gboolean _lumo_policy_commit         (LumoPolicy  *self,
                                      GError     **error);
/* Ends a change begun with _lumo_policy_begin(): when @ok, commits and
 * announces it; otherwise rolls it back. Returns whether it is made. */
gboolean _lumo_policy_finish         (LumoPolicy  *self,
                                      gboolean     ok,
                                      GError     **error);

/* A history origin a change may be recorded under. */
static inline gboolean
_lumo_policy_origin_is_valid (LumoPolicyOrigin origin)
{
  return origin >= LUMO_POLICY_ORIGIN_UI && origin <= LUMO_POLICY_ORIGIN_BRIDGE;
}

/* ---- lumo-policy-bookkeeping.c ---- */

/* "provider/caller" → the unwritten bookkeeping of that caller. */
GHashTable *_lumo_policy_bookkeeping_new_table (void);

/* Counts one probe (@probe) or one admitted write of a known caller now,
 * and arms the flush timeout. @display_name: as the caller gave it (it is
 * cleaned here), or NULL. */
void        _lumo_policy_bookkeeping_note      (LumoPolicy      *self,
                                                const char      *key,
                                                gboolean         probe,
                                                const char      *display_name);
/* What this instance's reads add to a row of the file. */
void        _lumo_policy_bookkeeping_overlay   (LumoPolicy      *self,
                                                LumoCallerInfo  *info);
/* Dispose: writes what waits without announcing it, and stops the timer. */
void        _lumo_policy_bookkeeping_dispose   (LumoPolicy      *self);

/* The kind a new caller row gets: an ID of the agents table is an agent.
 * The one place that says so, for every insert (a person's allow of an
 * agent ID, a probe, an undo), so a caller row never disagrees with the
 * agents table. @id_sql is the SQL expression of the caller's ID. */
#define LUMO_POLICY_CALLER_KIND_SQL(id_sql) \
  "CASE WHEN EXISTS (SELECT 1 FROM agents WHERE agents.id = " id_sql ") " \
  "THEN 'agent' ELSE 'extension' END"

extern const LumoMigration lumo_policy_migrations[];
extern const guint lumo_policy_n_migrations;

/* Bounds on what a provider or caller may tell us about itself: the names
 * are shown in the UI and never trusted. */
/* Bytes, as on the wire (LUMO_BRIDGE_MAX_DISPLAY_LEN). */
#define LUMO_POLICY_MAX_DISPLAY_LEN 128

char             *_lumo_policy_store_clean_text      (const char        *text);
/* Steps a statement that returns no rows; @what starts the error message. */
gboolean          _lumo_policy_store_step_done       (sqlite3           *db,
                                                      sqlite3_stmt      *stmt,
                                                      const char        *what,
                                                      GError           **error);

LumoProviderInfo *_lumo_policy_store_get_provider    (sqlite3           *db,
                                                      const char        *provider_id,
                                                      GError           **error);
GPtrArray        *_lumo_policy_store_list_providers  (sqlite3           *db,
                                                      GError           **error);
LumoCallerInfo   *_lumo_policy_store_get_caller      (sqlite3           *db,
                                                      const char        *provider_id,
                                                      const char        *caller_id,
                                                      GError           **error);
GPtrArray        *_lumo_policy_store_list_callers    (sqlite3           *db,
                                                      const char        *provider_id,
                                                      LumoCallerState    state,
                                                      GError           **error);
GPtrArray        *_lumo_policy_store_list_history    (sqlite3           *db,
                                                      guint              limit,
                                                      GError           **error);
gint64            _lumo_policy_store_last_history_id (sqlite3           *db,
                                                      GError           **error);

/* 1 if any provider ever said hello (see lumo_policy_has_seen_provider()),
 * 0 if none did, -1 with @error on a database error. */
int               _lumo_policy_store_has_seen_provider (sqlite3         *db,
                                                        GError         **error);

gboolean          _lumo_policy_store_add_history     (sqlite3           *db,
                                                      LumoPolicyOrigin   origin,
                                                      const char        *provider_id,
                                                      const char        *caller_id,
                                                      const char        *field,
                                                      const char        *old_value,
                                                      const char        *new_value,
                                                      const char        *snapshot,
                                                      gint64             undoes,
                                                      GError           **error);

gboolean          _lumo_policy_store_insert_provider (sqlite3           *db,
                                                      const char        *provider_id,
                                                      gboolean           watched,
                                                      GError           **error);
gboolean          _lumo_policy_store_set_switch      (sqlite3           *db,
                                                      const char        *provider_id,
                                                      LumoPolicySwitch   sw,
                                                      gboolean           on,
                                                      GError           **error);
/* Inserts the caller in @state, or changes the state of an existing one. */
gboolean          _lumo_policy_store_put_caller      (sqlite3           *db,
                                                      const char        *provider_id,
                                                      const char        *caller_id,
                                                      LumoCallerState    state,
                                                      const char        *display_name,
                                                      GError           **error);

/* Deletes and returns a JSON snapshot from which restore() rebuilds the
 * rows exactly (free with g_free). */
char             *_lumo_policy_store_remove_provider (sqlite3           *db,
                                                      const char        *provider_id,
                                                      GError           **error);
char             *_lumo_policy_store_remove_caller   (sqlite3           *db,
                                                      const char        *provider_id,
                                                      const char        *caller_id,
                                                      GError           **error);
gboolean          _lumo_policy_store_restore_provider (sqlite3          *db,
                                                       const char       *snapshot,
                                                       GError          **error);
gboolean          _lumo_policy_store_restore_caller  (sqlite3           *db,
                                                      const char        *snapshot,
                                                      GError           **error);

gboolean          _lumo_policy_store_add_grant_history (sqlite3         *db,
                                                        LumoPolicyOrigin origin,
                                                        const char      *provider_id,
                                                        const char      *caller_id,
                                                        const char      *tool,
                                                        const char      *old_value,
                                                        const char      *new_value,
                                                        const char      *snapshot,
                                                        gint64           undoes,
                                                        GError         **error);

/* ---- review grants: lumo-policy-grants.c ---- */

gint64            _lumo_policy_wall_now              (LumoPolicy        *self);
/* In force at @now (wall µs): always, or made at or before @now and not
 * run out. */
gboolean          _lumo_policy_grant_is_live         (const LumoGrantInfo *grant,
                                                      gint64             now);
/* "provider/caller/tool", the key of the snapshot's grants. */
char             *_lumo_policy_grant_key             (const char        *provider_id,
                                                      const char        *caller_id,
                                                      const char        *tool);
/* Rows of grants (in force or not); each filter NULL = any. */
GPtrArray        *_lumo_policy_store_list_grants     (sqlite3           *db,
                                                      const char        *provider_id,
                                                      const char        *caller_id,
                                                      const char        *tool,
                                                      GError           **error);
/* The grants in force at @now, keyed as the snapshot keeps them. */
GHashTable       *_lumo_policy_store_load_grants     (sqlite3           *db,
                                                      gint64             now,
                                                      GError           **error);
/* Adds the member "grants" to the object @builder is in: the grant rows
 * of one caller, which _lumo_policy_store_restore_grants() puts back
 * (after the caller row, which must be allowed). *@n_grants (optional)
 * says how many. */
gboolean          _lumo_policy_store_build_grants    (sqlite3           *db,
                                                      JsonBuilder       *builder,
                                                      const char        *provider_id,
                                                      const char        *caller_id,
                                                      guint             *n_grants,
                                                      GError           **error);
/* The "grants" of @o, if it has the member. */
gboolean          _lumo_policy_store_restore_grants  (sqlite3           *db,
                                                      JsonObject        *o,
                                                      GError           **error);
/* One grant as a snapshot ({"grants": [it]}) for its history entry. */
char             *_lumo_policy_grant_snapshot        (const LumoGrantInfo *grant);
/* The grants of one caller as a snapshot, before a change clears them (a
 * deny); "" when it has none, NULL on error. restore puts them back. */
char             *_lumo_policy_store_grants_snapshot (sqlite3           *db,
                                                      const char        *provider_id,
                                                      const char        *caller_id,
                                                      GError           **error);
gboolean          _lumo_policy_store_restore_grants_snapshot (sqlite3     *db,
                                                              const char  *snapshot,
                                                              GError     **error);
/* Drops the grants that ran out from the snapshot (::grant-changed for
 * each) and arms the timeout for the next; arm() only re-arms. */
void              _lumo_policy_grants_expire         (LumoPolicy        *self);
void              _lumo_policy_grants_arm            (LumoPolicy        *self);
/* lumo-policy.c */
void              _lumo_policy_emit_grant_changed    (LumoPolicy        *self,
                                                      const char        *provider_id,
                                                      const char        *caller_id,
                                                      const char        *tool);

/* ---- desktop agents: lumo-policy-agents.c, -snapshot.c ---- */

GPtrArray        *_lumo_policy_store_list_agents     (sqlite3           *db,
                                                      GError           **error);
/* Deletes the agent and its caller rows; returns the JSON snapshot from
 * which restore_agent() rebuilds them (its token MAC too, never a token). */
char             *_lumo_policy_store_remove_agent    (sqlite3           *db,
                                                      const char        *agent_id,
                                                      GError           **error);
gboolean          _lumo_policy_store_restore_agent   (sqlite3           *db,
                                                      const char        *snapshot,
                                                      GError           **error);

/* Inside a transaction: reverts the newest undoable entry and records the
 * undo. Returns the reverted entry. */
LumoHistoryEntry *_lumo_policy_store_undo_last       (sqlite3           *db,
                                                      LumoPolicyOrigin   origin,
                                                      GError           **error);

G_END_DECLS
