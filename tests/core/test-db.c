/* test-db.c — opening databases safely: migrations, refusals, read-only
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lumo-audit-store.h"
#include "lumo-backend.h"
#include "lumo-db.h"
#include "lumo-error.h"
#include "lumo-paths.h"
#include "lumo-policy.h"
#include "lumo-test.h"

static const LumoMigration migrations[] = {
  { 1, "CREATE TABLE a (id INTEGER PRIMARY KEY, v TEXT NOT NULL);" },
  { 2, "CREATE TABLE b (id INTEGER PRIMARY KEY, a_id INTEGER REFERENCES a (id));"
       "ALTER TABLE a ADD COLUMN extra INTEGER DEFAULT 7;" },
  { 3, "CREATE INDEX b_a ON b (a_id);" },
};

typedef struct
{
  char *dir;
  char *path;
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  f->dir = lumo_test_dir_new ("test-db");
  f->path = g_build_filename (f->dir, "test.db", NULL);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  lumo_test_dir_remove (f->dir);
  g_free (f->path);
  g_free (f->dir);
}

static int
query_int (sqlite3    *db,
           const char *sql)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(sqlite3_stmt) stmt = lumo_db_prepare (db, sql, &error);

  g_assert_no_error (error);
  g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_ROW);
  return sqlite3_column_int (stmt, 0);
}

static char *
query_text (sqlite3    *db,
            const char *sql)
{
  g_autoptr(sqlite3_stmt) stmt = lumo_db_prepare (db, sql, NULL);

  g_assert_nonnull (stmt);
  g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_ROW);
  return g_strdup ((const char *) sqlite3_column_text (stmt, 0));
}

static GBytes *
file_bytes (const char *path)
{
  g_autoptr(GError) error = NULL;
  char *contents = NULL;
  gsize len = 0;

  g_file_get_contents (path, &contents, &len, &error);
  g_assert_no_error (error);
  return g_bytes_new_take (contents, len);
}

static void
assert_no_side_files (Fixture *f)
{
  g_autofree char *wal = g_strconcat (f->path, "-wal", NULL);
  g_autofree char *journal = g_strconcat (f->path, "-journal", NULL);

  g_assert_false (g_file_test (wal, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (journal, G_FILE_TEST_EXISTS));
}

/* A database at @version with one row in a, closed cleanly. */
static void
make_db (Fixture *f,
         guint    version)
{
  g_autoptr(GError) error = NULL;
  sqlite3 *db;

  db = lumo_db_open (f->path, LUMO_DB_FLAGS_NONE, migrations, version, &error);
  g_assert_no_error (error);
  g_assert_true (lumo_db_exec (db, "INSERT INTO a (v) VALUES ('kept')", &error));
  g_assert_no_error (error);
  lumo_db_close (db);
}

static void
test_fresh (Fixture       *f,
            gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *mode = NULL;
  sqlite3 *db;

  db = lumo_db_open (f->path, LUMO_DB_FLAGS_SYNC_FULL, migrations, G_N_ELEMENTS (migrations), &error);
  g_assert_no_error (error);
  g_assert_nonnull (db);

  g_assert_cmpint (query_int (db, "PRAGMA user_version"), ==, 3);
  g_assert_cmpint (query_int (db, "PRAGMA foreign_keys"), ==, 1);
  g_assert_cmpint (query_int (db, "PRAGMA synchronous"), ==, 2);   /* FULL */
  mode = query_text (db, "PRAGMA journal_mode");
  g_assert_cmpstr (mode, ==, "wal");
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM sqlite_schema WHERE name = 'b_a'"), ==, 1);

  /* Foreign keys are enforced. */
  g_assert_false (lumo_db_exec (db, "INSERT INTO b (a_id) VALUES (42)", &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_DB);
  g_clear_error (&error);

  lumo_db_close (db);
  lumo_db_close (NULL);
}

static void
test_upgrade_keeps_data (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *v = NULL;
  sqlite3 *db;

  make_db (f, 1);

  db = lumo_db_open (f->path, LUMO_DB_FLAGS_NONE, migrations, 3, &error);
  g_assert_no_error (error);
  g_assert_cmpint (query_int (db, "PRAGMA user_version"), ==, 3);
  v = query_text (db, "SELECT v FROM a");
  g_assert_cmpstr (v, ==, "kept");
  g_assert_cmpint (query_int (db, "SELECT extra FROM a"), ==, 7);
  lumo_db_close (db);

  /* Opening again at the same version changes nothing. */
  db = lumo_db_open (f->path, LUMO_DB_FLAGS_NONE, migrations, 3, &error);
  g_assert_no_error (error);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM a"), ==, 1);
  lumo_db_close (db);
}

static void
test_failed_migration_rolls_back (Fixture       *f,
                                  gconstpointer  data)
{
  const LumoMigration broken[] = {
    migrations[0],
    { 2, "CREATE TABLE half (x);  THIS IS NOT SQL;" },
  };
  g_autoptr(GError) error = NULL;
  sqlite3 *db;

  make_db (f, 1);

  db = lumo_db_open (f->path, LUMO_DB_FLAGS_NONE, broken, 2, &error);
  g_assert_null (db);
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_DB);
  g_assert_nonnull (strstr (error->message, "schema version 2"));
  g_clear_error (&error);

  /* Still version 1, without the half-applied table. */
  db = lumo_db_open (f->path, LUMO_DB_FLAGS_NONE, migrations, 1, &error);
  g_assert_no_error (error);
  g_assert_cmpint (query_int (db, "PRAGMA user_version"), ==, 1);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM sqlite_schema WHERE name = 'half'"), ==, 0);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM a"), ==, 1);
  lumo_db_close (db);
}

