/* test-line.c — MCP's stdio framing: one JSON-RPC message per line
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The desktop agents' launcher hands its stdin and stdout to the app,
 * which reads lines with LumoFrameReader and writes them with
 * LumoFrameWriter. What a client can send wrong: a line that never ends,
 * bytes that are not UTF-8, text that is not JSON, JSON that is not a
 * message, blank lines. Each gets a precise error, the stream stays in
 * sync, and nothing is buffered past the bound.
 */
#include "config.h"

#include "frame-test-util.h"

typedef struct
{
  gboolean  ok;
  gsize     consumed;
  JsonNode *node;
  GError   *error;
} Decoded;

static void
decoded_clear (Decoded *d)
{
  g_clear_pointer (&d->node, json_node_unref);
  g_clear_error (&d->error);
}

static void
decode (const char *text,
        gssize      len,
        gboolean    at_end,
        Decoded    *d)
{
  memset (d, 0, sizeof *d);
  d->ok = lumo_line_decode ((const guint8 *) text, len < 0 ? strlen (text) : (gsize) len,
                            at_end, &d->consumed, &d->node, &d->error);
  g_assert_cmpint (d->ok, ==, d->node != NULL);
  if (d->ok)
    g_assert_no_error (d->error);
}

static void
assert_decodes_object (const char *text,
                       gboolean    at_end,
                       gsize       consumed,
                       gint64      n)
{
  Decoded d;

  decode (text, -1, at_end, &d);
  g_assert_no_error (d.error);
  g_assert_true (d.ok);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (d.node));
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (d.node), "n"), ==, n);
  g_assert_cmpuint (d.consumed, ==, consumed);
  decoded_clear (&d);
}

static void
assert_decode_error (const char *text,
                     gssize      len,
                     int         code,
                     gsize       consumed)
{
  Decoded d;

  decode (text, len, FALSE, &d);
  g_assert_false (d.ok);
  g_assert_error (d.error, LUMO_ERROR, code);
  g_assert_cmpuint (d.consumed, ==, consumed);
  g_test_message ("%s", d.error->message);
  decoded_clear (&d);
}

static void
assert_needs_more (const char *text,
                   gboolean    at_end,
                   gsize       consumed)
{
  Decoded d;

  decode (text, -1, at_end, &d);
  g_assert_no_error (d.error);
  g_assert_false (d.ok);
  g_assert_cmpuint (d.consumed, ==, consumed);
}

/* A line is a message; "\r\n" ends one too; blank lines are skipped; the
 * last line of a stream may go without its "\n"; a batch is an array. */
static void
test_decode (void)
{
  Decoded d;

  assert_decodes_object ("{\"n\":1}\n{\"n\":2}\n", FALSE, 8, 1);
  assert_decodes_object ("{\"n\":1}\r\n", FALSE, 9, 1);
  assert_decodes_object ("\n\r\n  \t\n{\"n\":3}\n", FALSE, 15, 3);
  assert_decodes_object ("{\"n\":4}", TRUE, 7, 4);
  assert_decodes_object ("  {\"n\":5}  \n", FALSE, 12, 5);

  decode ("[{\"n\":1},{\"n\":2}]\n", -1, FALSE, &d);
  g_assert_true (d.ok);
  g_assert_true (JSON_NODE_HOLDS_ARRAY (d.node));
  g_assert_cmpuint (json_array_get_length (json_node_get_array (d.node)), ==, 2);
  decoded_clear (&d);

  /* Not a whole line yet: nothing consumed, except blank lines before. */
  assert_needs_more ("", FALSE, 0);
  assert_needs_more ("{\"n\":1", FALSE, 0);
  assert_needs_more ("\n\n{\"n\":1", FALSE, 2);
  assert_needs_more ("\n  ", FALSE, 1);
  /* Only blank lines before the end: all of it goes, no message. */
  assert_needs_more ("\n  ", TRUE, 3);
}

/* Each bad line is refused with its own code and skipped whole: the
 * line after it is read as if nothing happened. */
