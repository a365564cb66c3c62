/* lumo-audit-private.h — internal API of the audit store, for src/core and tests
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#if !defined (LUMO_CORE_COMPILATION)
# error "This header is private to src/core (and its tests): it may speak SQL, which stays out of the app and the CLI."
#endif

#include <sqlite3.h>

#include "lumo-audit-query-private.h"
#include "lumo-audit-store.h"
#include "lumo-db.h"

G_BEGIN_DECLS

/* The full constructor: explicit key and checkpoint paths (NULL: beside the
 * database) and an SQLite VFS by name (NULL: the default). Tests use a
 * fault-injecting VFS through this. */
LumoAuditStore *_lumo_audit_store_new_full   (const char      *path,
                                              const char      *key_path,
                                              const char      *head_path,
                                              const char      *vfs_name,
                                              LumoAuditStoreFlags flags,
                                              GError         **error);
/* Benchmarks only, to show what the head checkpoint costs: FALSE stops
 * writing audit.head after commits (verify then sees it lag). */
void            _lumo_audit_store_set_head_checkpoints (LumoAuditStore *self,
                                                        gboolean        enabled);
/* Tests only: TRUE while the writer thread waits for a held check's
 * release (LUMO_AUDIT_STORE_HOLD_CHECK). */
gboolean        _lumo_audit_store_is_check_waiting     (LumoAuditStore *self);
/* Tests only, to stand for a crash between a commit and the search
 * index's catch-up: FALSE stops the writer from indexing. */
void            _lumo_audit_store_set_index_catch_up   (LumoAuditStore *self,
                                                        gboolean        enabled);

/* ---- the columns of a row ------------------------------------------------ */

/* Every column of the audit table, in the one order of every statement
 * that reads or writes whole rows: the chain walk, the row reader and the
 * writer's INSERT. A statement's column i is LUMO_AUDIT_COL_…, its
 * parameter i + 1, so adding a column is one line here (and a migration in
 * lumo-audit-schema.c; ALTER TABLE ADD COLUMN puts it last, so it goes
 * last here too). X (NAME, "sql name"), separated by SEP. */
#define LUMO_AUDIT_COLUMNS(X, SEP)               \
  X (ID,             "id")             SEP \
  X (TIME_US,        "time_us")        SEP \
  X (PROVIDER_ID,    "provider_id")    SEP \
  X (CALLER_ID,      "caller_id")      SEP \
  X (CALLER_NAME,    "caller_name")    SEP \
  X (TOOL,           "tool")           SEP \
  X (WRITE,          "write")          SEP \
  X (TARGET,         "target")         SEP \
  X (PARAMS_HMAC,    "params_hmac")    SEP \
  X (DECISION,       "decision")       SEP \
  X (REASON,         "reason")         SEP \
  X (HASH,           "hash")           SEP \
  X (RESULT,         "result")         SEP \
  X (RESULT_TEXT,    "result_text")    SEP \
  X (RESULT_TIME_US, "result_time_us") SEP \
  X (RESULT_MAC,     "result_mac")     SEP \
  X (CALLER_KIND,    "caller_kind")    SEP \
  X (BY_GRANT,       "by_grant")

#define LUMO_AUDIT_COLUMN_ENUM_(name, sql)   LUMO_AUDIT_COL_##name
#define LUMO_AUDIT_COLUMN_NAME_(name, sql)   sql
#define LUMO_AUDIT_COLUMN_ALIASED_(name, sql) "a." sql
#define LUMO_AUDIT_COLUMN_PARAM_(name, sql)  "?"
#define LUMO_AUDIT_ENUM_SEP_                 ,
#define LUMO_AUDIT_SQL_SEP_                  ", "

typedef enum
{
  LUMO_AUDIT_COLUMNS (LUMO_AUDIT_COLUMN_ENUM_, LUMO_AUDIT_ENUM_SEP_),
  LUMO_AUDIT_N_COLUMNS
} LumoAuditColumn;

/* "id, time_us, …" and "?, ?, …", for the INSERT. */
#define LUMO_AUDIT_COLUMN_NAMES  LUMO_AUDIT_COLUMNS (LUMO_AUDIT_COLUMN_NAME_, LUMO_AUDIT_SQL_SEP_)
#define LUMO_AUDIT_COLUMN_PARAMS LUMO_AUDIT_COLUMNS (LUMO_AUDIT_COLUMN_PARAM_, LUMO_AUDIT_SQL_SEP_)
/* "a.id, a.time_us, …": the columns of the row aliased `a`, as queries
 * that join the index select them. */
