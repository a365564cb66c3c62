/* lumo-ctl-review.c — review list | approve ID | reject ID: the writes that
 * wait for a person, decided from the command line
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Review requests live only in the running app (a request is a tool call
 * held open until someone decides), so unlike the policy commands these
 * talk to the app over the session bus: ListReviews and DecideReview of
 * dev.lumo.Access.Bridge (src/dbus/dev.lumo.Access.xml), through
 * lumo_ctl_call_app(), which never starts the app — a freshly started app
 * has nothing waiting — and says plainly when it is not running. A review ID is the app's random UUID, so an
 * argument that is not one is a wrong command line (exit 2) and the bus is
 * not even opened; an ID the app does not know is the app's answer, with
 * its own message (exit 1).
 */
#define G_LOG_DOMAIN "lumo-access-ctl"

#include "config.h"

#include <gio/gio.h>
#include <glib/gi18n-lib.h>

#include "lumo-ctl.h"
#include "lumo-preview.h"

/* Review requests live only in the running app. */
static GVariant *
call_app (const char         *method,
          GVariant           *parameters,
          const GVariantType *reply_type,
          int                *exit_code)
{
  return lumo_ctl_call_app (method, parameters, reply_type,
                            _("Lumo Access is not running. Review requests exist only while the app runs "
                              "(each one is a write held open until you decide); start Lumo Access and try again."),
                            exit_code);
}

/* ---- review list ------------------------------------------------------------ */

typedef struct
{
  const char *id;
  const char *provider;
  const char *caller;
  const char *caller_name;
  const char *tool;
  const char *target;
  const char *preview;
  gint64      submitted;
  gint64      deadline;
} Review;

static const char *
empty_to_null (const char *s)
{
  return s != NULL && *s != '\0' ? s : NULL;
}

static JsonNode *
review_to_json (const Review *r)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autofree char *submitted = lumo_ctl_format_iso (r->submitted);
  g_autofree char *deadline = lumo_ctl_format_iso (r->deadline);

  json_builder_begin_object (b);
  lumo_ctl_json_member (b, "id", r->id);
  lumo_ctl_json_member (b, "provider", r->provider);
  lumo_ctl_json_member (b, "caller", r->caller);
  lumo_ctl_json_member (b, "callerName", empty_to_null (r->caller_name));
  lumo_ctl_json_member (b, "tool", r->tool);
  lumo_ctl_json_member (b, "target", empty_to_null (r->target));
  /* The redacted preview as the object it is, so scripts need not parse
   * a string inside the JSON; null if the app sent none or no JSON. */
  json_builder_set_member_name (b, "preview");
  if (empty_to_null (r->preview) && json_parser_load_from_data (parser, r->preview, -1, NULL) &&
      json_parser_get_root (parser) != NULL)
    json_builder_add_value (b, json_node_copy (json_parser_get_root (parser)));
  else
    json_builder_add_null_value (b);
  lumo_ctl_json_member (b, "submitted", submitted);
  lumo_ctl_json_member (b, "deadline", deadline);
  json_builder_end_object (b);

  return json_builder_get_root (b);
}

int
lumo_ctl_review_list (const LumoCtlCommand   *command,
                      char                 ***args)
{
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GVariantIter) iter = NULL;
  g_autoptr(GArray) reviews = g_array_new (FALSE, TRUE, sizeof (Review));
  gboolean json = FALSE;
  int exit_code = 0;
  Review r;
  const GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print JSON"), NULL },
    G_OPTION_ENTRY_NULL
  };

  if (!lumo_ctl_parse (command, entries, args, 0, 0, &exit_code))
    return exit_code;

  if (!(reply = call_app ("ListReviews", NULL, G_VARIANT_TYPE ("(a(sssssssxx))"), &exit_code)))
    return exit_code;

  /* The strings point into @reply, which outlives the array. */
  g_variant_get (reply, "(a(sssssssxx))", &iter);
  while (g_variant_iter_next (iter, "(&s&s&s&s&s&s&sxx)", &r.id, &r.provider, &r.caller,
                              &r.caller_name, &r.tool, &r.target, &r.preview,
                              &r.submitted, &r.deadline))
    g_array_append_val (reviews, r);

  if (json)
    {
      g_autoptr(JsonArray) array = json_array_new ();
      g_autoptr(JsonNode) root = json_node_new (JSON_NODE_ARRAY);

      for (guint i = 0; i < reviews->len; i++)
        json_array_add_element (array, review_to_json (&g_array_index (reviews, Review, i)));
      json_node_set_array (root, array);
      lumo_ctl_print_json (root);
    }
  else if (reviews->len == 0)
    {
      g_print ("%s\n", _("No write is waiting for review."));
    }
  else
    {
      g_autoptr(LumoCtlTable) table =
        lumo_ctl_table_new (_("ID"), _("TOOL"), _("TARGET"), _("CALLER"), _("NAME"),
                            _("PROVIDER"), _("SUBMITTED"), _("DEADLINE"), NULL);

      for (guint i = 0; i < reviews->len; i++)
        {
          const Review *rv = &g_array_index (reviews, Review, i);
          g_autofree char *submitted = lumo_ctl_format_time (rv->submitted);
          g_autofree char *deadline = lumo_ctl_format_time (rv->deadline);

          lumo_ctl_table_add (table, rv->id, rv->tool, empty_to_null (rv->target) ? rv->target : "—",
                              rv->caller, empty_to_null (rv->caller_name) ? rv->caller_name : "—",
                              rv->provider, submitted, deadline, NULL);
        }
      lumo_ctl_table_print (table);

      /* What each write would do, as the window shows it. */
      for (guint i = 0; i < reviews->len; i++)
        {
          const Review *rv = &g_array_index (reviews, Review, i);
          g_autofree char *preview = lumo_preview_to_text (empty_to_null (rv->preview));
          g_auto(GStrv) lines = NULL;

          if (preview == NULL)
            continue;
          /* Translators: above the preview lines of one review, "Review 0b9c…:". */
          g_print ("\n");
          g_print (_("Review %s:\n"), rv->id);
          lines = g_strsplit (preview, "\n", -1);
          for (guint j = 0; lines[j] != NULL; j++)
            g_print ("  %s\n", lines[j]);
        }

      g_print ("\n%s\n", _("Decide with “lumo-access-ctl review approve ID” or “… review reject ID”; "
                           "“review list --json” shows each write’s preview as sent."));
    }

  return LUMO_CTL_EXIT_OK;
}

