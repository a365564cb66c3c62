/* bench-audit.c — what the audit store costs, beside its floors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 *   lumo-bench-audit [--rows N] [--seconds S] [--dir DIR] [--queries Q]
 *
 * Prints, side by side: durable appends per second for 1 and 64 writers;
 * the latency of one durable append next to a bare fdatasync() of a 4 KiB
 * write on the same filesystem; bulk import rows per second; first-page
 * search latency for 3-, 5- and 10-character substrings next to grep -F
 * over a JSON Lines export of the same rows; a keyset page at the far end;
 * and the database size per row with and without the trigram index. The
 * figures go into docs/PERFORMANCE.md; nothing here passes or fails.
 */
#define _GNU_SOURCE   /* syncfs */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <sqlite3.h>

#include "lumo-audit-private.h"
#include "lumo-audit-store.h"
#include "lumo-db.h"
#include "lumo-test.h"

static gint64 opt_rows = 1000000;
static double opt_seconds = 3.0;
static char *opt_dir;
static gint opt_queries = 60;
static gint opt_grep_runs = 5;
static gint opt_repeat = 1;
static gboolean opt_import_only;
static gboolean opt_reuse;
static gboolean opt_open_only;
static gboolean opt_show_queries;

static GOptionEntry entries[] = {
  { "rows", 'n', 0, G_OPTION_ARG_INT64, &opt_rows, "Rows for import and search (default 1000000)", "N" },
  { "seconds", 's', 0, G_OPTION_ARG_DOUBLE, &opt_seconds, "Duration of each durable-append phase (default 3)", "S" },
  { "dir", 'd', 0, G_OPTION_ARG_FILENAME, &opt_dir, "Directory on the filesystem to measure (default: a temporary one)", "DIR" },
  { "queries", 'q', 0, G_OPTION_ARG_INT, &opt_queries, "Searches per substring length (default 60)", "Q" },
  { "grep-runs", 'g', 0, G_OPTION_ARG_INT, &opt_grep_runs, "grep runs per substring length (default 5)", "R" },
  { "repeat", 0, 0, G_OPTION_ARG_INT, &opt_repeat,
    "Runs of each search, of which the median counts (default 1)", "R" },
  { "import-only", 0, 0, G_OPTION_ARG_NONE, &opt_import_only, "Only the bulk import (for a profiler)", NULL },
  { "open-only", 0, 0, G_OPTION_ARG_NONE, &opt_open_only,
    "After the import (or with --reuse), only open → first page", NULL },
  { "show-queries", 0, 0, G_OPTION_ARG_NONE, &opt_show_queries,
    "Print each search's substring, time and rows", NULL },
  { "reuse", 0, 0, G_OPTION_ARG_NONE, &opt_reuse,
    "With --dir: skip the durable phases, and reuse the import and export an earlier run left there "
    "(for iterating on search)", NULL },
  { NULL }
};

/* ---- statistics --------------------------------------------------------------- */

static int
cmp_i64 (gconstpointer a,
         gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}

static double
percentile_ms (GArray *us,
               double  p)
{
  gsize i;

  if (us->len == 0)
    return 0;
  g_array_sort (us, cmp_i64);
  i = (gsize) (p * (us->len - 1) + 0.5);
  return g_array_index (us, gint64, i) / 1000.0;
}

static gint64
thread_cpu_us (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (gint64) ts.tv_sec * G_USEC_PER_SEC + ts.tv_nsec / 1000;
}

/* ---- data ------------------------------------------------------------------------ */

static const char *tools[] = {
  "userscripts.save_script", "userscripts.delete_script", "userscripts.list_scripts",
  "userscripts.toggle_script", "userscripts.rename_script", "notes.create_note",
  "notes.append_text", "notes.delete_note", "tabs.close_duplicates", "tabs.group_by_site",
  "bookmarks.add", "bookmarks.move_folder", "forms.fill_address", "forms.submit_order",
  "mail.send_draft", "mail.archive_thread", "calendar.create_event", "calendar.decline",
  "sheets.write_range", "sheets.append_row",
};
static const char *reasons[] = { "not_authorized", "writes_off", "rate_limited", "review_rejected" };
static const char *words[] = {
  "timeout", "permission", "quota", "selector", "network", "conflict", "missing", "locked",
  "invalid", "stale", "offline", "refused",
};

static char *
extension_id (guint n)
{
  char *id = g_malloc (33);

  for (guint i = 0; i < 32; i++)
    id[i] = (char) ('a' + (((n * 2654435761u) >> (i % 16)) + i * 7) % 16);
  id[32] = '\0';
  return id;
}

typedef struct
{
  GPtrArray             *strings;    /* owns everything below */
  LumoAuditImportRecord *records;
  gsize                  n;
} Dataset;

static void
dataset_free (Dataset *ds)
{
  g_ptr_array_unref (ds->strings);
  g_free (ds->records);
  g_free (ds);
}

