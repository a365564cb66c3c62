/* lumo-frame-writer.c — the writing side of lumo-frame.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A frame sent while nothing is queued is written at once with one
 * non-blocking write, in the same main-loop iteration as the request it
 * answers; only the part the stream does not take is queued. The queue is
 * drained in order whenever the stream has room again (a pollable source,
 * so one wake-up writes as many queued frames as fit), so frames leave in
 * the order they were sent and a slow peer never blocks the main loop. The
 * queue is bounded in bytes; past the high-water mark the writer reports
 * itself congested so the session stops reading requests (and so stops
 * producing answers) until the peer catches up. A stream that cannot poll
 * is drained by one asynchronous write at a time instead.
 */
#define G_LOG_DOMAIN "lumo-frame"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <gio/gunixoutputstream.h>

#include "lumo-error.h"
#include "lumo-frame.h"

struct _LumoFrameWriter
{
  GObject        parent_instance;

  GOutputStream *stream;
  int            fd;            /* >= 0: written directly (O_NONBLOCK GUnixOutputStream) */
  GCancellable  *cancellable;   /* cancels the asynchronous write in flight on close */
  GSource       *source;        /* waits for room while the queue is not empty */

  GQueue         queue;         /* GBytes, head is being written */
  gsize          head_written;  /* bytes of the head already written */
  gsize          queued_bytes;  /* bytes in the queue not yet written */
  guint64        n_enqueued;    /* frames ever sent */
  guint64        n_written;     /* frames fully written */
  GList         *flushes;       /* GTask, each waiting for a frame count */

  guint          direct : 1;    /* non-blocking writes (a pollable stream) */
  guint          writing : 1;   /* an asynchronous write is in flight */
  guint          closed : 1;
  guint          congested : 1;
};

G_DEFINE_FINAL_TYPE (LumoFrameWriter, lumo_frame_writer, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_STREAM,
  PROP_CONGESTED,
  PROP_QUEUED_BYTES,
  N_PROPS
};

enum {
  CLOSED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static void write_next (LumoFrameWriter *self);

static void
set_queued_bytes (LumoFrameWriter *self,
                  gsize            queued_bytes)
{
  gboolean congested = self->congested;

  self->queued_bytes = queued_bytes;

  /* Two marks, so that a queue hovering at one mark does not make the
   * session flap between reading and not reading. */
  if (!congested && queued_bytes > LUMO_FRAME_WRITER_HIGH_WATER)
    congested = TRUE;
  else if (congested && queued_bytes < LUMO_FRAME_WRITER_LOW_WATER)
    congested = FALSE;

  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_QUEUED_BYTES]);
  if (congested != self->congested)
    {
      self->congested = congested;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CONGESTED]);
    }
}

static void
complete_flushes (LumoFrameWriter *self,
                  const GError    *error)
{
  GList *l = self->flushes;

  while (l != NULL)
    {
      GList *next = l->next;
      GTask *task = l->data;
      guint64 target = *(guint64 *) g_task_get_task_data (task);

      if (error != NULL)
        g_task_return_error (task, g_error_copy (error));
      else if (self->n_written >= target)
        g_task_return_boolean (task, TRUE);
      else
        {
          l = next;
          continue;
        }

      self->flushes = g_list_delete_link (self->flushes, l);
      g_object_unref (task);
      l = next;
    }
}

/* Stops for good: drops the queue, fails waiting flushes, emits ::closed. */
static void
shut_down (LumoFrameWriter *self,
           const GError    *error)
{
  g_autoptr(GError) closed_error = NULL;

  if (self->closed)
    return;

  g_object_ref (self);

  self->closed = TRUE;
  g_cancellable_cancel (self->cancellable);
  if (self->source != NULL)
    {
      g_source_destroy (self->source);
      g_clear_pointer (&self->source, g_source_unref);
    }
  g_queue_clear_full (&self->queue, (GDestroyNotify) g_bytes_unref);
  self->head_written = 0;
  set_queued_bytes (self, 0);

  closed_error = error ? g_error_copy (error)
                       : g_error_new (LUMO_ERROR, LUMO_ERROR_UNAVAILABLE,
                                      "The connection was closed");
  complete_flushes (self, closed_error);

  g_signal_emit (self, signals[CLOSED], 0, error);

  g_object_unref (self);
}

