/* lumo-agents-group.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-agents-group"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "lumo-agents-group.h"
#include "lumo-backend.h"
#include "lumo-format.h"
#include "lumo-gateway-snippets.h"
#include "lumo-managed-policy.h"
#include "lumo-paths.h"
#include "lumo-policy.h"
#include "lumo-text.h"
#include "lumo-ui-util.h"

struct _LumoAgentsGroup
{
  AdwPreferencesGroup  parent_instance;

  /* Template widgets */
  GtkWidget           *add_button;
  AdwActionRow        *enabled_row;
  GtkSwitch           *enabled_switch;
  AdwEntryRow         *port_row;
  GtkLabel            *port_error_label;
  GtkListBox          *agents_list;

  /* Owned */
  LumoBackend         *backend;
  GSettings           *settings;   /* NULL without the schema: then all is off */
  char                *shown;      /* what the list shows, so that it is rebuilt only on a change */
  gboolean             switch_bound; /* the switch shows the desktop-agents key */

  /* Borrowed (weak pointers) */
  LumoApplication     *application;
  LumoAgentDialog     *dialog;
  AdwMessageDialog    *question;
};

G_DEFINE_FINAL_TYPE (LumoAgentsGroup, lumo_agents_group, ADW_TYPE_PREFERENCES_GROUP)

static LumoPolicy *
get_policy (LumoAgentsGroup *self)
{
  return self->backend != NULL ? lumo_backend_get_policy (self->backend) : NULL;
}

static guint
configured_port (LumoAgentsGroup *self)
{
  return self->settings != NULL ? g_settings_get_uint (self->settings, "desktop-agents-port")
                                : LUMO_GATEWAY_DEFAULT_PORT;
}

/* TRUE if a managed policy file forbids desktop agents on every provider:
 * then the switch and Add Agent are the organization's. */
static gboolean
agents_forbidden (LumoAgentsGroup *self)
{
  LumoPolicy *policy = get_policy (self);

  return policy != NULL &&
         lumo_managed_policy_get_agents_forbidden (lumo_policy_get_managed (policy), NULL, NULL);
}

/* ---- the endpoint ----------------------------------------------------------- */

/* Forbidden by a file, the switch shows what is in force (off) and cannot
 * be changed; else it is the desktop-agents key again. */
static void
sync_managed (LumoAgentsGroup *self,
              gboolean         forbidden)
{
  gboolean bind = self->settings != NULL && !forbidden;

  if (bind && !self->switch_bound)
    g_settings_bind (self->settings, "desktop-agents", self->enabled_switch, "active", G_SETTINGS_BIND_DEFAULT);
  else if (!bind && self->switch_bound)
    g_settings_unbind (self->enabled_switch, "active");
  self->switch_bound = bind;

  if (forbidden)
    gtk_switch_set_active (self->enabled_switch, FALSE);
  gtk_widget_set_sensitive (GTK_WIDGET (self->enabled_row), bind);
  lumo_ui_set_managed (self->add_button, forbidden, NULL);
}

static void
update_state (LumoAgentsGroup *self)
{
  LumoGatewayListenerState state = self->application != NULL
    ? lumo_application_get_desktop_agents_state (self->application)
    : LUMO_GATEWAY_LISTENER_OFF;
  guint port = configured_port (self);
  gboolean forbidden = agents_forbidden (self);
  g_autofree char *text = NULL;

  sync_managed (self, forbidden);
  if (forbidden)
    {
      adw_action_row_set_subtitle (self->enabled_row, lumo_ui_managed_text ());
      gtk_widget_remove_css_class (GTK_WIDGET (self->enabled_row), "error");
      return;
    }

  switch (state)
    {
    case LUMO_GATEWAY_LISTENER_LISTENING:
      /* Translators: the state of the desktop agents' endpoint. */
      text = g_strdup_printf (_("Listening on port %u: MCP clients on this computer can connect."), port);
      break;
    case LUMO_GATEWAY_LISTENER_PORT_IN_USE:
      text = g_strdup_printf (_("Port %u is in use by another program: choose another port below."), port);
      break;
    case LUMO_GATEWAY_LISTENER_FAILED:
      text = g_strdup_printf (_("Cannot listen on port %u: the log says why."), port);
      break;
    case LUMO_GATEWAY_LISTENER_OFF:
    default:
      text = g_strdup (_("Off: MCP clients cannot connect, over HTTP or through the launcher."));
      break;
    }

  adw_action_row_set_subtitle (self->enabled_row, text);
  if (state == LUMO_GATEWAY_LISTENER_PORT_IN_USE || state == LUMO_GATEWAY_LISTENER_FAILED)
    gtk_widget_add_css_class (GTK_WIDGET (self->enabled_row), "error");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->enabled_row), "error");
}

