/* lumo-frame.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-frame"

#include "config.h"

#include <string.h>

#include "lumo-canonical-json.h"
#include "lumo-error.h"
#include "lumo-frame.h"
#include "lumo-json.h"

/* ---- the pure part ------------------------------------------------------ */

gboolean
lumo_frame_error_is_in_sync (const GError *error)
{
  return error != NULL &&
         error->domain == LUMO_ERROR &&
         (error->code == LUMO_ERROR_FRAME_INVALID_UTF8 ||
          error->code == LUMO_ERROR_FRAME_INVALID_JSON ||
          error->code == LUMO_ERROR_FRAME_NOT_OBJECT);
}

static const char *
describe_node_type (JsonNode *node)
{
  switch (JSON_NODE_TYPE (node))
    {
    case JSON_NODE_ARRAY:
      return "an array";
    case JSON_NODE_NULL:
      return "null";
    case JSON_NODE_VALUE:
      {
        GType type = json_node_get_value_type (node);

        if (type == G_TYPE_STRING)
          return "a string";
        if (type == G_TYPE_BOOLEAN)
          return "a boolean";
        return "a number";
      }
    case JSON_NODE_OBJECT:
    default:
      return "an object";
    }
}

JsonObject *
lumo_frame_parse_body (const guint8  *body,
                       gsize          len,
                       GError       **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autoptr(JsonNode) node = NULL;
  const char *end = NULL;

  g_return_val_if_fail (body != NULL || len == 0, NULL);

  if (len == 0)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_FRAME_INVALID_JSON,
                   "The message is empty (length 0); a JSON object was expected");
      return NULL;
    }

  /* Checked here, not only in the parser, so that the caller can tell
   * broken encoding from broken JSON. A NUL is valid UTF-8 but never JSON. */
  if (!g_utf8_validate_len ((const char *) body, len, &end))
    {
      gsize at = (gsize) ((const guint8 *) end - body);

      if (*end == '\0')
        g_set_error (error, LUMO_ERROR, LUMO_ERROR_FRAME_INVALID_JSON,
                     "The message has a NUL byte at byte %" G_GSIZE_FORMAT, at);
      else
        g_set_error (error, LUMO_ERROR, LUMO_ERROR_FRAME_INVALID_UTF8,
                     "The message is not valid UTF-8 at byte %" G_GSIZE_FORMAT, at);
      return NULL;
    }

  node = lumo_json_parse ((const char *) body, len, LUMO_FRAME_MAX_DEPTH, &local_error);
  if (node == NULL)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_FRAME_INVALID_JSON,
                   "The message is not valid JSON: %s", local_error->message);
      return NULL;
    }

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_FRAME_NOT_OBJECT,
                   "The message is %s, not a JSON object", describe_node_type (node));
      return NULL;
    }

  return json_object_ref (json_node_get_object (node));
}

gboolean
lumo_frame_decode (const guint8  *buf,
                   gsize          len,
                   gsize         *consumed,
                   JsonObject   **out,
                   gboolean      *in_sync,
                   GError       **error)
{
  guint32 body_len;
  JsonObject *object;

  g_return_val_if_fail (buf != NULL || len == 0, FALSE);
  g_return_val_if_fail (consumed != NULL, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);

  *consumed = 0;
  *out = NULL;
  if (in_sync != NULL)
    *in_sync = TRUE;

  if (len < LUMO_FRAME_HEADER_SIZE)
    return FALSE;

  /* Chrome writes the length in native byte order. */
  memcpy (&body_len, buf, sizeof body_len);

  if (body_len > LUMO_FRAME_MAX_IN)
    {
      if (in_sync != NULL)
        *in_sync = FALSE;
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_FRAME_TOO_LARGE,
                   "A message of %u bytes was announced; at most %d are accepted",
                   body_len, LUMO_FRAME_MAX_IN);
      return FALSE;
    }

  if (len - LUMO_FRAME_HEADER_SIZE < body_len)
    return FALSE;

  *consumed = LUMO_FRAME_HEADER_SIZE + (gsize) body_len;
  if (!(object = lumo_frame_parse_body (buf + LUMO_FRAME_HEADER_SIZE, body_len, error)))
    return FALSE;

  *out = object;
  return TRUE;
}

GBytes *
lumo_frame_encode (JsonObject  *object,
                   gsize        max_body,
                   GError     **error)
{
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *body = NULL;
  guint32 body_len;
  guint8 *frame;
  gsize len;

  g_return_val_if_fail (object != NULL, NULL);

  /* The canonical form, not json-glib's generator: json-glib 1.6 writes
   * doubles such as 1e21 as "1e+21.0", which is not JSON and would make
   * Chrome drop the connection. */
  node = json_node_init_object (json_node_alloc (), object);
  if (!(body = lumo_canonical_json (node, error)))
    return NULL;

  len = strlen (body);
  if (len > max_body || len > G_MAXUINT32)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_LIMIT_EXCEEDED,
                   "The message is %" G_GSIZE_FORMAT " bytes; at most %" G_GSIZE_FORMAT
                   " may be sent", len, max_body);
      return NULL;
    }

  body_len = (guint32) len;
  frame = g_malloc (LUMO_FRAME_HEADER_SIZE + len);
  memcpy (frame, &body_len, LUMO_FRAME_HEADER_SIZE);
  memcpy (frame + LUMO_FRAME_HEADER_SIZE, body, len);

  return g_bytes_new_take (frame, LUMO_FRAME_HEADER_SIZE + len);
}

/* ---- LumoFrameReader ---------------------------------------------------- */

struct _LumoFrameReader
{
  GObject       parent_instance;

  GInputStream *stream;
  gboolean      pending;
};

G_DEFINE_FINAL_TYPE (LumoFrameReader, lumo_frame_reader, G_TYPE_OBJECT)

