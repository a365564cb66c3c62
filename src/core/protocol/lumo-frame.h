/* lumo-frame.h — Chrome native-messaging framing, and MCP's stdio lines
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A frame is a 32-bit native-endian length followed by that many bytes of
 * UTF-8 JSON, which must be one object. A line (MCP's stdio transport, the
 * desktop agents' launcher) is one JSON-RPC message, an object or a batch
 * array, ended by "\n"; the reader and writer below serve both framings,
 * so the non-blocking reading, the bounded queue and the congestion flag
 * have one home. LumoFrameReader owns the reading
 * side of one stream and its input buffer: it reads whatever the stream
 * holds in one non-blocking read and decodes every complete frame from it
 * (never blocks). LumoFrameWriter owns the writing side: an answer is
 * written at once with a non-blocking write when nothing waits before it,
 * and what the stream does not take goes to a bounded queue drained in
 * order when the stream has room again, with a congestion flag so the
 * session can stop reading while the peer is slow. lumo_frame_decode() is
 * the pure decoder that the reader and the fuzzer share.
 *
 * On a GUnixInputStream/GUnixOutputStream whose descriptor is O_NONBLOCK,
 * both read and write the descriptor directly: GLib 2.74's non-blocking
 * calls on those streams poll twice before every read or write.
 *
 * Errors say whether the stream is still in sync. Out of sync (the caller
 * must close): LUMO_ERROR_FRAME_TOO_LARGE, LUMO_ERROR_FRAME_TRUNCATED, I/O
 * errors. In sync (the caller may answer with an error and read on):
 * LUMO_ERROR_FRAME_INVALID_UTF8, LUMO_ERROR_FRAME_INVALID_JSON (also for a
 * zero length), LUMO_ERROR_FRAME_NOT_OBJECT.
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "lumo-types.h"

G_BEGIN_DECLS

#define LUMO_FRAME_HEADER_SIZE          4
/* Chrome → app: our own cap, far above any bridge message. */
#define LUMO_FRAME_MAX_IN               (1024 * 1024)
/* App → Chrome: Chrome's own limit for messages to the extension. */
#define LUMO_FRAME_MAX_OUT              (1024 * 1024)
/* Nesting deeper than this is refused before json-glib parses it
 * (LUMO_ERROR_FRAME_INVALID_JSON), so a frame of "[[[[…" cannot exhaust
 * the stack. */
#define LUMO_FRAME_MAX_DEPTH            64
#define LUMO_FRAME_WRITER_MAX_QUEUED    (8 * 1024 * 1024)
#define LUMO_FRAME_WRITER_HIGH_WATER    (2 * 1024 * 1024)
#define LUMO_FRAME_WRITER_LOW_WATER     (512 * 1024)
/* The longest line either way, without its "\n": a line that passes it
 * is refused as soon as the bound is passed and dropped up to its end,
 * never buffered whole. */
#define LUMO_LINE_MAX                   (1024 * 1024)

/* TRUE for the error codes after which the stream is still in sync. */
gboolean     lumo_frame_error_is_in_sync (const GError  *error);

/* Decodes one frame from the start of @buf.
 * - a whole valid frame: returns TRUE, sets @out and @consumed;
 * - not enough bytes yet: returns FALSE without error, @consumed = 0;
 * - a bad frame: returns FALSE with @error; if *@in_sync, @consumed is the
 *   size of the bad frame, so the caller can skip it and go on. */
gboolean     lumo_frame_decode          (const guint8   *buf,
                                         gsize           len,
                                         gsize          *consumed,
                                         JsonObject    **out,
                                         gboolean       *in_sync,
                                         GError        **error);
/* Parses a frame body (the bytes after the length). */
JsonObject  *lumo_frame_parse_body      (const guint8   *body,
                                         gsize           len,
                                         GError        **error);
/* Serialises @object into a whole frame (length + body);
 * LUMO_ERROR_LIMIT_EXCEEDED if the body is over @max_body bytes. */
GBytes      *lumo_frame_encode          (JsonObject     *object,
                                         gsize           max_body,
                                         GError        **error);

/* Decodes the next line from the start of @buf (@at_end: the stream ended
 * after @len bytes, so an unterminated last line counts as a line). Blank
 * lines (nothing, or only spaces, tabs and a "\r", before the "\n") are
 * skipped. "\r\n" ends a line too.
 * - a whole valid line: returns TRUE, sets @out (an object or an array)
 *   and @consumed (the line and the blank lines before it);
 * - not enough bytes yet: returns FALSE without error; @consumed may be
 *   more than 0 (blank lines the caller drops);
 * - a bad line: returns FALSE with @error, @consumed past the bad line.
 *   LUMO_ERROR_FRAME_TOO_LARGE means no "\n" came within LUMO_LINE_MAX
 *   bytes: @consumed is @len and the rest of that line, up to its "\n",
 *   must be dropped too. Every line error leaves the stream in sync. */
gboolean     lumo_line_decode           (const guint8   *buf,
                                         gsize           len,
                                         gboolean        at_end,
                                         gsize          *consumed,
                                         JsonNode      **out,
                                         GError        **error);
/* @object as one line (canonical JSON and "\n");
 * LUMO_ERROR_LIMIT_EXCEEDED over LUMO_LINE_MAX. */
GBytes      *lumo_line_encode           (JsonObject     *object,
                                         GError        **error);

/* ---- LumoFrameReader ---------------------------------------------------- */

#define LUMO_TYPE_FRAME_READER (lumo_frame_reader_get_type ())
G_DECLARE_FINAL_TYPE (LumoFrameReader, lumo_frame_reader, LUMO, FRAME_READER, GObject)

