/* audit-writer.c — a separate process that appends to an audit store
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Used by test-audit-concurrency: two of these write one store at once, and
 * others are killed with SIGKILL at random points. Each id is printed (one
 * line, line-buffered) only after lumo_audit_store_append() returned it, so
 * every printed id must be in the database afterwards.
 *
 *   audit-writer DB ROWS THREADS TOOL [--no-index]   (ROWS 0: until killed)
 *
 * --no-index keeps the writer from indexing what it committed, so a kill
 * always lands between the commit and the search index's catch-up.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "lumo-audit-private.h"
#include "lumo-audit-store.h"
#include "lumo-test-ids.h"

static LumoAuditStore *store;
static guint rows_per_thread;
static const char *tool;
static GMutex print_lock;

static gpointer
writer_thread (gpointer data)
{
  LumoAuditRecord r = {
    .provider_id = TEST_PROVIDER_ID,
    .caller_id = TEST_CALLER_ID,
    .caller_name = "writer",
    .tool = tool,
    .write = TRUE,
    .target = "0f8fad5b-d9cb-469f-a165-70867728950e",
    .params_sha256 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    .decision = LUMO_AUDIT_DECISION_ALLOW,
  };

  for (guint i = 0; rows_per_thread == 0 || i < rows_per_thread; i++)
    {
      g_autoptr(GError) error = NULL;
      gint64 id = lumo_audit_store_append (store, &r, &error);

      if (id == 0)
        {
          g_printerr ("append: %s\n", error->message);
          exit (1);
        }

      g_mutex_lock (&print_lock);
      printf ("%" G_GINT64_FORMAT "\n", id);
      g_mutex_unlock (&print_lock);
    }

  return NULL;
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) threads = g_ptr_array_new ();
  guint n_threads;

  if (argc != 5 && !(argc == 6 && g_str_equal (argv[5], "--no-index")))
    {
      g_printerr ("usage: %s DB ROWS THREADS TOOL [--no-index]\n", argv[0]);
      return 2;
    }

  setvbuf (stdout, NULL, _IOLBF, 0);
  rows_per_thread = (guint) g_ascii_strtoull (argv[2], NULL, 10);
  n_threads = MAX (1, (guint) g_ascii_strtoull (argv[3], NULL, 10));
  tool = argv[4];

  store = lumo_audit_store_new (argv[1], &error);
  if (store == NULL)
    {
      g_printerr ("open: %s\n", error->message);
      return 1;
    }
  if (argc == 6)
    _lumo_audit_store_set_index_catch_up (store, FALSE);

  for (guint i = 0; i < n_threads; i++)
    g_ptr_array_add (threads, g_thread_new ("writer", writer_thread, NULL));
  for (guint i = 0; i < n_threads; i++)
    g_thread_join (g_ptr_array_index (threads, i));

  g_object_unref (store);
  return 0;
}
