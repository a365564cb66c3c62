/* test-agents.c — desktop agents in the window: the Desktop Agents group,
 * the Add Agent dialog and its one showing of the token, and the "Desktop
 * agent" tag wherever a caller is shown
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each test runs a real LumoApplication (app_fixture_setup_app()): its
 * gateway, its HTTP endpoint switched by the desktop-agents keys, and a
 * window of it. A person's part is played through the widgets; what the
 * app did is read from core (the policy, the gateway, a socket on the
 * endpoint's port).
 */
#include "config.h"

#include <string.h>

#include "app-test-util.h"
#include "lumo-audit-detail.h"
#include "lumo-caller-row.h"
#include "lumo-error.h"
#include "lumo-gateway-snippets.h"
#include "lumo-meter-row.h"
#include "lumo-paths.h"
#include "lumo-review-row.h"
#include "lumo-ui-util.h"

#define AGENT_NAME "Claude Code"

static LumoAgentsGroup *
group (AppFixture *f)
{
  return lumo_access_page_get_agents_group (_lumo_window_get_access_page (f->window));
}

static GSettings *
settings (void)
{
  GSettings *s = lumo_ui_lookup_settings ("desktop-agents", "desktop-agents-port", NULL);

  g_assert_nonnull (s);
  return s;
}

static gboolean
listening (gpointer data)
{
  return lumo_application_get_desktop_agents_state (data) == LUMO_GATEWAY_LISTENER_LISTENING;
}

static gboolean
state_is (AppFixture               *f,
          LumoGatewayListenerState  state)
{
  return lumo_application_get_desktop_agents_state (f->app) == state;
}

/* Types @text into the port row and applies it, as Enter or the row's
 * apply button does. */
static void
type_port (AppFixture *f,
           const char *text)
{
  AdwEntryRow *row = lumo_agents_group_get_port_row (group (f));

  gtk_editable_set_text (GTK_EDITABLE (row), text);
  g_signal_emit_by_name (row, "apply");
  app_test_iterate ();
}

/* Desktop agents on, through the group, on a free port. */
static guint
turn_on (AppFixture *f)
{
  guint port = app_test_free_port ();
  g_autofree char *text = g_strdup_printf ("%u", port);

  type_port (f, text);
  gtk_switch_set_active (lumo_agents_group_get_switch (group (f)), TRUE);
  lumo_test_wait_until (listening, f->app, "the endpoint to listen");
  return port;
}

static gboolean
can_connect (guint port)
{
  g_autoptr(GSocketClient) client = g_socket_client_new ();
  g_autoptr(GSocketConnection) connection = NULL;

  connection = g_socket_client_connect_to_host (client, "127.0.0.1", port, NULL, NULL);
  return connection != NULL;
}

static void
add_provider (AppFixture *f)
{
  app_fixture_add_provider (f, TEST_PROVIDER_ID, "Lumo Userscripts");
  app_test_iterate ();
}

/* An agent made through core, allowed on @provider_id (NULL: on none). */
static char *
add_agent_in_core (AppFixture  *f,
                   const char  *provider_id,
                   char       **agent_id)
{
  const char *ids[] = { provider_id, NULL };
  g_autoptr(GError) error = NULL;
  char *token = NULL;

  lumo_policy_add_agent (f->policy, AGENT_NAME, provider_id != NULL ? ids : NULL, LUMO_POLICY_ORIGIN_CLI,
                         agent_id, &token, &error);
  g_assert_no_error (error);
  app_test_iterate ();
  return token;
}

static LumoAgentSession *
open_session (AppFixture *f,
              const char *token)
{
  LumoGateway *gateway = lumo_application_get_gateway (f->app);
  g_autofree char *agent_id = NULL;
  g_autofree char *provider_id = NULL;
  LumoGatewayVerdict verdict;
  LumoAgentSession *session;

  verdict = lumo_gateway_authenticate (gateway, token, "userscripts", &agent_id, &provider_id, NULL);
  g_assert_cmpint (verdict, ==, LUMO_GATEWAY_OK);
  session = lumo_gateway_open_session (gateway, agent_id, provider_id, "http", &verdict);
  g_assert_cmpint (verdict, ==, LUMO_GATEWAY_OK);
  g_assert_nonnull (session);
  return session;
}

static gboolean
is_null (gpointer data)
{
  return *(gpointer *) data == NULL;
}

static gboolean
is_agent_tag (GtkWidget     *widget,
              gconstpointer  data)
{
  return gtk_widget_has_css_class (widget, "agent-tag") &&
         g_str_equal (gtk_label_get_text (GTK_LABEL (widget)), "Desktop agent");
}

static gboolean
has_agent_tag (GtkWidget *root)
{
  return app_test_find_widget_where (root, GTK_TYPE_LABEL, is_agent_tag, NULL) != NULL;
}

