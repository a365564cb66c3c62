/* lumo-audit-store.h — the append-only audit log of every write attempt
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoAuditStore owns audit.db (SQLite, WAL, synchronous=FULL, STRICT
 * tables, trusted_schema=OFF, defensive mode, quick_check at open; opened
 * through lumo_db_open()), the per-install secret (audit.key, see
 * lumo-audit-secret.h), the head checkpoint (audit.head, see
 * lumo-audit-chain.h), one writer thread, and a small pool of reader
 * connections.
 *
 * DURABILITY BEFORE DECISION. lumo_audit_store_append() returns an id only
 * after the row is committed and fsync'd. If the row cannot be written (disk
 * full: LUMO_ERROR_DB_FULL; I/O error: LUMO_ERROR_DB_IO; or any other
 * LUMO_ERROR_DB*), it returns 0 and an error, and nothing of the row
 * remains (one exception, a failed fsync followed by a crash, is described
 * in lumo-audit-chain.h). The caller (the backend) must then deny the write
 * with reason "audit_failed": a write is never allowed unaudited.
 *
 * GROUP COMMIT. Appends and results from any thread go into one queue. The
 * writer thread takes everything queued, commits it in one transaction (one
 * fsync), then wakes the callers of that batch. The sync calls block the calling thread
 * (never call them on the main thread of a UI); the _async calls never block
 * the thread they are called from and complete on its thread-default main
 * context. The last reference may be dropped on any thread but the
 * writer's (which never holds one), also from a callback or right after a
 * sync call returns: dispose waits for every queued op to commit. Other
 * processes may write the same file at once; the chain stays
 * one chain because each transaction reads the tail under the write lock.
 *
 * APPEND-ONLY. Triggers refuse every UPDATE except filling in the result
 * columns of a row whose result is still NULL, and every DELETE except the
 * one lumo_audit_store_apply_retention() runs (it writes a cutoff row in the
 * same transaction, which the trigger checks, and removes it before commit).
 * The chain covers the decision fields; the result carries its own MAC bound
 * to the row hash, so filling it in later keeps the chain valid.
 *
 * SEARCH. An FTS5 trigram index (audit_fts: external content, detail=none)
 * over tool, caller id and name, target and result text. detail=none keeps
 * it at about 95 bytes a row, but it knows only which rows hold a trigram,
 * so a term longer than three characters is looked up by a cover of its
 * trigrams and re-checked on the row, its case folded as the index folds
 * it (see lumo-audit-query.h). The index is written off the decision path:
 * an append's transaction holds its row alone, and the writer thread
 * indexes the rows above a watermark afterwards, when it is idle or the
 * oldest of them is 0.5 s old (lumo-audit-writer.c); after a crash the
 * next catch-up (at open, or after any commit) indexes what the index
 * lacks. A search scans the rows above the watermark meanwhile, so every
 * committed row is found at once (lumo-audit-store-pages.c). It is
 * written by the store, not by triggers: trusted_schema=OFF forbids
 * virtual tables in triggers, and SQLite 3.40's FTS5 is not marked
 * innocuous.
 *
 * HEAD CHECKPOINT. After each group commit, and before any waiter is told
 * its row is durable, audit.head is updated in place (one pwrite into the
 * older of its two slots; no rename, no fsync of its own). So after a
 * crash it may lag the database but never lead it; see lumo-audit-chain.h
 * and lumo-audit-head.c.
 *
 * SYSTEM JOURNAL. With lumo_audit_store_set_journal() on, every row this
 * store appends is also sent to journald once it is durable, as one
 * structured entry (MESSAGE_ID LUMO_AUDIT_JOURNAL_MESSAGE_ID), and every
 * result it fills in as a second entry for the same row, once that is
 * durable: MESSAGE (one readable line), PRIORITY (5 for a denial or a
 * failed tool, else 6), SYSLOG_IDENTIFIER=lumo-access, LUMO_ENTRY (the
 * row id), LUMO_TOOL, LUMO_CALLER (its ID), LUMO_CALLER_NAME,
 * LUMO_CALLER_KIND (extension, agent), LUMO_PROVIDER, LUMO_DECISION
 * (allow, deny, pending-review), LUMO_REASON ("" for none),
 * LUMO_BY_GRANT (0, 1), LUMO_RESULT (pending or denied at the decision,
 * ok or error with the result), LUMO_TARGET ("" for none),
 * LUMO_PARAMS_HMAC and LUMO_ENTRY_HASH (hex, as in an export). Never the
 * params, a preview or any source. The entries are sent by a thread of
 * their own after the callers are woken: a journald that is missing,
 * slow or stuck never delays or fails an append (entries it does not take
 * in time are dropped, and a warning says how many). Imported rows are
 * not sent. Off by default; docs/admin.md shows the query and shipping.
 *
 * NO SCRIPT SOURCE. There is no column, argument or code path through which
 * tool arguments or script source reach the store: append takes the
 * provider's SHA-256 of the canonical arguments (stored keyed, see
 * lumo_audit_store_key_params_hash()) and a target that must be a UUID.
 * Free text is limited to the caller's display name and the result's error
 * text, which is cut to LUMO_AUDIT_RESULT_TEXT_MAX bytes.
 *
 * SIGNALS AND PROPERTIES FOR A VIEW (the Audit page). All are emitted on
 * the main context that was the thread-default when the store was created,
 * never on the writer thread:
 *
 *   ::row-added (gint64 id)   a row this store appended is durable: show it
 *                             (re-run the first page of the current query,
 *                             or fetch the row and test it).
 *   ::result-set (gint64 id)  this store filled in row @id's result (after
 *                             it is durable): re-read just that row
 *                             (lumo_audit_store_get_row()) instead of
 *                             polling; its outcome may have changed.
 *   ::changed ()              another connection (another process: the
 *                             CLI, a second app; or another store on the
 *                             file) committed: rows may have been added,
 *                             results filled in, old rows removed. Re-read
 *                             the first page and the count. Comes within
 *                             about a second of the commit, from a file
 *                             monitor on the WAL — nothing polls, and
 *                             nothing runs while the file is still.
 *   :integrity, :integrity-message
 *                             the quick_check at open (below): CHECKING,
 *                             then OK or FAILED with what is damaged
 *                             (notify::integrity). Show a banner when
 *                             FAILED: writes are refused from then on.
 *
 * A view pages with lumo_audit_store_fetch_sorted() (keyset paging in any
 * order; the last row of a page is the cursor of the next), counts with
 * lumo_audit_store_count() and shows lumo_audit_store_stats() of the same
 * query above the list; all three have _async forms that run on the
 * store's reader pool.
 *
 * INTEGRITY CHECK AT OPEN. lumo_audit_store_new() reads only the header
 * and the schema version (a file that is not a database, or a newer
 * schema, still fails it at once). The full PRAGMA quick_check (seconds
 * on a big log) runs on the writer thread before it takes its first op;
 * the :integrity property is LUMO_AUDIT_INTEGRITY_CHECKING until then.
 * Writes queued meanwhile wait; if the check fails, they and every later
 * write fail with LUMO_ERROR_DB_CORRUPT (so the backend denies: never
 * unaudited), :integrity becomes LUMO_AUDIT_INTEGRITY_FAILED and
 * :integrity-message says what is damaged. Reads are served meanwhile; a
 * damaged file fails them with its own error. A collected log
 * (lumo_audit_store_open_file()) is checked before it is returned and is
 * OK from the start. The writer thread opens one
 * reader connection for the pool before the check, so a first page asked
 * for a little after open finds it ready.
 */
