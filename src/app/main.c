/* main.c — the lumo-access binary
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-access"

#include "config.h"

#include <glib-unix.h>
#include <glib/gi18n-lib.h>
#include <locale.h>
#if HAVE_M_MMAP_THRESHOLD
#include <malloc.h>
#endif
#include <signal.h>

#include "lumo-application.h"

static gboolean
on_quit_signal_cb (gpointer user_data)
{
  /* A clean quit answers every waiting helper and closes the stores; the
   * session manager sends SIGTERM at logout. */
  g_application_quit (G_APPLICATION (user_data));
  return G_SOURCE_CONTINUE;
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(LumoApplication) app = NULL;
  guint sigterm_id;
  guint sigint_id;
  int status;

#if HAVE_M_MMAP_THRESHOLD
  /* glibc raises its mmap threshold, and twice that its trim threshold,
   * each time a big block is freed; then the threads' arenas (SQLite's
   * readers and writer) keep megabytes they freed at their top, which
   * the one malloc_trim() at idle was measured not to give back. A
   * fixed threshold (glibc's default) keeps both where they start, so a
   * thread's arena shrinks when it frees: 3–4 MB of RSS in a third of
   * the launches on the 1M-row log (docs/PERFORMANCE.md). */
  mallopt (M_MMAP_THRESHOLD, 128 * 1024);
#endif

  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  /* A session's peer can vanish at any time; a write to its pipe must fail
   * with EPIPE, not kill every other session. */
  signal (SIGPIPE, SIG_IGN);

  app = lumo_application_new ();
  sigterm_id = g_unix_signal_add (SIGTERM, on_quit_signal_cb, app);
  sigint_id = g_unix_signal_add (SIGINT, on_quit_signal_cb, app);

  status = g_application_run (G_APPLICATION (app), argc, argv);

  g_source_remove (sigterm_id);
  g_source_remove (sigint_id);

  return status;
}
