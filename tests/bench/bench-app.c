/* bench-app.c — how fast the window comes up, and what a 1M-row log costs
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Prints, for docs/PERFORMANCE.md ("App"):
 *   - window shown after launch: the real lumo-access binary started as a
 *     new process (fresh data directory, then one holding the 1M-row log),
 *     from just before the spawn to its first painted frame (it prints the
 *     monotonic time of that frame when LUMO_ACCESS_REPORT_FIRST_FRAME is
 *     set); the first launch of the run is the cold one;
 *   - time to first rows for a 1,000,000-row audit log: window built, Audit
 *     page shown, until the first page of rows is in the model, and until
 *     the count is known;
 *   - time per page fetch: get_item() at random positions until the row is
 *     there (one keyset page of 200 each), unfiltered and for a search;
 *   - RSS with the 1M-row log open, after the jumps above;
 *   - the floor: RSS of lumo-bench-floor (a bare libadwaita window with a
 *     view switcher and five status pages) and of lumo-access on the Audit
 *     page of the 1M-row log, each 3 s after its first frame, started
 *     alternately under the same renderer (GSK_RENDERER as given), and
 *     their ratio;
 *   - a row written by another process (a second store on the file)
 *     until the Audit page's model shows it.
 *
 * usage: xvfb-run -a dbus-run-session -- bench-app [--dir DIR] [--launches N]
 *   (GSK_RENDERER=cairo in the environment measures both programs under
 *   the cairo renderer)
 *   --dir DIR reuses (or creates, with its parents) a data directory with
 *   the 1M-row log, which takes about a minute to write; one that cannot
 *   be made (a file is in the way, no permission) is an error, exit 1.
 */
#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "app-test-util.h"

#define N_ROWS     1000000
#define N_FETCHES  60

static char *
read_status_field (const char *field)
{
  g_autofree char *status = NULL;
  g_auto(GStrv) lines = NULL;

  if (!g_file_get_contents ("/proc/self/status", &status, NULL, NULL))
    return g_strdup ("?");
  lines = g_strsplit (status, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], field))
      return g_strstrip (g_strdup (lines[i] + strlen (field)));
  return g_strdup ("?");
}

static int
compare_doubles (gconstpointer a,
                 gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

static double
percentile (GArray *values,
            double  p)
{
  g_array_sort (values, compare_doubles);
  return g_array_index (values, double, MIN ((guint) (p * values->len), values->len - 1));
}

/* ---- launch ------------------------------------------------------------- */

static char *
read_rss_of (const char *pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%s/status", pid);
  g_autofree char *status = NULL;
  g_auto(GStrv) lines = NULL;

  if (!g_file_get_contents (path, &status, NULL, NULL))
    return g_strdup ("?");
  lines = g_strsplit (status, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], "VmRSS:"))
      return g_strstrip (g_strdup (lines[i] + strlen ("VmRSS:")));
  return g_strdup ("?");
}

static gboolean
on_settle_cb (gpointer user_data)
{
  *(gboolean *) user_data = TRUE;
  return G_SOURCE_REMOVE;
}

/* Starts lumo-access, returns the ms to its first frame; with @rss, waits
 * @settle_ms more (the count, the first pages) and reads its RSS. */
static double
launch_binary (const char  *binary,
               const char  *data_dir,
               const char  *page,
               guint        settle_ms,
               char       **rss)
{
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                                                       G_SUBPROCESS_FLAGS_STDERR_SILENCE);
  g_autoptr(GSubprocess) app = NULL;
  g_autoptr(GDataInputStream) out = NULL;
  g_autoptr(GError) error = NULL;
  gint64 start, frame = 0;
  char *line;

  g_subprocess_launcher_setenv (launcher, "LUMO_ACCESS_DATA_DIR", data_dir, TRUE);
  g_subprocess_launcher_setenv (launcher, "LUMO_ACCESS_REPORT_FIRST_FRAME", "1", TRUE);
  g_subprocess_launcher_setenv (launcher, "GSETTINGS_BACKEND", "memory", TRUE);
  if (page != NULL)
    g_subprocess_launcher_setenv (launcher, "LUMO_ACCESS_PAGE", page, TRUE);

  start = g_get_monotonic_time ();
  app = g_subprocess_launcher_spawn (launcher, &error, binary, NULL);
  if (app == NULL)
    g_error ("Cannot start %s: %s", binary, error->message);

  out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (app));
  while ((line = g_data_input_stream_read_line (out, NULL, NULL, NULL)) != NULL)
    {
      gboolean found = sscanf (line, "lumo-access: first-frame %" G_GINT64_FORMAT, &frame) == 1;

      g_free (line);
      if (found)
        break;
    }

  if (rss != NULL)
    {
      gboolean settled = FALSE;

      g_timeout_add (settle_ms, on_settle_cb, &settled);
      while (!settled)
        g_main_context_iteration (NULL, TRUE);
      *rss = read_rss_of (g_subprocess_get_identifier (app));
    }

  g_subprocess_send_signal (app, SIGTERM);
  g_subprocess_wait (app, NULL, NULL);

  if (frame == 0)
    g_error ("%s never reported its first frame", binary);
  return (frame - start) / 1000.0;
}

