/* lumo-application.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-application"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "lumo-application.h"
#include "lumo-audit-store.h"
#include "lumo-backend.h"
#include "lumo-browser-setup.h"
#include "lumo-dbus-service.h"
#include "lumo-error.h"
#include "lumo-gateway-http.h"
#include "lumo-managed-policy.h"
#include "lumo-paths.h"
#include "lumo-review-queue.h"
#include "lumo-notifier.h"
#include "lumo-ui-util.h"
#include "lumo-window.h"

/* How long a service-mode app (started by the bus for the helper) lingers
 * after its last session: long enough that a provider whose service worker
 * reconnects at once does not pay for a fresh start. */
#define SERVICE_INACTIVITY_TIMEOUT_MS 5000

struct _LumoApplication
{
  AdwApplication   parent_instance;

  LumoBackend     *backend;
  GError          *startup_error;
  LumoDBusService *dbus_service;

  /* Desktop agents: the gateway and its HTTP endpoint, switched by the
   * desktop-agents keys. */
  LumoGateway     *gateway;
  LumoGatewayHttp *http;
  GSettings       *settings;        /* NULL without the schema: all off */
  gboolean         held_for_http;
};

G_DEFINE_FINAL_TYPE (LumoApplication, lumo_application, ADW_TYPE_APPLICATION)

