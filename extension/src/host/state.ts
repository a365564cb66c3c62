// SPDX-License-Identifier: GPL-3.0-or-later
//
// The host-side state table: what a person sees for a provider, given the
// raw outcome of its probe. Rows are tried in the protocol's order and the
// first match wins; src/core/lumo-probe-status.c implements the same table
// and both are tested against tests/fixtures/bridge/.

import { isObject, type ProbeAnswerOk } from '../shared/protocol.ts';
import type { ProbeOutcome } from './probe.ts';

export type ProbeRow =
  | 'rejected'
  | 'timeout'
  | 'protocol_error'
  | 'incomplete'
  | 'disabled'
  | 'pending_approval'
  | 'not_authorized'
  | 'not_ready'
  | 'connected';

export type ConnectorState = 'error' | 'connected';

export interface ProbeVerdict {
  row: ProbeRow;
  state: ConnectorState;
  message: string;
  // For the connected row: the answer, so callers can read service info.
  answer?: ProbeAnswerOk;
}

export const STATE_MESSAGES = {
  rejected: 'The extension is not installed, or has no agent endpoint.',
  incomplete: 'The probe response is incomplete.',
  disabled: 'Agent access is turned off in the provider.',
  pending_approval: 'Waiting for your approval in the provider.',
  not_authorized: 'The caller is not on the allow-list.',
  connected: 'Connected',
} as const;

const FALLBACK_PROTOCOL_ERROR = 'The provider answered the probe with something that is not a probe answer.';
const FALLBACK_NOT_READY = 'The provider is not ready and gave no reason.';

function text (value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 ? value : null;
}

function error (row: ProbeRow, message: string): ProbeVerdict {
  return { row, state: 'error', message };
}

export function mapProbeOutcome (outcome: ProbeOutcome): ProbeVerdict {
  switch (outcome.kind) {
    case 'rejected':
      return error('rejected', STATE_MESSAGES.rejected);
    case 'timeout':
      return error('timeout', outcome.error);
    case 'answer':
      break;
  }
  const answer = outcome.answer;
  if (!isObject(answer) || typeof answer.ok !== 'boolean')
    return error('protocol_error', FALLBACK_PROTOCOL_ERROR);
  if (answer.ok === false)
    return error('protocol_error', text(answer.error) ?? text(answer.reason) ?? FALLBACK_PROTOCOL_ERROR);

  const { service, status } = answer;
  if (!isObject(service) || !isObject(status))
    return error('incomplete', STATE_MESSAGES.incomplete);
  if (status.enabled !== true)
    return error('disabled', STATE_MESSAGES.disabled);
  if (status.authorized !== true)
    return status.pendingApproval === true
      ? error('pending_approval', STATE_MESSAGES.pending_approval)
      : error('not_authorized', STATE_MESSAGES.not_authorized);
  if (status.ready !== true)
    return error('not_ready', text(status.reason) ?? FALLBACK_NOT_READY);
  return { row: 'connected', state: 'connected', message: STATE_MESSAGES.connected, answer: answer as unknown as ProbeAnswerOk };
}

export function connectedMessage (toolCount: number): string {
  return `Connected · ${toolCount} ${toolCount === 1 ? 'tool' : 'tools'}`;
}
