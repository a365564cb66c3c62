/* cli-test-util.h — the fixture of test-cli and test-cli-agents
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A temporary --data-dir, the policy.db in it opened the way the running
 * app would see it (to set the scene and check what the CLI did), and
 * run_ctl(): the built binary ($LUMO_ACCESS_CTL) run there, with no bus.
 */
#pragma once

#include <json-glib/json-glib.h>

#include "lumo-policy.h"
#include "lumo-test.h"

typedef struct
{
  char       *dir;
  char       *data_dir;
  char       *policy_path;
  LumoPolicy *policy;
  char       *out;
  char       *err;
} Fixture;

void        fixture_set_up     (Fixture            *f,
                                gconstpointer       data);
void        fixture_tear_down  (Fixture            *f,
                                gconstpointer       data);
/* The fixture's policy.db, opened on first use. */
LumoPolicy *policy             (Fixture            *f);
/* Runs the CLI with --data-dir and @argv; @input goes to stdin. Keeps the
 * output in f->out / f->err and returns the exit status. */
int         run_ctl_input      (Fixture            *f,
                                const char         *input,
                                const char * const *argv);
/* The length of the JSON array the CLI printed. */
guint       json_array_length_of_out (Fixture      *f);
/* @id says hello (namespace "userscripts", version 1.0.1) as @name. */
void        register_provider  (Fixture            *f,
                                const char         *id,
                                const char         *name);

#define run_ctl(f, ...) run_ctl_input ((f), NULL, (const char * const[]) { __VA_ARGS__, NULL })
#define run_ctl_stdin(f, input, ...) run_ctl_input ((f), (input), (const char * const[]) { __VA_ARGS__, NULL })
