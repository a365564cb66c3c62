/* lumo-agent-dialog.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-agent-dialog"

#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "lumo-agent-dialog.h"
#include "lumo-error.h"
#include "lumo-format.h"
#include "lumo-gateway-snippets.h"
#include "lumo-ui-util.h"

struct _LumoAgentDialog
{
  AdwWindow            parent_instance;

  /* Template widgets */
  AdwToastOverlay     *toast_overlay;
  GtkWidget           *cancel_button;
  GtkWidget           *add_button;
  GtkWidget           *done_button;
  GtkStack            *stack;
  AdwEntryRow         *name_row;
  GtkLabel            *error_label;
  AdwPreferencesGroup *providers_group;
  AdwPreferencesPage  *result_page;
  AdwPreferencesGroup *token_group;

  /* Owned */
  LumoPolicy          *policy;
  GPtrArray           *providers;   /* LumoProviderInfo, as known when the dialog opened */
  GHashTable          *secrets;     /* "token" or "PROVIDER/KEY" → GtkLabel (borrowed) */
  char                *agent_id;
  char                *flatpak_app_id;
  guint                port;

  /* Borrowed */
  GPtrArray           *checks;      /* GtkCheckButton of each provider, same order */
};

G_DEFINE_FINAL_TYPE (LumoAgentDialog, lumo_agent_dialog, ADW_TYPE_WINDOW)

/* The set-ups in the order a person reads them, with what each is for;
 * the clients' names are names, not words. */
static const struct
{
  const char *key;
  const char *title;
  gboolean    translate_title;
  const char *hint;
} setups[] = {
  { "url", N_("URL"), TRUE, N_("For any MCP client with Streamable HTTP: send the token as the header “Authorization: Bearer …”") },
  { "claudeCode", "Claude Code", FALSE, N_("Run it in a terminal") },
  { "vscode", "VS Code", FALSE, N_("In .vscode/mcp.json of your project") },
  { "cursor", "Cursor", FALSE, N_("In ~/.cursor/mcp.json") },
  { "claudeDesktop", "Claude Desktop", FALSE, N_("In claude_desktop_config.json; it runs the launcher, for clients that only start programs") },
};

static char *
secret_key (const char *provider_id,
            const char *key)
{
  return provider_id != NULL ? g_strconcat (provider_id, "/", key, NULL) : g_strdup (key);
}

/* ---- the form ------------------------------------------------------------- */

static void
show_error (LumoAgentDialog *self,
            const char      *message)
{
  lumo_ui_show_row_error (GTK_WIDGET (self->name_row), self->error_label, message);
}

static void
on_name_row_changed_cb (LumoAgentDialog *self)
{
  const char *name = gtk_editable_get_text (GTK_EDITABLE (self->name_row));

  /* Whether a name has anything visible in it is core's to say, on Add. */
  show_error (self, NULL);
  gtk_widget_set_sensitive (self->add_button, self->agent_id == NULL && *name != '\0');
}

static void
fill_providers (LumoAgentDialog *self)
{
  g_autoptr(GError) error = NULL;

  if (!(self->providers = lumo_policy_list_providers (self->policy, &error)))
    {
      g_warning ("Cannot list the providers: %s", error->message);
      self->providers = g_ptr_array_new_with_free_func ((GDestroyNotify) lumo_provider_info_free);
    }

  for (guint i = 0; i < self->providers->len; i++)
    {
      LumoProviderInfo *info = g_ptr_array_index (self->providers, i);
      GtkWidget *row = adw_action_row_new ();
      GtkWidget *check = gtk_check_button_new ();

      adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), lumo_format_provider_title (info, info->id));
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row),
                                   info->namespace_ != NULL
                                   ? info->id
                                   /* Translators: a provider watched by hand that never connected. */
                                   : _("Not connected yet: its set-ups appear once it has connected"));
      /* Every provider known now, as `agents add` does without --provider
       * (one that never connected too: the agent may use it once it has). */
      gtk_check_button_set_active (GTK_CHECK_BUTTON (check), TRUE);
      gtk_widget_set_valign (check, GTK_ALIGN_CENTER);
      lumo_ui_set_accessible_label (check, lumo_format_provider_title (info, info->id));
      adw_action_row_add_prefix (ADW_ACTION_ROW (row), check);
      adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), check);
      adw_preferences_group_add (self->providers_group, row);
      g_ptr_array_add (self->checks, check);
    }

  if (self->providers->len == 0)
    adw_preferences_group_add (self->providers_group,
                               lumo_ui_placeholder_new (_("No provider has connected yet. The agent’s first "
                                                          "request to one will wait for your approval.")));
}

