/* lumo-bridge-session.c — one native-messaging connection of a provider
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The lifecycle, the frame I/O with back-pressure, the policy push and the
 * app's probeTarget requests. What each provider request does is in
 * lumo-bridge-session-dispatch.c.
 */
#define G_LOG_DOMAIN "lumo-bridge-session"

#include "config.h"

#include "lumo-bridge-session-private.h"
#include "lumo-error.h"
#include "lumo-policy.h"

/* How long a session that ends on an oversized frame tries to deliver its
 * last answer: a provider that does not read must not keep it alive. */
#define CLOSE_FLUSH_TIMEOUT_MS 2000

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

static void watch_input (LumoBridgeSession *self);

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

  lumo_bridge_session_close_with_reason (self, "closed");

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
  self->caller_states = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->revoked = g_ptr_array_new_with_free_func (g_free);
  g_queue_init (&self->outgoing);
  g_queue_init (&self->allowed_order);
}

/* ---- writing -------------------------------------------------------------- */

static void
on_writer_congested_cb (LumoFrameWriter   *writer,
                        GParamSpec        *pspec,
                        LumoBridgeSession *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STALLED]);
  watch_input (self);
}

static void
on_writer_closed_cb (LumoFrameWriter   *writer,
                     const GError      *error,
                     LumoBridgeSession *self)
{
  g_autofree char *reason = NULL;

  /* NULL: we closed it ourselves. */
  if (error == NULL)
    return;

  reason = g_strdup_printf ("error: cannot write to the provider: %s", error->message);
  lumo_bridge_session_close_with_reason (self, reason);
}

void
lumo_bridge_session_send (LumoBridgeSession *self,
                          JsonObject        *object)
{
  g_autoptr(JsonObject) owned = object;
  g_autoptr(GError) error = NULL;

  g_assert (LUMO_IS_BRIDGE_SESSION (self));

  if (self->closed)
    return;

  if (self->writer == NULL)
    {
      g_queue_push_tail (&self->outgoing, g_steal_pointer (&owned));
      return;
    }

  if (!lumo_frame_writer_send (self->writer, object, &error))
    {
      if (lumo_frame_writer_is_closed (self->writer))
        return;

      /* Reading stops at the high-water mark, so the queue fills only when
       * the provider has not read for a long time while pushes kept coming:
       * it is gone in all but name. */
      if (lumo_frame_writer_get_queued_bytes (self->writer) >= LUMO_FRAME_WRITER_HIGH_WATER)
        {
          lumo_bridge_session_close_with_reason (self, "error: the provider does not read its answers");
          return;
        }

      /* Every request gets an answer, even when its own is too long. */
      g_warning ("Cannot send a bridge message: %s", error->message);
      if (json_object_has_member (object, "re") &&
          !g_str_equal (json_object_get_string_member_with_default (object, "type", ""), "error"))
        {
          g_autoptr(LumoBridgeFault) fault =
            lumo_bridge_fault_new (LUMO_BRIDGE_ERROR_INTERNAL, json_object_get_member (object, "re"), NULL,
                                   "The answer is too long to send: %s", error->message);

          lumo_bridge_session_send (self, lumo_bridge_build_error (fault));
        }
    }
}

void
lumo_bridge_session_send_fault (LumoBridgeSession *self,
                                LumoBridgeFault   *fault)
{
  g_autoptr(LumoBridgeFault) owned = fault;

  if (!fault->answerable)
    {
      g_debug ("Dropped an answer of %s: %s", self->provider_id, fault->message);
      return;
    }

  g_debug ("Refused a message of %s: %s (%s)", self->provider_id,
           lumo_bridge_error_code_to_string (fault->code), fault->message);
  lumo_bridge_session_send (self, lumo_bridge_build_error (fault));
}

JsonObject *
lumo_bridge_session_pop_outgoing (LumoBridgeSession *self)
{
  g_return_val_if_fail (LUMO_IS_BRIDGE_SESSION (self), NULL);

  return g_queue_pop_head (&self->outgoing);
}