static double
launch_once (const char  *data_dir,
             const char  *page,
             guint        settle_ms,
             char       **rss)
{
  return launch_binary (LUMO_BENCH_APP, data_dir, page, settle_ms, rss);
}

static double
rss_kb (const char *rss)
{
  return g_ascii_strtod (rss, NULL);
}

/* The app on the Audit page of the log against the floor, alternately,
 * each @n times: their medians and the ratio the goal is about. */
static void
bench_floor (const char *dir,
             guint       n)
{
  g_autoptr(GArray) app = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) floor = g_array_new (FALSE, FALSE, sizeof (double));
  const char *renderer = g_getenv ("GSK_RENDERER");
  g_autofree char *empty = lumo_test_dir_new ("bench-floor");
  double a, b;

  for (guint i = 0; i < n; i++)
    {
      g_autofree char *rss_floor = NULL;
      g_autofree char *rss_app = NULL;
      double kb;

      launch_binary (LUMO_BENCH_FLOOR, empty, "audit", 3000, &rss_floor);
      launch_binary (LUMO_BENCH_APP, dir, "audit", 3000, &rss_app);
      kb = rss_kb (rss_floor);
      g_array_append_val (floor, kb);
      kb = rss_kb (rss_app);
      g_array_append_val (app, kb);
      g_print ("  RSS 3 s after the first frame: floor %s, lumo-access on the Audit page %s\n", rss_floor, rss_app);
    }

  a = percentile (app, 0.5);
  b = percentile (floor, 0.5);
  g_print ("RSS, renderer %s, median of %u: lumo-access on the Audit page of the 1,000,000-row log %.1f MB, "
           "floor (bare libadwaita window, view switcher, five status pages) %.1f MB: %.2f× the floor\n",
           renderer != NULL ? renderer : "(default)", n, a / 1024, b / 1024, a / b);
  lumo_test_dir_remove (empty);
}

static void
bench_launch (const char *label,
              const char *data_dir,
              const char *page,
              guint       n)
{
  g_autoptr(GArray) times = g_array_new (FALSE, FALSE, sizeof (double));
  double first = 0;

  if (n == 0)
    return;

  for (guint i = 0; i < n; i++)
    {
      g_autofree char *rss = NULL;
      double ms = launch_once (data_dir, page, 3000, i == 0 ? &rss : NULL);

      if (rss != NULL)
        g_print ("RSS of lumo-access 3 s after its first frame, %s, %s page: %s\n", label, page, rss);

      if (i == 0)
        first = ms;
      g_array_append_val (times, ms);
    }

  g_print ("window shown after launch, %s: first %.0f ms, median %.0f ms (of %u launches)\n",
           label, first, percentile (times, 0.5), n);
}

/* ---- the audit model ---------------------------------------------------- */

static gboolean
first_page (gpointer data)
{
  return !lumo_audit_model_get_loading (data);
}

static gboolean
counted (gpointer data)
{
  return lumo_audit_model_get_counted (data) && !lumo_audit_model_get_loading (data);
}

static gboolean
integrity_known (gpointer data)
{
  return lumo_audit_store_get_integrity (data) != LUMO_AUDIT_INTEGRITY_CHECKING;
}

static gboolean
item_loaded (gpointer data)
{
  return lumo_audit_item_get_row (data) != NULL;
}

typedef struct
{
  LumoAuditModel *model;
  gint64          id;
} NewestWait;

static gboolean
newest_is (gpointer data)
{
  NewestWait *wait = data;
  g_autoptr(LumoAuditItem) item = g_list_model_get_item (G_LIST_MODEL (wait->model), 0);

  return item != NULL && lumo_audit_item_get_row (item) != NULL &&
         lumo_audit_row_get_id (lumo_audit_item_get_row (item)) == wait->id;
}

