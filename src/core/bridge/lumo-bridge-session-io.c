/* lumo-bridge-session-io.c — a session's frames: reading with back-pressure,
 * answering at once
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One wake-up of the input is one non-blocking read; every frame in it is
 * dispatched in that same main-loop iteration, and the answers that are
 * decided at once go out through the writer's direct write before the loop
 * runs again. While the provider does not read its answers (the writer is
 * congested) the session takes no more frames and reads nothing, so its
 * memory stays bounded; the frames already read wait in the reader's
 * buffer.
 */
#define G_LOG_DOMAIN "lumo-bridge-session"

#include "config.h"

#include "lumo-bridge-session-private.h"
#include "lumo-error.h"

/* How long a session that ends on an oversized frame tries to deliver its
 * last answer: a provider that does not read must not keep it alive. */
#define CLOSE_FLUSH_TIMEOUT_MS 2000

/* ---- writing -------------------------------------------------------------- */

static void
on_writer_congested_cb (LumoFrameWriter   *writer,
                        GParamSpec        *pspec,
                        LumoBridgeSession *self)
{
  _lumo_bridge_session_notify_stalled (self);
  _lumo_bridge_session_watch_input (self);
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
  _lumo_bridge_session_close_with_reason (self, reason);
}

void
_lumo_bridge_session_open_streams (LumoBridgeSession *self,
                                   GInputStream      *input,
                                   GOutputStream     *output)
{
  g_assert (self->reader == NULL && self->writer == NULL);

  self->reader = lumo_frame_reader_new (input);
  self->writer = lumo_frame_writer_new (output);
  g_signal_connect (self->writer, "notify::congested", G_CALLBACK (on_writer_congested_cb), self);
  g_signal_connect (self->writer, "closed", G_CALLBACK (on_writer_closed_cb), self);
}

void
_lumo_bridge_session_send (LumoBridgeSession *self,
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
          _lumo_bridge_session_close_with_reason (self, "error: the provider does not read its answers");
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

          _lumo_bridge_session_send (self, lumo_bridge_build_error (fault));
        }
    }
}

gboolean
_lumo_bridge_session_send_checked (LumoBridgeSession  *self,
                                   JsonObject         *object,
                                   GError            **error)
{
  /* Consumed whatever happens. */
  g_autoptr(JsonObject) owned = NULL;

  owned = object;
  g_assert (LUMO_IS_BRIDGE_SESSION (self));

  if (self->closed)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_UNAVAILABLE,
                   "The session of the provider %s has ended", self->provider_id);
      return FALSE;
    }

  if (self->writer == NULL)
    {
      g_autoptr(GBytes) frame = lumo_frame_encode (object, LUMO_FRAME_MAX_OUT, error);

      if (frame == NULL)
        return FALSE;
      g_queue_push_tail (&self->outgoing, g_steal_pointer (&owned));
      return TRUE;
    }

  /* Not the session's own answers: an agent that sends faster than the
   * provider reads hears so, and the provider's session goes on. */
  if (lumo_frame_writer_get_queued_bytes (self->writer) >= LUMO_FRAME_WRITER_HIGH_WATER)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_LIMIT_EXCEEDED,
                   "The provider %s is not reading: %" G_GSIZE_FORMAT " bytes wait for it already",
                   self->provider_id, lumo_frame_writer_get_queued_bytes (self->writer));
      return FALSE;
    }

  return lumo_frame_writer_send (self->writer, object, error);
}

void
_lumo_bridge_session_send_fault (LumoBridgeSession *self,
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
  _lumo_bridge_session_send (self, lumo_bridge_build_error (fault));
}

JsonObject *
_lumo_bridge_session_pop_outgoing (LumoBridgeSession *self)
{
  g_return_val_if_fail (LUMO_IS_BRIDGE_SESSION (self), NULL);

  return g_queue_pop_head (&self->outgoing);
}

/* ---- reading -------------------------------------------------------------- */

static gboolean
close_later_cb (gpointer user_data)
{
  GTask *task = user_data;

  _lumo_bridge_session_close_with_reason (g_task_get_source_object (task), g_task_get_task_data (task));
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
      _lumo_bridge_session_close_with_reason (self, reason);
      return;
    }

  self->closing = TRUE;
  _lumo_bridge_session_watch_input (self);
  timeout = g_cancellable_new ();
  task = g_task_new (self, NULL, NULL, NULL);
  g_task_set_task_data (task, g_strdup (reason), g_free);
  g_timeout_add_full (G_PRIORITY_DEFAULT, CLOSE_FLUSH_TIMEOUT_MS, on_close_flush_timeout_cb,
                      g_object_ref (timeout), g_object_unref);
  lumo_frame_writer_flush_async (self->writer, timeout, on_close_flushed_cb, task);
}

void
_lumo_bridge_session_frame_error (LumoBridgeSession *self,
                                  const GError      *error,
                                  gboolean           in_sync)
{
  g_autofree char *reason = NULL;

  g_return_if_fail (LUMO_IS_BRIDGE_SESSION (self));
  g_return_if_fail (error != NULL);

  if (in_sync)
    {
      _lumo_bridge_session_send_fault (self, lumo_bridge_fault_new_for_frame_error (error));
      return;
    }

  reason = g_strdup_printf ("error: %s", error->message);
  if (g_error_matches (error, LUMO_ERROR, LUMO_ERROR_FRAME_TOO_LARGE))
    {
      _lumo_bridge_session_send_fault (self, lumo_bridge_fault_new_for_frame_error (error));
      close_after_flush (self, reason);
      return;
    }

  _lumo_bridge_session_close_with_reason (self, reason);
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
          _lumo_bridge_session_dispatch (self, frame);
          continue;

        case LUMO_FRAME_READ_ERROR:
          _lumo_bridge_session_frame_error (self, error, in_sync);
          continue;

        case LUMO_FRAME_READ_END:
          _lumo_bridge_session_close_with_reason (self, "closed");
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
            _lumo_bridge_session_frame_error (self, error, FALSE);
          break;
        }
    }

  self->in_read = FALSE;
  _lumo_bridge_session_watch_input (self);
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
void
_lumo_bridge_session_watch_input (LumoBridgeSession *self)
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
