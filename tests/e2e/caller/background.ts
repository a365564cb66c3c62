// SPDX-License-Identifier: GPL-3.0-or-later
//
// The test caller's worker does nothing: the connector runs in caller.html,
// a page that lives as long as the test, so its logical session outlives
// the provider's service worker as a host's long-lived context would.
export {};
