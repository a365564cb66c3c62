#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Every screenshot the metainfo names (docs/screenshots/NAME.png in the
repository) exists, so software centres do not show broken images once the
repository is published. Skipped (77) while docs/screenshots/ does not exist.

usage: check-screenshots.py SOURCE_ROOT
"""
import os
import re
import sys

root = sys.argv[1]
with open(os.path.join(root, 'data', 'dev.lumo.Access.metainfo.xml.in.in'), encoding='utf-8') as f:
    names = re.findall(r'/docs/screenshots/([A-Za-z0-9_.-]+\.png)</image>', f.read())

shots = os.path.join(root, 'docs', 'screenshots')
if not names:
    sys.exit('the metainfo names no screenshots')
if not os.path.isdir(shots):
    print(f'SKIP: docs/screenshots/ does not exist yet (the metainfo names {", ".join(names)})')
    sys.exit(77)
missing = [n for n in names if not os.path.isfile(os.path.join(shots, n))]
if missing:
    present = sorted(os.listdir(shots))
    sys.exit(f'the metainfo names docs/screenshots/{", ".join(missing)}, which do not exist '
             f'(present: {", ".join(present)})')
print(f'ok: {len(names)} screenshots')