static gssize
write_nonblocking (LumoFrameWriter  *self,
                   const guint8     *data,
                   gsize             size,
                   GError          **error)
{
  gssize n;

  if (self->fd < 0)
    return g_pollable_output_stream_write_nonblocking (G_POLLABLE_OUTPUT_STREAM (self->stream),
                                                       data, size, NULL, error);

  if (g_output_stream_is_closed (self->stream))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CLOSED, "Stream is already closed");
      return -1;
    }

  do
    n = write (self->fd, data, size);
  while (n < 0 && errno == EINTR);

  if (n < 0)
    {
      int errsv = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                   "Error writing to file descriptor: %s", g_strerror (errsv));
    }

  return n;
}

/* Writes from the head of the queue until it is empty or the stream is
 * full. FALSE once the writer shut down on a write error. */
static gboolean
drain (LumoFrameWriter *self)
{
  while (!self->closed && !g_queue_is_empty (&self->queue))
    {
      g_autoptr(GError) error = NULL;
      GBytes *head = g_queue_peek_head (&self->queue);
      gsize size;
      const guint8 *data = g_bytes_get_data (head, &size);
      gssize n;

      n = write_nonblocking (self, data + self->head_written, size - self->head_written, &error);
      if (n < 0)
        {
          if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
            return TRUE;

          /* The peer is gone (EPIPE) or the pipe broke. */
          g_debug ("Cannot write a message: %s", error->message);
          shut_down (self, error);
          return FALSE;
        }

      self->head_written += n;
      if (self->head_written == size)
        {
          g_bytes_unref (g_queue_pop_head (&self->queue));
          self->head_written = 0;
          self->n_written++;
        }

      /* Last: its notifications may send (queued behind) or close. */
      set_queued_bytes (self, self->queued_bytes - n);
    }

  return !self->closed;
}

static gboolean
on_writable_cb (GObject  *stream,
                gpointer  user_data)
{
  g_autoptr(LumoFrameWriter) self = g_object_ref (user_data);

  g_source_set_ready_time (self->source, -1);
  if (drain (self))
    {
      complete_flushes (self, NULL);
      write_next (self);
    }

  return G_SOURCE_CONTINUE;
}

static void
on_write_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(LumoFrameWriter) self = user_data;
  g_autoptr(GError) error = NULL;
  GBytes *head;

  self->writing = FALSE;

  if (!g_output_stream_write_all_finish (G_OUTPUT_STREAM (source), result, NULL, &error))
    {
      /* Cancelled means we closed it ourselves; anything else means the
       * peer is gone (EPIPE) or the pipe broke. */
      if (!self->closed)
        {
          g_debug ("Cannot write a message: %s", error->message);
          shut_down (self, error);
        }
      return;
    }

  if (self->closed)
    return;

  head = g_queue_pop_head (&self->queue);
  g_assert (head != NULL);
  self->n_written++;
  set_queued_bytes (self, self->queued_bytes - g_bytes_get_size (head));
  g_bytes_unref (head);

  complete_flushes (self, NULL);
  write_next (self);
}

/* Waits for room while something is queued, and only then: a source on a
 * writable pipe would fire on every iteration. */
static void
write_next (LumoFrameWriter *self)
{
  GBytes *head;
  gconstpointer data;
  gsize size;

  if (self->closed)
    return;

  if (self->direct)
    {
      if (g_queue_is_empty (&self->queue) && self->source != NULL)
        {
          g_source_destroy (self->source);
          g_clear_pointer (&self->source, g_source_unref);
        }
      else if (!g_queue_is_empty (&self->queue) && self->source == NULL)
        {
          self->source = g_pollable_output_stream_create_source (G_POLLABLE_OUTPUT_STREAM (self->stream), NULL);
          g_source_set_callback (self->source, G_SOURCE_FUNC (on_writable_cb), self, NULL);
          g_source_attach (self->source, g_main_context_get_thread_default ());
        }
      return;
    }

  if (self->writing || g_queue_is_empty (&self->queue))
    return;

  head = g_queue_peek_head (&self->queue);
  data = g_bytes_get_data (head, &size);
  self->writing = TRUE;

  /* The queue keeps @head alive until the write completes. */
  g_output_stream_write_all_async (self->stream, data, size, G_PRIORITY_DEFAULT,
                                   self->cancellable, on_write_cb, g_object_ref (self));
}

