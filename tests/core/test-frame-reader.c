/* test-frame-reader.c — the reader's buffer: one read, every frame in it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The non-blocking use the bridge session makes of LumoFrameReader (take,
 * fill, the source), on an O_NONBLOCK descriptor (read directly) and on a
 * blocking one (through GIO's pollable calls).
 */
#include "config.h"

#include <fcntl.h>

#include "frame-test-util.h"

/* Takes the next frame and checks its "n". */
static void
assert_take_object (LumoFrameReader *reader,
                    gint64           n)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) object = NULL;
  gboolean in_sync = FALSE;

  g_assert_cmpint (lumo_frame_reader_take (reader, &object, &in_sync, &error), ==, LUMO_FRAME_READ_OBJECT);
  g_assert_no_error (error);
  g_assert_true (in_sync);
  g_assert_cmpint (json_object_get_int_member (object, "n"), ==, n);
}

static void
assert_take_status (LumoFrameReader     *reader,
                    LumoFrameReadStatus  status)
{
  g_autoptr(GError) error = NULL;
  JsonObject *object = NULL;

  g_assert_cmpint (lumo_frame_reader_take (reader, &object, NULL, &error), ==, status);
  g_assert_no_error (error);
  g_assert_null (object);
}

static void
assert_take_error (LumoFrameReader *reader,
                   int              code,
                   gboolean         in_sync)
{
  g_autoptr(GError) error = NULL;
  JsonObject *object = NULL;
  gboolean sync = !in_sync;

  g_assert_cmpint (lumo_frame_reader_take (reader, &object, &sync, &error), ==, LUMO_FRAME_READ_ERROR);
  g_assert_error (error, LUMO_ERROR, code);
  g_assert_cmpint (sync, ==, in_sync);
  g_assert_null (object);
}

static void
fill (LumoFrameReader *reader)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (lumo_frame_reader_fill_nonblocking (reader, &error));
  g_assert_no_error (error);
}

