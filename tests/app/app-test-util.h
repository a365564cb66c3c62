/* app-test-util.h — a window over temporary stores, for the app tests
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each fixture opens its own policy, audit store and review queue in a new
 * temporary directory (removed afterwards), builds a LumoBackend over them
 * and a LumoWindow for that backend, in one GtkApplication shared by the
 * test program. Helpers iterate the main context (never sleep) and walk
 * the widget tree; tests/common (lumo-test.h) gives the temporary
 * directories, the test IDs and lumo_test_wait_until().
 */
#pragma once

#include <adwaita.h>

#include "lumo-application.h"
#include "lumo-audit-item.h"
#include "lumo-audit-store.h"
#include "lumo-backend.h"
#include "lumo-policy.h"
#include "lumo-review-queue.h"
#include "lumo-test.h"
#include "lumo-window-private.h"

G_BEGIN_DECLS

typedef struct
{
  char            *dir;
  char            *managed_dir;  /* dir/policy.d: the policy's managed policy directory */
  LumoPolicy      *policy;
  LumoAuditStore  *audit;
  LumoReviewQueue *queue;
  LumoBackend     *backend;
  LumoWindow      *window;
  LumoApplication *app;      /* app_fixture_setup_app() only */
} AppFixture;

/* Makes the GtkApplication of the test program (call once, after
 * gtk_init()). */
GtkApplication *app_test_init_application (void);
GtkApplication *app_test_get_application  (void);

/* @data: GINT_TO_POINTER (TRUE) to present the window (it is shown and
 * active), FALSE to leave it hidden. */
void        app_fixture_setup    (AppFixture    *f,
                                  gconstpointer  data);
/* The two halves of app_fixture_setup(), for a program that must act
 * between them. */
void        app_fixture_setup_stores (AppFixture *f);
void        app_fixture_setup_window (AppFixture *f,
                                      gboolean    present);
/* Instead of app_fixture_setup(): a real LumoApplication (registered,
 * not run) whose data directory is f->dir, so that it opens the stores
 * itself and owns the desktop agents' gateway and endpoint, following the
 * desktop-agents keys; f->policy, audit, queue and backend are its, and
 * the window is one of its windows. The keys are reset at teardown. */
void        app_fixture_setup_app (AppFixture    *f,
                                   gconstpointer  data);
/* Its first half: the application and its stores, without the window
 * (app_fixture_setup_window() makes one of the application's). */
void        app_fixture_setup_app_stores (AppFixture *f);
void        app_fixture_teardown (AppFixture    *f,
                                  gconstpointer  data);
/* Registers TEST_PROVIDER_ID as a provider that said hello. */
void        app_fixture_add_provider (AppFixture *f,
                                      const char *provider_id,
                                      const char *name);

/* Dispatches what is pending now, without blocking, and at most 1000
 * times: a widget that queues work forever must not hang the test (wait
 * for a condition with lumo_test_wait_until()). */
void        app_test_iterate     (void);

/* Depth-first: the @nth widget of @type under @root (0 = the first). */
GtkWidget  *app_test_find_widget (GtkWidget    *root,
                                  GType         type,
                                  guint         nth);
guint       app_test_count_widgets (GtkWidget  *root,
                                    GType       type);
/* Depth-first: the first widget of @type under @root that @match accepts
 * (called with @data), or NULL. */
typedef gboolean (*AppTestMatch) (GtkWidget     *widget,
                                  gconstpointer  data);
GtkWidget  *app_test_find_widget_where (GtkWidget    *root,
                                        GType         type,
                                        AppTestMatch  match,
                                        gconstpointer data);
/* The first GtkButton under @root whose action target equals @target and
 * whose action name is @action_name. */
GtkWidget  *app_test_find_action_button (GtkWidget  *root,
                                         const char *action_name,
                                         GVariant   *target);
/* The first GtkButton under @root with this label (mnemonic included). */
GtkWidget  *app_test_find_button_with_label (GtkWidget  *root,
                                             const char *label);
/* Clicks @button now (GtkButton's keyboard activation waits 250 ms). */
void        app_test_click (GtkWidget *button);
/* A loopback port nothing listens on now (the default one may be taken
 * by another program on this machine). */
guint       app_test_free_port (void);
/* The text on @clipboard, set by this process (gdk_clipboard_set_text). */
char       *app_test_clipboard_text (GdkClipboard *clipboard);
/* The subtitle of an AdwActionRow or an AdwExpanderRow. */
const char *app_test_row_subtitle (GtkWidget *row);
/* The number on the Requests page's entry in the view switcher, and
 * whether that entry asks for attention. */
guint       app_test_requests_badge (LumoWindow *window,
                                     gboolean   *needs_attention);
/* A stand-in lumo-access-host (an executable that does nothing) in a new
 * temporary directory "lumo-@name-…", named by $LUMO_ACCESS_HOST_PATH, so
 * that browsers can be set up without an installed helper. It sets the
 * environment: call it before any thread starts. Returns its path, for
 * app_test_fake_helper_remove() at the end. */
char       *app_test_fake_helper_new    (const char *name);
void        app_test_fake_helper_remove (char       *helper_path);
/* Every text a person can read under @root: labels, editables, row titles
 * and subtitles, tooltips, accessible labels kept in properties. */
GPtrArray  *app_test_collect_texts (GtkWidget  *root);
/* The Audit page's rows (LumoAuditRowViews) under @root that are mapped
 * and whose item is loaded, top to bottom (the array does not own them). */
GPtrArray  *app_test_audit_shown_rows (GtkWidget *root);
/* The texts those rows draw in @column, top to bottom. */
GPtrArray  *app_test_audit_shown_texts (GtkWidget       *root,
                                        LumoAuditColumn  column);
/* What a screen reader reads of an audit row: its cells' texts in column
 * order, the tag after a desktop agent's name, built here from the
 * item's texts (not asked of the row). */
char       *app_test_audit_row_label (LumoAuditItem *item);
gboolean    app_test_any_text_contains (GtkWidget  *root,
                                        const char *needle);

G_END_DECLS

G_BEGIN_DECLS

/* Writes @n_rows rows to @store in batches (lumo_audit_store_import: one
 * durable transaction per batch, chained like any other rows). Every
 * @special_every-th row (1-based; 0 = none) uses the tool
 * "userscripts.special_tool"; the others alternate between a few tools,
 * agents and outcomes. Times are one second apart, ending now. */
void app_test_fill_audit (LumoAuditStore *store,
                          guint           n_rows,
                          guint           special_every);

G_END_DECLS
