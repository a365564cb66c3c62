/* lumo-audit-secret.c — the audit log's hex forms of hashes and MACs
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-audit"

#include "config.h"

#include <string.h>

#include "lumo-audit-secret.h"

gboolean
lumo_audit_is_sha256_hex (const char *s)
{
  if (s == NULL)
    return FALSE;

  for (guint i = 0; i < 64; i++)
    {
      if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
        return FALSE;
    }

  return s[64] == '\0';
}

char *
lumo_audit_hex_encode (const guint8 *data,
                       gsize         len)
{
  static const char digits[] = "0123456789abcdef";
  char *out = g_malloc (len * 2 + 1);

  for (gsize i = 0; i < len; i++)
    {
      out[2 * i] = digits[data[i] >> 4];
      out[2 * i + 1] = digits[data[i] & 0xf];
    }
  out[len * 2] = '\0';

  return out;
}

gboolean
lumo_audit_hex_decode (const char *hex,
                       guint8     *out,
                       gsize       len)
{
  if (hex == NULL || strlen (hex) != len * 2)
    return FALSE;

  for (gsize i = 0; i < len; i++)
    {
      int hi = g_ascii_xdigit_value (hex[2 * i]);
      int lo = g_ascii_xdigit_value (hex[2 * i + 1]);

      if (hi < 0 || lo < 0)
        return FALSE;
      out[i] = (guint8) (hi << 4 | lo);
    }

  return TRUE;
}
