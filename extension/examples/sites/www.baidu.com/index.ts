// SPDX-License-Identifier: GPL-3.0-or-later
// The guide's examples one and two in English, in one registration function
// (the guide gives each as www.baidu.com/index.ts, and a folder holds one).
// Untyped, as there; extension/tsconfig.sites.json checks it. One change of
// meaning: get-page-title says readOnlyHint: true, so it is a read here (the
// guide's declares nothing, which makes it a write). The guide's own text is
// in tests/fixtures/sitepacks/guide/.
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
      const searchBox = document.querySelector('#kw'); // Baidu's search box
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
