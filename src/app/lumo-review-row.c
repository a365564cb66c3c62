/* lumo-review-row.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-review-row"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "lumo-format.h"
#include "lumo-preview.h"
#include "lumo-review-row.h"
#include "lumo-ui-util.h"
#include "lumo-wrap-box.h"

struct _LumoReviewRow
{
  GtkListBoxRow      parent_instance;

  /* Template widgets */
  GtkLabel          *tool_label;
  GtkLabel          *countdown_label;
  GtkLabel          *caller_label;
  GtkLabel          *target_label;
  GtkGrid           *preview_grid;
  GtkProgressBar    *time_bar;
  GtkButton         *reject_button;
  GtkButton         *approve_button;
  GtkButton         *timed_button;
  GtkButton         *always_button;

  /* Owned */
  LumoReviewRequest *request;
  LumoReviewQueue   *queue;
  char              *timed_tooltip;   /* what the grant buttons do, when they can */
  char              *always_tooltip;
};

G_DEFINE_FINAL_TYPE (LumoReviewRow, lumo_review_row, GTK_TYPE_LIST_BOX_ROW)

static GtkWidget *
preview_label (const char *text,
               gboolean    is_key)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_widget_add_css_class (label, "caption");
  if (is_key)
    gtk_widget_add_css_class (label, "dim-label");
  else
    gtk_label_set_selectable (GTK_LABEL (label), TRUE);

  return label;
}

static void
fill_preview (LumoReviewRow *self)
{
  guint n_hidden = 0;
  g_autoptr(GPtrArray) fields = lumo_preview_format (lumo_review_request_get_preview (self->request),
                                                     &n_hidden);
  guint row = 0;

  for (; row < fields->len; row++)
    {
      const LumoPreviewField *field = g_ptr_array_index (fields, row);

      gtk_grid_attach (self->preview_grid, preview_label (field->label, TRUE), 0, row, 1, 1);
      gtk_grid_attach (self->preview_grid, preview_label (field->value, FALSE), 1, row, 1, 1);
    }

  if (n_hidden > 0)
    {
      g_autofree char *text =
        g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                      "%u field of the preview is not shown: it could hold content.",
                                      "%u fields of the preview are not shown: they could hold content.",
                                      n_hidden), n_hidden);

      gtk_grid_attach (self->preview_grid, preview_label (text, TRUE), 0, row, 2, 1);
    }

  gtk_widget_set_visible (GTK_WIDGET (self->preview_grid), fields->len > 0 || n_hidden > 0);
}

static void
lumo_review_row_dispose (GObject *object)
{
  LumoReviewRow *self = (LumoReviewRow *)object;

  g_clear_object (&self->request);
  g_clear_object (&self->queue);

  G_OBJECT_CLASS (lumo_review_row_parent_class)->dispose (object);
}

static void
lumo_review_row_finalize (GObject *object)
{
  LumoReviewRow *self = (LumoReviewRow *)object;

  g_free (self->timed_tooltip);
  g_free (self->always_tooltip);

  G_OBJECT_CLASS (lumo_review_row_parent_class)->finalize (object);
}

static void
lumo_review_row_class_init (LumoReviewRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = lumo_review_row_dispose;
  object_class->finalize = lumo_review_row_finalize;

  g_type_ensure (LUMO_TYPE_WRAP_BOX);
  gtk_widget_class_set_template_from_resource (widget_class, "/dev/lumo/Access/lumo-review-row.ui");
  gtk_widget_class_bind_template_child (widget_class, LumoReviewRow, tool_label);
  gtk_widget_class_bind_template_child (widget_class, LumoReviewRow, countdown_label);
  gtk_widget_class_bind_template_child (widget_class, LumoReviewRow, caller_label);
  gtk_widget_class_bind_template_child (widget_class, LumoReviewRow, target_label);
  gtk_widget_class_bind_template_child (widget_class, LumoReviewRow, preview_grid);
  gtk_widget_class_bind_template_child (widget_class, LumoReviewRow, time_bar);
  gtk_widget_class_bind_template_child (widget_class, LumoReviewRow, reject_button);
  gtk_widget_class_bind_template_child (widget_class, LumoReviewRow, approve_button);
  gtk_widget_class_bind_template_child (widget_class, LumoReviewRow, timed_button);
  gtk_widget_class_bind_template_child (widget_class, LumoReviewRow, always_button);
}

