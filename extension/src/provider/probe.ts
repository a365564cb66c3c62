// SPDX-License-Identifier: GPL-3.0-or-later
//
// The L0 probe handler. Protocol failures (wrong version, missing id, a
// sender without an extension ID) answer ok:false with a reason; policy
// never does: the status comes from the app's probe answer as is. When the
// app cannot be reached the answer fails closed: ready:false with a reason a
// person can act on in status.reason, and authorized:false, because the
// provider cannot know the decision and must never claim one. (Hosts that
// follow the state table strictly show the not-authorized row for it; the
// reason is still there for those that look.)

import {
  PROBE_VERSION, isExtensionId, isObject, isProbeChannel,
  type ProbeAnswer, type ProbeStatus, type ServiceInfo,
} from '../shared/protocol.ts';
import { cleanName, truncateUtf8 } from '../shared/text.ts';

export interface ProbeSender {
  id?: string;
}

export type AskApp = (caller: { id: string; name?: string; version?: string }) => Promise<Record<string, unknown>>;

const NO_TOOLS_REASON = 'Lumo Access accepted none of this provider\'s tools, so there is nothing to call.';
const MAX_NAME_BYTES = 128;
const MAX_VERSION_BYTES = 64;

// Texts are bounded by the bridge; cut (on a whole character) rather than
// let a long text turn a message into a bridge error.
export function bounded (value: unknown, maxBytes: number): string | undefined {
  if (typeof value !== 'string' || value.length === 0)
    return undefined;
  return truncateUtf8(value, maxBytes);
}

function protocolError (id: unknown, error: string): ProbeAnswer {
  const a: ProbeAnswer = { ok: false, error };
  if (typeof id === 'string' || typeof id === 'number')
    a.id = String(id);
  return a;
}

function statusFromApp (answer: Record<string, unknown>): ProbeStatus | null {
  const s = answer.status;
  if (!isObject(s) || typeof s.enabled !== 'boolean' || typeof s.authorized !== 'boolean' ||
      typeof s.ready !== 'boolean' || typeof s.pendingApproval !== 'boolean')
    return null;
  const status: ProbeStatus = { enabled: s.enabled, authorized: s.authorized, ready: s.ready, pendingApproval: s.pendingApproval };
  if (!status.ready)
    status.reason = typeof s.reason === 'string' && s.reason.length > 0 ? s.reason : NO_TOOLS_REASON;
  return status;
}

export function failClosed (reason: string): ProbeStatus {
  return { enabled: true, authorized: false, ready: false, pendingApproval: false, reason };
}

// Returns undefined for messages on other channels: they are somebody
// else's and get no answer at all.
export async function handleProbe (message: unknown, sender: ProbeSender, service: ServiceInfo,
  askApp: AskApp): Promise<ProbeAnswer | undefined> {
  if (!isProbeChannel(message))
    return undefined;
  const m = message as Record<string, unknown>;
  if (m.version !== PROBE_VERSION)
    return protocolError(m.id, `Unsupported probe version ${JSON.stringify(m.version ?? null)}; this provider speaks version ${PROBE_VERSION}.`);
  if (!((typeof m.id === 'string' && m.id.length > 0) || (typeof m.id === 'number' && Number.isFinite(m.id))))
    return protocolError(undefined, 'The probe has no id.');
  if (!isExtensionId(sender.id))
    return protocolError(m.id, 'The probe did not come from an extension with a valid ID.');
  if (m.client !== undefined && !isObject(m.client))
    return protocolError(m.id, 'The probe\'s client field is not an object.');

  const client = (m.client ?? {}) as Record<string, unknown>;
  const caller: { id: string; name?: string; version?: string } = { id: sender.id };
  const name = cleanName(client.name, MAX_NAME_BYTES);
  const version = cleanName(client.version, MAX_VERSION_BYTES);
  if (name !== undefined)
    caller.name = name;
  if (version !== undefined)
    caller.version = version;

  let status: ProbeStatus;
  try {
    status = statusFromApp(await askApp(caller)) ??
      failClosed('Lumo Access gave an answer this provider does not understand; update Lumo Access or the extension.');
  } catch (e) {
    status = failClosed(e instanceof Error ? e.message : String(e));
  }
  return { ok: true, id: String(m.id), service: { ...service }, status };
}
