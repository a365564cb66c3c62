// SPDX-License-Identifier: GPL-3.0-or-later
//
// A private session bus on which the app under test is started by D-Bus
// activation, the way a user's session starts it when Chrome runs the
// native host (the same idea as tests/common/lumo-test-bus.c, in JS).
// Everything lives in one temporary directory: XDG data/config/cache/
// state/runtime dirs, the bus config and a services dir holding only
// dev.lumo.Access.service. The daemon's environment is the activation
// environment, so the app gets this test's XDG_DATA_HOME and DISPLAY.

import { execFile, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { killGroup, sleep, waitExit } from './cdp.mjs';

const run = promisify(execFile);
export const APP_ID = 'dev.lumo.Access';

export class TestBus {
  static async start (root, appPath, extraEnv = {}) {
    const bus = new TestBus();
    bus.root = root;
    const dirs = {};
    for (const d of ['data', 'config', 'cache', 'state', 'runtime', 'services'])
      mkdirSync(dirs[d] = join(root, d), { recursive: true, mode: 0o700 });
    bus.dirs = dirs;
    bus.appPath = appPath;
    bus.config = join(root, 'bus.conf');
    writeFileSync(bus.config, `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <keep_umask/>
  <listen>unix:dir=${dirs.runtime}</listen>
  <auth>EXTERNAL</auth>
  <servicedir>${dirs.services}</servicedir>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
  <limit name="service_start_timeout">60000</limit>
</busconfig>
`);
    bus.setActivatable(true);
    const env = { ...process.env };
    delete env.DBUS_SESSION_BUS_ADDRESS;
    delete env.LUMO_ACCESS_DATA_DIR;
    Object.assign(env, {
      XDG_DATA_HOME: dirs.data, XDG_CONFIG_HOME: dirs.config, XDG_CACHE_HOME: dirs.cache,
      XDG_STATE_HOME: dirs.state, XDG_RUNTIME_DIR: dirs.runtime,
      GSETTINGS_BACKEND: 'memory', NO_AT_BRIDGE: '1', GTK_A11Y: 'none',
      ...extraEnv,
    });
    // The address comes on fd 3 so the daemon's (and the app's) stdout
    // stays out of the test's output.
    bus.daemon = spawn('dbus-daemon', ['--config-file', bus.config, '--nofork', '--nopidfile', '--print-address=3'], {
      env, detached: true, stdio: ['ignore', 'ignore', 'inherit', 'pipe'],
    });
    bus.address = await new Promise((resolve, reject) => {
      let text = '';
      const timer = setTimeout(() => reject(new Error('dbus-daemon printed no address in 10 s')), 10000);
      bus.daemon.on('error', (e) => { clearTimeout(timer); reject(new Error(`cannot start dbus-daemon: ${e.message}`)); });
      bus.daemon.stdio[3].setEncoding('utf8');
      bus.daemon.stdio[3].on('data', (d) => {
        text += d;
        if (text.includes('\n')) {
          clearTimeout(timer);
          resolve(text.trim());
        }
      });
    });
    bus.env = { ...env, DBUS_SESSION_BUS_ADDRESS: bus.address };
    return bus;
  }

  // Writes the service file, or one whose Exec fails (the app "not
  // installed" for activation), and makes the daemon read it again.
  setActivatable (on) {
    const exec = on ? `${this.appPath} --gapplication-service` : '/bin/false';
    writeFileSync(join(this.dirs.services, `${APP_ID}.service`), `[D-BUS Service]\nName=${APP_ID}\nExec=${exec}\n`);
  }

  async reload () {
    await this.dbus('org.freedesktop.DBus.ReloadConfig');
  }

  async dbus (method, ...args) {
    const { stdout } = await run('dbus-send', [
      `--bus=${this.address}`, '--print-reply', '--type=method_call', '--dest=org.freedesktop.DBus',
      '/org/freedesktop/DBus', method, ...args,
    ], { env: this.env, timeout: 10000 });
    return stdout;
  }

  // The pid owning the app's name, or 0.
  async appPid () {
    try {
      const out = await this.dbus('org.freedesktop.DBus.GetConnectionUnixProcessID', `string:${APP_ID}`);
      const m = /uint32 (\d+)/.exec(out);
      return m ? Number(m[1]) : 0;
    } catch {
      return 0;
    }
  }

  async killApp () {
    const pid = await this.appPid();
    if (pid > 0) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
      for (let i = 0; i < 100 && (await this.appPid()) === pid; i++)
        await sleep(50);
    }
    return pid;
  }

  async stop () {
    await this.killApp();
    if (this.daemon) {
      killGroup(this.daemon.pid, 'SIGTERM');
      await waitExit(this.daemon, 2000);
      killGroup(this.daemon.pid, 'SIGKILL');
    }
  }
}
