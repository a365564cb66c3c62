/* lumo-backend.c — the provider backend hosted in the app
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-backend"

#include "config.h"

#include <errno.h>

#include <glib/gstdio.h>
#include <string.h>

#include "lumo-audit-store.h"
#include "lumo-backend.h"
#include "lumo-bridge-session-private.h"
#include "lumo-error.h"
#include "lumo-managed-settings.h"
#include "lumo-paths.h"
#include "lumo-policy.h"
#include "lumo-protocol.h"
#include "lumo-review-queue.h"
#include "lumo-tool-registry.h"

struct _LumoBackend
{
  GObject           parent_instance;

  LumoPolicy       *policy;
  LumoAuditStore   *audit_store;
  LumoReviewQueue  *review_queue;
  LumoManagedSettings *managed_settings;
  LumoToolRegistry *registry;
  char             *app_version;
  GListStore       *sessions;      /* LumoBridgeSession */
  GHashTable       *recommended;   /* provider ID → GPtrArray of LumoRecommendedServer */
  guint64           n_hellos;      /* sessions' hello_serial: which said hello last */
};

enum {
  PROP_0,
  PROP_N_SESSIONS,
  N_PROPS
};

enum {
  SESSION_ADDED,
  SESSION_REMOVED,
  PORT_OPENED,
  PORT_CLOSED,
  RECOMMENDED_CHANGED,
  PROVIDER_CONNECTED,
  PROVIDER_DISCONNECTED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (LumoBackend, lumo_backend, G_TYPE_OBJECT)

/* What an Attach call keeps until its session ends. */
typedef struct
{
  LumoBridgeSession *session;
  GCancellable      *cancellable;
  gulong             cancelled_id;
} Attach;

static void
attach_free (Attach *attach)
{
  g_clear_object (&attach->session);
  g_clear_object (&attach->cancellable);
  g_free (attach);
}

/* ---- policy signals → sessions ------------------------------------------- */

static void
forward_event (LumoBackend           *self,
               const char            *provider_id,
               LumoBridgePolicyEvent  event,
               const char            *caller_id)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->sessions));

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(LumoBridgeSession) session = g_list_model_get_item (G_LIST_MODEL (self->sessions), i);

      if (g_str_equal (lumo_bridge_session_get_provider_id (session), provider_id))
        _lumo_bridge_session_policy_event (session, event, caller_id);
    }
}

static void
on_policy_provider_changed_cb (LumoPolicy  *policy,
                               const char  *provider_id,
                               LumoBackend *self)
{
  forward_event (self, provider_id, LUMO_BRIDGE_POLICY_EVENT_PROVIDER, NULL);
}

static void
on_policy_caller_changed_cb (LumoPolicy  *policy,
                             const char  *provider_id,
                             const char  *caller_id,
                             LumoBackend *self)
{
  forward_event (self, provider_id, LUMO_BRIDGE_POLICY_EVENT_CALLER, caller_id);
}

static void
on_policy_revoked_cb (LumoPolicy  *policy,
                      const char  *provider_id,
                      const char  *caller_id,
                      LumoBackend *self)
{
  /* A write waiting for review must not be approved for a caller that can
   * no longer call at all. */
  lumo_review_queue_cancel_matching (self->review_queue, provider_id, caller_id);
  forward_event (self, provider_id, LUMO_BRIDGE_POLICY_EVENT_REVOKED, caller_id);
}

/* ---- GObject -------------------------------------------------------------- */

static void
lumo_backend_dispose (GObject *object)
{
  LumoBackend *self = LUMO_BACKEND (object);

  /* Each session's Attach completes with "closed". */
  if (self->sessions != NULL)
    {
      while (g_list_model_get_n_items (G_LIST_MODEL (self->sessions)) > 0)
        {
          g_autoptr(LumoBridgeSession) session = g_list_model_get_item (G_LIST_MODEL (self->sessions), 0);

          lumo_bridge_session_close (session);
        }
    }

  if (self->policy != NULL)
    g_signal_handlers_disconnect_by_data (self->policy, self);
  g_clear_object (&self->sessions);
  g_clear_object (&self->registry);
  g_clear_object (&self->managed_settings);
  g_clear_object (&self->review_queue);
  g_clear_object (&self->audit_store);
  g_clear_object (&self->policy);

  G_OBJECT_CLASS (lumo_backend_parent_class)->dispose (object);
}

