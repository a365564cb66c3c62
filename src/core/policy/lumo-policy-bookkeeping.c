/* lumo-policy-bookkeeping.c — the bookkeeping that decisions leave in memory
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A probe or an admitted write of a known caller changes no permission,
 * only what the UI shows: the probe and write counts, last_seen, and the
 * display name the caller gave last. Writing that at once cost a
 * transaction (and an fsync-ordered WAL append) per decision, so it is
 * added up here per caller and written in one transaction by a one-shot
 * timeout that exists only while something waits — an idle app has no
 * timer. Every change of the policy writes what waits in its own
 * transaction first (_lumo_policy_begin()), so a removal's undo snapshot
 * holds the latest counts.
 *
 * The counts are increments, not values, so another process's writes to
 * the same rows (a second app instance) add up instead of being lost; a
 * row removed in the meantime simply takes nothing.
 */
#define G_LOG_DOMAIN "lumo-policy"

#include "config.h"

#include "lumo-error.h"
#include "lumo-policy-private.h"
#include "lumo-protocol.h"

typedef struct
{
  guint64  probes;
  guint64  writes;
  gint64   last_seen;
  char    *display_name;   /* NULL: the name did not change */
} LumoPolicyBookkeeping;

static void
bookkeeping_free (gpointer data)
{
  LumoPolicyBookkeeping *counts = data;

  g_free (counts->display_name);
  g_free (counts);
}

static void
stop_timer (LumoPolicy *self)
{
  if (self->flush_source == NULL)
    return;

  g_source_destroy (self->flush_source);
  g_clear_pointer (&self->flush_source, g_source_unref);
}

static gboolean
on_flush_timeout_cb (gpointer user_data)
{
  /* A handler of the signals the flush emits may drop the last ref. */
  g_autoptr(LumoPolicy) self = g_object_ref (user_data);
  g_autoptr(GError) error = NULL;

  /* One-shot: a failed write arms a new timeout below. */
  g_clear_pointer (&self->flush_source, g_source_unref);

  if (!lumo_policy_flush (self, &error))
    g_warning ("Cannot write the probe and write counts of %u callers; trying again: %s",
               g_hash_table_size (self->bookkeeping), error->message);

  return G_SOURCE_REMOVE;
}

static void
arm_timer (LumoPolicy *self)
{
  if (self->flush_source != NULL || g_hash_table_size (self->bookkeeping) == 0)
    return;

  self->flush_source = g_timeout_source_new_seconds (LUMO_POLICY_FLUSH_DELAY_SECONDS);
  g_source_set_static_name (self->flush_source, "[lumo] policy bookkeeping");
  g_source_set_callback (self->flush_source, on_flush_timeout_cb, self, NULL);
  g_source_attach (self->flush_source, self->context);
}

void
_lumo_policy_bookkeeping_note (LumoPolicy *self,
                               const char *key,
                               gboolean    probe,
                               const char *display_name)
{
  LumoPolicyBookkeeping *counts;
  const LumoCallerInfo *known;
  const char *current;

  if (!(counts = g_hash_table_lookup (self->bookkeeping, key)))
    {
      counts = g_new0 (LumoPolicyBookkeeping, 1);
      g_hash_table_insert (self->bookkeeping, g_strdup (key), counts);
    }

  if (probe)
    counts->probes++;
  else
    counts->writes++;
  counts->last_seen = MAX (counts->last_seen, g_get_real_time ());

  /* Only a name that differs from the latest is worth a write. A stored
   * name is clean already, and cleaning a clean name changes nothing, so
   * the usual probe (the same name again) costs one comparison. */
  known = g_hash_table_lookup (self->callers, key);
  current = counts->display_name != NULL ? counts->display_name
          : known != NULL ? known->display_name : NULL;
  if (display_name != NULL && g_strcmp0 (display_name, current) != 0)
    {
      g_autofree char *name = _lumo_policy_store_clean_text (display_name);

      if (name != NULL && g_strcmp0 (name, current) != 0)
        {
          g_free (counts->display_name);
          counts->display_name = g_steal_pointer (&name);
        }
    }

  arm_timer (self);
}

