/* test-text.c — cutting text on a character boundary, and names as display text
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * lumo_utf8_cut() and lumo_utf8_excerpt() are the only ways core cuts
 * text; lumo_clean_display_name() is the one rule for a name from outside.
 * Every message that quotes outside text must stay valid UTF-8 however
 * long the text is and wherever a multi-byte character falls.
 */
#include "config.h"

#include <string.h>

#include "lumo-error.h"
#include "lumo-json.h"
#include "lumo-protocol.h"
#include "lumo-text.h"

static void
test_cut (void)
{
  g_autofree char *a = lumo_utf8_cut ("aé", 2);
  g_autofree char *b = lumo_utf8_cut ("aé", 3);
  g_autofree char *c = lumo_utf8_cut ("aé", 0);
  g_autofree char *d = lumo_utf8_cut ("a\xff" "b", 16);
  g_autofree char *e = lumo_utf8_cut ("😀😀", 7);

  g_assert_cmpstr (a, ==, "a");
  g_assert_cmpstr (b, ==, "aé");
  g_assert_cmpstr (c, ==, "");
  /* Invalid input is repaired, never passed on. */
  g_assert_true (g_utf8_validate (d, -1, NULL));
  g_assert_cmpstr (d, ==, "a\xef\xbf\xbd" "b");
  g_assert_cmpstr (e, ==, "😀");
}

static void
test_excerpt (void)
{
  g_autofree char *short_text = lumo_utf8_excerpt ("short", 80);
  g_autofree char *null_text = lumo_utf8_excerpt (NULL, 80);
  g_autofree char *long_text = NULL;
  g_autoptr(GString) text = g_string_new (NULL);

  g_assert_cmpstr (short_text, ==, "short");
  g_assert_cmpstr (null_text, ==, "(null)");

  /* 79 bytes and an "é" that straddles byte 80. */
  for (guint i = 0; i < 79; i++)
    g_string_append_c (text, 'x');
  g_string_append (text, "é and more");
  long_text = lumo_utf8_excerpt (text->str, 80);
  g_assert_true (g_utf8_validate (long_text, -1, NULL));
  g_assert_cmpuint (strlen (long_text), <=, 80);
  g_assert_true (g_str_has_suffix (long_text, "…"));
}

/* The origin Chrome passes is quoted in the refusal; an "é" that a byte
 * count would split must not make the message invalid UTF-8 (D-Bus would
 * refuse to send it, and GLib logs a critical). */
static void
test_origin_message_is_utf8 (void)
{
  g_autoptr(GString) origin = g_string_new ("chrome-extension://");
  g_autoptr(GError) error = NULL;

  while (origin->len < 79)
    g_string_append_c (origin, 'a');
  g_string_append (origin, "é/");

  g_assert_null (lumo_extension_id_from_origin (origin->str, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ID);
  g_assert_true (g_utf8_validate (error->message, -1, NULL));
  g_clear_error (&error);

  /* And an ID of 63 letters and an "é". */
  g_string_assign (origin, "");
  while (origin->len < 63)
    g_string_append_c (origin, 'a');
  g_string_append (origin, "é");
  g_assert_false (lumo_validate_extension_id (origin->str, "caller ID", &error));
  g_assert_true (g_utf8_validate (error->message, -1, NULL));
}

static void
test_json_message_is_utf8 (void)
{
  g_autoptr(GString) json = g_string_new ("{\"");
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) name = g_string_new (NULL);

  while (name->len < 63)
    g_string_append_c (name, 'k');
  g_string_append (name, "é");
  g_string_append_printf (json, "%s\":1,\"%s\":2}", name->str, name->str);

  g_assert_null (lumo_json_parse (json->str, json->len, 16, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT);
  g_assert_true (g_utf8_validate (error->message, -1, NULL));
}

static void
test_clean_name (void)
{
  const struct {
    const char *in;
    const char *out;   /* NULL: nothing visible left */
  } cases[] = {
    { "Helpful Agent", "Helpful Agent" },
    { "Evil\nAgent", "Evil Agent" },
    { "Evil\r\n\tAgent", "Evil Agent" },
    { "  padded  ", "padded" },
    /* Bidi overrides, isolates and marks go, so a name cannot reverse
     * what follows it in a row or a notification. */
    { "abc\xe2\x80\xae" "cod.exe", "abccod.exe" },
    { "\xe2\x81\xa6" "x" "\xe2\x81\xa9", "x" },
    { "a\xe2\x80\x8e" "b\xe2\x80\x8f" "c\xd8\x9c" "d", "abcd" },
    /* C0, DEL, C1; NEL and the separators are line breaks. */
    { "a\x01" "b\x7f" "c\xc2\x9f" "d", "abcd" },
    { "a\xc2\x85" "b\xe2\x80\xa8" "c\xe2\x80\xa9" "d", "a b c d" },
    { "\n\x01\xe2\x80\xae ", NULL },
    { "", NULL },
    /* Invalid UTF-8 is repaired. */
    { "a\xff" "b", "a\xef\xbf\xbd" "b" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *clean = lumo_clean_display_name (cases[i].in, 128);

      g_assert_cmpstr (clean, ==, cases[i].out);
    }

  g_assert_null (lumo_clean_display_name (NULL, 128));

  /* Cut to the bound on a character boundary, and no space left dangling. */
  {
    g_autoptr(GString) name = g_string_new (NULL);
    g_autofree char *clean = NULL;

    while (name->len < 127)
      g_string_append_c (name, 'a');
    g_string_append (name, "é");
    clean = lumo_clean_display_name (name->str, 128);
    g_assert_cmpuint (strlen (clean), ==, 127);
    g_assert_true (g_utf8_validate (clean, -1, NULL));

    g_string_assign (name, "");
    while (name->len < 9)
      g_string_append_c (name, 'a');
    g_string_append (name, " b");
    g_clear_pointer (&clean, g_free);
    clean = lumo_clean_display_name (name->str, 10);
    g_assert_cmpstr (clean, ==, "aaaaaaaaa");
  }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/text/cut", test_cut);
  g_test_add_func ("/text/excerpt", test_excerpt);
  g_test_add_func ("/text/origin-message-is-utf8", test_origin_message_is_utf8);
  g_test_add_func ("/text/json-message-is-utf8", test_json_message_is_utf8);
  g_test_add_func ("/text/clean-name", test_clean_name);

  return g_test_run ();
}
