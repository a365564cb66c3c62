/* lumo-db.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-db"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lumo-db.h"
#include "lumo-error.h"

int
lumo_db_error_code (int rc)
{
  switch (rc & 0xff)
    {
    case SQLITE_FULL:
      return LUMO_ERROR_DB_FULL;
    case SQLITE_IOERR:
    case SQLITE_CANTOPEN:
    case SQLITE_PERM:
    case SQLITE_READONLY:
      return LUMO_ERROR_DB_IO;
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return LUMO_ERROR_DB_CORRUPT;
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return LUMO_ERROR_DB_BUSY;
    default:
      return LUMO_ERROR_DB;
    }
}

void
lumo_db_set_error (GError    **error,
                   sqlite3    *db,
                   int         rc,
                   const char *what)
{
  const char *detail = db != NULL ? sqlite3_errmsg (db) : sqlite3_errstr (rc);

  g_set_error (error, LUMO_ERROR, lumo_db_error_code (rc),
               "%s: %s (SQLite error %d)", what, detail, rc);
}

gboolean
lumo_db_exec (sqlite3     *db,
              const char  *sql,
              GError     **error)
{
  char *errmsg = NULL;
  int rc;

  rc = sqlite3_exec (db, sql, NULL, NULL, &errmsg);
  if (rc != SQLITE_OK)
    {
      g_set_error (error, LUMO_ERROR, lumo_db_error_code (rc),
                   "%s (SQLite error %d)", errmsg ? errmsg : sqlite3_errstr (rc), rc);
      sqlite3_free (errmsg);
      return FALSE;
    }

  return TRUE;
}

sqlite3_stmt *
lumo_db_prepare (sqlite3     *db,
                 const char  *sql,
                 GError     **error)
{
  sqlite3_stmt *stmt = NULL;
  int rc;

  rc = sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL);
  if (rc != SQLITE_OK)
    {
      lumo_db_set_error (error, db, rc, "Cannot prepare a statement");
      sqlite3_finalize (stmt);
      return NULL;
    }

  return stmt;
}

gboolean
lumo_db_begin (sqlite3  *db,
               GError  **error)
{
  /* IMMEDIATE: take the write lock now, so a busy database fails here and
   * not half-way through a change. */
  return lumo_db_exec (db, "BEGIN IMMEDIATE", error);
}

gboolean
lumo_db_commit (sqlite3  *db,
                GError  **error)
{
  if (!lumo_db_exec (db, "COMMIT", error))
    {
      lumo_db_rollback (db);
      return FALSE;
    }

  return TRUE;
}

void
lumo_db_rollback (sqlite3 *db)
{
  if (!sqlite3_get_autocommit (db))
    sqlite3_exec (db, "ROLLBACK", NULL, NULL, NULL);
}

gint64
lumo_db_data_version (sqlite3 *db)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;

  if (sqlite3_prepare_v2 (db, "PRAGMA data_version", -1, &stmt, NULL) != SQLITE_OK)
    return -1;
  if (sqlite3_step (stmt) != SQLITE_ROW)
    return -1;

  return sqlite3_column_int64 (stmt, 0);
}

static int
get_user_version (sqlite3  *db,
                  GError  **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;
  int rc;

  if (!(stmt = lumo_db_prepare (db, "PRAGMA user_version", error)))
    return -1;

  rc = sqlite3_step (stmt);
  if (rc != SQLITE_ROW)
    {
      lumo_db_set_error (error, db, rc, "Cannot read the schema version");
      return -1;
    }

  return sqlite3_column_int (stmt, 0);
}

static gboolean
check_with (sqlite3     *db,
            const char  *path,
            const char  *pragma,
            GError     **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;
  const char *result;
  int rc;

  /* A file that is not a database fails already at prepare (SQLITE_NOTADB):
   * name the file and say it was left alone, whichever step noticed. */
  rc = sqlite3_prepare_v2 (db, pragma, -1, &stmt, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_step (stmt);
  if (rc != SQLITE_ROW)
    {
      int code = lumo_db_error_code (rc);

      if (code == LUMO_ERROR_DB)
        code = LUMO_ERROR_DB_CORRUPT;
      g_set_error (error, LUMO_ERROR, code,
                   "Cannot open “%s”: %s; the file was left as it is",
                   path, sqlite3_errmsg (db));
      return FALSE;
    }

  /* The header probe (schema_version) answers a number, not "ok". */
  if (g_str_equal (pragma, "PRAGMA schema_version"))
    return TRUE;

  result = (const char *) sqlite3_column_text (stmt, 0);
  if (g_strcmp0 (result, "ok") != 0)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_DB_CORRUPT,
                   "The database “%s” is damaged (%s); it was left as it is",
                   path, result ? result : "no answer");
      return FALSE;
    }

  return TRUE;
}