/* ---- review approve | reject -------------------------------------------------- */

static int
decide (const LumoCtlCommand   *command,
        char                 ***args,
        gboolean                approve)
{
  g_autoptr(GVariant) reply = NULL;
  g_autofree char *for_opt = NULL;
  gboolean always = FALSE;
  gboolean json = FALSE;
  LumoGrantScope grant = LUMO_GRANT_SCOPE_ONCE;
  int exit_code = 0;
  const char *id;
  const GOptionEntry approve_entries[] = {
    { "for", 0, 0, G_OPTION_ARG_STRING, &for_opt,
      N_("Also approve the caller’s writes of this tool for a while without asking: 10m"), N_("10m") },
    { "always", 0, 0, G_OPTION_ARG_NONE, &always,
      N_("Also approve the caller’s writes of this tool from now on, until the grant is revoked"), NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print JSON"), NULL },
    G_OPTION_ENTRY_NULL
  };
  /* A rejection grants nothing: --for and --always are unknown to it. */
  const GOptionEntry *entries = approve ? approve_entries : approve_entries + 2;

  if (!lumo_ctl_parse (command, entries, args, 1, 1, &exit_code))
    return exit_code;

  if (for_opt != NULL && always)
    return lumo_ctl_usage_error (command, _("--for and --always are two different grants; choose one"));
  if (for_opt != NULL)
    {
      /* The one timed grant there is: its word, as the app's D-Bus takes it. */
      if (!lumo_grant_scope_from_string (for_opt, &grant) || grant != LUMO_GRANT_SCOPE_TEN_MINUTES)
        return lumo_ctl_usage_error (command, _("--for takes 10m (ten minutes), not “%s”"),
                                     g_utf8_validate (for_opt, -1, NULL) ? for_opt : "(not UTF-8)");
    }
  else if (always)
    grant = LUMO_GRANT_SCOPE_ALWAYS;

  id = (*args)[1];
  if (!g_uuid_string_is_valid (id))
    return lumo_ctl_usage_error (command,
                                 _("“%s” is not a review ID: “review list” shows them "
                                   "(36 characters, like 0b9c1a52-6e1d-4d0b-9f6c-2f1f3c6a8e21)"),
                                 g_utf8_validate (id, -1, NULL) ? id : "(not UTF-8)");

  /* Without a grant the method every version of the app has. */
  if (grant == LUMO_GRANT_SCOPE_ONCE)
    reply = call_app ("DecideReview", g_variant_new ("(sb)", id, approve), G_VARIANT_TYPE_UNIT, &exit_code);
  else
    reply = call_app ("ApproveReview", g_variant_new ("(ss)", id, lumo_grant_scope_to_string (grant)),
                      G_VARIANT_TYPE_UNIT, &exit_code);
  if (reply == NULL)
    return exit_code;

  if (json)
    {
      g_autoptr(JsonBuilder) b = json_builder_new ();
      g_autoptr(JsonNode) root = NULL;

      json_builder_begin_object (b);
      lumo_ctl_json_member (b, "id", id);
      lumo_ctl_json_member (b, "decision", approve ? "approved" : "rejected");
      if (approve)
        lumo_ctl_json_member (b, "grant", lumo_grant_scope_to_string (grant));
      json_builder_end_object (b);
      root = json_builder_get_root (b);
      lumo_ctl_print_json (root);
    }
  else if (grant == LUMO_GRANT_SCOPE_TEN_MINUTES)
    {
      g_print (_("Approved the review %s, and the caller’s writes of that tool for the next 10 minutes "
                 "without asking (“grants” lists them, “revoke-grant” ends one).\n"), id);
    }
  else if (grant == LUMO_GRANT_SCOPE_ALWAYS)
    {
      g_print (_("Approved the review %s, and the caller’s writes of that tool from now on without asking "
                 "(“grants” lists them, “revoke-grant” ends one).\n"), id);
    }
  else if (approve)
    {
      /* The app still checks the policy once more before the write runs. */
      g_print (_("Approved the review %s.\n"), id);
    }
  else
    {
      g_print (_("Rejected the review %s; the provider is told review_rejected.\n"), id);
    }

  return LUMO_CTL_EXIT_OK;
}

int
lumo_ctl_review_approve (const LumoCtlCommand   *command,
                         char                 ***args)
{
  return decide (command, args, TRUE);
}

int
lumo_ctl_review_reject (const LumoCtlCommand   *command,
                        char                 ***args)
{
  return decide (command, args, FALSE);
}
