/* lumo-json.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-json"

#include "config.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "lumo-error.h"
#include "lumo-text.h"
#include "lumo-json.h"

typedef struct
{
  const char *data;
  gsize       len;
  gsize       pos;
  guint       depth;
  guint       max_depth;
  GError    **error;
  gsize       error_pos;    /* where the first failure was */
  GHashTable *offsets;      /* JsonNode * → its offset + 1, or NULL */
} Parser;

static JsonNode *parse_value (Parser *p);

static void
note_offset (Parser   *p,
             JsonNode *node,
             gsize     offset)
{
  if (p->offsets != NULL)
    g_hash_table_insert (p->offsets, node, GSIZE_TO_POINTER (offset + 1));
}

G_GNUC_PRINTF (3, 4)
static gpointer
fail_at (Parser     *p,
         gsize       pos,
         const char *format,
         ...)
{
  g_autofree char *what = NULL;
  va_list args;

  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);

  p->error_pos = pos;
  g_set_error (p->error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
               "Invalid JSON at byte %" G_GSIZE_FORMAT ": %s", pos, what);
  return NULL;
}

/* "“x”" for printable ASCII, "byte 0xNN" otherwise, "the end" at the end. */
static char *
describe_here (Parser *p)
{
  guchar c;

  if (p->pos >= p->len)
    return g_strdup ("the end of the input");

  c = (guchar) p->data[p->pos];
  if (c >= 0x20 && c < 0x7f)
    return g_strdup_printf ("“%c”", c);

  return g_strdup_printf ("byte 0x%02x", c);
}

static gpointer
fail_unexpected (Parser     *p,
                 const char *expected)
{
  g_autofree char *here = describe_here (p);

  return fail_at (p, p->pos, "expected %s, found %s", expected, here);
}

static void
skip_ws (Parser *p)
{
  while (p->pos < p->len)
    {
      char c = p->data[p->pos];

      if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
        break;
      p->pos++;
    }
}

static gboolean
peek_is (Parser *p,
         char    c)
{
  return p->pos < p->len && p->data[p->pos] == c;
}