/* ---- the result ------------------------------------------------------------ */

static void
on_copy_clicked_cb (GtkButton       *button,
                    LumoAgentDialog *self)
{
  GtkLabel *label = g_object_get_data (G_OBJECT (button), "lumo-secret-label");

  gdk_clipboard_set_text (gtk_widget_get_clipboard (GTK_WIDGET (button)), gtk_label_get_text (label));
  adw_toast_overlay_add_toast (self->toast_overlay, lumo_ui_toast_new (_("Copied to the clipboard")));
}

/* A row with a title, what it is for, the text in a box a person can
 * select, and a Copy button. The label is the text's only home. */
static GtkWidget *
secret_row_new (LumoAgentDialog *self,
                const char      *provider_id,
                const char      *key,
                const char      *title,
                const char      *hint,
                const char      *text)
{
  GtkWidget *row = g_object_new (ADW_TYPE_PREFERENCES_ROW,
                                 "title", title,
                                 "use-markup", FALSE,
                                 "activatable", FALSE,
                                 NULL);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *header = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget *titles = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkWidget *heading = gtk_label_new (title);
  GtkWidget *label = gtk_label_new (text);
  GtkWidget *copy = gtk_button_new_from_icon_name ("edit-copy-symbolic");
  g_autoptr(PangoAttrList) attrs = NULL;
  g_autofree char *accessible = NULL;

  gtk_widget_set_margin_top (box, 10);
  gtk_widget_set_margin_bottom (box, 10);
  gtk_widget_set_margin_start (box, 12);
  gtk_widget_set_margin_end (box, 12);

  gtk_label_set_xalign (GTK_LABEL (heading), 0);
  gtk_widget_add_css_class (heading, "heading");
  gtk_box_append (GTK_BOX (titles), heading);
  if (hint != NULL)
    {
      GtkWidget *hint_label = gtk_label_new (hint);

      gtk_label_set_xalign (GTK_LABEL (hint_label), 0);
      gtk_label_set_wrap (GTK_LABEL (hint_label), TRUE);
      gtk_widget_add_css_class (hint_label, "caption");
      gtk_widget_add_css_class (hint_label, "dim-label");
      gtk_box_append (GTK_BOX (titles), hint_label);
    }
  gtk_widget_set_hexpand (titles, TRUE);
  gtk_box_append (GTK_BOX (header), titles);

  gtk_widget_set_valign (copy, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (copy, "flat");
  gtk_widget_set_tooltip_text (copy, _("Copy"));
  /* Translators: the accessible name of a Copy button, e.g. "Copy Claude Code". */
  accessible = g_strdup_printf (_("Copy %s"), title);
  lumo_ui_set_accessible_label (copy, accessible);
  g_object_set_data (G_OBJECT (copy), "lumo-secret-label", label);
  g_signal_connect_object (copy, "clicked", G_CALLBACK (on_copy_clicked_cb), self, 0);
  gtk_box_append (GTK_BOX (header), copy);
  gtk_box_append (GTK_BOX (box), header);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_CHAR);
  /* A hyphen where a token wraps would read as part of it. */
  attrs = pango_attr_list_new ();
  pango_attr_list_insert (attrs, pango_attr_insert_hyphens_new (FALSE));
  gtk_label_set_attributes (GTK_LABEL (label), attrs);
  gtk_widget_add_css_class (label, "monospace");
  gtk_widget_add_css_class (label, "snippet");
  gtk_box_append (GTK_BOX (box), label);

  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), box);
  g_hash_table_insert (self->secrets, secret_key (provider_id, key), label);
  g_object_set_data (G_OBJECT (label), "lumo-copy-button", copy);

  return row;
}

