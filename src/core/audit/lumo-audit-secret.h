/* lumo-audit-secret.h — the per-install secret that keys the audit log
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The secret is a key file of lumo-secret.h, audit.key, beside the audit
 * database and never inside it. It keys the stored params hash (so a short
 * argument set cannot be confirmed by guessing from a copy of the
 * database), the result MACs, the retention anchor and the head
 * checkpoint. Here: its name in messages, and the hex forms the log uses.
 */
#pragma once

#include <glib.h>

#include "lumo-secret.h"

G_BEGIN_DECLS

#define LUMO_AUDIT_SECRET_SIZE LUMO_SECRET_SIZE
/* What lumo_secret_load_or_create() calls audit.key in messages. */
#define LUMO_AUDIT_SECRET_WHAT "audit secret"

/* TRUE if @s is exactly 64 lowercase hex digits (a SHA-256 in hex). */
gboolean  lumo_audit_is_sha256_hex         (const char   *s);
char     *lumo_audit_hex_encode            (const guint8 *data,
                                            gsize         len);
/* Decodes exactly @len bytes of lowercase or uppercase hex. */
gboolean  lumo_audit_hex_decode            (const char   *hex,
                                            guint8       *out,
                                            gsize         len);

G_END_DECLS
