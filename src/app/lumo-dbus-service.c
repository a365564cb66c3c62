/* lumo-dbus-service.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-dbus-service"

#include "config.h"

#include <gio/gunixfdlist.h>
#include <gio/gunixinputstream.h>
#include <gio/gunixoutputstream.h>
#include <glib-unix.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <unistd.h>

#include "lumo-backend.h"
#include "lumo-bridge-message.h"
#include "lumo-dbus-generated.h"
#include "lumo-dbus-service.h"
#include "lumo-error.h"
#include "lumo-frame.h"
#include "lumo-gateway-stdio.h"
#include "lumo-gateway-verdict.h"
#include "lumo-peer.h"
#include "lumo-protocol.h"
#include "lumo-review-queue.h"

/* One Attach call in flight: the invocation is answered when the session
 * ends. Reference-counted (GRcBox): the service's array holds one reference
 * and the backend operation in flight another, so a session that ends after
 * the service is gone finds its call detached (self NULL) instead of freed. */
typedef struct
{
  LumoDBusService       *self;      /* unowned; NULL once the call is detached */
  GDBusMethodInvocation *invocation;
  char                  *provider_id;
  GCancellable          *cancellable;
} AttachCall;

struct _LumoDBusService
{
  GObject              parent_instance;

  LumoBackendGetter    getter;
  gpointer             getter_data;

  LumoDBusBridge      *skeleton;
  GPtrArray           *calls;        /* AttachCall, one reference each */

  /* Who may call: the /proc to read peers in (NULL: /proc), and this
   * process as seen there. */
  char                *proc_root;
  LumoPeer            *app_peer;

  LumoGateway         *gateway;      /* NULL until the app set it */
};

G_DEFINE_FINAL_TYPE (LumoDBusService, lumo_dbus_service, G_TYPE_OBJECT)