static void
clear_string (const char *s)
{
  if (s != NULL)
    explicit_bzero ((char *) s, strlen (s));
}

static void
add_provider_setups (LumoAgentDialog        *self,
                     const LumoProviderInfo *provider,
                     const char             *token)
{
  AdwPreferencesGroup *group = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  const char *title = lumo_format_provider_title (provider, provider->id);
  g_autoptr(JsonObject) snippets = NULL;
  GList *values;
  g_autofree char *escaped = g_markup_escape_text (title, -1);

  adw_preferences_group_set_title (group, escaped);
  adw_preferences_page_add (self->result_page, group);

  if (provider->namespace_ == NULL ||
      !(snippets = lumo_gateway_build_snippets (provider->namespace_, token, self->port,
                                                         self->flatpak_app_id)))
    {
      adw_preferences_group_set_description (group, _("No set-up yet: this provider has not connected "
                                                      "to Lumo Access, so its address is not known. "
                                                      "Add the agent again once it has."));
      return;
    }

  adw_preferences_group_set_description (group, _("Paste one of these into the agent’s configuration."));
  for (guint i = 0; i < G_N_ELEMENTS (setups); i++)
    {
      const char *text = json_object_get_string_member_with_default (snippets, setups[i].key, NULL);

      if (text != NULL)
        adw_preferences_group_add (group, secret_row_new (self, provider->id, setups[i].key,
                                                          setups[i].translate_title ? _(setups[i].title)
                                                                                    : setups[i].title,
                                                          _(setups[i].hint), text));
    }

  /* Every set-up but the URL holds the token: clear core's copies now
   * that the labels have theirs. */
  values = json_object_get_values (snippets);
  for (GList *l = values; l != NULL; l = l->next)
    if (JSON_NODE_HOLDS_VALUE (l->data) && json_node_get_value_type (l->data) == G_TYPE_STRING)
      clear_string (json_node_get_string (l->data));
  g_list_free (values);
}

static void
show_result (LumoAgentDialog *self,
             const char      *token,
             GPtrArray       *chosen)
{
  g_autoptr(LumoAgentInfo) agent = lumo_policy_get_agent (self->policy, self->agent_id, NULL);
  g_autofree char *title = NULL;

  adw_preferences_group_add (self->token_group,
                             secret_row_new (self, NULL, "token", _("Token"), NULL, token));

  for (guint i = 0; i < chosen->len; i++)
    add_provider_setups (self, g_ptr_array_index (chosen, i), token);

  if (chosen->len == 0)
    {
      AdwPreferencesGroup *group = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());

      adw_preferences_group_set_description (group, _("It may use no provider yet: its first request to one "
                                                      "waits for your approval on the Requests page."));
      adw_preferences_page_add (self->result_page, group);
    }

  /* Translators: the title of the dialog once the agent exists; %s is its name. */
  title = g_strdup_printf (_("“%s” Added"), agent != NULL ? agent->name : "");
  gtk_window_set_title (GTK_WINDOW (self), title);
  gtk_stack_set_visible_child_name (self->stack, "result");
  gtk_widget_set_visible (self->cancel_button, FALSE);
  gtk_widget_set_visible (self->add_button, FALSE);
  gtk_widget_set_visible (self->done_button, TRUE);
  gtk_widget_grab_focus (self->done_button);
}

