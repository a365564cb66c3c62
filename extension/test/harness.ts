// SPDX-License-Identifier: GPL-3.0-or-later
// The provider and the connector wired together for a test: a fake app
// behind the native port, fake Chrome ports between host and provider.
import type { TestContext } from 'node:test';
import { Provider, type ProviderDeps } from '../src/provider/provider.ts';
import { ScriptStore } from '../src/provider/scripts.ts';
import { ProviderSession } from '../src/host/session.ts';
import { FakeApp, memoryArea } from './fake-app.ts';
import { portPair, until, type FakePort } from './fakes.ts';

export const PROVIDER = 'hnoefmihgppanoiihkcpnjdpijlimfgh';
export const CALLER = 'jedonckdloihdbdhofoldalhdemkmefm';

export function setup (t: TestContext, deps: Partial<ProviderDeps> = {}) {
  const app = new FakeApp();
  const area = memoryArea();
  let uuidN = 0;
  const providerPorts: FakePort[] = [];
  const provider = new Provider({
    connectNative: app.connect,
    lastError: app.lastError,
    store: new ScriptStore(area),
    newUuid: () => `0f8fad5b-d9cb-469f-a165-${String(++uuidN).padStart(12, '0')}`,
    selfId: PROVIDER,
    backoffMs: [5, 5, 5],
    probeWaitMs: 300,
    sendMessage: async (id, message) => {
      if (id === CALLER)
        return { ok: true, service: { namespace: 'caller', name: 'C', version: '1' },
          status: { enabled: true, authorized: true, ready: true, pendingApproval: false }, echo: message };
      throw new Error('Could not establish connection. Receiving end does not exist.');
    },
    ...deps,
  });
  const sendMessage = async (id: string, message: unknown) => {
    if (id !== PROVIDER)
      throw new Error('Could not establish connection. Receiving end does not exist.');
    return provider.probe(JSON.parse(JSON.stringify(message)), { id: CALLER });
  };
  const connectPort = (id: string, name: string) => {
    const [host, prov] = portPair(name, CALLER);
    if (id === PROVIDER) {
      providerPorts.push(prov);
      provider.connect(prov);
    } else {
      setTimeout(() => host.onDisconnect.emit(host), 0);
    }
    return host;
  };
  const session = new ProviderSession({
    providerId: PROVIDER, client: { id: CALLER, name: 'Test host', version: '1.0' },
    sendMessage, connectPort, lastError: () => undefined, callTimeoutMs: 5000,
  });
  provider.start();
  t.after(() => provider.bridge.stop());
  return { app, area, provider, session, providerPorts, sendMessage };
}

export async function ready (s: ReturnType<typeof setup>) {
  await until(() => s.provider.bridge.state === 'ready', 'bridge ready');
}

