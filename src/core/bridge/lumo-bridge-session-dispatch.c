/* lumo-bridge-session-dispatch.c — what each provider request does
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every request is checked in the protocol's order (envelope, hello first,
 * in-flight ids and the cap, the fields, then the session's state) and
 * changes nothing until all of it passed. Authorizing a write runs as a
 * chain of asynchronous steps — the policy's decision, a person's review if
 * it is on, the durable audit row — so other requests are answered
 * meanwhile; only then does the answer go out.
 */
#define G_LOG_DOMAIN "lumo-bridge-session"

#include "config.h"

#include "lumo-audit-store.h"
#include "lumo-bridge-session-private.h"
#include "lumo-error.h"
#include "lumo-policy.h"
#include "lumo-review-queue.h"
#include "lumo-tool-registry.h"

/* Stored (never sent) for a write whose review ended with its session. */
#define AUDIT_REASON_REVIEW_CANCELLED "review_cancelled"

static void expect_result (LumoBridgeSession *self,
                           gint64             audit_id);

static LumoBridgeRequest *
request_new (LumoBridgeSession *self,
             LumoBridgeMessage *message)
{
  LumoBridgeRequest *request = g_new0 (LumoBridgeRequest, 1);

  request->session = g_object_ref (self);
  request->message = message;
  request->policy = g_object_ref (lumo_backend_get_policy (self->backend));
  request->audit_store = g_object_ref (lumo_backend_get_audit_store (self->backend));
  request->retry_after_ms = -1;
  g_hash_table_insert (self->in_flight, g_strdup (message->id_key), request);
  return request;
}

/* Answers and frees @request; @answer is consumed. */
static void
request_finish (LumoBridgeRequest *request,
                JsonObject        *answer)
{
  g_autoptr(LumoBridgeSession) self = request->session;

  g_hash_table_remove (self->in_flight, request->message->id_key);
  _lumo_bridge_session_send (self, answer);
  lumo_bridge_message_free (request->message);
  g_clear_pointer (&request->tool, lumo_tool_info_free);
  g_object_unref (request->policy);
  g_object_unref (request->audit_store);
  g_free (request);

  g_object_notify (G_OBJECT (self), "in-flight");
}

static void
request_fail (LumoBridgeRequest   *request,
              LumoBridgeErrorCode  code,
              const char          *field,
              const char          *message)
{
  g_autoptr(LumoBridgeFault) fault = lumo_bridge_fault_new (code, request->message->id, field, "%s", message);

  request_finish (request, lumo_bridge_build_error (fault));
}

static void
request_internal (LumoBridgeRequest *request,
                  const char        *what,
                  const GError      *error)
{
  g_autofree char *message = g_strdup_printf ("%s: %s", what, error->message);

  g_warning ("Session of %s: %s", request->session->provider_id, message);
  request_fail (request, LUMO_BRIDGE_ERROR_INTERNAL, NULL, message);
}

/* ---- catalogues ----------------------------------------------------------- */

/* Validates @tools, lets the registry refuse names another provider holds,
 * and makes the result this session's catalogue. */
static guint
index_in_message (JsonArray  *tools,
                  const char *name)
{
  for (guint i = 0; i < json_array_get_length (tools); i++)
    {
      JsonNode *node = json_array_get_element (tools, i);
      JsonNode *member;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      member = json_object_get_member (json_node_get_object (node), "name");
      if (member != NULL && JSON_NODE_HOLDS_VALUE (member) &&
          json_node_get_value_type (member) == G_TYPE_STRING &&
          g_str_equal (json_node_get_string (member), name))
        return i;
    }

  g_assert_not_reached ();
  return 0;
}

