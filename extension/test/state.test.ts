// SPDX-License-Identifier: GPL-3.0-or-later
// The connector shows a person the same row and message as the app does
// for every probe outcome: both read tests/fixtures/probe-status/cases.json.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { connectedMessage, mapProbeOutcome, sanitizeForeignText } from '../src/host/state.ts';
import type { ProbeOutcome } from '../src/host/probe.ts';

const doc = JSON.parse(readFileSync(new URL('../../tests/fixtures/probe-status/cases.json', import.meta.url), 'utf8'));

test('every row of the state table is covered by the shared cases', () => {
  const rows = new Set(doc.cases.map((c: { row: string }) => c.row));
  assert.deepEqual([...rows].sort(), [...doc.rows].sort());
});

for (const c of doc.cases) {
  test(`state table: ${c.name}`, () => {
    const v = mapProbeOutcome(c.outcome as ProbeOutcome);
    assert.equal(v.row, c.row);
    assert.equal(v.message, c.message);
    assert.equal(v.state, c.row === 'connected' ? 'connected' : 'error');
  });
}

test('a fail-closed answer keeps the provider\'s reason as detail', () => {
  const v = mapProbeOutcome({ kind: 'answer', answer: {
    ok: true, service: { namespace: 'userscripts', name: 'x', version: '1' },
    status: { enabled: true, authorized: false, ready: false, pendingApproval: false, reason: 'Lumo Access is not running.' },
  } });
  assert.equal(v.row, 'not_authorized');
  assert.equal(v.detail, 'Lumo Access is not running.');
});

test('foreign text is one line and bounded', () => {
  assert.equal(sanitizeForeignText('a\u2028b\u0085c'), 'a b c');
  assert.equal(sanitizeForeignText(' \t '), null);
  assert.equal(sanitizeForeignText(5), null);
  assert.equal(sanitizeForeignText('😀'.repeat(301)), '😀'.repeat(300) + '…');
});

test('the connected message counts tools', () => {
  assert.equal(connectedMessage(1), 'Connected · 1 tool');
  assert.equal(connectedMessage(12), 'Connected · 12 tools');
});
