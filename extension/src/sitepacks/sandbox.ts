// SPDX-License-Identifier: GPL-3.0-or-later
//
// sandbox.html: an opaque-origin page without extension APIs where an
// installed pack's registration code is tried before the install. The code
// is inserted as an inline script so that a syntax error comes with its
// line and column (the wrapper adds no line before the author's first).

import { z } from 'zod';
import { registerDefined } from './dry-run.ts';
import { EXPORTS_PARAM } from './source.ts';

z.config({ jitless: true });

type Define = (exports: { default?: unknown }) => void;
let current: { id: string; errors: string[]; define: Define | null } | null = null;

window.addEventListener('error', (e) => {
  if (current !== null)
    current.errors.push(`the code does not parse: line ${e.lineno}, column ${e.colno}: ${e.message.replace(/^Uncaught /, '').replace(/Failed to execute '[^']+' on '[^']+': /, '')}`);
});

Object.defineProperty(window, '__lumoDry', {
  value: (id: string, define: Define) => {
    if (current !== null && current.id === id && current.define === null)
      current.define = define;
  },
});

window.addEventListener('message', (e) => {
  if (e.source !== window.parent)
    return;
  const m = e.data as { id?: unknown; code?: unknown };
  if (typeof m?.id !== 'string' || typeof m.code !== 'string')
    return;
  const id = m.id;
  current = { id, errors: [], define: null };
  const s = document.createElement('script');
  s.textContent = `__lumoDry(${JSON.stringify(id)}, function (${EXPORTS_PARAM}) {"use strict";${m.code}\n});`;
  document.head.appendChild(s);
  s.remove();
  const c = current;
  current = null;
  const reply = (r: { tools: unknown[]; errors: string[] }): void => window.parent.postMessage({ id, ...r }, '*');
  if (c.errors.length > 0 || c.define === null) {
    reply({ tools: [], errors: c.errors.length > 0 ? c.errors : ['the code did not run'] });
    return;
  }
  void registerDefined(c.define).then(reply, (err) => reply({ tools: [], errors: [String(err)] }));
});
