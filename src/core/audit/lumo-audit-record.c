/* lumo-audit-record.c — what may go into an audit row
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Validation of records before they are queued, and the UTF-8-safe cut of
 * long texts. Nothing here touches the database.
 */
#define G_LOG_DOMAIN "lumo-audit"

#include "config.h"

#include <string.h>

#include "lumo-audit-private.h"
#include "lumo-audit-secret.h"
#include "lumo-db.h"
#include "lumo-error.h"
#include "lumo-text.h"
#include "lumo-protocol.h"

#define MAX_TOOL_LEN          LUMO_MAX_QUALIFIED_NAME_LEN
#define MAX_REASON_LEN        32

/* ---- validation --------------------------------------------------------------- */

char *
_lumo_audit_truncate_text (const char *text,
                           gsize       max_bytes)
{
  g_autofree char *valid = g_utf8_make_valid (text, -1);
  gsize marker_len = strlen (LUMO_AUDIT_TRUNCATION_MARKER);
  g_autofree char *cut = NULL;

  g_assert (max_bytes > marker_len);

  if (strlen (valid) <= max_bytes)
    return g_steal_pointer (&valid);

  /* The largest prefix that leaves room for the marker. */
  cut = lumo_utf8_cut (valid, max_bytes - marker_len);
  return g_strconcat (cut, LUMO_AUDIT_TRUNCATION_MARKER, NULL);
}

static gboolean
is_tool_name (const char *s)
{
  gsize len = 0;

  for (; s[len] != '\0'; len++)
    {
      char c = s[len];

      if (!g_ascii_isalnum (c) && c != '_' && c != '-' && c != '.')
        return FALSE;
    }

  return len >= 1 && len <= MAX_TOOL_LEN;
}

static gboolean
is_reason_code (const char *s)
{
  gsize len = 0;

  for (; s[len] != '\0'; len++)
    {
      char c = s[len];

      if (!(c >= 'a' && c <= 'z') && !g_ascii_isdigit (c) && c != '_')
        return FALSE;
    }

  return len <= MAX_REASON_LEN;
}

static gboolean
has_control_chars (const char *s)
{
  for (; *s; s = g_utf8_next_char (s))
    if (g_unichar_iscntrl (g_utf8_get_char (s)))
      return TRUE;

  return FALSE;
}

/* Checks @record and fills @row. @params_hmac_hex, when set, is the
 * already-keyed hash of an import and replaces params_sha256. */
gboolean
_lumo_audit_validate_record (GBytes                 *secret,
                             const LumoAuditRecord  *record,
                             const char             *params_hmac_hex,
                             LumoAuditQueuedRow     *row,
                             GError                **error)
{
  const char *name = record->caller_name != NULL ? record->caller_name : "";
  const char *target = record->target != NULL ? record->target : "";
  const char *reason = record->reason != NULL ? record->reason : "";

  if (!lumo_validate_extension_id (record->provider_id, "provider ID", error) ||
      !lumo_validate_extension_id (record->caller_id, "caller ID", error))
    return FALSE;

  if (record->tool == NULL || !is_tool_name (record->tool))
    {
      g_autofree char *shown = lumo_utf8_excerpt (record->tool, 64);

      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                   "The tool name “%s” is not 1–%d characters of A–Z, a–z, 0–9, _, - and .",
                   shown, MAX_TOOL_LEN);
      return FALSE;
    }

  if (!g_utf8_validate (name, -1, NULL) || has_control_chars (name))
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                   "The caller name is not valid UTF-8 text without control characters");
      return FALSE;
    }

  /* Only a UUID: no free text (and so no script source) can ride in the
   * target. */
  if (*target != '\0' && !g_uuid_string_is_valid (target))
    {
      g_autofree char *shown = lumo_utf8_excerpt (target, 64);

      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                   "The target “%s” is not a UUID (8-4-4-4-12 hex digits)", shown);
      return FALSE;
    }

  if (params_hmac_hex != NULL)
    {
      g_autofree char *lower = g_ascii_strdown (params_hmac_hex, -1);

      if (!lumo_audit_is_sha256_hex (lower) ||
          !lumo_audit_hex_decode (lower, row->params_hmac, LUMO_AUDIT_HASH_SIZE))
        {
          g_autofree char *shown = lumo_utf8_excerpt (params_hmac_hex, 80);

          g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                       "The keyed params hash “%s” is not 64 hex digits", shown);
          return FALSE;
        }
    }
  else
    {
      if (!lumo_audit_is_sha256_hex (record->params_sha256))
        {
          g_autofree char *shown = lumo_utf8_excerpt (record->params_sha256, 80);

          g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                       "The params hash “%s” is not a SHA-256 in 64 lowercase hex digits", shown);
          return FALSE;
        }
      lumo_secret_hmac (secret, (const guint8 *) record->params_sha256, 64,
                              row->params_hmac);
    }

  if (lumo_audit_decision_to_string (record->decision) == NULL)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                   "The decision %d is not allow, deny or pending-review", (int) record->decision);
      return FALSE;
    }

  if (lumo_audit_caller_kind_to_string (record->caller_kind) == NULL)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                   "The caller kind %d is not extension or agent", (int) record->caller_kind);
      return FALSE;
    }

  /* A grant lets a write through; a denied or held write was not let
   * through by anything. */
  if (record->by_grant && record->decision != LUMO_AUDIT_DECISION_ALLOW)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                   "Only an allowed write can be allowed by a grant, not one whose decision is %s",
                   lumo_audit_decision_to_string (record->decision));
      return FALSE;
    }

  if (!is_reason_code (reason))
    {
      g_autofree char *shown = lumo_utf8_excerpt (reason, 40);

      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                   "The reason code “%s” is not up to %d characters of a–z, 0–9 and _",
                   shown, MAX_REASON_LEN);
      return FALSE;
    }

  if (record->time_us < 0)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                   "The time %" G_GINT64_FORMAT " µs lies before 1970", record->time_us);
      return FALSE;
    }

  row->time_us = record->time_us != 0 ? record->time_us : g_get_real_time ();
  row->provider_id = g_strdup (record->provider_id);
  row->caller_id = g_strdup (record->caller_id);
  row->caller_name = _lumo_audit_truncate_text (name, LUMO_AUDIT_CALLER_NAME_MAX);
  row->tool = g_strdup (record->tool);
  row->write = record->write != FALSE;
  row->target = g_ascii_strdown (target, -1);
  row->decision = lumo_audit_decision_to_string (record->decision);
  row->reason = g_strdup (reason);
  row->caller_kind = lumo_audit_caller_kind_to_string (record->caller_kind);
  row->by_grant = record->by_grant != FALSE;

  return TRUE;
}

gboolean
_lumo_audit_validate_result (gboolean     ok,
                             const char  *error_text,
                             GError     **error)
{
  if (ok && error_text != NULL)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                   "A successful result has no error text");
      return FALSE;
    }

  return TRUE;
}
