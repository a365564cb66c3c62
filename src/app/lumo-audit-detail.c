/* lumo-audit-detail.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-audit-detail"

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n-lib.h>

#include "lumo-audit-detail.h"
#include "lumo-format.h"
#include "lumo-ui-util.h"

struct _LumoAuditDetail
{
  GtkWidget     parent_instance;

  /* Template widgets */
  GtkWidget    *box;
  GtkStack     *stack;
  GtkBox       *fields_box;

  /* Owned */
  LumoAuditRow *row;
};

G_DEFINE_FINAL_TYPE (LumoAuditDetail, lumo_audit_detail, GTK_TYPE_WIDGET)

/* The value's label, or NULL when there is no value to show. */
static GtkWidget *
add_field (LumoAuditDetail *self,
           const char      *key,
           const char      *value,
           gboolean         monospace)
{
  GtkWidget *key_label;
  GtkWidget *value_label;

  if (value == NULL || *value == '\0')
    return NULL;

  key_label = gtk_label_new (key);
  gtk_label_set_xalign (GTK_LABEL (key_label), 0);
  gtk_widget_add_css_class (key_label, "caption-heading");
  gtk_widget_add_css_class (key_label, "dim-label");
  gtk_widget_set_margin_top (key_label, 10);

  value_label = gtk_label_new (value);
  gtk_label_set_xalign (GTK_LABEL (value_label), 0);
  gtk_label_set_selectable (GTK_LABEL (value_label), TRUE);
  gtk_label_set_wrap (GTK_LABEL (value_label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (value_label), monospace ? PANGO_WRAP_CHAR : PANGO_WRAP_WORD_CHAR);
  if (monospace)
    gtk_widget_add_css_class (value_label, "monospace");

  gtk_accessible_update_relation (GTK_ACCESSIBLE (value_label),
                                  GTK_ACCESSIBLE_RELATION_LABELLED_BY, key_label, NULL,
                                  -1);

  gtk_box_append (self->fields_box, key_label);
  gtk_box_append (self->fields_box, value_label);

  return value_label;
}

static char *
utc_time (gint64 time_us)
{
  g_autoptr(GDateTime) dt = g_date_time_new_from_unix_utc (time_us / G_USEC_PER_SEC);

  return dt != NULL ? g_date_time_format_iso8601 (dt) : g_strdup ("?");
}

static char *
chain_status (LumoAuditRow                *row,
              const LumoAuditVerifyReport *report,
              gboolean                     verify_ok)
{
  gint64 id = lumo_audit_row_get_id (row);

  if (report == NULL)
    return g_strdup (_("Not verified since the window opened. Use “Verify Log” to check the whole chain."));
  if (verify_ok && id <= report->last_id)
    return g_strdup (_("Verified: the hash chain is intact up to this entry and beyond."));
  if (verify_ok)
    return g_strdup (_("Added after the last verification."));
  if (report->bad_id > 0 && id >= report->bad_id)
    /* Translators: %s is the number of the first entry where the chain breaks. */
    {
      g_autofree char *bad = g_strdup_printf ("%" G_GINT64_FORMAT, report->bad_id);

      return g_strdup_printf (_("Not trustworthy: the chain breaks at entry %s, at or before this one."), bad);
    }
  return g_strdup (_("Verified: the chain is intact up to this entry; it breaks after it."));
}

static void
lumo_audit_detail_dispose (GObject *object)
{
  LumoAuditDetail *self = (LumoAuditDetail *)object;

  g_clear_object (&self->row);
  g_clear_pointer (&self->box, gtk_widget_unparent);

  G_OBJECT_CLASS (lumo_audit_detail_parent_class)->dispose (object);
}

static void
lumo_audit_detail_class_init (LumoAuditDetailClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = lumo_audit_detail_dispose;

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_template_from_resource (widget_class, "/dev/lumo/Access/lumo-audit-detail.ui");
  gtk_widget_class_bind_template_child (widget_class, LumoAuditDetail, box);
  gtk_widget_class_bind_template_child (widget_class, LumoAuditDetail, stack);
  gtk_widget_class_bind_template_child (widget_class, LumoAuditDetail, fields_box);
  gtk_widget_class_set_css_name (widget_class, "auditdetail");
}

static void
lumo_audit_detail_init (LumoAuditDetail *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

void
lumo_audit_detail_set_row (LumoAuditDetail             *self,
                           LumoAuditRow                *row,
                           const char                  *provider_title,
                           const LumoAuditVerifyReport *report,
                           gboolean                     verify_ok)
{
  GtkWidget *child;
  GtkWidget *caller_label;
  g_autofree char *id = NULL;
  g_autofree char *local = NULL;
  g_autofree char *utc = NULL;
  g_autofree char *when = NULL;
  g_autofree char *provider = NULL;
  g_autofree char *caller = NULL;
  g_autofree char *reason = NULL;
  g_autofree char *outcome = NULL;
  g_autofree char *result_time = NULL;
  g_autofree char *chain = NULL;
  const char *name;

  g_return_if_fail (LUMO_IS_AUDIT_DETAIL (self));
  g_return_if_fail (row == NULL || LUMO_IS_AUDIT_ROW (row));

  g_set_object (&self->row, row);

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->fields_box))) != NULL)
    gtk_box_remove (self->fields_box, child);

  if (row == NULL)
    {
      gtk_stack_set_visible_child_name (self->stack, "none");
      return;
    }

  id = g_strdup_printf ("%" G_GINT64_FORMAT, lumo_audit_row_get_id (row));
  local = lumo_format_time (lumo_audit_row_get_time_us (row));
  utc = utc_time (lumo_audit_row_get_time_us (row));
  /* Translators: a time in local time and in UTC, on two lines. */
  when = g_strdup_printf (_("%s\n%s (UTC)"), local, utc);

  if (provider_title != NULL && g_strcmp0 (provider_title, lumo_audit_row_get_provider_id (row)) != 0)
    provider = g_strdup_printf ("%s\n%s", provider_title, lumo_audit_row_get_provider_id (row));
  else
    provider = g_strdup (lumo_audit_row_get_provider_id (row));

  name = lumo_audit_row_get_caller_name (row);
  if (name != NULL && *name != '\0')
    caller = g_strdup_printf ("%s\n%s", name, lumo_audit_row_get_caller_id (row));
  else
    caller = g_strdup (lumo_audit_row_get_caller_id (row));

  reason = lumo_format_reason (lumo_audit_row_get_reason (row));
  outcome = lumo_format_outcome (row);
  if (lumo_audit_row_get_result_time_us (row) > 0)
    result_time = lumo_format_time (lumo_audit_row_get_result_time_us (row));
  chain = chain_status (row, report, verify_ok);

  add_field (self, _("Entry"), id, FALSE);
  add_field (self, _("Time"), when, FALSE);
  add_field (self, _("Provider"), provider, FALSE);
  caller_label = add_field (self, _("Agent"), caller, FALSE);
  /* What the policy said the caller was when the write was recorded. */
  if (caller_label != NULL && lumo_audit_row_get_caller_kind (row) == LUMO_AUDIT_CALLER_KIND_AGENT)
    lumo_ui_add_agent_tag_after (caller_label);
  add_field (self, _("Tool"), lumo_audit_row_get_tool (row), TRUE);
  add_field (self, _("Kind"), lumo_audit_row_get_write (row) ? _("Write") : _("Read"), FALSE);
  add_field (self, _("Target"), lumo_audit_row_get_target (row), TRUE);
  add_field (self, _("Outcome"), outcome, FALSE);
  add_field (self, _("Reason"), reason, FALSE);
  /* The store allows by_grant only on an allowed write: nobody was asked
   * for this one, and the log must not read as if someone had been. */
  if (lumo_audit_row_get_by_grant (row))
    add_field (self, _("Review"),
               _("Allowed by a review grant: this agent’s writes of this tool were approved for 10 minutes "
                 "or always, so no one was asked"),
               FALSE);
  add_field (self, _("Result message"), lumo_audit_row_get_result_text (row), FALSE);
  add_field (self, _("Result recorded"), result_time, FALSE);
  add_field (self, _("Parameters hash (keyed)"), lumo_audit_row_get_params_hmac (row), TRUE);
  add_field (self, _("Entry hash"), lumo_audit_row_get_hash (row), TRUE);
  add_field (self, _("Hash chain"), chain, FALSE);

  gtk_stack_set_visible_child_name (self->stack, "fields");
}

LumoAuditRow *
lumo_audit_detail_get_row (LumoAuditDetail *self)
{
  g_return_val_if_fail (LUMO_IS_AUDIT_DETAIL (self), NULL);

  return self->row;
}
