/* lumo-audit-summary.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-audit-summary"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "lumo-audit-summary.h"

/* A summary that took d waits at least this many times d after it ended
 * before the next one starts, so a busy big log is not summarized
 * continuously. */
#define SPACING_FACTOR 3

struct _LumoAuditSummary
{
  AdwBin          parent_instance;

  /* Template widgets */
  GtkFlowBox     *flow_box;

  /* Owned */
  LumoAuditStore *store;
  LumoAuditQuery *query;
  GCancellable   *cancellable;
  guint           generation;
  gboolean        in_flight;
  gboolean        dirty;
  gboolean        held;
  gint64          started_us;
  gint64          ended_us;
  gint64          duration_us;
  guint           spacing_id;
  GPtrArray      *lines;
};

G_DEFINE_FINAL_TYPE (LumoAuditSummary, lumo_audit_summary, ADW_TYPE_BIN)

enum {
  PROP_0,
  PROP_BUSY,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void run (LumoAuditSummary *self);

static void
notify_busy (LumoAuditSummary *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

static int
compare_by_total (gconstpointer a,
                  gconstpointer b)
{
  const LumoAuditStats *x = *(LumoAuditStats * const *) a;
  const LumoAuditStats *y = *(LumoAuditStats * const *) b;

  if (x->total != y->total)
    return x->total > y->total ? -1 : 1;
  return g_strcmp0 (x->key, y->key);
}

static char *
counts_text (const char           *who,
             const LumoAuditStats *stats)
{
  g_autofree char *allowed = g_strdup_printf ("%'" G_GINT64_FORMAT, stats->allowed);
  g_autofree char *denied = g_strdup_printf ("%'" G_GINT64_FORMAT, stats->denied);
  g_autofree char *failed = g_strdup_printf ("%'" G_GINT64_FORMAT, stats->failed);

  /* Translators: an agent's name (or "All agents"), then the numbers of
   * its writes: "Mail Helper: 120 allowed · 17 denied · 11 failed". */
  return g_strdup_printf (_("%s: %s allowed · %s denied · %s failed"), who, allowed, denied, failed);
}

static void
add_line (LumoAuditSummary *self,
          char             *text,
          gboolean          heading)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  gtk_widget_add_css_class (label, heading ? "caption-heading" : "caption");
  gtk_flow_box_append (self->flow_box, label);
  gtk_widget_set_can_focus (gtk_widget_get_parent (label), FALSE);
  g_ptr_array_add (self->lines, text);
}

static void
show_stats (LumoAuditSummary *self,
            GPtrArray        *groups)
{
  g_autoptr(GPtrArray) sorted = g_ptr_array_new ();
  LumoAuditStats all = { 0 };
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->flow_box))) != NULL)
    gtk_flow_box_remove (self->flow_box, child);
  g_ptr_array_set_size (self->lines, 0);

  for (guint i = 0; i < groups->len; i++)
    {
      LumoAuditStats *stats = g_ptr_array_index (groups, i);

      all.total += stats->total;
      all.allowed += stats->allowed;
      all.denied += stats->denied;
      all.failed += stats->failed;
      g_ptr_array_add (sorted, stats);
    }

  /* No rows: the list says so itself. */
  gtk_widget_set_visible (GTK_WIDGET (self->flow_box), all.total > 0);
  if (all.total == 0)
    return;

  g_ptr_array_sort (sorted, compare_by_total);
  add_line (self, counts_text (_("All agents"), &all), TRUE);
  for (guint i = 0; i < sorted->len && i < LUMO_AUDIT_SUMMARY_MAX_AGENTS; i++)
    {
      LumoAuditStats *stats = g_ptr_array_index (sorted, i);

      add_line (self, counts_text (stats->name != NULL && *stats->name != '\0' ? stats->name : stats->key, stats),
                FALSE);
    }
  if (sorted->len > LUMO_AUDIT_SUMMARY_MAX_AGENTS)
    {
      guint more = sorted->len - LUMO_AUDIT_SUMMARY_MAX_AGENTS;

      add_line (self, g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "and %u more agent", "and %u more agents", more), more),
                FALSE);
    }
}

static void
on_stats_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(LumoAuditSummary) self = user_data;
  g_autoptr(GPtrArray) groups = NULL;
  g_autoptr(GError) error = NULL;

  groups = lumo_audit_store_stats_finish (LUMO_AUDIT_STORE (object), result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;   /* a newer run took its place */

  self->in_flight = FALSE;
  self->ended_us = g_get_monotonic_time ();
  self->duration_us = self->ended_us - self->started_us;

  if (groups != NULL)
    show_stats (self, groups);
  else
    {
      /* The list says why the log cannot be read; no numbers here. */
      g_debug ("No summary: %s", error->message);
      gtk_widget_set_visible (GTK_WIDGET (self->flow_box), FALSE);
    }

  if (self->dirty)
    run (self);
  else
    notify_busy (self);
}

static gboolean
on_spacing_done_cb (gpointer user_data)
{
  LumoAuditSummary *self = user_data;

  self->spacing_id = 0;
  run (self);
  return G_SOURCE_REMOVE;
}

/* Summarizes if something changed, unless one runs, the summary is held
 * or not on screen; no sooner than SPACING_FACTOR times the last one's
 * duration after it ended. */