enum {
  PROP_0,
  PROP_DESKTOP_AGENTS_STATE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static LumoBackend *
get_backend_cb (gpointer   user_data,
                GError   **error)
{
  LumoApplication *self = user_data;

  if (self->backend != NULL)
    return self->backend;

  if (self->startup_error != NULL)
    g_set_error (error, LUMO_ERROR, LUMO_ERROR_UNAVAILABLE,
                 _("Lumo Access could not open its data store: %s"),
                 self->startup_error->message);
  else
    g_set_error_literal (error, LUMO_ERROR, LUMO_ERROR_UNAVAILABLE,
                         _("Lumo Access is still starting"));
  return NULL;
}

static void
on_dbus_service_session_started_cb (LumoDBusService *service,
                                    const char      *provider_id,
                                    LumoApplication *self)
{
  g_application_hold (G_APPLICATION (self));
}

static void
on_dbus_service_session_ended_cb (LumoDBusService *service,
                                  const char      *provider_id,
                                  LumoApplication *self)
{
  g_application_release (G_APPLICATION (self));
}

/* The one place where the main window comes into being. */
static GtkWindow *
lumo_application_create_window (LumoApplication *self)
{
  return GTK_WINDOW (lumo_window_new (GTK_APPLICATION (self), self->backend, self->startup_error));
}

static void
lumo_application_activate (GApplication *app)
{
  LumoApplication *self = LUMO_APPLICATION (app);
  GtkWindow *window;

  if (!(window = gtk_application_get_active_window (GTK_APPLICATION (self))))
    window = lumo_application_create_window (self);

  gtk_window_present (window);
}

/* LUMO_ACCESS_REVIEW_TIMEOUT_S overrides how long a write waits for a
 * reviewer (1 … LUMO_REVIEW_MAX_TIMEOUT_S seconds), so that tests need not
 * wait a minute for a timeout; else the review-timeout-seconds setting.
 * Either is the person's value: the managed policy bounds it. */
static guint
review_timeout_setting (LumoApplication *self)
{
  const char *env = g_getenv ("LUMO_ACCESS_REVIEW_TIMEOUT_S");
  guint64 seconds;

  if (env != NULL && *env != '\0')
    {
      if (g_ascii_string_to_unsigned (env, 10, 1, LUMO_REVIEW_MAX_TIMEOUT_S, &seconds, NULL))
        return (guint) seconds;
      g_warning ("Ignoring LUMO_ACCESS_REVIEW_TIMEOUT_S=%s: not a number of seconds "
                 "from 1 to %d", env, LUMO_REVIEW_MAX_TIMEOUT_S);
    }

  return self->settings != NULL ? g_settings_get_uint (self->settings, "review-timeout-seconds")
                                : LUMO_REVIEW_DEFAULT_TIMEOUT_S;
}

static void
on_retention_applied_cb (GObject      *source_object,
                         GAsyncResult *result,
                         gpointer      user_data)
{
  g_autoptr(GError) error = NULL;
  gint64 n = lumo_managed_settings_apply_retention_finish (LUMO_MANAGED_SETTINGS (source_object), result, &error);

  if (n < 0)
    g_message ("Cannot remove old audit rows: %s", error->message);
  else if (n > 0)
    g_message ("Removed %" G_GINT64_FORMAT " audit row(s) older than the retention", n);
}

/* The review timeout and the audit retention, under the managed policy;
 * retention runs (off the main thread) at start and after every change of
 * either, never on a timer. */
static void
apply_review_and_retention (LumoApplication *self)
{
  LumoManagedSettings *managed = lumo_backend_get_managed_settings (self->backend);

  lumo_managed_settings_set_review_timeout (managed, review_timeout_setting (self));
  lumo_managed_settings_set_audit_retention (managed, self->settings != NULL
                                                      ? g_settings_get_uint (self->settings, "audit-retention-days")
                                                      : 0);
  lumo_managed_settings_apply_retention_async (managed, NULL, on_retention_applied_cb, NULL);
}

static void apply_desktop_agents (LumoApplication *self);
static void update_audit_journal (LumoApplication *self);

static void
on_policy_managed_changed_cb (LumoPolicy      *policy,
                              LumoApplication *self)
{
  apply_review_and_retention (self);
  update_audit_journal (self);
  if (self->gateway != NULL)
    apply_desktop_agents (self);
}

/* The one place that decides whether audit rows also go to the system
 * journal: the audit-journal key, or a managed policy file's auditJournal
 * (which only turns it on: the stricter of the two wins). */
static void
update_audit_journal (LumoApplication *self)
{
  gboolean user = self->settings != NULL && g_settings_get_boolean (self->settings, "audit-journal");
  LumoManagedPolicy *managed = lumo_policy_get_managed (lumo_backend_get_policy (self->backend));

  lumo_audit_store_set_journal (lumo_backend_get_audit_store (self->backend),
                                lumo_managed_policy_apply_audit_journal (managed, user, NULL));
}

static void
on_browser_manifests_refreshed_cb (GObject      *source_object,
                                   GAsyncResult *result,
                                   gpointer      user_data)
{
  g_autoptr(GError) error = NULL;
  guint n = lumo_browser_setup_refresh_stale_finish (result, &error);

  if (n > 0)
    g_message ("Updated %u browser manifest(s) that named another helper or other providers", n);
  /* A build tree has no installed helper to point the manifests at. */
  if (g_error_matches (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND))
    g_debug ("%s", error->message);
  else if (error != NULL)
    g_message ("Could not update every browser manifest:\n%s", error->message);
}

/* Stale manifests (the helper moved, a provider came or went) are rewritten
 * at start-up, never created. Only for the user's own data: an app run on a
 * throwaway data dir (try-it, benchmarks) must not impose its providers on
 * the user's browsers. */
static void
refresh_browser_manifests (LumoApplication *self)
{
  g_autofree char *default_dir = g_build_filename (g_get_user_data_dir (), "lumo-access", NULL);

  if (g_strcmp0 (lumo_paths_get_data_dir (), default_dir) != 0)
    {
      g_debug ("Not refreshing browser manifests: the data dir %s is not the default %s",
               lumo_paths_get_data_dir (), default_dir);
      return;
    }

  lumo_browser_setup_refresh_stale_async (lumo_backend_get_policy (self->backend), NULL, NULL,
                                          on_browser_manifests_refreshed_cb, NULL);
}

/* While the endpoint listens the app stays up, window or not: a
 * service-mode app that quit after its last bridge session would take the
 * endpoint the user turned on away with it. */
static void
hold_for_http (LumoApplication *self,
               gboolean         hold)
{
  if (hold == self->held_for_http)
    return;

  self->held_for_http = hold;
  if (hold)
    g_application_hold (G_APPLICATION (self));
  else
    g_application_release (G_APPLICATION (self));
}

static void
apply_desktop_agents (LumoApplication *self)
{
  g_autoptr(GError) error = NULL;
  /* A managed policy file that forbids desktop agents closes the
   * endpoint too, whatever the person's key says (which is kept). */
  gboolean enabled = self->settings != NULL &&
                     g_settings_get_boolean (self->settings, "desktop-agents") &&
                     !lumo_managed_policy_get_agents_forbidden (
                       lumo_policy_get_managed (lumo_backend_get_policy (self->backend)), NULL, NULL);
  guint port = self->settings != NULL ? g_settings_get_uint (self->settings, "desktop-agents-port") : 0;

  lumo_gateway_set_enabled (self->gateway, enabled);

  if (!enabled)
    lumo_gateway_http_stop (self->http);
  else if (lumo_gateway_http_get_state (self->http) != LUMO_GATEWAY_LISTENER_LISTENING ||
           lumo_gateway_http_get_port (self->http) != port)
    {
      if (!lumo_gateway_http_start (self->http, port, &error))
        g_message ("Desktop agents cannot reach Lumo Access: port %u: %s", port, error->message);
    }

  hold_for_http (self, lumo_gateway_http_get_state (self->http) == LUMO_GATEWAY_LISTENER_LISTENING);
}

static void
on_settings_changed_cb (GSettings       *settings,
                        const char      *key,
                        LumoApplication *self)
{
  if (g_strcmp0 (key, "desktop-agents") == 0 || g_strcmp0 (key, "desktop-agents-port") == 0)
    apply_desktop_agents (self);
  else if (g_strcmp0 (key, "review-timeout-seconds") == 0 || g_strcmp0 (key, "audit-retention-days") == 0)
    apply_review_and_retention (self);
  else if (g_strcmp0 (key, "audit-journal") == 0)
    update_audit_journal (self);
}

static void
on_http_state_notify_cb (LumoGatewayHttp *http,
                         GParamSpec      *pspec,
                         LumoApplication *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DESKTOP_AGENTS_STATE]);
}

