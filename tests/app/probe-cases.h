/* probe-cases.h — one probe outcome for each row of the state table
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Shared by test-providers (English) and test-l10n (zh_CN). The JSON is
 * the bridge's raw outcome form, as the provider extension reports it.
 */
#pragma once

#define SERVICE "\"service\":{\"namespace\":\"userscripts\",\"name\":\"Lumo Userscripts\",\"version\":\"1.0.1\"}"

typedef struct
{
  const char *name;
  const char *outcome_json;
  const char *message_c;       /* the English wording */
  const char *message_zh_cn;   /* the seed's wording, or the raw text */
} ProbeCase;

static const ProbeCase probe_cases[] = {
  { "rejected",
    "{\"kind\":\"rejected\",\"error\":\"Could not establish connection. Receiving end does not exist.\"}",
    "The extension is not installed, or has no agent endpoint.",
    "扩展未安装，或没有智能体端点。" },
  { "timeout",
    "{\"kind\":\"timeout\",\"error\":\"probe timed out after 1500 ms\"}",
    "probe timed out after 1500 ms",
    "probe timed out after 1500 ms" },
  { "protocol-error",
    "{\"kind\":\"answer\",\"answer\":{\"ok\":false,\"error\":\"unsupported probe version 2\"}}",
    "unsupported probe version 2",
    "unsupported probe version 2" },
  { "incomplete",
    "{\"kind\":\"answer\",\"answer\":{\"ok\":true," SERVICE "}}",
    "The probe response is incomplete.",
    "探测响应不完整。" },
  { "disabled",
    "{\"kind\":\"answer\",\"answer\":{\"ok\":true," SERVICE ",\"status\":{\"enabled\":false,\"authorized\":true,\"ready\":true,\"pendingApproval\":false}}}",
    "Agent access is turned off in the provider.",
    "提供方中的智能体访问已关闭。" },
  { "pending-approval",
    "{\"kind\":\"answer\",\"answer\":{\"ok\":true," SERVICE ",\"status\":{\"enabled\":true,\"authorized\":false,\"ready\":true,\"pendingApproval\":true}}}",
    "Waiting for your approval in the provider.",
    "正在提供方中等待你的批准。" },
  { "not-authorized",
    "{\"kind\":\"answer\",\"answer\":{\"ok\":true," SERVICE ",\"status\":{\"enabled\":true,\"authorized\":false,\"ready\":true,\"pendingApproval\":false}}}",
    "The caller is not on the allow-list.",
    "调用方不在允许列表。" },
  { "not-ready",
    "{\"kind\":\"answer\",\"answer\":{\"ok\":true," SERVICE ",\"status\":{\"enabled\":true,\"authorized\":true,\"ready\":false,\"reason\":\"the userscripts permission is off\"}}}",
    "the userscripts permission is off",
    "the userscripts permission is off" },
  { "connected",
    "{\"kind\":\"answer\",\"answer\":{\"ok\":true," SERVICE ",\"status\":{\"enabled\":true,\"authorized\":true,\"ready\":true}}}",
    "Connected",
    "已连接" },
};
