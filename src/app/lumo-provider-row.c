/* lumo-provider-row.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-provider-row"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "lumo-format.h"
#include "lumo-protocol.h"
#include "lumo-provider-row.h"
#include "lumo-tool-registry.h"
#include "lumo-ui-util.h"

struct _LumoProviderRow
{
  GtkListBoxRow     parent_instance;

  /* Template widgets */
  GtkImage         *state_icon;
  GtkLabel         *title_label;
  GtkLabel         *details_label;
  GtkLabel         *probe_label;
  GtkLabel         *probe_time_label;
  GtkStack         *probe_stack;
  GtkButton        *probe_button;
  GtkExpander      *expander;
  GtkLabel         *id_label;
  GtkLabel         *limits_label;
  GtkBox           *tools_box;
  GtkButton        *remove_button;
  GtkBox           *recommended_box;

  /* Owned */
  LumoProviderItem *item;
  LumoToolRegistry *registry;
  GPtrArray        *recommended;   /* LumoRecommendedServer, as shown */
};

G_DEFINE_FINAL_TYPE (LumoProviderRow, lumo_provider_row, GTK_TYPE_LIST_BOX_ROW)

static void
update_header (LumoProviderRow *self)
{
  const LumoProviderInfo *info = lumo_provider_item_get_info (self->item);
  guint n_tools = lumo_provider_item_get_n_tools (self->item);
  g_autoptr(GString) details = g_string_new (NULL);

  gtk_label_set_text (self->title_label, lumo_provider_item_get_title (self->item));

  if (info->namespace_ != NULL && *info->namespace_ != '\0')
    g_string_append (details, info->namespace_);
  else
    g_string_append (details, _("no namespace yet"));
  if (info->version != NULL && *info->version != '\0')
    {
      g_string_append (details, " · ");
      /* Translators: a provider's version, e.g. "version 1.2.0". */
      g_string_append_printf (details, _("version %s"), info->version);
    }
  g_string_append_printf (details, " · %s",
                          lumo_provider_item_get_connected (self->item) ? _("Connected") : _("Not connected"));
  g_string_append (details, " · ");
  g_string_append_printf (details, g_dngettext (GETTEXT_PACKAGE, "%u tool", "%u tools", n_tools), n_tools);
  if (info->watched)
    g_string_append_printf (details, " · %s", _("watched"));

  gtk_label_set_text (self->details_label, details->str);
}

static void
update_probe (LumoProviderRow *self)
{
  LumoProbeState state;
  const char *message;
  gint64 time_us;
  GtkWidget *probe = GTK_WIDGET (self->probe_label);

  gtk_stack_set_visible_child_name (self->probe_stack,
                                    lumo_provider_item_get_probing (self->item) ? "spinner" : "button");

  gtk_widget_remove_css_class (probe, "error");
  gtk_widget_remove_css_class (probe, "success");

  if (!lumo_provider_item_get_probe (self->item, NULL, &state, &message, &time_us))
    {
      gtk_image_set_from_icon_name (self->state_icon,
                                    lumo_provider_item_get_connected (self->item)
                                    ? "network-transmit-receive-symbolic" : "network-offline-symbolic");
      gtk_label_set_text (self->probe_label, _("Not probed yet"));
      gtk_widget_add_css_class (probe, "dim-label");
      gtk_label_set_text (self->probe_time_label, "");
      gtk_widget_set_visible (GTK_WIDGET (self->probe_time_label), FALSE);
      return;
    }

  gtk_widget_remove_css_class (probe, "dim-label");
  gtk_widget_add_css_class (probe, state == LUMO_PROBE_STATE_CONNECTED ? "success" : "error");
  gtk_image_set_from_icon_name (self->state_icon,
                                state == LUMO_PROBE_STATE_CONNECTED ? "emblem-ok-symbolic"
                                                                    : "dialog-warning-symbolic");
  gtk_label_set_text (self->probe_label, message);

  {
    g_autofree char *when = lumo_format_time_relative (time_us, 0);
    /* Translators: when the provider was last probed, e.g. "Last probe: just now". */
    g_autofree char *text = g_strdup_printf (_("Last probe: %s"), when);

    gtk_label_set_text (self->probe_time_label, text);
    gtk_widget_set_visible (GTK_WIDGET (self->probe_time_label), TRUE);
  }
}