static void
lumo_backend_finalize (GObject *object)
{
  LumoBackend *self = LUMO_BACKEND (object);

  g_free (self->app_version);
  g_clear_pointer (&self->recommended, g_hash_table_unref);

  G_OBJECT_CLASS (lumo_backend_parent_class)->finalize (object);
}

static void
lumo_backend_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  LumoBackend *self = LUMO_BACKEND (object);

  switch (prop_id)
    {
    case PROP_N_SESSIONS:
      g_value_set_uint (value, lumo_backend_get_n_sessions (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
lumo_backend_class_init (LumoBackendClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = lumo_backend_dispose;
  object_class->finalize = lumo_backend_finalize;
  object_class->get_property = lumo_backend_get_property;

  properties[PROP_N_SESSIONS] =
    g_param_spec_uint ("n-sessions", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[SESSION_ADDED] =
    g_signal_new ("session-added", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, LUMO_TYPE_BRIDGE_SESSION);
  signals[SESSION_REMOVED] =
    g_signal_new ("session-removed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2, LUMO_TYPE_BRIDGE_SESSION, G_TYPE_STRING);
  signals[PORT_OPENED] =
    g_signal_new ("port-opened", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, LUMO_TYPE_BRIDGE_PORT);
  signals[PORT_CLOSED] =
    g_signal_new ("port-closed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, LUMO_TYPE_BRIDGE_PORT);
  signals[RECOMMENDED_CHANGED] =
    g_signal_new ("recommended-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  signals[PROVIDER_CONNECTED] =
    g_signal_new ("provider-connected", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  signals[PROVIDER_DISCONNECTED] =
    g_signal_new ("provider-disconnected", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void
lumo_backend_init (LumoBackend *self)
{
  self->app_version = g_strdup (PACKAGE_VERSION);
  self->sessions = g_list_store_new (LUMO_TYPE_BRIDGE_SESSION);
  self->registry = lumo_tool_registry_new ();
  self->recommended = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                             (GDestroyNotify) g_ptr_array_unref);
}

LumoBackend *
lumo_backend_new (LumoPolicy      *policy,
                  LumoAuditStore  *audit_store,
                  LumoReviewQueue *review_queue)
{
  LumoBackend *self;

  g_return_val_if_fail (LUMO_IS_POLICY (policy), NULL);
  g_return_val_if_fail (LUMO_IS_AUDIT_STORE (audit_store), NULL);
  g_return_val_if_fail (LUMO_IS_REVIEW_QUEUE (review_queue), NULL);

  self = g_object_new (LUMO_TYPE_BACKEND, NULL);
  self->policy = g_object_ref (policy);
  self->audit_store = g_object_ref (audit_store);
  self->review_queue = g_object_ref (review_queue);
  self->managed_settings = lumo_managed_settings_new (policy, review_queue, audit_store);

  g_signal_connect (policy, "provider-changed", G_CALLBACK (on_policy_provider_changed_cb), self);
  g_signal_connect (policy, "caller-changed", G_CALLBACK (on_policy_caller_changed_cb), self);
  g_signal_connect (policy, "revoked", G_CALLBACK (on_policy_revoked_cb), self);

  return self;
}

LumoBackend *
lumo_backend_new_for_data_dir (const char           *data_dir,
                               LumoAuditStoreFlags   audit_flags,
                               GError              **error)
{
  g_autoptr(LumoPolicy) policy = NULL;
  g_autoptr(LumoAuditStore) audit_store = NULL;
  g_autoptr(LumoReviewQueue) review_queue = NULL;
  g_autofree char *policy_path = NULL;
  g_autofree char *audit_path = NULL;

  if (data_dir == NULL)
    data_dir = lumo_paths_get_data_dir ();

  if (!lumo_paths_ensure_private_dir (data_dir, error))
    return NULL;

  policy_path = g_build_filename (data_dir, "policy.db", NULL);
  audit_path = g_build_filename (data_dir, "audit.db", NULL);
  if (!(policy = lumo_policy_new (policy_path, error)) ||
      !(audit_store = lumo_audit_store_new_with_flags (audit_path, audit_flags, error)))
    return NULL;

  review_queue = lumo_review_queue_new ();
  return lumo_backend_new (policy, audit_store, review_queue);
}

/* ---- getters -------------------------------------------------------------- */

LumoPolicy *
lumo_backend_get_policy (LumoBackend *self)
{
  g_return_val_if_fail (LUMO_IS_BACKEND (self), NULL);
  return self->policy;
}

LumoAuditStore *
lumo_backend_get_audit_store (LumoBackend *self)
{
  g_return_val_if_fail (LUMO_IS_BACKEND (self), NULL);
  return self->audit_store;
}

LumoReviewQueue *
lumo_backend_get_review_queue (LumoBackend *self)
{
  g_return_val_if_fail (LUMO_IS_BACKEND (self), NULL);
  return self->review_queue;
}

LumoManagedSettings *
lumo_backend_get_managed_settings (LumoBackend *self)
{
  g_return_val_if_fail (LUMO_IS_BACKEND (self), NULL);
  return self->managed_settings;
}

LumoToolRegistry *
lumo_backend_get_tool_registry (LumoBackend *self)
{
  g_return_val_if_fail (LUMO_IS_BACKEND (self), NULL);
  return self->registry;
}

const char *
lumo_backend_get_app_version (LumoBackend *self)
{
  g_return_val_if_fail (LUMO_IS_BACKEND (self), NULL);
  return self->app_version;
}

void
lumo_backend_set_app_version (LumoBackend *self,
                              const char  *version)
{
  g_return_if_fail (LUMO_IS_BACKEND (self));
  g_return_if_fail (version != NULL);

  g_free (self->app_version);
  self->app_version = g_strdup (version);
}

gboolean
lumo_backend_restore_rate_windows (LumoBackend  *self,
                                   GError      **error)
{
  LumoRateLimiter *limiter;
  g_autoptr(GPtrArray) rows = NULL;
  gint64 real_now;
  gint64 now;

  g_return_val_if_fail (LUMO_IS_BACKEND (self), FALSE);

  limiter = lumo_policy_get_rate_limiter (self->policy);
  real_now = g_get_real_time ();
  if (!(rows = lumo_audit_store_list_allowed_writes (self->audit_store,
                                                     real_now - lumo_rate_limiter_get_window (limiter),
                                                     error)))
    return FALSE;

  /* The rows carry wall-clock times, the limiter counts on its own clock:
   * each write is placed as long before the limiter's now as it was
   * before the wall clock's. */
  now = lumo_rate_limiter_now (limiter);
  for (guint i = 0; i < rows->len; i++)
    {
      LumoAuditRow *row = g_ptr_array_index (rows, i);
      char key[LUMO_CALLER_KEY_SIZE];

      lumo_caller_key_fill (key, lumo_audit_row_get_provider_id (row), lumo_audit_row_get_caller_id (row));
      lumo_rate_limiter_seed (limiter, key, now - MAX (real_now - lumo_audit_row_get_time_us (row), 0));
    }

  if (rows->len > 0)
    g_debug ("Restored %u writes of the last minute into the rate limiter", rows->len);
  return TRUE;
}

void
lumo_backend_set_clock (LumoBackend   *self,
                        LumoClockFunc  clock,
                        gpointer       user_data)
{
  g_return_if_fail (LUMO_IS_BACKEND (self));

  lumo_policy_set_clock (self->policy, clock, user_data);
  lumo_review_queue_set_clock (self->review_queue, clock, user_data);
}

GListModel *
lumo_backend_get_sessions (LumoBackend *self)
{
  g_return_val_if_fail (LUMO_IS_BACKEND (self), NULL);
  return G_LIST_MODEL (self->sessions);
}

guint
lumo_backend_get_n_sessions (LumoBackend *self)
{
  g_return_val_if_fail (LUMO_IS_BACKEND (self), 0);
  return g_list_model_get_n_items (G_LIST_MODEL (self->sessions));
}

static LumoBridgeSession *
find_session (LumoBackend *self,
              const char  *provider_id)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->sessions));

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(LumoBridgeSession) session = g_list_model_get_item (G_LIST_MODEL (self->sessions), i);

      if (g_str_equal (lumo_bridge_session_get_provider_id (session), provider_id) &&
          lumo_bridge_session_get_hello_done (session) && !lumo_bridge_session_is_closed (session))
        return session;
    }

  return NULL;
}

/* The session of @provider_id that said hello last: it serves new
 * virtual ports (several browser profiles run one provider each). */
static LumoBridgeSession *
find_newest_session (LumoBackend *self,
                     const char  *provider_id)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->sessions));
  LumoBridgeSession *newest = NULL;

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(LumoBridgeSession) session = g_list_model_get_item (G_LIST_MODEL (self->sessions), i);

      if (g_str_equal (lumo_bridge_session_get_provider_id (session), provider_id) &&
          session->hello_done && !session->closed &&
          (newest == NULL || session->hello_serial > newest->hello_serial))
        newest = session;
    }

  return newest;
}

void
_lumo_backend_session_said_hello (LumoBackend       *self,
                                  LumoBridgeSession *session)
{
  g_return_if_fail (LUMO_IS_BACKEND (self));

  session->hello_serial = ++self->n_hellos;
  g_signal_emit (self, signals[PROVIDER_CONNECTED], 0, session->provider_id);
}

/* After @session left the list: the provider is gone if it was the last
 * of its sessions that said hello. */
static void
note_session_gone (LumoBackend       *self,
                   LumoBridgeSession *session)
{
  if (session->hello_serial != 0 && find_session (self, session->provider_id) == NULL)
    g_signal_emit (self, signals[PROVIDER_DISCONNECTED], 0, session->provider_id);
}

LumoAgentPort *
lumo_backend_open_agent_port (LumoBackend  *self,
                              const char   *provider_id,
                              const char   *caller_id,
                              const char   *caller_name,
                              GError      **error)
{
  LumoBridgeSession *session;

  g_return_val_if_fail (LUMO_IS_BACKEND (self), NULL);
  g_return_val_if_fail (caller_name != NULL, NULL);

  if (!lumo_validate_extension_id (provider_id, "provider ID", error) ||
      !lumo_validate_extension_id (caller_id, "caller ID", error))
    return NULL;

  if (!(session = find_newest_session (self, provider_id)))
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_UNAVAILABLE,
                   "The provider %s is not connected: it has no bridge session that said hello",
                   provider_id);
      return NULL;
    }

  return _lumo_bridge_session_open_agent_port (session, caller_id, caller_name, error);
}