#pragma once

#include <gio/gio.h>

#include "lumo-types.h"
#include "lumo-audit-chain.h"
#include "lumo-audit-query.h"
#include "lumo-audit-row.h"

G_BEGIN_DECLS

/* Result texts longer than this many bytes are cut at a UTF-8 character
 * boundary and end with LUMO_AUDIT_TRUNCATION_MARKER; the stored text
 * (marker included) is never longer than the cap. */
#define LUMO_AUDIT_RESULT_TEXT_MAX    4096
#define LUMO_AUDIT_TRUNCATION_MARKER  "… [truncated]"
/* Display names longer than this are cut the same way. */
#define LUMO_AUDIT_CALLER_NAME_MAX    256

/* Reason codes as the bridge protocol spells them. The store accepts any
 * code of 1–32 characters [a-z0-9_], or "" for none. */
#define LUMO_AUDIT_REASON_DISABLED         "disabled"
#define LUMO_AUDIT_REASON_NOT_AUTHORIZED   "not_authorized"
#define LUMO_AUDIT_REASON_PENDING          "pending"
#define LUMO_AUDIT_REASON_WRITES_OFF       "writes_off"
#define LUMO_AUDIT_REASON_RATE_LIMITED     "rate_limited"
#define LUMO_AUDIT_REASON_REVIEW_REQUIRED  "review_required"
#define LUMO_AUDIT_REASON_REVIEW_REJECTED  "review_rejected"
#define LUMO_AUDIT_REASON_REVIEW_TIMEOUT   "review_timeout"
#define LUMO_AUDIT_REASON_AUDIT_FAILED     "audit_failed"