LumoFrameReader *lumo_frame_reader_new         (GInputStream         *stream);
/* A reader of lines (lumo_line_decode()) instead of frames. */
LumoFrameReader *lumo_frame_reader_new_for_lines (GInputStream       *stream);
GInputStream    *lumo_frame_reader_get_stream  (LumoFrameReader      *self);
/* The reader is used without blocking, by a caller that reads on its own
 * schedule (the bridge session; the stream must be pollable): take every
 * frame that is buffered, fill once when it needs more, take again, and
 * wait for the source when the fill would block. */
typedef enum
{
  LUMO_FRAME_READ_OBJECT,     /* *@out is the next object */
  LUMO_FRAME_READ_NEED_MORE,  /* no complete frame is buffered: fill */
  LUMO_FRAME_READ_END,        /* the stream ended cleanly between frames */
  LUMO_FRAME_READ_ERROR,      /* @error is set and *@in_sync says whether
                               * the caller may take on */
} LumoFrameReadStatus;

/* Decodes the next buffered frame; never reads. After an out-of-sync
 * error it returns that error again. */
LumoFrameReadStatus lumo_frame_reader_take             (LumoFrameReader  *self,
                                                        JsonObject      **out,
                                                        gboolean         *in_sync,
                                                        GError          **error);
/* The same for either framing: *@out is an object node for a frame, an
 * object or array node for a line. Line errors are all in sync. */
LumoFrameReadStatus lumo_frame_reader_take_node        (LumoFrameReader  *self,
                                                        JsonNode        **out,
                                                        gboolean         *in_sync,
                                                        GError          **error);
/* One non-blocking read into the buffer. TRUE when bytes came or the stream
 * ended (take tells which); FALSE with G_IO_ERROR_WOULD_BLOCK when the
 * stream has nothing now, or with the I/O error (the stream is out of
 * sync). */
gboolean            lumo_frame_reader_fill_nonblocking (LumoFrameReader  *self,
                                                        GError          **error);
/* A GPollableSource (callback: GPollableSourceFunc) that fires when a fill
 * can make progress. On a descriptor the source watches it itself, so a
 * caller that sets can-recurse on it spares GLib's removing and re-adding
 * the descriptor around every dispatch. */
GSource            *lumo_frame_reader_create_source    (LumoFrameReader  *self,
                                                        GCancellable     *cancellable);
/* TRUE if the stream supports the non-blocking use. */
gboolean            lumo_frame_reader_can_poll         (LumoFrameReader  *self);
/* Bytes read and not yet taken as frames. */
gsize               lumo_frame_reader_get_buffered     (LumoFrameReader  *self);

/* ---- LumoFrameWriter ---------------------------------------------------- */

#define LUMO_TYPE_FRAME_WRITER (lumo_frame_writer_get_type ())
G_DECLARE_FINAL_TYPE (LumoFrameWriter, lumo_frame_writer, LUMO, FRAME_WRITER, GObject)

LumoFrameWriter *lumo_frame_writer_new              (GOutputStream     *stream);
GOutputStream   *lumo_frame_writer_get_stream       (LumoFrameWriter   *self);
/* Sends @object: when nothing is queued and the stream is pollable, it is
 * written at once with a non-blocking write, and only what the stream did
 * not take is queued. Refuses (LUMO_ERROR_LIMIT_EXCEEDED) a body over
 * LUMO_FRAME_MAX_OUT or a queue that would pass
 * LUMO_FRAME_WRITER_MAX_QUEUED, and (LUMO_ERROR_UNAVAILABLE) a writer that
 * is closed. Nothing is queued when it fails. A write error is never
 * reported here: ::closed reports it from the main loop. */
gboolean         lumo_frame_writer_send             (LumoFrameWriter   *self,
                                                     JsonObject        *object,
                                                     GError           **error);
/* The same for bytes encoded already (lumo_line_encode()): queued whole
 * or refused whole, under the same bound. */
gboolean         lumo_frame_writer_send_bytes       (LumoFrameWriter   *self,
                                                     GBytes            *bytes,
                                                     GError           **error);
/* Bytes sent and not yet written. */
gsize            lumo_frame_writer_get_queued_bytes (LumoFrameWriter   *self);
/* TRUE from when the queue passes the high-water mark until it drains
 * below the low-water mark; notifies "congested". */
gboolean         lumo_frame_writer_get_congested    (LumoFrameWriter   *self);
gboolean         lumo_frame_writer_is_closed        (LumoFrameWriter   *self);
/* Completes once everything queued before the call has been written (or
 * with the write error). */
void             lumo_frame_writer_flush_async      (LumoFrameWriter   *self,
                                                     GCancellable      *cancellable,
                                                     GAsyncReadyCallback callback,
                                                     gpointer           user_data);
gboolean         lumo_frame_writer_flush_finish     (LumoFrameWriter   *self,
                                                     GAsyncResult      *result,
                                                     GError           **error);
/* Drops the queue and stops writing; does not close the stream. Emits
 * ::closed (with a NULL error) if it was not closed yet. */
void             lumo_frame_writer_close            (LumoFrameWriter   *self);

/* Signals: ::closed (const GError *error) — emitted once, when a write
 * fails (the peer is gone: error set) or on lumo_frame_writer_close()
 * (error NULL). Properties: "congested" and "queued-bytes" (guint64), both
 * notified. A write to a pipe whose reader is gone raises SIGPIPE: a
 * process that uses the writer must ignore SIGPIPE to get the error. */

G_END_DECLS
