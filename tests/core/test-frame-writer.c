/* test-frame-writer.c — the ordered, bounded frame writer: direct writes,
 * the queue behind them, back-pressure
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <errno.h>
#include <signal.h>

#include "frame-test-util.h"

/* ---- LumoFrameWriter ---------------------------------------------------- */

static JsonObject *
numbered (guint n,
          gsize padding)
{
  JsonObject *o = json_object_new ();
  g_autofree char *pad = g_malloc (padding + 1);

  memset (pad, 'x', padding);
  pad[padding] = '\0';
  json_object_set_int_member (o, "n", n);
  json_object_set_string_member (o, "pad", pad);
  return o;
}

static gboolean
writer_is_empty (gpointer writer)
{
  return lumo_frame_writer_get_queued_bytes (writer) == 0;
}

static void
test_writer_order (void)
{
  g_autoptr(LumoFrameWriter) writer = NULL;
  g_autoptr(LumoFrameReader) reader = NULL;
  g_autoptr(GError) error = NULL;
  const guint n = 2000;
  Pipe p;

  pipe_open (&p);
  writer = lumo_frame_writer_new (p.out);
  reader = lumo_frame_reader_new (p.in);

  /* Sizes vary so that frames straddle the pipe's buffer boundaries. */
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(JsonObject) o = numbered (i, (i * 7919) % 3000);

      g_assert_true (lumo_frame_writer_send (writer, o, &error));
      g_assert_no_error (error);
    }
  g_assert_cmpuint (lumo_frame_writer_get_queued_bytes (writer), >, 0);

  for (guint i = 0; i < n; i++)
    assert_read_object (reader, "n", i);

  lumo_test_wait_until (writer_is_empty, writer, "the queue to empty");

  pipe_clear (&p);
}

static void
test_writer_max_out (void)
{
  g_autoptr(LumoFrameWriter) writer = NULL;
  g_autoptr(LumoFrameReader) reader = NULL;
  g_autoptr(JsonObject) exact = json_object_new ();
  g_autoptr(JsonObject) over = json_object_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *s = NULL;
  ReadResult r;
  Pipe p;

  pipe_open (&p);
  writer = lumo_frame_writer_new (p.out);
  reader = lumo_frame_reader_new (p.in);

  /* {"a":"…"} is 8 bytes around the string. */
  s = g_malloc (LUMO_FRAME_MAX_OUT - 8 + 2);
  memset (s, 'y', LUMO_FRAME_MAX_OUT - 8 + 1);
  s[LUMO_FRAME_MAX_OUT - 8 + 1] = '\0';
  json_object_set_string_member (over, "a", s);
  s[LUMO_FRAME_MAX_OUT - 8] = '\0';
  json_object_set_string_member (exact, "a", s);

  g_assert_false (lumo_frame_writer_send (writer, over, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_LIMIT_EXCEEDED);
  g_assert_cmpuint (lumo_frame_writer_get_queued_bytes (writer), ==, 0);
  g_clear_error (&error);

  g_assert_true (lumo_frame_writer_send (writer, exact, &error));
  g_assert_no_error (error);
  /* The pipe takes what it holds at once; the rest waits for the reader. */
  g_assert_cmpuint (lumo_frame_writer_get_queued_bytes (writer), >, 0);
  g_assert_cmpuint (lumo_frame_writer_get_queued_bytes (writer), <, LUMO_FRAME_MAX_OUT + 4);

  read_one (reader, &r);
  g_assert_no_error (r.error);
  g_assert_cmpuint (strlen (json_object_get_string_member (r.object, "a")), ==, LUMO_FRAME_MAX_OUT - 8);
  read_result_clear (&r);

  pipe_clear (&p);
}

static void
on_notify_congested_cb (GObject    *object,
                        GParamSpec *pspec,
                        guint      *n_notifies)
{
  (*n_notifies)++;
}

static void
on_flushed_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  gboolean *flushed = user_data;
  g_autoptr(GError) error = NULL;

  g_assert_true (lumo_frame_writer_flush_finish (LUMO_FRAME_WRITER (source), result, &error));
  g_assert_no_error (error);
  *flushed = TRUE;
}

