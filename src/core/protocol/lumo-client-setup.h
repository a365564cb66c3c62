/* lumo-client-setup.h — the text of a set-up a desktop MCP client takes
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Two kinds of set-up are shown to a person to paste: a recommended server
 * of a provider (lumo-recommended-server.h) and the app's own endpoint for
 * a desktop agent (the gateway's lumo-gateway-snippets.h). Both are a
 * shell command line and a JSON file's text, and this is how either is
 * written: a word is quoted exactly when a shell would read anything in
 * it, and JSON is laid out as such files are written by hand.
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* @word as one word of a POSIX shell: as it is when nothing in it is
 * expanded, split or ends a command (letters, digits and -_./:%@+=,),
 * else in single quotes (an empty word is ''). */
char *lumo_setup_shell_word (const char *word);
/* @node as JSON text: two spaces of indent, "name": value, strings
 * escaped as RFC 8785 escapes them, no trailing newline. */
char *lumo_setup_json_text  (JsonNode   *node);

G_END_DECLS