static void
assert_fill_would_block (LumoFrameReader *reader)
{
  g_autoptr(GError) error = NULL;

  g_assert_false (lumo_frame_reader_fill_nonblocking (reader, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK);
}

/* Several frames that arrive together are all taken from one read, in
 * order, and a bad frame among them is skipped in sync. */
static void
test_several_frames_one_read (void)
{
  g_autoptr(LumoFrameReader) reader = NULL;
  g_autoptr(GByteArray) bytes = frame_bytes ("{\"n\":1}", -1);
  const char *bodies[] = { "{\"n\":2}", "not json", "{\"n\":3}", "[4]", "{\"n\":5}" };
  Pipe p;

  pipe_open (&p);
  reader = lumo_frame_reader_new (p.in);
  g_assert_true (lumo_frame_reader_can_poll (reader));

  for (guint i = 0; i < G_N_ELEMENTS (bodies); i++)
    {
      g_autoptr(GByteArray) frame = frame_bytes (bodies[i], -1);

      g_byte_array_append (bytes, frame->data, frame->len);
    }

  /* Nothing there yet: the fill says so instead of blocking. */
  assert_take_status (reader, LUMO_FRAME_READ_NEED_MORE);
  assert_fill_would_block (reader);

  raw_write (&p, bytes->data, bytes->len);
  fill (reader);
  g_assert_cmpuint (lumo_frame_reader_get_buffered (reader), ==, bytes->len);

  assert_take_object (reader, 1);
  assert_take_object (reader, 2);
  assert_take_error (reader, LUMO_ERROR_FRAME_INVALID_JSON, TRUE);
  assert_take_object (reader, 3);
  assert_take_error (reader, LUMO_ERROR_FRAME_NOT_OBJECT, TRUE);
  assert_take_object (reader, 5);
  assert_take_status (reader, LUMO_FRAME_READ_NEED_MORE);
  g_assert_cmpuint (lumo_frame_reader_get_buffered (reader), ==, 0);
  assert_fill_would_block (reader);

  /* The end between frames is clean, and stays the end. */
  pipe_close_writer (&p);
  fill (reader);
  assert_take_status (reader, LUMO_FRAME_READ_END);
  fill (reader);
  assert_take_status (reader, LUMO_FRAME_READ_END);

  pipe_clear (&p);
}

/* A frame split across reads waits in the buffer for its rest; the frame
 * behind it in the same read is not lost. */
static void
test_split_frame (void)
{
  g_autoptr(LumoFrameReader) reader = NULL;
  g_autoptr(GByteArray) bytes = frame_bytes ("{\"n\":1,\"s\":\"é😀\"}", -1);
  g_autoptr(GByteArray) second = frame_bytes ("{\"n\":2}", -1);
  Pipe p;

  pipe_open (&p);
  reader = lumo_frame_reader_new (p.in);
  g_byte_array_append (bytes, second->data, second->len);

  /* Inside the length, inside the body (inside a UTF-8 sequence), then the
   * rest with the next frame. */
  raw_write (&p, bytes->data, 2);
  fill (reader);
  assert_take_status (reader, LUMO_FRAME_READ_NEED_MORE);
  raw_write (&p, bytes->data + 2, 14);
  fill (reader);
  assert_take_status (reader, LUMO_FRAME_READ_NEED_MORE);
  g_assert_cmpuint (lumo_frame_reader_get_buffered (reader), ==, 16);
  raw_write (&p, bytes->data + 16, bytes->len - 16);
  fill (reader);
  assert_take_object (reader, 1);
  assert_take_object (reader, 2);
  assert_take_status (reader, LUMO_FRAME_READ_NEED_MORE);

  pipe_clear (&p);
}

typedef struct
{
  Pipe       *pipe;
  GByteArray *bytes;
  gsize       pos;
} Feeder;

/* Writes what the pipe takes now. */
static void
feed (Feeder *f)
{
  while (f->pos < f->bytes->len)
    {
      gssize n = write (f->pipe->write_fd, f->bytes->data + f->pos, f->bytes->len - f->pos);

      if (n <= 0)
        break;
      f->pos += n;
    }
}

/* A frame longer than a pipe holds takes several fills, the buffer growing
 * to the frame, and the frame behind it still comes whole. */
static void
test_long_frame (void)
{
  g_autoptr(LumoFrameReader) reader = NULL;
  g_autoptr(GString) body = g_string_new ("{\"n\":1,\"s\":\"");
  g_autoptr(GByteArray) bytes = NULL;
  g_autoptr(GByteArray) second = frame_bytes ("{\"n\":2}", -1);
  g_autoptr(JsonObject) object = NULL;
  g_autoptr(GError) error = NULL;
  Feeder f;
  guint fills = 0;
  Pipe p;

  pipe_open (&p);
  reader = lumo_frame_reader_new (p.in);

  while (body->len < 700 * 1024)
    g_string_append (body, "0123456789abcdef");
  g_string_append (body, "\"}");
  bytes = frame_bytes (body->str, body->len);
  g_byte_array_append (bytes, second->data, second->len);
  f.pipe = &p;
  f.bytes = bytes;
  f.pos = 0;

  for (;;)
    {
      LumoFrameReadStatus status;

      feed (&f);
      fill (reader);
      fills++;
      status = lumo_frame_reader_take (reader, &object, NULL, &error);
      g_assert_no_error (error);
      if (status == LUMO_FRAME_READ_OBJECT)
        break;
      g_assert_cmpint (status, ==, LUMO_FRAME_READ_NEED_MORE);
      g_assert_cmpuint (fills, <, 1000);
    }

  g_assert_cmpuint (fills, >, 1);
  g_assert_cmpuint (strlen (json_object_get_string_member (object, "s")), ==, body->len - 14);
  feed (&f);
  while (lumo_frame_reader_get_buffered (reader) < second->len)
    fill (reader);
  assert_take_object (reader, 2);
  assert_take_status (reader, LUMO_FRAME_READ_NEED_MORE);

  pipe_clear (&p);
}

/* Out of sync: refused at the length, and refused again on the next take,
 * so a caller that does not stop cannot read the body as frames. */
static void
test_take_out_of_sync (void)
{
  Pipe p;

  {
    g_autoptr(LumoFrameReader) reader = NULL;
    g_autoptr(GByteArray) bytes = frame_bytes ("{\"n\":1}", -1);
    guint32 huge = LUMO_FRAME_MAX_IN + 1;

    pipe_open (&p);
    reader = lumo_frame_reader_new (p.in);
    g_byte_array_append (bytes, (const guint8 *) &huge, 4);
    g_byte_array_append (bytes, (const guint8 *) "{\"n\":2}", 7);
    raw_write (&p, bytes->data, bytes->len);
    fill (reader);
    assert_take_object (reader, 1);
    /* A fill before the take that refuses the length allocates nothing
     * for it. */
    assert_fill_would_block (reader);
    g_assert_cmpuint (lumo_frame_reader_get_buffered (reader), ==, 11);
    assert_take_error (reader, LUMO_ERROR_FRAME_TOO_LARGE, FALSE);
    fill (reader);
    assert_take_error (reader, LUMO_ERROR_FRAME_TOO_LARGE, FALSE);
    pipe_clear (&p);
  }

  /* The stream ends inside a frame: truncated, whatever came before it. */
  {
    g_autoptr(LumoFrameReader) reader = NULL;
    g_autoptr(GByteArray) bytes = frame_bytes ("{\"n\":1}", -1);
    guint32 n = 10;

    pipe_open (&p);
    reader = lumo_frame_reader_new (p.in);
    g_byte_array_append (bytes, (const guint8 *) &n, 4);
    g_byte_array_append (bytes, (const guint8 *) "{\"a\"", 4);
    raw_write (&p, bytes->data, bytes->len);
    pipe_close_writer (&p);
    fill (reader);
    assert_take_object (reader, 1);
    assert_take_status (reader, LUMO_FRAME_READ_NEED_MORE);
    fill (reader);
    assert_take_error (reader, LUMO_ERROR_FRAME_TRUNCATED, FALSE);
    assert_take_error (reader, LUMO_ERROR_FRAME_TRUNCATED, FALSE);
    pipe_clear (&p);
  }
}

static gboolean
on_source_cb (GObject  *stream,
              gpointer  user_data)
{
  guint *fired = user_data;

  (*fired)++;
  return G_SOURCE_CONTINUE;
}

static gboolean
has_fired (gpointer fired)
{
  return *(guint *) fired > 0;
}

/* The source fires when a fill can make progress, and not before. */
static void
test_source (void)
{
  g_autoptr(LumoFrameReader) reader = NULL;
  g_autoptr(GSource) source = NULL;
  guint fired = 0;
  Pipe p;

  pipe_open (&p);
  reader = lumo_frame_reader_new (p.in);
  source = lumo_frame_reader_create_source (reader, NULL);
  g_source_set_callback (source, G_SOURCE_FUNC (on_source_cb), &fired, NULL);
  g_source_attach (source, NULL);

  lumo_test_drain ();
  g_assert_cmpuint (fired, ==, 0);

  raw_frame (&p, "{\"n\":1}", -1);
  lumo_test_wait_until (has_fired, &fired, "the source to fire for a frame");
  fill (reader);
  assert_take_object (reader, 1);

  /* The end wakes it too. */
  fired = 0;
  pipe_close_writer (&p);
  lumo_test_wait_until (has_fired, &fired, "the source to fire for the end");
  fill (reader);
  assert_take_status (reader, LUMO_FRAME_READ_END);

  g_source_destroy (source);
  pipe_clear (&p);
}

/* A blocking descriptor goes through GIO's pollable calls: still never a
 * read that waits. */
static void
test_blocking_descriptor (void)
{
  g_autoptr(LumoFrameReader) reader = NULL;
  g_autoptr(GByteArray) bytes = frame_bytes ("{\"n\":1}", -1);
  g_autoptr(GByteArray) second = frame_bytes ("{\"n\":2}", -1);
  Pipe p;

  pipe_open (&p);
  g_assert_true (g_unix_set_fd_nonblocking (p.read_fd, FALSE, NULL));
  reader = lumo_frame_reader_new (p.in);
  g_assert_true (lumo_frame_reader_can_poll (reader));

  assert_fill_would_block (reader);
  g_byte_array_append (bytes, second->data, second->len);
  raw_write (&p, bytes->data, bytes->len);
  fill (reader);
  assert_take_object (reader, 1);
  assert_take_object (reader, 2);
  assert_fill_would_block (reader);

  raw_frame (&p, "{\"n\":3}", -1);
  assert_read_object (reader, "n", 3);
  pipe_close_writer (&p);
  assert_read_eof (reader);

  pipe_clear (&p);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/frame/reader/several-frames-one-read", test_several_frames_one_read);
  g_test_add_func ("/frame/reader/split-frame", test_split_frame);
  g_test_add_func ("/frame/reader/long-frame", test_long_frame);
  g_test_add_func ("/frame/reader/take-out-of-sync", test_take_out_of_sync);
  g_test_add_func ("/frame/reader/source", test_source);
  g_test_add_func ("/frame/reader/blocking-descriptor", test_blocking_descriptor);

  return g_test_run ();
}
