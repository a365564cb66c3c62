// SPDX-License-Identifier: GPL-3.0-or-later
//
// The host-side state table: what a person sees for a provider, given the
// raw outcome of its probe. Rows are tried in the protocol's order and the
// first match wins; src/core/lumo-probe-status.c implements the same table
// and both are tested against tests/fixtures/bridge/.

import { isObject, type ProbeAnswerOk } from '../shared/protocol.ts';
import { CONNECTOR_MESSAGES, connectorMessages, type ConnectorLocale, type ConnectorMessages } from './messages.ts';
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

// The rows' fixed messages in English (messages.ts has every language).
const en = CONNECTOR_MESSAGES.en;
export const STATE_MESSAGES = {
  rejected: en.rejected,
  incomplete: en.incomplete,
  disabled: en.disabled,
  pending_approval: en.pending_approval,
  not_authorized: en.not_authorized,
  connected: en.connected,
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

function protocolErrorText (answer: Record<string, unknown>, m: ConnectorMessages): string {
  const err = typeof answer.error === 'string' ? answer.error : str(answer.error, 'message');
  return sanitizeForeignText(err) ?? sanitizeForeignText(answer.reason) ?? m.protocolError;
}

function mapAnswer (answer: unknown, present: boolean, m: ConnectorMessages): ProbeVerdict {
  if (!present)
    return error('protocol_error', m.noAnswer);
  if (!isObject(answer))
    return error('protocol_error', m.notObject);
  const ok = field(answer, 'ok');
  if (ok === 'missing')
    return error('protocol_error', m.okMissing);
  if (ok === 'wrong')
    return error('protocol_error', m.okNotBoolean);
  if (!ok)
    return error('protocol_error', protocolErrorText(answer, m));

  // Every field the later rows read must be there with the right type;
  // otherwise the answer is incomplete, not a policy state.
  const { service, status } = answer;
  if (!isObject(service) || !isObject(status))
    return error('incomplete', m.incomplete);
  const enabled = field(status, 'enabled');
  const authorized = field(status, 'authorized');
  const ready = field(status, 'ready');
  const pending = field(status, 'pendingApproval');
  if (typeof enabled !== 'boolean' || typeof authorized !== 'boolean' || typeof ready !== 'boolean' || pending === 'wrong')
    return error('incomplete', m.incomplete);

  const withDetail = (v: ProbeVerdict): ProbeVerdict => {
    const detail = sanitizeForeignText(status.reason);
    return detail === null ? v : { ...v, detail };
  };
  if (!enabled)
    return withDetail(error('disabled', m.disabled));
  if (!authorized)
    return withDetail(pending === true
      ? error('pending_approval', m.pending_approval)
      : error('not_authorized', m.not_authorized));
  if (!ready)
    return error('not_ready', sanitizeForeignText(status.reason) ?? sanitizeForeignText(answer.reason) ?? m.notReady);
  return { row: 'connected', state: 'connected', message: m.connected, answer: answer as unknown as ProbeAnswerOk };
}

// A timeout's text is shown as it came, but the connector's own (from
// probeExtension(), always English, as it travels to the app in a
// probeTarget answer) reads in the person's language.
function timeoutText (text: string | null, m: ConnectorMessages): string {
  if (text === null)
    return m.timeout(1500);
  const own = /^No answer within (\d{1,9}) ms\.$/.exec(text);
  return own !== null && CONNECTOR_MESSAGES.en.timeout(Number(own[1])) === text ? m.timeout(Number(own[1])) : text;
}

// @locale: the language of the messages; by default the browser's UI
// language (English outside a browser).
export function mapProbeOutcome (outcome: ProbeOutcome, locale?: ConnectorLocale): ProbeVerdict {
  const m = connectorMessages(locale);
  switch (outcome.kind) {
    case 'rejected':
      // Chrome's own text says nothing a person can act on; the row does.
      return error('rejected', m.rejected);
    case 'timeout':
      return error('timeout', timeoutText(sanitizeForeignText(outcome.error), m));
    case 'answer':
      return mapAnswer(outcome.answer, 'answer' in outcome, m);
  }
}

export function connectedMessage (toolCount: number, locale?: ConnectorLocale): string {
  return connectorMessages(locale).connectedTools(toolCount);
}