/* ---- reading -------------------------------------------------------------- */

static gboolean
close_later_cb (gpointer user_data)
{
  GTask *task = user_data;

  lumo_bridge_session_close_with_reason (g_task_get_source_object (task), g_task_get_task_data (task));
  return G_SOURCE_REMOVE;
}

static void
on_close_flushed_cb (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  lumo_frame_writer_flush_finish (LUMO_FRAME_WRITER (object), result, NULL);

  /* Not from inside the writer's own completion: closing it completes its
   * other waiters. */
  g_idle_add_full (G_PRIORITY_HIGH, close_later_cb, user_data, g_object_unref);
}

static gboolean
on_close_flush_timeout_cb (gpointer user_data)
{
  g_cancellable_cancel (user_data);
  return G_SOURCE_REMOVE;
}

/* Ends the session once the answers queued so far are written (or after
 * CLOSE_FLUSH_TIMEOUT_MS): the provider learns why it was dropped. */
static void
close_after_flush (LumoBridgeSession *self,
                   const char        *reason)
{
  g_autoptr(GCancellable) timeout = NULL;
  GTask *task;

  if (self->closed || self->closing)
    return;

  if (self->writer == NULL)
    {
      lumo_bridge_session_close_with_reason (self, reason);
      return;
    }

  self->closing = TRUE;
  watch_input (self);
  timeout = g_cancellable_new ();
  task = g_task_new (self, NULL, NULL, NULL);
  g_task_set_task_data (task, g_strdup (reason), g_free);
  g_timeout_add_full (G_PRIORITY_DEFAULT, CLOSE_FLUSH_TIMEOUT_MS, on_close_flush_timeout_cb,
                      g_object_ref (timeout), g_object_unref);
  lumo_frame_writer_flush_async (self->writer, timeout, on_close_flushed_cb, task);
}

void
lumo_bridge_session_frame_error (LumoBridgeSession *self,
                                 const GError      *error,
                                 gboolean           in_sync)
{
  g_autofree char *reason = NULL;

  g_return_if_fail (LUMO_IS_BRIDGE_SESSION (self));
  g_return_if_fail (error != NULL);

  if (in_sync)
    {
      lumo_bridge_session_send_fault (self, lumo_bridge_fault_new_for_frame_error (error));
      return;
    }

  reason = g_strdup_printf ("error: %s", error->message);
  if (g_error_matches (error, LUMO_ERROR, LUMO_ERROR_FRAME_TOO_LARGE))
    {
      lumo_bridge_session_send_fault (self, lumo_bridge_fault_new_for_frame_error (error));
      close_after_flush (self, reason);
      return;
    }

  lumo_bridge_session_close_with_reason (self, reason);
}

/* Takes every frame the reader has buffered, filling the buffer with one
 * non-blocking read when it needs more, and dispatches each in this same
 * main-loop iteration: a request that is decided at once (hello, probe, a
 * read authorize, port) is answered before the loop runs again. It stops
 * while the provider does not read its answers (back-pressure: the rest
 * stays buffered, and no more is read). */
static void
read_frames (LumoBridgeSession *self)
{
  gboolean filled = FALSE;

  /* The watch may recurse (see watch_input()); a nested loop inside a
   * dispatch must not take frames out of order. */
  if (self->in_read)
    return;

  g_object_ref (self);
  self->in_read = TRUE;

  while (!self->closed && !self->closing && !lumo_frame_writer_get_congested (self->writer))
    {
      g_autoptr(JsonObject) frame = NULL;
      g_autoptr(GError) error = NULL;
      gboolean in_sync = TRUE;

      switch (lumo_frame_reader_take (self->reader, &frame, &in_sync, &error))
        {
        case LUMO_FRAME_READ_OBJECT:
          lumo_bridge_session_dispatch (self, frame);
          continue;

        case LUMO_FRAME_READ_ERROR:
          lumo_bridge_session_frame_error (self, error, in_sync);
          continue;

        case LUMO_FRAME_READ_END:
          lumo_bridge_session_close_with_reason (self, "closed");
          continue;

        case LUMO_FRAME_READ_NEED_MORE:
        default:
          break;
        }

      /* One read per wake-up, so a provider that writes without pause
       * cannot hold the main loop here. */
      if (filled)
        break;
      filled = TRUE;
      if (!lumo_frame_reader_fill_nonblocking (self->reader, &error))
        {
          if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
            lumo_bridge_session_frame_error (self, error, FALSE);
          break;
        }
    }

  self->in_read = FALSE;
  watch_input (self);
  g_object_unref (self);
}

