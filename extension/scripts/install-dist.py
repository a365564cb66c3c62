#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""`meson install` step: copies the built provider extension (extension/dist,
made by `npm run build` in extension/) to DATADIR/lumo-access/extension, the
folder the app's set-up shows for Load unpacked.

usage: install-dist.py DIST DATADIR REQUIRED
  DIST      the built extension (a folder with manifest.json)
  DATADIR   the install datadir, relative to the prefix or absolute
  REQUIRED  "enabled": a missing build fails the install (exit 1);
            "auto": it is reported and skipped (exit 0)

The folder is replaced as a whole (a file dropped from the build does not
linger), through a sibling folder renamed into place, so a failed copy
leaves the previous installation as it was. Honours DESTDIR through meson's
MESON_INSTALL_DESTDIR_PREFIX; `meson install --dry-run` copies nothing.
"""
import os
import shutil
import sys

dist, datadir, required = sys.argv[1:4]

prefix = os.environ.get('MESON_INSTALL_DESTDIR_PREFIX')
if prefix is None:
    sys.exit('install-dist.py runs from `meson install` (MESON_INSTALL_DESTDIR_PREFIX is not set)')
if os.path.isabs(datadir):
    # An absolute datadir outside the prefix still goes under DESTDIR.
    destdir = os.environ.get('DESTDIR', '')
    target_root = destdir + datadir if destdir else datadir
else:
    target_root = os.path.join(prefix, datadir)
target = os.path.join(target_root, 'lumo-access', 'extension')
shown = os.path.join(os.environ.get('MESON_INSTALL_PREFIX', ''), datadir, 'lumo-access', 'extension')

if not os.path.isfile(os.path.join(dist, 'manifest.json')):
    message = (f'the provider extension is not built ({dist} has no manifest.json), so it is not '
               f'installed to {shown}: build it with `(cd extension && npm ci && npm run build)` '
               'and install again. Lumo Access says so in its set-up steps.')
    if required == 'enabled':
        sys.exit(f'install-dist.py: {message} (-Dextension=enabled)')
    print(f'Skipping: {message}')
    sys.exit(0)

if os.environ.get('MESON_INSTALL_DRY_RUN'):
    print(f'Would install {dist} to {target}')
    sys.exit(0)

os.makedirs(target_root, exist_ok=True)
os.makedirs(os.path.dirname(target), exist_ok=True)
staging = target + '.new'
old = target + '.old'
for leftover in (staging, old):
    shutil.rmtree(leftover, ignore_errors=True)
# Source maps and all: the extension is loaded as it was built.
shutil.copytree(dist, staging, symlinks=False)
for root, dirs, files in os.walk(staging):
    os.chmod(root, 0o755)
    for name in files:
        os.chmod(os.path.join(root, name), 0o644)
if os.path.exists(target):
    os.rename(target, old)
os.rename(staging, target)
shutil.rmtree(old, ignore_errors=True)
print(f'Installing {dist} to {target}')
