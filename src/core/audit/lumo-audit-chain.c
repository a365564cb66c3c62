/* lumo-audit-chain.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-audit"

#include "config.h"

#include <string.h>

#include "lumo-audit-chain.h"
#include "lumo-audit-private.h"
#include "lumo-audit-secret.h"
#include "lumo-db.h"
#include "lumo-error.h"

#define ROW_DOMAIN     "lumo-audit-row-v1"
#define ROW_DOMAIN_V2  "lumo-audit-row-v2"
#define RESULT_DOMAIN  "lumo-audit-result-v1"

/* ---- canonical encoding -------------------------------------------------- */

static void
put_field (GByteArray   *buf,
           char          tag,
           const guint8 *data,
           guint32       len)
{
  guint8 header[5] = { (guint8) tag, len >> 24, len >> 16, len >> 8, len };

  g_byte_array_append (buf, header, sizeof header);
  if (len > 0)
    g_byte_array_append (buf, data, len);
}

static void
put_int (GByteArray *buf,
         gint64      value)
{
  guint64 u = (guint64) value;
  guint8 be[8];

  for (guint i = 0; i < 8; i++)
    be[i] = (guint8) (u >> (56 - 8 * i));
  put_field (buf, 'i', be, sizeof be);
}

static void
put_str (GByteArray *buf,
         const char *s)
{
  gsize len = s != NULL ? strlen (s) : 0;

  g_assert (len <= G_MAXUINT32);
  put_field (buf, 's', (const guint8 *) s, (guint32) len);
}

static void
sha256 (const guint8 *data,
        gsize         len,
        guint8       *out)
{
  g_autoptr(GChecksum) checksum = g_checksum_new (G_CHECKSUM_SHA256);
  gsize out_len = LUMO_AUDIT_HASH_SIZE;

  g_checksum_update (checksum, data, len);
  g_checksum_get_digest (checksum, out, &out_len);
  g_assert (out_len == LUMO_AUDIT_HASH_SIZE);
}

void
lumo_audit_chain_row_hash (const guint8               *prev_hash,
                           const LumoAuditChainFields *f,
                           guint8                     *out_hash)
{
  g_autoptr(GByteArray) buf = g_byte_array_sized_new (512);
  gboolean v2;
  const char *domain;

  g_assert (prev_hash != NULL && f != NULL && f->params_hmac != NULL);

  v2 = f->by_grant || (f->caller_kind != NULL && !g_str_equal (f->caller_kind, "extension"));
  domain = v2 ? ROW_DOMAIN_V2 : ROW_DOMAIN;
  g_byte_array_append (buf, (const guint8 *) domain, strlen (domain));
  g_byte_array_append (buf, prev_hash, LUMO_AUDIT_HASH_SIZE);
  put_int (buf, f->id);
  put_int (buf, f->time_us);
  put_str (buf, f->provider_id);
  put_str (buf, f->caller_id);
  put_str (buf, f->caller_name);
  put_str (buf, f->tool);
  put_int (buf, f->write ? 1 : 0);
  put_str (buf, f->target);
  put_field (buf, 'b', f->params_hmac, LUMO_AUDIT_HASH_SIZE);
  put_str (buf, f->decision);
  put_str (buf, f->reason);
  if (v2)
    {
      put_str (buf, f->caller_kind);
      put_int (buf, f->by_grant ? 1 : 0);
    }

  sha256 (buf->data, buf->len, out_hash);
}

void
lumo_audit_chain_result_mac (GBytes       *secret,
                             const guint8 *row_hash,
                             const char   *result,
                             const char   *result_text,
                             gint64        result_time_us,
                             guint8       *out_mac)
{
  g_autoptr(GByteArray) buf = g_byte_array_sized_new (256);

  g_byte_array_append (buf, (const guint8 *) RESULT_DOMAIN, strlen (RESULT_DOMAIN));
  g_byte_array_append (buf, row_hash, LUMO_AUDIT_HASH_SIZE);
  put_str (buf, result);
  /* A NULL text and "" must differ, or a text could be dropped unseen. */
  if (result_text != NULL)
    put_str (buf, result_text);
  else
    put_field (buf, 'n', NULL, 0);
  put_int (buf, result_time_us);

  lumo_secret_hmac (secret, buf->data, buf->len, out_mac);
}

