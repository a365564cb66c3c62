// SPDX-License-Identifier: GPL-3.0-or-later
//
// The host-side connector: what a host extension needs to find providers
// (L0 probe and the state table), talk MCP to them over lumo:mcp ports with
// sessions that survive service-worker restarts, and list their tools under
// namespaced names without collisions.

export * from '../shared/protocol.ts';
export * from '../shared/limits.ts';
export { probeExtension, type ProbeOutcome, type ProbeOptions, type SendMessage } from './probe.ts';
export { mapProbeOutcome, connectedMessage, STATE_MESSAGES, type ProbeRow, type ProbeVerdict } from './state.ts';
export { CONNECTOR_MESSAGES, connectorLocale, type ConnectorLocale, type ConnectorMessages } from './messages.ts';
export { PortClientTransport, chromeConnectPort, type ConnectPort } from './transport.ts';
export { ProviderSession, SessionError, type SessionOptions, type SessionState } from './session.ts';
export { ToolRegistry, type RegisteredTool, type Refusal, type ClaimResult } from './registry.ts';
export { ExtensionHub, type HubTool } from './hub.ts';