static gboolean
text_anywhere (const char *needle)
{
  g_autoptr(GList) toplevels = gtk_window_list_toplevels ();

  for (GList *l = toplevels; l != NULL; l = l->next)
    if (app_test_any_text_contains (l->data, needle))
      return TRUE;
  return FALSE;
}

/* ---- Add Agent… ------------------------------------------------------------ */

/* NULL once the dialog is finalized. */
static void
watch_dialog (LumoAgentDialog **dialog)
{
  g_object_add_weak_pointer (G_OBJECT (*dialog), (gpointer *) dialog);
}

static LumoAgentDialog *
open_dialog (AppFixture *f)
{
  LumoAgentDialog *dialog;

  app_test_click (lumo_agents_group_get_add_button (group (f)));
  app_test_iterate ();
  dialog = lumo_agents_group_get_dialog (group (f));
  g_assert_nonnull (dialog);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (dialog)));
  return dialog;
}

/* The one server of a set-up's JSON, under @member ("servers",
 * "mcpServers"). */
static JsonObject *
parse_server (const char *text,
              const char *member)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonObject *servers;
  g_autoptr(GList) names = NULL;

  json_parser_load_from_data (parser, text, -1, &error);
  g_assert_no_error (error);
  servers = json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)), member);
  g_assert_nonnull (servers);
  names = json_object_get_members (servers);
  g_assert_cmpuint (g_list_length (names), ==, 1);
  return json_object_ref (json_object_get_object_member (servers, names->data));
}

static const char *
secret_text (LumoAgentDialog *dialog,
             const char      *key)
{
  GtkLabel *label = NULL;

  g_assert_true (lumo_agent_dialog_get_secret (dialog, TEST_PROVIDER_ID, key, &label, NULL));
  return gtk_label_get_text (label);
}

/* What a person pastes works in each client: read from the labels, not
 * compared with core's output. */
static void
check_setups (LumoAgentDialog *dialog,
              const char      *token,
              guint            port,
              const char      *flatpak_app_id)
{
  g_autofree char *url = g_strdup_printf ("http://127.0.0.1:%u/mcp/userscripts", port);
  g_autofree char *bearer = g_strconcat ("Bearer ", token, NULL);
  g_autofree char *claude_code = NULL;
  const char * const http_keys[][2] = { { "vscode", "servers" }, { "cursor", "mcpServers" } };
  g_autoptr(JsonObject) desktop = NULL;
  JsonArray *args;

  g_assert_cmpstr (secret_text (dialog, "url"), ==, url);
  claude_code = g_strdup_printf ("claude mcp add --transport http lumo-userscripts %s "
                                 "--header 'Authorization: Bearer %s'", url, token);
  g_assert_cmpstr (secret_text (dialog, "claudeCode"), ==, claude_code);

  for (guint i = 0; i < G_N_ELEMENTS (http_keys); i++)
    {
      g_autoptr(JsonObject) server = parse_server (secret_text (dialog, http_keys[i][0]), http_keys[i][1]);

      g_assert_cmpstr (json_object_get_string_member (server, "type"), ==, "http");
      g_assert_cmpstr (json_object_get_string_member (server, "url"), ==, url);
      g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (server, "headers"),
                                                      "Authorization"), ==, bearer);
    }

  desktop = parse_server (secret_text (dialog, "claudeDesktop"), "mcpServers");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (desktop, "env"),
                                                  "LUMO_ACCESS_TOKEN"), ==, token);
  args = json_object_get_array_member (desktop, "args");
  if (flatpak_app_id != NULL)
    {
      g_assert_cmpstr (json_object_get_string_member (desktop, "command"), ==, "flatpak");
      g_assert_cmpuint (json_array_get_length (args), ==, 4);
      g_assert_cmpstr (json_array_get_string_element (args, 0), ==, "run");
      g_assert_cmpstr (json_array_get_string_element (args, 1), ==, "--command=lumo-access-mcp");
      g_assert_cmpstr (json_array_get_string_element (args, 2), ==, flatpak_app_id);
      g_assert_cmpstr (json_array_get_string_element (args, 3), ==, "userscripts");
    }
  else
    {
      g_assert_true (g_str_has_suffix (json_object_get_string_member (desktop, "command"), "/lumo-access-mcp"));
      g_assert_true (g_path_is_absolute (json_object_get_string_member (desktop, "command")));
      g_assert_cmpuint (json_array_get_length (args), ==, 1);
      g_assert_cmpstr (json_array_get_string_element (args, 0), ==, "userscripts");
    }
}

