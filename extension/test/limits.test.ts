// SPDX-License-Identifier: GPL-3.0-or-later
// The catalogue limits (never loosened) and first-come-first-served names
// across providers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  MAX_TOOLS, checkCatalogue, checkNamespace, checkQualifiedName, checkToolName,
} from '../src/shared/limits.ts';
import { ToolRegistry } from '../src/host/registry.ts';
import { catalogue } from '../src/provider/mcp-server.ts';
import { TOOLS } from '../src/provider/tools.ts';

test('namespace: 16 characters, lowercase start, not reserved', () => {
  assert.equal(checkNamespace('userscripts'), null);
  assert.equal(checkNamespace('a'.repeat(16)), null);
  assert.match(checkNamespace('a'.repeat(17)) ?? '', /17 characters, more than 16/);
  assert.match(checkNamespace('Userscripts') ?? '', /must start with a-z/);
  assert.match(checkNamespace('9lives') ?? '', /must start with a-z/);
  assert.match(checkNamespace('user.scripts') ?? '', /only a-z/);
  assert.match(checkNamespace('') ?? '', /empty/);
  for (const r of ['browser', 'page', 'file', 'network', 'devtools', 'webmcp', 'ext'])
    assert.match(checkNamespace(r) ?? '', /reserved/, r);
});

test('tool name: 40 characters of [A-Za-z0-9_-]', () => {
  assert.equal(checkToolName('list_scripts'), null);
  assert.equal(checkToolName('A-b_9'.repeat(8)), null);
  assert.match(checkToolName('x'.repeat(41)) ?? '', /41 characters, more than 40/);
  assert.match(checkToolName('bad name') ?? '', /may use only/);
  assert.match(checkToolName('ns.tool') ?? '', /may use only/);
  assert.match(checkToolName(7) ?? '', /not a string/);
});

test('namespace + "." + name stays within 57', () => {
  // 16 + 1 + 40 is exactly 57: both parts at their maximum still fit.
  assert.equal(checkQualifiedName('a'.repeat(16), 'b'.repeat(40)), null);
  assert.match(checkQualifiedName('a'.repeat(16), 'b'.repeat(41)) ?? '', /more than 40/);
  assert.match(checkQualifiedName('a'.repeat(17), 'b') ?? '', /more than 16/);
});

test('a catalogue keeps the first 64 valid, distinct tools and says why for the rest', () => {
  const tools = Array.from({ length: 66 }, (_, i) => ({ name: `t${i}` }));
  tools.splice(3, 0, { name: 'bad name' }, { name: 't0' });
  const { accepted, refused } = checkCatalogue('userscripts', tools);
  assert.equal(accepted.length, MAX_TOOLS);
  assert.deepEqual(accepted.map((t) => t.name).slice(0, 4), ['t0', 't1', 't2', 't3']);
  assert.deepEqual(refused.map((r) => r.name), ['bad name', 't0', 't64', 't65']);
  assert.match(refused[1]?.reason ?? '', /listed twice/);
  assert.match(refused[2]?.reason ?? '', /more than 64/);
  // a bad namespace refuses everything
  assert.equal(checkCatalogue('page', tools).accepted.length, 0);
});

test('the provider\'s own catalogue passes the limits whole', () => {
  assert.equal(catalogue(TOOLS).length, TOOLS.length);
  assert.deepEqual(TOOLS.map((t) => t.name), ['list_scripts', 'get_script', 'create_script', 'update_script', 'delete_script', 'set_script_enabled', 'list_site_packs']);
  for (const t of TOOLS) {
    assert.equal(t.annotations.readOnlyHint, !t.write, t.name);
    if (t.name === 'delete_script')
      assert.equal(t.annotations.destructiveHint, true);
  }
});

test('registry: first comer keeps a namespace; the later provider is refused, not merged', () => {
  const r = new ToolRegistry();
  const A = 'a'.repeat(32);
  const B = 'b'.repeat(32);
  assert.equal(r.claim(A, 'notes', ['read', 'write']).accepted.length, 2);
  const second = r.claim(B, 'notes', ['read', 'erase']);
  assert.equal(second.accepted.length, 0);
  assert.match(second.refused[0]?.reason ?? '', /already used by extension a{32}/);
  assert.equal(r.resolve('notes.read')?.providerId, A);
  assert.equal(r.resolve('notes.erase'), null);
  // A refreshes: keeps its names, gains new ones, loses dropped ones
  r.claim(A, 'notes', ['read', 'list']);
  assert.deepEqual(r.list().map((t) => t.qualifiedName).sort(), ['notes.list', 'notes.read']);
  // once A is gone, B may have the namespace
  r.release(A);
  assert.equal(r.claim(B, 'notes', ['read']).accepted[0]?.qualifiedName, 'notes.read');
});

test('registry: limits per provider and bad names', () => {
  const r = new ToolRegistry();
  const A = 'a'.repeat(32);
  const names = Array.from({ length: 70 }, (_, i) => `t${i}`);
  const res = r.claim(A, 'many', [...names, 'x'.repeat(41), 't1']);
  assert.equal(res.accepted.length, 64);
  assert.equal(res.refused.length, 8);
  assert.match(res.refused.find((f) => f.name === 't1')?.reason ?? '', /listed twice/);
  assert.match(res.refused.find((f) => f.name.length === 41)?.reason ?? '', /more than 40/);
  assert.equal(r.claim('c'.repeat(32), 'devtools', ['x']).accepted.length, 0);
});
