/* lumo-error.h — the one error domain of Lumo Access
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every GError that leaves src/core is in LUMO_ERROR (or G_IO_ERROR for
 * cancellation). Tests assert on these codes, so never renumber them: add new
 * codes at the end.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define LUMO_ERROR (lumo_error_quark ())

typedef enum
{
  LUMO_ERROR_INVALID_ID = 1,       /* not /^[a-p]{32}$/, or a bad origin */
  LUMO_ERROR_INVALID_ARGUMENT,     /* a field of the wrong type or value */
  LUMO_ERROR_LIMIT_EXCEEDED,       /* a protocol limit (names, counts, sizes) */
  LUMO_ERROR_RESERVED_NAMESPACE,   /* browser, page, file, … */
  LUMO_ERROR_INVALID_NAME,         /* characters a model API refuses */
  LUMO_ERROR_DUPLICATE,            /* first comer keeps the name */
  LUMO_ERROR_NOT_FOUND,
  LUMO_ERROR_DB_CORRUPT,           /* not a database, or quick_check failed */
  LUMO_ERROR_DB_TOO_NEW,           /* written by a newer Lumo Access */
  LUMO_ERROR_DB_IO,                /* SQLITE_IOERR and friends */
  LUMO_ERROR_DB_FULL,              /* SQLITE_FULL: the disk is full */
  LUMO_ERROR_DB_BUSY,              /* another process held the lock too long */
  LUMO_ERROR_DB,                   /* any other SQLite failure */
  LUMO_ERROR_FRAME_TOO_LARGE,      /* a length over the cap */
  LUMO_ERROR_FRAME_TRUNCATED,      /* the stream ended inside a frame */
  LUMO_ERROR_FRAME_INVALID_UTF8,
  LUMO_ERROR_FRAME_INVALID_JSON,   /* not JSON, or trailing garbage */
  LUMO_ERROR_FRAME_NOT_OBJECT,     /* JSON, but not an object */
  LUMO_ERROR_PROTOCOL,             /* a well-formed message that breaks the bridge protocol */
  LUMO_ERROR_CHAIN_BROKEN,         /* the audit hash chain does not verify */
  LUMO_ERROR_SECRET,               /* the per-install secret is missing or unreadable */
  LUMO_ERROR_UNAVAILABLE,          /* the app or a peer cannot be reached */
  LUMO_ERROR_IO,                   /* a file outside the databases cannot be read or written */
  LUMO_ERROR_PERMISSION_DENIED,    /* the peer may not do this (a sandboxed app, not the helper) */
  LUMO_ERROR_NOT_AUTHORIZED,       /* a desktop agent's token refused, or the agent not allowed */
} LumoError;

GQuark lumo_error_quark (void);

G_END_DECLS