static void
test_decode_errors (void)
{
  assert_decode_error ("{\"n\":\xff}\n{\"n\":2}\n", -1, LUMO_ERROR_FRAME_INVALID_UTF8, 8);
  assert_decode_error ("{\"n\":\xc3}\n", -1, LUMO_ERROR_FRAME_INVALID_UTF8, 8);
  assert_decode_error ("not json\n{\"n\":2}\n", -1, LUMO_ERROR_FRAME_INVALID_JSON, 9);
  assert_decode_error ("{\"n\":1}{\"n\":2}\n", -1, LUMO_ERROR_FRAME_INVALID_JSON, 15);
  assert_decode_error ("{\"n\":1,}\n", -1, LUMO_ERROR_FRAME_INVALID_JSON, 9);
  assert_decode_error ("{\"n\":\"a\0b\"}\n", 12, LUMO_ERROR_FRAME_INVALID_JSON, 12);
  assert_decode_error ("\"a string\"\n", -1, LUMO_ERROR_FRAME_NOT_OBJECT, 11);
  assert_decode_error ("42\n", -1, LUMO_ERROR_FRAME_NOT_OBJECT, 3);
  assert_decode_error ("null\n", -1, LUMO_ERROR_FRAME_NOT_OBJECT, 5);
}

/* A line of exactly LUMO_LINE_MAX bytes is read; one byte more is refused
 * as soon as the bound is passed, before its "\n" has come, and every
 * byte buffered goes. */
static void
test_decode_bound (void)
{
  g_autoptr(GString) line = g_string_new ("{\"s\":\"");
  Decoded d;

  while (line->len < LUMO_LINE_MAX - 2)
    g_string_append_c (line, 'x');
  g_string_append (line, "\"}");
  g_assert_cmpuint (line->len, ==, LUMO_LINE_MAX);

  g_string_append_c (line, '\n');
  decode (line->str, line->len, FALSE, &d);
  g_assert_true (d.ok);
  g_assert_cmpuint (d.consumed, ==, LUMO_LINE_MAX + 1);
  decoded_clear (&d);

  /* One more byte in the line: refused with no "\n" in sight. */
  g_string_truncate (line, LUMO_LINE_MAX - 2);
  g_string_append (line, "x\"}");
  assert_decode_error (line->str, line->len, LUMO_ERROR_FRAME_TOO_LARGE, LUMO_LINE_MAX + 1);

  /* At the bound, without "\n", it may still end: wait. */
  g_string_truncate (line, LUMO_LINE_MAX);
  decode (line->str, line->len, FALSE, &d);
  g_assert_false (d.ok);
  g_assert_no_error (d.error);
  g_assert_cmpuint (d.consumed, ==, 0);
}

/* One message, one line: canonical JSON (newlines in strings escaped)
 * and "\n"; over the bound refused. */
static void
test_encode (void)
{
  g_autoptr(JsonObject) object = json_object_new ();
  g_autoptr(JsonObject) big = json_object_new ();
  g_autoptr(GBytes) line = NULL;
  g_autoptr(GBytes) refused = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *filler = g_strnfill (LUMO_LINE_MAX, 'x');
  gsize size;
  const char *data;

  json_object_set_string_member (object, "jsonrpc", "2.0");
  json_object_set_string_member (object, "text", "two\nlines\r\n");
  json_object_set_double_member (object, "big", 1e21);
  line = lumo_line_encode (object, &error);
  g_assert_no_error (error);
  data = g_bytes_get_data (line, &size);
  text = g_strndup (data, size);
  g_assert_cmpstr (text, ==, "{\"big\":1e+21,\"jsonrpc\":\"2.0\",\"text\":\"two\\nlines\\r\\n\"}\n");

  json_object_set_string_member (big, "s", filler);
  refused = lumo_line_encode (big, &error);
  g_assert_null (refused);
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_LIMIT_EXCEEDED);
}