static int
hex_value (char c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/* Reads the four hex digits after "\u" at p->pos. */
static gboolean
read_hex4 (Parser   *p,
           gunichar *out)
{
  gunichar value = 0;

  if (p->len - p->pos < 4)
    {
      fail_at (p, p->pos, "a \\u escape needs four hex digits");
      return FALSE;
    }

  for (guint i = 0; i < 4; i++)
    {
      int v = hex_value (p->data[p->pos + i]);

      if (v < 0)
        {
          fail_at (p, p->pos + i, "a \\u escape needs four hex digits");
          return FALSE;
        }
      value = value * 16 + v;
    }

  p->pos += 4;
  *out = value;
  return TRUE;
}

/* At the opening quote; returns the decoded string. */
static char *
parse_string (Parser *p)
{
  g_autoptr(GString) out = g_string_new (NULL);
  gsize start = p->pos;

  g_assert (p->data[p->pos] == '"');
  p->pos++;

  for (;;)
    {
      gsize run = p->pos;
      guchar c;

      /* Plain bytes are copied in runs; UTF-8 was validated up front. */
      while (p->pos < p->len)
        {
          c = (guchar) p->data[p->pos];
          if (c == '"' || c == '\\' || c < 0x20)
            break;
          p->pos++;
        }
      g_string_append_len (out, p->data + run, p->pos - run);

      if (p->pos >= p->len)
        return fail_at (p, start, "the string is not terminated");

      c = (guchar) p->data[p->pos];
      if (c == '"')
        {
          p->pos++;
          return g_string_free (g_steal_pointer (&out), FALSE);
        }
      if (c < 0x20)
        return fail_at (p, p->pos, "a raw control character (byte 0x%02x) in a string; "
                        "it must be escaped", c);

      /* A backslash. */
      if (++p->pos >= p->len)
        return fail_at (p, start, "the string is not terminated");

      switch (p->data[p->pos++])
        {
        case '"':  g_string_append_c (out, '"');  break;
        case '\\': g_string_append_c (out, '\\'); break;
        case '/':  g_string_append_c (out, '/');  break;
        case 'b':  g_string_append_c (out, '\b'); break;
        case 'f':  g_string_append_c (out, '\f'); break;
        case 'n':  g_string_append_c (out, '\n'); break;
        case 'r':  g_string_append_c (out, '\r'); break;
        case 't':  g_string_append_c (out, '\t'); break;
        case 'u':
          {
            gsize escape_at = p->pos - 2;
            gunichar cp, low;

            if (!read_hex4 (p, &cp))
              return NULL;

            if (cp >= 0xdc00 && cp <= 0xdfff)
              return fail_at (p, escape_at, "a lone low surrogate \\u%04x", cp);

            if (cp >= 0xd800 && cp <= 0xdbff)
              {
                if (p->len - p->pos < 2 || p->data[p->pos] != '\\' || p->data[p->pos + 1] != 'u')
                  return fail_at (p, escape_at, "a lone high surrogate \\u%04x", cp);
                p->pos += 2;
                if (!read_hex4 (p, &low))
                  return NULL;
                if (low < 0xdc00 || low > 0xdfff)
                  return fail_at (p, escape_at, "a lone high surrogate \\u%04x", cp);
                cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
              }

            if (cp == 0)
              return fail_at (p, escape_at, "U+0000 in a string is not supported");

            g_string_append_unichar (out, cp);
          }
          break;

        default:
          p->pos--;
          {
            g_autofree char *here = describe_here (p);
            return fail_at (p, p->pos - 1, "an unknown escape “\\” followed by %s", here);
          }
        }
    }
}

static gsize
skip_digits (Parser *p)
{
  gsize start = p->pos;

  while (p->pos < p->len && g_ascii_isdigit (p->data[p->pos]))
    p->pos++;

  return p->pos - start;
}

static JsonNode *
parse_number (Parser *p)
{
  g_autofree char *text = NULL;
  gsize start = p->pos;
  gboolean integer = TRUE;
  JsonNode *node;
  double d;

  if (peek_is (p, '-'))
    p->pos++;

  if (peek_is (p, '0'))
    {
      p->pos++;
      if (p->pos < p->len && g_ascii_isdigit (p->data[p->pos]))
        return fail_at (p, start, "a number with a leading zero");
    }
  else if (skip_digits (p) == 0)
    return fail_unexpected (p, "a digit");

  if (peek_is (p, '.'))
    {
      integer = FALSE;
      p->pos++;
      if (skip_digits (p) == 0)
        return fail_unexpected (p, "a digit after the decimal point");
    }

  if (peek_is (p, 'e') || peek_is (p, 'E'))
    {
      integer = FALSE;
      p->pos++;
      if (peek_is (p, '+') || peek_is (p, '-'))
        p->pos++;
      if (skip_digits (p) == 0)
        return fail_unexpected (p, "a digit in the exponent");
    }

  text = g_strndup (p->data + start, p->pos - start);
  node = json_node_alloc ();

  if (integer)
    {
      gint64 v;

      errno = 0;
      v = g_ascii_strtoll (text, NULL, 10);
      if (errno == 0)
        return json_node_init_int (node, v);
    }

  /* Beyond gint64, or not an integer: a double, as JSON.parse() reads it. */
  d = g_ascii_strtod (text, NULL);
  if (!isfinite (d))
    {
      json_node_unref (node);
      g_autofree char *shown = lumo_utf8_excerpt (text, 40);

      return fail_at (p, start, "the number %s is out of the range of a double", shown);
    }

  return json_node_init_double (node, d);
}

static gboolean
enter (Parser *p)
{
  if (++p->depth > p->max_depth)
    {
      fail_at (p, p->pos, "nested deeper than %u levels", p->max_depth);
      return FALSE;
    }

  return TRUE;
}

static JsonNode *
parse_array (Parser *p)
{
  g_autoptr(JsonArray) array = NULL;

  if (!enter (p))
    return NULL;

  array = json_array_new ();
  p->pos++;   /* '[' */
  skip_ws (p);

  if (peek_is (p, ']'))
    p->pos++;
  else
    for (;;)
      {
        JsonNode *element;
        gsize element_at;

        skip_ws (p);
        element_at = p->pos;
        if (!(element = parse_value (p)))
          return NULL;
        note_offset (p, element, element_at);
        json_array_add_element (array, element);

        skip_ws (p);
        if (peek_is (p, ']'))
          {
            p->pos++;
            break;
          }
        if (!peek_is (p, ','))
          return fail_unexpected (p, "“,” or “]”");
        p->pos++;
      }

  p->depth--;
  return json_node_init_array (json_node_alloc (), array);
}

static JsonNode *
parse_object (Parser *p)
{
  g_autoptr(JsonObject) object = NULL;

  if (!enter (p))
    return NULL;

  object = json_object_new ();
  p->pos++;   /* '{' */
  skip_ws (p);

  if (peek_is (p, '}'))
    p->pos++;
  else
    for (;;)
      {
        g_autofree char *name = NULL;
        gsize name_at;
        JsonNode *value;

        skip_ws (p);
        if (!peek_is (p, '"'))
          return fail_unexpected (p, "a member name in double quotes");
        name_at = p->pos;
        if (!(name = parse_string (p)))
          return NULL;
        if (json_object_has_member (object, name))
          {
            g_autofree char *shown = lumo_utf8_excerpt (name, 64);

            return fail_at (p, name_at, "the member name “%s” appears twice", shown);
          }

        skip_ws (p);
        if (!peek_is (p, ':'))
          return fail_unexpected (p, "“:”");
        p->pos++;
        skip_ws (p);

        if (!(value = parse_value (p)))
          return NULL;
        /* A member is where its name is: that is the line a person reads. */
        note_offset (p, value, name_at);
        json_object_set_member (object, name, value);

        skip_ws (p);
        if (peek_is (p, '}'))
          {
            p->pos++;
            break;
          }
        if (!peek_is (p, ','))
          return fail_unexpected (p, "“,” or “}”");
        p->pos++;
      }

  p->depth--;
  return json_node_init_object (json_node_alloc (), object);
}

static JsonNode *
parse_literal (Parser     *p,
               const char *word)
{
  gsize n = strlen (word);

  if (p->len - p->pos < n || memcmp (p->data + p->pos, word, n) != 0)
    return fail_unexpected (p, "a JSON value");
  p->pos += n;

  if (word[0] == 'n')
    return json_node_init_null (json_node_alloc ());

  return json_node_init_boolean (json_node_alloc (), word[0] == 't');
}

static JsonNode *
parse_value (Parser *p)
{
  if (p->pos >= p->len)
    return fail_unexpected (p, "a JSON value");

  switch (p->data[p->pos])
    {
    case '{':
      return parse_object (p);
    case '[':
      return parse_array (p);
    case '"':
      {
        char *s = parse_string (p);
        JsonNode *node;

        if (s == NULL)
          return NULL;
        node = json_node_init_string (json_node_alloc (), s);
        g_free (s);
        return node;
      }
    case 't':
      return parse_literal (p, "true");
    case 'f':
      return parse_literal (p, "false");
    case 'n':
      return parse_literal (p, "null");
    case '-':
    case '0': case '1': case '2': case '3': case '4':
    case '5': case '6': case '7': case '8': case '9':
      return parse_number (p);
    default:
      return fail_unexpected (p, "a JSON value");
    }
}

static JsonNode *
parse_document (const char  *data,
                gsize        len,
                guint        max_depth,
                GHashTable  *offsets,
                gsize       *error_offset,
                GError     **error)
{
  g_autoptr(JsonNode) node = NULL;
  const char *end = NULL;
  Parser p = { data, len, 0, 0, max_depth, error, 0, offsets };
  gsize root_at;

  if (data == NULL)
    data = p.data = "";

  if (!g_utf8_validate_len (data, len, &end))
    {
      if (error_offset != NULL)
        *error_offset = (gsize) (end - data);
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                   "Invalid JSON at byte %" G_GSIZE_FORMAT ": %s",
                   (gsize) (end - data),
                   *end == '\0' ? "a NUL byte" : "not valid UTF-8");
      return NULL;
    }

  skip_ws (&p);
  if (p.pos >= p.len)
    {
      if (error_offset != NULL)
        *error_offset = p.pos;
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                   "Invalid JSON: there is no value, only %s",
                   len == 0 ? "nothing" : "white space");
      return NULL;
    }

  root_at = p.pos;
  if (!(node = parse_value (&p)))
    goto fail;
  note_offset (&p, node, root_at);

  skip_ws (&p);
  if (p.pos < p.len)
    {
      fail_at (&p, p.pos, "trailing characters after the JSON value");
      goto fail;
    }

  return g_steal_pointer (&node);