static Dataset *
dataset_new (gsize n)
{
  Dataset *ds = g_new0 (Dataset, 1);
  g_autoptr(GRand) rand = g_rand_new_with_seed (42);
  char *providers[8], *callers[200], *caller_names[200];
  char *sha = g_strdup ("9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08");
  gint64 now = g_get_real_time ();

  ds->strings = g_ptr_array_new_with_free_func (g_free);
  ds->records = g_new0 (LumoAuditImportRecord, n);
  ds->n = n;
  g_ptr_array_add (ds->strings, sha);

  for (guint i = 0; i < G_N_ELEMENTS (providers); i++)
    g_ptr_array_add (ds->strings, providers[i] = extension_id (1000 + i));
  for (guint i = 0; i < G_N_ELEMENTS (callers); i++)
    {
      g_ptr_array_add (ds->strings, callers[i] = extension_id (i));
      g_ptr_array_add (ds->strings, caller_names[i] = g_strdup_printf ("Agent %03u", i));
    }

  for (gsize i = 0; i < n; i++)
    {
      LumoAuditImportRecord *r = &ds->records[i];
      guint c = g_rand_int_range (rand, 0, G_N_ELEMENTS (callers));
      guint roll = g_rand_int_range (rand, 0, 100);
      /* From the seeded generator, so that --reuse finds the same rows. */
      char *target = g_strdup_printf ("%08x-%04x-4%03x-%04x-%08x%04x", g_rand_int (rand),
                                      g_rand_int (rand) & 0xffff, g_rand_int (rand) & 0xfff,
                                      (g_rand_int (rand) & 0x3fff) | 0x8000, g_rand_int (rand),
                                      g_rand_int (rand) & 0xffff);

      g_ptr_array_add (ds->strings, target);
      r->record.time_us = now - (gint64) (n - i) * G_USEC_PER_SEC;
      r->record.provider_id = providers[g_rand_int_range (rand, 0, G_N_ELEMENTS (providers))];
      r->record.caller_id = callers[c];
      r->record.caller_name = caller_names[c];
      r->record.tool = tools[g_rand_int_range (rand, 0, G_N_ELEMENTS (tools))];
      r->record.write = TRUE;
      r->record.target = target;
      /* As a restore from an export passes them: already keyed. */
      r->params_hmac = sha;

      if (roll < 10)
        {
          r->record.decision = LUMO_AUDIT_DECISION_DENY;
          r->record.reason = reasons[g_rand_int_range (rand, 0, G_N_ELEMENTS (reasons))];
        }
      else if (roll < 13)
        r->record.decision = LUMO_AUDIT_DECISION_PENDING_REVIEW;
      else
        {
          r->record.decision = LUMO_AUDIT_DECISION_ALLOW;
          r->result = roll < 23 ? LUMO_AUDIT_RESULT_ERROR : LUMO_AUDIT_RESULT_OK;
          if (r->result == LUMO_AUDIT_RESULT_ERROR)
            {
              char *text = g_strdup_printf ("Script %s failed: %s %s at line %u",
                                            target + 24,
                                            words[g_rand_int_range (rand, 0, G_N_ELEMENTS (words))],
                                            words[g_rand_int_range (rand, 0, G_N_ELEMENTS (words))],
                                            g_rand_int_range (rand, 1, 5000));
              g_ptr_array_add (ds->strings, text);
              r->result_text = text;
            }
        }
    }

  return ds;
}

/* ---- phases ------------------------------------------------------------------------ */

static char *
make_dir (const char *name)
{
  char *dir = g_build_filename (opt_dir, name, NULL);

  g_mkdir_with_parents (dir, 0700);
  return dir;
}

static LumoAuditStore *
open_store (const char *dir)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_build_filename (dir, "audit.db", NULL);
  LumoAuditStore *store = lumo_audit_store_new (path, &error);

  if (store == NULL)
    g_error ("open: %s", error->message);
  return store;
}

static gint64
time_pwrite_fdatasync (int    fd,
                       off_t  offset)
{
  static char block[4096] = { 'x', };
  gint64 t0 = g_get_monotonic_time ();

  if (pwrite (fd, block, sizeof block, offset) != sizeof block || fdatasync (fd) != 0)
    g_error ("floor: %s", g_strerror (errno));

  return g_get_monotonic_time () - t0;
}

static gint64
time_append (LumoAuditStore *store)
{
  g_autoptr(GError) error = NULL;
  LumoAuditRecord r = {
    .provider_id = TEST_PROVIDER_ID,
    .caller_id = TEST_CALLER_ID,
    .caller_name = "Bench",
    .tool = "userscripts.save_script",
    .write = TRUE,
    .target = "0f8fad5b-d9cb-469f-a165-70867728950e",
    .params_sha256 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    .decision = LUMO_AUDIT_DECISION_ALLOW,
  };
  gint64 t0 = g_get_monotonic_time ();

  if (lumo_audit_store_append (store, &r, &error) == 0)
    g_error ("append: %s", error->message);

  return g_get_monotonic_time () - t0;
}

/* Bytes this process has written (all threads): what an append costs
 * whatever the disk and the load do. */
static gint64
written_bytes (void)
{
  g_autofree char *io = NULL;
  const char *p;

  if (!g_file_get_contents ("/proc/self/io", &io, NULL, NULL) || !(p = strstr (io, "wchar: ")))
    return 0;
  return g_ascii_strtoll (p + strlen ("wchar: "), NULL, 10);
}

