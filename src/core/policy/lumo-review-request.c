/* lumo-review-request.c — one write held for review (lumo-review-queue.h)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-review-queue"

#include "config.h"

#include <string.h>

#include "lumo-canonical-json.h"
#include "lumo-error.h"
#include "lumo-json.h"
#include "lumo-review-request-private.h"

/* A preview is a summary (uuid, name, sizes, hashes, diff counts); anything
 * this large is not one. */
#define MAX_PREVIEW_BYTES (64 * 1024)

G_DEFINE_FINAL_TYPE (LumoReviewRequest, lumo_review_request, G_TYPE_OBJECT)

enum {
  REQ_PROP_0,
  REQ_PROP_ID,
  REQ_PROP_PROVIDER_ID,
  REQ_PROP_CALLER_ID,
  REQ_PROP_CALLER_NAME,
  REQ_PROP_TOOL,
  REQ_PROP_TARGET,
  REQ_PROP_PREVIEW,
  REQ_PROP_SUBMITTED,
  REQ_PROP_DEADLINE,
  REQ_N_PROPS
};

static GParamSpec *req_properties[REQ_N_PROPS];

static void
lumo_review_request_finalize (GObject *object)
{
  LumoReviewRequest *self = (LumoReviewRequest *) object;

  g_assert (self->task == NULL);
  g_assert (self->cancelled_id == 0);

  g_free (self->id);
  g_free (self->provider_id);
  g_free (self->caller_id);
  g_free (self->caller_name);
  g_free (self->tool);
  g_free (self->target);
  g_free (self->preview);
  g_clear_object (&self->cancellable);

  G_OBJECT_CLASS (lumo_review_request_parent_class)->finalize (object);
}

static void
lumo_review_request_get_property (GObject    *object,
                                  guint       prop_id,
                                  GValue     *value,
                                  GParamSpec *pspec)
{
  LumoReviewRequest *self = LUMO_REVIEW_REQUEST (object);

  switch (prop_id)
    {
    case REQ_PROP_ID:          g_value_set_string (value, self->id); break;
    case REQ_PROP_PROVIDER_ID: g_value_set_string (value, self->provider_id); break;
    case REQ_PROP_CALLER_ID:   g_value_set_string (value, self->caller_id); break;
    case REQ_PROP_CALLER_NAME: g_value_set_string (value, self->caller_name); break;
    case REQ_PROP_TOOL:        g_value_set_string (value, self->tool); break;
    case REQ_PROP_TARGET:      g_value_set_string (value, self->target); break;
    case REQ_PROP_PREVIEW:     g_value_set_string (value, self->preview); break;
    case REQ_PROP_SUBMITTED:   g_value_set_int64 (value, self->submitted); break;
    case REQ_PROP_DEADLINE:    g_value_set_int64 (value, self->deadline); break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
lumo_review_request_class_init (LumoReviewRequestClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->finalize = lumo_review_request_finalize;
  object_class->get_property = lumo_review_request_get_property;

  req_properties[REQ_PROP_ID] = g_param_spec_string ("id", NULL, NULL, NULL, flags);
  req_properties[REQ_PROP_PROVIDER_ID] = g_param_spec_string ("provider-id", NULL, NULL, NULL, flags);
  req_properties[REQ_PROP_CALLER_ID] = g_param_spec_string ("caller-id", NULL, NULL, NULL, flags);
  req_properties[REQ_PROP_CALLER_NAME] = g_param_spec_string ("caller-name", NULL, NULL, NULL, flags);
  req_properties[REQ_PROP_TOOL] = g_param_spec_string ("tool", NULL, NULL, NULL, flags);
  req_properties[REQ_PROP_TARGET] = g_param_spec_string ("target", NULL, NULL, NULL, flags);
  req_properties[REQ_PROP_PREVIEW] = g_param_spec_string ("preview", NULL, NULL, NULL, flags);
  req_properties[REQ_PROP_SUBMITTED] =
    g_param_spec_int64 ("submitted", NULL, NULL, G_MININT64, G_MAXINT64, 0, flags);
  req_properties[REQ_PROP_DEADLINE] =
    g_param_spec_int64 ("deadline", NULL, NULL, G_MININT64, G_MAXINT64, 0, flags);

  g_object_class_install_properties (object_class, REQ_N_PROPS, req_properties);
}

static void
lumo_review_request_init (LumoReviewRequest *self)
{
}

#define REQUEST_GETTER(field) \
  const char * \
  lumo_review_request_get_##field (LumoReviewRequest *self) \
  { \
    g_return_val_if_fail (LUMO_IS_REVIEW_REQUEST (self), NULL); \
    return self->field; \
  }

REQUEST_GETTER (id)
REQUEST_GETTER (provider_id)
REQUEST_GETTER (caller_id)
REQUEST_GETTER (caller_name)
REQUEST_GETTER (tool)
REQUEST_GETTER (target)
REQUEST_GETTER (preview)

gint64
lumo_review_request_get_submitted (LumoReviewRequest *self)
{
  g_return_val_if_fail (LUMO_IS_REVIEW_REQUEST (self), 0);

  return self->submitted;
}

gint64
lumo_review_request_get_deadline (LumoReviewRequest *self)
{
  g_return_val_if_fail (LUMO_IS_REVIEW_REQUEST (self), 0);

  return self->deadline;
}

static gboolean
check_field (const char  *value,
             const char  *name,
             gboolean     required,
             GError     **error)
{
  if (value == NULL)
    {
      if (required)
        g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                     "A review needs a %s", name);
      return !required;
    }

  if (!g_utf8_validate (value, -1, NULL))
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                   "The %s of a review is not valid UTF-8", name);
      return FALSE;
    }

  if (required && value[0] == '\0')
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                   "The %s of a review is empty", name);
      return FALSE;
    }

  return TRUE;
}

