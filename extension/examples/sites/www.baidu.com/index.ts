// SPDX-License-Identifier: GPL-3.0-or-later
// The guide's examples one and two, as written there (untyped, as a pack
// from that guide would be; extension/tsconfig.sites.json checks it).
export default ({ server, z }) => {
  server.registerTool(
    'get-page-title',
    {
      title: 'Get the page title',
      description: 'Returns the title text of the current page',
      annotations: { readOnlyHint: true },
    },
    async () => {
      const title = document.title;
      return {
        content: [{ type: 'text', text: title }],
      };
    },
  );

  server.registerTool(
    'fill-search-box',
    {
      title: 'Fill the search box',
      description: 'Fills the search box with the given text',
      inputSchema: {
        text: z.string().describe('The text to fill in'),
      },
    },
    async ({ text }) => {
      const searchBox = document.querySelector<HTMLInputElement>('#kw'); // Baidu's search box
      if (searchBox) {
        searchBox.value = text;
        // Fire an input event so the page notices.
        searchBox.dispatchEvent(new Event('input', { bubbles: true }));
        return {
          content: [{ type: 'text', text: `Filled in: ${text}` }],
        };
      } else {
        return {
          content: [{ type: 'text', text: 'No search box found' }],
        };
      }
    },
  );
};
