/* lumo-browser-manifest.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-browser-integration"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "lumo-browser-manifest-private.h"
#include "lumo-error.h"

/* Chrome shows this nowhere a user reads it; it stays English. */
#define MANIFEST_DESCRIPTION "Lumo Access: lets provider extensions reach the Lumo Access app"

static const char * const our_members[] = {
  "name", "description", "path", "type", "allowed_origins", NULL
};

int
_lumo_browser_compare_strings (gconstpointer a,
                               gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

static JsonNode *
parse_file (const char  *path,
            gboolean    *out_exists,
            GError     **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) local_error = NULL;
  g_autofree char *contents = NULL;
  gsize len = 0;

  *out_exists = TRUE;

  if (!g_file_get_contents (path, &contents, &len, &local_error))
    {
      if (g_error_matches (local_error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        *out_exists = FALSE;
      g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }

  if (!json_parser_load_from_data (parser, contents, len, error))
    return NULL;

  return json_parser_steal_root (parser);
}

static const char *
string_member (JsonObject *object,
               const char *name)
{
  JsonNode *node = json_object_get_member (object, name);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node)
      || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;

  return json_node_get_string (node);
}

/* Chrome matches allowed_origins as a set; so do we. */
static gboolean
origins_equal (JsonNode           *node,
               const char * const *origins)
{
  g_autoptr(GPtrArray) found = g_ptr_array_new ();
  JsonArray *array;
  guint n_unique = 0;
  guint n_expected = origins != NULL ? g_strv_length ((char **) origins) : 0;

  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    return FALSE;

  array = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);

      if (!JSON_NODE_HOLDS_VALUE (element) || json_node_get_value_type (element) != G_TYPE_STRING)
        return FALSE;
      g_ptr_array_add (found, (gpointer) json_node_get_string (element));
    }

  g_ptr_array_sort (found, _lumo_browser_compare_strings);
  for (guint i = 0; i < found->len; i++)
    {
      if (i > 0 && g_str_equal (found->pdata[i], found->pdata[i - 1]))
        continue;
      if (n_unique >= n_expected || !g_str_equal (found->pdata[i], origins[n_unique]))
        return FALSE;
      n_unique++;
    }

  return n_unique == n_expected;
}

LumoBrowserStaleFlags
_lumo_browser_manifest_check (const char         *manifest_path,
                              const char         *host_name,
                              const char         *expected_path,
                              const char * const *origins,
                              gboolean           *out_exists,
                              char              **out_found_path)
{
  g_autoptr(JsonNode) root = NULL;
  LumoBrowserStaleFlags flags = LUMO_BROWSER_STALE_NONE;
  JsonObject *object;
  const char *path;

  g_assert (out_exists != NULL);

  if (out_found_path != NULL)
    *out_found_path = NULL;

  root = parse_file (manifest_path, out_exists, NULL);
  if (!*out_exists)
    return LUMO_BROWSER_STALE_NONE;
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return LUMO_BROWSER_STALE_INVALID;

  object = json_node_get_object (root);

  if (g_strcmp0 (string_member (object, "name"), host_name) != 0
      || g_strcmp0 (string_member (object, "type"), "stdio") != 0)
    flags |= LUMO_BROWSER_STALE_INVALID;

  path = string_member (object, "path");
  if (g_strcmp0 (path, expected_path) != 0)
    flags |= LUMO_BROWSER_STALE_PATH;
  if (out_found_path != NULL)
    *out_found_path = g_strdup (path);

  if (!origins_equal (json_object_get_member (object, "allowed_origins"), origins))
    flags |= LUMO_BROWSER_STALE_ORIGINS;

  return flags;
}

char *
_lumo_browser_manifest_build (const char         *existing_path,
                              const char         *host_name,
                              const char         *path,
                              const char * const *origins)
{
  g_autoptr(JsonNode) old_root = NULL;
  g_autoptr(JsonNode) root = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(JsonObject) object = json_object_new ();
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  JsonArray *array = json_array_new ();
  gboolean exists = FALSE;
  g_autofree char *text = NULL;

  json_object_set_string_member (object, "name", host_name);
  json_object_set_string_member (object, "description", MANIFEST_DESCRIPTION);
  json_object_set_string_member (object, "path", path);
  json_object_set_string_member (object, "type", "stdio");
  for (guint i = 0; origins != NULL && origins[i] != NULL; i++)
    json_array_add_string_element (array, origins[i]);
  json_object_set_array_member (object, "allowed_origins", array);

  if (existing_path != NULL)
    old_root = parse_file (existing_path, &exists, NULL);

  if (old_root != NULL && JSON_NODE_HOLDS_OBJECT (old_root))
    {
      JsonObject *old = json_node_get_object (old_root);
      g_autoptr(GList) members = json_object_get_members (old);

      for (const GList *l = members; l != NULL; l = l->next)
        {
          const char *member = l->data;

          if (g_strv_contains (our_members, member))
            continue;
          json_object_set_member (object, member,
                                  json_node_copy (json_object_get_member (old, member)));
        }
    }

  json_node_set_object (root, object);
  json_generator_set_root (generator, root);
  json_generator_set_pretty (generator, TRUE);
  json_generator_set_indent (generator, 2);
  text = json_generator_to_data (generator, NULL);

  return g_strconcat (text, "\n", NULL);
}

