/* lumo-notifier.h — desktop notifications for what waits while no one looks
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoNotifier owns the GNotifications of the app: a new pending agent or a
 * write waiting for review, while no Lumo Access window is active (hidden,
 * in the background, or none at all in service mode), is announced with
 * buttons that work without opening the window: Approve / Deny and Open
 * for an agent, Reject / Approve Once / Always for a write (Always makes
 * the review grant the window's Always makes; the body opens the window).
 * The notification is withdrawn once the request is decided, wherever
 * that happened. The buttons call application actions (app.approve-caller,
 * app.deny-caller, app.approve-review, app.approve-review-always,
 * app.reject-review, app.show-requests) that this object adds, and which
 * edit the policy and the review queue exactly as the window does.
 *
 * Only the person decides: the Approve and Deny (Reject) buttons carry a
 * one-time random token bound to their notification, and an activation
 * without it (any other client of the bus) does nothing; a sandboxed app
 * cannot activate any of these actions at all (LumoActionGuard).
 */
#pragma once

#include <gtk/gtk.h>

#include "lumo-types.h"

G_BEGIN_DECLS

#define LUMO_TYPE_NOTIFIER (lumo_notifier_get_type ())
G_DECLARE_FINAL_TYPE (LumoNotifier, lumo_notifier, LUMO, NOTIFIER, GObject)

LumoNotifier *lumo_notifier_new        (GtkApplication *application,
                                        LumoBackend    *backend);
/* Creates a notifier that lives as long as @application (the app calls
 * this once its backend exists). */
void          lumo_notifier_install    (GtkApplication *application,
                                        LumoBackend    *backend);
/* Notifications sent and withdrawn so far (tests). */
guint         lumo_notifier_get_n_sent      (LumoNotifier *self);
/* Where the action guard looks callers up: NULL for /proc (tests pass a
 * fake one, see lumo-peer.h). */
void          lumo_notifier_set_proc_root   (LumoNotifier *self,
                                             const char   *proc_root);
guint         lumo_notifier_get_n_withdrawn (LumoNotifier *self);
/* The ID of the notification of a pending agent / a review. */
char         *lumo_notifier_caller_id  (const char     *provider_id,
                                        const char     *caller_id);
char         *lumo_notifier_review_id  (const char     *request_id);

G_END_DECLS