static void
on_add_button_clicked_cb (LumoAgentDialog *self)
{
  g_autoptr(GPtrArray) ids = g_ptr_array_new ();
  g_autoptr(GPtrArray) chosen = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *agent_id = NULL;
  char *token = NULL;

  if (self->agent_id != NULL || !gtk_widget_get_sensitive (self->add_button))
    return;

  for (guint i = 0; i < self->checks->len; i++)
    if (gtk_check_button_get_active (g_ptr_array_index (self->checks, i)))
      {
        LumoProviderInfo *info = g_ptr_array_index (self->providers, i);

        g_ptr_array_add (ids, info->id);
        g_ptr_array_add (chosen, info);
      }
  g_ptr_array_add (ids, NULL);

  if (!lumo_policy_add_agent (self->policy, gtk_editable_get_text (GTK_EDITABLE (self->name_row)),
                              (const char * const *) ids->pdata, LUMO_POLICY_ORIGIN_UI,
                              &agent_id, &token, &error))
    {
      g_autofree char *message = NULL;

      if (g_error_matches (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT))
        message = g_strdup (_("The name needs something visible in it: letters, digits or signs."));
      else if (g_error_matches (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND))
        message = g_strdup (_("A provider you ticked is no longer known. Close this dialog and add the agent again."));
      else
        /* Translators: %s is the reason, e.g. a database error. */
        message = g_strdup_printf (_("Could not add the agent: %s"), error->message);
      show_error (self, message);
      return;
    }

  self->agent_id = g_steal_pointer (&agent_id);
  gtk_widget_set_sensitive (self->add_button, FALSE);
  show_result (self, token, chosen);

  explicit_bzero (token, strlen (token));
  g_free (token);
}

/* Empties every label that holds the token; the dialog is destroyed next,
 * so nothing of it is left to show it again. */
static void
clear_secrets (LumoAgentDialog *self)
{
  GHashTableIter iter;
  gpointer label;

  if (self->secrets == NULL)
    return;

  g_hash_table_iter_init (&iter, self->secrets);
  while (g_hash_table_iter_next (&iter, NULL, &label))
    gtk_label_set_text (label, "");
  g_hash_table_remove_all (self->secrets);
}

static gboolean
lumo_agent_dialog_close_request (GtkWindow *window)
{
  clear_secrets (LUMO_AGENT_DIALOG (window));

  return GTK_WINDOW_CLASS (lumo_agent_dialog_parent_class)->close_request (window);
}

/* ---- GObject ------------------------------------------------------------- */

static void
lumo_agent_dialog_dispose (GObject *object)
{
  LumoAgentDialog *self = (LumoAgentDialog *)object;

  clear_secrets (self);
  g_clear_object (&self->policy);

  G_OBJECT_CLASS (lumo_agent_dialog_parent_class)->dispose (object);
}

static void
lumo_agent_dialog_finalize (GObject *object)
{
  LumoAgentDialog *self = (LumoAgentDialog *)object;

  g_clear_pointer (&self->secrets, g_hash_table_unref);
  g_clear_pointer (&self->providers, g_ptr_array_unref);
  g_clear_pointer (&self->checks, g_ptr_array_unref);
  g_clear_pointer (&self->agent_id, g_free);
  g_clear_pointer (&self->flatpak_app_id, g_free);

  G_OBJECT_CLASS (lumo_agent_dialog_parent_class)->finalize (object);
}

