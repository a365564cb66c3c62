/* lumo-managed-banner.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-managed-banner"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "lumo-managed-banner.h"
#include "lumo-managed-policy.h"

/* More than this many lines would push the window's content away. */
#define MAX_SHOWN 5

struct _LumoManagedBanner
{
  AdwBin       parent_instance;

  /* Template widgets */
  GtkRevealer *revealer;
  GtkLabel    *title_label;
  GtkLabel    *details_label;

  /* Owned */
  LumoPolicy  *policy;
};

G_DEFINE_FINAL_TYPE (LumoManagedBanner, lumo_managed_banner, ADW_TYPE_BIN)

/* "FILE, line 3: writes: must be true or false…" — what a person needs to
 * find it, in their language around the file's own words. */
static char *
problem_line (const LumoManagedProblem *p)
{
  if (p->line > 0 && p->field != NULL)
    /* Translators: file, line, the key as a path ("providers.ID.writes"), what is wrong. */
    return g_strdup_printf (_("%s, line %u: %s: %s"), p->file, p->line, p->field, p->message);
  if (p->line > 0)
    /* Translators: file, line, what is wrong. */
    return g_strdup_printf (_("%s, line %u: %s"), p->file, p->line, p->message);

  /* Translators: file, what is wrong. */
  return g_strdup_printf (_("%s: %s"), p->file, p->message);
}

static void
update (LumoManagedBanner *self)
{
  GPtrArray *problems = lumo_managed_policy_get_problems (lumo_policy_get_managed (self->policy));
  g_autoptr(GString) details = g_string_new (NULL);
  g_autofree char *title = NULL;

  gtk_revealer_set_reveal_child (self->revealer, problems->len > 0);
  gtk_widget_set_visible (GTK_WIDGET (self), problems->len > 0);
  if (problems->len == 0)
    return;

  title = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                        "Your organization’s policy has a problem",
                                        "Your organization’s policy has %u problems",
                                        problems->len),
                           problems->len);
  for (guint i = 0; i < MIN (problems->len, MAX_SHOWN); i++)
    {
      g_autofree char *line = problem_line (g_ptr_array_index (problems, i));

      if (details->len > 0)
        g_string_append_c (details, '\n');
      g_string_append (details, line);
    }
  if (problems->len > MAX_SHOWN)
    {
      g_string_append_c (details, '\n');
      g_string_append_printf (details, _("… and %u more: run “lumo-access-ctl policy”"),
                              problems->len - MAX_SHOWN);
    }

  /* Plain text: file names and messages are not markup. */
  gtk_label_set_text (self->title_label, title);
  gtk_label_set_text (self->details_label, details->str);
}

static void
on_policy_managed_changed_cb (LumoPolicy        *policy,
                              LumoManagedBanner *self)
{
  update (self);
}

static void
lumo_managed_banner_dispose (GObject *object)
{
  LumoManagedBanner *self = LUMO_MANAGED_BANNER (object);

  if (self->policy != NULL)
    g_signal_handlers_disconnect_by_data (self->policy, self);
  g_clear_object (&self->policy);

  G_OBJECT_CLASS (lumo_managed_banner_parent_class)->dispose (object);
}

static void
lumo_managed_banner_class_init (LumoManagedBannerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = lumo_managed_banner_dispose;

  gtk_widget_class_set_template_from_resource (widget_class, "/dev/lumo/Access/lumo-managed-banner.ui");
  gtk_widget_class_bind_template_child (widget_class, LumoManagedBanner, revealer);
  gtk_widget_class_bind_template_child (widget_class, LumoManagedBanner, title_label);
  gtk_widget_class_bind_template_child (widget_class, LumoManagedBanner, details_label);
}

static void
lumo_managed_banner_init (LumoManagedBanner *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_widget_set_visible (GTK_WIDGET (self), FALSE);
}

void
lumo_managed_banner_set_policy (LumoManagedBanner *self,
                                LumoPolicy        *policy)
{
  g_return_if_fail (LUMO_IS_MANAGED_BANNER (self));
  g_return_if_fail (LUMO_IS_POLICY (policy));
  g_return_if_fail (self->policy == NULL);

  self->policy = g_object_ref (policy);
  g_signal_connect (policy, "managed-changed", G_CALLBACK (on_policy_managed_changed_cb), self);
  update (self);
}

gboolean
lumo_managed_banner_is_revealed (LumoManagedBanner *self)
{
  g_return_val_if_fail (LUMO_IS_MANAGED_BANNER (self), FALSE);

  return gtk_widget_get_visible (GTK_WIDGET (self)) && gtk_revealer_get_reveal_child (self->revealer);
}

const char *
lumo_managed_banner_get_details (LumoManagedBanner *self)
{
  g_return_val_if_fail (LUMO_IS_MANAGED_BANNER (self), NULL);

  return gtk_label_get_text (self->details_label);
}
