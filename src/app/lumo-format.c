/* lumo-format.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-format"

#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "lumo-audit-store.h"
#include "lumo-format.h"

static gboolean
is_set (const char *text)
{
  return text != NULL && *text != '\0';
}

const char *
lumo_format_provider_title (const LumoProviderInfo *info,
                            const char             *provider_id)
{
  if (info != NULL && is_set (info->display_name))
    return info->display_name;
  if (info != NULL && is_set (info->namespace_))
    return info->namespace_;
  return provider_id;
}

const char *
lumo_format_caller_title (const LumoCallerInfo *info,
                          const char           *caller_id)
{
  if (info != NULL && is_set (info->display_name))
    return info->display_name;
  return caller_id;
}

char *
lumo_format_path (const char *path)
{
  const char *home = g_get_home_dir ();
  gsize len = home != NULL ? strlen (home) : 0;

  g_return_val_if_fail (path != NULL, NULL);

  /* "/home/ada" is a prefix of "/home/adam" too: only at a separator. */
  if (len > 1 && strncmp (path, home, len) == 0 && (path[len] == '/' || path[len] == '\0'))
    return g_strconcat ("~", path + len, NULL);

  return g_strdup (path);
}

char *
lumo_format_time (gint64 time_us)
{
  g_autoptr(GDateTime) dt = NULL;

  if (time_us <= 0)
    return g_strdup (_("Never"));

  if (!(dt = g_date_time_new_from_unix_local (time_us / G_USEC_PER_SEC)))
    return g_strdup ("?");

  return g_date_time_format (dt, "%Y-%m-%d %H:%M:%S");
}

char *
lumo_format_time_relative (gint64 time_us,
                           gint64 now_us)
{
  g_autoptr(GDateTime) dt = NULL;
  g_autoptr(GDateTime) now = NULL;
  gint64 age_s;

  if (time_us <= 0)
    return g_strdup (_("Never"));

  if (now_us <= 0)
    now_us = g_get_real_time ();

  age_s = (now_us - time_us) / G_USEC_PER_SEC;
  if (age_s < 60)
    return g_strdup (_("just now"));
  if (age_s < 60 * 60)
    {
      int minutes = (int) (age_s / 60);

      return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%d minute ago", "%d minutes ago",
                                           minutes), minutes);
    }

  dt = g_date_time_new_from_unix_local (time_us / G_USEC_PER_SEC);
  now = g_date_time_new_from_unix_local (now_us / G_USEC_PER_SEC);
  if (dt == NULL || now == NULL)
    return g_strdup ("?");

  if (g_date_time_get_year (dt) == g_date_time_get_year (now) &&
      g_date_time_get_day_of_year (dt) == g_date_time_get_day_of_year (now))
    /* Translators: a time of today, in a sentence, e.g. "first seen today 14:05". */
    return g_date_time_format (dt, _("today %H:%M"));

  if (age_s < 2 * 24 * 60 * 60 &&
      g_date_time_get_day_of_year (now) - g_date_time_get_day_of_year (dt) == 1)
    /* Translators: a time of yesterday, in a sentence, e.g. "yesterday 14:05". */
    return g_date_time_format (dt, _("yesterday %H:%M"));

  return g_date_time_format (dt, "%Y-%m-%d %H:%M");
}

char *
lumo_format_duration (gint64 span_us)
{
  gint64 s;

  if (span_us <= 0)
    return g_strdup_printf (_("%d s"), 0);

  s = (span_us + G_USEC_PER_SEC - 1) / G_USEC_PER_SEC;
  if (s < 60)
    /* Translators: a duration in seconds, e.g. "45 s". */
    return g_strdup_printf (_("%d s"), (int) s);
  if (s < 60 * 60)
    {
      if (s % 60 == 0)
        /* Translators: a duration in minutes, e.g. "5 min". */
        return g_strdup_printf (_("%d min"), (int) (s / 60));
      /* Translators: a duration, e.g. "1 min 5 s". */
      return g_strdup_printf (_("%d min %d s"), (int) (s / 60), (int) (s % 60));
    }

  /* Translators: a duration, e.g. "2 h 3 min". */
  return g_strdup_printf (_("%d h %d min"), (int) (s / 3600), (int) ((s % 3600) / 60));
}