#define LUMO_AUDIT_ROW_COLUMNS   LUMO_AUDIT_COLUMNS (LUMO_AUDIT_COLUMN_ALIASED_, LUMO_AUDIT_SQL_SEP_)

/* A row from a statement that selects LUMO_AUDIT_ROW_COLUMNS. */
LumoAuditRow   *_lumo_audit_row_new_from_stmt (sqlite3_stmt  *stmt);

/* Walks every row of @db (an audit database, see lumo-audit-store.c) in id
 * order. On the first fault, fills @report and fails with
 * LUMO_ERROR_CHAIN_BROKEN and a message that names the row; cancellation
 * gives G_IO_ERROR_CANCELLED. @checkpoint_path may be NULL (no tail check);
 * @secret NULL (a collected log without its key) checks the unkeyed chain
 * alone, and then @checkpoint_path must be NULL. */
gboolean  _lumo_audit_chain_verify           (sqlite3               *db,
                                              GBytes                *secret,
                                              const char            *checkpoint_path,
                                              LumoAuditProgressFunc  progress,
                                              gpointer               user_data,
                                              GCancellable          *cancellable,
                                              LumoAuditVerifyReport *report,
                                              GError               **error);

/* The writer connection's page cache (KiB, negative as SQLite wants it). */
#define LUMO_AUDIT_WRITER_CACHE_SIZE "-16384"
/* …and while it runs the quick_check at open: the check reads every page
 * of the file once, so a cache does not speed it up, and a full 16 MiB
 * one would stay in the app's memory until writes reuse it. */
#define LUMO_AUDIT_CHECK_CACHE_SIZE  "-256"

/* Retention's cutoff: the id of the first row not older than ?1. Among the
 * indexed rows, a walk of audit_order from its oldest row that stops at
 * the first one recent enough — one page when there is nothing to delete,
 * as at every start. (Its time index gives the same id only by reading
 * every entry of the rows kept: the whole index of a big log, 100+ ms and
 * 16 MiB of the writer's cache.) Then the rows above the watermark. */
#define LUMO_AUDIT_FIRST_KEPT_SQL \
  "SELECT min (m) FROM (SELECT m FROM (SELECT id AS m FROM audit_order NOT INDEXED " \
  "WHERE time_us >= ?1 ORDER BY id LIMIT 1) UNION ALL SELECT min (id) FROM audit " \
  "WHERE id > (SELECT indexed_to FROM audit_fts_state) AND time_us >= ?1)"

/* ---- shared by lumo-audit-store.c, -writer.c, -record.c, -store-read.c ---- */

typedef enum
{
  LUMO_AUDIT_OP_APPEND,
  LUMO_AUDIT_OP_RESULT,
  LUMO_AUDIT_OP_IMPORT,
  LUMO_AUDIT_OP_RETENTION,
  LUMO_AUDIT_OP_CHECK_CHANGES,   /* no transaction: has another connection committed? */
} LumoAuditOpKind;

/* A validated row queued for the writer thread (not durable until its op
 * is done), owned by the op. */
typedef struct
{
  gint64      time_us;
  char       *provider_id;
  char       *caller_id;
  char       *caller_name;
  char       *tool;
  gboolean    write;
  char       *target;
  guint8      params_hmac[LUMO_AUDIT_HASH_SIZE];
  const char *decision;
  char       *reason;
  const char *caller_kind;     /* "extension", "agent" */
  gboolean    by_grant;
  const char *result;          /* import only: NULL, "ok", "error" */
  char       *result_text;
  gint64      result_time_us;
} LumoAuditQueuedRow;

/* One entry for the system journal (lumo-audit-journal.c): a row as it
 * is once its commit is durable. */
typedef struct _LumoAuditJournal LumoAuditJournal;
typedef struct
{
  gint64      id;
  char       *provider_id;
  char       *caller_id;
  char       *caller_name;
  char       *tool;
  char       *target;
  char       *reason;
  const char *decision;      /* the stored spelling */
  const char *caller_kind;   /* "extension", "agent" */
  const char *outcome;       /* lumo_audit_outcome_to_string () */
  gboolean    by_grant;
  guint8      params_hmac[LUMO_AUDIT_HASH_SIZE];
  guint8      hash[LUMO_AUDIT_HASH_SIZE];
} LumoAuditJournalEntry;