/* One call to record. Only the validated fields below exist: no arguments,
 * no preview, no source. */
typedef struct
{
  gint64             time_us;        /* wall clock µs since the epoch; 0 = now */
  const char        *provider_id;    /* lumo_is_extension_id() */
  const char        *caller_id;      /* lumo_is_extension_id() */
  const char        *caller_name;    /* display name now; NULL or "" if none */
  const char        *tool;           /* 1–57 of [A-Za-z0-9_.-] */
  gboolean           write;
  const char        *target;         /* a UUID, or NULL / "" for none */
  const char        *params_sha256;  /* 64 lowercase hex digits */
  LumoAuditDecision  decision;
  const char        *reason;         /* NULL or "" for none */
  /* What the policy says the caller is (0, the default: an extension). */
  LumoAuditCallerKind caller_kind;
  /* TRUE when a review grant let the write through without asking; only
   * with decision allow (else LUMO_ERROR_INVALID_ARGUMENT). */
  gboolean           by_grant;
} LumoAuditRecord;

/* A row to restore (lumo_audit_store_import()), e.g. from an export. The
 * rows are chained anew with new ids. */
typedef struct
{
  LumoAuditRecord  record;
  /* Already keyed (64 hex, as exported); when set, record.params_sha256 is
   * ignored. An export of another install stays keyed with that install's
   * secret. */
  const char      *params_hmac;
  LumoAuditResult  result;
  const char      *result_text;
  gint64           result_time_us;   /* 0 = record.time_us */
} LumoAuditImportRecord;

typedef enum
{
  /* RFC 4180: CRLF, a header line, quoted when needed. A cell that starts
   * with =, +, -, @, a tab or a CR (which a spreadsheet would run as a
   * formula) is written with a leading ' (the OWASP CSV-injection
   * defence), so such a cell is not byte for byte the stored value. */
  LUMO_AUDIT_EXPORT_CSV,
  LUMO_AUDIT_EXPORT_JSONL,  /* one JSON object per line, values unchanged */
} LumoAuditExportFormat;

typedef enum
{
  LUMO_AUDIT_INTEGRITY_CHECKING,
  LUMO_AUDIT_INTEGRITY_OK,
  LUMO_AUDIT_INTEGRITY_FAILED,
} LumoAuditIntegrity;

#define LUMO_TYPE_AUDIT_INTEGRITY (lumo_audit_integrity_get_type ())
GType lumo_audit_integrity_get_type (void) G_GNUC_CONST;