enum {
  SESSION_STARTED,
  SESSION_ENDED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static const GDBusErrorEntry lumo_dbus_error_entries[] = {
  { LUMO_ERROR_INVALID_ID, "dev.lumo.Access.Error.InvalidId" },
  { LUMO_ERROR_INVALID_ARGUMENT, "dev.lumo.Access.Error.InvalidArgument" },
  { LUMO_ERROR_NOT_FOUND, "dev.lumo.Access.Error.NotFound" },
  { LUMO_ERROR_UNAVAILABLE, "dev.lumo.Access.Error.Unavailable" },
  { LUMO_ERROR_PROTOCOL, "dev.lumo.Access.Error.Protocol" },
  { LUMO_ERROR_NOT_AUTHORIZED, "dev.lumo.Access.Error.NotAuthorized" },
  { LUMO_ERROR_LIMIT_EXCEEDED, "dev.lumo.Access.Error.LimitExceeded" },
};

static void
register_dbus_errors (void)
{
  static gsize registered;

  /* g_dbus_error_register_error_domain() would mint a quark of its own;
   * registering code by code keeps LUMO_ERROR the domain on both ends. */
  if (g_once_init_enter (&registered))
    {
      for (guint i = 0; i < G_N_ELEMENTS (lumo_dbus_error_entries); i++)
        g_dbus_error_register_error (LUMO_ERROR,
                                     lumo_dbus_error_entries[i].error_code,
                                     lumo_dbus_error_entries[i].dbus_error_name);
      g_once_init_leave (&registered, 1);
    }
}

static void
attach_call_clear (AttachCall *call)
{
  g_clear_object (&call->invocation);
  g_clear_object (&call->cancellable);
  g_clear_pointer (&call->provider_id, g_free);
}

static void
attach_call_unref (AttachCall *call)
{
  g_rc_box_release_full (call, (GDestroyNotify) attach_call_clear);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AttachCall, attach_call_unref)

/* Answers the helper (unless that was done already), ends the backend's
 * session if it still runs, and cuts the call loose from the service; the
 * caller drops the array's reference. */
static void
detach_call (AttachCall *call,
             const char *reason)
{
  if (call->invocation != NULL)
    g_dbus_method_invocation_return_value (g_steal_pointer (&call->invocation),
                                           g_variant_new ("(s)", reason));
  g_cancellable_cancel (call->cancellable);
  call->self = NULL;
}

static void
update_sessions_property (LumoDBusService *self)
{
  lumo_dbus_bridge_set_sessions (self->skeleton, self->calls->len);
}

static void
end_call (AttachCall *call,
          const char *reason)
{
  LumoDBusService *self = call->self;
  g_autoptr(AttachCall) owned = NULL;
  g_autofree char *provider_id = NULL;
  guint index;

  /* The service went away first and answered already. */
  if (self == NULL)
    return;

  g_debug ("Session of %s ended: %s", call->provider_id, reason);

  provider_id = g_strdup (call->provider_id);
  detach_call (call, reason);
  if (!g_ptr_array_find (self->calls, call, &index))
    g_assert_not_reached ();
  owned = g_ptr_array_steal_index (self->calls, index);
  update_sessions_property (self);
  g_signal_emit (self, signals[SESSION_ENDED], 0, provider_id);
}

/* Chrome reads one error frame and shows it to the provider, which is more
 * use than a pipe that just closes. Best effort: the pipe is fresh, so the
 * small frame fits even though the descriptor is non-blocking. */
static void
send_error_frame (GOutputStream *output,
                  const char    *message)
{
  g_autoptr(JsonObject) object = lumo_bridge_build_unavailable (message);
  g_autoptr(GBytes) frame = NULL;

  if ((frame = lumo_frame_encode (object, LUMO_FRAME_MAX_OUT, NULL)) != NULL)
    g_output_stream_write_all (output,
                               g_bytes_get_data (frame, NULL),
                               g_bytes_get_size (frame),
                               NULL, NULL, NULL);
}

static void
on_backend_attach_cb (GObject      *object,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  AttachCall *call = user_data;
  g_autoptr(AttachCall) owned = call;  /* the reference the operation held */
  g_autoptr(GError) error = NULL;
  g_autofree char *reason = NULL;

  reason = lumo_backend_attach_finish (LUMO_BACKEND (object), result, &error);
  if (reason == NULL)
    reason = g_strdup_printf ("error: %s", error->message);

  end_call (call, reason);
}

/* Takes the two descriptors out of the message's list, closing any others
 * the caller passed. Stealing (not dup'ing) matters: the invocation, and so
 * the message, lives as long as the session, and the list's copies would
 * keep Chrome's pipe open after the session closed its own. */
static gboolean
take_fds (GUnixFDList  *fd_list,
          GVariant     *stdin_handle,
          GVariant     *stdout_handle,
          int          *out_in_fd,
          int          *out_out_fd,
          GError      **error)
{
  gint32 in_index = g_variant_get_handle (stdin_handle);
  gint32 out_index = g_variant_get_handle (stdout_handle);
  g_autofree int *fds = NULL;
  int n_fds = 0;

  if (fd_list != NULL)
    fds = g_unix_fd_list_steal_fds (fd_list, &n_fds);

  if (in_index < 0 || in_index >= n_fds || out_index < 0 || out_index >= n_fds ||
      in_index == out_index)
    {
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS,
                   "The stdin and stdout handles (%d, %d) must name two of the %d passed "
                   "file descriptors", in_index, out_index, n_fds);
      goto fail;
    }

  /* The session runs on the main loop: a blocking read or write would
   * stall every other session and the UI. */
  if (!g_unix_set_fd_nonblocking (fds[in_index], TRUE, error) ||
      !g_unix_set_fd_nonblocking (fds[out_index], TRUE, error))
    goto fail;

  for (int i = 0; i < n_fds; i++)
    if (i != in_index && i != out_index)
      g_close (fds[i], NULL);

  *out_in_fd = fds[in_index];
  *out_out_fd = fds[out_index];
  return TRUE;

fail:
  for (int i = 0; i < n_fds; i++)
    g_close (fds[i], NULL);
  return FALSE;
}

/* The two descriptors as the session's streams; on bad handles the
 * invocation is answered (InvalidArgs) and FALSE returned. */
