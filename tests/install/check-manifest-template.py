#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks the installed native-messaging manifest template the way Chrome
reads it: a JSON object with our host name, an absolute path to the helper,
type stdio and allowed_origins of exact chrome-extension://ID/ origins (no
wildcards, trailing slash). Also checks that the default of the
provider_extension_ids option is the ID Chrome derives from the key in
extension/manifest.json, so the template lets the bundled provider in.

usage: check-manifest-template.py MANIFEST HOST_NAME HOST_PATH SOURCE_ROOT
"""
import base64
import hashlib
import json
import re
import sys

ORIGIN_RE = re.compile(r'^chrome-extension://[a-p]{32}/$')
HOST_NAME_RE = re.compile(r'^[a-z0-9_]+(\.[a-z0-9_]+)*$')


def extension_id_from_key(key_b64):
    digest = hashlib.sha256(base64.b64decode(key_b64)).hexdigest()[:32]
    return ''.join(chr(ord('a') + int(c, 16)) for c in digest)


def main():
    path, host_name, host_path, source_root = sys.argv[1:5]
    failures = []

    with open(path, encoding='utf-8') as f:
        manifest = json.load(f)

    if not isinstance(manifest, dict):
        sys.exit(f'{path}: not a JSON object')

    expected_keys = {'name', 'description', 'path', 'type', 'allowed_origins'}
    if set(manifest) != expected_keys:
        failures.append(f'members are {sorted(manifest)}, expected {sorted(expected_keys)}')
    if manifest.get('name') != host_name:
        failures.append(f'name is {manifest.get("name")!r}, expected {host_name!r}')
    if not HOST_NAME_RE.match(str(manifest.get('name'))):
        failures.append(f'name {manifest.get("name")!r} is not a valid native host name')
    if manifest.get('path') != host_path or not str(manifest.get('path')).startswith('/'):
        failures.append(f'path is {manifest.get("path")!r}, expected the absolute {host_path!r}')
    if manifest.get('type') != 'stdio':
        failures.append(f'type is {manifest.get("type")!r}, expected "stdio"')
    if not isinstance(manifest.get('description'), str) or not manifest['description']:
        failures.append('description is missing or empty')

    origins = manifest.get('allowed_origins')
    if not isinstance(origins, list):
        failures.append('allowed_origins is not a list')
        origins = []
    for origin in origins:
        if not isinstance(origin, str) or not ORIGIN_RE.match(origin):
            failures.append(f'allowed origin {origin!r} is not chrome-extension://<32 a-p>/')
    if len(set(map(str, origins))) != len(origins):
        failures.append('allowed_origins has duplicates')

    # The option's default must be the bundled provider's real ID.
    try:
        with open(f'{source_root}/extension/manifest.json', encoding='utf-8') as f:
            key = json.load(f).get('key')
        with open(f'{source_root}/meson_options.txt', encoding='utf-8') as f:
            options = f.read()
    except FileNotFoundError:
        key = None
    if key:
        bundled = extension_id_from_key(key)
        default = re.search(r"option\('provider_extension_ids'[^)]*value: \[([^\]]*)\]", options, re.S)
        if default is None or f"'{bundled}'" not in default.group(1):
            failures.append(f'the default of provider_extension_ids does not contain the bundled '
                            f'provider\'s ID {bundled} (derived from extension/manifest.json "key")')

    for failure in failures:
        print(f'{path}: {failure}', file=sys.stderr)
    if failures:
        sys.exit(1)
    print(f'{path}: ok ({len(origins)} allowed origin(s))')


if __name__ == '__main__':
    main()