/* Before a floor block: wait until the store's search index has caught up
 * (its own commit, off the appends' path) and flush whatever the file
 * system still holds, so that the floor's fsync pays for its own write
 * only. A store without the watermark (older code) skips the wait. */
static void
settle (const char *db_path)
{
  g_autofree char *dir = g_path_get_dirname (db_path != NULL ? db_path : opt_dir);
  sqlite3 *db = NULL;
  int fd;

  if (db_path != NULL && sqlite3_open_v2 (db_path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK)
    {
      for (guint i = 0; i < 5000; i++)
        {
          sqlite3_stmt *stmt = NULL;
          gboolean done = TRUE;

          if (sqlite3_prepare_v2 (db, "SELECT (SELECT indexed_to FROM audit_fts_state) >= "
                                      "(SELECT coalesce (max (id), 0) FROM audit)", -1, &stmt, NULL) == SQLITE_OK &&
              sqlite3_step (stmt) == SQLITE_ROW)
            done = sqlite3_column_int (stmt, 0) != 0;
          sqlite3_finalize (stmt);
          if (done)
            break;
          g_usleep (1000);
        }
    }
  sqlite3_close (db);

  fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0)
    {
      syncfs (fd);
      close (fd);
    }
}

/* One durable append next to the floor, interleaved so that both see the
 * same disk (other work on the machine changes fsync times a lot). */
static void
bench_latency (void)
{
  g_autofree char *dir = make_dir ("latency");
  g_autofree char *path = g_build_filename (dir, "floor.bin", NULL);
  g_autofree char *db_path = g_build_filename (dir, "audit.db", NULL);
  g_autoptr(LumoAuditStore) store = open_store (dir);
  g_autoptr(GArray) over = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GArray) grow = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GArray) append = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GArray) append_nohead = g_array_new (FALSE, FALSE, sizeof (gint64));
  double p_over, p_grow, p_append, p_nohead;
  gint64 bytes = 0, n_appends = 0;
  int fd;

  fd = open (path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  g_assert (fd >= 0);
  time_pwrite_fdatasync (fd, 0);
  for (guint i = 0; i < 20; i++)
    time_append (store);

  /* Blocks of 25, alternating: the floors and the appends see the same
   * moments of the disk, and an fsync rarely pays for the metadata the
   * other side left in the journal. */
  for (guint block = 0; block < 16; block++)
    {
      settle (db_path);
      for (guint i = 0; i < 25; i++)
        {
          /* The same block again: no size or allocation change to sync. */
          gint64 t = time_pwrite_fdatasync (fd, 0);

          g_array_append_val (over, t);
        }
      for (guint i = 0; i < 25; i++)
        {
          /* A new block at the end: the file grows, as a log does. */
          gint64 t = time_pwrite_fdatasync (fd, (off_t) (grow->len + 1) * 4096);

          g_array_append_val (grow, t);
        }
      settle (db_path);
      {
        gint64 b0 = written_bytes ();

        for (guint i = 0; i < 25; i++)
          {
            gint64 t = time_append (store);

            g_array_append_val (append, t);
          }
        /* With what the index's catch-up for them writes, once idle. */
        settle (db_path);
        bytes += written_bytes () - b0;
        n_appends += 25;
      }
      _lumo_audit_store_set_head_checkpoints (store, FALSE);
      settle (db_path);
      for (guint i = 0; i < 25; i++)
        {
          gint64 t = time_append (store);

          g_array_append_val (append_nohead, t);
        }
      _lumo_audit_store_set_head_checkpoints (store, TRUE);
    }
  close (fd);
  g_unlink (path);

  p_over = percentile_ms (over, 0.5);
  p_grow = percentile_ms (grow, 0.5);
  p_append = percentile_ms (append, 0.5);
  p_nohead = percentile_ms (append_nohead, 0.5);
  g_print ("one durable append, in blocks of 25 alternating with its floors (400 each), "
           "each block after the search index caught up and syncfs():\n");
  g_print ("  floor: 4 KiB pwrite + fdatasync, same block   p50 %7.3f ms  p95 %7.3f ms\n",
           p_over, percentile_ms (over, 0.95));
  g_print ("  floor: 4 KiB pwrite + fdatasync, appending    p50 %7.3f ms  p95 %7.3f ms\n",
           p_grow, percentile_ms (grow, 0.95));
  g_print ("  lumo_audit_store_append ()                    p50 %7.3f ms  p95 %7.3f ms\n",
           p_append, percentile_ms (append, 0.95));
  g_print ("  ... without the head checkpoint (measurement)  p50 %7.3f ms  p95 %7.3f ms\n",
           p_nohead, percentile_ms (append_nohead, 0.95));
  g_print ("  append / floor: %.2f× (same block), %.2f× (appending); "
           "without the checkpoint %.2f×, %.2f×\n",
           p_append / p_over, p_append / p_grow, p_nohead / p_over, p_nohead / p_grow);
  g_print ("  per append, with its share of the index's catch-up: %.1f KiB written\n\n",
           bytes / 1024.0 / n_appends);
}

/* The head checkpoint on its own: lumo_audit_chain_write_checkpoint()
 * (opened for each write), lumo_audit_head_file_write() (kept open, as
 * the store writes it) and the 4 KiB overwrite + fdatasync (of another file) after it, beside
 * that fdatasync alone, in alternating blocks of 25: what the checkpoint
 * costs itself, and what it leaves the next sync to pay (a rename, the
 * old way, left a journal commit behind). */
