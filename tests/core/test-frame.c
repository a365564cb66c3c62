/* test-frame.c — native-messaging framing over real non-blocking pipes
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <gio/gunixinputstream.h>
#include <gio/gunixoutputstream.h>
#include <glib-unix.h>

#include "lumo-error.h"
#include "lumo-frame.h"

/* ---- helpers ------------------------------------------------------------ */

typedef struct
{
  int            read_fd;
  int            write_fd;
  GInputStream  *in;
  GOutputStream *out;
} Pipe;

static void
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

static void
pipe_close_writer (Pipe *p)
{
  g_assert_true (g_output_stream_close (p->out, NULL, NULL));
}

static void
pipe_clear (Pipe *p)
{
  g_clear_object (&p->in);
  g_clear_object (&p->out);
}

/* Small writes only: the pipe holds 64 KiB, and nothing reads yet. */
static void
raw_write (Pipe          *p,
           gconstpointer  data,
           gsize          len)
{
  g_assert_cmpint (write (p->write_fd, data, len), ==, (gssize) len);
}

static void
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

static void
on_read_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  ReadResult *r = user_data;

  r->object = lumo_frame_reader_read_finish (LUMO_FRAME_READER (source), result,
                                             &r->in_sync, &r->error);
  r->done = TRUE;
}

static void
read_one (LumoFrameReader *reader,
          ReadResult      *r)
{
  memset (r, 0, sizeof *r);
  r->in_sync = 42;
  lumo_frame_reader_read_async (reader, NULL, on_read_cb, r);
  while (!r->done)
    g_main_context_iteration (NULL, TRUE);
}

static void
read_result_clear (ReadResult *r)
{
  g_clear_pointer (&r->object, json_object_unref);
  g_clear_error (&r->error);
}

static void
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

static void
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

static void
assert_read_eof (LumoFrameReader *reader)
{
  ReadResult r;

  read_one (reader, &r);
  g_assert_no_error (r.error);
  g_assert_null (r.object);
  read_result_clear (&r);
}

/* ---- lumo_frame_decode -------------------------------------------------- */

static GByteArray *
frame_bytes (const char *body,
             gssize      len)
{
  GByteArray *a = g_byte_array_new ();
  guint32 n = len < 0 ? strlen (body) : (gsize) len;

  g_byte_array_append (a, (const guint8 *) &n, 4);
  g_byte_array_append (a, (const guint8 *) body, n);
  return a;
}

static void
test_decode (void)
{
  g_autoptr(GByteArray) a = frame_bytes ("{\"type\":\"hello\",\"id\":1}", -1);
  g_autoptr(GError) error = NULL;
  JsonObject *object = NULL;
  gboolean in_sync = FALSE;
  gsize consumed = 99;

  /* Not enough bytes yet, at every split point: no error, nothing taken. */
  for (gsize len = 0; len < a->len; len++)
    {
      g_assert_false (lumo_frame_decode (a->data, len, &consumed, &object, &in_sync, &error));
      g_assert_no_error (error);
      g_assert_cmpuint (consumed, ==, 0);
      g_assert_null (object);
    }

  g_assert_true (lumo_frame_decode (a->data, a->len, &consumed, &object, &in_sync, &error));
  g_assert_no_error (error);
  g_assert_true (in_sync);
  g_assert_cmpuint (consumed, ==, a->len);
  g_assert_cmpstr (json_object_get_string_member (object, "type"), ==, "hello");
  json_object_unref (object);
}

static void
assert_decode_error (const char *body,
                     gssize      len,
                     int         code)
{
  g_autoptr(GByteArray) a = frame_bytes (body, len);
  g_autoptr(GError) error = NULL;
  JsonObject *object = NULL;
  gboolean in_sync = FALSE;
  gsize consumed = 0;

  /* A good frame after the bad one proves the stream is still in sync. */
  g_byte_array_append (a, (const guint8 *) "\x02\x00\x00\x00{}", 6);
  g_assert_false (lumo_frame_decode (a->data, a->len, &consumed, &object, &in_sync, &error));
  g_assert_error (error, LUMO_ERROR, code);
  g_assert_true (in_sync);
  g_assert_cmpuint (consumed, ==, a->len - 6);
  g_assert_null (object);

  g_clear_error (&error);
  g_assert_true (lumo_frame_decode (a->data + consumed, a->len - consumed, &consumed,
                                    &object, &in_sync, &error));
  g_assert_no_error (error);
  json_object_unref (object);
}