static void
show_port_error (LumoAgentsGroup *self,
                 const char      *message)
{
  lumo_ui_show_row_error (GTK_WIDGET (self->port_row), self->port_error_label, message);
}

static void
show_configured_port (LumoAgentsGroup *self)
{
  g_autofree char *text = g_strdup_printf ("%u", configured_port (self));

  gtk_editable_set_text (GTK_EDITABLE (self->port_row), text);
  show_port_error (self, NULL);
}

static void
on_port_row_changed_cb (LumoAgentsGroup *self)
{
  show_port_error (self, NULL);
}

/* The range the schema gives the key: the one statement of which ports
 * the app may use. */
static GSettingsSchemaKey *
port_key (LumoAgentsGroup *self,
          guint           *min,
          guint           *max)
{
  g_autoptr(GSettingsSchema) schema = NULL;
  g_autoptr(GVariant) range = NULL;
  g_autoptr(GVariant) bounds = NULL;
  GSettingsSchemaKey *key;
  const char *type;

  g_object_get (self->settings, "settings-schema", &schema, NULL);
  key = g_settings_schema_get_key (schema, "desktop-agents-port");
  range = g_settings_schema_key_get_range (key);
  g_variant_get (range, "(&sv)", &type, &bounds);
  if (g_str_equal (type, "range"))
    g_variant_get (bounds, "(uu)", min, max);
  else
    {
      *min = 1;
      *max = 65535;
    }

  return key;
}

static void
on_port_row_apply_cb (LumoAgentsGroup *self)
{
  g_autoptr(GSettingsSchemaKey) key = NULL;
  g_autofree char *text = NULL;
  g_autofree char *shown = NULL;
  g_autofree char *message = NULL;
  guint64 port = 0;
  guint min, max;

  if (self->settings == NULL)
    return;

  key = port_key (self, &min, &max);
  text = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->port_row))));
  shown = lumo_utf8_excerpt (text, 24);

  if (*text == '\0')
    /* Translators: %u, %u are the lowest and the highest port allowed. */
    message = g_strdup_printf (_("Type a port: a whole number from %u to %u."), min, max);
  else if (!g_ascii_string_to_unsigned (text, 10, 0, G_MAXUINT32, &port, NULL))
    /* Translators: “%s” is what was typed. */
    message = g_strdup_printf (_("“%s” is not a port: type a whole number from %u to %u."), shown, min, max);
  else if (!g_settings_schema_key_range_check (key, g_variant_new_uint32 ((guint32) port)))
    message = g_strdup_printf (_("Port %s cannot be used: type a number from %u to %u."), shown, min, max);

  if (message != NULL)
    {
      /* Nothing changes: the endpoint stays where it is. */
      show_port_error (self, message);
      return;
    }

  if ((guint) port != configured_port (self))
    g_settings_set_uint (self->settings, "desktop-agents-port", (guint) port);
  show_configured_port (self);
}

static void
on_settings_changed_cb (GSettings       *settings,
                        const char      *key,
                        LumoAgentsGroup *self)
{
  if (g_str_equal (key, "desktop-agents-port"))
    show_configured_port (self);
  if (g_str_equal (key, "desktop-agents-port") || g_str_equal (key, "desktop-agents"))
    update_state (self);
}

static void
on_application_state_notify_cb (LumoApplication *application,
                                GParamSpec      *pspec,
                                LumoAgentsGroup *self)
{
  update_state (self);
}

/* ---- the agents --------------------------------------------------------------- */