/* How lumo_audit_store_stats() groups rows. */
typedef enum
{
  LUMO_AUDIT_GROUP_NONE,    /* one group: every matching row */
  LUMO_AUDIT_GROUP_CALLER,  /* by caller id */
  LUMO_AUDIT_GROUP_TOOL,    /* by tool name */
  LUMO_AUDIT_GROUP_DAY,     /* by local calendar day of the row's time */
} LumoAuditGroup;

#define LUMO_TYPE_AUDIT_GROUP (lumo_audit_group_get_type ())
GType lumo_audit_group_get_type (void) G_GNUC_CONST;

/* The writes of one group. allowed + denied = total; failed counts the
 * allowed writes whose tool reported an error (so allowed - failed
 * succeeded or have no result yet). */
typedef struct
{
  char   *key;       /* caller id, tool, day "2025-01-31"; NULL for GROUP_NONE */
  char   *name;      /* GROUP_CALLER: the display name of its newest row ("" if none); else NULL */
  gint64  total;
  gint64  allowed;   /* decision allow or pending-review: let through or held */
  gint64  denied;
  gint64  failed;
} LumoAuditStats;

#define LUMO_TYPE_AUDIT_STATS (lumo_audit_stats_get_type ())
GType           lumo_audit_stats_get_type (void) G_GNUC_CONST;
LumoAuditStats *lumo_audit_stats_copy     (const LumoAuditStats *stats);
void            lumo_audit_stats_free     (LumoAuditStats       *stats);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (LumoAuditStats, lumo_audit_stats_free)

#define LUMO_TYPE_AUDIT_STORE (lumo_audit_store_get_type ())
G_DECLARE_FINAL_TYPE (LumoAuditStore, lumo_audit_store, LUMO, AUDIT_STORE, GObject)

/* @path NULL: lumo_paths_build ("audit.db"). audit.key and audit.head live
 * beside the database. Refuses a newer schema (LUMO_ERROR_DB_TOO_NEW) and a
 * damaged file (LUMO_ERROR_DB_CORRUPT), leaving either untouched. */
LumoAuditStore *lumo_audit_store_new              (const char             *path,
                                                   GError                **error);

/* LUMO_AUDIT_STORE_HOLD_CHECK: the quick_check at open (above) waits for
 * lumo_audit_store_release_check() — or for the first write a caller
 * waits on (a row, a result, an import), so a write never waits on the
 * hold and never skips the check. Retention and the news of other
 * processes' commits wait with the check. The app holds it while its
 * window draws its first screen, which the check would share the CPU and
 * the disk with. :integrity stays CHECKING until the check has run. */
typedef enum
{
  LUMO_AUDIT_STORE_FLAGS_NONE = 0,
  LUMO_AUDIT_STORE_HOLD_CHECK = 1 << 0,
} LumoAuditStoreFlags;

LumoAuditStore *lumo_audit_store_new_with_flags   (const char             *path,
                                                   LumoAuditStoreFlags     flags,
                                                   GError                **error);
/* Lets a held check start (see LUMO_AUDIT_STORE_HOLD_CHECK). Any number of
 * times, on any store: only the first call on a held one does anything. */
void            lumo_audit_store_release_check    (LumoAuditStore         *self);
/* TRUE while a held check waits for its release (or a write). */
gboolean        lumo_audit_store_get_check_held   (LumoAuditStore         *self);
const char     *lumo_audit_store_get_path         (LumoAuditStore         *self);

