/* lumo-protocol.h — the fixed names, limits and validation rules of the protocol
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * This file owns every rule of the extension protocol that is a pure
 * function of its input: the channel and port names, the probe version, the
 * extension ID test (/^[a-p]{32}$/, the one ID test every input path goes
 * through), tool-name and namespace rules, and the validation of a
 * provider's tool catalogue. Nothing here keeps state; LumoToolRegistry
 * holds the names that are in use.
 */
#pragma once

#include <glib-object.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define LUMO_PROBE_CHANNEL            "lumo:probe"
#define LUMO_MCP_PORT_NAME            "lumo:mcp"
#define LUMO_PROBE_VERSION            1
#define LUMO_PROBE_TIMEOUT_MS         1500

#define LUMO_EXTENSION_ID_LEN         32
#define LUMO_EXTENSION_ORIGIN_PREFIX  "chrome-extension://"

/* Do not loosen: the qualified name must stay under the 64-character
 * function-name limit of model APIs. */
#define LUMO_MAX_TOOLS                64
#define LUMO_MAX_NAMESPACE_LEN        16
#define LUMO_MAX_TOOL_NAME_LEN        40
#define LUMO_MAX_QUALIFIED_NAME_LEN   57
#define LUMO_TOOL_NAME_SEPARATOR      "."

/* The protocol's write limit per caller: a sliding window, not buckets. */
#define LUMO_RATE_LIMIT_WRITES        30
#define LUMO_RATE_LIMIT_WINDOW_US     (60 * G_USEC_PER_SEC)

/* ---- extension IDs ------------------------------------------------------ */

gboolean  lumo_is_extension_id           (const char  *s);
/* For length-delimited input: a NUL inside @len bytes is refused. */
gboolean  lumo_is_extension_id_len       (const char  *s,
                                          gsize        len);
/* Like lumo_is_extension_id(), but says what is wrong (LUMO_ERROR_INVALID_ID).
 * @what names the field in the message, e.g. "caller ID". */
gboolean  lumo_validate_extension_id     (const char  *s,
                                          const char  *what,
                                          GError     **error);
/* "chrome-extension://ID/" exactly (trailing slash, nothing after) → ID. */
char     *lumo_extension_id_from_origin  (const char  *origin,
                                          GError     **error);
/* ID → "chrome-extension://ID/"; NULL if @id is not an extension ID. */
char     *lumo_extension_origin_from_id  (const char  *id);

/* ---- caller keys -------------------------------------------------------- */

/* One caller of one provider as one string, "provider/caller": the key of
 * the policy's tables, the rate limiter and the UI's selections. Both
 * halves are extension IDs (a–p only), so the '/' is never ambiguous.
 * LUMO_CALLER_KEY_SIZE counts the NUL. */
#define LUMO_CALLER_KEY_SIZE          (LUMO_EXTENSION_ID_LEN + 1 + LUMO_EXTENSION_ID_LEN + 1)

/* Writes the key of two extension IDs to @key, without an allocation. */
void      lumo_caller_key_fill           (char         key[LUMO_CALLER_KEY_SIZE],
                                          const char  *provider_id,
                                          const char  *caller_id);
/* The same key, newly allocated. */
char     *lumo_caller_key_new            (const char  *provider_id,
                                          const char  *caller_id);
/* The two IDs of @key, each NUL-terminated. FALSE, and nothing written,
 * for anything but two extension IDs joined by one '/'. */
gboolean  lumo_caller_key_split          (const char  *key,
                                          char         provider_id[LUMO_EXTENSION_ID_LEN + 1],
                                          char         caller_id[LUMO_EXTENSION_ID_LEN + 1]);

/* ---- names -------------------------------------------------------------- */

