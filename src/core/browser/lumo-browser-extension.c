/* lumo-browser-extension.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Where the installed provider extension is and what it is.
 */
#define G_LOG_DOMAIN "lumo-browser-integration"

#include "config.h"

#include <string.h>

#include "lumo-browser-extension.h"
#include "lumo-browser-private.h"
#include "lumo-error.h"
#include "lumo-json.h"

/* An extension manifest is a few kilobytes; anything far bigger is not one. */
#define MAX_MANIFEST_BYTES (1024 * 1024)

char *
lumo_browser_extension_dup_dir (GError **error)
{
  const char *env = g_getenv ("LUMO_ACCESS_EXTENSION_DIR");

  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (env == NULL || *env == '\0')
    return g_build_filename (PACKAGE_DATADIR, "extension", NULL);

  /* The browser is told this folder; it has its own working directory. */
  if (!g_path_is_absolute (env))
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                   "LUMO_ACCESS_EXTENSION_DIR=%s is not an absolute path; the browser "
                   "loads the extension from a folder it is told exactly", env);
      return NULL;
    }

  return g_canonicalize_filename (env, NULL);
}

char *
_lumo_browser_extension_host_path (const char *path,
                                   const char *app_id,
                                   const char *app_path)
{
  g_autofree char *deployment = NULL;
  const char *found;

  g_return_val_if_fail (path != NULL, NULL);

  if (app_id == NULL || app_path == NULL || !g_str_has_prefix (path, "/app/"))
    return g_strdup (path);

  /* app-path is INSTALLATION/app/APP_ID/ARCH/BRANCH/COMMIT/files; the
   * commit's folder goes away with the next update, current/active stays. */
  deployment = g_strconcat ("/app/", app_id, "/", NULL);
  found = strstr (app_path, deployment);
  if (found == NULL || !g_path_is_absolute (app_path))
    return g_strdup (path);

  return g_strdup_printf ("%.*s/app/%s/current/active/files%s",
                          (int) (found - app_path), app_path, app_id, path + strlen ("/app"));
}

char *
lumo_browser_extension_dup_host_dir (const char *dir)
{
  g_autoptr(GKeyFile) info = g_key_file_new ();
  g_autofree char *app_id = NULL;
  g_autofree char *app_path = NULL;

  g_return_val_if_fail (dir != NULL, NULL);

  if (!g_key_file_load_from_file (info, "/.flatpak-info", G_KEY_FILE_NONE, NULL))
    return g_strdup (dir);

  app_id = g_key_file_get_string (info, "Application", "name", NULL);
  app_path = g_key_file_get_string (info, "Instance", "app-path", NULL);
  return _lumo_browser_extension_host_path (dir, app_id, app_path);
}

static JsonNode *
load_json (const char  *path,
           const char  *what,
           GError     **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree char *contents = NULL;
  gsize length = 0;
  JsonNode *node;

  if (!g_file_get_contents (path, &contents, &length, &local_error))
    {
      if (g_error_matches (local_error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        g_set_error (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND, "%s does not exist", path);
      else
        g_set_error (error, LUMO_ERROR, LUMO_ERROR_IO, "Cannot read %s: %s", path,
                     local_error->message);
      return NULL;
    }

  if (length > MAX_MANIFEST_BYTES)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                   "%s is not %s: it has %" G_GSIZE_FORMAT " bytes, more than %d",
                   path, what, length, MAX_MANIFEST_BYTES);
      return NULL;
    }

  if (!(node = lumo_json_parse (contents, length, LUMO_JSON_DEFAULT_MAX_DEPTH, &local_error)))
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT, "%s is not %s: %s",
                   path, what, local_error->message);
      return NULL;
    }

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                   "%s is not %s: it is not a JSON object", path, what);
      json_node_unref (node);
      return NULL;
    }

  return node;
}

