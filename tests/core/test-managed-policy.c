/* test-managed-policy.c — reading policy.d: every key, the merge of
 * several files, and what a bad file counts as
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LumoManagedPolicy alone, without a LumoPolicy: the rules "the stricter
 * wins" (between files, and against a person's value through the apply
 * functions), and fail closed for a file that does not parse or holds a
 * value of the wrong type, each with its file, line and field.
 */
#include "config.h"

#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <glib/gstdio.h>

#include "lumo-managed-policy.h"
#include "lumo-review-queue.h"
#include "lumo-test.h"

typedef struct
{
  char *dir;
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  f->dir = lumo_test_dir_new ("managed");
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  lumo_test_dir_remove (f->dir);
  g_free (f->dir);
}

static LumoManagedPolicy *
load_one (Fixture    *f,
          const char *name,
          const char *contents)
{
  lumo_test_write_in (f->dir, name, contents);
  return lumo_managed_policy_load (f->dir);
}

static char *
path_of (Fixture    *f,
         const char *name)
{
  return g_build_filename (f->dir, name, NULL);
}

static gboolean
writes_in_force (LumoManagedPolicy *mp,
                 const char        *provider,
                 gboolean           user)
{
  return lumo_managed_policy_apply_switch (mp, provider, LUMO_POLICY_SWITCH_WRITES, user, NULL);
}

/* The one problem of @mp, checked against where it must point. */
static const LumoManagedProblem *
the_problem (LumoManagedPolicy *mp,
             guint              index,
             const char        *file,
             guint              line,
             const char        *field,
             const char        *message_part)
{
  GPtrArray *problems = lumo_managed_policy_get_problems (mp);
  const LumoManagedProblem *p;

  g_assert_cmpuint (problems->len, >, index);
  p = g_ptr_array_index (problems, index);
  g_test_message ("problem: %s:%u:%u %s: %s", p->file, p->line, p->column, p->field, p->message);
  g_assert_cmpstr (p->file, ==, file);
  g_assert_cmpuint (p->line, ==, line);
  g_assert_cmpstr (p->field, ==, field);
  g_assert_nonnull (strstr (p->message, message_part));

  return p;
}

/* ---- a missing or empty directory ----------------------------------------- */

static void
test_nothing (Fixture       *f,
              gconstpointer  data)
{
  g_autofree char *missing = g_build_filename (f->dir, "policy.d", NULL);
  g_autoptr(LumoManagedPolicy) mp = lumo_managed_policy_load (missing);
  g_autoptr(LumoManagedPolicy) empty = NULL;

  /* No directory is an organization that sets nothing: not a problem. */
  g_assert_true (lumo_managed_policy_is_empty (mp));
  g_assert_cmpuint (lumo_managed_policy_get_files (mp)->len, ==, 0);
  g_assert_cmpuint (lumo_managed_policy_get_problems (mp)->len, ==, 0);
  g_assert_true (writes_in_force (mp, TEST_PROVIDER_ID, TRUE));
  g_assert_false (writes_in_force (mp, TEST_PROVIDER_ID, FALSE));

  /* Only *.json that does not start with a dot is read. */
  lumo_test_write_in (f->dir, "README", "writes off, please");
  lumo_test_write_in (f->dir, ".10-draft.json", "{\"writes\": false}");
  lumo_test_write_in (f->dir, "10.json.dpkg-new", "{\"writes\": false}");
  empty = lumo_managed_policy_load (f->dir);
  g_assert_true (lumo_managed_policy_is_empty (empty));
  g_assert_cmpuint (lumo_managed_policy_get_files (empty)->len, ==, 0);
}

/* ---- every key, in its strict and its loose direction --------------------- */

typedef struct
{
  const char       *json;
  LumoPolicySwitch  sw;
  gboolean          binds;
} SwitchCase;

static void
test_switches (Fixture       *f,
               gconstpointer  data)
{
  const SwitchCase cases[] = {
    { "{\n  \"enabled\": false\n}", LUMO_POLICY_SWITCH_ENABLED, TRUE },
    { "{\n  \"enabled\": true\n}", LUMO_POLICY_SWITCH_ENABLED, FALSE },
    { "{\n  \"writes\": false\n}", LUMO_POLICY_SWITCH_WRITES, TRUE },
    { "{\n  \"writes\": true\n}", LUMO_POLICY_SWITCH_WRITES, FALSE },
    { "{\n  \"review\": true\n}", LUMO_POLICY_SWITCH_REVIEW, TRUE },
    { "{\n  \"review\": false\n}", LUMO_POLICY_SWITCH_REVIEW, FALSE },
  };
  g_autofree char *file = path_of (f, "50-switches.json");

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(LumoManagedPolicy) mp = load_one (f, "50-switches.json", cases[i].json);
      gboolean strict = cases[i].sw == LUMO_POLICY_SWITCH_REVIEW;
      LumoManagedSource source;

      g_test_message ("%s", cases[i].json);
      g_assert_cmpuint (lumo_managed_policy_get_problems (mp)->len, ==, 0);

      for (guint user = 0; user <= 1; user++)
        {
          gboolean in_force = lumo_managed_policy_apply_switch (mp, TEST_PROVIDER_ID, cases[i].sw, user,
                                                                &source);

          if (cases[i].binds)
            {
              /* Whatever the person chose, the strict value, from line 2. */
              g_assert_cmpint (in_force, ==, strict);
              g_assert_cmpstr (source.file, ==, file);
              g_assert_cmpuint (source.line, ==, 2);
            }
          else
            {
              /* The loose value never loosens what the person chose. */
              g_assert_cmpint (in_force, ==, (gboolean) user);
              g_assert_null (source.file);
            }
        }
    }
}