static void
lumo_review_row_init (LumoReviewRow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

GtkWidget *
lumo_review_row_new (LumoReviewRequest *request,
                     LumoReviewQueue   *queue)
{
  LumoReviewRow *self;
  const char *caller_name;
  const char *target;
  g_autofree char *text = NULL;

  g_return_val_if_fail (LUMO_IS_REVIEW_REQUEST (request), NULL);
  g_return_val_if_fail (LUMO_IS_REVIEW_QUEUE (queue), NULL);

  self = g_object_new (LUMO_TYPE_REVIEW_ROW, NULL);
  self->request = g_object_ref (request);
  self->queue = g_object_ref (queue);

  gtk_label_set_text (self->tool_label, lumo_review_request_get_tool (request));

  caller_name = lumo_review_request_get_caller_name (request);
  if (caller_name == NULL || *caller_name == '\0')
    caller_name = lumo_review_request_get_caller_id (request);
  /* Translators: who asked for a write: "By Foo Agent (abcdefghijklmnopabcdefghijklmnop)". */
  text = g_strdup_printf (_("By %s (%s)"), caller_name, lumo_review_request_get_caller_id (request));
  gtk_label_set_text (self->caller_label, text);
  g_clear_pointer (&text, g_free);

  target = lumo_review_request_get_target (request);
  if (target != NULL && *target != '\0')
    {
      /* Translators: the UUID of the thing a write changes. */
      text = g_strdup_printf (_("Target: %s"), target);
      gtk_label_set_text (self->target_label, text);
      g_clear_pointer (&text, g_free);
    }
  else
    gtk_widget_set_visible (GTK_WIDGET (self->target_label), FALSE);

  fill_preview (self);

  gtk_actionable_set_action_target (GTK_ACTIONABLE (self->approve_button), "s",
                                    lumo_review_request_get_id (request));
  gtk_actionable_set_action_target (GTK_ACTIONABLE (self->timed_button), "s",
                                    lumo_review_request_get_id (request));
  gtk_actionable_set_action_target (GTK_ACTIONABLE (self->always_button), "s",
                                    lumo_review_request_get_id (request));
  gtk_actionable_set_action_target (GTK_ACTIONABLE (self->reject_button), "s",
                                    lumo_review_request_get_id (request));

  /* Translators: "Approve userscripts.save_script by Foo Agent once". */
  text = g_strdup_printf (_("Approve %s by %s once"), lumo_review_request_get_tool (request), caller_name);
  lumo_ui_set_accessible_label (GTK_WIDGET (self->approve_button), text);
  g_clear_pointer (&text, g_free);
  /* Translators: the grant the two buttons make, said in full. */
  text = g_strdup_printf (_("Approve %s by %s, and its next writes of this tool for 10 minutes"),
                          lumo_review_request_get_tool (request), caller_name);
  lumo_ui_set_accessible_label (GTK_WIDGET (self->timed_button), text);
  g_clear_pointer (&text, g_free);
  text = g_strdup_printf (_("Approve %s by %s, and all its next writes of this tool"),
                          lumo_review_request_get_tool (request), caller_name);
  lumo_ui_set_accessible_label (GTK_WIDGET (self->always_button), text);
  g_clear_pointer (&text, g_free);
  self->timed_tooltip = g_strdup_printf (_("Approve this write, and let %s’s writes of this tool through "
                                           "without asking for the next 10 minutes"), caller_name);
  self->always_tooltip = g_strdup_printf (_("Approve this write, and let %s’s writes of this tool through "
                                            "without asking until you revoke it on the Access page"),
                                          caller_name);
  lumo_review_row_set_grants_managed (self, FALSE);
  text = g_strdup_printf (_("Reject %s by %s"), lumo_review_request_get_tool (request), caller_name);
  lumo_ui_set_accessible_label (GTK_WIDGET (self->reject_button), text);

  lumo_review_row_update (self);

  return GTK_WIDGET (self);
}

LumoReviewRequest *
lumo_review_row_get_request (LumoReviewRow *self)
{
  g_return_val_if_fail (LUMO_IS_REVIEW_ROW (self), NULL);

  return self->request;
}

void
lumo_review_row_update (LumoReviewRow *self)
{
  gint64 now, submitted, deadline, left;
  g_autofree char *duration = NULL;
  g_autofree char *text = NULL;

  g_return_if_fail (LUMO_IS_REVIEW_ROW (self));

  now = lumo_review_queue_now (self->queue);
  submitted = lumo_review_request_get_submitted (self->request);
  deadline = lumo_review_request_get_deadline (self->request);
  left = MAX (deadline - now, 0);

  duration = lumo_format_duration (left);
  /* Translators: the time a reviewer has left, e.g. "Rejected in 45 s". */
  text = g_strdup_printf (_("Rejected in %s"), duration);
  gtk_label_set_text (self->countdown_label, text);

  if (deadline > submitted)
    gtk_progress_bar_set_fraction (self->time_bar, (double) left / (deadline - submitted));

  if (left < 10 * G_USEC_PER_SEC)
    gtk_widget_add_css_class (GTK_WIDGET (self->countdown_label), "error");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->countdown_label), "error");
}

void
lumo_review_row_set_desktop_agent (LumoReviewRow *self)
{
  g_return_if_fail (LUMO_IS_REVIEW_ROW (self));

  lumo_ui_add_agent_tag_after (GTK_WIDGET (self->caller_label));
}

/* An actionable button's sensitivity follows its action, which the page
 * enables for every row: a managed row's grant buttons let go of it. */
static void
set_grant_button (GtkButton  *button,
                  const char *action_name,
                  gboolean    managed,
                  const char *tooltip)
{
  if (managed)
    gtk_actionable_set_action_name (GTK_ACTIONABLE (button), NULL);
  lumo_ui_set_managed (GTK_WIDGET (button), managed, tooltip);
  if (!managed)
    gtk_actionable_set_action_name (GTK_ACTIONABLE (button), action_name);
}

void
lumo_review_row_set_grants_managed (LumoReviewRow *self,
                                    gboolean       managed)
{
  g_return_if_fail (LUMO_IS_REVIEW_ROW (self));

  set_grant_button (self->timed_button, "requests.approve-review-timed", managed, self->timed_tooltip);
  set_grant_button (self->always_button, "requests.approve-review-always", managed, self->always_tooltip);
}