static void
apply_catalogue (LumoBridgeSession  *self,
                 JsonArray          *tools,
                 LumoCatalogue      *catalogue,
                 GStrv              *accepted)
{
  LumoToolRegistry *registry = lumo_backend_get_tool_registry (self->backend);
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  guint before = catalogue->refusals->len;

  lumo_tool_registry_set_catalogue (registry, self->provider_id, catalogue, catalogue->refusals);

  /* The first comer keeps a name: drop what the registry refused. */
  for (guint i = before; i < catalogue->refusals->len; i++)
    {
      LumoToolRefusal *refusal = g_ptr_array_index (catalogue->refusals, i);

      for (guint j = 0; j < catalogue->tools->len; j++)
        {
          LumoToolInfo *info = g_ptr_array_index (catalogue->tools, j);

          if (refusal->name != NULL && g_str_equal (info->name, refusal->name))
            {
              /* The wire counts in the provider's own list; the first
               * entry of a name is the one that was accepted. */
              refusal->index = index_in_message (tools, info->name);
              g_ptr_array_remove_index (catalogue->tools, j);
              break;
            }
        }
    }

  for (guint i = 0; i < catalogue->tools->len; i++)
    g_strv_builder_add (builder, ((LumoToolInfo *) g_ptr_array_index (catalogue->tools, i))->name);
  *accepted = g_strv_builder_end (builder);

  g_clear_pointer (&self->catalogue, lumo_catalogue_free);
  self->catalogue = catalogue;
}

static void
handle_hello (LumoBridgeRequest *request)
{
  LumoBridgeSession *self = request->session;
  LumoBridgeMessage *m = request->message;
  LumoPolicy *policy = lumo_backend_get_policy (self->backend);
  g_autoptr(GError) error = NULL;
  g_autoptr(LumoCatalogue) catalogue = NULL;
  g_autoptr(LumoProviderInfo) info = NULL;
  g_auto(GStrv) accepted = NULL;
  JsonObject *answer;

  if (self->hello_done)
    {
      request_fail (request, LUMO_BRIDGE_ERROR_DUPLICATE_HELLO, NULL,
                    "This session has said hello already; a new catalogue goes in a tools message");
      return;
    }

  if (!(catalogue = lumo_bridge_validate_catalogue (m->namespace_, m->tools, &error)))
    {
      request_fail (request, LUMO_BRIDGE_ERROR_BAD_FIELD, "service.namespace", error->message);
      return;
    }

  if (!lumo_policy_register_provider (policy, self->provider_id, m->namespace_, m->service_name,
                                      m->service_version, &error) ||
      !(info = lumo_policy_get_provider (policy, self->provider_id, &error)))
    {
      request_internal (request, "Cannot register the provider", error);
      return;
    }

  apply_catalogue (self, m->tools, g_steal_pointer (&catalogue), &accepted);
  lumo_backend_set_recommended_servers (self->backend, self->provider_id, m->recommended_servers);
  self->namespace_ = g_strdup (m->namespace_);
  self->service_name = g_strdup (m->service_name);
  self->service_version = g_strdup (m->service_version);
  self->hello_done = TRUE;
  _lumo_bridge_session_remember_policy (self, info->enabled, info->writes, info->review);

  answer = lumo_bridge_build_hello_result (m->id, lumo_backend_get_app_version (self->backend),
                                           info->enabled, info->writes, info->review,
                                           (const char * const *) accepted, self->catalogue->refusals);
  g_object_notify (G_OBJECT (self), "namespace");
  g_object_notify (G_OBJECT (self), "service-name");
  g_object_notify (G_OBJECT (self), "hello-done");
  request_finish (request, answer);

  /* After the answer: the gateway's agentOpen for a waiting agent session
   * comes once the provider knows it said hello. */
  _lumo_backend_session_said_hello (self->backend, self);
}

static void
handle_tools (LumoBridgeRequest *request)
{
  LumoBridgeSession *self = request->session;
  g_autoptr(GError) error = NULL;
  LumoCatalogue *catalogue;
  g_auto(GStrv) accepted = NULL;

  if (!(catalogue = lumo_bridge_validate_catalogue (self->namespace_, request->message->tools, &error)))
    {
      request_internal (request, "Cannot check the catalogue", error);
      return;
    }

  apply_catalogue (self, request->message->tools, catalogue, &accepted);
  lumo_backend_set_recommended_servers (self->backend, self->provider_id,
                                        request->message->recommended_servers);
  request_finish (request,
                  lumo_bridge_build_tools_result (request->message->id,
                                                  (const char * const *) accepted,
                                                  self->catalogue->refusals));
}

/* ---- probe and port -------------------------------------------------------- */