static gboolean
quick_check (sqlite3     *db,
             const char  *path,
             GError     **error)
{
  return check_with (db, path, "PRAGMA quick_check", error);
}

gboolean
lumo_db_quick_check (sqlite3     *db,
                     const char  *path,
                     GError     **error)
{
  g_return_val_if_fail (db != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  return quick_check (db, path, error);
}

static gboolean
refuse_newer_schema (sqlite3              *db,
                     const char           *path,
                     const LumoMigration  *migrations,
                     guint                 n_migrations,
                     GError              **error)
{
  int newest = n_migrations > 0 ? migrations[n_migrations - 1].version : 0;
  int current;

  if ((current = get_user_version (db, error)) < 0)
    return FALSE;

  if (current > newest)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_DB_TOO_NEW,
                   "The database “%s” has schema version %d, but this version of "
                   "Lumo Access knows only up to %d; update Lumo Access. "
                   "The file was not changed.",
                   path, current, newest);
      return FALSE;
    }

  return TRUE;
}

static gboolean
migrate (sqlite3              *db,
         const char           *path,
         const LumoMigration  *migrations,
         guint                 n_migrations,
         gboolean              read_only,
         gboolean              check_first,
         GError              **error)
{
  int newest = 0;
  int current;

  for (guint i = 0; i < n_migrations; i++)
    {
      g_assert (migrations[i].version == (int) i + 1);
      newest = migrations[i].version;
    }

  if ((current = get_user_version (db, error)) < 0)
    return FALSE;

  if (current > newest)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_DB_TOO_NEW,
                   "The database “%s” has schema version %d, but this version of "
                   "Lumo Access knows only up to %d; update Lumo Access. "
                   "The file was not changed.",
                   path, current, newest);
      return FALSE;
    }

  if (current == newest)
    return TRUE;

  /* A deferred check still comes before an upgrade writes to an existing
   * file (a new one, version 0, has nothing to check). */
  if (check_first && current > 0 && !quick_check (db, path, error))
    return FALSE;

  if (read_only)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_DB_IO,
                   "The database “%s” needs an upgrade (version %d → %d), "
                   "which a read-only open cannot do",
                   path, current, newest);
      return FALSE;
    }

  for (guint i = current; i < n_migrations; i++)
    {
      g_autofree char *set_version = NULL;
      g_autoptr(GError) local_error = NULL;

      if (!lumo_db_begin (db, error))
        return FALSE;

      /* Re-read inside the lock: another process may have migrated first. */
      if ((current = get_user_version (db, error)) < 0)
        {
          lumo_db_rollback (db);
          return FALSE;
        }
      if (current >= migrations[i].version)
        {
          lumo_db_rollback (db);
          continue;
        }

      set_version = g_strdup_printf ("PRAGMA user_version = %d", migrations[i].version);
      if (!lumo_db_exec (db, migrations[i].sql, &local_error) ||
          !lumo_db_exec (db, set_version, &local_error) ||
          !lumo_db_commit (db, &local_error))
        {
          lumo_db_rollback (db);
          g_set_error (error, LUMO_ERROR, local_error->code,
                       "Cannot upgrade “%s” to schema version %d: %s",
                       path, migrations[i].version, local_error->message);
          return FALSE;
        }
    }

  return TRUE;
}

/* Makes @path 0600 if it is open to others, creating it (empty, 0600)
 * when @create and it does not exist. Never opens an existing file: closing
 * any descriptor of a database drops every POSIX lock this process holds
 * on it, which other connections of this process rely on. */