static void
test_callers (Fixture       *f,
              gconstpointer  data)
{
  g_autoptr(LumoManagedPolicy) mp = NULL;
  g_autofree char *file = path_of (f, "50-callers.json");
  LumoManagedSource source;

  mp = load_one (f, "50-callers.json",
                 "{\n"
                 "  \"callers\": {\n"
                 "    \"allow\": [\"" TEST_CALLER_ID "\", \"" TEST_CALLER3_ID "\"],\n"
                 "    \"deny\": [\"" TEST_CALLER2_ID "\",\n"
                 "             \"" TEST_CALLER3_ID "\"]\n"
                 "  }\n"
                 "}\n");
  g_assert_cmpuint (lumo_managed_policy_get_problems (mp)->len, ==, 0);

  g_assert_cmpint (lumo_managed_policy_get_caller (mp, TEST_PROVIDER_ID, TEST_CALLER_ID,
                                                   LUMO_CALLER_KIND_EXTENSION, &source),
                   ==, LUMO_MANAGED_CALLER_ALLOWED);
  g_assert_cmpstr (source.file, ==, file);
  g_assert_cmpuint (source.line, ==, 3);
  g_assert_cmpint (lumo_managed_policy_get_caller (mp, TEST_PROVIDER_ID, TEST_CALLER2_ID,
                                                   LUMO_CALLER_KIND_EXTENSION, &source),
                   ==, LUMO_MANAGED_CALLER_DENIED);
  g_assert_cmpuint (source.line, ==, 4);
  /* Listed as both: denied wins over allowed. */
  g_assert_cmpint (lumo_managed_policy_get_caller (mp, TEST_PROVIDER_ID, TEST_CALLER3_ID,
                                                   LUMO_CALLER_KIND_EXTENSION, &source),
                   ==, LUMO_MANAGED_CALLER_DENIED);
  g_assert_cmpuint (source.line, ==, 5);
  g_assert_cmpint (lumo_managed_policy_get_caller (mp, TEST_PROVIDER_ID, TEST_UNKNOWN_ID,
                                                   LUMO_CALLER_KIND_EXTENSION, &source),
                   ==, LUMO_MANAGED_CALLER_NONE);
  g_assert_null (source.file);

  /* Against what the person stored: the files' denial, then the person's,
   * then the files' allowance, then the person's choice. */
  g_assert_cmpint (lumo_managed_policy_apply_caller (mp, TEST_PROVIDER_ID, TEST_CALLER2_ID,
                                                     LUMO_CALLER_KIND_EXTENSION, LUMO_CALLER_STATE_ALLOWED,
                                                     &source), ==, LUMO_CALLER_STATE_DENIED);
  g_assert_cmpstr (source.file, ==, file);
  g_assert_cmpint (lumo_managed_policy_apply_caller (mp, TEST_PROVIDER_ID, TEST_CALLER_ID,
                                                     LUMO_CALLER_KIND_EXTENSION, LUMO_CALLER_STATE_DENIED,
                                                     &source), ==, LUMO_CALLER_STATE_DENIED);
  g_assert_null (source.file);
  g_assert_cmpint (lumo_managed_policy_apply_caller (mp, TEST_PROVIDER_ID, TEST_CALLER_ID,
                                                     LUMO_CALLER_KIND_EXTENSION, LUMO_CALLER_STATE_PENDING,
                                                     &source), ==, LUMO_CALLER_STATE_ALLOWED);
  g_assert_cmpstr (source.file, ==, file);
  g_assert_cmpint (lumo_managed_policy_apply_caller (mp, TEST_PROVIDER_ID, TEST_CALLER_ID,
                                                     LUMO_CALLER_KIND_EXTENSION, LUMO_CALLER_STATE_ANY,
                                                     NULL), ==, LUMO_CALLER_STATE_ALLOWED);
  g_assert_cmpint (lumo_managed_policy_apply_caller (mp, TEST_PROVIDER_ID, TEST_UNKNOWN_ID,
                                                     LUMO_CALLER_KIND_EXTENSION, LUMO_CALLER_STATE_PENDING,
                                                     &source), ==, LUMO_CALLER_STATE_PENDING);
  g_assert_null (source.file);
}

