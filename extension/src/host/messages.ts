// SPDX-License-Identifier: GPL-3.0-or-later
//
// What the connector says to a person, in English and Simplified Chinese.
// The connector runs inside another extension (the host), so it cannot use
// chrome.i18n's messages, which are the host's own: it carries its
// catalogue here and picks it by the browser's UI language. The zh_CN rows
// of the state table are the wording of the protocol's source documents,
// and every text the app shows too reads exactly as po/zh_CN.po has it
// (test/messages.test.ts compares them), so a person sees one sentence for
// one state whichever side shows it.

export type ConnectorLocale = 'en' | 'zh_CN';

export interface ConnectorMessages {
  rejected: string;
  incomplete: string;
  disabled: string;
  pending_approval: string;
  not_authorized: string;
  connected: string;
  notReady: string;
  protocolError: string;
  noAnswer: string;
  notObject: string;
  okMissing: string;
  okNotBoolean: string;
  timeout: (ms: number) => string;
  connectedTools: (count: number) => string;
}

export const CONNECTOR_MESSAGES: Record<ConnectorLocale, ConnectorMessages> = {
  en: {
    rejected: 'The extension is not installed, or has no agent endpoint.',
    incomplete: 'The probe response is incomplete.',
    disabled: 'Agent access is turned off in the provider.',
    pending_approval: 'Waiting for your approval in the provider.',
    not_authorized: 'The caller is not on the allow-list.',
    connected: 'Connected',
    notReady: 'The provider is not ready.',
    protocolError: 'The provider reported a protocol error.',
    noAnswer: 'The probe response is not valid: the provider sent no answer.',
    notObject: 'The probe response is not valid: it is not a JSON object.',
    okMissing: 'The probe response is not valid: the field \u201cok\u201d is missing.',
    okNotBoolean: 'The probe response is not valid: the field \u201cok\u201d is not true or false.',
    timeout: (ms) => `No answer within ${ms} ms.`,
    connectedTools: (count) => `Connected \u00b7 ${count} ${count === 1 ? 'tool' : 'tools'}`,
  },
  zh_CN: {
    rejected: '扩展未安装，或没有智能体端点。',
    incomplete: '探测响应不完整。',
    disabled: '提供方中的智能体访问已关闭。',
    pending_approval: '正在提供方中等待你的批准。',
    not_authorized: '调用方不在允许列表。',
    connected: '已连接',
    notReady: '提供方尚未就绪。',
    protocolError: '提供方报告了协议错误。',
    noAnswer: '探测响应无效：提供方没有发送应答。',
    notObject: '探测响应无效：它不是 JSON 对象。',
    okMissing: '探测响应无效：缺少字段\u201cok\u201d。',
    okNotBoolean: '探测响应无效：字段\u201cok\u201d不是 true 或 false。',
    timeout: (ms) => `${ms} 毫秒内没有应答。`,
    connectedTools: (count) => `已连接 \u00b7 ${count} 个工具`,
  },
};

// A BCP 47 tag as chrome.i18n.getUILanguage() gives it ("zh-CN", "zh",
// "zh-Hans-CN", "en-US") to a catalogue. Traditional Chinese ("zh-TW",
// "zh-Hant") is not Simplified: it gets English, as any other language.
export function connectorLocale (language: string | undefined): ConnectorLocale {
  const tag = (language ?? '').toLowerCase().replace(/_/g, '-');
  if (tag === 'zh' || tag === 'zh-cn' || tag === 'zh-sg' || tag.startsWith('zh-hans'))
    return 'zh_CN';
  return 'en';
}

// The browser's UI language where there is one (in an extension), else
// English (node, tests).
export function defaultConnectorLocale (): ConnectorLocale {
  const i18n = typeof chrome !== 'undefined' ? chrome.i18n : undefined;
  return connectorLocale(typeof i18n?.getUILanguage === 'function' ? i18n.getUILanguage() : undefined);
}

export function connectorMessages (locale: ConnectorLocale | undefined): ConnectorMessages {
  return CONNECTOR_MESSAGES[locale ?? defaultConnectorLocale()];
}
