/* frame-test-util.h — pipes and read helpers shared by the framing tests
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <string.h>
#include <unistd.h>

#include <gio/gunixinputstream.h>
#include <gio/gunixoutputstream.h>
#include <glib-unix.h>

#include "lumo-error.h"
#include "lumo-frame.h"
#include "lumo-test.h"

typedef struct
{
  int            read_fd;
  int            write_fd;
  GInputStream  *in;
  GOutputStream *out;
} Pipe;

G_GNUC_UNUSED static void
pipe_open (Pipe *p)
{
  int fds[2];
  g_autoptr(GError) error = NULL;

  g_assert_true (g_unix_open_pipe (fds, FD_CLOEXEC, &error));
  g_assert_no_error (error);
  g_assert_true (g_unix_set_fd_nonblocking (fds[0], TRUE, NULL));
  g_assert_true (g_unix_set_fd_nonblocking (fds[1], TRUE, NULL));
  p->read_fd = fds[0];
  p->write_fd = fds[1];
  p->in = g_unix_input_stream_new (fds[0], TRUE);
  p->out = g_unix_output_stream_new (fds[1], TRUE);
}

G_GNUC_UNUSED static void
pipe_close_writer (Pipe *p)
{
  g_assert_true (g_output_stream_close (p->out, NULL, NULL));
}

G_GNUC_UNUSED static void
pipe_clear (Pipe *p)
{
  g_clear_object (&p->in);
  g_clear_object (&p->out);
}

/* Small writes only: the pipe holds 64 KiB, and nothing reads yet. */
G_GNUC_UNUSED static void
raw_write (Pipe          *p,
           gconstpointer  data,
           gsize          len)
{
  g_assert_cmpint (write (p->write_fd, data, len), ==, (gssize) len);
}

G_GNUC_UNUSED static void
raw_frame (Pipe       *p,
           const char *body,
           gssize      len)
{
  guint32 n = len < 0 ? strlen (body) : (gsize) len;

  raw_write (p, &n, 4);
  if (n > 0)
    raw_write (p, body, n);
}

typedef struct
{
  gboolean    done;
  JsonObject *object;
  gboolean    in_sync;
  GError     *error;
} ReadResult;

G_GNUC_UNUSED static gboolean
on_readable_cb (GObject  *stream,
                gpointer  user_data)
{
  *(gboolean *) user_data = TRUE;
  return G_SOURCE_REMOVE;
}

/* The next frame as the bridge session reads it: take; fill when no whole
 * frame is buffered; wait on the reader's source when the fill would
 * block. r->object is NULL without error at a clean end of the stream; an
 * I/O error leaves the stream out of sync. */
G_GNUC_UNUSED static void
read_one (LumoFrameReader *reader,
          ReadResult      *r)
{
  memset (r, 0, sizeof *r);
  r->in_sync = 42;

  while (lumo_frame_reader_take (reader, &r->object, &r->in_sync, &r->error) == LUMO_FRAME_READ_NEED_MORE)
    {
      g_autoptr(GSource) source = NULL;
      gboolean readable = FALSE;

      if (lumo_frame_reader_fill_nonblocking (reader, &r->error))
        continue;
      if (!g_error_matches (r->error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
        {
          r->in_sync = FALSE;
          break;
        }
      g_clear_error (&r->error);

      source = lumo_frame_reader_create_source (reader, NULL);
      g_source_set_callback (source, G_SOURCE_FUNC (on_readable_cb), &readable, NULL);
      g_source_attach (source, NULL);
      lumo_test_wait_until (lumo_test_is_true, &readable, "the reader's source");
      g_source_destroy (source);
    }

  r->done = TRUE;
}

G_GNUC_UNUSED static void
read_result_clear (ReadResult *r)
{
  g_clear_pointer (&r->object, json_object_unref);
  g_clear_error (&r->error);
}

G_GNUC_UNUSED static void
assert_read_object (LumoFrameReader *reader,
                    const char      *member,
                    gint64           value)
{
  ReadResult r;

  read_one (reader, &r);
  g_assert_no_error (r.error);
  g_assert_nonnull (r.object);
  g_assert_true (r.in_sync);
  g_assert_cmpint (json_object_get_int_member (r.object, member), ==, value);
  read_result_clear (&r);
}

G_GNUC_UNUSED static void
assert_read_error (LumoFrameReader *reader,
                   int              code,
                   gboolean         in_sync)
{
  ReadResult r;

  read_one (reader, &r);
  g_assert_error (r.error, LUMO_ERROR, code);
  g_assert_null (r.object);
  g_assert_cmpint (r.in_sync, ==, in_sync);
  g_assert_cmpint (lumo_frame_error_is_in_sync (r.error), ==, in_sync);
  g_test_message ("%s", r.error->message);
  read_result_clear (&r);
}

G_GNUC_UNUSED static void
assert_read_eof (LumoFrameReader *reader)
{
  ReadResult r;

  read_one (reader, &r);
  g_assert_no_error (r.error);
  g_assert_null (r.object);
  read_result_clear (&r);
}

G_GNUC_UNUSED static GByteArray *
frame_bytes (const char *body,
             gssize      len)
{
  GByteArray *a = g_byte_array_new ();
  guint32 n = len < 0 ? strlen (body) : (gsize) len;

  g_byte_array_append (a, (const guint8 *) &n, 4);
  g_byte_array_append (a, (const guint8 *) body, n);
  return a;
}
