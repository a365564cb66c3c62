// SPDX-License-Identifier: GPL-3.0-or-later
//
// The fixed names and message shapes of the L0/L1 extension protocol, shared
// by the provider and the host-side connector. Names and versions never
// change; isExtensionId() is the one ID test every input path goes through.

export const PROBE_CHANNEL = 'lumo:probe';
export const MCP_PORT_NAME = 'lumo:mcp';
export const PROBE_VERSION = 1;
export const PROBE_TIMEOUT_MS = 1500;
export const NATIVE_HOST_NAME = 'dev.lumo.access';

const EXTENSION_ID_RE = /^[a-p]{32}$/;

export function isExtensionId (value: unknown): value is string {
  return typeof value === 'string' && EXTENSION_ID_RE.test(value);
}

export interface ClientInfo {
  id: string;
  name?: string;
  version?: string;
}

export interface ProbeRequest {
  channel: typeof PROBE_CHANNEL;
  version: number;
  id: string;
  client?: ClientInfo;
}

export interface ServiceInfo {
  namespace: string;
  name: string;
  version: string;
}

export interface ProbeStatus {
  enabled: boolean;
  authorized: boolean;
  ready: boolean;
  pendingApproval: boolean;
  // Why the provider cannot serve (only with ready:false): a sentence a
  // person can act on. Not part of the seed's minimal answer; hosts show it
  // for the "ready:false" row.
  reason?: string;
}

export interface ProbeAnswerOk {
  ok: true;
  id?: string;
  service: ServiceInfo;
  status: ProbeStatus;
}

export interface ProbeAnswerError {
  ok: false;
  id?: string;
  error: string;
}

export type ProbeAnswer = ProbeAnswerOk | ProbeAnswerError;

export function isObject (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// A message that is on our channel at all. Anything else is somebody else's
// traffic on the shared runtime message space and is left unanswered.
export function isProbeChannel (message: unknown): boolean {
  return isObject(message) && message.channel === PROBE_CHANNEL;
}
