// SPDX-License-Identifier: GPL-3.0-or-later
// The guide's meta.ts example for www.baidu.com, unchanged in meaning.
export default {
  name: 'www.baidu.com',
  type: 'contentScriptMcpServer',
  url: 'https://www.baidu.com',
  isAlwaysEnabled: true,
  toolsJumpLinks: {
    'get-page-title': 'https://www.baidu.com/s?wd=get-page-title',
  },
  version: '1.0.0',
};
