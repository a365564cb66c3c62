/* lumo-bridge-session.c — one native-messaging connection of a provider
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The lifecycle, the getters and the ports. The frame I/O with
 * back-pressure is in lumo-bridge-session-io.c, what each provider request
 * does in lumo-bridge-session-dispatch.c, the policy push and the app's
 * probeTarget requests in lumo-bridge-session-push.c, the virtual ports of
 * desktop agents in lumo-bridge-session-agents.c.
 */
#define G_LOG_DOMAIN "lumo-bridge-session"

#include "config.h"

#include "lumo-bridge-session-private.h"
#include "lumo-error.h"
#include "lumo-policy.h"

enum {
  PROP_0,
  PROP_PROVIDER_ID,
  PROP_NAMESPACE,
  PROP_SERVICE_NAME,
  PROP_HELLO_DONE,
  PROP_IN_FLIGHT,
  PROP_STALLED,
  N_PROPS
};

enum {
  CLOSED,
  PORT_OPENED,
  PORT_CLOSED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (LumoBridgeSession, lumo_bridge_session, G_TYPE_OBJECT)

/* ---- LumoBridgePort ------------------------------------------------------- */

LumoBridgePort *
lumo_bridge_port_copy (const LumoBridgePort *port)
{
  LumoBridgePort *copy;

  g_return_val_if_fail (port != NULL, NULL);

  copy = g_new0 (LumoBridgePort, 1);
  copy->provider_id = g_strdup (port->provider_id);
  copy->caller_id = g_strdup (port->caller_id);
  copy->port_id = g_strdup (port->port_id);
  copy->opened_us = port->opened_us;
  return copy;
}

void
lumo_bridge_port_free (LumoBridgePort *port)
{
  if (port == NULL)
    return;

  g_free (port->provider_id);
  g_free (port->caller_id);
  g_free (port->port_id);
  g_free (port);
}

G_DEFINE_BOXED_TYPE (LumoBridgePort, lumo_bridge_port, lumo_bridge_port_copy, lumo_bridge_port_free)

/* ---- GObject -------------------------------------------------------------- */

static void
lumo_bridge_session_dispose (GObject *object)
{
  LumoBridgeSession *self = LUMO_BRIDGE_SESSION (object);

  _lumo_bridge_session_close_with_reason (self, "closed");

  G_OBJECT_CLASS (lumo_bridge_session_parent_class)->dispose (object);
}

static void
lumo_bridge_session_finalize (GObject *object)
{
  LumoBridgeSession *self = LUMO_BRIDGE_SESSION (object);

  g_assert (g_hash_table_size (self->in_flight) == 0);
  g_assert (g_hash_table_size (self->probe_targets) == 0);
  g_assert (self->read_source == NULL);

  if (self->writer != NULL)
    g_signal_handlers_disconnect_by_data (self->writer, self);
  g_clear_object (&self->reader);
  g_clear_object (&self->writer);
  g_queue_clear_full (&self->outgoing, (GDestroyNotify) json_object_unref);
  g_clear_object (&self->cancellable);
  g_free (self->provider_id);
  g_free (self->namespace_);
  g_free (self->service_name);
  g_free (self->service_version);
  g_clear_pointer (&self->catalogue, lumo_catalogue_free);
  g_clear_pointer (&self->in_flight, g_hash_table_unref);
  g_queue_clear (&self->allowed_order);
  g_clear_pointer (&self->allowed_audit_ids, g_hash_table_unref);
  g_clear_pointer (&self->ports, g_ptr_array_unref);
  g_clear_pointer (&self->probe_targets, g_hash_table_unref);
  g_clear_pointer (&self->agent_ports, g_hash_table_unref);
  g_clear_pointer (&self->agent_opens, g_hash_table_unref);
  g_clear_pointer (&self->caller_states, g_hash_table_unref);
  g_clear_pointer (&self->revoked, g_ptr_array_unref);

  G_OBJECT_CLASS (lumo_bridge_session_parent_class)->finalize (object);
}

static void
lumo_bridge_session_get_property (GObject    *object,
                                  guint       prop_id,
                                  GValue     *value,
                                  GParamSpec *pspec)
{
  LumoBridgeSession *self = LUMO_BRIDGE_SESSION (object);

  switch (prop_id)
    {
    case PROP_PROVIDER_ID:
      g_value_set_string (value, self->provider_id);
      break;
    case PROP_NAMESPACE:
      g_value_set_string (value, self->namespace_);
      break;
    case PROP_SERVICE_NAME:
      g_value_set_string (value, self->service_name);
      break;
    case PROP_HELLO_DONE:
      g_value_set_boolean (value, self->hello_done);
      break;
    case PROP_IN_FLIGHT:
      g_value_set_uint (value, lumo_bridge_session_get_n_in_flight (self));
      break;
    case PROP_STALLED:
      g_value_set_boolean (value, lumo_bridge_session_get_stalled (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
lumo_bridge_session_class_init (LumoBridgeSessionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = lumo_bridge_session_dispose;
  object_class->finalize = lumo_bridge_session_finalize;
  object_class->get_property = lumo_bridge_session_get_property;

  properties[PROP_PROVIDER_ID] =
    g_param_spec_string ("provider-id", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_NAMESPACE] =
    g_param_spec_string ("namespace", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SERVICE_NAME] =
    g_param_spec_string ("service-name", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_HELLO_DONE] =
    g_param_spec_boolean ("hello-done", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_IN_FLIGHT] =
    g_param_spec_uint ("in-flight", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_STALLED] =
    g_param_spec_boolean ("stalled", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[CLOSED] =
    g_signal_new ("closed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  signals[PORT_OPENED] =
    g_signal_new ("port-opened", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, LUMO_TYPE_BRIDGE_PORT);
  signals[PORT_CLOSED] =
    g_signal_new ("port-closed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, LUMO_TYPE_BRIDGE_PORT);
}

static void
lumo_bridge_session_init (LumoBridgeSession *self)
{
  self->cancellable = g_cancellable_new ();
  self->started = g_get_real_time ();
  self->in_flight = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->allowed_audit_ids = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  self->ports = g_ptr_array_new_with_free_func ((GDestroyNotify) lumo_bridge_port_free);
  self->probe_targets = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  self->agent_ports = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  self->agent_opens = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->caller_states = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->revoked = g_ptr_array_new_with_free_func (g_free);
  g_queue_init (&self->outgoing);
  g_queue_init (&self->allowed_order);
}

void
_lumo_bridge_session_notify_stalled (LumoBridgeSession *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STALLED]);
}

/* ---- lifecycle ------------------------------------------------------------ */

LumoBridgeSession *
_lumo_bridge_session_new (LumoBackend   *backend,
                          const char    *provider_id,
                          GInputStream  *input,
                          GOutputStream *output)
{
  LumoBridgeSession *self;

  g_return_val_if_fail (LUMO_IS_BACKEND (backend), NULL);
  g_return_val_if_fail (lumo_is_extension_id (provider_id), NULL);
  g_return_val_if_fail ((input == NULL) == (output == NULL), NULL);
  /* The session reads on its own schedule (lumo_backend_attach_async()). */
  g_return_val_if_fail (input == NULL ||
                        (G_IS_POLLABLE_INPUT_STREAM (input) &&
                         g_pollable_input_stream_can_poll (G_POLLABLE_INPUT_STREAM (input))), NULL);

  self = g_object_new (LUMO_TYPE_BRIDGE_SESSION, NULL);
  self->backend = backend;
  self->provider_id = g_strdup (provider_id);

  if (input != NULL)
    _lumo_bridge_session_open_streams (self, input, output);

  return self;
}

void
_lumo_bridge_session_start (LumoBridgeSession *self)
{
  g_return_if_fail (LUMO_IS_BRIDGE_SESSION (self));

  _lumo_bridge_session_watch_input (self);
}

void
_lumo_bridge_session_close_with_reason (LumoBridgeSession *self,
                                        const char        *reason)
{
  g_autoptr(GPtrArray) ports = NULL;
  g_autoptr(GList) ids = NULL;

  g_return_if_fail (LUMO_IS_BRIDGE_SESSION (self));

  if (self->closed)
    return;

  g_object_ref (self);
  self->closed = TRUE;
  self->closing = FALSE;

  /* Stops reading and completes this session's reviews as cancelled. */
  _lumo_bridge_session_watch_input (self);
  g_cancellable_cancel (self->cancellable);
  g_clear_handle_id (&self->push_source, g_source_remove);

  ids = g_hash_table_get_keys (self->probe_targets);
  for (GList *l = ids; l != NULL; l = l->next)
    {
      g_autofree char *id = g_strdup (l->data);

      _lumo_bridge_session_probe_target_complete (self, id, NULL,
                                                  g_error_new (LUMO_ERROR, LUMO_ERROR_UNAVAILABLE,
                                                               "The provider's session ended before it answered"));
    }

  ports = g_steal_pointer (&self->ports);
  self->ports = g_ptr_array_new_with_free_func ((GDestroyNotify) lumo_bridge_port_free);
  for (guint i = 0; i < ports->len; i++)
    g_signal_emit (self, signals[PORT_CLOSED], 0, g_ptr_array_index (ports, i));

  /* A desktop agent's session outlives the provider's: its owner answers
   * for it until the provider says hello again. */
  _lumo_bridge_session_end_agent_ports (self, "The browser extension's connection to Lumo Access ended");

  if (self->writer != NULL)
    lumo_frame_writer_close (self->writer);

  g_debug ("Session of %s ended: %s", self->provider_id, reason);
  g_signal_emit (self, signals[CLOSED], 0, reason);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STALLED]);
  g_object_unref (self);
}

void
lumo_bridge_session_close (LumoBridgeSession *self)
{
  _lumo_bridge_session_close_with_reason (self, "closed");
}

/* ---- getters -------------------------------------------------------------- */

const char *
lumo_bridge_session_get_provider_id (LumoBridgeSession *self)
{
  g_return_val_if_fail (LUMO_IS_BRIDGE_SESSION (self), NULL);
  return self->provider_id;
}

const char *
lumo_bridge_session_get_namespace (LumoBridgeSession *self)
{
  g_return_val_if_fail (LUMO_IS_BRIDGE_SESSION (self), NULL);
  return self->namespace_;
}

const char *
lumo_bridge_session_get_service_name (LumoBridgeSession *self)
{
  g_return_val_if_fail (LUMO_IS_BRIDGE_SESSION (self), NULL);
  return self->service_name;
}

const char *
lumo_bridge_session_get_service_version (LumoBridgeSession *self)
{
  g_return_val_if_fail (LUMO_IS_BRIDGE_SESSION (self), NULL);
  return self->service_version;
}

gboolean
lumo_bridge_session_get_hello_done (LumoBridgeSession *self)
{
  g_return_val_if_fail (LUMO_IS_BRIDGE_SESSION (self), FALSE);
  return self->hello_done;
}

gint64
lumo_bridge_session_get_started (LumoBridgeSession *self)
{
  g_return_val_if_fail (LUMO_IS_BRIDGE_SESSION (self), 0);
  return self->started;
}

char **
lumo_bridge_session_list_tools (LumoBridgeSession *self)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  g_return_val_if_fail (LUMO_IS_BRIDGE_SESSION (self), NULL);

  for (guint i = 0; self->catalogue != NULL && i < self->catalogue->tools->len; i++)
    g_strv_builder_add (builder, ((LumoToolInfo *) g_ptr_array_index (self->catalogue->tools, i))->name);

  return g_strv_builder_end (builder);
}

guint
lumo_bridge_session_get_n_in_flight (LumoBridgeSession *self)
{
  g_return_val_if_fail (LUMO_IS_BRIDGE_SESSION (self), 0);
  return g_hash_table_size (self->in_flight);
}

gsize
lumo_bridge_session_get_queued_bytes (LumoBridgeSession *self)
{
  g_return_val_if_fail (LUMO_IS_BRIDGE_SESSION (self), 0);
  return self->writer != NULL ? lumo_frame_writer_get_queued_bytes (self->writer) : 0;
}

gboolean
lumo_bridge_session_get_stalled (LumoBridgeSession *self)
{
  g_return_val_if_fail (LUMO_IS_BRIDGE_SESSION (self), FALSE);
  return self->writer != NULL && !self->closed && lumo_frame_writer_get_congested (self->writer);
}

GPtrArray *
lumo_bridge_session_list_ports (LumoBridgeSession *self)
{
  GPtrArray *ports = g_ptr_array_new_with_free_func ((GDestroyNotify) lumo_bridge_port_free);

  g_return_val_if_fail (LUMO_IS_BRIDGE_SESSION (self), ports);

  for (guint i = 0; i < self->ports->len; i++)
    g_ptr_array_add (ports, lumo_bridge_port_copy (g_ptr_array_index (self->ports, i)));
  return ports;
}

gboolean
lumo_bridge_session_is_closed (LumoBridgeSession *self)
{
  g_return_val_if_fail (LUMO_IS_BRIDGE_SESSION (self), TRUE);
  return self->closed;
}

/* ---- ports ---------------------------------------------------------------- */

void
_lumo_bridge_session_port (LumoBridgeSession *self,
                           const char        *caller_id,
                           const char        *port_id,
                           gboolean           open)
{
  for (guint i = 0; i < self->ports->len; i++)
    {
      LumoBridgePort *port = g_ptr_array_index (self->ports, i);

      if (g_str_equal (port->caller_id, caller_id) && g_str_equal (port->port_id, port_id))
        {
          if (!open)
            {
              g_autoptr(LumoBridgePort) closed = g_ptr_array_steal_index (self->ports, i);

              g_signal_emit (self, signals[PORT_CLOSED], 0, closed);
            }
          return;
        }
    }

  if (open)
    {
      LumoBridgePort *port = g_new0 (LumoBridgePort, 1);

      g_assert (self->ports->len < LUMO_BRIDGE_MAX_PORTS);
      port->provider_id = g_strdup (self->provider_id);
      port->caller_id = g_strdup (caller_id);
      port->port_id = g_strdup (port_id);
      port->opened_us = g_get_real_time ();
      g_ptr_array_add (self->ports, port);
      g_signal_emit (self, signals[PORT_OPENED], 0, port);
    }
}
