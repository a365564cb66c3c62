/* lumo-wrap-box.h — a line of buttons at the end that wraps when narrow
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoWrapBox lays its children out on one line packed to the end (the
 * right, in a left-to-right language) when there is room, and on as many
 * lines as they need, each packed to the end, when there is not; it asks
 * only for its widest child's width, so a row of several buttons still
 * fits a 360 px window. GTK 4.8 has no wrap box, and a GtkFlowBox aligned
 * to the end is measured for one column and always wraps. Children are
 * added in a template (<child>) or with lumo_wrap_box_append().
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define LUMO_TYPE_WRAP_BOX (lumo_wrap_box_get_type ())
G_DECLARE_FINAL_TYPE (LumoWrapBox, lumo_wrap_box, LUMO, WRAP_BOX, GtkWidget)

GtkWidget *lumo_wrap_box_new    (void);
void       lumo_wrap_box_append (LumoWrapBox *self,
                                 GtkWidget   *child);

G_END_DECLS
