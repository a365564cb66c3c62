/* lumo-audit-head.c — the head checkpoint file (audit.head)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What it holds and why is in lumo-audit-chain.h. How: a file of
 * HEAD_N_SLOTS slots of HEAD_SLOT_SIZE bytes, each one record line
 *
 *   lumo-audit-head-v1 <id, 20 digits> <hash, 64 hex> <MAC, 64 hex>\n
 *
 * padded with newlines to the end of its slot. A commit overwrites the
 * slot holding the older record, in place, with one pwrite() under an
 * exclusive flock() of the file; readers take a shared lock and take the
 * newest record. So the file is never renamed or resized after it is
 * made, and a commit costs a write into the page cache: a rename (what
 * this file did before) dirtied the directory and its journal, and the
 * next fdatasync of the database waited for that journal commit, which
 * measured 0.1–0.2 ms on ext4 (docs/PERFORMANCE.md).
 *
 * No fsync, as before: the database is already durable, and a checkpoint
 * that lags after a power loss is allowed. A process that is killed has
 * written its record to the page cache, which outlives it: every row the
 * store acknowledged is covered (the kill-writer test). The record being
 * written sits alone in its sector, and the other slot still holds the
 * previous one; a record torn by the disk is reported as malformed (fail
 * closed), never skipped.
 *
 * A file from before the slots (one record line) reads as it did; the
 * first commit rewrites it in the new layout, keeping its record.
 *
 * The store's writer keeps the file open between commits
 * (LumoAuditHeadFile, below) and remembers the bytes it left: a commit
 * whose pread() finds them unchanged takes the other slot without
 * parsing both records again; anything else — another process's record,
 * a file replaced or removed under the path — is weighed as a new file
 * would be.
 */
#define G_LOG_DOMAIN "lumo-audit"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "lumo-audit-chain.h"
#include "lumo-audit-secret.h"
#include "lumo-error.h"

#define HEAD_MAGIC      "lumo-audit-head-v1"
#define HEAD_SLOT_SIZE  512
#define HEAD_N_SLOTS    2
#define HEAD_FILE_SIZE  (HEAD_SLOT_SIZE * HEAD_N_SLOTS)
/* The magic, the id, the hash and the MAC, three spaces and the newline. */
#define HEAD_RECORD_LEN (sizeof HEAD_MAGIC - 1 + 20 + 2 * 2 * LUMO_AUDIT_HASH_SIZE + 4)
/* A file longer than this is not a checkpoint. */
#define HEAD_MAX_READ   4096

G_STATIC_ASSERT (HEAD_RECORD_LEN <= HEAD_SLOT_SIZE);
G_STATIC_ASSERT (HEAD_N_SLOTS == 2);

static void
format_record (GBytes       *secret,
               gint64        id,
               const guint8 *hash,
               char         *out)
{
  g_autofree char *hash_hex = lumo_audit_hex_encode (hash, LUMO_AUDIT_HASH_SIZE);
  g_autofree char *mac_hex = NULL;
  g_autofree char *line = NULL;
  guint8 mac[LUMO_AUDIT_HASH_SIZE];

  lumo_audit_chain_head_mac (secret, "head", id, hash, mac);
  mac_hex = lumo_audit_hex_encode (mac, sizeof mac);
  line = g_strdup_printf ("%s %020" G_GINT64_FORMAT " %s %s\n", HEAD_MAGIC, id, hash_hex, mac_hex);
  g_assert (strlen (line) == HEAD_RECORD_LEN);
  memcpy (out, line, HEAD_RECORD_LEN);
}

/* One record line of @len bytes (without its newline). FALSE with
 * LUMO_ERROR_CHAIN_BROKEN when it does not parse or its MAC does not
 * match. */