static void
bench_fetches (const char     *label,
               LumoAuditModel *model)
{
  g_autoptr(GArray) times = g_array_new (FALSE, FALSE, sizeof (double));
  guint n = g_list_model_get_n_items (G_LIST_MODEL (model));
  GRand *rand = g_rand_new_with_seed (42);

  for (guint i = 0; i < N_FETCHES; i++)
    {
      guint position = g_rand_int_range (rand, 0, n);
      gint64 start = g_get_monotonic_time ();
      g_autoptr(LumoAuditItem) item = g_list_model_get_item (G_LIST_MODEL (model), position);
      double ms;

      lumo_test_wait_until (item_loaded, item, "a page");
      ms = (g_get_monotonic_time () - start) / 1000.0;
      g_array_append_val (times, ms);
    }
  g_rand_free (rand);

  g_print ("page fetch (200 rows, random position), %s: median %.2f ms, p90 %.2f ms, max %.2f ms (%u fetches)\n",
           label, percentile (times, 0.5), percentile (times, 0.9), percentile (times, 1.0), N_FETCHES);
}

static void
bench_audit (const char *dir)
{
  AppFixture f = { 0 };
  g_autoptr(GError) error = NULL;
  g_autofree char *policy_path = g_build_filename (dir, "policy.db", NULL);
  g_autofree char *audit_path = g_build_filename (dir, "audit.db", NULL);
  g_autofree char *rss_before = read_status_field ("VmRSS:");
  g_autofree char *rss = NULL;
  g_autofree char *hwm = NULL;
  LumoAuditModel *model;
  LumoAuditPage *page;
  gint64 start, t_built, t_presented;

  f.policy = lumo_policy_new (policy_path, &error);
  g_assert_no_error (error);
  /* As the app opens it: the integrity check waits for the first screen. */
  f.audit = lumo_audit_store_new_with_flags (audit_path, LUMO_AUDIT_STORE_HOLD_CHECK, &error);
  g_assert_no_error (error);
  f.queue = lumo_review_queue_new ();
  f.backend = lumo_backend_new (f.policy, f.audit, f.queue);

  /* A desktop session runs the accessibility bus; dbus-run-session
   * starts a new session bus without it, and GTK's first accessible
   * context asks it for its address synchronously, which would start the
   * bus launcher inside the timed window (29–37 ms). The launches above
   * started it already; with --launches 0 it is started here, before the
   * clock, so both measure the window of a running session. */
  {
    g_autoptr(GDBusConnection) session = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, NULL);
    g_autoptr(GVariant) reply = NULL;

    if (session != NULL)
      reply = g_dbus_connection_call_sync (session, "org.a11y.Bus", "/org/a11y/bus", "org.a11y.Bus",
                                           "GetAddress", NULL, NULL, G_DBUS_CALL_FLAGS_NONE, 5000, NULL, NULL);
  }

  /* Opened on the Audit page, as the launches above are (the window
   * builds the page it opens on, and the others when first shown). */
  g_setenv ("LUMO_ACCESS_PAGE", "audit", TRUE);
  start = g_get_monotonic_time ();
  f.window = g_object_ref_sink (lumo_window_new (app_test_get_application (), f.backend, NULL));
  g_print ("window built (on the Audit page, the audit model started) in %.1f ms\n",
           (g_get_monotonic_time () - start) / 1000.0);
  g_unsetenv ("LUMO_ACCESS_PAGE");
  t_built = g_get_monotonic_time ();
  lumo_window_set_page (f.window, "audit");
  gtk_window_present (GTK_WINDOW (f.window));
  t_presented = g_get_monotonic_time ();
  page = _lumo_window_get_audit_page (f.window);
  model = lumo_audit_page_get_model (page);

  lumo_test_wait_until (first_page, model, "the first page");
  /* LUMO_BENCH_VERBOSE: where the time to the first rows went, and the
   * monotonic time the window was started at (to slice a profile by). */
  if (g_getenv ("LUMO_BENCH_VERBOSE"))
    g_print ("  window started at %" G_GINT64_FORMAT " µs (monotonic): built +%.1f ms, presented +%.1f ms, first rows +%.1f ms\n",
             start, (t_built - start) / 1000.0, (t_presented - start) / 1000.0,
             (g_get_monotonic_time () - start) / 1000.0);
  /* Named because it decides the figure: under Xvfb GTK's GL renderer
   * draws on the CPU, far slower than cairo (docs/PERFORMANCE.md). */
  g_print ("1,000,000-row log: first rows in the model %.1f ms after the window was started (integrity check %s; %s)\n",
           (g_get_monotonic_time () - start) / 1000.0,
           lumo_audit_store_get_check_held (f.audit) ? "still held" : "started",
           G_OBJECT_TYPE_NAME (gtk_native_get_renderer (GTK_NATIVE (f.window))));
  lumo_test_wait_until (counted, model, "the count");
  g_print ("1,000,000-row log: count known after %.1f ms (n_items = %u, rows fetched so far %" G_GUINT64_FORMAT ")\n",
           (g_get_monotonic_time () - start) / 1000.0, g_list_model_get_n_items (G_LIST_MODEL (model)),
           lumo_audit_model_get_rows_fetched (model));
  lumo_test_wait_until (integrity_known, f.audit, "the integrity check");
  g_print ("1,000,000-row log: integrity check (held until the first rows were painted) done after %.1f ms\n",
           (g_get_monotonic_time () - start) / 1000.0);

  bench_fetches ("unfiltered", model);

  /* The model alone: a new query over the whole log, to its first rows. */
  {
    g_autoptr(GArray) times = g_array_new (FALSE, FALSE, sizeof (double));

    for (guint i = 0; i < 20; i++)
      {
        gint64 t = g_get_monotonic_time ();
        double ms;

        gint64 t_set;

        lumo_audit_model_set_query (model, NULL);
        t_set = g_get_monotonic_time ();
        lumo_test_wait_until (first_page, model, "the first page");
        ms = (g_get_monotonic_time () - t) / 1000.0;
        if (g_getenv ("LUMO_BENCH_VERBOSE"))
          g_print ("  set_query %.2f ms, then %.2f ms\n", (t_set - t) / 1000.0, (g_get_monotonic_time () - t_set) / 1000.0);
        g_array_append_val (times, ms);
      }
    g_print ("1,000,000-row log: new query to first rows, model shown on the Audit page: median %.2f ms, max %.2f ms (20 runs)\n",
             percentile (times, 0.5), percentile (times, 1.0));
    lumo_test_wait_until (counted, model, "the count");
  }

  /* The same without a view: what the model and SQLite cost alone. */
  {
    g_autoptr(GArray) times = g_array_new (FALSE, FALSE, sizeof (double));
    g_autoptr(LumoAuditModel) alone = lumo_audit_model_new (f.audit);

    lumo_test_wait_until (counted, alone, "the count");
    for (guint i = 0; i < 20; i++)
      {
        gint64 t = g_get_monotonic_time ();
        double ms;

        lumo_audit_model_set_query (alone, NULL);
        lumo_test_wait_until (first_page, alone, "the first page");
        ms = (g_get_monotonic_time () - t) / 1000.0;
        g_array_append_val (times, ms);
        lumo_test_wait_until (counted, alone, "the count");
      }
    g_print ("1,000,000-row log: new query to first rows, model without a view: median %.2f ms, max %.2f ms (20 runs)\n",
             percentile (times, 0.5), percentile (times, 1.0));
  }

  gtk_editable_set_text (lumo_audit_page_get_search_entry (page), "tool:special");
  start = g_get_monotonic_time ();
  lumo_audit_page_search_now (page);
  lumo_test_wait_until (first_page, model, "the first page of the search");
  g_print ("search “tool:special” (1,000 of 1,000,000 rows): first rows after %.1f ms\n",
           (g_get_monotonic_time () - start) / 1000.0);
  lumo_test_wait_until (counted, model, "the count of the search");
  g_print ("search “tool:special”: count known after %.1f ms\n", (g_get_monotonic_time () - start) / 1000.0);
  bench_fetches ("search", model);

  gtk_editable_set_text (lumo_audit_page_get_search_entry (page), "");
  lumo_audit_page_search_now (page);
  lumo_test_wait_until (counted, model, "the count");
  bench_fetches ("unfiltered again", model);

  /* A row of another process: from the commit of a second store on the
   * file until the model shows it (::changed, no search). */
  {
    g_autoptr(LumoAuditStore) other = lumo_audit_store_new (audit_path, &error);
    g_autoptr(GArray) times = g_array_new (FALSE, FALSE, sizeof (double));
    static const char hash[] = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
    LumoAuditRecord record = {
      .provider_id = TEST_PROVIDER_ID, .caller_id = TEST_CALLER_ID, .caller_name = "Other Process",
      .tool = "userscripts.other_process", .write = TRUE, .params_sha256 = hash,
      .decision = LUMO_AUDIT_DECISION_DENY, .reason = LUMO_AUDIT_REASON_WRITES_OFF,
    };

    g_assert_no_error (error);
    for (guint i = 0; i < 5; i++)
      {
        gint64 t, id;
        NewestWait wait = { model, 0 };
        double ms;

        lumo_test_wait_until (counted, model, "the count");
        /* From the commit on: the second store's first append also waits
         * for its own quick_check of the whole file. */
        id = lumo_audit_store_append (other, &record, &error);
        t = g_get_monotonic_time ();
        g_assert_no_error (error);
        wait.id = id;
        lumo_test_wait_until (newest_is, &wait, "the other process's row");
        ms = (g_get_monotonic_time () - t) / 1000.0;
        g_array_append_val (times, ms);
      }
    g_print ("a row written by another process (a second store), commit → in the model: median %.0f ms, max %.0f ms (5 rows)\n",
             percentile (times, 0.5), percentile (times, 1.0));
  }

  rss = read_status_field ("VmRSS:");
  hwm = read_status_field ("VmHWM:");
  g_print ("RSS with the 1,000,000-row log open: %s (peak %s; %s before the window; %u pages cached)\n",
           rss, hwm, rss_before, lumo_audit_model_get_pages_cached (model));

  gtk_window_destroy (GTK_WINDOW (f.window));
  g_clear_object (&f.window);
  app_test_iterate ();
  g_clear_object (&f.backend);
  g_clear_object (&f.queue);
  g_clear_object (&f.audit);
  g_clear_object (&f.policy);
}

