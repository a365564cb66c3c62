// SPDX-License-Identifier: GPL-3.0-or-later
//
// Checks every message the app sends before the provider acts on it
// (docs/bridge-protocol.md, fixtures tests/fixtures/bridge/messages-app.json
// and messages-agent-app.json). A message that fails is dropped, fails the
// request it answers, or (an app request) is answered with an error; it
// never changes the provider's state halfway.

import { isExtensionId, isObject } from '../shared/protocol.ts';
import { cleanName, utf8Length } from '../shared/text.ts';

// code: the error code a request with this fault is answered with
// (bad_field unless said).
export type Check = { ok: true } | { ok: false; field: string; why: string; code?: string };

const OK: Check = { ok: true };
const bad = (field: string, why: string, code?: string): Check =>
  code === undefined ? { ok: false, field, why } : { ok: false, field, why, code };

// A virtual port's id, chosen by the app, and the bound of a close reason.
export const AGENT_PORT_RE = /^[A-Za-z0-9_-]{1,64}$/;
export const MAX_CLOSE_REASON_BYTES = 512;
export const MAX_CALLER_NAME_BYTES = 128;

export function isAgentPort (value: unknown): value is string {
  return typeof value === 'string' && AGENT_PORT_RE.test(value);
}

// agentMessage and agentClose, either way: the app's are checked with it
// before the provider acts, and the provider's own follow the same rules
// (the tests check them with it against messages-agent-provider.json).
export function checkAgentPush (m: Record<string, unknown>): Check {
  if (!isAgentPort(m.port))
    return bad('port', 'must match ^[A-Za-z0-9_-]{1,64}$');
  if (m.type === 'agentMessage') {
    if (!isObject(m.message) || m.message.jsonrpc !== '2.0')
      return bad('message', 'must be one JSON-RPC 2.0 object');
    return OK;
  }
  if (typeof m.reason !== 'string' || utf8Length(m.reason) > MAX_CLOSE_REASON_BYTES)
    return bad('reason', `must be a string of at most ${MAX_CLOSE_REASON_BYTES} bytes`);
  return OK;
}

// The decision an agentMessage of the app may carry beside a tools/call
// (docs/bridge-protocol.md, "agentMessage"): for that request and tool,
// with the fields of the answer to an authorize of a read.
function checkDecision (m: Record<string, unknown>): Check {
  const d = m.decision;
  const message = m.message as Record<string, unknown>;
  if (!isObject(d))
    return bad('decision', 'must be an object');
  const params = message.params;
  if (message.method !== 'tools/call' || !('id' in message) || !isObject(params) || typeof params.name !== 'string')
    return bad('decision', 'may only come with a tools/call request that names its tool');
  if (!('id' in d) || typeof d.id !== typeof message.id || d.id !== message.id)
    return bad('decision.id', 'must be the id of the message\'s request');
  if (d.tool !== params.name)
    return bad('decision.tool', 'must be the name of the tool the message calls');
  if (typeof d.allow !== 'boolean')
    return bad('decision.allow', 'must be a boolean');
  if (d.allow && d.reason !== undefined)
    return bad('decision.reason', 'must be absent when the call is allowed');
  if (!d.allow && (typeof d.reason !== 'string' || !DENIAL_REASONS.includes(d.reason)))
    return bad('decision.reason', 'must be a known denial reason');
  if (d.auditId !== undefined)
    return bad('decision.auditId', 'must be absent: a read has no audit row');
  if (d.retryAfterMs !== undefined)
    return bad('decision.retryAfterMs', 'must be absent: a read is not rate limited');
  if (typeof d.message !== 'string')
    return bad('decision.message', 'must be a string');
  return OK;
}

function checkAgentOpen (m: Record<string, unknown>): Check {
  if (!isRe(m.id))
    return bad('id', 'must be a request id');
  if (!isAgentPort(m.port))
    return bad('port', 'must match ^[A-Za-z0-9_-]{1,64}$');
  const c = m.caller;
  if (!isObject(c))
    return bad('caller', 'must be an object');
  if (!isExtensionId(c.id))
    return bad('caller.id', 'must be an extension ID', 'invalid_id');
  if (typeof c.name !== 'string' || utf8Length(c.name) > MAX_CALLER_NAME_BYTES || cleanName(c.name, MAX_CALLER_NAME_BYTES) === undefined)
    return bad('caller.name', `must be display text of 1-${MAX_CALLER_NAME_BYTES} bytes`);
  if (c.kind !== 'agent')
    return bad('caller.kind', 'must be "agent"');
  return OK;
}