static void
start_desktop_agents (LumoApplication *self)
{
  self->gateway = lumo_gateway_new (self->backend);
  self->http = lumo_gateway_http_new (self->gateway);
  lumo_dbus_service_set_gateway (self->dbus_service, self->gateway);
  g_signal_connect_object (self->http, "notify::state",
                           G_CALLBACK (on_http_state_notify_cb), self, 0);
  apply_desktop_agents (self);
}

static gboolean
release_check_if_windowless (gpointer data)
{
  LumoApplication *self = data;

  if (self->backend != NULL && gtk_application_get_windows (GTK_APPLICATION (self)) == NULL)
    lumo_audit_store_release_check (lumo_backend_get_audit_store (self->backend));
  return G_SOURCE_REMOVE;
}

static void
lumo_application_startup (GApplication *app)
{
  LumoApplication *self = LUMO_APPLICATION (app);
  g_autoptr(GError) error = NULL;

  G_APPLICATION_CLASS (lumo_application_parent_class)->startup (app);

  g_application_set_inactivity_timeout (app, SERVICE_INACTIVITY_TIMEOUT_MS);

  /* A damaged store must not take the app down: the window says what is
   * wrong, and every bridge session is told it is unavailable. The audit
   * log's integrity check (seconds of a core and the disk on a big log)
   * waits for the window's first screen, or for the first write, which
   * waits for the check (lumo_audit_store_new_with_flags()). */
  if (!(self->backend = lumo_backend_new_for_data_dir (lumo_paths_get_data_dir (),
                                                       LUMO_AUDIT_STORE_HOLD_CHECK, &error)))
    {
      g_warning ("Cannot open the data store in %s: %s",
                 lumo_paths_get_data_dir (), error->message);
      self->startup_error = g_steal_pointer (&error);
      return;
    }

  /* Without a window (started as a service), nothing will draw a first
   * screen: the check may start at once. activate, which runs right after
   * startup when a window is wanted, makes one first. */
  g_idle_add_full (G_PRIORITY_DEFAULT, release_check_if_windowless, g_object_ref (self), g_object_unref);

  /* A restart must not give any caller fresh write slots. A store that
   * cannot be read here fails every write anyway (audit_failed). */
  if (!lumo_backend_restore_rate_windows (self->backend, &error))
    g_warning ("Cannot rebuild the rate limits from the audit log: %s", error->message);
  g_clear_error (&error);

  self->settings = lumo_ui_lookup_settings ("audit-journal", "desktop-agents", "desktop-agents-port",
                                            "review-timeout-seconds", "audit-retention-days", NULL);
  if (self->settings != NULL)
    g_signal_connect_object (self->settings, "changed",
                             G_CALLBACK (on_settings_changed_cb), self, 0);
  update_audit_journal (self);
  start_desktop_agents (self);
  apply_review_and_retention (self);
  g_signal_connect_object (lumo_backend_get_policy (self->backend), "managed-changed",
                           G_CALLBACK (on_policy_managed_changed_cb), self, 0);
  /* Here, not with the window: a service-mode app has none. */
  lumo_notifier_install (GTK_APPLICATION (self), self->backend);
  refresh_browser_manifests (self);
}

static void
lumo_application_shutdown (GApplication *app)
{
  LumoApplication *self = LUMO_APPLICATION (app);

  /* Before GApplication flushes the bus connection, so the helpers get
   * their answers. */
  lumo_dbus_service_end_all (self->dbus_service, "error: Lumo Access is quitting");
  if (self->http != NULL)
    lumo_gateway_http_stop (self->http);
  hold_for_http (self, FALSE);

  G_APPLICATION_CLASS (lumo_application_parent_class)->shutdown (app);
}

