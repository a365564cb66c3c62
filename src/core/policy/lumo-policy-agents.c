/* lumo-policy-agents.c — desktop agents: who they are and their tokens
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A desktop agent (an MCP client such as Claude Code) is a row of the
 * agents table: a random ID of 32 letters a–p, so that it passes the one
 * ID rule and is a caller like any extension, a cleaned name, and the
 * HMAC-SHA256 of its token under agents.key (lumo-secret.h). The token
 * itself exists once, in the answer of lumo_policy_add_agent(); after
 * that only its MAC does, compared in constant time. What an agent may do
 * on a provider is its caller row there, of kind "agent", so allow-lists,
 * meters, reviews and the audit log treat it as any caller.
 */
#define G_LOG_DOMAIN "lumo-policy"

#include "config.h"

#include <string.h>

#include "lumo-error.h"
#include "lumo-policy-private.h"
#include "lumo-protocol.h"
#include "lumo-secret.h"

/* The random part of a token: 256 bits, base64url without padding. */
#define TOKEN_RANDOM_BYTES 32
#define TOKEN_RANDOM_LEN   43
#define TOKEN_ID_OFFSET    (sizeof LUMO_AGENT_TOKEN_PREFIX - 1)
#define TOKEN_SEP_OFFSET   (TOKEN_ID_OFFSET + LUMO_EXTENSION_ID_LEN)

G_STATIC_ASSERT (TOKEN_SEP_OFFSET + 1 + TOKEN_RANDOM_LEN == LUMO_AGENT_TOKEN_LEN);

/* The one call that turns a name a person typed into an agent's name:
 * the policy's cleaning of display text (issue 11's rule), within the
 * agent's byte bound. */
static char *
clean_agent_name (const char *name)
{
  G_STATIC_ASSERT (LUMO_AGENT_MAX_NAME_LEN == LUMO_POLICY_MAX_DISPLAY_LEN);

  return _lumo_policy_store_clean_text (name);
}

static GBytes *
agent_key (LumoPolicy  *self,
           GError     **error)
{
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;

  if (self->agent_key != NULL)
    return self->agent_key;

  dir = g_path_get_dirname (self->path);
  path = g_build_filename (dir, "agents.key", NULL);
  self->agent_key = lumo_secret_load_or_create (path, "agent key", error);

  return self->agent_key;
}

static void
token_mac (GBytes     *key,
           const char *token,
           guint8      out[32])
{
  lumo_secret_hmac (key, (const guint8 *) token, strlen (token), out);
}

static gboolean
is_base64url (const char *s,
              gsize       len)
{
  for (gsize i = 0; i < len; i++)
    {
      if (!(g_ascii_isalnum (s[i]) || s[i] == '-' || s[i] == '_'))
        return FALSE;
    }

  return TRUE;
}

/* The ID inside a token of the right form, or FALSE. */
static gboolean
token_agent_id (const char *token,
                char        id[LUMO_EXTENSION_ID_LEN + 1])
{
  if (token == NULL || strlen (token) != LUMO_AGENT_TOKEN_LEN ||
      !g_str_has_prefix (token, LUMO_AGENT_TOKEN_PREFIX) ||
      token[TOKEN_SEP_OFFSET] != '_' ||
      !lumo_is_extension_id_len (token + TOKEN_ID_OFFSET, LUMO_EXTENSION_ID_LEN) ||
      !is_base64url (token + TOKEN_SEP_OFFSET + 1, TOKEN_RANDOM_LEN))
    return FALSE;

  memcpy (id, token + TOKEN_ID_OFFSET, LUMO_EXTENSION_ID_LEN);
  id[LUMO_EXTENSION_ID_LEN] = '\0';
  return TRUE;
}

