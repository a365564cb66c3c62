/* lumo-canonical-json.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-canonical-json"

#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lumo-canonical-json.h"
#include "lumo-error.h"

/* ---- numbers ------------------------------------------------------------ */

static const guint64 pow10_table[] = {
  1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
  100000000ull, 1000000000ull, 10000000000ull, 100000000000ull,
  1000000000000ull, 10000000000000ull, 100000000000000ull,
  1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
};

/* Does m × 10^(e - k + 1) (m has k digits) read back as @value? */
static gboolean
round_trips (guint64 m,
             int     k,
             int     e,
             double  value)
{
  char buf[64];

  g_snprintf (buf, sizeof buf, "%" G_GUINT64_FORMAT "e%d", m, e - k + 1);
  return g_ascii_strtod (buf, NULL) == value;
}

/* The shortest decimal that reads back as @value (> 0, finite): @digits
 * (no trailing zeros) and @n, with value = 0.digits × 10^n, as in
 * ECMA-262 Number::toString. */
static void
shortest_digits (double  value,
                 char    digits[20],
                 int    *n)
{
  for (int k = 1; k <= 17; k++)
    {
      char buf[40];
      char *mark;
      guint64 m = 0;
      int e;

      /* glibc rounds exactly: this is the closest k-digit decimal. */
      g_snprintf (buf, sizeof buf, "%.*e", k - 1, value);
      mark = strchr (buf, 'e');
      g_assert (mark != NULL);
      e = atoi (mark + 1);
      for (char *p = buf; p < mark; p++)
        if (g_ascii_isdigit (*p))
          m = m * 10 + (guint64) (*p - '0');

      if (!round_trips (m, k, e, value))
        {
          /* Next to a power of two the rounding interval is lopsided, so
           * the closest k-digit decimal may miss while a neighbour on the
           * wide side hits; at most one of them can. */
          guint64 up = m + 1, down = m - 1;
          int e_up = e, e_down = e;

          if (up == pow10_table[k])
            up = pow10_table[k - 1], e_up = e + 1;
          if (m == pow10_table[k - 1])
            down = pow10_table[k] - 1, e_down = e - 1;

          if (round_trips (up, k, e_up, value))
            m = up, e = e_up;
          else if (round_trips (down, k, e_down, value))
            m = down, e = e_down;
          else
            continue;
        }

      g_snprintf (digits, 20, "%" G_GUINT64_FORMAT, m);
      for (gsize len = strlen (digits); len > 1 && digits[len - 1] == '0'; len--)
        digits[len - 1] = '\0';
      *n = e + 1;
      return;
    }

  g_assert_not_reached ();
}

static void
append_number (GString *out,
               double   value)
{
  char digits[20];
  int k, n;

  /* -0 prints as 0, like ECMAScript. */
  if (value == 0)
    {
      g_string_append_c (out, '0');
      return;
    }

  if (value < 0)
    {
      g_string_append_c (out, '-');
      value = -value;
    }

  /* An integer below 2^53 is exact, and any shorter decimal names another
   * integer, so its shortest form is its own digits: the search below
   * would find the same after one snprintf per digit (≈ 3 µs for an id of
   * five digits, the largest part of encoding a bridge answer). */
  if (value < 9007199254740992.0 && value == (double) (guint64) value)
    {
      g_string_append_printf (out, "%" G_GUINT64_FORMAT, (guint64) value);
      return;
    }

  shortest_digits (value, digits, &n);
  k = (int) strlen (digits);

  if (k <= n && n <= 21)
    {
      g_string_append (out, digits);
      for (int i = 0; i < n - k; i++)
        g_string_append_c (out, '0');
    }
  else if (0 < n && n <= 21)
    {
      g_string_append_len (out, digits, n);
      g_string_append_c (out, '.');
      g_string_append (out, digits + n);
    }
  else if (-6 < n && n <= 0)
    {
      g_string_append (out, "0.");
      for (int i = 0; i < -n; i++)
        g_string_append_c (out, '0');
      g_string_append (out, digits);
    }
  else
    {
      g_string_append_c (out, digits[0]);
      if (k > 1)
        {
          g_string_append_c (out, '.');
          g_string_append (out, digits + 1);
        }
      g_string_append_printf (out, "e%c%d", n - 1 >= 0 ? '+' : '-', abs (n - 1));
    }
}

char *
lumo_canonical_json_number (double value)
{
  GString *out;

  g_return_val_if_fail (isfinite (value), NULL);

  out = g_string_new (NULL);
  append_number (out, value);

  return g_string_free (out, FALSE);
}

/* ---- strings ------------------------------------------------------------ */

static void
append_string (GString    *out,
               const char *s)
{
  g_string_append_c (out, '"');

  for (const char *p = s; *p != '\0'; p++)
    {
      guchar c = (guchar) *p;

      switch (c)
        {
        case '"':  g_string_append (out, "\\\""); break;
        case '\\': g_string_append (out, "\\\\"); break;
        case '\b': g_string_append (out, "\\b");  break;
        case '\f': g_string_append (out, "\\f");  break;
        case '\n': g_string_append (out, "\\n");  break;
        case '\r': g_string_append (out, "\\r");  break;
        case '\t': g_string_append (out, "\\t");  break;
        default:
          if (c < 0x20)
            g_string_append_printf (out, "\\u%04x", c);
          else
            g_string_append_c (out, (char) c);
        }
    }

  g_string_append_c (out, '"');
}

