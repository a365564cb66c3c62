/* lumo-test.h — what every suite's tests share: temporary directories,
 * waiting on a condition, running a program, reading its JSON
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * GLib, GIO and json-glib only, so display-less tests and the app's alike
 * link it. Every helper fails the test itself (with a message that says
 * what it was doing) rather than hand back something a caller could
 * forget to check.
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "lumo-test-ids.h"

G_BEGIN_DECLS

/* ---- temporary directories ---------------------------------------------- */

/* A new, empty directory "lumo-@name-XXXXXX" in the temporary directory. */
char       *lumo_test_dir_new         (const char  *name);
/* Removes @path and everything below it (a file: just the file) without
 * following symbolic links; modes a test took away are given back first.
 * Fails the test if anything stays: a file that comes back after its
 * owner was freed is a leak the test should see. A missing @path is fine. */
void        lumo_test_dir_remove      (const char  *path);

/* Each file of @dir, one line each — its name, size and SHA-256 — sorted
 * by name: equal before and after means nothing in @dir was written,
 * created or removed (the file, and anything SQLite might put beside it). */
char       *lumo_test_dir_fingerprint (const char  *dir);

/* @base/@relative as a folder (mode 0700), with the folders above it. */
void        lumo_test_mkdir_in        (const char  *base,
                                       const char  *relative);
/* @base/@relative (@base itself when @relative is NULL) holding
 * @contents, with the folders above it. */
void        lumo_test_write_in        (const char  *base,
                                       const char  *relative,
                                       const char  *contents);

/* TRUE if the file @path holds the bytes of @needle anywhere (a secret
 * that must be stored nowhere). A missing file holds nothing. Reading a
 * database file drops the SQLite locks of this process on it: check
 * with the databases closed, or only open new connections after. */
gboolean    lumo_test_file_contains   (const char  *path,
                                       const char  *needle);

/* ---- waiting ------------------------------------------------------------ */

typedef gboolean (*LumoTestCondition) (gpointer data);

/* How long lumo_test_wait_until() waits before the test fails: a guard
 * against a hang on a loaded machine or under a sanitizer, never a
 * measurement. */
#define LUMO_TEST_WAIT_DEADLINE_S 120

/* Iterates the thread-default main context until @condition returns
 * TRUE (at once if it already does). Past LUMO_TEST_WAIT_DEADLINE_S of
 * real time the test fails with "Still waiting for @what". Conditions
 * another thread or process makes true (a commit, an exit) wake no source
 * of ours, so they are also checked every few milliseconds while it
 * waits. */
void        lumo_test_wait_until      (LumoTestCondition  condition,
                                       gpointer           data,
                                       const char        *what);
/* The same for teardown that escalates (SIGTERM, then SIGKILL): waits at
 * most @timeout_ms and returns whether @condition holds, without failing. */
gboolean    lumo_test_try_wait_until  (LumoTestCondition  condition,
                                       gpointer           data,
                                       guint              timeout_ms);
/* Conditions for the common cases: @data points to a pointer that becomes
 * set (an async result a callback keeps), to a gboolean that becomes TRUE. */
gboolean    lumo_test_is_set          (gpointer           data);
gboolean    lumo_test_is_true         (gpointer           data);
/* A GAsyncReadyCallback that keeps the result in the GAsyncResult * that
 * @user_data points to (a new reference), for lumo_test_is_set. */
void        lumo_test_keep_result_cb  (GObject           *source,
                                       GAsyncResult      *result,
                                       gpointer           user_data);
/* Dispatches every source that is ready now, without blocking. */
void        lumo_test_drain           (void);

/* ---- running a program -------------------------------------------------- */

/* Runs @argv (argv[0] a path) from @launcher (NULL: a plain one; its
 * environment, cwd and child setup are used, its flags are replaced by
 * three pipes) with @input on stdin (NULL: none, at once EOF). The main
 * context is iterated meanwhile, so a service in this process keeps
 * answering the program. Stores stdout and stderr in *@out and *@err
 * (each optional; what they held is freed), puts stderr in the test log,
 * and returns the exit status; a program killed by a signal fails the
 * test. */
int         lumo_test_run             (GSubprocessLauncher *launcher,
                                       const char * const  *argv,
                                       const char          *input,
                                       char               **out,
                                       char               **err);

/* The document @text holds (what a program printed with --json); fails
 * the test when it is not JSON. */
JsonNode   *lumo_test_parse_json      (const char          *text);

G_END_DECLS