char *
lumo_format_reason (const char *reason)
{
  static const struct {
    const char *code;
    const char *text;
  } reasons[] = {
    { LUMO_AUDIT_REASON_DISABLED, N_("agent access is off") },
    { LUMO_AUDIT_REASON_NOT_AUTHORIZED, N_("caller not allowed") },
    { LUMO_AUDIT_REASON_PENDING, N_("caller awaiting approval") },
    { LUMO_AUDIT_REASON_WRITES_OFF, N_("writes are off") },
    { LUMO_AUDIT_REASON_RATE_LIMITED, N_("rate limited") },
    { LUMO_AUDIT_REASON_REVIEW_REQUIRED, N_("review required") },
    { LUMO_AUDIT_REASON_REVIEW_REJECTED, N_("rejected in review") },
    { LUMO_AUDIT_REASON_REVIEW_TIMEOUT, N_("review timed out") },
    { LUMO_AUDIT_REASON_AUDIT_FAILED, N_("could not be recorded") },
  };

  if (reason == NULL || *reason == '\0')
    return g_strdup ("");

  for (guint i = 0; i < G_N_ELEMENTS (reasons); i++)
    if (g_str_equal (reason, reasons[i].code))
      return g_strdup (_(reasons[i].text));

  return g_strdup (reason);
}

char *
lumo_format_outcome (LumoAuditRow *row)
{
  LumoAuditResult result;

  g_return_val_if_fail (LUMO_IS_AUDIT_ROW (row), NULL);

  result = lumo_audit_row_get_result (row);

  switch (lumo_audit_row_get_decision (row))
    {
    case LUMO_AUDIT_DECISION_DENY:
      {
        g_autofree char *reason = lumo_format_reason (lumo_audit_row_get_reason (row));

        if (*reason == '\0')
          return g_strdup (_("Denied"));
        /* Translators: a denied call and why, e.g. "Denied: rate limited". */
        return g_strdup_printf (_("Denied: %s"), reason);
      }

    case LUMO_AUDIT_DECISION_PENDING_REVIEW:
      if (result == LUMO_AUDIT_RESULT_OK)
        return g_strdup (_("Reviewed · succeeded"));
      if (result == LUMO_AUDIT_RESULT_ERROR)
        return g_strdup (_("Reviewed · failed"));
      return g_strdup (_("In review"));

    case LUMO_AUDIT_DECISION_ALLOW:
    default:
      if (lumo_audit_row_get_by_grant (row))
        {
          /* The person had granted this agent this tool: no review. */
          if (result == LUMO_AUDIT_RESULT_OK)
            return g_strdup (_("Allowed by grant · succeeded"));
          if (result == LUMO_AUDIT_RESULT_ERROR)
            return g_strdup (_("Allowed by grant · failed"));
          return g_strdup (_("Allowed by grant"));
        }
      if (result == LUMO_AUDIT_RESULT_OK)
        return g_strdup (_("Allowed · succeeded"));
      if (result == LUMO_AUDIT_RESULT_ERROR)
        return g_strdup (_("Allowed · failed"));
      return g_strdup (_("Allowed"));
    }
}

const char *
lumo_format_caller_kind_tag (LumoAuditCallerKind kind)
{
  /* Translators: a small tag beside an agent's name in the audit list. */
  return kind == LUMO_AUDIT_CALLER_KIND_AGENT ? _("desktop agent") : NULL;
}

char *
lumo_format_hash_prefix (const char *hash,
                         guint       n_chars)
{
  if (hash == NULL || *hash == '\0')
    return g_strdup ("");
  if (strlen (hash) <= n_chars)
    return g_strdup (hash);
  return g_strdup_printf ("%.*s…", (int) n_chars, hash);
}

static gboolean
is_on (const char *value)
{
  return g_strcmp0 (value, "on") == 0;
}