static void
bench_checkpoint (void)
{
  g_autofree char *dir = make_dir ("checkpoint");
  g_autofree char *head = g_build_filename (dir, "audit.head", NULL);
  g_autofree char *path = g_build_filename (dir, "floor.bin", NULL);
  g_autoptr(GBytes) secret = g_bytes_new_static ("0123456789abcdef0123456789abcdef", 32);
  g_autoptr(GArray) call = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GArray) after = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GArray) alone = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GArray) kept_call = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autofree char *kept_path = g_build_filename (dir, "kept.head", NULL);
  g_autoptr(LumoAuditHeadFile) kept = lumo_audit_head_file_new (kept_path);
  guint8 hash[LUMO_AUDIT_HASH_SIZE] = { 0, };
  gint64 id = 0;
  int fd;

  fd = open (path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  g_assert (fd >= 0);
  time_pwrite_fdatasync (fd, 0);

  for (guint block = 0; block < 16; block++)
    {
      settle (NULL);
      for (guint i = 0; i < 25; i++)
        {
          gint64 t = time_pwrite_fdatasync (fd, 0);

          g_array_append_val (alone, t);
        }
      settle (NULL);
      for (guint i = 0; i < 25; i++)
        {
          gint64 t;

          hash[0] = (guint8) ++id;
          /* Opened for each write, and the store's way (kept open), the
           * first of the two alternating (the first one follows a sync). */
          for (guint k = 0; k < 2; k++)
            {
              g_autoptr(GError) error = NULL;
              gboolean use_kept = (k == 0) == (i % 2 == 0);

              t = g_get_monotonic_time ();
              if (use_kept ? !lumo_audit_head_file_write (kept, secret, id, hash, &error)
                           : !lumo_audit_chain_write_checkpoint (head, secret, id, hash, &error))
                g_error ("checkpoint: %s", error->message);
              t = g_get_monotonic_time () - t;
              g_array_append_val (use_kept ? kept_call : call, t);
            }
          t = time_pwrite_fdatasync (fd, 0);
          g_array_append_val (after, t);
        }
    }
  close (fd);

  g_print ("the head checkpoint alone (400 each, alternating blocks of 25):\n");
  g_print ("  lumo_audit_chain_write_checkpoint ()           p50 %7.3f ms  p95 %7.3f ms\n",
           percentile_ms (call, 0.5), percentile_ms (call, 0.95));
  g_print ("  lumo_audit_head_file_write (), kept open      p50 %7.3f ms  p95 %7.3f ms\n",
           percentile_ms (kept_call, 0.5), percentile_ms (kept_call, 0.95));
  g_print ("  4 KiB overwrite + fdatasync after both        p50 %7.3f ms  p95 %7.3f ms\n",
           percentile_ms (after, 0.5), percentile_ms (after, 0.95));
  g_print ("  4 KiB overwrite + fdatasync alone              p50 %7.3f ms  p95 %7.3f ms\n\n",
           percentile_ms (alone, 0.5), percentile_ms (alone, 0.95));
}

typedef struct
{
  LumoAuditStore *store;
  gint64          deadline;
  GArray         *latencies;
  guint64         rows;
} WriterData;

static gpointer
writer_thread (gpointer data)
{
  WriterData *wd = data;
  g_autofree char *target = g_uuid_string_random ();
  LumoAuditRecord r = {
    .provider_id = TEST_PROVIDER_ID,
    .caller_id = TEST_CALLER_ID,
    .caller_name = "Bench",
    .tool = "userscripts.save_script",
    .write = TRUE,
    .target = target,
    .params_sha256 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    .decision = LUMO_AUDIT_DECISION_ALLOW,
  };

  while (g_get_monotonic_time () < wd->deadline)
    {
      g_autoptr(GError) error = NULL;
      gint64 t0 = g_get_monotonic_time ();

      if (lumo_audit_store_append (wd->store, &r, &error) == 0)
        g_error ("append: %s", error->message);
      t0 = g_get_monotonic_time () - t0;
      g_array_append_val (wd->latencies, t0);
      wd->rows++;
    }

  return NULL;
}

static double
bench_durable (guint n_threads)
{
  g_autofree char *name = g_strdup_printf ("durable-%u", n_threads);
  g_autofree char *dir = make_dir (name);
  g_autoptr(LumoAuditStore) store = open_store (dir);
  g_autoptr(GArray) all = g_array_new (FALSE, FALSE, sizeof (gint64));
  WriterData *wd = g_new0 (WriterData, n_threads);
  GThread **threads = g_new0 (GThread *, n_threads);
  gint64 start = g_get_monotonic_time (), elapsed;
  guint64 rows = 0;
  double rate;

  for (guint i = 0; i < n_threads; i++)
    {
      wd[i].store = store;
      wd[i].deadline = start + (gint64) (opt_seconds * G_USEC_PER_SEC);
      wd[i].latencies = g_array_new (FALSE, FALSE, sizeof (gint64));
      threads[i] = g_thread_new ("bench-writer", writer_thread, &wd[i]);
    }
  for (guint i = 0; i < n_threads; i++)
    {
      g_thread_join (threads[i]);
      rows += wd[i].rows;
      g_array_append_vals (all, wd[i].latencies->data, wd[i].latencies->len);
      g_array_unref (wd[i].latencies);
    }
  elapsed = g_get_monotonic_time () - start;
  rate = rows / (elapsed / 1e6);

  g_print ("durable appends, %2u writer%s  %9.0f rows/s   append p50 %7.3f ms  p95 %7.3f ms",
           n_threads, n_threads == 1 ? " " : "s", rate, percentile_ms (all, 0.5),
           percentile_ms (all, 0.95));
  g_print ("\n");

  g_free (wd);
  g_free (threads);
  return rate;
}