static gboolean
take_streams (GDBusMethodInvocation  *invocation,
              GInputStream          **input,
              GOutputStream         **output)
{
  GVariant *parameters = g_dbus_method_invocation_get_parameters (invocation);
  GUnixFDList *fd_list = g_dbus_message_get_unix_fd_list (g_dbus_method_invocation_get_message (invocation));
  g_autoptr(GVariant) stdin_handle = g_variant_get_child_value (parameters, 0);
  g_autoptr(GVariant) stdout_handle = g_variant_get_child_value (parameters, 1);
  g_autoptr(GError) error = NULL;
  int in_fd = -1;
  int out_fd = -1;

  if (!take_fds (fd_list, stdin_handle, stdout_handle, &in_fd, &out_fd, &error))
    {
      if (error->domain == G_DBUS_ERROR)
        g_dbus_method_invocation_return_gerror (invocation, error);
      else
        g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS,
                                               "%s", error->message);
      return FALSE;
    }

  *input = g_unix_input_stream_new (in_fd, TRUE);
  *output = g_unix_output_stream_new (out_fd, TRUE);
  return TRUE;
}

/* A call whose answer waits for its session's end; the service holds it
 * (and the app itself) until then. Takes @provider_id. */
static AttachCall *
start_call (LumoDBusService       *self,
            GDBusMethodInvocation *invocation,
            char                  *provider_id)
{
  AttachCall *call = g_rc_box_new0 (AttachCall);

  call->self = self;
  /* The call takes the invocation; answering it gives the reference up. */
  call->invocation = invocation;
  call->provider_id = provider_id;
  call->cancellable = g_cancellable_new ();
  g_ptr_array_add (self->calls, call);
  update_sessions_property (self);
  g_signal_emit (self, signals[SESSION_STARTED], 0, call->provider_id);

  return call;
}

static void
attach (LumoDBusService       *self,
        GDBusMethodInvocation *invocation)
{
  GVariant *parameters = g_dbus_method_invocation_get_parameters (invocation);
  const char *origin = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *provider_id = NULL;
  g_autoptr(GInputStream) input = NULL;
  g_autoptr(GOutputStream) output = NULL;
  AttachCall *call;
  LumoBackend *backend;

  g_variant_get_child (parameters, 2, "&s", &origin);

  if (!(provider_id = lumo_extension_id_from_origin (origin, &error)))
    {
      g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS,
                                             "%s", error->message);
      return;
    }

  if (!take_streams (invocation, &input, &output))
    return;

  call = start_call (self, invocation, g_steal_pointer (&provider_id));
  g_debug ("Session of %s started", call->provider_id);

  backend = self->getter (self->getter_data, &error);
  if (backend == NULL)
    {
      g_autofree char *reason = g_strdup_printf ("error: %s", error->message);

      send_error_frame (output, error->message);
      end_call (call, reason);
      return;
    }

  lumo_backend_attach_async (backend, call->provider_id, input, output,
                             call->cancellable, on_backend_attach_cb,
                             g_rc_box_acquire (call));
}

static void
on_stdio_served_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  AttachCall *call = user_data;
  g_autoptr(AttachCall) owned = call;  /* the reference the operation held */
  g_autoptr(GError) error = NULL;
  g_autofree char *reason = NULL;

  reason = lumo_gateway_stdio_serve_finish (result, &error);
  if (reason == NULL)
    reason = g_strdup_printf ("error: %s", error->message);

  end_call (call, reason);
}

/* The launcher's session. Every refusal comes before the descriptors are
 * touched, so the launcher may still answer its client itself. The token
 * goes to the gateway and nowhere else: not into a log, not into the
 * call's bookkeeping. */