static GtkWidget *
tool_line (const char *qualified_name,
           gboolean    write)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  GtkWidget *name = gtk_label_new (qualified_name);
  g_autofree char *info = NULL;
  GtkWidget *details;
  guint len = (guint) g_utf8_strlen (qualified_name, -1);

  gtk_label_set_xalign (GTK_LABEL (name), 0);
  gtk_label_set_ellipsize (GTK_LABEL (name), PANGO_ELLIPSIZE_END);
  gtk_label_set_selectable (GTK_LABEL (name), TRUE);
  gtk_widget_add_css_class (name, "monospace");
  gtk_widget_set_hexpand (name, TRUE);

  /* Translators: a tool's kind and its name length against the limit,
   * e.g. "write · 23 of 57 characters". */
  info = g_strdup_printf (_("%s · %u of %u characters"), write ? _("write") : _("read"),
                          len, (guint) LUMO_MAX_QUALIFIED_NAME_LEN);
  details = gtk_label_new (info);
  gtk_widget_add_css_class (details, "caption");
  gtk_widget_add_css_class (details, "dim-label");

  gtk_box_append (GTK_BOX (box), name);
  gtk_box_append (GTK_BOX (box), details);
  return box;
}

static void
update_tools (LumoProviderRow *self)
{
  const LumoProviderInfo *info = lumo_provider_item_get_info (self->item);
  g_auto(GStrv) names = NULL;
  g_autoptr(GString) limits = g_string_new (NULL);
  GtkWidget *child;
  guint n = 0;

  gtk_label_set_text (self->id_label, info->id);

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->tools_box))) != NULL)
    gtk_box_remove (self->tools_box, child);

  if (self->registry != NULL)
    names = lumo_tool_registry_list (self->registry, info->id);
  n = names != NULL ? g_strv_length (names) : 0;

  /* Translators: tools registered against the protocol's limit, e.g. "3 of 64 tools". */
  g_string_append_printf (limits, _("%u of %u tools"), n, (guint) LUMO_MAX_TOOLS);
  if (info->namespace_ != NULL && *info->namespace_ != '\0')
    {
      g_string_append (limits, " · ");
      /* Translators: a namespace and its length against the limit, e.g. "namespace “userscripts”: 11 of 16 characters". */
      g_string_append_printf (limits, _("namespace “%s”: %u of %u characters"), info->namespace_,
                              (guint) g_utf8_strlen (info->namespace_, -1), (guint) LUMO_MAX_NAMESPACE_LEN);
      g_string_append (limits, " · ");
      g_string_append (limits, lumo_is_reserved_namespace (info->namespace_)
                               ? _("reserved: its tools are refused") : _("not reserved"));
    }
  g_string_append_c (limits, '\n');
  g_string_append (limits, _("A provider’s tool over the limits, in a reserved namespace or with a name another provider holds is refused and not listed."));
  gtk_label_set_text (self->limits_label, limits->str);

  for (guint i = 0; i < n; i++)
    {
      const LumoToolInfo *tool = NULL;

      lumo_tool_registry_lookup (self->registry, names[i], &tool);
      gtk_box_append (self->tools_box, tool_line (names[i], tool != NULL && tool->write));
    }
}

static void
on_item_notify_cb (LumoProviderItem *item,
                   GParamSpec       *pspec,
                   LumoProviderRow  *self)
{
  const char *name = pspec->name;

  if (g_str_has_prefix (name, "probe") || g_str_equal (name, "has-probe"))
    update_probe (self);
  else if (g_str_equal (name, "n-tools"))
    {
      update_header (self);
      update_tools (self);
    }
  else
    {
      update_header (self);
      update_probe (self);
    }
}

static void
lumo_provider_row_dispose (GObject *object)
{
  LumoProviderRow *self = (LumoProviderRow *)object;

  if (self->item != NULL)
    g_signal_handlers_disconnect_by_func (self->item, on_item_notify_cb, self);
  g_clear_object (&self->item);
  g_clear_object (&self->registry);
  g_clear_pointer (&self->recommended, g_ptr_array_unref);

  G_OBJECT_CLASS (lumo_provider_row_parent_class)->dispose (object);
}

