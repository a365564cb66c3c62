/* lumo-meter-row.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-meter-row"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "lumo-format.h"
#include "lumo-meter-row.h"
#include "lumo-rate-meter.h"
#include "lumo-ui-util.h"

struct _LumoMeterRow
{
  GtkListBoxRow  parent_instance;

  /* Template widgets */
  GtkLabel      *title_label;
  GtkLabel      *count_label;
  GtkLabel      *subtitle_label;
  LumoRateMeter *meter;
  GtkLabel      *status_label;

  /* Owned */
  LumoMeterItem *item;
};

G_DEFINE_FINAL_TYPE (LumoMeterRow, lumo_meter_row, GTK_TYPE_LIST_BOX_ROW)

static void
update (LumoMeterRow *self)
{
  guint used = lumo_meter_item_get_used (self->item);
  guint limit = lumo_meter_item_get_limit (self->item);
  g_autofree char *count = NULL;
  g_autofree char *status = NULL;
  g_autofree char *wait = NULL;

  gtk_label_set_text (self->title_label, lumo_meter_item_get_title (self->item));

  /* Translators: writes used of the limit, e.g. "12 / 30". */
  count = g_strdup_printf (_("%u / %u"), used, limit);
  gtk_label_set_text (self->count_label, count);

  wait = lumo_format_duration (lumo_meter_item_get_next_free_us (self->item));
  if (lumo_meter_item_get_full (self->item))
    /* Translators: %s is a duration such as "14 s". */
    status = g_strdup_printf (_("Limit reached: the next write is allowed in %s"), wait);
  else if (used > 0)
    status = g_strdup_printf (_("A slot frees in %s"), wait);
  else
    status = g_strdup (_("No writes in the last minute"));

  gtk_label_set_text (self->status_label, status);
  if (lumo_meter_item_get_full (self->item))
    gtk_widget_add_css_class (GTK_WIDGET (self->status_label), "error");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->status_label), "error");
  if (used == 0)
    gtk_widget_add_css_class (GTK_WIDGET (self->status_label), "dim-label");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->status_label), "dim-label");
}

static void
on_item_notify_cb (LumoMeterItem *item,
                   GParamSpec    *pspec,
                   LumoMeterRow  *self)
{
  update (self);
}

static void
lumo_meter_row_dispose (GObject *object)
{
  LumoMeterRow *self = (LumoMeterRow *)object;

  if (self->item != NULL)
    g_signal_handlers_disconnect_by_func (self->item, on_item_notify_cb, self);
  g_clear_object (&self->item);

  G_OBJECT_CLASS (lumo_meter_row_parent_class)->dispose (object);
}

static void
lumo_meter_row_class_init (LumoMeterRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = lumo_meter_row_dispose;

  g_type_ensure (LUMO_TYPE_RATE_METER);
  gtk_widget_class_set_template_from_resource (widget_class, "/dev/lumo/Access/lumo-meter-row.ui");
  gtk_widget_class_bind_template_child (widget_class, LumoMeterRow, title_label);
  gtk_widget_class_bind_template_child (widget_class, LumoMeterRow, count_label);
  gtk_widget_class_bind_template_child (widget_class, LumoMeterRow, subtitle_label);
  gtk_widget_class_bind_template_child (widget_class, LumoMeterRow, meter);
  gtk_widget_class_bind_template_child (widget_class, LumoMeterRow, status_label);
}

static void
lumo_meter_row_init (LumoMeterRow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

GtkWidget *
lumo_meter_row_new (LumoMeterItem *item,
                    const char    *provider_title)
{
  LumoMeterRow *self;
  g_autofree char *subtitle = NULL;
  g_autofree char *label = NULL;

  g_return_val_if_fail (LUMO_IS_METER_ITEM (item), NULL);

  self = g_object_new (LUMO_TYPE_METER_ROW, NULL);
  self->item = g_object_ref (item);

  /* Translators: an agent's ID and the provider it writes to. */
  subtitle = g_strdup_printf (_("%s · writes to %s"), lumo_meter_item_get_caller_id (item),
                              provider_title != NULL ? provider_title : lumo_meter_item_get_provider_id (item));
  gtk_label_set_text (self->subtitle_label, subtitle);

  /* Translators: the accessible name of a rate meter, %s is an agent's name. */
  label = g_strdup_printf (_("Writes of %s"), lumo_meter_item_get_title (item));
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->meter), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);

  lumo_rate_meter_set_item (self->meter, item);
  g_signal_connect (item, "notify", G_CALLBACK (on_item_notify_cb), self);
  update (self);

  return GTK_WIDGET (self);
}

LumoMeterItem *
lumo_meter_row_get_item (LumoMeterRow *self)
{
  g_return_val_if_fail (LUMO_IS_METER_ROW (self), NULL);

  return self->item;
}

const char *
lumo_meter_row_get_status (LumoMeterRow *self)
{
  g_return_val_if_fail (LUMO_IS_METER_ROW (self), NULL);

  return gtk_label_get_text (self->status_label);
}

void
lumo_meter_row_set_desktop_agent (LumoMeterRow *self)
{
  g_return_if_fail (LUMO_IS_METER_ROW (self));

  lumo_ui_add_agent_tag_after (GTK_WIDGET (self->title_label));
}