static gint64
file_size (const char *path)
{
  GStatBuf st;

  return g_stat (path, &st) == 0 ? (gint64) st.st_size : 0;
}

static void
report_sizes (const char *dir,
              gsize       n)
{
  g_autofree char *path = g_build_filename (dir, "audit.db", NULL);
  g_autoptr(sqlite3_stmt) stmt = NULL;
  sqlite3 *db = NULL;
  gint64 fts_bytes = 0, total;

  /* Fold the WAL in so the file size is the database's. */
  g_assert (sqlite3_open (path, &db) == SQLITE_OK);
  sqlite3_exec (db, "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL);
  if (sqlite3_prepare_v2 (db, "SELECT sum(pgsize) FROM dbstat WHERE name LIKE 'audit_fts%'",
                          -1, &stmt, NULL) == SQLITE_OK &&
      sqlite3_step (stmt) == SQLITE_ROW)
    fts_bytes = sqlite3_column_int64 (stmt, 0);
  g_clear_pointer (&stmt, sqlite3_finalize);
  sqlite3_close (db);

  total = file_size (path);
  g_print ("database size: %.1f MiB, %.0f bytes/row; without the trigram index %.0f bytes/row "
           "(the index is %.0f bytes/row)\n",
           total / 1048576.0, (double) total / n, (double) (total - fts_bytes) / n,
           (double) fts_bytes / n);
}

static char *
pick_substring (Dataset *ds,
                GRand   *rand,
                guint    len)
{
  for (;;)
    {
      const LumoAuditImportRecord *r = &ds->records[g_rand_int_range (rand, 0, ds->n)];
      const char *fields[] = { r->record.target, r->record.caller_name, r->record.tool, r->result_text };
      const char *s = fields[g_rand_int_range (rand, 0, G_N_ELEMENTS (fields))];
      gsize slen = s != NULL ? strlen (s) : 0;
      gsize at;

      if (slen < len)
        continue;
      at = g_rand_int_range (rand, 0, slen - len + 1);
      /* A space at either end reads oddly in a search box; skip those. */
      if (s[at] == ' ' || s[at + len - 1] == ' ')
        continue;
      return g_strndup (s + at, len);
    }
}

/* grep's output goes to a pipe, as a person's would: GNU grep (3.8 here)
 * treats a stdout that is /dev/null as -q and stops at the first match,
 * -c or not, which is what this benchmark timed before (the "-q" column
 * now). */
static double
run_grep (const char *pattern,
          const char *file,
          const char *mode)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;
  const char *argv[] = { "grep", "-F", mode, "--", pattern, file, NULL };
  gint64 t0 = g_get_monotonic_time ();
  int status;

  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL,
                &out, NULL, &status, &error);
  if (error != NULL)
    g_error ("grep: %s", error->message);

  return (g_get_monotonic_time () - t0) / 1000.0;
}

