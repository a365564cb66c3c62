/* replay.c — runs every file of a corpus through the bridge fuzz target
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Built always, without libFuzzer, so that plain `meson test` replays the
 * corpus (tests/fuzz/corpus/): every input that once found a bug, and the
 * seeds made from the fixtures, keep passing. Usage: replay DIR|FILE…
 */
#include "config.h"

#include <stdint.h>

#include <glib.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static gint
compare_paths (gconstpointer a,
               gconstpointer b)
{
  return g_strcmp0 (*(const char * const *) a, *(const char * const *) b);
}

static guint
run_path (const char *path)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  gsize len = 0;

  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      g_autoptr(GDir) dir = g_dir_open (path, 0, &error);
      g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
      const char *name;
      guint n = 0;

      g_assert_no_error (error);
      while ((name = g_dir_read_name (dir)) != NULL)
        g_ptr_array_add (names, g_build_filename (path, name, NULL));
      /* A stable order, so that a failure is reproducible. */
      g_ptr_array_sort (names, compare_paths);
      for (guint i = 0; i < names->len; i++)
        n += run_path (g_ptr_array_index (names, i));
      return n;
    }

  g_file_get_contents (path, &contents, &len, &error);
  g_assert_no_error (error);
  LLVMFuzzerTestOneInput ((const uint8_t *) contents, len);
  return 1;
}

int
main (int   argc,
      char *argv[])
{
  guint n = 0;

  if (argc < 2)
    {
      g_printerr ("Usage: %s CORPUS-DIR|FILE…\n", argv[0]);
      return 2;
    }

  for (int i = 1; i < argc; i++)
    n += run_path (argv[i]);

  if (n == 0)
    {
      g_printerr ("No input in the corpus\n");
      return 1;
    }

  /* TAP: one test, the whole corpus. */
  g_print ("1..1\nok 1 - %u inputs replayed\n", n);
  return 0;
}