static gboolean
lumo_application_dbus_register (GApplication     *app,
                                GDBusConnection  *connection,
                                const char       *object_path,
                                GError          **error)
{
  LumoApplication *self = LUMO_APPLICATION (app);

  if (!G_APPLICATION_CLASS (lumo_application_parent_class)->dbus_register (app, connection,
                                                                           object_path, error))
    return FALSE;

  /* Exported here, before the name is requested, so that the Attach call
   * that made the bus start us is delivered to an object that exists. */
  return lumo_dbus_service_export (self->dbus_service, connection, object_path, error);
}

static void
lumo_application_dbus_unregister (GApplication    *app,
                                  GDBusConnection *connection,
                                  const char      *object_path)
{
  LumoApplication *self = LUMO_APPLICATION (app);

  /* GApplication unregisters from finalize, after our dispose. */
  if (self->dbus_service != NULL)
    lumo_dbus_service_unexport (self->dbus_service);

  G_APPLICATION_CLASS (lumo_application_parent_class)->dbus_unregister (app, connection,
                                                                        object_path);
}

static void
lumo_application_dispose (GObject *object)
{
  LumoApplication *self = (LumoApplication *)object;

  if (self->dbus_service != NULL)
    g_signal_handlers_disconnect_by_data (self->dbus_service, self);
  g_clear_object (&self->dbus_service);
  g_clear_object (&self->settings);
  g_clear_object (&self->http);
  g_clear_object (&self->gateway);
  g_clear_object (&self->backend);

  G_OBJECT_CLASS (lumo_application_parent_class)->dispose (object);
}

static void
lumo_application_finalize (GObject *object)
{
  LumoApplication *self = (LumoApplication *)object;

  g_clear_error (&self->startup_error);

  G_OBJECT_CLASS (lumo_application_parent_class)->finalize (object);
}

static void
lumo_application_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  LumoApplication *self = LUMO_APPLICATION (object);

  switch (prop_id)
    {
    case PROP_DESKTOP_AGENTS_STATE:
      g_value_set_enum (value, lumo_application_get_desktop_agents_state (self));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
lumo_application_class_init (LumoApplicationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  object_class->dispose = lumo_application_dispose;
  object_class->finalize = lumo_application_finalize;
  object_class->get_property = lumo_application_get_property;

  /**
   * LumoApplication:desktop-agents-state:
   *
   * What the desktop agents' HTTP endpoint does: listening, port in use
   * (another program has the port), failed, or off.
   */
  properties[PROP_DESKTOP_AGENTS_STATE] =
    g_param_spec_enum ("desktop-agents-state", NULL, NULL,
                       LUMO_TYPE_GATEWAY_LISTENER_STATE, LUMO_GATEWAY_LISTENER_OFF,
                       (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  g_object_class_install_properties (object_class, N_PROPS, properties);

  app_class->activate = lumo_application_activate;
  app_class->startup = lumo_application_startup;
  app_class->shutdown = lumo_application_shutdown;
  app_class->dbus_register = lumo_application_dbus_register;
  app_class->dbus_unregister = lumo_application_dbus_unregister;
}

static void
lumo_application_init (LumoApplication *self)
{
  self->dbus_service = lumo_dbus_service_new (get_backend_cb, self);
  g_signal_connect_object (self->dbus_service, "session-started",
                           G_CALLBACK (on_dbus_service_session_started_cb), self, 0);
  g_signal_connect_object (self->dbus_service, "session-ended",
                           G_CALLBACK (on_dbus_service_session_ended_cb), self, 0);
}

LumoApplication *
lumo_application_new (void)
{
  return g_object_new (LUMO_TYPE_APPLICATION,
                       "application-id", APP_ID,
                       "flags", G_APPLICATION_DEFAULT_FLAGS,
                       "resource-base-path", "/dev/lumo/Access",
                       NULL);
}

LumoBackend *
lumo_application_get_backend (LumoApplication *self)
{
  g_return_val_if_fail (LUMO_IS_APPLICATION (self), NULL);

  return self->backend;
}

const GError *
lumo_application_get_startup_error (LumoApplication *self)
{
  g_return_val_if_fail (LUMO_IS_APPLICATION (self), NULL);

  return self->startup_error;
}

LumoGateway *
lumo_application_get_gateway (LumoApplication *self)
{
  g_return_val_if_fail (LUMO_IS_APPLICATION (self), NULL);

  return self->gateway;
}

LumoGatewayListenerState
lumo_application_get_desktop_agents_state (LumoApplication *self)
{
  g_return_val_if_fail (LUMO_IS_APPLICATION (self), LUMO_GATEWAY_LISTENER_OFF);

  return self->http != NULL ? lumo_gateway_http_get_state (self->http) : LUMO_GATEWAY_LISTENER_OFF;
}
