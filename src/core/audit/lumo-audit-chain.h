/* lumo-audit-chain.h — the hash chain of the audit log, and its checking
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * This file owns the canonical encoding of an audit row, the chain hash,
 * the MACs that protect what the chain cannot cover, the head checkpoint
 * file, and the walk that verifies a whole log.
 *
 * Canonical encoding. A row's chain hash is
 *
 *   hash(n) = SHA-256 ("lumo-audit-row-v1" ‖ hash(n-1) ‖ F(id) ‖ F(time_us)
 *                      ‖ F(provider_id) ‖ F(caller_id) ‖ F(caller_name)
 *                      ‖ F(tool) ‖ F(write) ‖ F(target) ‖ F(params_hmac)
 *                      ‖ F(decision) ‖ F(reason))
 *
 * where every field F is a one-byte type tag ('i' integer, 's' string,
 * 'b' bytes), a 4-byte big-endian length, and the bytes (integers as 8-byte
 * big-endian two's complement, strings as UTF-8 without a terminator). The
 * length prefixes make the encoding unambiguous: no two different rows
 * encode to the same bytes. The first row chains to hash(0) = 32 zero bytes,
 * or, after retention, to the anchor (the hash of the last deleted row).
 *
 * Schema version 2 added the caller's kind and "allowed by a grant". A row
 * whose kind is "extension" and that no grant let through encodes as
 * above, so every row written before keeps its hash. Any other row is
 *
 *   hash(n) = SHA-256 ("lumo-audit-row-v2" ‖ … as above … ‖ F(reason)
 *                      ‖ F(caller_kind) ‖ F(by_grant))
 *
 * The two domains differ, so the choice of encoding is itself covered:
 * turning an agent's row into an extension's (or dropping the grant)
 * changes its hash like any other edit.
 *
 * The result of a row is written once, after the fact, so the chain cannot
 * cover it (the next row may already be chained). It carries its own MAC,
 * bound to the row hash:
 *
 *   result_mac = HMAC-SHA256 (secret, "lumo-audit-result-v1" ‖ hash(n)
 *                             ‖ F(result) ‖ F(result_text) ‖ F(result_time_us))
 *
 * It is keyed (unlike the chain) because the head checkpoint does not cover
 * results: without the key, a result cannot be forged or moved to another row.
 *
 * The head checkpoint (audit.head, beside the database) holds the id and
 * hash of the newest committed row and an HMAC over both, in a fixed-length
 * line. It is written after every group commit, never before, in place:
 * the file has two slots, and each commit overwrites the one with the
 * older line under a file lock, so the newest line is always there
 * (lumo-audit-head.c). So after a crash it may lag behind the database
 * but never lead it. A database whose chain does not reach the checkpoint's id and hash
 * has lost its tail. The retention anchor (in the database) is MAC'd the
 * same way, so a cut at the front cannot pose as retention either.
 *
 * What the chain cannot see: someone who can write the database AND
 * recomputes every hash after an edit makes the chain consistent again; the
 * checkpoint then no longer matches (reported as LUMO_AUDIT_FAULT_CHECKPOINT
 * at the checkpoint's row, since the first edited row cannot be named).
 *
 * Rows after the newest checkpoint are counted in
 * LumoAuditVerifyReport.rows_after_checkpoint, normally 0. The store writes
 * the checkpoint before it tells any caller that its row is durable, so
 * such rows were never acknowledged: a power loss just after a commit, or a
 * commit whose fsync failed and that SQLite's WAL recovery brought back
 * after a crash (the append had returned an error, so the backend denied
 * that write). They stay "unconfirmed" only until the next commit moves
 * the checkpoint past them.
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define LUMO_AUDIT_HASH_SIZE 32

/* Called now and then during long walks (verify, export, import) with the
 * rows done so far and the total expected (0 if not known). Called on the
 * thread doing the work. */
typedef void (*LumoAuditProgressFunc) (gint64   done,
                                       gint64   total,
                                       gpointer user_data);