export const DENIAL_REASONS: readonly string[] = [
  'disabled', 'not_authorized', 'pending', 'writes_off', 'rate_limited',
  'review_rejected', 'review_timeout', 'audit_failed',
];

function isRe (v: unknown): boolean {
  return (typeof v === 'string' && v.length > 0) || (Number.isSafeInteger(v) && (v as number) >= 0);
}

function checkStatus (s: unknown): Check {
  if (!isObject(s))
    return bad('status', 'must be an object');
  for (const k of ['enabled', 'authorized', 'ready', 'pendingApproval'])
    if (typeof s[k] !== 'boolean')
      return bad(`status.${k}`, 'must be a boolean');
  return OK;
}

function checkVerdicts (t: unknown): Check {
  if (!isObject(t) || !Array.isArray(t.accepted) || !t.accepted.every((n) => typeof n === 'string') ||
      !Array.isArray(t.refused) || !t.refused.every(isObject))
    return bad('tools', 'must be {accepted: [names], refused: [objects]}');
  return OK;
}

export function checkAppMessage (m: unknown): Check {
  if (!isObject(m))
    return bad('', 'not an object');
  if (typeof m.type !== 'string')
    return bad('type', 'must be a string');
  const isAnswer = m.type === 'error' || m.type.endsWith('.result');
  if (isAnswer && !(m.re === null && m.type === 'error') && !isRe(m.re))
    return bad('re', 'must be a request id');

  switch (m.type) {
    case 'hello.result':
      if (m.bridge !== 1)
        return bad('bridge', 'must be 1');
      if (!isObject(m.policy) || typeof m.policy.enabled !== 'boolean' ||
          typeof m.policy.writes !== 'boolean' || typeof m.policy.review !== 'boolean')
        return bad('policy', 'must have boolean enabled, writes and review');
      return checkVerdicts(m.tools);
    case 'probe.result':
      return checkStatus(m.status);
    case 'authorize.result':
      if (typeof m.allow !== 'boolean')
        return bad('allow', 'must be a boolean');
      if (m.auditId !== undefined && !(Number.isSafeInteger(m.auditId) && (m.auditId as number) > 0))
        return bad('auditId', 'must be a positive integer');
      if (!m.allow) {
        if (typeof m.reason !== 'string' || !DENIAL_REASONS.includes(m.reason))
          return bad('reason', 'must be a known denial reason');
        if (m.retryAfterMs !== undefined && !(Number.isSafeInteger(m.retryAfterMs) && (m.retryAfterMs as number) >= 0))
          return bad('retryAfterMs', 'must be a non-negative integer');
      }
      if (m.message !== undefined && typeof m.message !== 'string')
        return bad('message', 'must be a string');
      return OK;
    case 'tools.result':
      return checkVerdicts(m.tools);
    case 'result.result':
    case 'port.result':
      return OK;
    case 'error':
      if (typeof m.code !== 'string' || m.code.length === 0)
        return bad('code', 'must be a non-empty string');
      return OK;
    case 'policy':
      for (const k of ['enabled', 'writes', 'review'])
        if (typeof m[k] !== 'boolean')
          return bad(k, 'must be a boolean');
      if (!Array.isArray(m.revoked) || !m.revoked.every(isExtensionId))
        return bad('revoked', 'must be an array of extension IDs');
      return OK;
    case 'probeTarget':
      if (!isRe(m.id))
        return bad('id', 'must be a request id');
      if (!isExtensionId(m.target))
        return bad('target', 'must be an extension ID', 'invalid_id');
      return OK;
    case 'agentOpen':
      return checkAgentOpen(m);
    case 'agentMessage': {
      const r = checkAgentPush(m);
      return r.ok && m.decision !== undefined ? checkDecision(m) : r;
    }
    case 'agentClose':
      return checkAgentPush(m);
    default:
      return bad('type', `"${m.type}" is not a message the app sends`);
  }
}
