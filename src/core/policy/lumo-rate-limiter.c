/* lumo-rate-limiter.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-rate-limiter"

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "lumo-rate-limiter.h"

/* The log of one key. Admission needs a free slot, so a log never holds
 * more than @limit entries; they are in admission order, which is also time
 * order because the clock is clamped to never run backwards. */
typedef struct
{
  GArray *times;   /* gint64, oldest first */
} KeyLog;

struct _LumoRateLimiter
{
  GObject        parent_instance;

  guint          limit;
  gint64         window_us;

  LumoClockFunc  clock;
  gpointer       clock_data;
  gint64         latest;          /* the latest time seen, for the clamp */

  GHashTable    *logs;            /* char *key → KeyLog */
};

G_DEFINE_FINAL_TYPE (LumoRateLimiter, lumo_rate_limiter, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_LIMIT,
  PROP_WINDOW,
  N_PROPS
};

enum {
  CHANGED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static void
key_log_free (gpointer data)
{
  KeyLog *log = data;

  g_array_unref (log->times);
  g_free (log);
}

static void
lumo_rate_limiter_finalize (GObject *object)
{
  LumoRateLimiter *self = (LumoRateLimiter *) object;

  g_clear_pointer (&self->logs, g_hash_table_unref);

  G_OBJECT_CLASS (lumo_rate_limiter_parent_class)->finalize (object);
}

static void
lumo_rate_limiter_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  LumoRateLimiter *self = LUMO_RATE_LIMITER (object);