static const char *
state_text (LumoCallerState state)
{
  switch (state)
    {
    case LUMO_CALLER_STATE_ALLOWED:
      return _("Allowed");
    case LUMO_CALLER_STATE_DENIED:
      return _("Denied");
    case LUMO_CALLER_STATE_PENDING:
    case LUMO_CALLER_STATE_ANY:
    default:
      return _("Waits for your approval on the Requests page");
    }
}

static GtkWidget *
action_button (const char *label,
               const char *icon_name,
               const char *tooltip,
               const char *accessible,
               const char *action_name,
               GVariant   *target)
{
  GtkWidget *button = icon_name != NULL ? gtk_button_new_from_icon_name (icon_name)
                                        : gtk_button_new_with_mnemonic (label);

  if (icon_name != NULL)
    gtk_widget_add_css_class (button, "flat");
  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  gtk_widget_set_tooltip_text (button, tooltip);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (button), action_name);
  gtk_actionable_set_action_target_value (GTK_ACTIONABLE (button), target);
  lumo_ui_set_accessible_label (button, accessible);

  return button;
}

static GtkWidget *
provider_row_new (const LumoAgentInfo *agent,
                  const LumoCallerInfo *caller,
                  const char           *provider_title)
{
  GtkWidget *row = adw_action_row_new ();
  gboolean allowed = caller->state == LUMO_CALLER_STATE_ALLOWED;
  g_autofree char *accessible = NULL;

  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), provider_title);
  if (caller->managed)
    {
      /* A managed policy file decides it: the button would be refused. */
      g_autofree char *subtitle = g_strdup_printf ("%s\n%s", state_text (caller->state),
                                                   lumo_ui_managed_text ());

      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
      gtk_widget_set_sensitive (row, FALSE);
    }
  else
    adw_action_row_set_subtitle (ADW_ACTION_ROW (row), state_text (caller->state));

  /* Translators: "Deny Claude Code on Lumo Userscripts". */
  accessible = g_strdup_printf (allowed ? _("Deny %s on %s") : _("Allow %s on %s"), agent->name, provider_title);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row),
                             action_button (allowed ? _("_Deny") : _("A_llow"), NULL,
                                            allowed ? _("Refuse its calls to this provider and end its sessions with it")
                                                    : _("Let it use this provider’s tools"),
                                            accessible, allowed ? "agents.deny" : "agents.allow",
                                            g_variant_new ("(ss)", caller->provider_id, agent->id)));
  return row;
}

static const char *
provider_title (GHashTable *providers,
                const char *provider_id)
{
  return lumo_format_provider_title (g_hash_table_lookup (providers, provider_id), provider_id);
}

static GtkWidget *
agent_row_new (const LumoAgentInfo *agent,
               GPtrArray           *callers,
               GHashTable          *providers)
{
  GtkWidget *row = adw_expander_row_new ();
  g_autoptr(GString) subtitle = g_string_new (agent->id);
  g_autofree char *accessible = NULL;
  static const LumoCallerState states[] = {
    LUMO_CALLER_STATE_ALLOWED, LUMO_CALLER_STATE_DENIED, LUMO_CALLER_STATE_PENDING
  };

  /* Its ID, then a line for each state it has on some provider. */
  for (guint s = 0; s < G_N_ELEMENTS (states); s++)
    {
      g_autoptr(GString) names = g_string_new (NULL);

      for (guint i = 0; i < callers->len; i++)
        {
          const LumoCallerInfo *c = g_ptr_array_index (callers, i);

          if (c->state != states[s])
            continue;
          if (names->len > 0)
            /* Translators: between the names of providers in a list. */
            g_string_append (names, _(", "));
          g_string_append (names, provider_title (providers, c->provider_id));
        }
      if (names->len == 0)
        continue;

      g_string_append_c (subtitle, '\n');
      if (states[s] == LUMO_CALLER_STATE_ALLOWED)
        /* Translators: the providers a desktop agent may use. */
        g_string_append_printf (subtitle, _("Allowed on %s"), names->str);
      else if (states[s] == LUMO_CALLER_STATE_DENIED)
        g_string_append_printf (subtitle, _("Denied on %s"), names->str);
      else
        g_string_append_printf (subtitle, _("Waits for your approval on %s"), names->str);
    }
  if (callers->len == 0)
    g_string_append_printf (subtitle, "\n%s", _("On no provider yet: its first request to one waits for your approval"));

  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), agent->name);
  adw_expander_row_set_subtitle (ADW_EXPANDER_ROW (row), subtitle->str);
  g_object_set_data_full (G_OBJECT (row), "lumo-agent-id", g_strdup (agent->id), g_free);

  accessible = g_strdup_printf (_("Remove %s"), agent->name);
  adw_expander_row_add_action (ADW_EXPANDER_ROW (row),
                               action_button (NULL, "user-trash-symbolic",
                                              _("Remove this agent: its token stops working"),
                                              accessible, "agents.remove", g_variant_new_string (agent->id)));

  for (guint i = 0; i < callers->len; i++)
    {
      const LumoCallerInfo *c = g_ptr_array_index (callers, i);

      adw_expander_row_add_row (ADW_EXPANDER_ROW (row),
                                provider_row_new (agent, c, provider_title (providers, c->provider_id)));
    }

  return row;
}