static void
attach_agent (LumoDBusService       *self,
              GDBusMethodInvocation *invocation)
{
  GVariant *parameters = g_dbus_method_invocation_get_parameters (invocation);
  const char *token = NULL;
  const char *namespace_ = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(LumoAgentSession) session = NULL;
  g_autoptr(GInputStream) input = NULL;
  g_autoptr(GOutputStream) output = NULL;
  g_autofree char *agent_id = NULL;
  g_autofree char *provider_id = NULL;
  g_autofree char *message = NULL;
  LumoGatewayVerdict verdict;
  AttachCall *call;

  g_variant_get_child (parameters, 2, "&s", &token);
  g_variant_get_child (parameters, 3, "&s", &namespace_);

  if (self->gateway == NULL)
    {
      if (self->getter (self->getter_data, &error) != NULL)
        g_set_error_literal (&error, LUMO_ERROR, LUMO_ERROR_UNAVAILABLE,
                             "Lumo Access is still starting");
      g_dbus_method_invocation_return_gerror (invocation, error);
      return;
    }

  verdict = lumo_gateway_authenticate (self->gateway, token, namespace_,
                                       &agent_id, &provider_id, &message);
  if (verdict == LUMO_GATEWAY_OK)
    session = lumo_gateway_open_session (self->gateway, agent_id, provider_id, "stdio", &verdict);
  if (session == NULL)
    {
      lumo_gateway_verdict_to_error (verdict, message, &error);
      g_debug ("AttachAgent for %s refused: %s", namespace_, error->message);
      g_dbus_method_invocation_return_gerror (invocation, error);
      return;
    }

  if (!take_streams (invocation, &input, &output))
    {
      lumo_agent_session_close (session, "The launcher passed no usable pipes.");
      return;
    }

  call = start_call (self, invocation, g_steal_pointer (&provider_id));
  g_debug ("Agent %s attached over stdio to %s", agent_id, call->provider_id);

  lumo_gateway_stdio_serve_async (session, input, output, call->cancellable,
                                  on_stdio_served_cb, g_rc_box_acquire (call));
}

static gint64
monotonic_to_unix (gint64 monotonic_us,
                   gint64 monotonic_now)
{
  if (monotonic_us <= 0)
    return 0;

  return g_get_real_time () - (monotonic_now - monotonic_us);
}

static LumoReviewQueue *
get_review_queue (LumoDBusService  *self,
                  GError          **error)
{
  LumoBackend *backend = self->getter (self->getter_data, error);

  return backend != NULL ? lumo_backend_get_review_queue (backend) : NULL;
}

static void
list_reviews (LumoDBusService       *self,
              GDBusMethodInvocation *invocation)
{
  g_autoptr(GError) error = NULL;
  GVariantBuilder builder;
  LumoReviewQueue *queue;
  gint64 now;
  guint n;

  if (!(queue = get_review_queue (self, &error)))
    {
      g_dbus_method_invocation_return_gerror (invocation, error);
      return;
    }

  now = lumo_review_queue_now (queue);
  n = g_list_model_get_n_items (G_LIST_MODEL (queue));
  g_variant_builder_init (&builder, G_VARIANT_TYPE ("a(sssssssxx)"));

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(LumoReviewRequest) request = g_list_model_get_item (G_LIST_MODEL (queue), i);

#define S(x) ((x) != NULL ? (x) : "")
      g_variant_builder_add (&builder, "(sssssssxx)",
                             S (lumo_review_request_get_id (request)),
                             S (lumo_review_request_get_provider_id (request)),
                             S (lumo_review_request_get_caller_id (request)),
                             S (lumo_review_request_get_caller_name (request)),
                             S (lumo_review_request_get_tool (request)),
                             S (lumo_review_request_get_target (request)),
                             S (lumo_review_request_get_preview (request)),
                             monotonic_to_unix (lumo_review_request_get_submitted (request), now),
                             monotonic_to_unix (lumo_review_request_get_deadline (request), now));
#undef S
    }

  lumo_dbus_bridge_complete_list_reviews (self->skeleton, invocation,
                                          g_variant_builder_end (&builder));
}

/* DecideReview and ApproveReview: the backend makes the grant, if any. */
static gboolean
decide_with_grant (LumoDBusService        *self,
                   GDBusMethodInvocation  *invocation,
                   const char             *id,
                   gboolean                approve,
                   LumoGrantScope          grant)
{
  g_autoptr(GError) error = NULL;
  LumoBackend *backend;

  if (!(backend = self->getter (self->getter_data, &error)) ||
      !lumo_backend_decide_review (backend, id, approve, grant, LUMO_POLICY_ORIGIN_CLI, &error))
    {
      g_dbus_method_invocation_return_gerror (invocation, error);
      return FALSE;
    }

  return TRUE;
}

static void
decide_review (LumoDBusService       *self,
               GDBusMethodInvocation *invocation)
{
  const char *id = NULL;
  gboolean approve = FALSE;

  g_variant_get (g_dbus_method_invocation_get_parameters (invocation), "(&sb)", &id, &approve);
  if (decide_with_grant (self, invocation, id, approve, LUMO_GRANT_SCOPE_ONCE))
    lumo_dbus_bridge_complete_decide_review (self->skeleton, invocation);
}

