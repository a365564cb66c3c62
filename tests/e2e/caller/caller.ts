// SPDX-License-Identifier: GPL-3.0-or-later
//
// The e2e test caller: the host-side connector exactly as a host extension
// uses it, with a small API on globalThis for the driver (tests/e2e/
// run-e2e.mjs), which calls it over CDP's Runtime.evaluate.

import {
  ExtensionHub, mapProbeOutcome, probeExtension, type ProbeOutcome,
} from '../../../extension/src/host/index.ts';

const client = { id: chrome.runtime.id, name: 'Lumo E2E Caller', version: '0.1.0' };
const hub = new ExtensionHub(client, { callTimeoutMs: 120000 });

function snapshot (providerId: string) {
  const s = hub.session(providerId);
  return {
    state: s.state, row: s.row, message: s.message, portOpen: s.portOpen,
    initializeCount: s.initializeCount, service: s.service,
    tools: s.tools?.map((t) => ({ name: t.name, annotations: t.annotations ?? null })) ?? null,
    instructions: s.instructions ?? null,
  };
}

function percentiles (samples: number[]) {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))] ?? NaN;
  return { n: s.length, p50: at(0.5), p99: at(0.99), max: s[s.length - 1] ?? NaN };
}

const api = {
  ready: true,
  id: chrome.runtime.id,
  // The raw L0 outcome and the row a person sees.
  async probe (providerId: string): Promise<{ outcome: ProbeOutcome; row: string; message: string; detail: string | null }> {
    const outcome = await probeExtension(providerId, { client });
    const v = mapProbeOutcome(outcome);
    return { outcome, row: v.row, message: v.message, detail: v.detail ?? null };
  },
  async refresh (providerId: string) {
    await hub.refresh(providerId);
    return snapshot(providerId);
  },
  session: snapshot,
  tools: () => hub.tools().map((t) => t.name),
  async call (qualifiedName: string, args: Record<string, unknown>) {
    try {
      const r = await hub.callTool(qualifiedName, args);
      const text = (r.content as Array<{ type: string; text?: string }>).map((c) => c.text ?? '').join('\n');
      return { ok: true, isError: r.isError === true, text };
    } catch (e) {
      return { ok: false, error: e instanceof Error ? e.message : String(e), row: (e as { row?: string }).row ?? null };
    }
  },
  // tools/call round trips as the host sees them: caller → provider → app
  // → provider → caller.
  async bench (qualifiedName: string, argsList: Array<Record<string, unknown>>) {
    const samples: number[] = [];
    let errors = 0;
    for (const args of argsList) {
      const t0 = performance.now();
      const r = await hub.callTool(qualifiedName, args);
      samples.push(performance.now() - t0);
      if (r.isError)
        errors++;
    }
    return { ...percentiles(samples), errors };
  },
  // @n calls of @qualifiedName without arguments, each timed as above: the
  // samples themselves, for a benchmark that merges rounds.
  async samples (qualifiedName: string, n: number) {
    const samples: number[] = [];
    let errors = 0;
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      const r = await hub.callTool(qualifiedName, {});
      samples.push(performance.now() - t0);
      if (r.isError)
        errors++;
    }
    return { samples, errors };
  },
};

Object.assign(globalThis, { lumoTest: api });
document.getElementById('log')!.textContent += `\nready, id ${chrome.runtime.id}`;