static gboolean
make_private (const char  *path,
              gboolean     create,
              GError     **error)
{
  struct stat st;

  if (stat (path, &st) != 0)
    {
      int saved_errno = errno;
      int fd;

      if (saved_errno != ENOENT)
        {
          g_set_error (error, LUMO_ERROR, LUMO_ERROR_DB_IO,
                       "Cannot open the database “%s”: %s", path, g_strerror (saved_errno));
          return FALSE;
        }
      if (!create)
        return TRUE;

      /* Another process may create it at the same moment: either way it
       * was created 0600. */
      fd = open (path, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
      if (fd < 0 && errno != EEXIST)
        {
          saved_errno = errno;
          g_set_error (error, LUMO_ERROR, LUMO_ERROR_DB_IO,
                       "Cannot create the database “%s”: %s", path, g_strerror (saved_errno));
          return FALSE;
        }
      if (fd >= 0)
        close (fd);
      return TRUE;
    }

  if (S_ISREG (st.st_mode) && (st.st_mode & 077) != 0 && chmod (path, st.st_mode & 0600) != 0)
    {
      int saved_errno = errno;

      g_set_error (error, LUMO_ERROR, LUMO_ERROR_DB_IO,
                   "The database “%s” is readable by others (mode %04o) and cannot be made "
                   "private (0600): %s", path, (guint) (st.st_mode & 07777), g_strerror (saved_errno));
      return FALSE;
    }

  return TRUE;
}

/* SQLite creates the -wal and -shm files with the database's own mode, so
 * the database is created 0600 before SQLite sees it: no file of it is
 * ever readable by others, not even for a moment. Files left by an older
 * version are tightened the same way. */
static gboolean
prepare_files (const char  *path,
               GError     **error)
{
  g_autofree char *wal = g_strconcat (path, "-wal", NULL);
  g_autofree char *shm = g_strconcat (path, "-shm", NULL);

  return make_private (path, TRUE, error) &&
         make_private (wal, FALSE, error) &&
         make_private (shm, FALSE, error);
}

sqlite3 *
lumo_db_open (const char           *path,
              LumoDbFlags           flags,
              const LumoMigration  *migrations,
              guint                 n_migrations,
              GError              **error)
{
  return lumo_db_open_with_vfs (path, NULL, flags, migrations, n_migrations, error);
}

sqlite3 *
lumo_db_open_with_vfs (const char           *path,
                       const char           *vfs,
                       LumoDbFlags           flags,
                       const LumoMigration  *migrations,
                       guint                 n_migrations,
                       GError              **error)
{
  gboolean read_only = (flags & LUMO_DB_FLAGS_READ_ONLY) != 0;
  sqlite3 *db = NULL;
  int open_flags;
  int rc;
  int on = 1;

  g_return_val_if_fail (path != NULL, NULL);

  open_flags = read_only ? SQLITE_OPEN_READONLY
                         : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  open_flags |= SQLITE_OPEN_FULLMUTEX;

  if (!read_only && !prepare_files (path, error))
    return NULL;

  rc = sqlite3_open_v2 (path, &db, open_flags, vfs);
  if (rc != SQLITE_OK)
    {
      g_set_error (error, LUMO_ERROR, lumo_db_error_code (rc),
                   "Cannot open the database “%s”: %s",
                   path, db ? sqlite3_errmsg (db) : sqlite3_errstr (rc));
      sqlite3_close_v2 (db);
      return NULL;
    }

  sqlite3_extended_result_codes (db, 1);
  sqlite3_busy_timeout (db, 5000);
  /* Defensive mode: no writable_schema, no shadow-table edits, no
   * journal_mode=OFF, even through a crafted statement. */
  sqlite3_db_config (db, SQLITE_DBCONFIG_DEFENSIVE, 1, &on);
  sqlite3_db_config (db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, &on);
  sqlite3_db_config (db, SQLITE_DBCONFIG_DQS_DML, 0, &on);
  sqlite3_db_config (db, SQLITE_DBCONFIG_DQS_DDL, 0, &on);

  /* The first read tells a file that is not a database (SQLITE_NOTADB)
   * apart before anything is written to it. */
  if (flags & (LUMO_DB_FLAGS_NO_CHECK | LUMO_DB_FLAGS_DEFER_CHECK))
    {
      if ((flags & LUMO_DB_FLAGS_DEFER_CHECK) &&
          !check_with (db, path, "PRAGMA schema_version", error))
        goto fail;
    }
  else if (!quick_check (db, path, error))
    goto fail;

  /* Switching to WAL rewrites the header, so a newer schema is refused
   * before that: "left untouched" means not one byte. */
  if (!refuse_newer_schema (db, path, migrations, n_migrations, error))
    goto fail;

  if (!read_only)
    {
      g_autoptr(GError) local_error = NULL;

      if (!lumo_db_exec (db, "PRAGMA journal_mode = WAL", &local_error))
        {
          g_set_error (error, LUMO_ERROR, local_error->code,
                       "Cannot open the database “%s”: %s", path, local_error->message);
          goto fail;
        }
    }

  if (!lumo_db_exec (db,
                     (flags & LUMO_DB_FLAGS_SYNC_FULL)
                       ? "PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON; PRAGMA trusted_schema = OFF"
                       : "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA trusted_schema = OFF",
                     error))
    goto fail;

  if (!migrate (db, path, migrations, n_migrations, read_only,
                (flags & LUMO_DB_FLAGS_DEFER_CHECK) != 0, error))
    goto fail;

  return db;

fail:
  sqlite3_close_v2 (db);
  return NULL;
}

void
lumo_db_close (sqlite3 *db)
{
  if (db != NULL)
    sqlite3_close_v2 (db);
}