/* Opens a collected log read-only (see lumo-audit-file.c): another
 * machine's audit.db, copied or made with SQLite's backup, or a JSON Lines
 * export (lumo_audit_store_export()). The file is never written, nor
 * anything beside it. Search, pages, counts, summaries, export and verify
 * work as on the app's own store; writes fail with LUMO_ERROR_DB_IO.
 * @key_path (NULL: none) is that machine's audit.key: with it, verify
 * also checks the result MACs and the retention anchor, and params:
 * lookups can be keyed. Blocking (a database's quick_check, an export's
 * parse: seconds on a big log): from a UI, use the _async form.
 *
 * Errors: LUMO_ERROR_NOT_FOUND (no such file), LUMO_ERROR_SECRET (a key
 * file that is missing, readable by others or not 32 bytes),
 * LUMO_ERROR_DB_CORRUPT (a damaged or truncated database: what is
 * damaged, and up to which row it can still be read),
 * LUMO_ERROR_DB_TOO_NEW, LUMO_ERROR_DB_BUSY (a database with a non-empty
 * -wal beside it, whose rows an immutable read would miss),
 * LUMO_ERROR_INVALID_ARGUMENT (an SQLite file that is no audit log; an
 * export line that is not an audit row: the message names the file, the
 * line and the field). */
LumoAuditStore *lumo_audit_store_open_file        (const char             *path,
                                                   const char             *key_path,
                                                   GError                **error);
void            lumo_audit_store_open_file_async  (const char             *path,
                                                   const char             *key_path,
                                                   GCancellable           *cancellable,
                                                   GAsyncReadyCallback     callback,
                                                   gpointer                user_data);
LumoAuditStore *lumo_audit_store_open_file_finish (GAsyncResult           *result,
                                                   GError                **error);
/* TRUE for a collected log. */
gboolean        lumo_audit_store_is_read_only     (LumoAuditStore         *self);
/* The key file a collected log was opened with, or NULL. */
const char     *lumo_audit_store_get_key_path     (LumoAuditStore         *self);
/* The state of the quick_check at open as last seen on the store's main
 * context, and (FAILED only, else NULL) what it found. */
LumoAuditIntegrity lumo_audit_store_get_integrity (LumoAuditStore         *self);
const char     *lumo_audit_store_get_integrity_message (LumoAuditStore    *self);

/* The MESSAGE_ID of every audit entry in the system journal (see
 * "SYSTEM JOURNAL" above): journalctl MESSAGE_ID=… finds them. Fixed for
 * good: collectors filter on it. */
#define LUMO_AUDIT_JOURNAL_MESSAGE_ID "6dccb2644be84cdf90f3c45f4bd25afd"

/* Turns the copy into the system journal on or off, from any thread: the
 * rows and results committed from then on are sent (or not). The one
 * switch for every source of the setting (the app's GSettings key
 * audit-journal; managed policy). No effect on a collected log. */
void            lumo_audit_store_set_journal      (LumoAuditStore         *self,
                                                   gboolean                enabled);
gboolean        lumo_audit_store_get_journal      (LumoAuditStore         *self);

/* Returns the new row's id (> 0) once it is durable, 0 on error (see the
 * contract above). Bad input: LUMO_ERROR_INVALID_ID (provider or caller),
 * LUMO_ERROR_INVALID_ARGUMENT (anything else), naming the field. */
gint64          lumo_audit_store_append           (LumoAuditStore         *self,
                                                   const LumoAuditRecord  *record,
                                                   GError                **error);
/* The record is copied before this returns. */
void            lumo_audit_store_append_async     (LumoAuditStore         *self,
                                                   const LumoAuditRecord  *record,
                                                   GCancellable           *cancellable,
                                                   GAsyncReadyCallback     callback,
                                                   gpointer                user_data);
gint64          lumo_audit_store_append_finish    (LumoAuditStore         *self,
                                                   GAsyncResult           *result,
                                                   GError                **error);

/* Fills in the result of row @id once: LUMO_ERROR_NOT_FOUND if there is no
 * such row, LUMO_ERROR_INVALID_ARGUMENT if its result is already set or the
 * row was denied. @error_text (may be NULL) is cut to
 * LUMO_AUDIT_RESULT_TEXT_MAX. Durable when it returns TRUE. */
gboolean        lumo_audit_store_set_result       (LumoAuditStore         *self,
                                                   gint64                  id,
                                                   gboolean                ok,
                                                   const char             *error_text,
                                                   GError                **error);
