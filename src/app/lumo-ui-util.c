/* lumo-ui-util.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-ui"

#include "config.h"

#include <glib/gi18n-lib.h>
#if HAVE_MALLOC_TRIM
#include <malloc.h>
#endif

#include "lumo-ui-util.h"

void
lumo_ui_show_toast (GtkWidget *widget,
                    AdwToast  *toast)
{
  GtkWidget *overlay;

  g_return_if_fail (GTK_IS_WIDGET (widget));
  g_return_if_fail (ADW_IS_TOAST (toast));

  if ((overlay = gtk_widget_get_ancestor (widget, ADW_TYPE_TOAST_OVERLAY)) != NULL)
    adw_toast_overlay_add_toast (ADW_TOAST_OVERLAY (overlay), toast);
  else
    g_object_unref (g_object_ref_sink (toast));
}

AdwToast *
lumo_ui_toast_new (const char *text)
{
  g_autofree char *escaped = g_markup_escape_text (text, -1);

  return adw_toast_new (escaped);
}

void
lumo_ui_show_error (GtkWidget    *widget,
                    const char   *what,
                    const GError *error)
{
  g_autofree char *text = NULL;
  AdwToast *toast;

  g_return_if_fail (GTK_IS_WIDGET (widget));
  g_return_if_fail (error != NULL);

  g_message ("%s: %s", what, error->message);

  /* Translators: a failed action and why, e.g. "Could not allow the caller: disk full". */
  text = g_strdup_printf (_("%s: %s"), what, error->message);
  toast = lumo_ui_toast_new (text);
  adw_toast_set_priority (toast, ADW_TOAST_PRIORITY_HIGH);
  adw_toast_set_timeout (toast, 0);
  lumo_ui_show_toast (widget, toast);
}

void
lumo_ui_set_accessible_label (GtkWidget  *widget,
                              const char *label)
{
  g_return_if_fail (GTK_IS_WIDGET (widget));

  gtk_accessible_update_property (GTK_ACCESSIBLE (widget),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, label,
                                  -1);
}

void
lumo_ui_list_box_remove_all (GtkListBox *list_box)
{
  GtkListBoxRow *row;

  g_return_if_fail (GTK_IS_LIST_BOX (list_box));

  /* By rows, not children: the placeholder is a child too. */
  while ((row = gtk_list_box_get_row_at_index (list_box, 0)) != NULL)
    gtk_list_box_remove (list_box, GTK_WIDGET (row));
}

GtkWidget *
lumo_ui_placeholder_new (const char *text)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_widget_set_margin_top (label, 18);
  gtk_widget_set_margin_bottom (label, 18);
  gtk_widget_set_margin_start (label, 12);
  gtk_widget_set_margin_end (label, 12);
  gtk_widget_add_css_class (label, "dim-label");

  return label;
}

GSettings *
lumo_ui_lookup_settings (const char *first_key,
                         ...)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr(GSettingsSchema) schema = NULL;
  va_list args;

  if (source == NULL || !(schema = g_settings_schema_source_lookup (source, APP_ID, TRUE)))
    return NULL;

  va_start (args, first_key);
  for (const char *key = first_key; key != NULL; key = va_arg (args, const char *))
    if (!g_settings_schema_has_key (schema, key))
      {
        va_end (args);
        return NULL;
      }
  va_end (args);

  return g_settings_new_full (schema, NULL, NULL);
}

void
lumo_ui_show_row_error (GtkWidget  *row,
                        GtkLabel   *label,
                        const char *message)
{
  g_return_if_fail (GTK_IS_WIDGET (row));
  g_return_if_fail (GTK_IS_LABEL (label));

  gtk_label_set_text (label, message != NULL ? message : "");
  gtk_widget_set_visible (GTK_WIDGET (label), message != NULL);
  if (message != NULL)
    gtk_widget_add_css_class (row, "error");
  else
    gtk_widget_remove_css_class (row, "error");
}

GtkWidget *
lumo_ui_agent_tag_new (void)
{
  /* Translators: the tag beside the name of a desktop MCP client (Claude
   * Code, VS Code, …) wherever a caller is shown. */
  GtkWidget *tag = gtk_label_new (_("Desktop agent"));

  gtk_widget_add_css_class (tag, "agent-tag");
  gtk_widget_add_css_class (tag, "caption");
  gtk_widget_set_valign (tag, GTK_ALIGN_CENTER);
  gtk_widget_set_tooltip_text (tag, _("An MCP client on this computer that you added on the Access page, "
                                      "not a browser extension"));

  return tag;
}

void
lumo_ui_add_agent_tag_after (GtkWidget *sibling)
{
  GtkWidget *box;
  GtkWidget *tag;

  g_return_if_fail (GTK_IS_WIDGET (sibling));
  box = gtk_widget_get_parent (sibling);
  g_return_if_fail (GTK_IS_BOX (box));

  tag = lumo_ui_agent_tag_new ();
  gtk_widget_set_halign (tag, GTK_ALIGN_START);
  gtk_box_insert_child_after (GTK_BOX (box), tag, sibling);
}

const char *
lumo_ui_managed_text (void)
{
  /* Translators: said by a switch, row or button an organization's
   * managed policy file decides, instead of what it does. */
  return _("Set by your organization");
}

void
lumo_ui_set_managed (GtkWidget  *widget,
                     gboolean    managed,
                     const char *tooltip)
{
  g_return_if_fail (GTK_IS_WIDGET (widget));

  gtk_widget_set_sensitive (widget, !managed);
  gtk_widget_set_tooltip_text (widget, managed ? lumo_ui_managed_text () : tooltip);
}

static gboolean
on_trim_heap_idle_cb (gpointer user_data)
{
#if HAVE_MALLOC_TRIM
  malloc_trim (0);
#endif
  return G_SOURCE_REMOVE;
}

void
lumo_ui_trim_heap_once (void)
{
  static gboolean scheduled;

  if (scheduled)
    return;
  scheduled = TRUE;
  g_source_set_name_by_id (g_idle_add_full (G_PRIORITY_LOW, on_trim_heap_idle_cb, NULL, NULL),
                           "[lumo] trim heap");
}
