// SPDX-License-Identifier: GPL-3.0-or-later
// The guide's cookie example (example three).
export default {
  name: 'example.com',
  type: 'contentScriptMcpServer',
  url: 'https://example.com',
  isAlwaysEnabled: false,
  version: '1.0.0',
};