void            lumo_audit_store_set_result_async (LumoAuditStore         *self,
                                                   gint64                  id,
                                                   gboolean                ok,
                                                   const char             *error_text,
                                                   GCancellable           *cancellable,
                                                   GAsyncReadyCallback     callback,
                                                   gpointer                user_data);
gboolean        lumo_audit_store_set_result_finish (LumoAuditStore        *self,
                                                    GAsyncResult          *result,
                                                    GError               **error);

/* SHA-256 hex (64 lowercase digits, what the provider sends) → the keyed
 * value stored in the row (HMAC-SHA256 under this install's secret, 64
 * lowercase hex). Use it in a "params:" filter to find the rows of a known
 * argument set. */
char           *lumo_audit_store_key_params_hash  (LumoAuditStore         *self,
                                                   const char             *sha256_hex,
                                                   GError                **error);

/* LUMO_ERROR_NOT_FOUND when there is no such row. */
/* The allowed writes recorded at or after @since_us (wall clock), oldest
 * first (LumoAuditRow): what the rate limiter counted before a restart.
 * Blocking; one indexed range query. */
GPtrArray      *lumo_audit_store_list_allowed_writes (LumoAuditStore       *self,
                                                      gint64                since_us,
                                                      GError              **error);
LumoAuditRow   *lumo_audit_store_get_row          (LumoAuditStore         *self,
                                                   gint64                  id,
                                                   GError                **error);
/* Keyset paging, newest first: rows matching @query (NULL = all) with
 * id < @before_id (0 = start at the newest), at most @limit (1–10000). The
 * next page starts before the last row's id. Returns LumoAuditRow items. */
GPtrArray      *lumo_audit_store_fetch_page       (LumoAuditStore         *self,
                                                   LumoAuditQuery         *query,
                                                   gint64                  before_id,
                                                   guint                   limit,
                                                   GCancellable           *cancellable,
                                                   GError                **error);
void            lumo_audit_store_fetch_page_async (LumoAuditStore         *self,
                                                   LumoAuditQuery         *query,
                                                   gint64                  before_id,
                                                   guint                   limit,
                                                   GCancellable           *cancellable,
                                                   GAsyncReadyCallback     callback,
                                                   gpointer                user_data);
GPtrArray      *lumo_audit_store_fetch_page_finish (LumoAuditStore        *self,
                                                    GAsyncResult          *result,
                                                    GError               **error);
/* Keyset paging in any order (see LumoAuditSortKey): rows matching @query
 * (NULL = all) that come after @after — the last row of the previous
 * page, NULL for the first page — in @key and @order, at most @limit
 * (1–10000). Ties on the key are broken by the row id in the same
 * direction, so the pages of one order together hold every matching row
 * once. No OFFSET: a page far down costs what the first one does (with an
 * index term, sorting the hits of the term). A row whose result is filled
 * in between two pages may change its place in the outcome order. A bad
 * @key or @order is LUMO_ERROR_INVALID_ARGUMENT. */
GPtrArray      *lumo_audit_store_fetch_sorted     (LumoAuditStore         *self,
                                                   LumoAuditQuery         *query,
                                                   LumoAuditSortKey        key,
                                                   LumoAuditSortOrder      order,
                                                   LumoAuditRow           *after,
                                                   guint                   limit,
                                                   GCancellable           *cancellable,
                                                   GError                **error);
void            lumo_audit_store_fetch_sorted_async (LumoAuditStore       *self,
                                                     LumoAuditQuery       *query,
                                                     LumoAuditSortKey      key,
                                                     LumoAuditSortOrder    order,
                                                     LumoAuditRow         *after,
                                                     guint                 limit,
                                                     GCancellable         *cancellable,
                                                     GAsyncReadyCallback   callback,
                                                     gpointer              user_data);
GPtrArray      *lumo_audit_store_fetch_sorted_finish (LumoAuditStore      *self,
                                                      GAsyncResult        *result,
                                                      GError             **error);