enum {
  READER_PROP_0,
  READER_PROP_STREAM,
  READER_N_PROPS
};

static GParamSpec *reader_properties[READER_N_PROPS];

typedef struct
{
  guint8   header[LUMO_FRAME_HEADER_SIZE];
  guint8  *body;
  guint32  body_len;
} ReadData;

static void
read_data_free (gpointer data)
{
  ReadData *rd = data;

  g_free (rd->body);
  g_free (rd);
}

static void
lumo_frame_reader_dispose (GObject *object)
{
  LumoFrameReader *self = (LumoFrameReader *) object;

  g_clear_object (&self->stream);

  G_OBJECT_CLASS (lumo_frame_reader_parent_class)->dispose (object);
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

  object_class->dispose = lumo_frame_reader_dispose;
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
}

LumoFrameReader *
lumo_frame_reader_new (GInputStream *stream)
{
  g_return_val_if_fail (G_IS_INPUT_STREAM (stream), NULL);

  return g_object_new (LUMO_TYPE_FRAME_READER, "stream", stream, NULL);
}

GInputStream *
lumo_frame_reader_get_stream (LumoFrameReader *self)
{
  g_return_val_if_fail (LUMO_IS_FRAME_READER (self), NULL);

  return self->stream;
}

static void
read_return_error (GTask  *task,
                   GError *error)
{
  LumoFrameReader *self = g_task_get_source_object (task);

  self->pending = FALSE;
  g_task_return_error (task, error);
}

static void
read_return_object (GTask      *task,
                    JsonObject *object)
{
  LumoFrameReader *self = g_task_get_source_object (task);

  self->pending = FALSE;
  g_task_return_pointer (task, object, object ? (GDestroyNotify) json_object_unref : NULL);
}

static void
on_body_read_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  ReadData *rd = g_task_get_task_data (task);
  GError *error = NULL;
  JsonObject *object;
  gsize n_read = 0;

  if (!g_input_stream_read_all_finish (G_INPUT_STREAM (source), result, &n_read, &error))
    {
      read_return_error (task, error);
      return;
    }

  if (n_read < rd->body_len)
    {
      read_return_error (task, g_error_new (LUMO_ERROR, LUMO_ERROR_FRAME_TRUNCATED,
                                            "The stream ended inside a message "
                                            "(%" G_GSIZE_FORMAT " of %u bytes)",
                                            n_read, rd->body_len));
      return;
    }

  if (!(object = lumo_frame_parse_body (rd->body, rd->body_len, &error)))
    read_return_error (task, error);
  else
    read_return_object (task, object);
}

static void
on_header_read_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  ReadData *rd = g_task_get_task_data (task);
  GCancellable *cancellable;
  GError *error = NULL;
  gsize n_read = 0;

  if (!g_input_stream_read_all_finish (G_INPUT_STREAM (source), result, &n_read, &error))
    {
      read_return_error (task, error);
      return;
    }

  if (n_read == 0)
    {
      /* The peer closed between two messages: a clean end. */
      read_return_object (task, NULL);
      return;
    }

  if (n_read < LUMO_FRAME_HEADER_SIZE)
    {
      read_return_error (task, g_error_new (LUMO_ERROR, LUMO_ERROR_FRAME_TRUNCATED,
                                            "The stream ended inside a message length "
                                            "(%" G_GSIZE_FORMAT " of 4 bytes)", n_read));
      return;
    }

  memcpy (&rd->body_len, rd->header, sizeof rd->body_len);

  if (rd->body_len > LUMO_FRAME_MAX_IN)
    {
      /* Refused before allocating: the length is the peer's word only. */
      read_return_error (task, g_error_new (LUMO_ERROR, LUMO_ERROR_FRAME_TOO_LARGE,
                                            "A message of %u bytes was announced; "
                                            "at most %d are accepted",
                                            rd->body_len, LUMO_FRAME_MAX_IN));
      return;
    }

  if (rd->body_len == 0)
    {
      lumo_frame_parse_body (NULL, 0, &error);
      read_return_error (task, error);
      return;
    }

  rd->body = g_malloc (rd->body_len);
  cancellable = g_task_get_cancellable (task);
  g_input_stream_read_all_async (G_INPUT_STREAM (source), rd->body, rd->body_len,
                                 G_PRIORITY_DEFAULT, cancellable,
                                 on_body_read_cb, g_steal_pointer (&task));
}

void
lumo_frame_reader_read_async (LumoFrameReader     *self,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  ReadData *rd;

  g_return_if_fail (LUMO_IS_FRAME_READER (self));
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, lumo_frame_reader_read_async);

  if (self->pending)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_PENDING,
                               "A message is already being read");
      return;
    }

  rd = g_new0 (ReadData, 1);
  g_task_set_task_data (task, rd, read_data_free);
  self->pending = TRUE;

  g_input_stream_read_all_async (self->stream, rd->header, LUMO_FRAME_HEADER_SIZE,
                                 G_PRIORITY_DEFAULT, cancellable,
                                 on_header_read_cb, g_steal_pointer (&task));
}

JsonObject *
lumo_frame_reader_read_finish (LumoFrameReader  *self,
                               GAsyncResult     *result,
                               gboolean         *in_sync,
                               GError          **error)
{
  g_autoptr(GError) local_error = NULL;
  JsonObject *object;

  g_return_val_if_fail (LUMO_IS_FRAME_READER (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  object = g_task_propagate_pointer (G_TASK (result), &local_error);

  if (in_sync != NULL)
    *in_sync = local_error == NULL || lumo_frame_error_is_in_sync (local_error);
  if (local_error != NULL)
    g_propagate_error (error, g_steal_pointer (&local_error));

  return object;
}