/* The fields of an entry: MESSAGE_ID, PRIORITY, SYSLOG_IDENTIFIER,
 * MESSAGE and the LUMO_* ones (lumo-audit-store.h). */
#define LUMO_AUDIT_JOURNAL_N_FIELDS 17

typedef struct
{
  LumoAuditOpKind      kind;
  LumoAuditQueuedRow  *rows;         /* APPEND: 1, IMPORT: n_rows */
  gsize                n_rows;
  gint64               id;           /* RESULT: the row; APPEND: the new id */
  const char          *result;       /* RESULT */
  char                *result_text;  /* RESULT */
  gint64               time_us;      /* RESULT: when; RETENTION: the cutoff */
  gint64               count;        /* RETENTION: rows deleted */
  GTask               *task;         /* async callers */
  gboolean             done;         /* sync callers wait for this, */
  GCond               *done_cond;    /* on their own condition */
  GError              *error;
  /* APPEND, RESULT: what goes to the system journal once the commit is
   * durable, when the journal is on (else NULL). */
  LumoAuditJournalEntry *journal;
} LumoAuditOp;

struct _LumoAuditStore
{
  GObject       parent_instance;

  char         *path;
  /* A collected log (lumo-audit-file.c): no writer thread, no checkpoint,
   * readers open @uri; @secret is NULL when no key file was given. */
  gboolean      read_only;
  char         *uri;
  char         *key_path;
  guint         legacy_schema;   /* 1 or 2: an older log, read through views; 0: the newest */
  char         *head_path;
  char         *vfs_name;
  GBytes       *secret;
  GMainContext *main_context;

  /* Owned by the writer thread once it runs. */
  sqlite3      *writer_db;
  GThread      *writer;
  gint64        wal_frames;
  gboolean      no_head_checkpoints;   /* benchmarks only */
  LumoAuditHeadFile *head;             /* audit.head, its descriptor kept */
  /* The tail this connection last committed, valid while the file's data
   * version is still @tail_version (lumo-audit-writer.c). */
  gboolean      tail_kept;
  guint         tail_version;
  gint64        kept_tail_id;
  guint8        kept_tail_hash[LUMO_AUDIT_HASH_SIZE];
  sqlite3_stmt *insert_stmt;
  sqlite3_stmt *fts_insert_stmt;
  sqlite3_stmt *fts_delete_stmt;
  sqlite3_stmt *result_read_stmt;
  sqlite3_stmt *result_update_stmt;
  sqlite3_stmt *tail_stmt;
  sqlite3_stmt *anchor_tail_stmt;
  sqlite3_stmt *begin_stmt;
  sqlite3_stmt *commit_stmt;
  sqlite3_stmt *indexed_read_stmt;
  sqlite3_stmt *indexed_write_stmt;
  sqlite3_stmt *index_rows_stmt;
  sqlite3_stmt *order_rows_stmt;
  sqlite3_stmt *order_update_stmt;
  /* Monotonic time of the oldest commit whose rows the search index may
   * lack, 0 when caught up (see lumo-audit-writer.c). */
  gint64        unindexed_since;
  gboolean      no_index_catch_up;     /* tests only */
  /* The system journal (lumo-audit-journal.c): the switch any thread
   * flips, and the sender, made (under lock) the first time it is on. */
  gint          journal_enabled;
  LumoAuditJournal *journal;
  sqlite3_stmt *data_version_stmt;
  gint64        data_version;          /* as the writer connection last read it */

  /* Main context only: the WAL file's monitor (see ::changed). */
  GFileMonitor *wal_monitor;
  /* Set once by the writer thread before its first op; every op fails
   * with a copy when set. */
  GError       *integrity_error;

  /* The integrity check as the main context last saw it (properties). */
  LumoAuditIntegrity integrity;
  char         *integrity_message;

  /* lock protects everything below. */
  GMutex        lock;
  GCond         queue_cond;
  GQueue        queue;
  gboolean      stopping;
  GPtrArray    *idle_readers;
  GArray       *added_ids;
  gboolean      added_scheduled;
  GArray       *result_ids;
  gboolean      checking;           /* quick_check is running */
  gboolean      check_held;         /* LUMO_AUDIT_STORE_HOLD_CHECK, not yet released */
  gboolean      check_waiting;      /* the writer waits for that release */
  gboolean      changes_pending;    /* ::changed awaits the main context */
  gboolean      check_queued;       /* a CHECK_CHANGES op is queued */
  gboolean      new_integrity_set;  /* a new state awaits the main context */
  LumoAuditIntegrity new_integrity;
  char         *new_integrity_message;
};