/* --dir names the folder to keep the 1M-row log in, made if missing (with
 * its parents), so a first run and the next ones take the same command. */
static char *
prepare_data_dir (const char  *dir,
                  GError     **error)
{
  g_autofree char *absolute = g_canonicalize_filename (dir, NULL);
  int saved_errno;

  if (g_mkdir_with_parents (absolute, 0700) == 0)
    return g_steal_pointer (&absolute);

  saved_errno = errno;
  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
               "Cannot use --dir %s as the data directory: %s", dir, g_strerror (saved_errno));
  return NULL;
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *dir = NULL;
  g_autofree char *empty_dir = NULL;
  g_autofree char *audit_path = NULL;
  int launches = 5;
  GOptionEntry entries[] = {
    { "dir", 0, 0, G_OPTION_ARG_FILENAME, &dir, "Data directory with the 1M-row log (made if missing)", "DIR" },
    { "launches", 0, 0, G_OPTION_ARG_INT, &launches, "Launches of the app to time", "N" },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (NULL);
  g_autoptr(GError) error = NULL;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("%s\n", error->message);
      return 2;
    }

  if (dir != NULL)
    {
      g_autofree char *given = g_steal_pointer (&dir);

      if (!(dir = prepare_data_dir (given, &error)))
        {
          g_printerr ("bench-app: %s\n", error->message);
          return 1;
        }
    }

  gtk_init ();
  app_test_init_application ();

  /* Cold: the first start of the binary in this run, on a new store. */
  empty_dir = lumo_test_dir_new ("bench-app");
  bench_launch ("new data directory", empty_dir, "requests", launches);

  if (dir == NULL)
    dir = lumo_test_dir_new ("bench-app-1m");
  audit_path = g_build_filename (dir, "audit.db", NULL);
  if (!g_file_test (audit_path, G_FILE_TEST_EXISTS))
    {
      g_autoptr(LumoAuditStore) store = lumo_audit_store_new (audit_path, &error);
      gint64 start = g_get_monotonic_time ();

      g_assert_no_error (error);
      g_print ("writing 1,000,000 audit rows to %s…\n", dir);
      app_test_fill_audit (store, N_ROWS, 1000);
      g_print ("written in %.1f s\n", (g_get_monotonic_time () - start) / 1e6);
    }

  bench_launch ("1,000,000-row log", dir, "audit", launches);
  if (launches > 0)
    bench_floor (dir, launches);
  bench_audit (dir);

  lumo_test_dir_remove (empty_dir);
  return 0;
}
