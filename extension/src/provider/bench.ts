// SPDX-License-Identifier: GPL-3.0-or-later
//
// Bridge round trips timed inside the service worker: the floor under every
// tools/call (provider → native host → app → back), measured with a probe
// of an already-decided caller, which the app answers from memory.

export interface Percentiles {
  n: number;
  p50: number;
  p99: number;
  max: number;
}

export function percentiles (samples: number[]): Percentiles {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number): number => s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))] ?? NaN;
  return { n: s.length, p50: at(0.5), p99: at(0.99), max: s[s.length - 1] ?? NaN };
}

interface BridgeLike {
  bridge: { request (type: string, fields: Record<string, unknown>): Promise<Record<string, unknown>> };
}

export async function runBench (provider: BridgeLike, opts: { iterations?: number; callerId: string }): Promise<Percentiles> {
  const n = opts.iterations ?? 200;
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await provider.bridge.request('probe', { caller: { id: opts.callerId } });
    samples.push(performance.now() - t0);
  }
  return percentiles(samples);
}