static void
bench_search (LumoAuditStore *store,
              Dataset        *ds,
              const char     *jsonl)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (7);
  static const guint lengths[] = { 3, 5, 10 };
  GList *cpu_lines = NULL;

  g_print ("\nfirst page (200 rows) of a substring search, %" G_GSIZE_FORMAT " rows; "
           "grep -F over the JSON Lines export (%.0f MiB):\n",
           ds->n, file_size (jsonl) / 1048576.0);
  g_print ("  chars   store p50   store p95   hits p50 | grep -m200 p50   grep -c p50   grep -q p50 | "
           "vs -m200   vs -c   vs -q\n");

  for (guint l = 0; l < G_N_ELEMENTS (lengths); l++)
    {
      g_autoptr(GArray) us = g_array_new (FALSE, FALSE, sizeof (gint64));
      g_autoptr(GArray) hits = g_array_new (FALSE, FALSE, sizeof (gint64));
      g_autoptr(GArray) cpu_us = g_array_new (FALSE, FALSE, sizeof (gint64));
      g_autoptr(GArray) grep_first = g_array_new (FALSE, FALSE, sizeof (gint64));
      g_autoptr(GArray) grep_all = g_array_new (FALSE, FALSE, sizeof (gint64));
      g_autoptr(GArray) grep_any = g_array_new (FALSE, FALSE, sizeof (gint64));
      g_autoptr(GPtrArray) patterns = g_ptr_array_new_with_free_func (g_free);
      double p50, p95, g1, g2, g3;

      for (gint q = 0; q < opt_queries; q++)
        g_ptr_array_add (patterns, pick_substring (ds, rand, lengths[l]));

      for (guint q = 0; q < patterns->len; q++)
        {
          g_autoptr(GError) error = NULL;
          g_autofree char *text = g_strdup_printf ("\"%s\"", (char *) g_ptr_array_index (patterns, q));
          g_autoptr(LumoAuditQuery) query = NULL;
          g_autoptr(GArray) runs = g_array_new (FALSE, FALSE, sizeof (gint64));
          g_autoptr(GArray) cpu_runs = g_array_new (FALSE, FALSE, sizeof (gint64));
          gint64 t0 = 0, cpu = 0, n = 0;

          query = lumo_audit_query_parse (text, 0, &error);
          g_assert_no_error (error);
          /* The median of --repeat runs of the same search: on a loaded
           * machine one run's time is often a scheduler stall. */
          for (gint r = 0; r < opt_repeat; r++)
            {
              g_autoptr(GPtrArray) rows = NULL;
              gint64 t = g_get_monotonic_time (), c = thread_cpu_us ();

              rows = lumo_audit_store_fetch_page (store, query, 0, 200, NULL, &error);
              if (rows == NULL)
                g_error ("search: %s", error->message);
              t = g_get_monotonic_time () - t;
              c = thread_cpu_us () - c;
              g_array_append_val (runs, t);
              g_array_append_val (cpu_runs, c);
              n = rows->len;
            }
          t0 = (gint64) (percentile_ms (runs, 0.5) * 1000);
          g_array_append_val (us, t0);
          cpu = (gint64) (percentile_ms (cpu_runs, 0.5) * 1000);
          g_array_append_val (cpu_us, cpu);
          g_array_append_val (hits, n);
          if (opt_show_queries)
            g_print ("    %-14s %8.3f ms  %8.3f ms CPU  %3u rows\n", text, t0 / 1000.0, cpu / 1000.0,
                     (guint) n);
        }

      for (gint q = 0; q < opt_grep_runs && q < (gint) patterns->len; q++)
        {
          const char *pattern = g_ptr_array_index (patterns, q);
          gint64 a = (gint64) (run_grep (pattern, jsonl, "-m200") * 1000);
          gint64 b = (gint64) (run_grep (pattern, jsonl, "-c") * 1000);
          gint64 c = (gint64) (run_grep (pattern, jsonl, "-q") * 1000);

          g_array_append_val (grep_first, a);
          g_array_append_val (grep_all, b);
          g_array_append_val (grep_any, c);
        }

      p50 = percentile_ms (us, 0.5);
      p95 = percentile_ms (us, 0.95);
      g1 = percentile_ms (grep_first, 0.5);
      g2 = percentile_ms (grep_all, 0.5);
      g3 = percentile_ms (grep_any, 0.5);
      g_print ("  %5u  %7.2f ms  %7.2f ms  %9.0f | %11.1f ms  %9.1f ms  %9.1f ms | %7.1f×  %5.1f×  %5.1f×\n",
               lengths[l], p50, p95, percentile_ms (hits, 0.5) * 1000, g1, g2, g3,
               g1 / p95, g2 / p95, g3 / p95);
      cpu_lines = g_list_append (cpu_lines,
                                 g_strdup_printf ("  %5u  CPU p50 %6.2f ms  p95 %6.2f ms  max %6.2f ms\n",
                                                  lengths[l], percentile_ms (cpu_us, 0.5),
                                                  percentile_ms (cpu_us, 0.95),
                                                  percentile_ms (cpu_us, 1.0)));
    }
  /* The searching thread's own CPU time: what the plan costs, whatever
   * else the machine runs. */
  g_print ("  store CPU time per search (the calling thread's):\n");
  for (GList *l = cpu_lines; l != NULL; l = l->next)
    g_print ("%s", (char *) l->data);
  g_list_free_full (cpu_lines, g_free);
}

static void
bench_page_latency (LumoAuditStore *store,
                    const char     *label,
                    const char     *text,
                    gint64          before_id)
{
  g_autoptr(GArray) us = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GError) error = NULL;
  g_autoptr(LumoAuditQuery) query = lumo_audit_query_parse (text, 0, &error);
  guint len = 0;

  for (guint i = 0; i < 50; i++)
    {
      g_autoptr(GPtrArray) rows = NULL;
      gint64 t0 = g_get_monotonic_time ();

      rows = lumo_audit_store_fetch_page (store, query, before_id, 200, NULL, &error);
      if (rows == NULL)
        g_error ("page: %s", error->message);
      t0 = g_get_monotonic_time () - t0;
      g_array_append_val (us, t0);
      len = rows->len;
    }

  g_print ("%-52s p50 %7.3f ms  p95 %7.3f ms  (%u rows)\n", label,
           percentile_ms (us, 0.5), percentile_ms (us, 0.95), len);
}

/* What a user waits for at start-up: lumo_audit_store_new() on the
 * caller's thread, then the newest page, then the first durable append
 * (which waits for the integrity check at open). Uses only API that
 * predates the deferred check, so an older build can run it too. */
