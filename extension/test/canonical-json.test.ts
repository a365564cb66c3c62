// SPDX-License-Identifier: GPL-3.0-or-later
// The params hash must match any other RFC 8785 implementation to the byte:
// the RFC's own examples, and the shared vectors the C side also reads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { canonicalize, CanonicalJsonError } from '../src/shared/canonical-json.ts';
import { paramsHash, sha256Hex } from '../src/shared/sha256.ts';

const VECTORS = new URL('../../tests/fixtures/jcs/vectors.json', import.meta.url);

test('RFC 8785 §3.2.2: the sample object', () => {
  const input = '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],' +
    '"string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/","literals": [null, true, false]}';
  assert.equal(canonicalize(JSON.parse(input)),
    '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],' +
    '"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}');
});

test('RFC 8785 §3.2.3: members sorted by UTF-16 code units', () => {
  const input = '{"\\u20ac":"Euro Sign","\\r":"Carriage Return","\\ufb33":"Hebrew Letter Dalet With Dagesh",' +
    '"1":"One","\\ud83d\\ude00":"Emoji: Grinning Face","\\u0080":"Control","\\u00f6":"Latin Small Letter O With Diaeresis"}';
  // (Object.keys would list "1" first: integer-like keys; read the text.)
  const keys = [...canonicalize(JSON.parse(input)).matchAll(/"((?:[^"\\]|\\.)*)":/g)].map((m) => JSON.parse(`"${m[1]}"`));
  assert.deepEqual(keys, ['\r', '1', '\u0080', '\u00f6', '\u20ac', '\ud83d\ude00', '\ufb33']);
  assert.match(canonicalize(JSON.parse(input)), /^\{"\\r":"Carriage Return","1":"One","\u0080":"Control"/);
});

test('RFC 8785 Appendix B: number serialization', () => {
  const cases: Array<[string, string]> = [
    ['0000000000000000', '0'], ['8000000000000000', '0'],
    ['0000000000000001', '5e-324'], ['8000000000000001', '-5e-324'],
    ['7fefffffffffffff', '1.7976931348623157e+308'], ['ffefffffffffffff', '-1.7976931348623157e+308'],
    ['4340000000000000', '9007199254740992'], ['c340000000000000', '-9007199254740992'],
    ['4430000000000000', '295147905179352830000'],
    ['44b52d02c7e14af5', '9.999999999999997e+22'], ['44b52d02c7e14af6', '1e+23'],
    ['44b52d02c7e14af7', '1.0000000000000001e+23'],
    ['444b1ae4d6e2ef4e', '999999999999999700000'], ['444b1ae4d6e2ef4f', '999999999999999900000'],
    ['444b1ae4d6e2ef50', '1e+21'],
    ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'], ['3eb0c6f7a0b5ed8d', '0.000001'],
    ['41b3de4355555553', '333333333.3333332'], ['41b3de4355555554', '333333333.33333325'],
    ['41b3de4355555555', '333333333.3333333'], ['41b3de4355555556', '333333333.3333334'],
    ['41b3de4355555557', '333333333.33333343'],
    ['becbf647612f3696', '-0.0000033333333333333333'], ['43143ff3c1cb0959', '1424953923781206.2'],
  ];
  for (const [bits, want] of cases) {
    const n = Buffer.from(bits, 'hex').readDoubleBE(0);
    assert.equal(canonicalize(n), want, `IEEE ${bits}`);
  }
  for (const bits of ['7fffffffffffffff', '7ff0000000000000', 'fff0000000000000'])
    assert.throws(() => canonicalize(Buffer.from(bits, 'hex').readDoubleBE(0)), CanonicalJsonError);
});

test('what JSON cannot carry is refused, not hashed into something else', () => {
  assert.throws(() => canonicalize({ a: 1n }), /bigint/);
  assert.throws(() => canonicalize({ a: () => 1 }), /function/);
  assert.throws(() => canonicalize({ a: new Date(0) }), /Date/);
  assert.throws(() => canonicalize('\ud800'), /lone surrogate/);
  const loop: Record<string, unknown> = {};
  loop.self = loop;
  assert.throws(() => canonicalize(loop), /refers to itself/);
  // undefined members do not exist in JSON
  assert.equal(canonicalize({ b: undefined, a: [1, 'x'] }), '{"a":[1,"x"]}');
  // a shared (not circular) value is fine
  const shared = { x: 1 };
  assert.equal(canonicalize({ a: shared, b: shared }), '{"a":{"x":1},"b":{"x":1}}');
});

test('the params hash is SHA-256 hex of the canonical form', async () => {
  assert.equal(await sha256Hex(''), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  assert.equal(await paramsHash({}), '44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a');
  // key order and whitespace do not change the hash
  assert.equal(await paramsHash(JSON.parse('{ "b": 2, "a": [1.0, "é"] }')),
    await paramsHash({ a: [1, 'é'], b: 2 }));
  assert.match(await paramsHash({ uuid: 'x' }), /^[0-9a-f]{64}$/);
});

test('shared vectors (tests/fixtures/jcs/vectors.json, also read by the C tests)', async () => {
  assert.ok(existsSync(VECTORS), 'tests/fixtures/jcs/vectors.json is missing');
  const doc = JSON.parse(readFileSync(VECTORS, 'utf8'));
  const cases: Array<Record<string, unknown>> = Array.isArray(doc) ? doc : (doc.vectors ?? doc.cases);
  assert.ok(Array.isArray(cases) && cases.length >= 26, 'vectors.json has the RFC\'s cases');
  for (const c of cases) {
    const name = String(c.name ?? c.description ?? JSON.stringify(c).slice(0, 60));
    const input = typeof c.input === 'string' ? c.input : JSON.stringify(c.input);
    const expected = c.expected ?? c.output ?? c.canonical;
    if (c.valid === false || c.error !== undefined) {
      assert.throws(() => canonicalize(JSON.parse(input)), name);
      continue;
    }
    assert.equal(canonicalize(JSON.parse(input)), expected, name);
    if (typeof c.sha256 === 'string')
      assert.equal(await sha256Hex(expected as string), c.sha256, `${name}: sha256`);
  }
});