gboolean
lumo_backend_is_provider_connected (LumoBackend *self,
                                    const char  *provider_id)
{
  g_return_val_if_fail (LUMO_IS_BACKEND (self), FALSE);

  return provider_id != NULL && find_session (self, provider_id) != NULL;
}

static gint
compare_ports (gconstpointer a,
               gconstpointer b)
{
  const LumoBridgePort *pa = *(LumoBridgePort * const *) a;
  const LumoBridgePort *pb = *(LumoBridgePort * const *) b;

  return (pa->opened_us > pb->opened_us) - (pa->opened_us < pb->opened_us);
}

GPtrArray *
lumo_backend_list_ports (LumoBackend *self,
                         const char  *provider_id)
{
  GPtrArray *ports = g_ptr_array_new_with_free_func ((GDestroyNotify) lumo_bridge_port_free);
  guint n;

  g_return_val_if_fail (LUMO_IS_BACKEND (self), ports);

  n = g_list_model_get_n_items (G_LIST_MODEL (self->sessions));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(LumoBridgeSession) session = g_list_model_get_item (G_LIST_MODEL (self->sessions), i);
      g_autoptr(GPtrArray) own = NULL;

      if (provider_id != NULL && !g_str_equal (lumo_bridge_session_get_provider_id (session), provider_id))
        continue;
      own = lumo_bridge_session_list_ports (session);
      for (guint j = 0; j < own->len; j++)
        g_ptr_array_add (ports, g_ptr_array_steal_index_fast (own, j--));
    }

  /* g_ptr_array_sort is not stable, but ports of one session were opened
   * in order, and equal times across sessions have no order to keep. */
  g_ptr_array_sort (ports, compare_ports);
  return ports;
}