static void
reload_agents (LumoAgentsGroup *self)
{
  LumoPolicy *policy = get_policy (self);
  g_autoptr(GPtrArray) agents = NULL;
  g_autoptr(GPtrArray) callers = NULL;
  g_autoptr(GPtrArray) providers = NULL;
  g_autoptr(GHashTable) by_agent = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                                          (GDestroyNotify) g_ptr_array_unref);
  g_autoptr(GHashTable) by_provider = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GHashTable) expanded = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GString) shown = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  GtkListBoxRow *old;

  if (policy == NULL)
    return;

  if (!(agents = lumo_policy_list_agents (policy, &error)) ||
      !(callers = lumo_policy_list_callers (policy, NULL, LUMO_CALLER_STATE_ANY, &error)) ||
      !(providers = lumo_policy_list_providers (policy, &error)))
    {
      g_warning ("Cannot list the desktop agents: %s", error->message);
      return;
    }

  for (guint i = 0; i < agents->len; i++)
    {
      LumoAgentInfo *agent = g_ptr_array_index (agents, i);

      g_hash_table_insert (by_agent, agent->id, g_ptr_array_new ());
    }
  for (guint i = 0; i < providers->len; i++)
    {
      LumoProviderInfo *p = g_ptr_array_index (providers, i);

      g_hash_table_insert (by_provider, p->id, p);
    }
  /* Oldest first, so that an agent's providers keep their order. */
  for (guint i = callers->len; i > 0; i--)
    {
      LumoCallerInfo *c = g_ptr_array_index (callers, i - 1);
      GPtrArray *mine = g_hash_table_lookup (by_agent, c->id);

      if (mine != NULL)
        g_ptr_array_add (mine, c);
    }

  /* Only what the rows show: counts and last-seen times change often. */
  for (guint i = 0; i < agents->len; i++)
    {
      LumoAgentInfo *agent = g_ptr_array_index (agents, i);
      GPtrArray *mine = g_hash_table_lookup (by_agent, agent->id);

      g_string_append_printf (shown, "%s\n%s\n", agent->id, agent->name);
      for (guint j = 0; j < mine->len; j++)
        {
          LumoCallerInfo *c = g_ptr_array_index (mine, j);

          g_string_append_printf (shown, "%s %d %d %s\n", c->provider_id, c->state, c->managed,
                                  provider_title (by_provider, c->provider_id));
        }
    }
  if (g_strcmp0 (shown->str, self->shown) == 0)
    return;
  g_free (self->shown);
  self->shown = g_strdup (shown->str);

  /* Rows the person opened stay open. */
  while ((old = gtk_list_box_get_row_at_index (self->agents_list, 0)) != NULL)
    {
      if (adw_expander_row_get_expanded (ADW_EXPANDER_ROW (old)))
        g_hash_table_add (expanded, g_strdup (g_object_get_data (G_OBJECT (old), "lumo-agent-id")));
      gtk_list_box_remove (self->agents_list, GTK_WIDGET (old));
    }

  for (guint i = 0; i < agents->len; i++)
    {
      LumoAgentInfo *agent = g_ptr_array_index (agents, i);
      GtkWidget *row = agent_row_new (agent, g_hash_table_lookup (by_agent, agent->id), by_provider);

      adw_expander_row_set_expanded (ADW_EXPANDER_ROW (row), g_hash_table_contains (expanded, agent->id));
      gtk_list_box_append (self->agents_list, row);
    }
}

