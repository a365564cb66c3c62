/* fault-vfs.c — an SQLite VFS that fails writes and syncs on demand
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <sqlite3.h>

#include "fault-vfs.h"

typedef struct
{
  sqlite3_file  base;
  sqlite3_file *real;
} FaultFile;

static sqlite3_vfs *real_vfs;
static sqlite3_vfs fault_vfs;
static sqlite3_io_methods fault_methods;

gint fault_vfs_write_fault;
gint fault_vfs_sync_fault;
gint fault_vfs_writes_before;

#define REAL(f) (((FaultFile *) (f))->real)

static int
fault_close (sqlite3_file *f)
{
  return REAL (f)->pMethods->xClose (REAL (f));
}

static int
fault_read (sqlite3_file  *f,
            void          *buf,
            int            amt,
            sqlite3_int64  off)
{
  return REAL (f)->pMethods->xRead (REAL (f), buf, amt, off);
}

static int
fault_write (sqlite3_file  *f,
             const void    *buf,
             int            amt,
             sqlite3_int64  off)
{
  int rc = g_atomic_int_get (&fault_vfs_write_fault);

  if (rc != 0 && g_atomic_int_add (&fault_vfs_writes_before, -1) <= 0)
    return rc;

  return REAL (f)->pMethods->xWrite (REAL (f), buf, amt, off);
}

static int
fault_truncate (sqlite3_file  *f,
                sqlite3_int64  size)
{
  return REAL (f)->pMethods->xTruncate (REAL (f), size);
}

static int
fault_sync (sqlite3_file *f,
            int           flags)
{
  int rc = g_atomic_int_get (&fault_vfs_sync_fault);

  if (rc != 0)
    return rc;

  return REAL (f)->pMethods->xSync (REAL (f), flags);
}

static int
fault_file_size (sqlite3_file  *f,
                 sqlite3_int64 *size)
{
  return REAL (f)->pMethods->xFileSize (REAL (f), size);
}

static int
fault_lock (sqlite3_file *f,
            int           level)
{
  return REAL (f)->pMethods->xLock (REAL (f), level);
}

static int
fault_unlock (sqlite3_file *f,
              int           level)
{
  return REAL (f)->pMethods->xUnlock (REAL (f), level);
}

static int
fault_check_reserved_lock (sqlite3_file *f,
                           int          *out)
{
  return REAL (f)->pMethods->xCheckReservedLock (REAL (f), out);
}

static int
fault_file_control (sqlite3_file *f,
                    int           op,
                    void         *arg)
{
  return REAL (f)->pMethods->xFileControl (REAL (f), op, arg);
}

static int
fault_sector_size (sqlite3_file *f)
{
  return REAL (f)->pMethods->xSectorSize (REAL (f));
}

static int
fault_device_characteristics (sqlite3_file *f)
{
  return REAL (f)->pMethods->xDeviceCharacteristics (REAL (f));
}

static int
fault_shm_map (sqlite3_file  *f,
               int            page,
               int            page_size,
               int            extend,
               void volatile **out)
{
  return REAL (f)->pMethods->xShmMap (REAL (f), page, page_size, extend, out);
}

static int
fault_shm_lock (sqlite3_file *f,
                int           offset,
                int           n,
                int           flags)
{
  return REAL (f)->pMethods->xShmLock (REAL (f), offset, n, flags);
}

static void
fault_shm_barrier (sqlite3_file *f)
{
  REAL (f)->pMethods->xShmBarrier (REAL (f));
}

static int
fault_shm_unmap (sqlite3_file *f,
                 int           delete_flag)
{
  return REAL (f)->pMethods->xShmUnmap (REAL (f), delete_flag);
}

static int
fault_fetch (sqlite3_file   *f,
             sqlite3_int64   off,
             int             amt,
             void          **out)
{
  return REAL (f)->pMethods->xFetch (REAL (f), off, amt, out);
}

static int
fault_unfetch (sqlite3_file  *f,
               sqlite3_int64  off,
               void          *p)
{
  return REAL (f)->pMethods->xUnfetch (REAL (f), off, p);
}

static int
fault_open (sqlite3_vfs  *vfs,
            const char   *name,
            sqlite3_file *file,
            int           flags,
            int          *out_flags)
{
  FaultFile *ff = (FaultFile *) file;
  int rc;

  ff->real = (sqlite3_file *) (ff + 1);
  rc = real_vfs->xOpen (real_vfs, name, ff->real, flags, out_flags);
  ff->base.pMethods = rc == SQLITE_OK ? &fault_methods : NULL;

  return rc;
}

static int
fault_delete (sqlite3_vfs *vfs,
              const char  *name,
              int          sync_dir)
{
  return real_vfs->xDelete (real_vfs, name, sync_dir);
}

static int
fault_access (sqlite3_vfs *vfs,
              const char  *name,
              int          flags,
              int         *out)
{
  return real_vfs->xAccess (real_vfs, name, flags, out);
}

static int
fault_full_pathname (sqlite3_vfs *vfs,
                     const char  *name,
                     int          n,
                     char        *out)
{
  return real_vfs->xFullPathname (real_vfs, name, n, out);
}

static int
fault_randomness (sqlite3_vfs *vfs,
                  int          n,
                  char        *out)
{
  return real_vfs->xRandomness (real_vfs, n, out);
}

static int
fault_sleep (sqlite3_vfs *vfs,
             int          us)
{
  return real_vfs->xSleep (real_vfs, us);
}

static int
fault_current_time_int64 (sqlite3_vfs   *vfs,
                          sqlite3_int64 *out)
{
  return real_vfs->xCurrentTimeInt64 (real_vfs, out);
}

static int
fault_get_last_error (sqlite3_vfs *vfs,
                      int          n,
                      char        *out)
{
  return real_vfs->xGetLastError (real_vfs, n, out);
}

void
fault_vfs_register (void)
{
  real_vfs = sqlite3_vfs_find (NULL);
  g_assert_nonnull (real_vfs);

  fault_methods = (sqlite3_io_methods) {
    .iVersion = 3,
    .xClose = fault_close,
    .xRead = fault_read,
    .xWrite = fault_write,
    .xTruncate = fault_truncate,
    .xSync = fault_sync,
    .xFileSize = fault_file_size,
    .xLock = fault_lock,
    .xUnlock = fault_unlock,
    .xCheckReservedLock = fault_check_reserved_lock,
    .xFileControl = fault_file_control,
    .xSectorSize = fault_sector_size,
    .xDeviceCharacteristics = fault_device_characteristics,
    .xShmMap = fault_shm_map,
    .xShmLock = fault_shm_lock,
    .xShmBarrier = fault_shm_barrier,
    .xShmUnmap = fault_shm_unmap,
    .xFetch = fault_fetch,
    .xUnfetch = fault_unfetch,
  };

  fault_vfs = (sqlite3_vfs) {
    .iVersion = 2,
    .szOsFile = sizeof (FaultFile) + real_vfs->szOsFile,
    .mxPathname = real_vfs->mxPathname,
    .zName = FAULT_VFS,
    .xOpen = fault_open,
    .xDelete = fault_delete,
    .xAccess = fault_access,
    .xFullPathname = fault_full_pathname,
    .xDlOpen = NULL,
    .xRandomness = fault_randomness,
    .xSleep = fault_sleep,
    .xCurrentTimeInt64 = fault_current_time_int64,
    .xGetLastError = fault_get_last_error,
  };
  /* Never the default: only what is opened on it by name sees faults. */
  g_assert_cmpint (sqlite3_vfs_register (&fault_vfs, 0), ==, SQLITE_OK);
}

void
fault_vfs_clear (void)
{
  g_atomic_int_set (&fault_vfs_write_fault, 0);
  g_atomic_int_set (&fault_vfs_sync_fault, 0);
  g_atomic_int_set (&fault_vfs_writes_before, 0);
}