static void
test_only_listed_and_agents (Fixture       *f,
                             gconstpointer  data)
{
  g_autoptr(LumoManagedPolicy) mp = NULL;
  g_autofree char *file = path_of (f, "50-only.json");
  LumoManagedSource source;

  mp = load_one (f, "50-only.json",
                 "{\n"
                 "  \"onlyListedCallers\": true,\n"
                 "  \"desktopAgents\": false,\n"
                 "  \"callers\": { \"allow\": [\"" TEST_CALLER_ID "\", \"" TEST_AGENT_ID "\"] }\n"
                 "}\n");
  g_assert_cmpuint (lumo_managed_policy_get_problems (mp)->len, ==, 0);

  /* Everyone else is denied, without a request. */
  g_assert_cmpint (lumo_managed_policy_get_caller (mp, TEST_PROVIDER_ID, TEST_CALLER2_ID,
                                                   LUMO_CALLER_KIND_EXTENSION, &source),
                   ==, LUMO_MANAGED_CALLER_DENIED);
  g_assert_cmpstr (source.file, ==, file);
  g_assert_cmpuint (source.line, ==, 2);
  g_assert_true (lumo_managed_policy_get_only_listed (mp, TEST_PROVIDER2_ID, NULL));
  g_assert_cmpint (lumo_managed_policy_get_caller (mp, TEST_PROVIDER_ID, TEST_CALLER_ID,
                                                   LUMO_CALLER_KIND_EXTENSION, NULL),
                   ==, LUMO_MANAGED_CALLER_ALLOWED);

  /* A desktop agent is denied even when listed: desktopAgents false
   * forbids every agent, and denied wins. */
  g_assert_true (lumo_managed_policy_get_agents_forbidden (mp, NULL, &source));
  g_assert_cmpuint (source.line, ==, 3);
  g_assert_cmpint (lumo_managed_policy_get_caller (mp, TEST_PROVIDER_ID, TEST_AGENT_ID,
                                                   LUMO_CALLER_KIND_AGENT, &source),
                   ==, LUMO_MANAGED_CALLER_DENIED);
  g_assert_cmpuint (source.line, ==, 3);
  /* … and an extension with the same ID is not an agent. */
  g_assert_cmpint (lumo_managed_policy_get_caller (mp, TEST_PROVIDER_ID, TEST_AGENT_ID,
                                                   LUMO_CALLER_KIND_EXTENSION, NULL),
                   ==, LUMO_MANAGED_CALLER_ALLOWED);

  /* The loose values bind nothing. */
  g_clear_pointer (&mp, lumo_managed_policy_unref);
  mp = load_one (f, "50-only.json", "{\"onlyListedCallers\": false, \"desktopAgents\": true}");
  g_assert_true (lumo_managed_policy_is_empty (mp));
  g_assert_cmpint (lumo_managed_policy_get_caller (mp, TEST_PROVIDER_ID, TEST_AGENT_ID,
                                                   LUMO_CALLER_KIND_AGENT, NULL),
                   ==, LUMO_MANAGED_CALLER_NONE);
}

static void
test_provider_scope (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(LumoManagedPolicy) mp = NULL;
  LumoManagedSource source;

  mp = load_one (f, "50-one.json",
                 "{\n"
                 "  \"providers\": {\n"
                 "    \"" TEST_PROVIDER_ID "\": {\n"
                 "      \"writes\": false,\n"
                 "      \"desktopAgents\": false,\n"
                 "      \"callers\": { \"deny\": [\"" TEST_CALLER_ID "\"] }\n"
                 "    }\n"
                 "  }\n"
                 "}\n");
  g_assert_cmpuint (lumo_managed_policy_get_problems (mp)->len, ==, 0);

  g_assert_false (writes_in_force (mp, TEST_PROVIDER_ID, TRUE));
  g_assert_true (writes_in_force (mp, TEST_PROVIDER2_ID, TRUE));
  lumo_managed_policy_apply_switch (mp, TEST_PROVIDER_ID, LUMO_POLICY_SWITCH_WRITES, TRUE, &source);
  g_assert_cmpuint (source.line, ==, 4);
  g_assert_cmpint (lumo_managed_policy_get_caller (mp, TEST_PROVIDER_ID, TEST_CALLER_ID,
                                                   LUMO_CALLER_KIND_EXTENSION, NULL),
                   ==, LUMO_MANAGED_CALLER_DENIED);
  g_assert_cmpint (lumo_managed_policy_get_caller (mp, TEST_PROVIDER2_ID, TEST_CALLER_ID,
                                                   LUMO_CALLER_KIND_EXTENSION, NULL),
                   ==, LUMO_MANAGED_CALLER_NONE);
  /* Agents are forbidden on that provider, not everywhere. */
  g_assert_true (lumo_managed_policy_get_agents_forbidden (mp, TEST_PROVIDER_ID, NULL));
  g_assert_false (lumo_managed_policy_get_agents_forbidden (mp, NULL, NULL));
  g_assert_false (lumo_managed_policy_get_agents_forbidden (mp, TEST_PROVIDER2_ID, NULL));
}