/* ---- objects ------------------------------------------------------------ */

typedef struct
{
  const char *name;
  gunichar2  *utf16;
  glong       utf16_len;
} Member;

/* JCS sorts by UTF-16 code units, which differs from code-point (and
 * UTF-8 byte) order once characters above U+FFFF meet U+E000…U+FFFF. */
static int
compare_members (const void *a,
                 const void *b)
{
  const Member *ma = a, *mb = b;
  glong n = MIN (ma->utf16_len, mb->utf16_len);

  for (glong i = 0; i < n; i++)
    if (ma->utf16[i] != mb->utf16[i])
      return ma->utf16[i] < mb->utf16[i] ? -1 : 1;

  return (ma->utf16_len > mb->utf16_len) - (ma->utf16_len < mb->utf16_len);
}

static gboolean append_node (GString *out, JsonNode *node, GError **error);

static gboolean
append_object (GString     *out,
               JsonObject  *object,
               GError     **error)
{
  g_autoptr(GList) names = json_object_get_members (object);
  g_autofree Member *members = NULL;
  gboolean ok = TRUE;
  guint n = 0;

  members = g_new0 (Member, g_list_length (names) + 1);
  for (GList *l = names; l != NULL; l = l->next)
    {
      members[n].name = l->data;
      members[n].utf16 = g_utf8_to_utf16 (l->data, -1, NULL, &members[n].utf16_len, NULL);
      if (members[n].utf16 == NULL)
        {
          g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                       "A member name is not valid UTF-8");
          ok = FALSE;
          break;
        }
      n++;
    }

  if (ok)
    {
      qsort (members, n, sizeof (Member), compare_members);

      g_string_append_c (out, '{');
      for (guint i = 0; i < n && ok; i++)
        {
          if (i > 0)
            g_string_append_c (out, ',');
          append_string (out, members[i].name);
          g_string_append_c (out, ':');
          ok = append_node (out, json_object_get_member (object, members[i].name), error);
        }
      g_string_append_c (out, '}');
    }

  for (guint i = 0; i < n; i++)
    g_free (members[i].utf16);

  return ok;
}

static gboolean
append_node (GString   *out,
             JsonNode  *node,
             GError   **error)
{
  switch (JSON_NODE_TYPE (node))
    {
    case JSON_NODE_NULL:
      g_string_append (out, "null");
      return TRUE;

    case JSON_NODE_OBJECT:
      return append_object (out, json_node_get_object (node), error);

    case JSON_NODE_ARRAY:
      {
        JsonArray *array = json_node_get_array (node);
        guint n = json_array_get_length (array);

        g_string_append_c (out, '[');
        for (guint i = 0; i < n; i++)
          {
            if (i > 0)
              g_string_append_c (out, ',');
            if (!append_node (out, json_array_get_element (array, i), error))
              return FALSE;
          }
        g_string_append_c (out, ']');
        return TRUE;
      }

    case JSON_NODE_VALUE:
      {
        GType type = json_node_get_value_type (node);

        if (type == G_TYPE_BOOLEAN)
          {
            g_string_append (out, json_node_get_boolean (node) ? "true" : "false");
            return TRUE;
          }

        if (type == G_TYPE_STRING)
          {
            const char *s = json_node_get_string (node);

            if (!g_utf8_validate (s, -1, NULL))
              {
                g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                             "A string is not valid UTF-8");
                return FALSE;
              }
            append_string (out, s);
            return TRUE;
          }

        if (type == G_TYPE_INT64 || type == G_TYPE_DOUBLE)
          {
            /* JCS numbers are IEEE doubles: a gint64 beyond 2^53 rounds,
             * exactly as JSON.parse() would have rounded it. */
            double d = type == G_TYPE_INT64 ? (double) json_node_get_int (node)
                                            : json_node_get_double (node);

            if (!isfinite (d))
              {
                g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                             "%s cannot be represented in JSON",
                             isnan (d) ? "NaN" : "Infinity");
                return FALSE;
              }
            append_number (out, d);
            return TRUE;
          }

        g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                     "A value of type %s cannot be represented in JSON",
                     g_type_name (type));
        return FALSE;
      }

    default:
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT, "Unknown JSON node type");
      return FALSE;
    }
}

char *
lumo_canonical_json (JsonNode  *node,
                     GError   **error)
{
  g_autoptr(GString) out = NULL;

  g_return_val_if_fail (node != NULL, NULL);

  out = g_string_new (NULL);
  if (!append_node (out, node, error))
    return NULL;

  return g_string_free (g_steal_pointer (&out), FALSE);
}

char *
lumo_canonical_json_sha256 (JsonNode  *node,
                            GError   **error)
{
  g_autofree char *canonical = NULL;

  g_return_val_if_fail (node != NULL, NULL);

  if (!(canonical = lumo_canonical_json (node, error)))
    return NULL;

  return g_compute_checksum_for_string (G_CHECKSUM_SHA256, canonical, -1);
}
