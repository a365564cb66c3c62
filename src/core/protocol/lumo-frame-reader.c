/* lumo-frame-reader.c — the reading side of lumo-frame.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The reader keeps one buffer per stream: a fill is one non-blocking read of
 * whatever the stream holds, and every complete frame in the buffer is
 * decoded from it, so several frames that arrive together cost one read and
 * one main-loop iteration, and a frame split across reads waits in the
 * buffer for its rest.
 *
 * A reader of lines (MCP's stdio framing) shares all of that; only the
 * decoding differs, and a line that passes LUMO_LINE_MAX is dropped as it
 * arrives: the reader forgets what it has of it and skips the rest up to
 * the next "\n", so the buffer never holds more than the bound and a read.
 */
#define G_LOG_DOMAIN "lumo-frame"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <gio/gunixinputstream.h>

#include "lumo-error.h"
#include "lumo-frame.h"

/* What one fill asks for: a pipe holds 64 KiB, so one read can take all of
 * it. A longer frame grows the buffer to its size (at most
 * LUMO_FRAME_MAX_IN + 4), and an empty buffer shrinks back. */
#define READ_CHUNK (64 * 1024)

struct _LumoFrameReader
{
  GObject       parent_instance;

  GInputStream *stream;
  int           fd;        /* >= 0: read directly (O_NONBLOCK GUnixInputStream) */
  gboolean      can_poll;

  guint8       *buf;       /* bytes read, not taken: buf[start .. end) */
  gsize         start;
  gsize         end;
  gsize         alloc;
  GError       *broken;    /* the out-of-sync error, returned again */

  guint         eof : 1;
  guint         lines : 1;       /* lumo_line_decode(), not frames */
  guint         discarding : 1;  /* inside an over-long line: drop to its "\n" */
};

G_DEFINE_FINAL_TYPE (LumoFrameReader, lumo_frame_reader, G_TYPE_OBJECT)

enum {
  READER_PROP_0,
  READER_PROP_STREAM,
  READER_N_PROPS
};

static GParamSpec *reader_properties[READER_N_PROPS];

static void
lumo_frame_reader_constructed (GObject *object)
{
  LumoFrameReader *self = (LumoFrameReader *) object;

  G_OBJECT_CLASS (lumo_frame_reader_parent_class)->constructed (object);

  self->fd = -1;
  self->can_poll = G_IS_POLLABLE_INPUT_STREAM (self->stream) &&
                   g_pollable_input_stream_can_poll (G_POLLABLE_INPUT_STREAM (self->stream));

  /* A blocking descriptor goes through GIO, which polls before it reads. */
  if (G_IS_UNIX_INPUT_STREAM (self->stream))
    {
      int fd = g_unix_input_stream_get_fd (G_UNIX_INPUT_STREAM (self->stream));
      int flags = fcntl (fd, F_GETFL);

      if (flags != -1 && (flags & O_NONBLOCK) != 0)
        self->fd = fd;
    }
}

static void
lumo_frame_reader_dispose (GObject *object)
{
  LumoFrameReader *self = (LumoFrameReader *) object;

  g_clear_object (&self->stream);

  G_OBJECT_CLASS (lumo_frame_reader_parent_class)->dispose (object);
}

static void
lumo_frame_reader_finalize (GObject *object)
{
  LumoFrameReader *self = (LumoFrameReader *) object;

  g_free (self->buf);
  g_clear_error (&self->broken);

  G_OBJECT_CLASS (lumo_frame_reader_parent_class)->finalize (object);
}