static void
test_global_keys (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(LumoManagedPolicy) mp = NULL;
  g_autofree char *file = path_of (f, "50-audit.json");
  LumoManagedSource source;

  mp = load_one (f, "50-audit.json",
                 "{\n"
                 "  \"minAuditRetentionDays\": 400,\n"
                 "  \"reviewTimeoutSeconds\": { \"min\": 30, \"max\": 120 },\n"
                 "  \"auditJournal\": true,\n"
                 "  \"comment\": \"what the fleet must keep\"\n"
                 "}\n");
  g_assert_cmpuint (lumo_managed_policy_get_problems (mp)->len, ==, 0);

  /* Retention: the longer; the person's forever is the longest. */
  g_assert_cmpuint (lumo_managed_policy_apply_retention (mp, 365, &source), ==, 400);
  g_assert_cmpstr (source.file, ==, file);
  g_assert_cmpuint (source.line, ==, 2);
  g_assert_cmpuint (lumo_managed_policy_apply_retention (mp, 500, &source), ==, 500);
  g_assert_null (source.file);
  g_assert_cmpuint (lumo_managed_policy_apply_retention (mp, 0, &source), ==, 0);
  g_assert_null (source.file);

  /* The timeout: inside the bounds. */
  g_assert_cmpuint (lumo_managed_policy_apply_review_timeout (mp, 10, &source), ==, 30);
  g_assert_cmpuint (source.line, ==, 3);
  g_assert_cmpuint (lumo_managed_policy_apply_review_timeout (mp, 60, &source), ==, 60);
  g_assert_null (source.file);
  g_assert_cmpuint (lumo_managed_policy_apply_review_timeout (mp, 3600, &source), ==, 120);
  g_assert_cmpuint (source.line, ==, 3);

  /* The journal: on, whatever the person chose. */
  g_assert_true (lumo_managed_policy_apply_audit_journal (mp, FALSE, &source));
  g_assert_cmpuint (source.line, ==, 4);

  /* 0 is forever, as in the audit-retention-days setting. */
  g_clear_pointer (&mp, lumo_managed_policy_unref);
  mp = load_one (f, "50-audit.json", "{\"minAuditRetentionDays\": 0, \"auditJournal\": false}");
  g_assert_cmpuint (lumo_managed_policy_apply_retention (mp, 36500, NULL), ==, 0);
  g_assert_false (lumo_managed_policy_apply_audit_journal (mp, FALSE, NULL));
  g_assert_true (lumo_managed_policy_apply_audit_journal (mp, TRUE, NULL));
}

/* ---- several files: lexical order, the stricter wins ---------------------- */

static void
test_precedence (Fixture       *f,
                 gconstpointer  data)
{
  g_autoptr(LumoManagedPolicy) mp = NULL;
  g_autofree char *first = path_of (f, "10-base.json");
  g_autofree char *second = path_of (f, "20-site.json");
  g_autofree char *third = path_of (f, "30-team.json");
  GPtrArray *files;
  LumoManagedSource source;

  /* Written in the reverse order: the order is the names', not the times'. */
  lumo_test_write_in (f->dir, "30-team.json",
                      "{\"writes\": true, \"review\": true, \"minAuditRetentionDays\": 90,\n"
                      " \"reviewTimeoutSeconds\": {\"max\": 300},\n"
                      " \"callers\": {\"allow\": [\"" TEST_CALLER_ID "\"]}}");
  lumo_test_write_in (f->dir, "20-site.json",
                      "{\"writes\": false, \"review\": false, \"minAuditRetentionDays\": 730,\n"
                      " \"reviewTimeoutSeconds\": {\"min\": 20, \"max\": 600},\n"
                      " \"callers\": {\"deny\": [\"" TEST_CALLER_ID "\"]}}");
  lumo_test_write_in (f->dir, "10-base.json",
                      "{\"review\": true,\n"
                      " \"reviewTimeoutSeconds\": {\"min\": 10}}");
  mp = lumo_managed_policy_load (f->dir);

  files = lumo_managed_policy_get_files (mp);
  g_assert_cmpuint (files->len, ==, 3);
  g_assert_cmpstr (g_ptr_array_index (files, 0), ==, first);
  g_assert_cmpstr (g_ptr_array_index (files, 1), ==, second);
  g_assert_cmpstr (g_ptr_array_index (files, 2), ==, third);
  g_assert_cmpuint (lumo_managed_policy_get_problems (mp)->len, ==, 0);

  /* writes: 20 says off, 30 says on: off wins, from 20. */
  g_assert_false (lumo_managed_policy_apply_switch (mp, TEST_PROVIDER_ID, LUMO_POLICY_SWITCH_WRITES,
                                                    TRUE, &source));
  g_assert_cmpstr (source.file, ==, second);
  /* review: 10 and 30 say on, 20 off: on, from the first file that said so. */
  g_assert_true (lumo_managed_policy_apply_switch (mp, TEST_PROVIDER_ID, LUMO_POLICY_SWITCH_REVIEW,
                                                   FALSE, &source));
  g_assert_cmpstr (source.file, ==, first);
  /* The caller: 30 allows, 20 denies: denied. */
  g_assert_cmpint (lumo_managed_policy_get_caller (mp, TEST_PROVIDER_ID, TEST_CALLER_ID,
                                                   LUMO_CALLER_KIND_EXTENSION, &source),
                   ==, LUMO_MANAGED_CALLER_DENIED);
  g_assert_cmpstr (source.file, ==, second);
  /* Retention: the longer minimum, 730 from 20. */
  g_assert_cmpuint (lumo_managed_policy_apply_retention (mp, 30, &source), ==, 730);
  g_assert_cmpstr (source.file, ==, second);
  /* Timeout: the narrower bounds, [20 from 20, 300 from 30]. */
  g_assert_cmpuint (lumo_managed_policy_apply_review_timeout (mp, 5, &source), ==, 20);
  g_assert_cmpstr (source.file, ==, second);
  g_assert_cmpuint (lumo_managed_policy_apply_review_timeout (mp, 900, &source), ==, 300);
  g_assert_cmpstr (source.file, ==, third);

  /* Bounds that cross leave the lower maximum. */
  g_clear_pointer (&mp, lumo_managed_policy_unref);
  lumo_test_write_in (f->dir, "40-slow.json", "{\"reviewTimeoutSeconds\": {\"min\": 900}}");
  mp = lumo_managed_policy_load (f->dir);
  g_assert_cmpuint (lumo_managed_policy_apply_review_timeout (mp, 1000, &source), ==, 300);
  g_assert_cmpstr (source.file, ==, third);
  g_assert_cmpuint (lumo_managed_policy_apply_review_timeout (mp, 60, &source), ==, 300);

  /* A forever anywhere wins over any number of days. */
  g_clear_pointer (&mp, lumo_managed_policy_unref);
  lumo_test_write_in (f->dir, "05-keep.json", "{\"minAuditRetentionDays\": 0}");
  mp = lumo_managed_policy_load (f->dir);
  g_assert_cmpuint (lumo_managed_policy_apply_retention (mp, 30, NULL), ==, LUMO_MANAGED_RETENTION_FOREVER);
}