static char *
new_token (const char  *agent_id,
           GError     **error)
{
  guint8 random[TOKEN_RANDOM_BYTES];
  g_autofree char *b64 = NULL;
  char *token;

  if (!lumo_secret_fill_random (random, sizeof random, error))
    return NULL;
  b64 = g_base64_encode (random, sizeof random);
  explicit_bzero (random, sizeof random);

  /* base64url, no padding (RFC 4648 §5): a token is one shell word. */
  for (char *p = b64; *p != '\0'; p++)
    {
      if (*p == '+')
        *p = '-';
      else if (*p == '/')
        *p = '_';
    }
  g_assert (strlen (b64) == TOKEN_RANDOM_LEN + 1 && b64[TOKEN_RANDOM_LEN] == '=');
  b64[TOKEN_RANDOM_LEN] = '\0';

  token = g_strconcat (LUMO_AGENT_TOKEN_PREFIX, agent_id, "_", b64, NULL);
  explicit_bzero (b64, TOKEN_RANDOM_LEN);
  return token;
}

/* An ID no provider, caller or agent has: 128 random bits, a nibble per
 * letter a–p. */
static gboolean
id_in_use (sqlite3     *db,
           const char  *id,
           gboolean    *in_use,
           GError     **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;
  int rc;

  if (!(stmt = lumo_db_prepare (db,
                                "SELECT EXISTS (SELECT 1 FROM agents WHERE id = ?1) "
                                "    OR EXISTS (SELECT 1 FROM providers WHERE id = ?1) "
                                "    OR EXISTS (SELECT 1 FROM callers WHERE id = ?1)",
                                error)))
    return FALSE;
  sqlite3_bind_text (stmt, 1, id, -1, SQLITE_TRANSIENT);

  rc = sqlite3_step (stmt);
  if (rc != SQLITE_ROW)
    {
      lumo_db_set_error (error, db, rc, "Cannot look up the new agent's ID");
      return FALSE;
    }

  *in_use = sqlite3_column_int (stmt, 0) != 0;
  return TRUE;
}

static char *
new_agent_id (sqlite3  *db,
              GError  **error)
{
  for (guint attempt = 0; attempt < 8; attempt++)
    {
      guint8 random[LUMO_EXTENSION_ID_LEN / 2];
      char id[LUMO_EXTENSION_ID_LEN + 1];
      gboolean in_use = TRUE;

      if (!lumo_secret_fill_random (random, sizeof random, error))
        return NULL;
      for (guint i = 0; i < sizeof random; i++)
        {
          id[2 * i] = 'a' + (random[i] >> 4);
          id[2 * i + 1] = 'a' + (random[i] & 0xf);
        }
      id[LUMO_EXTENSION_ID_LEN] = '\0';

      if (!id_in_use (db, id, &in_use, error))
        return NULL;
      if (!in_use)
        return g_strdup (id);
    }

  g_set_error (error, LUMO_ERROR, LUMO_ERROR_SECRET,
               "Cannot make a new agent ID: every random one was in use");
  return NULL;
}

