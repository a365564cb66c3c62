/* lumo-test-ids.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "lumo-test-ids.h"

const char * const lumo_test_bad_ids[] = {
  TEST_BAD_ID_SHORT,
  TEST_BAD_ID_LONG,
  TEST_BAD_ID_UPPER,
  TEST_BAD_ID_ONE_UPPER,
  TEST_BAD_ID_DIGIT,
  TEST_BAD_ID_PAST_P,
  TEST_BAD_ID_FIRST_Q,
  "",
  NULL
};