void
lumo_audit_chain_head_mac (GBytes       *secret,
                           const char   *what,
                           gint64        id,
                           const guint8 *hash,
                           guint8       *out_mac)
{
  g_autoptr(GByteArray) buf = g_byte_array_sized_new (128);
  g_autofree char *domain = g_strdup_printf ("lumo-audit-%s-v1", what);

  g_byte_array_append (buf, (const guint8 *) domain, strlen (domain));
  put_int (buf, id);
  put_field (buf, 'b', hash, LUMO_AUDIT_HASH_SIZE);

  lumo_secret_hmac (secret, buf->data, buf->len, out_mac);
}

/* ---- verification ---------------------------------------------------------- */

static const guint8 zero_hash[LUMO_AUDIT_HASH_SIZE];

static gboolean
fault (LumoAuditVerifyReport  *report,
       LumoAuditFault          kind,
       gint64                  bad_id,
       GError                **error,
       const char             *format,
       ...) G_GNUC_PRINTF (5, 6);

static gboolean
fault (LumoAuditVerifyReport  *report,
       LumoAuditFault          kind,
       gint64                  bad_id,
       GError                **error,
       const char             *format,
       ...)
{
  va_list args;

  report->fault = kind;
  report->bad_id = bad_id;

  va_start (args, format);
  if (error != NULL)
    *error = g_error_new_valist (LUMO_ERROR, LUMO_ERROR_CHAIN_BROKEN, format, args);
  va_end (args);

  return FALSE;
}

static const char *
column_text (sqlite3_stmt *stmt,
             int           col)
{
  const char *s = (const char *) sqlite3_column_text (stmt, col);

  return s != NULL ? s : "";
}

static gboolean
column_hash (sqlite3_stmt *stmt,
             int           col,
             guint8       *out)
{
  if (sqlite3_column_type (stmt, col) != SQLITE_BLOB ||
      sqlite3_column_bytes (stmt, col) != LUMO_AUDIT_HASH_SIZE)
    return FALSE;

  memcpy (out, sqlite3_column_blob (stmt, col), LUMO_AUDIT_HASH_SIZE);
  return TRUE;
}

static gboolean
read_anchor (sqlite3                *db,
             GBytes                 *secret,
             gint64                 *anchor_id,
             guint8                 *anchor_hash,
             LumoAuditVerifyReport  *report,
             GError                **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;
  guint8 mac[LUMO_AUDIT_HASH_SIZE];
  guint8 expected[LUMO_AUDIT_HASH_SIZE];
  int rc;

  *anchor_id = 0;
  memcpy (anchor_hash, zero_hash, LUMO_AUDIT_HASH_SIZE);

  rc = sqlite3_prepare_v2 (db, "SELECT last_id, last_hash, mac FROM audit_anchor", -1, &stmt, NULL);
  if (rc != SQLITE_OK)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_DB, "Cannot read the retention anchor: %s",
                   sqlite3_errmsg (db));
      return FALSE;
    }

  rc = sqlite3_step (stmt);
  if (rc == SQLITE_DONE)
    return TRUE;
  if (rc != SQLITE_ROW)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_DB, "Cannot read the retention anchor: %s",
                   sqlite3_errmsg (db));
      return FALSE;
    }

  *anchor_id = sqlite3_column_int64 (stmt, 0);
  if (!column_hash (stmt, 1, anchor_hash) || !column_hash (stmt, 2, mac))
    return fault (report, LUMO_AUDIT_FAULT_ANCHOR, *anchor_id + 1, error,
                  "The retention anchor is malformed; rows up to %" G_GINT64_FORMAT
                  " cannot be accounted for", *anchor_id);

  if (*anchor_id < 1)
    return fault (report, LUMO_AUDIT_FAULT_ANCHOR, *anchor_id + 1, error,
                  "The retention anchor is malformed (row %" G_GINT64_FORMAT ")", *anchor_id);
  /* Without the key the anchor is taken as it is (report->keyed says so). */
  if (secret == NULL)
    return TRUE;

  lumo_audit_chain_head_mac (secret, "anchor", *anchor_id, anchor_hash, expected);
  if (!lumo_secret_equal (mac, expected, sizeof mac))
    return fault (report, LUMO_AUDIT_FAULT_ANCHOR, *anchor_id + 1, error,
                  "The retention anchor (rows up to %" G_GINT64_FORMAT " deleted) was not "
                  "written by retention with this install's secret: the front of the "
                  "log was cut", *anchor_id);

  return TRUE;
}