/* ---- bad files: fail closed, with file, line and field -------------------- */

/* What the strictest reading of a whole file is, for any provider. */
static void
assert_file_strictest (LumoManagedPolicy *mp,
                       const char        *file)
{
  const char *providers[] = { TEST_PROVIDER_ID, TEST_PROVIDER2_ID, TEST_UNKNOWN_ID };
  LumoManagedSource source;

  for (guint i = 0; i < G_N_ELEMENTS (providers); i++)
    {
      g_assert_false (lumo_managed_policy_apply_switch (mp, providers[i], LUMO_POLICY_SWITCH_ENABLED, TRUE, &source));
      g_assert_cmpstr (source.file, ==, file);
      g_assert_false (lumo_managed_policy_apply_switch (mp, providers[i], LUMO_POLICY_SWITCH_WRITES, TRUE, NULL));
      g_assert_true (lumo_managed_policy_apply_switch (mp, providers[i], LUMO_POLICY_SWITCH_REVIEW, FALSE, NULL));
      g_assert_true (lumo_managed_policy_get_only_listed (mp, providers[i], NULL));
      g_assert_true (lumo_managed_policy_get_agents_forbidden (mp, providers[i], NULL));
      g_assert_cmpint (lumo_managed_policy_get_caller (mp, providers[i], TEST_CALLER_ID,
                                                       LUMO_CALLER_KIND_EXTENSION, NULL),
                       ==, LUMO_MANAGED_CALLER_DENIED);
    }
  g_assert_true (lumo_managed_policy_get_agents_forbidden (mp, NULL, NULL));
  g_assert_cmpuint (lumo_managed_policy_apply_retention (mp, 1, NULL), ==, LUMO_MANAGED_RETENTION_FOREVER);
  g_assert_cmpuint (lumo_managed_policy_apply_review_timeout (mp, 5, NULL), ==, LUMO_REVIEW_DEFAULT_TIMEOUT_S);
  g_assert_cmpuint (lumo_managed_policy_apply_review_timeout (mp, 3600, NULL), ==, LUMO_REVIEW_DEFAULT_TIMEOUT_S);
  g_assert_true (lumo_managed_policy_apply_audit_journal (mp, FALSE, NULL));
}

static void
test_unparseable (Fixture       *f,
                  gconstpointer  data)
{
  /* Each is what an admin's slip looks like; none may leave writes on. */
  const char *broken[] = {
    "{\n  \"writes\": true,\n  \"review\": tru\n}\n",      /* a typo in a literal */
    "{\n  \"writes\": true,\n}\n",                          /* a trailing comma */
    "{\n  \"writes\": true, \"writes\": true\n}\n",         /* a duplicate name */
    "// writes on\n{\"writes\": true}\n",                   /* a comment */
    "",                                                      /* empty */
    "[{\"writes\": true}]",                                  /* not an object */
    "{\"writes\": true}\xff",                                /* not UTF-8 */
  };
  const guint lines[] = { 3, 3, 2, 1, 1, 1, 1 };
  g_autofree char *file = path_of (f, "50-broken.json");

  for (guint i = 0; i < G_N_ELEMENTS (broken); i++)
    {
      g_autoptr(LumoManagedPolicy) mp = load_one (f, "50-broken.json", broken[i]);
      g_autofree char *escaped = g_strescape (broken[i], NULL);
      const LumoManagedProblem *p;

      /* Escaped: a case that is not UTF-8 would break the TAP stream. */
      g_test_message ("broken: %s", escaped);
      p = the_problem (mp, 0, file, lines[i], NULL, "strictest");
      g_assert_cmpuint (p->column, >, 0);
      g_assert_cmpuint (lumo_managed_policy_get_problems (mp)->len, ==, 1);
      /* The file said writes on; the person has them off: still off. */
      g_assert_false (writes_in_force (mp, TEST_PROVIDER_ID, FALSE));
      assert_file_strictest (mp, file);
    }
}