/* recommended.copy-setup (u index, u LumoRecommendedSetup): the set-up
 * text core makes for that server, on the clipboard. */
static void
copy_setup_cb (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  LumoProviderRow *self = LUMO_PROVIDER_ROW (widget);
  const LumoRecommendedServer *server;
  g_autofree char *text = NULL;
  g_autofree char *copied = NULL;
  guint index, setup;

  g_variant_get (parameter, "(uu)", &index, &setup);
  if (self->recommended == NULL || index >= self->recommended->len ||
      setup > LUMO_RECOMMENDED_SETUP_CLAUDE_MCP_ADD)
    return;

  server = g_ptr_array_index (self->recommended, index);
  text = lumo_recommended_server_setup (server, setup);
  gdk_clipboard_set_text (gtk_widget_get_clipboard (widget), text);
  copied = setup == LUMO_RECOMMENDED_SETUP_MCP_JSON
    /* Translators: a toast; %s is a recommended server's name. */
    ? g_strdup_printf (_("The mcp.json entry of %s is copied"), server->name)
    /* Translators: a toast; %s is a recommended server's name. */
    : g_strdup_printf (_("The claude mcp add command of %s is copied"), server->name);
  lumo_ui_show_toast (widget, lumo_ui_toast_new (copied));
}

static void
lumo_provider_row_class_init (LumoProviderRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = lumo_provider_row_dispose;

  gtk_widget_class_set_template_from_resource (widget_class, "/dev/lumo/Access/lumo-provider-row.ui");
  gtk_widget_class_bind_template_child (widget_class, LumoProviderRow, state_icon);
  gtk_widget_class_bind_template_child (widget_class, LumoProviderRow, title_label);
  gtk_widget_class_bind_template_child (widget_class, LumoProviderRow, details_label);
  gtk_widget_class_bind_template_child (widget_class, LumoProviderRow, probe_label);
  gtk_widget_class_bind_template_child (widget_class, LumoProviderRow, probe_time_label);
  gtk_widget_class_bind_template_child (widget_class, LumoProviderRow, probe_stack);
  gtk_widget_class_bind_template_child (widget_class, LumoProviderRow, probe_button);
  gtk_widget_class_bind_template_child (widget_class, LumoProviderRow, expander);
  gtk_widget_class_bind_template_child (widget_class, LumoProviderRow, id_label);
  gtk_widget_class_bind_template_child (widget_class, LumoProviderRow, limits_label);
  gtk_widget_class_bind_template_child (widget_class, LumoProviderRow, tools_box);
  gtk_widget_class_bind_template_child (widget_class, LumoProviderRow, remove_button);
  gtk_widget_class_bind_template_child (widget_class, LumoProviderRow, recommended_box);

  gtk_widget_class_install_action (widget_class, "recommended.copy-setup", "(uu)", copy_setup_cb);
}