/* ---- attach --------------------------------------------------------------- */

static void
on_session_port_opened_cb (LumoBridgeSession *session,
                           LumoBridgePort    *port,
                           LumoBackend       *self)
{
  g_signal_emit (self, signals[PORT_OPENED], 0, port);
}

static void
on_session_port_closed_cb (LumoBridgeSession *session,
                           LumoBridgePort    *port,
                           LumoBackend       *self)
{
  g_signal_emit (self, signals[PORT_CLOSED], 0, port);
}

static void
on_session_closed_cb (LumoBridgeSession *session,
                      const char        *reason,
                      gpointer           user_data)
{
  g_autoptr(GTask) task = user_data;
  LumoBackend *self = g_task_get_source_object (task);
  Attach *attach = g_task_get_task_data (task);
  const char *provider_id = lumo_bridge_session_get_provider_id (session);
  guint position;

  g_signal_handlers_disconnect_by_data (session, task);
  g_signal_handlers_disconnect_by_data (session, self);
  if (attach->cancellable != NULL && attach->cancelled_id != 0)
    g_cancellable_disconnect (attach->cancellable, attach->cancelled_id);
  attach->cancelled_id = 0;

  if (self->sessions != NULL && g_list_store_find (self->sessions, session, &position))
    {
      g_list_store_remove (self->sessions, position);

      /* The first comer keeps its names only while it is there. */
      if (find_session (self, provider_id) == NULL)
        {
          lumo_tool_registry_remove_provider (self->registry, provider_id);
          /* Recommendations are what a running provider says now; they
           * are not kept past its last session. */
          if (g_hash_table_remove (self->recommended, provider_id))
            g_signal_emit (self, signals[RECOMMENDED_CHANGED], 0, provider_id);
        }

      g_signal_emit (self, signals[SESSION_REMOVED], 0, session, reason);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_SESSIONS]);
      note_session_gone (self, session);
    }

  g_task_return_pointer (task, g_strdup (reason), g_free);
}