static void
test_writer_back_pressure (void)
{
  g_autoptr(LumoFrameWriter) writer = NULL;
  g_autoptr(LumoFrameReader) reader = NULL;
  g_autoptr(GError) error = NULL;
  guint n_notifies = 0;
  gboolean flushed = FALSE;
  guint sent = 0;
  Pipe p;

  pipe_open (&p);
  writer = lumo_frame_writer_new (p.out);
  reader = lumo_frame_reader_new (p.in);
  g_signal_connect (writer, "notify::congested", G_CALLBACK (on_notify_congested_cb), &n_notifies);

  /* Nobody reads: the pipe fills, then the queue, then sending is refused. */
  for (;;)
    {
      g_autoptr(JsonObject) o = numbered (sent, 100 * 1000);

      if (!lumo_frame_writer_send (writer, o, &error))
        break;
      sent++;
      lumo_test_drain ();
      if (sent == 1000)
        g_error ("the queue is not bounded");
    }
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_LIMIT_EXCEEDED);
  g_assert_true (lumo_frame_writer_get_congested (writer));
  g_assert_cmpuint (n_notifies, ==, 1);
  g_assert_cmpuint (lumo_frame_writer_get_queued_bytes (writer), <=, LUMO_FRAME_WRITER_MAX_QUEUED);
  g_assert_cmpuint (lumo_frame_writer_get_queued_bytes (writer), >, LUMO_FRAME_WRITER_HIGH_WATER);

  lumo_frame_writer_flush_async (writer, NULL, on_flushed_cb, &flushed);

  /* Reading drains it, in order; congestion clears below the low mark. */
  for (guint i = 0; i < sent; i++)
    {
      assert_read_object (reader, "n", i);
      if (lumo_frame_writer_get_queued_bytes (writer) >= LUMO_FRAME_WRITER_LOW_WATER)
        g_assert_true (lumo_frame_writer_get_congested (writer));
    }
  lumo_test_wait_until (lumo_test_is_true, &flushed, "the writer to flush");
  g_assert_false (lumo_frame_writer_get_congested (writer));
  g_assert_cmpuint (n_notifies, ==, 2);
  g_assert_cmpuint (lumo_frame_writer_get_queued_bytes (writer), ==, 0);

  pipe_clear (&p);
}

/* ---- the direct write and its fallback ----------------------------------- */

/* Fills the pipe with filler bytes until it takes no more; returns how many. */
static gsize
fill_pipe (Pipe *p)
{
  static const guint8 page[4096];
  gsize total = 0;
  gssize n;

  while ((n = write (p->write_fd, page, sizeof page)) > 0)
    total += n;
  while ((n = write (p->write_fd, page, 1)) > 0)
    total += n;
  g_assert_cmpint (errno, ==, EAGAIN);
  return total;
}

static void
read_filler (Pipe  *p,
             gsize  count)
{
  guint8 buf[4096];

  while (count > 0)
    {
      gssize n = read (p->read_fd, buf, MIN (count, sizeof buf));

      g_assert_cmpint (n, >, 0);
      for (gssize i = 0; i < n; i++)
        g_assert_cmpuint (buf[i], ==, 0);
      count -= n;
    }
}

static gsize
frame_size (JsonObject *o)
{
  g_autoptr(GBytes) frame = lumo_frame_encode (o, LUMO_FRAME_MAX_OUT, NULL);

  return g_bytes_get_size (frame);
}

/* Nothing queued: the frame is in the pipe when send returns, before the
 * main loop runs again. */
static void
test_writer_direct (void)
{
  g_autoptr(LumoFrameWriter) writer = NULL;
  g_autoptr(LumoFrameReader) reader = NULL;
  g_autoptr(GError) error = NULL;
  gboolean flushed = FALSE;
  Pipe p;

  pipe_open (&p);
  writer = lumo_frame_writer_new (p.out);
  reader = lumo_frame_reader_new (p.in);

  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(JsonObject) o = numbered (i, 100);

      g_assert_true (lumo_frame_writer_send (writer, o, &error));
      g_assert_no_error (error);
      g_assert_cmpuint (lumo_frame_writer_get_queued_bytes (writer), ==, 0);
    }

  g_assert_true (lumo_frame_reader_fill_nonblocking (reader, &error));
  g_assert_no_error (error);
  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(JsonObject) object = NULL;

      g_assert_cmpint (lumo_frame_reader_take (reader, &object, NULL, &error), ==, LUMO_FRAME_READ_OBJECT);
      g_assert_cmpint (json_object_get_int_member (object, "n"), ==, i);
    }

  lumo_frame_writer_flush_async (writer, NULL, on_flushed_cb, &flushed);
  lumo_test_wait_until (lumo_test_is_true, &flushed, "the writer to flush");

  pipe_clear (&p);
}

