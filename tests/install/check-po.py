#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Translation completeness, as a test:

 1. every file in po/POTFILES exists, and every file with a translatable
    string (C `_()`/`N_()`/`C_()`, .ui `translatable="yes"`, the desktop
    file, metainfo and GSettings schema) is listed in po/POTFILES — a string
    in an unlisted file never reaches the template;
 2. the template built from po/POTFILES with xgettext (the same keywords as
    meson's glib preset) is fully covered by every language in po/LINGUAS:
    no message missing, untranslated or fuzzy, and msgfmt --check passes;
 3. po/LINGUAS lists zh_CN.

usage: check-po.py SOURCE_ROOT
"""
import os
import re
import subprocess
import sys
import tempfile

source_root = os.path.abspath(sys.argv[1])
po_dir = os.path.join(source_root, 'po')
problems = []

XGETTEXT_ARGS = [
    '--from-code=UTF-8', '--add-comments', '--package-name=lumo-access',
    '--keyword=_', '--keyword=N_', '--keyword=C_:1c,2', '--keyword=NC_:1c,2',
    '--keyword=g_dcgettext:2', '--keyword=g_dngettext:2,3', '--keyword=g_dpgettext2:2c,3',
    '--flag=N_:1:pass-c-format', '--flag=C_:2:pass-c-format', '--flag=NC_:2:pass-c-format',
    '--flag=g_dngettext:2:pass-c-format', '--flag=g_strdup_printf:1:c-format',
    '--flag=g_string_printf:2:c-format', '--flag=g_string_append_printf:2:c-format',
    '--flag=g_error_new:3:c-format', '--flag=g_set_error:4:c-format',
    '--flag=g_markup_printf_escaped:1:c-format', '--flag=g_printerr:1:c-format',
    '--flag=g_print:1:c-format',
]

C_MARK = re.compile(r'(?<![A-Za-z0-9_])(?:_|N_|C_|NC_|g_dgettext|g_dngettext|g_dpgettext2)\s*\(\s*(?:"|[A-Z_]+\s*,\s*")')
UI_MARK = re.compile(r'translatable\s*=\s*"(?:yes|true|1)"')
# Files that are translated as a whole by i18n.merge_file / gettext-domain.
WHOLE_FILE = re.compile(r'\.(desktop\.in(\.in)?|metainfo\.xml\.in(\.in)?|gschema\.xml(\.in)?)$')


def read_list(name):
    path = os.path.join(po_dir, name)
    with open(path, encoding='utf-8') as f:
        return [line.strip() for line in f if line.strip() and not line.lstrip().startswith('#')]


def candidate_files():
    for top in ('src', 'ui', 'data'):
        for dirpath, dirnames, filenames in os.walk(os.path.join(source_root, top)):
            dirnames[:] = [d for d in dirnames if not d.startswith(('_build', '.'))]
            for filename in filenames:
                yield os.path.relpath(os.path.join(dirpath, filename), source_root)


def has_translatable(relpath):
    if WHOLE_FILE.search(relpath):
        return True
    if relpath.endswith(('.c', '.h')):
        pattern = C_MARK
    elif relpath.endswith('.ui'):
        pattern = UI_MARK
    else:
        return False
    with open(os.path.join(source_root, relpath), encoding='utf-8', errors='replace') as f:
        text = f.read()
    # Comments do not count: a `_("…")` in a comment is not a string.
    if pattern is C_MARK:
        text = re.sub(r'/\*.*?\*/', '', text, flags=re.S)
        text = re.sub(r'//[^\n]*', '', text)
    return bool(pattern.search(text))


def run(argv):
    return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True)


def msgids(po_path, *attrib_args):
    """The msgids msgattrib selects (e.g. --only-fuzzy), as a list."""
    result = run(['msgattrib', '--no-wrap', '--no-obsolete', *attrib_args, po_path])
    if result.returncode != 0:
        problems.append(f'msgattrib {" ".join(attrib_args)} {po_path}: {result.stderr.strip()}')
        return []
    return [key for key in parse_keys(result.stdout) if key != (None, '')]


def parse_keys(text):
    """(msgctxt, msgid) of every entry, with continuation lines joined."""
    keys, ctxt, msgid, field = [], None, None, None
    for line in text.splitlines() + ['']:
        line = line.strip()
        if line.startswith('msgctxt '):
            ctxt, field = line[8:][1:-1], 'ctxt'
        elif line.startswith('msgid '):
            msgid, field = line[6:][1:-1], 'id'
        elif line.startswith('"') and field in ('ctxt', 'id'):
            if field == 'ctxt':
                ctxt += line[1:-1]
            else:
                msgid += line[1:-1]
        elif line.startswith(('msgid_plural', 'msgstr')):
            if field == 'id':
                keys.append((ctxt, msgid))
            field = 'str'
        elif line == '' and field == 'str':
            ctxt, msgid, field = None, None, None
    return keys


# 1. POTFILES lists exactly what exists, and everything translatable.
potfiles = read_list('POTFILES')
for entry in potfiles:
    if not os.path.isfile(os.path.join(source_root, entry)):
        problems.append(f'po/POTFILES lists {entry}, which does not exist')
listed = set(potfiles)
for relpath in sorted(candidate_files()):
    if relpath not in listed and has_translatable(relpath):
        problems.append(f'{relpath} has translatable strings but is not in po/POTFILES')

# 3. LINGUAS
linguas = [tok for line in read_list('LINGUAS') for tok in line.split()]
if 'zh_CN' not in linguas:
    problems.append('po/LINGUAS does not list zh_CN')

# 2. The template, and each language against it.
with tempfile.TemporaryDirectory(prefix='lumo-po-') as tmp:
    pot = os.path.join(tmp, 'lumo-access.pot')
    files_from = os.path.join(tmp, 'POTFILES')
    with open(files_from, 'w', encoding='utf-8') as f:
        f.write('\n'.join(e for e in potfiles if os.path.isfile(os.path.join(source_root, e))))
    result = run(['xgettext', *XGETTEXT_ARGS, '--directory', source_root,
                  '--files-from', files_from, '--output', pot])
    if result.returncode != 0:
        problems.append(f'xgettext failed: {result.stderr.strip()}')
    elif result.stderr.strip():
        for line in result.stderr.strip().splitlines():
            problems.append(f'xgettext: {line}')

    template_ids = msgids(pot) if os.path.exists(pot) else []
    for lang in linguas:
        po = os.path.join(po_dir, f'{lang}.po')
        if not os.path.isfile(po):
            problems.append(f'po/{lang}.po does not exist')
            continue

        check = run(['msgfmt', '--check', '--output-file', os.devnull, po])
        if check.returncode != 0 or check.stderr.strip():
            problems.append(f'msgfmt --check po/{lang}.po: {check.stderr.strip()}')

        translated = set(msgids(po))
        missing = [i for i in template_ids if i not in translated]
        untranslated = msgids(po, '--untranslated')
        fuzzy = msgids(po, '--only-fuzzy')
        for label, ids in (('missing from', missing), ('untranslated in', untranslated),
                           ('fuzzy in', fuzzy)):
            if ids:
                shown = '; '.join(repr(i if c is None else f'{c}|{i}') for c, i in ids[:8])
                more = f' (and {len(ids) - 8} more)' if len(ids) > 8 else ''
                problems.append(f'{len(ids)} message(s) {label} po/{lang}.po: {shown}{more}')
        print(f'po/{lang}.po: {len(template_ids)} messages in the template, '
              f'{len(missing)} missing, {len(untranslated)} untranslated, {len(fuzzy)} fuzzy')

for problem in problems:
    print(problem, file=sys.stderr)
sys.exit(1 if problems else 0)
