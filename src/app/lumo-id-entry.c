/* lumo-id-entry.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-id-entry"

#include "config.h"

#include "lumo-id-entry.h"
#include "lumo-protocol.h"
#include "lumo-ui-util.h"

struct _LumoIdEntry
{
  AdwPreferencesGroup  parent_instance;

  /* Template widgets */
  AdwEntryRow         *row;
  GtkWidget           *button;
  GtkLabel            *error_label;

  /* Owned */
  char                *id_name;   /* names the field in errors: "agent ID" */
  gboolean             ready;
};

G_DEFINE_FINAL_TYPE (LumoIdEntry, lumo_id_entry, ADW_TYPE_PREFERENCES_GROUP)

enum {
  PROP_0,
  PROP_ENTRY_TITLE,
  PROP_BUTTON_LABEL,
  PROP_ID_NAME,
  PROP_READY,
  N_PROPS
};

enum {
  SUBMIT,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static char *
dup_id (LumoIdEntry *self)
{
  return g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->row))));
}

static void
on_row_changed_cb (LumoIdEntry *self)
{
  g_autofree char *id = dup_id (self);
  g_autoptr(GError) error = NULL;
  gboolean valid;

  /* An empty field is not an error yet. */
  valid = *id != '\0' && lumo_validate_extension_id (id, self->id_name, &error);
  gtk_widget_set_sensitive (self->button, valid && self->ready);
  lumo_id_entry_show_error (self, *id != '\0' && !valid ? error->message : NULL);
}

static void
on_row_activated_cb (LumoIdEntry *self)
{
  g_autofree char *id = dup_id (self);

  if (self->ready && lumo_is_extension_id (id))
    g_signal_emit (self, signals[SUBMIT], 0, id);
}

static void
lumo_id_entry_finalize (GObject *object)
{
  LumoIdEntry *self = (LumoIdEntry *)object;

  g_free (self->id_name);

  G_OBJECT_CLASS (lumo_id_entry_parent_class)->finalize (object);
}

static void
lumo_id_entry_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  LumoIdEntry *self = LUMO_ID_ENTRY (object);

  switch (prop_id)
    {
    case PROP_ENTRY_TITLE:
      g_value_set_string (value, adw_preferences_row_get_title (ADW_PREFERENCES_ROW (self->row)));
      break;
    case PROP_BUTTON_LABEL:
      g_value_set_string (value, gtk_button_get_label (GTK_BUTTON (self->button)));
      break;
    case PROP_ID_NAME:
      g_value_set_string (value, self->id_name);
      break;
    case PROP_READY:
      g_value_set_boolean (value, self->ready);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
lumo_id_entry_set_property (GObject      *object,
                            guint         prop_id,
                            const GValue *value,
                            GParamSpec   *pspec)
{
  LumoIdEntry *self = LUMO_ID_ENTRY (object);

  switch (prop_id)
    {
    case PROP_ENTRY_TITLE:
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->row), g_value_get_string (value));
      break;
    case PROP_BUTTON_LABEL:
      gtk_button_set_label (GTK_BUTTON (self->button), g_value_get_string (value));
      break;
    case PROP_ID_NAME:
      g_free (self->id_name);
      self->id_name = g_value_dup_string (value);
      break;
    case PROP_READY:
      lumo_id_entry_set_ready (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
lumo_id_entry_class_init (LumoIdEntryClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GParamFlags flags = G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->finalize = lumo_id_entry_finalize;
  object_class->get_property = lumo_id_entry_get_property;
  object_class->set_property = lumo_id_entry_set_property;

  properties[PROP_ENTRY_TITLE] = g_param_spec_string ("entry-title", NULL, NULL, NULL, flags);
  properties[PROP_BUTTON_LABEL] = g_param_spec_string ("button-label", NULL, NULL, NULL, flags);
  /* What the ID is, in the error messages ("agent ID"). */
  properties[PROP_ID_NAME] = g_param_spec_string ("id-name", NULL, NULL, NULL, flags);
  properties[PROP_READY] = g_param_spec_boolean ("ready", NULL, NULL, FALSE, flags);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* A valid ID, stripped, entered while ready. */
  signals[SUBMIT] = g_signal_new ("submit", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  gtk_widget_class_set_template_from_resource (widget_class, "/dev/lumo/Access/lumo-id-entry.ui");
  gtk_widget_class_bind_template_child (widget_class, LumoIdEntry, row);
  gtk_widget_class_bind_template_child (widget_class, LumoIdEntry, button);
  gtk_widget_class_bind_template_child (widget_class, LumoIdEntry, error_label);
  gtk_widget_class_bind_template_callback (widget_class, on_row_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_row_activated_cb);
}

static void
lumo_id_entry_init (LumoIdEntry *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

void
lumo_id_entry_set_ready (LumoIdEntry *self,
                         gboolean     ready)
{
  g_return_if_fail (LUMO_IS_ID_ENTRY (self));

  ready = !!ready;
  if (self->ready == ready)
    return;

  self->ready = ready;
  on_row_changed_cb (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_READY]);
}

void
lumo_id_entry_show_error (LumoIdEntry *self,
                          const char  *message)
{
  g_return_if_fail (LUMO_IS_ID_ENTRY (self));

  lumo_ui_show_row_error (GTK_WIDGET (self->row), self->error_label, message);
}

void
lumo_id_entry_clear (LumoIdEntry *self)
{
  g_return_if_fail (LUMO_IS_ID_ENTRY (self));

  gtk_editable_set_text (GTK_EDITABLE (self->row), "");
}

AdwEntryRow *
lumo_id_entry_get_row (LumoIdEntry *self)
{
  g_return_val_if_fail (LUMO_IS_ID_ENTRY (self), NULL);
  return self->row;
}

GtkWidget *
lumo_id_entry_get_button (LumoIdEntry *self)
{
  g_return_val_if_fail (LUMO_IS_ID_ENTRY (self), NULL);
  return self->button;
}

GtkLabel *
lumo_id_entry_get_error_label (LumoIdEntry *self)
{
  g_return_val_if_fail (LUMO_IS_ID_ENTRY (self), NULL);
  return self->error_label;
}