static gboolean
insert_agent (sqlite3       *db,
              const char    *id,
              const char    *name,
              const guint8   mac[32],
              GError       **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;

  if (!(stmt = lumo_db_prepare (db,
                                "INSERT INTO agents (id, name, token_mac, created) VALUES (?, ?, ?, ?)",
                                error)))
    return FALSE;
  sqlite3_bind_text (stmt, 1, id, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (stmt, 2, name, -1, SQLITE_TRANSIENT);
  sqlite3_bind_blob (stmt, 3, mac, 32, SQLITE_TRANSIENT);
  sqlite3_bind_int64 (stmt, 4, g_get_real_time ());

  return _lumo_policy_store_step_done (db, stmt, "Cannot add the desktop agent", error);
}

/* ---- store ------------------------------------------------------------------ */

static LumoAgentInfo *
agent_from_row (sqlite3_stmt *stmt)
{
  LumoAgentInfo *info = g_new0 (LumoAgentInfo, 1);

  info->id = g_strdup ((const char *) sqlite3_column_text (stmt, 0));
  info->name = g_strdup ((const char *) sqlite3_column_text (stmt, 1));
  info->created = sqlite3_column_int64 (stmt, 2);

  return info;
}

GPtrArray *
_lumo_policy_store_list_agents (sqlite3  *db,
                                GError  **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;
  g_autoptr(GPtrArray) list = NULL;
  int rc;

  if (!(stmt = lumo_db_prepare (db,
                                "SELECT id, name, created FROM agents ORDER BY name COLLATE NOCASE, id",
                                error)))
    return NULL;

  list = g_ptr_array_new_with_free_func ((GDestroyNotify) lumo_agent_info_free);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    g_ptr_array_add (list, agent_from_row (stmt));
  if (rc != SQLITE_DONE)
    {
      lumo_db_set_error (error, db, rc, "Cannot list the desktop agents");
      return NULL;
    }

  return g_steal_pointer (&list);
}

/* ---- API -------------------------------------------------------------------- */

gboolean
lumo_policy_add_agent (LumoPolicy          *self,
                       const char          *name,
                       const char * const  *provider_ids,
                       LumoPolicyOrigin     origin,
                       char               **agent_id,
                       char               **token,
                       GError             **error)
{
  g_autofree char *clean = NULL;
  g_autofree char *id = NULL;
  g_autofree char *secret = NULL;
  GBytes *key;
  guint8 mac[32];
  gboolean ok;

  g_return_val_if_fail (LUMO_IS_POLICY (self), FALSE);
  g_return_val_if_fail (_lumo_policy_origin_is_valid (origin), FALSE);
  g_return_val_if_fail (agent_id != NULL && *agent_id == NULL, FALSE);
  g_return_val_if_fail (token != NULL && *token == NULL, FALSE);

  if (!(clean = clean_agent_name (name)))
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                   "A desktop agent needs a name with something visible in it");
      return FALSE;
    }
  for (guint i = 0; provider_ids != NULL && provider_ids[i] != NULL; i++)
    if (!lumo_validate_extension_id (provider_ids[i], "provider ID", error))
      return FALSE;

  if (!(key = agent_key (self, error)))
    return FALSE;

  if (!_lumo_policy_begin (self, error))
    return FALSE;

  ok = (id = new_agent_id (self->db, error)) != NULL &&
       (secret = new_token (id, error)) != NULL;
  if (ok)
    {
      token_mac (key, secret, mac);
      ok = insert_agent (self->db, id, clean, mac, error);
      explicit_bzero (mac, sizeof mac);
    }

  for (guint i = 0; ok && provider_ids != NULL && provider_ids[i] != NULL; i++)
    {
      g_autoptr(LumoProviderInfo) provider = NULL;

      /* The agent row exists already, so the caller row's kind is agent. */
      ok = (provider = _lumo_policy_store_get_provider (self->db, provider_ids[i], error)) != NULL &&
           _lumo_policy_store_put_caller (self->db, provider_ids[i], id, LUMO_CALLER_STATE_ALLOWED,
                                          clean, error);
    }

  ok = ok && _lumo_policy_store_add_history (self->db, origin, NULL, id, "agent", NULL, clean,
                                             NULL, 0, error);
  if (!ok)
    {
      lumo_db_rollback (self->db);
      if (secret != NULL)
        explicit_bzero (secret, strlen (secret));
      return FALSE;
    }

  if (!_lumo_policy_commit (self, error))
    {
      explicit_bzero (secret, strlen (secret));
      return FALSE;
    }

  _lumo_policy_announce (self);

  *agent_id = g_steal_pointer (&id);
  *token = g_steal_pointer (&secret);
  return TRUE;
}

gboolean
lumo_policy_remove_agent (LumoPolicy        *self,
                          const char        *agent_id,
                          LumoPolicyOrigin   origin,
                          GError           **error)
{
  g_autoptr(LumoAgentInfo) agent = NULL;
  g_autofree char *snapshot = NULL;

  g_return_val_if_fail (LUMO_IS_POLICY (self), FALSE);
  g_return_val_if_fail (_lumo_policy_origin_is_valid (origin), FALSE);

  if (!lumo_validate_extension_id (agent_id, "agent ID", error))
    return FALSE;

  if (!_lumo_policy_begin (self, error))
    return FALSE;

  if (!(agent = lumo_policy_get_agent (self, agent_id, error)) ||
      !(snapshot = _lumo_policy_store_remove_agent (self->db, agent_id, error)) ||
      !_lumo_policy_store_add_history (self->db, origin, NULL, agent_id, "agent", agent->name, NULL,
                                       snapshot, 0, error))
    {
      lumo_db_rollback (self->db);
      return FALSE;
    }

  if (!_lumo_policy_commit (self, error))
    return FALSE;

  _lumo_policy_announce (self);
  return TRUE;
}

