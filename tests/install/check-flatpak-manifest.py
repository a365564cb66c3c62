#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks flatpak/dev.lumo.Access.json without downloading a runtime: its
structure, that every path it names exists in the repository (or is built
by a documented command), that the finish-args are exactly the narrow set we
need (display, IPC, one NativeMessagingHosts folder per browser that
src/core/browser/lumo-browser.c knows, and the network for the desktop
agents' endpoint, with the comment that says why), and that the app module
builds with meson and runs the tests that can run in the build sandbox.

The manifest may hold C comments, as flatpak-builder's JSON parser allows;
they are taken out before Python reads it.

usage: check-flatpak-manifest.py SOURCE_ROOT
"""
import json
import os
import re
import sys

source_root = os.path.abspath(sys.argv[1])
manifest_path = os.path.join(source_root, 'flatpak', 'dev.lumo.Access.json')
manifest_dir = os.path.dirname(manifest_path)
failures = []


def fail(message):
    failures.append(message)


def browser_folders():
    """The per-user (non-Flatpak) browser folders, from the C table."""
    with open(os.path.join(source_root, 'src', 'core', 'browser', 'lumo-browser.c'), encoding='utf-8') as f:
        text = f.read()
    table = text[text.index('user_targets[]'):text.index('system_targets[]')]
    return [m.group(2) for m in
            re.finditer(r'\{\s*"([a-z-]+)",\s*N_\("[^"]*"\),\s*"([^"]+)"\s*(?:\}|,\s*\.)', table)]


def strip_comments(text):
    """The JSON of a manifest with /* */ and // comments (outside strings) removed."""
    token = re.compile(r'"(?:\\.|[^"\\])*"|/\*.*?\*/|//[^\n]*', re.S)
    return token.sub(lambda m: m.group(0) if m.group(0).startswith('"') else '', text)


with open(manifest_path, encoding='utf-8') as f:
    manifest_text = f.read()
manifest = json.loads(strip_comments(manifest_text))

if manifest.get('id') != 'dev.lumo.Access':
    fail(f'id is {manifest.get("id")!r}')
if manifest.get('runtime') != 'org.gnome.Platform' or manifest.get('sdk') != 'org.gnome.Sdk':
    fail('runtime/sdk must be org.gnome.Platform / org.gnome.Sdk')
if not re.fullmatch(r'\d+', str(manifest.get('runtime-version', ''))):
    fail(f'runtime-version {manifest.get("runtime-version")!r} is not pinned to a GNOME release')
if manifest.get('command') != 'lumo-access':
    fail(f'command is {manifest.get("command")!r}, expected lumo-access')

# finish-args: exactly display + IPC + GPU, and one folder per browser.
folders = browser_folders()
if len(folders) < 5:
    fail(f'found only {len(folders)} browser folders in src/core/browser/lumo-browser.c')
expected = {'--share=ipc', '--socket=wayland', '--socket=fallback-x11', '--device=dri',
            '--share=network'}
expected |= {f'--filesystem=xdg-config/{folder}/NativeMessagingHosts:create' for folder in folders}
args = manifest.get('finish-args', [])
if len(args) != len(set(args)):
    fail('finish-args has duplicates')
for arg in sorted(set(args) - expected):
    fail(f'finish-arg {arg!r} is broader than needed or unknown')
for arg in sorted(expected - set(args)):
    fail(f'finish-arg {arg!r} is missing')
for arg in args:
    if arg.startswith('--filesystem=') and not arg.endswith('/NativeMessagingHosts:create'):
        fail(f'{arg!r}: only NativeMessagingHosts folders may be shared')
    if arg.startswith(('--talk-name=', '--own-name=', '--socket=session-bus', '--socket=system-bus')):
        fail(f'{arg!r}: the app only needs its own bus name, which is implicit')

# The network is there for one reason, and the manifest says it: the
# sandbox's own loopback would hide the desktop agents' endpoint.
comment = re.search(r'/\*((?:(?!\*/).)*)\*/\s*"--share=network"', manifest_text, re.S)
if '--share=network' in args and (comment is None or 'loopback' not in comment.group(1)
                                  or 'desktop-agents' not in comment.group(1)):
    fail('--share=network needs the comment right before it saying why: the sandbox has its '
         'own loopback (see docs/desktop-agents.md)')

# Modules: the extension bundle (built ahead, offline) and the app.
modules = {m.get('name'): m for m in manifest.get('modules', []) if isinstance(m, dict)}
app = modules.get('lumo-access')
if app is None:
    fail('no lumo-access module')
else:
    if app.get('buildsystem') != 'meson':
        fail('the lumo-access module must build with meson')
    if app.get('run-tests') is not True:
        fail('the lumo-access module must run its tests')
    if '-Dextension_tests=false' not in app.get('config-opts', []):
        fail('node and Chromium are not in the SDK: configure with -Dextension_tests=false')
    commands = ' '.join(app.get('test-commands', []))
    if app.get('test-rule', None) != '' or '--suite core' not in commands:
        fail('tests must run the display-less suites explicitly (test-rule "" + meson test --suite core)')
    for suite in re.findall(r'--suite (\S+)', commands):
        if suite in ('app', 'e2e', 'extension', 'integration'):
            fail(f'suite {suite} needs a display, a session bus, node or Chromium: not in the sandbox')
    sources = app.get('sources', [])
    if not any(s.get('type') == 'dir' and os.path.normpath(os.path.join(manifest_dir, s.get('path', '')))
               == os.path.normpath(source_root) for s in sources):
        fail('the lumo-access module must build the repository itself (type dir, path "..")')
    if not os.path.isfile(os.path.join(source_root, 'meson.build')):
        fail('no meson.build at the repository root')

bundle = modules.get('lumo-userscripts')
if bundle is None:
    fail('no lumo-userscripts module: the provider extension is not shipped')
else:
    for source in bundle.get('sources', []):
        path = os.path.normpath(os.path.join(manifest_dir, source.get('path', '')))
        if source.get('type') not in ('dir', 'archive', 'file'):
            fail(f'extension source type {source.get("type")!r} would need the network')
        if not path.startswith(os.path.normpath(source_root)):
            fail(f'extension source {path} is outside the repository')
        # dist/ is built by `npm run build` before flatpak-builder; the
        # build script must be in the repository.
        if os.path.basename(path) == 'dist':
            if not os.path.isfile(os.path.join(os.path.dirname(path), 'build.mjs')):
                fail(f'{path} is built by extension/build.mjs, which does not exist')
        elif not os.path.exists(path):
            fail(f'extension source {path} does not exist')

# Every other path the manifest names must exist.
for module in manifest.get('modules', []):
    for source in module.get('sources', []) if isinstance(module, dict) else []:
        for key in ('path',):
            if key in source and not source['path'].endswith('dist'):
                if not os.path.exists(os.path.join(manifest_dir, source['path'])):
                    fail(f'{module.get("name")}: {source["path"]} does not exist')
        if source.get('type') in ('git', 'archive', 'file') and 'url' in source:
            fail(f'{module.get("name")}: {source["url"]} needs the network; build offline')

for failure in failures:
    print(f'{manifest_path}: {failure}', file=sys.stderr)
if failures:
    sys.exit(1)
print(f'{manifest_path}: ok ({len(folders)} browser folders, {len(args)} finish-args)')
