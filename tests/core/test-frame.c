/* test-frame.c — native-messaging framing over real non-blocking pipes
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "frame-test-util.h"

/* ---- lumo_frame_decode -------------------------------------------------- */

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

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/frame/decode", test_decode);
  g_test_add_func ("/frame/decode/errors", test_decode_errors);
  g_test_add_func ("/frame/decode/deep", test_decode_deep);
  g_test_add_func ("/frame/encode", test_encode);
  g_test_add_func ("/frame/reader/frames-and-eof", test_reader_frames_and_eof);
  g_test_add_func ("/frame/reader/in-sync-errors", test_reader_in_sync_errors);
  g_test_add_func ("/frame/reader/too-large", test_reader_too_large);
  g_test_add_func ("/frame/reader/truncated", test_reader_truncated);
  g_test_add_func ("/frame/reader/one-byte-writes", test_reader_one_byte_writes);

  return g_test_run ();
}