static void
handle_probe (LumoBridgeRequest *request)
{
  LumoBridgeSession *self = request->session;
  LumoBridgeMessage *m = request->message;
  g_autoptr(GError) error = NULL;
  LumoPolicyStatus status;

  if (!lumo_policy_probe (lumo_backend_get_policy (self->backend), self->provider_id,
                          m->caller_id, m->caller_name, &status, &error))
    {
      /* A flood of new callers is refused, not an internal error. */
      if (g_error_matches (error, LUMO_ERROR, LUMO_ERROR_LIMIT_EXCEEDED))
        request_fail (request, LUMO_BRIDGE_ERROR_BUSY, "caller.id", error->message);
      else
        request_internal (request, "Cannot answer the probe", error);
      return;
    }

  /* Readiness is the policy's and ours: a provider with no usable tool
   * has nothing for a caller to connect to. */
  request_finish (request,
                  lumo_bridge_build_probe_result (m->id, status.enabled, status.authorized,
                                                  status.ready && self->catalogue->tools->len > 0,
                                                  status.pending_approval));
}

static void
handle_port (LumoBridgeRequest *request)
{
  LumoBridgeSession *self = request->session;
  LumoBridgeMessage *m = request->message;
  gboolean known = FALSE;

  for (guint i = 0; i < self->ports->len && !known; i++)
    {
      LumoBridgePort *port = g_ptr_array_index (self->ports, i);

      known = g_str_equal (port->caller_id, m->caller_id) && g_str_equal (port->port_id, m->port);
    }

  if (m->open && !known && self->ports->len >= LUMO_BRIDGE_MAX_PORTS)
    {
      request_fail (request, LUMO_BRIDGE_ERROR_BUSY, NULL, "This session has 256 ports open already");
      return;
    }

  _lumo_bridge_session_port (self, m->caller_id, m->port, m->open);
  request_finish (request, lumo_bridge_build_empty_result ("port.result", m->id));
}

/* ---- authorize ------------------------------------------------------------ */

static void
answer_decision (LumoBridgeRequest *request,
                 gint64             audit_id)
{
  request_finish (request,
                  lumo_bridge_build_authorize_result (request->message->id,
                                                      request->reason == NULL,
                                                      request->reason,
                                                      request->retry_after_ms,
                                                      audit_id, NULL));
}

static void
on_audit_appended_cb (GObject      *object,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  LumoBridgeRequest *request = user_data;
  g_autoptr(GError) error = NULL;
  gint64 id;

  id = lumo_audit_store_append_finish (LUMO_AUDIT_STORE (object), result, &error);
  if (id <= 0)
    {
      g_warning ("Cannot record a write of %s in the audit log: %s",
                 request->session->provider_id, error->message);
      /* Never a write without its row; a denial stays what it was. */
      if (request->reason == NULL)
        request->reason = "audit_failed";
      request->retry_after_ms = -1;
      answer_decision (request, 0);
      return;
    }

  if (request->reason == NULL)
    expect_result (request->session, id);
  answer_decision (request, id);
}

/* Every write attempt is a row, committed before the answer goes out. */
static void
audit_then_answer (LumoBridgeRequest *request,
                   const char        *stored_reason)
{
  LumoBridgeSession *self = request->session;
  LumoBridgeMessage *m = request->message;
  LumoAuditRecord record = {
    .provider_id = self->provider_id,
    .caller_id = m->caller_id,
    .caller_name = m->caller_name,
    .tool = request->tool->qualified_name,
    .write = TRUE,
    .target = m->target,
    .params_sha256 = m->params_hash,
    .decision = request->reason == NULL ? LUMO_AUDIT_DECISION_ALLOW : LUMO_AUDIT_DECISION_DENY,
    .reason = stored_reason != NULL ? stored_reason : request->reason,
    /* The policy's word on who the caller is, so the row can say
     * "desktop agent" after the agent is gone. */
    .caller_kind = lumo_policy_is_agent (request->policy, m->caller_id)
                   ? LUMO_AUDIT_CALLER_KIND_AGENT : LUMO_AUDIT_CALLER_KIND_EXTENSION,
    /* A person's grant, not a person, let it through; only an allowed
     * write can say so (the store refuses it on any other). */
    .by_grant = request->by_grant && request->reason == NULL,
  };

  /* Not the session's cancellable: a decision already made is recorded
   * even if the provider goes away meanwhile. */
  lumo_audit_store_append_async (request->audit_store, &record, NULL,
                                 on_audit_appended_cb, request);
}

