/* lumo-caller-row.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-caller-row"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "lumo-caller-row.h"
#include "lumo-format.h"
#include "lumo-ui-util.h"

struct _LumoCallerRow
{
  GtkListBoxRow   parent_instance;

  /* Template widgets */
  GtkCheckButton *check;
  GtkLabel       *title_label;
  GtkLabel       *id_label;
  GtkLabel       *details_label;
  GtkButton      *deny_button;
  GtkButton      *approve_button;

  /* Owned */
  LumoCallerItem *item;
  char           *provider_title;
};

G_DEFINE_FINAL_TYPE (LumoCallerRow, lumo_caller_row, GTK_TYPE_LIST_BOX_ROW)

enum {
  PROP_0,
  PROP_CHECKED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
update_details (LumoCallerRow *self)
{
  const LumoCallerInfo *info = lumo_caller_item_get_info (self->item);
  g_autofree char *first_seen = lumo_format_time_relative (info->first_seen, 0);
  g_autofree char *probes = NULL;
  g_autofree char *details = NULL;

  gtk_label_set_text (self->title_label, lumo_caller_item_get_title (self->item));

  guint n_probes = (guint) MIN (info->probe_count, G_MAXUINT);

  probes = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u probe", "%u probes", n_probes),
                            n_probes);
  /* Translators: "Wants Lumo Userscripts · first seen 5 minutes ago · 3 probes". */
  details = g_strdup_printf (_("Wants %s · first seen %s · %s"),
                             self->provider_title, first_seen, probes);
  gtk_label_set_text (self->details_label, details);
}

static void
on_item_notify_cb (LumoCallerItem *item,
                   GParamSpec     *pspec,
                   LumoCallerRow  *self)
{
  update_details (self);
}

static void
on_check_active_cb (GtkCheckButton *check,
                    GParamSpec     *pspec,
                    LumoCallerRow  *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CHECKED]);
}

static void
lumo_caller_row_dispose (GObject *object)
{
  LumoCallerRow *self = (LumoCallerRow *)object;

  if (self->item != NULL)
    g_signal_handlers_disconnect_by_func (self->item, on_item_notify_cb, self);
  g_clear_object (&self->item);

  G_OBJECT_CLASS (lumo_caller_row_parent_class)->dispose (object);
}

static void
lumo_caller_row_finalize (GObject *object)
{
  LumoCallerRow *self = (LumoCallerRow *)object;

  g_clear_pointer (&self->provider_title, g_free);

  G_OBJECT_CLASS (lumo_caller_row_parent_class)->finalize (object);
}

static void
lumo_caller_row_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  LumoCallerRow *self = LUMO_CALLER_ROW (object);

  switch (prop_id)
    {
    case PROP_CHECKED:
      g_value_set_boolean (value, lumo_caller_row_get_checked (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
lumo_caller_row_set_property (GObject      *object,
                              guint         prop_id,
                              const GValue *value,
                              GParamSpec   *pspec)
{
  LumoCallerRow *self = LUMO_CALLER_ROW (object);

  switch (prop_id)
    {
    case PROP_CHECKED:
      lumo_caller_row_set_checked (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
lumo_caller_row_class_init (LumoCallerRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = lumo_caller_row_dispose;
  object_class->finalize = lumo_caller_row_finalize;
  object_class->get_property = lumo_caller_row_get_property;
  object_class->set_property = lumo_caller_row_set_property;

  properties[PROP_CHECKED] =
    g_param_spec_boolean ("checked", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class, "/dev/lumo/Access/lumo-caller-row.ui");
  gtk_widget_class_bind_template_child (widget_class, LumoCallerRow, check);
  gtk_widget_class_bind_template_child (widget_class, LumoCallerRow, title_label);
  gtk_widget_class_bind_template_child (widget_class, LumoCallerRow, id_label);
  gtk_widget_class_bind_template_child (widget_class, LumoCallerRow, details_label);
  gtk_widget_class_bind_template_child (widget_class, LumoCallerRow, deny_button);
  gtk_widget_class_bind_template_child (widget_class, LumoCallerRow, approve_button);
}

static void
lumo_caller_row_init (LumoCallerRow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  g_signal_connect (self->check, "notify::active", G_CALLBACK (on_check_active_cb), self);
}

GtkWidget *
lumo_caller_row_new (LumoCallerItem *item,
                     const char     *provider_title)
{
  LumoCallerRow *self;
  const char *title;
  g_autofree char *label = NULL;

  g_return_val_if_fail (LUMO_IS_CALLER_ITEM (item), NULL);

  self = g_object_new (LUMO_TYPE_CALLER_ROW, NULL);
  self->item = g_object_ref (item);
  self->provider_title = g_strdup (provider_title != NULL ? provider_title
                                                          : lumo_caller_item_get_provider_id (item));

  gtk_label_set_text (self->id_label, lumo_caller_item_get_caller_id (item));
  if (lumo_caller_item_get_info (item)->kind == LUMO_CALLER_KIND_AGENT)
    lumo_ui_add_agent_tag_after (GTK_WIDGET (self->title_label));
  update_details (self);
  g_signal_connect (item, "notify", G_CALLBACK (on_item_notify_cb), self);

  gtk_actionable_set_action_target (GTK_ACTIONABLE (self->approve_button), "(ss)",
                                    lumo_caller_item_get_provider_id (item),
                                    lumo_caller_item_get_caller_id (item));
  gtk_actionable_set_action_target (GTK_ACTIONABLE (self->deny_button), "(ss)",
                                    lumo_caller_item_get_provider_id (item),
                                    lumo_caller_item_get_caller_id (item));

  title = lumo_caller_item_get_title (item);
  label = g_strdup_printf (_("Approve %s"), title);
  lumo_ui_set_accessible_label (GTK_WIDGET (self->approve_button), label);
  g_free (label);
  label = g_strdup_printf (_("Deny %s"), title);
  lumo_ui_set_accessible_label (GTK_WIDGET (self->deny_button), label);
  g_free (label);
  label = g_strdup_printf (_("Select %s"), title);
  lumo_ui_set_accessible_label (GTK_WIDGET (self->check), label);

  return GTK_WIDGET (self);
}

LumoCallerItem *
lumo_caller_row_get_item (LumoCallerRow *self)
{
  g_return_val_if_fail (LUMO_IS_CALLER_ROW (self), NULL);

  return self->item;
}

gboolean
lumo_caller_row_get_checked (LumoCallerRow *self)
{
  g_return_val_if_fail (LUMO_IS_CALLER_ROW (self), FALSE);

  return gtk_check_button_get_active (self->check);
}

void
lumo_caller_row_set_checked (LumoCallerRow *self,
                             gboolean       checked)
{
  g_return_if_fail (LUMO_IS_CALLER_ROW (self));

  gtk_check_button_set_active (self->check, checked);
}
