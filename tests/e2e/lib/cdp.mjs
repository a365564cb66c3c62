// SPDX-License-Identifier: GPL-3.0-or-later
//
// Chromium under test, driven over the DevTools protocol on a pipe
// (--remote-debugging-pipe: commands on fd 3, replies on fd 4, each a JSON
// text ended by NUL). No browser download, no WebSocket library: the
// Debian binary and Node's own streams. The browser runs in a process group
// of its own so that close() can kill it with every child (renderers, the
// native-messaging host).

import { spawn } from 'node:child_process';

export const CHROMIUM_FLAGS = [
  '--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--disable-quic', '--disable-dev-shm-usage', '--password-store=basic', '--use-mock-keychain',
  '--no-default-browser-check', '--disable-features=Translate,MediaRouter',
];

export class Browser {
  constructor (proc) {
    this.proc = proc;
    this.nextId = 1;
    this.pending = new Map();
    this.listeners = new Set();
    this.buffer = '';
    this.exited = false;
    this.stderrTail = [];
    proc.stdio[4].setEncoding('utf8');
    proc.stdio[4].on('data', (chunk) => this.onData(chunk));
    proc.stderr.setEncoding('utf8');
    proc.stderr.on('data', (d) => {
      this.stderrTail.push(d);
      if (this.stderrTail.length > 50)
        this.stderrTail.shift();
    });
    proc.on('exit', (code, signal) => {
      this.exited = true;
      for (const p of this.pending.values())
        p.reject(new Error(`Chromium exited (${code ?? signal}) during ${p.method}`));
      this.pending.clear();
    });
  }

  static launch ({ executable, userDataDir, extensions, env, extraArgs = [] }) {
    const args = [
      ...CHROMIUM_FLAGS,
      '--remote-debugging-pipe',
      `--user-data-dir=${userDataDir}`,
      `--disable-extensions-except=${extensions.join(',')}`,
      `--load-extension=${extensions.join(',')}`,
      ...extraArgs,
      'about:blank',
    ];
    const proc = spawn(executable, args, {
      env, detached: true, stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'],
    });
    return new Browser(proc);
  }

  onData (chunk) {
    this.buffer += chunk;
    let end;
    while ((end = this.buffer.indexOf('\0')) >= 0) {
      const text = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 1);
      let msg;
      try {
        msg = JSON.parse(text);
      } catch {
        continue;
      }
      if (msg.id !== undefined && this.pending.has(msg.id)) {
        const p = this.pending.get(msg.id);
        this.pending.delete(msg.id);
        if (msg.error)
          p.reject(new Error(`${p.method}: ${msg.error.message}${msg.error.data ? ` (${msg.error.data})` : ''}`));
        else
          p.resolve(msg.result);
      } else if (msg.method) {
        for (const l of this.listeners)
          l(msg);
      }
    }
  }

  send (method, params = {}, sessionId = undefined, timeoutMs = 60000) {
    if (this.exited)
      return Promise.reject(new Error(`Chromium is not running (${method})`));
    const id = this.nextId++;
    const msg = { id, method, params };
    if (sessionId)
      msg.sessionId = sessionId;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${method} got no reply in ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, {
        method,
        resolve: (r) => { clearTimeout(timer); resolve(r); },
        reject: (e) => { clearTimeout(timer); reject(e); },
      });
      this.proc.stdio[3].write(JSON.stringify(msg) + '\0');
    });
  }

  on (listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async targets () {
    return (await this.send('Target.getTargets')).targetInfos;
  }

  async waitForTarget (pred, what, timeoutMs = 20000) {
    const t0 = Date.now();
    while (Date.now() - t0 < timeoutMs) {
      const t = (await this.targets()).find(pred);
      if (t)
        return t;
      await sleep(100);
    }
    throw new Error(`no ${what} target after ${timeoutMs} ms; targets: ${JSON.stringify((await this.targets()).map((t) => `${t.type} ${t.url}`))}`);
  }

  async attach (targetId) {
    const { sessionId } = await this.send('Target.attachToTarget', { targetId, flatten: true });
    return sessionId;
  }

  // Evaluates an expression (awaiting a promise) and returns its value.
  async evaluate (sessionId, expression, timeoutMs = 60000) {
    const r = await this.send('Runtime.evaluate', {
      expression, awaitPromise: true, returnByValue: true,
    }, sessionId, timeoutMs);
    if (r.exceptionDetails) {
      const d = r.exceptionDetails;
      throw new Error(`evaluate failed: ${d.exception?.description ?? d.text}`);
    }
    return r.result.value;
  }

  // Until @expression is truthy in @sessionId (a target can exist before
  // its top-level code ran).
  async waitFor (sessionId, expression, what, timeoutMs = 20000) {
    const t0 = Date.now();
    let last = null;
    while (Date.now() - t0 < timeoutMs) {
      try {
        const v = await this.evaluate(sessionId, expression, 5000);
        if (v)
          return v;
      } catch (e) {
        last = e;
      }
      await sleep(100);
    }
    throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${last.message})` : ''}`);
  }

  async close () {
    if (this.exited)
      return;
    try {
      await this.send('Browser.close', {}, undefined, 3000);
    } catch {
      // killed below
    }
    await waitExit(this.proc, 3000);
    killGroup(this.proc.pid);
    // Reap it, so no zombie outlives the test.
    await waitExit(this.proc, 3000);
  }
}

export function sleep (ms) {
  return new Promise((r) => setTimeout(r, ms));
}

export function killGroup (pid, signal = 'SIGKILL') {
  if (!pid)
    return;
  try {
    process.kill(-pid, signal);
  } catch {
    // gone already
  }
}

export function waitExit (proc, ms) {
  if (proc.exitCode !== null || proc.signalCode !== null)
    return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    proc.once('exit', () => { clearTimeout(timer); resolve(); });
  });
}
