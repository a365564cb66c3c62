/* audit-test-util.h — shared helpers of the audit store tests
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <errno.h>
#include <glib/gstdio.h>
#include <gio/gio.h>

#include "lumo-audit-private.h"
#include "lumo-audit-store.h"
#include "lumo-error.h"
#include "lumo-paths.h"
#include "lumo-test.h"

#define SHA_A      "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
#define SHA_B      "60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752"
#define TARGET_A   "0f8fad5b-d9cb-469f-a165-70867728950e"

static inline LumoAuditRecord
audit_test_record (const char *tool)
{
  LumoAuditRecord r = {
    .provider_id = TEST_PROVIDER_ID,
    .caller_id = TEST_CALLER_ID,
    .caller_name = "Lumo",
    .tool = tool,
    .write = TRUE,
    .target = TARGET_A,
    .params_sha256 = SHA_A,
    .decision = LUMO_AUDIT_DECISION_ALLOW,
    .reason = NULL,
  };

  return r;
}

/* A fresh temporary directory that is also the data dir. */
static inline char *
audit_test_tmpdir (void)
{
  char *dir = lumo_test_dir_new ("audit");

  lumo_paths_set_data_dir (dir);
  return dir;
}

static inline LumoAuditStore *
audit_test_open (const char *dir)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_build_filename (dir, "audit.db", NULL);
  LumoAuditStore *store = lumo_audit_store_new (path, &error);

  g_assert_no_error (error);
  g_assert_nonnull (store);
  return store;
}

static inline gint64
audit_test_append (LumoAuditStore *store,
                   const char     *tool)
{
  g_autoptr(GError) error = NULL;
  LumoAuditRecord r = audit_test_record (tool);
  gint64 id = lumo_audit_store_append (store, &r, &error);

  g_assert_no_error (error);
  g_assert_cmpint (id, >, 0);
  return id;
}

static inline gint64
audit_test_count (LumoAuditStore *store,
                  const char     *text)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(LumoAuditQuery) query = lumo_audit_query_parse (text, 0, &error);
  gint64 n;

  g_assert_no_error (error);
  n = lumo_audit_store_count (store, query, NULL, &error);
  g_assert_no_error (error);
  return n;
}

/* Runs the sqlite3 command-line shell on @db with @sql; returns its exit
 * status and stderr. The shell is what an attacker with file access would
 * use, and it ignores our triggers once they are dropped. */
static inline int
audit_test_sqlite3 (const char  *db,
                    const char  *sql,
                    char       **err_out)
{
  g_autoptr(GError) error = NULL;
  const char *argv[] = { "sqlite3", "-bail", db, sql, NULL };
  g_autofree char *out = NULL;
  char *err = NULL;
  int status = 0;

  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL,
                &out, &err, &status, &error);
  g_assert_no_error (error);

  if (err_out != NULL)
    *err_out = err;
  else
    g_free (err);

  return g_spawn_check_wait_status (status, NULL) ? 0 : 1;
}

static inline char *
audit_test_file_checksum (const char *path)
{
  g_autofree char *contents = NULL;
  gsize len = 0;

  if (!g_file_get_contents (path, &contents, &len, NULL))
    return g_strdup ("missing");

  return g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) contents, len);
}