  switch (prop_id)
    {
    case PROP_LIMIT:
      g_value_set_uint (value, self->limit);
      break;

    case PROP_WINDOW:
      g_value_set_int64 (value, self->window_us);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
lumo_rate_limiter_set_property (GObject      *object,
                                guint         prop_id,
                                const GValue *value,
                                GParamSpec   *pspec)
{
  LumoRateLimiter *self = LUMO_RATE_LIMITER (object);

  switch (prop_id)
    {
    case PROP_LIMIT:
      self->limit = g_value_get_uint (value);
      break;

    case PROP_WINDOW:
      self->window_us = g_value_get_int64 (value);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
lumo_rate_limiter_class_init (LumoRateLimiterClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = lumo_rate_limiter_finalize;
  object_class->get_property = lumo_rate_limiter_get_property;
  object_class->set_property = lumo_rate_limiter_set_property;

  properties[PROP_LIMIT] =
    g_param_spec_uint ("limit", NULL, NULL,
                       1, G_MAXUINT16, LUMO_RATE_LIMIT_WRITES,
                       (G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS));

  properties[PROP_WINDOW] =
    g_param_spec_int64 ("window", NULL, NULL,
                        1, G_MAXINT64 / 4, LUMO_RATE_LIMIT_WINDOW_US,
                        (G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * LumoRateLimiter::changed:
   * @key: the key that admitted a write
   *
   * For the live meters: emitted after every admission.
   */
  signals[CHANGED] =
    g_signal_new ("changed",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING | G_SIGNAL_TYPE_STATIC_SCOPE);
}

static void
lumo_rate_limiter_init (LumoRateLimiter *self)
{
  self->limit = LUMO_RATE_LIMIT_WRITES;
  self->window_us = LUMO_RATE_LIMIT_WINDOW_US;
  self->latest = G_MININT64;
  self->logs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, key_log_free);
}

LumoRateLimiter *
lumo_rate_limiter_new (guint  limit,
                       gint64 window_us)
{
  g_return_val_if_fail (limit > 0 && limit <= G_MAXUINT16, NULL);
  g_return_val_if_fail (window_us > 0, NULL);

  return g_object_new (LUMO_TYPE_RATE_LIMITER,
                       "limit", limit,
                       "window", window_us,
                       NULL);
}

void
lumo_rate_limiter_set_clock (LumoRateLimiter *self,
                             LumoClockFunc    clock,
                             gpointer         user_data)
{
  g_return_if_fail (LUMO_IS_RATE_LIMITER (self));

  self->clock = clock;
  self->clock_data = user_data;
}

gint64
lumo_rate_limiter_now (LumoRateLimiter *self)
{
  gint64 now;

  g_return_val_if_fail (LUMO_IS_RATE_LIMITER (self), 0);

  now = self->clock ? self->clock (self->clock_data) : g_get_monotonic_time ();

  /* Clamped, so that admission order stays time order and an entry stays
   * counted until the clock has really moved a whole window past it. */
  if (now < self->latest)
    now = self->latest;
  self->latest = now;

  return now;
}

/* Drops the entries of @log that expired at @now: now - t >= window. */
static void
expire (LumoRateLimiter *self,
        KeyLog          *log,
        gint64           now)
{
  guint n = 0;

  while (n < log->times->len &&
         now - g_array_index (log->times, gint64, n) >= self->window_us)
    n++;

  if (n > 0)
    g_array_remove_range (log->times, 0, n);
}

static KeyLog *
lookup_log (LumoRateLimiter *self,
            const char      *key,
            gint64           now)
{
  KeyLog *log = g_hash_table_lookup (self->logs, key);

  if (log == NULL)
    return NULL;

  expire (self, log, now);
  if (log->times->len == 0)
    {
      /* Keys come and go with callers; an idle key costs nothing. */
      g_hash_table_remove (self->logs, key);
      return NULL;
    }

  return log;
}

gboolean
lumo_rate_limiter_try_acquire (LumoRateLimiter *self,
                               const char      *key,
                               gint64          *retry_after_us)
{
  KeyLog *log;
  gint64 now;

  g_return_val_if_fail (LUMO_IS_RATE_LIMITER (self), FALSE);
  g_return_val_if_fail (key != NULL, FALSE);

  now = lumo_rate_limiter_now (self);
  log = lookup_log (self, key, now);

  if (log != NULL && log->times->len >= self->limit)
    {
      gint64 oldest = g_array_index (log->times, gint64, 0);

      if (retry_after_us != NULL)
        *retry_after_us = oldest + self->window_us - now;
      return FALSE;
    }

  if (log == NULL)
    {
      log = g_new0 (KeyLog, 1);
      log->times = g_array_sized_new (FALSE, FALSE, sizeof (gint64), self->limit);
      g_hash_table_insert (self->logs, g_strdup (key), log);
    }

  g_array_append_val (log->times, now);
  if (retry_after_us != NULL)
    *retry_after_us = 0;

  g_signal_emit (self, signals[CHANGED], 0, key);

  return TRUE;
}

void
lumo_rate_limiter_seed (LumoRateLimiter *self,
                        const char      *key,
                        gint64           at_us)
{
  KeyLog *log;
  gint64 now;
  guint i;

  g_return_if_fail (LUMO_IS_RATE_LIMITER (self));
  g_return_if_fail (key != NULL);

  now = lumo_rate_limiter_now (self);
  at_us = MIN (at_us, now);
  if (now - at_us >= self->window_us)
    return;

  if (!(log = lookup_log (self, key, now)))
    {
      log = g_new0 (KeyLog, 1);
      log->times = g_array_sized_new (FALSE, FALSE, sizeof (gint64), self->limit);
      g_hash_table_insert (self->logs, g_strdup (key), log);
    }

  /* Kept in time order: the oldest entry is the next to expire. */
  for (i = log->times->len; i > 0 && g_array_index (log->times, gint64, i - 1) > at_us; i--)
    ;
  g_array_insert_val (log->times, i, at_us);
  if (log->times->len > self->limit)
    g_array_remove_range (log->times, 0, log->times->len - self->limit);

  g_signal_emit (self, signals[CHANGED], 0, key);
}

void
lumo_rate_limiter_usage (LumoRateLimiter *self,
                         const char      *key,
                         guint           *used,
                         guint           *limit,
                         gint64          *next_free_us)
{
  KeyLog *log;
  gint64 now;

  g_return_if_fail (LUMO_IS_RATE_LIMITER (self));
  g_return_if_fail (key != NULL);

  now = lumo_rate_limiter_now (self);
  log = lookup_log (self, key, now);

  if (used != NULL)
    *used = log ? log->times->len : 0;
  if (limit != NULL)
    *limit = self->limit;
  if (next_free_us != NULL)
    *next_free_us = log ? g_array_index (log->times, gint64, 0) + self->window_us - now : 0;
}

static int
compare_strings (const void *a,
                 const void *b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

char **
lumo_rate_limiter_list_active (LumoRateLimiter *self)
{
  g_autoptr(GStrvBuilder) builder = NULL;
  g_autofree gpointer *keys = NULL;
  guint n_keys = 0;
  gint64 now;

  g_return_val_if_fail (LUMO_IS_RATE_LIMITER (self), NULL);

  now = lumo_rate_limiter_now (self);
  builder = g_strv_builder_new ();

  /* A copy of the keys, since lookup_log() may remove idle ones. */
  keys = g_hash_table_get_keys_as_array (self->logs, &n_keys);
  qsort (keys, n_keys, sizeof (gpointer), compare_strings);
  for (guint i = 0; i < n_keys; i++)
    {
      g_autofree char *key = g_strdup (keys[i]);

      if (lookup_log (self, key, now) != NULL)
        g_strv_builder_add (builder, key);
    }

  return g_strv_builder_end (builder);
}

guint
lumo_rate_limiter_get_limit (LumoRateLimiter *self)
{
  g_return_val_if_fail (LUMO_IS_RATE_LIMITER (self), 0);

  return self->limit;
}

gint64
lumo_rate_limiter_get_window (LumoRateLimiter *self)
{
  g_return_val_if_fail (LUMO_IS_RATE_LIMITER (self), 0);

  return self->window_us;
}
