/* lumo-rate-meter.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-rate-meter"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "lumo-rate-meter.h"

#define BAR_HEIGHT        10
#define SPARK_WIDTH       72
#define SPARK_GAP         12
#define SPARK_BAR_GAP     2
#define WARNING_FRACTION  0.8

struct _LumoRateMeter
{
  GtkWidget      parent_instance;

  LumoMeterItem *item;
  gulong         notify_id;
};

G_DEFINE_FINAL_TYPE (LumoRateMeter, lumo_rate_meter, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_ITEM,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
lookup_color (GtkWidget  *widget,
              const char *name,
              const char *fallback,
              GdkRGBA    *rgba)
{
  GtkStyleContext *context = gtk_widget_get_style_context (widget);

  /* Named colours of the libadwaita stylesheet, so the meter follows the
   * light and dark styles and high contrast. */
  if (!gtk_style_context_lookup_color (context, name, rgba))
    gdk_rgba_parse (rgba, fallback);
}

static void
append_rounded (GtkSnapshot           *snapshot,
                const graphene_rect_t *rect,
                float                  radius,
                const GdkRGBA         *color)
{
  GskRoundedRect rounded;

  gsk_rounded_rect_init_from_rect (&rounded, rect, MIN (radius, rect->size.height / 2));
  gtk_snapshot_push_rounded_clip (snapshot, &rounded);
  gtk_snapshot_append_color (snapshot, color, rect);
  gtk_snapshot_pop (snapshot);
}

static void
lumo_rate_meter_snapshot (GtkWidget   *widget,
                          GtkSnapshot *snapshot)
{
  LumoRateMeter *self = (LumoRateMeter *)widget;
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  guint used = 0, limit = 0;
  const guint *history = NULL;
  guint max_bucket = 1;
  float bar_width, y, fraction;
  GdkRGBA trough, fill, spark;

  if (width <= 0 || height <= 0)
    return;

  if (self->item != NULL)
    {
      used = lumo_meter_item_get_used (self->item);
      limit = lumo_meter_item_get_limit (self->item);
      history = lumo_meter_item_get_history (self->item);
    }

  fraction = limit > 0 ? MIN ((float) used / limit, 1.0f) : 0.0f;

  gtk_style_context_get_color (gtk_widget_get_style_context (widget), &trough);
  trough.alpha *= 0.15f;
  if (limit > 0 && used >= limit)
    lookup_color (widget, "error_color", "#c01c28", &fill);
  else if (fraction >= WARNING_FRACTION)
    lookup_color (widget, "warning_color", "#9c6e03", &fill);
  else
    lookup_color (widget, "accent_color", "#1c71d8", &fill);
  gtk_style_context_get_color (gtk_widget_get_style_context (widget), &spark);
  spark.alpha *= 0.55f;

  bar_width = MAX (width - SPARK_WIDTH - SPARK_GAP, width / 2);
  y = (height - BAR_HEIGHT) / 2.0f;

  append_rounded (snapshot, &GRAPHENE_RECT_INIT (0, y, bar_width, BAR_HEIGHT), BAR_HEIGHT / 2.0f, &trough);
  if (fraction > 0)
    append_rounded (snapshot, &GRAPHENE_RECT_INIT (0, y, MAX (bar_width * fraction, BAR_HEIGHT), BAR_HEIGHT),
                    BAR_HEIGHT / 2.0f, &fill);

  /* The sparkline: where in the window the writes happened, oldest left. */
  if (width - bar_width >= SPARK_GAP + LUMO_METER_N_BUCKETS * 2)
    {
      float x0 = bar_width + SPARK_GAP;
      float spark_width = width - x0;
      float slot = spark_width / LUMO_METER_N_BUCKETS;
      float spark_height = MIN (height, 24);
      float base = (height + spark_height) / 2.0f;

      for (guint i = 0; history != NULL && i < LUMO_METER_N_BUCKETS; i++)
        max_bucket = MAX (max_bucket, history[i]);

      for (guint i = 0; i < LUMO_METER_N_BUCKETS; i++)
        {
          guint value = history != NULL ? history[i] : 0;
          float h = value > 0 ? MAX (spark_height * value / max_bucket, 2.0f) : 1.0f;
          GdkRGBA color = value > 0 ? spark : trough;

          gtk_snapshot_append_color (snapshot, &color,
                                     &GRAPHENE_RECT_INIT (x0 + i * slot, base - h,
                                                          MAX (slot - SPARK_BAR_GAP, 1), h));
        }
    }
}