/* What the policy says now about a write that was waiting for review: a
 * reason it would be denied for, or "review_rejected" when nothing but the
 * review itself stands in its way. A review that was cancelled with its
 * session still open (the caller revoked, the provider turned off) is
 * answered with it, and so is an approval that came after such a change. */
static const char *
reason_after_review (LumoBridgeRequest *request)
{
  LumoBridgeSession *self = request->session;
  g_autoptr(LumoProviderInfo) provider = NULL;
  g_autoptr(LumoCallerInfo) caller = NULL;

  /* Nobody hears the answer; the row says what happened. */
  if (self->closed)
    return "review_rejected";

  provider = lumo_policy_get_provider (request->policy, self->provider_id, NULL);
  caller = lumo_policy_get_caller (request->policy, self->provider_id, request->message->caller_id, NULL);

  if (provider == NULL || !provider->enabled)
    return "disabled";
  if (caller == NULL || caller->state != LUMO_CALLER_STATE_ALLOWED)
    return caller != NULL && caller->state == LUMO_CALLER_STATE_PENDING ? "pending" : "not_authorized";
  if (!provider->writes)
    return "writes_off";
  return "review_rejected";
}

static void
on_review_done_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  LumoBridgeRequest *request = user_data;
  g_autoptr(GError) error = NULL;
  LumoReviewOutcome outcome;

  outcome = lumo_review_queue_submit_finish (LUMO_REVIEW_QUEUE (object), result, &error);
  if (error != NULL)
    g_warning ("A review of %s failed: %s", request->session->provider_id, error->message);

  switch (outcome)
    {
    case LUMO_REVIEW_OUTCOME_APPROVED:
    case LUMO_REVIEW_OUTCOME_GRANTED:
      {
        /* The policy may have changed while the person looked. */
        const char *now = reason_after_review (request);

        request->reason = g_str_equal (now, "review_rejected") ? NULL : now;
        request->by_grant = outcome == LUMO_REVIEW_OUTCOME_GRANTED;
        audit_then_answer (request, NULL);
      }
      break;

    case LUMO_REVIEW_OUTCOME_TIMEOUT:
      request->reason = "review_timeout";
      audit_then_answer (request, NULL);
      break;

    case LUMO_REVIEW_OUTCOME_CANCELLED:
      request->reason = reason_after_review (request);
      audit_then_answer (request, AUDIT_REASON_REVIEW_CANCELLED);
      break;

    case LUMO_REVIEW_OUTCOME_REJECTED:
    default:
      request->reason = "review_rejected";
      audit_then_answer (request, NULL);
      break;
    }
}

/* A call on a virtual port is the call of the agent it was opened for,
 * and a desktop agent calls on nothing else: a provider can act as an
 * agent neither on a Chrome port nor on another agent's port. */
static gboolean
may_call_on (LumoBridgeSession *self,
             const char        *port_id,
             const char        *caller_id)
{
  return port_id != NULL ? _lumo_bridge_session_is_agent_port (self, port_id, caller_id)
                         : !lumo_policy_is_agent (lumo_backend_get_policy (self->backend), caller_id);
}

gboolean
_lumo_bridge_session_decide_read (LumoBridgeSession   *self,
                                  const char          *port_id,
                                  const char          *caller_id,
                                  const LumoToolInfo  *tool,
                                  const char          *target,
                                  const char         **reason,
                                  GError             **error)
{
  LumoPolicyDecision decision;

  g_return_val_if_fail (tool != NULL && !tool->write, FALSE);

  if (!may_call_on (self, port_id, caller_id))
    {
      *reason = lumo_deny_reason_to_string (LUMO_DENY_REASON_NOT_AUTHORIZED);
      return TRUE;
    }

  /* Reads have no meter, no review, no audit row: the policy's word is
   * the whole decision. */
  if (!lumo_policy_authorize (lumo_backend_get_policy (self->backend), self->provider_id, caller_id,
                              tool->qualified_name, FALSE, target, NULL, &decision, error))
    return FALSE;

  *reason = decision.allowed ? NULL : lumo_deny_reason_to_string (decision.reason);
  return TRUE;
}

