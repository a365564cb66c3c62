// SPDX-License-Identifier: GPL-3.0-or-later
//
// The MCP conformance suite (npm @modelcontextprotocol/conformance, pinned
// in tests/e2e/package.json) against the desktop agents' endpoint, with
// the real provider behind it: every server scenario the suite lists, each
// in a run of its own, one TAP line each. A scenario passes when none of its checks is a FAILURE.
// Those that need what a provider does not have (the suite's own test
// tools, resources, prompts, completions, logging, sampling, elicitation)
// are in conformance-baseline.json with the reason; they must fail, so
// the baseline cannot go stale, and every other scenario must pass. Two
// of those pass only because the provider's unknown-tool error has the
// shape they check (passWithoutItsTool there): their TAP line says so.
//
// The suite's client sends no Authorization header (its server scenarios
// are written for servers without authentication), and the endpoint
// refuses every request without a token. So the suite talks to a small
// proxy on 127.0.0.1 that adds the agent's `Authorization: Bearer` header,
// as a configured client does, and changes nothing else but its own port
// to the endpoint's in a loopback Host or Origin header: a foreign Host or
// Origin (the DNS-rebinding scenario) reaches the endpoint as it was sent.
//
// The suite at 0.1.13: later releases import fs.globSync, which Node 20
// (the project's Node) does not have.

import { spawn } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { request as httpRequest, createServer } from 'node:http';
import { join } from 'node:path';
import { NAMESPACE } from './lib/agents.mjs';

// The authenticating proxy; resolves with its port.
export function startAuthProxy (endpointPort, token) {
  let ownPort = 0;
  const loopback = /^(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/i;
  const mapHost = (value) => {
    const m = loopback.exec(value ?? '');
    return m && m[2] === `:${ownPort}` ? `${m[1]}:${endpointPort}` : value;
  };
  const server = createServer((req, res) => {
    const headers = { ...req.headers, authorization: `Bearer ${token}` };
    if (headers.host !== undefined)
      headers.host = mapHost(headers.host);
    if (headers.origin !== undefined) {
      const m = /^http:\/\/(.*)$/.exec(headers.origin);
      if (m)
        headers.origin = `http://${mapHost(m[1])}`;
    }
    const up = httpRequest({ host: '127.0.0.1', port: endpointPort, method: req.method, path: req.url, headers }, (r) => {
      res.writeHead(r.statusCode, r.headers);
      // SSE streams pass as they come.
      r.pipe(res);
    });
    up.on('error', (e) => {
      if (!res.headersSent)
        res.writeHead(502, { 'Content-Type': 'text/plain' });
      res.end(`proxy: ${e.message}`);
    });
    res.on('close', () => up.destroy());
    req.pipe(up);
  });
  return new Promise((resolve, reject) => {
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      ownPort = server.address().port;
      resolve({ port: ownPort, close: () => new Promise((r) => { server.closeAllConnections(); server.close(r); }) });
    });
  });
}

// Runs one scenario of the suite in a process of its own (its clients,
// which a failing scenario leaves open, end with it); resolves with its
// exit code and output.
function runScenario (cli, url, scenario, outDir) {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [cli, 'server', '--url', url, '--scenario', scenario, '-o', outDir],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } });
    let text = '';
    p.stdout.on('data', (d) => { text += d; });
    p.stderr.on('data', (d) => { text += d; });
    const timer = setTimeout(() => p.kill('SIGKILL'), 60000);
    p.on('error', reject);
    p.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, text });
    });
  });
}

// scenario → its checks, from the suite's output directory (one folder per
// scenario run, each with checks.json).
function readResults (outDir) {
  const results = new Map();
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory())
        walk(p);
      else if (e.name === 'checks.json') {
        const checks = JSON.parse(readFileSync(p, 'utf8'));
        // The folder is server-<scenario>-<timestamp>.
        const scenario = p.slice(outDir.length + 1).split('/')[0]
          .replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, '');
        results.set(scenario, checks);
      }
    }
  };
  walk(outDir);
  return results;
}