static void
lumo_rate_meter_measure (GtkWidget      *widget,
                         GtkOrientation  orientation,
                         int             for_size,
                         int            *minimum,
                         int            *natural,
                         int            *minimum_baseline,
                         int            *natural_baseline)
{
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      *minimum = 80;
      *natural = 240 + SPARK_GAP + SPARK_WIDTH;
    }
  else
    {
      *minimum = 24;
      *natural = 24;
    }
}

static void
update_accessible (LumoRateMeter *self)
{
  guint used = self->item ? lumo_meter_item_get_used (self->item) : 0;
  guint limit = self->item ? lumo_meter_item_get_limit (self->item) : 0;
  g_autofree char *text = NULL;

  /* Translators: the accessible value of a rate meter, e.g. "12 of 30 writes in the last minute". */
  text = g_strdup_printf (_("%u of %u writes in the last minute"), used, limit);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_VALUE_MIN, 0.0,
                                  GTK_ACCESSIBLE_PROPERTY_VALUE_MAX, (double) limit,
                                  GTK_ACCESSIBLE_PROPERTY_VALUE_NOW, (double) used,
                                  GTK_ACCESSIBLE_PROPERTY_VALUE_TEXT, text,
                                  -1);
}

static void
on_item_notify_cb (LumoMeterItem *item,
                   GParamSpec    *pspec,
                   LumoRateMeter *self)
{
  update_accessible (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
lumo_rate_meter_dispose (GObject *object)
{
  LumoRateMeter *self = (LumoRateMeter *)object;

  lumo_rate_meter_set_item (self, NULL);

  G_OBJECT_CLASS (lumo_rate_meter_parent_class)->dispose (object);
}

static void
lumo_rate_meter_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  LumoRateMeter *self = LUMO_RATE_METER (object);

  switch (prop_id)
    {
    case PROP_ITEM:
      g_value_set_object (value, self->item);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
lumo_rate_meter_set_property (GObject      *object,
                              guint         prop_id,
                              const GValue *value,
                              GParamSpec   *pspec)
{
  LumoRateMeter *self = LUMO_RATE_METER (object);

  switch (prop_id)
    {
    case PROP_ITEM:
      lumo_rate_meter_set_item (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
lumo_rate_meter_class_init (LumoRateMeterClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = lumo_rate_meter_dispose;
  object_class->get_property = lumo_rate_meter_get_property;
  object_class->set_property = lumo_rate_meter_set_property;

  widget_class->snapshot = lumo_rate_meter_snapshot;
  widget_class->measure = lumo_rate_meter_measure;

  properties[PROP_ITEM] =
    g_param_spec_object ("item", NULL, NULL, LUMO_TYPE_METER_ITEM,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_css_name (widget_class, "ratemeter");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_METER);
}

static void
lumo_rate_meter_init (LumoRateMeter *self)
{
  update_accessible (self);
}

GtkWidget *
lumo_rate_meter_new (void)
{
  return g_object_new (LUMO_TYPE_RATE_METER, NULL);
}

void
lumo_rate_meter_set_item (LumoRateMeter *self,
                          LumoMeterItem *item)
{
  g_return_if_fail (LUMO_IS_RATE_METER (self));
  g_return_if_fail (item == NULL || LUMO_IS_METER_ITEM (item));

  if (self->item == item)
    return;

  if (self->item != NULL)
    g_clear_signal_handler (&self->notify_id, self->item);
  g_set_object (&self->item, item);
  if (item != NULL)
    self->notify_id = g_signal_connect (item, "notify", G_CALLBACK (on_item_notify_cb), self);

  update_accessible (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ITEM]);
}

LumoMeterItem *
lumo_rate_meter_get_item (LumoRateMeter *self)
{
  g_return_val_if_fail (LUMO_IS_RATE_METER (self), NULL);

  return self->item;
}