static void
assert_take_line (LumoFrameReader *reader,
                  gint64           n)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = NULL;
  gboolean in_sync = FALSE;

  g_assert_cmpint (lumo_frame_reader_take_node (reader, &node, &in_sync, &error), ==,
                   LUMO_FRAME_READ_OBJECT);
  g_assert_no_error (error);
  g_assert_true (in_sync);
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (node), "n"), ==, n);
}

static void
assert_take_line_error (LumoFrameReader *reader,
                        int              code)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = NULL;
  gboolean in_sync = FALSE;

  g_assert_cmpint (lumo_frame_reader_take_node (reader, &node, &in_sync, &error), ==,
                   LUMO_FRAME_READ_ERROR);
  g_assert_error (error, LUMO_ERROR, code);
  g_assert_true (in_sync);
  g_assert_null (node);
}

static void
assert_take_line_status (LumoFrameReader     *reader,
                         LumoFrameReadStatus  status)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = NULL;

  g_assert_cmpint (lumo_frame_reader_take_node (reader, &node, NULL, &error), ==, status);
  g_assert_no_error (error);
  g_assert_null (node);
}

static gboolean
fill_some (LumoFrameReader *reader)
{
  g_autoptr(GError) error = NULL;

  if (lumo_frame_reader_fill_nonblocking (reader, &error))
    return TRUE;
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK);
  return FALSE;
}

/* Bad lines among good ones through the reader: every one is answered
 * once, in order, and the stream stays in sync; the end is clean. */
static void
test_reader_bad_lines (void)
{
  g_autoptr(LumoFrameReader) reader = NULL;
  const char *input =
    "{\"n\":1}\n"
    "\n"
    "not json\n"
    "{\"n\":\xfe}\n"
    "[1,2]\n"
    "17\n"
    "{\"n\":2}\r\n"
    "{\"n\":3}";
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) batch = NULL;
  Pipe p;

  pipe_open (&p);
  reader = lumo_frame_reader_new_for_lines (p.in);
  raw_write (&p, input, strlen (input));
  pipe_close_writer (&p);
  while (fill_some (reader) && lumo_frame_reader_get_buffered (reader) < strlen (input))
    ;
  g_assert_true (fill_some (reader));

  assert_take_line (reader, 1);
  assert_take_line_error (reader, LUMO_ERROR_FRAME_INVALID_JSON);
  assert_take_line_error (reader, LUMO_ERROR_FRAME_INVALID_UTF8);
  /* A batch is a message of the framing; whether the version allows it
   * is for the transport to say. */
  g_assert_cmpint (lumo_frame_reader_take_node (reader, &batch, NULL, &error), ==,
                   LUMO_FRAME_READ_OBJECT);
  g_assert_true (JSON_NODE_HOLDS_ARRAY (batch));
  assert_take_line_error (reader, LUMO_ERROR_FRAME_NOT_OBJECT);
  assert_take_line (reader, 2);
  /* The last line needs no "\n". */
  assert_take_line (reader, 3);
  assert_take_line_status (reader, LUMO_FRAME_READ_END);

  pipe_clear (&p);
}

typedef struct
{
  Pipe       *pipe;
  GByteArray *bytes;
  gsize       pos;
} Feeder;

static gboolean
feed (Feeder *f)
{
  gboolean wrote = FALSE;

  while (f->pos < f->bytes->len)
    {
      gssize n = write (f->pipe->write_fd, f->bytes->data + f->pos,
                        MIN (f->bytes->len - f->pos, 16 * 1024));

      if (n <= 0)
        break;
      f->pos += n;
      wrote = TRUE;
    }

  return wrote;
}

/* A line of 3 MiB through a 64 KiB pipe: refused once, as soon as the bound
 * is passed; the reader's buffer never holds much more than the bound;
 * the rest of the line is dropped as it comes; the next line is read. */
