/* lumo-frame.c — the pure frame codec of lumo-frame.h (the reader is in
 * lumo-frame-reader.c, the writer in lumo-frame-writer.c)
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

/* One JSON value from a frame body or a line: UTF-8, then strict JSON, then
 * an object (or, for a line, a batch array). */
static JsonNode *
parse_message (const guint8  *body,
               gsize          len,
               gboolean       allow_array,
               GError       **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autoptr(JsonNode) node = NULL;
  const char *end = NULL;

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

  if (!JSON_NODE_HOLDS_OBJECT (node) && !(allow_array && JSON_NODE_HOLDS_ARRAY (node)))
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_FRAME_NOT_OBJECT,
                   allow_array ? "The message is %s, not a JSON object or array"
                               : "The message is %s, not a JSON object",
                   describe_node_type (node));
      return NULL;
    }

  return g_steal_pointer (&node);
}

JsonObject *
lumo_frame_parse_body (const guint8  *body,
                       gsize          len,
                       GError       **error)
{
  g_autoptr(JsonNode) node = NULL;

  g_return_val_if_fail (body != NULL || len == 0, NULL);

  if (!(node = parse_message (body, len, FALSE, error)))
    return NULL;

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

/* ---- lines -------------------------------------------------------------- */

static gboolean
is_blank (const guint8 *line,
          gsize         len)
{
  for (gsize i = 0; i < len; i++)
    if (line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
      return FALSE;

  return TRUE;
}

gboolean
lumo_line_decode (const guint8  *buf,
                  gsize          len,
                  gboolean       at_end,
                  gsize         *consumed,
                  JsonNode     **out,
                  GError       **error)
{
  gsize pos = 0;

  g_return_val_if_fail (buf != NULL || len == 0, FALSE);
  g_return_val_if_fail (consumed != NULL, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);

  *consumed = 0;
  *out = NULL;

  for (;;)
    {
      const guint8 *line = buf + pos;
      gsize have = len - pos;
      /* Looked for only as far as the bound: a line that goes on past it
       * is refused, however much of it has arrived. */
      gsize window = MIN (have, (gsize) LUMO_LINE_MAX + 1);
      const guint8 *nl = window > 0 ? memchr (line, '\n', window) : NULL;
      gsize line_len;

      if (nl == NULL)
        {
          if (have > LUMO_LINE_MAX)
            {
              *consumed = len;
              g_set_error (error, LUMO_ERROR, LUMO_ERROR_FRAME_TOO_LARGE,
                           "A line of more than %d bytes was sent; at most %d are "
                           "accepted, and the rest of it is dropped",
                           LUMO_LINE_MAX, LUMO_LINE_MAX);
              return FALSE;
            }
          if (!at_end || have == 0 || is_blank (line, have))
            {
              *consumed = at_end ? len : pos;
              return FALSE;
            }
          line_len = have;
          *consumed = len;
        }
      else
        {
          line_len = (gsize) (nl - line);
          *consumed = pos + line_len + 1;
        }

      if (is_blank (line, line_len))
        {
          pos = *consumed;
          continue;
        }

      if (line_len > 0 && line[line_len - 1] == '\r')
        line_len--;

      *out = parse_message (line, line_len, TRUE, error);
      return *out != NULL;
    }
}

GBytes *
lumo_line_encode (JsonObject  *object,
                  GError     **error)
{
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *body = NULL;
  gsize len;
  guint8 *line;

  g_return_val_if_fail (object != NULL, NULL);

  /* Canonical JSON never holds a raw newline: control characters in
   * strings are escaped, so the line cannot be split. */
  node = json_node_init_object (json_node_alloc (), object);
  if (!(body = lumo_canonical_json (node, error)))
    return NULL;

  len = strlen (body);
  if (len > LUMO_LINE_MAX)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_LIMIT_EXCEEDED,
                   "The message is %" G_GSIZE_FORMAT " bytes; at most %d may be sent",
                   len, LUMO_LINE_MAX);
      return NULL;
    }

  line = g_malloc (len + 1);
  memcpy (line, body, len);
  line[len] = '\n';

  return g_bytes_new_take (line, len + 1);
}
