/* cli-browsers-util.h — what test-cli-browsers.c builds its cases from
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A fixture with a temporary home (HOME, XDG_CONFIG_HOME, XDG_DATA_HOME), a
 * --data-dir, a system root, a PATH of one empty folder and a stand-in
 * helper (LUMO_ACCESS_HOST_PATH); run_ctl() runs $LUMO_ACCESS_CTL there, as
 * nobody when as_nobody is set, and gives the browser commands the fake
 * --system-root unless they name one, so that no browser of this machine
 * (found by its program) shows up.
 */
#pragma once

#include <json-glib/json-glib.h>

#include "lumo-test.h"

#define NOBODY 65534

typedef struct
{
  char     *dir;
  char     *home;
  char     *config;       /* XDG_CONFIG_HOME */
  char     *data_dir;     /* --data-dir: policy.db */
  char     *sysroot;
  char     *bin;          /* PATH */
  char     *helper;       /* LUMO_ACCESS_HOST_PATH */
  char     *host_env;     /* NULL: f->helper */
  gboolean  as_nobody;    /* root ignores directory modes */
  char     *ctl;          /* NULL: $LUMO_ACCESS_CTL; a copy nobody can run */
  char     *out;
  char     *err;
} Fixture;

/* Files in the fake home (lumo_test_mkdir_in() and lumo_test_write_in()
 * make them). */
char        *path_in (const char *base,
                      const char *relative);
char        *read_in (const char *base,
                      const char *relative);
gboolean     exists_in (const char *base,
                        const char *relative);
/* Every path below @base, sorted, one per line: "nothing was written" is
 * this string unchanged. */
char        *snapshot (const char *base);

void         fixture_set_up (Fixture *f,
                             gconstpointer data);
void         fixture_tear_down (Fixture *f,
                                gconstpointer data);
/* Runs the CLI with --data-dir and @argv; output in f->out / f->err. */
int          run_ctl_argv (Fixture *f,
                           const char * const *argv);

/* Adds a provider to the fixture's policy.db, as `watch` would. */
void         add_provider (Fixture *f,
                           const char *id);
/* The build's bundled provider (the tests need one). */
const char  *bundled_id (void);
/* @folder/dev.lumo.access.json (or the .devel host name). */
char        *manifest_rel (const char *folder);
/* Exactly five members: our name, @expected_path, stdio, a description,
 * and allowed_origins exactly "chrome-extension://ID/" for @ids in order. */
void         assert_manifest_text (const char *text,
                                   const char *expected_path,
                                   const char * const *ids);
void         assert_manifest_file (const char *path,
                                   const char *expected_path,
                                   const char * const *ids,
                                   int mode);
JsonObject  *find_browser (JsonNode *root,
                           const char *id);
const char  *status_of (JsonNode *root,
                        const char *id);
/* Whether the text table's row for @id contains @status. */
gboolean     row_says (const char *out,
                       const char *id,
                       const char *status);

#define run_ctl(f, ...) run_ctl_argv ((f), (const char * const[]) { __VA_ARGS__, NULL })
