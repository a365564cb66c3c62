/* lumo-action-guard.h — no sandboxed app activates the app's actions
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * GApplication exports its actions on the session bus (org.gtk.Actions
 * and org.freedesktop.Application.ActivateAction at the application's
 * object path), where the desktop's notification server activates the
 * buttons of a notification. Any other client of the bus could too, and
 * GApplication never says who called. LumoActionGuard filters those calls
 * on the connection: it looks the caller up (lumo-peer.h) and refuses a
 * sandboxed one that is not Lumo Access itself with
 * org.freedesktop.DBus.Error.AccessDenied (and a log line); an allowed
 * call is activated here as GApplication would have. Approve and Deny
 * also carry a one-time token (LumoNotifier), so an unsandboxed caller
 * without it achieves nothing either.
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct _LumoActionGuard LumoActionGuard;

/* Guards @application's actions on its bus connection; NULL when it has
 * none (not registered on a bus). @proc_root NULL: /proc. */
LumoActionGuard *lumo_action_guard_new  (GApplication    *application,
                                         const char      *proc_root);
void             lumo_action_guard_free (LumoActionGuard *guard);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (LumoActionGuard, lumo_action_guard_free)

G_END_DECLS