fail:
  if (error_offset != NULL)
    *error_offset = p.error_pos;
  return NULL;
}

JsonNode *
lumo_json_parse (const char  *data,
                 gsize        len,
                 guint        max_depth,
                 GError     **error)
{
  g_return_val_if_fail (data != NULL || len == 0, NULL);
  g_return_val_if_fail (max_depth > 0, NULL);

  return parse_document (data, len, max_depth, NULL, NULL, error);
}

JsonNode *
lumo_json_parse_located (const char   *data,
                         gsize         len,
                         guint         max_depth,
                         GHashTable  **offsets,
                         gsize        *error_offset,
                         GError      **error)
{
  g_autoptr(GHashTable) table = NULL;
  JsonNode *node;

  g_return_val_if_fail (data != NULL || len == 0, NULL);
  g_return_val_if_fail (max_depth > 0, NULL);
  g_return_val_if_fail (offsets == NULL || *offsets == NULL, NULL);

  if (error_offset != NULL)
    *error_offset = 0;
  if (offsets != NULL)
    table = g_hash_table_new (NULL, NULL);

  /* Keys are the nodes of the tree returned, so they stay valid as long
   * as it does; a failed parse frees them, and the table with them. */
  if (!(node = parse_document (data, len, max_depth, table, error_offset, error)))
    return NULL;

  if (offsets != NULL)
    *offsets = g_steal_pointer (&table);
  return node;
}

gsize
lumo_json_node_offset (GHashTable *offsets,
                       JsonNode   *node)
{
  gpointer value;

  g_return_val_if_fail (offsets != NULL, 0);

  value = g_hash_table_lookup (offsets, node);
  return value != NULL ? GPOINTER_TO_SIZE (value) - 1 : 0;
}

void
lumo_json_line_column (const char *data,
                       gsize       len,
                       gsize       offset,
                       guint      *line,
                       guint      *column)
{
  guint l = 1;
  guint c = 1;

  g_return_if_fail (data != NULL || len == 0);

  offset = MIN (offset, len);
  for (gsize i = 0; i < offset; i++)
    {
      guchar b = (guchar) data[i];

      if (b == '\n')
        {
          l++;
          c = 1;
        }
      else if ((b & 0xc0) != 0x80)   /* characters, not UTF-8 continuation bytes */
        c++;
    }

  if (line != NULL)
    *line = l;
  if (column != NULL)
    *column = c;
}
