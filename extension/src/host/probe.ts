// SPDX-License-Identifier: GPL-3.0-or-later
//
// The L0 probe as a host sends it, reduced to its raw outcome. The outcome
// has the bridge's JSON form {kind, error?, answer?} so the provider can hand
// it to the app unchanged (probeTarget) and the app's state table reads it.

import { PROBE_CHANNEL, PROBE_TIMEOUT_MS, PROBE_VERSION, type ClientInfo } from '../shared/protocol.ts';
import { CONNECTOR_MESSAGES } from './messages.ts';

export type ProbeOutcome =
  | { kind: 'rejected'; error: string }
  | { kind: 'timeout'; error?: string }
  | { kind: 'answer'; answer?: unknown };

// chrome.runtime.sendMessage(extensionId, message) in promise form; a seam
// for tests.
export type SendMessage = (extensionId: string, message: unknown) => Promise<unknown>;

export interface ProbeOptions {
  client: ClientInfo;
  timeoutMs?: number;
  sendMessage?: SendMessage;
  probeId?: string;
}

let probeCounter = 0;

function defaultSendMessage (extensionId: string, message: unknown): Promise<unknown> {
  return chrome.runtime.sendMessage(extensionId, message);
}

// English: the outcome is data (it may go to the app in a probeTarget
// answer); mapProbeOutcome() reads it in the person's language.
export function probeTimeoutText (timeoutMs: number): string {
  return CONNECTOR_MESSAGES.en.timeout(timeoutMs);
}

export async function probeExtension (extensionId: string, options: ProbeOptions): Promise<ProbeOutcome> {
  const timeoutMs = options.timeoutMs ?? PROBE_TIMEOUT_MS;
  const send = options.sendMessage ?? defaultSendMessage;
  const message = {
    channel: PROBE_CHANNEL,
    version: PROBE_VERSION,
    id: options.probeId ?? `probe-${Date.now().toString(36)}-${++probeCounter}`,
    client: options.client,
  };

  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<ProbeOutcome>((resolve) => {
    timer = setTimeout(() => resolve({ kind: 'timeout', error: probeTimeoutText(timeoutMs) }), timeoutMs);
  });
  const answer = (async (): Promise<ProbeOutcome> => {
    try {
      const answer = await send(extensionId, message);
      // No answer at all (the listener did not respond) stays distinct
      // from an answer of null.
      return answer === undefined ? { kind: 'answer' } : { kind: 'answer', answer };
    } catch (e) {
      return { kind: 'rejected', error: e instanceof Error ? e.message : String(e) };
    }
  })();
  try {
    return await Promise.race([answer, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