static void
test_unreadable (Fixture       *f,
                 gconstpointer  data)
{
  g_autoptr(LumoManagedPolicy) mp = NULL;
  g_autoptr(LumoManagedPolicy) big_mp = NULL;
  g_autoptr(LumoManagedPolicy) dir_mp = NULL;
  g_autofree char *dir_file = path_of (f, "20-dir.json");
  g_autofree char *fifo = path_of (f, "30-fifo.json");
  g_autofree char *big_file = path_of (f, "40-big.json");
  g_autofree char *not_a_dir = path_of (f, "plain");
  g_autoptr(GString) big = g_string_new ("{\"comment\": \"");

  /* A directory and a FIFO named *.json: not read (and no hang), strictest. */
  g_assert_no_errno (g_mkdir (dir_file, 0700));
  g_assert_no_errno (mkfifo (fifo, 0600));
  mp = lumo_managed_policy_load (f->dir);
  the_problem (mp, 0, dir_file, 0, NULL, "not a regular file");
  the_problem (mp, 1, fifo, 0, NULL, "not a regular file");
  assert_file_strictest (mp, dir_file);
  g_assert_no_errno (g_rmdir (dir_file));
  g_assert_no_errno (g_remove (fifo));

  while (big->len <= LUMO_MANAGED_MAX_FILE_SIZE)
    g_string_append (big, "xxxxxxxxxxxxxxxx");
  g_string_append (big, "\"}");
  lumo_test_write_in (f->dir, "40-big.json", big->str);
  big_mp = lumo_managed_policy_load (f->dir);
  the_problem (big_mp, 0, big_file, 0, NULL, "larger than");
  assert_file_strictest (big_mp, big_file);
  g_assert_no_errno (g_remove (big_file));

  /* A "directory" that is a file: it could hide anything. */
  lumo_test_write_in (f->dir, "plain", "{}");
  dir_mp = lumo_managed_policy_load (not_a_dir);
  the_problem (dir_mp, 0, not_a_dir, 0, NULL, "cannot be read");
  assert_file_strictest (dir_mp, not_a_dir);
}

typedef struct
{
  const char *json;
  guint       line;
  const char *field;
} BadValue;

/* A value of the wrong type: that key's strictest reading, in its scope. */
static void
test_wrong_types (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *file = path_of (f, "50-types.json");
  g_autoptr(LumoManagedPolicy) mp = NULL;
  LumoManagedSource source;

  mp = load_one (f, "50-types.json",
                 "{\n"
                 "  \"enabled\": \"yes\",\n"
                 "  \"writes\": 1,\n"
                 "  \"review\": null,\n"
                 "  \"onlyListedCallers\": \"false\",\n"
                 "  \"desktopAgents\": [],\n"
                 "  \"auditJournal\": 0,\n"
                 "  \"minAuditRetentionDays\": 36501,\n"
                 "  \"reviewTimeoutSeconds\": { \"min\": 30.5, \"max\": 120 },\n"
                 "  \"writez\": false\n"
                 "}\n");
  the_problem (mp, 0, file, 2, "enabled", "true or false");
  the_problem (mp, 1, file, 3, "writes", "writes off");
  the_problem (mp, 2, file, 4, "review", "each write reviewed");
  the_problem (mp, 3, file, 5, "onlyListedCallers", "only listed callers");
  the_problem (mp, 4, file, 6, "desktopAgents", "forbidden");
  the_problem (mp, 5, file, 7, "auditJournal", "journal");
  the_problem (mp, 6, file, 8, "minAuditRetentionDays", "forever");
  the_problem (mp, 7, file, 9, "reviewTimeoutSeconds.min", "exactly 60 seconds");
  /* An unknown key is reported and binds nothing: a newer version's key
   * must not lock an older one down. */
  the_problem (mp, 8, file, 10, "writez", "ignored");
  g_assert_cmpuint (lumo_managed_policy_get_problems (mp)->len, ==, 9);

  g_assert_false (lumo_managed_policy_apply_switch (mp, TEST_PROVIDER_ID, LUMO_POLICY_SWITCH_ENABLED, TRUE, &source));
  g_assert_cmpuint (source.line, ==, 2);
  g_assert_false (writes_in_force (mp, TEST_PROVIDER_ID, TRUE));
  g_assert_true (lumo_managed_policy_apply_switch (mp, TEST_PROVIDER_ID, LUMO_POLICY_SWITCH_REVIEW, FALSE, NULL));
  g_assert_true (lumo_managed_policy_get_only_listed (mp, TEST_PROVIDER_ID, NULL));
  g_assert_true (lumo_managed_policy_get_agents_forbidden (mp, NULL, NULL));
  g_assert_true (lumo_managed_policy_apply_audit_journal (mp, FALSE, NULL));
  g_assert_cmpuint (lumo_managed_policy_apply_retention (mp, 30, NULL), ==, LUMO_MANAGED_RETENTION_FOREVER);
  g_assert_cmpuint (lumo_managed_policy_apply_review_timeout (mp, 120, NULL), ==, LUMO_REVIEW_DEFAULT_TIMEOUT_S);
}