static void
test_too_new_untouched (Fixture       *f,
                        gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) before = NULL;
  g_autoptr(GBytes) after = NULL;
  sqlite3 *db;

  make_db (f, 3);
  assert_no_side_files (f);
  before = file_bytes (f->path);

  /* An older Lumo Access (knowing 2 versions) must not touch it. */
  db = lumo_db_open (f->path, LUMO_DB_FLAGS_NONE, migrations, 2, &error);
  g_assert_null (db);
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_DB_TOO_NEW);
  g_assert_nonnull (strstr (error->message, "schema version 3"));
  g_assert_nonnull (strstr (error->message, "up to 2"));
  g_assert_nonnull (strstr (error->message, "not changed"));
  g_clear_error (&error);

  after = file_bytes (f->path);
  g_assert_true (g_bytes_equal (before, after));
  assert_no_side_files (f);

  /* Read-only too. */
  db = lumo_db_open (f->path, LUMO_DB_FLAGS_READ_ONLY, migrations, 2, &error);
  g_assert_null (db);
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_DB_TOO_NEW);
  g_clear_pointer (&after, g_bytes_unref);
  after = file_bytes (f->path);
  g_assert_true (g_bytes_equal (before, after));
}

static void
assert_garbage_refused (Fixture    *f,
                        const char *contents,
                        gsize       len)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) after = NULL;
  sqlite3 *db;

  g_assert_true (g_file_set_contents (f->path, contents, len, NULL));

  db = lumo_db_open (f->path, LUMO_DB_FLAGS_NONE, migrations, 3, &error);
  g_assert_null (db);
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_DB_CORRUPT);
  g_test_message ("%s", error->message);

  after = file_bytes (f->path);
  g_assert_cmpmem (g_bytes_get_data (after, NULL), g_bytes_get_size (after), contents, len);
  assert_no_side_files (f);
}

static void
test_garbage_untouched (Fixture       *f,
                        gconstpointer  data)
{
  g_autoptr(GString) text = g_string_new (NULL);
  guint8 noise[8192];
  GRand *rand = g_rand_new_with_seed (8785);

  for (guint i = 0; i < 200; i++)
    g_string_append (text, "This is a note, not a database.\n");
  assert_garbage_refused (f, text->str, text->len);

  for (guint i = 0; i < sizeof noise; i++)
    noise[i] = g_rand_int_range (rand, 0, 256);
  assert_garbage_refused (f, (const char *) noise, sizeof noise);
  g_rand_free (rand);
}

static void
test_damaged_untouched (Fixture       *f,
                        gconstpointer  data)
{
  g_autoptr(GBytes) good = NULL;
  g_autofree guint8 *damaged = NULL;
  gsize len;

  /* A real database whose schema page is overwritten. */
  make_db (f, 3);
  good = file_bytes (f->path);
  len = g_bytes_get_size (good);
  g_assert_cmpuint (len, >=, 4096);
  damaged = g_memdup2 (g_bytes_get_data (good, NULL), len);
  memset (damaged + 100, 0xa5, 400);

  assert_garbage_refused (f, (const char *) damaged, len);
}