static void
lumo_provider_row_init (LumoProviderRow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

GtkWidget *
lumo_provider_row_new (LumoProviderItem *item,
                       LumoToolRegistry *registry)
{
  LumoProviderRow *self;
  const char *id;
  g_autofree char *label = NULL;

  g_return_val_if_fail (LUMO_IS_PROVIDER_ITEM (item), NULL);

  self = g_object_new (LUMO_TYPE_PROVIDER_ROW, NULL);
  self->item = g_object_ref (item);
  if (registry != NULL)
    self->registry = g_object_ref (registry);

  id = lumo_provider_item_get_id (item);
  gtk_actionable_set_action_target (GTK_ACTIONABLE (self->probe_button), "s", id);
  gtk_actionable_set_action_target (GTK_ACTIONABLE (self->remove_button), "s", id);
  label = g_strdup_printf (_("Probe %s now"), lumo_provider_item_get_title (item));
  lumo_ui_set_accessible_label (GTK_WIDGET (self->probe_button), label);
  g_clear_pointer (&label, g_free);
  label = g_strdup_printf (_("Remove %s"), lumo_provider_item_get_title (item));
  lumo_ui_set_accessible_label (GTK_WIDGET (self->remove_button), label);

  g_signal_connect (item, "notify", G_CALLBACK (on_item_notify_cb), self);
  update_header (self);
  update_probe (self);
  update_tools (self);

  return GTK_WIDGET (self);
}

LumoProviderItem *
lumo_provider_row_get_item (LumoProviderRow *self)
{
  g_return_val_if_fail (LUMO_IS_PROVIDER_ROW (self), NULL);

  return self->item;
}

const char *
lumo_provider_row_get_probe_text (LumoProviderRow *self)
{
  g_return_val_if_fail (LUMO_IS_PROVIDER_ROW (self), NULL);

  return gtk_label_get_text (self->probe_label);
}

static GtkWidget *
recommended_label (const char *text,
                   const char *style)
{
  GtkWidget *label = gtk_label_new (NULL);

  /* Plain text: names and URLs are the provider's, never markup. */
  gtk_label_set_text (GTK_LABEL (label), text);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  if (style != NULL)
    gtk_widget_add_css_class (label, style);
  return label;
}

/* "Copy Set-up" ▾ with the two forms a desktop MCP client takes. */
static GtkWidget *
setup_button (const LumoRecommendedServer *server,
              guint                        index)
{
  g_autoptr(GMenu) menu = g_menu_new ();
  g_autofree char *label = NULL;
  GtkWidget *button = gtk_menu_button_new ();
  static const struct { LumoRecommendedSetup setup; const char *label; } items[] = {
    { LUMO_RECOMMENDED_SETUP_MCP_JSON, N_("As an _mcp.json entry") },
    { LUMO_RECOMMENDED_SETUP_CLAUDE_MCP_ADD, N_("As a _claude mcp add command") },
  };

  for (guint i = 0; i < G_N_ELEMENTS (items); i++)
    {
      g_autoptr(GMenuItem) item = g_menu_item_new (_(items[i].label), NULL);

      g_menu_item_set_action_and_target_value (item, "recommended.copy-setup",
                                               g_variant_new ("(uu)", index, (guint) items[i].setup));
      g_menu_append_item (menu, item);
    }

  gtk_menu_button_set_label (GTK_MENU_BUTTON (button), _("Copy Set-up"));
  gtk_menu_button_set_menu_model (GTK_MENU_BUTTON (button), G_MENU_MODEL (menu));
  gtk_widget_set_valign (button, GTK_ALIGN_START);
  /* Translators: %s is a recommended MCP server's name. */
  label = g_strdup_printf (_("Copy the set-up of %s"), server->name);
  lumo_ui_set_accessible_label (button, label);
  return button;
}

void
lumo_provider_row_set_recommended (LumoProviderRow *self,
                                   GPtrArray       *servers)
{
  GtkWidget *heading;
  GtkWidget *child;

  g_return_if_fail (LUMO_IS_PROVIDER_ROW (self));

  g_clear_pointer (&self->recommended, g_ptr_array_unref);
  self->recommended = lumo_recommended_servers_copy (servers);

  /* Keep the heading, the first child. */
  heading = gtk_widget_get_first_child (GTK_WIDGET (self->recommended_box));
  while ((child = gtk_widget_get_next_sibling (heading)) != NULL)
    gtk_box_remove (self->recommended_box, child);

  for (guint i = 0; self->recommended != NULL && i < self->recommended->len; i++)
    {
      const LumoRecommendedServer *server = g_ptr_array_index (self->recommended, i);
      GtkWidget *line = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
      GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
      GtkWidget *url = recommended_label (server->url, "monospace");

      gtk_label_set_selectable (GTK_LABEL (url), TRUE);
      gtk_widget_add_css_class (url, "caption");
      gtk_widget_set_hexpand (box, TRUE);
      gtk_box_append (GTK_BOX (box), recommended_label (server->name, NULL));
      if (server->description != NULL)
        gtk_box_append (GTK_BOX (box), recommended_label (server->description, "dim-label"));
      gtk_box_append (GTK_BOX (box), url);
      gtk_box_append (GTK_BOX (line), box);
      gtk_box_append (GTK_BOX (line), setup_button (server, i));
      gtk_box_append (self->recommended_box, line);
    }

  gtk_widget_set_visible (GTK_WIDGET (self->recommended_box),
                          self->recommended != NULL && self->recommended->len > 0);
}