static void
test_add_shows_token_once (AppFixture    *f,
                           gconstpointer  data)
{
  g_autoptr(GSettings) keys = settings ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) agents = NULL;
  g_autoptr(LumoAgentInfo) agent = NULL;
  g_autoptr(JsonObject) expected = NULL;
  g_autofree char *flatpak = lumo_paths_dup_flatpak_app_id ();
  g_autofree char *authenticated = NULL;
  g_autofree char *token = NULL;
  g_autofree char *agent_id = NULL;
  const char * const keys_of_setups[] = { "url", "claudeCode", "vscode", "cursor", "claudeDesktop" };
  LumoAgentDialog *dialog;
  AdwExpanderRow *row;
  GtkLabel *label = NULL;
  GtkWidget *copy = NULL;
  GtkWidget *add;

  add_provider (f);
  /* A provider watched by hand that never connected: no namespace yet. */
  lumo_policy_add_provider (f->policy, TEST_PROVIDER2_ID, LUMO_POLICY_ORIGIN_UI, &error);
  g_assert_no_error (error);
  g_settings_set_uint (keys, "desktop-agents-port", 18137);

  dialog = open_dialog (f);
  watch_dialog (&dialog);
  add = lumo_agent_dialog_get_add_button (dialog);

  /* Every known provider is ticked. */
  g_assert_true (gtk_check_button_get_active (lumo_agent_dialog_get_provider_check (dialog, TEST_PROVIDER_ID)));
  g_assert_true (gtk_check_button_get_active (lumo_agent_dialog_get_provider_check (dialog, TEST_PROVIDER2_ID)));

  /* No name: nothing to add. A name with nothing visible: core refuses
   * it, the dialog says why, and no agent exists. */
  g_assert_false (gtk_widget_get_sensitive (add));
  gtk_editable_set_text (GTK_EDITABLE (lumo_agent_dialog_get_name_row (dialog)), "  \u202e\t ");
  g_assert_true (gtk_widget_get_sensitive (add));
  app_test_click (add);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (lumo_agent_dialog_get_error_label (dialog))));
  g_assert_cmpstr (gtk_label_get_text (lumo_agent_dialog_get_error_label (dialog)), ==,
                   "The name needs something visible in it: letters, digits or signs.");
  g_assert_false (lumo_agent_dialog_get_secret (dialog, NULL, "token", NULL, NULL));
  agents = lumo_policy_list_agents (f->policy, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (agents->len, ==, 0);
  g_clear_pointer (&agents, g_ptr_array_unref);

  /* A name with a control character in it: added, cleaned. */
  gtk_editable_set_text (GTK_EDITABLE (lumo_agent_dialog_get_name_row (dialog)), "Claude\a Code");
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (lumo_agent_dialog_get_error_label (dialog))));
  app_test_click (add);
  app_test_iterate ();
  agent_id = g_strdup (lumo_agent_dialog_get_agent_id (dialog));
  g_assert_nonnull (agent_id);
  agent = lumo_policy_get_agent (f->policy, agent_id, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (agent->name, ==, "Claude Code");

  /* The token shown is the agent's: core authenticates it. */
  g_assert_true (lumo_agent_dialog_get_secret (dialog, NULL, "token", &label, &copy));
  token = g_strdup (gtk_label_get_text (label));
  g_assert_cmpuint (strlen (token), ==, LUMO_AGENT_TOKEN_LEN);
  authenticated = lumo_policy_authenticate_agent (f->policy, token, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (authenticated, ==, agent_id);
  app_test_click (copy);
  {
    g_autofree char *copied = app_test_clipboard_text (gtk_widget_get_clipboard (copy));

    g_assert_cmpstr (copied, ==, token);
  }

  /* The set-ups are core's, for the port in the settings, each copied as
   * it is shown. */
  expected = lumo_gateway_build_snippets ("userscripts", token, 18137, flatpak);
  for (guint i = 0; i < G_N_ELEMENTS (keys_of_setups); i++)
    {
      g_autofree char *copied = NULL;

      g_assert_true (lumo_agent_dialog_get_secret (dialog, TEST_PROVIDER_ID, keys_of_setups[i], &label, &copy));
      g_assert_cmpstr (gtk_label_get_text (label), ==,
                       json_object_get_string_member (expected, keys_of_setups[i]));
      app_test_click (copy);
      copied = app_test_clipboard_text (gtk_widget_get_clipboard (copy));
      g_assert_cmpstr (copied, ==, json_object_get_string_member (expected, keys_of_setups[i]));
    }
  g_assert_nonnull (strstr (json_object_get_string_member (expected, "claudeCode"), token));
  check_setups (dialog, token, 18137, flatpak);
  /* The provider that never connected has no address, so no set-up. */
  g_assert_false (lumo_agent_dialog_get_secret (dialog, TEST_PROVIDER2_ID, "url", NULL, NULL));

  /* Allowed on both, as the list says. */
  row = lumo_agents_group_find_row (group (f), agent_id);
  g_assert_nonnull (row);
  g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)), ==, "Claude Code");
  g_assert_nonnull (strstr (adw_expander_row_get_subtitle (row), agent_id));
  g_assert_nonnull (strstr (adw_expander_row_get_subtitle (row), "Allowed on Lumo Userscripts, " TEST_PROVIDER2_ID));
  g_assert_true (app_test_any_text_contains (GTK_WIDGET (f->window), "Added the desktop agent Claude Code"));

  /* Closed, the dialog is gone, and nothing shows the token again. */
  g_assert_true (text_anywhere (token));
  gtk_window_close (GTK_WINDOW (dialog));
  lumo_test_wait_until (is_null, &dialog, "the dialog to be destroyed");
  {
    LumoAgentDialog *weak = NULL;

    g_assert_null (lumo_agents_group_get_dialog (group (f)));
    g_assert_false (text_anywhere (token));

    /* Opened again, it asks for a new agent. */
    weak = open_dialog (f);
    watch_dialog (&weak);
    dialog = weak;
    g_assert_false (lumo_agent_dialog_get_secret (weak, NULL, "token", NULL, NULL));
    g_assert_false (text_anywhere (token));
    gtk_window_close (GTK_WINDOW (weak));
    lumo_test_wait_until (is_null, &weak, "the second dialog to be destroyed");
  }
}

