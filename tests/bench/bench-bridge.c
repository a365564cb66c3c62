/* bench-bridge.c — round trips of the bridge, beside the floors they sit on
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A command, not a test: it prints p50/p99 round-trip times, in µs, of
 *   (a) a raw pipe echo of a 200-byte frame through a child process (the
 *       floor: the app reads Chrome's pipe directly, so the real path has
 *       the same two hops);
 *   (b) a probe and a read `authorize` through the real path, helper
 *       started as Chrome does, app started by activation on a private bus;
 *   (c) a durable write `authorize` (its audit row is committed before the
 *       answer), beside a bare write + fdatasync of 200 bytes on the same
 *       file system, one after each write;
 *   (d) the same 200-byte frames through keepassxc-proxy to a trivial socket
 *       echo, when Debian's keepassxc is installed.
 * Run it under xvfb-run (the app is a GTK application), after building
 * the whole tree: it starts the app, helper and CLI of its build
 * directory, and building this target alone does not rebuild them.
 *   ninja -C _build && xvfb-run -a _build/tests/bench/bench-bridge [--iterations N] [--dir DIR]
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lumo-test-session.h"

#define FRAME_SIZE    200
#define WRITES_PER_CALLER 30   /* the rate limit: 30 writes per caller per 60 s */

static int iterations = 2000;
static int warmup = 200;
static char *bench_dir = NULL;

typedef struct
{
  const char *name;
  GArray     *samples;   /* double, µs */
} Series;