static gboolean
close_cancelled_cb (gpointer user_data)
{
  lumo_bridge_session_close (user_data);
  return G_SOURCE_REMOVE;
}

static void
on_attach_cancelled_cb (GCancellable *cancellable,
                        gpointer      user_data)
{
  /* Not from inside the handler: closing disconnects it. */
  g_idle_add_full (G_PRIORITY_HIGH, close_cancelled_cb, g_object_ref (user_data), g_object_unref);
}

void
lumo_backend_attach_async (LumoBackend         *self,
                           const char          *origin,
                           GInputStream        *input,
                           GOutputStream       *output,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *provider_id = NULL;
  Attach *attach;

  g_return_if_fail (LUMO_IS_BACKEND (self));
  g_return_if_fail (G_IS_INPUT_STREAM (input));
  g_return_if_fail (G_IS_OUTPUT_STREAM (output));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, NULL, callback, user_data);
  g_task_set_source_tag (task, lumo_backend_attach_async);

  if (origin != NULL && g_str_has_prefix (origin, LUMO_EXTENSION_ORIGIN_PREFIX))
    provider_id = lumo_extension_id_from_origin (origin, &error);
  else if (lumo_validate_extension_id (origin, "provider ID", &error))
    provider_id = g_strdup (origin);

  if (provider_id == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  attach = g_new0 (Attach, 1);
  attach->session = _lumo_bridge_session_new (self, provider_id, input, output);
  g_task_set_task_data (task, attach, (GDestroyNotify) attach_free);

  g_signal_connect (attach->session, "closed", G_CALLBACK (on_session_closed_cb), g_object_ref (task));
  g_signal_connect (attach->session, "port-opened", G_CALLBACK (on_session_port_opened_cb), self);
  g_signal_connect (attach->session, "port-closed", G_CALLBACK (on_session_port_closed_cb), self);

  g_list_store_append (self->sessions, attach->session);
  g_signal_emit (self, signals[SESSION_ADDED], 0, attach->session);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_SESSIONS]);

  if (cancellable != NULL)
    {
      attach->cancellable = g_object_ref (cancellable);
      attach->cancelled_id = g_cancellable_connect (cancellable, G_CALLBACK (on_attach_cancelled_cb),
                                                    attach->session, NULL);
    }

  _lumo_bridge_session_start (attach->session);
}