static char *
normalize_preview (const char  *preview_json,
                   GError     **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autoptr(JsonNode) node = NULL;
  gsize len;

  if (preview_json == NULL)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT, "A review needs a preview");
      return NULL;
    }

  len = strlen (preview_json);
  if (len > MAX_PREVIEW_BYTES)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_LIMIT_EXCEEDED,
                   "The review preview is %" G_GSIZE_FORMAT " bytes; at most %d are allowed "
                   "(a preview is a summary, not the content)",
                   len, MAX_PREVIEW_BYTES);
      return NULL;
    }

  node = lumo_json_parse (preview_json, len, 32, &local_error);
  if (node == NULL)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                   "The review preview is not valid JSON: %s", local_error->message);
      return NULL;
    }

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                   "The review preview must be a JSON object");
      return NULL;
    }

  return lumo_canonical_json (node, error);
}

LumoReviewRequest *
_lumo_review_request_new (const char  *provider_id,
                          const char  *caller_id,
                          const char  *caller_name,
                          const char  *tool,
                          const char  *target,
                          const char  *preview_json,
                          gint64       submitted,
                          gint64       deadline,
                          GError     **error)
{
  g_autofree char *preview = NULL;
  LumoReviewRequest *self;

  if (!check_field (provider_id, "provider ID", TRUE, error) ||
      !check_field (caller_id, "caller ID", TRUE, error) ||
      !check_field (caller_name, "caller name", FALSE, error) ||
      !check_field (tool, "tool name", TRUE, error) ||
      !check_field (target, "target", FALSE, error) ||
      !(preview = normalize_preview (preview_json, error)))
    return NULL;

  self = g_object_new (LUMO_TYPE_REVIEW_REQUEST, NULL);
  self->id = g_uuid_string_random ();
  self->provider_id = g_strdup (provider_id);
  self->caller_id = g_strdup (caller_id);
  self->caller_name = g_strdup (caller_name);
  self->tool = g_strdup (tool);
  self->target = g_strdup (target);
  self->preview = g_steal_pointer (&preview);
  self->submitted = submitted;
  self->deadline = deadline;

  return self;
}
