/* lumo-paths.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-paths"

#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <sys/stat.h>

#include "lumo-error.h"
#include "lumo-paths.h"

static char *data_dir;

const char *
lumo_paths_get_data_dir (void)
{
  if (data_dir == NULL)
    {
      const char *env = g_getenv ("LUMO_ACCESS_DATA_DIR");

      if (env != NULL && *env != '\0')
        data_dir = g_strdup (env);
      else
        data_dir = g_build_filename (g_get_user_data_dir (), "lumo-access", NULL);
    }

  return data_dir;
}

void
lumo_paths_set_data_dir (const char *dir)
{
  g_return_if_fail (dir != NULL);

  g_free (data_dir);
  data_dir = g_strdup (dir);
}

char *
lumo_paths_build (const char *file_name)
{
  g_return_val_if_fail (file_name != NULL, NULL);

  return g_build_filename (lumo_paths_get_data_dir (), file_name, NULL);
}

gboolean
lumo_paths_ensure_private_dir (const char  *dir,
                               GError     **error)
{
  GStatBuf st;

  g_return_val_if_fail (dir != NULL, FALSE);

  /* 0700: the directory holds the audit secret and the policy. */
  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      int saved_errno = errno;

      g_set_error (error, LUMO_ERROR, LUMO_ERROR_IO,
                   "Cannot create the data directory “%s”: %s",
                   dir, g_strerror (saved_errno));
      return FALSE;
    }

  if (g_stat (dir, &st) != 0 || !S_ISDIR (st.st_mode))
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_IO,
                   "The data directory “%s” is not a directory", dir);
      return FALSE;
    }

  /* A directory made by an older version, or by hand, is made private
   * rather than trusted as it is; one that is not ours cannot be. */
  if ((st.st_mode & 077) != 0 && g_chmod (dir, 0700) != 0)
    {
      int saved_errno = errno;

      g_set_error (error, LUMO_ERROR, LUMO_ERROR_IO,
                   "The data directory “%s” is open to other users (mode %04o) and cannot "
                   "be made private (0700): %s",
                   dir, (guint) (st.st_mode & 07777), g_strerror (saved_errno));
      return FALSE;
    }

  return TRUE;
}

gboolean
lumo_paths_ensure_data_dir (GError **error)
{
  return lumo_paths_ensure_private_dir (lumo_paths_get_data_dir (), error);
}

char *
lumo_paths_dup_flatpak_app_id (void)
{
  g_autoptr(GKeyFile) info = g_key_file_new ();

  if (!g_key_file_load_from_file (info, "/.flatpak-info", G_KEY_FILE_NONE, NULL))
    return NULL;

  return g_key_file_get_string (info, "Application", "name", NULL);
}