static gboolean
parse_record (const char  *path,
              const char  *line,
              gsize        len,
              GBytes      *secret,
              gint64      *id,
              guint8      *hash,
              GError     **error)
{
  g_autofree char *text = g_strndup (line, len);
  g_auto(GStrv) parts = g_strsplit (text, " ", -1);
  guint8 mac[LUMO_AUDIT_HASH_SIZE];
  guint8 expected[LUMO_AUDIT_HASH_SIZE];
  char *end = NULL;
  gint64 value;

  if (g_strv_length (parts) != 4 || strcmp (parts[0], HEAD_MAGIC) != 0)
    goto malformed;

  errno = 0;
  value = g_ascii_strtoll (parts[1], &end, 10);
  if (errno != 0 || end == parts[1] || *end != '\0' || value < 0 ||
      !lumo_audit_hex_decode (parts[2], hash, LUMO_AUDIT_HASH_SIZE) ||
      !lumo_audit_hex_decode (parts[3], mac, LUMO_AUDIT_HASH_SIZE))
    goto malformed;

  lumo_audit_chain_head_mac (secret, "head", value, hash, expected);
  if (!lumo_secret_equal (mac, expected, sizeof mac))
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_CHAIN_BROKEN,
                   "The audit head checkpoint “%s” was not written with this "
                   "install's secret (forged or from another install)", path);
      return FALSE;
    }

  *id = value;
  return TRUE;

malformed:
  g_set_error (error, LUMO_ERROR, LUMO_ERROR_CHAIN_BROKEN,
               "The audit head checkpoint “%s” is malformed", path);
  return FALSE;
}

static gssize
read_all_at (int    fd,
             char  *buf,
             gsize  len)
{
  gsize done = 0;

  while (done < len)
    {
      gssize n = pread (fd, buf + done, len - done, (off_t) done);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return -1;
      if (n == 0)
        break;
      done += n;
    }

  return (gssize) done;
}

static gboolean
write_all_at (int         fd,
              const char *buf,
              gsize       len,
              off_t       offset)
{
  gsize done = 0;

  while (done < len)
    {
      gssize n = pwrite (fd, buf + done, len - done, offset + (off_t) done);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      done += n;
    }

  return TRUE;
}

static int
lock_fd (int fd,
         int operation)
{
  int rc;

  while ((rc = flock (fd, operation)) != 0 && errno == EINTR)
    ;
  return rc;
}

gboolean
lumo_audit_chain_read_checkpoint (const char  *path,
                                  GBytes      *secret,
                                  gboolean    *found,
                                  gint64      *id,
                                  guint8      *hash,
                                  GError     **error)
{
  char buf[HEAD_MAX_READ + 1];
  gboolean any = FALSE;
  gssize n;
  int fd, saved_errno;

  *found = FALSE;

  fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    {
      saved_errno = errno;
      if (saved_errno == ENOENT)
        return FALSE;
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_CHAIN_BROKEN,
                   "Cannot read the audit head checkpoint: %s: %s", path, g_strerror (saved_errno));
      return FALSE;
    }

  /* Shared: a writer's pwrite() is never seen half done. */
  n = lock_fd (fd, LOCK_SH) == 0 ? read_all_at (fd, buf, sizeof buf) : -1;
  saved_errno = errno;
  close (fd);

  *found = TRUE;
  if (n < 0)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_CHAIN_BROKEN,
                   "Cannot read the audit head checkpoint: %s: %s", path, g_strerror (saved_errno));
      return FALSE;
    }
  if (n > HEAD_MAX_READ || memchr (buf, '\0', n) != NULL)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_CHAIN_BROKEN,
                   "The audit head checkpoint “%s” is malformed", path);
      return FALSE;
    }

  /* Every line that is not empty must be a record, each MAC'd: a slot
   * that fails is a fault, never skipped for the other one. */
  for (const char *line = buf, *end = buf + n; line < end;)
    {
      const char *nl = memchr (line, '\n', end - line);
      gsize len = (nl != NULL ? nl : end) - line;
      guint8 record_hash[LUMO_AUDIT_HASH_SIZE];
      gint64 record_id;

      if (len > 0)
        {
          if (!parse_record (path, line, len, secret, &record_id, record_hash, error))
            return FALSE;
          if (!any || record_id > *id)
            {
              *id = record_id;
              memcpy (hash, record_hash, LUMO_AUDIT_HASH_SIZE);
            }
          any = TRUE;
        }
      line += len + 1;
    }

  if (!any)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_CHAIN_BROKEN,
                   "The audit head checkpoint “%s” is malformed", path);
      return FALSE;
    }

  return TRUE;
}

