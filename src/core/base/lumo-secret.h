/* lumo-secret.h — per-install key files, random bytes, keyed hashes and
 * comparing them in constant time
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The one home for what the app keeps secret: a key is 32 random bytes in
 * its own file beside the database it keys (audit.key, agents.key), never
 * inside it, mode 0600. A key file is created atomically on first use:
 * written to a temporary file, synced, then linked into place, so two
 * processes starting at once agree on one key. A key file that others can
 * read, or of the wrong size, is refused (LUMO_ERROR_SECRET) rather than
 * used or replaced. Random bytes come from getrandom() (the kernel's
 * CSPRNG), never from g_random_*(). A MAC or token is compared with
 * lumo_secret_equal(), whose time does not depend on where the inputs
 * differ.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define LUMO_SECRET_SIZE 32

/* Returns the key in @path (zeroed when freed), creating the file if
 * needed. @what names the key in error messages ("audit secret"). */
GBytes   *lumo_secret_load_or_create (const char   *path,
                                      const char   *what,
                                      GError      **error);
/* HMAC-SHA256 of @data under @key into @out (32 bytes). */
void      lumo_secret_hmac           (GBytes       *key,
                                      const guint8 *data,
                                      gsize         len,
                                      guint8       *out);
/* @len bytes from the kernel's CSPRNG; FALSE (LUMO_ERROR_SECRET) only if
 * it cannot be read. */
gboolean  lumo_secret_fill_random    (guint8       *buf,
                                      gsize         len,
                                      GError      **error);
/* TRUE if the @len bytes of @a and @b are equal, in a time that depends
 * on @len only. */
gboolean  lumo_secret_equal          (const guint8 *a,
                                      const guint8 *b,
                                      gsize         len);

G_END_DECLS