static void
test_bad_lists (Fixture       *f,
                gconstpointer  data)
{
  g_autofree char *file = path_of (f, "50-lists.json");
  g_autoptr(LumoManagedPolicy) mp = NULL;

  /* A bad entry of an allow list allows no one; the good ones still count. */
  mp = load_one (f, "50-lists.json",
                 "{\n"
                 "  \"callers\": {\n"
                 "    \"allow\": [\"" TEST_CALLER_ID "\", \"" TEST_BAD_ID_UPPER "\", 7],\n"
                 "    \"block\": []\n"
                 "  }\n"
                 "}\n");
  the_problem (mp, 0, file, 3, "callers.allow[1]", "allows no one");
  the_problem (mp, 1, file, 3, "callers.allow[2]", "allows no one");
  the_problem (mp, 2, file, 4, "callers.block", "ignored");
  g_assert_cmpint (lumo_managed_policy_get_caller (mp, TEST_PROVIDER_ID, TEST_CALLER_ID,
                                                   LUMO_CALLER_KIND_EXTENSION, NULL),
                   ==, LUMO_MANAGED_CALLER_ALLOWED);
  g_assert_cmpint (lumo_managed_policy_get_caller (mp, TEST_PROVIDER_ID, TEST_CALLER2_ID,
                                                   LUMO_CALLER_KIND_EXTENSION, NULL),
                   ==, LUMO_MANAGED_CALLER_NONE);

  /* A bad entry of a deny list could have been anyone: everyone denied,
   * the listed allowances too. */
  g_clear_pointer (&mp, lumo_managed_policy_unref);
  mp = load_one (f, "50-lists.json",
                 "{\n"
                 "  \"callers\": {\n"
                 "    \"allow\": [\"" TEST_CALLER_ID "\"],\n"
                 "    \"deny\": [\"" TEST_BAD_ID_SHORT "\"]\n"
                 "  }\n"
                 "}\n");
  the_problem (mp, 0, file, 4, "callers.deny[0]", "denying every caller");
  g_assert_cmpint (lumo_managed_policy_get_caller (mp, TEST_PROVIDER_ID, TEST_CALLER_ID,
                                                   LUMO_CALLER_KIND_EXTENSION, NULL),
                   ==, LUMO_MANAGED_CALLER_DENIED);
  g_assert_cmpint (lumo_managed_policy_get_caller (mp, TEST_PROVIDER2_ID, TEST_CALLER2_ID,
                                                   LUMO_CALLER_KIND_EXTENSION, NULL),
                   ==, LUMO_MANAGED_CALLER_DENIED);

  /* "callers" itself of the wrong type: everyone denied. */
  g_clear_pointer (&mp, lumo_managed_policy_unref);
  mp = load_one (f, "50-lists.json", "{\"callers\": [\"" TEST_CALLER_ID "\"]}");
  the_problem (mp, 0, file, 1, "callers", "denying every caller");
  g_assert_cmpint (lumo_managed_policy_get_caller (mp, TEST_PROVIDER_ID, TEST_CALLER_ID,
                                                   LUMO_CALLER_KIND_EXTENSION, NULL),
                   ==, LUMO_MANAGED_CALLER_DENIED);
}

