/* lumo-error.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "lumo-error.h"

G_DEFINE_QUARK (lumo-error-quark, lumo_error)