static void
bench_open (const char *dir)
{
  g_autoptr(GArray) open_us = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GArray) page_us = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GArray) total_us = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GArray) append_us = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < 5; i++)
    {
      g_autoptr(LumoAuditStore) store = NULL;
      g_autoptr(GPtrArray) rows = NULL;
      gint64 t0, t1, t2, t3;

      t0 = g_get_monotonic_time ();
      store = open_store (dir);
      t1 = g_get_monotonic_time ();
      rows = lumo_audit_store_fetch_page (store, NULL, 0, 200, NULL, &error);
      if (rows == NULL)
        g_error ("page: %s", error->message);
      t2 = g_get_monotonic_time ();
      if (time_append (store) < 0)
        g_error ("append after open failed");
      t3 = g_get_monotonic_time ();

      t3 -= t0;
      t2 -= t1;
      t1 -= t0;
      g_array_append_val (open_us, t1);
      g_array_append_val (page_us, t2);
      t2 += t1;
      g_array_append_val (total_us, t2);
      g_array_append_val (append_us, t3);
    }

  g_print ("open → first page (200 rows, no query), 5 opens, warm page cache:\n");
  g_print ("  %-50s p50 %8.1f ms  max %8.1f ms\n", "lumo_audit_store_new() on the caller's thread:",
           percentile_ms (open_us, 0.5), percentile_ms (open_us, 1.0));
  g_print ("  %-50s p50 %8.1f ms  max %8.1f ms\n", "then the first page:",
           percentile_ms (page_us, 0.5), percentile_ms (page_us, 1.0));
  g_print ("  %-50s p50 %8.1f ms  max %8.1f ms\n", "open → first page:",
           percentile_ms (total_us, 0.5), percentile_ms (total_us, 1.0));
  g_print ("  %-50s p50 %8.1f ms  max %8.1f ms\n", "open → first durable append:",
           percentile_ms (append_us, 0.5), percentile_ms (append_us, 1.0));
}

#ifdef LUMO_TYPE_AUDIT_SORT_KEY
/* Keyset pages in another order: the first page, and the page after
 * walking @pages pages down. */
static void
bench_sorted (LumoAuditStore     *store,
              const char         *label,
              const char         *text,
              LumoAuditSortKey    key,
              LumoAuditSortOrder  order,
              guint               pages)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(LumoAuditQuery) query = lumo_audit_query_parse (text, 0, &error);
  g_autoptr(LumoAuditRow) after = NULL;
  g_autoptr(GArray) us = g_array_new (FALSE, FALSE, sizeof (gint64));

  for (guint p = 0; p <= pages; p++)
    {
      g_autoptr(GPtrArray) rows = NULL;
      gint64 t0 = g_get_monotonic_time ();

      rows = lumo_audit_store_fetch_sorted (store, query, key, order, after, 200, NULL, &error);
      if (rows == NULL)
        g_error ("sorted page: %s", error->message);
      t0 = g_get_monotonic_time () - t0;
      g_array_append_val (us, t0);
      if (rows->len == 0)
        break;
      g_set_object (&after, g_ptr_array_index (rows, rows->len - 1));
    }

  {
    gint64 first = g_array_index (us, gint64, 0);
    gint64 last = g_array_index (us, gint64, us->len - 1);

    g_print ("%-52s first %7.3f ms  page %u %7.3f ms  p50 %7.3f ms\n", label, first / 1000.0,
             us->len - 1, last / 1000.0, percentile_ms (us, 0.5));
  }
}

static void
bench_stats (LumoAuditStore *store,
             const char     *label,
             const char     *text,
             LumoAuditGroup  group)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(LumoAuditQuery) query = lumo_audit_query_parse (text, 0, &error);
  g_autoptr(GPtrArray) stats = NULL;
  gint64 t0 = g_get_monotonic_time ();

  stats = lumo_audit_store_stats (store, query, group, NULL, &error);
  if (stats == NULL)
    g_error ("stats: %s", error->message);
  g_print ("%-52s %7.1f ms  (%u groups)\n", label, (g_get_monotonic_time () - t0) / 1000.0, stats->len);
}
#endif

