/* lumo-gateway-http-rules.c — the header checks of lumo-gateway-http-rules.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-gateway-http"

#include "config.h"

#include <string.h>

#include "lumo-error.h"
#include "lumo-gateway-http-rules.h"
#include "lumo-mcp.h"

/* The names a loopback client uses for the endpoint. Only these: a Host
 * of any other name is what a DNS-rebound page sends. */
static const char * const loopback_names[] = { "127.0.0.1", "localhost", "[::1]" };

/* "NAME[:PORT]" (the whole of @authority, @len bytes) names the endpoint
 * on @port. The port is compared as the endpoint writes it, so "08137"
 * or "+8137" is not 8137. */
static gboolean
is_loopback_authority (const char *authority,
                       gsize       len,
                       guint       port)
{
  char port_text[16];
  gsize port_len = (gsize) g_snprintf (port_text, sizeof port_text, "%u", port);

  for (guint i = 0; i < G_N_ELEMENTS (loopback_names); i++)
    {
      gsize name_len = strlen (loopback_names[i]);

      if (len < name_len || g_ascii_strncasecmp (authority, loopback_names[i], name_len) != 0)
        continue;

      if (len == name_len)
        return port == 80;

      if (authority[name_len] == ':' && len - name_len - 1 == port_len &&
          memcmp (authority + name_len + 1, port_text, port_len) == 0)
        return TRUE;
    }

  return FALSE;
}

gboolean
lumo_gateway_http_check_host (const char  *host,
                              guint        port,
                              GError     **error)
{
  if (host == NULL || *host == '\0')
    {
      g_set_error_literal (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                           "Host: the request has no Host header");
      return FALSE;
    }

  if (!is_loopback_authority (host, strlen (host), port))
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                   "Host: the endpoint answers only to 127.0.0.1:%u, localhost:%u or [::1]:%u",
                   port, port, port);
      return FALSE;
    }

  return TRUE;
}

gboolean
lumo_gateway_http_check_origin (const char  *origin,
                                guint        port,
                                GError     **error)
{
  static const char scheme[] = "http://";

  if (origin == NULL)
    return TRUE;

  if (g_ascii_strncasecmp (origin, scheme, strlen (scheme)) != 0 ||
      !is_loopback_authority (origin + strlen (scheme), strlen (origin) - strlen (scheme), port))
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                   "Origin: requests from web pages are refused; only http://127.0.0.1:%u, "
                   "http://localhost:%u and http://[::1]:%u may call the endpoint",
                   port, port, port);
      return FALSE;
    }

  return TRUE;
}

static gboolean
is_b64token_char (char c)
{
  return g_ascii_isalnum (c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/';
}

char *
lumo_gateway_http_parse_bearer (const char  *authorization,
                                GError     **error)
{
  static const char scheme[] = "Bearer";
  const char *token;
  gsize len;
  gsize i;

  if (authorization == NULL)
    {
      g_set_error_literal (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                           "Authorization: the request has no token; send "
                           "\"Authorization: Bearer <token>\"");
      return NULL;
    }

  if (g_ascii_strncasecmp (authorization, scheme, strlen (scheme)) != 0 ||
      (authorization[strlen (scheme)] != ' ' && authorization[strlen (scheme)] != '\0'))
    {
      g_set_error_literal (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                           "Authorization: only the Bearer scheme is accepted");
      return NULL;
    }

  token = authorization + strlen (scheme);
  while (*token == ' ')
    token++;
  len = strlen (token);

  /* b64token: 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=" */
  for (i = 0; i < len && is_b64token_char (token[i]); i++)
    ;
  if (i == 0)
    {
      g_set_error_literal (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                           "Authorization: the bearer token is empty or malformed");
      return NULL;
    }
  while (i < len && token[i] == '=')
    i++;
  if (i != len || len > LUMO_GATEWAY_HTTP_MAX_TOKEN)
    {
      g_set_error_literal (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                           "Authorization: the bearer token is malformed");
      return NULL;
    }

  return g_strndup (token, len);
}

/* The q of a media range's parameters ("; q=0.5; …"); 1 when none. A
 * malformed q counts as 0: the range is not taken. */
static double
parse_quality (char **params)
{
  for (guint i = 0; params[i] != NULL; i++)
    {
      g_autofree char *param = g_strstrip (g_strdup (params[i]));
      const char *value;
      double q;
      char *end = NULL;

      if (g_ascii_strncasecmp (param, "q=", 2) != 0)
        continue;

      value = param + 2;
      /* qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] ) */
      if ((value[0] != '0' && value[0] != '1') || strlen (value) > 5)
        return 0;
      q = g_ascii_strtod (value, &end);
      if (end == NULL || *end != '\0' || q < 0 || q > 1)
        return 0;
      return q;
    }

  return 1;
}

gboolean
lumo_gateway_http_accepts (const char *accept,
                           const char *media_type)
{
  g_auto(GStrv) ranges = NULL;
  const char *slash;
  double best_q = 0;
  int best_rank = 0;   /* 3 exact, 2 type wildcard, 1 full wildcard */

  g_return_val_if_fail (media_type != NULL && strchr (media_type, '/') != NULL, FALSE);

  if (accept == NULL)
    return FALSE;

  slash = strchr (media_type, '/');
  ranges = g_strsplit (accept, ",", -1);

  for (guint i = 0; ranges[i] != NULL; i++)
    {
      g_auto(GStrv) parts = g_strsplit (ranges[i], ";", -1);
      g_autofree char *range = g_strstrip (g_strdup (parts[0] != NULL ? parts[0] : ""));
      int rank = 0;

      if (g_ascii_strcasecmp (range, media_type) == 0)
        rank = 3;
      else if (strlen (range) == (gsize) (slash - media_type) + 2 &&
               g_ascii_strncasecmp (range, media_type, slash - media_type + 1) == 0 &&
               range[slash - media_type + 1] == '*')
        rank = 2;
      else if (strcmp (range, "*/*") == 0)
        rank = 1;

      if (rank > best_rank)
        {
          best_rank = rank;
          best_q = parts[0] != NULL ? parse_quality (parts + 1) : 0;
        }
    }

  return best_rank > 0 && best_q > 0;
}

gboolean
lumo_gateway_http_is_json (const char *content_type)
{
  static const char json[] = "application/json";
  gsize len;

  if (content_type == NULL)
    return FALSE;

  while (*content_type == ' ' || *content_type == '\t')
    content_type++;
  len = strlen (json);

  if (g_ascii_strncasecmp (content_type, json, len) != 0)
    return FALSE;

  content_type += len;
  while (*content_type == ' ' || *content_type == '\t')
    content_type++;

  return *content_type == '\0' || *content_type == ';';
}

gboolean
lumo_gateway_http_check_protocol_version (const char  *header,
                                          GError     **error)
{
  if (header == NULL)
    return TRUE;

  if (!lumo_mcp_is_supported_version (header))
    {
      g_autofree char *known = g_strjoinv (", ", (char **) lumo_mcp_supported_versions ());

      /* The value is not repeated: it may be anything the client sent. */
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                   "MCP-Protocol-Version: not a version this endpoint speaks (%s)", known);
      return FALSE;
    }

  return TRUE;
}

char *
lumo_gateway_http_path_namespace (const char *path)
{
  static const char prefix[] = "/mcp/";
  const char *name;

  if (path == NULL || !g_str_has_prefix (path, prefix))
    return NULL;

  name = path + strlen (prefix);
  if (*name == '\0' || strchr (name, '/') != NULL)
    return NULL;

  return g_strdup (name);
}