/* lumo-audit-record.c */
char     *_lumo_audit_truncate_text       (const char             *text,
                                           gsize                   max_bytes);
gboolean  _lumo_audit_validate_record     (GBytes                 *secret,
                                           const LumoAuditRecord  *record,
                                           const char             *params_hmac_hex,
                                           LumoAuditQueuedRow     *row,
                                           GError                **error);
gboolean  _lumo_audit_validate_result     (gboolean                ok,
                                           const char             *error_text,
                                           GError                **error);

/* lumo-audit-writer.c */
void      _lumo_audit_op_free             (LumoAuditOp            *op);
void      _lumo_audit_writer_enqueue      (LumoAuditStore         *self,
                                           LumoAuditOp            *op);
gboolean  _lumo_audit_writer_run_sync     (LumoAuditStore         *self,
                                           LumoAuditOp            *op,
                                           GError                **error);
gpointer  _lumo_audit_writer_thread       (gpointer                data);
int       _lumo_audit_writer_wal_hook     (gpointer                user_data,
                                           sqlite3                *db,
                                           const char             *db_name,
                                           int                     n_frames);
/* The writer connection's kept statements and transactions, for
 * lumo-audit-writer.c and lumo-audit-writer-index.c (writer thread only). */
sqlite3_stmt *_lumo_audit_writer_cached   (LumoAuditStore         *self,
                                           sqlite3_stmt          **slot,
                                           const char             *sql,
                                           GError                **error);
gboolean  _lumo_audit_writer_step_done    (LumoAuditStore         *self,
                                           sqlite3_stmt           *stmt,
                                           const char             *what,
                                           GError                **error);
gboolean  _lumo_audit_writer_begin        (LumoAuditStore         *self,
                                           GError                **error);
/* Rolls back when it fails. */
gboolean  _lumo_audit_writer_commit       (LumoAuditStore         *self,
                                           GError                **error);
/* After a commit that left @id and @hash the tail: the next transaction
 * takes them without a query while nobody else changed the file. */
void      _lumo_audit_writer_keep_tail    (LumoAuditStore         *self,
                                           gint64                  id,
                                           const guint8           *hash);
/* The newest row's (or the retention anchor's) id and hash. */
gboolean  _lumo_audit_writer_read_tail    (LumoAuditStore         *self,
                                           gint64                 *id,
                                           guint8                 *hash,
                                           GError                **error);

/* lumo-audit-writer-ops.c: inside the writer's transaction. FALSE only for
 * a failure of the database (which fails the batch); a request that
 * cannot be honoured is the op's own error. */
gboolean  _lumo_audit_writer_insert_row   (LumoAuditStore           *self,
                                           const LumoAuditQueuedRow *row,
                                           gint64                   *tail_id,
                                           guint8                   *tail_hash,
                                           GError                  **error);
gboolean  _lumo_audit_writer_import_rows  (LumoAuditStore         *self,
                                           LumoAuditOp            *op,
                                           gint64                 *tail_id,
                                           guint8                 *tail_hash,
                                           GError                **error);
/* @journal: fill in op->journal (the journal is on). */
gboolean  _lumo_audit_writer_set_result   (LumoAuditStore         *self,
                                           LumoAuditOp            *op,
                                           gboolean                journal,
                                           GError                **error);
gboolean  _lumo_audit_writer_apply_retention (LumoAuditStore      *self,
                                              LumoAuditOp         *op,
                                              GError             **error);

/* lumo-audit-writer-index.c */
gboolean  _lumo_audit_writer_read_indexed_to (LumoAuditStore      *self,
                                              gint64              *indexed_to,
                                              GError             **error);
gboolean  _lumo_audit_writer_index_rows   (LumoAuditStore         *self,
                                           gint64                  from,
                                           gint64                  to,
                                           GError                **error);
/* @remove: a removal repeats the values that were indexed. */
gboolean  _lumo_audit_writer_fts_change   (LumoAuditStore         *self,
                                           gboolean                remove,
                                           gint64                  id,
                                           const char             *tool,
                                           const char             *caller_id,
                                           const char             *caller_name,
                                           const char             *target,
                                           const char             *result_text,
                                           GError                **error);
