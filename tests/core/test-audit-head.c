/* test-audit-head.c — the head checkpoint file: two slots, updated in place
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What verify makes of a checkpoint (lagging, forged, missing) is in
 * test-audit-chain.c; that every acknowledged row is covered after a
 * kill is in test-audit-concurrency.c. Here: the file itself.
 */
#include "config.h"

#include <string.h>
#include <sys/stat.h>

#include "audit-test-util.h"

#define SLOT 512

static GBytes *
test_secret (void)
{
  static const guint8 key[32] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, };

  return g_bytes_new_static (key, sizeof key);
}

static void
hash_of (gint64  id,
         guint8 *hash)
{
  memset (hash, 0, LUMO_AUDIT_HASH_SIZE);
  hash[0] = (guint8) id;
  hash[31] = 0xab;
}

static void
write_head (const char *path,
            GBytes     *secret,
            gint64      id)
{
  g_autoptr(GError) error = NULL;
  guint8 hash[LUMO_AUDIT_HASH_SIZE];

  hash_of (id, hash);
  g_assert_true (lumo_audit_chain_write_checkpoint (path, secret, id, hash, &error));
  g_assert_no_error (error);
}

static gint64
read_head (const char *path,
           GBytes     *secret)
{
  g_autoptr(GError) error = NULL;
  guint8 hash[LUMO_AUDIT_HASH_SIZE], expected[LUMO_AUDIT_HASH_SIZE];
  gboolean found = FALSE;
  gint64 id = -1;

  g_assert_true (lumo_audit_chain_read_checkpoint (path, secret, &found, &id, hash, &error));
  g_assert_no_error (error);
  g_assert_true (found);
  hash_of (id, expected);
  g_assert_cmpmem (hash, sizeof hash, expected, sizeof expected);
  return id;
}

static void
assert_read_fails (const char *path,
                   GBytes     *secret,
                   const char *needle)
{
  g_autoptr(GError) error = NULL;
  guint8 hash[LUMO_AUDIT_HASH_SIZE];
  gboolean found = FALSE;
  gint64 id;

  g_assert_false (lumo_audit_chain_read_checkpoint (path, secret, &found, &id, hash, &error));
  g_assert_true (found);
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_CHAIN_BROKEN);
  if (strstr (error->message, needle) == NULL)
    g_error ("“%s” does not say “%s”", error->message, needle);
}

/* Not inlined: GCC 12 then takes a pointer into the contents for one to
 * the local below (-Wdangling-pointer). */
static G_GNUC_NO_INLINE char *
contents_of (const char *path,
             gsize      *len)
{
  g_autoptr(GError) error = NULL;
  char *contents = NULL;

  if (!g_file_get_contents (path, &contents, len, &error))
    g_error ("Cannot read %s: %s", path, error->message);
  return contents;
}

static guint64
inode_of (const char *path)
{
  struct stat st;

  g_assert_cmpint (stat (path, &st), ==, 0);
  return st.st_ino;
}

/* Each commit overwrites the older slot of one file, in place: the file
 * and its size stay, the newest two records are in it. */
static void
test_slots_in_place (void)
{
  g_autofree char *dir = lumo_test_dir_new ("audit-head");
  g_autofree char *path = g_build_filename (dir, "audit.head", NULL);
  g_autoptr(GBytes) secret = test_secret ();
  g_autofree char *contents = NULL;
  guint64 inode;
  gsize len;

  write_head (path, secret, 1);
  inode = inode_of (path);
  g_assert_cmpint (read_head (path, secret), ==, 1);

  for (gint64 id = 2; id <= 9; id++)
    {
      write_head (path, secret, id);
      g_assert_cmpint (read_head (path, secret), ==, id);
      g_assert_cmpuint (inode_of (path), ==, inode);
    }

  contents = contents_of (path, &len);
  g_assert_cmpuint (len, ==, 2 * SLOT);
  /* 9 is odd: it went where 7 was, the slot of 1. */
  g_assert_true (g_str_has_prefix (contents, "lumo-audit-head-v1 00000000000000000009 "));
  g_assert_true (g_str_has_prefix (contents + SLOT, "lumo-audit-head-v1 00000000000000000008 "));

  /* A commit that comes late (another process's, with a lower id) does
   * not push out the newest. */
  write_head (path, secret, 4);
  g_assert_cmpint (read_head (path, secret), ==, 9);

  lumo_test_dir_remove (dir);
}