/* Installed as a Flatpak, the stdio set-up runs the launcher in the
 * sandbox; the HTTP ones are the same. */
static void
test_setups_for_flatpak (AppFixture    *f,
                         gconstpointer  data)
{
  LumoAgentDialog *dialog;
  GtkLabel *label = NULL;
  g_autofree char *token = NULL;

  add_provider (f);
  dialog = lumo_agent_dialog_new (GTK_WINDOW (f->window), f->policy, 8137, "dev.lumo.Access");
  watch_dialog (&dialog);
  gtk_window_present (GTK_WINDOW (dialog));
  gtk_editable_set_text (GTK_EDITABLE (lumo_agent_dialog_get_name_row (dialog)), AGENT_NAME);
  app_test_click (lumo_agent_dialog_get_add_button (dialog));
  g_assert_true (lumo_agent_dialog_get_secret (dialog, NULL, "token", &label, NULL));
  token = g_strdup (gtk_label_get_text (label));

  check_setups (dialog, token, 8137, "dev.lumo.Access");

  gtk_window_close (GTK_WINDOW (dialog));
  lumo_test_wait_until (is_null, &dialog, "the dialog to be destroyed");
}

static void
test_add_dialog_is_destroyed (AppFixture    *f,
                              gconstpointer  data)
{
  LumoAgentDialog *dialog;
  GtkLabel *label = NULL;
  g_autofree char *token = NULL;

  add_provider (f);
  dialog = open_dialog (f);
  watch_dialog (&dialog);
  gtk_editable_set_text (GTK_EDITABLE (lumo_agent_dialog_get_name_row (dialog)), AGENT_NAME);
  app_test_click (lumo_agent_dialog_get_add_button (dialog));
  g_assert_true (lumo_agent_dialog_get_secret (dialog, NULL, "token", &label, NULL));
  token = g_strdup (gtk_label_get_text (label));

  /* Escape, as a person closes it. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (dialog), "window.close", NULL));
  lumo_test_wait_until (is_null, &dialog, "the dialog to be destroyed");
  g_assert_false (text_anywhere (token));
}

/* ---- Remove, Deny -------------------------------------------------------- */

static void
test_remove_after_asking (AppFixture    *f,
                          gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *agent_id = NULL;
  g_autofree char *token = NULL;
  g_autoptr(LumoAgentSession) session = NULL;
  g_autofree char *nobody = NULL;
  AdwMessageDialog *question;
  GtkWidget *remove;

  add_provider (f);
  turn_on (f);
  token = add_agent_in_core (f, TEST_PROVIDER_ID, &agent_id);
  session = open_session (f, token);
  g_assert_nonnull (lumo_agents_group_find_row (group (f), agent_id));

  remove = app_test_find_action_button (GTK_WIDGET (group (f)), "agents.remove", g_variant_new_string (agent_id));
  g_assert_nonnull (remove);

  /* Asked first: Cancel changes nothing. */
  app_test_click (remove);
  question = lumo_agents_group_get_question (group (f));
  g_assert_nonnull (question);
  adw_message_dialog_response (question, "cancel");
  app_test_iterate ();
  g_assert_nonnull (lumo_policy_get_agent (f->policy, agent_id, NULL));
  g_assert_false (lumo_agent_session_is_closed (session));

  /* Remove: gone, its session ended at once, its token refused. */
  app_test_click (remove);
  question = lumo_agents_group_get_question (group (f));
  g_assert_nonnull (question);
  adw_message_dialog_response (question, "remove");
  g_assert_true (lumo_agent_session_is_closed (session));
  g_assert_null (lumo_policy_get_agent (f->policy, agent_id, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND);
  g_clear_error (&error);
  nobody = lumo_policy_authenticate_agent (f->policy, token, &error);
  g_assert_null (nobody);
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND);
  g_assert_cmpint (lumo_gateway_authenticate (lumo_application_get_gateway (f->app), token, "userscripts",
                                              NULL, NULL, NULL), ==, LUMO_GATEWAY_BAD_TOKEN);
  app_test_iterate ();
  g_assert_null (lumo_agents_group_find_row (group (f), agent_id));
}

static void
test_deny_ends_sessions (AppFixture    *f,
                         gconstpointer  data)
{
  g_autofree char *agent_id = NULL;
  g_autofree char *token = NULL;
  g_autoptr(LumoAgentSession) first = NULL;
  g_autoptr(LumoAgentSession) second = NULL;
  g_autoptr(LumoCallerInfo) caller = NULL;
  GtkWidget *button;
  GtkWidget *forget;

  add_provider (f);
  turn_on (f);
  token = add_agent_in_core (f, TEST_PROVIDER_ID, &agent_id);
  first = open_session (f, token);

  /* Deny on the agent's provider row: the session ends at once. */
  button = app_test_find_action_button (GTK_WIDGET (group (f)), "agents.deny",
                                        g_variant_new ("(ss)", TEST_PROVIDER_ID, agent_id));
  g_assert_nonnull (button);
  app_test_click (button);
  g_assert_true (lumo_agent_session_is_closed (first));
  caller = lumo_policy_get_caller (f->policy, TEST_PROVIDER_ID, agent_id, NULL);
  g_assert_cmpint (caller->state, ==, LUMO_CALLER_STATE_DENIED);
  g_assert_cmpint (lumo_gateway_authenticate (lumo_application_get_gateway (f->app), token, "userscripts",
                                              NULL, NULL, NULL), ==, LUMO_GATEWAY_DENIED);

  /* Allow again there; then the Access page's allow-list removes it, which
   * ends its session as well. */
  app_test_iterate ();
  button = app_test_find_action_button (GTK_WIDGET (group (f)), "agents.allow",
                                        g_variant_new ("(ss)", TEST_PROVIDER_ID, agent_id));
  g_assert_nonnull (button);
  app_test_click (button);
  second = open_session (f, token);
  app_test_iterate ();
  forget = app_test_find_action_button (GTK_WIDGET (_lumo_window_get_access_page (f->window)),
                                        "access.forget-caller",
                                        g_variant_new ("(ss)", TEST_PROVIDER_ID, agent_id));
  g_assert_nonnull (forget);
  app_test_click (forget);
  g_assert_true (lumo_agent_session_is_closed (second));
}

/* ---- the switch and the port --------------------------------------------- */

static gboolean
subtitle_contains (GtkWidget  *row,
                   const char *needle)
{
  const char *subtitle = app_test_row_subtitle (row);

  return subtitle != NULL && strstr (subtitle, needle) != NULL;
}

static void
test_switch_follows_key_and_listener (AppFixture    *f,
                                      gconstpointer  data)
{
  g_autoptr(GSettings) keys = settings ();
  GtkSwitch *sw = lumo_agents_group_get_switch (group (f));
  GtkWidget *state_row = GTK_WIDGET (lumo_agents_group_get_state_row (group (f)));
  g_autoptr(GSocket) squatter = NULL;
  g_autoptr(GSocketAddress) address = NULL;
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autofree char *listening_text = NULL;
  g_autofree char *in_use_text = NULL;
  g_autofree char *text = NULL;
  guint port, taken;

  g_assert_false (gtk_switch_get_active (sw));
  g_assert_true (state_is (f, LUMO_GATEWAY_LISTENER_OFF));
  g_assert_true (subtitle_contains (state_row, "Off"));

  /* On: the key, then the endpoint, then the row that says so. */
  port = turn_on (f);
  g_assert_true (g_settings_get_boolean (keys, "desktop-agents"));
  g_assert_cmpuint (g_settings_get_uint (keys, "desktop-agents-port"), ==, port);
  g_assert_true (can_connect (port));
  listening_text = g_strdup_printf ("Listening on port %u", port);
  g_assert_true (subtitle_contains (state_row, listening_text));

  /* The key changes elsewhere (gsettings): the switch follows. */
  g_settings_set_boolean (keys, "desktop-agents", FALSE);
  app_test_iterate ();
  g_assert_false (gtk_switch_get_active (sw));
  g_assert_true (state_is (f, LUMO_GATEWAY_LISTENER_OFF));
  g_assert_true (subtitle_contains (state_row, "Off"));
  g_assert_false (can_connect (port));

  /* Another program has the port that is typed. */
  squatter = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, NULL);
  address = g_inet_socket_address_new (loopback, 0);
  g_assert_true (g_socket_bind (squatter, address, FALSE, NULL));
  g_assert_true (g_socket_listen (squatter, NULL));
  g_clear_object (&address);
  address = g_socket_get_local_address (squatter, NULL);
  taken = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (address));

  gtk_switch_set_active (sw, TRUE);
  lumo_test_wait_until (listening, f->app, "the endpoint to listen again");
  text = g_strdup_printf ("%u", taken);
  type_port (f, text);
  g_assert_cmpuint (g_settings_get_uint (keys, "desktop-agents-port"), ==, taken);
  g_assert_true (state_is (f, LUMO_GATEWAY_LISTENER_PORT_IN_USE));
  in_use_text = g_strdup_printf ("Port %u is in use by another program", taken);
  g_assert_true (subtitle_contains (state_row, in_use_text));

  /* Off by the switch: off. */
  gtk_switch_set_active (sw, FALSE);
  g_assert_false (g_settings_get_boolean (keys, "desktop-agents"));
  g_assert_true (state_is (f, LUMO_GATEWAY_LISTENER_OFF));
  g_assert_true (subtitle_contains (state_row, "Off"));
}

