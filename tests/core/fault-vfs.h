/* fault-vfs.h — an SQLite VFS that fails writes and syncs on demand
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A shim over the default unix VFS under its own name (FAULT_VFS), never
 * the default: only a database opened on it by name sees faults (the
 * audit store through _lumo_audit_store_new_full()). The faults are
 * atomics, so a test sets them while the store's writer thread runs.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define FAULT_VFS "lumo-fault"

/* 0: pass through; else the SQLite error code xWrite / xSync return. */
extern gint fault_vfs_write_fault;
extern gint fault_vfs_sync_fault;
/* Writes to let through before fault_vfs_write_fault applies. */
extern gint fault_vfs_writes_before;

/* Once per test program. */
void fault_vfs_register (void);
void fault_vfs_clear    (void);

G_END_DECLS