static void
lumo_agent_dialog_class_init (LumoAgentDialogClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->dispose = lumo_agent_dialog_dispose;
  object_class->finalize = lumo_agent_dialog_finalize;
  window_class->close_request = lumo_agent_dialog_close_request;

  gtk_widget_class_set_template_from_resource (widget_class, "/dev/lumo/Access/lumo-agent-dialog.ui");
  gtk_widget_class_bind_template_child (widget_class, LumoAgentDialog, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, LumoAgentDialog, cancel_button);
  gtk_widget_class_bind_template_child (widget_class, LumoAgentDialog, add_button);
  gtk_widget_class_bind_template_child (widget_class, LumoAgentDialog, done_button);
  gtk_widget_class_bind_template_child (widget_class, LumoAgentDialog, stack);
  gtk_widget_class_bind_template_child (widget_class, LumoAgentDialog, name_row);
  gtk_widget_class_bind_template_child (widget_class, LumoAgentDialog, error_label);
  gtk_widget_class_bind_template_child (widget_class, LumoAgentDialog, providers_group);
  gtk_widget_class_bind_template_child (widget_class, LumoAgentDialog, result_page);
  gtk_widget_class_bind_template_child (widget_class, LumoAgentDialog, token_group);
  gtk_widget_class_bind_template_callback (widget_class, on_name_row_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_add_button_clicked_cb);

  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static void
lumo_agent_dialog_init (LumoAgentDialog *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->secrets = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->checks = g_ptr_array_new ();
}

LumoAgentDialog *
lumo_agent_dialog_new (GtkWindow  *parent,
                       LumoPolicy *policy,
                       guint       port,
                       const char *flatpak_app_id)
{
  LumoAgentDialog *self;

  g_return_val_if_fail (parent == NULL || GTK_IS_WINDOW (parent), NULL);
  g_return_val_if_fail (LUMO_IS_POLICY (policy), NULL);
  g_return_val_if_fail (port > 0 && port <= 65535, NULL);

  self = g_object_new (LUMO_TYPE_AGENT_DIALOG, "transient-for", parent, NULL);
  self->policy = g_object_ref (policy);
  self->port = port;
  self->flatpak_app_id = g_strdup (flatpak_app_id);
  fill_providers (self);

  return self;
}

const char *
lumo_agent_dialog_get_agent_id (LumoAgentDialog *self)
{
  g_return_val_if_fail (LUMO_IS_AGENT_DIALOG (self), NULL);
  return self->agent_id;
}

AdwEntryRow *
lumo_agent_dialog_get_name_row (LumoAgentDialog *self)
{
  g_return_val_if_fail (LUMO_IS_AGENT_DIALOG (self), NULL);
  return self->name_row;
}

GtkLabel *
lumo_agent_dialog_get_error_label (LumoAgentDialog *self)
{
  g_return_val_if_fail (LUMO_IS_AGENT_DIALOG (self), NULL);
  return self->error_label;
}

GtkWidget *
lumo_agent_dialog_get_add_button (LumoAgentDialog *self)
{
  g_return_val_if_fail (LUMO_IS_AGENT_DIALOG (self), NULL);
  return self->add_button;
}

GtkCheckButton *
lumo_agent_dialog_get_provider_check (LumoAgentDialog *self,
                                      const char      *provider_id)
{
  g_return_val_if_fail (LUMO_IS_AGENT_DIALOG (self), NULL);

  for (guint i = 0; i < self->providers->len; i++)
    if (g_strcmp0 (((LumoProviderInfo *) g_ptr_array_index (self->providers, i))->id, provider_id) == 0)
      return g_ptr_array_index (self->checks, i);
  return NULL;
}

gboolean
lumo_agent_dialog_get_secret (LumoAgentDialog  *self,
                              const char       *provider_id,
                              const char       *key,
                              GtkLabel        **label,
                              GtkWidget       **copy_button)
{
  g_autofree char *name = NULL;
  GtkLabel *found;

  g_return_val_if_fail (LUMO_IS_AGENT_DIALOG (self), FALSE);
  g_return_val_if_fail (key != NULL, FALSE);

  name = secret_key (provider_id, key);
  if (self->secrets == NULL || !(found = g_hash_table_lookup (self->secrets, name)))
    return FALSE;

  if (label != NULL)
    *label = found;
  if (copy_button != NULL)
    *copy_button = g_object_get_data (G_OBJECT (found), "lumo-copy-button");
  return TRUE;
}
