/* app-test-provider.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <errno.h>
#include <gio/gunixinputstream.h>
#include <gio/gunixoutputstream.h>
#include <glib-unix.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "app-test-provider.h"
#include "lumo-test.h"

struct _AppTestProvider
{
  LumoBackend *backend;
  int          fd;           /* the browser's end */
  GByteArray  *inbox;        /* bytes read, not yet a whole frame */
  gint64       next_id;
  gboolean     ended;        /* the backend let the session go */
};

static void
on_attach_done_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  gboolean *ended = user_data;

  g_free (lumo_backend_attach_finish (LUMO_BACKEND (object), result, NULL));
  *ended = TRUE;
}

AppTestProvider *
app_test_provider_connect (LumoBackend *backend,
                           const char  *provider_id)
{
  AppTestProvider *provider = g_new0 (AppTestProvider, 1);
  g_autoptr(GInputStream) input = NULL;
  g_autoptr(GOutputStream) output = NULL;
  g_autofree char *origin = g_strdup_printf ("chrome-extension://%s/", provider_id);
  int fds[2];

  g_assert_cmpint (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), ==, 0);
  g_assert_true (g_unix_set_fd_nonblocking (fds[0], TRUE, NULL));
  g_assert_true (g_unix_set_fd_nonblocking (fds[1], TRUE, NULL));

  provider->backend = g_object_ref (backend);
  provider->fd = fds[1];
  provider->inbox = g_byte_array_new ();
  provider->next_id = 1;

  /* The app's end, as the helper's stdin and stdout. */
  input = g_unix_input_stream_new (fds[0], TRUE);
  output = g_unix_output_stream_new (dup (fds[0]), TRUE);
  lumo_backend_attach_async (backend, origin, input, output, NULL, on_attach_done_cb,
                             &provider->ended);
  return provider;
}

void
app_test_provider_free (AppTestProvider *provider)
{
  if (provider == NULL)
    return;

  close (provider->fd);
  lumo_test_wait_until (lumo_test_is_true, &provider->ended, "the provider's session to end");
  g_byte_array_unref (provider->inbox);
  g_object_unref (provider->backend);
  g_free (provider);
}

void
app_test_provider_send (AppTestProvider *provider,
                        const char      *json)
{
  guint32 len = strlen (json);
  g_autoptr(GByteArray) frame = g_byte_array_sized_new (sizeof len + len);
  gsize done = 0;

  g_byte_array_append (frame, (const guint8 *) &len, sizeof len);
  g_byte_array_append (frame, (const guint8 *) json, len);

  /* The backend reads on the main context: let it while the pipe is full. */
  while (done < frame->len)
    {
      gssize n = write (provider->fd, frame->data + done, frame->len - done);

      if (n > 0)
        done += n;
      else if (n < 0 && errno != EAGAIN && errno != EINTR)
        g_error ("Cannot write to the app: %s", g_strerror (errno));
      else
        g_main_context_iteration (NULL, FALSE);
    }
}

gint64
app_test_provider_take_id (AppTestProvider *provider)
{
  return provider->next_id++;
}

/* The next whole frame the app sent, or NULL if none has come yet. */
static JsonObject *
next_frame (AppTestProvider *provider)
{
  guint8 buffer[65536];
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  guint32 len;
  gssize n;

  while ((n = read (provider->fd, buffer, sizeof buffer)) > 0)
    g_byte_array_append (provider->inbox, buffer, n);

  if (provider->inbox->len < sizeof len)
    return NULL;
  memcpy (&len, provider->inbox->data, sizeof len);
  if (provider->inbox->len < sizeof len + len)
    return NULL;

  text = g_strndup ((const char *) provider->inbox->data + sizeof len, len);
  g_byte_array_remove_range (provider->inbox, 0, sizeof len + len);
  node = json_from_string (text, &error);
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
  return json_object_ref (json_node_get_object (node));
}

typedef struct
{
  AppTestProvider *provider;
  gint64           id;
  JsonObject      *answer;
} AnswerWait;

static gboolean
answer_came (gpointer data)
{
  AnswerWait *wait = data;
  JsonObject *frame;

  while (wait->answer == NULL && (frame = next_frame (wait->provider)) != NULL)
    {
      if (json_object_has_member (frame, "re") &&
          json_object_get_int_member (frame, "re") == wait->id)
        wait->answer = frame;
      else
        json_object_unref (frame);
    }

  return wait->answer != NULL;
}

JsonObject *
app_test_provider_wait_answer (AppTestProvider *provider,
                               gint64           id)
{
  AnswerWait wait = { provider, id, NULL };
  g_autofree char *what = g_strdup_printf ("the app's answer to request %" G_GINT64_FORMAT, id);

  lumo_test_wait_until (answer_came, &wait, what);
  return wait.answer;
}

JsonObject *
app_test_provider_request (AppTestProvider *provider,
                           const char      *format,
                           ...)
{
  g_autofree char *body = NULL;
  g_autofree char *json = NULL;
  gint64 id = app_test_provider_take_id (provider);
  va_list args;

  va_start (args, format);
  body = g_strdup_vprintf (format, args);
  va_end (args);

  json = g_strdup_printf ("{\"id\":%" G_GINT64_FORMAT ",%s}", id, body);
  app_test_provider_send (provider, json);
  return app_test_provider_wait_answer (provider, id);
}

void
app_test_provider_hello (AppTestProvider *provider)
{
  g_autoptr(JsonObject) answer =
    app_test_provider_request (provider,
                               "\"type\":\"hello\",\"bridge\":1,"
                               "\"service\":{\"namespace\":\"userscripts\",\"name\":\"Lumo Userscripts\",\"version\":\"1.0.1\"},"
                               "\"tools\":["
                               "{\"name\":\"list_scripts\",\"title\":\"List scripts\",\"write\":false},"
                               "{\"name\":\"get_script\",\"title\":\"Read a script\",\"write\":false},"
                               "{\"name\":\"save_script\",\"title\":\"Save a script\",\"write\":true},"
                               "{\"name\":\"set_enabled\",\"title\":\"Turn a script on or off\",\"write\":true},"
                               "{\"name\":\"delete_script\",\"title\":\"Delete a script\",\"write\":true}]");

  g_assert_cmpstr (json_object_get_string_member_with_default (answer, "type", NULL), ==,
                   "hello.result");
}

void
app_test_provider_drain (AppTestProvider *provider)
{
  JsonObject *frame;

  lumo_test_drain ();
  while ((frame = next_frame (provider)) != NULL)
    json_object_unref (frame);
}
