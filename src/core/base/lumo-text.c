/* lumo-text.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-text"

#include "config.h"

#include <string.h>

#include "lumo-text.h"

#define ELLIPSIS "…"

/* The length of the longest prefix of valid UTF-8 @text that fits in @max
 * bytes and ends on a character boundary. */
static gsize
boundary_at_most (const char *text,
                  gsize       len,
                  gsize       max)
{
  gsize end;

  if (len <= max)
    return len;

  /* Back off continuation bytes: @text[end] then starts a character. */
  end = max;
  while (end > 0 && ((guchar) text[end] & 0xC0) == 0x80)
    end--;
  return end;
}

char *
lumo_utf8_cut (const char *text,
               gsize       max_bytes)
{
  g_autofree char *valid = NULL;
  gsize len;

  g_return_val_if_fail (text != NULL, NULL);

  valid = g_utf8_make_valid (text, -1);
  len = strlen (valid);
  if (len <= max_bytes)
    return g_steal_pointer (&valid);

  return g_strndup (valid, boundary_at_most (valid, len, max_bytes));
}

char *
lumo_utf8_excerpt (const char *text,
                   gsize       max_bytes)
{
  g_autofree char *valid = NULL;
  gsize len;
  gsize room;

  if (text == NULL)
    return g_strdup ("(null)");

  valid = g_utf8_make_valid (text, -1);
  len = strlen (valid);
  if (len <= max_bytes)
    return g_steal_pointer (&valid);

  room = max_bytes > strlen (ELLIPSIS) ? max_bytes - strlen (ELLIPSIS) : 0;
  valid[boundary_at_most (valid, len, room)] = '\0';
  return room > 0 ? g_strconcat (valid, ELLIPSIS, NULL) : g_strdup (valid);
}
