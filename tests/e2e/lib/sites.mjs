// SPDX-License-Identifier: GPL-3.0-or-later
//
// The test sites for the site-pack steps: one HTTP server on 127.0.0.1
// that serves tests/fixtures/sitepacks/pages/index.html for every host, and
// the Chromium flags that send every *.test name (port 80) to it, so that
// www.baidu-e2e.test, baidu-e2e.test, m.example-e2e.test… are real hostnames to the
// browser and to location.hostname, with nothing leaving the machine.
// Pages of example-e2e.test and its subdomains get cookies, one of them
// HttpOnly (which a pack must never see).

import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';

export async function startSiteServer (pageFile) {
  const page = readFileSync(pageFile, 'utf8');
  const requests = [];
  const server = createServer((req, res) => {
    const host = String(req.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
    requests.push(`${host}${req.url}`);
    if (req.url === '/favicon.ico') {
      res.writeHead(404);
      res.end();
      return;
    }
    const headers = { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' };
    if (/(^|\.)example-e2e\.test$/.test(host))
      headers['set-cookie'] = ['user_id=42; Path=/', 'session_id=s-e2e; Path=/', 'secret=httponly-canary; Path=/; HttpOnly'];
    res.writeHead(200, headers);
    res.end(page.replaceAll('{{HOST}}', host.replace(/[^a-z0-9.-]/g, '')));
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return {
    port: server.address().port,
    requests,
    close: () => new Promise((resolve) => { server.closeAllConnections?.(); server.close(() => resolve()); }),
  };
}

export function siteBrowserArgs (port) {
  return [
    `--host-resolver-rules=MAP *.test:80 127.0.0.1:${port}, MAP *.test 127.0.0.1`,
    // Plain http on purpose: no attempt at https first. (The last
    // --disable-features wins, so it repeats the driver's own.)
    '--disable-features=Translate,MediaRouter,HttpsUpgrades,HttpsFirstBalancedModeAutoEnable',
  ];
}