static void
on_policy_agent_changed_cb (LumoPolicy      *policy,
                            const char      *agent_id,
                            LumoAgentsGroup *self)
{
  reload_agents (self);
}

static void
on_policy_caller_changed_cb (LumoPolicy      *policy,
                             const char      *provider_id,
                             const char      *caller_id,
                             LumoAgentsGroup *self)
{
  /* Extensions' callers come and go far more often than agents. */
  if (lumo_policy_is_agent (policy, caller_id))
    reload_agents (self);
}

static void
on_policy_provider_changed_cb (LumoPolicy      *policy,
                               const char      *provider_id,
                               LumoAgentsGroup *self)
{
  reload_agents (self);
}

static void
on_policy_managed_changed_cb (LumoPolicy      *policy,
                              LumoAgentsGroup *self)
{
  update_state (self);
  reload_agents (self);
}

/* ---- actions ------------------------------------------------------------------ */

static void
on_add_button_clicked_cb (LumoAgentsGroup *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  g_autofree char *flatpak_app_id = NULL;

  if (get_policy (self) == NULL)
    return;

  if (self->dialog != NULL)
    {
      gtk_window_present (GTK_WINDOW (self->dialog));
      return;
    }

  /* The set-ups are the ones for how the app was installed. */
  flatpak_app_id = lumo_paths_dup_flatpak_app_id ();
  self->dialog = lumo_agent_dialog_new (GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                        get_policy (self), configured_port (self), flatpak_app_id);
  g_object_add_weak_pointer (G_OBJECT (self->dialog), (gpointer *) &self->dialog);
  gtk_window_present (GTK_WINDOW (self->dialog));
}

static void
decide_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *param)
{
  LumoAgentsGroup *self = LUMO_AGENTS_GROUP (widget);
  gboolean allow = g_str_equal (action_name, "agents.allow");
  g_autoptr(GError) error = NULL;
  const char *provider_id, *agent_id;
  gboolean ok;

  if (get_policy (self) == NULL)
    return;

  g_variant_get (param, "(&s&s)", &provider_id, &agent_id);
  if (allow)
    ok = lumo_policy_allow_caller (get_policy (self), provider_id, agent_id, LUMO_POLICY_ORIGIN_UI, &error);
  else
    ok = lumo_policy_deny_caller (get_policy (self), provider_id, agent_id, LUMO_POLICY_ORIGIN_UI, &error);

  if (!ok)
    lumo_ui_show_error (widget, allow ? _("Could not allow the agent") : _("Could not deny the agent"), error);
}

static void
on_question_response_cb (AdwMessageDialog *question,
                         const char       *response,
                         LumoAgentsGroup  *self)
{
  const char *agent_id = g_object_get_data (G_OBJECT (question), "lumo-agent-id");
  g_autoptr(LumoAgentInfo) agent = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  if (!g_str_equal (response, "remove") || get_policy (self) == NULL)
    return;

  agent = lumo_policy_get_agent (get_policy (self), agent_id, NULL);
  if (!lumo_policy_remove_agent (get_policy (self), agent_id, LUMO_POLICY_ORIGIN_UI, &error))
    {
      lumo_ui_show_error (GTK_WIDGET (self), _("Could not remove the agent"), error);
      return;
    }

  /* Translators: a toast; %s is a desktop agent's name. */
  text = g_strdup_printf (_("Removed the desktop agent %s: its token no longer works"),
                          agent != NULL ? agent->name : agent_id);
  lumo_ui_show_toast (GTK_WIDGET (self), lumo_ui_toast_new (text));
}