static void
test_reader_over_long_line (void)
{
  g_autoptr(LumoFrameReader) reader = NULL;
  g_autoptr(GByteArray) bytes = g_byte_array_new ();
  const char *next = "{\"n\":7}\n";
  gsize line_len = 3 * LUMO_LINE_MAX;
  gsize max_buffered = 0;
  gboolean refused = FALSE;
  Feeder f;
  Pipe p;

  pipe_open (&p);
  reader = lumo_frame_reader_new_for_lines (p.in);

  g_byte_array_append (bytes, (const guint8 *) "{\"s\":\"", 6);
  while (bytes->len < line_len)
    g_byte_array_append (bytes, (const guint8 *) "0123456789abcdef", 16);
  g_byte_array_append (bytes, (const guint8 *) "\"}\n", 3);
  g_byte_array_append (bytes, (const guint8 *) next, strlen (next));
  f = (Feeder) { &p, bytes, 0 };

  for (;;)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonNode) node = NULL;
      LumoFrameReadStatus status;

      feed (&f);
      if (f.pos == bytes->len)
        pipe_close_writer (&p);
      fill_some (reader);
      max_buffered = MAX (max_buffered, lumo_frame_reader_get_buffered (reader));

      status = lumo_frame_reader_take_node (reader, &node, NULL, &error);
      if (status == LUMO_FRAME_READ_ERROR)
        {
          g_assert_false (refused);
          g_assert_error (error, LUMO_ERROR, LUMO_ERROR_FRAME_TOO_LARGE);
          /* Refused while the line still arrives. */
          g_assert_cmpuint (f.pos, <, bytes->len);
          refused = TRUE;
          continue;
        }
      if (status == LUMO_FRAME_READ_OBJECT)
        {
          g_assert_true (refused);
          g_assert_cmpint (json_object_get_int_member (json_node_get_object (node), "n"), ==, 7);
          break;
        }
      g_assert_cmpint (status, ==, LUMO_FRAME_READ_NEED_MORE);
    }

  assert_take_line_status (reader, LUMO_FRAME_READ_NEED_MORE);
  g_assert_cmpuint (max_buffered, <=, LUMO_LINE_MAX + 128 * 1024);
  g_test_message ("at most %" G_GSIZE_FORMAT " bytes buffered for a line of %" G_GSIZE_FORMAT,
                  max_buffered, line_len);

  pipe_clear (&p);
}

/* What the writer sends as lines, the reader takes back, in order. */
static void
test_writer_lines (void)
{
  g_autoptr(LumoFrameWriter) writer = NULL;
  g_autoptr(LumoFrameReader) reader = NULL;
  Pipe p;

  pipe_open (&p);
  writer = lumo_frame_writer_new (p.out);
  reader = lumo_frame_reader_new_for_lines (p.in);

  for (gint64 n = 1; n <= 3; n++)
    {
      g_autoptr(JsonObject) object = json_object_new ();
      g_autoptr(GBytes) line = NULL;
      g_autoptr(GError) error = NULL;

      json_object_set_int_member (object, "n", n);
      line = lumo_line_encode (object, &error);
      g_assert_no_error (error);
      g_assert_true (lumo_frame_writer_send_bytes (writer, line, &error));
      g_assert_no_error (error);
    }
  g_assert_cmpuint (lumo_frame_writer_get_queued_bytes (writer), ==, 0);

  g_assert_true (fill_some (reader));
  assert_take_line (reader, 1);
  assert_take_line (reader, 2);
  assert_take_line (reader, 3);
  assert_take_line_status (reader, LUMO_FRAME_READ_NEED_MORE);

  pipe_clear (&p);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/line/decode", test_decode);
  g_test_add_func ("/line/decode/errors", test_decode_errors);
  g_test_add_func ("/line/decode/bound", test_decode_bound);
  g_test_add_func ("/line/encode", test_encode);
  g_test_add_func ("/line/reader/bad-lines", test_reader_bad_lines);
  g_test_add_func ("/line/reader/over-long-line", test_reader_over_long_line);
  g_test_add_func ("/line/writer", test_writer_lines);

  return g_test_run ();
}
