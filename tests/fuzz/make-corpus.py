#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Seeds tests/fuzz/corpus/ from the bridge fixtures.

Each seed is one input of fuzz-bridge.c: byte 0 is the scene (the bits
below), the rest is a native-messaging byte stream (32-bit little-endian
length + JSON). Run from the repository root after changing the fixtures:

    python3 tests/fuzz/make-corpus.py
"""
import hashlib
import json
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, '..', 'fixtures', 'bridge')
CORPUS = os.path.join(HERE, 'corpus')

DISABLED, WRITES_OFF, REVIEW, APPROVE, PROBE_TARGET, TIME_OUT, AGENT = (1 << i for i in range(7))
AGENT_ID = 'mkdaphcfnbjaelogmkdaphcfnbjaelog'

HELLO = {"type": "hello", "id": 1, "bridge": 1,
         "service": {"namespace": "userscripts", "name": "Lumo Userscripts", "version": "1.0.1"},
         "tools": [{"name": "list_scripts", "write": False}, {"name": "save_script", "write": True}]}


def frame(message):
    body = json.dumps(message, separators=(',', ':'), ensure_ascii=False).encode()
    return struct.pack('<I', len(body)) + body


def substitute(node):
    if isinstance(node, dict):
        return {k: substitute(v) for k, v in node.items()}
    if isinstance(node, list):
        return [substitute(v) for v in node]
    if node == '<re>':
        return 'app-1'
    if isinstance(node, str) and node.startswith('<audit:'):
        return 1
    return node


def write_seed(name, scene, stream):
    data = bytes([scene]) + stream
    digest = hashlib.sha256(data).hexdigest()[:12]
    with open(os.path.join(CORPUS, '%s-%s' % (name, digest)), 'wb') as f:
        f.write(data)


def main():
    os.makedirs(CORPUS, exist_ok=True)
    for old in os.listdir(CORPUS):
        if old.startswith(('scenario-', 'message-', 'frame-', 'agent-', 'hardening-')):
            os.unlink(os.path.join(CORPUS, old))

    for name in sorted(os.listdir(FIXTURES)):
        path = os.path.join(FIXTURES, name)
        with open(path) as f:
            fixture = json.load(f)
        base = name[:-len('.json')]

        if name.startswith('scenario-'):
            setup = fixture['setup']
            scene = 0
            scene |= 0 if setup.get('enabled', True) else DISABLED
            scene |= 0 if setup.get('writes', True) else WRITES_OFF
            scene |= REVIEW if setup.get('review', False) else 0
            steps = fixture['exchange']
            if any(s.get('act') == 'probeTarget' for s in steps):
                scene |= PROBE_TARGET
            stream = b''.join(frame(substitute(s['send'])) for s in steps if 'send' in s)
            write_seed(base, scene | APPROVE, stream)
            if scene & REVIEW:
                write_seed(base, scene, stream)
                write_seed(base, scene | TIME_OUT, stream)

        elif name.startswith('messages-'):
            for i, case in enumerate(fixture['cases']):
                message = case['message']
                prefix = b'' if message.get('type') == 'hello' else frame(HELLO)
                stream = prefix + frame(message)
                # Desktop agents' messages need the virtual ports open.
                scene = APPROVE | (AGENT if base.startswith('messages-agent') else 0)
                write_seed('message-%s-%d' % (base[len('messages-'):], i), scene, stream)
                if message.get('type') == 'authorize':
                    write_seed('message-%s-%d' % (base[len('messages-'):], i), REVIEW | APPROVE, stream)

        elif name == 'frames.json':
            for i, entry in enumerate(fixture['frames']):
                if 'payload_fill' in entry:
                    continue   # 1 MiB of spaces teaches the fuzzer nothing
                if 'raw_hex' in entry:
                    raw = bytes.fromhex(entry['raw_hex'])
                else:
                    payload = bytes.fromhex(entry.get('payload_hex', ''))
                    raw = struct.pack('<I', entry.get('length', len(payload))) + payload
                write_seed('frame-%d' % i, 0, frame(HELLO) + raw + frame({"type": "probe", "id": 2,
                                                                          "caller": {"id": "ponmlkjihgfedcbaponmlkjihgfedcba"}}))

    hardening_seeds()


def fresh_id(n):
    return ''.join(chr(ord('a') + ((n >> ((i % 8) * 4)) & 0xf)) for i in range(32))


def hardening_seeds():
    """Names, previews, floods and forged IDs (issue 11)."""
    caller = "ponmlkjihgfedcbaponmlkjihgfedcba"
    hello = dict(HELLO, service={"namespace": "userscripts", "name": "Lumo\nUserscripts\u202e",
                                 "version": "1.0.1\u2066"},
                 tools=[{"name": "list_scripts", "title": "List\u202e\r", "write": False},
                        {"name": "save_script", "title": "Save", "write": True}])
    evil = {"id": caller, "name": "Evil\nAgent\u202e\u0007", "version": "1\u200e"}
    preview = {"action": "update", "name": "Shop\u202e helper", "bytes": 812,
               "matches": {"old": ["https://shop.test/*"], "new": ["<all_urls>", "x\ny"]},
               "sitePack": {"old": None, "new": {"domain": "shop.test\u2067", "type": "pageMcpServer",
                                                "tools": [{"name": "put\u0085", "write": True}, {"name": 7}]}},
                "extra": {"a": [1, {"b": {"c": [True]}}], "code": "x"}, "source": "alert(1)"}
    stream = frame(hello) + frame({"type": "probe", "id": 2, "caller": evil})
    stream += frame({"type": "authorize", "id": 3, "caller": evil, "tool": "save_script", "write": True,
                     "paramsHash": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                     "preview": preview})
    write_seed('hardening-names', REVIEW | APPROVE, stream)
    write_seed('hardening-names', REVIEW | TIME_OUT, stream)

    flood = frame(HELLO) + b''.join(frame({"type": "probe", "id": 10 + i, "caller": {"id": fresh_id(i)}})
                                    for i in range(14))
    write_seed('hardening-flood', 0, flood)

    with open(os.path.join(FIXTURES, 'extension-ids.json')) as f:
        forged = [entry['id'] for entry in json.load(f)['forged']]
    stream = frame(HELLO)
    for i, value in enumerate(forged):
        stream += frame({"type": "probe", "id": 100 + i, "caller": {"id": value}})
        stream += frame({"type": "port", "id": 200 + i, "caller": {"id": value}, "port": "p", "state": "open"})
    write_seed('hardening-forged', 0, stream)


    # Virtual ports (SCENE_AGENT): "a1" is TEST_AGENT_ID's, "a2" the
    # gateway session's, whose initialize is the app's request 1 on it.
    rpc = lambda port, m: {"type": "agentMessage", "port": port, "message": dict({"jsonrpc": "2.0"}, **m)}
    agent_streams = {
        'open-answer-close': [
            {"type": "agentOpen.result", "re": "app-1"}, {"type": "agentOpen.result", "re": "app-2"},
            rpc("a2", {"id": 1, "result": {"protocolVersion": "2025-06-18", "capabilities": {}}}),
            rpc("a2", {"method": "notifications/tools/list_changed"}),
            rpc("a1", {"method": "notifications/progress", "params": {"progressToken": 1, "progress": 1}}),
            {"type": "agentClose", "port": "a2", "reason": "done"},
        ],
        'refused': [
            {"type": "error", "re": "app-2", "code": "busy", "message": "64 ports"},
            {"type": "agentClose", "port": "a1", "reason": ""},
        ],
        'authorize-port': [
            {"type": "authorize", "id": 2, "caller": {"id": AGENT_ID, "name": "Fuzzy Agent"}, "port": "a1",
             "tool": "list_scripts", "write": False},
            {"type": "authorize", "id": 3, "caller": {"id": AGENT_ID}, "port": "a1", "tool": "save_script",
             "write": True, "paramsHash": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
             "preview": {"name": "a"}},
            {"type": "authorize", "id": 4, "caller": {"id": AGENT_ID}, "port": "a2", "tool": "list_scripts",
             "write": False},
            {"type": "authorize", "id": 5, "caller": {"id": AGENT_ID}, "tool": "list_scripts", "write": False},
        ],
        'server-request': [
            rpc("a2", {"id": 0, "method": "roots/list"}),
            rpc("a2", {"id": 1, "error": {"code": -32603, "message": "no"}}),
            rpc("a2", {"id": 1, "result": {}}),
        ],
    }
    for name, messages in sorted(agent_streams.items()):
        stream = frame(HELLO) + b''.join(frame(m) for m in messages)
        write_seed('agent-' + name, AGENT | APPROVE, stream)
        write_seed('agent-' + name, AGENT | REVIEW | APPROVE, stream)


if __name__ == '__main__':
    main()