static gboolean
check_result (GBytes                 *secret,
              sqlite3_stmt           *stmt,
              gint64                  id,
              const guint8           *row_hash,
              LumoAuditVerifyReport  *report,
              GError                **error)
{
  const char *result = (const char *) sqlite3_column_text (stmt, LUMO_AUDIT_COL_RESULT);
  const char *text = (const char *) sqlite3_column_text (stmt, LUMO_AUDIT_COL_RESULT_TEXT);
  guint8 mac[LUMO_AUDIT_HASH_SIZE];
  guint8 expected[LUMO_AUDIT_HASH_SIZE];

  if (result == NULL)
    {
      if (text != NULL || sqlite3_column_type (stmt, LUMO_AUDIT_COL_RESULT_TIME_US) != SQLITE_NULL ||
          sqlite3_column_type (stmt, LUMO_AUDIT_COL_RESULT_MAC) != SQLITE_NULL)
        return fault (report, LUMO_AUDIT_FAULT_RESULT_CHANGED, id, error,
                      "Row %" G_GINT64_FORMAT " has result fields but no result: its "
                      "result was edited", id);
      return TRUE;
    }

  if (secret == NULL)
    return TRUE;

  if (!column_hash (stmt, LUMO_AUDIT_COL_RESULT_MAC, mac))
    return fault (report, LUMO_AUDIT_FAULT_RESULT_CHANGED, id, error,
                  "The result of row %" G_GINT64_FORMAT " has no valid MAC: it was edited", id);

  lumo_audit_chain_result_mac (secret, row_hash, result, text,
                               sqlite3_column_int64 (stmt, LUMO_AUDIT_COL_RESULT_TIME_US), expected);
  if (!lumo_secret_equal (mac, expected, sizeof mac))
    return fault (report, LUMO_AUDIT_FAULT_RESULT_CHANGED, id, error,
                  "The result of row %" G_GINT64_FORMAT " does not match its MAC: it was "
                  "edited or moved from another row", id);

  return TRUE;
}