static void
test_bad_providers (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *file = path_of (f, "50-providers.json");
  g_autoptr(LumoManagedPolicy) mp = NULL;

  /* A misspelt provider ID could have meant any provider: what it says
   * counts for all; an entry that is no object is its scope at its
   * strictest; a global key in a provider counts for all. */
  mp = load_one (f, "50-providers.json",
                 "{\n"
                 "  \"providers\": {\n"
                 "    \"" TEST_BAD_ID_PAST_P "\": { \"writes\": false },\n"
                 "    \"" TEST_PROVIDER2_ID "\": false,\n"
                 "    \"" TEST_PROVIDER_ID "\": { \"auditJournal\": true }\n"
                 "  }\n"
                 "}\n");
  the_problem (mp, 0, file, 3, "providers." TEST_BAD_ID_PAST_P, "every provider");
  the_problem (mp, 1, file, 4, "providers." TEST_PROVIDER2_ID, "strictest");
  the_problem (mp, 2, file, 5, "providers." TEST_PROVIDER_ID ".auditJournal", "top level");
  g_assert_false (writes_in_force (mp, TEST_UNKNOWN_ID, TRUE));
  g_assert_false (lumo_managed_policy_apply_switch (mp, TEST_PROVIDER2_ID, LUMO_POLICY_SWITCH_ENABLED, TRUE, NULL));
  g_assert_true (lumo_managed_policy_apply_switch (mp, TEST_PROVIDER_ID, LUMO_POLICY_SWITCH_ENABLED, TRUE, NULL));
  g_assert_true (lumo_managed_policy_apply_audit_journal (mp, FALSE, NULL));

  /* "providers" not an object: every provider key at its strictest. */
  g_clear_pointer (&mp, lumo_managed_policy_unref);
  mp = load_one (f, "50-providers.json", "{\"review\": false,\n \"providers\": []}");
  the_problem (mp, 0, file, 2, "providers", "every provider");
  g_assert_false (lumo_managed_policy_apply_switch (mp, TEST_PROVIDER_ID, LUMO_POLICY_SWITCH_ENABLED, TRUE, NULL));
  g_assert_true (lumo_managed_policy_apply_switch (mp, TEST_PROVIDER_ID, LUMO_POLICY_SWITCH_REVIEW, FALSE, NULL));

  /* Bounds the wrong way round: pinned at the default. */
  g_clear_pointer (&mp, lumo_managed_policy_unref);
  mp = load_one (f, "50-providers.json", "{\"reviewTimeoutSeconds\": {\"min\": 300, \"max\": 30}}");
  the_problem (mp, 0, file, 1, "reviewTimeoutSeconds", "above");
  g_assert_cmpuint (lumo_managed_policy_apply_review_timeout (mp, 300, NULL), ==, LUMO_REVIEW_DEFAULT_TIMEOUT_S);
}

/* One bad file leaves the others' values as they were, and its own good
 * values still count. */
static void
test_bad_beside_good (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(LumoManagedPolicy) mp = NULL;
  g_autofree char *good = path_of (f, "10-good.json");
  LumoManagedSource source;

  lumo_test_write_in (f->dir, "10-good.json", "{\"callers\": {\"deny\": [\"" TEST_CALLER_ID "\"]}}");
  lumo_test_write_in (f->dir, "20-typo.json", "{\"writes\": \"off\",\n \"review\": true}");
  mp = lumo_managed_policy_load (f->dir);

  g_assert_cmpuint (lumo_managed_policy_get_problems (mp)->len, ==, 1);
  g_assert_cmpint (lumo_managed_policy_get_caller (mp, TEST_PROVIDER_ID, TEST_CALLER_ID,
                                                   LUMO_CALLER_KIND_EXTENSION, &source),
                   ==, LUMO_MANAGED_CALLER_DENIED);
  g_assert_cmpstr (source.file, ==, good);
  g_assert_false (writes_in_force (mp, TEST_PROVIDER_ID, TRUE));
  g_assert_true (lumo_managed_policy_apply_switch (mp, TEST_PROVIDER_ID, LUMO_POLICY_SWITCH_ENABLED, TRUE, NULL));
  g_assert_true (lumo_managed_policy_apply_switch (mp, TEST_PROVIDER_ID, LUMO_POLICY_SWITCH_REVIEW, FALSE, NULL));
}

static void
test_equal_and_json (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(LumoManagedPolicy) a = NULL;
  g_autoptr(LumoManagedPolicy) b = NULL;
  g_autoptr(LumoManagedPolicy) c = NULL;
  g_autoptr(JsonNode) node = NULL;
  JsonObject *scope;

  a = load_one (f, "50-x.json", "{\"writes\": false}");
  b = lumo_managed_policy_load (f->dir);
  g_assert_true (lumo_managed_policy_equal (a, b));
  c = load_one (f, "50-x.json", "{\n\"writes\": false}");
  /* The same value from another line is another source. */
  g_assert_false (lumo_managed_policy_equal (a, c));

  node = lumo_managed_policy_to_json (c);
  scope = json_object_get_object_member (json_node_get_object (node), "allProviders");
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (scope, "writesOff"), "line"), ==, 2);
  g_assert_true (json_object_get_null_member (scope, "reviewOn"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("/managed-policy/nothing", test_nothing);
  ADD ("/managed-policy/switches", test_switches);
  ADD ("/managed-policy/callers", test_callers);
  ADD ("/managed-policy/only-listed-and-agents", test_only_listed_and_agents);
  ADD ("/managed-policy/provider-scope", test_provider_scope);
  ADD ("/managed-policy/global-keys", test_global_keys);
  ADD ("/managed-policy/precedence", test_precedence);
  ADD ("/managed-policy/unparseable", test_unparseable);
  ADD ("/managed-policy/unreadable", test_unreadable);
  ADD ("/managed-policy/wrong-types", test_wrong_types);
  ADD ("/managed-policy/bad-lists", test_bad_lists);
  ADD ("/managed-policy/bad-providers", test_bad_providers);
  ADD ("/managed-policy/bad-beside-good", test_bad_beside_good);
  ADD ("/managed-policy/equal-and-json", test_equal_and_json);
#undef ADD

  return g_test_run ();
}