/* The pipe takes part of an answer: the rest and the answers sent after it
 * wait, and leave in order once the peer reads. */
static void
test_writer_partial (void)
{
  g_autoptr(LumoFrameWriter) writer = NULL;
  g_autoptr(LumoFrameReader) reader = NULL;
  g_autoptr(JsonObject) big = numbered (0, 20 * 1024);
  g_autoptr(GError) error = NULL;
  gboolean flushed = FALSE;
  gsize filler, queued;
  Pipe p;

  pipe_open (&p);
  writer = lumo_frame_writer_new (p.out);
  reader = lumo_frame_reader_new (p.in);

  /* Two pages free, far less than the frame. */
  filler = fill_pipe (&p);
  read_filler (&p, 8192);
  filler -= 8192;

  g_assert_true (lumo_frame_writer_send (writer, big, &error));
  g_assert_no_error (error);
  queued = lumo_frame_writer_get_queued_bytes (writer);
  g_assert_cmpuint (queued, >, 0);
  g_assert_cmpuint (queued, <, frame_size (big));

  for (guint i = 1; i <= 3; i++)
    {
      g_autoptr(JsonObject) o = numbered (i, 10);

      g_assert_true (lumo_frame_writer_send (writer, o, &error));
      g_assert_no_error (error);
      queued += frame_size (o);
      g_assert_cmpuint (lumo_frame_writer_get_queued_bytes (writer), ==, queued);
    }

  lumo_frame_writer_flush_async (writer, NULL, on_flushed_cb, &flushed);
  lumo_test_drain ();
  g_assert_false (flushed);

  read_filler (&p, filler);
  for (guint i = 0; i <= 3; i++)
    assert_read_object (reader, "n", i);
  lumo_test_wait_until (lumo_test_is_true, &flushed, "the writer to flush");
  g_assert_cmpuint (lumo_frame_writer_get_queued_bytes (writer), ==, 0);

  pipe_clear (&p);
}

/* A full pipe: the first write takes nothing, and the frame goes to the
 * queue whole; a write that would block never blocks. */
static void
test_writer_would_block (void)
{
  g_autoptr(LumoFrameWriter) writer = NULL;
  g_autoptr(LumoFrameReader) reader = NULL;
  g_autoptr(GError) error = NULL;
  gsize filler, queued = 0;
  Pipe p;

  pipe_open (&p);
  writer = lumo_frame_writer_new (p.out);
  reader = lumo_frame_reader_new (p.in);
  filler = fill_pipe (&p);

  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(JsonObject) o = numbered (i, 10);

      g_assert_true (lumo_frame_writer_send (writer, o, &error));
      g_assert_no_error (error);
      queued += frame_size (o);
      g_assert_cmpuint (lumo_frame_writer_get_queued_bytes (writer), ==, queued);
    }
  lumo_test_drain ();
  g_assert_cmpuint (lumo_frame_writer_get_queued_bytes (writer), ==, queued);

  read_filler (&p, filler);
  for (guint i = 0; i < 3; i++)
    assert_read_object (reader, "n", i);
  g_assert_cmpuint (lumo_frame_writer_get_queued_bytes (writer), ==, 0);

  /* Drained: the next frame is written at once again. */
  {
    g_autoptr(JsonObject) o = numbered (3, 10);

    g_assert_true (lumo_frame_writer_send (writer, o, &error));
    g_assert_cmpuint (lumo_frame_writer_get_queued_bytes (writer), ==, 0);
    assert_read_object (reader, "n", 3);
  }

  pipe_clear (&p);
}

