/* lumo-db.h — opening SQLite databases safely, and versioned migrations
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every database of Lumo Access is opened through lumo_db_open(): WAL mode,
 * foreign keys, trusted_schema=OFF, defensive mode, a busy timeout, and a
 * quick_check before anything is written. Migrations are applied in one
 * transaction each; a database whose user_version is newer than the newest
 * migration is refused (LUMO_ERROR_DB_TOO_NEW) and left untouched, and a file
 * that is not a database, or fails quick_check, is refused
 * (LUMO_ERROR_DB_CORRUPT) and never overwritten.
 */
#pragma once

#if !defined (LUMO_CORE_COMPILATION)
# error "This header is private to src/core (and its tests): it may speak SQL, which stays out of the app and the CLI."
#endif

#include <glib.h>
#include <sqlite3.h>

G_BEGIN_DECLS

typedef enum
{
  LUMO_DB_FLAGS_NONE         = 0,
  LUMO_DB_FLAGS_READ_ONLY    = 1 << 0,  /* no create, no migrations */
  LUMO_DB_FLAGS_SYNC_FULL    = 1 << 1,  /* synchronous=FULL (audit); else NORMAL */
  LUMO_DB_FLAGS_NO_CHECK     = 1 << 2,  /* skip quick_check (extra connections of one process) */
  /* Only the cheap checks (the header is a database's, the schema is not
   * too new); quick_check still runs before a migration writes, else the
   * caller runs lumo_db_quick_check() later (the audit store, on its
   * writer thread). */
  LUMO_DB_FLAGS_DEFER_CHECK  = 1 << 3,
  /* @path is an SQLite URI ("file:…?mode=ro&immutable=1", an in-memory
   * database): no file of that name is created or touched. */
  LUMO_DB_FLAGS_URI          = 1 << 4,
  /* No schema version test and no migration: the caller reads
   * user_version itself (opening a file of unknown origin read-only). */
  LUMO_DB_FLAGS_NO_MIGRATE   = 1 << 5,
} LumoDbFlags;

typedef struct
{
  int         version;   /* user_version after this step, 1, 2, 3, … */
  const char *sql;       /* may hold several statements */
} LumoMigration;

sqlite3  *lumo_db_open          (const char          *path,
                                 LumoDbFlags          flags,
                                 const LumoMigration *migrations,
                                 guint                n_migrations,
                                 GError             **error);
/* Like lumo_db_open(), on the SQLite VFS named @vfs (NULL: the default);
 * the audit store's fault-injection tests use it. */
sqlite3  *lumo_db_open_with_vfs (const char          *path,
                                 const char          *vfs,
                                 LumoDbFlags          flags,
                                 const LumoMigration *migrations,
                                 guint                n_migrations,
                                 GError             **error);
void      lumo_db_close         (sqlite3             *db);
/* PRAGMA quick_check: LUMO_ERROR_DB_CORRUPT naming @path and what is
 * damaged. Blocking, seconds on a big file; interruptible with
 * sqlite3_interrupt(). */
gboolean  lumo_db_quick_check   (sqlite3             *db,
                                 const char          *path,
                                 GError             **error);
gboolean  lumo_db_exec          (sqlite3             *db,
                                 const char          *sql,
                                 GError             **error);
sqlite3_stmt *lumo_db_prepare   (sqlite3             *db,
                                 const char          *sql,
                                 GError             **error);
gboolean  lumo_db_begin         (sqlite3             *db,
                                 GError             **error);
gboolean  lumo_db_commit        (sqlite3             *db,
                                 GError             **error);
void      lumo_db_rollback      (sqlite3             *db);
gint64    lumo_db_data_version  (sqlite3             *db);
void      lumo_db_set_error     (GError             **error,
                                 sqlite3             *db,
                                 int                  rc,
                                 const char          *what);
int       lumo_db_error_code    (int                  rc);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (sqlite3_stmt, sqlite3_finalize)

G_END_DECLS
