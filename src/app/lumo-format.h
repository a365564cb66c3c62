/* lumo-format.h — how times, durations and audit outcomes read in the UI
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Pure functions that turn core values into translated text, shared by the
 * pages, the notifications and the tests, so that one thing always reads
 * the same way. All return newly allocated strings, but for the titles,
 * which are borrowed from their arguments.
 */
#pragma once

#include <glib.h>

#include "lumo-audit-row.h"
#include "lumo-policy.h"

G_BEGIN_DECLS

/* Wall-clock µs since the epoch → "2025-01-31 14:05:09" in local time;
 * "Never" for 0. */
char *lumo_format_time          (gint64        time_us);
/* Wall-clock µs → "just now", "5 minutes ago", "today 14:05",
 * "yesterday 14:05" or the date — lower case, to sit inside a sentence;
 * relative to @now_us (0 = now). "Never" for 0. */
char *lumo_format_time_relative (gint64        time_us,
                                 gint64        now_us);
/* A span in µs → "45 s", "1 min 5 s", "2 h 3 min", rounded up to the
 * second (a countdown never shows 0 s while time is left). */
char *lumo_format_duration      (gint64        span_us);
/* A reason code (rate_limited, …) → a short phrase; unknown codes are
 * shown as they are. */
char *lumo_format_reason        (const char   *reason);
/* The decision and result of an audit row in a few words ("Allowed by
 * grant · succeeded" for a write a review grant let through). */
char *lumo_format_outcome       (LumoAuditRow *row);
/* "desktop agent" for a desktop agent's rows, NULL for an extension's: the
 * tag beside the caller's name. Borrowed. */
const char *lumo_format_caller_kind_tag (LumoAuditCallerKind kind);
/* The first @n_chars of a hex hash followed by "…". */
char *lumo_format_hash_prefix   (const char   *hash,
                                 guint         n_chars);

/* What a provider is called: its display name, else its namespace, else
 * @provider_id. @info may be NULL (a provider the policy does not know). */
const char *lumo_format_provider_title (const LumoProviderInfo *info,
                                        const char             *provider_id);
/* What a caller is called: its display name, else @caller_id. @info may be
 * NULL. */
const char *lumo_format_caller_title   (const LumoCallerInfo   *info,
                                        const char             *caller_id);

/* How a desktop agent's session reaches the app, from its transport
 * ("http", "stdio"): "HTTP", "stdio"; anything else as it is. */
const char *lumo_format_transport      (const char             *transport);

/* A path as GNOME shows one: the home folder as "~" ("~/.local/share/…"),
 * anything else as it is. For reading only; copy the path itself. */
char *lumo_format_path          (const char   *path);

/* One policy history entry as a sentence, e.g. "Allowed Foo Agent" or
 * "Turned writes off for Lumo Userscripts". The names are for display;
 * either may be NULL (the IDs are used). */
char *lumo_format_history_entry (const LumoHistoryEntry *entry,
                                 const char             *caller_title,
                                 const char             *provider_title);
/* How long a review grant stands: "Always, until you revoke it", or
 * "For 10 minutes, until 14:32" (the date too when it is not today, by
 * @now_us; 0 = now). */
char *lumo_format_grant_expiry  (const LumoGrantInfo    *grant,
                                 gint64                  now_us);
/* Who made a change: "by you", "by the command line", … */
char *lumo_format_origin        (LumoPolicyOrigin        origin);

G_END_DECLS
