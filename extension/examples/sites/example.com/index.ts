// SPDX-License-Identifier: GPL-3.0-or-later
// The guide's example three in English: an operation that needs the login,
// from the page's cookies (HttpOnly cookies are not among them). One change
// of meaning: readOnlyHint: true makes it a read (the guide's is a write).
export default ({ server, z, cookie }) => {
  server.registerTool(
    'get-user-profile',
    {
      title: 'Get the user profile',
      description: 'Returns the profile of the signed-in user',
      inputSchema: {},
      annotations: { readOnlyHint: true },
    },
    async () => {
      // Is the user signed in?
      const sessionId = cookie['session_id'];
      if (!sessionId) {
        return {
          content: [{ type: 'text', text: 'Not signed in; please log in first' }],
        };
      }
      try {
        // Here the pack would call the site's API or read the DOM.
        const userInfo = {
          name: 'Example user',
          email: 'user@example.com',
          role: 'admin',
        };
        return {
          content: [{ type: 'text', text: JSON.stringify(userInfo, null, 2) }],
        };
      } catch (error) {
        return {
          content: [{ type: 'text', text: `Could not get the user profile: ${error.message}` }],
        };
      }
    },
  );
};