/* Every record must hold: a forged or torn older slot is a fault, never
 * skipped for the newer one; so is anything between the slots. */
static void
test_every_slot_checked (void)
{
  g_autofree char *dir = lumo_test_dir_new ("audit-head");
  g_autofree char *path = g_build_filename (dir, "audit.head", NULL);
  g_autoptr(GBytes) secret = test_secret ();
  g_autoptr(GBytes) other = g_bytes_new_static ("another install's secret, 32 b..", 32);
  g_autofree char *saved = NULL;
  char *forged, *last;
  gsize len;

  write_head (path, secret, 1);
  write_head (path, secret, 2);
  saved = contents_of (path, &len);
  g_assert_cmpuint (len, ==, 2 * SLOT);

  /* The older record (1, in slot 0) with its MAC's last digit changed. */
  forged = g_memdup2 (saved, len);
  last = forged + (strchr (forged, '\n') - forged) - 1;
  *last = *last == '0' ? '1' : '0';
  g_assert_true (g_file_set_contents (path, forged, len, NULL));
  assert_read_fails (path, secret, "secret");
  g_free (forged);

  /* Cut inside the older record, as a torn write would leave it. */
  forged = g_memdup2 (saved, len);
  memset (forged + 40, '\n', 40);
  g_assert_true (g_file_set_contents (path, forged, len, NULL));
  assert_read_fails (path, secret, "malformed");
  g_free (forged);

  /* Text in the padding. */
  forged = g_memdup2 (saved, len);
  memcpy (forged + SLOT - 10, "x", 1);
  g_assert_true (g_file_set_contents (path, forged, len, NULL));
  assert_read_fails (path, secret, "malformed");
  g_free (forged);

  /* Another install's key. */
  g_assert_true (g_file_set_contents (path, saved, len, NULL));
  assert_read_fails (path, other, "secret");

  /* A damaged file is rewritten whole by the next commit. */
  g_assert_true (g_file_set_contents (path, "garbage", -1, NULL));
  write_head (path, secret, 3);
  g_assert_cmpint (read_head (path, secret), ==, 3);

  lumo_test_dir_remove (dir);
}

/* A file written before the slots (one line, and audit.head.next beside
 * it) verifies as it is, and the next commit moves it to the slots. */
static void
test_one_line_file (void)
{
  g_autofree char *dir = audit_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "audit.head", NULL);
  g_autofree char *next = g_build_filename (dir, "audit.head.next", NULL);
  g_autoptr(LumoAuditStore) store = audit_test_open (dir);
  g_autoptr(GError) error = NULL;
  g_autofree char *before = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *newest = NULL;
  LumoAuditVerifyReport report;
  const char *at;
  gsize len;
  gint64 id = 0;

  for (guint i = 0; i < 3; i++)
    id = audit_test_append (store, "before_upgrade");

  /* The newest record alone, as the renaming writer left audit.head. */
  before = contents_of (path, &len);
  at = strstr (before, "lumo-audit-head-v1 00000000000000000003 ");
  g_assert_nonnull (at);
  newest = g_strndup (at, strlen ("lumo-audit-head-v1 00000000000000000003 ") + 64 + 1 + 64 + 1);
  g_assert_true (g_str_has_suffix (newest, "\n"));
  g_assert_true (g_file_set_contents (path, newest, -1, NULL));
  g_assert_true (g_file_set_contents (next, newest, -1, NULL));

  g_assert_true (lumo_audit_store_verify (store, NULL, NULL, NULL, &report, &error));
  g_assert_no_error (error);
  g_assert_cmpint (report.checkpoint_id, ==, id);

  id = audit_test_append (store, "after_upgrade");
  g_assert_true (lumo_audit_store_verify (store, NULL, NULL, NULL, &report, &error));
  g_assert_no_error (error);
  g_assert_cmpint (report.checkpoint_id, ==, id);
  g_assert_cmpint (report.rows_after_checkpoint, ==, 0);
  contents = contents_of (path, &len);
  g_assert_cmpuint (len, ==, 2 * SLOT);
  g_assert_true (g_str_has_prefix (contents, newest));
  g_assert_false (g_file_test (next, G_FILE_TEST_EXISTS));

  g_clear_object (&store);
  lumo_test_dir_remove (dir);
}

/* A writer that keeps its descriptor (the store's) sees what others wrote
 * in between: it weighs their records again instead of trusting the slot
 * it would have taken, so the newest record always stays. */