void      _lumo_audit_writer_checkpoint_wal (LumoAuditStore       *self);
void      _lumo_audit_writer_index_catch_up (LumoAuditStore       *self);
gint64    _lumo_audit_writer_read_data_version (LumoAuditStore    *self);
/* Takes the CHECK_CHANGES ops out of @batch and runs one check. */
void      _lumo_audit_writer_take_checks  (LumoAuditStore         *self,
                                           GQueue                 *batch);

/* lumo-audit-journal.c */
LumoAuditJournal *_lumo_audit_journal_new    (void);
/* Drops the store's reference; waits a little for queued entries. */
void      _lumo_audit_journal_stop        (LumoAuditJournal       *journal);
void      _lumo_audit_journal_push        (LumoAuditJournal       *journal,
                                           LumoAuditJournalEntry  *entry);
void      _lumo_audit_journal_entry_free  (LumoAuditJournalEntry  *entry);
gsize     _lumo_audit_journal_entry_fields (const LumoAuditJournalEntry *entry,
                                            GLogField                   *fields,
                                            GPtrArray                   *strings);
/* Tests: entries journald took, entries it did not, entries waiting (or
 * being sent), and entries dropped since the last warning. */
void      _lumo_audit_journal_get_counts  (LumoAuditJournal       *journal,
                                           guint64                *sent,
                                           guint64                *failed,
                                           guint64                *queued,
                                           guint64                *dropped);

/* Tests only, with the journal on: how many entries may wait. */
void      _lumo_audit_store_set_journal_queue_max (LumoAuditStore *self,
                                                   guint           max);

/* lumo-audit-schema.c */
extern const LumoMigration lumo_audit_migrations[];
extern const guint         lumo_audit_n_migrations;

/* lumo-audit-store-events.c: the writer thread never emits; these queue
 * the news for one idle on the store's main context. */
void      _lumo_audit_store_rows_added    (LumoAuditStore         *self,
                                           GArray                 *ids);
void      _lumo_audit_store_results_set   (LumoAuditStore         *self,
                                           GArray                 *ids);
/* Another connection committed: ::changed, once per idle. */
void      _lumo_audit_store_changed       (LumoAuditStore         *self);
/* Main context: watches the WAL file and queues a check when it moves. */
void      _lumo_audit_store_watch_changes (LumoAuditStore         *self);
/* Any thread: one check of PRAGMA data_version, unless one is queued. */
void      _lumo_audit_store_queue_check   (LumoAuditStore         *self);
/* Runs on the writer thread before its first op: opens a reader for the
 * pool, then the quick_check; sets self->integrity_error if it fails. */
void      _lumo_audit_store_check_integrity (LumoAuditStore       *self);
/* From dispose: stops a running check (the store is going away). */
void      _lumo_audit_store_cancel_check  (LumoAuditStore         *self);

/* lumo-audit-file.c: a new reader of a collected log, before query_only. */
gboolean  _lumo_audit_file_prepare_reader (LumoAuditStore         *self,
                                           sqlite3                *db,
                                           GError                **error);

/* lumo-audit-store.c */
sqlite3  *_lumo_audit_store_acquire_reader (LumoAuditStore        *self,
                                            GError               **error);
/* A new reader connection, not from the pool. */
sqlite3  *_lumo_audit_store_open_reader   (LumoAuditStore         *self,
                                           GError                **error);

void      _lumo_audit_store_release_reader (LumoAuditStore        *self,
                                            sqlite3               *db);

/* lumo-audit-store-read.c: a reader from the pool with @cancellable
 * watched (a running statement is interrupted) until _end. */
sqlite3      *_lumo_audit_read_begin      (LumoAuditStore         *self,
                                           GCancellable           *cancellable,
                                           GError                **error);
void          _lumo_audit_read_end        (LumoAuditStore         *self,
                                           sqlite3                *db);
sqlite3_stmt *_lumo_audit_prepare_bound   (sqlite3                *db,
                                           const char             *sql,
                                           GPtrArray              *binds,
                                           GError                **error);
/* lumo-audit-store-pages.c: inside a read transaction, the search index's
 * watermark and whether any row lies above it. */
gboolean      _lumo_audit_read_watermark  (sqlite3                *db,
                                           gint64                 *indexed_to,
                                           gboolean               *has_tail,
                                           GError                **error);
/* G_IO_ERROR_CANCELLED when @rc is the interrupt of @cancellable. */
void          _lumo_audit_set_step_error  (GError                **error,
                                           sqlite3                *db,
                                           int                     rc,
                                           GCancellable           *cancellable,
                                           const char             *what);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (LumoAuditOp, _lumo_audit_op_free)

G_END_DECLS