/* The number of rows matching @query (NULL = all); -1 on error. Runs on
 * its own reader connection, so it can run beside a page fetch. */
gint64          lumo_audit_store_count            (LumoAuditStore         *self,
                                                   LumoAuditQuery         *query,
                                                   GCancellable           *cancellable,
                                                   GError                **error);
void            lumo_audit_store_count_async      (LumoAuditStore         *self,
                                                   LumoAuditQuery         *query,
                                                   GCancellable           *cancellable,
                                                   GAsyncReadyCallback     callback,
                                                   gpointer                user_data);
gint64          lumo_audit_store_count_finish     (LumoAuditStore         *self,
                                                   GAsyncResult           *result,
                                                   GError                **error);

/* Summaries of the rows matching @query (NULL = all; the same search
 * language and the same rows as a page or a count of that query), grouped
 * by @group: LumoAuditStats, ordered by key (GROUP_NONE: exactly one, also
 * for no rows). The Audit page shows GROUP_NONE or GROUP_CALLER of its
 * current search above its list; lumo-access-ctl audit stats prints them. */
GPtrArray      *lumo_audit_store_stats            (LumoAuditStore         *self,
                                                   LumoAuditQuery         *query,
                                                   LumoAuditGroup          group,
                                                   GCancellable           *cancellable,
                                                   GError                **error);
void            lumo_audit_store_stats_async      (LumoAuditStore         *self,
                                                   LumoAuditQuery         *query,
                                                   LumoAuditGroup          group,
                                                   GCancellable           *cancellable,
                                                   GAsyncReadyCallback     callback,
                                                   gpointer                user_data);
GPtrArray      *lumo_audit_store_stats_finish     (LumoAuditStore         *self,
                                                   GAsyncResult           *result,
                                                   GError                **error);

/* Walks the whole log (blocking: run it in a thread; @progress is called on
 * that thread). Fails with LUMO_ERROR_CHAIN_BROKEN naming the first row that
 * was edited, deleted, reordered or inserted, or the cut-off tail; see
 * lumo-audit-chain.h. @report (may be NULL) is filled either way. */
gboolean        lumo_audit_store_verify           (LumoAuditStore         *self,
                                                   LumoAuditProgressFunc   progress,
                                                   gpointer                user_data,
                                                   GCancellable           *cancellable,
                                                   LumoAuditVerifyReport  *report,
                                                   GError                **error);

/* Deletes rows older than @days (≥ 1) days and keeps a MAC'd anchor so the
 * remainder still verifies. Returns the number of rows deleted, -1 on
 * error. */
gint64          lumo_audit_store_apply_retention  (LumoAuditStore         *self,
                                                   guint                   days,
                                                   GError                **error);

/* Streams the rows matching @query (NULL = all), newest first, by keyset
 * pages. Columns: id, time (ISO 8601 UTC), provider, caller, caller_name,
 * tool, write, target, params_hmac, decision, reason, result, result_text,
 * result_time, hash, caller_kind (extension, agent), by_grant, result_mac
 * (the result's keyed MAC in hex, null without a result). A JSON Lines
 * export of the whole log is a collected log that
 * lumo_audit_store_open_file() opens and verifies. */
gboolean        lumo_audit_store_export           (LumoAuditStore         *self,
                                                   LumoAuditQuery         *query,
                                                   LumoAuditExportFormat   format,
                                                   GOutputStream          *out,
                                                   GCancellable           *cancellable,
                                                   LumoAuditProgressFunc   progress,
                                                   gpointer                user_data,
                                                   GError                **error);

/* Appends @n_records rows in one durable transaction (all or nothing),
 * validated like append. For restoring exports and for benchmarks; rows
 * imported do not emit ::row-added. */
gboolean        lumo_audit_store_import           (LumoAuditStore              *self,
                                                   const LumoAuditImportRecord *records,
                                                   gsize                        n_records,
                                                   GError                     **error);

G_END_DECLS