/* The fields the chain covers. Strings are never NULL ("" for none). */
typedef struct
{
  gint64        id;
  gint64        time_us;
  const char   *provider_id;
  const char   *caller_id;
  const char   *caller_name;
  const char   *tool;
  gboolean      write;
  const char   *target;
  const guint8 *params_hmac;   /* LUMO_AUDIT_HASH_SIZE bytes */
  const char   *decision;
  const char   *reason;
  const char   *caller_kind;   /* "extension" (or NULL: the same), "agent" */
  gboolean      by_grant;
} LumoAuditChainFields;

void      lumo_audit_chain_row_hash        (const guint8               *prev_hash,
                                            const LumoAuditChainFields *fields,
                                            guint8                     *out_hash);
/* @result is "ok" or "error"; @result_text may be NULL. */
void      lumo_audit_chain_result_mac      (GBytes                     *secret,
                                            const guint8               *row_hash,
                                            const char                 *result,
                                            const char                 *result_text,
                                            gint64                      result_time_us,
                                            guint8                     *out_mac);
/* MAC of the head checkpoint and of the retention anchor. */
void      lumo_audit_chain_head_mac        (GBytes                     *secret,
                                            const char                 *what,
                                            gint64                      id,
                                            const guint8               *hash,
                                            guint8                     *out_mac);

/* Reads audit.head. Returns FALSE with @found = FALSE (no error) when the
 * file does not exist; FALSE with an error (LUMO_ERROR_CHAIN_BROKEN) when it
 * is unreadable, malformed or its MAC does not match. */
gboolean  lumo_audit_chain_read_checkpoint  (const char   *path,
                                             GBytes       *secret,
                                             gboolean     *found,
                                             gint64       *id,
                                             guint8       *hash,
                                             GError      **error);
gboolean  lumo_audit_chain_write_checkpoint (const char   *path,
                                             GBytes       *secret,
                                             gint64        id,
                                             const guint8 *hash,
                                             GError      **error);

/* A writer of audit.head that keeps its descriptor between writes (one
 * per store, used from one thread at a time); the same file and rules as
 * lumo_audit_chain_write_checkpoint(), which is a one-shot of it. */
typedef struct _LumoAuditHeadFile LumoAuditHeadFile;

LumoAuditHeadFile *lumo_audit_head_file_new   (const char        *path);
void               lumo_audit_head_file_free  (LumoAuditHeadFile *self);
gboolean           lumo_audit_head_file_write (LumoAuditHeadFile *self,
                                               GBytes            *secret,
                                               gint64             id,
                                               const guint8      *hash,
                                               GError           **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (LumoAuditHeadFile, lumo_audit_head_file_free)

typedef enum
{
  LUMO_AUDIT_FAULT_NONE,
  LUMO_AUDIT_FAULT_ROW_CHANGED,    /* hash differs: edited, inserted, swapped or moved */
  LUMO_AUDIT_FAULT_ROW_MISSING,    /* a gap in the ids: rows were deleted */
  LUMO_AUDIT_FAULT_RESULT_CHANGED, /* the result MAC does not match */
  LUMO_AUDIT_FAULT_TAIL_CUT,       /* the chain ends before the checkpoint */
  LUMO_AUDIT_FAULT_CHECKPOINT,     /* checkpoint forged, unreadable or not on the chain */
  LUMO_AUDIT_FAULT_ANCHOR,         /* the retention anchor was forged */
} LumoAuditFault;

typedef struct
{
  LumoAuditFault fault;
  gint64         bad_id;                 /* the first row at fault, 0 if none */
  gint64         rows_checked;
  gint64         first_id;               /* 0 for an empty log */
  gint64         last_id;
  gint64         anchor_id;              /* 0 unless retention deleted rows */
  gint64         checkpoint_id;          /* 0 when there is no checkpoint */
  gint64         rows_after_checkpoint;
  /* FALSE when a collected log was verified without its key file: then
   * only the unkeyed chain was checked — not the result MACs, the
   * retention anchor's MAC or a checkpoint. */
  gboolean       keyed;
} LumoAuditVerifyReport;

G_END_DECLS
