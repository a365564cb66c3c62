/* lumo-peer.h — who is on the other end of a D-Bus call, and what it may do
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Only the person at the desktop decides. Any process of the user can talk
 * to the session bus, sandboxed apps included, so every method of the
 * app's interface and every application action exported on the bus first
 * asks who called: the bus's GetConnectionCredentials gives the peer's
 * process ID (and its security label), and /proc says the rest — a
 * Flatpak sandbox by the .flatpak-info in its /proc/PID/root, a Snap by its
 * cgroup or AppArmor label ("snap.NAME.APP"), the program by
 * /proc/PID/exe. The /proc root is a parameter so that tests can fake
 * one.
 *
 * The rules (docs/security.md):
 * - lumo_peer_may_decide(): a sandboxed peer may change, approve, deny or
 *   list nothing, unless it is Lumo Access itself (the same Flatpak app ID
 *   or Snap name). A peer whose process cannot be seen (it is gone, or in
 *   another PID namespace) is refused too.
 * - lumo_peer_may_attach(): only the helper of this installation may hand
 *   over a session — lumo_peer_helper_for_app() names it. Inside a Flatpak
 *   sandbox the app sees no other process (its own PID namespace): there a
 *   peer it cannot see is accepted, one it can see must be of its own app.
 * - lumo_peer_may_attach_agent(): a desktop agent's launcher
 *   (AttachAgent) may hand over a session unless it is another app's
 *   sandbox — the rule of lumo_peer_may_decide(), with the Flatpak
 *   exception above. The agent's token says who the agent is; the program
 *   is not checked, since any unsandboxed process may run the launcher.
 *
 * What this does not stop: an unsandboxed process of the same user can
 * start the real helper with pipes and an origin of its own choosing.
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef enum
{
  LUMO_PEER_SANDBOX_NONE,
  LUMO_PEER_SANDBOX_FLATPAK,
  LUMO_PEER_SANDBOX_SNAP,
  /* The process is not in sight: gone, or in another PID namespace. */
  LUMO_PEER_SANDBOX_UNKNOWN,
} LumoPeerSandbox;

typedef struct
{
  guint32          pid;
  LumoPeerSandbox  sandbox;
  char            *app_id;      /* the Flatpak app ID or Snap name; NULL if none or unreadable */
  char            *exe;         /* what /proc/PID/exe names, " (deleted)" dropped; NULL if unreadable */
} LumoPeer;

#define LUMO_TYPE_PEER (lumo_peer_get_type ())

GType        lumo_peer_get_type         (void) G_GNUC_CONST;
/* What @proc_root (NULL: "/proc") says of process @pid; @security_label is
 * the bus's LinuxSecurityLabel (may be NULL). Never fails: what cannot be
 * read is UNKNOWN or NULL. */
LumoPeer    *lumo_peer_new_from_proc    (const char       *proc_root,
                                         guint32           pid,
                                         const char       *security_label);
LumoPeer    *lumo_peer_copy             (const LumoPeer   *peer);
void         lumo_peer_free             (LumoPeer         *peer);
/* "an unsandboxed process", "the Flatpak app org.example.App", … (English,
 * for logs and errors). */
char        *lumo_peer_describe         (const LumoPeer   *peer);

/* The peer of @sender on @connection: GetConnectionCredentials, then
 * lumo_peer_new_from_proc (@proc_root). Fails (LUMO_ERROR_PERMISSION_DENIED)
 * when the bus gives no process ID. */
void         lumo_peer_lookup_async     (GDBusConnection     *connection,
                                         const char          *sender,
                                         const char          *proc_root,
                                         GCancellable        *cancellable,
                                         GAsyncReadyCallback  callback,
                                         gpointer             user_data);
LumoPeer    *lumo_peer_lookup_finish    (GAsyncResult        *result,
                                         GError             **error);

/* May @peer approve, deny, change or read decisions? @app is Lumo Access
 * itself (lumo_peer_new_from_proc (proc_root, getpid (), NULL)). FALSE with
 * LUMO_ERROR_PERMISSION_DENIED saying who was refused and why. */
gboolean     lumo_peer_may_decide       (const LumoPeer   *peer,
                                         const LumoPeer   *app,
                                         const char       *own_app_id,
                                         GError          **error);

/* The helper this app accepts, by where the app runs (@app_exe):
 * BINDIR/lumo-access → LIBEXECDIR/lumo-access-host (installed, a Flatpak's
 * /app included); BUILD_ROOT/src/app/lumo-access →
 * BUILD_ROOT/src/host/lumo-access-host (a build tree). Anywhere else NULL
 * and LUMO_ERROR_NOT_FOUND: an app that cannot tell its own helper
 * accepts none. */
char        *lumo_peer_helper_for_app   (const char       *app_exe,
                                         GError          **error);

/* May @peer hand a session over (Attach)? See the rules above. */
gboolean     lumo_peer_may_attach       (const LumoPeer   *peer,
                                         const LumoPeer   *app,
                                         const char       *own_app_id,
                                         GError          **error);

/* May @peer hand a desktop agent's session over (AttachAgent)? See the
 * rules above. */
gboolean     lumo_peer_may_attach_agent (const LumoPeer   *peer,
                                         const LumoPeer   *app,
                                         const char       *own_app_id,
                                         GError          **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (LumoPeer, lumo_peer_free)

G_END_DECLS