static void
run (LumoAuditSummary *self)
{
  gint64 wait_us;

  if (!self->dirty || self->in_flight || self->held || self->spacing_id != 0 || self->store == NULL ||
      !gtk_widget_get_mapped (GTK_WIDGET (self)))
    return;

  wait_us = self->ended_us + SPACING_FACTOR * self->duration_us - g_get_monotonic_time ();
  if (self->ended_us > 0 && wait_us > 1000)
    {
      self->spacing_id = g_timeout_add ((guint) (wait_us / 1000), on_spacing_done_cb, self);
      g_source_set_name_by_id (self->spacing_id, "[lumo] audit summary spacing");
      return;
    }

  self->dirty = FALSE;
  self->in_flight = TRUE;
  self->started_us = g_get_monotonic_time ();
  lumo_audit_store_stats_async (self->store, self->query, LUMO_AUDIT_GROUP_CALLER, self->cancellable,
                                on_stats_cb, g_object_ref (self));
  notify_busy (self);
}

static void
queue_run (LumoAuditSummary *self)
{
  self->dirty = TRUE;
  run (self);
  notify_busy (self);
}

static void
on_store_news_cb (LumoAuditSummary *self)
{
  queue_run (self);
}

static void
lumo_audit_summary_map (GtkWidget *widget)
{
  GTK_WIDGET_CLASS (lumo_audit_summary_parent_class)->map (widget);

  run (LUMO_AUDIT_SUMMARY (widget));
}

/* A new search or store: whatever runs is of the old one. */
static void
restart (LumoAuditSummary *self)
{
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
  self->in_flight = FALSE;
  self->ended_us = 0;
  g_clear_handle_id (&self->spacing_id, g_source_remove);
  queue_run (self);
}

static void
lumo_audit_summary_dispose (GObject *object)
{
  LumoAuditSummary *self = (LumoAuditSummary *)object;

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_handle_id (&self->spacing_id, g_source_remove);
  if (self->store != NULL)
    g_signal_handlers_disconnect_by_data (self->store, self);
  g_clear_object (&self->store);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->query, lumo_audit_query_unref);

  G_OBJECT_CLASS (lumo_audit_summary_parent_class)->dispose (object);
}

static void
lumo_audit_summary_finalize (GObject *object)
{
  LumoAuditSummary *self = (LumoAuditSummary *)object;

  g_clear_pointer (&self->lines, g_ptr_array_unref);

  G_OBJECT_CLASS (lumo_audit_summary_parent_class)->finalize (object);
}

static void
lumo_audit_summary_get_property (GObject    *object,
                                 guint       prop_id,
                                 GValue     *value,
                                 GParamSpec *pspec)
{
  LumoAuditSummary *self = LUMO_AUDIT_SUMMARY (object);

  switch (prop_id)
    {
    case PROP_BUSY:
      g_value_set_boolean (value, lumo_audit_summary_get_busy (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
lumo_audit_summary_class_init (LumoAuditSummaryClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = lumo_audit_summary_dispose;
  object_class->finalize = lumo_audit_summary_finalize;
  object_class->get_property = lumo_audit_summary_get_property;
  widget_class->map = lumo_audit_summary_map;

  properties[PROP_BUSY] =
    g_param_spec_boolean ("busy", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class, "/dev/lumo/Access/lumo-audit-summary.ui");
  gtk_widget_class_bind_template_child (widget_class, LumoAuditSummary, flow_box);
}

static void
lumo_audit_summary_init (LumoAuditSummary *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->cancellable = g_cancellable_new ();
  self->lines = g_ptr_array_new_with_free_func (g_free);
}

void
lumo_audit_summary_set_store (LumoAuditSummary *self,
                              LumoAuditStore   *store)
{
  g_return_if_fail (LUMO_IS_AUDIT_SUMMARY (self));
  g_return_if_fail (store == NULL || LUMO_IS_AUDIT_STORE (store));

  if (self->store != NULL)
    g_signal_handlers_disconnect_by_data (self->store, self);
  g_set_object (&self->store, store);
  if (store != NULL)
    {
      g_signal_connect_swapped (store, "row-added", G_CALLBACK (on_store_news_cb), self);
      g_signal_connect_swapped (store, "result-set", G_CALLBACK (on_store_news_cb), self);
      g_signal_connect_swapped (store, "changed", G_CALLBACK (on_store_news_cb), self);
    }
  restart (self);
}

void
lumo_audit_summary_set_query (LumoAuditSummary *self,
                              LumoAuditQuery   *query)
{
  g_return_if_fail (LUMO_IS_AUDIT_SUMMARY (self));

  if (query != NULL)
    lumo_audit_query_ref (query);
  g_clear_pointer (&self->query, lumo_audit_query_unref);
  self->query = query;
  restart (self);
}

void
lumo_audit_summary_set_held (LumoAuditSummary *self,
                             gboolean          held)
{
  g_return_if_fail (LUMO_IS_AUDIT_SUMMARY (self));

  if (self->held == !!held)
    return;
  self->held = !!held;
  run (self);
}

gboolean
lumo_audit_summary_get_busy (LumoAuditSummary *self)
{
  g_return_val_if_fail (LUMO_IS_AUDIT_SUMMARY (self), FALSE);

  return self->in_flight || self->dirty;
}

GPtrArray *
lumo_audit_summary_get_lines (LumoAuditSummary *self)
{
  g_return_val_if_fail (LUMO_IS_AUDIT_SUMMARY (self), NULL);

  return self->lines;
}
