// SPDX-License-Identifier: GPL-3.0-or-later
// A page pack for opentiny.design (the guide's example four): it runs in
// the page's main world, so it needs "Allow User Scripts".
export default {
  name: 'opentiny.design',
  type: 'pageMcpServer',
  url: 'https://opentiny.design',
  isAlwaysEnabled: false,
  customMarketMcpServers: [
    {
      id: 'ppt-mcp',
      name: 'PPT document MCP server',
      description: 'Creates, edits and saves PPT documents',
      icon: 'https://your-mcp-server-icon-url.com/icon.png',
      url: 'https://your-mcp-server-url.com/servers/ppt-mcp/sse',
      type: 'sse',
      enabled: false,
      addState: 'idle',
      tools: [],
    },
  ],
  version: '1.0.0',
};