static void
handle_authorize (LumoBridgeRequest *request)
{
  LumoBridgeSession *self = request->session;
  LumoBridgeMessage *m = request->message;
  g_autoptr(GError) error = NULL;
  const LumoToolInfo *tool = lumo_catalogue_find (self->catalogue, m->tool);
  LumoPolicyDecision decision;

  if (tool == NULL)
    {
      g_autofree char *why = g_strdup_printf ("The tool “%s” is not in this provider's accepted catalogue",
                                              m->tool);

      request_fail (request, LUMO_BRIDGE_ERROR_BAD_FIELD, "tool", why);
      return;
    }
  request->tool = lumo_tool_info_copy (tool);

  /* A provider cannot make a write look like a read, nor the reverse. */
  if (request->tool->write != m->write)
    {
      request_fail (request, LUMO_BRIDGE_ERROR_BAD_FIELD, "write",
                    request->tool->write ? "The tool is a write tool in the catalogue: write must be true"
                                         : "The tool is a read tool in the catalogue: write must be false");
      return;
    }

  if (!m->write)
    {
      if (!_lumo_bridge_session_decide_read (self, m->port, m->caller_id, request->tool, m->target,
                                             &request->reason, &error))
        request_internal (request, "Cannot decide", error);
      else
        answer_decision (request, 0);
      return;
    }

  if (!may_call_on (self, m->port, m->caller_id))
    {
      request->reason = lumo_deny_reason_to_string (LUMO_DENY_REASON_NOT_AUTHORIZED);
      audit_then_answer (request, NULL);
      return;
    }

  if (!lumo_policy_authorize (lumo_backend_get_policy (self->backend), self->provider_id, m->caller_id,
                              request->tool->qualified_name, m->write, m->target, m->params_hash,
                              &decision, &error))
    {
      request_internal (request, "Cannot decide", error);
      return;
    }

  if (decision.reason == LUMO_DENY_REASON_REVIEW_REQUIRED)
    {
      g_assert (m->write);
      lumo_review_queue_submit_async (lumo_backend_get_review_queue (self->backend),
                                      self->provider_id, m->caller_id, m->caller_name,
                                      request->tool->qualified_name, m->target, m->preview_json,
                                      self->cancellable, on_review_done_cb, request);
      return;
    }

  request->reason = decision.allowed ? NULL : lumo_deny_reason_to_string (decision.reason);
  request->by_grant = decision.by_grant;
  if (decision.reason == LUMO_DENY_REASON_RATE_LIMITED)
    request->retry_after_ms = (decision.retry_after_us + 999) / 1000;

  audit_then_answer (request, NULL);
}

/* ---- result --------------------------------------------------------------- */

/* The set of allowed writes that still wait for their result. */
static void
expect_result (LumoBridgeSession *self,
               gint64             audit_id)
{
  gint64 *key;

  if (g_hash_table_contains (self->allowed_audit_ids, &audit_id))
    return;

  if (g_hash_table_size (self->allowed_audit_ids) >= LUMO_BRIDGE_MAX_OPEN_RESULTS)
    g_hash_table_remove (self->allowed_audit_ids, g_queue_pop_head (&self->allowed_order));

  key = g_new (gint64, 1);
  *key = audit_id;
  g_hash_table_add (self->allowed_audit_ids, key);
  g_queue_push_tail (&self->allowed_order, key);
}

/* TRUE (and forgets it) if @audit_id was waiting for its result. */
static gboolean
take_result (LumoBridgeSession *self,
             gint64             audit_id)
{
  gpointer key = NULL;

  if (!g_hash_table_lookup_extended (self->allowed_audit_ids, &audit_id, &key, NULL))
    return FALSE;

  g_queue_remove (&self->allowed_order, key);
  g_hash_table_remove (self->allowed_audit_ids, key);
  return TRUE;
}

static void
on_result_recorded_cb (GObject      *object,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  LumoBridgeRequest *request = user_data;
  g_autoptr(GError) error = NULL;

  if (!lumo_audit_store_set_result_finish (LUMO_AUDIT_STORE (object), result, &error))
    {
      /* The provider may try again. */
      expect_result (request->session, request->message->audit_id);
      request_internal (request, "Cannot record the result", error);
      return;
    }

  request_finish (request, lumo_bridge_build_empty_result ("result.result", request->message->id));
}

