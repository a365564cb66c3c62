// SPDX-License-Identifier: GPL-3.0-or-later
// The guide's example four in English: several tools in one pack. One
// change of meaning: get-elements says readOnlyHint: true, so it is a read
// (the guide's declares nothing, which makes it a write).
export default ({ server, z }) => {
  // Tool one: set the page background colour
  server.registerTool(
    'generate-color',
    {
      title: 'Set the page background colour',
      description: 'Sets the background colour of the page to the given value',
      inputSchema: {
        color: z.string().describe('A hex colour value, e.g. #000000'),
      },
    },
    async ({ color }) => {
      document.body.style.backgroundColor = color;
      return {
        content: [{ type: 'text', text: `Background colour set to: ${color}` }],
      };
    },
  );

  // Tool two: query page elements
  server.registerTool(
    'get-elements',
    {
      title: 'Get page elements',
      description: 'Returns information on the elements that match a selector',
      inputSchema: {
        selector: z.string().describe('A CSS selector, e.g. .class-name or #id-name'),
      },
      annotations: { readOnlyHint: true },
    },
    async ({ selector }) => {
      const elements = document.querySelectorAll(selector);
      const result = Array.from(elements).map((el, index) => ({
        index,
        tagName: el.tagName,
        textContent: el.textContent?.trim().substring(0, 100), // keep it short
        className: el.className,
        id: el.id,
      }));
      return {
        content: [{ type: 'text', text: JSON.stringify(result, null, 2) }],
      };
    },
  );
};