static void
test_read_only (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) before = NULL;
  g_autoptr(GBytes) after = NULL;
  g_autofree char *v = NULL;
  sqlite3 *db;

  /* Read-only never creates a file. */
  db = lumo_db_open (f->path, LUMO_DB_FLAGS_READ_ONLY, migrations, 3, &error);
  g_assert_null (db);
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_DB_IO);
  g_clear_error (&error);
  g_assert_false (g_file_test (f->path, G_FILE_TEST_EXISTS));

  /* Current version: reads work, writes are refused. */
  make_db (f, 3);
  db = lumo_db_open (f->path, LUMO_DB_FLAGS_READ_ONLY, migrations, 3, &error);
  g_assert_no_error (error);
  v = query_text (db, "SELECT v FROM a");
  g_assert_cmpstr (v, ==, "kept");
  g_assert_false (lumo_db_exec (db, "INSERT INTO a (v) VALUES ('no')", &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_DB_IO);
  g_clear_error (&error);
  lumo_db_close (db);

  /* An older version cannot be upgraded read-only, and stays as it is. */
  g_assert_cmpint (g_unlink (f->path), ==, 0);
  make_db (f, 1);
  before = file_bytes (f->path);
  db = lumo_db_open (f->path, LUMO_DB_FLAGS_READ_ONLY, migrations, 3, &error);
  g_assert_null (db);
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_DB_IO);
  g_assert_nonnull (strstr (error->message, "read-only"));
  after = file_bytes (f->path);
  g_assert_true (g_bytes_equal (before, after));
}