static gboolean
walk (sqlite3                *db,
      GBytes                 *secret,
      gboolean                have_checkpoint,
      gint64                  checkpoint_id,
      const guint8           *checkpoint_hash,
      LumoAuditProgressFunc   progress,
      gpointer                user_data,
      GCancellable           *cancellable,
      LumoAuditVerifyReport  *report,
      GError                **error)
{
  g_autoptr(sqlite3_stmt) count_stmt = NULL;
  g_autoptr(sqlite3_stmt) stmt = NULL;
  guint8 prev[LUMO_AUDIT_HASH_SIZE];
  gint64 anchor_id, expected_id, total = 0;
  gboolean checkpoint_seen = FALSE;
  int rc;

  if (!read_anchor (db, secret, &anchor_id, prev, report, error))
    return FALSE;
  report->anchor_id = anchor_id;
  expected_id = anchor_id + 1;

  if (sqlite3_prepare_v2 (db, "SELECT count(*) FROM audit", -1, &count_stmt, NULL) == SQLITE_OK &&
      sqlite3_step (count_stmt) == SQLITE_ROW)
    total = sqlite3_column_int64 (count_stmt, 0);

  if (have_checkpoint && checkpoint_id == anchor_id)
    {
      checkpoint_seen = TRUE;
      if (memcmp (prev, checkpoint_hash, LUMO_AUDIT_HASH_SIZE) != 0)
        return fault (report, LUMO_AUDIT_FAULT_CHECKPOINT, checkpoint_id, error,
                      "The head checkpoint (row %" G_GINT64_FORMAT ") does not match the log",
                      checkpoint_id);
    }

  rc = sqlite3_prepare_v2 (db, "SELECT " LUMO_AUDIT_ROW_COLUMNS " FROM audit a ORDER BY a.id",
                           -1, &stmt, NULL);
  if (rc != SQLITE_OK)
    {
      g_set_error (error, LUMO_ERROR, lumo_db_error_code (rc),
                   "Cannot read the audit log: %s", sqlite3_errmsg (db));
      return FALSE;
    }

  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      LumoAuditChainFields f;
      guint8 params_hmac[LUMO_AUDIT_HASH_SIZE];
      guint8 stored[LUMO_AUDIT_HASH_SIZE];
      guint8 computed[LUMO_AUDIT_HASH_SIZE];
      gint64 id = sqlite3_column_int64 (stmt, LUMO_AUDIT_COL_ID);

      if (id == expected_id + 1)
        return fault (report, LUMO_AUDIT_FAULT_ROW_MISSING, expected_id, error,
                      "Row %" G_GINT64_FORMAT " was deleted from the audit log", expected_id);
      if (id > expected_id)
        return fault (report, LUMO_AUDIT_FAULT_ROW_MISSING, expected_id, error,
                      "Rows %" G_GINT64_FORMAT "–%" G_GINT64_FORMAT " were deleted from the "
                      "audit log", expected_id, id - 1);
      if (id < expected_id)
        return fault (report, LUMO_AUDIT_FAULT_ROW_CHANGED, id, error,
                      "Row %" G_GINT64_FORMAT " lies before the retention anchor (%" G_GINT64_FORMAT
                      "): it was inserted", id, anchor_id);

      f.id = id;
      f.time_us = sqlite3_column_int64 (stmt, LUMO_AUDIT_COL_TIME_US);
      f.provider_id = column_text (stmt, LUMO_AUDIT_COL_PROVIDER_ID);
      f.caller_id = column_text (stmt, LUMO_AUDIT_COL_CALLER_ID);
      f.caller_name = column_text (stmt, LUMO_AUDIT_COL_CALLER_NAME);
      f.tool = column_text (stmt, LUMO_AUDIT_COL_TOOL);
      f.write = sqlite3_column_int64 (stmt, LUMO_AUDIT_COL_WRITE) != 0;
      f.target = column_text (stmt, LUMO_AUDIT_COL_TARGET);
      f.params_hmac = params_hmac;
      f.decision = column_text (stmt, LUMO_AUDIT_COL_DECISION);
      f.reason = column_text (stmt, LUMO_AUDIT_COL_REASON);
      f.caller_kind = column_text (stmt, LUMO_AUDIT_COL_CALLER_KIND);
      f.by_grant = sqlite3_column_int64 (stmt, LUMO_AUDIT_COL_BY_GRANT) != 0;

      if (!column_hash (stmt, LUMO_AUDIT_COL_PARAMS_HMAC, params_hmac) ||
          !column_hash (stmt, LUMO_AUDIT_COL_HASH, stored) ||
          sqlite3_column_type (stmt, LUMO_AUDIT_COL_WRITE) != SQLITE_INTEGER ||
          sqlite3_column_int64 (stmt, LUMO_AUDIT_COL_WRITE) > 1 ||
          sqlite3_column_int64 (stmt, LUMO_AUDIT_COL_WRITE) < 0 ||
          sqlite3_column_type (stmt, LUMO_AUDIT_COL_BY_GRANT) != SQLITE_INTEGER ||
          sqlite3_column_int64 (stmt, LUMO_AUDIT_COL_BY_GRANT) > 1 ||
          sqlite3_column_int64 (stmt, LUMO_AUDIT_COL_BY_GRANT) < 0 ||
          !lumo_audit_caller_kind_from_string (f.caller_kind, NULL))
        return fault (report, LUMO_AUDIT_FAULT_ROW_CHANGED, id, error,
                      "Row %" G_GINT64_FORMAT " is malformed: it was edited", id);

      lumo_audit_chain_row_hash (prev, &f, computed);
      if (memcmp (computed, stored, sizeof stored) != 0)
        return fault (report, LUMO_AUDIT_FAULT_ROW_CHANGED, id, error,
                      "Row %" G_GINT64_FORMAT " does not match the hash chain: it was edited, "
                      "inserted or moved (every row before it verifies)", id);

      if (!check_result (secret, stmt, id, stored, report, error))
        return FALSE;

      if (have_checkpoint && id == checkpoint_id)
        {
          checkpoint_seen = TRUE;
          if (memcmp (stored, checkpoint_hash, sizeof stored) != 0)
            return fault (report, LUMO_AUDIT_FAULT_CHECKPOINT, id, error,
                          "Row %" G_GINT64_FORMAT " is not the row the head checkpoint "
                          "recorded: the log was rewritten up to here", id);
        }

      memcpy (prev, stored, sizeof prev);
      if (report->first_id == 0)
        report->first_id = id;
      report->last_id = id;
      report->rows_checked++;
      expected_id = id + 1;

      if ((report->rows_checked & 1023) == 0)
        {
          if (g_cancellable_set_error_if_cancelled (cancellable, error))
            return FALSE;
          if (progress != NULL && (report->rows_checked & 16383) == 0)
            progress (report->rows_checked, total, user_data);
        }
    }

  if (rc != SQLITE_DONE)
    {
      if (rc != SQLITE_INTERRUPT || !g_cancellable_set_error_if_cancelled (cancellable, error))
        g_set_error (error, LUMO_ERROR, lumo_db_error_code (rc),
                     "Cannot read the audit log: %s", sqlite3_errmsg (db));
      return FALSE;
    }

  if (progress != NULL)
    progress (report->rows_checked, total, user_data);

  if (have_checkpoint && !checkpoint_seen)
    {
      gint64 end = expected_id - 1;

      if (checkpoint_id > end)
        return fault (report, LUMO_AUDIT_FAULT_TAIL_CUT, end + 1, error,
                      "The audit log ends at row %" G_GINT64_FORMAT ", but the head "
                      "checkpoint records row %" G_GINT64_FORMAT ": rows from %"
                      G_GINT64_FORMAT " on were cut off",
                      end, checkpoint_id, end + 1);
      /* Below the anchor: retention deleted the checkpoint's row. */
    }

  if (have_checkpoint && expected_id - 1 > checkpoint_id)
    report->rows_after_checkpoint = expected_id - 1 - MAX (checkpoint_id, anchor_id);

  return TRUE;
}

