/* lumo-test-ids.h — the extension IDs every test uses, named by role
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One set for every suite, so a test reads "the provider" and "a second
 * caller" instead of a 32-letter string, and two tests never disagree on
 * which string plays which part. The valid ones match /^[a-p]{32}$/ and
 * are all different from each other, so no value plays two roles at once;
 * the fuzz corpus (tests/fuzz/corpus) and the bridge fixtures
 * (tests/fixtures/bridge) spell PROVIDER and CALLER out and must agree.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The provider extension that says hello and hosts the tools. */
#define TEST_PROVIDER_ID      "abcdefghijklmnopabcdefghijklmnop"
#define TEST_PROVIDER_ORIGIN  "chrome-extension://" TEST_PROVIDER_ID "/"
/* A second provider, for lists, filters and "the other one is untouched". */
#define TEST_PROVIDER2_ID     "pppppppppppppppppppppppppppppppp"
#define TEST_PROVIDER2_ORIGIN "chrome-extension://" TEST_PROVIDER2_ID "/"

/* The agent extension that calls the provider's tools. */
#define TEST_CALLER_ID        "ponmlkjihgfedcbaponmlkjihgfedcba"
/* A second and a third caller (the one never allowed, the bystander). */
#define TEST_CALLER2_ID       "aaaabbbbccccddddeeeeffffgggghhhh"
#define TEST_CALLER3_ID       "bbbbccccddddeeeeffffgggghhhhiiii"

/* The desktop agent of the bridge fixtures (messages-agent-*.json) and
 * the fuzz corpus: a virtual port's caller. A test that needs the policy
 * to know an agent makes one (lumo_policy_add_agent(), a random ID). */
#define TEST_AGENT_ID         "mkdaphcfnbjaelogmkdaphcfnbjaelog"

/* A well-formed ID that no store in a test has heard of. */
#define TEST_UNKNOWN_ID       "dddddddddddddddddddddddddddddddd"

/* Deliberately invalid: each is refused by lumo_is_extension_id(), for
 * its own reason. */
#define TEST_BAD_ID_SHORT     "abcdefghijklmnopabcdefghijklmno"    /* 31 letters */
#define TEST_BAD_ID_LONG      "abcdefghijklmnopabcdefghijklmnopa"  /* 33 letters */
#define TEST_BAD_ID_UPPER     "ABCDEFGHIJKLMNOPABCDEFGHIJKLMNOP"   /* upper case */
#define TEST_BAD_ID_ONE_UPPER "Abcdefghijklmnopabcdefghijklmnop"   /* one capital */
#define TEST_BAD_ID_DIGIT     "abcdefghijklmnopabcdefghijklmno1"   /* a digit */
#define TEST_BAD_ID_PAST_P    "abcdefghijklmnopabcdefghijklmnoq"   /* q is not a–p */
#define TEST_BAD_ID_FIRST_Q   "qbcdefghijklmnopabcdefghijklmnop"   /* … nor first */

/* Every TEST_BAD_ID_* and the empty string, NULL-terminated: what a
 * test of "a bad ID is refused and changes nothing" walks through. */
extern const char * const lumo_test_bad_ids[];

G_END_DECLS