char *
lumo_format_history_entry (const LumoHistoryEntry *entry,
                           const char             *caller_title,
                           const char             *provider_title)
{
  const char *field;
  const char *value;

  g_return_val_if_fail (entry != NULL, NULL);

  field = entry->field != NULL ? entry->field : "";
  value = entry->new_value;
  if (caller_title == NULL)
    caller_title = entry->caller_id != NULL ? entry->caller_id : "";
  if (provider_title == NULL)
    provider_title = entry->provider_id != NULL ? entry->provider_id : "";

  if (g_str_equal (field, "caller"))
    {
      if (value == NULL)
        /* Translators: %s is an agent's name. */
        return g_strdup_printf (_("Forgot %s"), caller_title);
      if (g_str_equal (value, "allowed"))
        return g_strdup_printf (_("Allowed %s"), caller_title);
      if (g_str_equal (value, "denied"))
        return g_strdup_printf (_("Denied %s"), caller_title);
      if (g_str_equal (value, "pending"))
        return g_strdup_printf (_("%s asked for access"), caller_title);
    }
  else if (g_str_equal (field, "enabled"))
    /* Translators: %s is a provider's name. */
    return g_strdup_printf (is_on (value) ? _("Turned agent access on for %s")
                                          : _("Turned agent access off for %s"), provider_title);
  else if (g_str_equal (field, "writes"))
    return g_strdup_printf (is_on (value) ? _("Allowed writes to %s")
                                          : _("Turned writes off for %s"), provider_title);
  else if (g_str_equal (field, "review"))
    return g_strdup_printf (is_on (value) ? _("Turned write review on for %s")
                                          : _("Turned write review off for %s"), provider_title);
  else if (g_str_equal (field, "grant") && entry->tool != NULL)
    {
      if (value == NULL)
        /* Translators: "Revoked the grant of userscripts.save_script to Foo Agent". */
        return g_strdup_printf (_("Revoked the grant of %s to %s"), entry->tool, caller_title);
      if (g_str_equal (value, "10m"))
        /* Translators: "Approved Foo Agent’s writes of userscripts.save_script for 10 minutes". */
        return g_strdup_printf (_("Approved %s’s writes of %s for 10 minutes"), caller_title, entry->tool);
      if (g_str_equal (value, "always"))
        return g_strdup_printf (_("Approved all of %s’s writes of %s"), caller_title, entry->tool);
    }
  else if (g_str_equal (field, "agent"))
    {
      /* The value is the agent's name; the caller title may be its ID. */
      if (value != NULL)
        /* Translators: %s is a desktop agent's name, e.g. "Claude Code". */
        return g_strdup_printf (_("Added the desktop agent %s"), value);
      return g_strdup_printf (_("Removed the desktop agent %s"),
                              entry->old_value != NULL ? entry->old_value : caller_title);
    }
  else if (g_str_equal (field, "provider"))
    {
      if (value == NULL)
        return g_strdup_printf (_("Removed %s"), provider_title);
      if (g_str_equal (value, "watched"))
        return g_strdup_printf (_("Started watching %s"), provider_title);
      if (g_str_equal (value, "registered"))
        return g_strdup_printf (_("%s connected for the first time"), provider_title);
    }

  /* Translators: a history entry of a kind this version does not know:
   * the field and its new value. */
  return g_strdup_printf (_("Changed %s to %s"), field, value != NULL ? value : "—");
}

char *
lumo_format_grant_expiry (const LumoGrantInfo *grant,
                          gint64               now_us)
{
  g_autoptr(GDateTime) until = NULL;
  g_autoptr(GDateTime) now = NULL;
  g_autofree char *when = NULL;

  g_return_val_if_fail (grant != NULL, NULL);

  if (grant->expires == 0)
    return g_strdup (_("Always, until you revoke it"));

  until = g_date_time_new_from_unix_local (grant->expires / G_USEC_PER_SEC);
  now = g_date_time_new_from_unix_local ((now_us > 0 ? now_us : g_get_real_time ()) / G_USEC_PER_SEC);
  if (until == NULL || now == NULL)
    return g_strdup ("?");

  if (g_date_time_get_year (until) == g_date_time_get_year (now) &&
      g_date_time_get_day_of_year (until) == g_date_time_get_day_of_year (now))
    when = g_date_time_format (until, "%H:%M");
  else
    when = g_date_time_format (until, "%Y-%m-%d %H:%M");

  /* Translators: a grant for ten minutes, e.g. "For 10 minutes, until 14:32". */
  return g_strdup_printf (_("For 10 minutes, until %s"), when);
}

char *
lumo_format_origin (LumoPolicyOrigin origin)
{
  switch (origin)
    {
    case LUMO_POLICY_ORIGIN_UI:
      return g_strdup (_("by you"));
    case LUMO_POLICY_ORIGIN_CLI:
      return g_strdup (_("by the command line"));
    case LUMO_POLICY_ORIGIN_IMPORT:
      return g_strdup (_("by an import"));
    case LUMO_POLICY_ORIGIN_BRIDGE:
      return g_strdup (_("automatically"));
    default:
      return g_strdup ("");
    }
}

const char *
lumo_format_transport (const char *transport)
{
  g_return_val_if_fail (transport != NULL, NULL);

  if (g_str_equal (transport, "http"))
    return "HTTP";
  return transport;
}