static double
now_us (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int
compare_doubles (gconstpointer a,
                 gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

static double
percentile (GArray *samples,
            double  p)
{
  guint index;

  if (samples->len == 0)
    return 0;

  g_array_sort (samples, compare_doubles);
  index = (guint) (p * (samples->len - 1) + 0.5);
  return g_array_index (samples, double, index);
}

static void
write_all (int         fd,
           const void *data,
           gsize       len)
{
  const guint8 *p = data;

  while (len > 0)
    {
      gssize n = write (fd, p, len);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        g_error ("write: %s", g_strerror (errno));
      p += n;
      len -= n;
    }
}

static gboolean
read_all (int    fd,
          void  *data,
          gsize  len)
{
  guint8 *p = data;

  while (len > 0)
    {
      gssize n = read (fd, p, len);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      p += n;
      len -= n;
    }

  return TRUE;
}

static void
send_frame (int         fd,
            const char *json)
{
  guint32 len = strlen (json);
  g_autofree guint8 *buf = g_malloc (sizeof len + len);

  /* One write, as Chrome does: a split frame costs a second wakeup. */
  memcpy (buf, &len, sizeof len);
  memcpy (buf + sizeof len, json, len);
  write_all (fd, buf, sizeof len + len);
}

static char *
recv_frame (int fd)
{
  guint32 len;
  char *body;

  if (!read_all (fd, &len, sizeof len))
    g_error ("the stream ended");
  g_assert_cmpuint (len, <=, 1024 * 1024);
  body = g_malloc (len + 1);
  if (!read_all (fd, body, len))
    g_error ("the stream ended inside a frame");
  body[len] = '\0';

  return body;
}

/* Pads a JSON object text with an ignored member to exactly FRAME_SIZE. */
static char *
pad_frame (const char *json)
{
  gsize len = strlen (json);
  const char *pad_member = ",\"pad\":\"\"}";
  GString *s;

  g_assert_cmpuint (len + strlen (pad_member) - 1, <=, FRAME_SIZE);
  s = g_string_new_len (json, len - 1);
  g_string_append (s, ",\"pad\":\"");
  while (s->len < FRAME_SIZE - 2)
    g_string_append_c (s, 'x');
  g_string_append (s, "\"}");

  return g_string_free (s, FALSE);
}

static Series *
series_new (const char *name)
{
  Series *series = g_new0 (Series, 1);

  series->name = name;
  series->samples = g_array_new (FALSE, FALSE, sizeof (double));
  return series;
}

static void
series_print (Series *series)
{
  if (series->samples->len == 0)
    {
      g_print ("  %-44s %8s %10s %10s\n", series->name, "-", "skipped", "-");
      return;
    }

  g_print ("  %-44s %8u %10.1f %10.1f\n", series->name, series->samples->len,
           percentile (series->samples, 0.50), percentile (series->samples, 0.99));
}

/* ---- (a) pipe echo ------------------------------------------------------ */

static void
bench_pipe_echo (Series *series)
{
  g_autofree char *frame = pad_frame ("{\"type\":\"probe\",\"id\":1}");
  int to_child[2], from_child[2];
  pid_t pid;

  g_assert_cmpint (pipe (to_child), ==, 0);
  g_assert_cmpint (pipe (from_child), ==, 0);

  if ((pid = fork ()) == 0)
    {
      guint8 buf[4 + FRAME_SIZE * 2];
      guint32 len;

      close (to_child[1]);
      close (from_child[0]);
      while (read_all (to_child[0], &len, sizeof len) && len <= sizeof buf - 4 &&
             read_all (to_child[0], buf + 4, len))
        {
          memcpy (buf, &len, sizeof len);
          write_all (from_child[1], buf, sizeof len + len);
        }
      _exit (0);
    }

  close (to_child[0]);
  close (from_child[1]);

  for (int i = 0; i < warmup + iterations; i++)
    {
      g_autofree char *echo = NULL;
      double start = now_us ();

      send_frame (to_child[1], frame);
      echo = recv_frame (from_child[0]);
      if (i >= warmup)
        {
          double elapsed = now_us () - start;
          g_array_append_val (series->samples, elapsed);
        }
    }

  close (to_child[1]);
  close (from_child[0]);
  waitpid (pid, NULL, 0);
}

/* ---- (b), (c) the real path --------------------------------------------- */

typedef struct
{
  GPid pid;
  int  to_helper;
  int  from_helper;
} Helper;

static void
helper_spawn (Helper  *helper,
              char   **env)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *cwd = g_path_get_dirname (lumo_test_host_path ());
  const char *argv[] = { lumo_test_host_path (), TEST_PROVIDER_ORIGIN, NULL };

  g_spawn_async_with_pipes (cwd, (char **) argv, env, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL,
                            &helper->pid, &helper->to_helper, &helper->from_helper, NULL,
                            &error);
  g_assert_no_error (error);
}

static void
helper_close (Helper *helper)
{
  int status;

  close (helper->to_helper);
  /* Drain whatever comes until the app closes its end and the helper
   * exits. */
  {
    char buf[4096];
    while (read (helper->from_helper, buf, sizeof buf) > 0)
      ;
  }
  close (helper->from_helper);
  waitpid (helper->pid, &status, 0);
  g_spawn_close_pid (helper->pid);
}

/* The next frame answering @re (skips pushes). */
static char *
recv_answer (Helper *helper,
             int     re)
{
  g_autofree char *needle = g_strdup_printf ("\"re\":%d", re);

  for (;;)
    {
      char *frame = recv_frame (helper->from_helper);

      if (strstr (frame, needle) != NULL)
        return frame;
      g_free (frame);
    }
}

static int next_id = 1;

static char *request (Helper     *helper,
                      const char *format,
                      ...) G_GNUC_PRINTF (2, 3);

static char *
request (Helper     *helper,
         const char *format,
         ...)
{
  g_autofree char *json = NULL;
  g_autofree char *padded = NULL;
  va_list args;
  int id = next_id++;

  va_start (args, format);
  {
    g_autofree char *body = g_strdup_vprintf (format, args);
    json = g_strdup_printf ("{\"id\":%d,%s}", id, body);
  }
  va_end (args);

  padded = strlen (json) < FRAME_SIZE ? pad_frame (json) : g_strdup (json);
  send_frame (helper->to_helper, padded);
  return recv_answer (helper, id);
}

static char *
caller_id_for (guint n)
{
  /* 32 letters a–p, distinct for every n. */
  char id[33];

  for (int i = 31; i >= 0; i--)
    {
      id[i] = 'a' + (n % 16);
      n /= 16;
    }
  id[32] = '\0';
  return g_strdup (id);
}

static void
timed_requests (Helper     *helper,
                Series     *series,
                int         n,
                const char *body,
                const char *must_contain)
{
  for (int i = 0; i < warmup + n; i++)
    {
      g_autofree char *answer = NULL;
      double start = now_us ();

      answer = request (helper, "%s", body);
      if (i >= warmup)
        {
          double elapsed = now_us () - start;
          g_array_append_val (series->samples, elapsed);
        }
      if (strstr (answer, must_contain) == NULL)
        g_error ("unexpected answer: %s", answer);
    }
}

/* ---- (c) floor: a bare write + fdatasync --------------------------------- */

/* A file the floor appends to, on the file system measured. */
static int
floor_open (const char  *dir,
            char       **path)
{
  int fd;

  *path = g_build_filename (dir, "fdatasync.bench", NULL);
  fd = g_open (*path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0600);
  g_assert_cmpint (fd, >=, 0);
  return fd;
}

/* One 200-byte append + fdatasync, in µs. */
static double
floor_sample (int fd)
{
  char block[FRAME_SIZE];
  double start = now_us ();

  memset (block, 'x', sizeof block);
  write_all (fd, block, sizeof block);
  g_assert_cmpint (fdatasync (fd), ==, 0);
  return now_us () - start;
}

/* The floor on its own, when the real path cannot run. */
static void
bench_fdatasync (Series     *series,
                 const char *dir)
{
  g_autofree char *path = NULL;
  int fd = floor_open (dir, &path);

  for (int i = 0; i < warmup + iterations; i++)
    {
      double elapsed = floor_sample (fd);

      if (i >= warmup)
        g_array_append_val (series->samples, elapsed);
    }

  close (fd);
  g_unlink (path);
}

/* (c)'s floor is sampled after each write, interleaved with it, so that
 * both series see the same moments of a disk whose fdatasync swings from
 * 0.1 to 4 ms when other work runs on the machine. */
static void
bench_real_path (Series     *probe,
                 Series     *read_authorize,
                 Series     *write_authorize,
                 Series     *fsync_floor,
                 const char *floor_dir,
                 double     *first_hello_us)
{
  g_autofree char *floor_path = NULL;
  int floor_fd;
  double t0;
  g_autoptr(LumoTestBus) bus = NULL;
  g_auto(GStrv) env = NULL;
  g_autofree char *caller = caller_id_for (0);
  g_autofree char *hello = NULL;
  Helper helper;
  int n_callers = (iterations + warmup + WRITES_PER_CALLER - 1) / WRITES_PER_CALLER;
  int write_samples = 0;

  bus = lumo_test_bus_new (NULL, NULL);
  env = lumo_test_bus_get_env (bus);
  t0 = now_us ();
  helper_spawn (&helper, env);

  hello = request (&helper,
                   "\"type\":\"hello\",\"bridge\":1,"
                   "\"service\":{\"namespace\":\"userscripts\",\"name\":\"Lumo Userscripts\",\"version\":\"1.0.1\"},"
                   "\"tools\":[{\"name\":\"list_scripts\",\"write\":false},{\"name\":\"save_script\",\"write\":true}]");
  g_assert_nonnull (strstr (hello, "hello.result"));
  *first_hello_us = now_us () - t0;

  g_assert_cmpint (lumo_test_bus_run_ctl (bus, NULL, "set", TEST_PROVIDER_ID, "review", "off", NULL), ==, 0);
  g_assert_cmpint (lumo_test_bus_run_ctl (bus, NULL, "allow", TEST_PROVIDER_ID, caller, NULL), ==, 0);

  /* Until the app has seen the CLI's changes, reads are still pending. */
  for (;;)
    {
      g_autofree char *answer = request (&helper,
                                         "\"type\":\"authorize\",\"caller\":{\"id\":\"%s\"},"
                                         "\"tool\":\"list_scripts\",\"write\":false",
                                         caller);
      if (strstr (answer, "\"allow\":true") != NULL)
        break;
      g_usleep (10000);
    }

  {
    g_autofree char *probe_body = g_strdup_printf ("\"type\":\"probe\",\"caller\":"
                                                   "{\"id\":\"%s\",\"name\":\"Lumo\",\"version\":\"1.0.19\"}",
                                                   caller);
    g_autofree char *read_body = g_strdup_printf ("\"type\":\"authorize\",\"caller\":{\"id\":\"%s\"},"
                                                  "\"tool\":\"list_scripts\",\"write\":false",
                                                  caller);

    timed_requests (&helper, probe, iterations, probe_body, "probe.result");
    timed_requests (&helper, read_authorize, iterations, read_body, "\"allow\":true");
  }

  /* The write callers are allowed only now, so that the reads above are
   * not timed while the app digests policy changes. */
  for (int c = 1; c < n_callers; c++)
    {
      g_autofree char *id = caller_id_for (c);

      g_assert_cmpint (lumo_test_bus_run_ctl (bus, NULL, "allow", TEST_PROVIDER_ID, id, NULL), ==, 0);
    }

  /* Writes: 30 per caller (the rate limit), each completed with its
   * result outside the timed part, then one floor sample. */
  floor_fd = floor_open (floor_dir, &floor_path);
  for (int c = 0; c < n_callers && write_samples < warmup + iterations; c++)
    {
      g_autofree char *id = caller_id_for (c);

      for (int w = 0; w < WRITES_PER_CALLER && write_samples < warmup + iterations; w++)
        {
          g_autofree char *answer = NULL;
          g_autofree char *done = NULL;
          const char *audit;
          double start = now_us ();

          answer = request (&helper,
                            "\"type\":\"authorize\",\"caller\":{\"id\":\"%s\"},\"tool\":\"save_script\","
                            "\"write\":true,\"paramsHash\":\"" TEST_PARAMS_HASH "\","
                            "\"preview\":{\"name\":\"x\",\"bytes\":1}",
                            id);
          if (write_samples++ >= warmup)
            {
              double elapsed = now_us () - start;
              g_array_append_val (write_authorize->samples, elapsed);
            }
          if (strstr (answer, "\"allow\":true") == NULL || !(audit = strstr (answer, "\"auditId\":")))
            g_error ("write refused: %s", answer);

          done = request (&helper, "\"type\":\"result\",\"auditId\":%" G_GINT64_FORMAT ",\"ok\":true",
                          g_ascii_strtoll (audit + strlen ("\"auditId\":"), NULL, 10));
          if (write_samples > warmup)
            {
              double elapsed = floor_sample (floor_fd);

              g_array_append_val (fsync_floor->samples, elapsed);
            }
        }
    }

  helper_close (&helper);
  close (floor_fd);
  g_unlink (floor_path);
}

/* ---- (d) keepassxc-proxy ------------------------------------------------- */

static void
bench_keepassxc_proxy (Series     *series,
                       const char *dir)
{
  g_autofree char *proxy = g_find_program_in_path ("keepassxc-proxy");
  g_autofree char *runtime = g_build_filename (dir, "kpx-runtime", NULL);
  g_autofree char *socket_dir = g_build_filename (runtime, "app", "org.keepassxc.KeePassXC", NULL);
  g_autofree char *socket_path = g_build_filename (socket_dir,
                                                   "org.keepassxc.KeePassXC.BrowserServer", NULL);
  g_autofree char *frame = pad_frame ("{\"action\":\"echo\",\"id\":1}");
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) env = NULL;
  struct sockaddr_un addr = { .sun_family = AF_UNIX };
  const char *argv[] = { NULL, TEST_PROVIDER_ORIGIN, NULL };
  Helper helper;
  pid_t echo_pid;
  int listen_fd;
  /* keepassxc-proxy sleeps 100 ms between reads of stdin, so every round
   * trip costs about that much: a few hundred samples say all there is. */
  int n = MIN (iterations, 200);
  int n_warmup = MIN (warmup, 20);

  if (proxy == NULL)
    return;

  /* keepassxc-proxy 2.7 connects to
   * $XDG_RUNTIME_DIR/app/org.keepassxc.KeePassXC/org.keepassxc.KeePassXC.BrowserServer
   * and relays each native-messaging frame's JSON over it. */
  g_assert_cmpint (g_mkdir_with_parents (socket_dir, 0700), ==, 0);
  g_assert_cmpuint (strlen (socket_path), <, sizeof addr.sun_path);
  strcpy (addr.sun_path, socket_path);
  listen_fd = socket (AF_UNIX, SOCK_STREAM, 0);
  g_assert_cmpint (bind (listen_fd, (struct sockaddr *) &addr, sizeof addr), ==, 0);
  g_assert_cmpint (listen (listen_fd, 1), ==, 0);

  if ((echo_pid = fork ()) == 0)
    {
      char buf[65536];
      int conn = accept (listen_fd, NULL, NULL);
      gssize got;

      while ((got = read (conn, buf, sizeof buf)) > 0)
        write_all (conn, buf, got);
      _exit (0);
    }
  close (listen_fd);

  env = g_get_environ ();
  env = g_environ_setenv (env, "XDG_RUNTIME_DIR", runtime, TRUE);
  argv[0] = proxy;
  g_spawn_async_with_pipes (NULL, (char **) argv, env, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL,
                            &helper.pid, &helper.to_helper, &helper.from_helper, NULL, &error);
  g_assert_no_error (error);

  for (int i = 0; i < n_warmup + n; i++)
    {
      g_autofree char *echo = NULL;
      double start = now_us ();

      send_frame (helper.to_helper, frame);
      echo = recv_frame (helper.from_helper);
      if (i >= n_warmup)
        {
          double elapsed = now_us () - start;
          g_array_append_val (series->samples, elapsed);
        }
    }

  close (helper.to_helper);
  close (helper.from_helper);
  kill (helper.pid, SIGTERM);
  waitpid (helper.pid, NULL, 0);
  kill (echo_pid, SIGTERM);
  waitpid (echo_pid, NULL, 0);
  lumo_test_dir_remove (runtime);
}