static void
bench_count (LumoAuditStore *store,
             const char     *label,
             const char     *text)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(LumoAuditQuery) query = lumo_audit_query_parse (text, 0, &error);
  gint64 t0 = g_get_monotonic_time ();
  gint64 n = lumo_audit_store_count (store, query, NULL, &error);

  if (n < 0)
    g_error ("count: %s", error->message);
  g_print ("%-52s %7.1f ms  (%" G_GINT64_FORMAT " rows)\n", label,
           (g_get_monotonic_time () - t0) / 1000.0, n);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GOptionContext) context = g_option_context_new ("— benchmark the audit store");
  g_autoptr(GError) error = NULL;
  g_autoptr(LumoAuditStore) store = NULL;
  g_autoptr(GFileOutputStream) out = NULL;
  g_autoptr(GFile) jsonl_file = NULL;
  g_autofree char *tmp = NULL;
  g_autofree char *import_dir = NULL;
  g_autofree char *jsonl = NULL;
  Dataset *ds;
  double one, many;
  gint64 t0;

  setlocale (LC_ALL, "");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("%s\n", error->message);
      return 2;
    }
  if (opt_rows < 1000)
    opt_rows = 1000;
  opt_repeat = MAX (opt_repeat, 1);
  if (opt_dir == NULL)
    opt_dir = tmp = lumo_test_dir_new ("bench-audit");

  g_print ("lumo-bench-audit: %" G_GINT64_FORMAT " rows, %.1f s per durable phase, in %s\n"
           "SQLite %s\n\n", opt_rows, opt_seconds, opt_dir, sqlite3_libversion ());

  if (!opt_import_only && !opt_reuse && !opt_open_only)
    {
      bench_checkpoint ();
      bench_latency ();
      one = bench_durable (1);
      many = bench_durable (64);
      g_print ("group commit: 64 writers reach %.1f× the single-writer rate\n\n", many / one);
    }

  ds = dataset_new (opt_rows);
  import_dir = g_build_filename (opt_dir, "import", NULL);
  if (opt_reuse && g_file_test (import_dir, G_FILE_TEST_IS_DIR))
    {
      /* An import of an older schema is migrated here. */
      t0 = g_get_monotonic_time ();
      store = open_store (import_dir);
      g_print ("open the reused import (with any migration): %.2f s\n",
               (g_get_monotonic_time () - t0) / 1e6);
    }
  else
    {
      g_clear_pointer (&import_dir, g_free);
      import_dir = make_dir ("import");
      store = open_store (import_dir);
      t0 = g_get_monotonic_time ();
      if (!lumo_audit_store_import (store, ds->records, ds->n, &error))
        g_error ("import: %s", error->message);
      t0 = g_get_monotonic_time () - t0;
      g_print ("bulk import, one transaction: %" G_GSIZE_FORMAT " rows in %.2f s = %.0f rows/s\n",
               ds->n, t0 / 1e6, ds->n / (t0 / 1e6));
    }

  if (opt_import_only)
    goto out;

  if (opt_open_only)
    {
      g_clear_object (&store);
      bench_open (import_dir);
      goto out;
    }

  jsonl = g_build_filename (opt_dir, "export.jsonl", NULL);
  if (opt_reuse && g_file_test (jsonl, G_FILE_TEST_EXISTS))
    goto search;
  jsonl_file = g_file_new_for_path (jsonl);
  out = g_file_replace (jsonl_file, NULL, FALSE, G_FILE_CREATE_NONE, NULL, &error);
  g_assert_no_error (error);
  t0 = g_get_monotonic_time ();
  if (!lumo_audit_store_export (store, NULL, LUMO_AUDIT_EXPORT_JSONL, G_OUTPUT_STREAM (out),
                                NULL, NULL, NULL, &error) ||
      !g_output_stream_close (G_OUTPUT_STREAM (out), NULL, &error))
    g_error ("export: %s", error->message);
  g_print ("export to JSON Lines: %.2f s\n", (g_get_monotonic_time () - t0) / 1e6);

  t0 = g_get_monotonic_time ();
  if (!lumo_audit_store_verify (store, NULL, NULL, NULL, NULL, &error))
    g_error ("verify: %s", error->message);
  g_print ("verify the whole chain: %.2f s\n", (g_get_monotonic_time () - t0) / 1e6);

search:
  bench_search (store, ds, jsonl);

  g_print ("\n");
  bench_page_latency (store, "newest page, no query:", NULL, 0);
  bench_page_latency (store, "keyset page at the far end (ids 1–200), no query:", NULL, 201);
  bench_page_latency (store, "keyset page at the far end, \"tool:save_script\":", "tool:save_script", 2000);
  bench_page_latency (store, "first page, 2-char scan \"ag\" (flagged):", "ag", 0);
  bench_page_latency (store, "first page, \"result:error since:1d\":", "result:error since:1d", 0);
  bench_count (store, "count, no query:", NULL);
  bench_count (store, "count, \"save\":", "save");
  bench_count (store, "count, \"timeout\":", "timeout");
#ifdef LUMO_TYPE_AUDIT_SORT_KEY
  g_print ("\n");
  bench_sorted (store, "by time, oldest first, 50 pages:", NULL, LUMO_AUDIT_SORT_TIME,
                LUMO_AUDIT_SORT_ASCENDING, 50);
  bench_sorted (store, "by caller, 50 pages:", NULL, LUMO_AUDIT_SORT_CALLER,
                LUMO_AUDIT_SORT_ASCENDING, 50);
  bench_sorted (store, "by tool, descending, 50 pages:", NULL, LUMO_AUDIT_SORT_TOOL,
                LUMO_AUDIT_SORT_DESCENDING, 50);
  bench_sorted (store, "by outcome, denied first, 50 pages:", NULL, LUMO_AUDIT_SORT_OUTCOME,
                LUMO_AUDIT_SORT_DESCENDING, 50);
  bench_sorted (store, "\"timeout\" by caller, 10 pages:", "timeout", LUMO_AUDIT_SORT_CALLER,
                LUMO_AUDIT_SORT_ASCENDING, 10);
  bench_stats (store, "stats, no query, in all:", NULL, LUMO_AUDIT_GROUP_NONE);
  bench_stats (store, "stats, no query, by caller:", NULL, LUMO_AUDIT_GROUP_CALLER);
  bench_stats (store, "stats, \"save\", by day:", "save", LUMO_AUDIT_GROUP_DAY);
#endif

  g_print ("\n");
out:
  g_clear_object (&store);
  report_sizes (import_dir, ds->n);

  dataset_free (ds);
  if (tmp != NULL)
    lumo_test_dir_remove (tmp);
  return 0;
}