static void
handle_result (LumoBridgeRequest *request)
{
  LumoBridgeSession *self = request->session;
  LumoBridgeMessage *m = request->message;

  /* Taken out now, so a second result for the same row is refused even
   * while the first is being written. */
  if (!take_result (self, m->audit_id))
    {
      request_fail (request, LUMO_BRIDGE_ERROR_UNKNOWN_AUDIT_ID, "auditId",
                    "The auditId is not an allowed write of this session that still waits for its result");
      return;
    }

  lumo_audit_store_set_result_async (request->audit_store, m->audit_id, m->ok,
                                     m->error, NULL, on_result_recorded_cb, request);
}

/* ---- dispatch ------------------------------------------------------------- */

void
_lumo_bridge_session_dispatch (LumoBridgeSession *self,
                               JsonObject        *object)
{
  g_autoptr(LumoBridgeFault) fault = NULL;
  g_autoptr(LumoBridgeMessage) message = NULL;
  g_autofree char *id_key = NULL;
  LumoBridgeMessageType type;
  LumoBridgeRequest *request;

  g_return_if_fail (LUMO_IS_BRIDGE_SESSION (self));
  g_return_if_fail (object != NULL);

  if (self->closed)
    return;

  /* The session's checks come before the fields (docs/bridge-protocol.md,
   * "Order of checks"). */
  if (lumo_bridge_message_peek_request (object, &type, &id_key))
    {
      JsonNode *id = json_object_get_member (object, "id");

      if (!self->hello_done && type != LUMO_BRIDGE_MESSAGE_HELLO)
        fault = lumo_bridge_fault_new (LUMO_BRIDGE_ERROR_HELLO_REQUIRED, id, NULL,
                                       "The first request of a session must be hello");
      else if (g_hash_table_contains (self->in_flight, id_key))
        fault = lumo_bridge_fault_new (LUMO_BRIDGE_ERROR_DUPLICATE_ID, id, "id",
                                       "A request with this id is still waiting for its answer");
      else if (g_hash_table_size (self->in_flight) >= LUMO_BRIDGE_MAX_IN_FLIGHT)
        fault = lumo_bridge_fault_new (LUMO_BRIDGE_ERROR_BUSY, id, NULL,
                                       "%d requests are waiting for their answers already",
                                       LUMO_BRIDGE_MAX_IN_FLIGHT);
      if (fault != NULL)
        {
          _lumo_bridge_session_send_fault (self, g_steal_pointer (&fault));
          return;
        }
    }
  else if (!self->hello_done && lumo_bridge_message_peek_push (object))
    {
      /* A push has no id: the answer's re is null. */
      _lumo_bridge_session_send_fault (self,
                                       lumo_bridge_fault_new (LUMO_BRIDGE_ERROR_HELLO_REQUIRED, NULL, NULL,
                                                              "A virtual port exists only after hello"));
      return;
    }

  if (!(message = lumo_bridge_message_parse (object, &fault)))
    {
      _lumo_bridge_session_send_fault (self, g_steal_pointer (&fault));
      return;
    }

  if (lumo_bridge_message_is_push (message))
    {
      _lumo_bridge_session_handle_agent_push (self, message);
      return;
    }

  if (!lumo_bridge_message_is_request (message))
    {
      _lumo_bridge_session_handle_answer (self, message);
      return;
    }

  request = request_new (self, g_steal_pointer (&message));
  g_object_notify (G_OBJECT (self), "in-flight");

  switch (request->message->type)
    {
    case LUMO_BRIDGE_MESSAGE_HELLO:
      handle_hello (request);
      break;
    case LUMO_BRIDGE_MESSAGE_PROBE:
      handle_probe (request);
      break;
    case LUMO_BRIDGE_MESSAGE_AUTHORIZE:
      handle_authorize (request);
      break;
    case LUMO_BRIDGE_MESSAGE_RESULT:
      handle_result (request);
      break;
    case LUMO_BRIDGE_MESSAGE_TOOLS:
      handle_tools (request);
      break;
    case LUMO_BRIDGE_MESSAGE_PORT:
      handle_port (request);
      break;
    case LUMO_BRIDGE_MESSAGE_PROBE_TARGET_RESULT:
    case LUMO_BRIDGE_MESSAGE_ERROR:
    default:
      g_assert_not_reached ();
    }
}