char *
lumo_backend_attach_finish (LumoBackend   *self,
                            GAsyncResult  *result,
                            GError       **error)
{
  g_return_val_if_fail (LUMO_IS_BACKEND (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- probeTarget ---------------------------------------------------------- */

void
lumo_backend_probe_target_async (LumoBackend         *self,
                                 const char          *provider_id,
                                 const char          *target_id,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  LumoBridgeSession *session;

  g_return_if_fail (LUMO_IS_BACKEND (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, lumo_backend_probe_target_async);

  if (!lumo_validate_extension_id (provider_id, "provider ID", &error) ||
      !lumo_validate_extension_id (target_id, "target ID", &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  if (!(session = find_session (self, provider_id)))
    {
      g_task_return_new_error (task, LUMO_ERROR, LUMO_ERROR_UNAVAILABLE,
                               "The provider %s is not connected: it has no bridge session that said hello",
                               provider_id);
      return;
    }

  _lumo_bridge_session_probe_target (session, target_id, task);
}

LumoProbeOutcome *
lumo_backend_probe_target_finish (LumoBackend   *self,
                                  GAsyncResult  *result,
                                  GError       **error)
{
  g_return_val_if_fail (LUMO_IS_BACKEND (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- detached sessions (tests, fuzzer) ------------------------------------ */

LumoBridgeSession *
_lumo_backend_add_detached_session (LumoBackend *self,
                                    const char  *provider_id)
{
  LumoBridgeSession *session;

  g_return_val_if_fail (LUMO_IS_BACKEND (self), NULL);
  g_return_val_if_fail (lumo_is_extension_id (provider_id), NULL);

  session = _lumo_bridge_session_new (self, provider_id, NULL, NULL);
  g_list_store_append (self->sessions, session);
  return session;
}

void
_lumo_backend_remove_detached_session (LumoBackend       *self,
                                       LumoBridgeSession *session)
{
  guint position;

  g_return_if_fail (LUMO_IS_BACKEND (self));

  lumo_bridge_session_close (session);
  if (g_list_store_find (self->sessions, session, &position))
    {
      g_list_store_remove (self->sessions, position);
      note_session_gone (self, session);
    }
  if (find_session (self, lumo_bridge_session_get_provider_id (session)) == NULL)
    lumo_tool_registry_remove_provider (self->registry, lumo_bridge_session_get_provider_id (session));
}

void
lumo_backend_set_recommended_servers (LumoBackend *self,
                                      const char  *provider_id,
                                      GPtrArray   *servers)
{
  g_return_if_fail (LUMO_IS_BACKEND (self));
  g_return_if_fail (provider_id != NULL);

  if (servers == NULL)
    return;

  g_hash_table_replace (self->recommended, g_strdup (provider_id),
                        lumo_recommended_servers_copy (servers));
  g_signal_emit (self, signals[RECOMMENDED_CHANGED], 0, provider_id);
}

GPtrArray *
lumo_backend_dup_recommended_servers (LumoBackend *self,
                                      const char  *provider_id)
{
  GPtrArray *servers;

  g_return_val_if_fail (LUMO_IS_BACKEND (self), NULL);
  g_return_val_if_fail (provider_id != NULL, NULL);

  if ((servers = g_hash_table_lookup (self->recommended, provider_id)) != NULL)
    return lumo_recommended_servers_copy (servers);

  return g_ptr_array_new_with_free_func ((GDestroyNotify) lumo_recommended_server_free);
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

GStrv
lumo_backend_dup_recommending_providers (LumoBackend *self)
{
  g_autoptr(GPtrArray) ids = g_ptr_array_new ();
  g_autoptr(GStrvBuilder) out = g_strv_builder_new ();
  GHashTableIter iter;
  gpointer key, value;

  g_return_val_if_fail (LUMO_IS_BACKEND (self), NULL);

  g_hash_table_iter_init (&iter, self->recommended);
  while (g_hash_table_iter_next (&iter, &key, &value))
    if (((GPtrArray *) value)->len > 0)
      g_ptr_array_add (ids, key);
  g_ptr_array_sort (ids, compare_strings);
  for (guint i = 0; i < ids->len; i++)
    g_strv_builder_add (out, g_ptr_array_index (ids, i));
  return g_strv_builder_end (out);
}