/* A new file, whole, under a temporary name, then linked into place:
 * nobody sees it empty. FALSE with @exists when another process made
 * it first. */
static gboolean
create_file (const char *path,
             const char *contents,
             gboolean   *exists)
{
  g_autofree char *tmp = g_strconcat (path, ".new-XXXXXX", NULL);
  gboolean ok;
  int fd, saved_errno;

  *exists = FALSE;
  fd = g_mkstemp_full (tmp, O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0)
    return FALSE;

  ok = write_all_at (fd, contents, HEAD_FILE_SIZE, 0);
  saved_errno = errno;
  close (fd);
  if (ok && link (tmp, path) != 0)
    {
      saved_errno = errno;
      *exists = saved_errno == EEXIST;
      ok = FALSE;
    }
  g_unlink (tmp);

  errno = saved_errno;
  return ok;
}

/* Where the record of @id goes, and whether the whole file must be
 * rewritten (a new file, a file from before the slots, a slot that holds
 * anything but a record and its padding): @contents then holds it, with
 * the records worth keeping. */
static guint
choose_slot (const char *old,
             gssize      n,
             GBytes     *secret,
             char       *contents,
             gboolean   *rewrite)
{
  gint64 ids[HEAD_N_SLOTS];
  gboolean valid[HEAD_N_SLOTS], clean[HEAD_N_SLOTS];
  guint target = 0;

  memset (contents, '\n', HEAD_FILE_SIZE);
  *rewrite = n != HEAD_FILE_SIZE;

  for (guint s = 0; s < HEAD_N_SLOTS; s++)
    {
      const char *slot = old + s * HEAD_SLOT_SIZE;
      gssize avail = MAX (0, MIN (n - (gssize) (s * HEAD_SLOT_SIZE), HEAD_SLOT_SIZE));
      guint8 hash[LUMO_AUDIT_HASH_SIZE];

      valid[s] = avail >= (gssize) HEAD_RECORD_LEN && slot[HEAD_RECORD_LEN - 1] == '\n' &&
                 parse_record ("", slot, HEAD_RECORD_LEN - 1, secret, &ids[s], hash, NULL);
      clean[s] = valid[s] && avail == HEAD_SLOT_SIZE;
      for (gssize i = HEAD_RECORD_LEN; clean[s] && i < avail; i++)
        clean[s] = slot[i] == '\n';
      if (!clean[s])
        *rewrite = TRUE;
      if (valid[s])
        memcpy (contents + s * HEAD_SLOT_SIZE, slot, HEAD_RECORD_LEN);
    }

  /* The older record makes way (an invalid slot first), so the newest one
   * always stays. */
  for (guint s = 1; s < HEAD_N_SLOTS; s++)
    if (!valid[s] ? valid[target] : valid[target] && ids[s] < ids[target])
      target = s;

  return target;
}

/* A writer of audit.head that keeps its descriptor and the bytes it left
 * there: one per store, on its writer thread. A write then costs a stat()
 * (the file may have been replaced or removed), the lock, one pread() and
 * the pwrite() — the two slots are parsed and their MACs checked again
 * only when the file is not as this writer left it (another process
 * wrote, or it was made anew). */
struct _LumoAuditHeadFile
{
  char   *path;
  int     fd;
  dev_t   dev;
  ino_t   ino;
  /* The whole file as this writer last left it, and the slot that then
   * holds the older record. */
  gboolean known_valid;
  char    known[HEAD_FILE_SIZE];
  guint   older_slot;
};

LumoAuditHeadFile *
lumo_audit_head_file_new (const char *path)
{
  LumoAuditHeadFile *self = g_new0 (LumoAuditHeadFile, 1);

  self->path = g_strdup (path);
  self->fd = -1;
  return self;
}

static void
head_file_close (LumoAuditHeadFile *self)
{
  if (self->fd >= 0)
    close (self->fd);
  self->fd = -1;
  self->known_valid = FALSE;
}

void
lumo_audit_head_file_free (LumoAuditHeadFile *self)
{
  if (self == NULL)
    return;
  head_file_close (self);
  g_free (self->path);
  g_free (self);
}