/* Inside a transaction: applies every waiting row. */
static gboolean
bookkeeping_write (LumoPolicy  *self,
                   GError     **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;
  GHashTableIter iter;
  gpointer key, value;

  if (g_hash_table_size (self->bookkeeping) == 0)
    return TRUE;

  if (!(stmt = lumo_db_prepare (self->db,
                                "UPDATE callers SET probe_count = probe_count + ?1, "
                                "  write_count = write_count + ?2, "
                                "  last_seen = max (last_seen, ?3), "
                                "  display_name = coalesce (?4, display_name) "
                                "WHERE provider_id = ?5 AND id = ?6",
                                error)))
    return FALSE;

  g_hash_table_iter_init (&iter, self->bookkeeping);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      const LumoPolicyBookkeeping *counts = value;
      char provider_id[LUMO_EXTENSION_ID_LEN + 1];
      char caller_id[LUMO_EXTENSION_ID_LEN + 1];

      /* Only _lumo_policy_bookkeeping_note() adds keys, from valid IDs. */
      if (!lumo_caller_key_split (key, provider_id, caller_id))
        g_assert_not_reached ();

      sqlite3_reset (stmt);
      sqlite3_bind_int64 (stmt, 1, (gint64) counts->probes);
      sqlite3_bind_int64 (stmt, 2, (gint64) counts->writes);
      sqlite3_bind_int64 (stmt, 3, counts->last_seen);
      sqlite3_bind_text (stmt, 4, counts->display_name, -1, SQLITE_STATIC);
      sqlite3_bind_text (stmt, 5, provider_id, LUMO_EXTENSION_ID_LEN, SQLITE_TRANSIENT);
      sqlite3_bind_text (stmt, 6, caller_id, LUMO_EXTENSION_ID_LEN, SQLITE_TRANSIENT);
      if (!_lumo_policy_store_step_done (self->db, stmt, "Cannot write the probe and write counts", error))
        return FALSE;
    }

  return TRUE;
}

/* After the commit of bookkeeping_write(): nothing waits. */
static void
bookkeeping_clear (LumoPolicy *self)
{
  g_hash_table_remove_all (self->bookkeeping);
  stop_timer (self);
}

void
_lumo_policy_bookkeeping_overlay (LumoPolicy     *self,
                                  LumoCallerInfo *info)
{
  char key[LUMO_CALLER_KEY_SIZE];
  const LumoPolicyBookkeeping *counts;

  if (g_hash_table_size (self->bookkeeping) == 0)
    return;

  lumo_caller_key_fill (key, info->provider_id, info->id);
  if (!(counts = g_hash_table_lookup (self->bookkeeping, key)))
    return;

  info->probe_count += counts->probes;
  info->write_count += counts->writes;
  info->last_seen = MAX (info->last_seen, counts->last_seen);
  if (counts->display_name != NULL)
    {
      g_free (info->display_name);
      info->display_name = g_strdup (counts->display_name);
    }
}

/* ---- transactions ---------------------------------------------------------- */

gboolean
_lumo_policy_begin (LumoPolicy  *self,
                    GError     **error)
{
  if (!lumo_db_begin (self->db, error))
    return FALSE;

  if (!bookkeeping_write (self, error))
    {
      lumo_db_rollback (self->db);
      return FALSE;
    }

  return TRUE;
}

gboolean
_lumo_policy_commit (LumoPolicy  *self,
                     GError     **error)
{
  if (!lumo_db_commit (self->db, error))
    return FALSE;

  bookkeeping_clear (self);

  return TRUE;
}

gboolean
_lumo_policy_finish (LumoPolicy  *self,
                     gboolean     ok,
                     GError     **error)
{
  if (!ok)
    {
      lumo_db_rollback (self->db);
      return FALSE;
    }

  if (!_lumo_policy_commit (self, error))
    return FALSE;

  _lumo_policy_announce (self);

  return TRUE;
}

static gboolean
write_now (LumoPolicy  *self,
           GError     **error)
{
  return _lumo_policy_begin (self, error) &&
         _lumo_policy_commit (self, error);
}

gboolean
lumo_policy_flush (LumoPolicy  *self,
                   GError     **error)
{
  g_return_val_if_fail (LUMO_IS_POLICY (self), FALSE);

  if (g_hash_table_size (self->bookkeeping) == 0)
    return TRUE;

  if (!write_now (self, error))
    {
      arm_timer (self);
      return FALSE;
    }

  _lumo_policy_announce (self);

  return TRUE;
}

gboolean
lumo_policy_has_unwritten_bookkeeping (LumoPolicy *self)
{
  g_return_val_if_fail (LUMO_IS_POLICY (self), FALSE);

  return g_hash_table_size (self->bookkeeping) > 0;
}

void
_lumo_policy_bookkeeping_dispose (LumoPolicy *self)
{
  g_autoptr(GError) error = NULL;

  /* No signals from a dying object: the next instance reads the counts. */
  if (self->bookkeeping != NULL && g_hash_table_size (self->bookkeeping) > 0 &&
      self->db != NULL && !write_now (self, &error))
    g_warning ("The probe and write counts of %u callers are lost: %s",
               g_hash_table_size (self->bookkeeping), error->message);

  if (self->bookkeeping != NULL)
    g_hash_table_remove_all (self->bookkeeping);
  stop_timer (self);
}

GHashTable *
_lumo_policy_bookkeeping_new_table (void)
{
  return g_hash_table_new_full (g_str_hash, g_str_equal, g_free, bookkeeping_free);
}
