/* lumo-frame-writer.c — the writing side of lumo-frame.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One asynchronous write at a time drains a FIFO of encoded frames, so
 * frames leave in the order they were sent and a slow peer never blocks the
 * main loop. The queue is bounded in bytes; past the high-water mark the
 * writer reports itself congested so the session stops reading requests
 * (and so stops producing answers) until the peer catches up.
 */
#define G_LOG_DOMAIN "lumo-frame"

#include "config.h"

#include "lumo-error.h"
#include "lumo-frame.h"

struct _LumoFrameWriter
{
  GObject        parent_instance;

  GOutputStream *stream;
  GCancellable  *cancellable;   /* cancels the write in flight on close */

  GQueue         queue;         /* GBytes, head is being written */
  gsize          queued_bytes;  /* all frames in the queue, head included */
  guint64        n_enqueued;    /* frames ever queued */
  guint64        n_written;     /* frames fully written */
  GList         *flushes;       /* GTask, each waiting for a frame count */

  guint          writing : 1;
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
  g_queue_clear_full (&self->queue, (GDestroyNotify) g_bytes_unref);
  set_queued_bytes (self, 0);

  closed_error = error ? g_error_copy (error)
                       : g_error_new (LUMO_ERROR, LUMO_ERROR_UNAVAILABLE,
                                      "The connection was closed");
  complete_flushes (self, closed_error);

  g_signal_emit (self, signals[CLOSED], 0, error);

  g_object_unref (self);
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

static void
write_next (LumoFrameWriter *self)
{
  GBytes *head;
  gconstpointer data;
  gsize size;

  if (self->writing || self->closed || g_queue_is_empty (&self->queue))
    return;

  head = g_queue_peek_head (&self->queue);
  data = g_bytes_get_data (head, &size);
  self->writing = TRUE;

  /* The queue keeps @head alive until the write completes. */
  g_output_stream_write_all_async (self->stream, data, size, G_PRIORITY_DEFAULT,
                                   self->cancellable, on_write_cb, g_object_ref (self));
}

static void
lumo_frame_writer_dispose (GObject *object)
{
  LumoFrameWriter *self = (LumoFrameWriter *) object;

  /* A write in flight holds a reference, so nothing is being written now. */
  g_queue_clear_full (&self->queue, (GDestroyNotify) g_bytes_unref);
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
  gsize size;

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

  size = g_bytes_get_size (frame);
  if (self->queued_bytes + size > LUMO_FRAME_WRITER_MAX_QUEUED)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_LIMIT_EXCEEDED,
                   "The browser is not reading: %" G_GSIZE_FORMAT " bytes are waiting "
                   "and a message of %" G_GSIZE_FORMAT " bytes would pass the limit of %d",
                   self->queued_bytes, size, LUMO_FRAME_WRITER_MAX_QUEUED);
      return FALSE;
    }

  g_queue_push_tail (&self->queue, g_steal_pointer (&frame));
  self->n_enqueued++;
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
