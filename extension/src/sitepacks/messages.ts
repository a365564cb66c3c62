// SPDX-License-Identifier: GPL-3.0-or-later
//
// The messages between the service worker and the packs in tabs.
//
//   tab → worker (runtime.sendMessage; from the loader content script, or
//   from a USER_SCRIPT world, which arrives as onUserScriptMessage):
//     register {pack, tools, errors}  → {accepted, refused}
//     pull {pack}                     → {calls: [{callId, tool, args}]}
//     result {pack, callId, result}
//   worker → loader (tabs.sendMessage to one document):
//     ping                            → {ok}
//     call {pack, callId, tool, args} → result   (bundled content packs)
//     nudge {pack}                    (the loader fires the DOM event below;
//                                      the pack's USER_SCRIPT world pulls)
//
// A USER_SCRIPT world cannot be messaged from the worker, so calls for
// installed packs go by nudge and pull: the page (which sees the DOM
// event) learns only that a pack should look for work, never the work.
// Between a MAIN-world pack and its relay in a USER_SCRIPT world the
// messages go through DOM events (CHANNEL_EVENT); the page can see those,
// as it can see everything a MAIN-world pack does.

export const MSG = {
  register: 'lumo:site:register',
  pull: 'lumo:site:pull',
  result: 'lumo:site:result',
  ping: 'lumo:site:ping',
  call: 'lumo:site:call',
  nudge: 'lumo:site:nudge',
  dryRun: 'lumo:site:dryrun',
} as const;

export const NUDGE_EVENT = 'lumo-sitepack-nudge';
export const CHANNEL_EVENT = 'lumo-sitepack:';

// Where the loader finds the installed packs (names only, no source).
export const INDEX_KEY = 'sitepacks:index';

export interface IndexEntry {
  id: string;
  name: string;
  type: string;
  version: string;
}

export interface PackConfig {
  id: string;
  name: string;
  type: string;
  version: string;
  origin: 'bundled' | 'installed';
}

export interface PendingCall {
  callId: string;
  tool: string;
  args: Record<string, unknown>;
}

export const LOG_PREFIX = '[Lumo site packs]';