gboolean
_lumo_audit_chain_verify (sqlite3                *db,
                          GBytes                 *secret,
                          const char             *checkpoint_path,
                          LumoAuditProgressFunc   progress,
                          gpointer                user_data,
                          GCancellable           *cancellable,
                          LumoAuditVerifyReport  *report,
                          GError                **error)
{
  g_autoptr(GError) local_error = NULL;
  LumoAuditVerifyReport local_report;
  guint8 checkpoint_hash[LUMO_AUDIT_HASH_SIZE];
  gint64 checkpoint_id = 0;
  gboolean found = FALSE;
  gboolean ok;

  g_return_val_if_fail (db != NULL, FALSE);
  g_return_val_if_fail (secret != NULL || checkpoint_path == NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (report == NULL)
    report = &local_report;
  memset (report, 0, sizeof *report);
  report->keyed = secret != NULL;

  /* The checkpoint first, the snapshot second: a checkpoint is written only
   * after its commit, so whatever it records is inside the snapshot we take
   * next, even while another writer keeps appending. */
  if (checkpoint_path != NULL &&
      !lumo_audit_chain_read_checkpoint (checkpoint_path, secret, &found,
                                         &checkpoint_id, checkpoint_hash, &local_error) &&
      found)
    {
      report->fault = LUMO_AUDIT_FAULT_CHECKPOINT;
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }
  report->checkpoint_id = found ? checkpoint_id : 0;

  if (sqlite3_exec (db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_DB, "Cannot read the audit log: %s",
                   sqlite3_errmsg (db));
      return FALSE;
    }

  ok = walk (db, secret, found, checkpoint_id, checkpoint_hash,
             progress, user_data, cancellable, report, error);
  sqlite3_exec (db, "COMMIT", NULL, NULL, NULL);

  if (ok && checkpoint_path != NULL && !found && report->last_id > 0)
    {
      report->fault = LUMO_AUDIT_FAULT_CHECKPOINT;
      report->bad_id = report->last_id;
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_CHAIN_BROKEN,
                   "The head checkpoint “%s” is missing, so a cut-off tail cannot be "
                   "ruled out (the log ends at row %" G_GINT64_FORMAT ")",
                   checkpoint_path, report->last_id);
      return FALSE;
    }

  return ok;
}