static void
lumo_frame_writer_constructed (GObject *object)
{
  LumoFrameWriter *self = (LumoFrameWriter *) object;

  G_OBJECT_CLASS (lumo_frame_writer_parent_class)->constructed (object);

  /* GLib's non-blocking write on a GUnixOutputStream polls the descriptor
   * twice and then writes; on a blocking descriptor that write can block,
   * so such a stream takes the asynchronous path. */
  if (G_IS_UNIX_OUTPUT_STREAM (self->stream))
    {
      int fd = g_unix_output_stream_get_fd (G_UNIX_OUTPUT_STREAM (self->stream));
      int flags = fcntl (fd, F_GETFL);

      if (flags != -1 && (flags & O_NONBLOCK) != 0)
        {
          self->fd = fd;
          self->direct = TRUE;
        }
    }
  else if (G_IS_POLLABLE_OUTPUT_STREAM (self->stream) &&
           g_pollable_output_stream_can_poll (G_POLLABLE_OUTPUT_STREAM (self->stream)))
    self->direct = TRUE;
}

static void
lumo_frame_writer_dispose (GObject *object)
{
  LumoFrameWriter *self = (LumoFrameWriter *) object;

  /* An asynchronous write in flight holds a reference, so nothing is being
   * written now; the source holds none. */
  if (self->source != NULL)
    {
      g_source_destroy (self->source);
      g_clear_pointer (&self->source, g_source_unref);
    }
  g_queue_clear_full (&self->queue, (GDestroyNotify) g_bytes_unref);
  self->head_written = 0;
  if (self->flushes != NULL)
    {
      g_autoptr(GError) error = g_error_new (LUMO_ERROR, LUMO_ERROR_UNAVAILABLE,
                                             "The connection was closed");
      complete_flushes (self, error);
    }
  g_clear_object (&self->stream);
  g_clear_object (&self->cancellable);

  G_OBJECT_CLASS (lumo_frame_writer_parent_class)->dispose (object);
}