static void
test_bad_port_refused (AppFixture    *f,
                       gconstpointer  data)
{
  g_autoptr(GSettings) keys = settings ();
  GtkLabel *error_label = lumo_agents_group_get_port_error (group (f));
  AdwEntryRow *row = lumo_agents_group_get_port_row (group (f));
  const struct
  {
    const char *typed;
    const char *message;
  } bad[] = {
    { "abc", "“abc” is not a port: type a whole number from 1024 to 65535." },
    { "-1", "“-1” is not a port: type a whole number from 1024 to 65535." },
    { "81 37", "“81 37” is not a port: type a whole number from 1024 to 65535." },
    { "80", "Port 80 cannot be used: type a number from 1024 to 65535." },
    { "65536", "Port 65536 cannot be used: type a number from 1024 to 65535." },
    { "99999999999", "“99999999999” is not a port: type a whole number from 1024 to 65535." },
    { "", "Type a port: a whole number from 1024 to 65535." },
  };
  guint port, other;
  g_autofree char *port_text = NULL;
  g_autofree char *typed = NULL;

  port = turn_on (f);
  port_text = g_strdup_printf ("%u", port);
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (error_label)));

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      type_port (f, bad[i].typed);
      g_assert_true (gtk_widget_get_visible (GTK_WIDGET (error_label)));
      g_assert_cmpstr (gtk_label_get_text (error_label), ==, bad[i].message);
      /* Nothing applied: the key and the endpoint are where they were. */
      g_assert_cmpuint (g_settings_get_uint (keys, "desktop-agents-port"), ==, port);
      g_assert_true (state_is (f, LUMO_GATEWAY_LISTENER_LISTENING));
      g_assert_true (can_connect (port));
      /* What was typed stays, to be corrected. */
      g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (row)), ==, bad[i].typed);
    }

  /* Typing again hides the message; a good port is taken as it is. */
  gtk_editable_set_text (GTK_EDITABLE (row), "1");
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (error_label)));
  other = app_test_free_port ();
  typed = g_strdup_printf (" %u ", other);
  type_port (f, typed);
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (error_label)));
  g_assert_cmpuint (g_settings_get_uint (keys, "desktop-agents-port"), ==, other);
  lumo_test_wait_until (listening, f->app, "the endpoint on the new port");
  g_assert_true (can_connect (other));
}

