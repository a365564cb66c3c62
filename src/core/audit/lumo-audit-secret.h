/* lumo-audit-secret.h — the per-install secret that keys the audit log
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The secret is 32 random bytes in audit.key, beside the audit database and
 * never inside it, mode 0600. It keys the stored params hash (so a short
 * argument set cannot be confirmed by guessing from a copy of the database),
 * the result MACs, the retention anchor and the head checkpoint. It is
 * created atomically on first use: written to a temporary file, synced, then
 * linked into place, so two processes starting at once agree on one secret.
 * A key file that others can read, or of the wrong size, is refused
 * (LUMO_ERROR_SECRET) rather than used or replaced.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define LUMO_AUDIT_SECRET_SIZE 32

/* Returns the secret (zeroed when freed), creating the file if needed. */
GBytes   *lumo_audit_secret_load_or_create (const char   *path,
                                            GError      **error);
/* HMAC-SHA256 of @data under @secret into @out (32 bytes). */
void      lumo_audit_secret_hmac           (GBytes       *secret,
                                            const guint8 *data,
                                            gsize         len,
                                            guint8       *out);
/* TRUE if @s is exactly 64 lowercase hex digits (a SHA-256 in hex). */
gboolean  lumo_audit_is_sha256_hex         (const char   *s);
char     *lumo_audit_hex_encode            (const guint8 *data,
                                            gsize         len);
/* Decodes exactly @len bytes of lowercase or uppercase hex. */
gboolean  lumo_audit_hex_decode            (const char   *hex,
                                            guint8       *out,
                                            gsize         len);

G_END_DECLS