char *
_lumo_browser_wrapper_build (const char * const *argv)
{
  GString *script = g_string_new ("#!/bin/sh\n"
                                  "# Written by Lumo Access: the browser starts this as its\n"
                                  "# native-messaging host. Rewritten on every update.\n"
                                  "exec");

  for (guint i = 0; argv[i] != NULL; i++)
    {
      g_autofree char *quoted = g_shell_quote (argv[i]);

      g_string_append_c (script, ' ');
      /* Keep plain words readable; quote anything the shell could split. */
      if (strspn (argv[i], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=./:")
          == strlen (argv[i]) && argv[i][0] != '\0')
        g_string_append (script, argv[i]);
      else
        g_string_append (script, quoted);
    }

  g_string_append (script, " \"$@\"\n");

  return g_string_free (script, FALSE);
}

gboolean
_lumo_browser_wrapper_check (const char *path,
                             const char *contents)
{
  g_autofree char *found = NULL;

  if (!g_file_get_contents (path, &found, NULL, NULL))
    return FALSE;

  return g_str_equal (found, contents) && g_access (path, X_OK) == 0;
}

/* @action: "write", "remove", "create the folder". */
static gboolean
set_io_error (GError    **error,
              int         saved_errno,
              const char *action,
              const char *path)
{
  g_set_error (error, LUMO_ERROR, LUMO_ERROR_IO, "Cannot %s “%s”: %s",
               action, path, g_strerror (saved_errno));
  return FALSE;
}

gboolean
_lumo_browser_write_atomic (const char  *path,
                            const char  *contents,
                            int          mode,
                            GError     **error)
{
  g_autofree char *tmp_path = g_strconcat (path, ".XXXXXX", NULL);
  gsize len = strlen (contents);
  gsize done = 0;
  int fd;

  fd = g_mkstemp_full (tmp_path, O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0)
    return set_io_error (error, errno, "write", path);

  while (done < len)
    {
      gssize n = write (fd, contents + done, len - done);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        goto fail;
      done += n;
    }

  /* fchmod, not the open mode: a root umask of 077 would leave a system
   * manifest that no browser run by a user can read. */
  if (fchmod (fd, mode) != 0 || fsync (fd) != 0)
    goto fail;

  if (close (fd) != 0)
    {
      fd = -1;
      goto fail;
    }
  fd = -1;

  if (g_rename (tmp_path, path) != 0)
    goto fail;

  return TRUE;

fail:
  {
    int saved_errno = errno;

    if (fd >= 0)
      close (fd);
    g_unlink (tmp_path);
    return set_io_error (error, saved_errno, "write", path);
  }
}

gboolean
_lumo_browser_remove_file (const char  *path,
                           gboolean    *out_removed,
                           GError     **error)
{
  if (out_removed != NULL)
    *out_removed = FALSE;

  if (g_unlink (path) != 0)
    {
      if (errno == ENOENT)
        return TRUE;
      return set_io_error (error, errno, "remove", path);
    }

  if (out_removed != NULL)
    *out_removed = TRUE;
  return TRUE;
}

/* Like g_mkdir_with_parents(), but every folder it creates gets @mode
 * whatever the umask, for the same reason as in write_atomic(). */
gboolean
_lumo_browser_ensure_directory (const char  *path,
                                int          mode,
                                GError     **error)
{
  g_autofree char *parent = NULL;

  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    return TRUE;

  parent = g_path_get_dirname (path);
  if (!g_str_equal (parent, path) && !_lumo_browser_ensure_directory (parent, mode, error))
    return FALSE;

  if (g_mkdir (path, mode) != 0)
    {
      if (errno == EEXIST && g_file_test (path, G_FILE_TEST_IS_DIR))
        return TRUE;
      return set_io_error (error, errno, "create the folder", path);
    }

  if (g_chmod (path, mode) != 0)
    return set_io_error (error, errno, "create the folder", path);

  return TRUE;
}

static void
apply_policy (const char *key_file_path,
              const char *group,
              const char *bus_name,
              gboolean   *allowed)
{
  g_autoptr(GKeyFile) key_file = g_key_file_new ();
  g_autofree char *value = NULL;

  if (!g_key_file_load_from_file (key_file, key_file_path, G_KEY_FILE_NONE, NULL))
    return;

  value = g_key_file_get_string (key_file, group, bus_name, NULL);
  if (value == NULL)
    return;

  *allowed = g_str_equal (value, "talk") || g_str_equal (value, "own");
}

gboolean
_lumo_browser_flatpak_can_talk (const char *user_data_dir,
                                const char *system_root,
                                const char *app_id,
                                const char *bus_name)
{
  g_autofree char *user_dir = g_build_filename (user_data_dir, "flatpak", NULL);
  g_autofree char *system_dir = g_build_filename (system_root, "var", "lib", "flatpak", NULL);
  const char *installations[] = { system_dir, user_dir };
  gboolean allowed = FALSE;

  /* The app's own metadata first (user installation wins if both exist),
   * then overrides: system global, system app, user global, user app. */
  for (guint i = 0; i < G_N_ELEMENTS (installations); i++)
    {
      g_autofree char *metadata = g_build_filename (installations[i], "app", app_id, "current",
                                                    "active", "metadata", NULL);

      apply_policy (metadata, "Session Bus Policy", bus_name, &allowed);
    }

  for (guint i = 0; i < G_N_ELEMENTS (installations); i++)
    {
      g_autofree char *global = g_build_filename (installations[i], "overrides", "global", NULL);
      g_autofree char *app = g_build_filename (installations[i], "overrides", app_id, NULL);

      apply_policy (global, "Session Bus Policy", bus_name, &allowed);
      apply_policy (app, "Session Bus Policy", bus_name, &allowed);
    }

  return allowed;
}