/* ---- the tag wherever a caller is shown ------------------------------------ */

static gboolean
caller_row_of (GtkWidget     *widget,
               gconstpointer  caller_id)
{
  return g_str_equal (lumo_caller_item_get_caller_id (lumo_caller_row_get_item (LUMO_CALLER_ROW (widget))),
                      caller_id);
}

static gboolean
review_row_of (GtkWidget     *widget,
               gconstpointer  caller_id)
{
  return g_str_equal (lumo_review_request_get_caller_id (lumo_review_row_get_request (LUMO_REVIEW_ROW (widget))),
                      caller_id);
}

static gboolean
meter_row_of (GtkWidget     *widget,
              gconstpointer  caller_id)
{
  return g_str_equal (lumo_meter_item_get_caller_id (lumo_meter_row_get_item (LUMO_METER_ROW (widget))),
                      caller_id);
}

static gboolean
action_row_titled (GtkWidget     *widget,
                   gconstpointer  title)
{
  return g_strcmp0 (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (widget)), title) == 0;
}

typedef struct
{
  gboolean done;
} Done;

static void
on_review_done_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  lumo_review_queue_submit_finish (LUMO_REVIEW_QUEUE (object), result, NULL);
  ((Done *) user_data)->done = TRUE;
}

static gboolean
is_done (gpointer data)
{
  return ((Done *) data)->done;
}