static void
approve_review (LumoDBusService       *self,
                GDBusMethodInvocation *invocation)
{
  const char *id = NULL;
  const char *word = NULL;
  LumoGrantScope grant;

  g_variant_get (g_dbus_method_invocation_get_parameters (invocation), "(&s&s)", &id, &word);
  if (!lumo_grant_scope_from_string (word, &grant))
    {
      g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS,
                                             "“%s” is not a grant: once, 10m or always",
                                             g_utf8_validate (word, -1, NULL) ? word : "(not UTF-8)");
      return;
    }

  if (decide_with_grant (self, invocation, id, TRUE, grant))
    lumo_dbus_bridge_complete_approve_review (self->skeleton, invocation);
}

static void
list_recommended (LumoDBusService       *self,
                  GDBusMethodInvocation *invocation)
{
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) providers = NULL;
  GVariantBuilder builder;
  LumoBackend *backend;

  if (!(backend = self->getter (self->getter_data, &error)))
    {
      g_dbus_method_invocation_return_gerror (invocation, error);
      return;
    }

  g_variant_builder_init (&builder, G_VARIANT_TYPE ("a(ssssss)"));
  providers = lumo_backend_dup_recommending_providers (backend);
  for (guint i = 0; providers[i] != NULL; i++)
    {
      g_autoptr(GPtrArray) servers = lumo_backend_dup_recommended_servers (backend, providers[i]);

      for (guint j = 0; j < servers->len; j++)
        {
          const LumoRecommendedServer *server = g_ptr_array_index (servers, j);

#define S(x) ((x) != NULL ? (x) : "")
          g_variant_builder_add (&builder, "(ssssss)", providers[i], server->id, server->name,
                                 S (server->description), server->url, S (server->transport));
#undef S
        }
    }

  lumo_dbus_bridge_complete_list_recommended (self->skeleton, invocation,
                                              g_variant_builder_end (&builder));
}

/* ---- who may call ------------------------------------------------------- */

/* Each method takes the invocation (and answers it). */
typedef void (*MethodFunc) (LumoDBusService       *self,
                            GDBusMethodInvocation *invocation);

/* Which rule of core/peer a method is under. */
typedef enum
{
  RULE_DECIDE,        /* lumo_peer_may_decide() */
  RULE_ATTACH,        /* lumo_peer_may_attach(): the helper's sessions */
  RULE_ATTACH_AGENT,  /* lumo_peer_may_attach_agent(): the launcher's */
} Rule;

typedef struct
{
  LumoDBusService       *self;
  GDBusMethodInvocation *invocation;
  MethodFunc             func;
  Rule                   rule;
} CheckedCall;

static void
on_peer_looked_up_cb (GObject      *object,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  CheckedCall *checked = user_data;
  g_autoptr(LumoDBusService) self = checked->self;
  GDBusMethodInvocation *invocation = checked->invocation;
  MethodFunc func = checked->func;
  Rule rule = checked->rule;
  g_autoptr(LumoPeer) peer = NULL;
  g_autoptr(GError) error = NULL;
  gboolean allowed;

  g_free (checked);

  peer = lumo_peer_lookup_finish (result, &error);
  if (peer == NULL)
    allowed = FALSE;
  else if (rule == RULE_ATTACH)
    allowed = lumo_peer_may_attach (peer, self->app_peer, APP_ID, &error);
  else if (rule == RULE_ATTACH_AGENT)
    allowed = lumo_peer_may_attach_agent (peer, self->app_peer, APP_ID, &error);
  else
    allowed = lumo_peer_may_decide (peer, self->app_peer, APP_ID, &error);

  if (!allowed)
    {
      g_message ("%s from %s: %s", g_dbus_method_invocation_get_method_name (invocation),
                 g_dbus_method_invocation_get_sender (invocation), error->message);
      g_dbus_method_invocation_return_error_literal (invocation, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED,
                                                     error->message);
      return;
    }

  func (self, invocation);
}

/* Runs @func once the caller is known to be allowed (docs/security.md):
 * nobody but the person at the desktop decides, only the helper of this
 * installation attaches, and no other app's sandbox attaches an agent. */