LumoAgentInfo *
lumo_policy_get_agent (LumoPolicy  *self,
                       const char  *agent_id,
                       GError     **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;
  int rc;

  g_return_val_if_fail (LUMO_IS_POLICY (self), NULL);

  if (!lumo_validate_extension_id (agent_id, "agent ID", error))
    return NULL;

  if (!(stmt = lumo_db_prepare (self->db, "SELECT id, name, created FROM agents WHERE id = ?", error)))
    return NULL;
  sqlite3_bind_text (stmt, 1, agent_id, -1, SQLITE_TRANSIENT);

  rc = sqlite3_step (stmt);
  if (rc == SQLITE_ROW)
    return agent_from_row (stmt);
  if (rc == SQLITE_DONE)
    g_set_error (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND,
                 "No desktop agent with the ID “%s” is known", agent_id);
  else
    lumo_db_set_error (error, self->db, rc, "Cannot read the desktop agent");

  return NULL;
}

GPtrArray *
lumo_policy_list_agents (LumoPolicy  *self,
                         GError     **error)
{
  g_return_val_if_fail (LUMO_IS_POLICY (self), NULL);

  return _lumo_policy_store_list_agents (self->db, error);
}

gboolean
lumo_policy_is_agent (LumoPolicy *self,
                      const char *id)
{
  g_autoptr(GError) error = NULL;

  g_return_val_if_fail (LUMO_IS_POLICY (self), FALSE);

  if (!lumo_is_extension_id (id))
    return FALSE;

  /* Fail closed: when the file cannot be read, treat the ID as an agent's,
   * which refuses it on a Chrome port rather than letting it pass. */
  if (!_lumo_policy_ensure_current (self, &error))
    {
      g_warning ("Cannot read the desktop agents: %s", error->message);
      return TRUE;
    }

  return g_hash_table_contains (self->agents, id);
}

char *
lumo_policy_authenticate_agent (LumoPolicy  *self,
                                const char  *token,
                                GError     **error)
{
  static const guint8 nobody[32] = { 0 };
  g_autoptr(sqlite3_stmt) stmt = NULL;
  char id[LUMO_EXTENSION_ID_LEN + 1];
  const guint8 *stored = nobody;
  guint8 mac[32];
  gboolean equal;
  GBytes *key;
  int rc;

  g_return_val_if_fail (LUMO_IS_POLICY (self), NULL);

  /* Never quote the token: a message may end up in a log. */
  if (token == NULL || *token == '\0')
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                   "No token was given: a desktop agent sends the token Lumo Access showed when it was added");
      return NULL;
    }
  if (!token_agent_id (token, id))
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                   "The token is not a Lumo Access agent token (“lumo_” + 32 letters + “_” + 43 characters)");
      return NULL;
    }

  if (!(key = agent_key (self, error)))
    return NULL;

  if (!(stmt = lumo_db_prepare (self->db, "SELECT token_mac FROM agents WHERE id = ?", error)))
    return NULL;
  sqlite3_bind_text (stmt, 1, id, -1, SQLITE_TRANSIENT);
  rc = sqlite3_step (stmt);
  if (rc == SQLITE_ROW && sqlite3_column_bytes (stmt, 0) == 32)
    stored = sqlite3_column_blob (stmt, 0);
  else if (rc != SQLITE_ROW && rc != SQLITE_DONE)
    {
      lumo_db_set_error (error, self->db, rc, "Cannot read the desktop agent");
      return NULL;
    }

  /* The same work for an unknown agent as for a wrong token. */
  token_mac (key, token, mac);
  equal = lumo_secret_equal (mac, stored, sizeof mac);
  explicit_bzero (mac, sizeof mac);

  if (!equal || stored == nobody)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND,
                   "The token is not the token of a desktop agent of Lumo Access "
                   "(it was removed, or the token was mistyped)");
      return NULL;
    }

  return g_strdup (id);
}