static const char *
string_member (JsonObject *object,
               const char *name)
{
  JsonNode *node = json_object_get_member (object, name);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

/* "__MSG_extName__" names a message of the default locale (chrome.i18n). */
static char *
resolve_message (const char  *dir,
                 JsonObject  *manifest,
                 const char  *manifest_path,
                 const char  *value,
                 GError     **error)
{
  g_autoptr(JsonNode) messages = NULL;
  g_autofree char *key = NULL;
  g_autofree char *path = NULL;
  const char *locale = string_member (manifest, "default_locale");
  JsonNode *entry;
  const char *text;
  gsize len = strlen (value);

  if (!g_str_has_prefix (value, "__MSG_") || len <= strlen ("__MSG_____") ||
      !g_str_has_suffix (value, "__"))
    return g_strdup (value);

  if (locale == NULL || *locale == '\0' || strchr (locale, '/') != NULL || locale[0] == '.')
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                   "%s is not an extension manifest: its name is the message “%s”, but "
                   "“default_locale” is missing or not a locale", manifest_path, value);
      return NULL;
    }

  key = g_strndup (value + strlen ("__MSG_"), len - strlen ("__MSG_") - strlen ("__"));
  path = g_build_filename (dir, "_locales", locale, "messages.json", NULL);
  if (!(messages = load_json (path, "a messages file", error)))
    return NULL;

  /* Chrome matches message names case-insensitively. */
  entry = NULL;
  {
    g_autoptr(GList) names = json_object_get_members (json_node_get_object (messages));

    for (GList *l = names; l != NULL && entry == NULL; l = l->next)
      if (g_ascii_strcasecmp (l->data, key) == 0)
        entry = json_object_get_member (json_node_get_object (messages), l->data);
  }
  text = entry != NULL && JSON_NODE_HOLDS_OBJECT (entry)
         ? string_member (json_node_get_object (entry), "message") : NULL;
  if (text == NULL)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                   "%s has no message “%s” for the extension’s name", path, key);
      return NULL;
    }

  return g_strdup (text);
}

gboolean
lumo_browser_extension_read (const char  *dir,
                             char       **out_name,
                             char       **out_version,
                             GError     **error)
{
  g_autofree char *path = NULL;
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *name = NULL;
  JsonObject *manifest;
  JsonNode *mv;
  const char *raw_name;
  const char *version;

  g_return_val_if_fail (dir != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  path = g_build_filename (dir, "manifest.json", NULL);
  if (!(node = load_json (path, "an extension manifest", error)))
    return FALSE;
  manifest = json_node_get_object (node);

  mv = json_object_get_member (manifest, "manifest_version");
  if (mv == NULL || !JSON_NODE_HOLDS_VALUE (mv) || json_node_get_value_type (mv) != G_TYPE_INT64 ||
      json_node_get_int (mv) != 3)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                   "%s is not an extension manifest: “manifest_version” is not 3", path);
      return FALSE;
    }

  raw_name = string_member (manifest, "name");
  version = string_member (manifest, "version");
  if (raw_name == NULL || *raw_name == '\0' || version == NULL || *version == '\0')
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                   "%s is not an extension manifest: “%s” is missing or not a string", path,
                   raw_name == NULL || *raw_name == '\0' ? "name" : "version");
      return FALSE;
    }

  if (!(name = resolve_message (dir, manifest, path, raw_name, error)))
    return FALSE;

  if (out_name != NULL)
    *out_name = g_steal_pointer (&name);
  if (out_version != NULL)
    *out_version = g_strdup (version);
  return TRUE;
}

typedef struct
{
  char *dir;
  char *name;
  char *version;
} ReadData;

static void
read_data_free (ReadData *data)
{
  g_free (data->dir);
  g_free (data->name);
  g_free (data->version);
  g_free (data);
}

static void
read_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  ReadData *data = task_data;
  GError *error = NULL;

  if (lumo_browser_extension_read (data->dir, &data->name, &data->version, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

void
lumo_browser_extension_read_async (const char          *dir,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  ReadData *data;

  g_return_if_fail (dir != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, lumo_browser_extension_read_async);
  g_task_set_name (task, "[lumo] read the provider extension");
  data = g_new0 (ReadData, 1);
  data->dir = g_strdup (dir);
  g_task_set_task_data (task, data, (GDestroyNotify) read_data_free);
  g_task_run_in_thread (task, read_thread);
}

gboolean
lumo_browser_extension_read_finish (GAsyncResult  *result,
                                    char         **out_name,
                                    char         **out_version,
                                    GError       **error)
{
  ReadData *data;

  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == lumo_browser_extension_read_async,
                        FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!g_task_propagate_boolean (G_TASK (result), error))
    return FALSE;

  data = g_task_get_task_data (G_TASK (result));
  if (out_name != NULL)
    *out_name = g_steal_pointer (&data->name);
  if (out_version != NULL)
    *out_version = g_steal_pointer (&data->version);
  return TRUE;
}