static void
remove_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *param)
{
  LumoAgentsGroup *self = LUMO_AGENTS_GROUP (widget);
  const char *agent_id = g_variant_get_string (param, NULL);
  g_autoptr(LumoAgentInfo) agent = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *heading = NULL;
  GtkRoot *root = gtk_widget_get_root (widget);
  GtkWidget *question;

  if (get_policy (self) == NULL || self->question != NULL)
    return;
  if (!(agent = lumo_policy_get_agent (get_policy (self), agent_id, &error)))
    {
      lumo_ui_show_error (widget, _("Could not remove the agent"), error);
      return;
    }

  /* Translators: %s is a desktop agent's name. */
  heading = g_strdup_printf (_("Remove “%s”?"), agent->name);
  question = adw_message_dialog_new (GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL, heading,
                                     _("Its token stops working at once and its open sessions end. "
                                       "To use it again, add it again and paste the new token into the client."));
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (question),
                                    "cancel", _("_Cancel"),
                                    "remove", _("_Remove"),
                                    NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (question), "remove",
                                              ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (question), "cancel");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (question), "cancel");
  g_object_set_data_full (G_OBJECT (question), "lumo-agent-id", g_strdup (agent_id), g_free);
  g_signal_connect_object (question, "response", G_CALLBACK (on_question_response_cb), self, 0);

  self->question = ADW_MESSAGE_DIALOG (question);
  g_object_add_weak_pointer (G_OBJECT (question), (gpointer *) &self->question);
  gtk_window_present (GTK_WINDOW (question));
}

/* ---- GObject --------------------------------------------------------------------- */

static void
lumo_agents_group_dispose (GObject *object)
{
  LumoAgentsGroup *self = (LumoAgentsGroup *)object;

  if (self->dialog != NULL)
    {
      g_object_remove_weak_pointer (G_OBJECT (self->dialog), (gpointer *) &self->dialog);
      gtk_window_destroy (GTK_WINDOW (self->dialog));
      self->dialog = NULL;
    }
  if (self->question != NULL)
    {
      g_object_remove_weak_pointer (G_OBJECT (self->question), (gpointer *) &self->question);
      gtk_window_destroy (GTK_WINDOW (self->question));
      self->question = NULL;
    }
  if (self->application != NULL)
    {
      g_object_remove_weak_pointer (G_OBJECT (self->application), (gpointer *) &self->application);
      self->application = NULL;
    }
  g_clear_object (&self->settings);
  g_clear_object (&self->backend);

  G_OBJECT_CLASS (lumo_agents_group_parent_class)->dispose (object);
}

static void
lumo_agents_group_finalize (GObject *object)
{
  LumoAgentsGroup *self = (LumoAgentsGroup *)object;

  g_clear_pointer (&self->shown, g_free);

  G_OBJECT_CLASS (lumo_agents_group_parent_class)->finalize (object);
}

static void
lumo_agents_group_class_init (LumoAgentsGroupClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = lumo_agents_group_dispose;
  object_class->finalize = lumo_agents_group_finalize;

  gtk_widget_class_set_template_from_resource (widget_class, "/dev/lumo/Access/lumo-agents-group.ui");
  gtk_widget_class_bind_template_child (widget_class, LumoAgentsGroup, add_button);
  gtk_widget_class_bind_template_child (widget_class, LumoAgentsGroup, enabled_row);
  gtk_widget_class_bind_template_child (widget_class, LumoAgentsGroup, enabled_switch);
  gtk_widget_class_bind_template_child (widget_class, LumoAgentsGroup, port_row);
  gtk_widget_class_bind_template_child (widget_class, LumoAgentsGroup, port_error_label);
  gtk_widget_class_bind_template_child (widget_class, LumoAgentsGroup, agents_list);
  gtk_widget_class_bind_template_callback (widget_class, on_add_button_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_port_row_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_port_row_apply_cb);

  gtk_widget_class_install_action (widget_class, "agents.allow", "(ss)", decide_action);
  gtk_widget_class_install_action (widget_class, "agents.deny", "(ss)", decide_action);
  gtk_widget_class_install_action (widget_class, "agents.remove", "s", remove_action);
}

static void
lumo_agents_group_init (LumoAgentsGroup *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  gtk_list_box_set_placeholder (self->agents_list,
                                lumo_ui_placeholder_new (_("No desktop agent yet. Add one, then paste its "
                                                           "set-up into the MCP client.")));

  self->settings = lumo_ui_lookup_settings ("desktop-agents", "desktop-agents-port", NULL);
  if (self->settings != NULL)
    g_signal_connect_object (self->settings, "changed", G_CALLBACK (on_settings_changed_cb), self, 0);
  else
    gtk_widget_set_sensitive (GTK_WIDGET (self->port_row), FALSE);
  /* update_state() binds the switch, unless a managed file forbids agents. */

  show_configured_port (self);
  update_state (self);
}