/* A stream that is not a descriptor but can poll takes the same path. */
static void
test_writer_pollable_stream (void)
{
  g_autoptr(GOutputStream) memory = g_memory_output_stream_new_resizable ();
  g_autoptr(LumoFrameWriter) writer = lumo_frame_writer_new (memory);
  g_autoptr(JsonObject) o = numbered (7, 10);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) frame = lumo_frame_encode (o, LUMO_FRAME_MAX_OUT, NULL);
  gsize size;
  const guint8 *data = g_bytes_get_data (frame, &size);

  g_assert_true (lumo_frame_writer_send (writer, o, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (lumo_frame_writer_get_queued_bytes (writer), ==, 0);
  g_assert_cmpmem (g_memory_output_stream_get_data (G_MEMORY_OUTPUT_STREAM (memory)),
                   g_memory_output_stream_get_data_size (G_MEMORY_OUTPUT_STREAM (memory)),
                   data, size);
}

typedef struct
{
  guint   n_closed;
  GError *error;
} Closed;

static void
on_closed_cb (LumoFrameWriter *writer,
              const GError    *error,
              Closed          *c)
{
  c->n_closed++;
  g_clear_error (&c->error);
  c->error = error ? g_error_copy (error) : NULL;
}

static gboolean
was_closed (gpointer data)
{
  return ((Closed *) data)->n_closed > 0;
}

static void
test_writer_peer_gone (void)
{
  g_autoptr(LumoFrameWriter) writer = NULL;
  g_autoptr(JsonObject) o = numbered (1, 10);
  g_autoptr(GError) error = NULL;
  Closed c = { 0 };
  Pipe p;

  pipe_open (&p);
  writer = lumo_frame_writer_new (p.out);
  g_signal_connect (writer, "closed", G_CALLBACK (on_closed_cb), &c);

  g_assert_true (g_input_stream_close (p.in, NULL, NULL));
  g_assert_true (lumo_frame_writer_send (writer, o, &error));
  /* Reported from the main loop, never from inside send. */
  g_assert_cmpuint (c.n_closed, ==, 0);
  lumo_test_wait_until (was_closed, &c, "the writer to report the closed pipe");

  g_assert_cmpuint (c.n_closed, ==, 1);
  g_assert_error (c.error, G_IO_ERROR, G_IO_ERROR_BROKEN_PIPE);
  g_assert_true (lumo_frame_writer_is_closed (writer));
  g_assert_cmpuint (lumo_frame_writer_get_queued_bytes (writer), ==, 0);

  g_assert_false (lumo_frame_writer_send (writer, o, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_UNAVAILABLE);

  lumo_frame_writer_close (writer);
  g_assert_cmpuint (c.n_closed, ==, 1);

  g_clear_error (&c.error);
  pipe_clear (&p);
}

static void
on_flush_fails_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  gboolean *failed = user_data;
  g_autoptr(GError) error = NULL;

  g_assert_false (lumo_frame_writer_flush_finish (LUMO_FRAME_WRITER (source), result, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_UNAVAILABLE);
  *failed = TRUE;
}

static void
test_writer_close (void)
{
  g_autoptr(LumoFrameWriter) writer = NULL;
  g_autoptr(GError) error = NULL;
  gboolean failed = FALSE;
  Closed c = { 0 };
  Pipe p;

  pipe_open (&p);
  writer = lumo_frame_writer_new (p.out);
  g_signal_connect (writer, "closed", G_CALLBACK (on_closed_cb), &c);

  /* More than the pipe holds, so something is still queued. */
  for (guint i = 0; i < 10; i++)
    {
      g_autoptr(JsonObject) o = numbered (i, 100 * 1000);
      g_assert_true (lumo_frame_writer_send (writer, o, &error));
    }
  lumo_frame_writer_flush_async (writer, NULL, on_flush_fails_cb, &failed);

  lumo_frame_writer_close (writer);
  g_assert_cmpuint (c.n_closed, ==, 1);
  g_assert_null (c.error);
  g_assert_cmpuint (lumo_frame_writer_get_queued_bytes (writer), ==, 0);
  lumo_test_wait_until (lumo_test_is_true, &failed, "the writer to fail");

  /* Let the cancelled write in flight finish. */
  lumo_test_drain ();

  pipe_clear (&p);
}

int
main (int   argc,
      char *argv[])
{
  /* A write to a pipe whose reader is gone must fail with EPIPE, not kill
   * the process; the app does the same. */
  signal (SIGPIPE, SIG_IGN);

  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/frame/writer/order", test_writer_order);
  g_test_add_func ("/frame/writer/max-out", test_writer_max_out);
  g_test_add_func ("/frame/writer/back-pressure", test_writer_back_pressure);
  g_test_add_func ("/frame/writer/direct", test_writer_direct);
  g_test_add_func ("/frame/writer/partial", test_writer_partial);
  g_test_add_func ("/frame/writer/would-block", test_writer_would_block);
  g_test_add_func ("/frame/writer/pollable-stream", test_writer_pollable_stream);
  g_test_add_func ("/frame/writer/peer-gone", test_writer_peer_gone);
  g_test_add_func ("/frame/writer/close", test_writer_close);

  return g_test_run ();
}