static void
test_kept_writer_sees_others (void)
{
  g_autofree char *dir = lumo_test_dir_new ("audit-head");
  g_autofree char *path = g_build_filename (dir, "audit.head", NULL);
  g_autoptr(GBytes) secret = test_secret ();
  g_autoptr(LumoAuditHeadFile) mine = lumo_audit_head_file_new (path);
  g_autoptr(LumoAuditHeadFile) theirs = lumo_audit_head_file_new (path);
  g_autoptr(GError) error = NULL;
  guint8 hash[LUMO_AUDIT_HASH_SIZE];

  hash_of (1, hash);
  g_assert_true (lumo_audit_head_file_write (mine, secret, 1, hash, &error));
  hash_of (2, hash);
  g_assert_true (lumo_audit_head_file_write (mine, secret, 2, hash, &error));
  g_assert_no_error (error);
  g_assert_cmpint (read_head (path, secret), ==, 2);

  /* Another process commits 4 (into the slot of 1); this one's head
   * write of 3, from a commit before it, comes late. Had it taken the
   * slot it left as the older one (1's), 4 would be gone. */
  hash_of (4, hash);
  g_assert_true (lumo_audit_head_file_write (theirs, secret, 4, hash, &error));
  hash_of (3, hash);
  g_assert_true (lumo_audit_head_file_write (mine, secret, 3, hash, &error));
  g_assert_no_error (error);
  g_assert_cmpint (read_head (path, secret), ==, 4);

  /* And its own next write goes on from there. */
  hash_of (5, hash);
  g_assert_true (lumo_audit_head_file_write (mine, secret, 5, hash, &error));
  g_assert_cmpint (read_head (path, secret), ==, 5);
  hash_of (6, hash);
  g_assert_true (lumo_audit_head_file_write (mine, secret, 6, hash, &error));
  g_assert_no_error (error);
  g_assert_cmpint (read_head (path, secret), ==, 6);

  lumo_test_dir_remove (dir);
}

/* The kept descriptor follows the path: a file removed or replaced under
 * it is written anew, never the old inode nobody reads. */
static void
test_kept_writer_follows_path (void)
{
  g_autofree char *dir = lumo_test_dir_new ("audit-head");
  g_autofree char *path = g_build_filename (dir, "audit.head", NULL);
  g_autofree char *other = g_build_filename (dir, "other.head", NULL);
  g_autoptr(GBytes) secret = test_secret ();
  g_autoptr(LumoAuditHeadFile) mine = lumo_audit_head_file_new (path);
  g_autoptr(GError) error = NULL;
  guint8 hash[LUMO_AUDIT_HASH_SIZE];

  /* Two writes each time: the first one makes the file, the second one
   * writes through the descriptor it then keeps. */
  for (gint64 id = 1; id <= 2; id++)
    {
      hash_of (id, hash);
      g_assert_true (lumo_audit_head_file_write (mine, secret, id, hash, &error));
    }
  g_assert_cmpint (g_unlink (path), ==, 0);
  for (gint64 id = 3; id <= 4; id++)
    {
      hash_of (id, hash);
      g_assert_true (lumo_audit_head_file_write (mine, secret, id, hash, &error));
      g_assert_no_error (error);
      g_assert_cmpint (read_head (path, secret), ==, id);
    }

  write_head (other, secret, 7);
  g_assert_cmpint (g_rename (other, path), ==, 0);
  hash_of (5, hash);
  g_assert_true (lumo_audit_head_file_write (mine, secret, 5, hash, &error));
  g_assert_no_error (error);
  /* The replacement's 7 stays the newest; 5 went into it too. */
  g_assert_cmpint (read_head (path, secret), ==, 7);
  {
    g_autofree char *contents = NULL;
    gsize len;

    contents = contents_of (path, &len);
    g_assert_nonnull (g_strstr_len (contents, len, "lumo-audit-head-v1 00000000000000000005 "));
  }

  lumo_test_dir_remove (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/audit-head/slots-in-place", test_slots_in_place);
  g_test_add_func ("/audit-head/every-slot-checked", test_every_slot_checked);
  g_test_add_func ("/audit-head/one-line-file", test_one_line_file);
  g_test_add_func ("/audit-head/kept-writer-sees-others", test_kept_writer_sees_others);
  g_test_add_func ("/audit-head/kept-writer-follows-path", test_kept_writer_follows_path);

  return g_test_run ();
}
