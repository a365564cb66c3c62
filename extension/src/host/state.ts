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
  // For a policy row, the provider's own status.reason when it gave one
  // (e.g. "Lumo Access is not running"): extra detail a UI may show under
  // the row's message.
  detail?: string;
}

export const STATE_MESSAGES = {
  rejected: 'The extension is not installed, or has no agent endpoint.',
  incomplete: 'The probe response is incomplete.',
  disabled: 'Agent access is turned off in the provider.',
  pending_approval: 'Waiting for your approval in the provider.',
  not_authorized: 'The caller is not on the allow-list.',
  connected: 'Connected',
} as const;

// Texts that came from another extension: one line, bounded, never blank.
// Same rules as sanitize_foreign_text() in src/core/lumo-probe-status.c.
const MAX_FOREIGN_TEXT_CHARS = 300;

export function sanitizeForeignText (text: unknown): string | null {
  if (typeof text !== 'string')
    return null;
  let out = '';
  let n = 0;
  for (const ch of text) {
    if (n === MAX_FOREIGN_TEXT_CHARS) {
      out += '\u2026';
      break;
    }
    out += /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(ch) ? ' ' : ch;
    n++;
  }
  out = out.replace(/^[ \t\n\v\f\r]+|[ \t\n\v\f\r]+$/g, '');
  return out.length > 0 ? out : null;
}

type Field = 'missing' | 'wrong' | boolean;

function field (obj: Record<string, unknown>, name: string): Field {
  if (!(name in obj) || obj[name] === undefined)
    return 'missing';
  const v = obj[name];
  return typeof v === 'boolean' ? v : 'wrong';
}

function str (obj: unknown, name: string): unknown {
  return isObject(obj) ? obj[name] : undefined;
}

function error (row: ProbeRow, message: string): ProbeVerdict {
  return { row, state: 'error', message };
}

function protocolErrorText (answer: Record<string, unknown>): string {
  const err = typeof answer.error === 'string' ? answer.error : str(answer.error, 'message');
  return sanitizeForeignText(err) ?? sanitizeForeignText(answer.reason) ?? 'The provider reported a protocol error.';
}

function mapAnswer (answer: unknown, present: boolean): ProbeVerdict {
  if (!present)
    return error('protocol_error', 'The probe response is not valid: the provider sent no answer.');
  if (!isObject(answer))
    return error('protocol_error', 'The probe response is not valid: it is not a JSON object.');
  const ok = field(answer, 'ok');
  if (ok === 'missing')
    return error('protocol_error', 'The probe response is not valid: the field \u201cok\u201d is missing.');
  if (ok === 'wrong')
    return error('protocol_error', 'The probe response is not valid: the field \u201cok\u201d is not true or false.');
  if (!ok)
    return error('protocol_error', protocolErrorText(answer));

  // Every field the later rows read must be there with the right type;
  // otherwise the answer is incomplete, not a policy state.
  const { service, status } = answer;
  if (!isObject(service) || !isObject(status))
    return error('incomplete', STATE_MESSAGES.incomplete);
  const enabled = field(status, 'enabled');
  const authorized = field(status, 'authorized');
  const ready = field(status, 'ready');
  const pending = field(status, 'pendingApproval');
  if (typeof enabled !== 'boolean' || typeof authorized !== 'boolean' || typeof ready !== 'boolean' || pending === 'wrong')
    return error('incomplete', STATE_MESSAGES.incomplete);

  const withDetail = (v: ProbeVerdict): ProbeVerdict => {
    const detail = sanitizeForeignText(status.reason);
    return detail === null ? v : { ...v, detail };
  };
  if (!enabled)
    return withDetail(error('disabled', STATE_MESSAGES.disabled));
  if (!authorized)
    return withDetail(pending === true
      ? error('pending_approval', STATE_MESSAGES.pending_approval)
      : error('not_authorized', STATE_MESSAGES.not_authorized));
  if (!ready)
    return error('not_ready', sanitizeForeignText(status.reason) ?? sanitizeForeignText(answer.reason) ?? 'The provider is not ready.');
  return { row: 'connected', state: 'connected', message: STATE_MESSAGES.connected, answer: answer as unknown as ProbeAnswerOk };
}

export function mapProbeOutcome (outcome: ProbeOutcome): ProbeVerdict {
  switch (outcome.kind) {
    case 'rejected':
      // Chrome's own text says nothing a person can act on; the row does.
      return error('rejected', STATE_MESSAGES.rejected);
    case 'timeout':
      return error('timeout', sanitizeForeignText(outcome.error) ?? 'No answer within 1500 ms.');
    case 'answer':
      return mapAnswer(outcome.answer, 'answer' in outcome);
  }
}

export function connectedMessage (toolCount: number): string {
  return `Connected · ${toolCount} ${toolCount === 1 ? 'tool' : 'tools'}`;
}
