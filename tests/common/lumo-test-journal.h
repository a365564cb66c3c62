/* lumo-test-journal.h — journald's socket, in a mount namespace of the test's
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * GLib's journald writer sends to /run/systemd/journal/socket, a path a
 * test may not take from the machine. lumo_test_journal_enter_namespace()
 * moves the test program into a mount namespace of its own (as root, or
 * in a user namespace where the kernel allows one) with a tmpfs over /run
 * and /var/log/journal; everything the program starts afterwards (the
 * store's threads, a bus and the app it activates, a systemd-journald)
 * is in it too. There a LumoTestJournal binds the socket and reads the
 * datagrams field by field in journald's native protocol.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define LUMO_TEST_JOURNAL_DIR    "/run/systemd/journal"
#define LUMO_TEST_JOURNAL_SOCKET LUMO_TEST_JOURNAL_DIR "/socket"

/* Call first in main(), before any thread exists (a namespace is a
 * thread's). NULL when done, else why it could not be (for
 * g_test_skip()). */
char        *lumo_test_journal_enter_namespace (void);

typedef struct _LumoTestJournal LumoTestJournal;

/* One field of a datagram; an entry is a GArray of them, in order. */
typedef struct
{
  char *key;
  char *value;
} LumoTestJournalField;

/* Binds the socket (replacing whatever is there). */
LumoTestJournal *lumo_test_journal_new      (void);
void             lumo_test_journal_free     (LumoTestJournal *journal);
/* The next datagram's fields; fails the test when none comes within
 * LUMO_TEST_WAIT_DEADLINE_S (a guard, not a measurement) or when it is
 * not the native protocol: KEY=value\n, or KEY\n, a 64-bit little-endian
 * length, the value and \n. */
GArray          *lumo_test_journal_next     (LumoTestJournal *journal);
/* TRUE when no datagram waits. */
gboolean         lumo_test_journal_is_empty (LumoTestJournal *journal);
/* The value of @key in @fields, NULL when absent. */
const char      *lumo_test_journal_field    (GArray          *fields,
                                             const char      *key);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (LumoTestJournal, lumo_test_journal_free)

G_END_DECLS