static void
set_default_env (const char *name,
                 const char *value)
{
  if (g_getenv (name) == NULL)
    g_setenv (name, value, TRUE);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *tmp = NULL;
  g_autofree char *reason = NULL;
  const char *dir;
  const GOptionEntry entries[] = {
    { "iterations", 'n', 0, G_OPTION_ARG_INT, &iterations, "Timed round trips per series", "N" },
    { "dir", 'd', 0, G_OPTION_ARG_FILENAME, &bench_dir, "Directory on the file system to measure fdatasync on (default: a temporary directory)", "DIR" },
    { NULL }
  };
  Series *pipe_echo = series_new ("(a) pipe echo, 200-byte frame");
  Series *probe = series_new ("(b) probe via helper -> app");
  Series *read_authorize = series_new ("(b) read authorize via helper -> app");
  Series *write_authorize = series_new ("(c) durable write authorize");
  Series *fsync_floor = series_new ("(c) floor: 200-byte write + fdatasync");
  Series *kpx = series_new ("(d) keepassxc-proxy -> socket echo");
  double ratio;

  signal (SIGPIPE, SIG_IGN);

  context = g_option_context_new ("— round trips of the bridge beside their floors");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("%s\n", error->message);
      return 2;
    }
  if (iterations < 10)
    iterations = 10;
  warmup = MAX (20, iterations / 10);

  set_default_env ("LUMO_TEST_APP", LUMO_BENCH_APP);
  set_default_env ("LUMO_TEST_HOST", LUMO_BENCH_HOST);
  set_default_env ("LUMO_TEST_CTL", LUMO_BENCH_CTL);
  set_default_env ("GSETTINGS_BACKEND", "memory");

  tmp = lumo_test_dir_new ("bench");
  dir = bench_dir != NULL ? bench_dir : tmp;

  g_print ("bench-bridge: %d timed round trips per series (%d warm-up), times in us\n",
           iterations, warmup);
  g_print ("  %-44s %8s %10s %10s\n", "series", "n", "p50", "p99");

  bench_pipe_echo (pipe_echo);
  series_print (pipe_echo);

  if (lumo_test_can_run (&reason))
    {
      double first_hello_us = 0;

      bench_real_path (probe, read_authorize, write_authorize, fsync_floor, dir, &first_hello_us);
      g_print ("  %-44s %8d %10.1f %10s\n", "(b) first hello: helper start + activation", 1,
               first_hello_us, "-");
      series_print (probe);
      series_print (read_authorize);
      series_print (write_authorize);
    }
  else
    g_print ("  (b), (c) skipped: %s\n", reason);

  if (fsync_floor->samples->len == 0)
    bench_fdatasync (fsync_floor, dir);
  series_print (fsync_floor);

  bench_keepassxc_proxy (kpx, dir);
  series_print (kpx);
  if (kpx->samples->len == 0)
    g_print ("  (d) skipped: keepassxc-proxy is not installed (apt-get install keepassxc)\n");

  g_print ("ratios (p50):\n");
  if (probe->samples->len > 0)
    {
      ratio = percentile (probe->samples, 0.5) / percentile (pipe_echo->samples, 0.5);
      g_print ("  probe / pipe echo           %6.2f  (target <= 3)\n", ratio);
      ratio = percentile (read_authorize->samples, 0.5) / percentile (pipe_echo->samples, 0.5);
      g_print ("  read authorize / pipe echo  %6.2f  (target <= 3)\n", ratio);
      if (kpx->samples->len > 0)
        {
          ratio = percentile (probe->samples, 0.5) / percentile (kpx->samples, 0.5);
          g_print ("  probe / keepassxc-proxy     %6.4f  (target < 1)\n", ratio);
        }
      ratio = percentile (write_authorize->samples, 0.5) / percentile (fsync_floor->samples, 0.5);
      g_print ("  write authorize / fdatasync %6.2f  (target <= 1.5)\n", ratio);
    }

  lumo_test_dir_remove (tmp);
  return 0;
}