/* A name from outside (a caller's name and version, a service name, a tool
 * title, a recommended server's name) as display text, the same rule as
 * the provider's cleanName(): line breaks and other white space become one
 * space, control characters (C0, C1, DEL), the line and paragraph
 * separators and the bidi controls (U+061C, U+200E/F, U+202A–E, U+2066–9)
 * are removed, the ends trimmed, and the rest cut to @max_bytes on a
 * character boundary. Invalid UTF-8 is repaired first. NULL when @name is
 * NULL or nothing visible is left. The bridge applies it once, where a
 * message is parsed, so no name with a newline or a bidi override reaches
 * the policy, the audit log, a review row or a notification. */
char     *lumo_clean_display_name        (const char  *name,
                                          gsize        max_bytes);

/* NULL-terminated: browser, page, file, network, devtools, webmcp, ext. */
const char * const *lumo_reserved_namespaces (void);
gboolean  lumo_is_reserved_namespace     (const char  *ns);
/* ^[a-z][a-z0-9_-]*$, ≤ 16 characters, not reserved. */
gboolean  lumo_validate_namespace        (const char  *ns,
                                          GError     **error);
/* ^[a-zA-Z0-9_-]+$, ≤ 40 characters. */
gboolean  lumo_validate_tool_name        (const char  *name,
                                          GError     **error);
/* Validates both parts and the combined length (≤ 57) and returns
 * "namespace.name". */
char     *lumo_qualified_tool_name       (const char  *ns,
                                          const char  *name,
                                          GError     **error);
/* The reverse check: @qualified is "namespace.name" exactly as
 * lumo_qualified_tool_name() makes it (one separator, both parts valid,
 * ≤ 57 in all). For names that come back from a person or a file, e.g. the
 * tool of a review grant. LUMO_ERROR_INVALID_NAME, whatever is wrong. */
gboolean  lumo_validate_qualified_tool_name (const char  *qualified,
                                             GError     **error);

/* ---- tool catalogues ---------------------------------------------------- */

/* One accepted tool of a catalogue. @descriptor is the provider's own
 * object (input schema etc.), kept as sent. */
typedef struct
{
  char       *name;
  char       *qualified_name;
  char       *title;            /* NULL if absent */
  char       *description;      /* NULL if absent */
  gboolean    write;
  JsonObject *descriptor;
} LumoToolInfo;

/* One refused entry of a catalogue: its position, its name if it had a
 * string name, a LumoError code and a precise, human-readable reason. */
typedef struct
{
  guint       index;
  char       *name;             /* NULL if the entry had no string name */
  int         code;             /* LumoError */
  char       *reason;
} LumoToolRefusal;

/* A validated catalogue: the first LUMO_MAX_TOOLS valid tools in order,
 * and a refusal for every other entry. */
typedef struct
{
  char      *namespace_;
  GPtrArray *tools;             /* LumoToolInfo */
  GPtrArray *refusals;          /* LumoToolRefusal */
} LumoCatalogue;

#define LUMO_TYPE_TOOL_INFO (lumo_tool_info_get_type ())
#define LUMO_TYPE_CATALOGUE (lumo_catalogue_get_type ())

GType          lumo_tool_info_get_type   (void) G_GNUC_CONST;
LumoToolInfo  *lumo_tool_info_copy       (const LumoToolInfo *info);
void           lumo_tool_info_free       (LumoToolInfo       *info);
void           lumo_tool_refusal_free    (LumoToolRefusal    *refusal);

GType          lumo_catalogue_get_type   (void) G_GNUC_CONST;
/* Fails (and returns NULL) only when @ns itself is invalid; bad entries
 * become refusals. */
LumoCatalogue *lumo_catalogue_validate   (const char         *ns,
                                          JsonArray          *tools,
                                          GError            **error);
LumoCatalogue *lumo_catalogue_copy       (const LumoCatalogue *catalogue);
void           lumo_catalogue_free       (LumoCatalogue      *catalogue);
const LumoToolInfo *lumo_catalogue_find  (const LumoCatalogue *catalogue,
                                          const char         *name);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (LumoToolInfo, lumo_tool_info_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (LumoToolRefusal, lumo_tool_refusal_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (LumoCatalogue, lumo_catalogue_free)

G_END_DECLS