static void
lumo_frame_reader_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  LumoFrameReader *self = LUMO_FRAME_READER (object);

  switch (prop_id)
    {
    case READER_PROP_STREAM:
      g_value_set_object (value, self->stream);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
lumo_frame_reader_set_property (GObject      *object,
                                guint         prop_id,
                                const GValue *value,
                                GParamSpec   *pspec)
{
  LumoFrameReader *self = LUMO_FRAME_READER (object);

  switch (prop_id)
    {
    case READER_PROP_STREAM:
      self->stream = g_value_dup_object (value);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
lumo_frame_reader_class_init (LumoFrameReaderClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->constructed = lumo_frame_reader_constructed;
  object_class->dispose = lumo_frame_reader_dispose;
  object_class->finalize = lumo_frame_reader_finalize;
  object_class->get_property = lumo_frame_reader_get_property;
  object_class->set_property = lumo_frame_reader_set_property;

  reader_properties[READER_PROP_STREAM] =
    g_param_spec_object ("stream", NULL, NULL,
                         G_TYPE_INPUT_STREAM,
                         (G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, READER_N_PROPS, reader_properties);
}

static void
lumo_frame_reader_init (LumoFrameReader *self)
{
  self->fd = -1;
}

LumoFrameReader *
lumo_frame_reader_new (GInputStream *stream)
{
  g_return_val_if_fail (G_IS_INPUT_STREAM (stream), NULL);

  return g_object_new (LUMO_TYPE_FRAME_READER, "stream", stream, NULL);
}

LumoFrameReader *
lumo_frame_reader_new_for_lines (GInputStream *stream)
{
  LumoFrameReader *self;

  g_return_val_if_fail (G_IS_INPUT_STREAM (stream), NULL);

  self = g_object_new (LUMO_TYPE_FRAME_READER, "stream", stream, NULL);
  self->lines = TRUE;
  return self;
}

GInputStream *
lumo_frame_reader_get_stream (LumoFrameReader *self)
{
  g_return_val_if_fail (LUMO_IS_FRAME_READER (self), NULL);

  return self->stream;
}

gboolean
lumo_frame_reader_can_poll (LumoFrameReader *self)
{
  g_return_val_if_fail (LUMO_IS_FRAME_READER (self), FALSE);

  return self->can_poll;
}

gsize
lumo_frame_reader_get_buffered (LumoFrameReader *self)
{
  g_return_val_if_fail (LUMO_IS_FRAME_READER (self), 0);

  return self->end - self->start;
}

static LumoFrameReadStatus
take_error (LumoFrameReader  *self,
            GError           *error,
            gboolean         *in_sync,
            GError          **out_error)
{
  gboolean sync = lumo_frame_error_is_in_sync (error);

  if (!sync && self->broken == NULL)
    self->broken = g_error_copy (error);
  if (in_sync != NULL)
    *in_sync = sync;
  g_propagate_error (out_error, error);
  return LUMO_FRAME_READ_ERROR;
}

static LumoFrameReadStatus
reader_take (LumoFrameReader  *self,
             JsonObject      **out,
             gboolean         *in_sync,
             GError          **error)
{
  GError *local_error = NULL;
  gsize have = self->end - self->start;
  gsize consumed = 0;

  *out = NULL;
  if (in_sync != NULL)
    *in_sync = TRUE;

  if (self->broken != NULL)
    return take_error (self, g_error_copy (self->broken), in_sync, error);

  if (lumo_frame_decode (have > 0 ? self->buf + self->start : NULL, have, &consumed, out, NULL, &local_error))
    {
      self->start += consumed;
      return LUMO_FRAME_READ_OBJECT;
    }

  if (local_error != NULL)
    {
      /* In sync: skip the bad frame. Out of sync (too large): the length is
       * refused before its body is waited for or allocated. */
      self->start += consumed;
      return take_error (self, local_error, in_sync, error);
    }

  if (!self->eof)
    return LUMO_FRAME_READ_NEED_MORE;

  if (have == 0)
    return LUMO_FRAME_READ_END;

  if (have < LUMO_FRAME_HEADER_SIZE)
    local_error = g_error_new (LUMO_ERROR, LUMO_ERROR_FRAME_TRUNCATED,
                               "The stream ended inside a message length "
                               "(%" G_GSIZE_FORMAT " of 4 bytes)", have);
  else
    {
      guint32 body_len;

      memcpy (&body_len, self->buf + self->start, sizeof body_len);
      local_error = g_error_new (LUMO_ERROR, LUMO_ERROR_FRAME_TRUNCATED,
                                 "The stream ended inside a message "
                                 "(%" G_GSIZE_FORMAT " of %u bytes)",
                                 have - LUMO_FRAME_HEADER_SIZE, body_len);
    }

  return take_error (self, local_error, in_sync, error);
}

/* The rest of an over-long line goes as it comes, up to its "\n". */
static void
skip_discarded (LumoFrameReader *self)
{
  const guint8 *nl;

  if (!self->discarding || self->end == self->start)
    return;

  nl = memchr (self->buf + self->start, '\n', self->end - self->start);
  if (nl == NULL)
    {
      self->start = self->end;
      return;
    }

  self->start = (gsize) (nl - self->buf) + 1;
  self->discarding = FALSE;
}

static LumoFrameReadStatus
reader_take_line (LumoFrameReader  *self,
                  JsonNode        **out,
                  gboolean         *in_sync,
                  GError          **error)
{
  GError *local_error = NULL;
  gsize consumed = 0;
  gsize have;

  *out = NULL;
  if (in_sync != NULL)
    *in_sync = TRUE;

  if (self->broken != NULL)
    return take_error (self, g_error_copy (self->broken), in_sync, error);

  skip_discarded (self);
  if (self->discarding)
    return self->eof ? LUMO_FRAME_READ_END : LUMO_FRAME_READ_NEED_MORE;

  have = self->end - self->start;
  if (lumo_line_decode (have > 0 ? self->buf + self->start : NULL, have, self->eof,
                        &consumed, out, &local_error))
    {
      self->start += consumed;
      return LUMO_FRAME_READ_OBJECT;
    }

  self->start += consumed;
  if (local_error != NULL)
    {
      if (g_error_matches (local_error, LUMO_ERROR, LUMO_ERROR_FRAME_TOO_LARGE))
        self->discarding = !self->eof;
      g_propagate_error (error, local_error);
      return LUMO_FRAME_READ_ERROR;
    }

  return self->eof && self->start == self->end ? LUMO_FRAME_READ_END : LUMO_FRAME_READ_NEED_MORE;
}

LumoFrameReadStatus
lumo_frame_reader_take (LumoFrameReader  *self,
                        JsonObject      **out,
                        gboolean         *in_sync,
                        GError          **error)
{
  g_return_val_if_fail (LUMO_IS_FRAME_READER (self), LUMO_FRAME_READ_ERROR);
  g_return_val_if_fail (!self->lines, LUMO_FRAME_READ_ERROR);
  g_return_val_if_fail (out != NULL, LUMO_FRAME_READ_ERROR);

  return reader_take (self, out, in_sync, error);
}

LumoFrameReadStatus
lumo_frame_reader_take_node (LumoFrameReader  *self,
                             JsonNode        **out,
                             gboolean         *in_sync,
                             GError          **error)
{
  g_autoptr(JsonObject) object = NULL;
  LumoFrameReadStatus status;

  g_return_val_if_fail (LUMO_IS_FRAME_READER (self), LUMO_FRAME_READ_ERROR);
  g_return_val_if_fail (out != NULL, LUMO_FRAME_READ_ERROR);

  if (self->lines)
    return reader_take_line (self, out, in_sync, error);

  *out = NULL;
  status = reader_take (self, &object, in_sync, error);
  if (object != NULL)
    *out = json_node_init_object (json_node_alloc (), object);
  return status;
}

/* Room for the rest of the frame being read, or for a chunk. */
static void
make_room (LumoFrameReader *self)
{
  gsize have = self->end - self->start;
  gsize want = READ_CHUNK;

  if (have == 0)
    {
      self->start = self->end = 0;
      if (self->alloc > 2 * READ_CHUNK)
        {
          g_clear_pointer (&self->buf, g_free);
          self->alloc = 0;
        }
    }
  else if (!self->lines && have >= LUMO_FRAME_HEADER_SIZE)
    {
      guint32 body_len;

      /* A length over the cap gets no room: take() refuses it. */
      memcpy (&body_len, self->buf + self->start, sizeof body_len);
      if (body_len <= LUMO_FRAME_MAX_IN && LUMO_FRAME_HEADER_SIZE + (gsize) body_len > have)
        want = MAX (want, LUMO_FRAME_HEADER_SIZE + (gsize) body_len - have);
    }

  if (self->alloc - self->end >= want)
    return;

  if (self->start > 0)
    {
      memmove (self->buf, self->buf + self->start, have);
      self->start = 0;
      self->end = have;
    }

  if (self->alloc - self->end < want)
    {
      self->alloc = have + want;
      self->buf = g_realloc (self->buf, self->alloc);
    }
}

static gssize
read_nonblocking (LumoFrameReader  *self,
                  guint8           *buffer,
                  gsize             count,
                  GError          **error)
{
  gssize n;

  if (self->fd < 0)
    return g_pollable_input_stream_read_nonblocking (G_POLLABLE_INPUT_STREAM (self->stream),
                                                     buffer, count, NULL, error);

  if (g_input_stream_is_closed (self->stream))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CLOSED, "Stream is already closed");
      return -1;
    }

  do
    n = read (self->fd, buffer, count);
  while (n < 0 && errno == EINTR);

  if (n < 0)
    {
      int errsv = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                   "Error reading from file descriptor: %s", g_strerror (errsv));
    }

  return n;
}

static void
took_bytes (LumoFrameReader *self,
            gssize           n)
{
  g_assert (n >= 0);

  if (n == 0)
    self->eof = TRUE;
  self->end += n;
}

static gboolean
reader_fill_nonblocking (LumoFrameReader  *self,
                         GError          **error)
{
  gssize n;

  if (self->eof || self->broken != NULL)
    return TRUE;

  make_room (self);
  n = read_nonblocking (self, self->buf + self->end, self->alloc - self->end, error);
  if (n < 0)
    return FALSE;

  took_bytes (self, n);
  return TRUE;
}

gboolean
lumo_frame_reader_fill_nonblocking (LumoFrameReader  *self,
                                    GError          **error)
{
  g_return_val_if_fail (LUMO_IS_FRAME_READER (self), FALSE);
  g_return_val_if_fail (self->can_poll, FALSE);

  return reader_fill_nonblocking (self, error);
}

GSource *
lumo_frame_reader_create_source (LumoFrameReader *self,
                                 GCancellable    *cancellable)
{
  GSource *source;

  g_return_val_if_fail (LUMO_IS_FRAME_READER (self), NULL);
  g_return_val_if_fail (self->can_poll, NULL);

  if (self->fd < 0)
    return g_pollable_input_stream_create_source (G_POLLABLE_INPUT_STREAM (self->stream), cancellable);

  /* The descriptor on the source itself, not on a child source as GIO
   * does it: GLib dispatches a ready child on its own too, taking its
   * descriptor out of the poll set and putting it back around the call,
   * which costs two writes to the context's wake-up descriptor and a
   * spurious wake-up per frame. */
  source = g_pollable_source_new_full (self->stream, NULL, cancellable);
  g_source_add_unix_fd (source, self->fd, G_IO_IN);
  return source;
}