export async function conformanceSteps ({ step, check, note, ctlJson, port, here, root, Bail }) {
  const cli = join(here, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
  const baselineFile = JSON.parse(readFileSync(join(here, 'conformance-baseline.json'), 'utf8'));
  const baseline = baselineFile.expectedFailures;
  const hollow = baselineFile.passWithoutItsTool ?? {};
  let proxy, results, scenarios;

  // One agent per scenario: the suite's scenarios end no session (no
  // DELETE) and some leave their GET stream open until their process
  // exits, and the endpoint may notice a stream's client gone only at its
  // next keep-alive comment (15 s); one agent's 16 sessions would then
  // run out (429) in a run of 32 scenarios.
  const agentProxy = async (name) => {
    const a = await ctlJson('agents', 'add', name);
    return startAuthProxy(port, a.token);
  };
  await step('agents for the suite, and the proxy that gives their requests the token', async () => {
    check(existsSync(cli), 'the conformance suite is missing: npm ci in tests/e2e');
    proxy = await agentProxy('MCP conformance suite');
    const r = await fetch(`http://127.0.0.1:${proxy.port}/mcp/${NAMESPACE}`, { method: 'DELETE' });
    check(r.status === 400, `through the proxy, a DELETE without a session got ${r.status}, not 400`);
    await proxy.close();
    return `proxy → endpoint 127.0.0.1:${port}`;
  });

  await step('the suite runs every server scenario against the endpoint', async () => {
    const outDir = join(root, 'conformance');
    const list = await new Promise((resolve) => {
      const p = spawn(process.execPath, [cli, 'list', '--server'], { stdio: ['ignore', 'pipe', 'inherit'] });
      let t = '';
      p.stdout.on('data', (d) => { t += d; });
      p.on('exit', () => resolve(t));
    });
    scenarios = [...list.matchAll(/^\s+- (\S+)$/gm)].map((m) => m[1]);
    check(scenarios.length > 0, `no server scenarios listed: ${list}`);
    for (const scenario of scenarios) {
      const p = await agentProxy(`Conformance ${scenario}`.slice(0, 100));
      const r = await runScenario(cli, `http://localhost:${p.port}/mcp/${NAMESPACE}`, scenario, outDir);
      await p.close();
      check(r.signal === null, `${scenario}: the suite was killed (${r.signal}): ${r.text.slice(-2000)}`);
    }
    results = readResults(outDir);
    if (process.env.LUMO_E2E_KEEP_CONFORMANCE)
      cpSync(outDir, process.env.LUMO_E2E_KEEP_CONFORMANCE, { recursive: true });
    const missing = scenarios.filter((s) => !results.has(s));
    check(missing.length === 0, `no results for ${missing.join(', ')}`);
    for (const name of [...Object.keys(baseline), ...Object.keys(hollow)])
      check(scenarios.includes(name), `the baseline names ${name}, which the suite does not have`);
    return `${scenarios.length} scenarios, each in its own run of the suite`;
  });

  for (const name of scenarios) {
    const checks = results.get(name);
    const failures = checks.filter((c) => c.status === 'FAILURE');
    const warnings = checks.filter((c) => c.status === 'WARNING');
    const why = baseline[name];
    // Each scenario stands alone: one that fails does not stop the rest.
    await step(`conformance: ${name}${why ? ' (expected to fail: in the baseline)' : ''}`, async () => {
      const says = (list) => list.map((c) => `${c.id}: ${c.errorMessage ?? c.status}`).join('; ');
      if (why) {
        check(failures.length > 0, `${name} passes now: take it out of conformance-baseline.json`);
        return `${why}\nthe suite says: ${says(failures).slice(0, 400)}`;
      }
      check(failures.length === 0, says(failures));
      const ok = checks.filter((c) => c.status === 'SUCCESS').length;
      return `${ok} checks passed${warnings.length ? `; warnings: ${says(warnings)}` : ''}${hollow[name] ? `\nbut: ${hollow[name]}` : ''}`;
    }).catch((e) => {
      if (!(e instanceof Bail))
        throw e;
    });
  }
  note(`baseline: ${Object.keys(baseline).length} of ${scenarios.length} scenarios need what a provider does not have`);
}