static gboolean
check_then (LumoDBusService       *self,
            GDBusMethodInvocation *invocation,
            MethodFunc             func,
            Rule                   rule)
{
  CheckedCall *checked = g_new0 (CheckedCall, 1);

  checked->self = g_object_ref (self);
  /* The generated handler's reference, given on to @func. */
  checked->invocation = invocation;
  checked->func = func;
  checked->rule = rule;

  lumo_peer_lookup_async (g_dbus_method_invocation_get_connection (invocation),
                          g_dbus_method_invocation_get_sender (invocation),
                          self->proc_root, NULL, on_peer_looked_up_cb, checked);
  return G_DBUS_METHOD_INVOCATION_HANDLED;
}

static gboolean
on_handle_attach_cb (LumoDBusBridge        *skeleton,
                     GDBusMethodInvocation *invocation,
                     GUnixFDList           *fd_list,
                     GVariant              *stdin_handle,
                     GVariant              *stdout_handle,
                     const char            *origin,
                     LumoDBusService       *self)
{
  return check_then (self, invocation, attach, RULE_ATTACH);
}

static gboolean
on_handle_attach_agent_cb (LumoDBusBridge        *skeleton,
                           GDBusMethodInvocation *invocation,
                           GUnixFDList           *fd_list,
                           GVariant              *stdin_handle,
                           GVariant              *stdout_handle,
                           const char            *token,
                           const char            *namespace_,
                           LumoDBusService       *self)
{
  return check_then (self, invocation, attach_agent, RULE_ATTACH_AGENT);
}

static gboolean
on_handle_list_reviews_cb (LumoDBusBridge        *skeleton,
                           GDBusMethodInvocation *invocation,
                           LumoDBusService       *self)
{
  return check_then (self, invocation, list_reviews, RULE_DECIDE);
}

static gboolean
on_handle_list_recommended_cb (LumoDBusBridge        *skeleton,
                               GDBusMethodInvocation *invocation,
                               LumoDBusService       *self)
{
  return check_then (self, invocation, list_recommended, RULE_DECIDE);
}

static gboolean
on_handle_decide_review_cb (LumoDBusBridge        *skeleton,
                            GDBusMethodInvocation *invocation,
                            const char            *id,
                            gboolean               approve,
                            LumoDBusService       *self)
{
  return check_then (self, invocation, decide_review, RULE_DECIDE);
}

static gboolean
on_handle_approve_review_cb (LumoDBusBridge        *skeleton,
                             GDBusMethodInvocation *invocation,
                             const char            *id,
                             const char            *grant,
                             LumoDBusService       *self)
{
  return check_then (self, invocation, approve_review, RULE_DECIDE);
}

/* The /proc peers are read in; this process is looked up there too. */
void
lumo_dbus_service_set_proc_root (LumoDBusService *self,
                                 const char      *proc_root)
{
  g_return_if_fail (LUMO_IS_DBUS_SERVICE (self));

  g_free (self->proc_root);
  self->proc_root = g_strdup (proc_root);
  g_clear_pointer (&self->app_peer, lumo_peer_free);
  self->app_peer = lumo_peer_new_from_proc (proc_root, (guint32) getpid (), NULL);
}

static void
lumo_dbus_service_dispose (GObject *object)
{
  LumoDBusService *self = (LumoDBusService *)object;

  lumo_dbus_service_unexport (self);
  if (self->calls != NULL)
    lumo_dbus_service_end_all (self, "error: Lumo Access is quitting");

  G_OBJECT_CLASS (lumo_dbus_service_parent_class)->dispose (object);
}

static void
lumo_dbus_service_finalize (GObject *object)
{
  LumoDBusService *self = (LumoDBusService *)object;

  g_clear_pointer (&self->calls, g_ptr_array_unref);
  g_clear_object (&self->skeleton);
  g_clear_pointer (&self->proc_root, g_free);
  g_clear_pointer (&self->app_peer, lumo_peer_free);
  g_clear_object (&self->gateway);

  G_OBJECT_CLASS (lumo_dbus_service_parent_class)->finalize (object);
}

