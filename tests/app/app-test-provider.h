/* app-test-provider.h — a provider extension's session, in the test's process
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What lumo-access-host hands to the app, without the helper and the bus:
 * a socket pair whose one end the backend serves (lumo_backend_attach_async,
 * as for the D-Bus Attach call) and whose other end the test writes frames
 * to and reads the app's answers from, as the provider extension would.
 * Waiting iterates the main context (the backend answers there) and never
 * sleeps; a missing answer fails the test past the wait deadline.
 */
#pragma once

#include <json-glib/json-glib.h>

#include "lumo-backend.h"

G_BEGIN_DECLS

typedef struct _AppTestProvider AppTestProvider;

/* Attaches a new session of @provider_id ("chrome-extension://ID/") to
 * @backend. Nothing is sent yet. */
AppTestProvider *app_test_provider_connect     (LumoBackend     *backend,
                                                const char      *provider_id);
/* Ends the session as Chrome does (closes the pipe) and waits until the
 * backend has let it go. */
void             app_test_provider_free        (AppTestProvider *provider);

/* Sends one frame of @json as it is. */
void             app_test_provider_send        (AppTestProvider *provider,
                                                const char      *json);
/* The id the next app_test_provider_request() will use (for a request
 * sent with app_test_provider_send() whose answer comes later). */
gint64           app_test_provider_take_id     (AppTestProvider *provider);
/* Waits for the answer whose `re` is @id; other frames are dropped. */
JsonObject      *app_test_provider_wait_answer (AppTestProvider *provider,
                                                gint64           id);
/* Sends {"id":N,@body} (the members of a request without the braces, e.g.
 * "\"type\":\"probe\",…") and returns the answer. */
JsonObject      *app_test_provider_request     (AppTestProvider *provider,
                                                const char      *format,
                                                ...) G_GNUC_PRINTF (2, 3);
/* The provider's hello: Lumo Userscripts 1.0.1, namespace "userscripts",
 * with two read and three write tools. Fails the test unless the app
 * answered hello.result. */
void             app_test_provider_hello       (AppTestProvider *provider);
/* Reads and drops what the app has sent so far. */
void             app_test_provider_drain       (AppTestProvider *provider);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AppTestProvider, app_test_provider_free)

G_END_DECLS
