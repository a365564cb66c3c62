/* lumo-secret.c — key files, random bytes, MACs, constant-time comparison
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-secret"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "lumo-error.h"
#include "lumo-secret.h"

static void
secret_free (gpointer data)
{
  explicit_bzero (data, LUMO_SECRET_SIZE);
  g_free (data);
}

static gboolean
read_all (int     fd,
          guint8 *buf,
          gsize   len)
{
  gsize done = 0;

  while (done < len)
    {
      gssize n = read (fd, buf + done, len - done);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      done += n;
    }

  return TRUE;
}

static gboolean
write_all (int           fd,
           const guint8 *buf,
           gsize         len)
{
  gsize done = 0;

  while (done < len)
    {
      gssize n = write (fd, buf + done, len - done);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      done += n;
    }

  return TRUE;
}

static gboolean
fill_random (guint8 *buf,
             gsize   len)
{
  gsize done = 0;

  while (done < len)
    {
      gssize n = getrandom (buf + done, len - done, 0);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return FALSE;
      done += n;
    }

  return TRUE;
}

/* NULL without an error when the file does not exist (the caller creates
 * it); NULL with an error for anything else that is wrong. */
static GBytes *
load (const char  *path,
      const char  *what,
      GError     **error)
{
  struct stat st;
  guint8 *data;
  int fd;

  fd = open (path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    {
      int saved_errno = errno;

      if (saved_errno != ENOENT)
        g_set_error (error, LUMO_ERROR, LUMO_ERROR_SECRET,
                     "Cannot open the %s “%s”: %s",
                     what, path, g_strerror (saved_errno));
      errno = saved_errno;
      return NULL;
    }

  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_SECRET,
                   "The %s “%s” is not a regular file", what, path);
      close (fd);
      errno = EINVAL;
      return NULL;
    }

  /* A secret others can read no longer keys anything: refuse it, so the
   * person fixes the mode instead of trusting a leaked key. */
  if ((st.st_mode & 077) != 0)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_SECRET,
                   "The %s “%s” is readable by others (mode %04o); "
                   "it must be 0600",
                   what, path, (guint) (st.st_mode & 07777));
      close (fd);
      errno = EPERM;
      return NULL;
    }

  if (st.st_size != LUMO_SECRET_SIZE)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_SECRET,
                   "The %s “%s” has %" G_GINT64_FORMAT " bytes, not %d; "
                   "it was left as it is",
                   what, path, (gint64) st.st_size, LUMO_SECRET_SIZE);
      close (fd);
      errno = EINVAL;
      return NULL;
    }

  data = g_malloc (LUMO_SECRET_SIZE);
  if (!read_all (fd, data, LUMO_SECRET_SIZE))
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_SECRET,
                   "Cannot read the %s “%s”", what, path);
      secret_free (data);
      close (fd);
      errno = EIO;
      return NULL;
    }

  close (fd);
  return g_bytes_new_with_free_func (data, LUMO_SECRET_SIZE, secret_free, data);
}

static void
sync_parent_dir (const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);
  int fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  if (fd >= 0)
    {
      fsync (fd);
      close (fd);
    }
}

/* Writes a fresh secret to a temporary file and links it into place: link()
 * fails if the name exists, so of two processes creating at once exactly
 * one wins and the other reads the winner's key. */
static gboolean
create (const char  *path,
        const char  *what,
        GError     **error)
{
  g_autofree char *tmp = g_strconcat (path, ".XXXXXX", NULL);
  guint8 data[LUMO_SECRET_SIZE];
  gboolean ok;
  int fd;

  fd = g_mkstemp_full (tmp, O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0)
    {
      int saved_errno = errno;

      g_set_error (error, LUMO_ERROR, LUMO_ERROR_SECRET,
                   "Cannot create the %s beside “%s”: %s",
                   what, path, g_strerror (saved_errno));
      return FALSE;
    }

  ok = fill_random (data, sizeof data) &&
       write_all (fd, data, sizeof data) &&
       fsync (fd) == 0;
  explicit_bzero (data, sizeof data);
  close (fd);

  if (!ok)
    {
      int saved_errno = errno;

      g_unlink (tmp);
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_SECRET,
                   "Cannot write the %s “%s”: %s",
                   what, tmp, g_strerror (saved_errno));
      return FALSE;
    }

  if (link (tmp, path) != 0 && errno != EEXIST)
    {
      int saved_errno = errno;

      g_unlink (tmp);
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_SECRET,
                   "Cannot create the %s “%s”: %s",
                   what, path, g_strerror (saved_errno));
      return FALSE;
    }

  g_unlink (tmp);
  sync_parent_dir (path);
  return TRUE;
}

GBytes *
lumo_secret_load_or_create (const char  *path,
                            const char  *what,
                            GError     **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (what != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  for (guint attempt = 0; attempt < 3; attempt++)
    {
      g_autoptr(GError) local_error = NULL;
      GBytes *secret;

      if ((secret = load (path, what, &local_error)))
        return secret;

      if (local_error != NULL)
        {
          g_propagate_error (error, g_steal_pointer (&local_error));
          return NULL;
        }

      if (!create (path, what, error))
        return NULL;
    }

  g_set_error (error, LUMO_ERROR, LUMO_ERROR_SECRET,
               "The %s “%s” keeps disappearing", what, path);
  return NULL;
}

void
lumo_secret_hmac (GBytes       *secret,
                  const guint8 *data,
                  gsize         len,
                  guint8       *out)
{
  g_autoptr(GHmac) hmac = NULL;
  gsize key_len = 0;
  const guint8 *key = g_bytes_get_data (secret, &key_len);
  gsize out_len = 32;

  hmac = g_hmac_new (G_CHECKSUM_SHA256, key, key_len);
  g_hmac_update (hmac, data, len);
  g_hmac_get_digest (hmac, out, &out_len);
  g_assert (out_len == 32);
}

gboolean
lumo_secret_fill_random (guint8  *buf,
                         gsize    len,
                         GError **error)
{
  g_return_val_if_fail (buf != NULL || len == 0, FALSE);

  if (!fill_random (buf, len))
    {
      int saved_errno = errno;

      g_set_error (error, LUMO_ERROR, LUMO_ERROR_SECRET,
                   "Cannot read random bytes from the kernel: %s", g_strerror (saved_errno));
      return FALSE;
    }

  return TRUE;
}

gboolean
lumo_secret_equal (const guint8 *a,
                   const guint8 *b,
                   gsize         len)
{
  /* volatile: the compiler may not turn the loop into an early exit. */
  volatile guint8 diff = 0;

  g_return_val_if_fail (a != NULL && b != NULL, FALSE);

  for (gsize i = 0; i < len; i++)
    diff |= a[i] ^ b[i];

  return diff == 0;
}
