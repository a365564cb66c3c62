/* lumo-browser-setup.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What this installation's manifests say: the providers (store + bundled)
 * and the helper path; and the app's start-up refresh in a worker thread.
 */
#define G_LOG_DOMAIN "lumo-browser-integration"

#include "config.h"

#include <string.h>

#include "lumo-browser-setup.h"
#include "lumo-error.h"
#include "lumo-policy.h"
#include "lumo-protocol.h"

const char * const *
lumo_browser_setup_get_bundled_ids (void)
{
  static char **ids;

  if (g_once_init_enter (&ids))
    {
      /* meson joins the option's array with spaces; an empty array gives "". */
      char **split = g_strsplit (PROVIDER_EXTENSION_IDS, " ", -1);
      g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

      for (guint i = 0; split[i] != NULL; i++)
        if (*split[i] != '\0')
          g_strv_builder_add (builder, split[i]);
      g_strfreev (split);

      g_once_init_leave (&ids, g_strv_builder_end (builder));
    }

  return (const char * const *) ids;
}

static int
compare_ids (gconstpointer a,
             gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

char **
lumo_browser_setup_dup_provider_ids (LumoPolicy  *policy,
                                     GError     **error)
{
  const char * const *bundled = lumo_browser_setup_get_bundled_ids ();
  g_autoptr(GPtrArray) ids = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) unique = g_ptr_array_new ();

  g_return_val_if_fail (policy == NULL || LUMO_IS_POLICY (policy), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  for (guint i = 0; bundled[i] != NULL; i++)
    {
      /* A typo in -Dprovider_extension_ids must not reach a manifest. */
      if (!lumo_validate_extension_id (bundled[i], "bundled provider extension ID "
                                       "(meson option provider_extension_ids)", error))
        return NULL;
      g_ptr_array_add (ids, g_strdup (bundled[i]));
    }

  if (policy != NULL)
    {
      g_autoptr(GPtrArray) providers = lumo_policy_list_providers (policy, error);

      if (providers == NULL)
        return NULL;
      for (guint i = 0; i < providers->len; i++)
        {
          LumoProviderInfo *p = g_ptr_array_index (providers, i);

          g_ptr_array_add (ids, g_strdup (p->id));
        }
    }

  g_ptr_array_sort (ids, compare_ids);
  for (guint i = 0; i < ids->len; i++)
    if (i == 0 || !g_str_equal (ids->pdata[i], ids->pdata[i - 1]))
      g_ptr_array_add (unique, g_strdup (ids->pdata[i]));
  g_ptr_array_add (unique, NULL);

  return (char **) g_ptr_array_free (g_steal_pointer (&unique), FALSE);
}

char *
lumo_browser_setup_dup_host_path (GError **error)
{
  const char *env = g_getenv ("LUMO_ACCESS_HOST_PATH");

  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (env == NULL || *env == '\0')
    return g_build_filename (LIBEXECDIR, "lumo-access-host", NULL);

  /* The browser starts the helper from its own working directory. */
  if (!g_path_is_absolute (env))
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                   "LUMO_ACCESS_HOST_PATH=%s is not an absolute path; a browser "
                   "starts the helper from a folder of its own choosing", env);
      return NULL;
    }

  return g_canonicalize_filename (env, NULL);
}

LumoBrowserIntegration *
lumo_browser_setup_new_integration (LumoPolicy  *policy,
                                    const char  *home_dir,
                                    const char  *system_root,
                                    GError     **error)
{
  g_autoptr(LumoBrowserIntegration) integration = NULL;
  g_autofree char *host_path = NULL;
  g_auto(GStrv) ids = NULL;

  g_return_val_if_fail (policy == NULL || LUMO_IS_POLICY (policy), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!(host_path = lumo_browser_setup_dup_host_path (error))
      || !(ids = lumo_browser_setup_dup_provider_ids (policy, error)))
    return NULL;

  integration = lumo_browser_integration_new (home_dir, system_root);
  lumo_browser_integration_set_host_path (integration, host_path);
  if (!lumo_browser_integration_set_extension_ids (integration, (const char * const *) ids,
                                                   error))
    return NULL;

  return g_steal_pointer (&integration);
}

/* ---- the app's refresh -------------------------------------------------- */

typedef struct
{
  LumoBrowserIntegration *integration;
  guint                   n_rewritten;
} RefreshData;

static void
refresh_data_free (RefreshData *data)
{
  g_clear_object (&data->integration);
  g_free (data);
}

static void
refresh_thread (GTask        *task,
                gpointer      source_object,
                gpointer      task_data,
                GCancellable *cancellable)
{
  RefreshData *data = task_data;
  GError *error = NULL;

  if (!lumo_browser_integration_check_host (data->integration, &error))
    {
      g_prefix_error_literal (&error, "Leaving the browsers' manifests as they are: ");
      g_task_return_error (task, error);
      return;
    }

  /* The integration is used by this thread alone until the task is done. */
  data->n_rewritten = lumo_browser_integration_refresh_stale (data->integration, &error);
  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

void
lumo_browser_setup_refresh_stale_async (LumoPolicy          *policy,
                                        const char          *home_dir,
                                        GCancellable        *cancellable,
                                        GAsyncReadyCallback  callback,
                                        gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  RefreshData *data;

  g_return_if_fail (LUMO_IS_POLICY (policy));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, lumo_browser_setup_refresh_stale_async);
  g_task_set_name (task, "[lumo] refresh browser manifests");

  data = g_new0 (RefreshData, 1);
  g_task_set_task_data (task, data, (GDestroyNotify) refresh_data_free);

  /* The policy belongs to this thread: read the providers here. */
  if (!(data->integration = lumo_browser_setup_new_integration (policy, home_dir, NULL, &error)))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  g_task_run_in_thread (task, refresh_thread);
}

guint
lumo_browser_setup_refresh_stale_finish (GAsyncResult  *result,
                                         GError       **error)
{
  RefreshData *data;

  g_return_val_if_fail (g_task_is_valid (result, NULL), 0);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result))
                        == lumo_browser_setup_refresh_stale_async, 0);
  g_return_val_if_fail (error == NULL || *error == NULL, 0);

  data = g_task_get_task_data (G_TASK (result));
  g_task_propagate_boolean (G_TASK (result), error);

  return data->n_rewritten;
}
