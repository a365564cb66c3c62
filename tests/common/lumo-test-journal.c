/* lumo-test-journal.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-test-journal"
#define _GNU_SOURCE   /* unshare */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "lumo-test.h"
#include "lumo-test-journal.h"

struct _LumoTestJournal
{
  int fd;
};

static gboolean
write_proc (const char *path,
            const char *text)
{
  int fd = open (path, O_WRONLY | O_CLOEXEC);
  gboolean ok = fd >= 0 && write (fd, text, strlen (text)) == (gssize) strlen (text);

  if (fd >= 0)
    close (fd);
  return ok;
}

char *
lumo_test_journal_enter_namespace (void)
{
  uid_t uid = geteuid ();
  gid_t gid = getegid ();

  if (uid == 0 ? unshare (CLONE_NEWNS) != 0 : unshare (CLONE_NEWUSER | CLONE_NEWNS) != 0)
    return g_strdup_printf ("cannot make a mount namespace: %s", g_strerror (errno));
  if (uid != 0)
    {
      g_autofree char *uid_map = g_strdup_printf ("0 %u 1\n", (guint) uid);
      g_autofree char *gid_map = g_strdup_printf ("0 %u 1\n", (guint) gid);

      if (!write_proc ("/proc/self/setgroups", "deny\n") ||
          !write_proc ("/proc/self/uid_map", uid_map) || !write_proc ("/proc/self/gid_map", gid_map))
        return g_strdup_printf ("cannot map the user namespace: %s", g_strerror (errno));
    }

  /* Private first: nothing mounted here reaches the machine's namespace. */
  if (mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
      mount ("tmpfs", "/run", "tmpfs", 0, "mode=0755") != 0 ||
      (g_file_test ("/var/log/journal", G_FILE_TEST_IS_DIR) &&
       mount ("tmpfs", "/var/log/journal", "tmpfs", 0, "mode=0755") != 0))
    return g_strdup_printf ("cannot mount a tmpfs over /run: %s", g_strerror (errno));

  if (g_mkdir_with_parents (LUMO_TEST_JOURNAL_DIR, 0755) != 0)
    return g_strdup_printf ("cannot make %s: %s", LUMO_TEST_JOURNAL_DIR, g_strerror (errno));
  return NULL;
}

LumoTestJournal *
lumo_test_journal_new (void)
{
  LumoTestJournal *journal = g_new0 (LumoTestJournal, 1);
  struct sockaddr_un sa = { .sun_family = AF_UNIX };

  g_strlcpy (sa.sun_path, LUMO_TEST_JOURNAL_SOCKET, sizeof sa.sun_path);
  g_unlink (LUMO_TEST_JOURNAL_SOCKET);
  journal->fd = socket (AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  g_assert_cmpint (journal->fd, >=, 0);
  if (bind (journal->fd, (struct sockaddr *) &sa, sizeof sa) != 0)
    g_error ("Cannot bind %s: %s", LUMO_TEST_JOURNAL_SOCKET, g_strerror (errno));
  return journal;
}

void
lumo_test_journal_free (LumoTestJournal *journal)
{
  close (journal->fd);
  g_unlink (LUMO_TEST_JOURNAL_SOCKET);
  g_free (journal);
}

static void
field_clear (gpointer data)
{
  LumoTestJournalField *f = data;

  g_free (f->key);
  g_free (f->value);
}

static GArray *
parse_datagram (const char *buf,
                gsize       len)
{
  GArray *fields = g_array_new (FALSE, TRUE, sizeof (LumoTestJournalField));
  const char *p = buf, *end = buf + len;

  g_array_set_clear_func (fields, field_clear);
  while (p < end)
    {
      const char *nl = memchr (p, '\n', end - p);
      const char *eq = memchr (p, '=', end - p);
      LumoTestJournalField f;

      if (nl == NULL)
        g_error ("A journal datagram ends without a newline: “%.*s”", (int) (end - p), p);
      if (eq != NULL && eq < nl)
        {
          f.key = g_strndup (p, eq - p);
          f.value = g_strndup (eq + 1, nl - eq - 1);
          p = nl + 1;
        }
      else
        {
          guint64 n;

          f.key = g_strndup (p, nl - p);
          g_assert_cmpint (end - (nl + 1), >=, 9);
          memcpy (&n, nl + 1, sizeof n);
          n = GUINT64_FROM_LE (n);
          g_assert_cmpuint (n, <, (guint64) (end - (nl + 9)));
          f.value = g_strndup (nl + 9, n);
          g_assert_cmpint (nl[9 + n], ==, '\n');
          p = nl + 10 + n;
        }
      /* journald's rule for field names. */
      g_assert_true (f.key[0] != '\0' && f.key[0] != '_' && !g_ascii_isdigit (f.key[0]));
      for (const char *k = f.key; *k; k++)
        g_assert_true (g_ascii_isupper (*k) || g_ascii_isdigit (*k) || *k == '_');
      g_array_append_val (fields, f);
    }

  return fields;
}

GArray *
lumo_test_journal_next (LumoTestJournal *journal)
{
  struct pollfd pfd = { journal->fd, POLLIN, 0 };
  char buf[65536];
  gssize n;

  if (poll (&pfd, 1, LUMO_TEST_WAIT_DEADLINE_S * 1000) != 1)
    g_error ("No entry reached %s in %d s", LUMO_TEST_JOURNAL_SOCKET, LUMO_TEST_WAIT_DEADLINE_S);
  n = recv (journal->fd, buf, sizeof buf, 0);
  g_assert_cmpint (n, >, 0);
  return parse_datagram (buf, n);
}

gboolean
lumo_test_journal_is_empty (LumoTestJournal *journal)
{
  struct pollfd pfd = { journal->fd, POLLIN, 0 };

  return poll (&pfd, 1, 0) == 0;
}

const char *
lumo_test_journal_field (GArray     *fields,
                         const char *key)
{
  for (guint i = 0; i < fields->len; i++)
    if (g_str_equal (g_array_index (fields, LumoTestJournalField, i).key, key))
      return g_array_index (fields, LumoTestJournalField, i).value;
  return NULL;
}