static void
lumo_frame_writer_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  LumoFrameWriter *self = LUMO_FRAME_WRITER (object);

  switch (prop_id)
    {
    case PROP_STREAM:
      g_value_set_object (value, self->stream);
      break;

    case PROP_CONGESTED:
      g_value_set_boolean (value, self->congested);
      break;

    case PROP_QUEUED_BYTES:
      g_value_set_uint64 (value, self->queued_bytes);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
lumo_frame_writer_set_property (GObject      *object,
                                guint         prop_id,
                                const GValue *value,
                                GParamSpec   *pspec)
{
  LumoFrameWriter *self = LUMO_FRAME_WRITER (object);

  switch (prop_id)
    {
    case PROP_STREAM:
      self->stream = g_value_dup_object (value);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
lumo_frame_writer_class_init (LumoFrameWriterClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->constructed = lumo_frame_writer_constructed;
  object_class->dispose = lumo_frame_writer_dispose;
  object_class->get_property = lumo_frame_writer_get_property;
  object_class->set_property = lumo_frame_writer_set_property;

  properties[PROP_STREAM] =
    g_param_spec_object ("stream", NULL, NULL,
                         G_TYPE_OUTPUT_STREAM,
                         (G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS));

  properties[PROP_CONGESTED] =
    g_param_spec_boolean ("congested", NULL, NULL,
                          FALSE,
                          (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  properties[PROP_QUEUED_BYTES] =
    g_param_spec_uint64 ("queued-bytes", NULL, NULL,
                         0, G_MAXUINT64, 0,
                         (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * LumoFrameWriter::closed:
   * @error: (nullable): why, or %NULL after lumo_frame_writer_close()
   *
   * Emitted once, when the writer stops for good.
   */
  signals[CLOSED] =
    g_signal_new ("closed",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_ERROR | G_SIGNAL_TYPE_STATIC_SCOPE);
}

static void
lumo_frame_writer_init (LumoFrameWriter *self)
{
  self->fd = -1;
  self->cancellable = g_cancellable_new ();
  g_queue_init (&self->queue);
}

LumoFrameWriter *
lumo_frame_writer_new (GOutputStream *stream)
{
  g_return_val_if_fail (G_IS_OUTPUT_STREAM (stream), NULL);

  return g_object_new (LUMO_TYPE_FRAME_WRITER, "stream", stream, NULL);
}

GOutputStream *
lumo_frame_writer_get_stream (LumoFrameWriter *self)
{
  g_return_val_if_fail (LUMO_IS_FRAME_WRITER (self), NULL);

  return self->stream;
}

gboolean
lumo_frame_writer_send (LumoFrameWriter  *self,
                        JsonObject       *object,
                        GError          **error)
{
  g_autoptr(GBytes) frame = NULL;

  g_return_val_if_fail (LUMO_IS_FRAME_WRITER (self), FALSE);
  g_return_val_if_fail (object != NULL, FALSE);

  if (self->closed)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_UNAVAILABLE,
                   "The connection is closed; the message was not sent");
      return FALSE;
    }

  if (!(frame = lumo_frame_encode (object, LUMO_FRAME_MAX_OUT, error)))
    return FALSE;

  return lumo_frame_writer_send_bytes (self, frame, error);
}

gboolean
lumo_frame_writer_send_bytes (LumoFrameWriter  *self,
                              GBytes           *bytes,
                              GError          **error)
{
  g_autoptr(GBytes) frame = NULL;
  gsize size;

  g_return_val_if_fail (LUMO_IS_FRAME_WRITER (self), FALSE);
  g_return_val_if_fail (bytes != NULL, FALSE);

  if (self->closed)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_UNAVAILABLE,
                   "The connection is closed; the message was not sent");
      return FALSE;
    }

  frame = g_bytes_ref (bytes);
  size = g_bytes_get_size (frame);
  if (self->queued_bytes + size > LUMO_FRAME_WRITER_MAX_QUEUED)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_LIMIT_EXCEEDED,
                   "The other end is not reading: %" G_GSIZE_FORMAT " bytes are waiting "
                   "and a message of %" G_GSIZE_FORMAT " bytes would pass the limit of %d",
                   self->queued_bytes, size, LUMO_FRAME_WRITER_MAX_QUEUED);
      return FALSE;
    }

  self->n_enqueued++;

  if (self->direct && g_queue_is_empty (&self->queue))
    {
      g_autoptr(GError) write_error = NULL;
      gssize n = write_nonblocking (self, g_bytes_get_data (frame, NULL), size, &write_error);

      if (n == (gssize) size)
        {
          self->n_written++;
          return TRUE;
        }

      /* The rest waits for room. A write error is left to the source,
       * which fires at once, writes again and reports it from the main
       * loop: the caller of send is in the middle of its own work. */
      g_queue_push_tail (&self->queue, g_steal_pointer (&frame));
      self->head_written = n > 0 ? (gsize) n : 0;
      set_queued_bytes (self, size - self->head_written);
      write_next (self);
      if (n < 0 && !g_error_matches (write_error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK) &&
          self->source != NULL)
        g_source_set_ready_time (self->source, 0);
      return TRUE;
    }

  g_queue_push_tail (&self->queue, g_steal_pointer (&frame));
  set_queued_bytes (self, self->queued_bytes + size);
  write_next (self);

  return TRUE;
}

gsize
lumo_frame_writer_get_queued_bytes (LumoFrameWriter *self)
{
  g_return_val_if_fail (LUMO_IS_FRAME_WRITER (self), 0);

  return self->queued_bytes;
}

gboolean
lumo_frame_writer_get_congested (LumoFrameWriter *self)
{
  g_return_val_if_fail (LUMO_IS_FRAME_WRITER (self), FALSE);

  return self->congested;
}

gboolean
lumo_frame_writer_is_closed (LumoFrameWriter *self)
{
  g_return_val_if_fail (LUMO_IS_FRAME_WRITER (self), TRUE);

  return self->closed;
}

void
lumo_frame_writer_flush_async (LumoFrameWriter     *self,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (LUMO_IS_FRAME_WRITER (self));
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, lumo_frame_writer_flush_async);

  if (self->closed)
    {
      g_task_return_new_error (task, LUMO_ERROR, LUMO_ERROR_UNAVAILABLE,
                               "The connection is closed");
      return;
    }

  if (self->n_written >= self->n_enqueued)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }

  g_task_set_task_data (task, g_memdup2 (&self->n_enqueued, sizeof self->n_enqueued), g_free);
  self->flushes = g_list_append (self->flushes, g_steal_pointer (&task));
}

gboolean
lumo_frame_writer_flush_finish (LumoFrameWriter  *self,
                                GAsyncResult     *result,
                                GError          **error)
{
  g_return_val_if_fail (LUMO_IS_FRAME_WRITER (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

void
lumo_frame_writer_close (LumoFrameWriter *self)
{
  g_return_if_fail (LUMO_IS_FRAME_WRITER (self));

  shut_down (self, NULL);
}