static void
test_transactions (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  sqlite3 *db;
  gint64 version;

  db = lumo_db_open (f->path, LUMO_DB_FLAGS_NONE, migrations, 3, &error);
  g_assert_no_error (error);
  version = lumo_db_data_version (db);
  g_assert_cmpint (version, >=, 0);

  g_assert_true (lumo_db_begin (db, &error));
  g_assert_true (lumo_db_exec (db, "INSERT INTO a (v) VALUES ('gone')", &error));
  lumo_db_rollback (db);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM a"), ==, 0);

  g_assert_true (lumo_db_begin (db, &error));
  g_assert_true (lumo_db_exec (db, "INSERT INTO a (v) VALUES ('here')", &error));
  g_assert_true (lumo_db_commit (db, &error));
  g_assert_no_error (error);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM a"), ==, 1);

  /* Rolling back outside a transaction is harmless. */
  lumo_db_rollback (db);

  g_assert_null (lumo_db_prepare (db, "SELECT * FROM nowhere", &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_DB);
  g_assert_nonnull (strstr (error->message, "nowhere"));
  lumo_db_close (db);
}

static void
test_error_codes (void)
{
  g_assert_cmpint (lumo_db_error_code (SQLITE_FULL), ==, LUMO_ERROR_DB_FULL);
  g_assert_cmpint (lumo_db_error_code (SQLITE_IOERR_WRITE), ==, LUMO_ERROR_DB_IO);
  g_assert_cmpint (lumo_db_error_code (SQLITE_CANTOPEN), ==, LUMO_ERROR_DB_IO);
  g_assert_cmpint (lumo_db_error_code (SQLITE_READONLY), ==, LUMO_ERROR_DB_IO);
  g_assert_cmpint (lumo_db_error_code (SQLITE_CORRUPT), ==, LUMO_ERROR_DB_CORRUPT);
  g_assert_cmpint (lumo_db_error_code (SQLITE_NOTADB), ==, LUMO_ERROR_DB_CORRUPT);
  g_assert_cmpint (lumo_db_error_code (SQLITE_BUSY_SNAPSHOT), ==, LUMO_ERROR_DB_BUSY);
  g_assert_cmpint (lumo_db_error_code (SQLITE_LOCKED), ==, LUMO_ERROR_DB_BUSY);
  g_assert_cmpint (lumo_db_error_code (SQLITE_CONSTRAINT), ==, LUMO_ERROR_DB);
}

static guint
file_mode (const char *path)
{
  GStatBuf st;

  if (g_stat (path, &st) != 0)
    g_error ("%s: %s", path, g_strerror (errno));
  return st.st_mode & 07777;
}

/* The database and its -wal and -shm files are 0600 from the start, with
 * the usual umask 022 (SQLite gives the -wal and -shm files the mode of
 * the database file). */
static void
test_files_private (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *wal = g_strconcat (f->path, "-wal", NULL);
  g_autofree char *shm = g_strconcat (f->path, "-shm", NULL);
  mode_t old_umask = umask (022);
  sqlite3 *db;

  db = lumo_db_open (f->path, LUMO_DB_FLAGS_NONE, migrations, G_N_ELEMENTS (migrations), &error);
  g_assert_no_error (error);
  g_assert_true (lumo_db_exec (db, "INSERT INTO a (v) VALUES ('x')", &error));
  g_assert_true (g_file_test (wal, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (file_mode (f->path), ==, 0600);
  g_assert_cmpuint (file_mode (wal), ==, 0600);
  g_assert_cmpuint (file_mode (shm), ==, 0600);
  lumo_db_close (db);

  /* A file an older version left 0644 is tightened when opened. */
  g_assert_cmpint (g_chmod (f->path, 0644), ==, 0);
  db = lumo_db_open (f->path, LUMO_DB_FLAGS_NONE, migrations, G_N_ELEMENTS (migrations), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (file_mode (f->path), ==, 0600);
  lumo_db_close (db);

  umask (old_umask);
}

/* The data directory is 0700, made so if it was not, and the app says why
 * when it cannot be. */
static void
test_private_dir (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *made = g_build_filename (f->dir, "made", NULL);
  g_autofree char *open_dir = g_build_filename (f->dir, "open", NULL);
  mode_t old_umask = umask (022);

  g_assert_true (lumo_paths_ensure_private_dir (made, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (file_mode (made), ==, 0700);

  g_assert_cmpint (g_mkdir (open_dir, 0755), ==, 0);
  g_assert_true (lumo_paths_ensure_private_dir (open_dir, &error));
  g_assert_cmpuint (file_mode (open_dir), ==, 0700);

  /* A file where the directory should be. */
  g_assert_true (g_file_set_contents (f->path, "", 0, NULL));
  g_assert_false (lumo_paths_ensure_private_dir (f->path, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_IO);
  g_assert_nonnull (strstr (error->message, f->path));
  g_clear_error (&error);

  /* Not ours: / is root's (unless the test runs as root, where chmod
   * would succeed, so only the message is checked there). */
  if (geteuid () != 0)
    {
      g_assert_false (lumo_paths_ensure_private_dir ("/", &error));
      g_assert_error (error, LUMO_ERROR, LUMO_ERROR_IO);
      g_assert_nonnull (strstr (error->message, "cannot be made private"));
    }

  umask (old_umask);
}

/* Everything the backend creates in a fresh data directory. */
static void
test_data_dir_private (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *data_dir = g_build_filename (f->dir, "data", NULL);
  const char *files[] = { "policy.db", "policy.db-wal", "policy.db-shm",
                          "audit.db", "audit.db-wal", "audit.db-shm", "audit.key", "audit.head" };
  mode_t old_umask = umask (022);
  g_autoptr(LumoBackend) backend = NULL;
  LumoAuditRecord record = {
    .provider_id = "abcdefghijklmnopabcdefghijklmnop",
    .caller_id = "ponmlkjihgfedcbaponmlkjihgfedcba",
    .tool = "userscripts.save_script",
    .write = TRUE,
    .params_sha256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    .decision = LUMO_AUDIT_DECISION_ALLOW,
  };

  g_assert_cmpint (g_mkdir (data_dir, 0755), ==, 0);
  backend = lumo_backend_new_for_data_dir (data_dir, LUMO_AUDIT_STORE_FLAGS_NONE, &error);
  g_assert_no_error (error);
  lumo_policy_add_provider (lumo_backend_get_policy (backend), record.provider_id,
                            LUMO_POLICY_ORIGIN_UI, &error);
  g_assert_no_error (error);
  g_assert_cmpint (lumo_audit_store_append (lumo_backend_get_audit_store (backend), &record, &error), >, 0);
  g_assert_no_error (error);

  g_assert_cmpuint (file_mode (data_dir), ==, 0700);
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *path = g_build_filename (data_dir, files[i], NULL);

      if (file_mode (path) != 0600)
        g_error ("%s is %04o, not 0600", files[i], file_mode (path));
    }

  g_clear_object (&backend);
  lumo_test_dir_remove (data_dir);
  umask (old_umask);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("/db/fresh", test_fresh);
  ADD ("/db/upgrade-keeps-data", test_upgrade_keeps_data);
  ADD ("/db/failed-migration-rolls-back", test_failed_migration_rolls_back);
  ADD ("/db/too-new-untouched", test_too_new_untouched);
  ADD ("/db/garbage-untouched", test_garbage_untouched);
  ADD ("/db/damaged-untouched", test_damaged_untouched);
  ADD ("/db/read-only", test_read_only);
  ADD ("/db/transactions", test_transactions);
  ADD ("/db/files-private", test_files_private);
  ADD ("/db/private-dir", test_private_dir);
  ADD ("/db/data-dir-private", test_data_dir_private);
#undef ADD
  g_test_add_func ("/db/error-codes", test_error_codes);

  return g_test_run ();
}