static void
lumo_dbus_service_class_init (LumoDBusServiceClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = lumo_dbus_service_dispose;
  object_class->finalize = lumo_dbus_service_finalize;

  /**
   * LumoDBusService::session-started:
   * @provider_id: the provider extension whose helper attached
   */
  signals[SESSION_STARTED] =
    g_signal_new ("session-started", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  /**
   * LumoDBusService::session-ended:
   * @provider_id: the provider extension whose session ended
   */
  signals[SESSION_ENDED] =
    g_signal_new ("session-ended", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  register_dbus_errors ();
}

static void
lumo_dbus_service_init (LumoDBusService *self)
{
  self->calls = g_ptr_array_new_with_free_func ((GDestroyNotify) attach_call_unref);
  self->skeleton = lumo_dbus_bridge_skeleton_new ();
  self->app_peer = lumo_peer_new_from_proc (NULL, (guint32) getpid (), NULL);

  g_signal_connect (self->skeleton, "handle-attach",
                    G_CALLBACK (on_handle_attach_cb), self);
  g_signal_connect (self->skeleton, "handle-attach-agent",
                    G_CALLBACK (on_handle_attach_agent_cb), self);
  g_signal_connect (self->skeleton, "handle-list-reviews",
                    G_CALLBACK (on_handle_list_reviews_cb), self);
  g_signal_connect (self->skeleton, "handle-decide-review",
                    G_CALLBACK (on_handle_decide_review_cb), self);
  g_signal_connect (self->skeleton, "handle-approve-review",
                    G_CALLBACK (on_handle_approve_review_cb), self);
  g_signal_connect (self->skeleton, "handle-list-recommended",
                    G_CALLBACK (on_handle_list_recommended_cb), self);
}

LumoDBusService *
lumo_dbus_service_new (LumoBackendGetter getter,
                       gpointer          user_data)
{
  LumoDBusService *self;

  g_return_val_if_fail (getter != NULL, NULL);

  self = g_object_new (LUMO_TYPE_DBUS_SERVICE, NULL);
  self->getter = getter;
  self->getter_data = user_data;

  return self;
}

gboolean
lumo_dbus_service_export (LumoDBusService  *self,
                          GDBusConnection  *connection,
                          const char       *object_path,
                          GError          **error)
{
  g_return_val_if_fail (LUMO_IS_DBUS_SERVICE (self), FALSE);
  g_return_val_if_fail (G_IS_DBUS_CONNECTION (connection), FALSE);
  g_return_val_if_fail (g_variant_is_object_path (object_path), FALSE);

  return g_dbus_interface_skeleton_export (G_DBUS_INTERFACE_SKELETON (self->skeleton),
                                           connection, object_path, error);
}

void
lumo_dbus_service_unexport (LumoDBusService *self)
{
  g_return_if_fail (LUMO_IS_DBUS_SERVICE (self));

  if (self->skeleton != NULL &&
      g_dbus_interface_skeleton_get_connection (G_DBUS_INTERFACE_SKELETON (self->skeleton)) != NULL)
    g_dbus_interface_skeleton_unexport (G_DBUS_INTERFACE_SKELETON (self->skeleton));
}

void
lumo_dbus_service_set_gateway (LumoDBusService *self,
                               LumoGateway     *gateway)
{
  g_return_if_fail (LUMO_IS_DBUS_SERVICE (self));
  g_return_if_fail (gateway == NULL || LUMO_IS_GATEWAY (gateway));

  g_set_object (&self->gateway, gateway);
}

guint
lumo_dbus_service_get_n_sessions (LumoDBusService *self)
{
  g_return_val_if_fail (LUMO_IS_DBUS_SERVICE (self), 0);

  return self->calls->len;
}

void
lumo_dbus_service_end_all (LumoDBusService *self,
                           const char      *reason)
{
  g_autoptr(GPtrArray) calls = NULL;

  g_return_if_fail (LUMO_IS_DBUS_SERVICE (self));
  g_return_if_fail (reason != NULL);

  /* Answer the helpers rather than leave them waiting for ever; the
   * backend operations still running find their calls detached. */
  calls = g_steal_pointer (&self->calls);
  self->calls = g_ptr_array_new_with_free_func ((GDestroyNotify) attach_call_unref);

  for (guint i = 0; i < calls->len; i++)
    {
      AttachCall *call = g_ptr_array_index (calls, i);
      g_autofree char *provider_id = g_strdup (call->provider_id);

      detach_call (call, reason);
      g_signal_emit (self, signals[SESSION_ENDED], 0, provider_id);
    }

  if (calls->len > 0)
    update_sessions_property (self);
}