static void
test_tag_wherever_a_caller_is_shown (AppFixture    *f,
                                     gconstpointer  data)
{
  GtkWidget *requests = GTK_WIDGET (_lumo_window_get_requests_page (f->window));
  GtkWidget *access = GTK_WIDGET (_lumo_window_get_access_page (f->window));
  GtkWidget *activity = GTK_WIDGET (_lumo_window_get_activity_page (f->window));
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(LumoAgentSession) session = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *agent_id = NULL;
  g_autofree char *token = NULL;
  LumoPolicyStatus status;
  Done agent_review = { 0 }, extension_review = { 0 };
  GtkWidget *row;

  add_provider (f);
  turn_on (f);
  /* An extension waits too, as the one that must not carry the tag. */
  lumo_policy_probe (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, "Helpful Agent", &status, &error);
  g_assert_no_error (error);

  /* The agent's first request to a provider makes it wait there. */
  token = add_agent_in_core (f, NULL, &agent_id);
  g_assert_cmpint (lumo_gateway_authenticate (lumo_application_get_gateway (f->app), token, "userscripts",
                                              NULL, NULL, NULL), ==, LUMO_GATEWAY_PENDING);
  app_test_iterate ();

  /* Requests: the waiting callers. */
  row = app_test_find_widget_where (requests, LUMO_TYPE_CALLER_ROW, caller_row_of, agent_id);
  g_assert_nonnull (row);
  g_assert_true (has_agent_tag (row));
  row = app_test_find_widget_where (requests, LUMO_TYPE_CALLER_ROW, caller_row_of, TEST_CALLER_ID);
  g_assert_nonnull (row);
  g_assert_false (has_agent_tag (row));

  /* Approved, on the Requests page. */
  row = app_test_find_action_button (requests, "requests.approve-caller",
                                     g_variant_new ("(ss)", TEST_PROVIDER_ID, agent_id));
  g_assert_nonnull (row);
  app_test_click (row);
  lumo_policy_allow_caller (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, LUMO_POLICY_ORIGIN_UI, &error);
  g_assert_no_error (error);
  app_test_iterate ();

  /* Access: the allow-list. */
  row = app_test_find_widget_where (access, ADW_TYPE_ACTION_ROW, action_row_titled, AGENT_NAME);
  g_assert_nonnull (row);
  g_assert_true (has_agent_tag (row));
  row = app_test_find_widget_where (access, ADW_TYPE_ACTION_ROW, action_row_titled, "Helpful Agent");
  g_assert_nonnull (row);
  g_assert_false (has_agent_tag (row));

  /* Requests: a write of each waits for review. */
  lumo_review_queue_submit_async (f->queue, TEST_PROVIDER_ID, agent_id, AGENT_NAME, "userscripts.save_script",
                                  NULL, "{\"name\":\"x\"}", cancellable, on_review_done_cb, &agent_review);
  lumo_review_queue_submit_async (f->queue, TEST_PROVIDER_ID, TEST_CALLER_ID, "Helpful Agent",
                                  "userscripts.save_script", NULL, "{\"name\":\"y\"}", cancellable,
                                  on_review_done_cb, &extension_review);
  app_test_iterate ();
  row = app_test_find_widget_where (requests, LUMO_TYPE_REVIEW_ROW, review_row_of, agent_id);
  g_assert_nonnull (row);
  g_assert_true (has_agent_tag (row));
  row = app_test_find_widget_where (requests, LUMO_TYPE_REVIEW_ROW, review_row_of, TEST_CALLER_ID);
  g_assert_nonnull (row);
  g_assert_false (has_agent_tag (row));

  /* Activity: the meters, and the open session with its transport. */
  row = app_test_find_widget_where (activity, LUMO_TYPE_METER_ROW, meter_row_of, agent_id);
  g_assert_nonnull (row);
  g_assert_true (has_agent_tag (row));
  row = app_test_find_widget_where (activity, LUMO_TYPE_METER_ROW, meter_row_of, TEST_CALLER_ID);
  g_assert_nonnull (row);
  g_assert_false (has_agent_tag (row));

  g_assert_false (app_test_any_text_contains (activity, "desktop agent over"));
  session = open_session (f, token);
  app_test_iterate ();
  g_assert_true (app_test_any_text_contains (activity, AGENT_NAME ", desktop agent over HTTP"));
  lumo_agent_session_close (session, "the test is over");
  app_test_iterate ();
  g_assert_false (app_test_any_text_contains (activity, "desktop agent over"));

  g_cancellable_cancel (cancellable);
  lumo_test_wait_until (is_done, &agent_review, "the agent's review to end");
  lumo_test_wait_until (is_done, &extension_review, "the extension's review to end");

  /* Access: the deny-list (the rows with Allow). */
  g_assert_true (lumo_policy_deny_caller (f->policy, TEST_PROVIDER_ID, agent_id, LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_no_error (error);
  g_assert_true (lumo_policy_deny_caller (f->policy, TEST_PROVIDER_ID, TEST_CALLER_ID, LUMO_POLICY_ORIGIN_UI, &error));
  g_assert_no_error (error);
  app_test_iterate ();
  row = app_test_find_action_button (access, "access.allow-caller", g_variant_new ("(ss)", TEST_PROVIDER_ID, agent_id));
  g_assert_nonnull (row);
  g_assert_true (has_agent_tag (gtk_widget_get_ancestor (row, ADW_TYPE_ACTION_ROW)));
  row = app_test_find_action_button (access, "access.allow-caller",
                                     g_variant_new ("(ss)", TEST_PROVIDER_ID, TEST_CALLER_ID));
  g_assert_nonnull (row);
  g_assert_false (has_agent_tag (gtk_widget_get_ancestor (row, ADW_TYPE_ACTION_ROW)));
}

/* The Audit page's detail: the kind the row recorded, not what the caller
 * is now (a removed agent's writes stay a desktop agent's). */
static LumoAuditRow *
append_write (AppFixture          *f,
              const char          *caller_id,
              const char          *caller_name,
              LumoAuditCallerKind  kind)
{
  LumoAuditRecord record = {
    .provider_id = TEST_PROVIDER_ID,
    .caller_id = caller_id,
    .caller_name = caller_name,
    .tool = "userscripts.save_script",
    .write = TRUE,
    .params_sha256 = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
    .decision = LUMO_AUDIT_DECISION_ALLOW,
    .caller_kind = kind,
  };
  g_autoptr(GError) error = NULL;
  LumoAuditRow *row;
  gint64 id;

  id = lumo_audit_store_append (f->audit, &record, &error);
  g_assert_no_error (error);
  row = lumo_audit_store_get_row (f->audit, id, &error);
  g_assert_no_error (error);
  return row;
}

static void
test_tag_in_audit_detail (AppFixture    *f,
                          gconstpointer  data)
{
  GtkWidget *detail = g_object_ref_sink (g_object_new (LUMO_TYPE_AUDIT_DETAIL, NULL));
  g_autoptr(LumoAuditRow) agent_row = NULL;
  g_autoptr(LumoAuditRow) extension_row = NULL;
  g_autofree char *agent_id = NULL;
  g_autofree char *token = NULL;
  g_autoptr(GError) error = NULL;

  add_provider (f);
  token = add_agent_in_core (f, TEST_PROVIDER_ID, &agent_id);
  agent_row = append_write (f, agent_id, AGENT_NAME, LUMO_AUDIT_CALLER_KIND_AGENT);
  extension_row = append_write (f, TEST_CALLER_ID, "Helpful Agent", LUMO_AUDIT_CALLER_KIND_EXTENSION);

  lumo_audit_detail_set_row (LUMO_AUDIT_DETAIL (detail), agent_row, "Lumo Userscripts", NULL, FALSE);
  g_assert_true (app_test_any_text_contains (detail, AGENT_NAME "\n"));
  g_assert_true (has_agent_tag (detail));

  lumo_audit_detail_set_row (LUMO_AUDIT_DETAIL (detail), extension_row, "Lumo Userscripts", NULL, FALSE);
  g_assert_true (app_test_any_text_contains (detail, "Helpful Agent"));
  g_assert_false (has_agent_tag (detail));

  /* Removed, the agent's writes are still a desktop agent's. */
  lumo_policy_remove_agent (f->policy, agent_id, LUMO_POLICY_ORIGIN_UI, &error);
  g_assert_no_error (error);
  lumo_audit_detail_set_row (LUMO_AUDIT_DETAIL (detail), agent_row, "Lumo Userscripts", NULL, FALSE);
  g_assert_true (has_agent_tag (detail));

  lumo_audit_detail_set_row (LUMO_AUDIT_DETAIL (detail), NULL, NULL, NULL, FALSE);
  g_assert_false (has_agent_tag (detail));
  g_object_unref (detail);
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);
  app_test_init_application ();

#define ADD(path, func) \
  g_test_add ("/agents/" path, AppFixture, GINT_TO_POINTER (TRUE), app_fixture_setup_app, func, app_fixture_teardown)
  ADD ("add-shows-token-once", test_add_shows_token_once);
  ADD ("add-dialog-destroyed", test_add_dialog_is_destroyed);
  ADD ("setups-for-flatpak", test_setups_for_flatpak);
  ADD ("remove-after-asking", test_remove_after_asking);
  ADD ("deny-ends-sessions", test_deny_ends_sessions);
  ADD ("switch-and-state", test_switch_follows_key_and_listener);
  ADD ("bad-port", test_bad_port_refused);
  ADD ("tag-everywhere", test_tag_wherever_a_caller_is_shown);
  ADD ("tag-in-audit-detail", test_tag_in_audit_detail);
#undef ADD

  return g_test_run ();
}