static void
test_decode_errors (void)
{
  g_autoptr(GError) error = NULL;
  JsonObject *object = NULL;
  gboolean in_sync = TRUE;
  gsize consumed = 99;
  guint32 huge = 0x80000000u;
  guint32 just_over = LUMO_FRAME_MAX_IN + 1;

  assert_decode_error ("", 0, LUMO_ERROR_FRAME_INVALID_JSON);
  assert_decode_error ("{\"a\":\"\xff\"}", -1, LUMO_ERROR_FRAME_INVALID_UTF8);
  assert_decode_error ("{\"a\":\"\xc3(\"}", -1, LUMO_ERROR_FRAME_INVALID_UTF8);
  assert_decode_error ("{\"a\":1\0}", 7, LUMO_ERROR_FRAME_INVALID_JSON);
  assert_decode_error ("hello", -1, LUMO_ERROR_FRAME_INVALID_JSON);
  assert_decode_error ("{\"a\":1} {}", -1, LUMO_ERROR_FRAME_INVALID_JSON);
  assert_decode_error ("{\"a\":1}x", -1, LUMO_ERROR_FRAME_INVALID_JSON);
  assert_decode_error ("{\"a\":1,\"a\":2}", -1, LUMO_ERROR_FRAME_INVALID_JSON);
  assert_decode_error ("[1,2]", -1, LUMO_ERROR_FRAME_NOT_OBJECT);
  assert_decode_error ("\"str\"", -1, LUMO_ERROR_FRAME_NOT_OBJECT);
  assert_decode_error ("null", -1, LUMO_ERROR_FRAME_NOT_OBJECT);
  assert_decode_error ("12", -1, LUMO_ERROR_FRAME_NOT_OBJECT);

  /* An over-long length is known from the 4 bytes alone, and the stream
   * cannot be trusted after it. */
  g_assert_false (lumo_frame_decode ((const guint8 *) &huge, 4, &consumed, &object, &in_sync, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_FRAME_TOO_LARGE);
  g_assert_false (in_sync);
  g_assert_false (lumo_frame_error_is_in_sync (error));
  g_clear_error (&error);

  in_sync = TRUE;
  g_assert_false (lumo_frame_decode ((const guint8 *) &just_over, 4, &consumed, &object, &in_sync, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_FRAME_TOO_LARGE);
  g_assert_false (in_sync);
}

static void
test_decode_deep (void)
{
  g_autoptr(GString) body = g_string_new ("{\"a\":");
  g_autoptr(GByteArray) a = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *object = NULL;
  gboolean in_sync = FALSE;
  gsize consumed = 0;

  for (guint i = 0; i < 500000; i++)
    g_string_append_c (body, '[');
  a = frame_bytes (body->str, body->len);

  g_assert_false (lumo_frame_decode (a->data, a->len, &consumed, &object, &in_sync, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_FRAME_INVALID_JSON);
  g_assert_true (in_sync);
  g_assert_nonnull (strstr (error->message, "deeper"));
}

static void
test_encode (void)
{
  g_autoptr(JsonObject) object = json_object_new ();
  g_autoptr(GBytes) frame = NULL;
  g_autoptr(GError) error = NULL;
  const guint8 *data;
  guint32 n;
  gsize size;

  json_object_set_string_member (object, "type", "policy");
  json_object_set_double_member (object, "big", 1e21);
  json_object_set_double_member (object, "one", 1.0);
  frame = lumo_frame_encode (object, LUMO_FRAME_MAX_OUT, &error);
  g_assert_no_error (error);

  data = g_bytes_get_data (frame, &size);
  memcpy (&n, data, 4);
  g_assert_cmpuint (n, ==, size - 4);
  /* Valid JSON that Chrome can read, whatever json-glib's generator does. */
  g_assert_cmpmem (data + 4, n, "{\"big\":1e+21,\"one\":1,\"type\":\"policy\"}", 37);
}

/* ---- LumoFrameReader ---------------------------------------------------- */

static void
test_reader_frames_and_eof (void)
{
  g_autoptr(LumoFrameReader) reader = NULL;
  Pipe p;

  pipe_open (&p);
  reader = lumo_frame_reader_new (p.in);
  g_assert_true (lumo_frame_reader_get_stream (reader) == p.in);

  raw_frame (&p, "{\"n\":1}", -1);
  raw_frame (&p, " {\"n\" : 2} ", -1);
  raw_frame (&p, "{\"n\":3,\"x\":[1,{\"y\":null}]}", -1);
  pipe_close_writer (&p);

  assert_read_object (reader, "n", 1);
  assert_read_object (reader, "n", 2);
  assert_read_object (reader, "n", 3);
  /* A clean end between frames: NULL, no error; and it stays at the end. */
  assert_read_eof (reader);
  assert_read_eof (reader);

  pipe_clear (&p);
}

static void
test_reader_in_sync_errors (void)
{
  g_autoptr(LumoFrameReader) reader = NULL;
  Pipe p;

  pipe_open (&p);
  reader = lumo_frame_reader_new (p.in);

  raw_frame (&p, "{\"s\":\"\xfe\"}", -1);
  raw_frame (&p, "{\"n\":1}", -1);
  raw_frame (&p, "not json", -1);
  raw_frame (&p, "{\"n\":2}", -1);
  raw_frame (&p, "{\"n\":1} trailing", -1);
  raw_frame (&p, "[\"n\",3]", -1);
  raw_frame (&p, "", 0);
  raw_frame (&p, "{\"n\":4}", -1);
  pipe_close_writer (&p);

  assert_read_error (reader, LUMO_ERROR_FRAME_INVALID_UTF8, TRUE);
  assert_read_object (reader, "n", 1);
  assert_read_error (reader, LUMO_ERROR_FRAME_INVALID_JSON, TRUE);
  assert_read_object (reader, "n", 2);
  assert_read_error (reader, LUMO_ERROR_FRAME_INVALID_JSON, TRUE);
  assert_read_error (reader, LUMO_ERROR_FRAME_NOT_OBJECT, TRUE);
  assert_read_error (reader, LUMO_ERROR_FRAME_INVALID_JSON, TRUE);
  assert_read_object (reader, "n", 4);
  assert_read_eof (reader);

  pipe_clear (&p);
}

static void
test_reader_too_large (void)
{
  g_autoptr(LumoFrameReader) reader = NULL;
  guint32 huge = 0x80000000u;
  Pipe p;

  pipe_open (&p);
  reader = lumo_frame_reader_new (p.in);

  /* 2 GiB announced: refused at once, without waiting for (or allocating)
   * the body. The writer stays open, so waiting would hang. */
  raw_write (&p, &huge, 4);
  raw_write (&p, "{}", 2);
  assert_read_error (reader, LUMO_ERROR_FRAME_TOO_LARGE, FALSE);

  pipe_clear (&p);
}

static void
test_reader_truncated (void)
{
  Pipe p;

  /* Inside the length. */
  {
    g_autoptr(LumoFrameReader) reader = NULL;

    pipe_open (&p);
    reader = lumo_frame_reader_new (p.in);
    raw_write (&p, "\x10\x00", 2);
    pipe_close_writer (&p);
    assert_read_error (reader, LUMO_ERROR_FRAME_TRUNCATED, FALSE);
    pipe_clear (&p);
  }

  /* Inside the body. */
  {
    g_autoptr(LumoFrameReader) reader = NULL;
    guint32 n = 10;

    pipe_open (&p);
    reader = lumo_frame_reader_new (p.in);
    raw_frame (&p, "{\"n\":1}", -1);
    raw_write (&p, &n, 4);
    raw_write (&p, "{\"a\"", 4);
    pipe_close_writer (&p);
    assert_read_object (reader, "n", 1);
    assert_read_error (reader, LUMO_ERROR_FRAME_TRUNCATED, FALSE);
    pipe_clear (&p);
  }
}

static void
test_reader_pending (void)
{
  g_autoptr(LumoFrameReader) reader = NULL;
  ReadResult first = { 0 }, second = { 0 };
  Pipe p;

  pipe_open (&p);
  reader = lumo_frame_reader_new (p.in);

  lumo_frame_reader_read_async (reader, NULL, on_read_cb, &first);
  lumo_frame_reader_read_async (reader, NULL, on_read_cb, &second);
  while (!second.done)
    g_main_context_iteration (NULL, TRUE);
  g_assert_error (second.error, G_IO_ERROR, G_IO_ERROR_PENDING);

  raw_frame (&p, "{\"n\":7}", -1);
  while (!first.done)
    g_main_context_iteration (NULL, TRUE);
  g_assert_no_error (first.error);
  g_assert_cmpint (json_object_get_int_member (first.object, "n"), ==, 7);

  read_result_clear (&first);
  read_result_clear (&second);
  pipe_clear (&p);
}

typedef struct
{
  Pipe          *pipe;
  GByteArray    *bytes;
  guint          pos;
} Trickle;

static gboolean
trickle_cb (gpointer user_data)
{
  Trickle *t = user_data;

  raw_write (t->pipe, t->bytes->data + t->pos, 1);
  return ++t->pos < t->bytes->len ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
}

static void
test_reader_one_byte_writes (void)
{
  g_autoptr(LumoFrameReader) reader = NULL;
  g_autoptr(GByteArray) bytes = frame_bytes ("{\"n\":1,\"s\":\"é😀\"}", -1);
  g_autoptr(GByteArray) second = frame_bytes ("{\"n\":2}", -1);
  Trickle t;
  ReadResult r;
  Pipe p;

  pipe_open (&p);
  reader = lumo_frame_reader_new (p.in);
  g_byte_array_append (bytes, second->data, second->len);

  t.pipe = &p;
  t.bytes = bytes;
  t.pos = 0;
  g_idle_add (trickle_cb, &t);

  read_one (reader, &r);
  g_assert_no_error (r.error);
  g_assert_cmpstr (json_object_get_string_member (r.object, "s"), ==, "é😀");
  read_result_clear (&r);
  assert_read_object (reader, "n", 2);
  g_assert_cmpuint (t.pos, ==, bytes->len);

  pipe_clear (&p);
}

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

  while (lumo_frame_writer_get_queued_bytes (writer) > 0)
    g_main_context_iteration (NULL, TRUE);

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
  g_assert_cmpuint (lumo_frame_writer_get_queued_bytes (writer), ==, LUMO_FRAME_MAX_OUT + 4);

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
      while (g_main_context_iteration (NULL, FALSE))
        ;
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
  while (!flushed)
    g_main_context_iteration (NULL, TRUE);
  g_assert_false (lumo_frame_writer_get_congested (writer));
  g_assert_cmpuint (n_notifies, ==, 2);
  g_assert_cmpuint (lumo_frame_writer_get_queued_bytes (writer), ==, 0);

  pipe_clear (&p);
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
  while (c.n_closed == 0)
    g_main_context_iteration (NULL, TRUE);

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
  while (!failed)
    g_main_context_iteration (NULL, TRUE);

  /* Let the cancelled write in flight finish. */
  while (g_main_context_iteration (NULL, FALSE))
    ;

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

  g_test_add_func ("/frame/decode", test_decode);
  g_test_add_func ("/frame/decode/errors", test_decode_errors);
  g_test_add_func ("/frame/decode/deep", test_decode_deep);
  g_test_add_func ("/frame/encode", test_encode);
  g_test_add_func ("/frame/reader/frames-and-eof", test_reader_frames_and_eof);
  g_test_add_func ("/frame/reader/in-sync-errors", test_reader_in_sync_errors);
  g_test_add_func ("/frame/reader/too-large", test_reader_too_large);
  g_test_add_func ("/frame/reader/truncated", test_reader_truncated);
  g_test_add_func ("/frame/reader/pending", test_reader_pending);
  g_test_add_func ("/frame/reader/one-byte-writes", test_reader_one_byte_writes);
  g_test_add_func ("/frame/writer/order", test_writer_order);
  g_test_add_func ("/frame/writer/max-out", test_writer_max_out);
  g_test_add_func ("/frame/writer/back-pressure", test_writer_back_pressure);
  g_test_add_func ("/frame/writer/peer-gone", test_writer_peer_gone);
  g_test_add_func ("/frame/writer/close", test_writer_close);

  return g_test_run ();
}