/* The kept descriptor, unless the path now names another file (or none):
 * then the file the path names, made when there is none (@created: made
 * with @contents, nothing more to write). */
static gboolean
head_file_open (LumoAuditHeadFile *self,
                const char        *contents,
                gboolean          *created)
{
  struct stat st;
  gboolean exists = FALSE;

  *created = FALSE;
  if (self->fd >= 0)
    {
      if (lstat (self->path, &st) == 0 && st.st_dev == self->dev && st.st_ino == self->ino)
        return TRUE;
      head_file_close (self);
    }

  self->fd = open (self->path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
  if (self->fd < 0 && errno == ENOENT)
    {
      if (create_file (self->path, contents, &exists))
        {
          *created = TRUE;
          return TRUE;
        }
      if (exists)
        self->fd = open (self->path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    }
  if (self->fd < 0 || fstat (self->fd, &st) != 0)
    {
      int saved_errno = errno;

      head_file_close (self);
      errno = saved_errno;
      return FALSE;
    }

  self->dev = st.st_dev;
  self->ino = st.st_ino;
  return TRUE;
}

gboolean
lumo_audit_head_file_write (LumoAuditHeadFile  *self,
                            GBytes             *secret,
                            gint64              id,
                            const guint8       *hash,
                            GError            **error)
{
  char record[HEAD_RECORD_LEN];
  char contents[HEAD_FILE_SIZE];
  char old[HEAD_FILE_SIZE + 1];
  gboolean rewrite, created;
  gboolean ok = FALSE;
  guint slot;
  gssize n = -1;
  int saved_errno = 0;

  format_record (secret, id, hash, record);
  memset (contents, '\n', sizeof contents);
  memcpy (contents, record, sizeof record);

  if (!head_file_open (self, contents, &created))
    {
      saved_errno = errno;
      goto out;
    }
  if (created)
    return TRUE;

  if (lock_fd (self->fd, LOCK_EX) != 0 || (n = read_all_at (self->fd, old, sizeof old)) < 0)
    {
      saved_errno = errno;
      goto out;
    }

  /* As this writer left it: no other record to weigh. */
  if (self->known_valid && n == HEAD_FILE_SIZE && memcmp (old, self->known, HEAD_FILE_SIZE) == 0)
    {
      slot = self->older_slot;
      rewrite = FALSE;
      memcpy (contents, old, HEAD_FILE_SIZE);
    }
  else
    slot = choose_slot (old, n, secret, contents, &rewrite);
  memcpy (contents + slot * HEAD_SLOT_SIZE, record, sizeof record);

  if (rewrite)
    {
      g_autofree char *next = g_strconcat (self->path, ".next", NULL);

      ok = write_all_at (self->fd, contents, sizeof contents, 0) &&
           (n <= HEAD_FILE_SIZE || ftruncate (self->fd, HEAD_FILE_SIZE) == 0);
      /* What the renaming writer of old left beside it. */
      if (ok)
        g_unlink (next);
    }
  else
    ok = write_all_at (self->fd, record, sizeof record, (off_t) slot * HEAD_SLOT_SIZE);
  saved_errno = errno;

  /* The record just written is newer than any a commit before it left
   * (its commit came after theirs), so next time the other slot is the one
   * to overwrite. */
  self->known_valid = ok;
  if (ok)
    {
      memcpy (self->known, contents, HEAD_FILE_SIZE);
      self->older_slot = (slot + 1) % HEAD_N_SLOTS;
    }
  lock_fd (self->fd, LOCK_UN);

out:
  if (!ok)
    {
      head_file_close (self);
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_DB_IO,
                   "Cannot write the audit head checkpoint “%s”: %s",
                   self->path, g_strerror (saved_errno));
    }
  return ok;
}

gboolean
lumo_audit_chain_write_checkpoint (const char    *path,
                                   GBytes        *secret,
                                   gint64         id,
                                   const guint8  *hash,
                                   GError       **error)
{
  g_autoptr(LumoAuditHeadFile) head = lumo_audit_head_file_new (path);

  return lumo_audit_head_file_write (head, secret, id, hash, error);
}