void
lumo_agents_group_set_backend (LumoAgentsGroup *self,
                               LumoBackend     *backend)
{
  LumoPolicy *policy;

  g_return_if_fail (LUMO_IS_AGENTS_GROUP (self));
  g_return_if_fail (LUMO_IS_BACKEND (backend));
  g_return_if_fail (self->backend == NULL);

  self->backend = g_object_ref (backend);
  policy = lumo_backend_get_policy (backend);
  g_signal_connect_object (policy, "agent-changed", G_CALLBACK (on_policy_agent_changed_cb), self, 0);
  g_signal_connect_object (policy, "caller-changed", G_CALLBACK (on_policy_caller_changed_cb), self, 0);
  g_signal_connect_object (policy, "provider-changed", G_CALLBACK (on_policy_provider_changed_cb), self, 0);
  g_signal_connect_object (policy, "managed-changed", G_CALLBACK (on_policy_managed_changed_cb), self, 0);
  reload_agents (self);
  update_state (self);
}

void
lumo_agents_group_set_application (LumoAgentsGroup *self,
                                   LumoApplication *application)
{
  g_return_if_fail (LUMO_IS_AGENTS_GROUP (self));
  g_return_if_fail (LUMO_IS_APPLICATION (application));
  g_return_if_fail (self->application == NULL);

  self->application = application;
  g_object_add_weak_pointer (G_OBJECT (application), (gpointer *) &self->application);
  g_signal_connect_object (application, "notify::desktop-agents-state",
                           G_CALLBACK (on_application_state_notify_cb), self, 0);
  update_state (self);
}

GtkSwitch *
lumo_agents_group_get_switch (LumoAgentsGroup *self)
{
  g_return_val_if_fail (LUMO_IS_AGENTS_GROUP (self), NULL);
  return self->enabled_switch;
}

AdwActionRow *
lumo_agents_group_get_state_row (LumoAgentsGroup *self)
{
  g_return_val_if_fail (LUMO_IS_AGENTS_GROUP (self), NULL);
  return self->enabled_row;
}

AdwEntryRow *
lumo_agents_group_get_port_row (LumoAgentsGroup *self)
{
  g_return_val_if_fail (LUMO_IS_AGENTS_GROUP (self), NULL);
  return self->port_row;
}

GtkLabel *
lumo_agents_group_get_port_error (LumoAgentsGroup *self)
{
  g_return_val_if_fail (LUMO_IS_AGENTS_GROUP (self), NULL);
  return self->port_error_label;
}

GtkWidget *
lumo_agents_group_get_add_button (LumoAgentsGroup *self)
{
  g_return_val_if_fail (LUMO_IS_AGENTS_GROUP (self), NULL);
  return self->add_button;
}

GtkListBox *
lumo_agents_group_get_list (LumoAgentsGroup *self)
{
  g_return_val_if_fail (LUMO_IS_AGENTS_GROUP (self), NULL);
  return self->agents_list;
}

AdwExpanderRow *
lumo_agents_group_find_row (LumoAgentsGroup *self,
                            const char      *agent_id)
{
  GtkListBoxRow *row;

  g_return_val_if_fail (LUMO_IS_AGENTS_GROUP (self), NULL);

  for (int i = 0; (row = gtk_list_box_get_row_at_index (self->agents_list, i)) != NULL; i++)
    if (g_strcmp0 (g_object_get_data (G_OBJECT (row), "lumo-agent-id"), agent_id) == 0)
      return ADW_EXPANDER_ROW (row);
  return NULL;
}

LumoAgentDialog *
lumo_agents_group_get_dialog (LumoAgentsGroup *self)
{
  g_return_val_if_fail (LUMO_IS_AGENTS_GROUP (self), NULL);
  return self->dialog;
}

AdwMessageDialog *
lumo_agents_group_get_question (LumoAgentsGroup *self)
{
  g_return_val_if_fail (LUMO_IS_AGENTS_GROUP (self), NULL);
  return self->question;
}