static gboolean
on_input_ready_cb (GObject  *stream,
                   gpointer  user_data)
{
  LumoBridgeSession *self = user_data;

  /* Only when it was set: setting it wakes the main context up again. */
  if (self->read_kicked)
    {
      self->read_kicked = FALSE;
      g_source_set_ready_time (self->read_source, -1);
    }
  read_frames (self);
  return G_SOURCE_CONTINUE;
}

/* Watches the input while reading is wanted, and only then. A new watch
 * fires at once, so that frames left in the buffer while the provider did
 * not read are taken before anything new is read. It may recurse: GLib
 * takes the descriptor of a source that cannot out of the poll set for
 * each dispatch and puts it back after, and each of those writes to the
 * context's wake-up descriptor — two syscalls and a spurious wake-up per
 * request. */
static void
watch_input (LumoBridgeSession *self)
{
  gboolean wanted = self->reader != NULL && !self->closed && !self->closing &&
                    !lumo_frame_writer_get_congested (self->writer);

  if (wanted && self->read_source == NULL)
    {
      self->read_source = lumo_frame_reader_create_source (self->reader, NULL);
      g_source_set_callback (self->read_source, G_SOURCE_FUNC (on_input_ready_cb), self, NULL);
      g_source_set_can_recurse (self->read_source, TRUE);
      g_source_set_ready_time (self->read_source, 0);
      self->read_kicked = TRUE;
      g_source_attach (self->read_source, g_main_context_get_thread_default ());
    }
  else if (!wanted && self->read_source != NULL)
    {
      g_source_destroy (self->read_source);
      g_clear_pointer (&self->read_source, g_source_unref);
    }
}

/* ---- lifecycle ------------------------------------------------------------ */

LumoBridgeSession *
lumo_bridge_session_new (LumoBackend   *backend,
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
    {
      self->reader = lumo_frame_reader_new (input);
      self->writer = lumo_frame_writer_new (output);
      g_signal_connect (self->writer, "notify::congested", G_CALLBACK (on_writer_congested_cb), self);
      g_signal_connect (self->writer, "closed", G_CALLBACK (on_writer_closed_cb), self);
    }

  return self;
}

void
lumo_bridge_session_start (LumoBridgeSession *self)
{
  g_return_if_fail (LUMO_IS_BRIDGE_SESSION (self));

  watch_input (self);
}

void
lumo_bridge_session_close_with_reason (LumoBridgeSession *self,
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
  watch_input (self);
  g_cancellable_cancel (self->cancellable);
  g_clear_handle_id (&self->push_source, g_source_remove);

  ids = g_hash_table_get_keys (self->probe_targets);
  for (GList *l = ids; l != NULL; l = l->next)
    {
      g_autofree char *id = g_strdup (l->data);

      lumo_bridge_session_probe_target_complete (self, id, NULL,
                                                 g_error_new (LUMO_ERROR, LUMO_ERROR_UNAVAILABLE,
                                                              "The provider's session ended before it answered"));
    }

  ports = g_steal_pointer (&self->ports);
  self->ports = g_ptr_array_new_with_free_func ((GDestroyNotify) lumo_bridge_port_free);
  for (guint i = 0; i < ports->len; i++)
    g_signal_emit (self, signals[PORT_CLOSED], 0, g_ptr_array_index (ports, i));

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
  lumo_bridge_session_close_with_reason (self, "closed");
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
lumo_bridge_session_port (LumoBridgeSession *self,
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
